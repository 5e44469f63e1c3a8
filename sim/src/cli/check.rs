//! `reconcile-sim check [--store NAME] [--scenarios DIR] [--seeds N] [--seed S]
//! [--junit FILE] [--json] [--out DIR]`: the CI gate. See `reconcile_sim::campaign::check`
//! for what a scenario must do with and without `--store`.

use std::path::{Path, PathBuf};

use reconcile_sim::campaign::check::{
    junit_xml, seed_start_from, CheckReport, CheckRequest, DEFAULT_SEEDS,
};
use reconcile_sim::campaign::merge::{CheckResult, ResultFile};
use reconcile_sim::campaign::pipeline::check::check;
use reconcile_sim::campaign::pipeline::check_text;

use reconcile_sim::model::store::StoreFactory;

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
    /// Where the scenarios are (searched recursively for `*.json`; default `scenarios`). A
    /// folder named here must exist; without the flag a missing `scenarios` means none.
    #[arg(long, value_name = "DIR")]
    scenarios: Option<PathBuf>,
    /// Seeds to fuzz per store under test (0 skips fuzzing, and with `--store` needs
    /// `--allow-empty`: a gate whose fuzzing a mistyped variable turned off must not pass).
    #[arg(long, default_value_t = DEFAULT_SEEDS)]
    seeds: u64,
    /// Where the seeds start: a number, or any non-empty string (a commit hash), hashed.
    #[arg(long, default_value = "0", value_parser = non_empty_seed)]
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
    settle: super::flags::SettleFlag,
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
    /// Also write an HTML report: `OUT/report.html` (the table, every class with its seeds
    /// and needs, the scenarios replayed) and each new class's page beside its scenario
    /// (the interleaving drawn step by step). Self-contained: opens from disk.
    #[arg(long)]
    html: bool,
    /// Rank the store's own source lines for each new class (an `exec:` store through
    /// reconcile-sim-adapter), from the runs its shrinking made, and group classes sharing
    /// a best line as one suspected cause (docs/localize.md). Experimental: on the planted
    /// bugs of docs/localize.md the faulty line is in the top 3 for 6 of 35 classes.
    #[arg(long)]
    localize: bool,
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
        .map(|s| {
            resolve_stores(
                s,
                ExecFlags {
                    localize: args.localize,
                    ..args.exec
                },
            )
        })
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
    let tested: Vec<&dyn StoreFactory> = under_test
        .iter()
        .flatten()
        .map(|b| b.as_ref() as &dyn StoreFactory)
        .collect();
    let worlds = super::flags::worlds_under(&args.world, &args.invariants, &tested)?;
    let request = CheckRequest {
        scenarios_dir: args
            .scenarios
            .clone()
            .unwrap_or_else(|| PathBuf::from("scenarios")),
        scenarios_named: args.scenarios.is_some(),
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
        worlds,
        settle: args.settle.settle_time,
        html: args.html,
    };
    let started = std::time::Instant::now();
    let allow_exec = args.allow.allow_exec;
    let mut run = check(
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
    if args.localize {
        // A built-in store cannot say which of its lines ran: each of its classes says so.
        for f in run
            .report
            .found
            .iter_mut()
            .filter(|f| f.localized.is_none())
        {
            f.localized = Some(reconcile_sim::trace::localize::Localization::not(
                reconcile_sim::campaign::pipeline::text::NOT_LOCALIZED_BUILT_IN,
            ));
        }
    }
    let mut others: Vec<String> = run.result_error.into_iter().collect();
    let mut footer = String::new();
    if let Some(w) = &run.reports {
        let (lines, errors) = super::report::written_lines(w);
        footer = lines;
        others.extend(errors);
    }
    output(
        &run.result,
        &run.report,
        args.junit.as_deref(),
        args.json,
        others,
        Some((started, &run.timing)),
        &footer,
    )
}

/// Write the JUnit file, if asked, and print the JSON or the text of `report`, which is
/// `result`'s with the found failures' paths where they were written (and, if given, the
/// time taken since it started on stderr after the text, and how long the campaign and
/// settling took, in the text and the JSON). Every file that could not be written
/// (`write_errors`, a found failure's, a suspect's, the JUnit file) fails the check
/// (exit 2), after the report. `footer` is printed after the text (not with `--json`).
pub(super) fn output(
    result: &ResultFile<CheckResult>,
    report: &CheckReport,
    junit: Option<&Path>,
    json: bool,
    others: Vec<String>,
    timing: Option<(
        std::time::Instant,
        &reconcile_sim::campaign::settle_budget::Timing,
    )>,
    footer: &str,
) -> anyhow::Result<Verdict> {
    let mut write_errors = report.write_errors();
    write_errors.extend(others);
    if let Some(path) = junit {
        if let Err(e) =
            reconcile_sim::util::fs::write_atomically(path, junit_xml(report).as_bytes())
        {
            write_errors.push(format!("cannot write {}: {e}", path.display()));
        }
    }
    if json {
        let mut value = serde_json::to_value(report)?;
        let causes = check_text::causes(report);
        if report.found.iter().any(|f| f.localized.is_some()) {
            value["causes"] = serde_json::to_value(&causes)?;
        }
        if !result.shards.complete() {
            value["shards"] = serde_json::to_value(&result.shards)?;
        }
        if let (Some((_, t)), serde_json::Value::Object(v)) = (timing, &mut value) {
            if let serde_json::Value::Object(t) = t.json() {
                v.extend(t);
            }
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print!(
            "{}",
            check_text::text(
                report,
                &result.result.config,
                &result.shards,
                super::interrupt::first_name()
            )
        );
        if let Some((started, t)) = timing {
            eprintln!("(check took {:.1?})", started.elapsed());
            eprintln!("{}", t.line());
        }
        print!("{footer}");
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

/// `--seed`, refused when empty ([`reconcile_sim::campaign::check::seed_start_checked`]).
fn non_empty_seed(s: &str) -> Result<String, String> {
    reconcile_sim::campaign::check::seed_start_checked(s).map(|_| s.to_string())
}
