//! `reconcile-sim fuzz --store NAME|all (--seeds N | --time DURATION) [--jobs J] [--json]`

use std::io::IsTerminal;
use std::sync::atomic::AtomicBool;

use indicatif::{ProgressBar, ProgressStyle};
use reconcile_sim::campaign::fuzz::{format_table, run_campaign, Budget, Campaign};
use reconcile_sim::model::store::StoreFactory;

use super::shrink::{shrink_and_save, LimitFlags, DEFAULT_OUT};
use super::{resolve_stores, strategy_flags, strategy_spec, Verdict};

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
    /// Worker threads (default: every core). Results do not depend on it.
    #[arg(long)]
    jobs: Option<usize>,
    /// How steps are chosen.
    #[arg(long, default_value = "random")]
    strategy: String,
    /// PCT bug depth (with `--strategy pct`; default 3).
    #[arg(long)]
    depth: Option<u32>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// Where failures are written, shrunk, as scenario files (the first failing seed of
    /// each store and invariant).
    #[arg(long, default_value = DEFAULT_OUT)]
    out: std::path::PathBuf,
    #[command(flatten)]
    limits: LimitFlags,
    /// Also report, per store, which interesting orderings the campaign reached (replays
    /// every covered seed once more, on one thread).
    #[arg(long)]
    coverage: bool,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let spec = strategy_spec(&args.strategy, args.depth)?;
    let owned = resolve_stores(&args.store)?;
    let stores: Vec<&dyn StoreFactory> = owned.iter().map(|b| b.as_ref()).collect();
    let budget = match (args.seeds, args.time) {
        (Some(n), _) => Budget::Seeds(n),
        (None, Some(t)) => Budget::Time(t),
        (None, None) => unreachable!("clap requires one"),
    };
    let jobs = match args.jobs {
        Some(0) => anyhow::bail!("--jobs must be at least 1"),
        Some(j) => j,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let bar = if std::io::stderr().is_terminal() {
        let bar = match budget {
            Budget::Seeds(n) => ProgressBar::new(n * stores.len() as u64),
            Budget::Time(_) => ProgressBar::new_spinner(),
        };
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {elapsed_precise} [{bar:40}] {pos}/{len} runs ({per_sec}, eta {eta})",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        Some(bar)
    } else {
        None
    };
    let campaign = Campaign {
        stores,
        strategy: spec.clone(),
        seed_start: args.seed_start,
        budget,
        jobs,
    };
    let progress = |done: u64| {
        if let Some(bar) = &bar {
            if done.is_multiple_of(256) {
                bar.set_position(done);
            }
        }
    };
    let started = std::time::Instant::now();
    let report = run_campaign(&campaign, &progress, &AtomicBool::new(false));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    // Shrink the first failing seed of each (store, invariant) signature and save it.
    let mut saved = Vec::new();
    for (summary, store) in report.stores.iter().zip(&campaign.stores) {
        for (&inv, &seed) in &summary.first_failing_seed {
            let run = reconcile_sim::campaign::fuzz::run_one(*store, &report.strategy, seed);
            let (path, shrunk) = shrink_and_save(
                *store,
                run.config.clone(),
                &run.steps,
                inv,
                seed,
                &report.strategy,
                &args.out,
                args.limits.limits(),
            )?;
            saved.push((summary.store.clone(), inv, seed, path, shrunk));
        }
    }
    let mut coverage = Vec::new();
    if args.coverage {
        for s in &campaign.stores {
            let mut total = reconcile_sim::trace::coverage::Coverage::default();
            for seed in report.seed_start..report.seed_start + report.seeds {
                let r = reconcile_sim::campaign::fuzz::run_one(*s, &report.strategy, seed);
                total.merge(&reconcile_sim::trace::coverage::coverage_of(
                    *s, r.config, &r.steps,
                ));
            }
            coverage.push((s.name(), total));
        }
    }
    if args.json {
        let mut value = serde_json::to_value(&report)?;
        value["scenarios"] = saved
            .iter()
            .map(|(store, inv, seed, path, shrunk)| {
                serde_json::json!({
                    "store": store,
                    "invariant": inv,
                    "seed": seed,
                    "path": path.display().to_string(),
                    "steps": shrunk.steps.len(),
                    "one_minimal": shrunk.gave_up.is_none(),
                    "replay": format!("reconcile-sim replay {}", path.display()),
                })
            })
            .collect();
        if args.coverage {
            value["coverage"] = serde_json::to_value(
                coverage
                    .iter()
                    .map(|(n, c)| (n.clone(), c.clone()))
                    .collect::<std::collections::BTreeMap<_, _>>(),
            )?;
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        println!(
            "fuzz · strategy {} · seeds {}..{} ({} per store)",
            report.strategy,
            report.seed_start,
            report.seed_start + report.seeds,
            report.seeds
        );
        print!("{}", format_table(&report));
        eprintln!(
            "({} runs in {:.1?} on {jobs} thread{})",
            report.seeds * report.stores.len() as u64,
            started.elapsed(),
            if jobs == 1 { "" } else { "s" }
        );
        for s in &report.stores {
            if let Some((seed, _)) = s.first_failure() {
                let mut cmd = format!(
                    "reconcile-sim run --store {} --seed {seed}",
                    shell_words::quote(&s.store)
                );
                cmd.push_str(&strategy_flags(&report.strategy));
                println!("reproduce {}: {cmd}", s.store);
            }
        }
        for (store, inv, seed, path, shrunk) in &saved {
            println!(
                "shrunk {store} {inv} (seed {seed}): {} → {} steps{}: reconcile-sim replay {}",
                shrunk.original_steps,
                shrunk.steps.len(),
                if shrunk.gave_up.is_some() {
                    " (gave up early)"
                } else {
                    ""
                },
                path.display()
            );
            if let Some(why) = shrunk.gave_up {
                eprintln!("warning: {why}");
            }
        }
    }
    if !args.json {
        for (name, c) in &coverage {
            println!("coverage {name} (runs reaching each ordering, counted per occurrence):");
            print!("{}", c.format());
        }
    }
    Ok(if report.any_failure() {
        Verdict::Violation
    } else {
        Verdict::Clean
    })
}
