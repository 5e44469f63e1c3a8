//! `reconcile-sim import LOG.json --store exec:'reconcile-sim-adapter MAPPING' -o FILE.json`
//!
//! A log one tab recorded (`reconcile-sim-adapter/record`, `docs/record.md`) explained by
//! a schedule of the world and written as a scenario. Its job is a file: 0 written (the
//! scenario's verdict printed; `replay` judges it again, `shrink` cuts it), 2 bad input,
//! including a log no schedule explains (the entry named: a finding about the backend's
//! contract or the model), 4 the search hit its limit.

use std::path::PathBuf;

use reconcile_sim::campaign::findings::{replay_command_for, shrink_command_for};
use reconcile_sim::campaign::pipeline::import::{import_log, ImportFailure};
use reconcile_sim::trace::import::{ImportError, SearchLimits};

use super::flags::{resolve_store_with, ExecFlags, WorldFlag};
use super::verdict::Verdict;

#[derive(clap::Args)]
pub struct Args {
    /// The log (`recorder.dump()`'s JSON).
    log: PathBuf,
    /// The store the log was recorded on: its mapping's contract fixes the world's
    /// options, and the scenario is judged on it.
    #[arg(long)]
    store: String,
    /// Where to write the scenario.
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
    /// World states the search may visit before it gives up (exit 4).
    #[arg(long, default_value_t = SearchLimits::default().states_max)]
    states_max: u64,
    /// What the log cannot show, pinned (`message_texts=colliding` when the texts were
    /// private and collide); after the store's contract.
    #[command(flatten)]
    world: WorldFlag,
    #[command(flatten)]
    exec: ExecFlags,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let store = resolve_store_with(&args.store, args.exec)?;
    let store = store.as_ref();
    let pins = args.world.pins()?;
    let mut limits = SearchLimits::default();
    limits.states_max = args.states_max;
    let run = match import_log(&args.log, store, &pins, limits, &args.out) {
        Ok(run) => run,
        Err(ImportFailure::Search(e @ ImportError::Limit { .. })) => {
            return Ok(Verdict::Inconclusive(format!(
                "{}: {e}",
                args.log.display()
            )));
        }
        Err(ImportFailure::Search(e)) => {
            anyhow::bail!("{}: {e}", args.log.display())
        }
        Err(e) => anyhow::bail!("{e}"),
    };
    println!(
        "imported {} entries: {} steps, {} of them inferred (what the tab could not see), {} world states searched",
        run.entries,
        run.imported.steps.len(),
        run.imported.inferred,
        run.imported.states
    );
    match (&run.scenario.expect, &run.class) {
        (None, _) => println!("verdict: pass"),
        (Some(inv), Some(class)) => println!("verdict: {} ({})", inv.name(), class),
        (Some(inv), None) => println!("verdict: {}", inv.name()),
    }
    println!("scenario: {}", args.out.display());
    println!("replay: {}", replay_command_for(&store.name(), &args.out));
    if run.scenario.expect.is_some() {
        println!("shrink: {}", shrink_command_for(&store.name(), &args.out));
    }
    Ok(Verdict::Clean)
}
