//! Command-line front end. One file per subcommand; this file holds the argument types
//! shared between them and maps every outcome to an exit code in one place:
//! 0 nothing violated, 1 an invariant broke, 2 bad usage or input.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use reconcile_sim::model::store::StoreFactory;

mod bench;
mod check;
mod corpus;
mod explore;
mod from_fuzz;
mod fuzz;
mod nightly;
mod replay;
mod run;
mod shrink;
mod stores;

/// What a subcommand found, when it ran to the end.
pub enum Verdict {
    /// Nothing violated.
    Clean,
    /// At least one invariant broke.
    Violation,
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
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Stores(args) => stores::main(args),
        Command::Run(args) => run::main(args),
        Command::Fuzz(args) => fuzz::main(args),
        Command::Replay(args) => replay::main(args),
        Command::Shrink(args) => shrink::main(args),
        Command::Check(args) => check::main(args),
        Command::FromFuzz(args) => from_fuzz::main(args),
        Command::Corpus(args) => corpus::main(args),
        Command::Nightly(args) => nightly::main(args),
        Command::Explore(args) => explore::main(args),
        Command::Bench(args) => bench::main(args),
    };
    match result {
        Ok(Verdict::Clean) => ExitCode::from(0),
        Ok(Verdict::Violation) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Resolve `--store NAME` to a store factory, or a clear error naming the choices.
/// Every subcommand that takes `--store` goes through here.
pub fn resolve_store(name: &str) -> anyhow::Result<Box<dyn StoreFactory>> {
    if name.starts_with(reconcile_sim::store::exec::SPEC_PREFIX) {
        return exec_store(name);
    }
    match reconcile_sim::store::by_name(name) {
        Some(kind) => Ok(Box::new(kind)),
        None => anyhow::bail!(
            "unknown store '{name}'; known stores: {}",
            reconcile_sim::store::names().join(", ")
        ),
    }
}

/// Resolve `--store exec:'COMMAND ARGS'`: a store in another process (docs/protocol.md).
/// The per-message timeout and CPU pinning come from the environment
/// (`RECONCILE_SIM_EXEC_TIMEOUT`, `RECONCILE_SIM_EXEC_PIN`).
fn exec_store(spec: &str) -> anyhow::Result<Box<dyn StoreFactory>> {
    use reconcile_sim::store::exec::{ExecFactory, PIN_ENV, TIMEOUT_DEFAULT, TIMEOUT_ENV};
    let timeout = match std::env::var(TIMEOUT_ENV) {
        Ok(text) => humantime::parse_duration(&text)
            .map_err(|e| anyhow::anyhow!("{TIMEOUT_ENV}='{text}': {e}"))?,
        Err(_) => TIMEOUT_DEFAULT,
    };
    let pin = !matches!(std::env::var(PIN_ENV).as_deref(), Ok("off" | "0" | "false"));
    let factory = ExecFactory::from_spec(spec)?
        .with_timeout(timeout)
        .with_pinning(pin);
    factory.probe()?;
    Ok(Box::new(factory))
}

/// Resolve `--store NAME|all`.
pub fn resolve_stores(name: &str) -> anyhow::Result<Vec<Box<dyn StoreFactory>>> {
    if name == "all" {
        Ok(reconcile_sim::store::STORES
            .iter()
            .map(|k| Box::new(*k) as Box<dyn StoreFactory>)
            .collect())
    } else {
        Ok(vec![resolve_store(name)?])
    }
}

/// Check `--strategy NAME`.
pub fn check_strategy(name: &str) -> anyhow::Result<()> {
    if reconcile_sim::run::strategy::NAMES.contains(&name) {
        Ok(())
    } else {
        anyhow::bail!(
            "unknown strategy '{name}'; known strategies: {}",
            reconcile_sim::run::strategy::NAMES.join(", ")
        )
    }
}

/// The strategy spec `--strategy NAME [--depth D]` stands for (`pct:D` for PCT with an
/// explicit depth), after checking the name; `--depth` with another strategy is an error.
pub fn strategy_spec(name: &str, depth: Option<u32>) -> anyhow::Result<String> {
    check_strategy(name)?;
    match (name, depth) {
        (_, None) => Ok(name.to_string()),
        ("pct", Some(0)) => anyhow::bail!("--depth must be at least 1"),
        ("pct", Some(d)) => Ok(format!("pct:{d}")),
        (_, Some(_)) => anyhow::bail!("--depth applies only to --strategy pct"),
    }
}

/// The `--strategy …` flags that reproduce a strategy spec (empty for the default).
pub fn strategy_flags(spec: &str) -> String {
    match spec.strip_prefix("pct:") {
        Some(d) => format!(" --strategy pct --depth {d}"),
        None if spec == "random" => String::new(),
        None => format!(" --strategy {spec}"),
    }
}
