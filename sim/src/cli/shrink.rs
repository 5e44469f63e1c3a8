//! `reconcile-sim shrink FILE [--store NAME] [-o OUT] [--max-shrink-iters N] [--max-shrink-time T]`
//!
//! Its job is a file, so its exit codes say whether it made one: 0 the shrunk scenario
//! was written (it fails as the input does, which is the point: not a finding of its
//! own), 1 nothing to shrink (the input does not fail on the store as it expects; nothing
//! written), 2 bad usage or input, or the output could not be written (the scenario is
//! printed instead). Without `-o` it writes beside the input under a new name
//! (`beside`), never over a file.

use std::path::{Path, PathBuf};

use reconcile_sim::campaign::findings::{replay_command_for, shrink_command_for};
use reconcile_sim::campaign::pipeline::shrink::{beside, shrink_file, ShrinkRun};
use reconcile_sim::trace::scenario;
use reconcile_sim::trace::shrink::Shrunk;

use super::flags::{resolve_scenario_store, AllowExecFlag, ExecFlags, LimitFlags};
use super::verdict::Verdict;

#[derive(clap::Args)]
pub struct Args {
    /// The scenario file to shrink.
    file: PathBuf,
    /// Shrink against this store instead of the one the file names.
    #[arg(long)]
    store: Option<String>,
    /// Where to write the shrunk scenario (default: beside FILE, as `<name>.shrunk.json`,
    /// or `<name>.shrunk-2.json`, … when that is taken: never over a file).
    #[arg(short = 'o', long = "out")]
    out: Option<PathBuf>,
    #[command(flatten)]
    limits: LimitFlags,
    #[command(flatten)]
    allow: AllowExecFlag,
    #[command(flatten)]
    exec: ExecFlags,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let sc = scenario::load(&args.file)?;
    let store = resolve_scenario_store(
        &args.file,
        &sc,
        args.store.as_deref(),
        args.exec,
        args.allow,
    )?;
    let store = store.as_ref();
    let path = args.out.unwrap_or_else(|| beside(&args.file));
    let ShrinkRun {
        shrunk: result,
        scenario: out,
        write_error,
    } = match shrink_file(&sc, store, args.limits.limits(), &path) {
        Ok(r) => r,
        Err(e) => {
            println!("{e}; nothing written");
            // Exit 1: the job (a smaller failing file) could not be done.
            return Ok(Verdict::Violation);
        }
    };
    print!(
        "{}",
        summary(&result, &store.name(), &path, write_error.as_deref())
    );
    // Wall time goes to stderr: stdout is the same bytes on every run.
    eprintln!("(shrinking took {:.2?})", result.elapsed);
    if let Some(e) = write_error {
        // The work is not lost: the scenario goes to stdout instead.
        println!("the shrunk scenario, which could not be written:");
        print!("{}", out.to_json());
        anyhow::bail!(e);
    }
    Ok(Verdict::Clean)
}

/// What shrinking did, where the file is (or why it could not be written), and how to
/// replay it (a scenario of `store`).
pub fn summary(r: &Shrunk, store: &str, path: &Path, write_error: Option<&str>) -> String {
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
    match write_error {
        Some(e) => out.push_str(&format!("scenario: NOT SAVED ({e})\n")),
        None => {
            out.push_str(&format!("scenario: {}\n", path.display()));
            out.push_str(&format!("replay: {}\n", replay_command_for(store, path)));
            if r.gave_up.is_some() {
                out.push_str(&format!("shrink: {}\n", shrink_command_for(store, path)));
            }
        }
    }
    out
}
