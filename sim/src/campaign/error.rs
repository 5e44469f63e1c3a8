//! The errors of campaigns: operational (a file, a directory, a flag), never findings.

use std::path::PathBuf;

use crate::campaign::findings::FindingError;
use crate::trace::scenario::ScenarioError;

/// Why a campaign could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    /// Reading or writing a file or directory failed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done: `read`, `write`, `create`.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
    /// A scenario file is malformed.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// A failure could not be shrunk and saved.
    #[error(transparent)]
    Finding(#[from] FindingError),
    /// The request makes no sense (an unknown store, a missing directory…).
    #[error("{0}")]
    BadInput(String),
    /// Another shard of the same command, running at once in this process, stopped
    /// before the shards shared their failures ([`crate::campaign::pipeline::partners`]).
    #[error("{0}")]
    Partners(String),
}

impl CampaignError {
    /// `Io` for `action` on `path`.
    pub fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| CampaignError::Io {
            action,
            path,
            source,
        }
    }

    /// A harness bug, not bad input: the exit code differs.
    pub fn is_internal(&self) -> bool {
        matches!(self, CampaignError::Finding(f) if f.is_internal())
    }
}
