//! `reconcile-sim shrink FILE [--store NAME] -o OUT [--max-shrink-iters N] [--max-shrink-time T]`

use std::path::{Path, PathBuf};

use reconcile_sim::model::step::Step;
use reconcile_sim::model::store::StoreFactory;
use reconcile_sim::oracle::Invariant;
use reconcile_sim::trace::scenario;
use reconcile_sim::trace::shrink::{shrink, Limits, Shrunk};

use super::{resolve_store, Verdict};

/// The shrinking limits, shared by every subcommand that shrinks.
#[derive(clap::Args, Clone, Copy)]
pub struct LimitFlags {
    /// Replays shrinking may spend on one failure before it gives up.
    #[arg(long, default_value_t = Limits::default().replays_max)]
    pub max_shrink_iters: u64,
    /// Time shrinking may spend on one failure before it gives up (e.g. `30s`).
    #[arg(long, value_parser = humantime::parse_duration, default_value = "60s")]
    pub max_shrink_time: std::time::Duration,
}

impl LimitFlags {
    pub fn limits(&self) -> Limits {
        Limits {
            replays_max: self.max_shrink_iters,
            time_max: self.max_shrink_time,
        }
    }
}

/// Where failures found by `run`, `fuzz` and `check` are written.
pub const DEFAULT_OUT: &str = "reconcile-failures";

#[derive(clap::Args)]
pub struct Args {
    /// The scenario file to shrink.
    file: PathBuf,
    /// Shrink against this store instead of the one the file names.
    #[arg(long)]
    store: Option<String>,
    /// Where to write the shrunk scenario.
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
    #[command(flatten)]
    limits: LimitFlags,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let sc = scenario::load(&args.file)?;
    let store = resolve_store(args.store.as_deref().unwrap_or(&sc.store))?;
    let store = store.as_ref();
    let target = if store.name() == sc.store {
        sc.expect
    } else {
        None
    };
    let result = match shrink(
        store,
        sc.config.clone(),
        &sc.steps(),
        target,
        args.limits.limits(),
    ) {
        Ok(r) => r,
        Err(e) => {
            println!("{e}; nothing written");
            return Ok(if e.got.is_none() {
                Verdict::Clean
            } else {
                Verdict::Violation
            });
        }
    };
    let mut out =
        reconcile_sim::trace::shrink::scenario_of(store, &result, sc.seed, sc.strategy.clone());
    out.description = sc.description.clone();
    out.save(&args.out)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", args.out.display()))?;
    print!("{}", summary(&result, &args.out));
    // Wall time goes to stderr: stdout is the same bytes on every run.
    eprintln!("(shrinking took {:.2?})", result.elapsed);
    Ok(Verdict::Violation)
}

/// What shrinking did, where the file is, and how to replay it.
pub fn summary(r: &Shrunk, path: &Path) -> String {
    let mut out = format!(
        "shrunk {} → {} steps ({}) in {} replays\n",
        r.original_steps,
        r.steps.len(),
        if r.gave_up.is_none() {
            "1-minimal"
        } else {
            "not proven 1-minimal"
        },
        r.replays,
    );
    if let Some(why) = r.gave_up {
        out.push_str(&format!("warning: {why}\n"));
    }
    out.push_str(&format!("scenario: {}\n", path.display()));
    out.push_str(&format!(
        "replay: reconcile-sim replay {}\n",
        path.display()
    ));
    out
}

/// Shrink a failure found by a seeded run and save it under `out_dir`, named by its
/// signature and seed.
#[allow(clippy::too_many_arguments)]
pub fn shrink_and_save(
    store: &dyn StoreFactory,
    config: reconcile_sim::model::config::WorldConfig,
    steps: &[Step],
    invariant: Invariant,
    seed: u64,
    strategy: &str,
    out_dir: &Path,
    limits: Limits,
) -> anyhow::Result<(PathBuf, Shrunk)> {
    reconcile_sim::trace::shrink::shrink_and_save(
        store, config, steps, invariant, seed, strategy, out_dir, limits,
    )
    .map_err(|e| anyhow::anyhow!("{e}"))
}
