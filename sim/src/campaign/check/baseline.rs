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
/// (its `class`, or the class its replay shows when the file has none). With `--known DIR`,
/// a directory none of whose files names a store under test is an error (a typo, or the
/// wrong store).
pub(super) fn baseline_of(
    loaded: &[(PathBuf, Scenario)],
    stores: &[&dyn StoreFactory],
    known_dir: Option<&Path>,
) -> Result<Baseline, CampaignError> {
    let mut baseline = Baseline::default();
    for (path, sc) in loaded.iter().filter(|(_, sc)| sc.known_failure) {
        let Some(store) = stores.iter().find(|s| s.name() == sc.store) else {
            continue;
        };
        let class = match &sc.class {
            Some(c) => Some(c.clone()),
            None => classify(*store, sc.config.clone(), &sc.steps(), &sc.masked).class,
        };
        if let Some(class) = class {
            baseline
                .classes
                .push((sc.store.clone(), class, path.clone()));
        }
    }
    if let Some(dir) = known_dir {
        let any = loaded
            .iter()
            .any(|(_, sc)| sc.known_failure && stores.iter().any(|s| s.name() == sc.store));
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
