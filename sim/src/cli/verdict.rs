//! What a subcommand found, which `main` turns into the exit code.

/// What a subcommand found, when it ran to the end.
pub enum Verdict {
    /// Nothing violated.
    Clean,
    /// At least one invariant broke.
    Violation,
    /// A search stopped by its own limit (`explore --time`, `--max-states`) before it
    /// could verify or refute anything: neither a pass nor bad input. Says which limit.
    Inconclusive(String),
}
