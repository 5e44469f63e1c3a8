//! What the oracle read of each tab's render: every row's tokens, kept between checks.
//!
//! The oracle judges a tab after every step that touches it, and most such steps change
//! one row of its render (a delta appended to the streaming row, a row added) or none (an
//! event the store ignores). Reading every row's text into tokens again after each of
//! them was a third of a campaign's instructions (issue 34: `judge_render` 29 % of the
//! samples, allocation and free 13 % more). So each tab's render is read once and kept:
//! a row whose text is byte for byte the text read at its place last time is not read
//! again, and a row that changed is read into the buffers its place already has, so a
//! step allocates nothing once a tab's rows have been seen.
//!
//! What is kept is a function of the texts alone, checked against them at every read, so
//! a verdict cannot depend on which run, world or search state was read before: the same
//! rows give the same tokens whatever the history.

use crate::model::content::{for_each_token, KeySet, TokenKey};
use crate::model::wire::RenderRow;

/// One token of a row: its bytes in the row's text, and its key.
#[derive(Clone, Copy, Debug)]
struct Token {
    start: u32,
    end: u32,
    key: TokenKey,
}

/// One row's text as read.
#[derive(Default)]
struct RowRead {
    /// The text read (a copy: the store owns the row, and may change it in place).
    text: String,
    /// Every canonical token of the text, in order.
    tokens: Vec<Token>,
    /// Bytes that are neither a token nor whitespace.
    other_bytes: usize,
}

impl RowRead {
    /// Read `text`, unless it is the text read last time; whether it was read.
    fn read(&mut self, text: &str) -> bool {
        if self.text == text {
            return false;
        }
        self.text.clear();
        self.text.push_str(text);
        self.tokens.clear();
        let base = text.as_ptr() as usize;
        let mut token_bytes = 0;
        for_each_token(text, |t, key| {
            let start = t.as_ptr() as usize - base;
            token_bytes += t.len();
            self.tokens.push(Token {
                start: start as u32,
                end: (start + t.len()) as u32,
                key,
            });
        });
        let spaces = text.bytes().filter(u8::is_ascii_whitespace).count();
        self.other_bytes = text.len() - token_bytes - spaces;
        true
    }
}

/// One tab's render as read (see the module doc).
#[derive(Default)]
pub struct RenderRead {
    /// The rows read, in render order.
    rows: Vec<RowRead>,
    /// Rows read before that the render no longer has, kept for their buffers.
    spare: Vec<RowRead>,
    /// The keys of every token of the rows, as a set: made again only when a row
    /// changed (invariants 1 and 3 ask for it after every step of the tab, and many steps
    /// change nothing the tab shows).
    shown: KeySet,
}

impl RenderRead {
    /// Bring the reading up to `rows`: each row is compared with the row read at its place
    /// last time and read again only if its text differs.
    pub fn read(&mut self, rows: &[RenderRow]) {
        let mut changed = self.rows.len() != rows.len();
        if self.rows.len() > rows.len() {
            self.spare.extend(self.rows.drain(rows.len()..));
        }
        while self.rows.len() < rows.len() {
            self.rows.push(self.spare.pop().unwrap_or_default());
        }
        for (read, row) in self.rows.iter_mut().zip(rows) {
            changed |= read.read(&row.text);
        }
        if changed {
            self.shown = KeySet::default();
            for r in &self.rows {
                r.tokens.iter().for_each(|t| self.shown.insert(t.key));
            }
        }
    }

    /// The tokens of row `i` (of the rows last read).
    pub fn row(&self, i: usize) -> RowTokens<'_> {
        let r = &self.rows[i];
        RowTokens {
            text: &r.text,
            tokens: &r.tokens,
            other_bytes: r.other_bytes,
        }
    }

    /// The keys of every token of the render, as a set.
    pub fn shown_keys(&self) -> &KeySet {
        &self.shown
    }
}

/// The tokens of one row, borrowed from its reading.
#[derive(Clone, Copy)]
pub struct RowTokens<'a> {
    text: &'a str,
    tokens: &'a [Token],
    /// Bytes that are neither a token nor whitespace.
    pub other_bytes: usize,
}

impl<'a> RowTokens<'a> {
    /// Every token with its text, in order.
    pub fn iter(self) -> impl Iterator<Item = (&'a str, TokenKey)> + 'a {
        let text = self.text;
        self.tokens
            .iter()
            .map(move |t| (&text[t.start as usize..t.end as usize], t.key))
    }

    /// Every token's key, in order.
    pub fn keys(self) -> impl Iterator<Item = TokenKey> + 'a {
        self.tokens.iter().map(|t| t.key)
    }

    /// The key of the row's only token, when it holds exactly one.
    pub fn only(self) -> Option<TokenKey> {
        match self.tokens {
            [t] => Some(t.key),
            _ => None,
        }
    }

    /// The text of the first token whose key `f` accepts.
    pub fn any(self, f: impl Fn(TokenKey) -> bool) -> Option<&'a str> {
        self.iter().find(|(_, k)| f(*k)).map(|(t, _)| t)
    }

    /// The key of the token the row's first word is, if it is one: what
    /// [`crate::model::content::leading_token_key`] says of the text.
    pub fn leading(self) -> Option<TokenKey> {
        let first = self.tokens.first().filter(|t| t.start == 0)?;
        let end = first.end as usize;
        (end == self.text.len() || self.text.as_bytes()[end] == b' ').then_some(first.key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::content::leading_token_key;
    use crate::oracle::tests::live;

    /// Read afresh or kept from an earlier render, a row's tokens are the ones a plain
    /// scan of its text finds.
    #[test]
    fn a_kept_reading_is_the_reading_of_the_rows_now() {
        let renders = [
            vec!["msg:m1", "txt:t1.1"],
            vec!["msg:m1", "txt:t1.1 txt:t1.2", "msg:m10"],
            vec!["tool-result:t1.1 [USER INTERRUPT] msg:m10", "msg:m1"],
            vec!["msg:m1x txt:t2.1txt:t2.2", "", " tool-call:t2.1"],
            vec![],
            vec!["ok thanks", "msg:m2"],
        ];
        let mut read = RenderRead::default();
        for texts in renders {
            let rows: Vec<RenderRow> = texts.iter().map(|t| live(t)).collect();
            read.read(&rows);
            for (i, text) in texts.iter().enumerate() {
                let mut plain = Vec::new();
                for_each_token(text, |t, k| plain.push((t, k)));
                let kept: Vec<(&str, TokenKey)> = read.row(i).iter().collect();
                assert_eq!(kept, plain, "{text:?}");
                assert_eq!(read.row(i).leading(), leading_token_key(text), "{text:?}");
            }
        }
    }
}
