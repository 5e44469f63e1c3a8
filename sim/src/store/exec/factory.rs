//! [`ExecFactory`]: turns `exec:COMMAND ARGS` into stores, one adapter process per live
//! store, taken from a pool of idle processes (or started, handshake done) and `reset` for
//! each run. [`ExecError`] is what makes a command unusable at all, as opposed to the
//! faults of a running adapter, which are findings.

use std::io;
use std::time::Duration;

use super::connection::Conn;
use super::fault::{fault_message, Fault};
use super::pool::Pool;
use super::{affinity, ExecStore, SPEC_PREFIX, TIMEOUT_DEFAULT};
use crate::model::store::{Store, StoreFactory};
use crate::model::wire::ClientId;

/// An operational error: the command cannot be used at all. Faults of a running adapter
/// are not errors of this kind; they are findings (see the module docs).
#[derive(Debug)]
pub enum ExecError {
    /// `exec:` with nothing after it, or a command line that does not split into words.
    BadCommand {
        /// The `--store` value as given.
        spec: String,
        /// What is wrong with it.
        why: String,
    },
    /// The command could not be started.
    Spawn {
        /// The command line, words joined by spaces.
        command: String,
        /// Why the operating system refused.
        error: io::Error,
    },
}

impl std::fmt::Display for ExecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExecError::BadCommand { spec, why } => {
                write!(
                    f,
                    "bad exec store '{spec}': {why} (expected exec:'COMMAND ARGS')"
                )
            }
            ExecError::Spawn { command, error } => {
                write!(f, "cannot start exec store command '{command}': {error}")
            }
        }
    }
}

impl std::error::Error for ExecError {}

/// Makes [`ExecStore`]s for one command line, reusing processes across runs.
pub struct ExecFactory {
    spec: String,
    argv: Vec<String>,
    timeout: Duration,
    pin: bool,
    pool: Pool,
}

impl ExecFactory {
    /// Parse `exec:COMMAND ARGS` (the command line is split like a POSIX shell would,
    /// without expansions). Nothing is started yet.
    pub fn from_spec(spec: &str) -> Result<ExecFactory, ExecError> {
        let bad = |why: String| ExecError::BadCommand {
            spec: spec.to_string(),
            why,
        };
        let command = spec
            .strip_prefix(SPEC_PREFIX)
            .ok_or_else(|| bad(format!("it does not start with '{SPEC_PREFIX}'")))?;
        let argv = shell_words::split(command).map_err(|e| bad(e.to_string()))?;
        if argv.is_empty() {
            return Err(bad("no command".to_string()));
        }
        Ok(ExecFactory {
            spec: spec.to_string(),
            argv,
            timeout: TIMEOUT_DEFAULT,
            pin: true,
            pool: Pool::default(),
        })
    }

    /// Use `timeout` for every message instead of [`TIMEOUT_DEFAULT`].
    pub fn with_timeout(mut self, timeout: Duration) -> ExecFactory {
        self.timeout = timeout;
        self
    }

    /// Pin each thread and its adapter processes to one CPU (the default), or not. Only
    /// speed depends on it (see the module docs).
    pub fn with_pinning(mut self, pin: bool) -> ExecFactory {
        self.pin = pin;
        self
    }

    /// The command line, split into words.
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// Start one process now, so that a command that cannot run at all is a clear
    /// operational error before any run. A process that starts but fails its handshake is
    /// not an error here: that is a finding, reported by the first run. A healthy process
    /// is kept for the first run.
    pub fn probe(&self) -> Result<(), ExecError> {
        let mut conn = Conn::spawn(&self.argv, self.timeout).map_err(|error| ExecError::Spawn {
            command: self.argv.join(" "),
            error,
        })?;
        if conn.handshake().is_ok() {
            self.pool.give_back(conn);
        }
        Ok(())
    }

    /// Processes idle in the pool right now.
    pub fn idle_processes(&self) -> usize {
        self.pool.idle()
    }

    /// A process for one run, pinned with this thread and its `reset` sent; or, when there
    /// is none, the text of the crash finding that says why.
    fn start_run(&self) -> Result<Conn, String> {
        let mut conn = self.checkout()?;
        if self.pin {
            affinity::pin_with_current_thread(conn.pid());
        }
        match conn.request_reset() {
            Ok(()) => Ok(conn),
            Err(fault) => Err(conn.into_fault_message(&self.spec, &fault)),
        }
    }

    /// An idle process, or a new one with its handshake done.
    fn checkout(&self) -> Result<Conn, String> {
        if let Some(conn) = self.pool.take() {
            return Ok(conn);
        }
        let mut conn = Conn::spawn(&self.argv, self.timeout).map_err(|e| {
            let fault = Fault::Spawn {
                error: e.to_string(),
            };
            fault_message(&self.spec, &fault, None, "")
        })?;
        match conn.handshake() {
            Ok(()) => Ok(conn),
            Err(fault) => Err(conn.into_fault_message(&self.spec, &fault)),
        }
    }
}

impl StoreFactory for ExecFactory {
    fn name(&self) -> String {
        self.spec.clone()
    }

    fn make(&self, _client: ClientId) -> Box<dyn Store> {
        let conn = self.start_run();
        Box::new(ExecStore::new(self.spec.clone(), conn, self.pool.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_is_split_like_a_shell_and_rejects_nonsense() {
        let f = ExecFactory::from_spec("exec:node 'my dir/store.js' current").unwrap();
        assert_eq!(f.argv(), ["node", "my dir/store.js", "current"]);
        assert_eq!(f.name(), "exec:node 'my dir/store.js' current");
        for bad in ["exec:", "exec:   ", "exec:node 'unclosed", "current"] {
            let err = ExecFactory::from_spec(bad).err().expect(bad).to_string();
            assert!(err.contains("bad exec store"), "{bad}: {err}");
        }
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let why = |spec: &str| ExecFactory::from_spec(spec).err().unwrap().to_string();
        assert_eq!(
            why("exec:"),
            "bad exec store 'exec:': no command (expected exec:'COMMAND ARGS')"
        );
        assert_eq!(
            why("current"),
            "bad exec store 'current': it does not start with 'exec:' (expected exec:'COMMAND ARGS')"
        );
        assert_eq!(
            why("exec:node 'unclosed"),
            "bad exec store 'exec:node 'unclosed': missing closing quote (expected exec:'COMMAND ARGS')"
        );
    }

    #[test]
    fn a_missing_command_is_an_operational_error() {
        let f = ExecFactory::from_spec("exec:/nonexistent/reconcile-adapter").unwrap();
        let err = f.probe().unwrap_err().to_string();
        assert!(err.contains("cannot start"), "{err}");
    }
}
