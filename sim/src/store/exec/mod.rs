//! `exec:COMMAND`: a store that lives in another process, in any language, driven over
//! JSON lines on its stdin/stdout. The protocol is specified in `docs/protocol.md`; the
//! reference adapter is `adapters/node/`.
//!
//! Why a process and not a library binding: the store this tool exists for is TypeScript,
//! and only driving the real code gates its regressions. A pipe and JSON lines are the
//! smallest contract any language can meet.
//!
//! Design:
//! - **One process per live store.** [`ExecFactory::make`] takes an idle process from the
//!   factory's pool (or spawns one and does the handshake) and sends it `reset`; the
//!   [`ExecStore`] owns it for the run and gives it back to the pool when dropped. A world
//!   with three clients holds three processes; a campaign on `J` threads holds at most
//!   `3 J` (more only while two worlds are alive at once, as when a script is judged). An adapter therefore
//!   hosts exactly one store at a time and never sees a client id. Every run starts from a
//!   `reset`, so which pooled process serves which client or thread cannot change a
//!   result: `--jobs` changes only the speed.
//! - **Pipelined reset.** `reset` is sent when the store is made; its answer is read just
//!   before the answer to the first input, so a run pays no extra round trip for it.
//! - **Faults are findings.** [`Store::handle`] answers a fault as a value
//!   ([`StoreFault`]), which the world turns into a `crash` violation with the run's trace. A protocol fault (the process exited, no answer within the timeout, an answer
//!   that is not JSON or not the expected message, a bad handshake) kills the process
//!   (its whole process group) and answers with a message naming the fault and the last
//!   bytes the process wrote to stderr over its life (for a given process history, the
//!   same bytes every time: the report waits for the killed process's stderr to end), so
//!   a campaign over a broken adapter prints nothing per seed. The next
//!   `make` spawns a fresh process. An `error` answer (the adapter caught an exception
//!   from its store) is a crash too, but the process is healthy and is reused.
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
#![allow(missing_docs)]

use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::fs::{fcntl_getfl, fcntl_setfl, OFlags};
use serde::{Deserialize, Serialize};

use crate::model::store::{Store, StoreFactory, StoreFault};
use crate::model::wire::{ClientId, Effect, Input, RenderRow};

/// The protocol version this harness speaks (the `protocol` field of `hello`).
pub const PROTOCOL_VERSION: u32 = 1;

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

/// How much of the process's stderr a fault report quotes (the last bytes).
pub const STDERR_TAIL_BYTES_MAX: usize = 4096;

/// The longest answer line accepted before it counts as a fault.
pub const ANSWER_BYTES_MAX: usize = 16 << 20;

/// How long a fault report waits for the stderr reader to see the end of a killed
/// process's stderr (a grandchild may keep it open).
const STDERR_DRAIN_WAIT: Duration = Duration::from_millis(200);

/// An operational error: the command cannot be used at all. Faults of a running adapter
/// are not errors of this kind; they are findings (see the module docs).
#[derive(Debug)]
pub enum ExecError {
    /// `exec:` with nothing after it, or a command line that does not split into words.
    BadCommand { spec: String, why: String },
    /// The command could not be started.
    Spawn { command: String, error: io::Error },
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

/// What went wrong with a running adapter. Its `Display` is the text of the crash finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The process closed its stdout (it exited or is exiting).
    Exited { status: Option<String> },
    /// No (complete) answer within the timeout.
    Timeout { waited: Duration },
    /// The process stopped reading its stdin for longer than the timeout.
    WriteTimeout { waited: Duration },
    /// Reading or writing the pipes failed.
    Io { error: String },
    /// The answer line is not JSON.
    NotJson { line: String, error: String },
    /// The answer is JSON but not the message the protocol expects here.
    OutOfProtocol { line: String, why: String },
    /// The adapter reported that its store threw (an `error` answer).
    StoreError { message: String },
    /// The process could not be (re)started for this run.
    Spawn { error: String },
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

/// A request line, harness to adapter: a message and its sequence number.
#[derive(Serialize)]
struct Request<'a> {
    #[serde(flatten)]
    message: Message<'a>,
    id: u64,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
enum Message<'a> {
    Hello { protocol: u32 },
    Reset,
    Input { input: &'a Input },
}

/// An answer line, adapter to harness. One flat struct rather than a tagged enum so that a
/// wrong `type` is reported as such, and unknown fields are ignored (additive changes).
#[derive(Deserialize)]
struct Answer {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    id: Option<u64>,
    #[serde(default)]
    protocol: Option<u32>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    effects: Option<Vec<Effect>>,
    #[serde(default)]
    render: Option<Vec<RenderRow>>,
}

/// The captured tail of a process's stderr, filled by a reader thread.
#[derive(Default)]
struct StderrTail {
    bytes: Vec<u8>,
    eof: bool,
}

type SharedTail = Arc<(Mutex<StderrTail>, Condvar)>;

fn spawn_stderr_reader(mut stderr: ChildStderr) -> SharedTail {
    let tail: SharedTail = Arc::default();
    let shared = Arc::clone(&tail);
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

/// One running adapter process and our ends of its pipes.
struct Conn {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    stderr: SharedTail,
    timeout: Duration,
    /// Bytes read from stdout: `rbuf[rpos..rend]` is not consumed yet.
    rbuf: Vec<u8>,
    rpos: usize,
    rend: usize,
    /// Scratch for the request being written.
    wbuf: Vec<u8>,
    /// `reset` requests sent whose answers have not been read yet.
    resets_unanswered: u32,
    /// The id of the next request, and of the next answer expected (answers come in order).
    next_request_id: u64,
    next_answer_id: u64,
}

fn set_nonblocking(fd: impl AsFd) -> io::Result<()> {
    let flags = fcntl_getfl(&fd)?;
    fcntl_setfl(&fd, flags | OFlags::NONBLOCK)?;
    Ok(())
}

impl Conn {
    fn spawn(argv: &[String], timeout: Duration) -> io::Result<Conn> {
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group, so a fault kills whatever it started too.
            .process_group(0)
            .spawn()?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let stderr = spawn_stderr_reader(child.stderr.take().expect("piped"));
        let mut conn = Conn {
            child,
            stdin,
            stdout,
            stderr,
            timeout,
            rbuf: vec![0; 1 << 16],
            rpos: 0,
            rend: 0,
            wbuf: Vec::with_capacity(1 << 12),
            resets_unanswered: 0,
            next_request_id: 1,
            next_answer_id: 1,
        };
        if let Err(e) = set_nonblocking(&conn.stdin).and_then(|_| set_nonblocking(&conn.stdout)) {
            conn.kill();
            return Err(e);
        }
        Ok(conn)
    }

    /// The versioned handshake: `hello` out, `hello` with the same version back.
    fn handshake(&mut self) -> Result<(), Fault> {
        self.send(Message::Hello {
            protocol: PROTOCOL_VERSION,
        })?;
        let (answer, line) = self.read_answer()?;
        match answer.kind.as_str() {
            "hello" if answer.protocol == Some(PROTOCOL_VERSION) => Ok(()),
            "hello" => Err(Fault::OutOfProtocol {
                line,
                why: format!(
                    "bad handshake: the harness speaks protocol {PROTOCOL_VERSION}, the adapter answered {}",
                    answer
                        .protocol
                        .map_or("no protocol field".to_string(), |p| format!("protocol {p}"))
                ),
            }),
            "error" => Err(Fault::OutOfProtocol {
                why: format!(
                    "bad handshake: the adapter refused hello: {}",
                    answer.message.unwrap_or_default()
                ),
                line,
            }),
            other => Err(Fault::OutOfProtocol {
                line,
                why: format!("bad handshake: expected a hello answer, got type '{other}'"),
            }),
        }
    }

    fn send(&mut self, message: Message<'_>) -> Result<(), Fault> {
        let request = Request {
            message,
            id: self.next_request_id,
        };
        self.next_request_id += 1;
        self.wbuf.clear();
        serde_json::to_writer(&mut self.wbuf, &request).expect("requests serialise");
        self.wbuf.push(b'\n');
        let deadline = Instant::now() + self.timeout;
        let mut off = 0;
        while off < self.wbuf.len() {
            match self.stdin.write(&self.wbuf[off..]) {
                Ok(n) => off += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if !wait_for(&self.stdin, PollFlags::OUT, deadline)? {
                        return Err(Fault::WriteTimeout {
                            waited: self.timeout,
                        });
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                    return Err(Fault::Exited { status: None })
                }
                Err(e) => {
                    return Err(Fault::Io {
                        error: e.to_string(),
                    })
                }
            }
        }
        Ok(())
    }

    /// The next line from stdout (without its newline), waiting at most the timeout.
    fn read_line(&mut self) -> Result<String, Fault> {
        let deadline = Instant::now() + self.timeout;
        let mut scanned = self.rpos;
        loop {
            if let Some(i) = self.rbuf[scanned..self.rend]
                .iter()
                .position(|&b| b == b'\n')
            {
                let end = scanned + i;
                let line = String::from_utf8_lossy(&self.rbuf[self.rpos..end]).into_owned();
                self.rpos = end + 1;
                if self.rpos == self.rend {
                    self.rpos = 0;
                    self.rend = 0;
                }
                return Ok(line);
            }
            scanned = self.rend;
            if self.rend - self.rpos > ANSWER_BYTES_MAX {
                let line = String::from_utf8_lossy(&self.rbuf[self.rpos..self.rend]).into_owned();
                return Err(Fault::OutOfProtocol {
                    line,
                    why: format!("an answer line longer than {ANSWER_BYTES_MAX} bytes"),
                });
            }
            if !wait_for(&self.stdout, PollFlags::IN, deadline)? {
                return Err(Fault::Timeout {
                    waited: self.timeout,
                });
            }
            // Make room: move the partial line to the front, grow only when it is full.
            if self.rpos > 0 {
                self.rbuf.copy_within(self.rpos..self.rend, 0);
                self.rend -= self.rpos;
                scanned -= self.rpos;
                self.rpos = 0;
            }
            if self.rend == self.rbuf.len() {
                self.rbuf.resize(self.rbuf.len() * 2, 0);
            }
            match self.stdout.read(&mut self.rbuf[self.rend..]) {
                Ok(0) => return Err(Fault::Exited { status: None }),
                Ok(n) => self.rend += n,
                Err(e)
                    if e.kind() == io::ErrorKind::WouldBlock
                        || e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(Fault::Io {
                        error: e.to_string(),
                    })
                }
            }
        }
    }

    fn read_answer(&mut self) -> Result<(Answer, String), Fault> {
        let line = self.read_line()?;
        let expected = self.next_answer_id;
        self.next_answer_id += 1;
        match serde_json::from_str::<Answer>(&line) {
            Ok(a) if a.id == Some(expected) => Ok((a, line)),
            Ok(a) => Err(Fault::OutOfProtocol {
                why: match a.id {
                    None => format!("an answer without an id; expected id {expected}"),
                    Some(id) => format!(
                        "the answer has id {id} where {expected} was expected (an extra or a missing answer line)"
                    ),
                },
                line,
            }),
            Err(e) if e.classify() == serde_json::error::Category::Data => {
                Err(Fault::OutOfProtocol {
                    line,
                    why: e.to_string(),
                })
            }
            Err(e) => Err(Fault::NotJson {
                line,
                error: e.to_string(),
            }),
        }
    }

    fn request_reset(&mut self) -> Result<(), Fault> {
        self.send(Message::Reset)?;
        self.resets_unanswered += 1;
        Ok(())
    }

    /// Read the answers to every `reset` sent so far.
    fn settle_resets(&mut self) -> Result<(), Fault> {
        while self.resets_unanswered > 0 {
            let (answer, line) = self.read_answer()?;
            self.resets_unanswered -= 1;
            match answer.kind.as_str() {
                "reset" => {}
                "error" => {
                    return Err(Fault::OutOfProtocol {
                        why: format!(
                            "the adapter refused reset: {}",
                            answer.message.unwrap_or_default()
                        ),
                        line,
                    })
                }
                other => {
                    return Err(Fault::OutOfProtocol {
                        line,
                        why: format!("expected the answer to reset, got type '{other}'"),
                    })
                }
            }
        }
        Ok(())
    }

    /// Send one input; return its effects and the render after it.
    fn input(&mut self, input: &Input) -> Result<(Vec<Effect>, Vec<RenderRow>), Fault> {
        self.send(Message::Input { input })?;
        self.settle_resets()?;
        let (answer, line) = self.read_answer()?;
        let result = match answer.kind.as_str() {
            "output" => match (answer.effects, answer.render) {
                (Some(effects), Some(render)) => Ok((effects, render)),
                (None, _) => Err(Fault::OutOfProtocol {
                    line,
                    why: "an output without 'effects'".into(),
                }),
                (_, None) => Err(Fault::OutOfProtocol {
                    line,
                    why: "an output without 'render'".into(),
                }),
            },
            "error" => Err(Fault::StoreError {
                message: answer.message.unwrap_or_default(),
            }),
            other => Err(Fault::OutOfProtocol {
                line,
                why: format!("expected an output, got type '{other}'"),
            }),
        }?;
        // An extra answer line is not looked for here: whether it has arrived yet is a
        // matter of timing. It is caught, always at the same input, by the id check on the
        // next answer.
        Ok(result)
    }

    /// Kill the process group, reap the process, and return its exit status and the tail
    /// of its stderr.
    fn kill(&mut self) -> (Option<ExitStatus>, String) {
        let status = match self.child.try_wait() {
            Ok(Some(s)) => Some(s),
            _ => {
                if let Some(pid) = rustix::process::Pid::from_raw(self.child.id() as i32) {
                    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
                }
                let _ = self.child.kill();
                self.child.wait().ok()
            }
        };
        let (lock, cvar) = &*self.stderr;
        let guard = lock.lock().unwrap_or_else(|e| e.into_inner());
        let (guard, _) = cvar
            .wait_timeout_while(guard, STDERR_DRAIN_WAIT, |t| !t.eof)
            .unwrap_or_else(|e| e.into_inner());
        let bytes = &guard.bytes;
        let start = bytes.len().saturating_sub(STDERR_TAIL_BYTES_MAX);
        (
            status,
            String::from_utf8_lossy(&bytes[start..]).into_owned(),
        )
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            if let Some(pid) = rustix::process::Pid::from_raw(self.child.id() as i32) {
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Wait until `fd` is ready for `events`; false on timeout. Hang-up and errors count as
/// ready: the read or write that follows reports them.
fn wait_for(fd: &impl AsFd, events: PollFlags, deadline: Instant) -> Result<bool, Fault> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(false);
        }
        let ts = Timespec::try_from(left).unwrap_or(Timespec {
            tv_sec: i64::MAX / 2,
            tv_nsec: 0,
        });
        let mut fds = [PollFd::new(fd, events)];
        match poll(&mut fds, Some(&ts)) {
            Ok(0) => continue,
            Ok(_) => return Ok(true),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => {
                return Err(Fault::Io {
                    error: e.to_string(),
                })
            }
        }
    }
}

/// CPU pinning of a harness thread and the adapter processes it talks to.
#[cfg(target_os = "linux")]
mod affinity {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use rustix::process::Pid;
    use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};

    thread_local! {
        /// The CPU this thread pinned itself to (`Some(None)`: pinning not possible).
        static CPU: Cell<Option<Option<usize>>> = const { Cell::new(None) };
    }
    static NEXT_THREAD: AtomicUsize = AtomicUsize::new(0);

    fn pin_current_thread() -> Option<usize> {
        let allowed = sched_getaffinity(None).ok()?;
        let cpus: Vec<usize> = (0..CpuSet::MAX_CPU)
            .filter(|&c| allowed.is_set(c))
            .collect();
        if cpus.len() < 2 {
            return None; // one CPU: already together
        }
        let cpu = cpus[NEXT_THREAD.fetch_add(1, Ordering::Relaxed) % cpus.len()];
        let mut set = CpuSet::new();
        set.set(cpu);
        sched_setaffinity(None, &set).ok()?;
        Some(cpu)
    }

    /// Pin the calling thread (once) and the process `pid`'s main thread to one CPU.
    /// Failures are ignored: pinning only changes speed.
    pub fn pin_with_current_thread(pid: u32) {
        let cpu = CPU.with(|c| {
            if c.get().is_none() {
                c.set(Some(pin_current_thread()));
            }
            c.get().flatten()
        });
        if let (Some(cpu), Some(pid)) = (cpu, Pid::from_raw(pid as i32)) {
            let mut set = CpuSet::new();
            set.set(cpu);
            let _ = sched_setaffinity(Some(pid), &set);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod affinity {
    pub fn pin_with_current_thread(_pid: u32) {}
}

/// Makes [`ExecStore`]s for one command line, reusing processes across runs.
pub struct ExecFactory {
    spec: String,
    argv: Vec<String>,
    timeout: Duration,
    pin: bool,
    /// Idle processes, handshake done, ready for a `reset`.
    pool: Arc<Mutex<Vec<Conn>>>,
}

impl ExecFactory {
    /// Parse `exec:COMMAND ARGS` (the command line is split like a POSIX shell would,
    /// without expansions). Nothing is started yet.
    pub fn from_spec(spec: &str) -> Result<ExecFactory, ExecError> {
        let command = spec
            .strip_prefix(SPEC_PREFIX)
            .ok_or_else(|| ExecError::BadCommand {
                spec: spec.to_string(),
                why: format!("it does not start with '{SPEC_PREFIX}'"),
            })?;
        let argv = shell_words::split(command).map_err(|e| ExecError::BadCommand {
            spec: spec.to_string(),
            why: e.to_string(),
        })?;
        if argv.is_empty() {
            return Err(ExecError::BadCommand {
                spec: spec.to_string(),
                why: "no command".to_string(),
            });
        }
        Ok(ExecFactory {
            spec: spec.to_string(),
            argv,
            timeout: TIMEOUT_DEFAULT,
            pin: true,
            pool: Arc::default(),
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
            self.pool_lock().push(conn);
        }
        Ok(())
    }

    /// Processes idle in the pool right now.
    pub fn idle_processes(&self) -> usize {
        self.pool_lock().len()
    }

    fn pool_lock(&self) -> std::sync::MutexGuard<'_, Vec<Conn>> {
        self.pool.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An idle process, or a new one with its handshake done.
    fn checkout(&self) -> Result<Conn, String> {
        if let Some(conn) = self.pool_lock().pop() {
            return Ok(conn);
        }
        let mut conn = Conn::spawn(&self.argv, self.timeout).map_err(|e| {
            fault_message(
                &self.spec,
                &Fault::Spawn {
                    error: e.to_string(),
                },
                None,
                "",
            )
        })?;
        match conn.handshake() {
            Ok(()) => Ok(conn),
            Err(fault) => {
                let (status, stderr) = conn.kill();
                Err(fault_message(&self.spec, &fault, status, &stderr))
            }
        }
    }
}

impl StoreFactory for ExecFactory {
    fn name(&self) -> String {
        self.spec.clone()
    }

    fn make(&self, _client: ClientId) -> Box<dyn Store> {
        let mut store = ExecStore {
            spec: self.spec.clone(),
            conn: None,
            unusable: None,
            render: Vec::new(),
            pool: Arc::clone(&self.pool),
        };
        match self.checkout() {
            Ok(mut conn) => {
                if self.pin {
                    affinity::pin_with_current_thread(conn.child.id());
                }
                match conn.request_reset() {
                    Ok(()) => store.conn = Some(conn),
                    Err(fault) => {
                        let (status, stderr) = conn.kill();
                        store.unusable = Some(fault_message(&self.spec, &fault, status, &stderr));
                    }
                }
            }
            Err(message) => store.unusable = Some(message),
        }
        Box::new(store)
    }
}

/// The text of a crash finding caused by a fault.
fn fault_message(spec: &str, fault: &Fault, status: Option<ExitStatus>, stderr: &str) -> String {
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

/// A store in another process: every input is one request line, answered by the effects
/// and the render (see the module docs and `docs/protocol.md`).
pub struct ExecStore {
    spec: String,
    conn: Option<Conn>,
    /// Why there is no process for this run (spawn or handshake failed, or an earlier
    /// fault killed it): the next input reports it as a crash.
    unusable: Option<String>,
    render: Vec<RenderRow>,
    pool: Arc<Mutex<Vec<Conn>>>,
}

impl ExecStore {
    /// Report a fault as a crash of the store, a value the world records as a finding.
    fn crash(&mut self, message: String) -> crate::model::store::Answer {
        self.unusable = Some(format!(
            "exec store '{}': the process was stopped by an earlier fault",
            self.spec
        ));
        Err(StoreFault { message })
    }
}

impl Store for ExecStore {
    fn handle(&mut self, input: &Input) -> crate::model::store::Answer {
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
                let (lock, _) = &*conn.stderr;
                let stderr =
                    String::from_utf8_lossy(&lock.lock().unwrap_or_else(|e| e.into_inner()).bytes)
                        .into_owned();
                let message = fault_message(&self.spec, &fault, None, &stderr);
                self.crash(message)
            }
            Err(fault) => {
                let mut conn = self.conn.take().expect("checked above");
                let (status, stderr) = conn.kill();
                let message = fault_message(&self.spec, &fault, status, &stderr);
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
            self.pool
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(conn);
        }
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
    fn a_missing_command_is_an_operational_error() {
        let f = ExecFactory::from_spec("exec:/nonexistent/reconcile-adapter").unwrap();
        let err = f.probe().unwrap_err().to_string();
        assert!(err.contains("cannot start"), "{err}");
    }

    /// The example exchange in docs/protocol.md is what this harness sends, byte for byte.
    #[test]
    fn the_protocol_page_example_requests_are_what_the_harness_sends() {
        let page = include_str!("../../../../docs/protocol.md");
        let requests: Vec<&str> = page.lines().filter_map(|l| l.strip_prefix("> ")).collect();
        assert!(requests.len() >= 10, "example exchange not found");
        for (i, line) in requests.iter().enumerate() {
            let id = i as u64 + 1;
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            let input: Option<Input> = value
                .get("input")
                .map(|v| serde_json::from_value(v.clone()).unwrap());
            let message = match value["type"].as_str().unwrap() {
                "hello" => Message::Hello {
                    protocol: PROTOCOL_VERSION,
                },
                "reset" => Message::Reset,
                "input" => Message::Input {
                    input: input.as_ref().unwrap(),
                },
                other => panic!("unexpected request type {other}"),
            };
            let ours = serde_json::to_string(&Request { message, id }).unwrap();
            assert_eq!(&ours, line, "request {id}");
        }
    }

    /// A process that stops reading its stdin cannot block the harness: a request larger
    /// than the pipe buffer times out.
    #[test]
    fn a_process_that_does_not_read_times_out_the_write() {
        let argv = ["sleep".to_string(), "30".to_string()];
        let mut conn = Conn::spawn(&argv, Duration::from_millis(200)).unwrap();
        let input = Input::UserSend {
            message_id: crate::model::wire::MessageId(1),
            text: "x".repeat(1 << 20),
        };
        let fault = conn.send(Message::Input { input: &input }).unwrap_err();
        assert_eq!(
            fault,
            Fault::WriteTimeout {
                waited: Duration::from_millis(200)
            }
        );
        let (status, _) = conn.kill();
        assert!(status.is_some_and(|s| !s.success()), "killed: {status:?}");
    }

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
}
