//! Command-line front end: one file per subcommand, the flags they share in `flags.rs`, and
//! every outcome mapped to an exit code here, in one place: 0 nothing violated, 1 an
//! invariant broke, 2 bad usage or input (including an output file that could not be
//! written: the results are printed first), 3 an internal error (a bug in reconcile-sim),
//! 128 + the signal when stopped by one: 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP (what was
//! found is saved and printed; see `interrupt.rs`).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bench;
mod check;
mod corpus;
mod diff;
mod explore;
mod flags;
mod from_fuzz;
mod fuzz;
mod interrupt;
mod merge;
mod nightly;
mod progress;
mod replay;
mod report;
mod run;
mod sharding;
mod shrink;
mod stores;
mod verdict;

pub use verdict::Verdict;

#[derive(Parser)]
#[command(
    name = "reconcile-sim",
    version,
    about = "Deterministic interleaving simulator and fuzz harness for chat-turn reconcile stores",
    long_about = "Simulates a chat backend, several browser tabs and the network between them, \
                  drives a reconcile store through seeded interleavings, and checks the \
                  design note's invariants (no loss, no duplicate, newer turn preserved, \
                  convergence) against the backend's ground truth."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the shipped stores and the bug each one carries.
    Stores(stores::Args),
    /// Run one seed against one store; print the options, the verdict and, on a
    /// violation, the trace and a command that reproduces it.
    Run(run::Args),
    /// Run many seeds against one store or all, in parallel, and print the
    /// store × invariant table.
    Fuzz(fuzz::Args),
    /// Replay a scenario file and show it as a timeline (or a mermaid diagram).
    Replay(replay::Args),
    /// Shrink a failing scenario to a 1-minimal one with the same signature.
    Shrink(shrink::Args),
    /// The CI gate: replay every scenario in a directory, then fuzz a bounded budget.
    Check(check::Args),
    /// Drive two stores in lockstep over seeds and scenarios; report the first step where
    /// their effects or renders differ, shrunk to a scenario.
    Diff(diff::Args),
    /// Turn a libFuzzer artifact of the `interleavings` target into a shrunk scenario.
    FromFuzz(from_fuzz::Args),
    /// Regenerate the committed fuzz corpus (`corpus/`) from the scenarios.
    Corpus(corpus::Args),
    /// The nightly run: every store and strategy in-process, then each cargo-fuzz target;
    /// new failures shrunk into a dated folder with JSON and Markdown summaries.
    Nightly(nightly::Args),
    /// Search every schedule of a small world (sleep-set reduction); print the shortest
    /// counterexample or "verified".
    Explore(explore::Args),
    /// Measure harness throughput, time to first failure per (store, strategy), and
    /// explore's reduction; print Markdown tables (or JSON).
    Bench(bench::Args),
    /// Add up the `--result` files of the shards of one `fuzz`, `check` or `nightly` run
    /// (`--shard I/N`) into what the unsharded run prints and writes.
    Merge(merge::Args),
    /// Write self-contained HTML pages: a scenario's interleaving drawn step by step, or a
    /// campaign's table and classes from result files and nights, each class linked to its
    /// scenario's page.
    Report(report::Args),
}

pub fn main() -> ExitCode {
    quiet_on_a_closed_stdout();
    let cli = Cli::parse();
    interrupt::install(matches!(
        cli.command,
        Command::Run(_)
            | Command::Fuzz(_)
            | Command::Check(_)
            | Command::Nightly(_)
            | Command::Shrink(_)
            | Command::FromFuzz(_)
            | Command::Explore(_)
    ));
    let result = match cli.command {
        Command::Stores(args) => stores::main(args),
        Command::Run(args) => run::main(args),
        Command::Fuzz(args) => fuzz::main(args),
        Command::Replay(args) => replay::main(args),
        Command::Shrink(args) => shrink::main(args),
        Command::Check(args) => check::main(args),
        Command::Diff(args) => diff::main(args),
        Command::FromFuzz(args) => from_fuzz::main(args),
        Command::Corpus(args) => corpus::main(args),
        Command::Nightly(args) => nightly::main(args),
        Command::Explore(args) => explore::main(args),
        Command::Bench(args) => bench::main(args),
        Command::Merge(args) => merge::main(args),
        Command::Report(args) => report::main(args),
    };
    if reconcile_sim::run::interrupt::requested() {
        // Whatever was found is printed and saved; the verdict covers only what ran.
        match &result {
            Err(e) => eprintln!("error: {}", terminal_safe(e)),
            Ok(Verdict::Inconclusive(why)) => {
                eprintln!(
                    "inconclusive: {}",
                    terminal_safe(&anyhow::anyhow!(why.clone()))
                );
            }
            Ok(_) => {}
        }
        eprintln!(
            "interrupted: the results above cover only the work done before {}",
            interrupt::first_name()
        );
        return ExitCode::from(interrupt::exit_code());
    }
    match result {
        Ok(Verdict::Clean) => ExitCode::from(EXIT_CLEAN),
        Ok(Verdict::Violation) => ExitCode::from(EXIT_VIOLATION),
        Ok(Verdict::Inconclusive(why)) => {
            eprintln!(
                "inconclusive: {}",
                terminal_safe(&anyhow::anyhow!(why.clone()))
            );
            ExitCode::from(EXIT_INCONCLUSIVE)
        }
        Err(e) if is_internal(&e) => {
            eprintln!("error: {}", terminal_safe(&e));
            eprintln!(
                "(this is a bug in reconcile-sim, not in the store under test: please report it)"
            );
            ExitCode::from(EXIT_INTERNAL)
        }
        Err(e) => {
            eprintln!("error: {}", terminal_safe(&e));
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

/// An error's text, line by line, with control characters as escapes: errors quote file
/// contents (a field name, a store name), which must not drive the terminal.
fn terminal_safe(e: &anyhow::Error) -> String {
    format!("{e:#}")
        .split('\n')
        .map(|line| reconcile_sim::trace::scenario::printable(line).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Nothing violated.
pub const EXIT_CLEAN: u8 = 0;
/// An invariant broke (a finding).
pub const EXIT_VIOLATION: u8 = 1;
/// Bad usage or input: a flag, a file, a store that cannot be used.
pub const EXIT_BAD_INPUT: u8 = 2;
/// A bug in reconcile-sim itself.
pub const EXIT_INTERNAL: u8 = 3;
/// A search stopped by its own limit: nothing verified, nothing found.
pub const EXIT_INCONCLUSIVE: u8 = 4;

/// Whether `e` is a harness bug rather than bad input.
fn is_internal(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<reconcile_sim::campaign::error::CampaignError>()
            .is_some_and(|c| c.is_internal())
            || c.downcast_ref::<reconcile_sim::campaign::findings::FindingError>()
                .is_some_and(|f| f.is_internal())
    })
}

/// The exit code when stdout's reader went away (`reconcile-sim stores --json | head`):
/// 128 + SIGPIPE, as a shell reports a process the signal ended.
pub const EXIT_CLOSED_STDOUT: i32 = 141;

/// A reader that stops reading (`| head`) ends the process quietly with
/// [`EXIT_CLOSED_STDOUT`], as it ends the usual Unix tools, instead of a panic message:
/// `println!` panics on a broken pipe because Rust ignores SIGPIPE (which must stay ignored:
/// an adapter that exits must be an error on its pipe, not a signal that kills the run).
/// Everything a command saves is saved before it prints.
fn quiet_on_a_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(EXIT_CLOSED_STDOUT);
        }
        default(info)
    }));
}
