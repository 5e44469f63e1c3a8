//! The JavaScript `durable` (`adapters/node/durable.js`) against the Rust one
//! (`sim/src/store/durable/mod.rs`), in each render policy (`durable`, `durable-arrival`,
//! `durable-db-order`), and deliberately buggy stores built on it
//! (`sim/tests/buggy/store.js`): four caught through `exec:` by fuzzing and shrunk to a
//! short scenario, one (the old row ids) shown on its committed scenario.
//!
//! These tests need Node.js (`node` on PATH, ≥ 18). Without it they FAIL, on purpose, as
//! `exec.rs`'s do.

use std::time::Duration;

use crate::support::{repo, require_node};
use reconcile_sim::campaign::fuzz::run_one;
use reconcile_sim::exec::ExecFactory;
use reconcile_sim::oracle::Invariant;
use reconcile_sim::run::strategy::StrategySpec;
use reconcile_sim::run::{replay, Outcome};
use reconcile_sim::store::by_name;
use reconcile_sim::testing::differential::{lockstep_replay, lockstep_seed, Agreement};
use reconcile_sim::trace::shrink::{check_one_minimal, shrink, Limits};

/// `exec:node <repo>/<script> <variant>`, with a timeout generous enough for a loaded machine.
fn node(script: &str, variant: &str) -> ExecFactory {
    require_node();
    let spec = format!(
        "exec:node {} {variant}",
        shell_words::quote(&repo().join(script).to_string_lossy())
    );
    ExecFactory::from_spec(&spec)
        .expect("valid spec")
        .with_timeout(Duration::from_secs(60))
}

/// The Node `durable`: `node adapters/node/store.js durable`.
fn node_durable() -> ExecFactory {
    node("adapters/node/store.js", "durable")
}

// --- differential ----------------------------------------------------------------------

/// Seeds the Node `durable` is compared on (as many as `current` and `membership` get in
/// `exec.rs`; CI compares on 5 000 more with `scripts/check-node-differential.sh`).
const SEEDS: u64 = 400;

/// Lockstep the Node store `variant` (`node adapters/node/store.js VARIANT`) against the
/// Rust store of the same name on [`SEEDS`] seeds: identical effects and renders after
/// every step.
fn assert_node_agrees_with_rust(variant: &str) {
    let (reference, candidate) = (
        by_name(variant).expect("shipped"),
        node("adapters/node/store.js", variant),
    );
    let started = std::time::Instant::now();
    let mut total = Agreement::default();
    for seed in 0..SEEDS {
        match lockstep_seed(&reference, &candidate, seed) {
            Ok(a) => {
                total.steps += a.steps;
                total.inputs += a.inputs;
            }
            Err(d) => panic!("{variant}, seed {seed}: {d}"),
        }
    }
    assert!(
        total.inputs > total.steps / 2,
        "the stores were barely used"
    );
    eprintln!(
        "differential {variant}: {SEEDS} seeds, {} steps, {} store inputs, identical effects and renders ({:.1?})",
        total.steps,
        total.inputs,
        started.elapsed()
    );
}

#[test]
fn node_durable_agrees_with_rust_durable_on_every_step() {
    assert_node_agrees_with_rust("durable");
}

/// The render policies (`RenderPolicy` in durable.rs, rule 7 in durable.js): the Node
/// `durable-arrival` and `durable-db-order` are their Rust twins step for step.
#[test]
fn node_durable_arrival_agrees_with_rust_on_every_step() {
    assert_node_agrees_with_rust("durable-arrival");
}

#[test]
fn node_durable_db_order_agrees_with_rust_on_every_step() {
    assert_node_agrees_with_rust("durable-db-order");
}

/// The policies are really different renderings: each Node variant differs from the Rust
/// `durable` (in place) on some seed, in a render (the effects are the same: only where
/// live rows go differs), so the agreement above is not the in-place store's.
#[test]
fn each_node_render_policy_differs_from_in_place_durable_on_some_seed() {
    let reference = by_name("durable").expect("shipped");
    for variant in ["durable-arrival", "durable-db-order"] {
        let candidate = node("adapters/node/store.js", variant);
        let d = (0..SEEDS)
            .find_map(|seed| lockstep_seed(&reference, &candidate, seed).err())
            .unwrap_or_else(|| panic!("{variant} renders as durable on {SEEDS} seeds"));
        assert!(d.to_string().contains("differ"), "{variant}: {d}");
    }
}

/// Every committed scenario under `scenarios/` (recursively), replayed on `durable` and its
/// two other render policies: Rust and Node agree after every step. (Each names the store
/// it was found on; its steps are replayed here on each, skipping those not enabled.)
#[test]
fn every_committed_scenario_agrees_between_rust_and_node_durable() {
    let files = reconcile_sim::campaign::check::scenario_files(&repo().join("scenarios")).unwrap();
    assert!(files.len() >= 4, "the bug scenarios are committed");
    for variant in ["durable", "durable-arrival", "durable-db-order"] {
        let (reference, candidate) = (
            by_name(variant).expect("shipped"),
            node("adapters/node/store.js", variant),
        );
        for path in &files {
            let scenario = reconcile_sim::trace::scenario::load(path).unwrap();
            if let Err(d) = lockstep_replay(
                &reference,
                &candidate,
                scenario.config.clone(),
                &scenario.steps(),
            ) {
                panic!("{variant}, scenario {}: {d}", path.display());
            }
        }
    }
}

/// The comparison can fail: the Node `current` is not the Rust `durable`.
#[test]
fn the_durable_differential_catches_a_different_store() {
    let reference = by_name("durable").expect("shipped");
    let candidate = node("adapters/node/store.js", "current");
    let d = (0..200)
        .find_map(|seed| lockstep_seed(&reference, &candidate, seed).err())
        .expect("durable and current differ on some seed");
    assert!(d.to_string().contains("differ"), "{d}");
}

// --- buggy stores ----------------------------------------------------------------------

/// The seeds `check` fuzzes by default: a buggy store must fail within them.
const SEEDS_MAX: u64 = 10_000;

/// The longest shrunk scenario a buggy store may leave.
const SHRUNK_MAX: usize = 20;

/// Run seeds of `sim/tests/buggy/store.js VARIANT` until the first failure; it must break
/// `expected` and shrink to at most [`SHRUNK_MAX`] steps that still break it.
fn assert_caught_and_shrunk(variant: &str, expected: Invariant) {
    let store = node("sim/tests/buggy/store.js", variant);
    let started = std::time::Instant::now();
    let (seed, report) = (0..SEEDS_MAX)
        .map(|seed| (seed, run_one(&store, StrategySpec::Random, seed)))
        .find(|(_, r)| r.outcome != Outcome::Pass)
        .unwrap_or_else(|| panic!("{variant}: no failure in {SEEDS_MAX} seeds"));
    let Outcome::Fail(v) = &report.outcome else {
        unreachable!("not a pass")
    };
    assert_eq!(v.invariant, expected, "{variant}, seed {seed}: {v}");
    let shrunk = shrink(
        &store,
        report.config.clone(),
        &report.steps,
        Some(expected),
        Limits::default(),
    )
    .unwrap_or_else(|e| panic!("{variant}, seed {seed}: {e}"));
    assert!(
        shrunk.steps.len() <= SHRUNK_MAX,
        "{variant}, seed {seed}: shrunk to {} steps (from {}), more than {SHRUNK_MAX}",
        shrunk.steps.len(),
        shrunk.original_steps
    );
    eprintln!(
        "buggy {variant}: {expected} at seed {seed}, shrunk {} -> {} steps ({:.1?})",
        shrunk.original_steps,
        shrunk.steps.len(),
        started.elapsed()
    );
}

#[test]
fn buggy_live_order_breaks_the_render_shape_and_shrinks() {
    assert_caught_and_shrunk("live-order", Invariant::RenderShape);
}

/// A run of deltas split with no user row between (a `status` event ends the segment):
/// no render policy does that, so inv5 still rejects it.
#[test]
fn buggy_status_split_breaks_the_render_shape_and_shrinks() {
    assert_caught_and_shrunk("status-split", Invariant::RenderShape);
}

#[test]
fn buggy_text_match_loses_a_message_and_shrinks() {
    assert_caught_and_shrunk("text-match", Invariant::NoLoss);
}

#[test]
fn buggy_substring_match_loses_a_message_and_shrinks() {
    assert_caught_and_shrunk("substring-match", Invariant::NoLoss);
}

/// `durable`'s old assistant row ids (`a-t<T>-<current row count>`, reused once a snapshot
/// lowered the count): the committed scenario breaks inv5 on the Node store with the old
/// numbering, needs each of its steps for that, and passes on the fixed Node store. (The
/// Rust side, old and new, is tested in `sim/src/store/durable/mod.rs`.)
#[test]
fn buggy_row_count_ids_breaks_the_render_shape_on_the_committed_scenario_only() {
    let path = repo().join("scenarios/found/durable-row-ids-seed41621.json");
    let sc = reconcile_sim::trace::scenario::load(&path).unwrap();
    assert_eq!((sc.store.as_str(), sc.expect), ("durable", None));
    let steps = sc.steps();

    let old = node("sim/tests/buggy/store.js", "row-count-ids");
    let report = replay(&old, sc.config.clone(), &steps);
    assert!(report.skipped.is_empty(), "every step is enabled");
    assert_eq!(report.outcome.invariant(), Some(Invariant::RenderShape));
    assert_eq!(
        check_one_minimal(&old, &sc.config, &steps, Invariant::RenderShape),
        Ok(()),
        "every step is needed for the old numbering to break inv5"
    );

    let report = replay(&node_durable(), sc.config.clone(), &steps);
    assert!(report.skipped.is_empty(), "every step is enabled");
    assert_eq!(report.outcome, Outcome::Pass);
}
