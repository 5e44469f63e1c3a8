//! Stores with one plausible bug each, of the classes the oracle once missed (live order,
//! live shape, matching by text or substring, tool turns): each must be caught within the
//! CI gate's default budget and shrink to a scenario a person can read (≤ 20 steps).
//!
//! Each is the correct `durable` store seen through one wrong transformation of its
//! render, applied after every input: the bug a real store would have, without copying
//! the store. (Three more, written in JavaScript and driven through `exec:`, are in
//! `sim/tests/buggy/`.)

use reconcile_sim::campaign::check::DEFAULT_SEEDS;
use reconcile_sim::campaign::fuzz::run_one;
use reconcile_sim::model::store::{Answer, Store, StoreFactory};
use reconcile_sim::model::wire::{ClientId, Input, Origin, RenderRow, Role};
use reconcile_sim::oracle::Invariant;
use reconcile_sim::run::strategy::StrategySpec;
use reconcile_sim::store::durable;
use reconcile_sim::trace::shrink::{shrink, Limits};

/// `durable`, with its render passed through `bug` after every input.
struct Buggy {
    inner: Box<dyn Store>,
    rows: Vec<RenderRow>,
    bug: fn(Vec<RenderRow>) -> Vec<RenderRow>,
}

impl Store for Buggy {
    fn handle(&mut self, input: &Input) -> Answer {
        let effects = self.inner.handle(input)?;
        self.rows = (self.bug)(self.inner.render().to_vec());
        Ok(effects)
    }
    fn render(&self) -> &[RenderRow] {
        &self.rows
    }
}

struct BuggyKind {
    name: &'static str,
    bug: fn(Vec<RenderRow>) -> Vec<RenderRow>,
}

impl StoreFactory for BuggyKind {
    fn name(&self) -> String {
        self.name.to_string()
    }
    fn make(&self, client: ClientId) -> Box<dyn Store> {
        Box::new(Buggy {
            inner: durable::KIND.make(client),
            rows: Vec::new(),
            bug: self.bug,
        })
    }
}

fn split_live(rows: Vec<RenderRow>) -> (Vec<RenderRow>, Vec<RenderRow>) {
    rows.into_iter().partition(|r| !r.is_live())
}

/// Live order: live rows sorted by turn id, unbound rows (queued, optimistic) first, so
/// a pending user row jumps above the reply streaming below it.
fn sort_by_turn(rows: Vec<RenderRow>) -> Vec<RenderRow> {
    let (mut sealed, mut live) = split_live(rows);
    live.sort_by_key(|r| r.turn_id);
    sealed.extend(live);
    sealed
}

/// Live shape: text streamed after a tool result lands in the tool-result row.
fn text_into_tool_result(rows: Vec<RenderRow>) -> Vec<RenderRow> {
    let mut out: Vec<RenderRow> = Vec::new();
    for row in rows {
        match out.last_mut() {
            Some(prev)
                if row.is_live()
                    && row.role == Role::Assistant
                    && prev.is_live()
                    && prev.role == Role::ToolResult =>
            {
                prev.text.push(' ');
                prev.text.push_str(&row.text);
            }
            _ => out.push(row),
        }
    }
    out
}

/// Text match: a live user row is taken as already sealed (and hidden) when a sealed row
/// has the same text.
fn hide_when_text_sealed(rows: Vec<RenderRow>) -> Vec<RenderRow> {
    hide_user_rows(rows, |live, sealed| live == sealed)
}

/// Substring match: the same, when a sealed row's text contains the live row's.
fn hide_when_text_contained(rows: Vec<RenderRow>) -> Vec<RenderRow> {
    hide_user_rows(rows, |live, sealed| sealed.contains(live))
}

fn hide_user_rows(rows: Vec<RenderRow>, same: fn(&str, &str) -> bool) -> Vec<RenderRow> {
    let sealed: Vec<String> = rows
        .iter()
        .filter(|r| !r.is_live())
        .map(|r| r.text.clone())
        .collect();
    rows.into_iter()
        .filter(|r| {
            !(r.is_live() && r.role == Role::User && sealed.iter().any(|s| same(&r.text, s)))
        })
        .collect()
}

/// Tool turn: a tool call's row is dropped once its result is shown (the call "became"
/// the result).
fn drop_answered_calls(rows: Vec<RenderRow>) -> Vec<RenderRow> {
    let results: Vec<String> = rows
        .iter()
        .filter(|r| r.is_live() && r.role == Role::ToolResult)
        .map(|r| match &r.origin {
            Origin::Live { id } => id.replacen("result-", "call-", 1),
            Origin::Sealed { .. } => String::new(),
        })
        .collect();
    rows.into_iter()
        .filter(|r| match &r.origin {
            Origin::Live { id } => !(r.role == Role::ToolCall && results.contains(id)),
            Origin::Sealed { .. } => true,
        })
        .collect()
}

/// Every buggy store and the invariant that must catch it.
const BUGGY: &[(BuggyKind, Invariant)] = &[
    (
        BuggyKind {
            name: "live-order",
            bug: sort_by_turn,
        },
        Invariant::RenderShape,
    ),
    (
        BuggyKind {
            name: "live-shape",
            bug: text_into_tool_result,
        },
        Invariant::RenderShape,
    ),
    (
        BuggyKind {
            name: "text-match",
            bug: hide_when_text_sealed,
        },
        Invariant::NoLoss,
    ),
    (
        BuggyKind {
            name: "substring-match",
            bug: hide_when_text_contained,
        },
        Invariant::NoLoss,
    ),
    (
        BuggyKind {
            name: "tool-turn",
            bug: drop_answered_calls,
        },
        Invariant::NewerTurnPreserved,
    ),
];

/// Each buggy store is caught within the default `check` budget by the invariant meant
/// to catch its class, and its first failure shrinks to at most 20 steps.
#[test]
fn every_buggy_store_is_caught_within_the_gate_budget_and_shrinks_small() {
    for (kind, invariant) in BUGGY {
        let found = (0..DEFAULT_SEEDS).find_map(|seed| {
            let r = run_one(kind, StrategySpec::Random, seed);
            (r.outcome.invariant() == Some(*invariant)).then_some((seed, r))
        });
        let Some((seed, run)) = found else {
            panic!(
                "{} not caught by {invariant} in {DEFAULT_SEEDS} seeds",
                kind.name
            );
        };
        let shrunk = shrink(
            kind,
            run.config.clone(),
            &run.steps,
            Some(*invariant),
            Limits::default(),
        )
        .unwrap();
        assert!(
            shrunk.steps.len() <= 20,
            "{} (seed {seed}) shrinks to {} steps",
            kind.name,
            shrunk.steps.len()
        );
        // The figures, for `--nocapture`.
        eprintln!(
            "{}: {invariant} first at seed {seed}, shrunk {} -> {} steps",
            kind.name,
            run.steps.len(),
            shrunk.steps.len()
        );
    }
}

/// The transformations are the only difference: with the identity, the same wrapper is
/// `durable`, which passes.
#[test]
fn the_wrapper_alone_breaks_nothing() {
    let identity = BuggyKind {
        name: "identity",
        bug: |rows| rows,
    };
    for seed in 0..300 {
        let r = run_one(&identity, StrategySpec::Random, seed);
        assert_eq!(r.outcome.invariant(), None, "seed {seed}");
    }
}
