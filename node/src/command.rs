//! What JavaScript asks the engine to do ([`Command`], from JSON), and doing it with the
//! library's one function per command, the store being the JavaScript side's adapters
//! ([`reconcile_sim::exec::ExecFactory::in_process`]). What comes back is what the CLI
//! prints and writes for the same command, as JSON.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use reconcile_sim::campaign::fuzz::{Budget, Campaign};
use reconcile_sim::campaign::pipeline::fuzz::{fuzz, FuzzPlan};
use reconcile_sim::campaign::pipeline::{text, Silent};
use reconcile_sim::exec::{ChannelOpener, ExecFactory};
use reconcile_sim::model::pins::WorldPins;
use reconcile_sim::model::store::StoreFactory;
use reconcile_sim::run::strategy::StrategySpec;
use reconcile_sim::run::worlds::Worlds;
use reconcile_sim::trace::shrink::Limits;
use reconcile_sim::util::shard::Shard;
use serde::Deserialize;

/// A command, as JavaScript gives it (the CLI's flags, camelCased).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Command {
    /// `fuzz` (the only one so far).
    pub command: String,
    /// The `exec:COMMAND` that runs the same adapter as a process: the store's name in
    /// reports and saved scenario files, so they replay with the CLI.
    pub store: String,
    /// The directory the command would run in (default: the current one).
    #[serde(default)]
    pub dir: Option<PathBuf>,
    /// Seeds to run.
    pub seeds: u64,
    /// The first seed.
    #[serde(default)]
    pub seed_start: u64,
    /// Where findings are saved (default `reconcile-failures`, as the CLI's).
    #[serde(default)]
    pub out: Option<PathBuf>,
    /// `--no-classes`.
    #[serde(default)]
    pub no_classes: bool,
    /// `--world` values.
    #[serde(default)]
    pub world: Vec<String>,
    /// `--invariants`.
    #[serde(default)]
    pub invariants: Option<String>,
    /// `--skip`.
    #[serde(default)]
    pub skip: Option<String>,
    /// `--strategy` (default `random`).
    #[serde(default)]
    pub strategy: Option<String>,
    /// `--depth`.
    #[serde(default)]
    pub depth: Option<u32>,
}

impl Command {
    /// Parse `json`; a bad command is an error that says what is wrong.
    pub fn parse(json: &str) -> Result<Command, String> {
        let command: Command =
            serde_json::from_str(json).map_err(|e| format!("bad engine command: {e}"))?;
        if command.command != "fuzz" {
            return Err(format!(
                "bad engine command: unknown command '{}' (the engine runs: fuzz)",
                command.command
            ));
        }
        if command.seeds == 0 {
            return Err("bad engine command: seeds 0 runs nothing".to_string());
        }
        ExecFactory::from_spec(&command.store).map_err(|e| format!("bad engine command: {e}"))?;
        Ok(command)
    }

    /// Run it, its stores served by `opener`; the result as JSON (what the CLI prints and
    /// writes), or an operational error (the CLI's exit 2).
    pub fn run(&self, opener: Arc<dyn ChannelOpener>) -> Result<String, String> {
        let factory = ExecFactory::in_process(&self.store, self.dir.clone(), opener)
            .map_err(|e| e.to_string())?;
        factory.probe().map_err(|e| e.to_string())?;
        let stores: Vec<&dyn StoreFactory> = vec![&factory];
        let strategy =
            StrategySpec::from_flags(self.strategy.as_deref().unwrap_or("random"), self.depth)?;
        let worlds = Worlds {
            pins: WorldPins::parse(&self.world)?,
            judged: reconcile_sim::oracle::judged::from_flags(
                self.invariants.as_deref(),
                self.skip.as_deref(),
            )?,
        };
        let out = self
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from("reconcile-failures"));
        let plan = FuzzPlan {
            campaign: Campaign {
                stores,
                strategy,
                seed_start: self.seed_start,
                budget: Budget::Seeds(self.seeds),
                // One job: the stores are called from the engine's coroutine on the
                // JavaScript thread. Results do not depend on it (as with `--jobs`).
                jobs: 1,
                coverage: false,
                classes: !self.no_classes,
                worlds,
            },
            shard: Shard::WHOLE,
            out: out.clone(),
            limits: Limits::default(),
            time: None,
            check_determinism: false,
            result_file: None,
            details_file: false,
        };
        let never = AtomicBool::new(false);
        let run = fuzz(&plan, &Silent, &never).map_err(|e| e.to_string())?;
        let (table, details) = text::text(&run.result, &out);
        let settings = factory
            .settings()
            .map(|s| format!("{}: {s}\n", factory.name()))
            .unwrap_or_default();
        let failed =
            run.result.result.report.any_failure() || !run.result.result.suspects.is_empty();
        let result = text::json(&run.result, &out).map_err(|e| e.to_string())?;
        let reply = serde_json::json!({
            "settings": settings,
            "table": table,
            "details": details,
            "warnings": text::warnings(&run.result, &out),
            "notWritten": text::not_written(&run.result, run.result_error.as_deref()),
            "runs": run.runs,
            "failed": failed,
            "result": result,
        });
        Ok(reply.to_string())
    }
}
