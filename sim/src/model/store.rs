//! The interface between the world and a store under test: what the world drives. The
//! implementations live in [`crate::store`].
//!
//! A store is everything a real frontend tab store is, seen from outside: it is told about
//! user actions, WebSocket events and HTTP responses ([`Input`]); it asks for POSTs and
//! fetches ([`Effect`]); and it shows rows ([`RenderRow`]). The harness never looks inside.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::wire::{ClientId, Effect, Input, RenderRow};

/// Why a store could not answer an input: a value, which the world turns into a `crash`
/// finding (a panic inside an in-process store is caught and becomes one too).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreFault {
    /// What went wrong.
    pub cause: CrashCause,
}

/// Which part of an adapter process's life a timeout ran out in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Starting: the spawn, the `hello` handshake and the first `reset` (the start-up
    /// timeout).
    StartUp,
    /// Answering a message after start-up (the per-message timeout).
    Message,
}

/// Why a store crashed, as a value: what the `crash` finding's text, its JSON (`cause`)
/// and its JUnit message say. A store in another process adds the tail of what the
/// process wrote to stderr (`stderr_tail`, empty when it wrote nothing).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum CrashCause {
    /// An in-process store panicked.
    Panicked {
        /// The panic's message.
        message: String,
    },
    /// The adapter process ended: by itself (`code`), or by a signal (`signal`).
    Exited {
        /// Its exit code, when it exited.
        code: Option<i32>,
        /// The signal that killed it, when one did.
        signal: Option<i32>,
        /// The tail of its stderr.
        stderr_tail: String,
    },
    /// The adapter process closed its stdout (or its stdin) and lived on (the harness then
    /// killed it).
    ClosedPipe {
        /// `stdout` or `stdin`.
        pipe: String,
        /// The tail of its stderr.
        stderr_tail: String,
    },
    /// No complete answer within the timeout of `phase`.
    TimedOut {
        /// Starting, or answering a message.
        phase: Phase,
        /// The timeout that ran out, in milliseconds.
        waited_ms: u64,
        /// The tail of its stderr.
        stderr_tail: String,
    },
    /// The adapter process did not read its stdin within the timeout of `phase` (a
    /// request could not be written).
    StoppedReading {
        /// Starting, or answering a message.
        phase: Phase,
        /// The timeout that ran out, in milliseconds.
        waited_ms: u64,
        /// The tail of its stderr.
        stderr_tail: String,
    },
    /// The adapter wrote an answer line that is not JSON, not the message expected there,
    /// or one line too many (caught by the id of the next answer).
    BadLine {
        /// The line (cut to a readable length).
        line: String,
        /// What is wrong with it.
        why: String,
        /// The tail of its stderr.
        stderr_tail: String,
    },
    /// The adapter broke the protocol otherwise: a bad handshake, a refused `reset`.
    Protocol {
        /// Which rule it broke.
        why: String,
        /// The tail of its stderr.
        stderr_tail: String,
    },
    /// The adapter answered `error`: its store threw. The process stays in use.
    StoreThrew {
        /// The adapter's message (ideally with the stack).
        message: String,
        /// The tail of its stderr.
        stderr_tail: String,
    },
    /// The adapter process could not be started, or its pipes failed.
    Io {
        /// The operating system's words.
        error: String,
        /// The tail of its stderr.
        stderr_tail: String,
    },
}

impl CrashCause {
    /// The tail of the adapter process's stderr, for a store in another process.
    pub fn stderr_tail(&self) -> Option<&str> {
        match self {
            CrashCause::Panicked { .. } => None,
            CrashCause::Exited { stderr_tail, .. }
            | CrashCause::ClosedPipe { stderr_tail, .. }
            | CrashCause::TimedOut { stderr_tail, .. }
            | CrashCause::StoppedReading { stderr_tail, .. }
            | CrashCause::BadLine { stderr_tail, .. }
            | CrashCause::Protocol { stderr_tail, .. }
            | CrashCause::StoreThrew { stderr_tail, .. }
            | CrashCause::Io { stderr_tail, .. } => Some(stderr_tail),
        }
    }

    /// Whether the crash is a timeout (no answer, or stdin not read, in time): a verdict
    /// of the clock, not of what the store answered, so one that does not happen again on
    /// replay is `flaky`, never a state leak.
    pub fn is_timing(&self) -> bool {
        matches!(
            self,
            CrashCause::TimedOut { .. } | CrashCause::StoppedReading { .. }
        )
    }

    /// The cause and then its stderr tail, one line each: what a `crash` finding shows
    /// (`panicked: …` for an in-process panic only).
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![self.to_string()];
        if let CrashCause::StoreThrew { message, .. } = self {
            lines.extend(
                message
                    .trim_end()
                    .lines()
                    .skip(1)
                    .map(|l| format!("  {}", l.trim_start())),
            );
        }
        if let Some(tail) = self.stderr_tail() {
            let tail = tail.trim_end();
            if tail.is_empty() {
                lines.push("stderr: (empty)".to_string());
            } else {
                lines.push("stderr tail:".to_string());
                lines.extend(tail.lines().map(|l| format!("  | {l}")));
            }
        }
        lines
    }
}

/// The cause in words, on one line, without the stderr tail (see [`CrashCause::lines`]).
impl fmt::Display for CrashCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |ms: u64| humantime::format_duration(std::time::Duration::from_millis(ms));
        match self {
            CrashCause::Panicked { message } => write!(f, "panicked: {message}"),
            CrashCause::Exited { code: Some(c), .. } => {
                write!(f, "the adapter process exited with code {c}")
            }
            CrashCause::Exited {
                signal: Some(s), ..
            } => write!(
                f,
                "the adapter process was killed by signal {s}{}",
                signal_name(*s).map_or(String::new(), |n| format!(" ({n})"))
            ),
            CrashCause::Exited { .. } => f.write_str("the adapter process exited"),
            CrashCause::ClosedPipe { pipe, .. } => write!(
                f,
                "the adapter process closed its {pipe} and kept running (the harness killed it)"
            ),
            CrashCause::TimedOut {
                phase: Phase::Message,
                waited_ms,
                ..
            } => write!(
                f,
                "no answer within {} (the per-message timeout; set RECONCILE_SIM_EXEC_TIMEOUT to change it)",
                ms(*waited_ms)
            ),
            CrashCause::TimedOut {
                phase: Phase::StartUp,
                waited_ms,
                ..
            } => write!(
                f,
                "the adapter did not start within {} (the start-up timeout: spawn, hello and the first reset; set RECONCILE_SIM_EXEC_STARTUP_TIMEOUT to change it)",
                ms(*waited_ms)
            ),
            CrashCause::StoppedReading {
                phase, waited_ms, ..
            } => write!(
                f,
                "the adapter process did not read its stdin for {} (the {}; set {} to change it)",
                ms(*waited_ms),
                match phase {
                    Phase::StartUp => "start-up timeout",
                    Phase::Message => "per-message timeout",
                },
                match phase {
                    Phase::StartUp => "RECONCILE_SIM_EXEC_STARTUP_TIMEOUT",
                    Phase::Message => "RECONCILE_SIM_EXEC_TIMEOUT",
                }
            ),
            CrashCause::BadLine { line, why, .. } => {
                write!(f, "bad answer line ({why}): {line}")
            }
            CrashCause::Protocol { why, .. } => write!(f, "protocol error: {why}"),
            CrashCause::StoreThrew { message, .. } => {
                // The first line (the rest, a stack, is in `lines`).
                write!(f, "the store threw: {}", message.lines().next().unwrap_or(""))
            }
            CrashCause::Io { error, .. } => write!(f, "adapter process I/O failed: {error}"),
        }
    }
}

/// The name of a common signal.
fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => return None,
    })
}

/// What a store answers to an input: the effects it asks for, in order, or why it could
/// not answer.
pub type Answer = Result<Vec<Effect>, StoreFault>;

/// A reconcile implementation under test.
pub trait Store {
    /// The store was just made, as a tab is opened: return the effects it asks for at once
    /// (a real `openTab` starts a history fetch). The world calls it once per store, when
    /// the world is made, and routes the effects like an input's. The default asks for
    /// nothing.
    fn boot(&mut self) -> Answer {
        Ok(Vec::new())
    }
    /// Handle one input and return the effects it asks for, in order.
    fn handle(&mut self, input: &Input) -> Answer;
    /// What the user sees right now: sealed groups then live rows.
    fn render(&self) -> &[RenderRow];
    /// Feed this store's **complete** internal state into `state`: every field that can
    /// influence a later [`Store::handle`] or [`Store::render`]. Two stores that feed equal
    /// byte streams must behave identically from then on (so the stream must be
    /// injective: `#[derive(Hash)]` over the state, or an exhaustive destructuring, does
    /// it). `explore` uses it to merge equal world states (state caching); it never looks
    /// inside a store otherwise. Return false when the state cannot be exposed (the
    /// default; an out-of-process store whose adapter does not answer `state`): `explore`
    /// then does not merge that state.
    fn hash_state(&self, _state: &mut dyn std::hash::Hasher) -> bool {
        false
    }
    /// A copy of this store in its current state, so that `explore` can return to a
    /// state without replaying the path to it; `None` (the default) when it cannot be
    /// copied, and `explore` replays.
    fn clone_box(&self) -> Option<Box<dyn Store>> {
        None
    }
}

/// Makes one store per client. Implemented by the shipped [`StoreKind`]s; a store in
/// another process implements it too.
///
/// [`StoreKind`]: crate::store::StoreKind
pub trait StoreFactory: Sync {
    /// The name used in reports and reproduce commands (what `--store` takes).
    fn name(&self) -> String;
    /// A fresh store for client `client`.
    fn make(&self, client: ClientId) -> Box<dyn Store>;
    /// A factory of the same store (the same [`StoreFactory::name`]) whose stores share
    /// nothing with any store made before: for a store in another process, a new process
    /// for every store, never reused. Replaying a failure there tells a store that
    /// answers by its inputs alone from one that keeps state across `reset` (a state
    /// leak). `None` (the default) when this factory's stores already share nothing: an
    /// in-process store is made new each time.
    fn fresh(&self) -> Option<Box<dyn StoreFactory>> {
        None
    }
    /// For a store that runs a command: the directory the command runs in (absolute), which
    /// a scenario file records so that it replays the same from any working directory.
    /// `None` (the default) for an in-process store.
    fn command_dir(&self) -> Option<std::path::PathBuf> {
        None
    }
    /// What the store said about settings that shape its runs, for reports to state: an
    /// adapter's virtual clock (the `clock` of its `hello`, as `clock: …`). `None` (the
    /// default) when it said nothing, and for an in-process store.
    fn settings(&self) -> Option<String> {
        None
    }
    /// The name the store states for itself, when it states one: an `exec:` adapter's
    /// `hello` name, followed by the command's words after `--` (the arguments a mapping
    /// picks a store variant by). One store run through two command lines (`npm run`'s
    /// `reconcile-sim-adapter adapter.ts`, the shell's `node_modules/.bin/…`, the engine
    /// inside Node) states one name, so its saved files are named alike and a baseline
    /// made through one gates the others ([`crate::trace::scenario::Scenario::is_of`]).
    /// `None` (the default) for an in-process store, whose `--store` name is its name.
    fn stated_name(&self) -> Option<String> {
        None
    }
    /// What names this store in saved files' names: the name it states, else its
    /// `--store` name.
    fn file_label(&self) -> String {
        self.stated_name().unwrap_or_else(|| self.name())
    }

    /// The contract of the store's backend and transport: the world options its app
    /// fixes (one ordered socket, consume reasons always sent, …), as `--world` settings
    /// ([`WorldPins`](crate::model::pins::WorldPins)), which every command applies
    /// without a flag and `--world` overrides. An adapter declares it in its `hello`
    /// (`world`); a Rust store overrides this. Empty (the default): the store runs in
    /// every world the seeds draw. An error names a contract that does not parse.
    fn contract(&self) -> Result<crate::model::pins::WorldPins, String> {
        Ok(crate::model::pins::WorldPins::none())
    }

    /// Whether findings on this store are localized (`--localize`): shrinking then records
    /// the source lines each of its runs ran ([`crate::model::source_lines`]). False (the
    /// default) for an in-process store, which cannot say which of its lines ran.
    fn localizing(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_read_as_words_and_quote_the_stderr_tail() {
        let exited = CrashCause::Exited {
            code: Some(3),
            signal: None,
            stderr_tail: "one\ntwo\n".into(),
        };
        assert_eq!(
            exited.lines(),
            [
                "the adapter process exited with code 3",
                "stderr tail:",
                "  | one",
                "  | two"
            ]
        );
        let killed = CrashCause::Exited {
            code: None,
            signal: Some(11),
            stderr_tail: " \n".into(),
        };
        assert_eq!(
            killed.lines(),
            [
                "the adapter process was killed by signal 11 (SIGSEGV)",
                "stderr: (empty)"
            ]
        );
        let panicked = CrashCause::Panicked {
            message: "boom".into(),
        };
        assert_eq!(panicked.lines(), ["panicked: boom"]);
        let slow = CrashCause::TimedOut {
            phase: Phase::StartUp,
            waited_ms: 60_000,
            stderr_tail: String::new(),
        };
        assert!(slow
            .to_string()
            .starts_with("the adapter did not start within 1m (the start-up timeout"));
    }

    #[test]
    fn causes_serialise_tagged_by_kind() {
        let cause = CrashCause::TimedOut {
            phase: Phase::Message,
            waited_ms: 500,
            stderr_tail: "x\n".into(),
        };
        let json = serde_json::to_string(&cause).unwrap();
        assert_eq!(
            json,
            r#"{"kind":"timed-out","phase":"message","waited_ms":500,"stderr_tail":"x\n"}"#
        );
        assert_eq!(serde_json::from_str::<CrashCause>(&json).unwrap(), cause);
    }
}
