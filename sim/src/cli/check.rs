//! `reconcile-sim check [--store NAME] [--scenarios DIR] [--seeds N] [--seed S]
//! [--junit FILE] [--json] [--out DIR]`: the CI gate. See `reconcile_sim::campaign::check` for
//! what a scenario must do with and without `--store`.

use std::path::PathBuf;

use reconcile_sim::campaign::check::{
    batch_message, first_failures, fuzz_batches, junit_xml, replay_scenarios, scenario_files,
    scenario_message, seed_start_from, CheckReport, Found, Requirement, ScenarioCase,
    DEFAULT_SEEDS,
};
use reconcile_sim::model::store::StoreFactory;
use reconcile_sim::trace::scenario;

use super::shrink::{LimitFlags, DEFAULT_OUT};
use super::{check_strategy, resolve_store, resolve_stores, Verdict};

#[derive(clap::Args)]
pub struct Args {
    /// The store under test (a name, or `all`). Without it, each scenario is replayed on
    /// the store it names and must reproduce its `expect`, and nothing is fuzzed.
    #[arg(long)]
    store: Option<String>,
    /// Where the scenarios are (searched recursively for `*.json`).
    #[arg(long, default_value = "scenarios")]
    scenarios: PathBuf,
    /// Seeds to fuzz per store under test (0 skips fuzzing).
    #[arg(long, default_value_t = DEFAULT_SEEDS)]
    seeds: u64,
    /// Where the seeds start: a number, or any string (a commit hash), hashed.
    #[arg(long, default_value = "0")]
    seed: String,
    /// How steps are chosen while fuzzing.
    #[arg(long, default_value = "random")]
    strategy: String,
    /// Worker threads for fuzzing (default: every core). Results do not depend on it.
    #[arg(long)]
    jobs: Option<usize>,
    /// Also write the results as JUnit XML to this file.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Where new failures found by fuzzing are written, shrunk (one per signature).
    #[arg(long, default_value = DEFAULT_OUT)]
    out: PathBuf,
    #[command(flatten)]
    limits: LimitFlags,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    check_strategy(&args.strategy)?;
    let jobs = match args.jobs {
        Some(0) => anyhow::bail!("--jobs must be at least 1"),
        Some(j) => j,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let under_test = args.store.as_deref().map(resolve_stores).transpose()?;

    // Load every scenario first: one bad file stops the check before anything runs.
    let files = scenario_files(&args.scenarios).map_err(|e| {
        anyhow::anyhow!(
            "cannot read the scenarios directory {}: {e}",
            args.scenarios.display()
        )
    })?;
    let mut loaded = Vec::new();
    let mut errors = Vec::new();
    for path in files {
        match scenario::load(&path) {
            Ok(sc) => loaded.push((path, sc)),
            Err(e) => errors.push(e.to_string()),
        }
    }
    // Each scenario's own store, resolved once by name.
    let mut own: Vec<(String, Box<dyn StoreFactory>)> = Vec::new();
    if under_test.is_none() {
        for (path, sc) in &loaded {
            if own.iter().any(|(n, _)| *n == sc.store) {
                continue;
            }
            match resolve_store(&sc.store) {
                Ok(s) => own.push((sc.store.clone(), s)),
                Err(e) => errors.push(format!("{}: field `store`: {e:#}", path.display())),
            }
        }
    }
    if !errors.is_empty() {
        anyhow::bail!("{}", errors.join("\nerror: "));
    }

    let mut cases = Vec::new();
    match &under_test {
        None => {
            for (path, sc) in &loaded {
                let store = own
                    .iter()
                    .find(|(n, _)| *n == sc.store)
                    .expect("resolved")
                    .1
                    .as_ref();
                cases.push(ScenarioCase {
                    path: path.clone(),
                    scenario: sc.clone(),
                    store,
                    requirement: Requirement::ReproduceExpect,
                });
            }
        }
        Some(stores) => {
            for store in stores {
                for (path, sc) in &loaded {
                    cases.push(ScenarioCase {
                        path: path.clone(),
                        scenario: sc.clone(),
                        store: store.as_ref(),
                        requirement: Requirement::Pass,
                    });
                }
            }
        }
    }
    let started = std::time::Instant::now();
    let scenarios = replay_scenarios(&cases);

    let seed_start = seed_start_from(&args.seed);
    let fuzzed: Vec<&dyn StoreFactory> = under_test.iter().flatten().map(|b| b.as_ref()).collect();
    let batches = if args.seeds == 0 {
        Vec::new()
    } else {
        fuzz_batches(&fuzzed, &args.strategy, seed_start, args.seeds, jobs)
    };
    let mut found = Vec::new();
    for (store_name, inv, seed) in first_failures(&batches) {
        let store = *fuzzed
            .iter()
            .find(|s| s.name() == store_name)
            .expect("fuzzed");
        let run = reconcile_sim::campaign::fuzz::run_one(store, &args.strategy, seed);
        let (path, r) = reconcile_sim::trace::shrink::shrink_and_save(
            store,
            run.config.clone(),
            &run.steps,
            inv,
            seed,
            &args.strategy,
            &args.out,
            args.limits.limits(),
        )
        .map_err(|e| anyhow::anyhow!("{e}"))?;
        found.push(Found {
            store: store_name,
            invariant: inv,
            seed,
            path,
            steps: r.steps.len(),
            original_steps: r.original_steps,
            one_minimal: r.gave_up.is_none(),
            gave_up: r.gave_up.map(|g| g.to_string()),
        });
    }
    let report = CheckReport {
        scenarios,
        strategy: args.strategy.clone(),
        seed_start,
        batches,
        found,
    };
    if let Some(path) = &args.junit {
        scenario::write_atomically(path, junit_xml(&report).as_bytes())
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", format_text(&report, &args, under_test.is_some()));
        eprintln!("(check took {:.1?})", started.elapsed());
    }
    Ok(if report.ok() {
        Verdict::Clean
    } else {
        Verdict::Violation
    })
}

fn format_text(report: &CheckReport, args: &Args, has_store: bool) -> String {
    let mut out = String::new();
    let failed = report.scenarios.iter().filter(|s| !s.ok).count();
    out.push_str(&format!(
        "scenarios: {} replayed from {}, {} failed{}\n",
        report.scenarios.len(),
        args.scenarios.display(),
        failed,
        if has_store {
            " (each must break nothing on the store under test)"
        } else {
            " (each must reproduce its expect on the store it names)"
        }
    ));
    for s in &report.scenarios {
        let skipped = if s.skipped > 0 {
            format!(" ({} steps not enabled on this store, skipped)", s.skipped)
        } else {
            String::new()
        };
        if s.ok {
            out.push_str(&format!(
                "  ok    {} on {}{skipped}\n",
                s.path.display(),
                s.store
            ));
        } else {
            out.push_str(&format!(
                "  FAIL  {}: {}{skipped}\n        replay: {}\n",
                s.path.display(),
                scenario_message(s),
                s.replay
            ));
        }
    }
    if !has_store {
        out.push_str("fuzz: skipped (no --store: pass --store NAME to fuzz a store under test)\n");
    } else if args.seeds == 0 {
        out.push_str("fuzz: skipped (--seeds 0)\n");
    } else {
        out.push_str(&format!(
            "fuzz: {} seeds per store from {} (--seed {}), strategy {}, batches of {}\n",
            args.seeds,
            report.seed_start,
            args.seed,
            report.strategy,
            reconcile_sim::campaign::check::BATCH_SEEDS
        ));
        for b in &report.batches {
            if b.ok() {
                out.push_str(&format!(
                    "  ok    {} seeds {}..{}\n",
                    b.store,
                    b.seed_start,
                    b.seed_start + b.seeds
                ));
            } else {
                out.push_str(&format!(
                    "  FAIL  {} seeds {}..{}: {}\n",
                    b.store,
                    b.seed_start,
                    b.seed_start + b.seeds,
                    batch_message(b)
                ));
            }
        }
        for f in &report.found {
            out.push_str(&format!(
                "  new failure {} {} (seed {}): shrunk {} → {} steps{}\n        replay: reconcile-sim replay {}\n",
                f.store,
                f.invariant,
                f.seed,
                f.original_steps,
                f.steps,
                if f.one_minimal { "" } else { " (gave up early)" },
                f.path.display()
            ));
            if let Some(why) = &f.gave_up {
                out.push_str(&format!("        warning: {why}\n"));
            }
        }
    }
    out.push_str(if report.ok() {
        "check: PASS\n"
    } else {
        "check: FAIL\n"
    });
    out
}
