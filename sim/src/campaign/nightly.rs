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
    /// Write the night's HTML report (`--html`): `report.html` in its folder, with the
    /// history of the nights beside it, and each new scenario's page beside its file.
    pub html: bool,
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
        let file = file_for(scenarios_dir, store, failure);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::pipeline::Silent;
    use crate::testing::repo_file;
    use crate::trace::assume::Assumption;
    use crate::trace::scenario::Scenario;
    use std::sync::Mutex;

    fn scenario(rel: &str) -> Scenario {
        load(&repo_file(rel)).unwrap()
    }

    fn put(dir: &Path, name: &str, s: &Scenario) {
        s.save(&dir.join(name)).unwrap();
    }

    /// The run of `bug-a.json` (`inv3-newer-turn` on `naive`) as a failure found by seed
    /// 7 of `random`, with no class (the invariant's bare class is its signature).
    fn bug_a_failure(store: &str) -> Failure {
        let s = scenario("scenarios/bug-a.json");
        Failure {
            store: store.to_string(),
            invariant: s.expect.unwrap(),
            seed: Some(7),
            strategy: Some("random".into()),
            description: None,
            config: s.config.clone(),
            steps: s.steps(),
            class: None,
            mask: Vec::new(),
            cause: None,
            without: Vec::new(),
            pins: Default::default(),
        }
    }

    /// A scenario file's signature is its class when it names one (with or without an
    /// `expect`); without a class, the class its replay shows on its store, but only for a
    /// file that expects a failure; files that are not scenarios count for nothing, and a
    /// folder that does not exist holds nothing.
    #[test]
    fn known_signatures_are_the_named_class_or_the_replayed_one_of_an_expected_failure() {
        let dir = tempfile::tempdir().unwrap();
        let known = scenario("scenarios/known/current/queued-consumed-lingers.json");
        let named = known.class.clone().unwrap();
        // A class named by a file that expects nothing (the class is still its signature).
        let mut no_expect = known.clone();
        no_expect.expect = None;
        no_expect.class = Some(Class::bare(Invariant::Crash));
        put(dir.path(), "named.json", &no_expect);
        // No class, expecting inv3 on naive: the class bug-a's replay shows.
        let bug_a = scenario("scenarios/bug-a.json");
        assert!(bug_a.class.is_none() && bug_a.expect.is_some());
        put(dir.path(), "bug-a.json", &bug_a);
        // No class and no expect: nothing, though its steps fail on `current` (with the
        // committed file's class, which no other file here gives).
        let mut no_class = known.clone();
        no_class.expect = None;
        no_class.class = None;
        put(dir.path(), "no-expect.json", &no_class);
        let shown = classify(
            &crate::store::by_name("current").unwrap(),
            no_class.config.clone(),
            &no_class.steps(),
            &no_class.masked,
        )
        .class;
        assert_eq!(shown.as_ref(), Some(&named), "its replay shows its class");
        std::fs::write(dir.path().join("summary.json"), "{\"night_dir\": 1}\n").unwrap();
        let replayed = classify(
            &crate::store::by_name("naive").unwrap(),
            bug_a.config.clone(),
            &bug_a.steps(),
            &bug_a.masked,
        )
        .class
        .expect("bug-a fails on naive");
        let got = known_signatures(&[dir.path().to_path_buf(), dir.path().join("not-there")]);
        let want: BTreeSet<Signature> = [
            ("current".to_string(), Class::bare(Invariant::Crash)),
            ("naive".to_string(), replayed),
        ]
        .into_iter()
        .collect();
        assert_eq!(got, want);
        // The committed folder: each file's own class.
        let committed = known_signatures(&[repo_file("scenarios/known/current")]);
        assert!(committed.contains(&("current".to_string(), named)));
        assert!(committed.iter().all(|(store, _)| store == "current"));
    }

    /// `all` is every shipped store; otherwise the stores named, in order; an unknown name
    /// is refused with the names known.
    #[test]
    fn stores_named_takes_all_or_each_name() {
        let names = |v: &[&str]| -> Vec<&'static str> {
            let owned: Vec<String> = v.iter().map(|s| s.to_string()).collect();
            stores_named(&owned)
                .unwrap()
                .iter()
                .map(|k| k.name)
                .collect()
        };
        let all: Vec<&str> = STORES.iter().map(|k| k.name).collect();
        assert!(all.len() > 2);
        assert_eq!(names(&["all"]), all);
        assert_eq!(names(&["current", "naive"]), vec!["current", "naive"]);
        assert_eq!(names(&["naive"]), vec!["naive"]);
        assert_eq!(names(&[]), Vec::<&str>::new());
        let err = stores_named(&["nope".to_string()]).unwrap_err().to_string();
        assert!(
            err.contains("unknown store 'nope'") && err.contains("naive"),
            "{err}"
        );
    }

    /// A failure whose signature is new is shrunk (keeping its invariant), saved, counted
    /// new and then known; the same signature again is a known finding with no file. When
    /// the night is cancelled it is saved as found, unshrunk. A failure that does not
    /// happen again is saved as found and marked so.
    #[test]
    fn a_new_signature_is_shrunk_saved_and_then_known() {
        let dir = tempfile::tempdir().unwrap();
        let naive = crate::store::by_name("naive").unwrap();
        let failure = bug_a_failure("naive");
        let sig = ("naive".to_string(), Class::bare(failure.invariant));
        let mut known = BTreeSet::new();
        let (f, err) =
            record_finding(&naive, &failure, dir.path(), &mut known, &Silent, false).unwrap();
        assert_eq!(err, None);
        assert!(f.new && !f.did_not_replay);
        assert_eq!((f.store.as_str(), f.seed), ("naive", Some(7)));
        assert_eq!(f.source, "in-process/random");
        assert_eq!((&f.class, &f.class_name), (&sig.1, &sig.1.to_string()));
        assert_eq!(f.invariant, failure.invariant);
        let path = PathBuf::from(f.scenario.clone().expect("a new finding's file"));
        let saved = load(&path).unwrap();
        assert_eq!(saved.expect, Some(failure.invariant));
        assert_eq!(f.steps, Some(saved.steps().len()));
        assert!(saved.steps().len() < failure.steps.len(), "shrunk");
        assert!(f.needs.is_some());
        assert_eq!(known, [sig.clone()].into_iter().collect());

        // The same signature again: known, nothing saved, the set unchanged.
        let (again, err) =
            record_finding(&naive, &failure, dir.path(), &mut known, &Silent, false).unwrap();
        assert_eq!(err, None);
        assert!(!again.new);
        assert_eq!(
            (again.scenario, again.steps, again.needs),
            (None, None, None)
        );
        assert_eq!(known.len(), 1);

        // Cancelled: saved as found (every step), at once.
        let mut fresh = BTreeSet::new();
        let cut = tempfile::tempdir().unwrap();
        let (f, _) =
            record_finding(&naive, &failure, cut.path(), &mut fresh, &Silent, true).unwrap();
        assert!(f.new && !f.did_not_replay);
        assert_eq!(f.steps, Some(failure.steps.len()));
        assert!(fresh.contains(&sig));

        // A failure that does not replay (bug-a's steps pass on fix-a): saved as found.
        let fix_a = crate::store::by_name("fix-a").unwrap();
        let flaky = bug_a_failure("fix-a");
        let other = tempfile::tempdir().unwrap();
        let (f, err) = record_finding(
            &fix_a,
            &flaky,
            other.path(),
            &mut BTreeSet::new(),
            &Silent,
            false,
        )
        .unwrap();
        assert_eq!(err, None);
        assert!(f.new && f.did_not_replay);
        assert_eq!(f.steps, Some(flaky.steps.len()));
        let path = PathBuf::from(f.scenario.unwrap());
        assert_eq!(load(&path).unwrap().steps().len(), flaky.steps.len());
    }

    /// A listener that records each phase and cancels the night when `stop_at` begins.
    struct Phases<'a> {
        seen: Mutex<Vec<(String, u64)>>,
        stop_at: &'a str,
        cancel: &'a AtomicBool,
    }

    impl Listener for Phases<'_> {
        fn phase(&self, what: &str, seconds: u64) {
            self.seen.lock().unwrap().push((what.to_string(), seconds));
            if what.starts_with(self.stop_at) {
                self.cancel.store(true, Ordering::Relaxed);
            }
        }
    }

    fn config(dir: &Path, budget: u64, fuzz_dir: Option<PathBuf>) -> NightlyConfig {
        NightlyConfig {
            budget: Duration::from_secs(budget),
            night_dir: dir.join("night"),
            known_dirs: vec![dir.join("none")],
            stores: vec!["naive".into()],
            seed_start: 0,
            jobs: 1,
            fuzz_dir,
            corpus_dir: dir.join("corpus"),
            in_process_share: 0.0,
            fuzz_stores: vec!["naive".into()],
            shard: Shard::WHOLE,
            result: None,
            worlds: Default::default(),
            html: false,
        }
    }

    /// A listener that notes when each phase begins.
    struct Starts(Mutex<Vec<Instant>>);

    impl Listener for Starts {
        fn phase(&self, _: &str, _: u64) {
            self.0.lock().unwrap().push(Instant::now());
        }
    }

    /// A campaign's throughput is its runs (seeds × stores) over its own time: at least
    /// its runs over the time from its phase's start to the next's (which holds the
    /// campaign), at most its runs over its budget (a timed campaign runs to its end).
    /// Bounds, not timings: they hold however fast the machine is. The stores are ones
    /// whose failures are known (nothing shrunk between campaigns).
    #[test]
    fn a_campaign_s_throughput_is_its_runs_over_its_time() {
        let dir = tempfile::tempdir().unwrap();
        let per = Duration::from_millis(300);
        let mut cfg = config(dir.path(), 0, None);
        cfg.budget = per * StrategySpec::ALL.len() as u32;
        cfg.stores = vec!["durable".into(), "current".into()];
        cfg.known_dirs = vec![repo_file("scenarios")];
        let cancel = AtomicBool::new(false);
        let starts = Starts(Mutex::new(Vec::new()));
        let (summary, _) = run_night(&cfg, &starts, &cancel).unwrap();
        let end = Instant::now();
        let mut starts = starts.0.into_inner().unwrap();
        starts.push(end);
        assert_eq!(summary.campaigns.len(), StrategySpec::ALL.len());
        for (i, c) in summary.campaigns.iter().enumerate() {
            let runs = (c.report.seeds * 2) as f64;
            assert!(c.report.seeds > 0, "{c:?}");
            let most = (starts[i + 1] - starts[i]).as_secs_f64();
            assert!(
                c.runs_per_second >= runs / most,
                "{} < {runs} / {most}",
                c.runs_per_second
            );
            assert!(
                c.runs_per_second <= runs / per.as_secs_f64(),
                "{} > {runs} / {per:?}",
                c.runs_per_second
            );
        }
    }

    /// What the campaigns find is in the night's findings, by the store that failed,
    /// each new signature once, with its scenario saved in tonight's folder. (`naive`
    /// fails within its first seeds: a campaign of 300 ms finds some.)
    #[test]
    fn a_night_records_what_its_campaigns_find() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = config(dir.path(), 0, None);
        cfg.budget = Duration::from_millis(300) * StrategySpec::ALL.len() as u32;
        let cancel = AtomicBool::new(false);
        let (summary, _) = run_night(&cfg, &Silent, &cancel).unwrap();
        let failing: u64 = summary
            .campaigns
            .iter()
            .flat_map(|c| &c.report.stores)
            .map(|s| s.failing.values().sum::<u64>())
            .sum();
        assert!(failing > 0, "{:?}", summary.campaigns);
        assert!(!summary.findings.is_empty());
        let mut seen = BTreeSet::new();
        for f in &summary.findings {
            assert_eq!(f.store, "naive");
            assert!(f.source.starts_with("in-process/"), "{}", f.source);
            assert_eq!(f.new, seen.insert(f.class.clone()), "{f:?}");
            if f.new {
                let file = PathBuf::from(f.scenario.as_ref().unwrap());
                assert!(
                    file.starts_with(cfg.night_dir.join("scenarios")),
                    "{file:?}"
                );
                assert_eq!(load(&file).unwrap().store, "naive");
            }
        }
    }

    /// Each strategy gets its share of the in-process budget; a night cancelled during
    /// the first strategy's campaign runs no other and says it was interrupted, and its
    /// summary is written.
    #[test]
    fn each_strategy_gets_its_share_and_a_cancelled_night_stops_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let n = StrategySpec::ALL.len() as u64;
        let cancel = AtomicBool::new(false);
        let phases = Phases {
            seen: Mutex::new(Vec::new()),
            stop_at: "in-process",
            cancel: &cancel,
        };
        let cfg = config(dir.path(), 30 * n, None);
        let (summary, known) = run_night(&cfg, &phases, &cancel).unwrap();
        assert!(known.is_empty());
        let seen = phases.seen.into_inner().unwrap();
        assert_eq!(
            seen,
            vec![(
                format!("in-process fuzz, strategy {}", StrategySpec::ALL[0]),
                30
            )]
        );
        assert!(summary.interrupted);
        assert_eq!(summary.campaigns.len(), 1);
        assert_eq!(summary.budget_seconds, 30 * n);
        let written: NightlySummary = serde_json::from_str(
            &std::fs::read_to_string(cfg.night_dir.join("summary.json")).unwrap(),
        )
        .unwrap();
        assert!(written.interrupted);
        assert!(cfg.night_dir.join("summary.md").is_file());
        assert!(cfg.night_dir.join("scenarios").is_dir());
    }

    /// A night that is not cancelled runs one campaign per strategy (here each with no
    /// time: the whole budget goes to cargo-fuzz), then builds the cargo-fuzz targets
    /// with the budget that is left; a build that cannot start is a problem, and the
    /// night goes on to its summary.
    #[test]
    fn a_night_runs_every_strategy_then_builds_the_targets_within_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        let cancel = AtomicBool::new(false);
        let phases = Phases {
            seen: Mutex::new(Vec::new()),
            stop_at: "never",
            cancel: &cancel,
        };
        // A fuzz folder whose parent does not exist: `cargo fuzz build` cannot start.
        let cfg = config(dir.path(), 600, Some(dir.path().join("no/fuzz")));
        let (summary, _) = run_night(&cfg, &phases, &cancel).unwrap();
        assert!(!summary.interrupted);
        assert_eq!(summary.campaigns.len(), StrategySpec::ALL.len());
        for c in &summary.campaigns {
            assert_eq!(c.report.seeds == 0, c.runs_per_second == 0.0, "{c:?}");
        }
        let seen = phases.seen.into_inner().unwrap();
        assert_eq!(seen.len(), StrategySpec::ALL.len() + 1, "{seen:?}");
        for (what, secs) in &seen[..StrategySpec::ALL.len()] {
            assert!(what.starts_with("in-process fuzz"), "{what}");
            assert_eq!(*secs, 0);
        }
        let (what, secs) = &seen[StrategySpec::ALL.len()];
        assert_eq!(what, "cargo-fuzz: building the targets");
        // What is left of 600 s after the (empty) campaigns.
        assert!((590..=600).contains(secs), "{secs}");
        assert!(summary.cargo_fuzz_build_seconds.is_some());
        assert!(summary.cargo_fuzz.is_empty());
        assert_eq!(summary.problems.len(), 1, "{:?}", summary.problems);
        assert!(summary.problems[0].starts_with("cargo-fuzz: cannot run cargo fuzz"));
    }

    fn finding(store: &str, class: &str, source: &str, new: bool) -> NightFinding {
        NightFinding {
            store: store.into(),
            invariant: Invariant::NoLoss,
            seed: None,
            class: Class::bare(Invariant::NoLoss),
            class_name: class.into(),
            source: source.into(),
            new,
            scenario: new.then(|| format!("{store}-{class}.json")),
            steps: new.then_some(3),
            needs: new.then(Vec::new),
            cause: None,
            did_not_replay: false,
        }
    }

    fn summary() -> NightlySummary {
        NightlySummary {
            night_dir: "nightly/2026-12-05".into(),
            budget_seconds: 60,
            elapsed_seconds: 61.2,
            interrupted: false,
            seed_start: 20_000,
            known_signatures: 4,
            campaigns: Vec::new(),
            cargo_fuzz_build_seconds: None,
            cargo_fuzz: Vec::new(),
            findings: Vec::new(),
            problems: Vec::new(),
            write_errors: Vec::new(),
        }
    }

    fn campaign(worlds: crate::run::worlds::Worlds) -> CampaignSummary {
        CampaignSummary {
            report: CampaignReport {
                strategy: StrategySpec::ALL[0],
                seed_start: 20_000,
                seeds: 12,
                stores: Vec::new(),
                worlds,
            },
            runs_per_second: 6.0,
        }
    }

    /// The Markdown summary: the header, the worlds line only when they are not the
    /// default, new classes as a table, known ones counted by source, each campaign, the
    /// cargo-fuzz table only when it ran, problems and unwritten files only when any.
    #[test]
    fn the_markdown_summary_says_what_the_night_did_and_only_that() {
        let mut s = summary();
        s.campaigns.push(campaign(Default::default()));
        let md = markdown(&s);
        assert!(md.starts_with(
            "# Nightly run nightly/2026-12-05\n\nBudget 60 s, ran 61 s. Seeds from 20000. 4 signatures known before tonight.\n\n## New classes: 0\n\nNone: every failure tonight was already known.\n\n## Known classes seen again: 0\n\n"
        ), "{md}");
        assert!(md.contains("### strategy "), "{md}");
        for absent in [
            "## cargo-fuzz",
            "## Problems",
            "## Files not written",
            "interrupted",
        ] {
            assert!(!md.contains(absent), "{absent} in {md}");
        }

        let worlds = crate::run::worlds::Worlds {
            judged: crate::oracle::judged::from_flags(Some("inv3-newer-turn"), None).unwrap(),
            ..Default::default()
        };
        let header = worlds.header();
        assert!(!header.is_empty());
        s.campaigns = vec![campaign(worlds)];
        s.interrupted = true;
        s.problems.push("a target did not build".into());
        s.write_errors.push("cannot write x.json".into());
        s.findings = vec![
            finding("current", "one-class", "in-process/random", true),
            finding("current", "two-class", "in-process/random", false),
            finding("current", "two-class", "in-process/random", false),
            finding("current", "two-class", "cargo-fuzz/interleavings", false),
            finding("naive", "two-class", "in-process/pct:3", false),
        ];
        s.findings[0].needs = Some(vec![Assumption::WsReordering, Assumption::FailedTurn]);
        let md = markdown(&s);
        assert!(
            md.contains(" (**interrupted**: everything found so far is kept)."),
            "{md}"
        );
        assert!(
            md.contains(&format!(
                "before tonight.\n\n{header}.\n\n## New classes: 1\n"
            )),
            "{md}"
        );
        assert!(md.contains(
            "| current | one-class | WebSocket reordering, a failed turn | inv1-no-loss | in-process/random | 3 | `current-one-class.json` |\n"
        ), "{md}");
        assert!(md.contains(
            "## Known classes seen again: 2\n\n- current: two-class (cargo-fuzz/interleavings ×1, in-process/random ×2)\n- naive: two-class (in-process/pct:3 ×1)\n"
        ), "{md}");
        assert!(
            md.contains("## Problems\n\n- a target did not build\n"),
            "{md}"
        );
        assert!(
            md.contains("\n## Files not written\n\n- cannot write x.json\n"),
            "{md}"
        );
        assert!(!md.contains("## cargo-fuzz"), "{md}");

        // The cargo-fuzz part: when the targets were built, or when any target ran.
        let mut built = summary();
        built.cargo_fuzz_build_seconds = Some(42.4);
        let md = markdown(&built);
        assert!(
            md.contains(
                "## cargo-fuzz\n\nBuilding the targets took 42 s of the budget.\n\n| target |"
            ),
            "{md}"
        );
        let mut ran = summary();
        ran.cargo_fuzz.push(TargetSummary {
            target: "interleavings".into(),
            store: Some("current".into()),
            seconds: 30,
            executions: Some(1234),
            artifacts: vec!["a".into(), "b".into()],
            error: None,
        });
        let md = markdown(&ran);
        assert!(md.contains("## cargo-fuzz\n\n| target |"), "{md}");
        assert!(
            md.contains("| interleavings | current | 30 | 1234 | 2 |  |\n"),
            "{md}"
        );
    }

    /// A finding's needs: `-` when not recorded, `none` when it needs nothing, else their
    /// names.
    #[test]
    fn the_needs_cell_names_each_feature() {
        assert_eq!(needs_cell(None), "-");
        assert_eq!(needs_cell(Some(&[])), "none");
        assert_eq!(
            needs_cell(Some(&[Assumption::AnotherTab, Assumption::FailedTurn])),
            format!("{}, a failed turn", Assumption::AnotherTab.name())
        );
    }

    /// `summary.json` (pretty JSON, ending in a newline, read back as written) and
    /// `summary.md` (the Markdown summary), in the night's folder.
    #[test]
    fn the_summary_is_written_as_json_and_markdown() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = summary();
        s.findings
            .push(finding("current", "one-class", "in-process/random", true));
        write_summary(dir.path(), &s).unwrap();
        let json = std::fs::read_to_string(dir.path().join("summary.json")).unwrap();
        assert!(json.ends_with("}\n"), "{json}");
        let back: NightlySummary = serde_json::from_str(&json).unwrap();
        assert_eq!(
            serde_json::to_string(&back).unwrap(),
            serde_json::to_string(&s).unwrap()
        );
        let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
        assert_eq!(md, markdown(&s));
    }

    /// Today's date is the day `today`'s day number counts from the epoch.
    #[test]
    fn today_is_a_date_and_its_day_number() {
        let day = |n: u64| {
            humantime::format_rfc3339_seconds(
                std::time::UNIX_EPOCH + Duration::from_secs(n * 86_400),
            )
            .to_string()[..10]
                .to_string()
        };
        let (date, n) = today();
        assert_eq!(date.len(), 10);
        assert!(n > 20_000, "{n}");
        assert_eq!(date, day(n));
    }

    /// Each night claims a folder of its own: the date, then `DATE-2`, `DATE-3`; a date
    /// that cannot be a folder is an error, not a loop.
    #[test]
    fn each_night_claims_a_fresh_folder() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("nightly");
        let got: Vec<PathBuf> = (0..3)
            .map(|_| fresh_night_dir(&out, "2026-12-05").unwrap())
            .collect();
        assert_eq!(
            got,
            vec![
                out.join("2026-12-05"),
                out.join("2026-12-05-2"),
                out.join("2026-12-05-3")
            ]
        );
        assert!(got.iter().all(|d| d.is_dir()));
        assert!(fresh_night_dir(&out, "no/such").is_err());
    }
}
