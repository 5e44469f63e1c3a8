//! The oracle: judges what each client's user sees against the backend's ground truth.
//!
//! It is a black box test of the store. It reads only the render (and, for sealed rows,
//! the DB row with the same `seq`) and the facts the world recorded (what each user sent,
//! which deltas and seals reached which client). It knows nothing of strategies or of how
//! a store works inside.
//!
//! The note's invariants, made checkable:
//! 1. **No loss** (after every step that touches a client): every message that client's
//!    user sent is visible in its render, as a user row or folded into a tool result.
//! 2. **No duplicate / no linger** (after an applied fetch response, once the client has
//!    no other fetch outstanding and is not scrolled up, so every seal it received has
//!    been reconciled): no content token shown in a sealed row of a turn whose
//!    `turn-sealed` the client received also appears in a live row.
//! 3. **Newer turn preserved** (after every step that touches a client): every streamed
//!    delta that reached the client stays visible (an older turn's reconcile must not wipe
//!    a newer turn's text).
//! 4. **Converges** (after the drain phase): with every send processed, the agent idle,
//!    everything delivered and every client at the bottom, each render is exactly the DB,
//!    row for row, with no live rows left.

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::model::client::Client;
use crate::model::content::push_decimal;
use crate::model::content::{
    content_tokens, for_each_content_token, for_each_token_key, KeySet, TokenKey,
};
use crate::model::step::Step;
use crate::model::wire::{ClientId, Origin, RenderRow};
use crate::model::world::World;

/// Which property broke.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub enum Invariant {
    /// Invariant 1, no loss: every message a tab's user sent stays visible, as a user row
    /// or folded into a tool result. Bugs B and C break it.
    #[serde(rename = "inv1-no-loss")]
    NoLoss,
    /// Invariant 2, no duplicate / no linger: once a tab has reconciled every seal it
    /// received, nothing shown sealed is also shown live. Bug D breaks it.
    #[serde(rename = "inv2-no-duplicate")]
    NoDuplicate,
    /// Invariant 3, newer turn preserved: streamed text that reached a tab stays visible,
    /// so an older turn's reconcile cannot wipe a newer turn's. Bug A breaks it.
    #[serde(rename = "inv3-newer-turn")]
    NewerTurnPreserved,
    /// Invariant 4, converges: after the drain phase every tab shows exactly the DB, row
    /// for row, with no live rows.
    #[serde(rename = "inv4-converges")]
    Converges,
    /// The store panicked (or, over a process boundary, died or misbehaved).
    #[serde(rename = "crash")]
    Crash,
}

impl Invariant {
    /// Every invariant, in the order reports list them (the fuzz table's columns).
    pub const ALL: [Invariant; 5] = [
        Invariant::NoLoss,
        Invariant::NoDuplicate,
        Invariant::NewerTurnPreserved,
        Invariant::Converges,
        Invariant::Crash,
    ];

    /// The name scenario files (`expect`), reports and failure file names use, as in
    /// `inv2-no-duplicate`.
    pub fn name(self) -> &'static str {
        match self {
            Invariant::NoLoss => "inv1-no-loss",
            Invariant::NoDuplicate => "inv2-no-duplicate",
            Invariant::NewerTurnPreserved => "inv3-newer-turn",
            Invariant::Converges => "inv4-converges",
            Invariant::Crash => "crash",
        }
    }

    /// The invariant [`Invariant::name`] spells `name`, if any.
    pub fn from_name(name: &str) -> Option<Invariant> {
        Invariant::ALL.into_iter().find(|i| i.name() == name)
    }
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A broken invariant, with everything a person needs to see why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The property that broke: with the store, the failure's signature, which campaigns
    /// keep one shrunk scenario per.
    pub invariant: Invariant,
    /// The client whose render broke it (none for a whole-world failure).
    pub client: Option<ClientId>,
    /// Index of the step after which it broke, counting main-phase then drain steps.
    pub step_index: usize,
    /// The content tokens involved (`msg:m3`, `txt:t2.1`).
    pub messages: Vec<String>,
    /// What the invariant required, in words naming the tokens concerned
    /// (`own message(s) msg:m2 visible`), printed above `seen`.
    pub expected: String,
    /// The client's render at that moment, one line per row.
    pub seen: Vec<String>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} violated", self.invariant)?;
        if let Some(c) = self.client {
            write!(f, " on c{c}")?;
        }
        writeln!(f, " after step #{}", self.step_index)?;
        if !self.messages.is_empty() {
            writeln!(f, "  involving: {}", self.messages.join(", "))?;
        }
        writeln!(f, "  expected:  {}", self.expected)?;
        writeln!(f, "  seen ({} rows):", self.seen.len())?;
        for line in &self.seen {
            writeln!(f, "    {line}")?;
        }
        Ok(())
    }
}

/// One render row as a line: `sealed 3 t1 user msg:m1` or `live queued-m2 - user msg:m2`.
pub fn render_line(row: &RenderRow) -> String {
    let role = match row.role {
        crate::model::wire::Role::User => "user",
        crate::model::wire::Role::Assistant => "assistant",
        crate::model::wire::Role::ToolCall => "tool-call",
        crate::model::wire::Role::ToolResult => "tool-result",
    };
    // Written piece by piece (every failing run renders its client's rows).
    let mut line = String::with_capacity(32 + row.text.len());
    match &row.origin {
        Origin::Sealed { seq } => {
            line.push_str("sealed ");
            push_decimal(&mut line, *seq);
        }
        Origin::Live { id } => {
            line.push_str("live ");
            line.push_str(id);
        }
    }
    line.push(' ');
    match row.turn_id {
        Some(t) => {
            line.push('t');
            push_decimal(&mut line, t.0);
        }
        None => line.push('-'),
    }
    line.push(' ');
    line.push_str(role);
    line.push(' ');
    line.push_str(&row.text);
    line
}

fn render_lines(rows: &[RenderRow]) -> Vec<String> {
    rows.iter().map(render_line).collect()
}

/// The keys of every canonical content token of a render.
fn shown_keys(rows: &[RenderRow]) -> KeySet {
    let mut shown = KeySet::default();
    for r in rows {
        for_each_token_key(&r.text, |k| shown.insert(k));
    }
    shown
}

/// Check invariants 1 and 3 (and 2 when the step applied a fetch response) for the client
/// `step` touched. `step_index` is the step's index in the run.
pub fn check_step(world: &World, step: &Step, step_index: usize) -> Option<Violation> {
    let client = match step.actor() {
        crate::model::step::Actor::Client(c) => c,
        crate::model::step::Actor::Backend => return None,
    };
    let c = world.client(client);
    let rows = c.render();

    // Every content token the user sees, split out and keyed once. (Nothing to look for
    // before the user sent anything or was shown a delta.)
    let tracking = !c.sent_texts().is_empty() || !c.deltas_shown().is_empty();
    if tracking {
        let shown = shown_keys(rows);
        // The common case, every tracked token shown, is a few word operations; only
        // otherwise (or for a tracked text without a key) is each token looked up, in
        // order, to say which are missing.
        let keys = c.keys();
        let all_shown =
            !keys.unkeyed && keys.sent_set.is_subset(&shown) && keys.delta_set.is_subset(&shown);
        if !all_shown {
            if let Some(v) = check_tracked_shown(c, client, rows, &shown, step_index) {
                return Some(v);
            }
        }
    }

    if matches!(step, Step::DeliverFetchResponse { .. })
        && !c.scrolled_up()
        && c.no_fetch_outstanding()
    {
        return check_no_duplicate(world, client, step_index);
    }
    None
}

/// Invariants 1 then 3, token by token: the user's own messages, then the deltas the
/// client was shown, each looked up in `shown` (or, without a key, in the render's text).
fn check_tracked_shown(
    c: &Client,
    client: ClientId,
    rows: &[RenderRow],
    shown: &KeySet,
    step_index: usize,
) -> Option<Violation> {
    let visible = |text: &str, key: Option<TokenKey>| match key {
        Some(k) => shown.contains(k),
        // Not canonical (the world never tracks such a token): compare text.
        None => rows
            .iter()
            .flat_map(|r| content_tokens(&r.text))
            .any(|t| t == text),
    };
    let lost: Vec<String> = c
        .sent_texts()
        .iter()
        .zip(&c.keys().sent)
        .filter(|(t, k)| !visible(t, **k))
        .map(|(t, _)| t.clone())
        .collect();
    if !lost.is_empty() {
        return Some(Violation {
            invariant: crate::oracle::Invariant::NoLoss,
            client: Some(client),
            step_index,
            expected: format!("own message(s) {} visible", lost.join(", ")),
            messages: lost,
            seen: render_lines(rows),
        });
    }
    let wiped: Vec<String> = c
        .deltas_shown()
        .iter()
        .zip(&c.keys().deltas)
        .filter(|(t, k)| !visible(t, **k))
        .map(|(t, _)| t.clone())
        .collect();
    if !wiped.is_empty() {
        return Some(Violation {
            invariant: Invariant::NewerTurnPreserved,
            client: Some(client),
            step_index,
            expected: format!("streamed text {} still visible", wiped.join(", ")),
            messages: wiped,
            seen: render_lines(rows),
        });
    }
    None
}

/// Invariant 2 for one settled client.
fn check_no_duplicate(world: &World, client: ClientId, step_index: usize) -> Option<Violation> {
    let c = world.client(client);
    let rows = c.render();
    let db = world.backend().db();
    // A duplicate is a live token that is also sealed: with no content in live rows (the
    // usual state after a reconcile), there is nothing to look up.
    let live_content = rows
        .iter()
        .filter(|r| r.is_live())
        .any(|r| content_tokens(&r.text).next().is_some());
    if !live_content {
        return None;
    }
    // The content tokens of sealed rows of sealed turns: canonical ones as keys (equal
    // keys exactly when equal text), any other spelling as text.
    let mut sealed_keys = KeySet::default();
    let mut sealed_other: Vec<&str> = Vec::new();
    for row in rows {
        if let Origin::Sealed { seq } = row.origin {
            let sealed_turn = db
                .binary_search_by_key(&seq, |r| r.seq)
                .ok()
                .map(|i| db[i].turn_id);
            if sealed_turn.is_some_and(|t| c.seals_shown().contains(&t)) {
                for_each_content_token(&row.text, |t, key| match key {
                    Some(k) => sealed_keys.insert(k),
                    None => sealed_other.push(t),
                });
            }
        }
    }
    let mut dup: Vec<String> = Vec::new();
    for row in rows.iter().filter(|r| r.is_live()) {
        for_each_content_token(&row.text, |t, key| {
            let sealed = match key {
                Some(k) => sealed_keys.contains(k),
                None => sealed_other.contains(&t),
            };
            if sealed && !dup.iter().any(|d| d == t) {
                dup.push(t.to_string());
            }
        });
    }
    if dup.is_empty() {
        return None;
    }
    Some(Violation {
        invariant: Invariant::NoDuplicate,
        client: Some(client),
        step_index,
        expected: format!(
            "{} shown once (sealed), its live row dropped on reconcile",
            dup.join(", ")
        ),
        messages: dup,
        seen: render_lines(rows),
    })
}

/// Invariant 4, after the drain phase: every render equals the DB exactly.
pub fn check_converged(world: &World, step_index: usize) -> Option<Violation> {
    let db = world.backend().db();
    for (i, c) in world.clients().iter().enumerate() {
        let rows = c.render();
        let matches = rows.len() == db.len()
            && rows.iter().zip(db.iter()).all(|(r, d)| {
                r.origin == Origin::Sealed { seq: d.seq } && r.role == d.role && r.text == d.text
            });
        if !matches {
            let mut involved: Vec<String> = Vec::new();
            for r in rows.iter().filter(|r| r.is_live()) {
                involved.extend(content_tokens(&r.text).map(str::to_string));
            }
            return Some(Violation {
                invariant: Invariant::Converges,
                client: Some(i as ClientId),
                step_index,
                messages: involved,
                expected: format!(
                    "render equals the DB exactly ({} sealed rows: {}) with no live rows",
                    db.len(),
                    db.iter()
                        .map(|r| format!("{}:{}", r.seq, r.text))
                        .collect::<Vec<_>>()
                        .join(" | ")
                ),
                seen: render_lines(rows),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::wire::Role;

    fn live(text: &str) -> RenderRow {
        RenderRow {
            origin: Origin::Live { id: "x".into() },
            role: Role::User,
            turn_id: None,
            text: text.into(),
        }
    }

    /// `render_line` writes what the plain `format!` would.
    #[test]
    fn render_lines_read_as_documented() {
        let sealed = RenderRow {
            origin: Origin::Sealed { seq: 31 },
            role: Role::ToolResult,
            turn_id: Some(crate::model::wire::TurnId(12)),
            text: "tool-result:t12.1 [USER INTERRUPT] msg:m3".into(),
        };
        assert_eq!(
            render_line(&sealed),
            "sealed 31 t12 tool-result tool-result:t12.1 [USER INTERRUPT] msg:m3"
        );
        let mut queued = live("msg:m2");
        queued.origin = Origin::Live {
            id: "queued-m2".into(),
        };
        assert_eq!(render_line(&queued), "live queued-m2 - user msg:m2");
    }

    /// The bitmaps and the overflow list answer like a string search over the tokens.
    #[test]
    fn shown_keys_match_a_plain_token_search() {
        let rows = [
            live("msg:m1 msg:m127 msg:m128 msg:m900"),
            live("txt:t0.0 txt:t15.63 txt:t16.1 txt:t2.64 [USER INTERRUPT] msg:m02"),
        ];
        let shown = shown_keys(&rows);
        let tokens: Vec<&str> = rows.iter().flat_map(|r| content_tokens(&r.text)).collect();
        for probe in [
            "msg:m1",
            "msg:m2",
            "msg:m127",
            "msg:m128",
            "msg:m900",
            "msg:m901",
            "txt:t0.0",
            "txt:t0.1",
            "txt:t15.63",
            "txt:t15.62",
            "txt:t16.1",
            "txt:t16.2",
            "txt:t2.64",
            "txt:t2.63",
        ] {
            let key = crate::model::content::token_key(probe).expect("canonical");
            assert_eq!(shown.contains(key), tokens.contains(&probe), "{probe}");
        }
    }
}
