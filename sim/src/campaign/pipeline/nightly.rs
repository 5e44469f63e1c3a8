//! `nightly` as one library call: the night ([`crate::campaign::nightly::run_night`]: the
//! in-process campaigns, the cargo-fuzz phase, the summary), then its result file.

use std::sync::atomic::AtomicBool;

use crate::campaign::error::CampaignError;
use crate::campaign::merge::{NightlyResult, ResultFile, ShardSet};
use crate::campaign::nightly::{run_night, write_summary, NightlyConfig, NightlySummary};

use super::Listener;

/// Run the night `cfg` describes and write its result file, if it asks for one. A result
/// file that cannot be written (or cannot read back a scenario the night failed to save)
/// does not lose the night: it is reported with the other files not written, and the
/// summary is written again to say so.
pub fn nightly(
    cfg: &NightlyConfig,
    listener: &dyn Listener,
    cancel: &AtomicBool,
) -> Result<NightlySummary, CampaignError> {
    let (mut summary, known_before) = run_night(cfg, listener, cancel)?;
    if let Some(path) = &cfg.result {
        let saved = NightlyResult::of_night(cfg, &known_before, &summary)
            .and_then(|result| ResultFile::new(ShardSet::one(cfg.shard), result).save(path));
        if let Err(e) = saved {
            summary
                .write_errors
                .push(format!("the result file {}: {e}", path.display()));
            // Should this fail, the first summary stays; what is printed lists everything.
            let _ = write_summary(&cfg.night_dir, &summary);
        }
    }
    if cfg.html {
        listener.note("writing the HTML report");
        let stores = crate::campaign::nightly::stores_named(&cfg.stores)?;
        let stores: Vec<&dyn crate::model::store::StoreFactory> = stores
            .iter()
            .map(|s| s as &dyn crate::model::store::StoreFactory)
            .collect();
        let written = crate::campaign::report::write_night(
            &summary,
            &cfg.night_dir,
            &crate::campaign::report::Replayers {
                stores: &stores,
                resolve: &|path, sc| {
                    crate::store::recorded::resolve_recorded(
                        &sc.store,
                        path,
                        sc.store_dir.as_deref(),
                        crate::exec::ExecOptions::default(),
                        false,
                    )
                },
            },
        );
        if !written.errors.is_empty() {
            summary.write_errors.extend(written.errors);
            let _ = write_summary(&cfg.night_dir, &summary);
        }
    }
    Ok(summary)
}
