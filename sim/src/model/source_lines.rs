//! The source lines of a store that a run executed, recorded only while a caller asks
//! ([`record`]): fault localization (`--localize`, [`crate::trace::localize`]) compares the
//! lines of failing runs with those of passing ones.
//!
//! Why a per-thread recorder rather than a value threaded through the runner: a run's
//! stores are made, driven and dropped inside [`crate::run`] on the thread that runs it,
//! and only a store in another process (`exec:`, through the protocol's `coverage`
//! extension) can say which of its lines ran. The recorder lets that store hand its lines
//! over when the run's world drops it, without every runner and world knowing about
//! coverage; when nothing records, a store asks its adapter nothing (no cost).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// What one run recorded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    /// Lines run, by file (relative to `root`).
    pub lines: BTreeMap<String, BTreeSet<u32>>,
    /// Lines run by each input a store handled, in order (the last one is the step that
    /// ended a failing run: where a store that loses or misshapes a row made its wrong
    /// decision).
    pub steps: Vec<BTreeMap<String, BTreeSet<u32>>>,
    /// The directory the files are relative to (the adapter's project root), when a store
    /// said.
    pub root: Option<String>,
    /// Whether the run passed (no violation it did not excuse); `None` if no run ended.
    pub passed: Option<bool>,
    /// Why some store of the run could not say which lines ran.
    pub unsupported: Option<String>,
}

thread_local! {
    static RECORDER: RefCell<Option<Recorded>> = const { RefCell::new(None) };
}

/// Run `f` recording the lines the stores it runs execute (nested calls record into the
/// outermost recorder).
pub fn record<R>(f: impl FnOnce() -> R) -> (R, Recorded) {
    let outer = RECORDER.with(|r| r.borrow_mut().replace(Recorded::default()));
    let out = f();
    let recorded = RECORDER.with(|r| {
        let mut r = r.borrow_mut();
        let mine = r.take().unwrap_or_default();
        *r = outer;
        mine
    });
    (out, recorded)
}

/// Whether this thread records now.
pub fn recording() -> bool {
    RECORDER.with(|r| r.borrow().is_some())
}

/// A store ran these `lines` of `file` (relative to `root`).
pub fn add(root: &str, file: &str, lines: impl IntoIterator<Item = u32>) {
    RECORDER.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut() {
            rec.root.get_or_insert_with(|| root.to_string());
            rec.lines.entry(file.to_string()).or_default().extend(lines);
        }
    });
}

/// A store ran these lines of files (relative to `root`) while handling one input: the
/// run's next step.
pub fn add_step(root: &str, files: BTreeMap<String, Vec<u32>>) {
    RECORDER.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut() {
            rec.root.get_or_insert_with(|| root.to_string());
            let mut step = BTreeMap::new();
            for (file, lines) in files {
                rec.lines
                    .entry(file.clone())
                    .or_default()
                    .extend(lines.iter().copied());
                step.insert(file, lines.into_iter().collect::<BTreeSet<u32>>());
            }
            rec.steps.push(step);
        }
    });
}

/// A store of the run cannot say which lines ran, and why.
pub fn unsupported(why: &str) {
    RECORDER.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut() {
            rec.unsupported.get_or_insert_with(|| why.to_string());
        }
    });
}

/// The run ended, passing or not (called by the runner; nothing when not recording).
pub fn ended(passed: bool) {
    RECORDER.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut() {
            rec.passed = Some(passed);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_recording_thread_keeps_lines_and_nesting_restores_the_outer_recorder() {
        add("/r", "a.ts", [1]);
        assert!(!recording());
        let ((), outer) = record(|| {
            add("/r", "a.ts", [3, 1]);
            let ((), inner) = record(|| add("/r", "b.ts", [2]));
            assert_eq!(inner.lines.len(), 1);
            ended(true);
        });
        assert_eq!(outer.lines["a.ts"], BTreeSet::from([1, 3]));
        assert!(!outer.lines.contains_key("b.ts"));
        assert_eq!(outer.passed, Some(true));
        assert!(!recording());
        let ((), steps) = record(|| {
            add_step("/r", BTreeMap::from([("a.ts".to_string(), vec![1, 2])]));
            add_step("/r", BTreeMap::from([("b.ts".to_string(), vec![5])]));
        });
        assert_eq!(steps.lines.len(), 2, "every step's lines are the run's");
        assert_eq!(steps.steps.len(), 2);
        assert_eq!(
            steps.steps[1],
            BTreeMap::from([("b.ts".to_string(), BTreeSet::from([5]))])
        );
    }
}
