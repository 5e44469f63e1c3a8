//! Laws of the harness itself, checked with proptest over generated worlds and schedules:
//! a scenario survives a JSON round trip unchanged; replaying a recorded trace reproduces
//! the run step for step; the shrinker's output fails with the same signature and is
//! 1-minimal.
#![cfg(feature = "proptest")]

use proptest::prelude::*;
use reconcile_sim::run::replay;
use reconcile_sim::store::{StoreKind, STORES};
use reconcile_sim::testing::schedule::strategies::{fixed_seed, scenarios, schedules};
use reconcile_sim::trace::scenario;
use reconcile_sim::trace::shrink::{check_one_minimal, shrink, Limits};

fn store() -> impl Strategy<Value = StoreKind> {
    proptest::sample::select(STORES.to_vec())
}

proptest! {
    #![proptest_config(fixed_seed(128))]

    #[test]
    fn a_scenario_survives_a_json_round_trip_unchanged(s in scenarios()) {
        let text = s.to_json();
        let back = scenario::parse(std::path::Path::new("law.json"), &text)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&back, &s);
        prop_assert_eq!(back.to_json(), text);
    }

    #[test]
    fn replaying_a_recorded_trace_reproduces_the_run_step_for_step(
        s in schedules(120),
        kind in store(),
    ) {
        let run = s.run(&kind);
        let again = replay(&kind, s.config.clone(), &run.steps);
        prop_assert!(again.skipped.is_empty());
        prop_assert_eq!(&again.steps, &run.steps);
        prop_assert_eq!(&again.drain, &run.drain);
        prop_assert_eq!(&again.outcome, &run.outcome);
        // And through a scenario file.
        let recorded = scenario::Scenario::record(&kind, s.config.clone(), &run.steps, run.outcome.invariant());
        let loaded = scenario::parse(std::path::Path::new("law.json"), &recorded.to_json()).unwrap();
        prop_assert_eq!(replay(&kind, loaded.config.clone(), &loaded.steps()).outcome, run.outcome);
    }
}

proptest! {
    #![proptest_config(fixed_seed(32))]

    #[test]
    fn shrunk_failures_keep_their_signature_and_are_one_minimal(
        s in schedules(120),
        kind in store(),
    ) {
        let run = s.run(&kind);
        let Some(inv) = run.outcome.invariant() else {
            return Ok(());
        };
        let shrunk = shrink(&kind, s.config.clone(), &run.steps, Some(inv), Limits::default())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(shrunk.gave_up, None);
        prop_assert!(shrunk.steps.len() <= run.steps.len());
        prop_assert_eq!(
            replay(&kind, shrunk.config.clone(), &shrunk.steps).outcome.invariant(),
            Some(inv)
        );
        prop_assert_eq!(check_one_minimal(&kind, &shrunk.config, &shrunk.steps, inv), Ok(()));
    }
}
