//! The check as JUnit XML, and the one-line messages its text and XML share.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::batches::FuzzBatch;
use super::report::CheckReport;
use super::scenarios::Requirement;
use super::scenarios::ScenarioResult;
use super::scenarios::ScenarioVerdict;
use crate::campaign::recheck::Suspect;
use crate::model::store::CrashCause;

/// The report as JUnit XML: a suite of scenarios and a suite per fuzzed store, one
/// testcase per scenario and per batch. No timestamps, so the bytes are deterministic.
pub fn junit_xml(report: &CheckReport) -> String {
    let mut junit = Report::new("reconcile-sim check");
    junit.add_test_suite(scenarios_suite(report));
    let mut stores: Vec<&str> = report.batches.iter().map(|b| b.store.as_str()).collect();
    stores.dedup();
    for store in stores {
        junit.add_test_suite(fuzz_suite(report, store));
    }
    if let Some(suite) = stability_suite(report) {
        junit.add_test_suite(suite);
    }
    junit.to_string().expect("JUnit XML serialises")
}

/// One testcase per scenario replayed; a failure says what was expected and got, the
/// crash cause if any, and the replay command.
pub(super) fn scenarios_suite(report: &CheckReport) -> TestSuite {
    let mut suite = TestSuite::new("scenarios");
    for s in &report.scenarios {
        let name = s.path.display().to_string();
        let status = if s.ok {
            TestCaseStatus::success()
        } else {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            st.set_message(scenario_message(s));
            let mut text = scenario_message(s);
            push_cause(&mut text, s.cause.as_ref());
            text.push_str(&format!("\nreplay: {}", s.replay));
            st.set_description(text);
            st
        };
        let mut tc = TestCase::new(name, status);
        tc.set_classname(format!("scenarios.{}", s.store));
        suite.add_test_case(tc);
    }
    suite
}

/// One testcase per batch fuzzed on `store`.
pub(super) fn fuzz_suite(report: &CheckReport, store: &str) -> TestSuite {
    let mut suite = TestSuite::new(format!("fuzz {store}"));
    for b in report.batches.iter().filter(|b| b.store == store) {
        let name = format!("{store} seeds {}..{}", b.seed_start, b.seed_start + b.seeds);
        let status = if b.ok() {
            TestCaseStatus::success()
        } else {
            batch_failure(report, b)
        };
        let mut tc = TestCase::new(name, status);
        tc.set_classname(format!("fuzz.{store}"));
        suite.add_test_case(tc);
    }
    suite
}

/// A failing batch's testcase status: its new classes, the cause of each new crash
/// class, and the replay command of each new class saved from the batch's seeds.
pub(super) fn batch_failure(report: &CheckReport, b: &FuzzBatch) -> TestCaseStatus {
    let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
    st.set_message(batch_message(b));
    let mut text = batch_message(b);
    for c in b.new_classes().filter(|c| c.cause.is_some()) {
        text.push_str(&format!("\n{} (seed {}):", c.name, c.first_seed));
        push_cause(&mut text, c.cause.as_ref());
    }
    for f in report.found.iter().filter(|f| {
        f.store == b.store
            && f.seed
                .is_some_and(|s| s >= b.seed_start && s < b.seed_start + b.seeds)
    }) {
        text.push_str(&format!(
            "\nnew class: {} (seed {}; {}): {}",
            f.class
                .as_ref()
                .map_or(f.invariant.to_string(), |c| c.to_string()),
            f.seed.unwrap_or_default(),
            crate::trace::assume::describe(&f.needs),
            crate::campaign::findings::replay_command_for(&f.store, &f.path)
        ));
    }
    st.set_description(text);
    st
}

/// One testcase per store a second look judged (a store with a suspect, or every fuzzed
/// store when the determinism check ran): it fails with the suspects found. `None` when no
/// store was looked at again.
pub(super) fn stability_suite(report: &CheckReport) -> Option<TestSuite> {
    let mut suspects_by_store: Vec<&str> =
        report.suspects.iter().map(|s| s.store.as_str()).collect();
    if report.determinism_seeds > 0 {
        suspects_by_store.extend(report.batches.iter().map(|b| b.store.as_str()));
    }
    suspects_by_store.sort();
    suspects_by_store.dedup();
    if suspects_by_store.is_empty() {
        return None;
    }
    let mut suite = TestSuite::new("stability");
    for store in suspects_by_store {
        let mine: Vec<&Suspect> = report
            .suspects
            .iter()
            .filter(|s| s.store == store)
            .collect();
        let status = if mine.is_empty() {
            TestCaseStatus::success()
        } else {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let mut kinds: Vec<String> = mine.iter().map(|s| s.kind.to_string()).collect();
            kinds.dedup();
            st.set_message(format!("{store}: {}", kinds.join(", ")));
            st.set_description(crate::campaign::pipeline::text::format_suspects(
                &mine.into_iter().cloned().collect::<Vec<_>>(),
            ));
            st
        };
        let mut tc = TestCase::new(
            format!("{store} answers by its inputs alone (replayed failures, repeated seeds, fresh processes)"),
            status,
        );
        tc.set_classname(format!("stability.{store}"));
        suite.add_test_case(tc);
    }
    Some(suite)
}

/// A crash's cause and stderr tail, one line each, after `text`.
pub(super) fn push_cause(text: &mut String, cause: Option<&CrashCause>) {
    for line in cause.map(CrashCause::lines).unwrap_or_default() {
        text.push_str("\n  ");
        text.push_str(&line);
    }
}

/// One line about a scenario's result.
pub fn scenario_message(s: &ScenarioResult) -> String {
    let got = match (s.got, &s.class) {
        (None, _) => "no violation".to_string(),
        (Some(g), Some(c)) => format!("{g} ({c})"),
        (Some(g), None) => g.to_string(),
    };
    match (s.requirement, s.verdict) {
        (_, ScenarioVerdict::Known) => format!("on {}: known class, {got}", s.store),
        (_, ScenarioVerdict::Fixed) => format!(
            "on {}: a known failure that no longer fails its way (got {got}): the fix landed, remove it from the baseline",
            s.store
        ),
        (_, ScenarioVerdict::NewClass) => format!("on {}: NEW class, {got}", s.store),
        (Requirement::ReproduceExpect, _) => match s.expect {
            Some(e) => format!("on {} expected {e}, got {got}", s.store),
            None => format!("on {} expected a pass, got {got}", s.store),
        },
        (_, _) => format!("{} must break nothing, got {got}", s.store),
    }
}

/// One line about a batch's failures: its new classes (`NEW class …, 12 seeds (first 3)`)
/// and how many known ones it showed ([`batch_parts`], joined).
pub fn batch_message(b: &FuzzBatch) -> String {
    batch_parts(b).join(", ")
}

/// What [`batch_message`] says, a part per class: the text report prints a line each.
pub fn batch_parts(b: &FuzzBatch) -> Vec<String> {
    let label = if b.classes.iter().any(|c| c.known) {
        "NEW class"
    } else {
        "class"
    };
    let mut parts: Vec<String> = b
        .new_classes()
        .map(|c| {
            format!(
                "{label} {} on {} seed{} (first {})",
                c.name,
                c.seeds,
                if c.seeds == 1 { "" } else { "s" },
                c.first_seed
            )
        })
        .collect();
    let known = b.classes.iter().filter(|c| c.known).count();
    if known > 0 {
        parts.push(format!(
            "{known} known class{}",
            if known == 1 { "" } else { "es" }
        ));
    }
    if b.classes.is_empty() && !b.failing.is_empty() {
        parts.push(format!(
            "{} failing seeds with no class (the store's runs do not repeat)",
            b.failing.values().sum::<u64>()
        ));
    }
    parts
}
