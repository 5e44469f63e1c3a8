//! Content: the texts the world writes and the one grammar that reads them back.
//!
//! Every user message has the unique text `msg:m<N>` and every streamed delta the unique
//! text `txt:t<T>.<K>` (see `docs/model.md`). The world writes them ([`message_text`],
//! [`delta_text`]) and records, as ground truth, the keys of what each tab was sent and
//! shown; the oracle reads a render's texts back into keys with the same grammar
//! ([`for_each_content_token`]) wherever a store put them, which is how "a message counted
//! once whether it sits in a user row or is folded into a tool result" is checked without
//! looking inside a store.

use crate::model::wire::{MessageId, TurnId};

/// The text of user message `id`: `msg:m<N>`.
pub fn message_text(id: MessageId) -> String {
    let mut s = String::with_capacity(16);
    s.push_str("msg:m");
    push_decimal(&mut s, id.0);
    s
}

/// The text of the `k`-th delta (1-based) of turn `turn`: `txt:t<T>.<K>`.
pub fn delta_text(turn: TurnId, k: u32) -> String {
    let mut s = String::with_capacity(24);
    s.push_str("txt:t");
    push_decimal(&mut s, turn.0);
    s.push('.');
    push_decimal(&mut s, k);
    s
}

/// Append `n` in decimal, as `Display` writes it (the world writes these texts on every
/// send and delta, so without the formatting machinery).
pub fn push_decimal(s: &mut String, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        s.push(char::from(d));
    }
}

/// The marker the backend puts before a message folded into a tool result (the note's
/// `[USER INTERRUPT]` block).
pub const INTERRUPT_MARKER: &str = "[USER INTERRUPT]";

/// The tokens of a text that name a user message or a streamed delta, in order.
/// Everything else (markers, tool call names) is not content the oracle tracks.
pub fn content_tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split_ascii_whitespace()
        .filter(|t| t.starts_with("msg:") || t.starts_with("txt:"))
}

/// A content token as the ids it names, when it is written the way the world writes
/// them (`msg:m<N>`, `txt:t<T>.<K>`, decimal without leading zeros). Two canonical tokens
/// are equal as strings exactly when their keys are equal, and the world only ever tracks
/// canonical tokens, so "is this tracked token shown" can be answered on keys: a shown
/// token that is not canonical equals no tracked token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TokenKey {
    /// `msg:m<N>`: user message `N`, which invariant 1 requires its sender to see.
    Msg(u32),
    /// `txt:t<T>.<K>`: the `K`-th delta of turn `T`, which invariant 3 requires to stay
    /// visible once shown.
    Txt(u32, u32),
}

/// A set of token keys as bitmaps: message ids below 128, and deltas of turns below 16
/// with index below 64 (every fuzzed world stays inside these); anything larger goes to a
/// list. What the oracle collects a render's tokens into and the world its tracked
/// tokens into, so "is every tracked token shown" is a few word operations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeySet {
    msgs: u128,
    txts: [u64; 16],
    other: Vec<TokenKey>,
}

impl KeySet {
    /// Add `key`: the world as it records what a tab sent or was shown, the oracle as it
    /// reads a render.
    pub fn insert(&mut self, key: TokenKey) {
        match key {
            TokenKey::Msg(n) if n < 128 => self.msgs |= 1 << n,
            TokenKey::Txt(t, k) if t < 16 && k < 64 => self.txts[t as usize] |= 1 << k,
            _ => self.other.push(key),
        }
    }

    /// Whether `key` is in the set: one bit test for a key inside the bitmaps, a scan of
    /// the short overflow list otherwise.
    pub fn contains(&self, key: TokenKey) -> bool {
        match key {
            TokenKey::Msg(n) if n < 128 => self.msgs & (1 << n) != 0,
            TokenKey::Txt(t, k) if t < 16 && k < 64 => self.txts[t as usize] & (1 << k) != 0,
            _ => self.other.contains(&key),
        }
    }

    /// Every key of `self` is in `other`.
    #[inline]
    pub fn is_subset(&self, other: &KeySet) -> bool {
        // Missing bits of all words at once (no early exit: branch-free, vectorisable).
        let missing = self
            .txts
            .iter()
            .zip(&other.txts)
            .fold(0, |acc, (a, b)| acc | (a & !b));
        self.msgs & !other.msgs == 0
            && missing == 0
            && (self.other.is_empty() || self.other.iter().all(|k| other.contains(*k)))
    }
}

/// The key of a canonical content token, `None` for anything else (including a token
/// with anything before or after it).
pub fn token_key(token: &str) -> Option<TokenKey> {
    let b = token.as_bytes();
    let mut i = 0;
    let key = parse_token_at(b, &mut i)?;
    (i == b.len()).then_some(key)
}

/// Call `f` with the key of every canonical content token of `text`, in order: the
/// tokens of [`content_tokens`] that [`token_key`] accepts, parsed in one pass over the
/// bytes (the oracle runs this over every render after every step).
#[inline]
pub fn for_each_token_key(text: &str, mut f: impl FnMut(TokenKey)) {
    for_each_content_token(text, |_, key| {
        if let Some(k) = key {
            f(k);
        }
    });
}

/// Call `f` with every token of [`content_tokens`] and its [`token_key`], in order, in
/// one pass over the bytes.
#[inline]
pub fn for_each_content_token<'a>(text: &'a str, mut f: impl FnMut(&'a str, Option<TokenKey>)) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let key = parse_token_at(b, &mut i);
        while i < b.len() && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        let token = &b[start..i];
        if key.is_some() || token.starts_with(b"msg:") || token.starts_with(b"txt:") {
            // Both ends are at ASCII bytes (whitespace or the text's ends): char boundaries.
            f(&text[start..i], key);
        }
    }
}

/// The key of the token starting at `b[*i]`, advancing `*i` past what was read; `None`
/// as soon as the token cannot be canonical.
#[inline(always)]
fn parse_token_at(b: &[u8], i: &mut usize) -> Option<TokenKey> {
    // The five-byte prefix as one comparison of the first four bytes plus the fifth.
    let head = b.get(*i..*i + 5)?;
    let word = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    let msg = word == u32::from_le_bytes(*b"msg:") && head[4] == b'm';
    let txt = word == u32::from_le_bytes(*b"txt:") && head[4] == b't';
    if !(msg || txt) {
        return None;
    }
    *i += 5;
    let first = digits_at(b, i)?;
    let ends = |i: usize| i == b.len() || b[i].is_ascii_whitespace();
    if msg {
        return ends(*i).then_some(TokenKey::Msg(first));
    }
    if b.get(*i) != Some(&b'.') {
        return None;
    }
    *i += 1;
    let second = digits_at(b, i)?;
    ends(*i).then_some(TokenKey::Txt(first, second))
}

/// The run of digits at `b[*i]` as a `u32` if it is exactly what `u32`'s `Display`
/// writes; advances `*i` past the digits read.
#[inline(always)]
fn digits_at(b: &[u8], i: &mut usize) -> Option<u32> {
    let start = *i;
    let mut n: u64 = 0;
    while *i < b.len() && b[*i].is_ascii_digit() && *i - start < 11 {
        n = n * 10 + u64::from(b[*i] - b'0');
        *i += 1;
    }
    let len = *i - start;
    if len == 0 || len > 10 || (b[start] == b'0' && len > 1) {
        return None;
    }
    u32::try_from(n).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn texts_are_written_as_display_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 12345, u32::MAX] {
            assert_eq!(message_text(MessageId(n)), format!("msg:{}", MessageId(n)));
            assert_eq!(
                delta_text(TurnId(n), n / 3),
                format!("txt:{}.{}", TurnId(n), n / 3)
            );
        }
    }

    #[test]
    fn the_world_s_tokens_have_keys_and_other_spellings_do_not() {
        assert_eq!(
            token_key(&message_text(MessageId(12))),
            Some(TokenKey::Msg(12))
        );
        assert_eq!(
            token_key(&delta_text(TurnId(3), 40)),
            Some(TokenKey::Txt(3, 40))
        );
        assert_eq!(token_key("msg:m4294967295"), Some(TokenKey::Msg(u32::MAX)));
        for other in [
            "msg:m",
            "msg:m01",
            "msg:m1x",
            "msg:m4294967296",
            "msg:1",
            "txt:t1",
            "txt:t1.",
            "txt:t1.02",
            "txt:t1.2.3",
            "txt:t01.2",
            "txt:t1.2 ",
            "tool-call:t1.1",
            "",
        ] {
            assert_eq!(token_key(other), None, "{other:?}");
        }
    }

    #[test]
    fn key_sets_answer_membership_and_subset_inside_and_outside_the_bitmaps() {
        let keys = [
            TokenKey::Msg(0),
            TokenKey::Msg(127),
            TokenKey::Msg(128),
            TokenKey::Txt(15, 63),
            TokenKey::Txt(16, 1),
            TokenKey::Txt(2, 64),
        ];
        let mut all = KeySet::default();
        for k in keys {
            all.insert(k);
        }
        for k in keys {
            assert!(all.contains(k), "{k:?}");
            let mut one = KeySet::default();
            one.insert(k);
            assert!(one.is_subset(&all) && !all.is_subset(&one), "{k:?}");
            assert!(!one.is_subset(&KeySet::default()), "{k:?}");
        }
        for absent in [
            TokenKey::Msg(1),
            TokenKey::Txt(15, 62),
            TokenKey::Txt(16, 2),
        ] {
            assert!(!all.contains(absent), "{absent:?}");
        }
        assert!(KeySet::default().is_subset(&all));
    }

    #[test]
    fn keys_come_out_in_order_for_the_content_tokens_only() {
        let mut keys = Vec::new();
        for_each_token_key(
            " msg:m1\ttool-result:t2.1 [USER INTERRUPT] txt:t2.10\nmsg:m01 msg:m3",
            |k| keys.push(k),
        );
        assert_eq!(
            keys,
            vec![TokenKey::Msg(1), TokenKey::Txt(2, 10), TokenKey::Msg(3)]
        );
    }

    proptest! {
        /// Equal keys exactly when equal text, for the tokens `content_tokens` finds: the
        /// oracle may compare keys instead of strings.
        #[test]
        fn keys_are_equal_exactly_when_tokens_are(
            a in "(msg:m|txt:t)[0-9]{1,3}(\\.[0-9]{1,3})?",
            b in "(msg:m|txt:t)[0-9]{1,3}(\\.[0-9]{1,3})?",
        ) {
            if let (Some(ka), Some(kb)) = (token_key(&a), token_key(&b)) {
                prop_assert_eq!(ka == kb, a == b);
            }
        }

        /// The one-pass scan finds exactly the keys of the tokens `content_tokens` finds.
        #[test]
        fn the_scan_agrees_with_splitting_then_parsing(
            text in "((msg:m|txt:t|msg:|txt:|x|é)?[0-9.]{0,13}(msg:m)?[ \t\n]{0,2})*",
        ) {
            let mut via_scan = Vec::new();
            for_each_token_key(&text, |k| via_scan.push(k));
            let direct: Vec<TokenKey> = content_tokens(&text).filter_map(token_key).collect();
            prop_assert_eq!(via_scan, direct);
            let mut tokens = Vec::new();
            for_each_content_token(&text, |t, k| tokens.push((t, k)));
            let direct: Vec<(&str, Option<TokenKey>)> =
                content_tokens(&text).map(|t| (t, token_key(t))).collect();
            prop_assert_eq!(tokens, direct);
        }
    }
}
