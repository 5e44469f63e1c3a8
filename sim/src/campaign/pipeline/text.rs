//! What the commands print, as strings: `fuzz`'s report (and `merge`'s of fuzz results,
//! the same): the header and table, the details (reproduce commands, crashes, classes, suspects, shrunk files,
//! coverage), the warnings, the JSON, the message for files not written, and the suspects
//! every command lists. Strings only: the CLI decides where each goes.

use std::path::Path;

use crate::campaign::findings::{
    replay_command_for, reproduce_command, shrink_command_for, Finding,
};
use crate::campaign::fuzz::{format_table, CHUNK_SEEDS};
use crate::campaign::merge::{FuzzResult, ResultFile, ShardSet};
use crate::campaign::recheck::{Suspect, SuspectKind};
use crate::campaign::shard::format_ranges;
use crate::model::store::CrashCause;
use crate::trace::assume;
use crate::trace::localize::{Cause, Localization};
use crate::util::program::program;

/// The line at the head of a text report for a store that stated settings shaping its
/// runs (an adapter's virtual clock), so results say under which settings they were
/// found; `None` for a store that states none.
pub fn settings_line(store: &dyn crate::model::store::StoreFactory) -> Option<String> {
    store
        .settings()
        .map(|set| format!("{}: {set}\n", store.name()))
}

/// The JSON `fuzz --json` (and `merge` of fuzz results) prints; scenario paths under `out`. A result that is not one
/// range of seeds from the first (a shard, or shards with gaps between them) also says
/// which ranges it covers (`covered`) and which shards it holds (`shards`).
pub fn json(result: &ResultFile<FuzzResult>, out: &Path) -> serde_json::Result<serde_json::Value> {
    let r = &result.result;
    let mut value = serde_json::to_value(&r.report)?;
    value["scenarios"] = r
        .scenarios
        .iter()
        .map(|f| {
            let path = out.join(&f.saved.file);
            serde_json::json!({
                "store": f.store,
                "invariant": f.invariant,
                "class": f.class,
                "class_name": f.class.as_ref().map(|c| c.to_string()),
                "needs": f.needs,
                "needs_unsearched": f.needs_unsearched,
                "seed": f.seed,
                "path": path.display().to_string(),
                "steps": f.saved.steps,
                "one_minimal": f.saved.gave_up.is_none(),
                "replay": replay_command_for(&f.store, &path),
                "cause": f.cause,
                "write_error": f.saved.write_error,
                "localized": f.localized.as_ref().map(|l| &l.lines),
                "localize_reason": f.localized.as_ref().and_then(|l| l.reason.as_ref()),
            })
        })
        .collect();
    if r.scenarios.iter().any(|f| f.localized.is_some()) {
        value["causes"] = serde_json::to_value(causes(r))?;
    }
    value["crashes"] = crashes(r)
        .map(|(store, seed, cause)| {
            serde_json::json!({
                "store": store,
                "seed": seed,
                "cause_text": cause.to_string(),
                "cause": cause,
            })
        })
        .collect();
    value["suspects"] = serde_json::to_value(&r.suspects)?;
    if r.config.coverage {
        value["coverage"] = serde_json::to_value(
            r.config
                .stores
                .iter()
                .cloned()
                .zip(r.coverage.iter().cloned())
                .collect::<std::collections::BTreeMap<_, _>>(),
        )?;
    }
    if !r.contiguous(&result.shards) {
        value["covered"] = serde_json::to_value(
            r.seed_ranges(&result.shards)
                .iter()
                .map(|x| [x.start, x.end])
                .collect::<Vec<_>>(),
        )?;
    }
    if !result.shards.complete() {
        value["shards"] = serde_json::to_value(&result.shards)?;
    }
    Ok(value)
}

/// How many of a class's best lines the text reports print.
pub const LINES_SHOWN: usize = 3;

/// Classes (`STORE: CLASS`) grouped by their best line ([`crate::trace::localize::causes`]).
pub fn causes(r: &FuzzResult) -> Vec<Cause> {
    crate::trace::localize::causes(r.scenarios.iter().filter_map(|f| {
        let name = crate::trace::class::name_or_invariant(f.class.as_ref(), f.invariant);
        Some((format!("{}: {name}", f.store), f.localized.as_ref()?))
    }))
}

/// `N classes, suspected cause: FILE:LINE  TEXT` and the classes, one group each; empty
/// when nothing was localized.
pub fn format_causes(causes: &[Cause]) -> String {
    if causes.is_empty() {
        return String::new();
    }
    let mut text = String::from("suspected causes (classes whose best line is the same line; experimental: on the planted bugs of docs/localize.md the faulty line is in the top 3 for 6 of 35 classes):\n");
    for c in causes {
        text.push_str(&format!(
            "  {}, suspected cause: {}  {}\n",
            count(c.classes.len(), "class"),
            c.at,
            c.text
        ));
        for class in &c.classes {
            text.push_str(&format!("    {class}\n"));
        }
    }
    text
}

/// `--localize` on a store that cannot say which of its lines ran (a built-in Rust
/// store): each of its scenarios says so rather than ranking nothing silently.
pub fn not_localized(r: &mut FuzzResult) {
    for f in r.scenarios.iter_mut().filter(|f| f.localized.is_none()) {
        f.localized = Some(Localization::not(NOT_LOCALIZED_BUILT_IN));
    }
}

/// Why a built-in store's classes are not localized.
pub const NOT_LOCALIZED_BUILT_IN: &str =
    "not localized: built-in Rust store (only stores run through an adapter report the lines they run)";

/// `shard 2/3`, `shards 1, 3 of 3`.
pub fn shards_label(shards: &ShardSet) -> String {
    match shards.done.as_slice() {
        [one] => format!("shard {one}/{}", shards.count),
        many => format!(
            "shards {} of {}",
            many.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            shards.count
        ),
    }
}

/// The first line of the text report: the strategy and the seeds run.
fn header(result: &ResultFile<FuzzResult>) -> String {
    let r = &result.result;
    let report = &r.report;
    if r.contiguous(&result.shards) {
        format!(
            "fuzz · strategy {} · seeds {}..{} ({} per store)\n",
            report.strategy,
            report.seed_start,
            report.seed_start + report.seeds,
            report.seeds
        )
    } else {
        format!(
            "fuzz · strategy {} · {}: {} of every {} blocks of {CHUNK_SEEDS} seeds from {} · seeds {} ({} per store)\n",
            report.strategy,
            shards_label(&result.shards),
            result.shards.done.len(),
            result.shards.count,
            report.seed_start,
            format_ranges(&r.seed_ranges(&result.shards), 6),
            report.seeds
        )
    }
}

/// The text `fuzz` prints: the header and table, then the rest (reproduce commands,
/// classes, shrunk files, coverage); scenario paths under `out`.
pub fn text(result: &ResultFile<FuzzResult>, out: &Path) -> (String, String) {
    let r = &result.result;
    let report = &r.report;
    let mut table = header(result);
    let worlds = report.worlds.header();
    if !worlds.is_empty() {
        table.push_str(&format!("{worlds}\n"));
    }
    table.push_str(&format_table(report));
    let mut details = String::new();
    for s in &report.stores {
        if let Some((seed, _)) = s.first_failure() {
            details.push_str(&format!(
                "reproduce {}: {}\n",
                s.store,
                reproduce_command(&s.store, seed, report.strategy, &report.worlds)
            ));
        }
    }
    for (store, seed, cause) in crashes(r) {
        details.push_str(&format!(
            "crash of {store} (seed {}):\n",
            seed.map_or("-".to_string(), |s| s.to_string())
        ));
        for line in cause.lines() {
            details.push_str(&format!("  {line}\n"));
        }
    }
    details.push_str(&format_classes(r, out));
    details.push_str(&format_suspects(&r.suspects));
    for f in r.scenarios.iter().filter(|f| f.class.is_none()) {
        details.push_str(&format!(
            "shrunk {} {} (seed {}): {} → {} steps{}: {}\n",
            f.store,
            f.invariant,
            f.seed,
            f.saved.original_steps,
            f.saved.steps,
            if f.saved.gave_up.is_some() {
                " (gave up early)"
            } else {
                ""
            },
            if f.saved.write_error.is_some() {
                "NOT SAVED (see the error below)".to_string()
            } else {
                replay_command_for(&f.store, &out.join(&f.saved.file))
            }
        ));
        if f.saved.gave_up.is_some() && f.saved.write_error.is_none() {
            details.push_str(&format!(
                "  shrink: {}\n",
                shrink_command_for(&f.store, &out.join(&f.saved.file))
            ));
        }
    }
    for (store, c) in r.config.stores.iter().zip(&r.coverage) {
        details.push_str(&format!(
            "coverage {store} (runs reaching each ordering, counted per occurrence):\n"
        ));
        details.push_str(&c.format());
    }
    (table, details)
}

/// What `fuzz` prints under its table when the details went to a file (`details`): one
/// line per store that failed (its classes, or the invariants it broke, its suspects and
/// crashes, and the command that reproduces its first failing seed), then where the
/// details are. A screen, however many classes were found.
pub fn summary(result: &ResultFile<FuzzResult>, details: &Path) -> String {
    let r = &result.result;
    let report = &r.report;
    let width = report
        .stores
        .iter()
        .map(|s| s.store.len())
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    for s in &report.stores {
        let suspects = r.suspects.iter().filter(|x| x.store == s.store).count();
        let Some((seed, _)) = s.first_failure() else {
            if suspects > 0 {
                text.push_str(&format!(
                    "{:<width$}  {}\n",
                    s.store,
                    count(suspects, "suspect")
                ));
            }
            continue;
        };
        let mut what = if r.config.classes {
            count(s.classes.len(), "class")
        } else {
            let broken = s.first_failing_seed.keys().map(|i| i.to_string());
            broken.collect::<Vec<_>>().join(", ")
        };
        let crashes = crashes(r).filter(|(store, ..)| *store == s.store).count();
        if crashes > 0 {
            what.push_str(&format!(", {}", count(crashes, "crash")));
        }
        if suspects > 0 {
            what.push_str(&format!(", {}", count(suspects, "suspect")));
        }
        text.push_str(&format!(
            "{:<width$}  {what} · reproduce: {}\n",
            s.store,
            reproduce_command(&s.store, seed, report.strategy, &report.worlds)
        ));
    }
    text.push_str(&format_causes(&causes(r)));
    let unshrunk = r
        .scenarios
        .iter()
        .filter(|f| f.saved.gave_up.is_some())
        .count();
    if unshrunk > 0 {
        text.push_str(&format!(
            "{} not shrunk to 1-minimal within the budget (steps marked + in the details, each with the `{} shrink` command that goes further)\n",
            count(unshrunk, "scenario"),
            program()
        ));
    }
    let unsearched_needs = r.scenarios.iter().filter(|f| f.needs_unsearched).count();
    if unsearched_needs > 0 {
        text.push_str(&format!(
            "{} with needs not searched within the budget (an upper bound: what the witness's world has; marked in the details)\n",
            count(unsearched_needs, "scenario"),
        ));
    }
    text.push_str(&format!(
        "details (every class, its shrunk scenario and replay command; --verbose prints them here): {}\n",
        details.display()
    ));
    text
}

/// What follows a needs line whose search the budget cut short.
pub fn unsearched(needs_unsearched: bool) -> &'static str {
    if needs_unsearched {
        " (not searched to the end within the settle budget: an upper bound)"
    } else {
        ""
    }
}

/// `1 class`, `3 classes`.
fn count(n: usize, what: &str) -> String {
    match (n, what.ends_with('s') || what.ends_with('h')) {
        (1, _) => format!("1 {what}"),
        (_, true) => format!("{n} {what}es"),
        (_, false) => format!("{n} {what}s"),
    }
}

/// The warnings `fuzz` prints on stderr: scenarios whose shrinking gave up early.
pub fn warnings(result: &ResultFile<FuzzResult>, out: &Path) -> Vec<String> {
    result
        .result
        .scenarios
        .iter()
        .filter_map(|f| {
            let why = f.saved.gave_up.as_ref()?;
            let path = out.join(&f.saved.file);
            Some(format!(
                "warning: {why} ({}; shrink: {})",
                path.display(),
                shrink_command_for(&f.store, &path)
            ))
        })
        .collect()
}

/// The kept failures (saved, or suspects) that are crashes with a cause, as (store,
/// seed, cause): what the report quotes (the cause and the adapter's stderr tail).
fn crashes(r: &FuzzResult) -> impl Iterator<Item = (&str, Option<u64>, &CrashCause)> {
    let saved = r
        .scenarios
        .iter()
        .filter_map(|f| Some((f.store.as_str(), Some(f.seed), f.cause.as_ref()?)));
    let suspects = r
        .suspects
        .iter()
        .filter_map(|s| Some((s.store.as_str(), s.seed, s.cause.as_ref()?)));
    saved.chain(suspects)
}

/// One row per root-cause class: store, seeds that showed it, first seed, steps of its
/// shrunk scenario, the class, and the replay command.
fn format_classes(r: &FuzzResult, out: &Path) -> String {
    let mut text = String::new();
    for s in r.report.stores.iter().filter(|s| !s.classes.is_empty()) {
        text.push_str(&format!(
            "classes of {} ({} found; seeds = seeds showing it, masking the classes each seed showed before; steps + = not shrunk to 1-minimal):\n",
            s.store,
            s.classes.len()
        ));
        text.push_str(&format!(
            "  {:>6}  {:>10}  {:>5}  class\n",
            "seeds", "first seed", "steps"
        ));
        for c in &s.classes {
            let file = r
                .scenarios
                .iter()
                .find(|f| f.store == s.store && f.class.as_ref() == Some(&c.class));
            let steps = file.map_or("-".to_string(), |f| {
                format!(
                    "{}{}",
                    f.saved.steps,
                    if f.saved.gave_up.is_some() { "+" } else { "" }
                )
            });
            text.push_str(&format!(
                "  {:>6}  {:>10}  {:>5}  {}\n",
                c.seeds, c.first_seed, steps, c.name
            ));
            if let Some(f) = file {
                if let Some(needs) = f.needs.as_deref() {
                    text.push_str(&format!(
                        "  {:>26}{}{}\n",
                        "",
                        assume::describe(needs),
                        unsearched(f.needs_unsearched)
                    ));
                }
                if let Some(loc) = &f.localized {
                    text.push_str(&loc.format(LINES_SHOWN, &format!("  {:>26}", "")));
                }
            }
            match file {
                Some(f) if f.saved.write_error.is_some() => {
                    text.push_str(&format!("  {:>26}NOT SAVED (see the error below)\n", ""))
                }
                Some(f) => {
                    let path = out.join(&f.saved.file);
                    text.push_str(&format!(
                        "  {:>26}replay: {}\n",
                        "",
                        replay_command_for(&f.store, &path)
                    ));
                    if f.saved.gave_up.is_some() {
                        text.push_str(&format!(
                            "  {:>26}shrink: {}\n",
                            "",
                            shrink_command_for(&f.store, &path)
                        ));
                    }
                }
                None => {}
            }
        }
    }
    text.push_str(&format_causes(&causes(r)));
    text
}

/// The message naming every file that could not be written (`saved`'s and `suspects'`),
/// or `None` when all were: the findings were reported but not kept, so the command
/// fails after printing them.
pub fn unsaved(saved: &[Finding], suspects: &[Suspect]) -> Option<String> {
    let errors: Vec<&str> = saved
        .iter()
        .filter_map(|f| f.write_error.as_deref())
        .chain(suspects.iter().filter_map(|s| s.write_error.as_deref()))
        .collect();
    not_saved(&errors, saved.len() + suspects.len())
}

/// "N of TOTAL findings could not be saved", naming each error; `None` for no error.
fn not_saved(errors: &[&str], total: usize) -> Option<String> {
    (!errors.is_empty()).then(|| {
        format!(
            "{} of {total} findings could not be saved (they are reported above):\n  {}",
            errors.len(),
            errors.join("\n  ")
        )
    })
}

/// [`unsaved`] for a result: every scenario that could not be written, and
/// `result_error` (the result file's), or `None` when everything was written.
pub fn not_written(result: &ResultFile<FuzzResult>, result_error: Option<&str>) -> Option<String> {
    let scenarios = &result.result.scenarios;
    let suspects = &result.result.suspects;
    let unsaved: Vec<&str> = scenarios
        .iter()
        .filter_map(|f| f.saved.write_error.as_deref())
        .chain(suspects.iter().filter_map(|s| s.write_error.as_deref()))
        .collect();
    let mut errors: Vec<String> = not_saved(&unsaved, scenarios.len() + suspects.len())
        .into_iter()
        .collect();
    if let Some(e) = result_error {
        errors.push(format!(
            "the result file could not be written (the results are reported above): {e}"
        ));
    }
    (!errors.is_empty()).then(|| errors.join("\n"))
}

/// Suspects grouped by store and kind, each with its seeds, for a text report:
/// `state-leak on STORE: seeds 3, 5 (…)`, then the first one's reason and file.
pub fn format_suspects(suspects: &[Suspect]) -> String {
    let mut out = String::new();
    let mut groups: Vec<(&str, SuspectKind, Vec<&Suspect>)> = Vec::new();
    for s in suspects {
        match groups
            .iter_mut()
            .find(|(store, kind, _)| *store == s.store && *kind == s.kind)
        {
            Some(g) => g.2.push(s),
            None => groups.push((&s.store, s.kind, vec![s])),
        }
    }
    for (store, kind, members) in groups {
        let seeds: Vec<String> = members
            .iter()
            .map(|s| s.seed.map_or("a scenario".to_string(), |n| n.to_string()))
            .collect();
        let label = match kind {
            SuspectKind::StateLeak => "LEAKS STATE across reset",
            SuspectKind::Nondeterministic => "is NONDETERMINISTIC",
            SuspectKind::Flaky => "has FLAKY failures",
        };
        out.push_str(&format!(
            "{kind}: {store} {label} (seed{} {})\n",
            if seeds.len() == 1 { "" } else { "s" },
            seeds.join(", ")
        ));
        for s in members {
            out.push_str(&format!("  {}\n", s.headline()));
            if let Some(cause) = &s.cause {
                for line in cause.lines() {
                    out.push_str(&format!("    {line}\n"));
                }
            }
            match (&s.scenario, &s.write_error) {
                (_, Some(e)) => out.push_str(&format!("    first run's trace NOT SAVED: {e}\n")),
                (Some(path), None) => {
                    out.push_str(&format!("    first run's trace: {}\n", path.display()))
                }
                (None, None) => {}
            }
        }
    }
    out
}
