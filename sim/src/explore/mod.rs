//! `explore`: bounded exhaustive search of every schedule of a small world, with sleep-set
//! partial-order reduction (Godefroid, "Partial-Order Methods for the Verification of
//! Concurrent Systems", 1996; the idea behind loom's and shuttle's DFS pruning) and, when
//! every store can expose its state, state caching.
//!
//! The search space: from the initial world, every enabled step, recursively, until no step
//! is enabled (the world is quiescent, so the runner's drain would be empty) and then the
//! convergence check. A schedule ends early at its first violation. `depth_max` bounds the
//! length of a schedule (a schedule cut there is counted as truncated, and the result is
//! not a verification).
//!
//! The search is depth-first, like shuttle's DFS scheduler (or breadth-first on several
//! threads, [`bfs`]); by default one tab is judged at a time with the other tabs reduced to
//! their POSTs, one tab per class of interchangeable tabs ([`scope`]), with persistent sets,
//! and states are named by 64-bit fingerprints of the exact key (the argument below holds
//! for exact keys; with fingerprints it holds unless two of the `n` states collide, at most
//! `n²/2⁶⁵`, see `visited.rs`). `docs/model.md` ("Explore: reductions and their soundness")
//! sums up every reduction's argument. The files:
//!
//! - this one: the public API and the search loop (`search`): take the next step from the
//!   state on top of the stack, judge it, then go deeper, back, or stop.
//! - `independence.rs`: which steps commute ([`independent`]), the relation the sleep sets
//!   rest on.
//! - `frame.rs`: the stack of states on the current path with their sleep sets, and how
//!   the search comes back to a state after a backtrack: from a copy of the world taken
//!   there ([`World::try_clone`]) when every store can copy itself
//!   ([`crate::model::store::Store::clone_box`]), else by replaying the path from the
//!   start. Either way the same states are reached.
//! - `state_key.rs`: exact state keys ([`state_key`], hash-consed as `StateIds`).
//! - `cache.rs`: the state cache, its one decision per arrival (`Cache::visit`) and what
//!   a backtrack writes back (`Cache::leave`).
//! - `dfs.rs`, `bfs.rs`: the two engines; `scope.rs`: the per-tab abstraction, symmetry
//!   and persistent sets; `shard.rs`: `--shard`; `merge.rs`: result files and their merge;
//!   `limits.rs`: `--max-states`, `--max-memory`, `--time`.
//!
//! # State caching, and why it is sound with sleep sets
//!
//! **Equal keys, equal futures.** A render does not capture a store's internal state
//! (pending reconciles, in-flight fetches, queued ids), so states are never merged by
//! render: [`observable_fingerprint`] (the observable state) is a statistic only. Merging uses the
//! **full state key** ([`state_key`]): the world's own state ([`World::hash_shared_state`],
//! [`World::hash_client_state`]: backend, every client's queues, user budgets and the
//! ground-truth facts the oracle reads) and every store's complete internal state
//! ([`crate::model::store::Store::hash_state`]). The key is exact, not a hash: the bytes
//! the state's `Hash` implementations feed, recorded verbatim (`Hash` streams are
//! injective), so two states share a key only if they are equal, and no collision bound
//! is needed. Hash-consing the keys to keep millions in memory (`StateIds`) keeps them
//! exact. Equal states have the same enabled steps, the same effects, the same oracle
//! verdicts. A store that cannot expose its state (`hash_state` returns false, e.g. an
//! exec store) turns caching off for the whole search ([`StateCache::Unsupported`]),
//! which is then the stateless search.
//!
//! **Pruning that respects sleep sets.** Plain "seen, so prune" is unsound together with
//! sleep sets (a state first explored with a large sleep set skipped steps a later visit
//! with a smaller sleep set must take). The cache therefore follows Godefroid (1996), ch.
//! 6, "state-space caching and sleep sets", extended with a depth budget. For each state
//! `s` it stores `(Z, b)`: the sleep set `s` was explored with and the budget `b` of that
//! exploration (how many further steps it was allowed; unbounded when nothing below `s`
//! was cut at `depth_max` or ended in a violation). Invariant: *every schedule suffix from
//! `s` of at most `b` steps whose first step is not in `Z` is covered* (explored, or
//! equivalent by commuting independent steps to an explored one, which is what a sleep
//! set guarantees), with every violation on it recorded. Because the key determines the
//! future, "covered from `s`" does not depend on the path that reached `s`. Reaching `s`
//! again with sleep set `Z'` and `r` steps left, the stateless search would explore the
//! suffixes of at most `r` steps not starting in `Z'`; so (`Cache::visit`):
//!
//! - `b ≥ r` and `Z ⊆ Z'`: all covered. **Pruned.**
//! - `b ≥ r` and `Z ⊄ Z'`: only suffixes starting with a step of `Z \ Z'` are uncovered:
//!   explore just those, then store `Z ∩ Z'` with budget `min(b, b_new)`.
//! - `b < r` (first reached deeper, so its exploration was cut shorter) or `s` is still
//!   being explored: explored as if new, storing `Z'`.
//!
//! **What the cache never skips.** The oracle's step check depends on the step as well as
//! the state, so it runs on every arrival, before the cache is consulted: the cache only
//! ever skips steps *out of* a state already searched. In `shortest` mode `depth_max`
//! shrinks after each counterexample; a violation below `s` makes `b` finite (`depth_max −
//! depth` at the end of `s`'s exploration, smaller than the violation's distance from `s`),
//! so when `s` is reached again closer to the root, where that violation would make a
//! shorter counterexample, `b < r` and `s` is searched again. Truncation works the same
//! way: a state cut at `depth_max` never counts as fully explored for a visit with more
//! budget.

pub mod engine;
mod limits;
pub mod merge;
pub mod reduction;
pub mod shard;
pub mod state;

use serde::{Deserialize, Serialize};

use crate::model::config::WorldConfig;
use crate::model::step::Step;
use crate::model::store::StoreFactory;
#[cfg(doc)]
use crate::model::world::World;
use crate::oracle::Violation;

use engine::{bfs, dfs};
pub use limits::{resident_bytes, TimeLimit};
pub use merge::{
    merge_explore_results, ExploreConfig, ExploreOutcome, ExploreResult, Shards, FORMAT,
    FORMAT_VERSION, KIND,
};
pub use reduction::independence::independent;
use reduction::scope::{self, Scope};
pub use shard::{Covered, Shard};
pub use state::fingerprint::observable_fingerprint;
pub use state::key::{state_key, KeyWriter};
pub use state::visited::collision_bound;

/// What to search: the world and the limits of the search, so that a caller (the CLI,
/// `bench`, tests) states a bound once and the report can name it.
#[derive(Clone, Debug)]
pub struct ExploreBound {
    /// The world. `steps_max` and `drain_steps_max` are ignored: schedules run to
    /// quiescence, bounded by `depth_max`.
    pub config: WorldConfig,
    /// The longest schedule explored; longer ones are cut and counted as truncated.
    pub depth_max: usize,
    /// Sleep-set reduction on (off: plain enumeration of every interleaving).
    pub reduction: bool,
    /// Keep searching after a violation for a shorter one (only shorter schedules are
    /// explored from then on). Off: stop at the first.
    pub shortest: bool,
    /// Merge equal full states (see the module doc), when every store supports it. Off in
    /// [`ExploreBound::small`], so that schedule counts keep meaning "schedules of the
    /// stateless search"; the CLI turns it on.
    pub state_cache: bool,
    /// Judge one tab at a time, the other tabs reduced to their POSTs (see [`scope`]);
    /// with [`ExploreBound::symmetry`], one tab per class of interchangeable tabs. Off in
    /// [`ExploreBound::small`]; the CLI turns it on.
    pub per_tab: bool,
    /// With `per_tab`: search one tab of each class of interchangeable tabs only.
    pub symmetry: bool,
    /// Name states in the cache by their exact keys (hash-consed, some 130 bytes a state)
    /// instead of 64-bit fingerprints (no collision bound to argue; depth-first only).
    pub exact_keys: bool,
    /// With `per_tab`: take only the judged tab's steps where they form a persistent set
    /// ([`scope::Scope::persistent_set`]).
    pub persistent: bool,
    /// With `persistent`: where the judged tab's steps form no persistent set, take only
    /// the backend's agent steps and the other tabs' sends when they form one
    /// ([`scope::Scope::persistent_set`]). It may meet a violation later than its shortest
    /// length, so [`explore`] searches again without it when it meets one.
    pub backend_first: bool,
    /// With `per_tab`, depth-first: never deliver the judged tab's POST responses when
    /// its store ignores them (checked), judging instead at every state the verdict after
    /// one ([`scope::PostResponses::Inert`]).
    pub inert_post_responses: bool,
    /// Which search: depth-first with sleep sets (and the exact-key cache when
    /// `state_cache`), or breadth-first over fingerprints on `jobs` threads.
    pub engine: Engine,
    /// Stop (inconclusive) once more distinct states than this were reached.
    pub max_states: Option<u64>,
    /// Stop (inconclusive) once the process's resident memory exceeds this many bytes.
    pub max_memory: Option<u64>,
    /// Stop (inconclusive) at this deadline.
    pub time_limit: Option<TimeLimit>,
    /// Search only this shard of the search tree ([`shard`]).
    pub shard: Option<Shard>,
    /// Threads of the depth-first search (at least 1): more than one share one state
    /// cache and split the tree into units (`dfs.rs`, `search_on_threads`); the verdict
    /// and the counterexample do not depend on it, the counts do. Not with a shard or
    /// exact keys (then one thread).
    pub jobs: usize,
}

/// The search algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// Depth-first, one thread, sleep sets; with the state cache, Godefroid's sleep-set
    /// aware cache over exact keys (see the module doc). Works for every store.
    #[default]
    DepthFirst,
    /// Breadth-first over 64-bit fingerprints of the full state, on `jobs` threads (see
    /// [`bfs`]). Needs stores that expose and copy their state; otherwise the depth-first
    /// search runs instead.
    BreadthFirst {
        /// Worker threads (at least 1). The result does not depend on it.
        jobs: usize,
    },
}

impl ExploreBound {
    /// A small world: `clients` tabs, each sending `sends_per_client`, no failures,
    /// in-order WebSocket, status sent on connect. Stateless search. The starting point
    /// every caller adjusts.
    pub fn small(clients: u8, sends_per_client: u8) -> ExploreBound {
        ExploreBound {
            config: WorldConfig {
                clients,
                passive_observer: false,
                sends_per_client,
                scrolls_per_client: 0,
                deltas_per_segment_max: 1,
                tool_calls_per_turn_max: 0,
                turn_failures: false,
                ws_reorder_window: 1,
                ws_overtakes_max: None,
                status_on_connect: true,
                message_texts: crate::model::content::MessageTexts::Tokens,
                continuation_drains: false,
                consume_reasons: false,
                queued_texts: false,
                server_ids: false,
                deltas_without_turn_ids: false,
                judged: crate::model::judged::Judged::ALL,
                steps_max: 0,
                drain_steps_max: 0,
            },
            depth_max: 200,
            reduction: true,
            shortest: true,
            state_cache: false,
            per_tab: false,
            symmetry: false,
            exact_keys: false,
            persistent: false,
            backend_first: false,
            inert_post_responses: false,
            engine: Engine::DepthFirst,
            max_states: None,
            max_memory: None,
            time_limit: None,
            shard: None,
            jobs: 1,
        }
    }

    /// One line naming the search (not the world): what results must agree on to merge.
    pub fn describe_search(&self) -> String {
        format!(
            "depth_max={} shortest={} reduction={} state_cache={} per_tab={} symmetry={} persistent={} backend_first={} inert_post_responses={} exact_keys={} engine={}",
            self.depth_max,
            self.shortest,
            self.reduction,
            self.state_cache,
            self.per_tab,
            self.symmetry,
            self.persistent,
            self.backend_first,
            self.inert_post_responses,
            self.exact_keys,
            match self.engine {
                Engine::DepthFirst => "depth-first",
                Engine::BreadthFirst { .. } => "breadth-first",
            }
        )
    }

    /// One line naming the bound, so that a report says what it verified. A bound on
    /// overtaking and colliding message texts are named only when present.
    pub fn describe(&self) -> String {
        let c = &self.config;
        let overtakes = c
            .ws_overtakes_max
            .map(|m| format!(" overtakes={m}"))
            .unwrap_or_default();
        let texts = match c.message_texts {
            crate::model::content::MessageTexts::Tokens => "",
            crate::model::content::MessageTexts::Colliding => " message_texts=colliding",
        };
        format!(
            "clients={} passive_observer={} sends_per_client={} scrolls={} deltas={} tool_calls={} failures={} window={}{overtakes} status_on_connect={}{texts} depth_max={}",
            c.clients,
            c.passive_observer,
            c.sends_per_client,
            c.scrolls_per_client,
            c.deltas_per_segment_max,
            c.tool_calls_per_turn_max,
            c.turn_failures,
            c.ws_reorder_window,
            c.status_on_connect,
            self.depth_max
        )
    }
}

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
    /// (see [`scope`]): why, and the whole world was searched instead.
    #[serde(default)]
    pub per_tab_refused: Option<String>,
    /// The per-tab search skipped the judged tab's POST responses but its store did not
    /// ignore one (H2, see [`scope`]): why, and the search ran again with them delivered.
    #[serde(default)]
    pub post_responses_refused: Option<String>,
    /// The limit (`--max-states`, `--max-memory`) that stopped the search: the result is
    /// inconclusive.
    #[serde(default)]
    pub limit_hit: Option<String>,
    /// Per-tab search: the shortest abstract schedule that ended in a convergence
    /// violation, if any. Such a violation's real schedule also holds the other tabs' own
    /// work, so its real length is not known to be the shortest; [`explore`] then checks
    /// the whole world below it (see [`ExploreReport::shortest_check`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_convergence_at: Option<usize>,
    /// What [`explore`] did to make sure a per-tab counterexample is the shortest, when a
    /// per-tab convergence violation left it in doubt: the whole world searched to the
    /// depth below it, and what that found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shortest_check: Option<String>,
    /// With [`ExploreBound::backend_first`]: the length of the counterexample the search
    /// with backend-first sets found before [`explore`] searched again without them for
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
    fn empty(bound: &ExploreBound, state_cache: StateCache) -> ExploreReport {
        ExploreReport {
            bound: bound.describe(),
            reduction: bound.reduction,
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
            engine: bound.engine,
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

    /// A store broke a premise of the per-tab search: the search stops, and [`explore`]
    /// searches again without the premise.
    fn refuse(&mut self, breach: scope::Unfaithful) {
        match breach {
            scope::Unfaithful::Posts(why) => self.per_tab_refused = Some(why),
            scope::Unfaithful::ReadsPostResponses(why) => self.post_responses_refused = Some(why),
        }
    }

    /// Whether a store broke a premise of the per-tab search (see [`ExploreReport::refuse`]).
    fn refused(&self) -> bool {
        self.per_tab_refused.is_some() || self.post_responses_refused.is_some()
    }

    /// A per-tab search met a convergence violation after `len` abstract steps.
    fn note_tab_convergence(&mut self, len: usize) {
        self.tab_convergence_at = Some(self.tab_convergence_at.map_or(len, |l| l.min(len)));
    }

    /// True when the whole bounded space was searched and nothing broke: the claim a
    /// report can make about the bound.
    pub fn verified(&self) -> bool {
        self.counterexample.is_none() && self.truncated == 0 && self.limit_hit.is_none()
    }

    /// Keeps `steps` as the counterexample when it is the first or a shorter one.
    fn record(&mut self, steps: Vec<Step>, violation: Violation) {
        if self
            .counterexample
            .as_ref()
            .is_none_or(|c| steps.len() < c.steps.len())
        {
            self.counterexample = Some(Counterexample { steps, violation });
        }
    }
}

/// Progress, for a bar: a long search shows how far it got.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
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

/// Why `explore` cannot search a world of `config`, if it cannot: its reductions rest on
/// premises a world option breaks. With `continuation_drains` a POST is handled while a
/// turn finishes and the seal may write the DB (the continuation turn's first row), which
/// the independence relation (`agent-seal` commutes with `serve-fetch`) and the
/// backend-first sets (`handle-post` is disabled while the turn is written) assume
/// away; searching such a world needs both revised and re-proved, so it is refused rather
/// than searched unsoundly. The fuzzers cover it.
pub fn world_refusal(config: &WorldConfig) -> Option<String> {
    config.continuation_drains.then(|| {
        "explore does not search worlds with continuation_drains = true: its reductions assume a POST waits while a turn finishes (the fuzzers cover those worlds: fuzz --world continuation_drains=true)".to_string()
    })
}

/// Search every schedule within `bound`: what the CLI's `explore` and `bench` report, a
/// verification of the bound or its shortest counterexample. `progress` is called every
/// few thousand schedules (depth-first) or a few times a second (breadth-first), for a bar.
///
/// With [`ExploreBound::per_tab`], each tab to search ([`scope::tabs_to_search`]) gets a
/// search of its own, one after the other, and the report adds them up: the counts are
/// sums, the counterexample is the shortest (the first tab's on a tie). If a store breaks
/// the per-tab premise, the whole world is searched instead and the report says why.
///
/// With [`ExploreBound::backend_first`], a search that meets a violation runs again
/// without it, so that the counterexample is the shortest (see
/// [`scope::Scope::persistent_set`]); `backend_first_found` keeps the length the first
/// search met.
pub fn explore(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    progress: &mut dyn FnMut(Progress),
) -> ExploreReport {
    let report = explore_responses(stores, bound, progress);
    let found = match &report.counterexample {
        // Only a per-tab search has these sets, and `--first` asks for no shortest.
        Some(c)
            if bound.backend_first
                && bound.per_tab
                && bound.persistent
                && bound.shortest
                && report.per_tab_refused.is_none() =>
        {
            c.steps.len()
        }
        _ => return report,
    };
    let mut without = bound.clone();
    without.backend_first = false;
    let mut report = explore_responses(stores, &without, progress);
    report.backend_first_found = Some(found);
    report
}

/// [`explore`] without the second search for the shortest counterexample: the per-tab
/// searches, and again with POST responses delivered if a store did not ignore one.
fn explore_responses(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    progress: &mut dyn FnMut(Progress),
) -> ExploreReport {
    let report = explore_tabs(stores, bound, progress);
    let Some(why) = report.post_responses_refused else {
        return report;
    };
    let mut delivering = bound.clone();
    delivering.inert_post_responses = false;
    let mut report = explore_tabs(stores, &delivering, progress);
    report.post_responses_refused = Some(why);
    report
}

/// [`explore`] with the bound's reductions as asked; stops early, with
/// `post_responses_refused` set, when a store does not ignore its POST responses.
fn explore_tabs(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    progress: &mut dyn FnMut(Progress),
) -> ExploreReport {
    if !bound.per_tab {
        return search_scope(stores, bound, Scope::Whole, progress);
    }
    let tabs = if bound.symmetry {
        scope::tabs_to_search(&bound.config, stores)
    } else {
        (0..bound.config.clients).collect()
    };
    let mut total: Option<ExploreReport> = None;
    let mut searched: Vec<String> = Vec::new();
    let mut inert = false;
    for &c in &tabs {
        let responses = scope::post_responses(stores, bound, c);
        inert |= responses == scope::PostResponses::Inert;
        let r = search_scope(stores, bound, Scope::Tab(c, responses), progress);
        if r.post_responses_refused.is_some() {
            return r;
        }
        if let Some(why) = r.per_tab_refused {
            let mut whole = search_scope(stores, bound, Scope::Whole, progress);
            whole.per_tab_refused = Some(why);
            return whole;
        }
        let stop = r.limit_hit.is_some() || (r.counterexample.is_some() && !bound.shortest);
        searched.push(match &r.limit_hit {
            Some(_) => format!("c{c} (stopped by the limit)"),
            None => format!("c{c}"),
        });
        total = Some(match total {
            None => r,
            Some(t) => t.add(r),
        });
        if stop {
            break;
        }
    }
    let mut total = total.expect("at least one tab");
    shortest_check(stores, bound, &mut total, progress);
    let not_searched: Vec<String> = tabs
        .iter()
        .skip(searched.len())
        .map(|c| format!("c{c}"))
        .collect();
    let others: Vec<String> = (0..bound.config.clients)
        .filter(|c| !tabs.contains(c))
        .map(|c| format!("c{c}"))
        .collect();
    let mut scope = format!("per tab: {}", searched.join(", "));
    if !not_searched.is_empty() {
        scope.push_str(&format!("; {} not searched", not_searched.join(", ")));
    }
    if !others.is_empty() {
        scope.push_str(&format!("; {} by symmetry", others.join(", ")));
    }
    if inert {
        scope.push_str("; its own POST responses inert");
    }
    total.scope = scope;
    total
}

/// Makes a per-tab counterexample the shortest one when a per-tab convergence violation
/// left that in doubt. The per-tab search finds the shortest *step* violation exactly (see
/// [`scope`]), but a convergence violation it meets after `a` abstract steps takes `a` plus
/// the other tabs' own work in the real world, which depends on their stores. So when a
/// convergence violation was met after fewer abstract steps than the counterexample kept
/// has real ones, the whole world is searched up to one step less than that (same engine,
/// same limits): what it finds is shorter and replaces it; if it finds nothing, the kept
/// one is the shortest. A limit hit there leaves the length unconfirmed, and says so.
fn shortest_check(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    total: &mut ExploreReport,
    progress: &mut dyn FnMut(Progress),
) {
    let (Some(at), Some(c)) = (total.tab_convergence_at, &total.counterexample) else {
        return;
    };
    let len = c.steps.len();
    if !bound.shortest || at >= len || total.limit_hit.is_some() {
        return;
    }
    let mut whole = bound.clone();
    whole.depth_max = len - 1;
    // Every shard's part of the whole world: so that the length this shard keeps is the
    // shortest of the whole bound, and the merge's minimum over shards is exact.
    whole.shard = None;
    let r = search_scope(stores, &whole, Scope::Whole, progress);
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

/// One search of `scope` with the engine `bound` asks for (depth-first when the stores do
/// not support the breadth-first one).
fn search_scope(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    scope: Scope,
    progress: &mut dyn FnMut(Progress),
) -> ExploreReport {
    match bound.engine {
        Engine::BreadthFirst { jobs } if bfs::supported(stores, bound, scope) => {
            bfs::search(stores, bound, scope, jobs, progress)
        }
        _ => {
            let mut b = bound.clone();
            b.engine = Engine::DepthFirst;
            dfs::search(stores, &b, scope, progress, None)
        }
    }
}

/// The depth-first search of the whole world, calling `on_arrival` at every arrival (tests).
#[cfg(test)]
fn search(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    progress: &mut dyn FnMut(Progress),
    on_arrival: Option<dfs::ArrivalHook<'_>>,
) -> ExploreReport {
    dfs::search(stores, bound, Scope::Whole, progress, on_arrival)
}

impl ExploreReport {
    /// Two tabs' searches as one report: counts added, the shorter counterexample kept
    /// (`self`'s on a tie), the first limit hit kept.
    fn add(mut self, o: ExploreReport) -> ExploreReport {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Invariant;
    use crate::store::by_name;

    /// A report names every option that changes what a bound verifies: a bound on
    /// overtaking and colliding texts appear when set (and only then, so the lines of
    /// every other bound read as before).
    #[test]
    fn the_bound_line_names_overtaking_and_colliding_texts_when_set() {
        let mut b = ExploreBound::small(2, 1);
        let plain = b.describe();
        assert!(
            !plain.contains("overtakes") && !plain.contains("message_texts"),
            "{plain}"
        );
        b.config.ws_reorder_window = 2;
        b.config.ws_overtakes_max = Some(1);
        b.config.message_texts = crate::model::content::MessageTexts::Colliding;
        let line = b.describe();
        assert!(
            line.contains(" window=2 overtakes=1 status_on_connect=true message_texts=colliding depth_max=200"),
            "{line}"
        );
    }

    /// Two tabs, nobody sends, each scrolls up and down once; `status_on_connect` puts
    /// one `status idle` in each inbox. Per client the three steps (deliver, up, down)
    /// have 3 orders (the delivery goes before, between or after the scrolls) and the
    /// two clients' 3-step sequences interleave in C(6,3) = 20 ways: 3·3·20 = 180
    /// schedules. Steps of different clients commute, so the reduced search runs one
    /// schedule per pair of per-client orders: 3·3 = 9.
    fn scroll_only() -> ExploreBound {
        let mut b = ExploreBound::small(2, 0);
        b.config.scrolls_per_client = 1;
        b
    }

    #[test]
    fn tiny_bound_schedule_counts_match_hand_computed_numbers() {
        let store = by_name("current").unwrap();
        let mut plain = scroll_only();
        plain.reduction = false;
        let p = explore(&store, &plain, &mut |_| {});
        assert_eq!(p.state_cache, StateCache::Off);
        assert_eq!(p.schedules, 180);
        assert!(p.verified());
        let r = explore(&store, &scroll_only(), &mut |_| {});
        assert_eq!(r.schedules, 9);
        assert!(r.verified());
        // Same states either way: the reduction drops schedules, not states.
        assert_eq!(p.distinct_states, r.distinct_states);
        // With the cache, each full state is searched once: per client the store ends in
        // the same state whatever the order of its three steps, so the 3·3 reduced
        // schedules end in one quiescent state (one schedule) and the rest are revisits.
        for mut b in [plain, scroll_only()] {
            b.state_cache = true;
            let c = explore(&store, &b, &mut |_| {});
            assert_eq!(c.state_cache, StateCache::On);
            assert!(c.verified());
            assert_eq!(c.schedules, 1);
            assert!(c.revisits_pruned > 0);
            assert_eq!(c.distinct_states, r.distinct_states);
        }
    }

    /// A store that keeps its state to itself (like an exec store): `hash_state` is the
    /// trait's default.
    struct Opaque(Box<dyn crate::model::store::Store>);
    impl crate::model::store::Store for Opaque {
        fn handle(&mut self, input: &crate::model::wire::Input) -> crate::model::store::Answer {
            self.0.handle(input)
        }
        fn render(&self) -> &[crate::model::wire::RenderRow] {
            self.0.render()
        }
    }
    struct OpaqueFactory;
    impl StoreFactory for OpaqueFactory {
        fn name(&self) -> String {
            "opaque-current".into()
        }
        fn make(&self, c: crate::model::wire::ClientId) -> Box<dyn crate::model::store::Store> {
            Box::new(Opaque(by_name("current").unwrap().make(c)))
        }
    }

    #[test]
    fn a_store_that_cannot_expose_its_state_gets_the_stateless_search() {
        let mut b = ExploreBound::small(2, 1);
        b.config.passive_observer = true;
        let stateless = explore(&OpaqueFactory, &b, &mut |_| {});
        b.state_cache = true;
        let asked = explore(&OpaqueFactory, &b, &mut |_| {});
        assert_eq!(asked.state_cache, StateCache::Unsupported);
        assert_eq!(asked.states_cached, 0);
        assert_eq!(
            ExploreReport {
                state_cache: StateCache::Off,
                ..asked
            },
            stateless
        );
        // The same store, able to say its state, is searched with the cache.
        let cached = explore(&by_name("current").unwrap(), &b, &mut |_| {});
        assert_eq!(cached.state_cache, StateCache::On);
    }

    #[test]
    fn explore_finds_the_note_bugs_in_small_bounds_and_verifies_durable() {
        // (store, sends per client, scrolls, expected invariant of the shortest failure)
        let cases = [
            // A stale fetch response overwrites a newer one: none of the note's stores
            // guard against it (inv3 on the observer tab).
            ("naive", 2, 0, Invariant::NewerTurnPreserved),
            ("current", 2, 0, Invariant::NewerTurnPreserved),
            ("membership", 2, 0, Invariant::NewerTurnPreserved),
            ("canary", 1, 0, Invariant::NoDuplicate),
        ];
        for (name, sends, scrolls, inv) in cases {
            let store = by_name(name).unwrap();
            let mut b = ExploreBound::small(2, sends);
            b.config.passive_observer = true;
            b.config.scrolls_per_client = scrolls;
            b.shortest = false;
            let r = explore(&store, &b, &mut |_| {});
            let c = r
                .counterexample
                .unwrap_or_else(|| panic!("{name} not caught"));
            assert_eq!(c.violation.invariant, inv, "{name}");
            // The counterexample replays to the same violation.
            let replayed = crate::run::replay(&store, b.config.clone(), &c.steps);
            assert!(matches!(replayed.outcome, crate::run::Outcome::Fail(_)));
        }
        let store = by_name("durable").unwrap();
        let mut b = ExploreBound::small(2, 1);
        b.config.passive_observer = true;
        let r = explore(&store, &b, &mut |_| {});
        assert!(r.verified(), "{:?}", r.counterexample);
    }
}

#[cfg(test)]
mod soundness_tests;
