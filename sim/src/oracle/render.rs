//! Invariant 5, what the user sees between reconciles: the render's order and shape.
//!
//! The note defines the render as `groupRowsToMessages(chunks) ++ live` ("`tab.renderGroups`
//! — DERIVED"); invariants 1–4 judge which content is shown, not where or in what shape.
//! This invariant judges the rest, after every step that touches a tab:
//!
//! - **Chunks first.** No sealed row below a live row; after a fetch response is applied,
//!   the sealed rows come in increasing `seq`, each exactly the DB's row (role and text).
//!   (The note: the render is `chunks ++ live`, and `chunks` is "SEALED, durable history
//!   (real DB `seq`)".)
//! - **Live rows in the order their content happened.** Each live row starts when the tab
//!   learned its first content: the user's send for the user's own message, the delivery
//!   of its first delta for an assistant row, the delivery of its tool event for a tool
//!   row. Live rows must start in nondecreasing order. (Beyond the note, which does not
//!   order `live`; a user reading the thread expects their message and the reply in the
//!   order they happened, as the DB will have them.)
//! - **Each live row the shape of its role.** A user row holds no streamed text and no
//!   tool marker; an assistant row holds only deltas, of one turn and of one **segment**
//!   (no tool event of the turn between them: the backend's row), and a **run** (deltas
//!   the tab received with nothing between them) is never split between rows: what the
//!   note's `currentAssistantId`, "the in-flight turn + its streaming row", accumulates. A
//!   tool-call row is its marker alone; a tool result starts with its marker and never
//!   receives streamed text. (Beyond the note's words, which name the streaming row but
//!   not these rules; see [`crate::model::client::Learned`] for runs and segments.)
//!
//! A row whose start the tab cannot know (another tab's message) is not ordered.

use crate::model::client::Client;
use crate::model::content::{for_each_token, MessageTexts, TokenKey};
use crate::model::wire::{ClientId, Origin, RenderRow, Role};
use crate::model::world::World;
use crate::oracle::seen::leading_token;
use crate::oracle::{violation, Invariant, Violation};

/// Invariant 5 for `client`, whose render is `rows`; `fetched` when the step applied a
/// fetch response (the sealed rows are compared with the DB then).
pub fn check(
    world: &World,
    client: ClientId,
    rows: &[RenderRow],
    fetched: bool,
    step_index: usize,
) -> Option<Violation> {
    let fail = |messages: Vec<String>, expected: String| {
        Some(violation(
            Invariant::RenderShape,
            client,
            step_index,
            messages,
            expected,
            rows,
        ))
    };
    let live_start = rows
        .iter()
        .position(RenderRow::is_live)
        .unwrap_or(rows.len());
    if let Some(seq) = rows[live_start..].iter().find_map(sealed_seq) {
        return fail(
            vec![format!("sealed {seq}")],
            format!(
                "every sealed row above the live rows (chunks ++ live); sealed {seq} is below one"
            ),
        );
    }
    if fetched {
        if let Err(why) = sealed_rows_are_the_db(world, &rows[..live_start]) {
            return fail(Vec::new(), why);
        }
    }
    if live_start == rows.len() {
        return None;
    }
    match check_live(world.client(client), world, &rows[live_start..]) {
        Ok(()) => None,
        Err((messages, why)) => fail(messages, why),
    }
}

fn sealed_seq(row: &RenderRow) -> Option<u32> {
    match row.origin {
        Origin::Sealed { seq } => Some(seq),
        Origin::Live { .. } => None,
    }
}

/// The sealed rows come in increasing `seq`, each exactly the DB's row.
fn sealed_rows_are_the_db(world: &World, sealed: &[RenderRow]) -> Result<(), String> {
    let db = world.backend().db();
    let mut last = 0;
    for row in sealed {
        let seq = sealed_seq(row).expect("a sealed row");
        if seq <= last {
            return Err(format!(
                "sealed rows in increasing seq (chunks in DB order); seq {seq} follows seq {last}"
            ));
        }
        last = seq;
        let Ok(i) = db.binary_search_by_key(&seq, |d| d.seq) else {
            return Err(format!(
                "sealed row {seq} is a DB row; the DB has no seq {seq}"
            ));
        };
        if db[i].role != row.role || db[i].text != row.text {
            return Err(format!(
                "sealed row {seq} shows the DB's row ({:?} {:?})",
                db[i].role, db[i].text
            ));
        }
    }
    Ok(())
}

/// What one live row's text is made of.
#[derive(Default)]
struct RowTokens {
    /// Every token, with its text, in order.
    tokens: Vec<(String, TokenKey)>,
    /// Bytes that are neither a token nor whitespace.
    other_bytes: usize,
}

impl RowTokens {
    fn of(text: &str) -> RowTokens {
        let mut out = RowTokens::default();
        let mut token_bytes = 0;
        for_each_token(text, |t, key| {
            token_bytes += t.len();
            out.tokens.push((t.to_string(), key));
        });
        let spaces = text.bytes().filter(u8::is_ascii_whitespace).count();
        out.other_bytes = text.len() - token_bytes - spaces;
        out
    }

    fn any(&self, f: impl Fn(TokenKey) -> bool) -> Option<&str> {
        self.tokens
            .iter()
            .find(|(_, k)| f(*k))
            .map(|(t, _)| t.as_str())
    }
}

type Finding = (Vec<String>, String);

/// The live rows' order and shapes (see the module doc).
fn check_live(c: &Client, world: &World, live: &[RenderRow]) -> Result<(), Finding> {
    let mut own = OwnMessages::new(c, world.config().message_texts);
    let mut last: Option<(u32, &RenderRow)> = None;
    // (run, index of the live row holding it)
    let mut runs: Vec<(u32, usize)> = Vec::new();
    for (i, row) in live.iter().enumerate() {
        let tokens = RowTokens::of(&row.text);
        shape(row, &tokens)?;
        let (start, row_runs) = match row.role {
            Role::User => (own.start(row, &tokens, last.map(|l| l.0)), Vec::new()),
            Role::Assistant => deltas_seen(c, &tokens)?,
            Role::ToolCall | Role::ToolResult => (marker_start(c, &row.text), Vec::new()),
        };
        for r in row_runs {
            if let Some((_, j)) = runs.iter().find(|(run, j)| *run == r && *j != i) {
                return Err((
                    tokens.tokens.iter().map(|(t, _)| t.clone()).collect(),
                    format!(
                        "a run of deltas (received with nothing between them) in one row; it is split between live rows {j} and {i}"
                    ),
                ));
            }
            runs.push((r, i));
        }
        let Some(start) = start else { continue };
        if let Some((before, prev)) = last {
            if start < before {
                return Err((
                    vec![row.text.clone(), prev.text.clone()],
                    format!(
                        "live rows in the order their content reached the tab; {:?} (learned at tick {start}) is below {:?} (tick {before})",
                        row.text, prev.text
                    ),
                ));
            }
        }
        last = Some((start, row));
    }
    Ok(())
}

/// The shape a live row of its role must have.
fn shape(row: &RenderRow, tokens: &RowTokens) -> Result<(), Finding> {
    let bad = |what: &str, token: &str| {
        Err((
            vec![token.to_string()],
            format!("{what}; {:?} holds {token:?}", row.text),
        ))
    };
    match row.role {
        Role::User => {
            if let Some(t) = tokens.any(|k| !matches!(k, TokenKey::Msg(_))) {
                return bad("a user row holds no streamed text and no tool marker", t);
            }
        }
        Role::Assistant => {
            if let Some(t) = tokens.any(|k| !matches!(k, TokenKey::Txt(..))) {
                return bad("an assistant row holds only streamed text", t);
            }
            if tokens.other_bytes > 0 {
                return bad("an assistant row holds only streamed text", &row.text);
            }
            let mut turns = tokens.tokens.iter().filter_map(|(_, k)| match k {
                TokenKey::Txt(t, _) => Some(*t),
                _ => None,
            });
            if let Some(first) = turns.next() {
                if turns.any(|t| t != first) {
                    return bad("an assistant row holds one turn's text", &row.text);
                }
            }
        }
        Role::ToolCall => {
            let alone = tokens.tokens.len() == 1
                && tokens.other_bytes == 0
                && matches!(tokens.tokens[0].1, TokenKey::Call(..));
            if !alone {
                return bad("a tool-call row is its marker alone", &row.text);
            }
        }
        Role::ToolResult => {
            if !matches!(leading_token(&row.text), Some(TokenKey::Result(..))) {
                return bad("a tool result starts with its marker", &row.text);
            }
            if let Some(t) = tokens.any(|k| matches!(k, TokenKey::Txt(..) | TokenKey::Call(..))) {
                return bad("a tool result never receives streamed text", t);
            }
        }
    }
    Ok(())
}

/// When an assistant row started (its earliest delta's delivery) and the runs of its
/// deltas; its deltas must all be of one segment.
fn deltas_seen(c: &Client, tokens: &RowTokens) -> Result<(Option<u32>, Vec<u32>), Finding> {
    let learned = c.learned();
    let mut start: Option<u32> = None;
    let mut segment = None;
    let mut runs: Vec<u32> = Vec::new();
    for (text, key) in &tokens.tokens {
        let Some(pos) = c.keys().delta_position(*key) else {
            continue; // not delivered to this tab: invariant 3's business, not this one's
        };
        let seen = learned.deltas[pos];
        start = Some(start.map_or(seen.at, |s| s.min(seen.at)));
        match segment {
            Some(s) if s != seen.segment => {
                return Err((
                    vec![text.clone()],
                    "an assistant row holds one segment of a turn (no tool event of the turn between its deltas)".to_string(),
                ))
            }
            _ => segment = Some(seen.segment),
        }
        if !runs.contains(&seen.run) {
            runs.push(seen.run);
        }
    }
    Ok((start, runs))
}

/// When the tab learned the tool marker a tool row starts with.
fn marker_start(c: &Client, text: &str) -> Option<u32> {
    let key = leading_token(text)?;
    c.learned()
        .markers
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, at)| *at)
}

/// The tab's own messages, for the start of the live user rows that show them: by token
/// in a world of unique tokens; by text in a world of colliding texts, where a row with a
/// text the user sent several times could stand for any of those sends. Then each row
/// takes the earliest send of its text not taken yet that keeps the order (no earlier
/// than the row above), which is the assignment most likely to succeed: an order
/// violation is reported only when no assignment of sends to rows keeps the order.
struct OwnMessages<'a> {
    c: &'a Client,
    texts: MessageTexts,
    /// Colliding texts: for each text, the clock at each send of it not taken yet, sorted.
    by_text: Vec<(&'a str, Vec<u32>)>,
}

impl<'a> OwnMessages<'a> {
    fn new(c: &'a Client, texts: MessageTexts) -> OwnMessages<'a> {
        let mut by_text: Vec<(&str, Vec<u32>)> = Vec::new();
        if texts == MessageTexts::Colliding {
            for (text, at) in c.sent_texts().iter().zip(&c.learned().sent_at) {
                match by_text.iter_mut().find(|(t, _)| *t == text.as_str()) {
                    Some((_, times)) => times.push(*at),
                    None => by_text.push((text.as_str(), vec![*at])),
                }
            }
        }
        OwnMessages { c, texts, by_text }
    }

    /// When the user sent the message `row` shows, if it is the tab's own; `after` is the
    /// start of the row above.
    fn start(&mut self, row: &RenderRow, tokens: &RowTokens, after: Option<u32>) -> Option<u32> {
        match self.texts {
            MessageTexts::Tokens => {
                let key = tokens.tokens.first()?.1;
                let i = self.c.keys().sent.iter().position(|k| *k == Some(key))?;
                Some(self.c.learned().sent_at[i])
            }
            MessageTexts::Colliding => {
                let (_, times) = self.by_text.iter_mut().find(|(t, _)| *t == row.text)?;
                if times.is_empty() {
                    return None; // more rows than sends of this text: not only the user's
                }
                let floor = after.unwrap_or(0);
                let i = times
                    .iter()
                    .position(|t| *t >= floor)
                    .unwrap_or(times.len() - 1);
                Some(times.remove(i))
            }
        }
    }
}
