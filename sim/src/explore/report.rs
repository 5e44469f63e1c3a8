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
