//! What `check` prints: the scenarios replayed, the batches fuzzed, the new classes found
//! (shrunk, saved, with their replay commands), the determinism check and the verdict.
//! The CLI prints it; the engine inside Node returns it.

use crate::campaign::check::{batch_parts, scenario_message, CheckReport, ScenarioVerdict};
use crate::campaign::findings::{replay_command_for, shrink_command_for};
use crate::campaign::merge::check::CheckConfig;
use crate::campaign::merge::ShardSet;
use crate::campaign::pipeline::text::{self, format_suspects};
use crate::model::store::CrashCause;

/// The text `check` prints for `report` (of a check configured as `config`, over
/// `shards`); `stopped_by` names what interrupted it, if it was.
pub fn text(
    report: &CheckReport,
    config: &CheckConfig,
    shards: &ShardSet,
    stopped_by: &str,
) -> String {
    let mut out = String::new();
    let has_store = config.stores.is_some();
    if !shards.complete() {
        out.push_str(&format!(
            "{} of the check: shard 1 replays the scenarios; each shard fuzzes one batch in {}\n",
            text::shards_label(shards),
            shards.count
        ));
    }
    let worlds = config.worlds.header();
    if !worlds.is_empty() {
        out.push_str(&format!("{worlds}\n"));
    }
    let failed = report.scenarios.iter().filter(|s| !s.ok).count();
    // No scenarios folder (the default one is missing): one line says so.
    let absent = format!(
        "no {} folder here; --scenarios DIR replays a folder of them",
        config.scenarios
    );
    if config.scenarios_absent && report.scenarios.is_empty() {
        out.push_str(&format!("scenarios: none ({absent})\n"));
    } else {
        let from = match (config.scenarios_absent, &config.known) {
            (true, Some(known)) => format!("{known} ({absent})"),
            _ => config.scenarios.clone(),
        };
        out.push_str(&format!(
            "scenarios: {} replayed from {from}, {} failed{}\n",
            report.scenarios.len(),
            failed,
            if has_store {
                " (each must break nothing on the store under test)"
            } else {
                " (each must reproduce its expect on the store it names)"
            }
        ));
    }
    push_scenarios(&mut out, report);
    out.push_str(&format_fuzz(report, config));
    if report.determinism_seeds > 0 {
        out.push_str(&format!(
            "determinism: seeds {}..{} run again (twice on the store's processes, then in fresh ones): {}\n",
            report.seed_start,
            report.seed_start + report.determinism_seeds,
            if report.suspects.is_empty() {
                "identical"
            } else {
                "see below"
            }
        ));
    }
    out.push_str(&format_suspects(&report.suspects));
    if report.interrupted {
        out.push_str(&format!(
            "check: INTERRUPTED ({}; what ran is reported above)\n",
            stopped_by
        ));
    } else if report.ok() {
        out.push_str("check: PASS\n");
    } else {
        out.push_str("check: FAIL\n");
    }
    out
}

/// The fuzzing part of the text report.
fn format_fuzz(report: &CheckReport, config: &CheckConfig) -> String {
    let mut out = String::new();
    if config.stores.is_none() {
        out.push_str("fuzz: skipped (no --store: pass --store NAME to fuzz a store under test)\n");
    } else if config.seeds == 0 {
        out.push_str("fuzz: skipped (--seeds 0)\n");
    } else {
        out.push_str(&format!(
            "fuzz: {} seeds per store from {} (--seed {}), strategy {}, batches of {}\n",
            config.seeds,
            report.seed_start,
            config.seed,
            report.strategy,
            crate::campaign::check::BATCH_SEEDS
        ));
        push_batches(&mut out, report);
        if !report.baseline.classes.is_empty() {
            out.push_str(&format!(
                "known classes: {} (from {})\n",
                report.baseline.classes.len(),
                config
                    .known
                    .clone()
                    .unwrap_or_else(|| "files marked known_failure".to_string())
            ));
        }
        push_found(&mut out, report);
    }
    out
}

/// One line per replayed scenario (a failure with its cause and replay command).
fn push_scenarios(out: &mut String, report: &CheckReport) {
    for s in &report.scenarios {
        let skipped = if s.skipped > 0 {
            format!(" ({} steps not enabled on this store, skipped)", s.skipped)
        } else {
            String::new()
        };
        if matches!(s.verdict, ScenarioVerdict::Known | ScenarioVerdict::Fixed) {
            let label = if s.verdict == ScenarioVerdict::Known {
                "known"
            } else {
                "FIXED"
            };
            out.push_str(&format!(
                "  {label:<5} {}: {}{skipped}\n",
                s.path.display(),
                scenario_message(s)
            ));
        } else if s.ok {
            out.push_str(&format!(
                "  ok    {} on {}{skipped}\n",
                s.path.display(),
                s.store
            ));
        } else {
            out.push_str(&format!(
                "  FAIL  {}: {}{skipped}\n",
                s.path.display(),
                scenario_message(s),
            ));
            push_cause(out, s.cause.as_ref(), "        ");
            out.push_str(&format!("        replay: {}\n", s.replay));
        }
    }
}

/// One line per fuzzed batch (a failing one with its new classes' causes).
fn push_batches(out: &mut String, report: &CheckReport) {
    for b in &report.batches {
        if b.ok() {
            out.push_str(&format!(
                "  ok    {} seeds {}..{}\n",
                b.store,
                b.seed_start,
                b.seed_start + b.seeds
            ));
        } else {
            // A line per class: a batch of a buggy store shows a dozen.
            let parts = batch_parts(b);
            out.push_str(&format!(
                "  FAIL  {} seeds {}..{}:{}",
                b.store,
                b.seed_start,
                b.seed_start + b.seeds,
                if parts.len() == 1 { " " } else { "\n        " }
            ));
            out.push_str(&parts.join("\n        "));
            out.push('\n');
            for c in b.new_classes().filter(|c| c.cause.is_some()) {
                out.push_str(&format!("        {} (seed {}):\n", c.name, c.first_seed));
                push_cause(out, c.cause.as_ref(), "          ");
            }
        }
    }
}

/// New classes (`STORE: CLASS`) grouped by their best line
/// ([`crate::trace::localize::causes`]).
pub fn causes(report: &CheckReport) -> Vec<crate::trace::localize::Cause> {
    crate::trace::localize::causes(report.found.iter().filter_map(|f| {
        let name = crate::trace::class::name_or_invariant(f.class.as_ref(), f.invariant);
        Some((format!("{}: {name}", f.store), f.localized.as_ref()?))
    }))
}

/// One entry per new failure: its class, how far it shrank, where it was saved (and,
/// localized, its best lines), then the suspected causes.
fn push_found(out: &mut String, report: &CheckReport) {
    push_each_found(out, report);
    out.push_str(&super::text::format_causes(&causes(report)));
}

fn push_each_found(out: &mut String, report: &CheckReport) {
    for f in &report.found {
        let found_by = match f.seed {
            Some(seed) => format!("seed {seed}"),
            None => "a scenario".to_string(),
        };
        let label = if report.baseline.covers(&f.store) {
            "NEW class"
        } else {
            "new failure"
        };
        out.push_str(&format!(
            "  {label} on {}: {} [{}] ({found_by}): shrunk {} → {} steps{}\n        {}{}\n        {}\n",
            f.store,
            f.class.as_ref().map_or("-".to_string(), |c| c.to_string()),
            f.invariant,
            f.original_steps,
            f.steps,
            if f.one_minimal {
                ""
            } else {
                " (gave up early)"
            },
            crate::trace::assume::describe(&f.needs),
            super::text::unsearched(f.needs_unsearched),
            match &f.write_error {
                Some(e) => format!("NOT SAVED: {e}"),
                None => format!("replay: {}", replay_command_for(&f.store, &f.path)),
            }
        ));
        push_cause(out, f.cause.as_ref(), "        ");
        if let Some(loc) = &f.localized {
            out.push_str(&loc.format(super::text::LINES_SHOWN, "        "));
        }
        if let Some(why) = &f.gave_up {
            out.push_str(&format!("        warning: {why}\n"));
            if f.write_error.is_none() {
                out.push_str(&format!(
                    "        shrink: {}\n",
                    shrink_command_for(&f.store, &f.path)
                ));
            }
        }
    }
}

/// A crash's cause and stderr tail, one line each, indented by `indent`.
fn push_cause(out: &mut String, cause: Option<&CrashCause>, indent: &str) {
    for line in cause.map(CrashCause::lines).unwrap_or_default() {
        out.push_str(indent);
        out.push_str(&line);
        out.push('\n');
    }
}
