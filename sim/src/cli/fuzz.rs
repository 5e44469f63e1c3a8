//! `reconcile-sim fuzz --store NAME|all (--seeds N | --time DURATION) [--jobs J] [--json]`

use std::io::IsTerminal;
use std::sync::atomic::AtomicBool;

use indicatif::{ProgressBar, ProgressStyle};
use reconcile_sim::campaign::findings::{file_for, shrink_and_save, Finding};
use reconcile_sim::campaign::fuzz::{
    format_table, run_campaign, Budget, Campaign, CampaignOutcome,
};
use reconcile_sim::model::store::StoreFactory;

use super::flags::{resolve_stores, JobsFlag, LimitFlags, OutFlag, StrategyFlags};
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
    let campaign = Campaign {
        stores,
        strategy,
        seed_start: args.seed_start,
        budget,
        jobs,
        coverage: args.coverage,
    };
    let started = std::time::Instant::now();
    let outcome = run_with_progress(&campaign);
    // Shrink the first failing seed of each (store, invariant) signature and save it.
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
    if args.json {
        print_json(&outcome, &campaign, &saved)?;
    } else {
        print_text(&outcome, &campaign, &saved, started.elapsed());
    }
    Ok(if outcome.report.any_failure() {
        Verdict::Violation
    } else {
        Verdict::Clean
    })
}

/// Run the campaign, with a progress bar on a terminal.
fn run_with_progress(campaign: &Campaign<'_>) -> CampaignOutcome {
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
    let outcome = run_campaign(campaign, &progress, &AtomicBool::new(false));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    outcome
}

fn print_json(
    outcome: &CampaignOutcome,
    campaign: &Campaign<'_>,
    saved: &[Finding],
) -> anyhow::Result<()> {
    let mut value = serde_json::to_value(&outcome.report)?;
    value["scenarios"] = saved
        .iter()
        .map(|f| {
            serde_json::json!({
                "store": f.store,
                "invariant": f.invariant,
                "seed": f.seed,
                "path": f.path.display().to_string(),
                "steps": f.shrunk.steps.len(),
                "one_minimal": f.shrunk.gave_up.is_none(),
                "replay": f.replay_command(),
            })
        })
        .collect();
    if campaign.coverage {
        value["coverage"] = serde_json::to_value(
            campaign
                .stores
                .iter()
                .map(|s| s.name())
                .zip(outcome.coverage.iter().cloned())
                .collect::<std::collections::BTreeMap<_, _>>(),
        )?;
    }
    println!("{}", serde_json::to_string_pretty(&value)?);
    Ok(())
}

fn print_text(
    outcome: &CampaignOutcome,
    campaign: &Campaign<'_>,
    saved: &[Finding],
    elapsed: std::time::Duration,
) {
    let report = &outcome.report;
    println!(
        "fuzz · strategy {} · seeds {}..{} ({} per store)",
        report.strategy,
        report.seed_start,
        report.seed_start + report.seeds,
        report.seeds
    );
    print!("{}", format_table(report));
    eprintln!(
        "({} runs in {:.1?} on {} thread{})",
        report.seeds * report.stores.len() as u64,
        elapsed,
        campaign.jobs,
        if campaign.jobs == 1 { "" } else { "s" }
    );
    for s in &report.stores {
        if let Some((seed, _)) = s.first_failure() {
            println!(
                "reproduce {}: reconcile-sim run --store {} --seed {seed}{}",
                s.store,
                shell_words::quote(&s.store),
                report.strategy.flags()
            );
        }
    }
    for f in saved {
        println!(
            "shrunk {} {} (seed {}): {} → {} steps{}: {}",
            f.store,
            f.invariant,
            f.seed.unwrap_or_default(),
            f.shrunk.original_steps,
            f.shrunk.steps.len(),
            if f.shrunk.gave_up.is_some() {
                " (gave up early)"
            } else {
                ""
            },
            f.replay_command()
        );
        if let Some(why) = f.shrunk.gave_up {
            eprintln!("warning: {why}");
        }
    }
    for (store, c) in campaign.stores.iter().zip(&outcome.coverage) {
        println!(
            "coverage {} (runs reaching each ordering, counted per occurrence):",
            store.name()
        );
        print!("{}", c.format());
    }
}
