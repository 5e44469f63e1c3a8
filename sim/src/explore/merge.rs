//! The result file of one `explore` (sharded or not), and the merge of the shards' files
//! into the result of the whole search ([`merge_explore_results`]).
//!
//! The file has the header every mergeable result of this tool has (`format`,
//! `format_version`, `tool`, `kind`, `shards`), with `kind: "explore"`, and the search's
//! `result`: its `config` (the store, the world, the search: what must agree for two
//! results to merge) and its report.
//!
//! **Merging** is order-independent and exact: counts are added (states searched by two
//! shards are counted twice: the shards overlap, never leave a gap, see [`super::shard`]);
//! the counterexample is the shortest over the shards, ties going to the smallest schedule
//! in step order; a limit hit in any shard is kept (the first by shard); the merged search
//! is verified only when every shard is there and verified. It refuses, with a message
//! naming what differs: another format, kind, format version or tool version (results of
//! another build may search another tree), another configuration, another shard count, a
//! shard given twice, a shard missing.

use serde::{Deserialize, Serialize};

use crate::model::config::WorldConfig;

use super::bound::ExploreBound;
use super::report::ExploreReport;

/// The `format` of a result file.
pub const FORMAT: &str = "reconcile-sim-result";
/// The `format_version` this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// The `kind` of an explore result.
pub const KIND: &str = "explore";

/// This build, as written in `tool`: `reconcile-sim X.Y.Z`.
pub fn tool() -> String {
    format!("reconcile-sim {}", env!("CARGO_PKG_VERSION"))
}

/// Which shards of how many a result holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardsHeld {
    /// How many shards the search was split into (1: not split).
    pub count: u64,
    /// The shards whose searches this result holds, in order (1-based).
    pub done: Vec<u64>,
}

/// What two explore results must agree on to be merged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExploreConfig {
    /// The store searched.
    pub store: String,
    /// The world.
    pub world: WorldConfig,
    /// The search: depth bound, mode, reductions and engine.
    pub search: String,
}

/// A search's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExploreOutcome {
    /// What was searched.
    pub config: ExploreConfig,
    /// Every schedule of the bound searched (every shard's, for a merged result) and no
    /// violation: the claim the result makes.
    pub verified: bool,
    /// The counts and the counterexample.
    pub report: ExploreReport,
}

/// The JSON `explore --json` prints: one result file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExploreResult {
    /// [`FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The tool that wrote it ([`tool`]).
    pub tool: String,
    /// [`KIND`].
    pub kind: String,
    /// The shards it holds.
    pub shards: ShardsHeld,
    /// The search's outcome.
    pub result: ExploreOutcome,
}

impl ExploreResult {
    /// The result of searching `bound` on the store named `store`.
    pub fn new(store: String, bound: &ExploreBound, report: ExploreReport) -> ExploreResult {
        let shards = match bound.parallelism.shard {
            Some(s) => ShardsHeld {
                count: s.count,
                done: vec![s.index],
            },
            None => ShardsHeld {
                count: 1,
                done: vec![1],
            },
        };
        ExploreResult {
            format: FORMAT.to_string(),
            format_version: FORMAT_VERSION,
            tool: tool(),
            kind: KIND.to_string(),
            shards,
            result: ExploreOutcome {
                config: ExploreConfig {
                    store,
                    world: bound.world.clone(),
                    search: bound.describe_search(),
                },
                verified: report.verified(),
                report,
            },
        }
    }
}

/// Merges the results of the shards of one search (see the module doc). `parts` in any
/// order; every shard exactly once.
pub fn merge_explore_results(parts: Vec<ExploreResult>) -> Result<ExploreResult, String> {
    let Some(first) = parts.first() else {
        return Err("no explore result to merge".to_string());
    };
    for (i, p) in parts.iter().enumerate() {
        check_mergeable(first, p, i + 1)?;
    }
    let count = first.shards.count;
    let mut parts = parts;
    parts.sort_by_key(|p| p.shards.done.first().copied().unwrap_or(0));
    let done = every_shard_once(&parts, count)?;
    let verified = parts.iter().all(|p| p.result.verified);
    let mut parts = parts.into_iter();
    let mut merged = parts.next().expect("non-empty");
    for p in parts {
        add_shard_report(&mut merged.result.report, p.result.report);
    }
    merged.shards.done = done;
    merged.result.verified = verified && merged.result.report.verified();
    Ok(merged)
}

/// Whether `p`, the `n`th result, merges with the first: an explore result file of this
/// format version written by this build (another may search another tree), of the same
/// configuration, split into as many shards.
fn check_mergeable(first: &ExploreResult, p: &ExploreResult, n: usize) -> Result<(), String> {
    if p.format != FORMAT {
        return Err(format!(
            "result {n} is not a {FORMAT} file (format {:?})",
            p.format
        ));
    }
    if p.kind != KIND {
        return Err(format!(
            "result {n} is a `{}` result: only explore results merge here",
            p.kind
        ));
    }
    if p.format_version != FORMAT_VERSION {
        return Err(format!(
            "result {n} has format version {}, this build reads {FORMAT_VERSION}",
            p.format_version
        ));
    }
    if p.tool != tool() {
        return Err(format!(
            "result {n} was written by {}, not by this build ({}): another version may search another tree",
            p.tool,
            tool()
        ));
    }
    if let Some(d) = config_difference(&first.result.config, &p.result.config) {
        return Err(format!(
            "results 1 and {n} searched different configurations: {d}"
        ));
    }
    if p.shards.count != first.shards.count {
        return Err(format!(
            "results 1 and {n} split the search into {} and {} shards",
            first.shards.count, p.shards.count
        ));
    }
    Ok(())
}

/// The first of store, world and search in which two configurations differ, in words.
fn config_difference(a: &ExploreConfig, b: &ExploreConfig) -> Option<String> {
    if a.store != b.store {
        Some(format!("store {:?} vs {:?}", a.store, b.store))
    } else if a.world != b.world {
        Some(format!(
            "world {} vs {}",
            serde_json::to_string(&a.world).unwrap_or_default(),
            serde_json::to_string(&b.world).unwrap_or_default()
        ))
    } else if a.search != b.search {
        Some(format!("search {:?} vs {:?}", a.search, b.search))
    } else {
        None
    }
}

/// The shards the `parts` hold, in order, when each of the `count` is there exactly once:
/// a merge of some shards verifies nothing.
fn every_shard_once(parts: &[ExploreResult], count: u64) -> Result<Vec<u64>, String> {
    let mut done: Vec<u64> = parts.iter().flat_map(|p| p.shards.done.clone()).collect();
    done.sort_unstable();
    if let Some(w) = done.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("shard {}/{count} is given twice", w[0]));
    }
    let missing: Vec<String> = (1..=count)
        .filter(|i| !done.contains(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "shard(s) {} missing: a merge of some shards verifies nothing",
            missing.join(", ")
        ));
    }
    Ok(done)
}

/// Adds shard report `o` to `r`: counts add up; the counterexample is the shorter (ties to
/// the smaller schedule, `r`'s on equal ones); scopes are listed; covered units join; the
/// first refusal and shortest-mode check are kept.
fn add_shard_report(r: &mut ExploreReport, o: ExploreReport) {
    let keep_mine = match (&r.counterexample, &o.counterexample) {
        (Some(a), Some(b)) => (a.steps.len(), &a.steps) <= (b.steps.len(), &b.steps),
        (Some(_), None) => true,
        (None, _) => false,
    };
    let counterexample = if keep_mine {
        r.counterexample.take()
    } else {
        o.counterexample.clone()
    };
    if r.scope != o.scope {
        r.scope = format!("{}; {}", r.scope, o.scope);
    }
    let covered = match (r.covered.take(), o.covered.clone()) {
        (Some(mut a), Some(b)) => {
            for (x, y) in a.units.iter_mut().zip(b.units) {
                x.extend(y);
                x.sort_unstable();
            }
            Some(a)
        }
        (a, b) => a.or(b),
    };
    let refused = r.per_tab_refused.take().or(o.per_tab_refused.clone());
    let check = r.shortest_check.take().or(o.shortest_check.clone());
    let found = match (r.backend_first_found, o.backend_first_found) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let mut sum = r.clone().add(o);
    sum.counterexample = counterexample;
    sum.covered = covered;
    sum.per_tab_refused = refused;
    sum.shortest_check = check;
    sum.backend_first_found = found;
    *r = sum;
}
