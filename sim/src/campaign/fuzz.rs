//! The in-process fuzz campaign: many seeds × stores, in parallel, with per-seed results
//! that do not depend on the number of threads.
//!
//! Work items are `(seed, store)` pairs in a fixed order (seed-major, so every store
//! advances together); threads take the next item from one atomic counter. Each run is a
//! pure function of its item, and results are merged by item index, so `--jobs` changes
//! only the speed. With a time budget, the report covers the longest prefix of seeds that
//! every store finished, so the covered seed range is always contiguous.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::model::store::StoreFactory;
use crate::oracle::Invariant;
use crate::run::strategy;
use crate::run::{run, RunReport};

/// How many seeds to run.
#[derive(Clone, Copy, Debug)]
pub enum Budget {
    Seeds(u64),
    Time(Duration),
}

/// What a campaign runs.
pub struct Campaign<'a> {
    pub stores: Vec<&'a dyn StoreFactory>,
    pub strategy: String,
    pub seed_start: u64,
    pub budget: Budget,
    pub jobs: usize,
}

/// One store's results over the campaign.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreSummary {
    pub store: String,
    pub runs: u64,
    /// Seeds failing each invariant (a run stops at its first violation).
    pub failing: BTreeMap<Invariant, u64>,
    /// The smallest failing seed for each invariant.
    pub first_failing_seed: BTreeMap<Invariant, u64>,
}

impl StoreSummary {
    pub fn failures(&self) -> u64 {
        self.failing.values().sum()
    }
    pub fn first_failure(&self) -> Option<(u64, Invariant)> {
        self.first_failing_seed.iter().map(|(i, s)| (*s, *i)).min()
    }
}

/// The whole campaign's results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CampaignReport {
    pub strategy: String,
    pub seed_start: u64,
    /// Seeds covered: `seed_start .. seed_start + seeds`.
    pub seeds: u64,
    pub stores: Vec<StoreSummary>,
}

impl CampaignReport {
    pub fn any_failure(&self) -> bool {
        self.stores.iter().any(|s| s.failures() > 0)
    }
}

/// Run one seed of one store with the named strategy.
pub fn run_one(stores: &dyn StoreFactory, strategy_name: &str, seed: u64) -> RunReport {
    let mut strat = strategy::by_name(strategy_name, seed).expect("strategy validated by caller");
    run(
        stores,
        crate::model::config::WorldConfig::from_seed(seed),
        strat.as_mut(),
    )
}

/// Run a campaign. `progress` is called with the number of runs finished so far (from any
/// thread); `cancel` stops it early, keeping every finished result.
pub fn run_campaign(
    campaign: &Campaign<'_>,
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
) -> CampaignReport {
    let n_stores = campaign.stores.len() as u64;
    let total_items = match campaign.budget {
        Budget::Seeds(n) => n * n_stores,
        Budget::Time(_) => u64::MAX,
    };
    let deadline = match campaign.budget {
        Budget::Time(d) => Some(Instant::now() + d),
        Budget::Seeds(_) => None,
    };
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let jobs = campaign.jobs.max(1);
    let mut results: Vec<(u64, Option<Invariant>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..jobs)
            .map(|_| {
                scope.spawn(|| {
                    let mut local = Vec::new();
                    loop {
                        if cancel.load(Ordering::Relaxed)
                            || deadline.is_some_and(|d| Instant::now() >= d)
                        {
                            break;
                        }
                        let item = next.fetch_add(1, Ordering::Relaxed);
                        if item >= total_items {
                            break;
                        }
                        let seed = campaign.seed_start + item / n_stores;
                        let store = campaign.stores[(item % n_stores) as usize];
                        let report = run_one(store, &campaign.strategy, seed);
                        local.push((item, report.outcome.invariant()));
                        progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                    }
                    local
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("fuzz worker panicked outside a store"))
            .collect()
    });
    results.sort_unstable_by_key(|(item, _)| *item);
    // The longest prefix of items with no gap, cut down to whole seeds.
    let contiguous = results
        .iter()
        .enumerate()
        .take_while(|(i, (item, _))| *i as u64 == *item)
        .count() as u64;
    let seeds = contiguous / n_stores;
    let mut stores: Vec<StoreSummary> = campaign
        .stores
        .iter()
        .map(|s| StoreSummary {
            store: s.name(),
            ..StoreSummary::default()
        })
        .collect();
    for (item, verdict) in results.into_iter().take((seeds * n_stores) as usize) {
        let summary = &mut stores[(item % n_stores) as usize];
        summary.runs += 1;
        if let Some(inv) = verdict {
            let seed = campaign.seed_start + item / n_stores;
            *summary.failing.entry(inv).or_default() += 1;
            summary.first_failing_seed.entry(inv).or_insert(seed);
        }
    }
    CampaignReport {
        strategy: campaign.strategy.clone(),
        seed_start: campaign.seed_start,
        seeds,
        stores,
    }
}

/// The store × invariant table: `failing/run` per cell, then the first failing seed.
pub fn format_table(report: &CampaignReport) -> String {
    let mut out = String::new();
    let name_w = report
        .stores
        .iter()
        .map(|s| s.store.len())
        .max()
        .unwrap_or(5)
        .max(5);
    out.push_str(&format!("{:<name_w$}", "store"));
    for inv in Invariant::ALL {
        out.push_str(&format!("  {:>18}", inv.name()));
    }
    out.push_str("  first failing seed\n");
    for s in &report.stores {
        out.push_str(&format!("{:<name_w$}", s.store));
        for inv in Invariant::ALL {
            let cell = format!("{}/{}", s.failing.get(&inv).copied().unwrap_or(0), s.runs);
            out.push_str(&format!("  {cell:>18}"));
        }
        match s.first_failure() {
            Some((seed, inv)) => out.push_str(&format!("  {seed} ({inv})\n")),
            None => out.push_str("  -\n"),
        }
    }
    out
}
