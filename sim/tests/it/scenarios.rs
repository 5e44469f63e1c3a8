//! The committed scenario files: the regression seeds for bugs A–D (both directions, and
//! regenerating them gives the committed bytes), 1-minimality of every committed
//! scenario, the JSON Schema kept in sync, and the bad-input corpus.
//!
//! `RECONCILE_SIM_BLESS=1 cargo test --test it scenarios::` rewrites the generated files
//! (the four seeds, the schema, the expected messages of the bad-input corpus).

use std::path::{Path, PathBuf};

use crate::support::repo;
use reconcile_sim::oracle::Invariant;
use reconcile_sim::run::{replay, Outcome};
use reconcile_sim::store::by_name;
use reconcile_sim::testing::bugs::{regression_scenario, RegressionSeed, REGRESSION_SEEDS};
use reconcile_sim::testing::paths::PATH_SEEDS;

/// The note's bugs, then the backend paths beyond the note.
fn seeds() -> impl Iterator<Item = &'static RegressionSeed> {
    REGRESSION_SEEDS.iter().chain(PATH_SEEDS.iter())
}
use reconcile_sim::trace::class::classify;
use reconcile_sim::trace::scenario::{self, Scenario};
use reconcile_sim::trace::shrink::{check_one_minimal, check_one_minimal_by};

fn bless() -> bool {
    std::env::var_os("RECONCILE_SIM_BLESS").is_some()
}

/// Compare `actual` with the file at `path`, or write it when blessing.
fn assert_file(path: &Path, actual: &str) {
    if bless() {
        reconcile_sim::util::fs::write_atomically(path, actual.as_bytes()).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (RECONCILE_SIM_BLESS=1 writes it)", path.display()));
    assert!(
        committed == actual,
        "{} is out of date; RECONCILE_SIM_BLESS=1 cargo test --test it scenarios:: rewrites it.\n--- committed\n{committed}\n--- generated\n{actual}",
        path.display()
    );
}

/// Every `*.json` under `dir`, recursively, sorted (the library's own walk).
fn json_files(dir: &Path) -> Vec<PathBuf> {
    reconcile_sim::campaign::check::scenario_files(dir).unwrap()
}

fn seed_file(seed: &RegressionSeed) -> PathBuf {
    repo().join("scenarios").join(format!("{}.json", seed.name))
}

#[test]
fn regenerating_the_regression_seeds_gives_the_committed_bytes() {
    for seed in seeds() {
        assert_file(&seed_file(seed), &regression_scenario(seed).to_json());
    }
}

fn outcome(sc: &Scenario, store: &str) -> Outcome {
    replay(&by_name(store).unwrap(), sc.config.clone(), &sc.steps()).outcome
}

/// The committed seed fails on the store before the fix with the note's invariant, and
/// does not on the store after it (nor, where the note says the fix is complete, at all).
fn assert_both_directions(name: &str) {
    let seed = seeds().find(|s| s.name == name).unwrap();
    let sc = scenario::load(&seed_file(seed)).unwrap();
    assert_eq!(sc.store, seed.before);
    assert_eq!(sc.expect, Some(seed.invariant));
    assert_eq!(
        outcome(&sc, seed.before).invariant(),
        Some(seed.invariant),
        "{name} must break {} on {}",
        seed.invariant,
        seed.before
    );
    assert_ne!(
        outcome(&sc, seed.after).invariant(),
        Some(seed.invariant),
        "{name} must not break {} on {}",
        seed.invariant,
        seed.after
    );
    for store in seed.must_pass {
        assert_eq!(
            outcome(&sc, store),
            Outcome::Pass,
            "{name} must pass on {store}"
        );
    }
}

#[test]
fn bug_a_seed_breaks_inv3_on_naive_and_passes_on_fix_a_and_current() {
    assert_both_directions("bug-a");
    let sc = scenario::load(&repo().join("scenarios/bug-a.json")).unwrap();
    assert_eq!(outcome(&sc, "fix-a"), Outcome::Pass);
    assert_eq!(outcome(&sc, "current"), Outcome::Pass);
}

#[test]
fn bug_b_seed_breaks_inv1_on_fix_a_and_passes_on_fix_ab() {
    assert_both_directions("bug-b");
    let sc = scenario::load(&repo().join("scenarios/bug-b.json")).unwrap();
    assert_eq!(outcome(&sc, "naive").invariant(), Some(Invariant::NoLoss));
    assert_eq!(outcome(&sc, "fix-ab"), Outcome::Pass);
}

#[test]
fn bug_c_seed_breaks_inv1_on_fix_ab_and_not_on_fix_abc() {
    assert_both_directions("bug-c");
    let sc = scenario::load(&repo().join("scenarios/bug-c.json")).unwrap();
    for later in ["fix-abc", "current", "membership"] {
        assert_ne!(
            outcome(&sc, later).invariant(),
            Some(Invariant::NoLoss),
            "{later}"
        );
    }
}

#[test]
fn bug_d_seed_breaks_inv2_on_fix_abc_and_passes_on_current() {
    assert_both_directions("bug-d");
    let sc = scenario::load(&repo().join("scenarios/bug-d.json")).unwrap();
    assert_eq!(outcome(&sc, "current"), Outcome::Pass);
}

#[test]
fn continuation_seed_loses_the_message_on_current_and_passes_on_durable() {
    assert_both_directions("paths/continuation");
    let sc = scenario::load(&repo().join("scenarios/paths/continuation.json")).unwrap();
    assert!(sc.config.continuation_drains);
}

#[test]
fn every_committed_scenario_reproduces_its_expectation_and_is_one_minimal() {
    let files = json_files(&repo().join("scenarios"));
    assert!(files.len() >= 4, "{files:?}");
    for path in files {
        let sc = scenario::load(&path).unwrap();
        let store = by_name(&sc.store).unwrap();
        let steps = sc.steps();
        // A class witness replays with its masked classes excused (`Scenario::masked`).
        let report = classify(&store, sc.config.clone(), &steps, &sc.masked).report;
        assert_eq!(report.outcome.invariant(), sc.expect, "{}", path.display());
        assert!(
            report.skipped.is_empty(),
            "{}: skipped steps",
            path.display()
        );
        let seed = seeds().find(|s| path.ends_with(format!("{}.json", s.name)));
        match (seed, sc.expect) {
            // A class witness is 1-minimal for its class: deleting any step loses the
            // class (the same invariant broken another way is another class).
            (None, Some(_)) if sc.class.is_some() => assert_eq!(
                check_one_minimal_by(&steps, |c| {
                    classify(&store, sc.config.clone(), c, &sc.masked).class == sc.class
                }),
                Ok(()),
                "{}: a step can be deleted and the run still shows its class",
                path.display()
            ),
            // A regression seed is 1-minimal for its whole contract: deleting any step
            // loses the violation on the buggy store or breaks the fixed one too.
            (Some(seed), _) => assert_eq!(
                check_one_minimal_by(&steps, |c| seed.demonstrates(&sc.config, c)),
                Ok(()),
                "{}: a step can be deleted and it still tells {} from {}",
                path.display(),
                seed.before,
                seed.after
            ),
            (None, Some(inv)) => assert_eq!(
                check_one_minimal(&store, &sc.config, &steps, inv),
                Ok(()),
                "{}: a step can be deleted and {inv} still breaks",
                path.display()
            ),
            (None, None) => {}
        }
    }
}

#[test]
fn the_checked_in_json_schema_is_generated_from_the_types() {
    assert_file(
        &repo().join("docs/scenario.schema.json"),
        &scenario::json_schema(),
    );
}

#[test]
fn every_committed_scenario_round_trips_byte_for_byte() {
    for path in json_files(&repo().join("scenarios")) {
        let text = std::fs::read_to_string(&path).unwrap();
        let sc = scenario::parse(&path, &text).unwrap();
        assert_eq!(sc.to_json(), text, "{}", path.display());
    }
}

/// Each `sim/tests/bad_input/NAME.json` must fail to load with exactly the message in
/// `NAME.expected` (paths relative to `sim/tests/bad_input`), and nothing may panic.
#[test]
fn every_bad_input_file_gets_its_expected_message() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_input");
    let files = json_files(&dir);
    assert!(files.len() >= 30, "only {} bad files", files.len());
    let mut failures = Vec::new();
    for path in files {
        let rel = path.strip_prefix(&dir).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let result = match String::from_utf8(bytes) {
            Ok(text) => scenario::parse(rel, &text),
            Err(_) => scenario::load(&path).map_err(|mut e| {
                e.path = rel.to_path_buf();
                e
            }),
        };
        let message = match result {
            Ok(_) => format!("{}: loaded without error", rel.display()),
            Err(e) => e.to_string(),
        };
        let expected_path = path.with_extension("expected");
        if bless() {
            std::fs::write(&expected_path, format!("{message}\n")).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path)
            .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
        if expected.trim_end() != message {
            failures.push(format!(
                "{}\n  expected: {}\n  got:      {message}",
                rel.display(),
                expected.trim_end()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
