//! The store a scenario file names: a shipped store by name, or an `exec:` command, which
//! runs only with the user's consent and in the directory recorded with it.
//!
//! Why consent: a scenario file is data that travels (a pull request, an issue, a CI
//! artifact), and `exec:` in it is a command line. Replaying a file must not run a
//! program nobody on this machine chose; the user consents by choosing the command
//! (`--store exec:…` on the command line, which then replaces the file's) or by allowing
//! the file's (`--allow-exec`).
//!
//! Why a directory: the command's relative paths (`node adapters/node/store.js current`)
//! mean what they meant where it ran. A scenario records that directory (`store_dir`,
//! relative to the file, so a repository's committed scenarios work from any checkout and
//! any working directory). The command runs in the first of these where every word that
//! looks like a relative path exists: the recorded directory, then the scenario file's own
//! directory (a file written before `store_dir` existed records none and tries the
//! harness's working directory first). A command that cannot start there is an error that
//! names it, the directory and the missing words: never a crash finding.

use std::path::{Path, PathBuf};

use super::{resolve, ResolveError};
use crate::exec::{ExecFactory, ExecOptions, SPEC_PREFIX};
use crate::model::store::StoreFactory;

/// Why the store a scenario names cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RecordedError {
    /// The file names a command and the user did not consent to running it.
    #[error(
        "it names the command '{command}', and a command named in a file runs only when you ask: pass --allow-exec to run it (in {}), or --store exec:'…' to run a command of your choosing",
        dir.display()
    )]
    NeedsConsent {
        /// The command line.
        command: String,
        /// Where it would run.
        dir: PathBuf,
    },
    /// The command cannot be started (or does not get through its start-up) where it was
    /// to run.
    #[error("{source}{}", missing_words(dir, missing))]
    CannotStart {
        /// Why, with the adapter's stderr.
        source: Box<ResolveError>,
        /// Where it was run.
        dir: PathBuf,
        /// Its words that look like relative paths and exist in none of the directories
        /// tried.
        missing: Vec<String>,
    },
    /// Not a shipped store, or a bad `exec:` spec.
    #[error(transparent)]
    Resolve(#[from] ResolveError),
}

fn missing_words(dir: &Path, missing: &[String]) -> String {
    if missing.is_empty() {
        return String::new();
    }
    format!(
        "\n  (it ran in {}, the directory recorded with the scenario, where {} {} not exist; edit the file's `store_dir`, or pass --store exec:'…')",
        dir.display(),
        missing.join(", "),
        if missing.len() == 1 { "does" } else { "do" }
    )
}

/// The store scenario `file` names (`spec`, its `store` field), with the directory it
/// recorded (`store_dir` as written: relative to the file's directory, or absolute). An
/// `exec:` command runs only when `allow_exec`; where, is the module doc's rule.
pub fn resolve_recorded(
    spec: &str,
    file: &Path,
    store_dir: Option<&str>,
    options: ExecOptions,
    allow_exec: bool,
) -> Result<Box<dyn StoreFactory>, RecordedError> {
    if !spec.starts_with(SPEC_PREFIX) {
        return Ok(resolve(spec, options)?);
    }
    let factory = ExecFactory::from_spec(spec).map_err(ResolveError::from)?;
    let argv = factory.argv().to_vec();
    let (dir, missing) = choose_dir(&argv, file, store_dir);
    let shown = dir.clone().unwrap_or_else(|| PathBuf::from("."));
    if !allow_exec {
        return Err(RecordedError::NeedsConsent {
            command: shell_words::join(&argv),
            dir: shown,
        });
    }
    let factory = match &dir {
        Some(d) => ExecFactory::from_spec_in(spec, d),
        None => ExecFactory::from_spec(spec),
    }
    .map_err(ResolveError::from)?;
    let factory = options.apply(factory);
    match factory.probe() {
        Ok(()) => Ok(Box::new(factory)),
        Err(e) => Err(RecordedError::CannotStart {
            source: Box::new(ResolveError::from(e)),
            dir: shown,
            missing,
        }),
    }
}

/// Where the command runs (`None`: the harness's working directory), and its path-like
/// words missing there.
fn choose_dir(
    argv: &[String],
    file: &Path,
    store_dir: Option<&str>,
) -> (Option<PathBuf>, Vec<String>) {
    let file_dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut candidates: Vec<Option<PathBuf>> = Vec::new();
    match store_dir {
        Some(d) if Path::new(d).is_absolute() => candidates.push(Some(PathBuf::from(d))),
        Some(d) => candidates.push(Some(file_dir.join(d))),
        None => candidates.push(None),
    }
    candidates.push(Some(file_dir));
    // Shown in messages and used as the working directory: absolute and without `..`.
    let candidates: Vec<Option<PathBuf>> = candidates
        .into_iter()
        .map(|d| d.map(|d| d.canonicalize().unwrap_or(d)))
        .collect();
    let missing_in = |dir: &Option<PathBuf>| -> Vec<String> {
        let base = dir.clone().unwrap_or_else(|| PathBuf::from("."));
        path_words(argv)
            .filter(|w| !base.join(w).exists())
            .map(str::to_string)
            .collect()
    };
    let exists = |dir: &Option<PathBuf>| dir.as_ref().is_none_or(|d| d.is_dir());
    if let Some(dir) = candidates
        .iter()
        .find(|d| exists(d) && missing_in(d).is_empty())
    {
        return (dir.clone(), Vec::new());
    }
    let first = candidates
        .iter()
        .find(|d| exists(d))
        .unwrap_or(&candidates[0])
        .clone();
    let missing = missing_in(&first);
    (first, missing)
}

/// The words of a command line that look like relative paths: the program when it has a
/// `/`, and each argument that is not an option and has a `/` or a file extension.
fn path_words(argv: &[String]) -> impl Iterator<Item = &str> {
    argv.iter().enumerate().filter_map(|(i, w)| {
        let relative = !w.is_empty() && !Path::new(w).is_absolute() && !w.starts_with('-');
        let looks = if i == 0 {
            w.contains('/')
        } else {
            w.contains('/') && !w.contains("://") || has_extension(w)
        };
        (relative && looks).then_some(w.as_str())
    })
}

/// `name.ext` with a short alphabetic extension (`adapter.ts`, `store.js`).
fn has_extension(word: &str) -> bool {
    match word.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphabetic())
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        shell_words::split(line).unwrap()
    }

    #[test]
    fn path_like_words_are_the_files_a_command_names() {
        let argv = words(
            "node adapters/node/store.js current --flag x/y http://a/b adapter.ts 1.5 /abs/x.js",
        );
        assert_eq!(
            path_words(&argv).collect::<Vec<_>>(),
            ["adapters/node/store.js", "x/y", "adapter.ts"]
        );
        assert_eq!(
            path_words(&words("./run.sh current")).collect::<Vec<_>>(),
            ["./run.sh"]
        );
    }

    #[test]
    fn the_recorded_directory_wins_then_the_files_own() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let repo = root.join("repo");
        let scenarios = repo.join("out");
        std::fs::create_dir_all(repo.join("adapters")).unwrap();
        std::fs::create_dir_all(&scenarios).unwrap();
        std::fs::write(repo.join("adapters/a.js"), "").unwrap();
        let file = scenarios.join("s.json");
        let argv = words("node adapters/a.js current");
        // Recorded relative to the file: found there.
        assert_eq!(
            choose_dir(&argv, &file, Some("..")),
            (Some(repo.clone()), Vec::new())
        );
        // Recorded somewhere that lacks it: the file's directory, when it has it.
        std::fs::create_dir_all(scenarios.join("adapters")).unwrap();
        std::fs::write(scenarios.join("adapters/a.js"), "").unwrap();
        assert_eq!(
            choose_dir(&argv, &file, Some("../nowhere")),
            (Some(scenarios.clone()), Vec::new())
        );
        // Nowhere: the recorded directory if it exists, with the missing words.
        let elsewhere = root.join("elsewhere.json");
        assert_eq!(
            choose_dir(&argv, &elsewhere, Some("repo")),
            (Some(repo.clone()), Vec::new())
        );
        assert_eq!(
            choose_dir(&argv, &elsewhere, Some(".")),
            (Some(root.clone()), vec!["adapters/a.js".to_string()])
        );
    }
}
