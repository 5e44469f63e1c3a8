//! The plain data that crosses the boundary between the simulated world and a store under
//! test: what a store is told ([`Input`]), what it asks for ([`Effect`]) and what the user
//! sees ([`RenderRow`]).
//!
//! These are deliberately the only things a store sees, so that a store can live in
//! another process (every type is serde) and so that the oracle judges only what a real
//! user would see, never a store's internals.
//!
//! Text conventions (see `docs/model.md`): every user message has the unique text
//! `msg:m<N>`; every streamed delta the unique text `txt:t<T>.<K>`. The oracle counts these
//! tokens in the render, which is how "a message counted once whether it sits in a user row
//! or folded into a tool result" is made checkable without looking inside a store.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// A client (browser tab) index, 0-based.
pub type ClientId = u8;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

id_type!(
    /// A user message. Client-generated and globally unique; the queue id of a queued
    /// message is its message id (a pending queued row has row id `queued-<MessageId>`).
    MessageId,
    "m"
);
id_type!(
    /// An agent turn, assigned by the backend when a posted message starts one.
    TurnId,
    "t"
);
id_type!(
    /// A fetch request, numbered by the store that issues it (opaque to the world).
    RequestId,
    "f"
);

/// Who wrote a chunk row or a live row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    User,
    Assistant,
    ToolCall,
    ToolResult,
}

/// The agent status as broadcast by `status` events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentStatus {
    Idle,
    Running,
    Error,
}

/// One durable chunk row, as stored by the backend and returned by a chunk fetch.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChunkRow {
    /// The real database sequence number: strictly increasing in write order.
    pub seq: u32,
    pub turn_id: TurnId,
    pub role: Role,
    pub text: String,
    /// The client message ids whose text this row holds: the user row's own id, or the ids
    /// folded into a tool result as `[USER INTERRUPT]` blocks. Positive evidence that a
    /// message is durable (a real backend stores the client-generated id with the row).
    /// Additive: absent in older peers' JSON.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub message_ids: Vec<MessageId>,
}

/// A WebSocket event, broadcast by the backend to every connected client.
///
/// Field sets follow the design note exactly; in particular `turn-start` and
/// `message-consumed` carry no message/turn binding beyond what the note lists, because
/// that missing binding is what the reconcile code has to guess at.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Event {
    TurnStart {
        turn_id: TurnId,
    },
    TextDelta {
        turn_id: TurnId,
        text: String,
    },
    ToolCall {
        turn_id: TurnId,
        call: u32,
        text: String,
    },
    ToolResult {
        turn_id: TurnId,
        call: u32,
        text: String,
    },
    MessageQueued {
        message_id: MessageId,
    },
    MessageConsumed {
        message_ids: Vec<MessageId>,
    },
    Status {
        status: AgentStatus,
    },
    TurnSealed {
        turn_id: TurnId,
    },
}

/// How the backend handled a posted message (the POST response body).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum PostOutcome {
    /// The agent was idle: the message started this turn and is persisted as its user row.
    Started { turn_id: TurnId },
    /// The agent was busy: the message was queued.
    Queued,
}

/// Everything a store is ever told. One input per simulated step at most.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "input", rename_all = "kebab-case")]
pub enum Input {
    /// The user typed and sent a message. The store must show it and POST it.
    UserSend { message_id: MessageId, text: String },
    /// The user scrolled; `at_bottom: false` means scrolled up (reconcile deferred).
    Scroll { at_bottom: bool },
    /// A WebSocket event arrived.
    Event { event: Event },
    /// The response to this store's POST arrived.
    PostResponse {
        message_id: MessageId,
        response: PostOutcome,
    },
    /// The response to this store's chunk fetch arrived: the whole chunk history as of
    /// the moment the backend served the request (`snapshot_seq` is its largest `seq`, 0
    /// when empty).
    FetchResponse {
        request_id: RequestId,
        snapshot_seq: u32,
        /// Shared, not copied: the world hands every response the snapshot it served
        /// (serde's `rc` feature writes it as the plain array, so the JSON is unchanged).
        chunks: Arc<Vec<ChunkRow>>,
        /// Turns whose durable write (`flushAssistant`) had happened when the snapshot was
        /// taken: positive evidence that a turn's streamed rows are in `chunks`. Additive:
        /// absent in older peers' JSON.
        #[serde(default)]
        written_turns: Arc<Vec<TurnId>>,
    },
}

/// What a store asks the world to do in answer to an input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "kebab-case")]
pub enum Effect {
    /// POST the message to the backend.
    Post { message_id: MessageId, text: String },
    /// Fetch the chunk history. The id is the store's own, echoed in the response.
    Fetch { request_id: RequestId },
}

/// Where a rendered row comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "kebab-case")]
pub enum Origin {
    /// A durable chunk row with this `seq` (from `groupRowsToMessages(chunks)`).
    Sealed { seq: u32 },
    /// A transient live row with this id (e.g. `m3` or `queued-m3`).
    Live { id: String },
}

/// One row of what the user sees: `groupRowsToMessages(chunks) ++ live`, in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RenderRow {
    #[serde(flatten)]
    pub origin: Origin,
    pub role: Role,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<TurnId>,
    pub text: String,
}

impl RenderRow {
    /// The render row of a sealed chunk row (the note's `groupRowsToMessages`, one row
    /// per chunk).
    pub fn sealed(chunk: &ChunkRow) -> RenderRow {
        RenderRow {
            origin: Origin::Sealed { seq: chunk.seq },
            role: chunk.role,
            turn_id: Some(chunk.turn_id),
            text: chunk.text.clone(),
        }
    }

    pub fn is_live(&self) -> bool {
        matches!(self.origin, Origin::Live { .. })
    }
}

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
    Msg(u32),
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
    pub fn insert(&mut self, key: TokenKey) {
        match key {
            TokenKey::Msg(n) if n < 128 => self.msgs |= 1 << n,
            TokenKey::Txt(t, k) if t < 16 && k < 64 => self.txts[t as usize] |= 1 << k,
            _ => self.other.push(key),
        }
    }

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

/// The key of a canonical content token, `None` for anything else.
pub fn token_key(token: &str) -> Option<TokenKey> {
    key_of(token.as_bytes())
}

fn key_of(token: &[u8]) -> Option<TokenKey> {
    if let Some(n) = token.strip_prefix(b"msg:m") {
        let (n, rest) = canonical_u32(n)?;
        return rest.is_empty().then_some(TokenKey::Msg(n));
    }
    let rest = token.strip_prefix(b"txt:t")?;
    let (t, rest) = canonical_u32(rest)?;
    let (k, rest) = canonical_u32(rest.strip_prefix(b".")?)?;
    rest.is_empty().then_some(TokenKey::Txt(t, k))
}

/// The leading run of digits of `b` as a `u32`, and what follows it, if that run is
/// exactly what `u32`'s `Display` writes (non-empty, no leading zero, no overflow).
fn canonical_u32(b: &[u8]) -> Option<(u32, &[u8])> {
    let len = b.iter().take_while(|d| d.is_ascii_digit()).count();
    if len == 0 || len > 10 || (b[0] == b'0' && len > 1) {
        return None;
    }
    let mut n: u64 = 0;
    for &d in &b[..len] {
        n = n * 10 + u64::from(d - b'0');
    }
    Some((u32::try_from(n).ok()?, &b[len..]))
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
