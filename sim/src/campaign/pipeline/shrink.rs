//! `shrink` as one library call: a scenario file's trace shrunk on a store (keeping the
//! invariant the file expects, when the store is the one it was recorded on), made a
//! scenario and written (by default beside the input, under a name no file has:
//! [`beside`]). [`shrink_file`] returns it all; the CLI only prints it.

use std::path::{Path, PathBuf};

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

/// Where `shrink FILE` writes when no `-o` is given: beside `input`, as
/// `<stem>.shrunk.json`, or `<stem>.shrunk-2.json`, `-3`, … when that name is taken, so
/// that shrinking never replaces a file (the input, or an earlier shrink's output). The
/// name is free when chosen; a file made in the moment between is replaced, as by `-o`.
pub fn beside(input: &Path) -> PathBuf {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "scenario".to_string());
    let dir = input.parent().unwrap_or(Path::new(""));
    let named = |n: u32| {
        dir.join(match n {
            1 => format!("{stem}.shrunk.json"),
            n => format!("{stem}.shrunk-{n}.json"),
        })
    };
    (1..)
        .map(named)
        .find(|p| std::fs::symlink_metadata(p).is_err())
        .expect("some name is free")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrink_writes_beside_its_input_under_a_name_no_file_has() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("found.json");
        std::fs::write(&input, "{}").unwrap();
        let first = beside(&input);
        assert_eq!(first, dir.path().join("found.shrunk.json"));
        std::fs::write(&first, "{}").unwrap();
        assert_eq!(beside(&input), dir.path().join("found.shrunk-2.json"));
        std::fs::write(dir.path().join("found.shrunk-2.json"), "{}").unwrap();
        assert_eq!(beside(&input), dir.path().join("found.shrunk-3.json"));
        // A relative input: beside it, relative too.
        assert_eq!(
            beside(Path::new("no-such-dir/x.json")),
            Path::new("no-such-dir/x.shrunk.json")
        );
    }
}
