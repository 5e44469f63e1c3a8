//! Loading the scenarios a check replays and pairing each with the store it runs on.

use std::path::{Path, PathBuf};

use super::baseline::baseline_of;
use super::baseline::Baseline;
use super::request::CheckRequest;
use super::request::Resolver;
use super::scenarios::CaseStore;
use super::scenarios::Requirement;
use super::scenarios::ScenarioCase;
use crate::campaign::error::CampaignError;
use crate::model::store::StoreFactory;
use crate::trace::scenario::Scenario;

/// The scenarios to replay: those under `--scenarios` (but not the files under `--known`
/// too), then the known failures, each marked so. No scenario at all is an error unless
/// `--allow-empty`, since a gate pointed at the wrong folder must not pass; but a store
/// under test with no scenarios folder at all (the default one is missing: a new store's
/// project) is gated by its fuzzing alone. A folder `--scenarios` names must exist.
pub(super) fn load_scenarios(
    request: &CheckRequest<'_>,
) -> Result<Vec<(PathBuf, Scenario)>, CampaignError> {
    let known_dir = match &request.known {
        Some(dir) => Some(load_all(dir)?),
        None => None,
    };
    let skip: Vec<PathBuf> = known_dir
        .iter()
        .flatten()
        .filter_map(|(p, _)| p.canonicalize().ok())
        .collect();
    let absent = request.scenarios_absent();
    let mut loaded: Vec<(PathBuf, Scenario)> = if absent {
        Vec::new()
    } else {
        load_all(&request.scenarios_dir)?
            .into_iter()
            .filter(|(p, _)| !p.canonicalize().is_ok_and(|c| skip.contains(&c)))
            .collect()
    };
    let fuzzed_alone = absent && request.under_test.is_some();
    if loaded.is_empty()
        && known_dir.as_ref().is_none_or(Vec::is_empty)
        && !request.allow_empty
        && !fuzzed_alone
    {
        return Err(CampaignError::BadInput(if absent {
            format!(
                "no {} folder here and no --store: nothing to replay and nothing to fuzz, so the check would prove nothing; pass --store NAME to gate a store, or --scenarios DIR to replay a folder of scenarios",
                request.scenarios_dir.display()
            )
        } else {
            format!(
                "no scenario files (*.json) under {}: nothing to replay, so the check would prove nothing; point --scenarios at the scenarios, or pass --allow-empty to check without any",
                request.scenarios_dir.display()
            )
        }));
    }
    if let Some(known) = known_dir {
        loaded.extend(known.into_iter().map(|(p, mut sc)| {
            sc.known_failure = true;
            (p, sc)
        }));
    }
    // `--invariants` / `--skip` judge the replays too (a file's own choice otherwise).
    if !request.worlds.judged.is_all() {
        for (_, sc) in &mut loaded {
            sc.config.judged = request.worlds.judged;
        }
    }
    Ok(loaded)
}

/// What to replay (each scenario on its own store, or on every store under test) and the
/// baseline of known classes. Every shard computes the baseline; only shard 1 replays.
pub(super) fn cases_of<'a>(
    request: &CheckRequest<'a>,
    loaded: &[(PathBuf, Scenario)],
    resolve: Resolver<'_>,
) -> Result<(Vec<ScenarioCase<'a>>, Baseline), CampaignError> {
    let (cases, baseline) = match &request.under_test {
        None => (own_store_cases(loaded, resolve)?, Baseline::default()),
        Some(stores) => {
            let baseline = baseline_of(loaded, stores, request.known.as_deref())?;
            (store_cases(loaded, stores), baseline)
        }
    };
    let cases = if request.shard.index == 1 {
        cases
    } else {
        Vec::new()
    };
    Ok((cases, baseline))
}

/// Every scenario on every store under test: a known failure of that store must show its
/// class, any other scenario must pass (or fail only with a known class).
pub(super) fn store_cases<'a>(
    loaded: &[(PathBuf, Scenario)],
    stores: &[&'a dyn StoreFactory],
) -> Vec<ScenarioCase<'a>> {
    stores
        .iter()
        .flat_map(|store| {
            loaded.iter().map(|(path, sc)| ScenarioCase {
                path: path.clone(),
                scenario: sc.clone(),
                store: CaseStore::Borrowed(*store),
                requirement: if sc.known_failure && sc.is_of(*store) {
                    Requirement::KnownFailure
                } else {
                    Requirement::Pass
                },
            })
        })
        .collect()
}

/// Every scenario under `dir`, or every problem with them.
pub(super) fn load_all(dir: &Path) -> Result<Vec<(PathBuf, Scenario)>, CampaignError> {
    let files = scenario_files(dir).map_err(|e| {
        CampaignError::BadInput(format!(
            "cannot read the scenarios directory {}: {e}",
            dir.display()
        ))
    })?;
    let mut loaded = Vec::new();
    let mut errors = Vec::new();
    for path in files {
        match crate::trace::scenario::load(&path) {
            Ok(sc) => loaded.push((path, sc)),
            Err(e) => errors.push(e.to_string()),
        }
    }
    if errors.is_empty() {
        Ok(loaded)
    } else {
        Err(CampaignError::BadInput(errors.join("\nerror: ")))
    }
}

/// Each scenario on the store it names (each store resolved once), to reproduce its
/// `expect`.
pub(super) fn own_store_cases(
    loaded: &[(PathBuf, Scenario)],
    resolve: Resolver<'_>,
) -> Result<Vec<ScenarioCase<'static>>, CampaignError> {
    // A store is resolved once per name and recorded directory (an `exec:` command
    // recorded in two places may mean two programs).
    type Key = (String, Option<String>, Option<PathBuf>);
    let key = |path: &Path, sc: &Scenario| -> Key {
        let dir = sc
            .store
            .starts_with(crate::exec::SPEC_PREFIX)
            .then(|| path.parent().map(Path::to_path_buf))
            .flatten();
        (sc.store.clone(), sc.store_dir.clone(), dir)
    };
    let mut own: Vec<(Key, std::sync::Arc<dyn StoreFactory>)> = Vec::new();
    let mut errors = Vec::new();
    for (path, sc) in loaded {
        let k = key(path, sc);
        if own.iter().any(|(n, _)| *n == k) {
            continue;
        }
        match resolve(path, sc) {
            Ok(s) => own.push((k, std::sync::Arc::from(s))),
            Err(e) => errors.push(format!("{}: field `store`: {e}", path.display())),
        }
    }
    if !errors.is_empty() {
        return Err(CampaignError::BadInput(errors.join("\nerror: ")));
    }
    Ok(loaded
        .iter()
        .map(|(path, sc)| {
            let k = key(path, sc);
            let store = own.iter().find(|(n, _)| *n == k).expect("resolved");
            ScenarioCase {
                path: path.clone(),
                scenario: sc.clone(),
                store: CaseStore::Owned(std::sync::Arc::clone(&store.1)),
                requirement: Requirement::ReproduceExpect,
            }
        })
        .collect())
}

/// Every `*.json` file under `dir`, recursively, in sorted order.
pub fn scenario_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let p = entry?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;
    use crate::campaign::shard::Shard;
    use crate::model::judged::Judged;
    use crate::run::strategy::StrategySpec;
    use crate::run::worlds::Worlds;
    use crate::store::by_name;
    use crate::store::recorded::RecordedError;
    use crate::testing::{repo_file, repo_scenario};

    /// A request to check the scenarios under `dir`, on their own stores.
    fn request(dir: &Path) -> CheckRequest<'static> {
        CheckRequest {
            scenarios_dir: dir.to_path_buf(),
            scenarios_named: true,
            under_test: None,
            seeds: 0,
            seed_start: 0,
            strategy: StrategySpec::Random,
            jobs: 1,
            out: dir.join("out"),
            limits: Default::default(),
            known: None,
            shard: Shard::WHOLE,
            determinism: false,
            allow_empty: false,
            worlds: Worlds::default(),
            html: false,
            settle: crate::campaign::settle_budget::SettleBudget::Unbounded,
        }
    }

    fn paths(loaded: &[(PathBuf, Scenario)]) -> Vec<PathBuf> {
        loaded.iter().map(|(p, _)| p.clone()).collect()
    }

    /// The scenario files of a folder: every `*.json` under it, in subfolders too, sorted;
    /// nothing else. A folder that cannot be read is an error.
    #[test]
    fn the_scenario_files_are_every_json_file_under_the_folder_sorted() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("sub/deeper")).unwrap();
        for f in [
            "b.json",
            "a.txt",
            "json",
            "sub/a.json",
            "sub/deeper/c.json",
            "sub/c.jsonl",
        ] {
            std::fs::write(d.join(f), "{}").unwrap();
        }
        assert_eq!(
            scenario_files(d).unwrap(),
            vec![
                d.join("b.json"),
                d.join("sub/a.json"),
                d.join("sub/deeper/c.json")
            ]
        );
        assert!(scenario_files(&d.join("missing")).is_err());
    }

    /// The scenarios a check loads: those under `--scenarios` (without the `--known`
    /// files, when `--known` is a folder under it), then the `--known` ones, each marked a
    /// known failure. No file at all is refused unless `--allow-empty`; known files alone
    /// are enough. `--invariants` judges every scenario; without it each keeps its own
    /// file's choice. Bad files are each named.
    #[test]
    fn a_check_loads_its_scenarios_then_its_known_failures_marked_so() {
        let all = repo_file("scenarios");
        let known = repo_file("scenarios/known");
        let mut r = request(&all);
        let loaded = load_scenarios(&r).unwrap();
        let files = scenario_files(&all).unwrap();
        assert!(files.len() > 14, "{files:?}");
        assert_eq!(paths(&loaded), files);
        for (p, sc) in &loaded {
            assert_eq!(
                *sc,
                crate::trace::scenario::load(p).unwrap(),
                "{}",
                p.display()
            );
        }

        r.known = Some(known.clone());
        let loaded = load_scenarios(&r).unwrap();
        let known_files = scenario_files(&known).unwrap();
        // Every baseline under scenarios/known/ (current's and membership's).
        assert!(known_files.len() >= 2 * 14, "{known_files:?}");
        let mut want: Vec<PathBuf> = files
            .iter()
            .filter(|p| !p.starts_with(&known))
            .cloned()
            .collect();
        assert_eq!(want.len(), files.len() - known_files.len());
        let others = want.len();
        want.extend(known_files.iter().cloned());
        assert_eq!(paths(&loaded), want);
        for (p, sc) in &loaded[..others] {
            assert_eq!(
                sc.known_failure,
                crate::trace::scenario::load(p).unwrap().known_failure
            );
        }
        assert!(loaded[others..].iter().all(|(_, sc)| sc.known_failure));

        // An empty folder: refused, unless allowed or with known files.
        let empty = tempfile::tempdir().unwrap();
        let mut r = request(empty.path());
        let e = load_scenarios(&r).unwrap_err().to_string();
        assert!(
            e.contains(&format!(
                "no scenario files (*.json) under {}: nothing to replay",
                empty.path().display()
            )),
            "{e}"
        );
        r.allow_empty = true;
        assert!(load_scenarios(&r).unwrap().is_empty());
        r.allow_empty = false;
        r.known = Some(known.clone());
        assert_eq!(paths(&load_scenarios(&r).unwrap()), known_files);

        // `--invariants` judges every replay; otherwise each file's own choice holds.
        let dir = tempfile::tempdir().unwrap();
        let (_, mut own) = repo_scenario("scenarios/bug-a.json");
        own.config.judged = Judged::of_numbers([4]);
        own.save(&dir.path().join("own.json")).unwrap();
        let (_, all_judged) = repo_scenario("scenarios/bug-b.json");
        assert!(all_judged.config.judged.is_all());
        all_judged.save(&dir.path().join("all.json")).unwrap();
        let mut r = request(dir.path());
        let judged = |r: &CheckRequest<'_>| -> Vec<Judged> {
            load_scenarios(r)
                .unwrap()
                .iter()
                .map(|(_, sc)| sc.config.judged)
                .collect()
        };
        assert_eq!(judged(&r), vec![Judged::default(), Judged::of_numbers([4])]);
        r.worlds.judged = Judged::of_numbers([1, 2]);
        assert_eq!(judged(&r), vec![Judged::of_numbers([1, 2]); 2]);

        // Every bad file is named.
        std::fs::write(dir.path().join("bad1.json"), "{").unwrap();
        std::fs::write(dir.path().join("bad2.json"), "[]").unwrap();
        let e = load_scenarios(&r).unwrap_err().to_string();
        assert!(e.contains("bad1.json") && e.contains("bad2.json"), "{e}");
        assert!(e.contains("\nerror: "), "{e}");
    }

    /// On stores under test, every scenario runs on every store (store by store): a known
    /// failure of that store must show its class, anything else must pass. Only shard 1
    /// replays; every shard has the baseline.
    /// The default scenarios folder missing (a new store's project): no scenarios, which a
    /// store under test is gated without (its fuzzing is the gate), and which a check with
    /// no store refuses, saying why; `--allow-empty` accepts that too. A folder named
    /// (`--scenarios`) that is missing is an error whatever else is given.
    #[test]
    fn a_missing_default_scenarios_folder_is_no_scenarios_a_missing_named_one_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("scenarios");
        let mut r = request(&missing);
        r.scenarios_named = false;
        assert!(r.scenarios_absent());
        let e = load_scenarios(&r).unwrap_err().to_string();
        assert!(
            e.contains(&format!(
                "no {} folder here and no --store: nothing to replay and nothing to fuzz",
                missing.display()
            )),
            "{e}"
        );
        r.allow_empty = true;
        assert!(load_scenarios(&r).unwrap().is_empty());
        r.allow_empty = false;
        r.under_test = Some(vec![&crate::store::note::current::KIND]);
        assert!(load_scenarios(&r).unwrap().is_empty());
        r.known = Some(repo_file("scenarios/known/current"));
        // The baseline's size read from the folder, not written in (it grows as classes are added).
        let baseline = std::fs::read_dir(repo_file("scenarios/known/current"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "json")
            })
            .count();
        assert!(baseline > 0);
        assert_eq!(load_scenarios(&r).unwrap().len(), baseline);

        r.scenarios_named = true;
        assert!(!r.scenarios_absent());
        let e = load_scenarios(&r).unwrap_err().to_string();
        assert!(
            e.contains(&format!(
                "cannot read the scenarios directory {}",
                missing.display()
            )),
            "{e}"
        );
        // The default folder, there: read as always.
        std::fs::create_dir_all(&missing).unwrap();
        r.scenarios_named = false;
        assert!(!r.scenarios_absent());
        // The baseline's size read from the folder, not written in (it grows as classes are added).
        let baseline = std::fs::read_dir(repo_file("scenarios/known/current"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "json")
            })
            .count();
        assert!(baseline > 0);
        assert_eq!(load_scenarios(&r).unwrap().len(), baseline);
    }

    #[test]
    fn on_stores_under_test_each_scenario_runs_on_each_store() {
        let (naive, current) = (by_name("naive").unwrap(), by_name("current").unwrap());
        let bug_a = repo_scenario("scenarios/bug-a.json");
        let mut k = repo_scenario("scenarios/known/current/queued-consumed-lingers.json");
        k.1.known_failure = true;
        let mut naive_known = repo_scenario("scenarios/bug-a.json");
        naive_known.0 = PathBuf::from("naive-known.json");
        naive_known.1.known_failure = true;
        let loaded = vec![bug_a.clone(), k.clone(), naive_known.clone()];
        let stores: Vec<&dyn StoreFactory> = vec![&current, &naive];
        let mut r = request(Path::new("unused"));
        r.under_test = Some(stores.clone());
        let resolve = |_: &Path, _: &Scenario| -> Result<Box<dyn StoreFactory>, RecordedError> {
            panic!("stores under test are not resolved")
        };
        let (cases, baseline) = cases_of(&r, &loaded, &resolve).unwrap();
        let got: Vec<(PathBuf, String, String, Requirement)> = cases
            .iter()
            .map(|c| {
                (
                    c.path.clone(),
                    c.scenario.store.clone(),
                    match &c.store {
                        CaseStore::Borrowed(s) => s.name(),
                        CaseStore::Owned(_) => panic!("owned"),
                    },
                    c.requirement,
                )
            })
            .collect();
        let row = |s: &(PathBuf, Scenario), on: &str, req| {
            (s.0.clone(), s.1.store.clone(), on.to_string(), req)
        };
        use Requirement::*;
        assert_eq!(
            got,
            vec![
                row(&bug_a, "current", Pass),
                row(&k, "current", KnownFailure),
                row(&naive_known, "current", Pass),
                row(&bug_a, "naive", Pass),
                row(&k, "naive", Pass),
                row(&naive_known, "naive", KnownFailure),
            ]
        );
        assert_eq!(
            cases.iter().map(|c| &c.scenario).collect::<Vec<_>>(),
            [&loaded[..], &loaded[..]]
                .concat()
                .iter()
                .map(|s| &s.1)
                .collect::<Vec<_>>()
        );
        assert!(baseline.holds("current", k.1.class.as_ref().unwrap()));
        assert_eq!(baseline.classes.len(), 2);
        r.shard = Shard::new(2, 2).unwrap();
        let (cases, on_two) = cases_of(&r, &loaded, &resolve).unwrap();
        assert!(cases.is_empty(), "only shard 1 replays");
        assert_eq!(on_two, baseline);
        assert_eq!(store_cases(&loaded, &stores).len(), 6);
    }

    /// With no store under test each scenario runs on the store it names, resolved once per
    /// store, and must reproduce its `expect`; stores that cannot be had are each named,
    /// with their file.
    #[test]
    fn without_a_store_under_test_each_scenario_runs_on_its_own_store_resolved_once() {
        let scenarios: Vec<(PathBuf, Scenario)> = ["bug-a", "bug-b", "bug-a", "bug-c", "bug-b"]
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let (_, sc) = repo_scenario(&format!("scenarios/{name}.json"));
                (PathBuf::from(format!("{i}-{name}.json")), sc)
            })
            .collect();
        let asked = RefCell::new(Vec::new());
        let resolve = |p: &Path, sc: &Scenario| -> Result<Box<dyn StoreFactory>, RecordedError> {
            asked.borrow_mut().push(p.to_path_buf());
            if sc.store == "fix-ab" {
                return Err(RecordedError::NeedsConsent {
                    command: "node fix-ab.js".into(),
                    dir: PathBuf::from("/there"),
                });
            }
            Ok(Box::new(by_name(&sc.store).unwrap()))
        };
        let ok = &scenarios[..3];
        let r = request(Path::new("unused"));
        let (cases, baseline) = cases_of(&r, ok, &resolve).unwrap();
        assert_eq!(baseline, Baseline::default());
        assert_eq!(
            *asked.borrow(),
            vec![PathBuf::from("0-bug-a.json"), PathBuf::from("1-bug-b.json")],
            "each store once"
        );
        let got: Vec<(PathBuf, String, Requirement)> = cases
            .iter()
            .map(|c| {
                let CaseStore::Owned(store) = &c.store else {
                    panic!("borrowed")
                };
                assert_eq!(c.scenario.store, store.name());
                (c.path.clone(), store.name(), c.requirement)
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    PathBuf::from("0-bug-a.json"),
                    "naive".into(),
                    Requirement::ReproduceExpect
                ),
                (
                    PathBuf::from("1-bug-b.json"),
                    "fix-a".into(),
                    Requirement::ReproduceExpect
                ),
                (
                    PathBuf::from("2-bug-a.json"),
                    "naive".into(),
                    Requirement::ReproduceExpect
                ),
            ]
        );
        let mut two = request(Path::new("unused"));
        two.shard = Shard::new(2, 2).unwrap();
        assert!(cases_of(&two, ok, &resolve).unwrap().0.is_empty());

        asked.borrow_mut().clear();
        let e = match own_store_cases(&scenarios, &resolve) {
            Ok(_) => panic!("fix-ab cannot be had"),
            Err(e) => e.to_string(),
        };
        assert!(
            e.contains("3-bug-c.json: field `store`: it names the command 'node fix-ab.js'"),
            "{e}"
        );
        assert_eq!(asked.borrow().len(), 3, "naive, fix-a, fix-ab");
    }
}
