//! `reconcile-sim fuzz --store NAME|all (--seeds N | --time DURATION) [--jobs J] [--json]`

use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use indicatif::{ProgressBar, ProgressStyle};
use reconcile_sim::campaign::findings::replay_command;
use reconcile_sim::campaign::findings::{file_for, shrink_and_save};
use reconcile_sim::campaign::fuzz::{
    format_table, run_campaign_shard, Budget, Campaign, CampaignOutcome, CHUNK_SEEDS,
};
use reconcile_sim::campaign::merge::{FuzzResult, ResultFile, Shards};
use reconcile_sim::campaign::shard::{format_ranges, Shard};
use reconcile_sim::model::store::StoreFactory;

use super::flags::{resolve_stores, JobsFlag, LimitFlags, OutFlag, StrategyFlags};
use super::sharding::ShardFlags;
use super::Verdict;

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("budget").required(true).args(["seeds", "time"])))]
pub struct Args {
    /// A store name, `all` for every shipped store, or `exec:'COMMAND ARGS'` for a store
    /// in another process (docs/protocol.md).
    #[arg(long)]
    store: String,
    /// Run this many seeds per store.
    #[arg(long)]
    seeds: Option<u64>,
    /// Run for this long (e.g. `10s`, `5m`); the report covers every seed finished by
    /// every store, from the first one up.
    #[arg(long, value_parser = humantime::parse_duration)]
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
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let strategy = args.strategy.spec()?;
    let owned = resolve_stores(&args.store)?;
    let stores: Vec<&dyn StoreFactory> = owned.iter().map(|b| b.as_ref()).collect();
    let budget = match (args.seeds, args.time) {
        (Some(n), _) => Budget::Seeds(n),
        (None, Some(t)) => Budget::Time(t),
        (None, None) => unreachable!("clap requires one"),
    };
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
    };
    let started = std::time::Instant::now();
    let outcome = run_with_progress(&campaign, shard);
    // Shrink the first failing seed of each (store, class) — or (store, invariant) with
    // --no-classes — and save it.
    let mut saved = Vec::new();
    for failure in &outcome.first_failures {
        let store = *campaign
            .stores
            .iter()
            .find(|s| s.name() == failure.store)
            .expect("a campaign store");
        let file = file_for(&args.out.out, failure);
        saved.push(shrink_and_save(
            store,
            failure,
            &file,
            args.limits.limits(),
        )?);
    }
    let result = ResultFile::new(
        Shards::one(shard),
        FuzzResult::of_run(&campaign, shard, args.limits.limits(), &outcome, &saved)?,
    );
    if let Some(path) = &args.sharding.result {
        result.save(path)?;
    }
    if args.json {
        print_json(&result, &args.out.out)?;
    } else {
        let (table, details) = text(&result, &args.out.out);
        print!("{table}");
        eprintln!(
            "({} runs in {:.1?} on {} thread{})",
            outcome.report.seeds * campaign.stores.len() as u64,
            started.elapsed(),
            campaign.jobs,
            if campaign.jobs == 1 { "" } else { "s" }
        );
        print!("{details}");
        for w in warnings(&result, &args.out.out) {
            eprintln!("{w}");
        }
    }
    Ok(verdict(&result))
}

/// Exit 1 when any store failed any seed.
pub(super) fn verdict(result: &ResultFile<FuzzResult>) -> Verdict {
    if result.result.report.any_failure() {
        Verdict::Violation
    } else {
        Verdict::Clean
    }
}

/// Run the campaign, with a progress bar on a terminal.
fn run_with_progress(campaign: &Campaign<'_>, shard: Shard) -> CampaignOutcome {
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = match campaign.budget {
            Budget::Seeds(n) => ProgressBar::new(n * campaign.stores.len() as u64),
            Budget::Time(_) => ProgressBar::new_spinner(),
        };
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {elapsed_precise} [{bar:40}] {pos}/{len} runs ({per_sec}, eta {eta})",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar
    });
    let progress = |done: u64| {
        if let Some(bar) = &bar {
            if done.is_multiple_of(256) {
                bar.set_position(done);
            }
        }
    };
    let outcome = run_campaign_shard(campaign, shard, &progress, &AtomicBool::new(false));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    outcome
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
                "seed": f.seed,
                "path": path.display().to_string(),
                "steps": f.saved.steps,
                "one_minimal": f.saved.gave_up.is_none(),
                "replay": replay_command(&path),
            })
        })
        .collect();
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

/// The text `fuzz` prints: the header and table, then the rest (reproduce commands,
/// classes, shrunk files, coverage); scenario paths under `out`.
pub(super) fn text(result: &ResultFile<FuzzResult>, out: &Path) -> (String, String) {
    let r = &result.result;
    let report = &r.report;
    let mut table = if r.contiguous(&result.shards) {
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
    };
    table.push_str(&format_table(report));
    let mut details = String::new();
    for s in &report.stores {
        if let Some((seed, _)) = s.first_failure() {
            details.push_str(&format!(
                "reproduce {}: reconcile-sim run --store {} --seed {seed}{}\n",
                s.store,
                shell_words::quote(&s.store),
                report.strategy.flags()
            ));
        }
    }
    details.push_str(&format_classes(r, out));
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
            replay_command(&out.join(&f.saved.file))
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

/// One row per root-cause class: store, seeds that showed it, first seed, steps of its
/// shrunk scenario, the class, and the replay command.
fn format_classes(r: &FuzzResult, out: &Path) -> String {
    let mut text = String::new();
    for s in r.report.stores.iter().filter(|s| !s.classes.is_empty()) {
        text.push_str(&format!(
            "classes of {} ({} found; seeds = seeds showing it, masking the classes each seed showed before):\n",
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
                text.push_str(&format!(
                    "  {:>26}replay: {}\n",
                    "",
                    replay_command(&out.join(&f.saved.file))
                ));
            }
        }
    }
    text
}
