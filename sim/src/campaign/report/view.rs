//! What a campaign page shows, in one shape for every kind of run: the facts of the run,
//! its store × invariant tables, every class with its seeds, needs and scenario, the check's
//! scenario replays, notes, and a night's history. Built from a `fuzz` or `check` result
//! ([`crate::campaign::merge`]) or a night's summary ([`crate::campaign::nightly`]); drawn by
//! [`super::page`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::campaign::check::CheckReport;
use crate::campaign::fuzz::CampaignReport;
use crate::campaign::merge::{CheckResult, FuzzResult, ResultFile, ShardSet};
use crate::campaign::nightly::NightlySummary;
use crate::campaign::pipeline::text::shards_label;
use crate::model::judged::Judged;
use crate::oracle::Invariant;
use crate::trace::assume::Assumption;

use super::history::NightPoint;

/// A campaign page's contents.
#[derive(Clone, Debug, PartialEq)]
pub struct CampaignView {
    /// The page's heading: `fuzz`, `check`, `nightly 2025-06-01`.
    pub title: String,
    /// Facts of the run, in order: (name, value).
    pub facts: Vec<(String, String)>,
    /// Store × invariant tables: one, or one per strategy for a night.
    pub tables: Vec<Matrix>,
    /// Every class found, store by store.
    pub classes: Vec<ClassEntry>,
    /// A check's scenario replays.
    pub scenarios: Vec<ReplayEntry>,
    /// Lines worth reading that fit nowhere else (suspects, problems, files not written).
    pub notes: Vec<String>,
    /// The nights found, oldest first (a night's page only).
    pub history: Vec<NightPoint>,
}

/// One store × invariant table: per store, failing seeds per invariant over seeds run.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    /// What it counts (`strategy random · seeds 0..2000`).
    pub caption: String,
    /// The invariants judged (the others show as `skipped`).
    pub judged: Judged,
    /// One row per store.
    pub rows: Vec<MatrixRow>,
}

/// A store's row of a [`Matrix`].
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixRow {
    /// The store.
    pub store: String,
    /// Seeds run.
    pub runs: u64,
    /// Failing seeds per invariant.
    pub failing: BTreeMap<Invariant, u64>,
    /// The first failing seed and its invariant.
    pub first_failure: Option<(u64, Invariant)>,
}

/// One root-cause class (or, without classes, one invariant) of one store.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassEntry {
    /// The store.
    pub store: String,
    /// The class as a person reads it (or the invariant, without classes).
    pub name: String,
    /// The invariant its scenario breaks, when known.
    pub invariant: Option<Invariant>,
    /// Seeds that showed it, when counted.
    pub seeds: Option<u64>,
    /// Its first seed, when it came from a seed.
    pub first_seed: Option<u64>,
    /// Where it was found (a night's `in-process/random`, `cargo-fuzz/…`).
    pub source: Option<String>,
    /// `new` or `known`, where the run tells them apart.
    pub status: Option<&'static str>,
    /// The world features its witness needs, when judged.
    pub needs: Option<Vec<Assumption>>,
    /// Its scenario file, when one was saved.
    pub scenario: Option<PathBuf>,
    /// Why it has no page (not saved, known and saved elsewhere…).
    pub note: Option<String>,
}

/// A scenario a check replayed.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayEntry {
    /// The file.
    pub path: String,
    /// The store it was replayed on.
    pub store: String,
    /// What it had to do, in words.
    pub requirement: String,
    /// What happened, in words.
    pub got: String,
    /// It met its requirement.
    pub ok: bool,
}

fn matrix(caption: String, report: &CampaignReport) -> Matrix {
    Matrix {
        caption,
        judged: report.worlds.judged,
        rows: report
            .stores
            .iter()
            .map(|s| MatrixRow {
                store: s.store.clone(),
                runs: s.runs,
                failing: s.failing.clone(),
                first_failure: s.first_failure(),
            })
            .collect(),
    }
}

fn seeds_caption(report: &CampaignReport) -> String {
    format!(
        "strategy {} · seeds {}..{} ({} per store)",
        report.strategy,
        report.seed_start,
        report.seed_start + report.seeds,
        report.seeds
    )
}

fn shard_fact(facts: &mut Vec<(String, String)>, shards: &ShardSet) {
    if shards.count > 1 {
        let mut text = shards_label(shards);
        if !shards.complete() {
            text.push_str(" (a partial result: some shards are missing)");
        }
        facts.push(("shards".to_string(), text));
    }
}

/// The page of a `fuzz` result whose scenarios are under `out`.
pub fn fuzz_view(result: &ResultFile<FuzzResult>, out: &Path) -> CampaignView {
    let r = &result.result;
    let report = &r.report;
    let mut facts = vec![
        ("tool".to_string(), result.tool.clone()),
        ("stores".to_string(), r.config.stores.join(", ")),
        ("strategy".to_string(), report.strategy.to_string()),
        (
            "seeds".to_string(),
            format!("{} per store from {}", report.seeds, report.seed_start),
        ),
    ];
    let worlds = report.worlds.header();
    if !worlds.is_empty() {
        facts.push(("world".to_string(), worlds));
    }
    shard_fact(&mut facts, &result.shards);
    let mut classes = Vec::new();
    for s in &report.stores {
        for c in &s.classes {
            let saved = r
                .scenarios
                .iter()
                .find(|f| f.store == s.store && f.class.as_ref() == Some(&c.class));
            classes.push(ClassEntry {
                store: s.store.clone(),
                name: c.name.clone(),
                invariant: saved.map(|f| f.invariant),
                seeds: Some(c.seeds),
                first_seed: Some(c.first_seed),
                source: None,
                status: None,
                needs: saved.and_then(|f| f.needs.clone()),
                scenario: saved
                    .filter(|f| f.saved.write_error.is_none())
                    .map(|f| out.join(&f.saved.file)),
                note: match saved {
                    None => {
                        Some("no scenario saved (the run stopped before it was shrunk)".to_string())
                    }
                    Some(f) => f
                        .saved
                        .write_error
                        .as_ref()
                        .map(|e| format!("NOT SAVED: {e}")),
                },
            });
        }
    }
    // Without classes, one scenario per (store, invariant).
    for f in r.scenarios.iter().filter(|f| f.class.is_none()) {
        classes.push(ClassEntry {
            store: f.store.clone(),
            name: format!("{} (classes not told apart)", f.invariant),
            invariant: Some(f.invariant),
            seeds: report
                .stores
                .iter()
                .find(|s| s.store == f.store)
                .and_then(|s| s.failing.get(&f.invariant).copied()),
            first_seed: Some(f.seed),
            source: None,
            status: None,
            needs: f.needs.clone(),
            scenario: f
                .saved
                .write_error
                .is_none()
                .then(|| out.join(&f.saved.file)),
            note: f
                .saved
                .write_error
                .as_ref()
                .map(|e| format!("NOT SAVED: {e}")),
        });
    }
    let notes = r
        .suspects
        .iter()
        .map(|s| {
            format!(
                "{} {} (seed {}): {}",
                s.kind.name(),
                s.store,
                s.seed.map_or("-".to_string(), |x| x.to_string()),
                s.why
            )
        })
        .collect();
    CampaignView {
        title: "fuzz".to_string(),
        facts,
        tables: vec![matrix(seeds_caption(report), report)],
        classes,
        scenarios: Vec::new(),
        notes,
        history: Vec::new(),
    }
}

/// The page of a `check` result, `report` naming where its found failures were written.
pub fn check_view(result: &ResultFile<CheckResult>, report: &CheckReport) -> CampaignView {
    let config = &result.result.config;
    let mut facts = vec![
        ("tool".to_string(), result.tool.clone()),
        ("scenarios".to_string(), config.scenarios.clone()),
        (
            "stores under test".to_string(),
            config
                .stores
                .as_ref()
                .map_or("none (each scenario on its own store)".to_string(), |s| {
                    s.join(", ")
                }),
        ),
        ("strategy".to_string(), report.strategy.to_string()),
        (
            "seeds".to_string(),
            format!(
                "{} per store from {} (--seed {})",
                config.seeds, report.seed_start, config.seed
            ),
        ),
        (
            "verdict".to_string(),
            if report.ok() { "PASS" } else { "FAIL" }.to_string(),
        ),
    ];
    if let Some(k) = &config.known {
        facts.push(("known classes".to_string(), k.clone()));
    }
    let worlds = report.worlds.header();
    if !worlds.is_empty() {
        facts.push(("world".to_string(), worlds));
    }
    if report.interrupted {
        facts.push((
            "interrupted".to_string(),
            "yes: only what ran is reported".to_string(),
        ));
    }
    shard_fact(&mut facts, &result.shards);
    // The batches of each store, added up into its row of the table.
    let mut rows: Vec<MatrixRow> = Vec::new();
    for b in &report.batches {
        let at = match rows.iter().position(|r| r.store == b.store) {
            Some(i) => i,
            None => {
                rows.push(MatrixRow {
                    store: b.store.clone(),
                    runs: 0,
                    failing: BTreeMap::new(),
                    first_failure: None,
                });
                rows.len() - 1
            }
        };
        let row = &mut rows[at];
        row.runs += b.seeds;
        for (inv, n) in &b.failing {
            *row.failing.entry(*inv).or_default() += n;
        }
        for (inv, seed) in &b.first_failing_seed {
            if row.first_failure.is_none_or(|(s, _)| *seed < s) {
                row.first_failure = Some((*seed, *inv));
            }
        }
    }
    let tables = if rows.is_empty() {
        Vec::new()
    } else {
        vec![Matrix {
            caption: format!(
                "fuzzed: strategy {} · {} seeds per store from {}",
                report.strategy, config.seeds, report.seed_start
            ),
            judged: report.worlds.judged,
            rows,
        }]
    };
    // Every class the batches showed, by store: new ones with their saved scenario.
    let mut classes: Vec<ClassEntry> = Vec::new();
    for b in &report.batches {
        for c in &b.classes {
            if let Some(e) = classes
                .iter_mut()
                .find(|e| e.store == b.store && e.name == c.name)
            {
                e.seeds = Some(e.seeds.unwrap_or(0) + c.seeds);
                e.first_seed = e.first_seed.min(Some(c.first_seed)).or(Some(c.first_seed));
                continue;
            }
            let found = report
                .found
                .iter()
                .find(|f| f.store == b.store && f.class.as_ref() == Some(&c.class));
            classes.push(class_of_check(
                &b.store,
                &c.name,
                c.known,
                Some(c.seeds),
                Some(c.first_seed),
                found,
                report,
            ));
        }
    }
    // Found failures no batch showed (a scenario's class of its own).
    for f in &report.found {
        let name = crate::trace::class::name_or_invariant(f.class.as_ref(), f.invariant);
        if !classes.iter().any(|e| e.store == f.store && e.name == name) {
            classes.push(class_of_check(
                &f.store,
                &name,
                false,
                None,
                f.seed,
                Some(f),
                report,
            ));
        }
    }
    let scenarios = report
        .scenarios
        .iter()
        .map(|s| ReplayEntry {
            path: s.path.display().to_string(),
            store: s.store.clone(),
            requirement: kebab(&s.requirement),
            got: format!(
                "{} ({})",
                match (&s.got, &s.class) {
                    (None, _) => "no violation".to_string(),
                    (Some(i), Some(c)) => format!("{i}: {c}"),
                    (Some(i), None) => i.to_string(),
                },
                kebab(&s.verdict)
            ),
            ok: s.ok,
        })
        .collect();
    let mut notes: Vec<String> = report
        .suspects
        .iter()
        .map(|s| {
            format!(
                "{} {} (seed {}): {}",
                s.kind.name(),
                s.store,
                s.seed.map_or("-".to_string(), |x| x.to_string()),
                s.why
            )
        })
        .collect();
    notes.extend(report.write_errors());
    CampaignView {
        title: "check".to_string(),
        facts,
        tables,
        classes,
        scenarios,
        notes,
        history: Vec::new(),
    }
}

/// A unit enum as its JSON name (`reproduce-expect`, `new-class`).
fn kebab(value: &impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn class_of_check(
    store: &str,
    name: &str,
    known: bool,
    seeds: Option<u64>,
    first_seed: Option<u64>,
    found: Option<&crate::campaign::check::Found>,
    report: &CheckReport,
) -> ClassEntry {
    let baseline = report
        .baseline
        .classes
        .iter()
        .find(|(s, c, _)| s == store && c.to_string() == name)
        .map(|(_, _, p)| p.display().to_string());
    ClassEntry {
        store: store.to_string(),
        name: name.to_string(),
        invariant: found.map(|f| f.invariant),
        seeds,
        first_seed,
        source: None,
        status: Some(if known { "known" } else { "new" }),
        needs: found.map(|f| f.needs.clone()),
        scenario: found
            .filter(|f| f.write_error.is_none())
            .map(|f| f.path.clone()),
        note: match (found, known) {
            (Some(f), _) => f.write_error.as_ref().map(|e| format!("NOT SAVED: {e}")),
            (None, true) => Some(match baseline {
                Some(p) => format!("known: its witness is {p}"),
                None => "known".to_string(),
            }),
            (None, false) => Some("no scenario saved".to_string()),
        },
    }
}

/// The page of the night `summary` (whose folder is `night_dir`: its new scenarios are
/// under `night_dir/scenarios/`), with the nights found for its history.
pub fn night_view(
    summary: &NightlySummary,
    night_dir: &Path,
    history: Vec<NightPoint>,
) -> CampaignView {
    let name = night_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| summary.night_dir.clone());
    let mut facts = vec![
        (
            "budget".to_string(),
            format!(
                "{} s asked, {} s taken",
                summary.budget_seconds,
                crate::trace::html::page::fixed(summary.elapsed_seconds, 1)
            ),
        ),
        ("seeds from".to_string(), summary.seed_start.to_string()),
        (
            "known signatures before".to_string(),
            summary.known_signatures.to_string(),
        ),
        (
            "runs/s".to_string(),
            summary
                .campaigns
                .iter()
                .map(|c| {
                    format!(
                        "{} {}",
                        c.report.strategy,
                        crate::trace::html::page::fixed(c.runs_per_second, 0)
                    )
                })
                .collect::<Vec<_>>()
                .join(" · "),
        ),
    ];
    if summary.interrupted {
        facts.push((
            "interrupted".to_string(),
            "yes: what was found so far".to_string(),
        ));
    }
    for t in &summary.cargo_fuzz {
        let name = match &t.store {
            Some(store) => format!("cargo-fuzz {} ({store})", t.target),
            None => format!("cargo-fuzz {}", t.target),
        };
        let value = match &t.error {
            Some(e) => format!("not run: {e}"),
            None => format!(
                "{} s, {} executions, {} crash file(s)",
                t.seconds,
                t.executions.map_or("-".to_string(), |n| n.to_string()),
                t.artifacts.len()
            ),
        };
        facts.push((name, value));
    }
    let tables = summary
        .campaigns
        .iter()
        .map(|c| matrix(seeds_caption(&c.report), &c.report))
        .collect();
    let scenarios_dir = night_dir.join("scenarios");
    let classes = summary
        .findings
        .iter()
        .map(|f| ClassEntry {
            store: f.store.clone(),
            name: f.class_name.clone(),
            invariant: Some(f.invariant),
            seeds: None,
            first_seed: f.seed,
            source: Some(f.source.clone()),
            status: Some(if f.new { "new" } else { "known" }),
            needs: f.needs.clone(),
            scenario: f
                .scenario
                .as_ref()
                .and_then(|p| Path::new(p).file_name().map(|n| scenarios_dir.join(n))),
            note: match (&f.scenario, f.new) {
                (Some(_), _) => None,
                (None, true) => Some("new, but its scenario was not written".to_string()),
                (None, false) => Some(
                    "known: its witness is in the committed scenarios or an earlier night"
                        .to_string(),
                ),
            },
        })
        .collect();
    let mut notes = summary.problems.clone();
    notes.extend(summary.write_errors.iter().cloned());
    CampaignView {
        title: format!("nightly {name}"),
        facts,
        tables,
        classes,
        scenarios: Vec::new(),
        notes,
        history,
    }
}
