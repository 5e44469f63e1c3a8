//! One adapter and the conversation with it ([`Conn`]). Usually a running process and our
//! ends of its pipes: started in a process group of its own, spoken to in the protocol
//! one line at a time, never waited on for longer than the timeout of the phase it is in,
//! and killed with everything it started. Or an adapter in this process behind a
//! [`Channel`]: the same request lines, handed over in memory when an answer is needed,
//! and the same checks of what comes back.
//!
//! All three pipe ends on our side are non-blocking; every read and write that cannot
//! proceed waits with `poll(2)` until the message's deadline, on the pipe, on stderr
//! (read as it comes, see [`super::stderr`]) and, on Linux, on a pidfd of the process, so
//! that the exit of the process is seen when it happens, even while a grandchild holds its
//! stdout open. What the lines mean is [`super::protocol`]'s business; cutting stdout into
//! lines is [`super::lines`]'s.
//!
//! **Phases.** A process is *starting* until its first `reset` is answered (the spawn, the
//! `hello` handshake and that reset): every wait then uses the start-up timeout. After
//! that every message gets the per-message timeout.
//!
//! **How a fault ends.** [`Conn::into_cause`] decides what happened and then kills the
//! whole process group, always (also when the leader already exited: its children may
//! live on), before it reaps the leader (a zombie leader keeps the group's id from being
//! reused). A closed stdout is an exit only if the process then exits (it is given the
//! phase's timeout to do so); otherwise the process closed its stdout and lived on.

use std::io::{self, Read, Write};
#[cfg(target_os = "linux")]
use std::os::fd::OwnedFd;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::process::{kill_process_group, waitid, Pid, Signal, WaitId, WaitIdOptions};

use super::affinity;
use super::channel::Channel;
use super::fault::{Fault, Pipe};
use super::lines::LineBuffer;
use super::protocol::{CoverageAnswer, Features, Ids, Message, ResetAnswer, PROTOCOL_VERSION};
use super::stderr::StderrTail;
use crate::model::store::{CrashCause, Phase};
use crate::model::wire::{Effect, Input, RenderRow};
use crate::util::fd::set_nonblocking;

/// How long to wait for an adapter, by phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Timeouts {
    /// Spawn, `hello` and the first `reset` answer, each wait.
    pub startup: Duration,
    /// Each message after that.
    pub message: Duration,
}

/// Without a pidfd (not Linux, or an old kernel), how often a wait checks whether the
/// process exited.
const EXIT_CHECK: Duration = Duration::from_millis(50);

/// What a wait on a pipe ended with.
enum Ready {
    /// The pipe is ready (or hung up or failed: the read or write that follows says).
    Pipe,
    /// The process (the group leader) exited.
    LeaderExited,
    /// The deadline passed.
    TimedOut,
}

/// How requests reach the adapter and its answers come back.
enum Link {
    /// A process of its own, spoken to over pipes.
    Process(Process),
    /// An adapter in this process: the request lines written since the last answer are
    /// handed to it together when an answer is needed (so a pipelined `reset` travels
    /// with the first input, as it does over a pipe).
    Channel {
        channel: Box<dyn Channel>,
        /// Request lines written and not handed over yet.
        outbox: Vec<u8>,
    },
}

/// One running adapter process and our ends of its pipes.
struct Process {
    child: Child,
    /// The leader has been waited for (its id may be reused: signal nothing any more).
    reaped: Option<Option<ExitStatus>>,
    /// Readable once the process exits.
    #[cfg(target_os = "linux")]
    pidfd: Option<OwnedFd>,
    stdin: ChildStdin,
    stdout: ChildStdout,
    stderr: StderrTail,
}

/// One adapter (a process, or one in this process behind a [`Channel`]) and the state of
/// the conversation with it.
pub(super) struct Conn {
    link: Link,
    timeouts: Timeouts,
    /// The first `reset` has been answered: start-up is over.
    started: bool,
    /// Pin the process with the current thread once start-up is over.
    pin_on_start: bool,
    /// What the adapter said it speaks in its `hello`.
    features: Features,
    /// The virtual-clock setting the adapter stated in its `hello`, if any.
    clock: Option<String>,
    /// The name the adapter gave its store in its `hello`, if any.
    name: Option<String>,
    /// The contract the adapter declared in its `hello` (`world`), as given.
    world: Vec<String>,
    /// Bytes read from stdout, not yet handed out as answer lines.
    lines: LineBuffer,
    /// Scratch for the request being written.
    wbuf: Vec<u8>,
    /// The ids of the next request and of the next answer expected.
    ids: Ids,
    /// `reset` requests sent whose answers have not been read yet.
    resets_unanswered: u32,
}

impl Conn {
    /// Start `argv` (in `dir`, when given: a relative program path with a `/` is taken
    /// from there too) in a process group of its own, with piped, non-blocking stdin,
    /// stdout and stderr. The process may run on any CPU ([`affinity::spawn_unpinned`]).
    /// No handshake yet.
    pub fn spawn(argv: &[String], dir: Option<&Path>, timeouts: Timeouts) -> io::Result<Conn> {
        Ok(Conn::on(
            Link::Process(Process::spawn(argv, dir)?),
            timeouts,
        ))
    }

    /// An adapter in this process, spoken to through `channel`. No handshake yet.
    pub fn over(channel: Box<dyn Channel>, timeouts: Timeouts) -> Conn {
        Conn::on(
            Link::Channel {
                channel,
                outbox: Vec::with_capacity(1 << 12),
            },
            timeouts,
        )
    }

    fn on(link: Link, timeouts: Timeouts) -> Conn {
        Conn {
            link,
            timeouts,
            started: false,
            pin_on_start: false,
            features: Features::default(),
            clock: None,
            name: None,
            world: Vec::new(),
            lines: LineBuffer::with_capacity(1 << 16),
            wbuf: Vec::with_capacity(1 << 12),
            ids: Ids::new(),
            resets_unanswered: 0,
        }
    }

    /// The process id (of the group leader), for CPU pinning; `None` for an adapter in
    /// this process.
    pub fn pid(&self) -> Option<u32> {
        match &self.link {
            Link::Process(p) => Some(p.child.id()),
            Link::Channel { .. } => None,
        }
    }

    /// What the adapter said it speaks.
    pub fn features(&self) -> Features {
        self.features
    }

    /// The virtual-clock setting the adapter stated in its `hello`.
    pub fn clock(&self) -> Option<&str> {
        self.clock.as_deref()
    }

    /// The name the adapter gave its store in its `hello`.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The contract the adapter declared in its `hello` (`world`), as given: `--world`
    /// settings and profiles.
    pub fn world(&self) -> &[String] {
        &self.world
    }

    /// Start-up is over (the first `reset` was answered).
    pub fn started(&self) -> bool {
        self.started
    }

    /// Pin the process with the thread that reads its first `reset` answer, once that
    /// happens (so that its start-up runs wherever the OS puts it).
    pub fn pin_once_started(&mut self) {
        self.pin_on_start = true;
    }

    /// The phase the process is in, and its timeout.
    fn phase(&self) -> (Phase, Duration) {
        if self.started {
            (Phase::Message, self.timeouts.message)
        } else {
            (Phase::StartUp, self.timeouts.startup)
        }
    }

    /// The versioned handshake: `hello` out, `hello` with the same version back (and the
    /// adapter's features).
    pub fn handshake(&mut self) -> Result<(), Fault> {
        self.send(Message::Hello {
            protocol: PROTOCOL_VERSION,
        })?;
        let line = self.read_line()?;
        let answer = self.ids.answer(&line)?;
        self.clock = answer.clock().map(str::to_string);
        self.name = answer.name().map(str::to_string);
        self.world = answer.world().to_vec();
        self.features = answer.into_hello()?;
        Ok(())
    }

    /// Start a run: send `reset` without waiting for its answer, which is read with the
    /// next request's (the pipelined reset: a run pays no round trip for it) or by
    /// [`Conn::boot`]. The run's crash reports quote the stderr from here on.
    pub fn request_reset(&mut self) -> Result<(), Fault> {
        if let Link::Process(p) = &mut self.link {
            p.stderr.mark_run();
        }
        self.send(Message::Reset)?;
        self.resets_unanswered += 1;
        Ok(())
    }

    /// Read the answers to every `reset` sent so far; the last one's is returned (earlier
    /// ones belong to runs that never sent an input). The first answered ends start-up.
    fn settle_resets(&mut self) -> Result<ResetAnswer, Fault> {
        let mut last = ResetAnswer::default();
        while self.resets_unanswered > 0 {
            let line = self.read_line()?;
            let answer = self.ids.answer(&line)?;
            self.resets_unanswered -= 1;
            last = answer.into_reset(&line, self.features)?;
            if !self.started {
                self.started = true;
                if let (true, Some(pid)) = (self.pin_on_start, self.pid()) {
                    affinity::pin_with_current_thread(pid);
                }
            }
        }
        Ok(last)
    }

    /// The run's `reset` answer now: the new store's effects and render (an adapter with
    /// the `boot` feature).
    pub fn boot(&mut self) -> Result<ResetAnswer, Fault> {
        self.settle_resets()
    }

    /// Send one input; return its effects and the render after it.
    pub fn input(&mut self, input: &Input) -> Result<(Vec<Effect>, Vec<RenderRow>), Fault> {
        self.send(Message::Input { input })?;
        self.settle_resets()?;
        let line = self.read_line()?;
        // An extra answer line is not looked for here: whether it has arrived yet is a
        // matter of timing. It is caught, always at the same input, by the id check on the
        // next answer.
        self.ids.answer(&line)?.into_output(&line)
    }

    /// Ask for the digest of the store's state (an adapter with the `state` feature).
    pub fn state(&mut self) -> Result<String, Fault> {
        self.send(Message::State)?;
        self.settle_resets()?;
        let line = self.read_line()?;
        self.ids.answer(&line)?.into_state(&line)
    }

    /// The lines of the app's own files run since the last ask (an adapter with the
    /// `coverage` feature; the first ask starts its coverage).
    pub fn coverage(&mut self) -> Result<CoverageAnswer, Fault> {
        self.send(Message::Coverage)?;
        self.settle_resets()?;
        let line = self.read_line()?;
        self.ids.answer(&line)?.into_coverage(&line)
    }

    /// Whether an idle adapter can serve a run: its process has not exited and has
    /// written nothing unasked (an extra answer line, or the end of its stdout). An
    /// adapter in this process only speaks when asked.
    pub fn idle_and_healthy(&mut self) -> bool {
        let Link::Process(p) = &mut self.link else {
            return true;
        };
        if p.leader_exited_now() {
            return false;
        }
        if self.resets_unanswered > 0 {
            return true; // the reset's answer may be waiting on stdout
        }
        let mut fds = [PollFd::new(&p.stdout, PollFlags::IN)];
        matches!(poll(&mut fds, Some(&Timespec::default())), Ok(0))
    }

    /// The cause of the crash a store error makes: the adapter's message and what the
    /// process wrote to stderr in this run up to its answer. The adapter lives on.
    pub fn store_threw(&mut self, message: String) -> CrashCause {
        let tail = match &mut self.link {
            Link::Process(p) => {
                p.stderr.drain();
                p.stderr.tail()
            }
            Link::Channel { .. } => String::new(),
        };
        Fault::StoreError { message }.into_cause(None, tail)
    }

    /// After `fault`: find out how the process ended (for a closed pipe, wait up to the
    /// phase's timeout for it to exit), kill its whole process group, reap it, read its
    /// stderr to the end, and return the crash's cause. An adapter in this process has
    /// no exit status and no stderr of its own.
    pub fn into_cause(mut self, fault: Fault) -> CrashCause {
        let waited = self.phase().1;
        let Link::Process(p) = &mut self.link else {
            return fault.into_cause(None, String::new());
        };
        let exited = match fault {
            Fault::Closed { .. } => p.wait_for_exit(Instant::now() + waited),
            Fault::LeaderExited => true,
            _ => false,
        };
        let status = p.kill();
        p.stderr.drain_to_end();
        fault.into_cause(if exited { status } else { None }, p.stderr.tail())
    }

    /// Kill the process group (whatever the process started too) and the process, and
    /// reap it: its exit status (`None` for an adapter in this process).
    #[cfg(test)]
    pub fn kill(&mut self) -> Option<ExitStatus> {
        match &mut self.link {
            Link::Process(p) => p.kill(),
            Link::Channel { .. } => None,
        }
    }

    /// Write `message` as the next request line, waiting at most the phase's timeout for
    /// the process to take it (an adapter in this process gets it with the next exchange).
    fn send(&mut self, message: Message<'_>) -> Result<(), Fault> {
        self.ids.request(&mut self.wbuf, message);
        let (phase, waited) = self.phase();
        match &mut self.link {
            Link::Process(p) => p.write_all(&self.wbuf, phase, waited),
            Link::Channel { outbox, .. } => {
                outbox.extend_from_slice(&self.wbuf);
                Ok(())
            }
        }
    }

    /// The next answer line (without its newline), waiting at most the phase's timeout
    /// for a process; an adapter in this process is handed the requests written so far.
    fn read_line(&mut self) -> Result<String, Fault> {
        let (phase, waited) = self.phase();
        let mut deadline = None;
        loop {
            if let Some(line) = self.lines.next_line()? {
                return Ok(line);
            }
            match &mut self.link {
                Link::Process(p) => {
                    let deadline = *deadline.get_or_insert_with(|| Instant::now() + waited);
                    match p.wait(Pipe::Stdout, deadline)? {
                        Ready::Pipe => {
                            if p.read_stdout(&mut self.lines)? == Some(0) {
                                return Err(Fault::Closed { pipe: Pipe::Stdout });
                            }
                        }
                        Ready::LeaderExited => {
                            // Whatever it wrote before it exited is in the pipe now.
                            while let Some(1..) = p.read_stdout(&mut self.lines)? {
                                if let Some(line) = self.lines.next_line()? {
                                    return Ok(line);
                                }
                            }
                            return Err(Fault::LeaderExited);
                        }
                        Ready::TimedOut => return Err(Fault::Timeout { phase, waited }),
                    }
                }
                Link::Channel { channel, outbox } => {
                    if outbox.is_empty() {
                        return Err(Fault::Protocol {
                            why: "the adapter gave fewer answer lines than it was sent requests"
                                .to_string(),
                        });
                    }
                    let answers = channel
                        .exchange(outbox)
                        .map_err(|error| Fault::Io { error })?;
                    outbox.clear();
                    self.lines.push(&answers);
                }
            }
        }
    }
}

impl Process {
    /// See [`Conn::spawn`].
    fn spawn(argv: &[String], dir: Option<&Path>) -> io::Result<Process> {
        let mut command = Command::new(program(&argv[0], dir));
        command
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group, so a fault kills whatever it started too.
            .process_group(0);
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        let mut child = affinity::spawn_unpinned(|| command.spawn())?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        #[cfg(target_os = "linux")]
        let pidfd = Pid::from_raw(child.id() as i32).and_then(|pid| {
            rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
        });
        let set_up = set_nonblocking(&stdin)
            .and_then(|_| set_nonblocking(&stdout))
            .and_then(|_| StderrTail::new(stderr));
        let stderr = match set_up {
            Ok(stderr) => stderr,
            Err(e) => {
                if let Some(pid) = Pid::from_raw(child.id() as i32) {
                    let _ = kill_process_group(pid, Signal::KILL);
                }
                let _ = child.wait();
                return Err(e);
            }
        };
        Ok(Process {
            child,
            reaped: None,
            #[cfg(target_os = "linux")]
            pidfd,
            stdin,
            stdout,
            stderr,
        })
    }

    /// Kill the process group (whatever the process started too) and the process, and
    /// reap it: its exit status.
    fn kill(&mut self) -> Option<ExitStatus> {
        if let Some(status) = self.reaped {
            return status;
        }
        // The group first, while the leader (alive, or a zombie) still holds its id.
        if let Some(pid) = Pid::from_raw(self.child.id() as i32) {
            let _ = kill_process_group(pid, Signal::KILL);
        }
        let _ = self.child.kill(); // in case it moved itself to another group
        let status = self.child.wait().ok();
        self.reaped = Some(status);
        status
    }

    /// The process (the group leader) has exited, without reaping it.
    fn leader_exited_now(&self) -> bool {
        let Some(pid) = Pid::from_raw(self.child.id() as i32) else {
            return true;
        };
        if self.reaped.is_some() {
            return true;
        }
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        !matches!(waitid(WaitId::Pid(pid), options), Ok(None))
    }

    /// Wait until the process exits or `deadline` passes; true if it exited.
    fn wait_for_exit(&mut self, deadline: Instant) -> bool {
        loop {
            if self.leader_exited_now() {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            #[cfg(target_os = "linux")]
            if let Some(pidfd) = &self.pidfd {
                let ts = timespec(left);
                let mut fds = [PollFd::new(pidfd, PollFlags::IN)];
                let _ = poll(&mut fds, Some(&ts));
                continue;
            }
            std::thread::sleep(left.min(Duration::from_millis(5)));
        }
    }

    /// Write all of `bytes` to stdin, waiting at most `waited` (the timeout of `phase`)
    /// for the process to take them.
    fn write_all(&mut self, bytes: &[u8], phase: Phase, waited: Duration) -> Result<(), Fault> {
        let mut deadline = None;
        let mut off = 0;
        while off < bytes.len() {
            match self.stdin.write(&bytes[off..]) {
                Ok(n) => off += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    let deadline = *deadline.get_or_insert_with(|| Instant::now() + waited);
                    match self.wait(Pipe::Stdin, deadline)? {
                        Ready::Pipe => {}
                        Ready::LeaderExited => return Err(Fault::LeaderExited),
                        Ready::TimedOut => return Err(Fault::WriteTimeout { phase, waited }),
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                    return Err(Fault::Closed { pipe: Pipe::Stdin })
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

    /// One read from stdout into `lines`: `Some(n)` bytes (0: the end), `None` when
    /// nothing is there now.
    fn read_stdout(&mut self, lines: &mut LineBuffer) -> Result<Option<usize>, Fault> {
        loop {
            match self.stdout.read(lines.spare()) {
                Ok(n) => {
                    lines.filled(n);
                    return Ok(Some(n));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(Fault::Io {
                        error: e.to_string(),
                    })
                }
            }
        }
    }

    /// Wait until `pipe` is ready, the process exits or `deadline` passes, reading stderr
    /// whenever it has something.
    fn wait(&mut self, pipe: Pipe, deadline: Instant) -> Result<Ready, Fault> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(Ready::TimedOut);
            }
            let watching_exit = self.exit_fd().is_some();
            let slice = if watching_exit {
                left
            } else {
                left.min(EXIT_CHECK)
            };
            let (pipe_ready, stderr_ready, exited) = {
                let (target, events): (BorrowedFd<'_>, _) = match pipe {
                    Pipe::Stdin => (self.stdin.as_fd(), PollFlags::OUT),
                    Pipe::Stdout => (self.stdout.as_fd(), PollFlags::IN),
                };
                // Absent fds are stood in for by the target with no events (their
                // results are ignored), so the set has a fixed size.
                let stderr = self.stderr.fd();
                let exit = self.exit_fd();
                let mut fds = [
                    PollFd::from_borrowed_fd(target, events),
                    match stderr {
                        Some(fd) => PollFd::from_borrowed_fd(fd, PollFlags::IN),
                        None => PollFd::from_borrowed_fd(target, PollFlags::empty()),
                    },
                    match exit {
                        Some(fd) => PollFd::from_borrowed_fd(fd, PollFlags::IN),
                        None => PollFd::from_borrowed_fd(target, PollFlags::empty()),
                    },
                ];
                match poll(&mut fds, Some(&timespec(slice))) {
                    Ok(_) => {}
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(e) => {
                        return Err(Fault::Io {
                            error: e.to_string(),
                        })
                    }
                }
                (
                    !fds[0].revents().is_empty(),
                    stderr.is_some() && !fds[1].revents().is_empty(),
                    exit.is_some() && !fds[2].revents().is_empty(),
                )
            };
            if stderr_ready {
                self.stderr.drain();
            }
            if pipe_ready {
                return Ok(Ready::Pipe);
            }
            if exited || (!watching_exit && self.leader_exited_now()) {
                return Ok(Ready::LeaderExited);
            }
        }
    }

    /// A descriptor that becomes readable when the process exits, if there is one.
    fn exit_fd(&self) -> Option<BorrowedFd<'_>> {
        #[cfg(target_os = "linux")]
        if self.reaped.is_none() {
            return self.pidfd.as_ref().map(|fd| fd.as_fd());
        }
        None
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The program to run: `program` itself, or, when it is a relative path with a `/` and
/// the process runs in `dir`, that path taken from `dir` (as the other words are).
fn program(program: &str, dir: Option<&Path>) -> PathBuf {
    let path = Path::new(program);
    match dir {
        Some(dir) if path.is_relative() && program.contains('/') => dir.join(path),
        _ => path.to_path_buf(),
    }
}

/// `d` for `poll`, capped to something any platform takes.
fn timespec(d: Duration) -> Timespec {
    Timespec::try_from(d.min(Duration::from_secs(1 << 30))).expect("a capped duration")
}

#[cfg(test)]
mod tests {
    use super::*;

    const GENEROUS: Duration = Duration::from_secs(60);

    fn sh(script: &str, message: Duration) -> Conn {
        let argv = ["sh".to_string(), "-c".to_string(), script.to_string()];
        let mut conn = Conn::spawn(
            &argv,
            None,
            Timeouts {
                startup: message,
                message,
            },
        )
        .unwrap();
        conn.started = true; // these tests talk to the process directly
        conn
    }

    /// A process that stops reading its stdin cannot block the harness: a request larger
    /// than the pipe buffer times out.
    #[test]
    fn a_process_that_does_not_read_times_out_the_write() {
        let mut conn = sh("sleep 30", Duration::from_millis(200));
        let input = Input::UserSend {
            message_id: crate::model::wire::MessageId(1),
            text: "x".repeat(1 << 20),
        };
        let fault = conn.send(Message::Input { input: &input }).unwrap_err();
        assert_eq!(
            fault,
            Fault::WriteTimeout {
                phase: Phase::Message,
                waited: Duration::from_millis(200)
            }
        );
        let status = conn.kill();
        assert!(status.is_some_and(|s| !s.success()), "killed: {status:?}");
    }

    /// A process that writes nothing times out the read.
    #[test]
    fn silence_times_out() {
        let mut conn = sh("sleep 30", Duration::from_millis(100));
        let fault = conn.read_line().unwrap_err();
        assert_eq!(
            fault,
            Fault::Timeout {
                phase: Phase::Message,
                waited: Duration::from_millis(100)
            }
        );
        let cause = conn.into_cause(fault);
        assert!(matches!(cause, CrashCause::TimedOut { .. }), "{cause:?}");
    }

    /// An exit is reported with its code and the stderr, however the pipe ends.
    #[test]
    fn an_exit_is_an_exit_with_its_code_and_stderr() {
        let mut conn = sh("echo gone >&2; exit 3", GENEROUS);
        let fault = conn.read_line().unwrap_err();
        assert!(
            matches!(fault, Fault::Closed { .. } | Fault::LeaderExited),
            "{fault:?}"
        );
        assert_eq!(
            conn.into_cause(fault),
            CrashCause::Exited {
                code: Some(3),
                signal: None,
                stderr_tail: "gone\n".into()
            }
        );
    }

    /// A grandchild that keeps stdout open does not turn an exit into a timeout, and it
    /// is killed with its group.
    #[test]
    fn a_grandchild_holding_stdout_does_not_hide_the_exit_and_dies_too() {
        let mut conn = sh("sleep 300 & echo $! >&2; exit 4", GENEROUS);
        let fault = conn.read_line().unwrap_err();
        assert_eq!(fault, Fault::LeaderExited);
        let cause = conn.into_cause(fault);
        let CrashCause::Exited {
            code: Some(4),
            stderr_tail,
            ..
        } = &cause
        else {
            panic!("{cause:?}");
        };
        let grandchild: i32 = stderr_tail.trim().parse().unwrap();
        // Killed (a zombie until init reaps it, then gone).
        let deadline = Instant::now() + GENEROUS;
        loop {
            let stat = std::fs::read_to_string(format!("/proc/{grandchild}/stat"));
            match stat {
                Err(_) => break,
                Ok(s) if s.contains(") Z ") => break,
                Ok(_) if Instant::now() > deadline => panic!("grandchild {grandchild} lives"),
                Ok(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    }

    /// A process that closes its stdout and lives on did not exit: the harness killed it.
    #[test]
    fn a_closed_stdout_of_a_living_process_is_not_an_exit() {
        let mut conn = sh(
            "exec >&-; echo closing >&2; sleep 300",
            Duration::from_millis(300),
        );
        let fault = conn.read_line().unwrap_err();
        assert_eq!(fault, Fault::Closed { pipe: Pipe::Stdout });
        let cause = conn.into_cause(fault);
        assert_eq!(
            cause,
            CrashCause::ClosedPipe {
                pipe: "stdout".into(),
                stderr_tail: "closing\n".into()
            }
        );
    }

    /// Answers are read line by line, whatever the pipe delivers at once.
    #[test]
    fn lines_are_read_in_order() {
        let mut conn = sh(
            "printf 'one\\ntwo\\nthr'; sleep 0.1; printf 'ee\\n'; sleep 30",
            GENEROUS,
        );
        for expected in ["one", "two", "three"] {
            assert_eq!(conn.read_line().unwrap(), expected);
        }
    }

    /// The last line a process writes before it exits is still read.
    #[test]
    fn the_last_line_before_an_exit_is_read() {
        let mut conn = sh("printf 'last\\n'; exit 0", GENEROUS);
        assert_eq!(conn.read_line().unwrap(), "last");
        let fault = conn.read_line().unwrap_err();
        assert!(matches!(
            conn.into_cause(fault),
            CrashCause::Exited { code: Some(0), .. }
        ));
    }

    /// A process that died while idle is not healthy; a living quiet one is.
    #[test]
    fn idle_health() {
        let mut quiet = sh("sleep 30", GENEROUS);
        assert!(quiet.idle_and_healthy());
        let mut chatty = sh("echo unasked; sleep 30", GENEROUS);
        let deadline = Instant::now() + GENEROUS;
        while chatty.idle_and_healthy() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!chatty.idle_and_healthy(), "an unasked line");
        let mut dead = sh("exit 0", GENEROUS);
        let Link::Process(p) = &mut dead.link else {
            unreachable!("sh starts a process")
        };
        assert!(p.wait_for_exit(Instant::now() + GENEROUS));
        assert!(!dead.idle_and_healthy());
    }

    /// An adapter in this process that answers each request line with `answer(type, id)`
    /// and records every exchange.
    struct Scripted {
        answer: fn(&str, u64) -> String,
        exchanges: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    }

    impl Channel for Scripted {
        fn exchange(&mut self, requests: &[u8]) -> Result<Vec<u8>, String> {
            let text = String::from_utf8(requests.to_vec()).unwrap();
            self.exchanges.lock().unwrap().push(text.clone());
            let mut out = String::new();
            for line in text.lines() {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                let ty = v["type"].as_str().unwrap();
                if ty == "input" && v["input"]["input"] == "user-send" {
                    return Err("the mapping threw".to_string());
                }
                out.push_str(&(self.answer)(ty, v["id"].as_u64().unwrap()));
            }
            Ok(out.into_bytes())
        }
    }

    fn scripted(
        answer: fn(&str, u64) -> String,
    ) -> (Conn, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
        let exchanges = std::sync::Arc::default();
        let channel = Scripted {
            answer,
            exchanges: std::sync::Arc::clone(&exchanges),
        };
        let timeouts = Timeouts {
            startup: GENEROUS,
            message: GENEROUS,
        };
        (Conn::over(Box::new(channel), timeouts), exchanges)
    }

    fn well_behaved(ty: &str, id: u64) -> String {
        match ty {
            "hello" => format!(
                "{{\"type\":\"hello\",\"protocol\":1,\"clock\":\"step 0ms\",\"id\":{id}}}\n"
            ),
            "reset" => format!("{{\"type\":\"reset\",\"id\":{id}}}\n"),
            _ => format!("{{\"type\":\"output\",\"effects\":[],\"render\":[],\"id\":{id}}}\n"),
        }
    }

    /// In process, the conversation is the one a pipe carries: the handshake, then the
    /// pipelined reset handed over with the first input (one exchange for both), the
    /// answers checked the same way.
    #[test]
    fn an_adapter_in_this_process_gets_the_requests_a_process_would() {
        let (mut conn, exchanges) = scripted(well_behaved);
        assert_eq!(conn.pid(), None);
        conn.handshake().unwrap();
        assert_eq!(conn.clock(), Some("step 0ms"));
        conn.request_reset().unwrap();
        let tick = Input::Scroll { at_bottom: true };
        let (effects, render) = conn.input(&tick).unwrap();
        assert!(effects.is_empty() && render.is_empty());
        assert!(conn.started());
        assert!(conn.idle_and_healthy());
        let exchanges = exchanges.lock().unwrap().clone();
        assert_eq!(exchanges.len(), 2, "{exchanges:?}");
        assert_eq!(
            exchanges[0],
            "{\"type\":\"hello\",\"protocol\":1,\"id\":1}\n"
        );
        let second: Vec<&str> = exchanges[1].lines().collect();
        assert_eq!(second.len(), 2, "reset and the input together: {second:?}");
        assert!(second[0].contains("\"reset\"") && second[1].contains("\"input\""));
    }

    /// An adapter in this process that cannot answer at all crashes the run with its
    /// words (no exit status, no stderr); one that gives an answer too few or a wrong id
    /// breaks the protocol as a process would.
    #[test]
    fn an_adapter_in_this_process_that_fails_is_a_crash_with_its_words() {
        let (mut conn, _) = scripted(well_behaved);
        conn.handshake().unwrap();
        let send = Input::UserSend {
            message_id: crate::model::wire::MessageId(1),
            text: "x".into(),
        };
        let fault = conn.input(&send).unwrap_err();
        assert_eq!(
            conn.into_cause(fault),
            CrashCause::Io {
                error: "the mapping threw".into(),
                stderr_tail: String::new()
            }
        );
        let (mut silent, _) = scripted(|ty, id| match ty {
            "hello" => well_behaved(ty, id),
            _ => String::new(),
        });
        silent.handshake().unwrap();
        let fault = silent
            .input(&Input::Scroll { at_bottom: true })
            .unwrap_err();
        assert_eq!(
            fault,
            Fault::Protocol {
                why: "the adapter gave fewer answer lines than it was sent requests".into()
            }
        );
        let (mut confused, _) = scripted(|ty, _| well_behaved(ty, 9));
        assert!(matches!(confused.handshake(), Err(Fault::BadLine { .. })));
    }

    #[test]
    fn a_relative_program_is_taken_from_the_working_directory() {
        let dir = Path::new("/some/dir");
        assert_eq!(program("./a.sh", Some(dir)), dir.join("./a.sh"));
        assert_eq!(program("bin/a", Some(dir)), dir.join("bin/a"));
        assert_eq!(program("node", Some(dir)), Path::new("node"));
        assert_eq!(program("/abs/a", Some(dir)), Path::new("/abs/a"));
        assert_eq!(program("./a.sh", None), Path::new("./a.sh"));
    }
}
