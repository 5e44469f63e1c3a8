//! `reconcile-sim check [--store NAME] [--scenarios DIR] [--seeds N] [--seed S]
//! [--junit FILE] [--json] [--out DIR]`: the CI gate. See `reconcile_sim::campaign::check`
//! for what a scenario must do with and without `--store`.

use std::path::{Path, PathBuf};

use reconcile_sim::campaign::check::{
    batch_parts, junit_xml, scenario_message, seed_start_from, CheckReport, CheckRequest,
    ScenarioVerdict, DEFAULT_SEEDS,
};
use reconcile_sim::campaign::findings::replay_command_for;
use reconcile_sim::campaign::merge::check::CheckConfig;
use reconcile_sim::campaign::merge::{CheckResult, ResultFile, ShardSet};
use reconcile_sim::campaign::pipeline::check::check;
use reconcile_sim::campaign::pipeline::text::{self, format_suspects};

use reconcile_sim::model::store::{CrashCause, StoreFactory};

use super::flags::{
    resolve_stores, seed_range, AllowExecFlag, ExecFlags, JobsFlag, LimitFlags, OutFlag,
    StrategyFlags,
};
use super::sharding::ShardFlags;
use super::verdict::Verdict;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    world: super::flags::WorldFlag,
    #[command(flatten)]
    invariants: super::flags::InvariantFlags,
    /// The store under test (a name, or `all`). Without it, each scenario is replayed on
    /// the store it names and must reproduce its `expect`, and nothing is fuzzed.
    #[arg(long)]
    store: Option<String>,
    /// Where the scenarios are (searched recursively for `*.json`).
    #[arg(long, default_value = "scenarios")]
    scenarios: PathBuf,
    /// Seeds to fuzz per store under test (0 skips fuzzing, and with `--store` needs
    /// `--allow-empty`: a gate whose fuzzing a mistyped variable turned off must not pass).
    #[arg(long, default_value_t = DEFAULT_SEEDS)]
    seeds: u64,
    /// Where the seeds start: a number, or any string (a commit hash), hashed.
    #[arg(long, default_value = "0")]
    seed: String,
    #[command(flatten)]
    strategy: StrategyFlags,
    #[command(flatten)]
    jobs: JobsFlag,
    /// Also write the results as JUnit XML to this file.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Known failures of the store under test: a directory of scenario files, each the
    /// minimal witness of one root-cause class of the store it names (as `check`, `fuzz`
    /// and `nightly` write them). Failures of these classes are accepted; a new class
    /// fails the check and is named; a known failure that no longer fails is reported as
    /// fixed.
    #[arg(long, value_name = "DIR", requires = "store")]
    known: Option<PathBuf>,
    /// Accept a check that does less than it could: a scenarios directory holding no
    /// scenario file, or `--seeds 0` with `--store` (by default each is an error: a gate
    /// that replays or fuzzes nothing proves nothing).
    #[arg(long)]
    allow_empty: bool,
    /// Where failures of new classes are written, shrunk (one file per class).
    #[command(flatten)]
    out: OutFlag,
    #[command(flatten)]
    limits: LimitFlags,
    #[command(flatten)]
    sharding: ShardFlags,
    #[command(flatten)]
    allow: AllowExecFlag,
    #[command(flatten)]
    exec: ExecFlags,
    /// Run the first seeds of the store under test again (twice on its processes, then in
    /// fresh ones) and compare every effect and render: a store whose runs differ fails
    /// the check as `nondeterministic` or `state-leak`. On by default for `exec:` stores.
    /// (With `--shard`, shard 1 runs it.)
    #[arg(long, overrides_with = "no_check_determinism")]
    check_determinism: bool,
    /// Do not run seeds again to compare them (the default for in-process stores).
    #[arg(long)]
    no_check_determinism: bool,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let strategy = args.strategy.spec()?;
    let jobs = args.jobs.jobs()?;
    seed_range(seed_start_from(&args.seed), args.seeds, "--seed + --seeds")?;
    if args.seeds == 0 && args.store.is_some() && !args.allow_empty {
        anyhow::bail!("--seeds 0 fuzzes nothing: the check would only replay the scenarios, and a gate whose fuzzing was turned off by mistake would pass (--allow-empty replays them alone)");
    }
    let under_test = args
        .store
        .as_deref()
        .map(|s| resolve_stores(s, args.exec))
        .transpose()?;
    let exec = args.exec.options()?;
    if let (false, Some(stores)) = (args.json, &under_test) {
        print!("{}", super::flags::settings_lines(stores));
    }
    let determinism = if args.no_check_determinism {
        false
    } else {
        args.check_determinism
            || args
                .store
                .as_deref()
                .is_some_and(|s| s.starts_with(reconcile_sim::exec::SPEC_PREFIX))
    };
    let request = CheckRequest {
        scenarios_dir: args.scenarios.clone(),
        under_test: under_test
            .as_ref()
            .map(|v| v.iter().map(|b| b.as_ref() as &dyn StoreFactory).collect()),
        seeds: args.seeds,
        seed_start: seed_start_from(&args.seed),
        strategy,
        jobs,
        out: args.out.out.clone(),
        limits: args.limits.limits(),
        known: args.known.clone(),
        shard: args.sharding.shard(),
        determinism,
        allow_empty: args.allow_empty,
        worlds: super::flags::worlds(&args.world, &args.invariants)?,
    };
    let started = std::time::Instant::now();
    let allow_exec = args.allow.allow_exec;
    let run = check(
        &request,
        &args.seed,
        &|path, sc| {
            reconcile_sim::store::recorded::resolve_recorded(
                &sc.store,
                path,
                sc.store_dir.as_deref(),
                exec,
                allow_exec,
            )
        },
        args.sharding.result.as_deref(),
    )?;
    output(
        &run.result,
        &run.report,
        args.junit.as_deref(),
        args.json,
        run.result_error.into_iter().collect(),
        Some(started),
    )
}

/// Write the JUnit file, if asked, and print the JSON or the text of `report`, which is
/// `result`'s with the found failures' paths where they were written (and `started`'s
/// time taken on stderr after the text, if given). Every file that could not be written
/// (`write_errors`, a found failure's, a suspect's, the JUnit file) fails the check
/// (exit 2), after the report.
pub(super) fn output(
    result: &ResultFile<CheckResult>,
    report: &CheckReport,
    junit: Option<&Path>,
    json: bool,
    others: Vec<String>,
    started: Option<std::time::Instant>,
) -> anyhow::Result<Verdict> {
    let mut write_errors: Vec<String> = report
        .found
        .iter()
        .filter_map(|f| f.write_error.clone())
        .chain(report.suspects.iter().filter_map(|s| s.write_error.clone()))
        .chain(others)
        .collect();
    if let Some(path) = junit {
        if let Err(e) =
            reconcile_sim::util::fs::write_atomically(path, junit_xml(report).as_bytes())
        {
            write_errors.push(format!("cannot write {}: {e}", path.display()));
        }
    }
    if json {
        let mut value = serde_json::to_value(report)?;
        if !result.shards.complete() {
            value["shards"] = serde_json::to_value(&result.shards)?;
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print!(
            "{}",
            format_text(report, &result.result.config, &result.shards)
        );
        if let Some(started) = started {
            eprintln!("(check took {:.1?})", started.elapsed());
        }
    }
    if !write_errors.is_empty() {
        anyhow::bail!(
            "the check could not write its results (they are reported above):\n  {}",
            write_errors.join("\n  ")
        );
    }
    Ok(if report.ok() {
        Verdict::Clean
    } else {
        Verdict::Violation
    })
}

fn format_text(report: &CheckReport, config: &CheckConfig, shards: &ShardSet) -> String {
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
    out.push_str(&format!(
        "scenarios: {} replayed from {}, {} failed{}\n",
        report.scenarios.len(),
        config.scenarios,
        failed,
        if has_store {
            " (each must break nothing on the store under test)"
        } else {
            " (each must reproduce its expect on the store it names)"
        }
    ));
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
            super::interrupt::first_name()
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
            reconcile_sim::campaign::check::BATCH_SEEDS
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

/// One entry per new failure: its class, how far it shrank, where it was saved.
fn push_found(out: &mut String, report: &CheckReport) {
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
            "  {label} on {}: {} [{}] ({found_by}): shrunk {} → {} steps{}\n        {}\n        {}\n",
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
            reconcile_sim::trace::assume::describe(&f.needs),
            match &f.write_error {
                Some(e) => format!("NOT SAVED: {e}"),
                None => format!("replay: {}", replay_command_for(&f.store, &f.path)),
            }
        ));
        push_cause(out, f.cause.as_ref(), "        ");
        if let Some(why) = &f.gave_up {
            out.push_str(&format!("        warning: {why}\n"));
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
