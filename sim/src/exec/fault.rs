//! What can go wrong with a running adapter ([`Fault`]), as the connection sees it, and
//! how a fault becomes the typed [`CrashCause`] of a crash finding once the process has
//! been dealt with (its exit status known, its stderr read). Faults are findings about the
//! adapter, never errors of the harness.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::Duration;

use crate::model::store::{CrashCause, Phase};

/// One of the adapter's pipes, as named in a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pipe {
    Stdin,
    Stdout,
}

/// What went wrong with a running adapter, before the process is reaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Fault {
    /// Its stdout ended, or its stdin refused a write: it exited, or closed the pipe and
    /// lives on (told apart by waiting on the process, see [`super::connection`]).
    Closed {
        /// Which pipe.
        pipe: Pipe,
    },
    /// The process (the group leader) exited without finishing its answer.
    LeaderExited,
    /// No complete answer within the timeout of `phase`.
    Timeout {
        /// Starting, or answering a message.
        phase: Phase,
        /// The timeout that ran out.
        waited: Duration,
    },
    /// The process did not read its stdin within the timeout of `phase`.
    WriteTimeout {
        /// Starting, or answering a message.
        phase: Phase,
        /// The timeout that ran out.
        waited: Duration,
    },
    /// Starting the process, or reading or writing its pipes, failed.
    Io {
        /// The operating system's words.
        error: String,
    },
    /// An answer line that is not JSON, not the message expected, or with another id.
    BadLine {
        /// The line as received.
        line: String,
        /// What is wrong with it.
        why: String,
    },
    /// A break of the protocol that is not about one line's shape: a bad handshake, a
    /// refused reset.
    Protocol {
        /// Which rule.
        why: String,
    },
    /// The adapter reported that its store threw (an `error` answer). The process stays
    /// in protocol.
    StoreError {
        /// The adapter's `message`.
        message: String,
    },
}

impl Fault {
    /// The crash cause of this fault, given how the process ended (`exit`: its status,
    /// when it exited by itself; `None` when it was still running and the harness killed
    /// it) and the tail of its stderr.
    pub fn into_cause(self, exit: Option<ExitStatus>, stderr_tail: String) -> CrashCause {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        match (self, exit) {
            (Fault::Closed { .. } | Fault::LeaderExited, Some(status)) => CrashCause::Exited {
                code: status.code(),
                signal: status.signal(),
                stderr_tail,
            },
            (Fault::Closed { pipe }, None) => CrashCause::ClosedPipe {
                pipe: match pipe {
                    Pipe::Stdin => "stdin",
                    Pipe::Stdout => "stdout",
                }
                .to_string(),
                stderr_tail,
            },
            // Only reached without a status if the reap failed.
            (Fault::LeaderExited, None) => CrashCause::Exited {
                code: None,
                signal: None,
                stderr_tail,
            },
            (Fault::Timeout { phase, waited }, _) => CrashCause::TimedOut {
                phase,
                waited_ms: ms(waited),
                stderr_tail,
            },
            (Fault::WriteTimeout { phase, waited }, _) => CrashCause::StoppedReading {
                phase,
                waited_ms: ms(waited),
                stderr_tail,
            },
            (Fault::Io { error }, _) => CrashCause::Io { error, stderr_tail },
            (Fault::BadLine { line, why }, _) => CrashCause::BadLine {
                line: clip(&line),
                why,
                stderr_tail,
            },
            (Fault::Protocol { why }, _) => CrashCause::Protocol { why, stderr_tail },
            (Fault::StoreError { message }, _) => CrashCause::StoreThrew {
                message,
                stderr_tail,
            },
        }
    }
}

/// A quoted answer line, cut to a readable length (on a character boundary).
pub(super) fn clip(line: &str) -> String {
    const MAX: usize = 300;
    if line.len() <= MAX {
        return line.to_string();
    }
    let mut end = MAX;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &line[..end], line.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_pipe_is_an_exit_only_when_the_process_exited() {
        let exited = Fault::Closed { pipe: Pipe::Stdout }
            .into_cause(Some(ExitStatus::from_raw(3 << 8)), "gone\n".into());
        assert_eq!(
            exited,
            CrashCause::Exited {
                code: Some(3),
                signal: None,
                stderr_tail: "gone\n".into()
            }
        );
        assert_eq!(exited.to_string(), "the adapter process exited with code 3");
        let lives = Fault::Closed { pipe: Pipe::Stdout }.into_cause(None, String::new());
        assert_eq!(
            lives.to_string(),
            "the adapter process closed its stdout and kept running (the harness killed it)"
        );
        let signalled = Fault::LeaderExited.into_cause(Some(ExitStatus::from_raw(11)), "".into());
        assert_eq!(
            signalled.to_string(),
            "the adapter process was killed by signal 11 (SIGSEGV)"
        );
    }

    #[test]
    fn long_answer_lines_are_clipped_on_a_char_boundary() {
        let line = format!("{}é{}", "a".repeat(299), "b".repeat(100));
        let cause = Fault::BadLine {
            line,
            why: "not JSON: e".into(),
        }
        .into_cause(None, String::new());
        assert_eq!(
            cause.to_string(),
            format!(
                "bad answer line (not JSON: e): {}… (401 bytes)",
                "a".repeat(299)
            )
        );
        assert_eq!(clip("short"), "short");
    }

    #[test]
    fn timeouts_name_their_phase_and_the_setting_that_changes_them() {
        let t = Fault::Timeout {
            phase: Phase::Message,
            waited: Duration::from_millis(300),
        }
        .into_cause(None, String::new());
        assert_eq!(
            t.to_string(),
            "no answer within 300ms (the per-message timeout; set RECONCILE_SIM_EXEC_TIMEOUT to change it)"
        );
        let w = Fault::WriteTimeout {
            phase: Phase::StartUp,
            waited: Duration::from_secs(60),
        }
        .into_cause(None, String::new());
        assert_eq!(
            w.to_string(),
            "the adapter process did not read its stdin for 1m (the start-up timeout; set RECONCILE_SIM_EXEC_STARTUP_TIMEOUT to change it)"
        );
    }
}
