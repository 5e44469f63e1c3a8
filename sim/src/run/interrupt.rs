//! Ctrl-C as a request to stop soon, not a kill: one process-wide flag that the binary's
//! signal handler sets and long work polls.
//!
//! A campaign that is killed loses what it found and leaves `exec:` adapters running; one
//! that sees the flag stops between runs (or between shrink replays), keeps every result
//! so far, saves and prints them, and drops its stores, which ends their processes. The
//! flag lives here, in the lowest layer that runs things, so that `explore`, `trace`
//! (shrinking) and `campaign` can all poll it. Nothing sets it but the binary's handler
//! (and tests of the binary, through a real SIGINT), so it never changes a verdict: a run
//! is never cut short by it, only work between runs is skipped.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The flag itself, for code that takes a cancel flag (`run_campaign`, nightly).
pub fn flag() -> &'static AtomicBool {
    &REQUESTED
}

/// Whether a stop was requested.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// Request a stop (the signal handler's job).
pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}
