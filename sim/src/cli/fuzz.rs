//! `reconcile-sim fuzz --store NAME|all (--seeds N | --time DURATION) [--jobs J] [--json]`

use reconcile_sim::campaign::findings::{Failure, Finding};
use reconcile_sim::campaign::fuzz::{
    format_table, run_campaign, Budget, Campaign, CampaignOutcome,
};
use reconcile_sim::campaign::recheck::{
    check_determinism, format_suspects, settle, Suspect, DETERMINISM_SEEDS,
};
use reconcile_sim::model::store::StoreFactory;
use reconcile_sim::run::interrupt;

use super::flags::{
    resolve_stores, seed_range, ExecFlags, JobsFlag, LimitFlags, OutFlag, StrategyFlags,
};
use super::progress::{Measure, Progress};
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
    let limits = args.limits.limits();
    let budget = match (args.seeds, args.time) {
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
    let deadline = args.time.map(|t| started + t);
    let progress = Progress::start(match (args.seeds, args.time) {
        (Some(n), _) => Measure::Runs(n.saturating_mul(campaign.stores.len() as u64)),
        (None, t) => Measure::Time(t.unwrap_or_default()),
    });
    let outcome = run_campaign(&campaign, &|done| progress.runs(done), interrupt::flag());
    // Recheck the first failing seed of each (store, class) — or (store, invariant) with
    // --no-classes —, then shrink and save it, all within --time; one that does not
    // happen again is a suspect (flaky, or a state leak), saved as found; after Ctrl-C,
    // they are saved unshrunk.
    let count = outcome.first_failures.len();
    let out = &args.out.out;
    let settled = settle(
        &campaign.stores,
        &outcome.first_failures,
        out,
        limits,
        deadline,
        &|i, f| {
            progress.say(format!(
                "checking and shrinking {}/{count}: {} {}",
                i + 1,
                f.store,
                f.class
                    .as_ref()
                    .map_or(f.invariant.to_string(), |c| c.to_string())
            ))
        },
    );
    let saved = settled.findings;
    let mut suspects = settled.suspects;
    let in_time = deadline.is_none_or(|d| std::time::Instant::now() < d);
    if args.check_determinism && in_time && !interrupt::requested() {
        progress.say("running the first seeds again (--check-determinism)".to_string());
        let seeds = DETERMINISM_SEEDS.min(outcome.report.seeds);
        let start = outcome.report.seed_start;
        suspects.extend(check_determinism(
            &campaign.stores,
            strategy,
            start..start + seeds,
            out,
        ));
    }
    progress.finish();
    if args.json {
        print_json(&outcome, &campaign, &saved, &suspects)?;
    } else {
        print_text(&outcome, &campaign, &saved, &suspects, started.elapsed());
    }
    unsaved(&saved, &suspects)?;
    Ok(if outcome.report.any_failure() || !suspects.is_empty() {
        Verdict::Violation
    } else {
        Verdict::Clean
    })
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
                "write_error": f.write_error,
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
            if f.write_error.is_some() {
                "NOT SAVED (see the error below)".to_string()
            } else {
                f.replay_command()
            }
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
            match file {
                Some(f) if f.write_error.is_some() => {
                    out.push_str(&format!("  {:>26}NOT SAVED (see the error below)\n", ""))
                }
                Some(f) => out.push_str(&format!("  {:>26}replay: {}\n", "", f.replay_command())),
                None => {}
            }
        }
    }
    out
}
