//! `check` as one library call: the gate's run ([`crate::campaign::check::run_check_timed`]:
//! scenarios replayed, stores fuzzed, new classes shrunk and saved, the determinism check),
//! then the result file built and written. [`check`] returns it all; the CLI only prints.

use std::path::Path;

use crate::campaign::check::{run_check_timed, CheckReport, CheckRequest, Resolver};
use crate::campaign::error::CampaignError;
use crate::campaign::merge::{CheckResult, ResultFile, ShardSet};
use crate::campaign::settle_budget::Timing;

/// What one `check` command found.
pub struct CheckRun {
    /// The result (configuration, report, saved scenarios): what the result file holds.
    pub result: ResultFile<CheckResult>,
    /// The report, with the found failures' paths where they were written.
    pub report: CheckReport,
    /// Why the result file could not be written, if it could not: the command reports it
    /// after the report and fails.
    pub result_error: Option<String>,
    /// The HTML report written with `request.html`; `None` without it.
    pub reports: Option<crate::campaign::report::Written>,
    /// How long the campaign and settling took, and settling's budget.
    pub timing: Timing,
}

/// Run the check `request` describes (`seed`: the seed as given, from which
/// `request.seed_start` was derived, recorded in the result), resolving each scenario's
/// store with `resolve`, and write the result to `result_file` if given.
pub fn check(
    request: &CheckRequest<'_>,
    seed: &str,
    resolve: Resolver<'_>,
    result_file: Option<&Path>,
) -> Result<CheckRun, CampaignError> {
    let (report, texts, timing) = run_check_timed(request, resolve)?;
    let result = ResultFile::new(
        ShardSet::one(request.shard),
        CheckResult::of_run(request, seed, &report, &texts)?,
    );
    let result_error = result.save_to(result_file);
    let reports = request.html.then(|| {
        let stores = request.under_test.clone().unwrap_or_default();
        crate::campaign::report::write_check(
            &result,
            &report,
            &request.out,
            request.shard,
            &crate::campaign::report::Replayers {
                stores: &stores,
                resolve,
            },
        )
    });
    Ok(CheckRun {
        result,
        report,
        result_error,
        reports,
        timing,
    })
}
