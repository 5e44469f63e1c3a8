//! `reconcile-sim corpus [--scenarios DIR] [--bad-inputs DIR] [-o DIR]`: regenerate the
//! committed fuzz seeds from the scenarios.

use std::path::PathBuf;

use super::verdict::Verdict;

#[derive(clap::Args)]
pub struct Args {
    /// Scenario files to encode (searched recursively).
    #[arg(long, default_value = "scenarios")]
    scenarios: PathBuf,
    /// Malformed scenario files, seeds for the parser target.
    #[arg(long, default_value = "sim/tests/bad_input")]
    bad_inputs: PathBuf,
    /// The corpus root: `interleavings/` and `scenario_parser/` are written below it.
    #[arg(short = 'o', long = "out", default_value = "corpus")]
    out: PathBuf,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    if !args.scenarios.is_dir() {
        anyhow::bail!("{}: no such scenario directory", args.scenarios.display());
    }
    let report =
        reconcile_sim::campaign::corpus::regenerate(&args.scenarios, &args.bad_inputs, &args.out)
            .map_err(|e| anyhow::anyhow!(e))?;
    for (path, why) in &report.skipped {
        println!("skipped for interleavings: {}: {why}", path.display());
    }
    println!(
        "wrote {} corpus files under {}",
        report.written.len(),
        args.out.display()
    );
    Ok(Verdict::Clean)
}
