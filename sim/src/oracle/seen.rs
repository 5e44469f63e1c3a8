//! Invariants 1 and 3: what the tab's user sent, and the streamed content the tab was
//! shown (text deltas and tool markers), stay visible.
//!
//! Deltas are unique tokens (`txt:t<T>.<K>`), found wherever a store put them. Messages
//! are unique tokens too in a world of [`MessageTexts::Tokens`], and then the common
//! case, everything shown, is a few word operations on key sets. In a world of
//! [`MessageTexts::Colliding`] texts ("ok" twice, "ok" inside "ok thanks") a message has
//! no token, so it is judged by multisets: a message is visible when a sealed row the tab
//! shows holds it (the DB row with that `seq` lists its id), when a live tool result the
//! tab shows folded it in (found by the result's `tool-result:t<T>.<N>` marker), or,
//! for what is left, when as many live user rows carry its text as there are messages
//! left with that text.

use crate::model::client::Client;
use crate::model::content::{
    leading_token_key, tool_call_text, tool_result_text, KeySet, MessageTexts, TokenKey,
};
use crate::model::wire::{ClientId, MessageId, Origin, RenderRow, Role, TurnId};
use crate::model::world::World;
use crate::oracle::invariant::Invariant;
use crate::oracle::judged::JudgedExt;
use crate::oracle::read::RenderRead;
use crate::oracle::violation::{violation, Violation};

/// Invariants 1 then 3 for `client`, whose render is `rows`.
pub fn check(
    world: &World,
    client: ClientId,
    (rows, read): (&[RenderRow], &RenderRead),
    step_index: usize,
) -> Option<Violation> {
    let c = world.client(client);
    let judged = world.config().judged;
    // Nothing to look for before the user sent anything or was shown a delta.
    let keys = c.keys();
    if c.sent().is_empty() && c.deltas_shown().is_empty() && keys.markers.is_empty() {
        return None;
    }
    let shown = read.shown_keys();
    // The common case, every tracked token shown, is a few word operations; only
    // otherwise is each message or delta looked up, in order, to say which are missing.
    if !keys.unkeyed && keys.tracked.is_subset(shown) {
        return None;
    }
    let lost = match world.config().message_texts {
        _ if !judged.judges(Invariant::NoLoss) => Vec::new(),
        MessageTexts::Tokens => lost_tokens(c, shown),
        MessageTexts::Colliding => lost_texts(world, c, rows),
    };
    if !lost.is_empty() {
        let expected = format!("own message(s) {} visible", lost.join(", "));
        return Some(violation(
            Invariant::NoLoss,
            client,
            step_index,
            lost,
            expected,
            rows,
        ));
    }
    if !judged.judges(Invariant::NewerTurnPreserved) {
        return None;
    }
    let mut wiped: Vec<String> = c
        .deltas_shown()
        .iter()
        .zip(&keys.deltas)
        .filter(|(_, k)| !k.is_some_and(|k| shown.contains(k)))
        .map(|(t, _)| t.clone())
        .collect();
    wiped.extend(
        keys.markers
            .iter()
            .filter(|k| !shown.contains(**k))
            .map(|k| marker_text(*k)),
    );
    if wiped.is_empty() {
        return None;
    }
    let expected = format!("streamed text {} still visible", wiped.join(", "));
    Some(violation(
        Invariant::NewerTurnPreserved,
        client,
        step_index,
        wiped,
        expected,
        rows,
    ))
}

/// The text of a tool marker key.
fn marker_text(key: TokenKey) -> String {
    match key {
        TokenKey::Call(t, n) => tool_call_text(TurnId(t), n),
        TokenKey::Result(t, n) => tool_result_text(TurnId(t), n),
        other => format!("{other:?}"),
    }
}

/// The texts of the client's messages whose token is not shown (unique-token worlds).
fn lost_tokens(c: &Client, shown: &KeySet) -> Vec<String> {
    c.sent_texts()
        .iter()
        .zip(&c.keys().sent)
        .filter(|(_, k)| !k.is_some_and(|k| shown.contains(k)))
        .map(|(t, _)| t.clone())
        .collect()
}

/// The texts of the client's messages that are not visible, judged by multisets
/// (colliding-text worlds; see the module doc).
fn lost_texts(world: &World, c: &Client, rows: &[RenderRow]) -> Vec<String> {
    let mut lost = Vec::new();
    for_each_lost_text(world, c, rows, |text| lost.push(text.to_string()));
    lost
}

/// Call `f` with the text of each of the client's messages that is not visible, in send
/// order (colliding-text worlds). A message is visible when the
/// render holds its id (a sealed row's DB row, or a live tool result that folded it in);
/// the others are matched with the live user rows of their text, in send order: the
/// `k`-th such message of a text is lost when fewer than `k` live user rows carry it.
/// Allocates nothing: the oracle asks after every step of the tab, and the answer is
/// almost always none.
fn for_each_lost_text(world: &World, c: &Client, rows: &[RenderRow], mut f: impl FnMut(&str)) {
    // Which sends the render holds by id, looked up once each (the first 64; a tab sends
    // a few messages, and beyond 64 each is looked up again when asked).
    let held_mask = c
        .sent()
        .iter()
        .take(64)
        .enumerate()
        .filter(|(_, m)| holds(world, rows, **m))
        .fold(0u64, |mask, (i, _)| mask | 1 << i);
    let unheld = |i: usize| match i {
        0..64 => held_mask & 1 << i == 0,
        _ => !holds(world, rows, c.sent()[i]),
    };
    let texts = c.sent_texts();
    for (i, text) in texts.iter().enumerate() {
        if !unheld(i) {
            continue;
        }
        let k = 1 + (0..i).filter(|&j| texts[j] == *text && unheld(j)).count();
        let live = rows
            .iter()
            .filter(|r| r.is_live() && r.role == Role::User && r.text == *text)
            .count();
        if k > live {
            f(text);
        }
    }
}

/// Whether the render holds message `m` by id (see [`ids_held`], with live results).
fn holds(world: &World, rows: &[RenderRow], m: MessageId) -> bool {
    rows.iter().any(|r| ids_of_row(world, r, true).contains(&m))
}

/// The messages a render shows by id: those the DB rows of its sealed rows hold, and,
/// with `live_results`, those folded into the live tool results it shows (by their
/// marker).
pub fn ids_held(world: &World, rows: &[RenderRow], live_results: bool) -> Vec<MessageId> {
    rows.iter()
        .flat_map(|r| ids_of_row(world, r, live_results))
        .copied()
        .collect()
}

/// The messages one row holds by id: a sealed row's DB row's, or, with `live_results`, a
/// live tool result's folded messages.
pub(crate) fn ids_of_row<'w>(
    world: &'w World,
    row: &RenderRow,
    live_results: bool,
) -> &'w [MessageId] {
    match &row.origin {
        Origin::Sealed { seq } => {
            let db = world.backend().db();
            db.binary_search_by_key(seq, |d| d.seq)
                .map_or(&[], |i| db[i].message_ids.as_slice())
        }
        Origin::Live { .. } if live_results && row.role == Role::ToolResult => {
            result_marker(&row.text)
                .map_or(&[], |(turn, call)| world.backend().folded_into(turn, call))
        }
        Origin::Live { .. } => &[],
    }
}

/// The `tool-result:t<T>.<N>` marker a tool result's text starts with.
pub fn result_marker(text: &str) -> Option<(TurnId, u32)> {
    match leading_token_key(text) {
        Some(TokenKey::Result(t, n)) => Some((TurnId(t), n)),
        _ => None,
    }
}
