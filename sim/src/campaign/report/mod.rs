//! Campaign reports: one self-contained HTML page per `fuzz`, `check` or `nightly` run
//! (its store × invariant tables, every class with its seeds, needs and a link to its
//! scenario's page, and for a night the history of the nights beside it), and the page of
//! each class's scenario written beside the scenario file ([`crate::trace::html`] draws
//! those). `fuzz`, `check` and `nightly` write them with `--html`; `reconcile-sim report`
//! writes them from files.
//!
//! `view` (what a page shows, from each kind of result), `page` (the HTML), `history` (a
//! night's history and its charts), `write` (pages on disk, linked both ways).

pub mod history;
pub mod page;
pub mod view;
pub mod write;

use std::path::{Path, PathBuf};

use crate::campaign::check::CheckReport;
use crate::campaign::merge::{CheckResult, FuzzResult, ResultFile};
use crate::campaign::nightly::NightlySummary;
use crate::util::shard::Shard;

pub use history::{nights_in, NightPoint};
pub use view::{check_view, fuzz_view, night_view, CampaignView};
pub use write::{write_campaign, write_scenario_page, Replayers, Written};

/// The campaign page's name in its folder: `report.html`, or `report-shard-I-of-N.html`
/// for one shard's (its shards share the folder).
pub fn page_name(shard: Shard) -> String {
    if shard.count > 1 {
        format!("report-shard-{}-of-{}.html", shard.index, shard.count)
    } else {
        "report.html".to_string()
    }
}

/// Write the report of the `fuzz` result `result`, whose scenarios are under `out`:
/// `out/report.html` (see [`page_name`]) and each class's page beside its scenario.
pub fn write_fuzz(
    result: &ResultFile<FuzzResult>,
    out: &Path,
    shard: Shard,
    replayers: &Replayers<'_>,
) -> Written {
    write_campaign(
        &fuzz_view(result, out),
        &out.join(page_name(shard)),
        replayers,
    )
}

/// Write the report of the `check` result `result` (`report` naming where its found
/// failures were written) to `out/report.html` (see [`page_name`]).
pub fn write_check(
    result: &ResultFile<CheckResult>,
    report: &CheckReport,
    out: &Path,
    shard: Shard,
    replayers: &Replayers<'_>,
) -> Written {
    write_campaign(
        &check_view(result, report),
        &out.join(page_name(shard)),
        replayers,
    )
}

/// The history of the night in `night_dir` whose summary is `summary`: every night in the
/// folder that holds it (the nightly `--out`), this one as `summary` says, oldest first.
pub fn history_of(night_dir: &Path, summary: &NightlySummary) -> Vec<NightPoint> {
    let name = night_name(night_dir);
    let mut nights = match night_dir.parent() {
        Some(p) => nights_in(if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        }),
        None => Default::default(),
    };
    nights.insert(name, (night_dir.to_path_buf(), summary.clone()));
    nights
        .iter()
        .map(|(name, (_, s))| NightPoint::of(name, s))
        .collect()
}

/// A night's name: its folder's.
pub fn night_name(night_dir: &Path) -> String {
    night_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Write the report of the night in `night_dir` (its summary `summary`, its new scenarios
/// in `night_dir/scenarios/`) to `night_dir/report.html`, with the history of the nights
/// beside it.
pub fn write_night(
    summary: &NightlySummary,
    night_dir: &Path,
    replayers: &Replayers<'_>,
) -> Written {
    let view = night_view(summary, night_dir, history_of(night_dir, summary));
    write_campaign(&view, &night_dir.join("report.html"), replayers)
}

/// Every file `written` names, pages first: what a command lists.
pub fn files(written: &Written) -> Vec<PathBuf> {
    written
        .page
        .iter()
        .chain(&written.scenario_pages)
        .cloned()
        .collect()
}
