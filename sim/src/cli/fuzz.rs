//! `reconcile-sim fuzz --store NAME|all (--seeds N | --time DURATION) [--jobs J] [--json]`

use std::path::Path;

use reconcile_sim::campaign::fuzz::{Budget, Campaign, CHUNK_SEEDS};
use reconcile_sim::campaign::merge::{FuzzResult, ResultFile};
use reconcile_sim::campaign::pipeline::fuzz::{fuzz, FuzzPlan, FuzzRun};
use reconcile_sim::campaign::pipeline::text;
use reconcile_sim::model::store::StoreFactory;
use reconcile_sim::run::interrupt;
use reconcile_sim::trace::shrink::Limits;

use super::flags::{
    resolve_stores, seed_range, ExecFlags, JobsFlag, LimitFlags, OutFlag, StrategyFlags,
};
use super::progress::{Measure, Progress};
use super::sharding::ShardFlags;
use super::verdict::Verdict;

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("budget").required(true).args(["seeds", "time"])))]
pub struct Args {
    #[command(flatten)]
    world: super::flags::WorldFlag,
    #[command(flatten)]
    invariants: super::flags::InvariantFlags,
    /// A store name, `all` for every shipped store, or `exec:'COMMAND ARGS'` for a store
    /// in another process (docs/protocol.md).
    #[arg(long)]
    store: String,
    /// Run this many seeds per store.
    #[arg(long)]
    seeds: Option<u64>,
    /// Run for this long (e.g. `10s`, `5m`); the report covers every seed finished by
    /// every store, from the first one up.
    #[arg(long, value_parser = super::flags::duration)]
    time: Option<std::time::Duration>,
    /// The first seed.
    #[arg(long, default_value_t = 0)]
    seed_start: u64,
    #[command(flatten)]
    jobs: JobsFlag,
    #[command(flatten)]
    strategy: StrategyFlags,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// Where failures are written, shrunk, as scenario files (the first failing seed of
    /// each store and invariant).
    #[command(flatten)]
    out: OutFlag,
    #[command(flatten)]
    limits: LimitFlags,
    #[command(flatten)]
    settle: super::flags::SettleFlag,
    /// Also report, per store, which interesting orderings the campaign reached (counted
    /// during the runs).
    #[arg(long)]
    coverage: bool,
    /// Do not tell root-cause classes apart: report and save the first failure of each
    /// invariant only (each run then stops at its first failure, and only those failures
    /// are shrunk).
    #[arg(long)]
    no_classes: bool,
    #[command(flatten)]
    sharding: ShardFlags,
    /// Also run the first seeds again (twice on the campaign's processes and, for an
    /// `exec:` store, in fresh ones) and compare every effect and render: a store
    /// whose runs differ is reported `nondeterministic`, one whose runs on reused
    /// processes differ from fresh ones `state-leak`. (With `--shard`, shard 1 runs it.)
    #[arg(long)]
    check_determinism: bool,
    /// Accept a budget that runs nothing (`--seeds 0`, `--time 0s`): by default that is an
    /// error, since a gate that fuzzes nothing proves nothing (a mistyped CI variable
    /// would otherwise pass).
    #[arg(long)]
    allow_empty: bool,
    /// Print every class with its shrunk scenario and replay command (and every warning)
    /// after the table, instead of a line per store and the file that holds them.
    #[arg(long, short)]
    verbose: bool,
    /// Also write an HTML report beside the scenarios: `OUT/report.html` (the table,
    /// every class with its seeds and needs) and each class's page (`OUT/<scenario>.html`:
    /// the interleaving drawn step by step). Self-contained: opens from disk.
    #[arg(long)]
    html: bool,
    /// Rank the store's own source lines for each class (an `exec:` store through
    /// reconcile-sim-adapter): Ochiai over the failing and passing runs its shrinking
    /// made, the best lines printed under each class and classes sharing a best line
    /// grouped as one suspected cause (docs/localize.md). Experimental: on the planted
    /// bugs of docs/localize.md the faulty line is in the top 3 for 6 of 35 classes.
    #[arg(long)]
    localize: bool,
    #[command(flatten)]
    exec: ExecFlags,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let strategy = args.strategy.spec()?;
    let exec = ExecFlags {
        localize: args.localize,
        ..args.exec
    };
    let owned = resolve_stores(&args.store, exec)?;
    let stores: Vec<&dyn StoreFactory> = owned.iter().map(|b| b.as_ref()).collect();
    if !args.json {
        print!("{}", super::flags::settings_lines(&owned));
    }
    let worlds = super::flags::worlds_under(&args.world, &args.invariants, &stores)?;
    let limits = args.limits.limits();
    let budget = budget(&args, limits)?;
    let shard = args.sharding.shard();
    let plan = FuzzPlan {
        campaign: Campaign {
            stores,
            strategy,
            seed_start: args.seed_start,
            budget,
            jobs: args.jobs.jobs()?,
            coverage: args.coverage,
            classes: !args.no_classes,
            worlds,
        },
        shard,
        out: args.out.out.clone(),
        limits,
        time: args.time,
        settle: args.settle.settle_time,
        check_determinism: args.check_determinism,
        result_file: args.sharding.result.clone(),
        details_file: !args.json && !args.verbose,
        html: args.html,
        partners: None,
    };
    let started = std::time::Instant::now();
    let progress = Progress::start(match (args.seeds, args.time) {
        (Some(n), _) => Measure::Runs(
            shard
                .seeds_of(n, CHUNK_SEEDS)
                .saturating_mul(plan.campaign.stores.len() as u64),
        ),
        (None, t) => Measure::Time(t.unwrap_or_default()),
    });
    let mut run = fuzz(&plan, &progress, interrupt::flag())?;
    if args.localize {
        reconcile_sim::campaign::pipeline::text::not_localized(&mut run.result.result);
    }
    progress.finish();
    let out = &plan.out;
    if args.json {
        let mut value = text::json(&run.result, out)?;
        if let (serde_json::Value::Object(v), serde_json::Value::Object(t)) =
            (&mut value, run.timing.json())
        {
            v.extend(t);
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        let details = match &run.details {
            Some(Ok(path)) if !args.verbose => Some(path.as_path()),
            Some(Err(e)) => {
                eprintln!("warning: {e}; the details follow");
                None
            }
            _ => None,
        };
        print_text(&run, out, started.elapsed(), plan.campaign.jobs, details);
    }
    let mut unwritten = Vec::new();
    if let Some(w) = &run.reports {
        let (lines, errors) = super::report::written_lines(w);
        if !args.json {
            print!("{lines}");
        }
        unwritten = errors;
    }
    // A file that could not be written (a scenario, the result file, a page) fails the
    // run (exit 2), after the table.
    if let Some(e) = text::not_written(&run.result, run.result_error.as_deref()) {
        unwritten.insert(0, e);
    }
    if !unwritten.is_empty() {
        anyhow::bail!("{}", unwritten.join("\n"));
    }
    Ok(verdict(&run.result))
}

/// The campaign's budget: `--seeds` (checked against `--seed-start`), or `--time` with a
/// reserve for shrinking.
fn budget(args: &Args, limits: Limits) -> anyhow::Result<Budget> {
    if !args.allow_empty {
        if args.seeds == Some(0) {
            anyhow::bail!("--seeds 0 runs nothing: a campaign that fuzzes nothing proves nothing (--allow-empty accepts it)");
        }
        if args.time.is_some_and(|t| t.is_zero()) {
            anyhow::bail!("--time 0 runs nothing: a campaign that fuzzes nothing proves nothing (--allow-empty accepts it)");
        }
    }
    Ok(match (args.seeds, args.time) {
        (Some(n), _) => {
            seed_range(args.seed_start, n, "--seed-start + --seeds")?;
            Budget::Seeds(n)
        }
        // The whole run, shrinking included, fits in --time: once something fails, the
        // campaign leaves a third of the budget (at most one --max-shrink-time) to
        // shrink it in (`fuzz --store all --time 5s` shrinks its ~80 classes in about
        // 0.7 s of its 1.7 on two threads).
        (None, Some(t)) => Budget::TimeWithShrinking {
            total: t,
            reserve: limits.time_max.min(t / 3),
        },
        (None, None) => unreachable!("clap requires one"),
    })
}

/// The text report: the table on stdout, the run's size and time on stderr, then a line
/// per store and where the details are (`details_at`), or (`--verbose`, or when they
/// could not be written) the details themselves and the warnings.
fn print_text(
    run: &FuzzRun,
    out: &Path,
    elapsed: std::time::Duration,
    jobs: usize,
    details_at: Option<&Path>,
) {
    let (table, details) = text::text(&run.result, out);
    print!("{table}");
    eprintln!(
        "({} runs in {elapsed:.1?} on {jobs} thread{})",
        run.runs,
        if jobs == 1 { "" } else { "s" }
    );
    eprintln!("{}", run.timing.line());
    match details_at {
        Some(path) => print!("{}", text::summary(&run.result, path)),
        None => {
            print!("{details}");
            for w in text::warnings(&run.result, out) {
                eprintln!("{w}");
            }
        }
    }
}

/// Exit 1 when any store failed any seed, or a second look found a store unstable.
pub(super) fn verdict(result: &ResultFile<FuzzResult>) -> Verdict {
    if result.result.failed() {
        Verdict::Violation
    } else {
        Verdict::Clean
    }
}
