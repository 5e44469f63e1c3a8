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
//! The search is depth-first, like shuttle's DFS scheduler. The files:
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
//!
//! # State caching, and why it is sound with sleep sets
//!
//! **Equal keys, equal futures.** A render does not capture a store's internal state
//! (pending reconciles, in-flight fetches, queued ids), so states are never merged by
//! render: [`fingerprint`] (the observable state) is a statistic only. Merging uses the
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
#![allow(missing_docs)]

mod cache;
mod frame;
mod independence;
mod state_key;

use rustc_hash::FxHashSet;

use serde::{Deserialize, Serialize};

use crate::model::config::WorldConfig;
use crate::model::step::Step;
use crate::model::store::StoreFactory;
use crate::model::world::World;
use crate::oracle::{check_converged, Violation};
use crate::run::judge_step;

use cache::{steps_left, Cache, CacheSlot, Visit};
use frame::{fraction_done, mask_of, path, select, sleep_here, Frame, MASK_STEPS};
pub use independence::independent;
use state_key::StateIds;
pub use state_key::{fingerprint, state_key, KeyWriter};

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
                status_on_connect: true,
                message_texts: crate::model::content::MessageTexts::Tokens,
                steps_max: 0,
                drain_steps_max: 0,
            },
            depth_max: 200,
            reduction: true,
            shortest: true,
            state_cache: false,
        }
    }

    /// One line naming the bound, so that a report says what it verified.
    pub fn describe(&self) -> String {
        let c = &self.config;
        format!(
            "clients={} passive_observer={} sends_per_client={} scrolls={} deltas={} tool_calls={} failures={} window={} status_on_connect={} depth_max={}",
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
    /// Distinct fingerprints of the observable state visited (backend, network, user
    /// facts and every render). A statistic only: never used for pruning.
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
            counterexample: None,
        }
    }

    /// True when the whole bounded space was searched and nothing broke: the claim a
    /// report can make about the bound.
    pub fn verified(&self) -> bool {
        self.counterexample.is_none() && self.truncated == 0
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
    /// The share of the search tree finished, assuming equal subtrees per choice.
    pub fraction_done: f64,
    /// Complete schedules so far.
    pub schedules: u64,
}

/// Search every schedule within `bound`: what the CLI's `explore` and `bench` report, a
/// verification of the bound or its shortest counterexample. `progress` is called every
/// few thousand schedules, for a bar.
pub fn explore(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    progress: &mut dyn FnMut(Progress),
) -> ExploreReport {
    search(stores, bound, progress, None)
}

/// Called with the world and the path to it on every arrival at a state (tests).
type ArrivalHook<'a> = &'a mut dyn FnMut(&World, &[Step]);

/// The search loop: take the next step from the state on top of the stack (backtracking
/// out of the states with nothing left), come back to that state if a backtrack left it,
/// then judge the step and go deeper, back, or stop.
fn search(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    progress: &mut dyn FnMut(Progress),
    on_arrival: Option<ArrivalHook<'_>>,
) -> ExploreReport {
    let mut s = Search::new(stores, bound, on_arrival);
    if s.enabled.is_empty() {
        return s.quiescent_root();
    }
    s.push_root();
    while let Some((step, sleep)) = s.next_step() {
        s.come_back();
        match s.arrive(step, sleep) {
            Next::Descend { todo, sleep, cache } => s.descend(todo, sleep, cache),
            Next::Back { complete } => s.back(complete),
            Next::Stop => break,
        }
        s.report_progress(progress);
    }
    s.finish()
}

/// Where the search goes after arriving at a state.
enum Next {
    /// Search on from the state: the steps `todo`, with sleep set `sleep`; `cache`:
    /// where to write back what was covered, when the state is cached.
    Descend {
        todo: Vec<Step>,
        sleep: Vec<Step>,
        cache: Option<CacheSlot>,
    },
    /// Back to the parent. `complete`: everything below was covered without a cut or a
    /// violation.
    Back { complete: bool },
    /// A violation, in first-counterexample mode: the search is over.
    Stop,
}

/// One search in progress.
struct Search<'a, 'h> {
    stores: &'a dyn StoreFactory,
    bound: &'a ExploreBound,
    /// `bound.depth_max`, shrunk after each counterexample in `shortest` mode.
    depth_max: usize,
    /// The counts so far.
    report: ExploreReport,
    /// Fingerprints of the observable states reached (counted, never iterated).
    observed: FxHashSet<u64>,
    /// The state cache is on.
    caching: bool,
    /// Numbers the full states by their exact keys.
    ids: StateIds,
    cache: Cache,
    /// The world in the state the search is at.
    world: World,
    /// The steps enabled in `world`, once judged.
    enabled: Vec<Step>,
    /// One frame per state on the current path, the root first.
    frames: Vec<Frame>,
    /// `world` is no longer in the top frame's state (after a backtrack).
    dirty: bool,
    /// The stores can copy themselves: frames keep copies of the world to come back to.
    copying: bool,
    /// `schedules + revisits_pruned` at the last progress call.
    last_progress: u64,
    on_arrival: Option<ArrivalHook<'h>>,
}

impl<'a, 'h> Search<'a, 'h> {
    /// The initial world, judged as an arrival: its fingerprint, its enabled steps, and
    /// whether the cache can be on.
    fn new(
        stores: &'a dyn StoreFactory,
        bound: &'a ExploreBound,
        on_arrival: Option<ArrivalHook<'h>>,
    ) -> Search<'a, 'h> {
        let world = World::new(bound.config.clone(), stores);
        let mut ids = StateIds::default();
        let state_cache = match bound.state_cache {
            false => StateCache::Off,
            true if ids.id(&world).is_some() => StateCache::On,
            true => StateCache::Unsupported,
        };
        let mut s = Search {
            stores,
            bound,
            depth_max: bound.depth_max,
            report: ExploreReport::empty(bound, state_cache),
            observed: FxHashSet::default(),
            caching: state_cache == StateCache::On,
            ids,
            cache: Cache::default(),
            world,
            enabled: Vec::new(),
            frames: Vec::new(),
            dirty: false,
            copying: false,
            last_progress: 0,
            on_arrival,
        };
        s.observed.insert(fingerprint(&s.world));
        if let Some(hook) = s.on_arrival.as_mut() {
            hook(&s.world, &[]);
        }
        s.world.enabled_steps(&mut s.enabled);
        s
    }

    /// The initial world has no step: its only schedule is the empty one.
    fn quiescent_root(mut self) -> ExploreReport {
        self.report.schedules = 1;
        if let Some(violation) = check_converged(&self.world, 0) {
            self.report.counterexample = Some(Counterexample {
                steps: Vec::new(),
                violation,
            });
        }
        self.report.distinct_states = 1;
        self.report
    }

    /// The initial world as the first frame. Its copy is always taken: whether it can be
    /// says whether the stores can copy themselves.
    fn push_root(&mut self) {
        let Next::Descend { todo, sleep, cache } = self.expand(0, Vec::new()) else {
            unreachable!("nothing is asleep at the root, and it has steps")
        };
        let mut root = Frame::new(0, todo, sleep, cache);
        root.snapshot = self.world.try_clone();
        self.copying = root.snapshot.is_some();
        self.frames.push(root);
    }

    /// The next step to take, from the deepest state with one left, and the sleep set it
    /// passes on. Backtracks out of the states with none left, writing back to the cache
    /// what their search covered. `None` when the search is over.
    fn next_step(&mut self) -> Option<(Step, Vec<Step>)> {
        loop {
            let top = self.frames.last_mut()?;
            if let Some(next) = top.take_next(self.depth_max, self.bound.reduction) {
                return Some(next);
            }
            let done = self.frames.pop().expect("non-empty");
            self.dirty = true;
            let complete = done.searched_in_full();
            if let Some(slot) = done.cache {
                self.cache.leave(slot, complete, self.depth_max, done.depth);
            }
            if let Some(parent) = self.frames.last_mut() {
                parent.complete &= complete;
            }
        }
    }

    /// Brings the world back to the top frame's state if a backtrack left it.
    fn come_back(&mut self) {
        if self.dirty {
            let (world, replayed) =
                frame::come_back(&mut self.frames, self.stores, &self.bound.config);
            self.world = world;
            self.report.steps_applied += replayed;
            self.dirty = false;
        }
    }

    /// Takes `step` from the top frame's state and judges the state it leads to, which
    /// inherits the sleep set `sleep`.
    fn arrive(&mut self, step: Step, sleep: Vec<Step>) -> Next {
        let depth = self.frames.len(); // the schedule's length once `step` is applied
        self.report.steps_applied += 1;
        let violation = judge_step(&mut self.world, step, depth - 1, &mut ());
        self.observed.insert(fingerprint(&self.world));
        if let Some(hook) = self.on_arrival.as_mut() {
            hook(&self.world, &path(&self.frames));
        }
        if let Some(violation) = violation {
            return self.violated(violation, depth);
        }
        self.world.enabled_steps(&mut self.enabled);
        if self.enabled.is_empty() {
            self.quiescent(depth)
        } else if depth >= self.depth_max {
            // Cut here: after a counterexample, only strictly shorter schedules matter.
            if self.report.counterexample.is_none() {
                self.report.truncated += 1;
            }
            Next::Back { complete: false }
        } else {
            self.expand(depth, sleep)
        }
    }

    /// The schedule to here broke an invariant: record it, then stop, or (in `shortest`
    /// mode) search on for strictly shorter ones only.
    fn violated(&mut self, violation: Violation, depth: usize) -> Next {
        self.report.schedules += 1;
        self.report.record(path(&self.frames), violation);
        if !self.bound.shortest {
            return Next::Stop;
        }
        self.depth_max = depth - 1;
        Next::Back { complete: false }
    }

    /// A quiescent state: the convergence check ends the schedule, unless the cache has
    /// seen this state end one already.
    fn quiescent(&mut self, depth: usize) -> Next {
        if let Some(violation) = check_converged(&self.world, depth - 1) {
            return self.violated(violation, depth);
        }
        if self
            .key()
            .is_some_and(|key| self.cache.visit_quiescent(key))
        {
            self.report.revisits_pruned += 1;
        } else {
            self.report.schedules += 1;
        }
        Next::Back { complete: true }
    }

    /// A state with steps enabled, `depth` steps from the start, reached with the sleep
    /// set `sleep` passed on: the frame that searches it, with the steps that neither
    /// sleep nor (when cached) were covered by an earlier search of the same state.
    fn expand(&mut self, depth: usize, sleep: Vec<Step>) -> Next {
        let sleep = sleep_here(sleep, &self.enabled);
        let sleep_mask = mask_of(&self.enabled, &sleep);
        let (todo, cache) = match self.key() {
            None => (!sleep_mask, None),
            Some(key) => {
                let remaining = steps_left(self.depth_max, depth);
                match self.cache.visit(key, sleep_mask, remaining) {
                    Visit::Pruned { complete } => {
                        self.report.revisits_pruned += 1;
                        return Next::Back { complete };
                    }
                    Visit::Search {
                        todo,
                        slot,
                        revisit,
                    } => {
                        if revisit {
                            self.report.revisits_partial += 1;
                        }
                        (todo, Some(slot))
                    }
                }
            }
        };
        let todo = select(&self.enabled, todo);
        if todo.is_empty() {
            self.report.sleep_blocked += 1;
            if cache.is_none() {
                return Next::Back { complete: true };
            }
            // A cached state is still pushed, so that leaving it stores it as searched.
        }
        Next::Descend { todo, sleep, cache }
    }

    /// The number of the world's state, when the cache is on and the state fits it (its
    /// sleep set as a mask: at most 64 steps enabled).
    fn key(&mut self) -> Option<u32> {
        if self.caching && self.enabled.len() <= MASK_STEPS {
            self.ids.id(&self.world)
        } else {
            None
        }
    }

    /// Goes on from the state just reached, with a copy of the world to come back to when
    /// more than one step is searched from it.
    fn descend(&mut self, todo: Vec<Step>, sleep: Vec<Step>, cache: Option<CacheSlot>) {
        let copy = self.copying && todo.len() > 1;
        let mut frame = Frame::new(self.frames.len(), todo, sleep, cache);
        if copy {
            frame.snapshot = self.world.try_clone();
        }
        self.frames.push(frame);
    }

    /// Goes back to the parent state, which is incomplete if this arrival was.
    fn back(&mut self, complete: bool) {
        if !complete {
            self.frames.last_mut().expect("parent").complete = false;
        }
        self.dirty = true;
    }

    /// Calls `progress` every 4096 schedules or pruned revisits.
    fn report_progress(&mut self, progress: &mut dyn FnMut(Progress)) {
        let ended = self.report.schedules + self.report.revisits_pruned;
        if ended >= self.last_progress + 4096 {
            self.last_progress = ended;
            progress(Progress {
                fraction_done: fraction_done(&self.frames),
                schedules: self.report.schedules,
            });
        }
    }

    /// The report, with the counts of what was stored.
    fn finish(mut self) -> ExploreReport {
        self.report.distinct_states = self.observed.len() as u64;
        self.report.states_cached = self.cache.len();
        if self.caching {
            self.report.state_key_bytes = self.ids.part_bytes();
            self.report.distinct_full_states = self.ids.states();
        }
        self.report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Invariant;
    use crate::store::by_name;

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
