//! `exec:COMMAND`: a store that lives in another process, in any language, driven over
//! JSON lines on its stdin/stdout. The protocol is specified in `docs/protocol.md`; the
//! reference adapter is `adapters/node/`.
//!
//! Why a process and not a library binding: the store this tool exists for is TypeScript,
//! and only driving the real code gates its regressions. A pipe and JSON lines are the
//! smallest contract any language can meet.
//!
//! Design:
//! - **One process per live store.** [`ExecFactory`]'s
//!   [`make`](crate::model::store::StoreFactory::make) takes an idle process from the
//!   factory's pool (or spawns one and does the handshake) and sends it `reset`; the
//!   [`ExecStore`] owns it for the run and gives it back to the pool when dropped. A world
//!   with three clients holds three processes; a campaign on `J` threads holds at most
//!   `3 J` (more only while two worlds are alive at once, as when a script is judged).
//!   An adapter therefore hosts exactly one store at a time and never sees a client id.
//!   Every run starts from a `reset`, so which pooled process serves which client or
//!   thread cannot change a result: `--jobs` changes only the speed. A pooled process
//!   that died (or wrote something unasked) while idle is replaced before it is handed
//!   out. [`ExecFactory::with_isolation`] gives every store a fresh process instead.
//! - **Pipelined reset.** `reset` is sent when the store is made; its answer is read just
//!   before the answer to the first input, so a run pays no extra round trip for it. An
//!   adapter with the `boot` feature is read at [`Store::boot`] instead (its `reset`
//!   answer carries the new store's first effects), and one with `state` answers
//!   [`Store::hash_state`] with a digest (docs/protocol.md, "Extensions").
//! - **Faults are findings, with a typed cause.** [`Store::handle`] answers a fault as a
//!   value ([`StoreFault`] carrying a [`CrashCause`]), which the world turns into a
//!   `crash` violation with the run's trace. A protocol fault (the process exited, closed
//!   a pipe, gave no answer within the timeout, wrote a bad line, broke the handshake)
//!   kills the process's whole group (always, also when the process itself already
//!   exited: what it started dies with it) and reports the cause with the tail of what
//!   the process wrote to stderr during the run. An exit is seen by waiting on the
//!   process (a pidfd on Linux), not on its stdout, so a child that holds stdout open
//!   cannot turn an exit into a timeout; a closed stdout of a process that lives on is
//!   reported as such. The next `make` spawns a fresh process. An `error` answer (the
//!   adapter caught an exception from its store) is a crash too, but the process is
//!   healthy and is reused.
//! - **Deterministic reports.** Stderr is read on the harness thread, whenever it waits
//!   anyway, and drained before it is quoted; the quote starts at the run's `reset`. A
//!   process writes its stderr before the answer or exit a report is about, so the same
//!   run gives the same bytes whichever process served it and however the threads ran.
//! - **Never hang.** All our pipe ends are non-blocking; every read and write waits with
//!   `poll(2)` for at most the timeout of the phase the process is in: the start-up
//!   timeout (spawn, `hello` and the first `reset`; generous) or the per-message timeout.
//!   A command that cannot start at all (no such file; or it exits, hangs or breaks the
//!   handshake before its first `reset` is answered) is an operational error, reported by
//!   [`ExecFactory::probe`].
//! - **Co-located ping-pong.** Every input is a round trip: the harness writes, sleeps,
//!   the adapter wakes, answers, sleeps, the harness wakes. When the two sit on different
//!   CPUs each wake-up is a cross-CPU interrupt; on the 2-core VM this was measured on, a
//!   bare pipe round trip took ~50 µs with the two forced onto different CPUs and ~7 µs
//!   on one. Left alone, the scheduler sometimes co-locates them and sometimes not, so
//!   unpinned throughput varied from run to run by 2x. So on Linux, by default,
//!   a thread that makes exec stores pins itself to one CPU (threads are spread round
//!   robin over the CPUs the process may use) and pins the main thread of every adapter
//!   process it checks out to the same CPU. A new process is started free of that pin (it
//!   and the threads it starts may use every CPU) and pinned only once its start-up is
//!   over, so a starting adapter (node's start-up, a bundler) never queues behind a busy
//!   CPU. Only speed changes; set `RECONCILE_SIM_EXEC_PIN=off` (CLI) or
//!   [`ExecFactory::with_pinning`] to opt out.
//!
//! Unix only (process groups, `poll`); CPU pinning and pidfds on Linux only.
//!
//! Layout, one job per file: `protocol.rs` (the messages: request lines out, answer lines
//! checked; no I/O), `lines.rs` (stdout cut into answer lines), `connection.rs` (one
//! process: spawn, pipes, `poll`, exit, kill), `stderr.rs` (the stderr tail for reports),
//! `fault.rs` (what goes wrong, and the typed cause it becomes), `pool.rs` (idle
//! processes), `factory.rs` ([`ExecFactory`] and the [`ExecOptions`] it is set up with),
//! `affinity.rs` (CPU pinning), `channel.rs` (an adapter in this process); this file: the settings and [`ExecStore`].

use std::cell::RefCell;
use std::time::Duration;

use crate::model::source_lines;
use crate::model::store::{Answer, CrashCause, Store, StoreFault};
use crate::model::wire::{Input, RenderRow};

mod affinity;
mod channel;
mod connection;
mod factory;
mod fault;
mod lines;
mod pool;
mod protocol;
mod stderr;

pub use channel::{Channel, ChannelOpener};
pub use factory::{ExecError, ExecFactory, ExecOptions};
pub use protocol::{ANSWER_BYTES_MAX, PROTOCOL_VERSION};
pub use stderr::STDERR_TAIL_BYTES_MAX;

use connection::Conn;
use fault::Fault;
use pool::Pool;

/// The `--store` prefix that selects an exec store.
pub const SPEC_PREFIX: &str = "exec:";

/// How long the harness waits for any one answer (or for the adapter to accept a request)
/// after start-up, unless told otherwise.
pub const TIMEOUT_DEFAULT: Duration = Duration::from_secs(5);

/// How long each wait of an adapter's start-up (the spawn and `hello`, then its first
/// `reset`) may take, unless told otherwise: generous, because a real store's adapter may
/// bundle or compile its code first, and a loaded machine starts node slowly.
pub const STARTUP_TIMEOUT_DEFAULT: Duration = Duration::from_secs(60);

/// The environment variable the CLI reads to turn CPU pinning off (`off`, `0` or `false`).
pub const PIN_ENV: &str = "RECONCILE_SIM_EXEC_PIN";

/// The environment variable the CLI reads to override [`TIMEOUT_DEFAULT`]
/// (a humantime duration such as `500ms` or `30s`).
pub const TIMEOUT_ENV: &str = "RECONCILE_SIM_EXEC_TIMEOUT";

/// The environment variable the CLI reads to override [`STARTUP_TIMEOUT_DEFAULT`].
pub const STARTUP_TIMEOUT_ENV: &str = "RECONCILE_SIM_EXEC_STARTUP_TIMEOUT";

/// A store in another process: every input is one request line, answered by the effects
/// and the render (see the module docs and `docs/protocol.md`).
pub struct ExecStore {
    /// The process serving this run (`None` once a fault killed it, or when it could not
    /// be started). In a `RefCell` only for [`Store::hash_state`], which takes `&self`.
    conn: RefCell<Option<Conn>>,
    /// A crash the next input reports: why there is no process (for every input from
    /// then on), or the store's `error` to a `state` request.
    crash: RefCell<Option<CrashCause>>,
    render: Vec<RenderRow>,
    /// Where the process goes when the run is over; `None`: it is killed (isolation).
    pool: Option<Pool>,
}

impl ExecStore {
    /// A store for one run, on `conn` (its `reset` sent), or, when there is no process,
    /// the crash its first input reports. Its process goes back to `pool`, if any.
    fn new(conn: Result<Conn, CrashCause>, pool: Option<Pool>) -> ExecStore {
        let (conn, crash) = match conn {
            Ok(conn) => (Some(conn), None),
            Err(cause) => (None, Some(cause)),
        };
        ExecStore {
            conn: RefCell::new(conn),
            crash: RefCell::new(crash),
            render: Vec::new(),
            pool,
        }
    }

    /// A protocol fault: the process is killed and the crash's cause is kept for any
    /// later input.
    fn fail(&mut self, fault: Fault) -> Answer {
        let conn = self
            .conn
            .get_mut()
            .take()
            .expect("a fault comes from a process");
        let cause = conn.into_cause(fault);
        *self.crash.get_mut() = Some(cause.clone());
        Err(StoreFault { cause })
    }
}

impl Store for ExecStore {
    /// With the `boot` feature, the run's `reset` answer is read now: its effects (the
    /// new store's first fetch) are the boot's. Otherwise nothing (the reset stays
    /// pipelined with the first input).
    fn boot(&mut self) -> Answer {
        let Some(conn) = self.conn.get_mut() else {
            return Ok(Vec::new()); // the first input reports why
        };
        if !conn.features().boot {
            return Ok(Vec::new());
        }
        match conn.boot() {
            Ok(reset) => {
                if let Some(render) = reset.render {
                    self.render = render;
                }
                Ok(reset.effects)
            }
            Err(fault) => self.fail(fault),
        }
    }

    fn handle(&mut self, input: &Input) -> Answer {
        let Some(conn) = self.conn.get_mut() else {
            let cause = self.crash.get_mut().clone().expect("no process: a crash");
            return Err(StoreFault { cause });
        };
        if let Some(cause) = self.crash.get_mut().take() {
            return Err(StoreFault { cause });
        }
        let answer = match conn.input(input) {
            Ok((effects, render)) => {
                self.render = render;
                Ok(effects)
            }
            Err(Fault::StoreError { message }) => {
                // The adapter is healthy; only its store threw. Keep the process.
                let cause = conn.store_threw(message);
                Err(StoreFault { cause })
            }
            Err(fault) => return self.fail(fault),
        };
        self.step_coverage();
        answer
    }

    fn render(&self) -> &[RenderRow] {
        &self.render
    }

    /// With the `state` feature, the adapter's digest of its store's state (a `state`
    /// request); otherwise false. A fault here is reported by the next input.
    fn hash_state(&self, state: &mut dyn std::hash::Hasher) -> bool {
        let mut slot = self.conn.borrow_mut();
        let Some(conn) = slot.as_mut() else {
            return false;
        };
        if !conn.features().state || self.crash.borrow().is_some() {
            return false;
        }
        match conn.state() {
            Ok(digest) => {
                state.write(digest.as_bytes());
                true
            }
            Err(Fault::StoreError { message }) => {
                *self.crash.borrow_mut() = Some(conn.store_threw(message));
                false
            }
            Err(fault) => {
                let conn = slot.take().expect("checked above");
                *self.crash.borrow_mut() = Some(conn.into_cause(fault));
                false
            }
        }
    }
}

impl ExecStore {
    /// When this thread records source lines ([`source_lines::record`]): the lines this
    /// input ran (the protocol's `coverage`), the run's last step's until the next input's.
    /// A process that cannot answer is left to the next input to report, as any fault.
    fn step_coverage(&mut self) {
        if !source_lines::recording() {
            return;
        }
        let Some(conn) = self.conn.get_mut() else {
            return;
        };
        if !conn.features().coverage {
            return; // said at the end of the run
        }
        if let Ok(answer) = conn.coverage() {
            source_lines::add_step(&answer.root, answer.files);
        }
    }

    /// When this thread records source lines ([`source_lines::record`]): the lines the run
    /// ran in this process, asked of the adapter (`coverage`), or why it cannot say. A
    /// process that fails to answer is not given back to the pool.
    fn hand_over_coverage(&mut self) {
        if !source_lines::recording() {
            return;
        }
        let Some(conn) = self.conn.get_mut() else {
            return; // the process died: the run's crash is its finding, its lines are lost
        };
        if !conn.features().coverage {
            source_lines::unsupported("the adapter does not speak the protocol's coverage extension (reconcile-sim-adapter does)");
            return;
        }
        match conn.coverage() {
            Ok(answer) => {
                for (file, lines) in answer.files {
                    source_lines::add(&answer.root, &file, lines);
                }
            }
            // Dropped, not pooled: a process out of protocol is killed.
            Err(_) => drop(self.conn.get_mut().take()),
        }
    }
}

impl Drop for ExecStore {
    fn drop(&mut self) {
        self.hand_over_coverage();
        if let (Some(conn), Some(pool)) = (self.conn.get_mut().take(), &self.pool) {
            // A process whose store threw is still in protocol: after the next reset it
            // is as good as new.
            pool.give_back(conn);
        }
    }
}
