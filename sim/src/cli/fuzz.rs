//! `reconcile-sim fuzz --store NAME|all (--seeds N | --time DURATION) [--jobs J] [--json]`

use std::path::Path;

use reconcile_sim::campaign::findings::{replay_command_for, Finding};
use reconcile_sim::campaign::fuzz::{
    format_table, run_campaign_shard, Budget, Campaign, CampaignOutcome, CHUNK_SEEDS,
};
use reconcile_sim::campaign::merge::{FuzzResult, ResultFile, Shards};
use reconcile_sim::campaign::recheck::{
    check_determinism, format_suspects, settle, Settled, Suspect, DETERMINISM_SEEDS,
};
use reconcile_sim::campaign::shard::format_ranges;
use reconcile_sim::model::store::{CrashCause, StoreFactory};
use reconcile_sim::run::interrupt;
use reconcile_sim::trace::assume;
use reconcile_sim::trace::shrink::Limits;

use super::flags::{
    resolve_stores, seed_range, ExecFlags, JobsFlag, LimitFlags, OutFlag, StrategyFlags,
};
use super::progress::{Measure, Progress};
use super::sharding::ShardFlags;
use super::Verdict;

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
    /// Also report, per store, which interesting orderings the campaign reached (counted
    /// during the runs).
    #[arg(long)]
    coverage: bool,
    /// Do not tell root-cause classes apart: report and save the first failure of each
    /// invariant only (each failing seed then runs once, not once per class it shows).
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
    #[command(flatten)]
    exec: ExecFlags,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let strategy = args.strategy.spec()?;
    let owned = resolve_stores(&args.store, args.exec)?;
    let stores: Vec<&dyn StoreFactory> = owned.iter().map(|b| b.as_ref()).collect();
    let limits = args.limits.limits();
    let budget = budget(&args, limits)?;
    let jobs = args.jobs.jobs()?;
    let shard = args.sharding.shard();
    let campaign = Campaign {
        stores,
        strategy,
        seed_start: args.seed_start,
        budget,
        jobs,
        coverage: args.coverage,
        classes: !args.no_classes,
        worlds: super::flags::worlds(&args.world, &args.invariants)?,
    };
    let started = std::time::Instant::now();
    let progress = Progress::start(match (args.seeds, args.time) {
        (Some(n), _) => Measure::Runs(
            shard
                .seeds_of(n, CHUNK_SEEDS)
                .saturating_mul(campaign.stores.len() as u64),
        ),
        (None, t) => Measure::Time(t.unwrap_or_default()),
    });
    let outcome = run_campaign_shard(
        &campaign,
        shard,
        &|done| progress.runs(done),
        interrupt::flag(),
    );
    let deadline = args.time.map(|t| started + t);
    let recheck_determinism = args.check_determinism && shard.index == 1;
    let Settled {
        findings: saved,
        suspects,
    } = settle_failures(
        &campaign,
        &outcome,
        &args.out.out,
        limits,
        deadline,
        recheck_determinism,
        &progress,
    );
    progress.finish();
    let result = ResultFile::new(
        Shards::one(shard),
        FuzzResult::of_run(&campaign, shard, limits, &outcome, &saved, suspects)?,
    );
    // A result file that cannot be written fails the run (exit 2) after the table, as a
    // scenario file does.
    let result_error = result.save_to(args.sharding.result.as_deref());
    if args.json {
        print_json(&result, &args.out.out)?;
    } else {
        let runs = outcome.report.seeds * campaign.stores.len() as u64;
        print_text(
            &result,
            &args.out.out,
            runs,
            started.elapsed(),
            campaign.jobs,
        );
    }
    not_written(&result, result_error)?;
    Ok(verdict(&result))
}

/// Recheck the first failing seed of each (store, class) — or (store, invariant) with
/// `--no-classes` —, then shrink and save it, all within `--time`; one that does not happen
/// again is a suspect (flaky, or a state leak), saved as found; after Ctrl-C, they are
/// saved unshrunk. Then, with `recheck_determinism` and time left, run the first seeds
/// again (`--check-determinism`).
fn settle_failures(
    campaign: &Campaign<'_>,
    outcome: &CampaignOutcome,
    out: &Path,
    limits: Limits,
    deadline: Option<std::time::Instant>,
    recheck_determinism: bool,
    progress: &Progress,
) -> Settled {
    let count = outcome.first_failures.len();
    let mut settled = settle(
        &campaign.stores,
        &outcome.first_failures,
        out,
        limits,
        deadline,
        &|i, f| {
            progress.say(format!(
                "shrinking {}/{count}: {} {}",
                i + 1,
                f.store,
                f.class
                    .as_ref()
                    .map_or(f.invariant.to_string(), |c| c.to_string())
            ))
        },
    );
    let in_time = deadline.is_none_or(|d| std::time::Instant::now() < d);
    if recheck_determinism && in_time && !interrupt::requested() {
        progress.say("running the first seeds again (--check-determinism)".to_string());
        let seeds = DETERMINISM_SEEDS.min(outcome.report.seeds);
        let start = outcome.report.seed_start;
        settled.suspects.extend(check_determinism(
            &campaign.stores,
            campaign.strategy,
            &campaign.worlds,
            start..start + seeds,
            out,
        ));
    }
    settled
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
        // campaign leaves a quarter of the budget (at most one --max-shrink-time) to
        // shrink it in.
        (None, Some(t)) => Budget::TimeWithShrinking {
            total: t,
            reserve: limits.time_max.min(t / 4),
        },
        (None, None) => unreachable!("clap requires one"),
    })
}

/// The text report: the table on stdout, the run's size and time on stderr, then the
/// details and the warnings.
fn print_text(
    result: &ResultFile<FuzzResult>,
    out: &Path,
    runs: u64,
    elapsed: std::time::Duration,
    jobs: usize,
) {
    let (table, details) = text(result, out);
    print!("{table}");
    eprintln!(
        "({runs} runs in {elapsed:.1?} on {jobs} thread{})",
        if jobs == 1 { "" } else { "s" }
    );
    print!("{details}");
    for w in warnings(result, out) {
        eprintln!("{w}");
    }
}

/// Exit 1 when any store failed any seed, or a second look found a store unstable.
pub(super) fn verdict(result: &ResultFile<FuzzResult>) -> Verdict {
    if result.result.report.any_failure() || !result.result.suspects.is_empty() {
        Verdict::Violation
    } else {
        Verdict::Clean
    }
}

/// An error naming every file that could not be written, for after everything was
/// printed: the findings were reported but not kept, so the command fails (exit 2).
pub fn unsaved(saved: &[Finding], suspects: &[Suspect]) -> anyhow::Result<()> {
    let errors: Vec<&str> = saved
        .iter()
        .filter_map(|f| f.write_error.as_deref())
        .chain(suspects.iter().filter_map(|s| s.write_error.as_deref()))
        .collect();
    if errors.is_empty() {
        return Ok(());
    }
    anyhow::bail!(
        "{} of {} findings could not be saved (they are reported above):\n  {}",
        errors.len(),
        saved.len() + suspects.len(),
        errors.join("\n  ")
    )
}

/// [`unsaved`] for a result (what `fuzz` and `merge` print from): every scenario that
/// could not be written, and `result_error` (the `--result` file's), after the table.
pub(super) fn not_written(
    result: &ResultFile<FuzzResult>,
    result_error: Option<String>,
) -> anyhow::Result<()> {
    let scenarios = &result.result.scenarios;
    let suspects = &result.result.suspects;
    let unsaved: Vec<&str> = scenarios
        .iter()
        .filter_map(|f| f.saved.write_error.as_deref())
        .chain(suspects.iter().filter_map(|s| s.write_error.as_deref()))
        .collect();
    let mut errors = Vec::new();
    if !unsaved.is_empty() {
        errors.push(format!(
            "{} of {} findings could not be saved (they are reported above):\n  {}",
            unsaved.len(),
            scenarios.len() + suspects.len(),
            unsaved.join("\n  ")
        ));
    }
    if let Some(e) = result_error {
        errors.push(format!(
            "the result file could not be written (the results are reported above): {e}"
        ));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        anyhow::bail!("{}", errors.join("\n"))
    }
}

/// The JSON `fuzz --json` prints; scenario paths under `out`. A result that is not one
/// range of seeds from the first (a shard, or shards with gaps between them) also says
/// which ranges it covers (`covered`) and which shards it holds (`shards`).
pub(super) fn print_json(result: &ResultFile<FuzzResult>, out: &Path) -> anyhow::Result<()> {
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
                "seed": f.seed,
                "path": path.display().to_string(),
                "steps": f.saved.steps,
                "one_minimal": f.saved.gave_up.is_none(),
                "replay": replay_command_for(&f.store, &path),
                "cause": f.cause,
                "write_error": f.saved.write_error,
            })
        })
        .collect();
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
    println!("{}", serde_json::to_string_pretty(&value)?);
    Ok(())
}

/// `shard 2/3`, `shards 1, 3 of 3`.
pub(super) fn shards_label(shards: &Shards) -> String {
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
pub(super) fn text(result: &ResultFile<FuzzResult>, out: &Path) -> (String, String) {
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
                "reproduce {}: reconcile-sim run --store {} --seed {seed}{}{}\n",
                s.store,
                shell_words::quote(&s.store),
                report.strategy.flags(),
                report.worlds.flags()
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
    }
    for (store, c) in r.config.stores.iter().zip(&r.coverage) {
        details.push_str(&format!(
            "coverage {store} (runs reaching each ordering, counted per occurrence):\n"
        ));
        details.push_str(&c.format());
    }
    (table, details)
}

/// The warnings `fuzz` prints on stderr: scenarios whose shrinking gave up early.
pub(super) fn warnings(result: &ResultFile<FuzzResult>, out: &Path) -> Vec<String> {
    result
        .result
        .scenarios
        .iter()
        .filter_map(|f| {
            let why = f.saved.gave_up.as_ref()?;
            Some(format!(
                "warning: {why} ({})",
                out.join(&f.saved.file).display()
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
            if let Some(needs) = file.and_then(|f| f.needs.as_deref()) {
                text.push_str(&format!("  {:>26}{}\n", "", assume::describe(needs)));
            }
            match file {
                Some(f) if f.saved.write_error.is_some() => {
                    text.push_str(&format!("  {:>26}NOT SAVED (see the error below)\n", ""))
                }
                Some(f) => text.push_str(&format!(
                    "  {:>26}replay: {}\n",
                    "",
                    replay_command_for(&f.store, &out.join(&f.saved.file))
                )),
                None => {}
            }
        }
    }
    text
}
