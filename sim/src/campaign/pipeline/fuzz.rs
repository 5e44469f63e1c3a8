//! `fuzz` as one library call: the campaign, then each first failure rechecked, shrunk
//! and saved, the first seeds run again when asked, and the result file built and
//! written. [`fuzz`] returns the result; the CLI only prints it.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::campaign::error::CampaignError;
use crate::campaign::findings::Failure;
use crate::campaign::fuzz::{run_campaign_shard, Campaign, CampaignOutcome};
use crate::campaign::merge::{FuzzResult, ResultFile, ShardSet};
use crate::campaign::recheck::{check_determinism, settle_remembering, Settled, DETERMINISM_SEEDS};
use crate::campaign::settle_budget::{SettleBudget, Timing};
use crate::trace::shrink::Limits;
use crate::util::shard::Shard;

use super::partners::{first_of_all, Partners};
use super::Listener;

/// Everything one `fuzz` command does, decided.
pub struct FuzzPlan<'a> {
    /// The stores, strategy, budget, worlds and threads.
    pub campaign: Campaign<'a>,
    /// The part of the seeds this process runs.
    pub shard: Shard,
    /// Where findings are saved.
    pub out: PathBuf,
    /// How long shrinking may take, per finding.
    pub limits: Limits,
    /// The whole command's time budget (shrinking included), if it has one.
    pub time: Option<Duration>,
    /// How long settling what the campaign found may take (`--settle-time`).
    pub settle: SettleBudget,
    /// Run the first seeds again to look for nondeterminism and state leaks (shard 1 only).
    pub check_determinism: bool,
    /// Where to write the result file, if anywhere.
    pub result_file: Option<PathBuf>,
    /// Write the report's details to a file beside the scenarios (what the first screen
    /// points to, instead of printing them).
    pub details_file: bool,
    /// Write the HTML report beside the scenarios (`--html`): the campaign page and each
    /// class's scenario page ([`crate::campaign::report`]).
    pub html: bool,
    /// The other shards of the same command running at once in this process, if any:
    /// the shards then settle the whole campaign's failures between them, each once
    /// ([`super::partners`]). For campaigns without a time budget.
    pub partners: Option<&'a dyn Partners>,
}

/// What one `fuzz` command found.
pub struct FuzzRun {
    /// The result (counts, first failures, saved scenarios, suspects): what is printed,
    /// and what the result file holds.
    pub result: ResultFile<FuzzResult>,
    /// Runs done (seeds × stores).
    pub runs: u64,
    /// Why the result file could not be written, if it could not: the command reports it
    /// after the table and fails.
    pub result_error: Option<String>,
    /// Where the report's details were written (every class with its scenario, crashes,
    /// suspects, coverage), or why they could not be (the command then prints them);
    /// `None` when there are none.
    pub details: Option<Result<PathBuf, String>>,
    /// The HTML report written with `--html` (the pages, the pages not made, the files
    /// that could not be written); `None` without it.
    pub reports: Option<crate::campaign::report::Written>,
    /// How long the campaign and settling took, and settling's budget.
    pub timing: Timing,
}

/// Run `plan`: the campaign (stopped early when `stop` is set), then each first failure
/// of a (store, class) — or (store, invariant) without classes — rechecked, shrunk and
/// saved within the time left (one that does not happen again is a suspect, saved as
/// found; after a stop they are saved unshrunk), then with `check_determinism` and time
/// left the first seeds run again, and the result file written.
pub fn fuzz(
    plan: &FuzzPlan<'_>,
    listener: &dyn Listener,
    stop: &AtomicBool,
) -> Result<FuzzRun, CampaignError> {
    let started = Instant::now();
    let campaign = &plan.campaign;
    let outcome = run_campaign_shard(campaign, plan.shard, &|done| listener.runs(done), stop);
    let campaign_time = started.elapsed();
    let settle_start = Instant::now();
    let deadline =
        plan.settle
            .deadline(campaign_time, settle_start, plan.time.map(|t| started + t));
    let Settled { findings, suspects } = settle_failures(plan, &outcome, deadline, listener, stop)?;
    let timing = Timing {
        campaign: campaign_time,
        settle: settle_start.elapsed(),
        settle_budget: deadline.map(|d| d.saturating_duration_since(settle_start)),
        budget: plan.settle,
    };
    let result = ResultFile::new(
        ShardSet::one(plan.shard),
        FuzzResult::of_run(
            campaign,
            plan.shard,
            plan.limits,
            &outcome,
            &findings,
            suspects,
        )?,
    );
    let result_error = result.save_to(plan.result_file.as_deref());
    let details = plan
        .details_file
        .then(|| write_details(&result, plan))
        .flatten();
    let reports = plan.html.then(|| {
        listener.status("writing the HTML report".to_string());
        crate::campaign::report::write_fuzz(
            &result,
            &plan.out,
            plan.shard,
            &crate::campaign::report::Replayers {
                stores: &campaign.stores,
                resolve: &shipped_only,
            },
        )
    });
    Ok(FuzzRun {
        runs: outcome.report.seeds * campaign.stores.len() as u64,
        result,
        result_error,
        details,
        reports,
        timing,
    })
}

/// The store a saved scenario names when it is not one of the campaign's: a shipped one
/// (a file never runs a command the user did not give).
fn shipped_only(
    path: &std::path::Path,
    sc: &crate::trace::scenario::Scenario,
) -> Result<Box<dyn crate::model::store::StoreFactory>, crate::store::recorded::RecordedError> {
    crate::store::recorded::resolve_recorded(
        &sc.store,
        path,
        sc.store_dir.as_deref(),
        crate::exec::ExecOptions::default(),
        false,
    )
}

/// Write the report's details ([`super::text::text`]: every class with its shrunk
/// scenario and replay command, crashes, suspects, coverage) as a text file beside the
/// scenarios, `fuzz-details.txt` (`fuzz-details-shard-I-of-N.txt` for a shard): the first
/// screen then holds the table and a line per store. `None` when there are no details.
fn write_details(
    result: &ResultFile<FuzzResult>,
    plan: &FuzzPlan<'_>,
) -> Option<Result<PathBuf, String>> {
    let (_, details) = super::text::text(result, &plan.out);
    if details.is_empty() {
        return None;
    }
    let name = if plan.shard.count > 1 {
        format!(
            "fuzz-details-shard-{}-of-{}.txt",
            plan.shard.index, plan.shard.count
        )
    } else {
        "fuzz-details.txt".to_string()
    };
    let path = plan.out.join(name);
    let written = std::fs::create_dir_all(&plan.out)
        .and_then(|()| crate::util::fs::write_atomically(&path, details.as_bytes()));
    Some(match written {
        Ok(()) => Ok(path),
        Err(e) => Err(format!("cannot write {}: {e}", path.display())),
    })
}

/// Recheck, shrink and save the first failures, then run the first seeds again if asked
/// (and in time, and not stopped).
fn settle_failures(
    plan: &FuzzPlan<'_>,
    outcome: &CampaignOutcome,
    deadline: Option<Instant>,
    listener: &dyn Listener,
    stop: &AtomicBool,
) -> Result<Settled, CampaignError> {
    let campaign = &plan.campaign;
    let mut settled = match plan.partners {
        None => {
            let count = outcome.first_failures.len();
            settle_remembering(
                &campaign.stores,
                &outcome.first_failures,
                &plan.out,
                plan.limits,
                deadline,
                campaign.jobs,
                &|i, f| shrinking(listener, i, count, f),
                &outcome.seen,
            )
        }
        Some(partners) => settle_shared(plan, partners, outcome, deadline, listener)?,
    };
    let in_time = deadline.is_none_or(|d| Instant::now() < d);
    let stopped = stop.load(std::sync::atomic::Ordering::Relaxed);
    if plan.check_determinism && plan.shard.index == 1 && in_time && !stopped {
        listener.status("running the first seeds again (--check-determinism)".to_string());
        let seeds = DETERMINISM_SEEDS.min(outcome.report.seeds);
        let start = outcome.report.seed_start;
        settled.suspects.extend(check_determinism(
            &campaign.stores,
            campaign.strategy,
            &campaign.worlds,
            start..start + seeds,
            &plan.out,
        ));
    }
    Ok(settled)
}

/// The failures this shard takes from the whole campaign's, once every shard has come
/// (see [`super::partners`]), settled one at a time as they are taken.
fn settle_shared(
    plan: &FuzzPlan<'_>,
    partners: &dyn Partners,
    outcome: &CampaignOutcome,
    deadline: Option<Instant>,
    listener: &dyn Listener,
) -> Result<Settled, CampaignError> {
    let campaign = &plan.campaign;
    partners.seen().absorb(&outcome.seen);
    let parts = partners
        .meet(outcome.first_failures.clone())
        .map_err(CampaignError::Partners)?;
    let stores: Vec<String> = campaign.stores.iter().map(|s| s.name()).collect();
    let all = first_of_all(&stores, parts);
    let mut settled = Settled::default();
    while let Some(i) = partners.take() {
        let Some(failure) = all.get(i) else { break };
        let one = settle_remembering(
            &campaign.stores,
            std::slice::from_ref(failure),
            &plan.out,
            plan.limits,
            deadline,
            1,
            &|_, f| shrinking(listener, i, all.len(), f),
            partners.seen(),
        );
        settled.findings.extend(one.findings);
        settled.suspects.extend(one.suspects);
    }
    Ok(settled)
}

/// "shrinking 3/9: STORE CLASS", the status while the `i`th of `count` failures settles.
fn shrinking(listener: &dyn Listener, i: usize, count: usize, f: &Failure) {
    listener.status(format!(
        "shrinking {}/{count}: {} {}",
        i + 1,
        f.store,
        crate::trace::class::name_or_invariant(f.class.as_ref(), f.invariant)
    ))
}
