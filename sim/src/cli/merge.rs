//! `reconcile-sim merge DIR…|FILE… [--out DIR] [--json] [--junit FILE] [--result FILE]
//! [--allow-partial]`: add up the `--result` files of the shards of one `fuzz`, `check` or
//! `nightly` run into what the unsharded run prints and writes (see
//! `reconcile_sim::campaign::merge`), or the `--json` results of the shards of one
//! `explore` into the whole search's.

use std::path::{Path, PathBuf};

use reconcile_sim::campaign::merge::{
    merge_paths, CheckResult, FuzzResult, Merged, NightlyResult, ResultFile,
};
use reconcile_sim::campaign::nightly::{fresh_night_dir, today};
use reconcile_sim::campaign::pipeline::text;
use reconcile_sim::explore::ExploreResult;

use super::flags::DEFAULT_OUT;
use super::verdict::Verdict;

#[derive(clap::Args)]
pub struct Args {
    /// Result files (what `fuzz`, `check` and `nightly` write with `--result`, and what
    /// `explore --json` prints), or
    /// directories searched recursively for files named `result.json` or `*.result.json`.
    /// Every shard of the run must be there, each once (see `--allow-partial`).
    #[arg(required = true, value_name = "DIR|FILE")]
    paths: Vec<PathBuf>,
    /// For `fuzz` and `check` results: where the shrunk scenarios are written, as the
    /// unsharded run's `--out` (default `reconcile-failures`). For `nightly` results: where
    /// the merged night folder is made, `DIR/<night>`, as `nightly --out` (default
    /// `nightly`).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print one JSON object instead of the text (for `nightly`: the merged summary.json).
    #[arg(long)]
    json: bool,
    /// For `check` results: also write the JUnit XML the unsharded check writes.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Also write the merged result to FILE (it merges again, with other parts).
    #[arg(long, value_name = "FILE")]
    result: Option<PathBuf>,
    /// Merge even if some shards are missing; the output then says which shards it holds.
    #[arg(long)]
    allow_partial: bool,
}

impl Args {
    /// `--out`, else `default`.
    fn out_or(&self, default: &str) -> PathBuf {
        self.out.clone().unwrap_or_else(|| PathBuf::from(default))
    }
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let merged = merge_paths(&args.paths, args.allow_partial)?;
    if args.junit.is_some() && !matches!(merged, Merged::Check(_)) {
        anyhow::bail!(
            "--junit: only check results have a JUnit report (these are not check results)"
        );
    }
    match merged {
        Merged::Fuzz(r) => fuzz(r, &args),
        Merged::Check(r) => check(r, &args),
        Merged::Nightly(r) => nightly(r, &args),
        Merged::Explore(r) => explore(r, &args),
    }
}

/// Where the merge says its scenarios come from, in an error.
const SOURCE: &str = "the merged result";

/// Merged fuzz results: every scenario written again under `--out`, then reported as
/// `fuzz` reports.
fn fuzz(mut r: ResultFile<FuzzResult>, args: &Args) -> anyhow::Result<Verdict> {
    let source = Path::new(SOURCE);
    let out = args.out_or(DEFAULT_OUT);
    // Every scenario is written again here: a file this merge cannot write is
    // reported NOT SAVED after the table (exit 2), as `fuzz` reports it.
    r.result.write_saved(&out, source)?;
    let result_error = r.save_to(args.result.as_deref());
    if args.json {
        println!("{}", serde_json::to_string_pretty(&text::json(&r, &out)?)?);
    } else {
        let (table, details) = text::text(&r, &out);
        print!("{table}{details}");
        for w in text::warnings(&r, &out) {
            eprintln!("{w}");
        }
    }
    if let Some(e) = text::not_written(&r, result_error.as_deref()) {
        anyhow::bail!("{e}");
    }
    Ok(super::fuzz::verdict(&r))
}

/// Merged check results: the saved scenarios written under `--out`, then reported as
/// `check` reports.
fn check(mut r: ResultFile<CheckResult>, args: &Args) -> anyhow::Result<Verdict> {
    let source = Path::new(SOURCE);
    let out = args.out_or(DEFAULT_OUT);
    r.result.write_saved(&out, source)?;
    r.result.report = r.result.report_under(&out);
    let result_error = r.save_to(args.result.as_deref());
    super::check::output(
        &r,
        &r.result.report,
        args.junit.as_deref(),
        args.json,
        result_error.into_iter().collect(),
        None,
        "",
    )
}

/// Merged nightly results: a night directory as the nightly run writes it.
fn nightly(r: ResultFile<NightlyResult>, args: &Args) -> anyhow::Result<Verdict> {
    let source = Path::new(SOURCE);
    let out = args.out_or("nightly");
    let name = Path::new(&r.result.summary.night_dir)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| today().0);
    let night_dir = fresh_night_dir(&out, &name)?;
    let summary = r.result.write_night(&night_dir, &r.shards, source)?;
    if let Some(path) = &args.result {
        let mut again = r.clone();
        again.result.summary = summary.clone();
        again.save(path)?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{}", reconcile_sim::campaign::nightly::markdown(&summary));
        println!(
            "summary: {}/summary.md and summary.json",
            night_dir.display()
        );
    }
    Ok(super::nightly::verdict(&summary))
}

/// Merged explore results: printed (and written with `--result`); their counterexample
/// travels in the result, so `--out` is refused.
fn explore(r: Box<ExploreResult>, args: &Args) -> anyhow::Result<Verdict> {
    if args.out.is_some() {
        anyhow::bail!("--out: explore results carry their counterexample (use `explore --out` on one search, or the steps the merge prints)");
    }
    if let Some(path) = &args.result {
        let text = serde_json::to_string_pretty(&r)? + "\n";
        reconcile_sim::util::fs::write_atomically(path, text.as_bytes())
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        super::explore::print_result(&r)?;
    }
    super::explore::verdict(&r.result.report)
}
