//! `reconcile-sim nightly --time DURATION [--out DIR]`: the nightly fuzz run (see
//! `reconcile_sim::campaign::nightly`). Ctrl-C ends it early and keeps everything found so far.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use indicatif::{ProgressBar, ProgressStyle};
use reconcile_sim::campaign::nightly::{
    fresh_night_dir, run_nightly, today, NightlyConfig, NightlyProgress,
};

use super::flags::JobsFlag;
use super::sharding::ShardFlags;
use super::Verdict;

#[derive(clap::Args)]
pub struct Args {
    /// The whole budget (e.g. `30m`): in-process fuzzing, then each cargo-fuzz target.
    #[arg(long, value_parser = humantime::parse_duration)]
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
    /// Stores the `interleavings` fuzz target runs against (comma-separated); shipped
    /// stores not in the list are still fuzzed in-process.
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
}

struct Bars {
    bar: Option<ProgressBar>,
    lines: Mutex<Vec<String>>,
}

impl Bars {
    /// A spinner on a terminal, plain lines on stderr otherwise.
    fn new() -> Bars {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(1);
            bar.set_style(
                ProgressStyle::with_template("{spinner} {elapsed_precise} {wide_msg}")
                    .expect("valid template"),
            );
            bar.enable_steady_tick(std::time::Duration::from_millis(200));
            bar
        });
        Bars {
            bar,
            lines: Mutex::new(Vec::new()),
        }
    }
}

impl NightlyProgress for Bars {
    fn phase(&self, what: &str, seconds: u64) {
        match &self.bar {
            Some(bar) => {
                bar.set_message(what.to_string());
                bar.set_position(0);
                bar.set_length(seconds);
            }
            None => eprintln!("nightly: {what} ({seconds} s)"),
        }
    }
    fn runs(&self, done: u64) {
        if let Some(bar) = &self.bar {
            if done.is_multiple_of(512) {
                bar.set_message(format!("{} runs", done));
            }
        }
    }
    fn note(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("nightly: {line}"),
        }
        self.lines
            .lock()
            .expect("not poisoned")
            .push(line.to_string());
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
    let (date, day) = today();
    let night_dir = fresh_night_dir(&args.out, &date);
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
    let cfg = NightlyConfig {
        budget: args.time,
        night_dir: night_dir.clone(),
        known_dirs: vec![args.scenarios.clone(), args.out.clone()],
        seed_start: args.seed_start.unwrap_or(day * 1_000_000_000),
        jobs,
        fuzz_dir,
        corpus_dir: args.corpus.clone(),
        in_process_share: 0.6,
        fuzz_stores: args.fuzz_stores.clone(),
        shard: args.sharding.shard(),
        result: args.sharding.result.clone(),
    };
    let cancel = Arc::new(AtomicBool::new(false));
    {
        let cancel = Arc::clone(&cancel);
        ctrlc::set_handler(move || cancel.store(true, Ordering::Relaxed))
            .map_err(|e| anyhow::anyhow!("cannot install the Ctrl-C handler: {e}"))?;
    }
    let progress = Bars::new();
    let summary = run_nightly(&cfg, &progress, &cancel)?;
    if let Some(bar) = &progress.bar {
        bar.finish_and_clear();
    }
    print!("{}", reconcile_sim::campaign::nightly::markdown(&summary));
    println!(
        "summary: {}/summary.md and summary.json",
        night_dir.display()
    );
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
