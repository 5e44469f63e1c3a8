//! `report` as one library call: the files given (scenario files, `fuzz` / `check` /
//! `nightly` result files, nights' `summary.json`, or folders holding results and nights)
//! turned into self-contained HTML pages ([`crate::campaign::report`]). A scenario's page
//! goes beside it (or into `out`); a campaign's page into `out`, the scenarios its result
//! carries written there too (as `merge` writes them) with their pages, so every link and
//! replay command on the page works.
//!
//! Results of one kind are merged as `merge` merges them (a missing shard is allowed: the
//! page says which shards it holds). Nights are not merged with each other: each is a
//! point of the history, the latest (by folder name) the night the page shows; shards of
//! one night are merged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::campaign::check::Resolver;
use crate::campaign::error::CampaignError;
use crate::campaign::merge::{
    is_result_name, merge_files, merge_texts, Merged, NightlyResult, ResultFile, FORMAT,
};
use crate::campaign::nightly::NightlySummary;
use crate::campaign::report::{
    check_view, fuzz_view, night_name, night_view, nights_in, write_campaign, write_scenario_page,
    NightPoint, Replayers, Written,
};

/// What to report on.
pub struct ReportRequest<'a> {
    /// The files and folders given.
    pub inputs: Vec<PathBuf>,
    /// Where campaign pages go (and a scenario's page, when given).
    pub out: Option<PathBuf>,
    /// The store each scenario is replayed on for its page.
    pub resolve: Resolver<'a>,
}

/// The default folder of a campaign page.
pub const DEFAULT_REPORT_DIR: &str = "reconcile-report";

/// What the inputs are.
enum Input {
    Scenario(PathBuf),
    Result(PathBuf, String),
    Night(PathBuf, NightlySummary),
}

/// Write the pages `request` asks for.
pub fn report(request: &ReportRequest<'_>) -> Result<Written, CampaignError> {
    let inputs = classify(&request.inputs)?;
    let replayers = Replayers {
        stores: &[],
        resolve: request.resolve,
    };
    let scenarios: Vec<&PathBuf> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::Scenario(p) => Some(p),
            _ => None,
        })
        .collect();
    if !scenarios.is_empty() {
        if scenarios.len() != inputs.len() {
            return Err(CampaignError::BadInput(
                "give scenario files, or result files and nights, not both: they make different pages".to_string(),
            ));
        }
        return scenario_pages(&scenarios, request.out.as_deref(), &replayers);
    }
    let out = request
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_REPORT_DIR));
    let texts: Vec<(PathBuf, String)> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::Result(p, t) => Some((p.clone(), t.clone())),
            _ => None,
        })
        .collect();
    let nights: Vec<(PathBuf, NightlySummary)> = inputs
        .into_iter()
        .filter_map(|i| match i {
            Input::Night(p, s) => Some((p, s)),
            _ => None,
        })
        .collect();
    let kind_of = |t: &str| -> String {
        serde_json::from_str::<serde_json::Value>(t)
            .ok()
            .and_then(|v| v["kind"].as_str().map(str::to_string))
            .unwrap_or_default()
    };
    let all_nightly = texts
        .iter()
        .all(|(_, t)| kind_of(t) == crate::campaign::merge::nightly::KIND);
    if !nights.is_empty() || (all_nightly && !texts.is_empty()) {
        if !all_nightly {
            return Err(CampaignError::BadInput(
                "nights and fuzz or check results make different pages: report them separately"
                    .to_string(),
            ));
        }
        return night_page(texts, nights, &out, &replayers);
    }
    create(&out)?;
    let page = out.join("report.html");
    let source = Path::new("the result");
    match merge_texts(&texts, true)? {
        Merged::Fuzz(mut r) => {
            r.result.write_saved(&out, source)?;
            Ok(write_campaign(&fuzz_view(&r, &out), &page, &replayers))
        }
        Merged::Check(mut r) => {
            r.result.write_saved(&out, source)?;
            let report = r.result.report_under(&out);
            Ok(write_campaign(&check_view(&r, &report), &page, &replayers))
        }
        // Nights were taken above.
        Merged::Nightly(_) => Err(CampaignError::BadInput(
            "nights are reported apart: give nightly results and night folders alone".to_string(),
        )),
        Merged::Explore(_) => Err(CampaignError::BadInput(
            "explore results have no report: `explore --out FILE` saves the counterexample, whose page `report FILE` writes".to_string(),
        )),
    }
}

fn create(dir: &Path) -> Result<(), CampaignError> {
    std::fs::create_dir_all(dir).map_err(CampaignError::io("create", dir))
}

/// Each scenario's page: beside it, or in `out`.
fn scenario_pages(
    files: &[&PathBuf],
    out: Option<&Path>,
    replayers: &Replayers<'_>,
) -> Result<Written, CampaignError> {
    if let Some(out) = out {
        create(out)?;
    }
    let mut written = Written::default();
    for json in files {
        let to = match out {
            Some(dir) => dir.join(
                crate::campaign::report::write::page_path_of(json)
                    .file_name()
                    .unwrap_or_default(),
            ),
            None => crate::campaign::report::write::page_path_of(json),
        };
        match write_scenario_page(json, &to, replayers, None) {
            Ok(Ok(())) => written.scenario_pages.push(to),
            // A page asked for by name that cannot be made is an error, as `replay`'s.
            Ok(Err(why)) => return Err(CampaignError::BadInput(why)),
            Err(e) => written.errors.push(e),
        }
    }
    Ok(written)
}

/// The page of the latest night among `results` (nightly result files) and `summaries`,
/// with every night found as its history.
fn night_page(
    results: Vec<(PathBuf, String)>,
    summaries: Vec<(PathBuf, NightlySummary)>,
    out: &Path,
    replayers: &Replayers<'_>,
) -> Result<Written, CampaignError> {
    // Nights by name: (its folder when it has one on disk, its summary, its result).
    type Night = (
        Option<PathBuf>,
        NightlySummary,
        Option<ResultFile<NightlyResult>>,
    );
    let mut by_name: BTreeMap<String, Night> = BTreeMap::new();
    let mut beside: Vec<PathBuf> = Vec::new();
    for (dir, summary) in summaries {
        if let Some(p) = dir.parent() {
            beside.push(p.to_path_buf());
        }
        by_name.insert(night_name(&dir), (Some(dir), summary, None));
    }
    // Result files, grouped by night: the shards of one night merge.
    let mut groups: BTreeMap<String, Vec<(PathBuf, String)>> = BTreeMap::new();
    for (path, text) in results {
        let name = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| {
                v["result"]["summary"]["night_dir"]
                    .as_str()
                    .map(str::to_string)
            })
            .map(|d| night_name(Path::new(&d)))
            .unwrap_or_default();
        groups.entry(name).or_default().push((path, text));
    }
    for (name, texts) in groups {
        let merged = merge_files::<NightlyResult>(&texts, true)?;
        by_name.insert(name, (None, merged.result.summary.clone(), Some(merged)));
    }
    let mut history: BTreeMap<String, NightPoint> = BTreeMap::new();
    for dir in beside {
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        for (name, (_, s)) in nights_in(&dir) {
            history.insert(name.clone(), NightPoint::of(&name, &s));
        }
    }
    for (name, (_, s, _)) in &by_name {
        history.insert(name.clone(), NightPoint::of(name, s));
    }
    let (name, (dir, summary, result)) = by_name
        .into_iter()
        .next_back()
        .expect("at least one night is given");
    create(out)?;
    // The night's folder: its own when it is on disk, else `out`, where the scenarios its
    // result carries are written.
    let night_dir = match (dir, result) {
        (Some(d), _) => d,
        (None, Some(r)) => {
            let scenarios = out.join("scenarios");
            create(&scenarios)?;
            for s in &r.result.saved {
                s.saved.write(&scenarios, Path::new("the result"))?;
            }
            out.to_path_buf()
        }
        (None, None) => out.to_path_buf(),
    };
    let mut view = night_view(&summary, &night_dir, history.into_values().collect());
    view.title = format!("nightly {name}");
    Ok(write_campaign(&view, &out.join("report.html"), replayers))
}

/// What each input is: a file by its contents, a folder by the result files and night
/// summaries below it.
fn classify(inputs: &[PathBuf]) -> Result<Vec<Input>, CampaignError> {
    if inputs.is_empty() {
        return Err(CampaignError::BadInput(
            "nothing to report on: name scenario files, result files or folders".to_string(),
        ));
    }
    let mut out = Vec::new();
    for p in inputs {
        if p.is_dir() {
            let found = below(p)?;
            if found.is_empty() {
                return Err(CampaignError::BadInput(format!(
                    "{}: no result file (result.json, *.result.json) and no night (summary.json) in this directory",
                    p.display()
                )));
            }
            for f in found {
                out.push(read_input(&f)?);
            }
        } else if p.exists() {
            out.push(read_input(p)?);
        } else {
            return Err(CampaignError::BadInput(format!(
                "{}: no such file or directory",
                p.display()
            )));
        }
    }
    Ok(out)
}

/// The result files and night summaries below `dir`, sorted.
fn below(dir: &Path) -> Result<Vec<PathBuf>, CampaignError> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(CampaignError::io("read", &d))?;
        for entry in entries {
            let p = entry.map_err(CampaignError::io("read", &d))?.path();
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if p.is_dir() {
                stack.push(p);
            } else if is_result_name(&name) || name == "summary.json" {
                found.push(p);
            }
        }
    }
    found.sort();
    // A night folder's result.json and summary.json tell the same night: keep the summary.
    let summaries: Vec<PathBuf> = found
        .iter()
        .filter(|p| p.ends_with("summary.json"))
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .collect();
    found.retain(|p| {
        !(p.ends_with("result.json")
            && p.parent().is_some_and(|d| summaries.iter().any(|s| s == d)))
    });
    Ok(found)
}

/// A file as a result, a night's summary, or a scenario (whose errors name the file, line
/// and column).
fn read_input(path: &Path) -> Result<Input, CampaignError> {
    let text = std::fs::read_to_string(path).map_err(CampaignError::io("read", path))?;
    let value: Option<serde_json::Value> = serde_json::from_str(&text).ok();
    if let Some(v) = &value {
        if v["format"].as_str() == Some(FORMAT) {
            return Ok(Input::Result(path.to_path_buf(), text));
        }
        if v.get("night_dir").is_some() && v.get("campaigns").is_some() {
            let summary: NightlySummary = serde_json::from_value(v.clone()).map_err(|e| {
                CampaignError::BadInput(format!("{}: not a night's summary: {e}", path.display()))
            })?;
            let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
            return Ok(Input::Night(dir, summary));
        }
    }
    crate::trace::scenario::parse(path, &text)
        .map(|_| Input::Scenario(path.to_path_buf()))
        .map_err(|e| {
            CampaignError::BadInput(format!(
                "{e} (report takes scenario files, fuzz/check/nightly result files and nights' summary.json)"
            ))
        })
}
