//! `reconcile-sim from-fuzz ARTIFACT [--store NAME] -o FILE`: a libFuzzer artifact of the
//! `interleavings` target becomes a shrunk scenario file.

use std::path::PathBuf;

use reconcile_sim::campaign::findings::shrink_and_save;
use reconcile_sim::campaign::fuzz_input::run_bytes_in;
use reconcile_sim::campaign::libfuzzer::artifact_failure;
use reconcile_sim::campaign::pipeline::text;

use super::flags::LimitFlags;
use super::shrink::summary;
use super::verdict::Verdict;

#[derive(clap::Args)]
pub struct Args {
    /// The crash file libFuzzer wrote (e.g. `fuzz/artifacts/interleavings/crash-…`).
    artifact: PathBuf,
    /// The store the fuzz run was fixed to (`RECONCILE_SIM_STORE`); without it the
    /// artifact's own bytes choose the store, as they did in the fuzz run.
    #[arg(long)]
    store: Option<String>,
    /// Where to write the shrunk scenario.
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
    #[command(flatten)]
    limits: LimitFlags,
    /// The pins the fuzz run used (default: `RECONCILE_SIM_WORLD`, as the target read it).
    #[command(flatten)]
    world: super::flags::WorldFlag,
    /// The invariants the fuzz run judged (default: `RECONCILE_SIM_INVARIANTS`).
    #[command(flatten)]
    invariants: super::flags::InvariantFlags,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let fixed = match &args.store {
        Some(name) => Some(reconcile_sim::store::by_name(name).ok_or_else(|| {
            anyhow::anyhow!(
                "unknown store '{name}' (the interleavings target runs shipped stores: {})",
                reconcile_sim::store::names().join(", ")
            )
        })?),
        None => None,
    };
    let bytes = std::fs::read(&args.artifact)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", args.artifact.display()))?;
    let description = format!(
        "found by cargo-fuzz (target interleavings), artifact {}",
        args.artifact
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    let from_env = reconcile_sim::run::worlds::Worlds::from_env().map_err(anyhow::Error::msg)?;
    let given = super::flags::worlds(&args.world, &args.invariants)?;
    let worlds = reconcile_sim::run::worlds::Worlds {
        pins: if args.world.world.is_empty() {
            from_env.pins
        } else {
            given.pins
        },
        judged: if args.invariants.invariants.is_none() && args.invariants.skip.is_none() {
            from_env.judged
        } else {
            given.judged
        },
        // The cargo-fuzz targets run the shipped stores, which declare no contract.
        contract: Default::default(),
    };
    let Some((store, failure)) = artifact_failure(&bytes, fixed, description, &worlds) else {
        let run = run_bytes_in(&bytes, fixed, &worlds);
        println!(
            "{}: no violation on store {} ({} steps): nothing to convert",
            args.artifact.display(),
            run.store.name,
            run.report.steps.len()
        );
        return Ok(Verdict::Clean);
    };
    println!(
        "{}: store {}, {} after {} steps",
        args.artifact.display(),
        store.name,
        failure.invariant,
        failure.steps.len()
    );
    let finding = shrink_and_save(&store, &failure, &args.out, args.limits.limits())?;
    print!(
        "{}",
        summary(
            &finding.shrunk,
            &finding.store,
            &args.out,
            finding.write_error.as_deref()
        )
    );
    if let Some(e) = text::unsaved(std::slice::from_ref(&finding), &[]) {
        anyhow::bail!("{e}");
    }
    Ok(Verdict::Violation)
}
