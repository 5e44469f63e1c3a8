//! The committed fuzz corpus (`corpus/` at the top of the repository), made from scenarios.
//!
//! cargo-fuzz treats `fuzz/corpus/` as scratch (git-ignored; `cmin` replaces it), so the
//! seeds we keep live in `corpus/<target>/` and are passed to libFuzzer explicitly. They are
//! generated, never hand-edited: `reconcile-sim corpus` rewrites them from the scenarios.
//!
//! - `corpus/interleavings/`: each scenario whose store is a shipped one and whose world
//!   options lie in the fuzzable ranges, encoded with [`crate::campaign::fuzz_input::encode_run`], so
//!   the fuzzer starts from the exact interleavings of bugs A–D and every committed finding.
//! - `corpus/scenario_parser/`: the bytes of every scenario file and every bad-input file.

use std::path::{Path, PathBuf};

use crate::campaign::check::scenario_files;
use crate::campaign::error::CampaignError;
use crate::campaign::fuzz_input::encode_run;
use crate::store::by_name;
use crate::trace::scenario::load;
use crate::util::fs::write_atomically;

/// What [`regenerate`] wrote and passed over.
#[derive(Debug, Default)]
pub struct CorpusReport {
    /// Every corpus file written, under `corpus/<target>/`.
    pub written: Vec<PathBuf>,
    /// Scenario files not encodable for `interleavings`, with the reason.
    pub skipped: Vec<(PathBuf, String)>,
}

/// A file name for a corpus entry made from `path` below `root`: its relative path with
/// separators flattened, so `found/current-inv1.json` becomes `found-current-inv1`.
fn entry_name(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.with_extension("")
        .to_string_lossy()
        .replace(['/', '\\'], "-")
}

/// Rewrite the corpus under `out` from the scenarios under `scenarios` (and, for the
/// parser, the bad inputs under `bad_inputs`). Files are written atomically.
pub fn regenerate(
    scenarios: &Path,
    bad_inputs: &Path,
    out: &Path,
) -> Result<CorpusReport, CampaignError> {
    let mut report = CorpusReport::default();
    let inter = out.join("interleavings");
    let parser = out.join("scenario_parser");
    for dir in [&inter, &parser] {
        std::fs::create_dir_all(dir).map_err(CampaignError::io("create", dir))?;
    }
    let write = |path: PathBuf, bytes: &[u8], report: &mut CorpusReport| {
        write_atomically(&path, bytes).map_err(CampaignError::io("write", &path))?;
        report.written.push(path);
        Ok::<(), CampaignError>(())
    };
    let files = scenario_files(scenarios).map_err(CampaignError::io("read", scenarios))?;
    for path in files {
        let name = entry_name(scenarios, &path);
        let bytes = std::fs::read(&path).map_err(CampaignError::io("read", &path))?;
        write(
            parser.join(format!("scenario-{name}.json")),
            &bytes,
            &mut report,
        )?;
        let scenario = load(&path)?;
        let Some(store) = by_name(&scenario.store) else {
            report.skipped.push((
                path,
                format!("store '{}' is not a shipped store", scenario.store),
            ));
            continue;
        };
        match encode_run(store, &scenario.config, &scenario.steps()) {
            Some(encoded) => write(inter.join(name), &encoded, &mut report)?,
            None => report.skipped.push((
                path,
                "world options outside the fuzzable ranges".to_string(),
            )),
        }
    }
    let mut bad: Vec<PathBuf> = std::fs::read_dir(bad_inputs)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    bad.retain(|p| p.extension().is_none_or(|e| e != "expected"));
    bad.sort();
    for path in bad {
        let bytes = std::fs::read(&path).map_err(CampaignError::io("read", &path))?;
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        write(parser.join(format!("bad-{file}")), &bytes, &mut report)?;
    }
    Ok(report)
}
