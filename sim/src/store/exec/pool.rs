//! The idle adapter processes of one [`super::ExecFactory`], shared with the stores it
//! made: a store takes a process for a run and gives it back when dropped, so processes
//! (and their start-up and JIT warm-up) are reused across runs.

use std::sync::{Arc, Mutex, MutexGuard};

use super::connection::Conn;

/// Idle processes, handshake done, ready for a `reset`. Clones share the same processes.
#[derive(Clone, Default)]
pub(super) struct Pool(Arc<Mutex<Vec<Conn>>>);

impl Pool {
    /// The processes, even if a thread panicked while holding them (a `Vec` push or pop
    /// cannot leave it half-changed).
    fn lock(&self) -> MutexGuard<'_, Vec<Conn>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An idle process, the one given back last (any would do: every run starts with a
    /// `reset`).
    pub fn take(&self) -> Option<Conn> {
        self.lock().pop()
    }

    /// Keep `conn` for a later run. It must be in protocol (no fault but a store error).
    pub fn give_back(&self, conn: Conn) {
        self.lock().push(conn);
    }

    /// How many processes are idle right now.
    pub fn idle(&self) -> usize {
        self.lock().len()
    }
}
