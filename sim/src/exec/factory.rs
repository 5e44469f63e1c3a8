//! [`ExecFactory`]: turns `exec:COMMAND ARGS` into stores, one adapter process per live
//! store, taken from a pool of idle processes (or started, handshake done) and `reset` for
//! each run. [`ExecError`] is what makes a command unusable at all, as opposed to the
//! faults of a running adapter, which are findings. [`ExecOptions`] are the settings a
//! factory is set up with ([`ExecOptions::apply`]).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::connection::{Conn, Timeouts};
use super::pool::Pool;
use super::{
    affinity, ChannelOpener, ExecStore, SPEC_PREFIX, STARTUP_TIMEOUT_DEFAULT, TIMEOUT_DEFAULT,
};
use crate::model::store::{CrashCause, Store, StoreFactory};
use crate::model::wire::ClientId;

/// An operational error: the command cannot be used at all (the CLI exits 2). Faults of a
/// running adapter are not errors of this kind; they are findings (see the module docs).
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
        /// The command line, quoted like a shell would need it.
        command: String,
        /// The directory it was to run in, when not the harness's.
        dir: Option<PathBuf>,
        /// Why the operating system refused.
        error: io::Error,
    },
    /// The command started but did not get through its start-up (the `hello` handshake and
    /// a first `reset`): it exited (a usage error, an unknown store), hung, or answered
    /// out of protocol.
    Startup {
        /// The command line, quoted like a shell would need it.
        command: String,
        /// What went wrong, with the process's stderr.
        cause: CrashCause,
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
            ExecError::Spawn {
                command,
                dir: None,
                error,
            } => write!(f, "cannot start exec store command '{command}': {error}"),
            ExecError::Spawn {
                command,
                dir: Some(dir),
                error,
            } => write!(
                f,
                "cannot start exec store command '{command}' in {}: {error}",
                dir.display()
            ),
            ExecError::Startup { command, cause } => {
                write!(f, "exec store command '{command}' did not start: ")?;
                let lines = cause.lines();
                write!(f, "{}", lines[0])?;
                for line in &lines[1..] {
                    write!(f, "\n  {line}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ExecError {}

/// Makes [`ExecStore`]s for one command line, reusing processes across runs (unless
/// isolated).
pub struct ExecFactory {
    spec: String,
    argv: Vec<String>,
    /// The processes' working directory (`None`: the harness's).
    working_dir: Option<PathBuf>,
    timeouts: Timeouts,
    pin: bool,
    /// A fresh process for every store, never pooled.
    isolate: bool,
    /// Runs are localized (`--localize`): shrinking records the lines each run ran.
    localize: bool,
    pool: Pool,
    /// What the probed process's `hello` stated about its settings (its virtual clock).
    settings: std::sync::OnceLock<String>,
    /// The name the probed process's `hello` gave its store, with the command's words
    /// after `--` ([`stated_name`]).
    stated: std::sync::OnceLock<String>,
    /// The contract the probed process's `hello` declared (`world`), as given.
    world: std::sync::OnceLock<Vec<String>>,
    /// Adapters in this process instead of processes ([`ExecFactory::in_process`]).
    opener: Option<Arc<dyn ChannelOpener>>,
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
            working_dir: None,
            timeouts: Timeouts {
                startup: STARTUP_TIMEOUT_DEFAULT,
                message: TIMEOUT_DEFAULT,
            },
            pin: true,
            isolate: false,
            localize: false,
            pool: Pool::default(),
            settings: std::sync::OnceLock::new(),
            stated: std::sync::OnceLock::new(),
            world: std::sync::OnceLock::new(),
            opener: None,
        })
    }

    /// The stores `spec` (`exec:COMMAND`) names, served by adapters in this process that
    /// `opener` makes instead of by processes: the same name and directory, the same
    /// protocol and checks, so results, reports and saved scenario files are those of
    /// `exec:`, and a saved file replays with the command line. No CPU pinning (there is
    /// no process to pin).
    pub fn in_process(
        spec: &str,
        dir: Option<PathBuf>,
        opener: Arc<dyn ChannelOpener>,
    ) -> Result<ExecFactory, ExecError> {
        let mut factory = ExecFactory::from_spec(spec)?;
        factory.working_dir = dir;
        factory.pin = false;
        factory.opener = Some(opener);
        Ok(factory)
    }

    /// [`ExecFactory::from_spec`], run in `dir`: the processes start there, so the
    /// command's relative paths (its program, when it has a `/`, and its arguments) are
    /// taken from there. A scenario file's command runs in the directory it was recorded
    /// in.
    pub fn from_spec_in(spec: &str, dir: impl Into<PathBuf>) -> Result<ExecFactory, ExecError> {
        let mut factory = ExecFactory::from_spec(spec)?;
        factory.working_dir = Some(dir.into());
        Ok(factory)
    }

    /// Use `timeout` for every message after start-up instead of [`TIMEOUT_DEFAULT`].
    pub fn with_timeout(mut self, timeout: Duration) -> ExecFactory {
        self.timeouts.message = timeout;
        self
    }

    /// Use `timeout` for each wait of an adapter's start-up (the spawn and `hello`, then
    /// the first `reset`) instead of [`STARTUP_TIMEOUT_DEFAULT`].
    pub fn with_startup_timeout(mut self, timeout: Duration) -> ExecFactory {
        self.timeouts.startup = timeout;
        self
    }

    /// Pin each thread and its adapter processes to one CPU (the default), or not. Only
    /// speed depends on it (see the module docs).
    pub fn with_pinning(mut self, pin: bool) -> ExecFactory {
        self.pin = pin;
        self
    }

    /// Localize this store's findings (`--localize`): while shrinking, each run's stores
    /// hand over the lines their adapters ran (the protocol's `coverage` extension).
    pub fn with_localize(mut self, localize: bool) -> ExecFactory {
        self.localize = localize;
        self
    }

    /// Give every store a fresh process, never reused (`true`), or reuse processes
    /// across runs through `reset` (the default). Isolation is slower (a start-up per
    /// store) and shows whether a verdict depends on what a process did before its
    /// `reset`.
    pub fn with_isolation(mut self, isolate: bool) -> ExecFactory {
        self.isolate = isolate;
        self
    }

    /// The command line, split into words.
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// The directory the processes run in, when not the harness's.
    pub fn working_dir(&self) -> Option<&Path> {
        self.working_dir.as_deref()
    }

    /// The command line, quoted like a shell would need it.
    fn command(&self) -> String {
        shell_words::join(&self.argv)
    }

    /// Start one process now and take it through its start-up (the handshake and a
    /// first `reset`), so that a command that cannot serve at all is an operational
    /// error before any run: one that cannot be started ([`ExecError::Spawn`]), or one
    /// that exits, hangs or breaks the protocol while starting ([`ExecError::Startup`],
    /// with its stderr). A healthy process is kept for the first run (unless isolated).
    pub fn probe(&self) -> Result<(), ExecError> {
        let mut conn = self.spawn()?;
        let started = conn
            .handshake()
            .and_then(|()| conn.request_reset())
            .and_then(|()| conn.boot().map(drop));
        if let Some(clock) = conn.clock() {
            let _ = self.settings.set(format!("clock: {clock}"));
        }
        if let Some(name) = conn.name() {
            let _ = self.stated.set(stated_name(name, &self.argv));
        }
        let _ = self.world.set(conn.world().to_vec());
        match started {
            Ok(()) if !self.isolate => self.pool.give_back(conn),
            Ok(()) => {}
            Err(fault) => {
                return Err(ExecError::Startup {
                    command: self.command(),
                    cause: conn.into_cause(fault),
                })
            }
        }
        Ok(())
    }

    /// Processes idle in the pool right now.
    pub fn idle_processes(&self) -> usize {
        self.pool.idle()
    }

    /// Start a process, or open an adapter in this process (no handshake yet).
    fn spawn(&self) -> Result<Conn, ExecError> {
        if let Some(opener) = &self.opener {
            return match opener.open() {
                Ok(channel) => Ok(Conn::over(channel, self.timeouts)),
                Err(why) => Err(ExecError::Spawn {
                    command: self.command(),
                    dir: self.working_dir.clone(),
                    error: io::Error::other(why),
                }),
            };
        }
        Conn::spawn(&self.argv, self.working_dir.as_deref(), self.timeouts).map_err(|error| {
            ExecError::Spawn {
                command: self.command(),
                dir: self.working_dir.clone(),
                error,
            }
        })
    }

    /// A process for one run, its `reset` sent and pinned with this thread (a new one
    /// once its start-up is over); or, when there is none, the crash's cause.
    fn start_run(&self) -> Result<Conn, CrashCause> {
        let mut conn = self.checkout()?;
        if let (true, Some(pid)) = (self.pin, conn.pid()) {
            if conn.started() {
                affinity::pin_with_current_thread(pid);
            } else {
                conn.pin_once_started();
            }
        }
        // Localizing: what the process ran before this run is taken (and dropped) now, so
        // that the lines the store hands over when the run is over are this run's alone.
        if conn.features().coverage && crate::model::source_lines::recording() {
            if let Err(fault) = conn.coverage() {
                return Err(conn.into_cause(fault));
            }
        }
        match conn.request_reset() {
            Ok(()) => Ok(conn),
            Err(fault) => Err(conn.into_cause(fault)),
        }
    }

    /// An idle process, or a new one with its handshake done.
    fn checkout(&self) -> Result<Conn, CrashCause> {
        if !self.isolate {
            if let Some(conn) = self.pool.take() {
                return Ok(conn);
            }
        }
        let mut conn = self.spawn().map_err(|e| CrashCause::Io {
            error: e.to_string(),
            stderr_tail: String::new(),
        })?;
        match conn.handshake() {
            Ok(()) => Ok(conn),
            Err(fault) => Err(conn.into_cause(fault)),
        }
    }
}

/// The name a store run by `argv` states, its adapter having named it `hello` in its
/// handshake: that name, followed by the command's words after `--`, where an adapter takes
/// the arguments it picks a store variant by (`reconcile-sim-adapter adapter.ts --
/// membership`: `js:adapter.ts -- membership`). Not the program or its path, which differ
/// with how it is started, and not the other words, which say how to serve the store.
pub fn stated_name(hello: &str, argv: &[String]) -> String {
    match argv.iter().position(|w| w == "--") {
        Some(i) if i + 1 < argv.len() => {
            format!("{hello} -- {}", shell_words::join(&argv[i + 1..]))
        }
        _ => hello.to_string(),
    }
}

impl StoreFactory for ExecFactory {
    fn name(&self) -> String {
        self.spec.clone()
    }

    fn settings(&self) -> Option<String> {
        self.settings.get().cloned()
    }

    fn stated_name(&self) -> Option<String> {
        self.stated.get().cloned()
    }

    /// What the probed adapter declared in its `hello` (`world`); none before a probe.
    fn contract(&self) -> Result<crate::model::pins::WorldPins, String> {
        let world = self.world.get().map_or(&[][..], Vec::as_slice);
        crate::model::pins::WorldPins::contract(world)
            .map_err(|e| format!("exec store '{}': {e}", self.spec))
    }

    /// The same command, settings and directory, isolated: a new process for every store
    /// (its own, empty pool). `None` when this factory is isolated already.
    fn fresh(&self) -> Option<Box<dyn StoreFactory>> {
        if self.isolate {
            return None;
        }
        Some(Box::new(ExecFactory {
            spec: self.spec.clone(),
            argv: self.argv.clone(),
            working_dir: self.working_dir.clone(),
            timeouts: self.timeouts,
            pin: self.pin,
            isolate: true,
            localize: self.localize,
            pool: Pool::default(),
            settings: self.settings.clone(),
            stated: self.stated.clone(),
            world: self.world.clone(),
            opener: self.opener.clone(),
        }))
    }

    /// The working directory, or the harness's, made absolute.
    fn command_dir(&self) -> Option<PathBuf> {
        let dir = match &self.working_dir {
            Some(d) if d.is_absolute() => d.clone(),
            Some(d) => std::env::current_dir().ok()?.join(d),
            None => std::env::current_dir().ok()?,
        };
        Some(dir.canonicalize().unwrap_or(dir))
    }

    fn localizing(&self) -> bool {
        self.localize
    }

    fn make(&self, _client: ClientId) -> Box<dyn Store> {
        let conn = self.start_run();
        let pool = (!self.isolate).then(|| self.pool.clone());
        Box::new(ExecStore::new(conn, pool))
    }
}

/// How stores in another process (`exec:'COMMAND'`) are run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecOptions {
    /// How long to wait for any one answer after start-up.
    pub timeout: std::time::Duration,
    /// How long each wait of an adapter's start-up may take (the spawn and `hello`, then
    /// its first `reset`).
    pub startup_timeout: std::time::Duration,
    /// Pin each thread and its adapter processes to one CPU (only speed depends on it).
    pub pin: bool,
    /// A fresh process for every store, never reused across runs.
    pub isolate: bool,
    /// Localize findings (`--localize`): see [`ExecFactory::with_localize`].
    pub localize: bool,
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            timeout: TIMEOUT_DEFAULT,
            startup_timeout: STARTUP_TIMEOUT_DEFAULT,
            pin: true,
            isolate: false,
            localize: false,
        }
    }
}

impl ExecOptions {
    /// `factory` set up with these options.
    pub fn apply(&self, factory: ExecFactory) -> ExecFactory {
        factory
            .with_timeout(self.timeout)
            .with_startup_timeout(self.startup_timeout)
            .with_pinning(self.pin)
            .with_isolation(self.isolate)
            .with_localize(self.localize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The name an exec store states: its adapter's `hello` name, with the command's words
    /// after `--` (a mapping's variant), never the program or its other arguments, which
    /// differ with how it is started.
    #[test]
    fn an_exec_store_states_its_hello_name_and_the_arguments_after_dashes() {
        let words = |line: &str| shell_words::split(line).unwrap();
        for (line, want) in [
            ("reconcile-sim-adapter adapter.ts", "js:adapter.ts"),
            (
                "node_modules/.bin/reconcile-sim-adapter adapter.ts",
                "js:adapter.ts",
            ),
            (
                "reconcile-sim-adapter adapter.ts -- membership",
                "js:adapter.ts -- membership",
            ),
            (
                "/abs/bin/reconcile-sim-adapter adapter.ts --fresh-module -- 'a b' no-history",
                "js:adapter.ts -- 'a b' no-history",
            ),
            ("reconcile-sim-adapter adapter.ts --", "js:adapter.ts"),
        ] {
            assert_eq!(stated_name("js:adapter.ts", &words(line)), want, "{line}");
        }
    }

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
