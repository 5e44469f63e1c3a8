//! What can go wrong with a running adapter ([`Fault`]), and the text of the crash finding
//! a fault becomes ([`fault_message`]). Faults are findings about the adapter, never
//! errors of the harness, so their words are part of the report a person reads.

use std::process::ExitStatus;
use std::time::Duration;

use super::TIMEOUT_ENV;

/// What went wrong with a running adapter. Its `Display` is the text of the crash finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The process closed its stdout (it exited or is exiting).
    Exited {
        /// How it exited, once known (filled in after the reap, for the report).
        status: Option<String>,
    },
    /// No (complete) answer within the timeout.
    Timeout {
        /// The per-message timeout that ran out.
        waited: Duration,
    },
    /// The process stopped reading its stdin for longer than the timeout.
    WriteTimeout {
        /// The per-message timeout that ran out.
        waited: Duration,
    },
    /// Reading or writing the pipes failed.
    Io {
        /// The operating system's words.
        error: String,
    },
    /// The answer line is not JSON.
    NotJson {
        /// The line as received.
        line: String,
        /// The parser's words.
        error: String,
    },
    /// The answer is JSON but not the message the protocol expects here.
    OutOfProtocol {
        /// The line as received.
        line: String,
        /// Which rule of the protocol it breaks.
        why: String,
    },
    /// The adapter reported that its store threw (an `error` answer).
    StoreError {
        /// The adapter's `message` (ideally with the stack).
        message: String,
    },
    /// The process could not be (re)started for this run.
    Spawn {
        /// The operating system's words.
        error: String,
    },
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Exited { status: Some(s) } => write!(f, "the process exited ({s})"),
            Fault::Exited { status: None } => f.write_str("the process closed its stdout"),
            Fault::Timeout { waited } => write!(
                f,
                "no answer within {waited:?} (the per-message timeout; set {TIMEOUT_ENV} to change it)"
            ),
            Fault::WriteTimeout { waited } => write!(
                f,
                "the process did not read its stdin for {waited:?} (the per-message timeout; set {TIMEOUT_ENV} to change it)"
            ),
            Fault::Io { error } => write!(f, "pipe error: {error}"),
            Fault::NotJson { line, error } => {
                write!(f, "the answer is not JSON ({error}): {}", clip(line))
            }
            Fault::OutOfProtocol { line, why } => {
                write!(f, "out-of-protocol answer ({why}): {}", clip(line))
            }
            Fault::StoreError { message } => write!(f, "the store threw: {message}"),
            Fault::Spawn { error } => write!(f, "could not start the process: {error}"),
        }
    }
}

/// A quoted answer line, cut to a readable length (on a character boundary).
fn clip(line: &str) -> String {
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

/// The text of a crash finding caused by `fault` in the adapter of store `spec`: the fault,
/// with the exit status once the process is reaped, and the stderr tail, one quoted line
/// per line.
pub(super) fn fault_message(
    spec: &str,
    fault: &Fault,
    status: Option<ExitStatus>,
    stderr: &str,
) -> String {
    let fault = match (fault, status) {
        (Fault::Exited { status: None }, Some(s)) => Fault::Exited {
            status: Some(s.to_string()),
        },
        _ => fault.clone(),
    };
    let mut msg = format!("exec store '{spec}': {fault}");
    let stderr = stderr.trim_end();
    if stderr.is_empty() {
        msg.push_str("; stderr: (empty)");
    } else {
        msg.push_str("; stderr tail:");
        for line in stderr.lines() {
            msg.push_str("\n    | ");
            msg.push_str(line);
        }
    }
    msg
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;

    use super::*;

    #[test]
    fn fault_messages_quote_the_stderr_tail() {
        let m = fault_message(
            "exec:x",
            &Fault::Exited { status: None },
            None,
            "line one\nline two\n",
        );
        assert_eq!(
            m,
            "exec store 'exec:x': the process closed its stdout; stderr tail:\n    | line one\n    | line two"
        );
    }

    #[test]
    fn an_exit_names_the_status_once_the_process_is_reaped() {
        let m = fault_message(
            "exec:x",
            &Fault::Exited { status: None },
            Some(ExitStatus::from_raw(3 << 8)),
            " \n",
        );
        assert_eq!(
            m,
            "exec store 'exec:x': the process exited (exit status: 3); stderr: (empty)"
        );
        // Only an exit takes the status: any other fault is reported as it is.
        let m = fault_message(
            "exec:x",
            &Fault::StoreError {
                message: "boom".into(),
            },
            Some(ExitStatus::from_raw(3 << 8)),
            "",
        );
        assert_eq!(
            m,
            "exec store 'exec:x': the store threw: boom; stderr: (empty)"
        );
    }

    #[test]
    fn long_answer_lines_are_clipped_on_a_char_boundary() {
        let line = format!("{}é{}", "a".repeat(299), "b".repeat(100));
        let fault = Fault::NotJson {
            line: line.clone(),
            error: "e".into(),
        };
        assert_eq!(
            fault.to_string(),
            format!(
                "the answer is not JSON (e): {}… (401 bytes)",
                "a".repeat(299)
            )
        );
        assert_eq!(clip("short"), "short");
    }

    #[test]
    fn timeouts_name_the_setting_that_changes_them() {
        let t = Fault::Timeout {
            waited: Duration::from_millis(300),
        };
        assert_eq!(
            t.to_string(),
            "no answer within 300ms (the per-message timeout; set RECONCILE_SIM_EXEC_TIMEOUT to change it)"
        );
    }
}
