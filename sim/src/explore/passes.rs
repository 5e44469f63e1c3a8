//! The passes of one `explore`, each a search of the bound under the reductions it names:
//!
//! 1. [`Passes::reduced`]: every tab's search ([`Passes::tabs`]), or the whole world's
//!    when the per-tab premise H breaks; then, if the judged tab's store read a POST
//!    response (premise H2), the same without inert POST responses.
//! 2. [`Passes::shortest_check`], inside a per-tab pass: the whole world below a per-tab
//!    counterexample whose length a convergence violation left in doubt.
//! 3. In [`crate::explore::explore`]: when the backend-first sets met a violation, pass 1
//!    again without them, for the shortest counterexample.
//!
//! Every fallback is the same search with one reduction fewer, named where it is dropped.

use crate::model::store::StoreFactory;
use crate::model::wire::ClientId;

use super::bound::{ExploreBound, Parallelism, Reductions};
use super::engine;
use super::reduction::scope::{self, PostResponses, Scope};
use super::report::{ExploreReport, SearchProgress};

/// What every pass shares: the stores, the bound as asked, the progress callback.
pub(crate) struct Passes<'a, 'p> {
    stores: &'a dyn StoreFactory,
    bound: &'a ExploreBound,
    progress: &'p mut dyn FnMut(SearchProgress),
}

/// The tabs one per-tab pass searched, as far as it got.
struct TabsSearched {
    /// Their reports added up.
    total: ExploreReport,
    /// How many of the tabs to search were searched.
    searched: usize,
    /// Whether some tab's search kept its POST responses inert.
    inert: bool,
}

impl<'a, 'p> Passes<'a, 'p> {
    /// The passes over `bound`.
    pub(crate) fn new(
        stores: &'a dyn StoreFactory,
        bound: &'a ExploreBound,
        progress: &'p mut dyn FnMut(SearchProgress),
    ) -> Passes<'a, 'p> {
        Passes {
            stores,
            bound,
            progress,
        }
    }

    /// The length of the counterexample `report` holds when the backend-first sets were
    /// in force for it and the shortest one is asked for: then it may not be the shortest
    /// (see [`scope::Scope::persistent_set`]) and the search runs again without them.
    pub(crate) fn met_with_backend_first(
        &self,
        assumed: Reductions,
        report: &ExploreReport,
    ) -> Option<usize> {
        let in_force = assumed.backend_first && assumed.per_tab && assumed.persistent;
        // Only a per-tab search has these sets, and `shortest` off asks for no shortest.
        let c = report.counterexample.as_ref()?;
        (in_force && self.bound.shortest && report.per_tab_refused.is_none())
            .then_some(c.steps.len())
    }

    /// The search under `assumed`, and again with the judged tab's POST responses
    /// delivered if a store did not ignore one (H2), which the report then says.
    pub(crate) fn reduced(&mut self, assumed: Reductions) -> ExploreReport {
        let report = self.tabs(assumed);
        let Some(why) = report.post_responses_refused else {
            return report;
        };
        let delivered = Reductions {
            inert_post_responses: false,
            ..assumed
        };
        let mut report = self.tabs(delivered);
        report.post_responses_refused = Some(why);
        report
    }

    /// Every tab's search under `assumed` (the whole world's when `per_tab` is off),
    /// added up; stops early, with `post_responses_refused` set, when a store does not
    /// ignore its POST responses, and searches the whole world instead when a store
    /// breaks H.
    fn tabs(&mut self, assumed: Reductions) -> ExploreReport {
        let bound = self.bound.assuming(assumed);
        if !assumed.per_tab {
            return engine::search(self.stores, &bound, Scope::Whole, self.progress);
        }
        let tabs = if assumed.symmetry {
            scope::tabs_to_search(&bound.world, self.stores)
        } else {
            (0..bound.world.clients).collect()
        };
        let mut done = match self.each_tab(&bound, &tabs) {
            Ok(done) => done,
            Err(report) => return *report,
        };
        self.shortest_check(&bound, &mut done.total);
        done.total.scope = scope_line(&bound, &tabs, done.searched, done.inert, &done.total);
        done.total
    }

    /// The per-tab searches of `tabs`, in order, until a limit or (first counterexample
    /// asked for) a violation stops them. `Err` with the report to return as it is: a
    /// tab's store broke H2 (that tab's report), or H (the whole world's search).
    fn each_tab(
        &mut self,
        bound: &ExploreBound,
        tabs: &[ClientId],
    ) -> Result<TabsSearched, Box<ExploreReport>> {
        let mut total: Option<ExploreReport> = None;
        let mut searched = Vec::new();
        let mut inert = false;
        for &c in tabs {
            let responses = scope::post_responses(self.stores, bound, c);
            inert |= responses == PostResponses::Inert;
            let scope = Scope::Tab(c, responses);
            let r = engine::search(self.stores, bound, scope, self.progress);
            if r.post_responses_refused.is_some() {
                return Err(Box::new(r));
            }
            if let Some(why) = r.per_tab_refused {
                let mut whole = engine::search(self.stores, bound, Scope::Whole, self.progress);
                whole.per_tab_refused = Some(why);
                return Err(Box::new(whole));
            }
            let stop = r.limit_hit.is_some() || (r.counterexample.is_some() && !bound.shortest);
            searched.push(c);
            total = Some(match total {
                None => r,
                Some(t) => t.add(r),
            });
            if stop {
                break;
            }
        }
        Ok(TabsSearched {
            total: total.expect("at least one tab"),
            searched: searched.len(),
            inert,
        })
    }

    /// Makes a per-tab counterexample the shortest one when a per-tab convergence
    /// violation left that in doubt. The per-tab search finds the shortest *step*
    /// violation exactly (see [`scope`]), but a convergence violation it meets after `a`
    /// abstract steps takes `a` plus the other tabs' own work in the real world, which
    /// depends on their stores. So when a convergence violation was met after fewer
    /// abstract steps than the counterexample kept has real ones, the whole world is
    /// searched up to one step less than that (same engine, same limits): what it finds is
    /// shorter and replaces it; if it finds nothing, the kept one is the shortest. A limit
    /// hit there leaves the length unconfirmed, and says so.
    fn shortest_check(&mut self, bound: &ExploreBound, total: &mut ExploreReport) {
        let (Some(at), Some(c)) = (total.tab_convergence_at, &total.counterexample) else {
            return;
        };
        let len = c.steps.len();
        if !bound.shortest || at >= len || total.limit_hit.is_some() {
            return;
        }
        let whole = ExploreBound {
            depth_max: len - 1,
            // Every shard's part of the whole world: so that the length this shard keeps
            // is the shortest of the whole bound, and the merge's minimum over shards is
            // exact.
            parallelism: Parallelism {
                shard: None,
                ..bound.parallelism
            },
            ..bound.clone()
        };
        let r = engine::search(self.stores, &whole, Scope::Whole, self.progress);
        total.steps_applied += r.steps_applied;
        total.shortest_check = Some(match (r.counterexample, r.limit_hit) {
            (Some(shorter), _) => {
                let text = format!(
                    "the whole world searched to depth {}: a shorter counterexample ({} steps) replaces the per-tab one ({len} steps)",
                    len - 1,
                    shorter.steps.len()
                );
                total.counterexample = Some(shorter);
                text
            }
            (None, Some(limit)) => format!(
                "the whole world searched to depth {} for a counterexample shorter than {len} steps stopped ({limit}): the length is not confirmed as the shortest",
                len - 1
            ),
            (None, None) => format!(
                "the whole world searched to depth {}: no shorter counterexample, {len} steps is the shortest",
                len - 1
            ),
        });
    }
}

/// The report's `scope` line of a per-tab pass: the tabs searched (and which one a limit
/// stopped), those not searched, those decided by symmetry, and whether POST responses
/// were inert.
fn scope_line(
    bound: &ExploreBound,
    tabs: &[ClientId],
    searched: usize,
    inert: bool,
    total: &ExploreReport,
) -> String {
    let names = |cs: &mut dyn Iterator<Item = &ClientId>| -> Vec<String> {
        cs.map(|c| format!("c{c}")).collect()
    };
    let mut done = names(&mut tabs.iter().take(searched));
    if total.limit_hit.is_some() {
        if let Some(last) = done.last_mut() {
            last.push_str(" (stopped by the limit)");
        }
    }
    let not_searched = names(&mut tabs.iter().skip(searched));
    let others: Vec<ClientId> = (0..bound.world.clients)
        .filter(|c| !tabs.contains(c))
        .collect();
    let others = names(&mut others.iter());
    let mut line = format!("per tab: {}", done.join(", "));
    if !not_searched.is_empty() {
        line.push_str(&format!("; {} not searched", not_searched.join(", ")));
    }
    if !others.is_empty() {
        line.push_str(&format!("; {} by symmetry", others.join(", ")));
    }
    if inert {
        line.push_str("; its own POST responses inert");
    }
    line
}
