//! `reconcile-sim run --store NAME --seed N [--json]`

use reconcile_sim::campaign::findings::{Failure, Finding};
use reconcile_sim::campaign::fuzz::run_one_in;
use reconcile_sim::campaign::pipeline::fuzz_text;
use reconcile_sim::campaign::recheck::{format_suspects, settle, Settled, Suspect};
use reconcile_sim::model::store::StoreFactory;
use reconcile_sim::oracle::judged::JudgedExt;
use reconcile_sim::run::strategy::StrategySpec;
use reconcile_sim::run::worlds::Worlds;
use reconcile_sim::run::{Outcome, RunReport};
use reconcile_sim::trace::class::{Class, ClassWatch};
use reconcile_sim::trace::coverage::{Coverage, CoverageObserver};
use reconcile_sim::trace::timeline::TraceLines;

use super::flags::{resolve_store_with, ExecFlags, LimitFlags, OutFlag, StrategyFlags};
use super::shrink::summary;
use super::Verdict;

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
    let store = store.as_ref();
    let spec = args.strategy.spec()?;
    // The run is narrated, classified and its coverage counted as it goes: nothing runs
    // it again (through a slow or hanging adapter, every replay costs).
    let mut observer = (
        ClassWatch::new(&[]),
        (CoverageObserver::default(), TraceLines::default()),
    );
    let worlds = super::flags::worlds(&args.world, &args.invariants)?;
    let report = run_one_in(store, spec, &worlds, args.seed, &mut observer);
    let (watch, (CoverageObserver { coverage, .. }, TraceLines { lines, .. })) = observer;
    let class = watch.class_of(&report.outcome);
    let mut reproduce = format!(
        "reconcile-sim run --store {} --seed {}",
        shell_words::quote(&store.name()),
        args.seed
    );
    reproduce.push_str(&spec.flags());
    reproduce.push_str(&worlds.flags());
    // Every failure is shrunk and saved, so it ends with a file and a replay command.
    let saved = settle_failure(store, spec, &args, &report, class, &worlds);
    let ran = Ran {
        store: store.name(),
        seed: args.seed,
        spec,
        worlds,
        strategy_choices: spec.build(args.seed).describe(),
        suspect: saved.as_ref().and_then(|s| s.suspects.first().cloned()),
        saved: saved.and_then(|s| s.findings.into_iter().next()),
        report,
        coverage,
        lines,
        reproduce,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&ran.json()?)?);
    } else {
        ran.print_text(args.coverage);
    }
    if let Some(e) = fuzz_text::unsaved(ran.saved.as_slice(), ran.suspect.as_slice()) {
        anyhow::bail!("{e}");
    }
    Ok(match ran.report.outcome {
        Outcome::Pass => Verdict::Clean,
        Outcome::Fail(_) => Verdict::Violation,
    })
}

/// One run, settled: what `run` prints, as JSON or as text.
struct Ran {
    store: String,
    seed: u64,
    spec: StrategySpec,
    /// What `--world` pinned and which invariants were judged.
    worlds: Worlds,
    /// What the strategy chose for this seed, in words (empty for `random`).
    strategy_choices: String,
    report: RunReport,
    coverage: Coverage,
    /// The narrated trace.
    lines: Vec<String>,
    /// The command that runs it again.
    reproduce: String,
    /// A failure, shrunk and saved.
    saved: Option<Finding>,
    /// A failure that did not happen again.
    suspect: Option<Suspect>,
}

impl Ran {
    /// The run as one JSON object (coverage always included).
    fn json(&self) -> anyhow::Result<serde_json::Value> {
        let mut value = serde_json::json!({
            "store": self.store,
            "seed": self.seed,
            "strategy": self.spec,
            "strategy_choices": self.strategy_choices,
            "world_pins": self.worlds.pins,
            "invariants": self.worlds.judged.invariants(),
            "config": self.report.config,
            "outcome": self.report.outcome,
            "steps": self.report.steps,
            "drain": self.report.drain,
            "reproduce": self.reproduce,
            "coverage": self.coverage,
        });
        if let Some(f) = &self.saved {
            value["scenario"] = f.path.display().to_string().into();
            value["scenario_steps"] = f.shrunk.steps.len().into();
            value["replay"] = f.replay_command().into();
            if let Some(e) = &f.write_error {
                value["write_error"] = e.clone().into();
            }
        }
        if let Some(s) = &self.suspect {
            value["suspect"] = serde_json::to_value(s)?;
        }
        Ok(value)
    }

    /// The run as text: options, verdict (with the trace on a failure), a suspect, and
    /// the coverage when asked for.
    fn print_text(&self, coverage: bool) {
        println!(
            "store {} · seed {} · strategy {}",
            self.store, self.seed, self.spec
        );
        let worlds = self.worlds.header();
        if !worlds.is_empty() {
            println!("{worlds}");
        }
        println!("options:");
        print!("{}", self.report.config.describe());
        if !self.strategy_choices.is_empty() {
            println!("  strategy: {}", self.strategy_choices);
        }
        print_verdict(
            &self.report,
            &self.lines,
            self.saved.as_ref(),
            &self.reproduce,
        );
        if let Some(s) = &self.suspect {
            print!("{}", format_suspects(std::slice::from_ref(s)));
        }
        if coverage {
            println!("coverage (interesting orderings reached):");
            print!("{}", self.coverage.format());
        }
    }
}

/// A failing run's failure (of class `class`), rechecked first (one that does not happen
/// again is a suspect, saved as found), then shrunk and saved; `None` for a pass.
fn settle_failure(
    store: &dyn StoreFactory,
    spec: StrategySpec,
    args: &Args,
    report: &RunReport,
    class: Option<Class>,
    worlds: &Worlds,
) -> Option<Settled> {
    let Outcome::Fail(v) = &report.outcome else {
        return None;
    };
    let failure = Failure {
        store: store.name(),
        invariant: v.invariant,
        seed: Some(args.seed),
        strategy: Some(spec.to_string()),
        description: None,
        config: report.config.clone(),
        steps: report.steps.clone(),
        class,
        mask: Vec::new(),
        cause: v.cause.clone(),
        without: Vec::new(),
        pins: worlds.pins.clone(),
    };
    let limits = args.limits.limits();
    Some(settle(
        &[store],
        &[failure],
        &args.out.out,
        limits,
        None,
        &|_, _| {},
    ))
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
