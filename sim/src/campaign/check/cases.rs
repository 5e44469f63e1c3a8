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
/// `--allow-empty`: a gate pointed at the wrong folder must not pass.
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
    let mut loaded: Vec<(PathBuf, Scenario)> = load_all(&request.scenarios_dir)?
        .into_iter()
        .filter(|(p, _)| !p.canonicalize().is_ok_and(|c| skip.contains(&c)))
        .collect();
    if loaded.is_empty() && known_dir.as_ref().is_none_or(Vec::is_empty) && !request.allow_empty {
        return Err(CampaignError::BadInput(format!(
            "no scenario files (*.json) under {}: nothing to replay, so the check would prove nothing; point --scenarios at the scenarios, or pass --allow-empty to check without any",
            request.scenarios_dir.display()
        )));
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
                requirement: if sc.known_failure && sc.store == store.name() {
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
