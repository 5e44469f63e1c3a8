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

/// The text of the tool call `call` of turn `turn`: `tool-call:t<T>.<N>`.
pub fn tool_call_text(turn: TurnId, call: u32) -> String {
    format!("tool-call:{turn}.{call}")
}

/// The text a tool result starts with: `tool-result:t<T>.<N>` (the `[USER INTERRUPT]`
/// blocks of messages folded into it follow).
pub fn tool_result_text(turn: TurnId, call: u32) -> String {
    format!("tool-result:{turn}.{call}")
}

/// How the world writes user messages (a world option, see `docs/model.md`).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum MessageTexts {
    /// Every message is its own unique token `msg:m<N>`.
    #[default]
    Tokens,
    /// Messages are short everyday texts drawn from [`COLLIDING_TEXTS`]: the same text
    /// twice, and texts that are prefixes and substrings of one another, as real users
    /// write ("ok", "ok thanks"). A store that matches rows by text or by substring is
    /// caught; the oracle tracks these by multisets (see `crate::oracle`).
    Colliding,
}

/// The texts of [`MessageTexts::Colliding`] worlds, used in turn (message `k` gets
/// `COLLIDING_TEXTS[k % len]`): repeats, prefixes and substrings of one another.
pub const COLLIDING_TEXTS: [&str; 6] = ["ok", "ok thanks", "ok", "thanks", "k", "ok thanks!"];

/// The id of the `k`-th message sent in a world (0-based): `m1, m10, m2, m20, m3, …`, so
/// that ids are prefixes of one another (`m1` of `m10`, `msg:m1` of `msg:m10`), as they
/// are in any real run past nine messages. A store that matches ids or texts by prefix or
/// substring is caught; stores that use ids as opaque keys are not affected.
pub fn message_id(k: u32) -> MessageId {
    let n = k / 2 + 1;
    MessageId(if k % 2 == 1 { n * 10 } else { n })
}

/// The text of the `k`-th message sent in a world, whose id is `id`.
pub fn message_text_of(texts: MessageTexts, k: u32, id: MessageId) -> String {
    match texts {
        MessageTexts::Tokens => message_text(id),
        MessageTexts::Colliding => COLLIDING_TEXTS[k as usize % COLLIDING_TEXTS.len()].to_string(),
    }
}

/// A content token as the ids it names, when it is written the way the world writes
/// them (`msg:m<N>`, `txt:t<T>.<K>`, `tool-call:t<T>.<N>`, `tool-result:t<T>.<N>`,
/// decimal without leading zeros). Two canonical tokens are equal as strings exactly when
/// their keys are equal, and the world only ever writes canonical tokens, so "is this
/// token shown" can be answered on keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TokenKey {
    /// `msg:m<N>`: user message `N`, which invariant 1 requires its sender to see.
    Msg(u32),
    /// `txt:t<T>.<K>`: the `K`-th delta of turn `T`, which invariant 3 requires to stay
    /// visible once shown.
    Txt(u32, u32),
    /// `tool-call:t<T>.<N>`: the `N`-th tool call of turn `T`.
    Call(u32, u32),
    /// `tool-result:t<T>.<N>`: the result of that call.
    Result(u32, u32),
}

/// A set of token keys as bitmaps: message ids below 128, deltas of turns below 16 with
/// index below 64, tool markers of turns below 16 with call below 32 (every fuzzed world
/// stays inside these); anything larger goes to a list. What the oracle collects a
/// render's tokens into and the world its tracked tokens into, so "is every tracked token
/// shown" is a few word operations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeySet {
    msgs: u128,
    txts: [u64; 16],
    /// Per turn: bit `2 N` for `tool-call:t<T>.<N>`, bit `2 N + 1` for its result.
    tools: [u64; 16],
    other: Vec<TokenKey>,
}

/// Where a key lives in a [`KeySet`]'s bitmaps, if it fits.
enum Slot {
    Msg(u32),
    Txt(usize, u32),
    Tool(usize, u32),
}

fn slot(key: TokenKey) -> Option<Slot> {
    match key {
        TokenKey::Msg(n) if n < 128 => Some(Slot::Msg(n)),
        TokenKey::Txt(t, k) if t < 16 && k < 64 => Some(Slot::Txt(t as usize, k)),
        TokenKey::Call(t, n) if t < 16 && n < 32 => Some(Slot::Tool(t as usize, 2 * n)),
        TokenKey::Result(t, n) if t < 16 && n < 32 => Some(Slot::Tool(t as usize, 2 * n + 1)),
        _ => None,
    }
}

impl KeySet {
    /// Add `key`: the world as it records what a tab sent or was shown, the oracle as it
    /// reads a render.
    pub fn insert(&mut self, key: TokenKey) {
        match slot(key) {
            Some(Slot::Msg(n)) => self.msgs |= 1 << n,
            Some(Slot::Txt(t, k)) => self.txts[t] |= 1 << k,
            Some(Slot::Tool(t, b)) => self.tools[t] |= 1 << b,
            None => self.other.push(key),
        }
    }

    /// Whether `key` is in the set: one bit test for a key inside the bitmaps, a scan of
    /// the short overflow list otherwise.
    pub fn contains(&self, key: TokenKey) -> bool {
        match slot(key) {
            Some(Slot::Msg(n)) => self.msgs & (1 << n) != 0,
            Some(Slot::Txt(t, k)) => self.txts[t] & (1 << k) != 0,
            Some(Slot::Tool(t, b)) => self.tools[t] & (1 << b) != 0,
            None => self.other.contains(&key),
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
            .chain(self.tools.iter().zip(&other.tools))
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

/// The key of the token `text` starts with, when its first word (up to the first space)
/// is one: `token_key(text.split(' ').next())`, read in place. A token's bytes hold no
/// space, so parsing from the start reads exactly the bytes the first word would; the
/// world reads every tool event's marker this way and the oracle every tool row's, and
/// the string splitter cost more than the parse (2 % of a campaign's samples).
pub fn leading_token_key(text: &str) -> Option<TokenKey> {
    let b = text.as_bytes();
    let mut i = 0;
    let key = parse_token_at(b, &mut i)?;
    (i == b.len() || b[i] == b' ').then_some(key)
}

/// Call `f` with every canonical content token of `text` and its key, in order, in one
/// pass over the bytes (the oracle runs this over every render after every step).
///
/// Tokens are found wherever they stand, whatever surrounds them: a store may join a
/// turn's deltas with spaces or verbatim (`txt:t1.1txt:t1.2`), or fold them into one
/// message, and every token is still found. A token ends where its digits end, so
/// `msg:m1` is never read inside `msg:m10`.
#[inline]
pub fn for_each_token<'a>(text: &'a str, mut f: impl FnMut(&'a str, TokenKey)) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'm' && b[i] != b't' {
            i += 1;
            continue;
        }
        let start = i;
        match parse_token_at(b, &mut i) {
            // Both ends are at ASCII bytes (a token's first letter, its last digit): char
            // boundaries.
            Some(key) => f(&text[start..i], key),
            None => i = start + 1,
        }
    }
}

/// Call `f` with the key of every token of `text`, in order.
#[inline]
pub fn for_each_token_key(text: &str, mut f: impl FnMut(TokenKey)) {
    for_each_token(text, |_, key| f(key));
}

/// The key of the token starting at `b[*i]`, advancing `*i` past what was read; `None`
/// as soon as the token cannot be canonical.
#[inline(always)]
fn parse_token_at(b: &[u8], i: &mut usize) -> Option<TokenKey> {
    let rest = &b[*i..];
    let (prefix, kind): (usize, u8) = if rest.starts_with(b"msg:m") {
        (5, 0)
    } else if rest.starts_with(b"txt:t") {
        (5, 1)
    } else if rest.starts_with(b"tool-call:t") {
        (11, 2)
    } else if rest.starts_with(b"tool-result:t") {
        (13, 3)
    } else {
        return None;
    };
    *i += prefix;
    let first = digits_at(b, i)?;
    if kind == 0 {
        return Some(TokenKey::Msg(first));
    }
    if b.get(*i) != Some(&b'.') {
        return None;
    }
    *i += 1;
    let second = digits_at(b, i)?;
    Some(match kind {
        1 => TokenKey::Txt(first, second),
        2 => TokenKey::Call(first, second),
        _ => TokenKey::Result(first, second),
    })
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
    fn message_ids_are_prefixes_of_one_another() {
        let ids: Vec<u32> = (0..7).map(|k| message_id(k).0).collect();
        assert_eq!(ids, [1, 10, 2, 20, 3, 30, 4]);
        let texts: Vec<String> = (0..6)
            .map(|k| message_text_of(MessageTexts::Colliding, k, message_id(k)))
            .collect();
        assert_eq!(texts[0], texts[2], "the same text twice");
        assert!(texts[1].starts_with(texts[0].as_str()) && texts[0].contains(&texts[4]));
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
        assert_eq!(
            token_key(&tool_call_text(TurnId(2), 1)),
            Some(TokenKey::Call(2, 1))
        );
        assert_eq!(
            token_key(&tool_result_text(TurnId(2), 3)),
            Some(TokenKey::Result(2, 3))
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
            "tool-call:t1",
            "tool-result:1.1",
            "",
        ] {
            assert_eq!(token_key(other), None, "{other:?}");
        }
    }

    /// The in-place reading of a text's first word agrees with splitting it off.
    #[test]
    fn the_leading_token_is_the_first_words_token() {
        for text in [
            "tool-result:t2.1 [USER INTERRUPT] msg:m3",
            "tool-call:t1.2",
            "tool-call:t1.2x",
            "tool-call:t1.2\tmsg:m1",
            "msg:m1 ",
            " msg:m1",
            "msg:m01 x",
            "txt:t1 .2",
            "txt:t1.2txt:t1.3",
            "msg:m123456789012 x",
            "msg:m4294967296",
            "",
            "ok thanks",
        ] {
            assert_eq!(
                leading_token_key(text),
                text.split(' ').next().and_then(token_key),
                "{text:?}"
            );
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
            TokenKey::Call(1, 1),
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
            TokenKey::Result(1, 1),
        ] {
            assert!(!all.contains(absent), "{absent:?}");
        }
        assert!(KeySet::default().is_subset(&all));
    }

    #[test]
    fn tokens_are_found_wherever_they_stand_and_end_where_their_digits_do() {
        let mut keys = Vec::new();
        for_each_token(
            " msg:m1\ttool-result:t2.1 [USER INTERRUPT] txt:t2.10\nmsg:m01 msg:m3",
            |_, k| keys.push(k),
        );
        assert_eq!(
            keys,
            vec![
                TokenKey::Msg(1),
                TokenKey::Result(2, 1),
                TokenKey::Txt(2, 10),
                TokenKey::Msg(3)
            ]
        );
        // Deltas joined verbatim, or folded into a longer text, are still found.
        let mut found = Vec::new();
        for_each_token("txt:t1.1txt:t1.2 and then:txt:t1.10!", |t, k| {
            found.push((t, k))
        });
        assert_eq!(
            found,
            vec![
                ("txt:t1.1", TokenKey::Txt(1, 1)),
                ("txt:t1.2", TokenKey::Txt(1, 2)),
                ("txt:t1.10", TokenKey::Txt(1, 10))
            ]
        );
        let mut msgs = Vec::new();
        for_each_token_key("msg:m10 tool-call:t1.1", |k| msgs.push(k));
        assert_eq!(
            msgs,
            vec![TokenKey::Msg(10), TokenKey::Call(1, 1)],
            "msg:m1 is not read inside msg:m10"
        );
    }

    proptest! {
        // 256 cases (proptest's default) from the crate's fixed seed; see `fixed_seed`.
        #![proptest_config(crate::testing::schedule::strategies::fixed_seed(256))]

        /// Equal keys exactly when equal text: the oracle may compare keys instead of
        /// strings.
        #[test]
        fn keys_are_equal_exactly_when_tokens_are(
            a in "(msg:m|txt:t|tool-call:t|tool-result:t)[0-9]{1,3}(\\.[0-9]{1,3})?",
            b in "(msg:m|txt:t|tool-call:t|tool-result:t)[0-9]{1,3}(\\.[0-9]{1,3})?",
        ) {
            if let (Some(ka), Some(kb)) = (token_key(&a), token_key(&b)) {
                prop_assert_eq!(ka == kb, a == b);
            }
        }

        /// Joining tokens in any way (verbatim, with spaces, with other text between)
        /// never loses or invents one: the scan finds exactly the tokens joined.
        #[test]
        fn joined_tokens_are_found_exactly(
            parts in proptest::collection::vec((0u32..40, 1u32..40, 0usize..4), 0..8),
            sep in "( |\\n|, |)",
        ) {
            let texts: Vec<String> = parts
                .iter()
                .map(|&(t, k, kind)| match kind {
                    0 => message_text(MessageId(t)),
                    1 => delta_text(TurnId(t), k),
                    2 => tool_call_text(TurnId(t), k),
                    _ => tool_result_text(TurnId(t), k),
                })
                .collect();
            let joined = texts.join(&sep);
            let mut found = Vec::new();
            for_each_token(&joined, |t, _| found.push(t.to_string()));
            prop_assert_eq!(found, texts);
        }
    }
}
