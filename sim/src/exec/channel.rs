//! An adapter in this process instead of a process of its own: what it must do
//! ([`Channel`]) and how one is made per live store ([`ChannelOpener`]). The connection
//! speaks to it ([`super::connection`]); [`super::ExecFactory::in_process`] makes stores on it.

/// An adapter that lives in this process (the engine inside Node): the same protocol, the
/// same request and answer lines, handed over in memory instead of through pipes. The
/// conversation is checked as it is with a process (the handshake, ids, answer shapes),
/// so a store answers the same in process and as `exec:`, and results do not depend on
/// which way it was driven. There is no process: no timeouts, no exit status, no stderr.
pub trait Channel: Send {
    /// Hand the adapter `requests` (one or more complete request lines) and return its
    /// answer lines to them, each ending with a newline; or why it could not answer at
    /// all (a crash of the run, as an adapter process's exit is).
    fn exchange(&mut self, requests: &[u8]) -> Result<Vec<u8>, String>;
}

/// Opens [`Channel`]s: one adapter per live store, as `exec:` starts one process per live
/// store (and pools them across runs the same way).
pub trait ChannelOpener: Send + Sync {
    /// A new adapter, not spoken to yet; or why none can be made.
    fn open(&self) -> Result<Box<dyn Channel>, String>;
}
