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

    /// An idle process that is still fit to serve, the one given back last (any would
    /// do: every run starts with a `reset`). One that died while idle, or wrote something
    /// nobody asked for, is killed and replaced by the next: its fault happened between
    /// runs, and must not be reported against the next run.
    pub fn take(&self) -> Option<Conn> {
        loop {
            let mut conn = self.lock().pop()?;
            if conn.idle_and_healthy() {
                return Some(conn);
            }
            // Dropping it kills its process group.
        }
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
