//! Replaying the committed scenarios: what each must do (its [`Requirement`]), the store
//! it is replayed on, and how it did ([`ScenarioResult`]).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::baseline::Baseline;
use crate::campaign::findings::Failure;
use crate::model::store::{CrashCause, StoreFactory};
use crate::oracle::Invariant;
use crate::trace::class::{classify, Class};
use crate::trace::scenario::Scenario;

/// What a scenario must do in this check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Requirement {
    /// Replayed on the store it names: must break exactly `expect` (or pass if null).
    ReproduceExpect,
    /// Replayed on the store under test: must break nothing, or only with a known class.
    Pass,
    /// A known failure replayed on its store under test: expected to show its class.
    KnownFailure,
}

/// What came of one scenario's replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScenarioVerdict {
    /// It did what it had to.
    Met,
    /// It failed with a class of the known baseline: accepted.
    Known,
    /// A known failure that no longer fails its way: the fix landed; remove the file from
    /// the baseline. Accepted.
    Fixed,
    /// It did not do what it had to (with no store under test: its `expect` or `class`).
    Failed,
    /// It failed on the store under test with a class the baseline does not hold.
    NewClass,
}

impl ScenarioVerdict {
    /// Whether the check accepts it.
    pub fn ok(self) -> bool {
        matches!(
            self,
            ScenarioVerdict::Met | ScenarioVerdict::Known | ScenarioVerdict::Fixed
        )
    }
}

/// A store a scenario case is replayed on: the caller's, or one resolved for it.
pub enum CaseStore<'a> {
    /// A store under test.
    Borrowed(&'a dyn StoreFactory),
    /// The store a scenario names.
    Owned(std::sync::Arc<dyn StoreFactory>),
}

impl CaseStore<'_> {
    fn get(&self) -> &dyn StoreFactory {
        match self {
            CaseStore::Borrowed(s) => *s,
            CaseStore::Owned(s) => s.as_ref(),
        }
    }
}

/// One scenario to replay.
pub struct ScenarioCase<'a> {
    /// Its file.
    pub path: PathBuf,
    /// The scenario.
    pub scenario: Scenario,
    /// The store to replay it on.
    pub store: CaseStore<'a>,
    /// What it must do.
    pub requirement: Requirement,
}

/// How one scenario did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioResult {
    /// The scenario file: the JUnit testcase's name.
    pub path: PathBuf,
    /// The store it was replayed on: the one it names, or the one under test.
    pub store: String,
    /// Whether it had to reproduce its `expect` or break nothing.
    pub requirement: Requirement,
    /// The file's `expect`, kept for the message whatever the requirement.
    pub expect: Option<Invariant>,
    /// The invariant the replay broke, if any.
    pub got: Option<Invariant>,
    /// The root-cause class of what broke, if anything did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<Class>,
    /// For a crash: why the store crashed, with the adapter's stderr tail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<CrashCause>,
    /// Steps skipped because they were not enabled.
    pub skipped: usize,
    /// What came of it.
    pub verdict: ScenarioVerdict,
    /// It met its requirement (or failed only with a known class); one that did not fails
    /// the whole check.
    pub ok: bool,
    /// The command that replays it.
    pub replay: String,
}

/// Replay each case; a failure on a store under test is accepted when its class is in
/// `known` (that store's baseline, by store name).
pub fn replay_scenarios(cases: &[ScenarioCase<'_>], known: &Baseline) -> Vec<ScenarioResult> {
    cases
        .iter()
        // Ctrl-C: the scenarios not replayed yet are left out (the report says so).
        .take_while(|_| !crate::run::interrupt::requested())
        .map(|c| {
            let store = c.store.get();
            let sc = &c.scenario;
            let r = classify(store, sc.config.clone(), &sc.steps(), &sc.masked);
            let got = r.report.outcome.invariant();
            let verdict = match c.requirement {
                Requirement::ReproduceExpect => {
                    let class_ok = sc.class.is_none() || r.class == sc.class;
                    if got == sc.expect && class_ok {
                        ScenarioVerdict::Met
                    } else {
                        ScenarioVerdict::Failed
                    }
                }
                Requirement::Pass => match &r.class {
                    None => ScenarioVerdict::Met,
                    Some(class) if known.holds(&store.name(), class) => ScenarioVerdict::Known,
                    Some(_) if known.covers(&store.name()) => ScenarioVerdict::NewClass,
                    Some(_) => ScenarioVerdict::Failed,
                },
                Requirement::KnownFailure => match (&r.class, &sc.class) {
                    (Some(got), Some(want)) if got == want => ScenarioVerdict::Known,
                    (Some(got), None) if known.holds(&store.name(), got) => ScenarioVerdict::Known,
                    (Some(got), _) if !known.holds(&store.name(), got) => ScenarioVerdict::NewClass,
                    _ => ScenarioVerdict::Fixed,
                },
            };
            let mut replay = crate::campaign::findings::replay_command(&c.path);
            if store.name() != sc.store {
                replay.push_str(&format!(" --store {}", shell_words::quote(&store.name())));
            } else if sc.store.starts_with(crate::exec::SPEC_PREFIX) {
                replay.push_str(" --allow-exec");
            }
            ScenarioResult {
                path: c.path.clone(),
                store: store.name(),
                requirement: c.requirement,
                expect: sc.expect,
                got,
                class: r.class,
                cause: Failure::cause_of(&r.report.outcome),
                skipped: r.report.skipped.len(),
                verdict,
                ok: verdict.ok(),
                replay,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::by_name;
    use crate::testing::repo_scenario;

    /// The verdict of one case, replayed on `store`, with `known` as the baseline.
    fn verdict_of(
        (path, sc): &(PathBuf, Scenario),
        store: &str,
        requirement: Requirement,
        known: &Baseline,
    ) -> ScenarioResult {
        let kind = by_name(store).unwrap();
        let case = ScenarioCase {
            path: path.clone(),
            scenario: sc.clone(),
            store: CaseStore::Borrowed(&kind),
            requirement,
        };
        let mut results = replay_scenarios(&[case], known);
        assert_eq!(results.len(), 1);
        let r = results.remove(0);
        assert_eq!(r.ok, r.verdict.ok(), "{r:?}");
        assert_eq!(r.store, store);
        r
    }

    /// What each scenario must do in a check, and the verdict it gets: a regression seed
    /// on its own store must break exactly its `expect` (and its `class`, when it names
    /// one); on a store under test it must pass, or fail with a class the baseline holds
    /// *for that store* (a new class where the store has a baseline, a plain failure where
    /// it has none); a known failure on its store is known while it shows its class (or a
    /// class the baseline holds), new when it shows another, fixed when it passes. The
    /// replay command names the store only when it is not the file's.
    #[test]
    fn a_scenario_s_verdict_follows_its_requirement_and_the_store_s_baseline() {
        use ScenarioVerdict::*;
        let none = Baseline::default();
        let bug_a = repo_scenario("scenarios/bug-a.json");
        assert_eq!(bug_a.1.store, "naive");
        let r = verdict_of(&bug_a, "naive", Requirement::ReproduceExpect, &none);
        assert_eq!((r.got, r.verdict, r.ok), (bug_a.1.expect, Met, true));
        assert!(r.got.is_some());
        let a_class = r.class.clone().expect("bug A's failure has a class");
        assert_eq!(
            r.replay,
            crate::campaign::findings::replay_command(&bug_a.0)
        );
        // Its own class named: met; another class named: failed.
        let mut named = bug_a.clone();
        named.1.class = Some(a_class.clone());
        let r = verdict_of(&named, "naive", Requirement::ReproduceExpect, &none);
        assert_eq!(r.verdict, Met);
        // On fix-a (which fixes bug A) it must not reproduce, and passes as required.
        let r = verdict_of(&bug_a, "fix-a", Requirement::ReproduceExpect, &none);
        assert_eq!((r.got, r.verdict, r.ok), (None, Failed, false));
        assert!(r.replay.ends_with(" --store fix-a"), "{}", r.replay);
        let r = verdict_of(&bug_a, "fix-a", Requirement::Pass, &none);
        assert_eq!((r.got, r.verdict, r.ok), (None, Met, true));

        let known = repo_scenario("scenarios/known/current/queued-consumed-lingers.json");
        let k_class = known.1.class.clone().expect("a known file names its class");
        assert_ne!(k_class, a_class);
        let mut other = named.clone();
        other.1.class = Some(k_class.clone());
        let r = verdict_of(&other, "naive", Requirement::ReproduceExpect, &none);
        assert_eq!(
            (r.verdict, r.ok),
            (Failed, false),
            "bug A named with another class"
        );

        let holds = |store: &str, class: &Class| Baseline {
            classes: vec![(store.to_string(), class.clone(), PathBuf::from("k.json"))],
        };
        // On a store under test, a failure: known, new or a plain failure by baseline.
        let r = verdict_of(&known, "current", Requirement::Pass, &none);
        assert_eq!(r.class.as_ref(), Some(&k_class));
        assert_eq!((r.verdict, r.ok), (Failed, false), "no baseline");
        let r = verdict_of(
            &known,
            "current",
            Requirement::Pass,
            &holds("current", &k_class),
        );
        assert_eq!((r.verdict, r.ok), (Known, true), "its class known");
        let r = verdict_of(
            &known,
            "current",
            Requirement::Pass,
            &holds("current", &a_class),
        );
        assert_eq!((r.verdict, r.ok), (NewClass, false), "another class known");
        let r = verdict_of(
            &known,
            "current",
            Requirement::Pass,
            &holds("naive", &k_class),
        );
        assert_eq!(
            (r.verdict, r.ok),
            (Failed, false),
            "its class known for naive only"
        );
        assert!(r.replay.ends_with(".json"), "{}", r.replay);

        // A known failure replayed on its store.
        let kf = Requirement::KnownFailure;
        let r = verdict_of(&known, "current", kf, &none);
        assert_eq!((r.verdict, r.ok), (Known, true), "shows the class it names");
        let mut unnamed = known.clone();
        unnamed.1.class = None;
        let r = verdict_of(&unnamed, "current", kf, &holds("current", &k_class));
        assert_eq!(
            r.verdict, Known,
            "names none, shows a class the baseline holds"
        );
        let r = verdict_of(&unnamed, "current", kf, &none);
        assert_eq!(
            (r.verdict, r.ok),
            (NewClass, false),
            "names none, shows a new class"
        );
        let mut misnamed = known.clone();
        misnamed.1.class = Some(a_class.clone());
        let r = verdict_of(&misnamed, "current", kf, &none);
        assert_eq!(
            (r.verdict, r.ok),
            (NewClass, false),
            "shows another, unknown class"
        );
        let r = verdict_of(&misnamed, "current", kf, &holds("current", &k_class));
        assert_eq!(
            (r.verdict, r.ok),
            (Fixed, true),
            "shows another class the baseline holds"
        );
        let r = verdict_of(&known, "durable", kf, &none);
        assert_eq!((r.got, r.verdict, r.ok), (None, Fixed, true), "passes");
    }
}
