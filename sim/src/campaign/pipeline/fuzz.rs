//! `fuzz` as one library call: the campaign, then each first failure rechecked, shrunk
//! and saved, the first seeds run again when asked, and the result file built and
//! written. [`fuzz`] returns the result; the CLI only prints it.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::campaign::error::CampaignError;
use crate::campaign::fuzz::{run_campaign_shard, Campaign, CampaignOutcome};
use crate::campaign::merge::{FuzzResult, ResultFile, ShardSet};
use crate::campaign::recheck::{check_determinism, settle, Settled, DETERMINISM_SEEDS};
use crate::trace::shrink::Limits;
use crate::util::shard::Shard;

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
    /// Run the first seeds again to look for nondeterminism and state leaks (shard 1 only).
    pub check_determinism: bool,
    /// Where to write the result file, if anywhere.
    pub result_file: Option<PathBuf>,
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
    let deadline = plan.time.map(|t| started + t);
    let Settled { findings, suspects } = settle_failures(plan, &outcome, deadline, listener, stop);
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
    Ok(FuzzRun {
        runs: outcome.report.seeds * campaign.stores.len() as u64,
        result,
        result_error,
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
) -> Settled {
    let campaign = &plan.campaign;
    let count = outcome.first_failures.len();
    let mut settled = settle(
        &campaign.stores,
        &outcome.first_failures,
        &plan.out,
        plan.limits,
        deadline,
        &|i, f| {
            listener.status(format!(
                "shrinking {}/{count}: {} {}",
                i + 1,
                f.store,
                f.class
                    .as_ref()
                    .map_or(f.invariant.to_string(), |c| c.to_string())
            ))
        },
    );
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
    settled
}
