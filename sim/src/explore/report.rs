//! What a search found ([`ExploreReport`]: the verdict, the counterexample and the counts
//! that say how much was searched) and what it says while it runs ([`SearchProgress`]).

use serde::{Deserialize, Serialize};

use crate::model::step::Step;
use crate::oracle::Violation;

use super::bound::{Engine, ExploreBound};

/// The shortest violating schedule found, to replay or save as a scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counterexample {
    /// The schedule from the initial world, up to and including the violating step.
    pub steps: Vec<Step>,
    /// What broke, and where.
    pub violation: Violation,
}

/// Whether the search merged equal states, so that a report says what its counts mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum StateCache {
    /// Not asked for: stateless search.
    #[default]
    Off,
    /// Equal full states merged (see the module doc).
    On,
    /// Asked for, but a store cannot expose its internal state
    /// ([`crate::model::store::Store::hash_state`]): stateless search.
    Unsupported,
}

/// What a search found: the verdict and the counts that say how much was searched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExploreReport {
    /// The bound searched ([`ExploreBound::describe`]).
    pub bound: String,
    /// Whether sleep-set reduction was on.
    pub reduction: bool,
    /// Complete schedules run: to quiescence, or to a violation. With the state cache, a
    /// path that reaches a state already searched is a pruned revisit instead.
    pub schedules: u64,
    /// Schedules cut at `depth_max`.
    pub truncated: u64,
    /// Paths abandoned because every enabled step was asleep (equivalent to a schedule
    /// already explored).
    pub sleep_blocked: u64,
    /// Steps applied, replays after backtracking included.
    pub steps_applied: u64,
    /// Distinct states reached: with the state cache, distinct full states (as
    /// `distinct_full_states`); without it, distinct fingerprints of the observable state
    /// (backend, network, user facts and every render). A statistic only: never used for
    /// pruning.
    pub distinct_states: u64,
    /// Whether equal states were merged.
    #[serde(default)]
    pub state_cache: StateCache,
    /// Distinct full states searched from (the cache's size; each a distinct full state).
    #[serde(default)]
    pub states_cached: u64,
    /// Distinct full states reached (exact keys), violating states and states cut at
    /// `depth_max` aside. With the cache only, else 0.
    #[serde(default)]
    pub distinct_full_states: u64,
    /// Arrivals at a cached state that needed nothing more (Godefroid's `Z ⊆ Z'`).
    #[serde(default)]
    pub revisits_pruned: u64,
    /// Arrivals at a cached state that searched part of it again: the steps of `Z \ Z'`,
    /// or all of it when its earlier search was cut shorter.
    #[serde(default)]
    pub revisits_partial: u64,
    /// Bytes of the distinct state parts stored for the exact keys (see `StateIds`; the
    /// tables add about 30 bytes per distinct state).
    #[serde(default)]
    pub state_key_bytes: u64,
    /// What was searched: `whole world`, or the tabs judged one at a time (`per tab: c0;
    /// c1 by symmetry`).
    #[serde(default)]
    pub scope: String,
    /// The search algorithm that ran.
    #[serde(default)]
    pub engine: Engine,
    /// Bytes of the visited set of fingerprints (breadth-first engine), at its largest.
    #[serde(default)]
    pub visited_bytes: u64,
    /// Arrivals at a state already visited, whose search was not repeated (breadth-first
    /// engine).
    #[serde(default)]
    pub revisits: u64,
    /// The per-tab search was asked for but the judged tab's store broke its premise
    /// (see [`crate::explore::reduction::scope`]): why, and the whole world was searched instead.
    #[serde(default)]
    pub per_tab_refused: Option<String>,
    /// The per-tab search skipped the judged tab's POST responses but its store did not
    /// ignore one (H2, see [`crate::explore::reduction::scope`]): why, and the search ran again with them delivered.
    #[serde(default)]
    pub post_responses_refused: Option<String>,
    /// The limit (`--max-states`, `--max-memory`) that stopped the search: the result is
    /// inconclusive.
    #[serde(default)]
    pub limit_hit: Option<String>,
    /// Per-tab search: the shortest abstract schedule that ended in a convergence
    /// violation, if any. Such a violation's real schedule also holds the other tabs' own
    /// work, so its real length is not known to be the shortest; [`crate::explore::explore`] then checks
    /// the whole world below it (see `ExploreReport::shortest_check`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_convergence_at: Option<usize>,
    /// What [`crate::explore::explore`] did to make sure a per-tab counterexample is the shortest, when a
    /// per-tab convergence violation left it in doubt: the whole world searched to the
    /// depth below it, and what that found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shortest_check: Option<String>,
    /// With [`super::bound::Reductions::backend_first`]: the length of the counterexample the search
    /// with backend-first sets found before [`crate::explore::explore`] searched again without them for
    /// the shortest (whose counts and counterexample this report holds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_first_found: Option<usize>,
    /// With `--shard`: the part of the search tree this search covered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered: Option<Covered>,
    /// The shortest violating schedule found, if any.
    pub counterexample: Option<Counterexample>,
}

impl ExploreReport {
    /// A report of nothing searched yet.
    pub(crate) fn empty(bound: &ExploreBound, state_cache: StateCache) -> ExploreReport {
        ExploreReport {
            bound: bound.describe(),
            reduction: bound.reductions.sleep_sets,
            schedules: 0,
            truncated: 0,
            sleep_blocked: 0,
            steps_applied: 0,
            distinct_states: 0,
            state_cache,
            states_cached: 0,
            distinct_full_states: 0,
            revisits_pruned: 0,
            revisits_partial: 0,
            state_key_bytes: 0,
            scope: "whole world".to_string(),
            engine: bound.parallelism.engine,
            visited_bytes: 0,
            revisits: 0,
            per_tab_refused: None,
            post_responses_refused: None,
            limit_hit: None,
            tab_convergence_at: None,
            shortest_check: None,
            backend_first_found: None,
            covered: None,
            counterexample: None,
        }
    }

    /// Whether a store broke a premise of the per-tab search (see `ExploreReport::refuse`, in `reduction/scope.rs`).
    pub(crate) fn refused(&self) -> bool {
        self.per_tab_refused.is_some() || self.post_responses_refused.is_some()
    }

    /// A per-tab search met a convergence violation after `len` abstract steps.
    pub(crate) fn note_tab_convergence(&mut self, len: usize) {
        self.tab_convergence_at = Some(self.tab_convergence_at.map_or(len, |l| l.min(len)));
    }

    /// True when the whole bounded space was searched and nothing broke: the claim a
    /// report can make about the bound.
    pub fn verified(&self) -> bool {
        self.counterexample.is_none() && self.truncated == 0 && self.limit_hit.is_none()
    }

    /// Keeps `steps` as the counterexample when it is the first or a shorter one.
    pub(crate) fn record(&mut self, steps: Vec<Step>, violation: Violation) {
        if self
            .counterexample
            .as_ref()
            .is_none_or(|c| steps.len() < c.steps.len())
        {
            self.counterexample = Some(Counterexample { steps, violation });
        }
    }
}

/// A search's progress, for a bar: a long search shows how far it got.
#[derive(Clone, Copy, Debug)]
pub struct SearchProgress {
    /// The share of the search finished, when it can be estimated: depth-first, assuming
    /// equal subtrees per choice; breadth-first, once the levels shrink, assuming they go
    /// on shrinking at the rate of the last two.
    pub fraction_done: Option<f64>,
    /// Complete schedules so far (depth-first), quiescent states (breadth-first).
    pub schedules: u64,
    /// Distinct states reached so far in this tab's search.
    pub states: u64,
    /// Steps applied so far in this tab's search.
    pub steps_applied: u64,
    /// The tab judged (per-tab search), if any.
    pub tab: Option<u8>,
}

impl ExploreReport {
    /// Two tabs' searches as one report: counts added, the shorter counterexample kept
    /// (`self`'s on a tie), the first limit hit kept.
    pub(crate) fn add(mut self, o: ExploreReport) -> ExploreReport {
        self.schedules += o.schedules;
        self.truncated += o.truncated;
        self.sleep_blocked += o.sleep_blocked;
        self.steps_applied += o.steps_applied;
        self.distinct_states += o.distinct_states;
        self.states_cached += o.states_cached;
        self.distinct_full_states += o.distinct_full_states;
        self.revisits_pruned += o.revisits_pruned;
        self.revisits_partial += o.revisits_partial;
        self.state_key_bytes += o.state_key_bytes;
        self.visited_bytes = self.visited_bytes.max(o.visited_bytes);
        self.revisits += o.revisits;
        self.limit_hit = self.limit_hit.or(o.limit_hit);
        self.post_responses_refused = self.post_responses_refused.or(o.post_responses_refused);
        if let Some(l) = o.tab_convergence_at {
            self.note_tab_convergence(l);
        }
        if let (Some(a), Some(b)) = (&mut self.covered, o.covered) {
            a.units.extend(b.units);
        }
        if let Some(c) = o.counterexample {
            self.record(c.steps, c.violation);
        }
        self
    }
}

/// What one shard covered of the search tree, for its report (listed by `shard.rs`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Covered {
    /// The depth `K` of the units' prefixes (0: one unit, the whole tree).
    pub prefix_depth: usize,
    /// How many units the tree was cut into (per tab searched: the same listing rule).
    pub units_total: usize,
    /// The units this result searched below, by their index in the listing, per tab
    /// searched (the tabs in order).
    pub units: Vec<Vec<usize>>,
}

#[cfg(test)]
mod tests {
    //! What a report of several searches (two tabs, two threads) claims: every count added,
    //! the shorter counterexample, and a limit any one of them hit, so that a search a
    //! limit stopped is never reported complete.
    use std::time::{Duration, Instant};

    use super::*;
    use crate::explore::{explore, Limits, TimeLimit};
    use crate::oracle::Invariant;
    use crate::store::by_name;

    fn violation(step_index: usize) -> Violation {
        Violation {
            invariant: Invariant::NoLoss,
            client: Some(0),
            step_index,
            messages: vec!["msg:m1".to_string()],
            expected: "own message(s) msg:m1 visible".to_string(),
            seen: Vec::new(),
            cause: None,
        }
    }

    /// A report of one tab's search with every count its own (`k`, `k + 1`, …).
    fn counted(k: u64) -> ExploreReport {
        let mut r = ExploreReport::empty(&ExploreBound::small(2, 1), StateCache::On);
        r.schedules = k;
        r.truncated = k + 1;
        r.sleep_blocked = k + 2;
        r.steps_applied = k + 3;
        r.distinct_states = k + 4;
        r.states_cached = k + 5;
        r.distinct_full_states = k + 6;
        r.revisits_pruned = k + 7;
        r.revisits_partial = k + 8;
        r.state_key_bytes = k + 9;
        r.visited_bytes = k + 10;
        r.revisits = k + 11;
        r
    }

    #[test]
    fn two_searches_add_their_counts_and_keep_the_larger_visited_set() {
        let sum = counted(100).add(counted(1000));
        let counts = |r: &ExploreReport| {
            [
                r.schedules,
                r.truncated,
                r.sleep_blocked,
                r.steps_applied,
                r.distinct_states,
                r.states_cached,
                r.distinct_full_states,
                r.revisits_pruned,
                r.revisits_partial,
                r.state_key_bytes,
                r.revisits,
            ]
        };
        assert_eq!(
            counts(&sum),
            [1100, 1102, 1104, 1106, 1108, 1110, 1112, 1114, 1116, 1118, 1122]
        );
        // The visited set is the largest one held at once, not a sum.
        assert_eq!(sum.visited_bytes, 1010);
        assert_eq!(counted(1000).add(counted(100)).visited_bytes, 1010);
    }

    /// The bug this pins: the second tab's search stopped at `--time` (or `--max-memory`,
    /// `--max-states`, a signal) and the added report said nothing of it, so `explore`
    /// printed a verification and exited 0.
    #[test]
    fn a_limit_either_search_hit_stops_the_sum_from_being_a_verification() {
        let hit = |what: &str| {
            let mut r = counted(0);
            r.truncated = 0;
            r.limit_hit = Some(what.to_string());
            r
        };
        let clean = || {
            let mut r = counted(0);
            r.truncated = 0;
            r
        };
        assert!(clean().add(clean()).verified());
        for (a, b) in [(clean(), hit("second")), (hit("first"), clean())] {
            let sum = a.add(b);
            assert!(!sum.verified(), "{:?}", sum.limit_hit);
            assert!(sum.limit_hit.is_some());
        }
        // Both hit one: the first search's is the one named.
        assert_eq!(
            hit("first").add(hit("second")).limit_hit.as_deref(),
            Some("first")
        );
        // A counterexample or a truncated schedule in either is not a verification either.
        let mut cut = clean();
        cut.truncated = 1;
        assert!(!clean().add(cut).verified());
        let mut found = clean();
        found.record(vec![Step::AgentDelta], violation(0));
        assert!(!clean().add(found).verified());
    }

    #[test]
    fn the_sum_keeps_the_shorter_counterexample_the_first_on_a_tie_and_every_refusal() {
        let with = |len: usize, at: usize| {
            let mut r = counted(0);
            r.record(vec![Step::AgentDelta; len], violation(at));
            r
        };
        let sum = with(5, 50).add(with(3, 30));
        assert_eq!(sum.counterexample.as_ref().map(|c| c.steps.len()), Some(3));
        assert_eq!(sum.counterexample.unwrap().violation.step_index, 30);
        let sum = with(3, 30).add(with(5, 50));
        assert_eq!(sum.counterexample.unwrap().violation.step_index, 30);
        let tie = with(4, 1).add(with(4, 2));
        assert_eq!(tie.counterexample.unwrap().violation.step_index, 1);
        assert_eq!(
            counted(0).add(with(2, 7)).counterexample.unwrap().violation,
            violation(7)
        );
        // A tab's convergence violation: the earliest of either.
        let at = |l: Option<usize>| {
            let mut r = counted(0);
            if let Some(l) = l {
                r.note_tab_convergence(l);
            }
            r
        };
        assert_eq!(at(Some(9)).add(at(Some(4))).tab_convergence_at, Some(4));
        assert_eq!(at(Some(4)).add(at(Some(9))).tab_convergence_at, Some(4));
        assert_eq!(at(None).add(at(Some(6))).tab_convergence_at, Some(6));
        assert_eq!(at(Some(6)).add(at(None)).tab_convergence_at, Some(6));
        // A later search's H2 refusal is kept, and makes the sum refused.
        let mut refused = counted(0);
        refused.post_responses_refused = Some("c1 read a POST response".to_string());
        let sum = counted(0).add(refused);
        assert!(sum.refused());
        assert_eq!(
            sum.post_responses_refused.as_deref(),
            Some("c1 read a POST response")
        );
        assert!(!counted(0).add(counted(0)).refused());
        let mut per_tab = counted(0);
        per_tab.per_tab_refused = Some("H".to_string());
        assert!(per_tab.refused());
        // Shards' covered units: the second's tabs follow the first's.
        let covered = |units: Vec<Vec<usize>>| {
            let mut r = counted(0);
            r.covered = Some(Covered {
                prefix_depth: 2,
                units_total: 8,
                units,
            });
            r
        };
        let sum = covered(vec![vec![0, 3]]).add(covered(vec![vec![5]]));
        assert_eq!(sum.covered.unwrap().units, [vec![0, 3], vec![5]]);
    }

    /// `explore` itself, per tab, two tabs that are not interchangeable by symmetry: the
    /// first tab's search ends well within `--time 2s`; the second's passes the deadline
    /// (its progress callback waits until then), so the report is inconclusive, names the
    /// limit and says which tab it stopped. (Before: a verification, exit 0.)
    #[test]
    fn a_time_limit_the_second_tabs_search_hits_makes_explore_inconclusive() {
        let store = by_name("durable").unwrap();
        let mut b = ExploreBound::small(2, 1);
        b.reductions.state_cache = true;
        b.reductions.per_tab = true;
        b.reductions.symmetry = false;
        let budget = Duration::from_secs(2);
        let time = TimeLimit::from_now(budget);
        b.limits = Limits {
            time: Some(time),
            ..Limits::default()
        };
        let mut first_tab_done_in_time = None;
        let r = explore(&store, &b, &mut |p| {
            if p.tab == Some(1) {
                first_tab_done_in_time.get_or_insert(Instant::now() < time.deadline);
                while Instant::now() < time.deadline {
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        });
        assert_eq!(
            first_tab_done_in_time,
            Some(true),
            "the premise: c0's search ends before the deadline, c1's reports progress"
        );
        assert!(!r.verified(), "{r:?}");
        assert!(r.counterexample.is_none());
        assert!(
            r.limit_hit
                .as_deref()
                .is_some_and(|l| l.starts_with("--time 2s reached")),
            "{:?}",
            r.limit_hit
        );
        assert!(
            r.scope
                .starts_with("per tab: c0, c1 (stopped by the limit)"),
            "{}",
            r.scope
        );
        // The same search without the wait is a verification: the limit made the difference.
        let mut free = b.clone();
        free.limits = Limits::default();
        assert!(explore(&store, &free, &mut |_| {}).verified());
    }
}
