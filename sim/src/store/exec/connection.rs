//! One running adapter process and our ends of its pipes ([`Conn`]): started in a process
//! group of its own, spoken to in the protocol one line at a time, never waited on for
//! longer than the per-message timeout, and killed with everything it started.
//!
//! Both pipe ends on our side are non-blocking; every read and write that cannot proceed
//! waits with `poll(2)` until the message's deadline. What the lines mean is
//! [`super::protocol`]'s business; cutting stdout into lines is [`super::lines`]'s.

use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::fs::{fcntl_getfl, fcntl_setfl, OFlags};
use rustix::process::{kill_process_group, Pid, Signal};

use super::fault::{fault_message, Fault};
use super::lines::LineBuffer;
use super::protocol::{Ids, Message, PROTOCOL_VERSION};
use super::stderr::StderrTail;
use crate::model::wire::{Effect, Input, RenderRow};

/// One running adapter process and our ends of its pipes.
pub(super) struct Conn {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    stderr: StderrTail,
    timeout: Duration,
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
    /// Start `argv` in a process group of its own, with piped, non-blocking stdin and
    /// stdout and a reader thread on its stderr. No handshake yet.
    pub fn spawn(argv: &[String], timeout: Duration) -> io::Result<Conn> {
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
        let stderr = StderrTail::spawn(child.stderr.take().expect("piped"));
        let mut conn = Conn {
            child,
            stdin,
            stdout,
            stderr,
            timeout,
            lines: LineBuffer::with_capacity(1 << 16),
            wbuf: Vec::with_capacity(1 << 12),
            ids: Ids::new(),
            resets_unanswered: 0,
        };
        if let Err(e) = set_nonblocking(&conn.stdin).and_then(|_| set_nonblocking(&conn.stdout)) {
            conn.kill();
            return Err(e);
        }
        Ok(conn)
    }

    /// The process id (of the group leader), for CPU pinning.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The versioned handshake: `hello` out, `hello` with the same version back.
    pub fn handshake(&mut self) -> Result<(), Fault> {
        self.send(Message::Hello {
            protocol: PROTOCOL_VERSION,
        })?;
        let line = self.read_line()?;
        self.ids.answer(&line)?.into_hello(&line)
    }

    /// Send `reset` without waiting for its answer, which is read with the next input's
    /// (the pipelined reset: a run pays no round trip for it).
    pub fn request_reset(&mut self) -> Result<(), Fault> {
        self.send(Message::Reset)?;
        self.resets_unanswered += 1;
        Ok(())
    }

    /// Read the answers to every `reset` sent so far.
    fn settle_resets(&mut self) -> Result<(), Fault> {
        while self.resets_unanswered > 0 {
            let line = self.read_line()?;
            let answer = self.ids.answer(&line)?;
            self.resets_unanswered -= 1;
            answer.into_reset(&line)?;
        }
        Ok(())
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

    /// What the process has written to stderr so far, without waiting (it lives on).
    pub fn stderr_so_far(&self) -> String {
        self.stderr.so_far()
    }

    /// Kill the process group, reap the process, and return its exit status and the tail
    /// of its stderr.
    pub fn kill(&mut self) -> (Option<ExitStatus>, String) {
        let status = match self.child.try_wait() {
            Ok(Some(s)) => Some(s),
            _ => {
                kill_group(&mut self.child);
                self.child.wait().ok()
            }
        };
        (status, self.stderr.after_end())
    }

    /// Kill the process after `fault` and return the text of the crash finding of store
    /// `spec`: the fault, the exit status and the stderr tail.
    pub fn into_fault_message(mut self, spec: &str, fault: &Fault) -> String {
        let (status, stderr) = self.kill();
        fault_message(spec, fault, status, &stderr)
    }

    /// Write `message` as the next request line, waiting at most the timeout for the
    /// process to take it.
    fn send(&mut self, message: Message<'_>) -> Result<(), Fault> {
        self.ids.request(&mut self.wbuf, message);
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
        loop {
            if let Some(line) = self.lines.next_line()? {
                return Ok(line);
            }
            if !wait_for(&self.stdout, PollFlags::IN, deadline)? {
                return Err(Fault::Timeout {
                    waited: self.timeout,
                });
            }
            match self.stdout.read(self.lines.spare()) {
                Ok(0) => return Err(Fault::Exited { status: None }),
                Ok(n) => self.lines.filled(n),
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
}

impl Drop for Conn {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            kill_group(&mut self.child);
            let _ = self.child.wait();
        }
    }
}

/// SIGKILL the child's process group (whatever it started, too) and the child itself.
fn kill_group(child: &mut Child) {
    if let Some(pid) = Pid::from_raw(child.id() as i32) {
        let _ = kill_process_group(pid, Signal::KILL);
    }
    let _ = child.kill();
}

/// Make our end of a pipe non-blocking, so that no read or write can hang the harness.
fn set_nonblocking(fd: impl AsFd) -> io::Result<()> {
    let flags = fcntl_getfl(&fd)?;
    fcntl_setfl(&fd, flags | OFlags::NONBLOCK)?;
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A process that writes nothing times out the read; one that closes its stdout has
    /// exited, and its exit status and stderr are in the report.
    #[test]
    fn silence_times_out_and_a_closed_stdout_is_an_exit() {
        let argv = ["sleep".to_string(), "30".to_string()];
        let mut conn = Conn::spawn(&argv, Duration::from_millis(100)).unwrap();
        assert_eq!(
            conn.read_line().unwrap_err(),
            Fault::Timeout {
                waited: Duration::from_millis(100)
            }
        );
        conn.kill();
        let script = "echo gone >&2; exit 3".to_string();
        let argv = ["sh".to_string(), "-c".to_string(), script];
        let mut conn = Conn::spawn(&argv, Duration::from_secs(20)).unwrap();
        assert_eq!(
            conn.read_line().unwrap_err(),
            Fault::Exited { status: None }
        );
        let (status, stderr) = conn.kill();
        assert_eq!(status.and_then(|s| s.code()), Some(3));
        assert_eq!(stderr, "gone\n");
    }

    /// Answers are read line by line, whatever the pipe delivers at once.
    #[test]
    fn lines_are_read_in_order() {
        let script = "printf 'one\\ntwo\\nthr'; sleep 0.1; printf 'ee\\n'; sleep 30".to_string();
        let argv = ["sh".to_string(), "-c".to_string(), script];
        let mut conn = Conn::spawn(&argv, Duration::from_secs(20)).unwrap();
        for expected in ["one", "two", "three"] {
            assert_eq!(conn.read_line().unwrap(), expected);
        }
    }
}
