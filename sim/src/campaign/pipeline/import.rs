//! `import` as one library call: a recorded log read ([`crate::trace::log`]), explained by
//! a schedule of the world ([`crate::trace::import`]), judged on the store under test and
//! written as an ordinary scenario file (atomically). [`import_log`] returns it all; the
//! CLI only prints it.

use std::path::Path;

use crate::model::pins::WorldPins;
use crate::model::store::StoreFactory;
use crate::trace::class::{classify, Class};
use crate::trace::import::{import, ImportError, Imported, SearchLimits};
use crate::trace::log::{self, LogError};
use crate::trace::scenario::Scenario;

/// What an import made.
pub struct ImportRun {
    /// The schedule found.
    pub imported: Imported,
    /// The entries the log holds.
    pub entries: usize,
    /// The scenario written.
    pub scenario: Scenario,
    /// The class it shows on the store, `None` when it passes.
    pub class: Option<Class>,
}

/// Why an import made no file.
#[derive(Debug)]
pub enum ImportFailure {
    /// The log could not be read.
    Log(LogError),
    /// The log could not be explained (or the search gave up).
    Search(ImportError),
    /// The store under test did not take the schedule found: its requests are not the
    /// log's (a log recorded on another store or build).
    Diverged(String),
    /// The scenario could not be written.
    Write(String),
}

impl std::fmt::Display for ImportFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImportFailure::Log(e) => write!(f, "{e}"),
            ImportFailure::Search(e) => f.write_str(&e.to_string()),
            ImportFailure::Diverged(why) | ImportFailure::Write(why) => f.write_str(why),
        }
    }
}

/// Import the log at `path` for `store` (whose contract, then `pins`, fix the world's
/// options) and write the scenario to `out`.
pub fn import_log(
    path: &Path,
    store: &dyn StoreFactory,
    pins: &WorldPins,
    limits: SearchLimits,
    out: &Path,
) -> Result<ImportRun, ImportFailure> {
    let log = log::load(path).map_err(ImportFailure::Log)?;
    let contract = store.contract().map_err(ImportFailure::Diverged)?;
    let pins_all = contract.then(pins).map_err(ImportFailure::Diverged)?;
    let mut imported = import(&log, &pins_all, limits).map_err(ImportFailure::Search)?;
    imported.config.steps_max = imported
        .config
        .steps_max
        .max(u32::try_from(imported.steps.len()).unwrap_or(u32::MAX));
    let classified = classify(store, imported.config.clone(), &imported.steps, &[]);
    if let Some(&i) = classified.report.skipped.first() {
        return Err(ImportFailure::Diverged(format!(
            "{}: the store {} did not take step {} ({}) of the schedule that explains the log: its requests are not the log's (was the log recorded on another store or build?)",
            path.display(),
            store.name(),
            i + 1,
            imported.steps[i]
        )));
    }
    let mut scenario = Scenario::record(
        store,
        imported.config.clone(),
        &imported.steps,
        classified.report.outcome.invariant(),
    );
    scenario.class = classified.class.clone();
    scenario.world_pins = pins_all;
    scenario.description = Some(format!(
        "imported from {} ({} entries; {} of {} steps inferred)",
        path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned()
        ),
        log.entries.len(),
        imported.inferred,
        imported.steps.len()
    ));
    scenario
        .save(out)
        .map_err(|e| ImportFailure::Write(format!("cannot write {}: {e}", out.display())))?;
    Ok(ImportRun {
        entries: log.entries.len(),
        imported,
        scenario,
        class: classified.class,
    })
}
