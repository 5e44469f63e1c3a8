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
            crate::trace::class::name_or_invariant(f.class.as_ref(), f.invariant),
            f.seed.unwrap_or_default(),
            crate::trace::assume::describe(&f.needs),
            crate::campaign::findings::replay_command_for(&f.store, &f.path)
        ));
        if let Some(top) = f.localized.as_ref().and_then(|l| l.top()) {
            text.push_str(&format!(
                "\n  suspected line: {}  {:.3}  {}",
                top.at(),
                top.score,
                top.text
            ));
        }
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use quick_junit::{NonSuccessKind, Report, TestCaseStatus, TestSuite};

    use super::*;
    use crate::campaign::check::tests::{a_report, a_suspect, found};
    use crate::campaign::check::{BatchClass, Found, ScenarioVerdict};
    use crate::campaign::recheck::SuspectKind;
    use crate::oracle::Invariant;
    use crate::trace::class::{Class, Effect, Subject};

    fn class(effect: Effect) -> Class {
        Class {
            effect,
            subject: Subject::Any,
            trigger: None,
        }
    }

    fn lingers() -> Class {
        class(Effect::Lingers)
    }

    fn ends_wrong() -> Class {
        class(Effect::EndsWrong)
    }

    fn batch_class(c: Class, seeds: u64, first_seed: u64, known: bool) -> BatchClass {
        BatchClass {
            name: c.to_string(),
            class: c,
            seeds,
            first_seed,
            known,
            cause: None,
        }
    }

    /// A batch of `store` whose failing seeds are its classes' (all under `converges`).
    fn batch(store: &str, seed_start: u64, seeds: u64, classes: Vec<BatchClass>) -> FuzzBatch {
        let failing: u64 = classes.iter().map(|c| c.seeds).sum();
        let first = classes.iter().map(|c| c.first_seed).min();
        FuzzBatch {
            store: store.into(),
            seed_start,
            seeds,
            failing: first
                .map(|_| BTreeMap::from([(Invariant::Converges, failing)]))
                .unwrap_or_default(),
            first_failing_seed: first
                .map(|s| BTreeMap::from([(Invariant::Converges, s)]))
                .unwrap_or_default(),
            classes,
        }
    }

    fn threw(message: &str, stderr_tail: &str) -> CrashCause {
        CrashCause::StoreThrew {
            message: message.into(),
            stderr_tail: stderr_tail.into(),
        }
    }

    fn result(
        store: &str,
        requirement: Requirement,
        expect: Option<Invariant>,
        got: Option<(Invariant, Option<Class>)>,
        verdict: ScenarioVerdict,
    ) -> ScenarioResult {
        ScenarioResult {
            path: PathBuf::from("scenarios/s.json"),
            store: store.into(),
            requirement,
            expect,
            got: got.as_ref().map(|g| g.0),
            class: got.and_then(|g| g.1),
            cause: None,
            skipped: 0,
            verdict,
            ok: verdict.ok(),
            replay: "reconcile-sim replay scenarios/s.json".into(),
        }
    }

    fn report(
        scenarios: Vec<ScenarioResult>,
        batches: Vec<FuzzBatch>,
        found: Vec<Found>,
        determinism_seeds: u64,
        suspects: Vec<Suspect>,
    ) -> CheckReport {
        CheckReport {
            scenarios,
            ..a_report(batches, found, determinism_seeds, suspects)
        }
    }

    /// A testcase's name, class name, and (when it did not pass) message and description.
    type Case = (String, Option<String>, Option<(String, String)>);

    fn cases(suite: &TestSuite) -> Vec<Case> {
        suite
            .test_cases
            .iter()
            .map(|tc| {
                let failure = match &tc.status {
                    TestCaseStatus::Success { .. } => None,
                    TestCaseStatus::NonSuccess {
                        kind,
                        message,
                        description,
                        ..
                    } => {
                        assert_eq!(*kind, NonSuccessKind::Failure, "{:?}", tc.name);
                        Some((
                            message
                                .as_ref()
                                .map(|m| m.as_str().to_string())
                                .unwrap_or_default(),
                            description
                                .as_ref()
                                .map(|d| d.as_str().to_string())
                                .unwrap_or_default(),
                        ))
                    }
                    TestCaseStatus::Skipped { .. } => panic!("skipped: {:?}", tc.name),
                };
                (
                    tc.name.as_str().to_string(),
                    tc.classname.as_ref().map(|c| c.as_str().to_string()),
                    failure,
                )
            })
            .collect()
    }

    /// A batch's line says each new class with its seeds and first seed ("NEW" when the
    /// batch also showed known classes, which it counts), or, for failing seeds with no
    /// class, how many; a batch with nothing to say says nothing.
    #[test]
    fn a_batch_s_message_names_its_new_classes_and_counts_its_known_ones() {
        let (l, e) = (lingers(), ends_wrong());
        let only_new = batch(
            "current",
            0,
            1000,
            vec![batch_class(l.clone(), 12, 3, false)],
        );
        assert_eq!(
            batch_parts(&only_new),
            vec![format!("class {l} on 12 seeds (first 3)")]
        );
        assert_eq!(
            batch_message(&only_new),
            format!("class {l} on 12 seeds (first 3)")
        );
        let mixed = batch(
            "current",
            0,
            1000,
            vec![
                batch_class(e.clone(), 5, 2, true),
                batch_class(l.clone(), 1, 7, false),
            ],
        );
        assert_eq!(
            mixed.new_classes().map(|c| &c.class).collect::<Vec<_>>(),
            vec![&l]
        );
        assert_eq!(
            batch_parts(&mixed),
            vec![
                format!("NEW class {l} on 1 seed (first 7)"),
                "1 known class".to_string()
            ]
        );
        assert_eq!(
            batch_message(&mixed),
            format!("NEW class {l} on 1 seed (first 7), 1 known class")
        );
        let known = batch(
            "current",
            0,
            1000,
            vec![
                batch_class(e.clone(), 5, 2, true),
                batch_class(l.clone(), 1, 7, true),
            ],
        );
        assert_eq!(known.new_classes().count(), 0);
        assert_eq!(batch_parts(&known), vec!["2 known classes".to_string()]);
        let mut no_class = batch("exec:x", 0, 1000, Vec::new());
        no_class.failing = BTreeMap::from([(Invariant::Converges, 4), (Invariant::NoLoss, 2)]);
        assert_eq!(
            batch_message(&no_class),
            "6 failing seeds with no class (the store's runs do not repeat)"
        );
        let clean = batch("current", 0, 1000, Vec::new());
        assert_eq!(batch_parts(&clean), Vec::<String>::new());
        assert_eq!(batch_message(&clean), "");
    }

    /// A scenario's line says what it had to do and what it got (the invariant, and its
    /// class when it has one), on which store.
    #[test]
    fn a_scenario_s_message_says_what_it_had_to_do_and_what_it_got() {
        use Requirement::*;
        use ScenarioVerdict::*;
        let (inv, l) = (Invariant::Converges, lingers());
        let msg = |r: ScenarioResult| scenario_message(&r);
        assert_eq!(
            msg(result("naive", ReproduceExpect, Some(inv), None, Failed)),
            format!("on naive expected {inv}, got no violation")
        );
        assert_eq!(
            msg(result(
                "naive",
                ReproduceExpect,
                None,
                Some((inv, None)),
                Failed
            )),
            format!("on naive expected a pass, got {inv}")
        );
        assert_eq!(
            msg(result(
                "current",
                Pass,
                Some(inv),
                Some((inv, Some(l.clone()))),
                Failed
            )),
            format!("current must break nothing, got {inv} ({l})")
        );
        assert_eq!(
            msg(result(
                "current",
                Pass,
                None,
                Some((inv, Some(l.clone()))),
                Known
            )),
            format!("on current: known class, {inv} ({l})")
        );
        assert_eq!(
            msg(result(
                "current",
                KnownFailure,
                Some(inv),
                Some((inv, Some(l.clone()))),
                NewClass
            )),
            format!("on current: NEW class, {inv} ({l})")
        );
        assert_eq!(
            msg(result("durable", KnownFailure, Some(inv), None, Fixed)),
            "on durable: a known failure that no longer fails its way (got no violation): the fix landed, remove it from the baseline"
        );
    }

    /// The JUnit XML of a check: a `scenarios` suite with a testcase per scenario, a suite
    /// per fuzzed store with a testcase per batch (`STORE seeds A..B`), failing exactly
    /// where the check fails, each failure saying why (the crash cause and stderr tail, the
    /// replay command, each new class saved from that batch's seeds and no other's); a
    /// `stability` suite only when a store was looked at again. Names are escaped.
    #[test]
    fn the_junit_xml_has_a_testcase_per_scenario_and_batch_failing_where_the_check_fails() {
        use Requirement::*;
        use ScenarioVerdict::*;
        let (inv, l, e) = (Invariant::Converges, lingers(), ends_wrong());
        let ok = result("naive", ReproduceExpect, Some(inv), Some((inv, None)), Met);
        let mut bad = result("current", Pass, None, Some((inv, Some(l.clone()))), Failed);
        bad.path = PathBuf::from("scenarios/a<b>&\"c\".json");
        bad.cause = Some(threw("boom\n    at store.js:3", "last words\nreally"));
        bad.replay = "reconcile-sim replay 'scenarios/a<b>&\"c\".json' --store current".into();
        let mut crash = batch_class(class(Effect::Crash("threw".into())), 2, 4, false);
        crash.cause = Some(threw("kaput", ""));
        let b1 = batch(
            "current",
            0,
            1000,
            vec![crash.clone(), batch_class(e.clone(), 3, 1, true)],
        );
        let b2 = batch(
            "current",
            1000,
            1000,
            vec![batch_class(l.clone(), 1, 1000, false)],
        );
        let b3 = batch(
            "current",
            2000,
            500,
            vec![batch_class(e.clone(), 3, 2001, true)],
        );
        let n1 = batch("naive", 0, 1000, vec![batch_class(l.clone(), 9, 5, false)]);
        let found = vec![
            found("current", 0, crash.class.clone()),
            found("current", 999, l.clone()),
            found("current", 1000, l.clone()),
            found("naive", 5, l.clone()),
            found("current", 2500, l.clone()),
        ];
        let r = report(
            vec![ok.clone(), bad.clone()],
            vec![b1.clone(), b2.clone(), b3.clone(), n1.clone()],
            found,
            0,
            Vec::new(),
        );

        let scenarios = cases(&scenarios_suite(&r));
        assert_eq!(scenarios.len(), 2);
        assert_eq!(
            scenarios[0],
            (
                "scenarios/s.json".to_string(),
                Some("scenarios.naive".to_string()),
                None
            )
        );
        let (name, classname, failure) = &scenarios[1];
        assert_eq!(name, "scenarios/a<b>&\"c\".json");
        assert_eq!(classname.as_deref(), Some("scenarios.current"));
        let (message, description) = failure.clone().expect("it failed");
        assert_eq!(message, scenario_message(&bad));
        assert_eq!(
            description,
            format!(
                "{message}\n  the store threw: boom\n    at store.js:3\n  stderr tail:\n    | last words\n    | really\nreplay: {}",
                bad.replay
            )
        );

        let current = cases(&fuzz_suite(&r, "current"));
        let names: Vec<&str> = current.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "current seeds 0..1000",
                "current seeds 1000..2000",
                "current seeds 2000..2500"
            ]
        );
        assert!(current
            .iter()
            .all(|c| c.1.as_deref() == Some("fuzz.current")));
        assert_eq!(current[2].2, None, "only known classes: it passes");
        let (m1, d1) = current[0].2.clone().expect("a new class fails it");
        assert_eq!(m1, batch_message(&b1));
        let lines: Vec<&str> = d1.lines().collect();
        assert_eq!(lines[0], m1);
        assert_eq!(lines[1], format!("{} (seed 4):", crash.name));
        assert_eq!(lines[2], "  the store threw: kaput");
        assert_eq!(lines[3], "  stderr: (empty)");
        let saved = |d: &str| -> Vec<String> {
            d.lines()
                .filter(|l| l.starts_with("new class: "))
                .map(str::to_string)
                .collect()
        };
        let line = |c: &Class, store: &str, seed: u64| {
            format!(
                "new class: {c} (seed {seed}; needs: none of the optional world features): {}",
                crate::campaign::findings::replay_command_for(
                    store,
                    &PathBuf::from(format!("out/{store}-seed{seed}.json"))
                )
            )
        };
        assert_eq!(
            saved(&d1),
            vec![line(&crash.class, "current", 0), line(&l, "current", 999)]
        );
        assert_eq!(lines.len(), 6, "{d1}");
        let (m2, d2) = current[1].2.clone().expect("a new class fails it");
        assert_eq!(m2, batch_message(&b2));
        assert_eq!(d2, format!("{m2}\n{}", line(&l, "current", 1000)));
        let naive = cases(&fuzz_suite(&r, "naive"));
        assert_eq!(naive.len(), 1);
        assert_eq!(naive[0].0, "naive seeds 0..1000");
        assert_eq!(naive[0].1.as_deref(), Some("fuzz.naive"));
        let (m, d) = naive[0].2.clone().unwrap();
        assert_eq!(d, format!("{m}\n{}", line(&l, "naive", 5)));
        assert!(stability_suite(&r).is_none(), "no second look");

        // The bytes: parsed back, the same suites and testcases, in order.
        let xml = junit_xml(&r);
        assert!(xml.starts_with("<?xml"), "{xml}");
        assert!(!xml.contains("<b>"), "names are escaped: {xml}");
        let parsed = Report::deserialize_from_str(&xml).unwrap();
        assert_eq!(
            parsed.name.as_ref().map(|n| n.as_str()),
            Some("reconcile-sim check")
        );
        let suites: Vec<(String, usize, usize)> = parsed
            .test_suites
            .iter()
            .map(|s| (s.name.as_str().to_string(), s.tests, s.failures))
            .collect();
        assert_eq!(
            suites,
            vec![
                ("scenarios".to_string(), 2, 1),
                ("fuzz current".to_string(), 3, 2),
                ("fuzz naive".to_string(), 1, 1),
            ]
        );
        assert_eq!(cases(&parsed.test_suites[0]), scenarios);
        assert_eq!(cases(&parsed.test_suites[1]), current);
        assert_eq!(cases(&parsed.test_suites[2]), naive);
        assert_eq!(xml, junit_xml(&r), "deterministic");
    }

    /// The `stability` suite: a testcase per store with a suspect, failing with its
    /// suspects' kinds, and, when the determinism check ran, per fuzzed store too (passing
    /// when nothing was found); no suite when no store was looked at again.
    #[test]
    fn the_stability_suite_fails_each_store_with_a_suspect_and_passes_the_others() {
        let e = ends_wrong();
        let batches = vec![
            batch("current", 0, 1000, vec![batch_class(e.clone(), 1, 1, true)]),
            batch("naive", 0, 1000, Vec::new()),
        ];
        let title = |store: &str| {
            format!("{store} answers by its inputs alone (replayed failures, repeated seeds, fresh processes)")
        };
        let none = report(Vec::new(), batches.clone(), Vec::new(), 0, Vec::new());
        assert!(stability_suite(&none).is_none());
        let xml = junit_xml(&none);
        assert!(!xml.contains("stability"), "{xml}");

        let looked = report(Vec::new(), batches.clone(), Vec::new(), 4, Vec::new());
        let suite = stability_suite(&looked).expect("the determinism check ran");
        assert_eq!(suite.name.as_str(), "stability");
        assert_eq!(
            cases(&suite),
            vec![
                (title("current"), Some("stability.current".into()), None),
                (title("naive"), Some("stability.naive".into()), None),
            ]
        );

        let suspects = vec![
            a_suspect("naive", 2, SuspectKind::StateLeak),
            a_suspect("exec:x", 7, SuspectKind::Flaky),
            a_suspect("naive", 3, SuspectKind::StateLeak),
        ];
        for determinism_seeds in [0, 4] {
            let r = report(
                Vec::new(),
                batches.clone(),
                Vec::new(),
                determinism_seeds,
                suspects.clone(),
            );
            let got = cases(&stability_suite(&r).expect("suspects"));
            let naive_failure = Some((
                "naive: state-leak".to_string(),
                crate::campaign::pipeline::text::format_suspects(&[
                    suspects[0].clone(),
                    suspects[2].clone(),
                ]),
            ));
            let exec_failure = Some((
                "exec:x: flaky".to_string(),
                crate::campaign::pipeline::text::format_suspects(&[suspects[1].clone()]),
            ));
            let mut want = Vec::new();
            if determinism_seeds > 0 {
                want.push((title("current"), Some("stability.current".into()), None));
            }
            want.push((
                title("exec:x"),
                Some("stability.exec:x".into()),
                exec_failure,
            ));
            want.push((
                title("naive"),
                Some("stability.naive".into()),
                naive_failure,
            ));
            assert_eq!(got, want, "determinism seeds {determinism_seeds}");
            let parsed = Report::deserialize_from_str(&junit_xml(&r)).unwrap();
            let last = parsed.test_suites.last().unwrap();
            assert_eq!(last.name.as_str(), "stability");
            // The XML's text ends at the last line's end (the reader trims the newline).
            let trimmed: Vec<Case> = want
                .into_iter()
                .map(|(n, c, f)| (n, c, f.map(|(m, d)| (m, d.trim_end().to_string()))))
                .collect();
            assert_eq!(cases(last), trimmed);
        }
    }
}
