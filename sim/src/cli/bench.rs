//! `reconcile-sim bench [--json] [--runs N] [--starts S]`

use reconcile_sim::campaign::bench::{bench_pinned, format_markdown};

use super::verdict::Verdict;

#[derive(clap::Args)]
pub struct Args {
    /// Seeds per throughput row.
    #[arg(long, default_value_t = 20_000)]
    runs: u64,
    /// Disjoint seed ranges per time-to-failure row (the median is over these).
    #[arg(long, default_value_t = 101)]
    starts: u64,
    /// Schedules per range before giving up.
    #[arg(long, default_value_t = 100_000)]
    cap: u64,
    /// Print one JSON object instead of Markdown tables.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    world: super::flags::WorldFlag,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    if args.starts == 0 || args.runs == 0 {
        anyhow::bail!("--runs and --starts must be at least 1");
    }
    if args.starts.checked_mul(args.cap).is_none() {
        anyhow::bail!(
            "--starts × --cap is past the largest seed ({}); lower one of them",
            u64::MAX
        );
    }
    let pins = args.world.pins()?;
    let report = bench_pinned(args.runs, args.starts, args.cap, &pins);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        if !pins.is_empty() {
            println!("world pins: {pins}\n");
        }
        print!("{}", format_markdown(&report));
    }
    Ok(Verdict::Clean)
}
