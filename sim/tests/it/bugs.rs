//! The design note's bugs A–D as hand-built interleavings, each asserted in both
//! directions: the store before the fix violates the invariant the note names, the store
//! with the fix does not (and `current` passes the whole interleaving, drain included,
//! wherever the note says it should).

use reconcile_sim::oracle::Invariant;
use reconcile_sim::run::{Outcome, RunReport};
use reconcile_sim::store::{by_name, StoreKind};
use reconcile_sim::testing::bugs::{bug_a_script, bug_b_script, bug_c_script, bug_d_script};
use reconcile_sim::testing::script::Script;

const CURRENT: StoreKind = reconcile_sim::store::note::current::KIND;

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

#[test]
fn bug_a_naive_wipes_the_newer_streaming_turn() {
    let s = bug_a_script(&CURRENT);
    assert_fails(&s, "naive", Invariant::NewerTurnPreserved);
    assert_no(&s, "fix-a", Invariant::NewerTurnPreserved);
    assert_passes(&s, "fix-a");
    assert_passes(&s, "current");
    assert_passes(&s, "membership");
}

#[test]
fn bug_b_fix_a_drops_the_optimistic_queued_bubble() {
    let s = bug_b_script(&CURRENT);
    assert_fails(&s, "naive", Invariant::NoLoss);
    assert_fails(&s, "fix-a", Invariant::NoLoss);
    assert_no(&s, "fix-ab", Invariant::NoLoss);
    assert_passes(&s, "fix-ab");
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
        .filter(|&seed| reconcile_sim::run::run_seed(&canary, seed).outcome != Outcome::Pass)
        .count();
    assert!(caught >= 190, "canary caught on only {caught}/200 seeds");
}
