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

/// A file or folder of the repository, `rel` from its root (the library's tests read the
/// committed scenarios).
#[cfg(test)]
pub fn repo_file(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel)
}

/// The committed scenario at `rel` from the repository's root, with its path.
#[cfg(test)]
pub fn repo_scenario(rel: &str) -> (std::path::PathBuf, crate::trace::scenario::Scenario) {
    let path = repo_file(rel);
    let scenario = crate::trace::scenario::load(&path).unwrap();
    (path, scenario)
}
