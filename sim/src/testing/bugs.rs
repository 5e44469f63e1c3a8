//! The design note's bugs A–D as hand-built interleavings, and the regression seeds made
//! from them (`scenarios/bug-{a,b,c,d}.json`).
//!
//! Each script drives a world step by step ([`Script`]); the regression seed is that
//! interleaving shrunk (1-minimal) against the store *before* the note's fix, keeping the
//! invariant the note names. `sim/tests/bugs.rs` asserts the scripts both ways and
//! `sim/tests/scenarios.rs` asserts the committed files both ways and that regenerating
//! them gives the committed bytes (`RECONCILE_SIM_BLESS=1 cargo test` rewrites them).

use crate::model::wire::Event;
use crate::oracle::Invariant;
use crate::run::{replay, Outcome};
use crate::store::{by_name, StoreKind};
use crate::testing::script::{scripted_config, Script};
use crate::trace::scenario::Scenario;
use crate::trace::shrink::{shrink_with, Limits};

/// Bug A: c0 is scrolled up when t1 seals, so its reconcile is deferred; c1 starts t2,
/// which streams to c0; c0 scrolls down and t1's late reconcile runs while t2 is live.
pub fn bug_a_script(kind: &StoreKind) -> Script<'_> {
    let mut s = Script::new(scripted_config(), kind);
    s.deliver_all(0).deliver_all(1); // status idle on connect
    s.send(0).post(0).deliver_all(0).deliver_all(1); // t1: turn-start, status running
    s.delta().deliver_all(0).deliver_all(1);
    s.finish_turn();
    s.scroll_up(0);
    s.deliver_all(0); // status idle, turn-sealed t1: deferred
    s.deliver_all(1).fetch(1);
    s.send(1).post(1); // t2 starts
    s.delta();
    s.deliver_all(0); // turn-start t2, status running, txt:t2.1
    s.scroll_down(0).fetch(0); // t1's deferred reconcile
    s
}

/// Bug B: c0 sends a second message while its turn runs (a queued bubble); the POST is
/// still in flight when t1 seals, so the message is in no sealed chunk.
pub fn bug_b_script(kind: &StoreKind) -> Script<'_> {
    let mut s = Script::new(scripted_config(), kind);
    s.deliver_all(0).deliver_all(1);
    s.send(0).post(0).deliver_all(0); // c0 now believes running
    s.send(0); // queued-m2, POST in flight
    s.delta().finish_turn();
    s.deliver_all(0).fetch(0); // t1's reconcile
    s
}

/// Bug C: c0's queued bubble (POST in flight) is trailing when c1's t2 starts; the
/// backfill tags it with t2, and t2's reconcile wipes it although t2 never consumed it.
/// The message is then queued into c1's t3 and consumed there as trailing history.
pub fn bug_c_script(kind: &StoreKind) -> Script<'_> {
    let mut s = Script::new(scripted_config(), kind);
    s.deliver_all(0).deliver_all(1);
    s.send(1).post(1).deliver_all(0).deliver_all(1); // t1 by c1; c0 believes running
    s.send(0); // queued-m2, POST in flight
    s.delta().finish_turn();
    s.deliver_all(1).fetch(1);
    s.send(1).post(1); // t2 by c1, m2 still in flight
    s.deliver_until(0, |e| matches!(e, Event::TurnSealed { .. }))
        .fetch(0); // t1 reconciled
    s.deliver_all(0); // turn-start t2: the backfill sees queued-m2 trailing
    s.delta().finish_turn();
    s.deliver_all(0).fetch(0); // t2's reconcile
    s.deliver_all(1).fetch(1);
    s.send(1).post(1); // t3 by c1
    s.post(0); // m2 finally arrives: queued into t3
    s.end(); // trailing drain of m2
    s.delta().finish_turn();
    s.deliver_all(0).fetch(0);
    s
}

/// Bug D: c0's queued message is consumed as a `[USER INTERRUPT]` inside t1's tool result;
/// the bubble, stripped to a plain untagged row, survives t1's reconcile.
pub fn bug_d_script(kind: &StoreKind) -> Script<'_> {
    let mut s = Script::new(scripted_config(), kind);
    s.deliver_all(0).deliver_all(1);
    s.send(1).post(1).deliver_all(0); // t1 by c1; c0 believes running
    s.send(0).post(0); // queued at the backend
    s.tool_call().tool_result(true); // message-consumed m2, folded into the result
    s.delta().finish_turn();
    s.deliver_all(0).fetch(0);
    s
}

/// One of the note's bugs as a regression seed.
pub struct RegressionSeed {
    /// The file stem: `bug-a`.
    pub name: &'static str,
    /// What the scenario shows (written into the file's `description`).
    pub description: &'static str,
    /// The store before the note's fix: it must break `invariant`.
    pub before: &'static str,
    /// The invariant the note names.
    pub invariant: Invariant,
    /// The store with the fix: it must not break `invariant`.
    pub after: &'static str,
    /// Stores that must pass the scenario outright (the fixed store where the note says
    /// the fix is complete, and `current`, so the seed stays about this one bug).
    pub must_pass: &'static [&'static str],
    /// A kind of step the seed must keep to stay the note's story (bug A's scroll that
    /// defers the reconcile, bug D's interrupt), so shrinking does not wander to a smaller
    /// interleaving with the same root cause.
    pub must_include: fn(&crate::model::step::Step) -> bool,
    /// What the world must keep to stay the story (a path beyond the note needs its world
    /// option; the shrinker would otherwise cut it and find another bug).
    pub must_keep: fn(&crate::model::config::WorldConfig) -> bool,
    /// The bug's interleaving, as the note tells it, built with [`Script`] on a store:
    /// what [`regression_scenario`] records on `before` and shrinks into the file.
    pub script: for<'a> fn(&'a StoreKind) -> Script<'a>,
}

impl RegressionSeed {
    /// The half of the contract about the fixed stores (and the story): the trace keeps
    /// a `must_include` step, `after` does not break the invariant and every `must_pass`
    /// store passes outright.
    pub fn fixed_stores_hold(
        &self,
        config: &crate::model::config::WorldConfig,
        steps: &[crate::model::step::Step],
    ) -> bool {
        let store = |n: &str| by_name(n).expect("a shipped store");
        steps.iter().any(self.must_include)
            && (self.must_keep)(config)
            && replay(&store(self.after), config.clone(), steps)
                .outcome
                .invariant()
                != Some(self.invariant)
            && self
                .must_pass
                .iter()
                .all(|n| replay(&store(n), config.clone(), steps).outcome == Outcome::Pass)
    }

    /// The whole contract: the store before the fix breaks the invariant, and the fixed
    /// stores hold on the steps it applied (a replay stops at the violation). The
    /// committed seed is 1-minimal for this property: deleting any single step makes it
    /// stop telling the buggy store from the fixed one.
    pub fn demonstrates(
        &self,
        config: &crate::model::config::WorldConfig,
        steps: &[crate::model::step::Step],
    ) -> bool {
        let r = replay(
            &by_name(self.before).expect("a shipped store"),
            config.clone(),
            steps,
        );
        r.outcome.invariant() == Some(self.invariant) && self.fixed_stores_hold(config, &r.steps)
    }
}

/// Bugs A–D, in the note's order.
pub const REGRESSION_SEEDS: [RegressionSeed; 4] = [
    RegressionSeed {
        name: "bug-a",
        description: "Bug A (design note, pass 1): an earlier turn's deferred reconcile wipes a newer, still-streaming turn. Fails inv3-newer-turn on naive; fix-a (preserveTurnId) passes.",
        before: "naive",
        invariant: Invariant::NewerTurnPreserved,
        after: "fix-a",
        must_pass: &["fix-a", "current"],
        must_include: |s| matches!(s, crate::model::step::Step::ScrollUp { .. }),
        must_keep: |_| true,
        script: bug_a_script,
    },
    RegressionSeed {
        name: "bug-b",
        description: "Bug B (design note, pass 1): an optimistic queued user bubble is dropped on reconcile. Fails inv1-no-loss on fix-a; fix-ab (keep untagged user rows) passes.",
        before: "fix-a",
        invariant: Invariant::NoLoss,
        after: "fix-ab",
        must_pass: &["fix-ab"],
        must_include: |_| true,
        must_keep: |_| true,
        script: bug_b_script,
    },
    RegressionSeed {
        name: "bug-c",
        description: "Bug C (design note, pass 2): the turn-start backfill over-tags a pending queued- row with the new turn, which is then wiped on seal. Fails inv1-no-loss on fix-ab; fix-abc (backfill skips queued- rows) does not.",
        before: "fix-ab",
        invariant: Invariant::NoLoss,
        after: "fix-abc",
        must_pass: &[],
        must_include: |_| true,
        must_keep: |_| true,
        script: bug_c_script,
    },
    RegressionSeed {
        name: "bug-d",
        description: "Bug D (design note, pass 3): a consumed [USER INTERRUPT] bubble lingers beside the sealed tool result that holds it. Fails inv2-no-duplicate on fix-abc; current (bind the consumed row to liveTurnId) passes.",
        before: "fix-abc",
        invariant: Invariant::NoDuplicate,
        after: "current",
        must_pass: &["current"],
        must_include: |s| *s == crate::model::step::Step::AgentToolResult { interrupt: true },
        must_keep: |_| true,
        script: bug_d_script,
    },
];

/// The regression seed's scenario: its script, recorded on the store before the fix,
/// shrunk to 1-minimal with the bug's invariant. Deterministic: same bytes every time.
pub fn regression_scenario(seed: &RegressionSeed) -> Scenario {
    let before = by_name(seed.before).expect("a shipped store");
    let script = (seed.script)(&before);
    let config = script.world().config().clone();
    let tells_apart = |config: &crate::model::config::WorldConfig,
                       steps: &[crate::model::step::Step]| {
        seed.fixed_stores_hold(config, steps)
    };
    let shrunk = shrink_with(
        &before,
        config,
        script.steps(),
        Some(seed.invariant),
        Limits {
            replays_max: u64::MAX,
            time_max: std::time::Duration::MAX,
            deadline: None,
        },
        &tells_apart,
    )
    .unwrap_or_else(|e| {
        panic!(
            "{}: the script does not tell {} from {}: {e}",
            seed.name, seed.before, seed.after
        )
    });
    let mut s = Scenario::record(&before, shrunk.config, &shrunk.steps, Some(seed.invariant));
    s.description = Some(seed.description.to_string());
    s
}
