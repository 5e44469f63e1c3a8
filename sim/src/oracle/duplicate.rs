//! Invariant 2, no duplicate / no linger: once a tab has reconciled every seal it
//! received (judged after an applied fetch response, with no other fetch outstanding and
//! the user at the bottom), nothing shown in a sealed row of a turn whose `turn-sealed`
//! reached the tab is also shown live.
//!
//! Tokens (deltas, tool markers, and messages in a world of unique message tokens) are
//! compared by key. Messages of a world of colliding texts are compared by multisets: a
//! live user row duplicates a sealed message when more live user rows carry its text
//! than the tab has messages with that text still pending.

use std::collections::BTreeMap;

use crate::model::content::{KeySet, MessageTexts};
use crate::model::wire::{ClientId, Origin, RenderRow, Role};
use crate::model::world::World;
use crate::oracle::invariant::Invariant;
use crate::oracle::read::RenderRead;
use crate::oracle::seen::ids_held;
use crate::oracle::violation::{violation, Violation};

/// Invariant 2 for one settled client.
pub fn check(
    world: &World,
    client: ClientId,
    (rows, read): (&[RenderRow], &RenderRead),
    step_index: usize,
) -> Option<Violation> {
    // A duplicate is live content that is also sealed: with nothing live (the usual state
    // after a reconcile), there is nothing to look up.
    if !rows
        .iter()
        .any(|r| r.is_live() && !r.text.trim().is_empty())
    {
        return None;
    }
    let mut dup = duplicated_tokens(world, client, (rows, read));
    if world.config().message_texts == MessageTexts::Colliding {
        dup.extend(duplicated_texts(world, client, rows));
    }
    if dup.is_empty() {
        return None;
    }
    let expected = format!(
        "{} shown once (sealed), its live row dropped on reconcile",
        dup.join(", ")
    );
    Some(violation(
        Invariant::NoDuplicate,
        client,
        step_index,
        dup,
        expected,
        rows,
    ))
}

/// The indices of the rows of turns whose `turn-sealed` reached the client.
fn of_sealed_turns<'a>(
    world: &'a World,
    client: ClientId,
    rows: &'a [RenderRow],
) -> impl Iterator<Item = usize> + 'a {
    let db = world.backend().db();
    let seals = world.client(client).seals_shown();
    rows.iter()
        .enumerate()
        .filter_map(move |(i, row)| match row.origin {
            Origin::Sealed { seq } => db
                .binary_search_by_key(&seq, |r| r.seq)
                .is_ok_and(|d| seals.contains(&db[d].turn_id))
                .then_some(i),
            Origin::Live { .. } => None,
        })
}

/// Tokens shown in a sealed row of a sealed turn and also in a live row, in render order.
fn duplicated_tokens(
    world: &World,
    client: ClientId,
    (rows, read): (&[RenderRow], &RenderRead),
) -> Vec<String> {
    let mut sealed = KeySet::default();
    for i in of_sealed_turns(world, client, rows) {
        read.row(i).keys().for_each(|key| sealed.insert(key));
    }
    let mut dup: Vec<String> = Vec::new();
    for (i, _) in rows.iter().enumerate().filter(|(_, r)| r.is_live()) {
        for (t, key) in read.row(i).iter() {
            if sealed.contains(key) && !dup.iter().any(|d| d == t) {
                dup.push(t.to_string());
            }
        }
    }
    dup
}

/// Texts of messages held by sealed rows of sealed turns that live user rows show more
/// often than the client's pending messages with that text justify.
fn duplicated_texts(world: &World, client: ClientId, rows: &[RenderRow]) -> Vec<String> {
    let c = world.client(client);
    // Pending: not yet in a sealed row (a message folded into a live tool result is still
    // pending: its bubble beside the result is not a sealed duplicate).
    let held = ids_held(world, rows, false);
    let mut pending: BTreeMap<&str, usize> = BTreeMap::new();
    for (id, text) in c.sent().iter().zip(c.sent_texts()) {
        if !held.contains(id) {
            *pending.entry(text.as_str()).or_default() += 1;
        }
    }
    let sealed_rows: Vec<RenderRow> = of_sealed_turns(world, client, rows)
        .map(|i| rows[i].clone())
        .collect();
    let sealed_texts: Vec<&str> = ids_held(world, &sealed_rows, false)
        .into_iter()
        .filter_map(|id| world.message_text(id))
        .collect();
    let mut live: BTreeMap<&str, usize> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.is_live() && r.role == Role::User) {
        *live.entry(r.text.as_str()).or_default() += 1;
    }
    live.into_iter()
        .filter(|(t, n)| *n > pending.get(t).copied().unwrap_or(0) && sealed_texts.contains(t))
        .map(|(t, _)| t.to_string())
        .collect()
}
