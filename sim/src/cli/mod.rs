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
mod import;
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

/// A subcommand's `--help` epilogue listing its exit codes, one a line: each is a
/// literal or one of the shared lines below (`BAD_INPUT`, `INTERNAL`, `SIGNALS`,
/// `QUITS_AT_A_SIGNAL`, `CLOSED_STDOUT`). Every subcommand has one (a test checks it).
macro_rules! exit_codes {
    ($($line:tt),+ $(,)?) => {
        concat!("Exit codes:\n", $("  ", exit_codes!(@line $line), "\n"),+)
    };
    (@line BAD_INPUT) => {
        "2    bad usage or input: a flag, a file or a store that cannot be used, or an output file that could not be written (the results are printed first)"
    };
    (@line INTERNAL) => { "3    a bug in reconcile-sim, not in the store under test (please report it)" };
    (@line SIGNALS) => {
        "130  Ctrl-C, 143 SIGTERM, 129 SIGHUP (128 + the signal): the runs in progress finished, what was found saved and printed"
    };
    (@line QUITS_AT_A_SIGNAL) => { "130  Ctrl-C, 143 SIGTERM, 129 SIGHUP: stopped at once (128 + the signal)" };
    (@line CLOSED_STDOUT) => { "141  stdout's reader went away (`| head`)" };
    (@line $line:literal) => { $line };
}

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
    #[command(after_help = exit_codes!("0    listed", BAD_INPUT, QUITS_AT_A_SIGNAL, CLOSED_STDOUT))]
    Stores(stores::Args),
    /// Run one seed against one store; print the options, the verdict and, on a
    /// violation, the trace and a command that reproduces it.
    #[command(after_help = exit_codes!(
        "0    the run broke nothing",
        "1    an invariant broke (the failure is shrunk and saved, with its replay command)",
        BAD_INPUT, INTERNAL, SIGNALS, CLOSED_STDOUT
    ))]
    Run(run::Args),
    /// Run many seeds against one store or all, in parallel, and print the
    /// store × invariant table.
    #[command(after_help = exit_codes!(
        "0    no seed broke anything",
        "1    an invariant broke (each class's first failure is shrunk and saved)",
        BAD_INPUT, INTERNAL, SIGNALS, CLOSED_STDOUT
    ))]
    Fuzz(fuzz::Args),
    /// Replay a scenario file and show it as a timeline (or a mermaid diagram).
    #[command(after_help = exit_codes!(
        "0    the scenario broke nothing on the store",
        "1    it broke an invariant (whether or not the file expects it: the output says)",
        BAD_INPUT, QUITS_AT_A_SIGNAL, CLOSED_STDOUT
    ))]
    Replay(replay::Args),
    /// Shrink a failing scenario to a 1-minimal one with the same signature.
    #[command(after_help = exit_codes!(
        "0    shrunk and written (the file still fails as FILE does: that is the point)",
        "1    nothing to shrink: FILE does not fail on the store as it expects; nothing written",
        BAD_INPUT, INTERNAL, SIGNALS, CLOSED_STDOUT
    ))]
    Shrink(shrink::Args),
    /// The CI gate: replay every scenario in a directory, then fuzz a bounded budget.
    #[command(after_help = exit_codes!(
        "0    everything passed (with --known: only known classes failed)",
        "1    something broke: a scenario did not reproduce its expect, or a (new) class failed",
        "2    bad usage or input (a scenario, a flag, a store, an empty --seed, a folder with no scenario file, --seeds 0 with --store unless --allow-empty), or a file that could not be written (the results are printed first)",
        INTERNAL, SIGNALS, CLOSED_STDOUT
    ))]
    Check(check::Args),
    /// Drive two stores in lockstep over seeds and scenarios; report the first step where
    /// their effects or renders differ, shrunk to a scenario.
    #[command(after_help = exit_codes!(
        "0    the stores agree on every step",
        "1    they differ (the first divergence is shrunk and saved)",
        BAD_INPUT, INTERNAL, QUITS_AT_A_SIGNAL, CLOSED_STDOUT
    ))]
    Diff(diff::Args),
    /// Turn a libFuzzer artifact of the `interleavings` target into a shrunk scenario.
    #[command(after_help = exit_codes!(
        "0    the artifact breaks nothing on its store: nothing to convert, nothing written",
        "1    it breaks an invariant: shrunk and written as a scenario",
        BAD_INPUT, INTERNAL, SIGNALS, CLOSED_STDOUT
    ))]
    FromFuzz(from_fuzz::Args),
    /// Regenerate the committed fuzz corpus (`corpus/`) from the scenarios.
    #[command(after_help = exit_codes!(
        "0    written", BAD_INPUT, INTERNAL, QUITS_AT_A_SIGNAL, CLOSED_STDOUT
    ))]
    Corpus(corpus::Args),
    /// The nightly run: every store and strategy in-process, then each cargo-fuzz target;
    /// new failures shrunk into a dated folder with JSON and Markdown summaries.
    #[command(after_help = exit_codes!(
        "0    nothing new: every failure's class is in the scenarios (scenarios/known/) or an earlier night",
        "1    a new class (shrunk into tonight's folder), or a problem (a target that did not build)",
        BAD_INPUT, INTERNAL, SIGNALS, CLOSED_STDOUT
    ))]
    Nightly(nightly::Args),
    /// Search every schedule of a small world (sleep-set reduction); print the shortest
    /// counterexample or "verified".
    Explore(explore::Args),
    /// Measure harness throughput, time to first failure per (store, strategy), and
    /// explore's reduction; print Markdown tables (or JSON).
    #[command(after_help = exit_codes!(
        "0    measured", BAD_INPUT, INTERNAL, QUITS_AT_A_SIGNAL, CLOSED_STDOUT
    ))]
    Bench(bench::Args),
    /// Add up the `--result` files of the shards of one `fuzz`, `check` or `nightly` run
    /// (`--shard I/N`) into what the unsharded run prints and writes.
    #[command(after_help = exit_codes!(
        "0    the merged run broke nothing (explore: verified)",
        "1    the merged run broke an invariant (explore: a counterexample)",
        "2    bad usage or input: results of different configurations or versions, a shard twice or missing (without --allow-partial), or a file that could not be written",
        INTERNAL, "4    explore shards: inconclusive (a shard hit its limit)",
        QUITS_AT_A_SIGNAL, CLOSED_STDOUT
    ))]
    Merge(merge::Args),
    /// Write self-contained HTML pages: a scenario's interleaving drawn step by step, or a
    /// campaign's table and classes from result files and nights, each class linked to its
    /// scenario's page.
    #[command(after_help = exit_codes!(
        "0    the pages written (a scenario's verdict does not change it)",
        BAD_INPUT, INTERNAL, QUITS_AT_A_SIGNAL, CLOSED_STDOUT
    ))]
    Report(report::Args),
    /// Turn a log one tab recorded (`reconcile-sim-adapter/record`) into a scenario whose
    /// world, seen from that tab, is what the log shows; judge it and write it.
    #[command(after_help = exit_codes!(
        "0    the scenario written (its verdict printed: replay judges it, shrink cuts it)",
        "2    bad usage or input: a malformed log, or one no schedule of the model explains (the entry is named: a finding about the backend's contract or the model), or a file that could not be written",
        INTERNAL, "4    the search hit its limit (--states-max) before explaining the log",
        QUITS_AT_A_SIGNAL, CLOSED_STDOUT
    ))]
    Import(import::Args),
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
        Command::Import(args) => import::main(args),
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Regression (issue 48): no `--help` said what the exit codes mean, so a script could
    /// not tell `shrink`'s success (then exit 1) from a failure. Every subcommand's help
    /// ends with its exit codes: what 0 means for it, bad input (2) and, for those that
    /// install the signal handling, the signal codes.
    #[test]
    fn every_subcommands_help_lists_its_exit_codes() {
        let mut cli = super::Cli::command();
        let mut names = Vec::new();
        for sub in cli.get_subcommands_mut() {
            let name = sub.get_name().to_string();
            let help = sub.render_help().to_string();
            let codes = help
                .split_once("Exit codes:\n")
                .unwrap_or_else(|| panic!("`{name} --help` lists no exit codes:\n{help}"))
                .1;
            for code in ["0", "2", "130", "141"] {
                assert!(
                    codes
                        .lines()
                        .any(|l| l.trim_start().starts_with(&format!("{code} "))),
                    "`{name} --help` does not say what exit {code} means:\n{codes}"
                );
            }
            names.push(name);
        }
        assert!(names.len() >= 13, "{names:?}");
        // `shrink`'s success is 0, nothing to shrink 1.
        let shrink = cli
            .find_subcommand_mut("shrink")
            .unwrap()
            .render_help()
            .to_string();
        assert!(shrink.contains("0    shrunk and written"), "{shrink}");
        assert!(shrink.contains("1    nothing to shrink"), "{shrink}");
    }
}
