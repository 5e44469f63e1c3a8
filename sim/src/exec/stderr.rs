//! The tail of an adapter's stderr, for crash reports.
//!
//! No thread reads it: the pipe is non-blocking and the connection reads it whenever it
//! waits on the adapter anyway (every `poll` includes it), so an adapter that logs a lot
//! never blocks on a full pipe while the harness waits for it. Reading on our own thread
//! is also what makes the quote deterministic: before a report quotes the tail, it reads
//! everything the pipe holds, and a process writes its stderr before the answer (or exit)
//! that the report is about, so every byte written before that is in the quote, however
//! the threads were scheduled.
//!
//! What is quoted is what the process wrote since the current run's `reset` was sent (or
//! since it started, for a fault before its first run): a pooled process serves runs of
//! other seeds, and their logs must not change this run's report.

use std::io::{self, Read};
use std::os::fd::{AsFd, BorrowedFd};
use std::process::ChildStderr;
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};

use crate::util::fd::set_nonblocking;

/// How much of the process's stderr a fault report quotes (the last bytes).
pub const STDERR_TAIL_BYTES_MAX: usize = 4096;

/// How long a report waits for the stderr of a killed process to end (a process outside
/// its group, such as a daemonised grandchild, may keep it open).
const STDERR_DRAIN_WAIT: Duration = Duration::from_millis(500);

/// A process's stderr: the pipe (until it ends) and the last bytes read from it.
pub(super) struct StderrTail {
    pipe: Option<ChildStderr>,
    /// The last bytes read (at most twice [`STDERR_TAIL_BYTES_MAX`]): bytes
    /// `total - bytes.len() .. total` of the stream.
    bytes: Vec<u8>,
    /// Bytes read over the process's life.
    total: u64,
    /// Where the current run's quote begins (a position in the stream).
    mark: u64,
}

impl StderrTail {
    /// Start keeping the tail of `pipe`, which is made non-blocking.
    pub fn new(pipe: ChildStderr) -> io::Result<StderrTail> {
        set_nonblocking(&pipe)?;
        Ok(StderrTail {
            pipe: Some(pipe),
            bytes: Vec::new(),
            total: 0,
            mark: 0,
        })
    }

    /// The pipe, to wait on, while it has not ended.
    pub fn fd(&self) -> Option<BorrowedFd<'_>> {
        self.pipe.as_ref().map(|p| p.as_fd())
    }

    /// Read everything the pipe holds now, without waiting. Returns true once the pipe has
    /// ended (every writer closed it).
    pub fn drain(&mut self) -> bool {
        let Some(pipe) = self.pipe.as_mut() else {
            return true;
        };
        let mut chunk = [0u8; 4096];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) => {
                    self.pipe = None;
                    return true;
                }
                Ok(n) => {
                    self.bytes.extend_from_slice(&chunk[..n]);
                    self.total += n as u64;
                    if self.bytes.len() > 2 * STDERR_TAIL_BYTES_MAX {
                        let cut = self.bytes.len() - STDERR_TAIL_BYTES_MAX;
                        self.bytes.drain(..cut);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return false,
                Err(_) => {
                    self.pipe = None;
                    return true;
                }
            }
        }
    }

    /// A new run begins: its reports quote only what the process writes from now on.
    pub fn mark_run(&mut self) {
        self.drain();
        self.mark = self.total;
    }

    /// Read the pipe to its end, waiting at most `STDERR_DRAIN_WAIT` (for a process that
    /// was killed: its writers are gone, so the end comes at once).
    pub fn drain_to_end(&mut self) {
        let deadline = Instant::now() + STDERR_DRAIN_WAIT;
        while !self.drain() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            let Some(pipe) = self.pipe.as_ref() else {
                return;
            };
            let ts = Timespec::try_from(left).expect("a short wait");
            let mut fds = [PollFd::new(pipe, PollFlags::IN)];
            let _ = poll(&mut fds, Some(&ts));
        }
    }

    /// The current run's quote: what was read since the mark, at most the last
    /// [`STDERR_TAIL_BYTES_MAX`] bytes of it. Call [`Self::drain`] first.
    pub fn tail(&self) -> String {
        let from = self
            .mark
            .max(self.total.saturating_sub(STDERR_TAIL_BYTES_MAX as u64));
        let kept_from = self.total - self.bytes.len() as u64;
        let start = usize::try_from(from.saturating_sub(kept_from)).unwrap_or(0);
        String::from_utf8_lossy(&self.bytes[start.min(self.bytes.len())..]).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use std::process::{Command, Stdio};

    use super::*;

    fn stderr_of(script: &str) -> (std::process::Child, StderrTail) {
        let mut child = Command::new("sh")
            .args(["-c", script])
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let tail = StderrTail::new(child.stderr.take().unwrap()).unwrap();
        (child, tail)
    }

    #[test]
    fn the_tail_is_the_last_bytes_since_the_mark() {
        let (mut child, mut tail) =
            stderr_of("printf 'before\\n' >&2; read x; printf 'after\\n' >&2");
        // Wait for the first line (the shell may be slow to start on a loaded machine).
        let deadline = Instant::now() + Duration::from_secs(60);
        while tail.total < 7 && Instant::now() < deadline {
            tail.drain();
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(tail.tail(), "before\n");
        tail.mark_run();
        assert_eq!(tail.tail(), "");
        drop(child.stdin.take());
        let _ = child.wait();
        tail.drain_to_end();
        assert_eq!(tail.tail(), "after\n");
    }

    #[test]
    fn a_long_stderr_keeps_only_its_last_bytes() {
        let (mut child, mut tail) =
            stderr_of("i=0; while [ $i -lt 3000 ]; do echo line$i >&2; i=$((i+1)); done");
        let _ = child.wait();
        tail.drain_to_end();
        let quote = tail.tail();
        assert!(quote.len() <= STDERR_TAIL_BYTES_MAX, "{}", quote.len());
        assert!(quote.ends_with("line2999\n"), "{quote}");
        assert!(tail.bytes.len() <= 2 * STDERR_TAIL_BYTES_MAX);
    }
}
