//! `reconcile-sim diff --store A --store B [--seeds N] [--scenarios PATH] [--out DIR]`:
//! drive two stores in lockstep and report the first step where they differ.

use std::path::PathBuf;

use reconcile_sim::campaign::check::scenario_files;
use reconcile_sim::campaign::findings::replay_command;
use reconcile_sim::model::store::StoreFactory;
use reconcile_sim::testing::differential::{diff, lockstep_replay, FoundDivergence};
use reconcile_sim::trace::scenario::{self, Scenario};

use super::flags::{resolve_store, LimitFlags, StrategyFlags, DEFAULT_OUT};
use super::verdict::Verdict;

#[derive(clap::Args)]
pub struct Args {
    /// The two stores, reference first (a name, or `exec:'COMMAND ARGS'`).
    #[arg(long = "store", num_args = 1, required = true)]
    stores: Vec<String>,
    /// Seeds to drive both through (0: scenarios only).
    #[arg(long, default_value_t = 1000)]
    seeds: u64,
    /// The first seed.
    #[arg(long, default_value_t = 0)]
    seed_start: u64,
    #[command(flatten)]
    strategy: StrategyFlags,
    /// Scenario files to drive both through first: a file, or a directory searched for
    /// `*.json`.
    #[arg(long)]
    scenarios: Option<PathBuf>,
    /// Where a divergence found on a seed is written, shrunk, as a scenario file.
    #[arg(long, default_value = DEFAULT_OUT)]
    out: PathBuf,
    #[command(flatten)]
    limits: LimitFlags,
    #[command(flatten)]
    world: super::flags::WorldFlag,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let [a, b] = args.stores.as_slice() else {
        anyhow::bail!(
            "diff takes exactly two --store flags (the reference, then the store compared with it)"
        );
    };
    let strategy = args.strategy.spec()?;
    let pins = args.world.pins()?;
    super::flags::seed_range(args.seed_start, args.seeds, "--seed-start + --seeds")?;
    let (a, b) = (resolve_store(a)?, resolve_store(b)?);
    let (a, b) = (a.as_ref(), b.as_ref());
    if let Some(path) = &args.scenarios {
        if let Some(verdict) = diff_scenarios(a, b, path)? {
            return Ok(verdict);
        }
    }
    match diff(
        a,
        b,
        strategy,
        args.seed_start,
        args.seeds,
        args.limits.limits(),
        &pins,
    ) {
        Ok(n) => {
            println!(
                "'{}' and '{}' agree on every step of seeds {}..{} ({n} seeds{})",
                a.name(),
                b.name(),
                args.seed_start,
                args.seed_start + n,
                if pins.is_empty() {
                    String::new()
                } else {
                    format!(", world pins: {pins}")
                }
            );
            Ok(Verdict::Clean)
        }
        Err(found) => {
            save_divergence(a, b, &found, &args)?;
            Ok(Verdict::Violation)
        }
    }
}

/// Lockstep over every scenario under `path`; a verdict when one diverges.
fn diff_scenarios(
    a: &dyn StoreFactory,
    b: &dyn StoreFactory,
    path: &std::path::Path,
) -> anyhow::Result<Option<Verdict>> {
    let files = if path.is_dir() {
        scenario_files(path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?
    } else {
        vec![path.to_path_buf()]
    };
    for file in &files {
        let sc = scenario::load(file)?;
        if let Err(d) = lockstep_replay(a, b, sc.config.clone(), &sc.steps()) {
            print!("scenario {}: {d}", file.display());
            return Ok(Some(Verdict::Violation));
        }
    }
    println!(
        "'{}' and '{}' agree on every step of {} scenario(s)",
        a.name(),
        b.name(),
        files.len()
    );
    Ok(None)
}

/// Save a divergence found on a seed as a scenario and print it with its replay command.
fn save_divergence(
    a: &dyn StoreFactory,
    b: &dyn StoreFactory,
    found: &FoundDivergence,
    args: &Args,
) -> anyhow::Result<()> {
    let mut sc = Scenario::record(a, found.shrunk.config.clone(), &found.shrunk.steps, None);
    sc.seed = Some(found.seed);
    sc.world_pins = args.world.pins()?;
    sc.description = Some(format!(
        "'{}' and '{}' diverge after step #{} (found by `reconcile-sim diff`)",
        a.name(),
        b.name(),
        found.divergence.step_index
    ));
    let file = args.out.join(format!("diff-seed{}.json", found.seed));
    let saved = sc.save(&file);
    let pins = args.world.pins()?;
    if !pins.is_empty() {
        println!("world pins: {pins}");
    }
    println!("seed {}: {}", found.seed, found.divergence);
    if let Err(e) = saved {
        anyhow::bail!(
            "cannot write {}: {e} (the divergence is printed above)",
            file.display()
        );
    }
    println!(
        "shrunk {} → {} steps{}: {}",
        found.shrunk.original_steps,
        found.shrunk.steps.len(),
        if found.shrunk.gave_up.is_some() {
            " (gave up early)"
        } else {
            ""
        },
        file.display()
    );
    println!(
        "replay: {} diff --store {} --store {} --seeds 0 --scenarios {}",
        reconcile_sim::util::program::program(),
        shell_words::quote(&a.name()),
        shell_words::quote(&b.name()),
        shell_words::quote(&file.display().to_string())
    );
    println!("timeline on the first: {}", replay_command(&file));
    Ok(())
}
