//! `shrink` as one library call: a scenario file's trace shrunk on a store (keeping the
//! invariant the file expects, when the store is the one it was recorded on), made a
//! scenario and written. [`shrink_file`] returns it all; the CLI only prints it.

use std::path::Path;

use crate::campaign::findings::scenario_of;
use crate::model::store::StoreFactory;
use crate::trace::scenario::Scenario;
use crate::trace::shrink::{shrink, DoesNotFail, Limits, Shrunk};

/// A shrunk scenario and whether it was written.
pub struct ShrinkRun {
    /// The shrinking: the trace, its violation, how far it got.
    pub shrunk: Shrunk,
    /// The scenario made of it (the source's description kept).
    pub scenario: Scenario,
    /// Why it could not be written to the output path, if it could not.
    pub write_error: Option<String>,
}

/// Shrink `source`'s trace on `store` within `limits` and write the result to `out`; an
/// error when the trace does not fail there as required.
pub fn shrink_file(
    source: &Scenario,
    store: &dyn StoreFactory,
    limits: Limits,
    out: &Path,
) -> Result<ShrinkRun, DoesNotFail> {
    let target = if store.name() == source.store {
        source.expect
    } else {
        None
    };
    let shrunk = shrink(
        store,
        source.config.clone(),
        &source.steps(),
        target,
        limits,
    )?;
    let mut scenario = scenario_of(store, &shrunk, source.seed, source.strategy.clone());
    scenario.description = source.description.clone();
    let write_error = scenario
        .save(out)
        .err()
        .map(|e| format!("cannot write {}: {e}", out.display()));
    Ok(ShrinkRun {
        shrunk,
        scenario,
        write_error,
    })
}
