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
