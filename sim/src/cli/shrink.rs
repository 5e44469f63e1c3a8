//! `reconcile-sim shrink FILE [--store NAME] -o OUT [--max-shrink-iters N] [--max-shrink-time T]`

use std::path::{Path, PathBuf};

use reconcile_sim::campaign::findings::replay_command_for;
use reconcile_sim::campaign::pipeline::shrink::{shrink_file, ShrinkRun};
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
    /// Where to write the shrunk scenario.
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
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
    let ShrinkRun {
        shrunk: result,
        scenario: out,
        write_error,
    } = match shrink_file(&sc, store, args.limits.limits(), &args.out) {
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
    print!(
        "{}",
        summary(&result, &store.name(), &args.out, write_error.as_deref())
    );
    // Wall time goes to stderr: stdout is the same bytes on every run.
    eprintln!("(shrinking took {:.2?})", result.elapsed);
    if let Some(e) = write_error {
        // The work is not lost: the scenario goes to stdout instead.
        println!("the shrunk scenario, which could not be written:");
        print!("{}", out.to_json());
        anyhow::bail!(e);
    }
    Ok(Verdict::Violation)
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
        }
    }
    out
}
