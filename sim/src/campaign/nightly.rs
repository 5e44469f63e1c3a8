//! The nightly run: for a time budget, the in-process fuzzer over the stores a team ships
//! (by default `durable` and `current`) with every strategy on every core, then each
//! cargo-fuzz target; every failure with a signature (store and root-cause class,
//! [`crate::trace::class`]) not seen before (in `scenarios/`, whose `known/<store>/`
//! folders hold each store's known failures, or an earlier night) is shrunk, keeping its
//! class, and written into tonight's folder, with a JSON and a Markdown summary listing
//! classes. A night on a fresh checkout therefore exits 0 unless something is new. The
//! note's deliberately buggy stores (`naive`, `fix-*`, `membership`, `canary`) are not
//! run unless named: they fail in known ways by design, and a night that is red every
//! time tells nobody anything.
//!
//! Nothing found is ever lost: each scenario file is written (atomically) as soon as it is
//! shrunk, and the summary is written whether the run ends by its budget or by Ctrl-C
//! (the `cancel` flag), in which case it says so. A file that cannot be written (a full
//! disk) is listed in the summary's `write_errors`, and the night goes on; the summary
//! itself is returned (to be printed) even when it cannot be written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::campaign::check::scenario_files;
use crate::campaign::error::CampaignError;
use crate::campaign::findings::{file_for, save_unshrunk, shrink_and_save, Failure, Finding};
use crate::campaign::fuzz::{run_campaign_shard, Budget, Campaign, CampaignReport};
use crate::campaign::libfuzzer::{artifact_failure, build_targets, run_target, TargetSummary};
use crate::campaign::pipeline::Listener;
use crate::campaign::shard::Shard;
use crate::model::store::StoreFactory;
use crate::oracle::Invariant;
use crate::run::strategy::StrategySpec;
use crate::store::{StoreKind, STORES};
use crate::trace::class::{classify, Class};
use crate::trace::scenario::load;
use crate::trace::shrink::{GaveUp, Limits};
use crate::util::fs::write_atomically;

/// A failure's identity for de-duplication: the store and the root-cause class.
pub type Signature = (String, Class);

/// What a nightly run does.
#[derive(Clone, Debug)]
pub struct NightlyConfig {
    /// The whole budget.
    pub budget: Duration,
    /// Tonight's folder, as [`fresh_night_dir`] created it.
    pub night_dir: PathBuf,
    /// Where known signatures come from: the committed scenarios and earlier nights.
    pub known_dirs: Vec<PathBuf>,
    /// The stores fuzzed in-process, by name: the stores a team ships (by default
    /// `durable` and `current`), each judged against its known failures. The note's
    /// deliberately buggy stores fail in known ways every night; they run only when named.
    pub stores: Vec<String>,
    /// The first seed of every in-process campaign.
    pub seed_start: u64,
    /// Worker threads for the in-process campaigns, and libFuzzer's `-fork` processes.
    pub jobs: usize,
    /// The cargo-fuzz package directory, or `None` to skip the coverage-guided phase.
    pub fuzz_dir: Option<PathBuf>,
    /// The committed corpus root (`corpus/`), read-only seeds for libFuzzer.
    pub corpus_dir: PathBuf,
    /// Share of the budget for the in-process phase when cargo-fuzz runs too.
    pub in_process_share: f64,
    /// Stores the `interleavings` target is run against, one libFuzzer run each (fixed
    /// with `RECONCILE_SIM_STORE`): the stores under test, not the known-broken history.
    pub fuzz_stores: Vec<String>,
    /// The part of the in-process seeds this night runs ([`crate::campaign::shard`]); the
    /// cargo-fuzz phase runs in every shard (libFuzzer's own randomness makes the shards'
    /// runs differ). [`Shard::WHOLE`] for an unsharded night.
    pub shard: Shard,
    /// Where to write the night's mergeable result ([`crate::campaign::merge`]), if
    /// anywhere: written with the summary, also when the night is interrupted.
    pub result: Option<PathBuf>,
    /// What `--world` pins and which invariants are judged, in-process and in the
    /// cargo-fuzz targets (through their environment).
    pub worlds: crate::run::worlds::Worlds,
}

/// One in-process campaign's results.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CampaignSummary {
    /// The campaign's table: seeds per store, failing seeds per invariant.
    pub report: CampaignReport,
    /// Runs (seeds × stores) per wall second, over every worker: the night's throughput.
    pub runs_per_second: f64,
}

/// A failure found tonight.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NightFinding {
    /// The store that failed.
    pub store: String,
    /// The invariant that noticed it (for a new finding, the one its saved file breaks).
    pub invariant: Invariant,
    /// The first seed that showed it in its in-process campaign (none for cargo-fuzz).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Its root-cause class; with `store`, the signature that decides `new`.
    pub class: Class,
    /// The class as a person reads it.
    pub class_name: String,
    /// `in-process/<strategy>` or `cargo-fuzz/<target>`.
    pub source: String,
    /// Its signature was in no committed scenario nor an earlier night (nor earlier
    /// tonight): only new findings are shrunk and saved, and any makes the night exit 1.
    pub new: bool,
    /// The shrunk scenario written for a new signature.
    pub scenario: Option<String>,
    /// Main-phase steps of that scenario, after shrinking.
    pub steps: Option<usize>,
    /// The world features that scenario needs ([`crate::trace::assume`]), for a new
    /// signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs: Option<Vec<crate::trace::assume::Assumption>>,
    /// For a crash: why the store crashed in the run that found it (an in-process store's
    /// panic; an adapter's fault with its stderr tail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<crate::model::store::CrashCause>,
    /// The failure did not happen again when shrinking began (a flaky store, or state
    /// that leaks across runs): its scenario is the run as found, unshrunk.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub did_not_replay: bool,
}

/// Everything the night did; written as `summary.json` and `summary.md`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NightlySummary {
    /// Tonight's folder (`nightly/YYYY-MM-DD`), which holds the summary and the scenarios.
    pub night_dir: String,
    /// The budget asked for (`--time`).
    pub budget_seconds: u64,
    /// Wall time the night actually took, to set against `budget_seconds`.
    pub elapsed_seconds: f64,
    /// Ctrl-C stopped the night early; what it found so far is still written.
    pub interrupted: bool,
    /// The first seed of every in-process campaign (by default from the date, so
    /// successive nights run different seeds).
    pub seed_start: u64,
    /// Signatures known before tonight, which are counted but not saved again.
    pub known_signatures: usize,
    /// One in-process campaign per strategy.
    pub campaigns: Vec<CampaignSummary>,
    /// Seconds spent building the cargo-fuzz targets (part of the budget), when the
    /// night ran them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cargo_fuzz_build_seconds: Option<f64>,
    /// One libFuzzer run per `interleavings` store, then `scenario_parser`.
    pub cargo_fuzz: Vec<TargetSummary>,
    /// Every failure found, new or known, in the order found.
    pub findings: Vec<NightFinding>,
    /// Problems that did not stop the night (a target that failed to build…).
    pub problems: Vec<String>,
    /// Files that could not be written (a full disk, an unwritable folder): the night
    /// goes on, and reports them here and in what it prints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write_errors: Vec<String>,
}

/// Signatures of every scenario file below `dirs` (files that are not scenarios, like
/// summaries, are passed over): the file's `class`, or for a file written before classes
/// the class its replay shows on the shipped store it names.
pub fn known_signatures(dirs: &[PathBuf]) -> BTreeSet<Signature> {
    let mut known = BTreeSet::new();
    for dir in dirs {
        // A directory that does not exist yet (the first night) holds nothing known.
        for path in scenario_files(dir).unwrap_or_default() {
            let Ok(s) = load(&path) else { continue };
            let class = match (&s.class, crate::store::by_name(&s.store)) {
                (Some(c), _) => Some(c.clone()),
                (None, Some(store)) if s.expect.is_some() => {
                    classify(&store, s.config.clone(), &s.steps(), &s.masked).class
                }
                _ => None,
            };
            if let Some(class) = class {
                known.insert((s.store.clone(), class));
            }
        }
    }
    known
}

/// Run the night and write its summary; returns the summary and the signatures known
/// before it (what its result file needs: [`crate::campaign::pipeline::nightly`] writes
/// that, so that this file needs nothing of the result format).
pub fn run_night(
    cfg: &NightlyConfig,
    progress: &dyn Listener,
    cancel: &AtomicBool,
) -> Result<(NightlySummary, BTreeSet<Signature>), CampaignError> {
    let scenarios_dir = cfg.night_dir.join("scenarios");
    std::fs::create_dir_all(&scenarios_dir).map_err(CampaignError::io("create", &scenarios_dir))?;
    let known = known_signatures(&cfg.known_dirs);
    let known_before = known.clone();
    let mut night = Night {
        cfg,
        progress,
        cancel,
        started: Instant::now(),
        scenarios_dir,
        summary: NightlySummary {
            night_dir: cfg.night_dir.display().to_string(),
            budget_seconds: cfg.budget.as_secs(),
            elapsed_seconds: 0.0,
            interrupted: false,
            seed_start: cfg.seed_start,
            known_signatures: known.len(),
            campaigns: Vec::new(),
            cargo_fuzz_build_seconds: None,
            cargo_fuzz: Vec::new(),
            findings: Vec::new(),
            problems: Vec::new(),
            write_errors: Vec::new(),
        },
        known,
    };
    night.in_process()?;
    if let Some(fuzz_dir) = &cfg.fuzz_dir {
        night.cargo_fuzz(fuzz_dir)?;
    }
    let mut summary = night.summary;
    summary.interrupted = cancel.load(Ordering::Relaxed);
    summary.elapsed_seconds = night.started.elapsed().as_secs_f64();
    // A summary that cannot be written (a full disk) is still returned, to be printed.
    if let Err(e) = write_summary(&cfg.night_dir, &summary) {
        summary.write_errors.push(e.to_string());
    }
    Ok((summary, known_before))
}

/// The stores `names` name (`all`: every shipped store), for [`NightlyConfig::stores`].
pub fn stores_named(names: &[String]) -> Result<Vec<StoreKind>, CampaignError> {
    if names.iter().any(|n| n == "all") {
        return Ok(STORES.to_vec());
    }
    names
        .iter()
        .map(|name| {
            crate::store::by_name(name).ok_or_else(|| {
                CampaignError::BadInput(format!(
                    "unknown store '{name}'; known stores: {}",
                    crate::store::names().join(", ")
                ))
            })
        })
        .collect()
}

/// A night in progress.
struct Night<'a> {
    cfg: &'a NightlyConfig,
    progress: &'a dyn Listener,
    cancel: &'a AtomicBool,
    started: Instant,
    scenarios_dir: PathBuf,
    known: BTreeSet<Signature>,
    summary: NightlySummary,
}

impl Night<'_> {
    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Phase 1: in-process, every store and strategy, for the in-process share.
    fn in_process(&mut self) -> Result<(), CampaignError> {
        let cfg = self.cfg;
        let in_process = if cfg.fuzz_dir.is_some() {
            cfg.budget.mul_f64(cfg.in_process_share.clamp(0.0, 1.0))
        } else {
            cfg.budget
        };
        let per_strategy = in_process / StrategySpec::ALL.len() as u32;
        let kinds = stores_named(&cfg.stores)?;
        let stores: Vec<&dyn StoreFactory> = kinds.iter().map(|k| k as &dyn StoreFactory).collect();
        for strategy in StrategySpec::ALL {
            if self.cancelled() {
                break;
            }
            self.progress.phase(
                &format!("in-process fuzz, strategy {strategy}"),
                per_strategy.as_secs(),
            );
            let campaign = Campaign {
                stores: stores.clone(),
                strategy,
                seed_start: cfg.seed_start,
                budget: Budget::Time(per_strategy),
                jobs: cfg.jobs,
                coverage: false,
                classes: true,
                worlds: cfg.worlds.clone(),
            };
            let t = Instant::now();
            let outcome = run_campaign_shard(
                &campaign,
                cfg.shard,
                &|d| self.progress.runs(d),
                self.cancel,
            );
            let runs = outcome.report.seeds * stores.len() as u64;
            let secs = t.elapsed().as_secs_f64().max(1e-9);
            for failure in &outcome.first_failures {
                let store = *stores
                    .iter()
                    .find(|k| k.name() == failure.store)
                    .expect("campaign store");
                self.record(store, failure)?;
            }
            self.summary.campaigns.push(CampaignSummary {
                report: outcome.report,
                runs_per_second: runs as f64 / secs,
            });
        }
        Ok(())
    }

    /// Phase 2: each cargo-fuzz target for its share of what is left: `interleavings`
    /// once per store under test, then `scenario_parser`.
    fn cargo_fuzz(&mut self, fuzz_dir: &Path) -> Result<(), CampaignError> {
        let mut runs: Vec<(&str, Option<StoreKind>)> = Vec::new();
        for name in &self.cfg.fuzz_stores {
            let kind = crate::store::by_name(name).ok_or_else(|| {
                CampaignError::BadInput(format!(
                    "unknown store '{name}' for the interleavings target"
                ))
            })?;
            runs.push(("interleavings", Some(kind)));
        }
        runs.push(("scenario_parser", None));
        // The targets are built inside the budget: a night never runs past it.
        let deadline = self.started + self.cfg.budget;
        self.progress.phase(
            "cargo-fuzz: building the targets",
            deadline.saturating_duration_since(Instant::now()).as_secs(),
        );
        let build = Instant::now();
        let built = build_targets(fuzz_dir, &self.cfg.night_dir, deadline, self.cancel);
        self.summary.cargo_fuzz_build_seconds = Some(build.elapsed().as_secs_f64());
        if let Err(e) = built {
            self.summary.problems.push(format!("cargo-fuzz: {e}"));
            self.progress.note(&format!("problem: cargo-fuzz: {e}"));
            return Ok(());
        }
        let count = runs.len();
        for (i, (target, store)) in runs.into_iter().enumerate() {
            if self.cancelled() {
                break;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let secs = left.as_secs() / (count - i) as u64;
            if secs == 0 {
                let skipped = format!(
                    "cargo-fuzz: no budget left for {target}{}",
                    store.map_or(String::new(), |k| format!(" on {}", k.name))
                );
                self.progress.note(&format!("problem: {skipped}"));
                self.summary.problems.push(skipped);
                continue;
            }
            self.target(fuzz_dir, target, store, secs)?;
        }
        Ok(())
    }

    /// Run one target for `secs` seconds and turn its artifacts into findings.
    fn target(
        &mut self,
        fuzz_dir: &Path,
        target: &str,
        store: Option<StoreKind>,
        secs: u64,
    ) -> Result<(), CampaignError> {
        let label = match store {
            Some(k) => format!("{target} on {}", k.name),
            None => target.to_string(),
        };
        self.progress
            .phase(&format!("cargo-fuzz target {label}"), secs);
        let cfg = self.cfg;
        let t = run_target(
            fuzz_dir,
            &cfg.corpus_dir,
            &cfg.night_dir,
            target,
            store,
            (secs, cfg.jobs),
            &cfg.worlds,
            self.cancel,
        );
        if let Some(e) = &t.error {
            self.summary
                .problems
                .push(format!("cargo-fuzz {label}: {e}"));
            self.progress
                .note(&format!("problem: cargo-fuzz {label}: {e}"));
        }
        for artifact in &t.artifacts {
            let path = PathBuf::from(artifact);
            if target == "scenario_parser" {
                // Any crash of the parser target is a harness bug, always new.
                self.summary.problems.push(format!(
                    "scenario_parser crashed on {} (a loader bug: reproduce with `cargo fuzz run -s none scenario_parser {}`)",
                    path.display(),
                    path.display()
                ));
                continue;
            }
            let bytes = std::fs::read(&path).map_err(CampaignError::io("read", &path))?;
            let description = format!("found by cargo-fuzz, artifact {}", path.display());
            if let Some((kind, failure)) = artifact_failure(&bytes, store, description, &cfg.worlds)
            {
                self.record(&kind, &failure)?;
            }
        }
        self.summary.cargo_fuzz.push(t);
        Ok(())
    }

    /// Add a finding for `failure`, shrunk and saved when its signature is new.
    fn record(&mut self, store: &dyn StoreFactory, failure: &Failure) -> Result<(), CampaignError> {
        let cancelled = self.cancelled();
        let (finding, write_error) = record_finding(
            store,
            failure,
            &self.scenarios_dir,
            &mut self.known,
            self.progress,
            cancelled,
        )?;
        self.summary.findings.push(finding);
        if let Some(e) = write_error {
            self.progress.note(&format!("problem: {e}"));
            self.summary.write_errors.push(e);
        }
        Ok(())
    }
}

/// A failure found tonight as a [`NightFinding`]: shrunk and saved when its signature is new
/// (and then known); with the error, if its file could not be written.
fn record_finding(
    store: &dyn StoreFactory,
    failure: &Failure,
    scenarios_dir: &Path,
    known: &mut BTreeSet<Signature>,
    progress: &dyn Listener,
    cancelled: bool,
) -> Result<(NightFinding, Option<String>), CampaignError> {
    let class = failure
        .class
        .clone()
        .unwrap_or_else(|| Class::bare(failure.invariant));
    let sig = (failure.store.clone(), class);
    let source = match failure.seed {
        Some(_) => format!("in-process/{}", failure.strategy.as_deref().unwrap_or("")),
        None => "cargo-fuzz/interleavings".to_string(),
    };
    let mut finding = NightFinding {
        store: sig.0.clone(),
        invariant: failure.invariant,
        seed: failure.seed,
        class: sig.1.clone(),
        class_name: sig.1.to_string(),
        source,
        new: !known.contains(&sig),
        scenario: None,
        steps: None,
        needs: None,
        cause: failure.cause.clone(),
        did_not_replay: false,
    };
    let mut write_error = None;
    if finding.new {
        let file = file_for(scenarios_dir, failure);
        let saved = if cancelled {
            // Ctrl-C: saved as found, at once.
            save_unshrunk(store, failure, &file, GaveUp::Interrupted(0))
        } else {
            let (saved, did_not_replay) =
                shrink_or_save_as_found(store, (failure, &sig), &file, progress);
            finding.did_not_replay = did_not_replay;
            saved
        };
        let found_by = match failure.seed {
            Some(seed) => format!("seed {seed}, {}", failure.strategy.as_deref().unwrap_or("")),
            None => "cargo-fuzz".to_string(),
        };
        progress.note(&format!(
            "new class: {} {} ({found_by}) → {}",
            sig.0,
            sig.1,
            saved.path.display()
        ));
        // The saved file's invariant: shrinking for the class may trade the one that
        // noticed it tonight for another that notices the same class.
        finding.invariant = saved.invariant;
        finding.scenario = Some(saved.path.display().to_string());
        finding.steps = Some(saved.shrunk.steps.len());
        finding.needs = Some(saved.needs.clone());
        write_error = saved.write_error;
        known.insert(sig);
    }
    Ok((finding, write_error))
}

/// `failure` shrunk and saved as `file`; or, when it does not replay, saved as found (and
/// `true`): a flaky store (or one that leaks state across runs) must not end the night,
/// and the summary says it did not replay.
fn shrink_or_save_as_found(
    store: &dyn StoreFactory,
    (failure, sig): (&Failure, &Signature),
    file: &Path,
    progress: &dyn Listener,
) -> (Finding, bool) {
    match shrink_and_save(store, failure, file, Limits::default()) {
        Ok(saved) => (saved, false),
        Err(e) => {
            progress.note(&format!("did not replay: {} {} ({e})", sig.0, sig.1));
            (
                save_unshrunk(store, failure, file, GaveUp::DidNotReplay),
                true,
            )
        }
    }
}

/// Write `summary.json` and `summary.md` atomically.
pub fn write_summary(night_dir: &Path, s: &NightlySummary) -> Result<(), CampaignError> {
    let json = serde_json::to_string_pretty(s).expect("a summary serialises") + "\n";
    write_atomically(&night_dir.join("summary.json"), json.as_bytes())
        .map_err(CampaignError::io("write", night_dir.join("summary.json")))?;
    write_atomically(&night_dir.join("summary.md"), markdown(s).as_bytes())
        .map_err(CampaignError::io("write", night_dir.join("summary.md")))
}

/// The Markdown summary.
pub fn markdown(s: &NightlySummary) -> String {
    let mut out = format!(
        "# Nightly run {}\n\nBudget {} s, ran {:.0} s{}. Seeds from {}. {} signatures known before tonight.\n\n",
        s.night_dir,
        s.budget_seconds,
        s.elapsed_seconds,
        if s.interrupted { " (**interrupted**: everything found so far is kept)" } else { "" },
        s.seed_start,
        s.known_signatures
    );
    if let Some(c) = s
        .campaigns
        .first()
        .filter(|c| !c.report.worlds.is_default())
    {
        out.push_str(&format!("{}.\n\n", c.report.worlds.header()));
    }
    out.push_str(&new_signatures_md(s));
    out.push_str(&known_signatures_md(s));
    out.push_str("\n## In-process campaigns\n\n");
    for c in &s.campaigns {
        out.push_str(&format!(
            "### strategy {}: {} seeds per store, {:.0} runs/s\n\n```\n{}```\n\n",
            c.report.strategy,
            c.report.seeds,
            c.runs_per_second,
            crate::campaign::fuzz::format_table(&c.report)
        ));
    }
    out.push_str(&cargo_fuzz_md(s));
    if !s.problems.is_empty() {
        out.push_str("## Problems\n\n");
        for p in &s.problems {
            out.push_str(&format!("- {p}\n"));
        }
    }
    if !s.write_errors.is_empty() {
        out.push_str("\n## Files not written\n\n");
        for e in &s.write_errors {
            out.push_str(&format!("- {e}\n"));
        }
    }
    out
}

fn new_signatures_md(s: &NightlySummary) -> String {
    let new: Vec<&NightFinding> = s.findings.iter().filter(|f| f.new).collect();
    let mut out = format!("## New classes: {}\n\n", new.len());
    if new.is_empty() {
        out.push_str("None: every failure tonight was already known.\n\n");
        return out;
    }
    out.push_str(
        "| store | class | needs | noticed by | found by | steps | scenario |\n|---|---|---|---|---|---|---|\n",
    );
    for f in &new {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | `{}` |\n",
            f.store,
            f.class_name,
            needs_cell(f.needs.as_deref()),
            f.invariant,
            f.source,
            match f.steps {
                Some(n) if f.did_not_replay => format!("{n} (did not replay: flaky?)"),
                Some(n) => n.to_string(),
                None => "-".into(),
            },
            f.scenario.as_deref().unwrap_or("-")
        ));
    }
    out.push('\n');
    for f in new.iter().filter(|f| f.cause.is_some()) {
        out.push_str(&format!("Crash of {} ({}):\n\n```\n", f.store, f.source));
        for line in f.cause.as_ref().map(|c| c.lines()).unwrap_or_default() {
            out.push_str(&line);
            out.push('\n');
        }
        out.push_str("```\n\n");
    }
    out
}

/// A finding's world features for the summary table (`-` when not recorded).
fn needs_cell(needs: Option<&[crate::trace::assume::Assumption]>) -> String {
    match needs {
        None => "-".to_string(),
        Some([]) => "none".to_string(),
        Some(n) => n.iter().map(|a| a.name()).collect::<Vec<_>>().join(", "),
    }
}

fn known_signatures_md(s: &NightlySummary) -> String {
    let mut known: BTreeMap<(String, String), BTreeMap<&str, usize>> = BTreeMap::new();
    for f in s.findings.iter().filter(|f| !f.new) {
        *known
            .entry((f.store.clone(), f.class_name.clone()))
            .or_default()
            .entry(f.source.as_str())
            .or_default() += 1;
    }
    let mut out = format!("## Known classes seen again: {}\n\n", known.len());
    for ((store, class), sources) in &known {
        let by: Vec<String> = sources
            .iter()
            .map(|(src, n)| format!("{src} ×{n}"))
            .collect();
        out.push_str(&format!("- {store}: {class} ({})\n", by.join(", ")));
    }
    out
}

fn cargo_fuzz_md(s: &NightlySummary) -> String {
    if s.cargo_fuzz.is_empty() && s.cargo_fuzz_build_seconds.is_none() {
        return String::new();
    }
    let mut out = "## cargo-fuzz\n\n".to_string();
    if let Some(b) = s.cargo_fuzz_build_seconds {
        out.push_str(&format!(
            "Building the targets took {b:.0} s of the budget.\n\n"
        ));
    }
    out.push_str("| target | store | seconds | executions | crash artifacts | problem |\n|---|---|---|---|---|---|\n");
    for t in &s.cargo_fuzz {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            t.target,
            t.store.as_deref().unwrap_or("-"),
            t.seconds,
            t.executions.map_or("-".into(), |n| n.to_string()),
            t.artifacts.len(),
            t.error.as_deref().unwrap_or("")
        ));
    }
    out.push('\n');
    out
}

/// Today's UTC date as `YYYY-MM-DD` (the night folder's name) and the day number since
/// the Unix epoch (tonight's seed offset, so successive nights explore different seeds).
pub fn today() -> (String, u64) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let stamp =
        humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + Duration::from_secs(secs));
    (stamp.to_string()[..10].to_string(), secs / 86_400)
}

/// A new folder under `out` named after `date` (`DATE`, `DATE-2`, …), created here.
/// Creating it is what claims the name (`create_dir` fails if it exists), so two nights
/// sharing `out` at the same time get two folders and never write into one.
pub fn fresh_night_dir(out: &Path, date: &str) -> Result<PathBuf, CampaignError> {
    std::fs::create_dir_all(out).map_err(CampaignError::io("create", out))?;
    let mut n = 1;
    loop {
        let dir = match n {
            1 => out.join(date),
            n => out.join(format!("{date}-{n}")),
        };
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
            Err(e) => return Err(CampaignError::io("create", dir)(e)),
        }
    }
}
