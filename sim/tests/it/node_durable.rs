//! The JavaScript `durable` (`adapters/node/durable.js`) against the Rust one
//! (`sim/src/store/durable.rs`), and three deliberately buggy stores built on it
//! (`sim/tests/buggy/store.js`), each caught through `exec:` and shrunk to a short scenario.
//!
//! These tests need Node.js (`node` on PATH, ≥ 18). Without it they FAIL, on purpose, as
//! `exec.rs`'s do.

use std::time::Duration;

use crate::support::{repo, require_node};
use reconcile_sim::campaign::fuzz::run_one;
use reconcile_sim::oracle::Invariant;
use reconcile_sim::run::strategy::StrategySpec;
use reconcile_sim::run::Outcome;
use reconcile_sim::store::by_name;
use reconcile_sim::store::exec::ExecFactory;
use reconcile_sim::testing::differential::{lockstep_replay, lockstep_seed, Agreement};
use reconcile_sim::trace::shrink::{shrink, Limits};

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

/// Seeds the Node `durable` is compared on (as many as `current` and `membership` get).
const SEEDS: u64 = 2000;

#[test]
fn node_durable_agrees_with_rust_durable_on_every_step() {
    let (reference, candidate) = (by_name("durable").expect("shipped"), node_durable());
    let started = std::time::Instant::now();
    let mut total = Agreement::default();
    for seed in 0..SEEDS {
        match lockstep_seed(&reference, &candidate, seed) {
            Ok(a) => {
                total.steps += a.steps;
                total.inputs += a.inputs;
            }
            Err(d) => panic!("seed {seed}: {d}"),
        }
    }
    assert!(
        total.inputs > total.steps / 2,
        "the stores were barely used"
    );
    eprintln!(
        "differential durable: {SEEDS} seeds, {} steps, {} store inputs, identical effects and renders ({:.1?})",
        total.steps,
        total.inputs,
        started.elapsed()
    );
}

/// Every committed scenario under `scenarios/` (recursively), replayed on `durable`:
/// Rust and Node agree after every step. (Each names the store it was found on; its steps
/// are replayed here on `durable`, skipping those not enabled.)
#[test]
fn every_committed_scenario_agrees_between_rust_and_node_durable() {
    let files = reconcile_sim::campaign::check::scenario_files(&repo().join("scenarios")).unwrap();
    assert!(files.len() >= 4, "the bug scenarios are committed");
    let (reference, candidate) = (by_name("durable").expect("shipped"), node_durable());
    for path in &files {
        let scenario = reconcile_sim::trace::scenario::load(path).unwrap();
        if let Err(d) = lockstep_replay(
            &reference,
            &candidate,
            scenario.config.clone(),
            &scenario.steps(),
        ) {
            panic!("scenario {}: {d}", path.display());
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

#[test]
fn buggy_text_match_loses_a_message_and_shrinks() {
    assert_caught_and_shrunk("text-match", Invariant::NoLoss);
}

#[test]
fn buggy_substring_match_loses_a_message_and_shrinks() {
    assert_caught_and_shrunk("substring-match", Invariant::NoLoss);
}
