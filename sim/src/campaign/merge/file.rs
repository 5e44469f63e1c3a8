//! A result file's frame, shared by every kind of result: its header, the shards it holds
//! ([`ShardSet`]), the [`ShardResult`] each kind implements, and the shrunk scenarios it
//! carries ([`SavedScenario`]).

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::campaign::error::CampaignError;
use crate::util::fs::write_atomically;

/// The header constants every result file shares, explore's included: defined once, in
/// the lower layer (`explore::merge`), so the two kinds of result cannot drift apart.
pub use crate::explore::merge::{tool, FORMAT, FORMAT_VERSION};

/// Which shards of how many a result holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardSet {
    /// The number of shards the campaign was split into (1: not split).
    pub count: u64,
    /// The shards whose runs this result holds, in order.
    pub done: Vec<u64>,
}

impl ShardSet {
    /// One shard's own result.
    pub fn one(shard: crate::campaign::shard::Shard) -> ShardSet {
        ShardSet {
            count: shard.count,
            done: vec![shard.index],
        }
    }

    /// Every shard is here: the result is the whole campaign's.
    pub fn complete(&self) -> bool {
        self.done.len() as u64 == self.count
    }

    /// The shards not here.
    pub fn missing(&self) -> Vec<u64> {
        (1..=self.count)
            .filter(|i| !self.done.contains(i))
            .collect()
    }
}

/// A result file: the header every kind shares, and the kind's `result`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultFile<T> {
    /// [`FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The tool that wrote it ([`tool`]).
    pub tool: String,
    /// `fuzz`, `check` or `nightly`: what `result` is.
    pub kind: String,
    /// The shards it holds.
    pub shards: ShardSet,
    /// The kind's config and data.
    pub result: T,
}

impl<T: ShardResult> ResultFile<T> {
    /// A result of this build.
    pub fn new(shards: ShardSet, result: T) -> ResultFile<T> {
        ResultFile {
            format: FORMAT.to_string(),
            format_version: FORMAT_VERSION,
            tool: tool(),
            kind: T::KIND.to_string(),
            shards,
            result,
        }
    }

    /// The file's bytes: pretty JSON and a final newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a result serialises") + "\n"
    }

    /// Write it atomically.
    pub fn save(&self, path: &Path) -> Result<(), CampaignError> {
        write_atomically(path, self.to_json().as_bytes()).map_err(CampaignError::io("write", path))
    }

    /// [`ResultFile::save`] to `path` when one is given (`--result`), with the error as
    /// text: a command reports it after everything else it prints, and then fails.
    pub fn save_to(&self, path: Option<&Path>) -> Option<String> {
        path.and_then(|p| self.save(p).err()).map(|e| e.to_string())
    }
}

/// One kind of mergeable result.
pub trait ShardResult: Sized + Serialize + DeserializeOwned {
    /// The `kind` written in the file.
    const KIND: &'static str;
    /// What two parts must agree on to be merged.
    type Config: PartialEq + Serialize;
    /// This part's config.
    fn config(&self) -> &Self::Config;
    /// Add up parts of one campaign: same config, disjoint shards, sorted by their first
    /// shard. `count` is the campaign's number of shards.
    fn merge(parts: Vec<(ShardSet, Self)>, count: u64) -> Result<Self, CampaignError>;
    /// Anything in a part that must hold beyond its serde shape (a scenario that loads…),
    /// checked when it is read; `path` names the file in the message.
    fn validate(&self, _path: &Path) -> Result<(), CampaignError> {
        Ok(())
    }
}

/// A shrunk scenario carried in a result: the file's name under the run's `--out`, what
/// shrinking did, and the file's contents.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedScenario {
    /// The file's name (the run wrote it under its `--out`; `merge` writes it under its own).
    pub file: String,
    /// Main-phase steps after shrinking.
    pub steps: usize,
    /// Steps of the failing run shrinking started from.
    pub original_steps: usize,
    /// Why shrinking stopped early, if it did (then the scenario may not be 1-minimal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gave_up: Option<String>,
    /// Why the run could not write the file, if it could not (it is then reported NOT
    /// SAVED, and the run exits 2). The scenario is here all the same; `merge` writes
    /// every file again and sets this to its own error, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_error: Option<String>,
    /// The scenario file, as JSON.
    pub scenario: serde_json::Value,
}

impl SavedScenario {
    /// Capture the scenario file `path` that shrinking just wrote.
    pub fn read(
        path: &Path,
        steps: usize,
        original_steps: usize,
        gave_up: Option<String>,
    ) -> Result<SavedScenario, CampaignError> {
        let text = std::fs::read_to_string(path).map_err(CampaignError::io("read", path))?;
        SavedScenario::of_text(path, &text, steps, original_steps, gave_up, None)
    }

    /// The scenario file `path` with contents `text`, as shrinking made it; `write_error`
    /// if the run could not write it (the result still carries it, so nothing is lost).
    pub fn of_text(
        path: &Path,
        text: &str,
        steps: usize,
        original_steps: usize,
        gave_up: Option<String>,
        write_error: Option<String>,
    ) -> Result<SavedScenario, CampaignError> {
        let scenario = serde_json::from_str(text)
            .map_err(|e| CampaignError::BadInput(format!("{}: not JSON: {e}", path.display())))?;
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(SavedScenario {
            file,
            steps,
            original_steps,
            gave_up,
            write_error,
            scenario,
        })
    }

    /// The scenario file's bytes, exactly as the run wrote them (the scenario format has
    /// one canonical writer, so loading and writing again gives the same bytes), but for
    /// `store_dir`, which [`SavedScenario::write`] makes relative to where it writes.
    pub fn file_text(&self, result: &Path) -> Result<String, CampaignError> {
        Ok(self.scenario(result)?.to_json())
    }

    /// The embedded scenario, loaded (checked as a scenario file is).
    fn scenario(&self, result: &Path) -> Result<crate::trace::scenario::Scenario, CampaignError> {
        let name = Path::new(&self.file);
        if self.file.is_empty()
            || name.components().count() != 1
            || !matches!(
                name.components().next(),
                Some(std::path::Component::Normal(_))
            )
        {
            return Err(CampaignError::BadInput(format!(
                "{}: scenario file name '{}' is not a plain file name",
                result.display(),
                self.file
            )));
        }
        let text = serde_json::to_string(&self.scenario).expect("JSON serialises");
        crate::trace::scenario::parse(Path::new(&self.file), &text).map_err(|e| {
            CampaignError::BadInput(format!(
                "{}: the embedded scenario {} does not load: {e}",
                result.display(),
                self.file
            ))
        })
    }

    /// Write it again as `out/<file>`, as an unsharded run would have: a scenario that does
    /// not load is an error of the result (`result` names it); a write that fails is
    /// recorded as this scenario's `write_error` (none if it worked).
    pub fn write_again(&mut self, out: &Path, result: &Path) -> Result<(), CampaignError> {
        let scenario = self.scenario(result)?;
        let path = out.join(&self.file);
        self.write_error = scenario
            .save(&path)
            .err()
            .map(|e| CampaignError::io("write", &path)(e).to_string());
        Ok(())
    }

    /// Write it as `out/<file>`, atomically; returns the path.
    pub fn write(&self, out: &Path, result: &Path) -> Result<PathBuf, CampaignError> {
        let path = out.join(&self.file);
        // As the run saves it: an absolute `store_dir` relative to the file's directory.
        self.scenario(result)?
            .save(&path)
            .map_err(CampaignError::io("write", &path))?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::merge::fuzz::tests::result_from;
    use crate::campaign::shard::Shard;
    use crate::testing::repo_file;

    /// `bug-a.json` as a result carries it.
    fn bug_a() -> SavedScenario {
        SavedScenario::read(&repo_file("scenarios/bug-a.json"), 7, 9, Some("why".into())).unwrap()
    }

    #[test]
    fn a_shard_set_says_which_shards_are_missing() {
        let one = ShardSet::one(Shard::new(2, 3).unwrap());
        assert_eq!(
            one,
            ShardSet {
                count: 3,
                done: vec![2]
            }
        );
        assert!(!one.complete());
        assert_eq!(one.missing(), vec![1, 3]);
        let all = ShardSet {
            count: 3,
            done: vec![1, 2, 3],
        };
        assert!(all.complete());
        assert_eq!(all.missing(), Vec::<u64>::new());
        assert!(ShardSet::one(Shard::WHOLE).complete());
    }

    /// A result's file is its pretty JSON and a newline, written atomically; `save_to`
    /// gives the error as text, and nothing without a path.
    #[test]
    fn a_result_is_saved_as_pretty_json_and_an_error_is_told() {
        let naive = crate::store::by_name("naive").unwrap();
        let r = result_from(&[&naive], 11, 10, true, Shard::WHOLE);
        let json = r.to_json();
        assert!(json.ends_with("}\n") && json.starts_with("{\n  \"format\""));
        let back: ResultFile<crate::campaign::merge::FuzzResult> =
            serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/r.result.json");
        assert_eq!(r.save_to(Some(&path)), None);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), json);
        assert_eq!(r.save_to(None), None);
        // A file where a folder should be: the write fails and says where.
        let blocked = dir.path().join("sub/r.result.json/x.json");
        let e = r.save_to(Some(&blocked)).unwrap();
        assert!(
            e.starts_with(&format!("cannot write {}: ", blocked.display())),
            "{e}"
        );
        assert!(r.save(&blocked).is_err());
    }

    /// A saved scenario carries the file's name, what shrinking did, and the scenario,
    /// which it gives back byte for byte; bad JSON is an error naming the file.
    #[test]
    fn a_saved_scenario_is_read_and_given_back_as_written() {
        let path = repo_file("scenarios/bug-a.json");
        let s = bug_a();
        assert_eq!(
            (
                s.file.as_str(),
                s.steps,
                s.original_steps,
                s.gave_up.as_deref(),
                s.write_error.as_deref()
            ),
            ("bug-a.json", 7, 9, Some("why"), None)
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            s.scenario,
            serde_json::from_str::<serde_json::Value>(&text).unwrap()
        );
        assert_eq!(s.file_text(Path::new("r.json")).unwrap(), text);
        let e = SavedScenario::of_text(Path::new("d/x.json"), "{", 1, 1, None, Some("full".into()))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("d/x.json: not JSON: "), "{e}");
        let t = SavedScenario::of_text(
            Path::new("d/x.json"),
            &text,
            1,
            2,
            None,
            Some("full".into()),
        )
        .unwrap();
        assert_eq!(
            (t.file.as_str(), t.write_error.as_deref()),
            ("x.json", Some("full"))
        );
        assert!(SavedScenario::read(Path::new("/no/such/file.json"), 1, 1, None).is_err());
    }

    /// The name must be a plain file name and the scenario must load, else the result
    /// (named) is refused.
    #[test]
    fn a_saved_scenario_with_a_bad_name_or_content_is_refused() {
        let r = Path::new("r.result.json");
        for bad in ["", "a/b.json", "..", "/", "/x.json"] {
            let mut s = bug_a();
            s.file = bad.to_string();
            let e = s.file_text(r).unwrap_err().to_string();
            assert_eq!(
                e,
                format!("r.result.json: scenario file name '{bad}' is not a plain file name")
            );
            let dir = tempfile::tempdir().unwrap();
            assert!(s.write(dir.path(), r).is_err());
            assert!(s.write_again(dir.path(), r).is_err());
        }
        let mut s = bug_a();
        s.scenario["steps"] = "no".into();
        let e = s.file_text(r).unwrap_err().to_string();
        assert!(
            e.starts_with("r.result.json: the embedded scenario bug-a.json does not load: "),
            "{e}"
        );
    }

    /// Written again under `out`, as the run wrote it; a write that fails is recorded as
    /// the scenario's write error, and cleared when it works.
    #[test]
    fn a_saved_scenario_is_written_again_and_a_failed_write_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let r = Path::new("r.result.json");
        let text = std::fs::read_to_string(repo_file("scenarios/bug-a.json")).unwrap();
        let s = bug_a();
        let out = dir.path().join("out");
        assert_eq!(s.write(&out, r).unwrap(), out.join("bug-a.json"));
        assert_eq!(
            std::fs::read_to_string(out.join("bug-a.json")).unwrap(),
            text
        );
        let blocked = out.join("bug-a.json"); // a file, not a folder
        let e = s.write(&blocked, r).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "cannot write {}: ",
                blocked.join("bug-a.json").display()
            )),
            "{e}"
        );
        let mut again = bug_a();
        again.write_again(&blocked, r).unwrap();
        let e = again.write_error.clone().unwrap();
        assert!(
            e.starts_with(&format!(
                "cannot write {}: ",
                blocked.join("bug-a.json").display()
            )),
            "{e}"
        );
        let fresh = dir.path().join("fresh");
        again.write_again(&fresh, r).unwrap();
        assert_eq!(again.write_error, None);
        assert_eq!(
            std::fs::read_to_string(fresh.join("bug-a.json")).unwrap(),
            text
        );
    }
}
