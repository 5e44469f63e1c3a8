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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::merge::fuzz::tests::result_from;
    use crate::store::by_name;

    fn shipped(
        path: &Path,
        sc: &crate::trace::scenario::Scenario,
    ) -> Result<Box<dyn crate::model::store::StoreFactory>, crate::store::recorded::RecordedError>
    {
        crate::store::recorded::resolve_recorded(&sc.store, path, None, Default::default(), false)
    }

    /// A fuzz result's page lists every class of the table with its seeds, and links each
    /// to the page written beside its scenario, which links back; the same result gives the
    /// same bytes.
    #[test]
    fn a_fuzz_report_links_every_class_both_ways() {
        let naive = by_name("naive").unwrap();
        let mut r = result_from(&[&naive], 0, 40, true, Shard::WHOLE);
        let dir = tempfile::tempdir().unwrap();
        r.result.write_saved(dir.path(), Path::new("r")).unwrap();
        let replayers = Replayers {
            stores: &[],
            resolve: &shipped,
        };
        let w = write_fuzz(&r, dir.path(), Shard::WHOLE, &replayers);
        assert!(w.errors.is_empty() && w.not_made.is_empty(), "{w:?}");
        let classes = r.result.report.stores[0].classes.len();
        assert!(classes > 0);
        assert_eq!(w.scenario_pages.len(), classes);
        let page = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
        for c in &r.result.report.stores[0].classes {
            assert!(
                page.contains(&crate::trace::html::escape(&c.name)),
                "{}",
                c.name
            );
        }
        for p in &w.scenario_pages {
            let name = p.file_name().unwrap().to_string_lossy();
            assert!(page.contains(&format!("href=\"{name}\"")), "{name}");
            let back = std::fs::read_to_string(p).unwrap();
            assert!(back.contains("<nav><a href=\"report.html\">"));
        }
        let again = write_fuzz(&r, dir.path(), Shard::WHOLE, &replayers);
        assert_eq!(again, w);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("report.html")).unwrap(),
            page
        );
    }

    /// A class whose scenario names a store that cannot be used here (an `exec:` command
    /// without consent) keeps its row, says why it has no page, and the others still get
    /// theirs; a shard's page has a name of its own.
    #[test]
    fn a_page_not_made_is_said_beside_its_class() {
        let naive = by_name("naive").unwrap();
        let r = result_from(&[&naive], 0, 40, true, Shard::WHOLE);
        let dir = tempfile::tempdir().unwrap();
        let mut view = fuzz_view(&r, dir.path());
        let mut r2 = r.clone();
        r2.result.write_saved(dir.path(), Path::new("r")).unwrap();
        // The first class's file now names a command.
        let first = view.classes[0].scenario.clone().unwrap();
        let text = std::fs::read_to_string(&first).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut v = v;
        v["store"] = "exec:node <evil>.js".into();
        std::fs::write(&first, serde_json::to_string_pretty(&v).unwrap()).unwrap();
        view.classes[0].store = "exec:node <evil>.js".to_string();
        let w = write_campaign(
            &view,
            &dir.path().join(page_name(Shard::new(2, 3).unwrap())),
            &Replayers {
                stores: &[],
                resolve: &shipped,
            },
        );
        assert_eq!(w.not_made.len(), 1, "{w:?}");
        assert_eq!(w.scenario_pages.len(), view.classes.len() - 1);
        let page = std::fs::read_to_string(dir.path().join("report-shard-2-of-3.html")).unwrap();
        assert!(page.contains("no page: "));
        assert!(page.contains("--allow-exec"));
        assert!(page.contains("exec:node &lt;evil&gt;.js") && !page.contains("<evil>"));
    }
}
