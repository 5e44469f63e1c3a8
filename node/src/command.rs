//! What JavaScript asks the engine to do ([`Command`], from JSON), and doing it with the
//! library's one function per command, the store being the JavaScript side's adapters
//! ([`reconcile_sim::exec::ExecFactory::in_process`]). What comes back is what the CLI
//! prints and writes for the same command, as JSON.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use reconcile_sim::campaign::check::{seed_start_from, CheckReport, CheckRequest, DEFAULT_SEEDS};
use reconcile_sim::campaign::findings::replay_command_for;
use reconcile_sim::campaign::fuzz::{Budget, Campaign};
use reconcile_sim::campaign::merge::{merge_texts, CheckResult, FuzzResult, Merged, ResultFile};
use reconcile_sim::campaign::pipeline::check::check;
use reconcile_sim::campaign::pipeline::check_text;
use reconcile_sim::campaign::pipeline::fuzz::{fuzz, FuzzPlan};
use reconcile_sim::campaign::pipeline::partners::{Meeting, Partners};
use reconcile_sim::campaign::pipeline::{text, Silent};
use reconcile_sim::campaign::settle_budget::SettleBudget;
use reconcile_sim::exec::{ChannelOpener, ExecFactory};
use reconcile_sim::model::pins::WorldPins;
use reconcile_sim::run::strategy::StrategySpec;
use reconcile_sim::run::worlds::Worlds;
use reconcile_sim::trace::shrink::Limits;
use reconcile_sim::util::shard::Shard;
use serde::Deserialize;

use crate::meeting;

/// A shard's place at its meeting: left when the shard is done; dropped before that (an
/// error, a panic), it abandons the meeting, so the other shards do not wait for it.
struct Seat(Option<Arc<Meeting>>);

impl Seat {
    fn leave(&mut self) {
        self.0 = None;
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        if let Some(meeting) = self.0.take() {
            meeting.abandon("another worker of this command stopped before it shared its failures (its own error says why)".to_string());
        }
    }
}

/// A command, as JavaScript gives it (the CLI's flags, camelCased).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Command {
    /// `fuzz`, `check`, or `report` (the HTML page of each of `files`).
    pub command: String,
    /// The `exec:COMMAND` that runs the same adapter as a process: the store's name in
    /// reports and saved scenario files, so they replay with the CLI.
    pub store: String,
    /// The directory the command would run in (default: the current one).
    #[serde(default)]
    pub dir: Option<PathBuf>,
    /// Seeds to run (for `check`, per store; default 10 000, as the CLI's).
    #[serde(default)]
    pub seeds: Option<u64>,
    /// `check --seed`: where the seeds start, a number or any string (hashed).
    #[serde(default)]
    pub seed: Option<String>,
    /// `check --scenarios` (default `scenarios`).
    #[serde(default)]
    pub scenarios: Option<PathBuf>,
    /// Whether `scenarios` was named by the caller (it must exist then), rather than the
    /// default folder (which may be missing: no scenarios).
    #[serde(default)]
    pub scenarios_named: bool,
    /// `check --known`.
    #[serde(default)]
    pub known: Option<PathBuf>,
    /// `check --allow-empty`.
    #[serde(default)]
    pub allow_empty: bool,
    /// `check --no-check-determinism` (the check runs seeds again by default, as the
    /// CLI does for `exec:` stores).
    #[serde(default)]
    pub no_check_determinism: bool,
    /// The first seed.
    #[serde(default)]
    pub seed_start: u64,
    /// Where findings are saved (default `reconcile-failures`, as the CLI's).
    #[serde(default)]
    pub out: Option<PathBuf>,
    /// `--no-classes`.
    #[serde(default)]
    pub no_classes: bool,
    /// `--max-shrink-iters`: replays shrinking may spend on one failure.
    #[serde(default)]
    pub max_shrink_iters: Option<u64>,
    /// `--max-shrink-time`, in milliseconds: time shrinking may spend on one failure.
    #[serde(default)]
    pub max_shrink_time_ms: Option<u64>,
    /// `--settle-time`: `campaign` (the default), a duration (`90s`) or `unbounded`.
    #[serde(default)]
    pub settle_time: Option<String>,
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
    /// `--shard I/N` as `[I, N]`: the part of the seeds this engine runs (a worker's), its
    /// result to be merged with the others' ([`merge`]).
    #[serde(default)]
    pub shard: Option<(u64, u64)>,
    /// For a worker's shard of a parallel `fuzz`: the meeting ([`crate::meeting`]) where
    /// the shards share their failures after the campaign, so that each is settled once.
    #[serde(default)]
    pub meeting: Option<u32>,
    /// `report`: the scenario files whose pages are written beside them.
    #[serde(default)]
    pub files: Vec<PathBuf>,
    /// How printed commands (replay, reproduce) name the CLI (default `npx reconcile-sim`,
    /// the package's bin; `RECONCILE_SIM_INVOKED_AS` overrides it, as for the CLI).
    #[serde(default)]
    pub program: Option<String>,
}

impl Command {
    /// Parse `json`; a bad command is an error that says what is wrong.
    pub fn parse(json: &str) -> Result<Command, String> {
        let command: Command =
            serde_json::from_str(json).map_err(|e| format!("bad engine command: {e}"))?;
        match command.command.as_str() {
            "fuzz" if command.seeds.is_none() => {
                return Err("bad engine command: fuzz needs seeds".to_string())
            }
            "report" if command.files.is_empty() => {
                return Err("bad engine command: report needs files".to_string())
            }
            "fuzz" | "check" | "report" => {}
            other => {
                return Err(format!(
                    "bad engine command: unknown command '{other}' (the engine runs: fuzz, check, report)"
                ))
            }
        }
        if command.seeds == Some(0) && !command.allow_empty {
            return Err(
                "bad engine command: seeds 0 runs nothing (allowEmpty accepts it)".to_string(),
            );
        }
        ExecFactory::from_spec(&command.store).map_err(|e| format!("bad engine command: {e}"))?;
        command.shard()?;
        if let Some(id) = command.meeting {
            if command.command != "fuzz" || command.shard.is_none() {
                return Err(
                    "bad engine command: a meeting is for a shard of a parallel fuzz".to_string(),
                );
            }
            if meeting::find(id).is_none() {
                return Err(format!("bad engine command: no meeting {id} is open"));
            }
        }
        Ok(command)
    }

    /// Run it, its stores served by `opener`; the result as JSON (what the CLI prints and
    /// writes), or an operational error (the CLI's exit 2).
    pub fn run(&self, opener: Arc<dyn ChannelOpener>) -> Result<String, String> {
        let meeting = self.meeting.and_then(meeting::find);
        // Whatever stops this shard before it is done stops the others' wait for it.
        let mut seat = Seat(meeting.clone());
        reconcile_sim::util::program::name_as(
            self.program.as_deref().unwrap_or("npx reconcile-sim"),
        );
        let factory = ExecFactory::in_process(&self.store, self.dir.clone(), opener)
            .map_err(|e| e.to_string())?;
        factory.probe().map_err(|e| e.to_string())?;
        let settings = text::settings_line(&factory).unwrap_or_default();
        let mut reply = match self.command.as_str() {
            "check" => self.check(&factory)?,
            "report" => self.report(&factory),
            _ => self.fuzz(&factory, meeting.as_deref())?,
        };
        seat.leave();
        reply["settings"] = settings.into();
        Ok(reply.to_string())
    }

    fn settle(&self) -> Result<SettleBudget, String> {
        self.settle_time
            .as_deref()
            .map_or(Ok(SettleBudget::AsCampaign), SettleBudget::parse)
    }

    fn shard(&self) -> Result<Shard, String> {
        match self.shard {
            None => Ok(Shard::WHOLE),
            Some((index, count)) => {
                Shard::new(index, count).map_err(|e| format!("bad engine command: {e}"))
            }
        }
    }

    fn strategy(&self) -> Result<StrategySpec, String> {
        StrategySpec::from_flags(self.strategy.as_deref().unwrap_or("random"), self.depth)
    }

    fn worlds(&self) -> Result<Worlds, String> {
        Ok(Worlds {
            contract: WorldPins::none(),
            pins: WorldPins::parse(&self.world)?,
            judged: reconcile_sim::oracle::judged::from_flags(
                self.invariants.as_deref(),
                self.skip.as_deref(),
            )?,
        })
    }

    /// The shrinking limits: the CLI's defaults, unless set.
    fn limits(&self) -> Limits {
        let default = Limits::default();
        Limits {
            replays_max: self.max_shrink_iters.unwrap_or(default.replays_max),
            time_max: self
                .max_shrink_time_ms
                .map_or(default.time_max, std::time::Duration::from_millis),
            deadline: None,
        }
    }

    fn out(&self) -> PathBuf {
        self.out
            .clone()
            .unwrap_or_else(|| PathBuf::from("reconcile-failures"))
    }

    /// `fuzz`: the table, the details, and the `--json` object as `result`.
    fn fuzz(
        &self,
        factory: &ExecFactory,
        meeting: Option<&Meeting>,
    ) -> Result<serde_json::Value, String> {
        let out = self.out();
        let plan = FuzzPlan {
            campaign: Campaign {
                stores: vec![factory],
                strategy: self.strategy()?,
                seed_start: self.seed_start,
                budget: Budget::Seeds(self.seeds.unwrap_or(0)),
                // One job: the stores are called from the engine's coroutine on the
                // JavaScript thread. Results do not depend on it (as with `--jobs`).
                jobs: 1,
                coverage: false,
                classes: !self.no_classes,
                worlds: self.worlds()?.under_contract_of(&[factory])?,
            },
            shard: self.shard()?,
            out: out.clone(),
            limits: self.limits(),
            time: None,
            settle: self.settle()?,
            check_determinism: false,
            result_file: None,
            details_file: false,
            partners: meeting.map(|m| m as &dyn Partners),
            html: false,
        };
        let never = AtomicBool::new(false);
        let run = fuzz(&plan, &Silent, &never).map_err(|e| e.to_string())?;
        let mut reply = fuzz_reply(&run.result, &out, run.result_error.as_deref())?;
        reply["timing"] = run.timing.json();
        Ok(reply)
    }

    /// `check --store`: the report's text, and the `--json` report as `result`.
    fn check(&self, factory: &ExecFactory) -> Result<serde_json::Value, String> {
        let seed = self.seed.clone().unwrap_or_else(|| "0".to_string());
        let request = CheckRequest {
            scenarios_dir: self
                .scenarios
                .clone()
                .unwrap_or_else(|| PathBuf::from("scenarios")),
            scenarios_named: self.scenarios_named,
            under_test: Some(vec![factory]),
            seeds: self.seeds.unwrap_or(DEFAULT_SEEDS),
            seed_start: seed_start_from(&seed),
            strategy: self.strategy()?,
            // One job: see `fuzz`.
            jobs: 1,
            out: self.out(),
            limits: self.limits(),
            known: self.known.clone(),
            shard: self.shard()?,
            determinism: !self.no_check_determinism,
            allow_empty: self.allow_empty,
            html: false,
            worlds: self.worlds()?.under_contract_of(&[factory])?,
            settle: self.settle()?,
        };
        // With a store under test every scenario is replayed on it; a file naming
        // another `exec:` command is not run from here.
        let resolve = |path: &std::path::Path, sc: &reconcile_sim::trace::scenario::Scenario| {
            reconcile_sim::store::recorded::resolve_recorded(
                &sc.store,
                path,
                sc.store_dir.as_deref(),
                reconcile_sim::exec::ExecOptions::default(),
                false,
            )
        };
        let run = check(&request, &seed, &resolve, None).map_err(|e| e.to_string())?;
        let mut reply = check_reply(&run.result, &run.report)?;
        reply["timing"] = run.timing.json();
        Ok(reply)
    }
}

impl Command {
    /// `report`: each file's page written beside it (`x.json` → `x.html`), replayed on this
    /// adapter (a file naming another `exec:` command is not run from here); per file, the
    /// page or why there is none.
    fn report(&self, factory: &ExecFactory) -> serde_json::Value {
        use reconcile_sim::campaign::report::{write, Replayers};
        let stores: [&dyn reconcile_sim::model::store::StoreFactory; 1] = [factory];
        let resolve = |path: &std::path::Path, sc: &reconcile_sim::trace::scenario::Scenario| {
            reconcile_sim::store::recorded::resolve_recorded(
                &sc.store,
                path,
                sc.store_dir.as_deref(),
                reconcile_sim::exec::ExecOptions::default(),
                false,
            )
        };
        let replayers = Replayers {
            stores: &stores,
            resolve: &resolve,
        };
        let reports: Vec<serde_json::Value> = self
            .files
            .iter()
            .map(|file| {
                let page = write::page_path_of(file);
                match write::write_scenario_page(file, &page, &replayers, None) {
                    Ok(Ok(())) => serde_json::json!({"file": file, "page": page}),
                    Ok(Err(why)) | Err(why) => serde_json::json!({"file": file, "error": why}),
                }
            })
            .collect();
        serde_json::json!({ "reports": reports })
    }
}

/// What `fuzz` gives back for `result` (saved under `out`): the CLI's text, whether it
/// failed, and the result file (for a worker's part, to be merged).
fn fuzz_reply(
    result: &ResultFile<FuzzResult>,
    out: &std::path::Path,
    result_error: Option<&str>,
) -> Result<serde_json::Value, String> {
    let (table, details) = text::text(result, out);
    Ok(serde_json::json!({
        "table": table,
        "details": details,
        "warnings": text::warnings(result, out),
        "notWritten": text::not_written(result, result_error),
        "runs": result.result.report.seeds,
        "failed": result.result.failed(),
        "result": text::json(result, out).map_err(|e| e.to_string())?,
        "resultFile": serde_json::to_string(result).map_err(|e| e.to_string())?,
    }))
}

/// What `check` gives back: the CLI's text, each new class (for a test runner to report
/// as a test), the failing batches, whether it failed, the `--json` report, and the
/// result file (for a worker's part, to be merged).
fn check_reply(
    result: &ResultFile<CheckResult>,
    report: &CheckReport,
) -> Result<serde_json::Value, String> {
    let text = check_text::text(report, &result.result.config, &result.shards, "");
    let found: Vec<serde_json::Value> = report
        .found
        .iter()
        .map(|f| {
            serde_json::json!({
                "name": f.class.as_ref().map_or(f.invariant.to_string(), |c| c.to_string()),
                "invariant": f.invariant.to_string(),
                "store": f.store,
                "seed": f.seed,
                "path": f.path,
                "steps": f.steps,
                "replay": replay_command_for(&f.store, &f.path),
                "notSaved": f.write_error,
            })
        })
        .collect();
    let failing_batches: Vec<String> = report
        .batches
        .iter()
        .filter(|b| !b.ok())
        .map(|b| {
            format!(
                "{} seeds {}..{}",
                b.store,
                b.seed_start,
                b.seed_start + b.seeds
            )
        })
        .collect();
    Ok(serde_json::json!({
        "text": text,
        "found": found,
        "failingBatches": failing_batches,
        "failed": !report.ok(),
        "notWritten": report.write_errors(),
        "result": serde_json::to_value(report).map_err(|e| e.to_string())?,
        "resultFile": serde_json::to_string(result).map_err(|e| e.to_string())?,
    }))
}

/// The result files of the parts of one command (`fuzz` or `check`, one per worker)
/// merged into what the whole command gives: every saved scenario written again under
/// `out` (the parts saved theirs elsewhere), then the same reply as the unsharded run's.
pub fn merge(parts: &[String], out: &std::path::Path) -> Result<String, String> {
    let texts: Vec<(PathBuf, String)> = parts
        .iter()
        .enumerate()
        .map(|(i, t)| (PathBuf::from(format!("part {}", i + 1)), t.clone()))
        .collect();
    let source = std::path::Path::new("the merged result");
    let reply = match merge_texts(&texts, false).map_err(|e| e.to_string())? {
        Merged::Fuzz(mut r) => {
            r.result
                .write_saved(out, source)
                .map_err(|e| e.to_string())?;
            fuzz_reply(&r, out, None)?
        }
        Merged::Check(mut r) => {
            r.result
                .write_saved(out, source)
                .map_err(|e| e.to_string())?;
            let report = r.result.report_under(out);
            check_reply(&r, &report)?
        }
        _ => return Err("only fuzz and check results merge here".to_string()),
    };
    Ok(reply.to_string())
}
