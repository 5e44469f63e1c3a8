//! One library function per command, each doing the command's whole sequence and
//! returning what the command prints: the CLI parses flags, calls one of these, and prints
//! the result; another front end (a test, a Node binding) calls the same function.
//!
//! - `fuzz`: [`fuzz::fuzz`] (campaign → recheck → shrink → save → determinism check →
//!   result file); what it prints is [`text`].
//! - `check`: [`check::check`]; what it prints is [`check_text`].
//! - `run`: [`run::run`].
//! - `nightly`: [`nightly::nightly`].
//! - `shrink`: [`shrink::shrink_file`].
//! - `import`: [`import::import_log`] (a recorded log explained, judged and written).
//! - `report`: [`report::report`] (the HTML pages of scenarios, results and nights).
//!
//! They report as they go through a [`Listener`].

pub mod check;
pub mod check_text;
pub mod fuzz;
pub mod import;
pub mod nightly;
pub mod partners;
pub mod report;
pub mod run;
pub mod shrink;
pub mod text;

/// What a command reports as it goes: phases, runs done, a status line and notes worth
/// printing. The CLI draws them on its progress line; a caller that wants none passes
/// [`Silent`]. Every method does nothing unless overridden.
pub trait Listener: Sync {
    /// A phase starts (`what`), with an expected length in seconds.
    fn phase(&self, what: &str, seconds: u64) {
        let _ = (what, seconds);
    }
    /// Runs done so far in the current campaign.
    fn runs(&self, done: u64) {
        let _ = done;
    }
    /// What is being done now (replaces the previous status).
    fn status(&self, line: String) {
        let _ = line;
    }
    /// A line worth keeping (a new finding, a problem).
    fn note(&self, line: &str) {
        let _ = line;
    }
}

/// A [`Listener`] that ignores everything.
pub struct Silent;

impl Listener for Silent {}
