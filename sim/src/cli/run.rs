//! `reconcile-sim run --store NAME --seed N [--json]`

use reconcile_sim::campaign::findings::Finding;
use reconcile_sim::campaign::pipeline::run::{run, Ran, RunPlan};
use reconcile_sim::campaign::pipeline::text::{self, format_suspects};

use reconcile_sim::oracle::judged::JudgedExt;
use reconcile_sim::run::{Outcome, RunReport};

use super::flags::{resolve_store_with, ExecFlags, LimitFlags, OutFlag, StrategyFlags};
use super::shrink::summary;
use super::verdict::Verdict;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    world: super::flags::WorldFlag,
    #[command(flatten)]
    invariants: super::flags::InvariantFlags,
    /// The store under test (see `reconcile-sim stores`), or `exec:'COMMAND ARGS'` for a
    /// store in another process (docs/protocol.md).
    #[arg(long)]
    store: String,
    /// The seed: it derives every world option and every scheduling choice.
    #[arg(long)]
    seed: u64,
    #[command(flatten)]
    strategy: StrategyFlags,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    out: OutFlag,
    #[command(flatten)]
    limits: LimitFlags,
    /// Also print which interesting orderings the run reached (always in `--json`).
    #[arg(long)]
    coverage: bool,
    #[command(flatten)]
    exec: ExecFlags,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let store = resolve_store_with(&args.store, args.exec)?;
    let plan = RunPlan {
        store: store.as_ref(),
        seed: args.seed,
        strategy: args.strategy.spec()?,
        worlds: super::flags::worlds_under(&args.world, &args.invariants, &[store.as_ref()])?,
        out: args.out.out.clone(),
        limits: args.limits.limits(),
    };
    let ran = run(&plan);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&json(&ran)?)?);
    } else {
        print_text(&ran, args.coverage);
    }
    if let Some(e) = text::unsaved(ran.saved.as_slice(), ran.suspect.as_slice()) {
        anyhow::bail!("{e}");
    }
    Ok(match ran.report.outcome {
        Outcome::Pass => Verdict::Clean,
        Outcome::Fail(_) => Verdict::Violation,
    })
}

/// The run as one JSON object (coverage always included).
fn json(ran: &Ran) -> anyhow::Result<serde_json::Value> {
    let mut value = serde_json::json!({
        "store": ran.store,
        "seed": ran.seed,
        "strategy": ran.spec,
        "strategy_choices": ran.strategy_choices,
        "world_pins": ran.worlds.pins,
        "invariants": ran.worlds.judged.invariants(),
        "config": ran.report.config,
        "outcome": ran.report.outcome,
        "steps": ran.report.steps,
        "drain": ran.report.drain,
        "reproduce": ran.reproduce,
        "coverage": ran.coverage,
    });
    if let Some(f) = &ran.saved {
        value["scenario"] = f.path.display().to_string().into();
        value["scenario_steps"] = f.shrunk.steps.len().into();
        value["replay"] = f.replay_command().into();
        if let Some(e) = &f.write_error {
            value["write_error"] = e.clone().into();
        }
    }
    if let Some(s) = &ran.suspect {
        value["suspect"] = serde_json::to_value(s)?;
    }
    Ok(value)
}

/// The run as text: options, verdict (with the trace on a failure), a suspect, and
/// the coverage when asked for.
fn print_text(ran: &Ran, coverage: bool) {
    println!(
        "store {} · seed {} · strategy {}",
        ran.store, ran.seed, ran.spec
    );
    let worlds = ran.worlds.header();
    if !worlds.is_empty() {
        println!("{worlds}");
    }
    println!("options:");
    print!("{}", ran.report.config.describe());
    if !ran.strategy_choices.is_empty() {
        println!("  strategy: {}", ran.strategy_choices);
    }
    print_verdict(&ran.report, &ran.lines, ran.saved.as_ref(), &ran.reproduce);
    if let Some(s) = &ran.suspect {
        print!("{}", format_suspects(std::slice::from_ref(s)));
    }
    if coverage {
        println!("coverage (interesting orderings reached):");
        print!("{}", ran.coverage.format());
    }
}

/// The verdict, with the trace, the shrunk scenario and the reproduce command on a failure.
fn print_verdict(report: &RunReport, trace: &[String], saved: Option<&Finding>, reproduce: &str) {
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
            for line in trace {
                println!("  {line}");
            }
            print!("verdict: FAIL {v}");
            if let Some(f) = saved {
                print!(
                    "{}",
                    summary(&f.shrunk, &f.store, &f.path, f.write_error.as_deref())
                );
            }
            println!("reproduce: {reproduce}");
        }
    }
}
