//! Cutting the adapter's stdout into answer lines. Bytes arrive in whatever pieces the
//! pipe delivers; [`LineBuffer`] keeps them and hands out complete lines, and refuses a
//! line that grows past [`ANSWER_BYTES_MAX`] so a runaway adapter cannot eat the memory.
//! No I/O here: the connection reads into [`LineBuffer::spare`] (or, for an adapter in
//! this process, [`LineBuffer::push`]es its answers).

use super::fault::Fault;
use super::protocol::ANSWER_BYTES_MAX;

/// Bytes read from the adapter's stdout and not handed out as lines yet.
pub(super) struct LineBuffer {
    buf: Vec<u8>,
    /// `buf[start..end]` is received and not consumed; `buf[start..scanned]` holds no
    /// newline (so a long line is scanned once, not once per read).
    start: usize,
    scanned: usize,
    end: usize,
}

impl LineBuffer {
    /// An empty buffer with room for `capacity` bytes before it first grows.
    pub fn with_capacity(capacity: usize) -> LineBuffer {
        LineBuffer {
            buf: vec![0; capacity.max(1)],
            start: 0,
            scanned: 0,
            end: 0,
        }
    }

    /// The next complete line (without its newline), `None` when no complete line is
    /// buffered, or a fault when the incomplete line is already longer than
    /// [`ANSWER_BYTES_MAX`].
    pub fn next_line(&mut self) -> Result<Option<String>, Fault> {
        if let Some(i) = self.buf[self.scanned..self.end]
            .iter()
            .position(|&b| b == b'\n')
        {
            let newline = self.scanned + i;
            let line = String::from_utf8_lossy(&self.buf[self.start..newline]).into_owned();
            self.start = newline + 1;
            if self.start == self.end {
                self.start = 0;
                self.end = 0;
            }
            self.scanned = self.start;
            return Ok(Some(line));
        }
        self.scanned = self.end;
        if self.end - self.start > ANSWER_BYTES_MAX {
            let line = String::from_utf8_lossy(&self.buf[self.start..self.end]).into_owned();
            return Err(Fault::BadLine {
                line,
                why: format!("an answer line longer than {ANSWER_BYTES_MAX} bytes"),
            });
        }
        Ok(None)
    }

    /// Room for the next read: the partial line is moved to the front, and the buffer
    /// grows (doubles) only when it is full. Report what was read with [`Self::filled`].
    pub fn spare(&mut self) -> &mut [u8] {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.scanned -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        &mut self.buf[self.end..]
    }

    /// `n` bytes were read into [`Self::spare`].
    pub fn filled(&mut self, n: usize) {
        self.end += n;
    }

    /// Append `bytes` (answers handed over whole, by an adapter in this process).
    pub fn push(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let spare = self.spare();
            let n = spare.len().min(bytes.len());
            spare[..n].copy_from_slice(&bytes[..n]);
            self.filled(n);
            bytes = &bytes[n..];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feed `bytes` as a pipe would, at most `piece` bytes per read.
    fn feed(lines: &mut LineBuffer, bytes: &[u8], piece: usize) -> Vec<String> {
        let mut out = Vec::new();
        for chunk in bytes.chunks(piece) {
            lines.push(chunk);
            while let Some(line) = lines.next_line().unwrap() {
                out.push(line);
            }
        }
        out
    }

    #[test]
    fn lines_come_out_whole_however_the_bytes_arrive() {
        let text = "{\"a\":1}\n\n{\"b\":\"é\"}\nlast\n";
        for piece in [1, 2, 3, 5, 64] {
            for capacity in [1, 4, 1 << 16] {
                let mut lines = LineBuffer::with_capacity(capacity);
                let got = feed(&mut lines, text.as_bytes(), piece);
                assert_eq!(
                    got,
                    ["{\"a\":1}", "", "{\"b\":\"é\"}", "last"],
                    "piece {piece}, capacity {capacity}"
                );
                assert_eq!(lines.next_line().unwrap(), None);
            }
        }
    }

    #[test]
    fn an_incomplete_line_waits_for_its_newline() {
        let mut lines = LineBuffer::with_capacity(8);
        assert_eq!(feed(&mut lines, b"one\ntw", 100), ["one"]);
        assert_eq!(lines.next_line().unwrap(), None);
        assert_eq!(feed(&mut lines, b"o\n", 100), ["two"]);
    }

    #[test]
    fn invalid_utf8_is_replaced_not_refused() {
        let mut lines = LineBuffer::with_capacity(8);
        assert_eq!(feed(&mut lines, b"a\xffb\n", 100), ["a\u{fffd}b"]);
    }

    #[test]
    fn a_line_longer_than_the_limit_is_a_fault() {
        let mut lines = LineBuffer::with_capacity(1 << 16);
        let mut left = ANSWER_BYTES_MAX + 1;
        while left > 0 {
            let spare = lines.spare();
            let n = spare.len().min(left);
            spare[..n].fill(b'x');
            lines.filled(n);
            left -= n;
            if left > 0 {
                assert_eq!(lines.next_line().unwrap(), None);
            }
        }
        match lines.next_line() {
            Err(Fault::BadLine { line, why }) => {
                assert_eq!(line.len(), ANSWER_BYTES_MAX + 1);
                assert_eq!(why, "an answer line longer than 16777216 bytes");
            }
            other => panic!("{other:?}"),
        }
    }
}
