//! The known failures a check accepts (`--known`): per store, the classes its baseline
//! holds, read from scenario files.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::campaign::error::CampaignError;
use crate::model::store::StoreFactory;
use crate::trace::class::{classify, Class};
use crate::trace::scenario::Scenario;

/// The known classes of each store under test: the classes of its known failures.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    /// (store name, class, the file that stands for it).
    pub classes: Vec<(String, Class, PathBuf)>,
}

impl Baseline {
    /// Whether `class` is a known class of `store`.
    pub fn holds(&self, store: &str, class: &Class) -> bool {
        self.classes
            .iter()
            .any(|(s, c, _)| s == store && c == class)
    }

    /// Whether `store` has known classes at all (then a failure of another class is a
    /// new class; without, it is simply a failure).
    pub fn covers(&self, store: &str) -> bool {
        self.classes.iter().any(|(s, _, _)| s == store)
    }
}

/// The baseline of the stores under test: the class of each known failure of one of them
/// (its `class`, or the class its replay shows when the file has none), held under that
/// store's name. A file is a known failure of the store it was recorded against
/// ([`Scenario::is_of`]: the same `exec:` store through another command line counts). With
/// `--known DIR`, a directory none of whose files names a store under test is an error (a
/// typo, or the wrong store).
pub(super) fn baseline_of(
    loaded: &[(PathBuf, Scenario)],
    stores: &[&dyn StoreFactory],
    known_dir: Option<&Path>,
) -> Result<Baseline, CampaignError> {
    let mut baseline = Baseline::default();
    for (path, sc) in loaded.iter().filter(|(_, sc)| sc.known_failure) {
        let Some(store) = stores.iter().find(|s| sc.is_of(**s)) else {
            continue;
        };
        let class = match &sc.class {
            Some(c) => Some(c.clone()),
            None => classify(*store, sc.config.clone(), &sc.steps(), &sc.masked).class,
        };
        if let Some(class) = class {
            baseline.classes.push((store.name(), class, path.clone()));
        }
    }
    if let Some(dir) = known_dir {
        let any = loaded
            .iter()
            .any(|(_, sc)| sc.known_failure && stores.iter().any(|s| sc.is_of(*s)));
        if !any {
            let names: Vec<String> = stores.iter().map(|s| s.name()).collect();
            return Err(CampaignError::BadInput(format!(
                "--known {}: no known failure there is of a store under test ({}); each file's `store` names the store it is a known failure of",
                dir.display(),
                names.join(", ")
            )));
        }
    }
    Ok(baseline)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::by_name;
    use crate::testing::repo_scenario;

    /// A baseline holds, for each store under test, the class of each of its known
    /// failures: the class the file names, or the one its replay shows when it names none;
    /// files of other stores, and files not marked as known failures, add nothing. With
    /// `--known DIR`, a directory with no known failure of a store under test is refused,
    /// naming the stores.
    #[test]
    fn a_baseline_holds_the_class_of_each_known_failure_of_a_store_under_test() {
        let current = by_name("current").unwrap();
        let naive = by_name("naive").unwrap();
        let mut k1 = repo_scenario("scenarios/known/current/queued-consumed-lingers.json");
        let mut k2 = repo_scenario("scenarios/known/current/content-gone-at-stale-fetch.json");
        let (c1, c2) = (k1.1.class.clone().unwrap(), k2.1.class.clone().unwrap());
        assert_ne!(c1, c2);
        k1.1.known_failure = true;
        k2.1.known_failure = true;
        // Named by its replay: the same class.
        k2.1.class = None;
        let bug_a = repo_scenario("scenarios/bug-a.json");
        let mut bug_a_known = bug_a.clone();
        bug_a_known.1.known_failure = true;
        let not_known = {
            let mut k = repo_scenario("scenarios/known/current/optimistic-consumed-lingers.json");
            k.1.known_failure = false;
            k
        };
        let loaded = vec![
            bug_a.clone(),
            k1.clone(),
            not_known,
            k2.clone(),
            bug_a_known,
        ];
        let dir = Path::new("scenarios/known/current");
        let b = baseline_of(&loaded, &[&current], Some(dir)).unwrap();
        assert_eq!(
            b.classes,
            vec![
                ("current".to_string(), c1.clone(), k1.0.clone()),
                ("current".to_string(), c2.clone(), k2.0.clone()),
            ]
        );
        let b = baseline_of(&loaded, &[&naive, &current], None).unwrap();
        assert_eq!(b.classes.len(), 3, "{b:?}");
        assert_eq!(b.classes[2].0, "naive");
        assert_eq!(b.classes[2].2, loaded[4].0);
        assert!(b.holds("current", &c1) && b.holds("current", &c2));
        // No known failure of a store under test: none without --known, refused with it.
        let b = baseline_of(&loaded[..4], &[&naive], None).unwrap();
        assert!(b.classes.is_empty());
        let e = baseline_of(&loaded[..4], &[&naive], Some(dir)).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("--known scenarios/known/current: no known failure there is of a store under test (naive)"),
            "{text}"
        );
        let b = baseline_of(&loaded[..4], &[&current], Some(dir)).unwrap();
        assert_eq!(b.classes.len(), 2);
    }
}
