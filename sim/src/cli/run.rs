//! `reconcile-sim run --store NAME --seed N [--json]`

use reconcile_sim::campaign::fuzz::run_one;
use reconcile_sim::run::Outcome;
use reconcile_sim::trace::timeline::trace_lines;

use super::shrink::{shrink_and_save, summary, LimitFlags, DEFAULT_OUT};
use super::{resolve_store, strategy_flags, strategy_spec, Verdict};

#[derive(clap::Args)]
pub struct Args {
    /// The store under test (see `reconcile-sim stores`), or `exec:'COMMAND ARGS'` for a
    /// store in another process (docs/protocol.md).
    #[arg(long)]
    store: String,
    /// The seed: it derives every world option and every scheduling choice.
    #[arg(long)]
    seed: u64,
    /// How steps are chosen.
    #[arg(long, default_value = "random")]
    strategy: String,
    /// PCT bug depth (with `--strategy pct`; default 3).
    #[arg(long)]
    depth: Option<u32>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Where a failure is written, shrunk, as a scenario file.
    #[arg(long, default_value = DEFAULT_OUT)]
    out: std::path::PathBuf,
    #[command(flatten)]
    limits: LimitFlags,
    /// Also print which interesting orderings the run reached (always in `--json`).
    #[arg(long)]
    coverage: bool,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let store = resolve_store(&args.store)?;
    let store = store.as_ref();
    let spec = strategy_spec(&args.strategy, args.depth)?;
    let report = run_one(store, &spec, args.seed);
    let strategy_choices = reconcile_sim::run::strategy::by_name(&spec, args.seed)
        .map(|s| s.describe())
        .unwrap_or_default();
    let mut reproduce = format!(
        "reconcile-sim run --store {} --seed {}",
        shell_words::quote(&store.name()),
        args.seed
    );
    reproduce.push_str(&strategy_flags(&spec));
    // Every failure is shrunk and saved, so it ends with a file and a replay command.
    let saved = match &report.outcome {
        Outcome::Pass => None,
        Outcome::Fail(v) => Some(shrink_and_save(
            store,
            report.config.clone(),
            &report.steps,
            v.invariant,
            args.seed,
            &spec,
            &args.out,
            args.limits.limits(),
        )?),
    };
    let coverage =
        reconcile_sim::trace::coverage::coverage_of(store, report.config.clone(), &report.steps);
    if args.json {
        let mut value = serde_json::json!({
            "store": store.name(),
            "seed": args.seed,
            "strategy": spec,
            "strategy_choices": strategy_choices,
            "config": report.config,
            "outcome": report.outcome,
            "steps": report.steps,
            "drain": report.drain,
            "reproduce": reproduce,
            "coverage": coverage,
        });
        if let Some((path, shrunk)) = &saved {
            value["scenario"] = path.display().to_string().into();
            value["scenario_steps"] = shrunk.steps.len().into();
            value["replay"] = format!("reconcile-sim replay {}", path.display()).into();
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        println!(
            "store {} · seed {} · strategy {}",
            store.name(),
            args.seed,
            spec
        );
        println!("options:");
        print!("{}", report.config.describe());
        if !strategy_choices.is_empty() {
            println!("  strategy: {strategy_choices}");
        }
        match &report.outcome {
            Outcome::Pass => println!(
                "verdict: PASS ({} steps, {} drain steps)",
                report.steps.len(),
                report.drain.len()
            ),
            Outcome::Fail(v) => {
                println!(
                    "trace ({} steps, {} drain steps):",
                    report.steps.len(),
                    report.drain.len()
                );
                for line in trace_lines(store, report.config.clone(), &report.steps, &report.drain)
                {
                    println!("  {line}");
                }
                print!("verdict: FAIL {v}");
                if let Some((path, shrunk)) = &saved {
                    print!("{}", summary(shrunk, path));
                }
                println!("reproduce: {reproduce}");
            }
        }
    }
    if args.coverage && !args.json {
        println!("coverage (interesting orderings reached):");
        print!("{}", coverage.format());
    }
    Ok(match report.outcome {
        Outcome::Pass => Verdict::Clean,
        Outcome::Fail(_) => Verdict::Violation,
    })
}
