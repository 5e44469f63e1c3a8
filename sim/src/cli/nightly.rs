//! `reconcile-sim nightly --time DURATION [--out DIR]`: the nightly fuzz run (see
//! `reconcile_sim::campaign::nightly`). Ctrl-C ends it early and keeps everything found so far.

use std::path::PathBuf;

use reconcile_sim::campaign::nightly::{fresh_night_dir, today, NightlyConfig};
use reconcile_sim::campaign::pipeline::nightly::nightly;

use reconcile_sim::campaign::pipeline::Listener;

use super::flags::JobsFlag;
use super::progress::{Measure, Progress};
use super::sharding::ShardFlags;
use super::verdict::Verdict;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    world: super::flags::WorldFlag,
    #[command(flatten)]
    invariants: super::flags::InvariantFlags,
    /// The whole budget (e.g. `30m`): in-process fuzzing, then each cargo-fuzz target.
    #[arg(long, value_parser = super::flags::duration)]
    time: std::time::Duration,
    /// Where nights are kept; tonight's folder is `DIR/YYYY-MM-DD` (a new one per run).
    #[arg(long, default_value = "nightly")]
    out: PathBuf,
    /// Committed scenarios: their signatures count as known.
    #[arg(long, default_value = "scenarios")]
    scenarios: PathBuf,
    /// The cargo-fuzz package; the coverage-guided phase is skipped with `--no-cargo-fuzz`.
    #[arg(long, default_value = "fuzz")]
    fuzz_dir: PathBuf,
    /// Skip the cargo-fuzz phase (the whole budget goes to the in-process fuzzer).
    #[arg(long)]
    no_cargo_fuzz: bool,
    /// The committed corpus (read-only seeds for libFuzzer).
    #[arg(long, default_value = "corpus")]
    corpus: PathBuf,
    /// The first seed (default: the day number since 1970 × 10⁹, so nights differ).
    #[arg(long)]
    seed_start: Option<u64>,
    /// Stores fuzzed in-process (comma-separated; `all` for every shipped store): the
    /// stores you ship, judged against their known failures in `--scenarios` (e.g.
    /// `scenarios/known/current/`). The note's deliberately buggy stores fail in known
    /// ways every night, so they run only when named.
    #[arg(long, value_delimiter = ',', default_value = "durable,current")]
    stores: Vec<String>,
    /// Stores the `interleavings` fuzz target runs against (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "durable")]
    fuzz_stores: Vec<String>,
    /// Worker threads and libFuzzer fork jobs (default: every core).
    #[command(flatten)]
    jobs: JobsFlag,
    /// With `--shard I/N`, the in-process phase runs shard I's seeds (each shard for the
    /// whole budget) and the cargo-fuzz phase runs in every shard; `reconcile-sim merge`
    /// adds the shards' `--result` files up into one night folder.
    #[command(flatten)]
    sharding: ShardFlags,
    /// Also write the night's HTML report: `report.html` in tonight's folder (every class
    /// with its source, seed and needs, the tables per strategy, and a plot of classes and
    /// throughput over the nights in `--out`), and each new scenario's page beside it.
    #[arg(long)]
    html: bool,
}

/// The night's progress line ([`Progress`]: drawn on its own thread, so a stalled
/// terminal never slows the night) and its notes.
struct Bars(Progress);

impl Listener for Bars {
    fn phase(&self, what: &str, seconds: u64) {
        self.0.reset_runs();
        self.0.say(what.to_string());
        self.0.note(format!("nightly: {what} ({seconds} s)"));
    }
    fn runs(&self, done: u64) {
        self.0.runs(done);
    }
    fn note(&self, line: &str) {
        self.0.note(format!("nightly: {line}"));
    }
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    for name in &args.fuzz_stores {
        if reconcile_sim::store::by_name(name).is_none() {
            anyhow::bail!(
                "--fuzz-stores: unknown store '{name}'; known stores: {}",
                reconcile_sim::store::names().join(", ")
            );
        }
    }
    reconcile_sim::campaign::nightly::stores_named(&args.stores)
        .map_err(|e| anyhow::anyhow!("--stores: {e}"))?;
    let (date, day) = today();
    let jobs = args.jobs.jobs()?;
    let fuzz_dir = if args.no_cargo_fuzz {
        None
    } else if args.fuzz_dir.join("Cargo.toml").is_file() {
        Some(args.fuzz_dir.clone())
    } else {
        anyhow::bail!(
            "{}: no cargo-fuzz package (pass --fuzz-dir, or --no-cargo-fuzz)",
            args.fuzz_dir.display()
        )
    };
    let night_dir = fresh_night_dir(&args.out, &date)?;
    let cfg = NightlyConfig {
        budget: args.time,
        night_dir: night_dir.clone(),
        known_dirs: vec![args.scenarios.clone(), args.out.clone()],
        stores: args.stores.clone(),
        seed_start: args.seed_start.unwrap_or(day * 1_000_000_000),
        jobs,
        fuzz_dir,
        corpus_dir: args.corpus.clone(),
        in_process_share: 0.6,
        fuzz_stores: args.fuzz_stores.clone(),
        shard: args.sharding.shard(),
        result: args.sharding.result.clone(),
        worlds: super::flags::worlds(&args.world, &args.invariants)?,
        html: args.html,
    };
    let progress = Bars(Progress::start(Measure::Time(args.time)));
    let summary = nightly(&cfg, &progress, reconcile_sim::run::interrupt::flag());
    progress.0.finish();
    let summary = summary?;
    print!("{}", reconcile_sim::campaign::nightly::markdown(&summary));
    if !summary.write_errors.is_empty() {
        anyhow::bail!(
            "the night could not write {} file(s), listed above under \"Files not written\" (its summary is printed above)",
            summary.write_errors.len()
        );
    }
    println!(
        "summary: {}/summary.md and summary.json",
        night_dir.display()
    );
    if args.html {
        println!("report: {}/report.html", night_dir.display());
    }
    Ok(verdict(&summary))
}

/// Exit 1 when the night found a new signature or had a problem.
pub(super) fn verdict(summary: &reconcile_sim::campaign::nightly::NightlySummary) -> Verdict {
    let new = summary.findings.iter().filter(|f| f.new).count();
    if new > 0 || !summary.problems.is_empty() {
        Verdict::Violation
    } else {
        Verdict::Clean
    }
}
