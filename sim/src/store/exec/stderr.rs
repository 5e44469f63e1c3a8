//! The tail of an adapter's stderr, for fault reports. A thread of its own reads the pipe
//! to its end, so an adapter that logs a lot never blocks on a full stderr pipe, and only
//! the last bytes are kept.

use std::io::Read;
use std::process::ChildStderr;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// How much of the process's stderr a fault report quotes (the last bytes).
pub const STDERR_TAIL_BYTES_MAX: usize = 4096;

/// How long a fault report waits for the stderr reader to see the end of a killed
/// process's stderr (a grandchild may keep it open).
const STDERR_DRAIN_WAIT: Duration = Duration::from_millis(200);

/// What the reader thread has captured so far.
#[derive(Default)]
struct Captured {
    bytes: Vec<u8>,
    eof: bool,
}

/// A process's stderr as captured by its reader thread (shared with that thread).
pub(super) struct StderrTail(Arc<(Mutex<Captured>, Condvar)>);

impl StderrTail {
    /// Start the thread that reads `stderr` until it ends, keeping the last bytes.
    pub fn spawn(mut stderr: ChildStderr) -> StderrTail {
        let shared: Arc<(Mutex<Captured>, Condvar)> = Arc::default();
        let tail = StderrTail(Arc::clone(&shared));
        std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            loop {
                let n = stderr.read(&mut chunk).unwrap_or(0);
                let (lock, cvar) = &*shared;
                let mut t = lock.lock().unwrap_or_else(|e| e.into_inner());
                if n == 0 {
                    t.eof = true;
                    cvar.notify_all();
                    return;
                }
                t.bytes.extend_from_slice(&chunk[..n]);
                if t.bytes.len() > 2 * STDERR_TAIL_BYTES_MAX {
                    let cut = t.bytes.len() - STDERR_TAIL_BYTES_MAX;
                    t.bytes.drain(..cut);
                }
            }
        });
        tail
    }

    /// The capture, even if the reader thread panicked while holding it.
    fn lock(&self) -> MutexGuard<'_, Captured> {
        self.0 .0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Everything captured up to now (at most twice [`STDERR_TAIL_BYTES_MAX`]), without
    /// waiting: for a fault after which the process lives on.
    pub fn so_far(&self) -> String {
        String::from_utf8_lossy(&self.lock().bytes).into_owned()
    }

    /// The last [`STDERR_TAIL_BYTES_MAX`] bytes, once the stderr has ended (the process
    /// was killed) or after at most `STDERR_DRAIN_WAIT`.
    pub fn after_end(&self) -> String {
        let (_, cvar) = &*self.0;
        let (guard, _) = cvar
            .wait_timeout_while(self.lock(), STDERR_DRAIN_WAIT, |t| !t.eof)
            .unwrap_or_else(|e| e.into_inner());
        let bytes = &guard.bytes;
        let start = bytes.len().saturating_sub(STDERR_TAIL_BYTES_MAX);
        String::from_utf8_lossy(&bytes[start..]).into_owned()
    }
}
