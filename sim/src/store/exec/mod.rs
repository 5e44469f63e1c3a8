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
//!   thread cannot change a result: `--jobs` changes only the speed.
//! - **Pipelined reset.** `reset` is sent when the store is made; its answer is read just
//!   before the answer to the first input, so a run pays no extra round trip for it.
//! - **Faults are findings.** [`Store::handle`] answers a fault as a value
//!   ([`StoreFault`]), which the world turns into a `crash` violation with the run's
//!   trace. A protocol fault (the process exited, no answer within the timeout, an answer
//!   that is not JSON or not the expected message, a bad handshake) kills the process
//!   (its whole process group) and answers with a message naming the fault and the last
//!   bytes the process wrote to stderr over its life (for a given process history, the
//!   same bytes every time: the report waits for the killed process's stderr to end), so
//!   a campaign over a broken adapter prints nothing per seed. The next `make` spawns a
//!   fresh process. An `error` answer (the adapter caught an exception from its store)
//!   is a crash too, but the process is healthy and is reused.
//! - **Never hang.** Both pipe ends on our side are non-blocking; every read and write
//!   waits with `poll(2)` for at most the per-message timeout. A spawn failure (no such
//!   command) is an operational error, reported by [`ExecFactory::probe`].
//! - **Co-located ping-pong.** Every input is a round trip: the harness writes, sleeps,
//!   the adapter wakes, answers, sleeps, the harness wakes. When the two sit on different
//!   CPUs each wake-up is a cross-CPU interrupt; on the 2-core VM this was measured on, a
//!   bare pipe round trip took ~50 µs with the two forced onto different CPUs and ~7 µs
//!   on one. Left alone, the scheduler sometimes co-locates them and sometimes not, so
//!   unpinned throughput varied from run to run by 2x. So on Linux, by default,
//!   a thread that makes exec stores pins itself to one CPU (threads are spread round
//!   robin over the CPUs the process may use) and pins the main thread of every adapter
//!   process it checks out to the same CPU. Only speed changes; set
//!   `RECONCILE_SIM_EXEC_PIN=off` (CLI) or [`ExecFactory::with_pinning`] to opt out.
//!
//! Unix only (process groups, `poll`); CPU pinning on Linux only.
//!
//! Layout, one job per file: `protocol.rs` (the messages: request lines out, answer lines
//! checked; no I/O), `lines.rs` (stdout cut into answer lines), `connection.rs` (one
//! process: spawn, pipes, `poll`, kill), `stderr.rs` (the stderr tail for reports),
//! `fault.rs` (what goes wrong, and the finding's text), `pool.rs` (idle processes),
//! `factory.rs` ([`ExecFactory`]), `affinity.rs` (CPU pinning); this file: the settings
//! and [`ExecStore`].

use std::time::Duration;

use crate::model::store::{Answer, Store, StoreFault};
use crate::model::wire::{Input, RenderRow};

mod affinity;
mod connection;
mod factory;
mod fault;
mod lines;
mod pool;
mod protocol;
mod stderr;

pub use factory::{ExecError, ExecFactory};
pub use fault::Fault;
pub use protocol::{ANSWER_BYTES_MAX, PROTOCOL_VERSION};
pub use stderr::STDERR_TAIL_BYTES_MAX;

use connection::Conn;
use fault::fault_message;
use pool::Pool;

/// The `--store` prefix that selects an exec store.
pub const SPEC_PREFIX: &str = "exec:";

/// How long the harness waits for any one answer (or for the adapter to accept a request)
/// unless told otherwise.
pub const TIMEOUT_DEFAULT: Duration = Duration::from_secs(5);

/// The environment variable the CLI reads to turn CPU pinning off (`off`, `0` or `false`).
pub const PIN_ENV: &str = "RECONCILE_SIM_EXEC_PIN";

/// The environment variable the CLI reads to override [`TIMEOUT_DEFAULT`]
/// (a humantime duration such as `500ms` or `30s`).
pub const TIMEOUT_ENV: &str = "RECONCILE_SIM_EXEC_TIMEOUT";

/// A store in another process: every input is one request line, answered by the effects
/// and the render (see the module docs and `docs/protocol.md`).
pub struct ExecStore {
    spec: String,
    conn: Option<Conn>,
    /// Why there is no process for this run (spawn or handshake failed, or an earlier
    /// fault killed it): the next input reports it as a crash.
    unusable: Option<String>,
    render: Vec<RenderRow>,
    pool: Pool,
}

impl ExecStore {
    /// A store for one run of `spec`, on `conn` (its `reset` sent), or, when there is no
    /// process, the finding its first input reports. Its process goes back to `pool`.
    fn new(spec: String, conn: Result<Conn, String>, pool: Pool) -> ExecStore {
        let (conn, unusable) = match conn {
            Ok(conn) => (Some(conn), None),
            Err(message) => (None, Some(message)),
        };
        ExecStore {
            spec,
            conn,
            unusable,
            render: Vec::new(),
            pool,
        }
    }

    /// Report a fault as a crash of the store, a value the world records as a finding.
    fn crash(&mut self, message: String) -> Answer {
        self.unusable = Some(format!(
            "exec store '{}': the process was stopped by an earlier fault",
            self.spec
        ));
        Err(StoreFault { message })
    }
}

impl Store for ExecStore {
    fn handle(&mut self, input: &Input) -> Answer {
        let Some(conn) = self.conn.as_mut() else {
            let message = self
                .unusable
                .clone()
                .unwrap_or_else(|| format!("exec store '{}': no process", self.spec));
            return self.crash(message);
        };
        match conn.input(input) {
            Ok((effects, render)) => {
                self.render = render;
                Ok(effects)
            }
            Err(fault @ Fault::StoreError { .. }) => {
                // The adapter is healthy; only its store threw. Keep the process.
                let message = fault_message(&self.spec, &fault, None, &conn.stderr_so_far());
                self.crash(message)
            }
            Err(fault) => {
                let conn = self.conn.take().expect("checked above");
                let message = conn.into_fault_message(&self.spec, &fault);
                self.crash(message)
            }
        }
    }

    fn render(&self) -> &[RenderRow] {
        &self.render
    }
}

impl Drop for ExecStore {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            // A process whose store threw is still in protocol: after the next reset it
            // is as good as new.
            self.pool.give_back(conn);
        }
    }
}
