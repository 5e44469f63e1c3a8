//! `reconcile-sim fuzz --store NAME|all (--seeds N | --time DURATION) [--jobs J] [--json]`

use std::io::IsTerminal;
use std::sync::atomic::AtomicBool;

use indicatif::{ProgressBar, ProgressStyle};
use reconcile_sim::campaign::findings::{file_for, Failure, Finding};
use reconcile_sim::campaign::fuzz::{
    format_table, run_campaign, Budget, Campaign, CampaignOutcome,
};
use reconcile_sim::campaign::recheck::{
    check_determinism, format_suspects, settle, Suspect, DETERMINISM_SEEDS,
};
use reconcile_sim::model::store::StoreFactory;

use super::flags::{resolve_stores, ExecFlags, JobsFlag, LimitFlags, OutFlag, StrategyFlags};
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
    /// Also run the first seeds again (twice on the campaign's processes and, for an
    /// `exec:` store, in fresh ones) and compare every effect and render: a store
    /// whose runs differ is reported `nondeterministic`, one whose runs on reused
    /// processes differ from fresh ones `state-leak`.
    #[arg(long)]
    check_determinism: bool,
    #[command(flatten)]
    exec: ExecFlags,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let strategy = args.strategy.spec()?;
    let owned = resolve_stores(&args.store, args.exec)?;
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
        classes: !args.no_classes,
    };
    let started = std::time::Instant::now();
    let outcome = run_with_progress(&campaign);
    // Recheck the first failing seed of each (store, class) — or (store, invariant) with
    // --no-classes —, then shrink and save it; one that does not happen again is a
    // suspect (flaky, or a state leak), saved as found.
    let out = &args.out.out;
    let settled = settle(
        &campaign.stores,
        &outcome.first_failures,
        out,
        &|f| file_for(out, f),
        args.limits.limits(),
    )?;
    let saved = settled.findings;
    let mut suspects = settled.suspects;
    if args.check_determinism {
        let seeds = DETERMINISM_SEEDS.min(outcome.report.seeds);
        let start = outcome.report.seed_start;
        suspects.extend(check_determinism(
            &campaign.stores,
            strategy,
            start..start + seeds,
            out,
        )?);
    }
    if args.json {
        print_json(&outcome, &campaign, &saved, &suspects)?;
    } else {
        print_text(&outcome, &campaign, &saved, &suspects, started.elapsed());
    }
    Ok(if outcome.report.any_failure() || !suspects.is_empty() {
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
    suspects: &[Suspect],
) -> anyhow::Result<()> {
    let mut value = serde_json::to_value(&outcome.report)?;
    value["scenarios"] = saved
        .iter()
        .map(|f| {
            serde_json::json!({
                "store": f.store,
                "invariant": f.invariant,
                "class": f.class,
                "class_name": f.class.as_ref().map(|c| c.to_string()),
                "seed": f.seed,
                "path": f.path.display().to_string(),
                "steps": f.shrunk.steps.len(),
                "one_minimal": f.shrunk.gave_up.is_none(),
                "replay": f.replay_command(),
                "cause": f.cause,
            })
        })
        .collect();
    value["crashes"] = crashes(&outcome.first_failures)
        .map(|f| {
            serde_json::json!({
                "store": f.store,
                "seed": f.seed,
                "cause_text": f.cause.as_ref().map(|c| c.to_string()),
                "cause": f.cause,
            })
        })
        .collect();
    value["suspects"] = serde_json::to_value(suspects)?;
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
    suspects: &[Suspect],
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
    for f in crashes(&outcome.first_failures) {
        let cause = f.cause.as_ref().expect("a crash with a cause");
        println!(
            "crash of {} (seed {}):",
            f.store,
            f.seed.map_or("-".to_string(), |s| s.to_string())
        );
        for line in cause.lines() {
            println!("  {line}");
        }
    }
    print!("{}", format_classes(report, saved));
    print!("{}", format_suspects(suspects));
    for f in saved.iter().filter(|f| f.class.is_none()) {
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
    }
    for f in saved {
        if let Some(why) = f.shrunk.gave_up {
            eprintln!("warning: {why} ({})", f.path.display());
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

/// The kept failures that are crashes with a cause, one per (store, cause kind): what the
/// report quotes (the cause and the adapter's stderr tail).
fn crashes(failures: &[Failure]) -> impl Iterator<Item = &Failure> {
    failures.iter().filter(|f| f.cause.is_some())
}

/// One row per root-cause class: store, seeds that showed it, first seed, steps of its
/// shrunk scenario, the class, and the replay command.
fn format_classes(
    report: &reconcile_sim::campaign::fuzz::CampaignReport,
    saved: &[Finding],
) -> String {
    let mut out = String::new();
    for s in report.stores.iter().filter(|s| !s.classes.is_empty()) {
        out.push_str(&format!(
            "classes of {} ({} found; seeds = seeds showing it, masking the classes each seed showed before):\n",
            s.store,
            s.classes.len()
        ));
        out.push_str(&format!(
            "  {:>6}  {:>10}  {:>5}  class\n",
            "seeds", "first seed", "steps"
        ));
        for c in &s.classes {
            let file = saved
                .iter()
                .find(|f| f.store == s.store && f.class.as_ref() == Some(&c.class));
            let steps = file.map_or("-".to_string(), |f| {
                format!(
                    "{}{}",
                    f.shrunk.steps.len(),
                    if f.shrunk.gave_up.is_some() { "+" } else { "" }
                )
            });
            out.push_str(&format!(
                "  {:>6}  {:>10}  {:>5}  {}\n",
                c.seeds, c.first_seed, steps, c.name
            ));
            if let Some(f) = file {
                out.push_str(&format!("  {:>26}replay: {}\n", "", f.replay_command()));
            }
        }
    }
    out
}
