//! The design note's bugs A–D as hand-built interleavings, each asserted in both
//! directions: the store before the fix violates the invariant the note names, the store
//! with the fix does not (and `current` passes the whole interleaving, drain included,
//! wherever the note says it should).

use reconcile_sim::oracle::Invariant;
use reconcile_sim::protocol::Event;
use reconcile_sim::runner::{Outcome, RunReport};
use reconcile_sim::script::{scripted_config, Script};
use reconcile_sim::store::{by_name, StoreKind};

const CURRENT: StoreKind = reconcile_sim::store::current::KIND;

fn store(name: &str) -> StoreKind {
    by_name(name).unwrap()
}

fn verdict(report: &RunReport) -> Option<Invariant> {
    assert!(
        report.skipped.is_empty(),
        "a scripted step was skipped on replay: {:?}",
        report.skipped
    );
    report.outcome.invariant()
}

fn assert_fails(script: &Script<'_>, name: &str, inv: Invariant) {
    let report = script.judge(&store(name));
    assert_eq!(
        verdict(&report),
        Some(inv),
        "{name} should violate {inv}: {:?}",
        report.outcome
    );
}

fn assert_no(script: &Script<'_>, name: &str, inv: Invariant) {
    let report = script.judge(&store(name));
    assert_ne!(
        verdict(&report),
        Some(inv),
        "{name} must not violate {inv}: {:?}",
        report.outcome
    );
}

fn assert_passes(script: &Script<'_>, name: &str) {
    let report = script.judge(&store(name));
    assert_eq!(report.outcome, Outcome::Pass, "{name} should pass");
}

/// Bug A: c0 is scrolled up when t1 seals, so its reconcile is deferred; c1 starts t2,
/// which streams to c0; c0 scrolls down and t1's late reconcile runs while t2 is live.
fn bug_a_script(kind: &StoreKind) -> Script<'_> {
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

#[test]
fn bug_a_naive_wipes_the_newer_streaming_turn() {
    let s = bug_a_script(&CURRENT);
    assert_fails(&s, "naive", Invariant::NewerTurnPreserved);
    assert_no(&s, "fix-a", Invariant::NewerTurnPreserved);
    assert_passes(&s, "fix-a");
    assert_passes(&s, "current");
    assert_passes(&s, "membership");
}

/// Bug B: c0 sends a second message while its turn runs (a queued bubble); the POST is
/// still in flight when t1 seals, so the message is in no sealed chunk.
fn bug_b_script(kind: &StoreKind) -> Script<'_> {
    let mut s = Script::new(scripted_config(), kind);
    s.deliver_all(0).deliver_all(1);
    s.send(0).post(0).deliver_all(0); // c0 now believes running
    s.send(0); // queued-m2, POST in flight
    s.delta().finish_turn();
    s.deliver_all(0).fetch(0); // t1's reconcile
    s
}

#[test]
fn bug_b_fix_a_drops_the_optimistic_queued_bubble() {
    let s = bug_b_script(&CURRENT);
    assert_fails(&s, "naive", Invariant::NoLoss);
    assert_fails(&s, "fix-a", Invariant::NoLoss);
    assert_no(&s, "fix-ab", Invariant::NoLoss);
    assert_passes(&s, "fix-ab");
}

/// Bug C: c0's queued bubble (POST in flight) is trailing when c1's t2 starts; the
/// backfill tags it with t2, and t2's reconcile wipes it although t2 never consumed it.
/// The message is then queued into c1's t3 and consumed there as trailing history.
fn bug_c_script(kind: &StoreKind) -> Script<'_> {
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

#[test]
fn bug_c_backfill_over_tags_a_pending_queued_row() {
    let s = bug_c_script(&CURRENT);
    assert_fails(&s, "fix-ab", Invariant::NoLoss);
    assert_no(&s, "fix-abc", Invariant::NoLoss);
    // fix-abc still carries bug D on the same interleaving (m2 is consumed later).
    assert_fails(&s, "fix-abc", Invariant::NoDuplicate);
    assert_passes(&s, "current");
}

/// Bug D: c0's queued message is consumed as a `[USER INTERRUPT]` inside t1's tool result;
/// the bubble, stripped to a plain untagged row, survives t1's reconcile.
fn bug_d_script(kind: &StoreKind) -> Script<'_> {
    let mut s = Script::new(scripted_config(), kind);
    s.deliver_all(0).deliver_all(1);
    s.send(1).post(1).deliver_all(0); // t1 by c1; c0 believes running
    s.send(0).post(0); // queued at the backend
    s.tool_call().tool_result(true); // message-consumed m2, folded into the result
    s.delta().finish_turn();
    s.deliver_all(0).fetch(0);
    s
}

#[test]
fn bug_d_consumed_interrupt_bubble_lingers() {
    let s = bug_d_script(&CURRENT);
    assert_fails(&s, "fix-abc", Invariant::NoDuplicate);
    assert_fails(&s, "fix-ab", Invariant::NoDuplicate);
    assert_no(&s, "current", Invariant::NoDuplicate);
    assert_passes(&s, "current");
    assert_passes(&s, "membership");
}

#[test]
fn canary_is_caught_on_every_bug_interleaving_and_most_seeds() {
    let kind = CURRENT;
    for s in [
        bug_a_script(&kind),
        bug_b_script(&kind),
        bug_c_script(&kind),
        bug_d_script(&kind),
    ] {
        let report = s.judge(&store("canary"));
        assert!(
            matches!(report.outcome, Outcome::Fail(_)),
            "canary passed a bug interleaving"
        );
    }
    let canary = store("canary");
    let caught = (0..200)
        .filter(|&seed| reconcile_sim::runner::run_seed(&canary, seed).outcome != Outcome::Pass)
        .count();
    assert!(caught >= 190, "canary caught on only {caught}/200 seeds");
}
