//! Tools for testing stores and the harness itself: hand-built interleavings (the note's
//! bugs A–D, and the backend paths beyond the note), lockstep differential testing, and
//! proptest strategies.

pub mod bugs;
pub mod differential;
pub mod paths;
pub mod schedule;
pub mod script;
#[cfg(test)]
pub mod stores;
