//! The depth-first search: sleep sets (Godefroid 1996, ch. 5) over the declared
//! independence relation, in the per-tab search on top of persistent sets
//! ([`Scope::persistent_set`]), and, when every store can expose its state, the
//! sleep-set-aware state cache (see the module doc of [`crate::explore`]) over 64-bit
//! fingerprints of the full state (or exact keys,
//! [`crate::explore::Reductions::exact_keys`]). One thread, a stack as deep as the longest
//! schedule, and some 40 bytes a state for the cache: the search for bounds whose states do
//! not fit in memory as worlds. It searches one [`Scope`]: the whole world, or one tab with
//! the others reduced to their POSTs.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rustc_hash::FxHashSet;

use crate::model::step::Step;
use crate::model::store::StoreFactory;
use crate::model::world::World;
use crate::oracle::{Invariant, Violation};

use crate::explore::bound::ExploreBound;
use crate::explore::limits::LimitCheck;
use crate::explore::reduction::scope::{InertCheck, Scope};
use crate::explore::report::{Covered, ExploreReport, SearchProgress, StateCache};
use crate::explore::shard;
use crate::explore::state::cache::{steps_left, Cache, Visit, BUDGET_MAX};
use crate::explore::state::fingerprint::{full_state_fingerprint, observable_fingerprint, Buffers};
use crate::explore::state::frame::{self, fraction_done, path, sleep_here, Frame};
use crate::explore::state::key::StateIds;
use crate::explore::state::slot::{mask_of, select, CacheSlot, Verdicts, MASK_STEPS};

/// Called with the world and the path to it on every arrival at a state (tests).
pub(crate) type ArrivalHook<'a> = &'a mut dyn FnMut(&World, &[Step]);

/// The search loop: take the next step from the state on top of the stack (backtracking
/// out of the states with nothing left), come back to that state if a backtrack left it,
/// then judge the step and go deeper, back, or stop.
pub(crate) fn search(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    scope: Scope,
    progress: &mut dyn FnMut(SearchProgress),
    on_arrival: Option<ArrivalHook<'_>>,
) -> ExploreReport {
    if bound.parallelism.jobs > 1 && on_arrival.is_none() {
        if let Some(report) = search_on_threads(stores, bound, scope, progress) {
            return report;
        }
    }
    let cache = Cache::default();
    let mut s = Search::new(stores, bound, scope, on_arrival, &cache);
    if s.enabled.is_empty() {
        return s.quiescent_root();
    }
    // The work units this search covers: the whole tree, or this shard's part of it.
    let (depth, units) = match bound.parallelism.shard {
        Some(shard) => shard::units(stores, bound, scope, shard.count),
        None => (0, vec![Vec::new()]),
    };
    let shard = bound.parallelism.shard;
    let mine: Vec<usize> = (0..units.len())
        .filter(|&u| shard.is_none_or(|sh| sh.owns(u as u64)))
        .collect();
    s.report.covered = Some(Covered {
        prefix_depth: depth,
        units_total: units.len(),
        units: vec![mine.clone()],
    });
    let n = mine.len();
    for (done, u) in mine.into_iter().enumerate() {
        if !s.search_unit(units[u].clone(), done, n, progress, None) {
            break;
        }
    }
    s.finish()
}

/// What the threads of one search share besides the cache.
struct Shared {
    /// The next work unit to take.
    next_unit: AtomicUsize,
    /// A thread stopped the search (a limit, a violation in first-counterexample mode, a
    /// breach of the per-tab premise): the others stop too.
    stop: AtomicBool,
    /// The length of the shortest counterexample found so far by any thread
    /// (`usize::MAX`: none): in `shortest` mode no thread searches as deep as that again.
    shortest: AtomicUsize,
}

/// The depth-first search on `bound.parallelism.jobs` threads sharing one state cache;
/// `None` when it does not apply (a shard, exact keys, a store that cannot expose or copy
/// its state, a root with no step): then the one-thread search runs.
///
/// The tree is cut into work units as for `--shard` ([`shard::units`], here with at least
/// 32 units a thread), and each thread takes the next unit not yet taken and searches
/// below it, exactly as one shard does, but with the one cache of the whole search: a
/// state another thread searched in full is not searched again, and an entry's claim holds
/// whoever wrote it (see [`Cache`]). So, as with shards, the units together cover every
/// schedule, and when the bound has a violation some thread meets one (not necessarily
/// at its shortest length: a thread that relied on another's promise leaves the state to
/// it, and that one may have reached it by a longer path).
///
/// **Deterministic verdict and counterexample.** Which thread meets what first depends on
/// timing, so the counts (states, schedules, steps) vary from run to run, never the
/// verdict: verified or not is a fact about the bound. When a thread finds a
/// counterexample, the one-thread search is run again and its report is the answer: the
/// same counterexample, byte for byte, as `--jobs 1` (a store with a bug is found in
/// seconds; the long searches are the ones that verify). Unless a limit stopped the
/// search: then the counterexample a thread found is reported as it is, rather than lost.
fn search_on_threads(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    scope: Scope,
    progress: &mut dyn FnMut(SearchProgress),
) -> Option<ExploreReport> {
    if bound.parallelism.shard.is_some()
        || bound.reductions.exact_keys
        || !bound.reductions.state_cache
    {
        return None;
    }
    let cache = Cache::default();
    let probe = Search::new(stores, bound, scope, None, &cache);
    if !probe.caching || probe.world.try_clone().is_none() || probe.enabled.is_empty() {
        return None;
    }
    drop(probe);
    let (_, units) = shard::units(stores, bound, scope, bound.parallelism.jobs as u64 * 4);
    let shared = Shared {
        next_unit: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        shortest: AtomicUsize::new(usize::MAX),
    };
    let reports: Vec<ExploreReport> = std::thread::scope(|threads| {
        let helpers: Vec<_> = (1..bound.parallelism.jobs)
            .map(|_| {
                let (cache, units, shared) = (&cache, &units, &shared);
                threads.spawn(move || work(stores, bound, scope, cache, units, shared, &mut |_| {}))
            })
            .collect();
        let mut reports = vec![work(
            stores, bound, scope, &cache, &units, &shared, progress,
        )];
        for h in helpers {
            reports.push(
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        reports
    });
    let mut total = reports
        .into_iter()
        .reduce(ExploreReport::add)
        .expect("one thread at least");
    // After a limit the one-thread search could not get as far again (a `--time` deadline
    // has passed): the counterexample found is kept, real but not canonical, and the
    // report says the search was stopped.
    if total.counterexample.is_some() && !total.refused() && total.limit_hit.is_none() {
        let mut one = bound.clone();
        one.parallelism.jobs = 1;
        return Some(search(stores, &one, scope, progress, None));
    }
    let states = cache.len();
    total.distinct_states = states;
    total.states_cached = states;
    total.distinct_full_states = states;
    total.visited_bytes = cache.bytes();
    total.covered = Some(Covered {
        prefix_depth: 0,
        units_total: 1,
        units: vec![vec![0]],
    });
    Some(total)
}

/// One thread of [`search_on_threads`]: takes units until none is left or the search
/// stops, and returns its own counts.
fn work(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    scope: Scope,
    cache: &Cache,
    units: &[Vec<Step>],
    shared: &Shared,
    progress: &mut dyn FnMut(SearchProgress),
) -> ExploreReport {
    let mut s = Search::new(stores, bound, scope, None, cache);
    while !shared.stop.load(Ordering::Relaxed) {
        let u = shared.next_unit.fetch_add(1, Ordering::Relaxed);
        let Some(unit) = units.get(u) else { break };
        if !s.search_unit(unit.clone(), u, units.len(), progress, Some(shared)) {
            shared.stop.store(true, Ordering::Relaxed);
        }
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
    /// A violation in first-counterexample mode, or the judged tab's store broke the
    /// per-tab abstraction's premise: the search is over.
    Stop,
}

/// One search in progress.
struct Search<'a, 'h> {
    stores: &'a dyn StoreFactory,
    bound: &'a ExploreBound,
    /// What is searched and judged.
    scope: Scope,
    /// `--max-states` / `--max-memory`.
    limits: LimitCheck,
    /// `bound.depth_max`, shrunk after each counterexample in `shortest` mode.
    depth_max: usize,
    /// The counts so far.
    report: ExploreReport,
    /// Fingerprints of the observable states reached (counted, never iterated), in the
    /// stateless search only ([`Search::observe`]).
    observed: FxHashSet<u64>,
    /// The state cache is on.
    caching: bool,
    /// Numbers the full states by their exact keys ([`crate::explore::Reductions::exact_keys`]).
    ids: StateIds,
    /// What H2's check has seen (the inert POST responses of the per-tab search).
    inert: InertCheck,
    /// Fingerprints the full states (the default).
    buf: Buffers,
    /// The state cache, shared by the threads of one search.
    cache: &'a Cache,
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
    /// `steps_applied` when the clock was last read.
    last_progress: u64,
    /// States this search added to the cache: its length when the search has the cache
    /// to itself (one thread, a shard), counted here so that `--max-states` can be
    /// checked after every step without reading the cache's locked tables.
    cached_here: u64,
    /// When `progress` is next called.
    next_progress: std::time::Instant,
    /// The prefix of the unit being searched ([`shard`]): its steps are taken one by one,
    /// with empty sleep sets and no cache.
    prefix: Vec<Step>,
    /// Units searched before this one, of how many.
    units_done: (usize, usize),
    on_arrival: Option<ArrivalHook<'h>>,
}

impl<'a, 'h> Search<'a, 'h> {
    /// The initial world, judged as an arrival: its fingerprint, its enabled steps, and
    /// whether the cache can be on.
    fn new(
        stores: &'a dyn StoreFactory,
        bound: &'a ExploreBound,
        scope: Scope,
        on_arrival: Option<ArrivalHook<'h>>,
        cache: &'a Cache,
    ) -> Search<'a, 'h> {
        let world = scope.world(&bound.world, stores);
        let mut ids = StateIds::default();
        let mut buf = Buffers::default();
        let exposed = if bound.reductions.exact_keys {
            ids.id(&world, scope).is_some()
        } else {
            full_state_fingerprint(&world, scope, &mut buf).is_some()
        };
        let state_cache = match bound.reductions.state_cache {
            false => StateCache::Off,
            true if exposed => StateCache::On,
            true => StateCache::Unsupported,
        };
        let mut s = Search {
            stores,
            bound,
            scope,
            limits: LimitCheck::new(&bound.limits),
            depth_max: bound.depth_max.min(BUDGET_MAX as usize),
            report: ExploreReport::empty(bound, state_cache),
            observed: FxHashSet::default(),
            caching: state_cache == StateCache::On,
            ids,
            inert: InertCheck::default(),
            buf,
            cache,
            world,
            enabled: Vec::new(),
            frames: Vec::new(),
            dirty: false,
            copying: false,
            last_progress: 0,
            cached_here: 0,
            next_progress: std::time::Instant::now(),
            prefix: Vec::new(),
            units_done: (0, 1),
            on_arrival,
        };
        if !s.caching {
            s.observe();
        }
        if let Some(hook) = s.on_arrival.as_mut() {
            hook(&s.world, &[]);
        }
        s.enabled_here();
        s
    }

    /// The steps to search from `world` (a state `frames.len()` steps from the start):
    /// the scope's enabled steps, narrowed to a persistent set when the bound asks for
    /// one. Along a unit's prefix, never a backend-first set: the units are listed without
    /// them (`shard::units`), so that a shard searching its units again without them
    /// walks the same prefixes.
    fn enabled_here(&mut self) {
        self.scope.enabled_steps(&self.world, &mut self.enabled);
        if self.bound.reductions.persistent {
            let on_prefix = self.frames.len() < self.prefix.len();
            let backend_first = self.bound.reductions.backend_first && !on_prefix;
            self.scope
                .persistent_set(&self.world, &mut self.enabled, backend_first);
        }
    }

    /// The initial world has no step: its only schedule is the empty one.
    fn quiescent_root(mut self) -> ExploreReport {
        self.report.schedules = 1;
        if let Some(violation) = self.scope.converged(&self.world, 0) {
            match self.scope.concretize(
                self.stores,
                &self.bound.world,
                self.bound.depth_max,
                Vec::new(),
                violation,
            ) {
                Ok(c) => self.report.counterexample = Some(c),
                Err(breach) => self.report.refuse(breach),
            }
        }
        self.report.distinct_states = 1;
        self.report
    }

    /// Searches below the unit `prefix` (the `done`-th of `of` units), with the other
    /// threads of the search when `shared` is given: their shortest counterexample bounds
    /// this one's depth, and their stop stops it. False when the search must stop (a
    /// violation in first-counterexample mode, a breach of the per-tab premise, a limit).
    fn search_unit(
        &mut self,
        prefix: Vec<Step>,
        done: usize,
        of: usize,
        progress: &mut dyn FnMut(SearchProgress),
        shared: Option<&Shared>,
    ) -> bool {
        self.start_unit(prefix, done, of);
        while let Some((step, sleep)) = self.next_step() {
            self.come_back();
            let next = self.arrive(step, sleep);
            if let Some(shared) = shared {
                if let Some(c) = &self.report.counterexample {
                    shared.shortest.fetch_min(c.steps.len(), Ordering::Relaxed);
                }
                let shortest = shared.shortest.load(Ordering::Relaxed);
                self.depth_max = self.depth_max.min(shortest.saturating_sub(1));
            }
            match next {
                Next::Descend { todo, sleep, cache } => self.descend(todo, sleep, cache),
                Next::Back { complete } => self.back(complete),
                Next::Stop => return false,
            }
            if (shared.is_none() && self.over_max_states())
                || self.report_progress(progress)
                || shared.is_some_and(|sh| sh.stop.load(Ordering::Relaxed))
            {
                return false;
            }
        }
        true
    }

    /// Starts the search below the unit `prefix` (the `done`-th of `of` units), from the
    /// initial world.
    fn start_unit(&mut self, prefix: Vec<Step>, done: usize, of: usize) {
        self.prefix = prefix;
        self.units_done = (done, of);
        self.frames.clear();
        self.dirty = false;
        if done > 0 {
            self.world = self.scope.world(&self.bound.world, self.stores);
        }
        // Again for the first unit too: what the root takes depends on the prefix.
        self.enabled_here();
        self.push_root();
    }

    /// The initial world as the first frame. Its copy is always taken: whether it can be
    /// says whether the stores can copy themselves.
    fn push_root(&mut self) {
        let Next::Descend { todo, sleep, cache } = self.expand(None, 0, Vec::new(), None) else {
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
            if let Some(next) = top.take_next(self.depth_max, self.bound.reductions.sleep_sets) {
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
                frame::come_back(&mut self.frames, self.stores, &self.bound.world, self.scope);
            self.world = world;
            self.report.steps_applied += replayed;
            self.dirty = false;
        }
    }

    /// Takes `step` from the top frame's state and judges the state it leads to, which
    /// inherits the sleep set `sleep`. The oracle's verdict there is judged now, or, at a
    /// state the cache may know, once the cache was asked ([`Search::expand`]).
    fn arrive(&mut self, step: Step, sleep: Vec<Step>) -> Next {
        let depth = self.frames.len(); // the schedule's length once `step` is applied
        self.report.steps_applied += 1;
        let crash = match self.scope.apply_step(&mut self.world, step, depth - 1) {
            Ok(crash) => crash,
            Err(breach) => {
                self.report.refuse(breach);
                return Next::Stop;
            }
        };
        if !self.caching {
            self.observe();
        }
        if let Some(hook) = self.on_arrival.as_mut() {
            hook(&self.world, &path(&self.frames));
        }
        if let Some(violation) = crash {
            return self.violated(violation, None);
        }
        self.enabled_here();
        // A verdict the cache may know clean is left to the state's visit; any other is
        // judged now.
        let remembered = self.verdict_kind(&step);
        let leaves_to_cache =
            remembered.is_some() && !self.enabled.is_empty() && depth < self.depth_max;
        if !leaves_to_cache {
            if let Some(next) = self.judge(Some(step), depth) {
                return next;
            }
        }
        if self.enabled.is_empty() {
            self.quiescent(step, depth)
        } else if depth >= self.depth_max {
            // Cut here: after a counterexample, only strictly shorter schedules matter.
            if self.report.counterexample.is_none() {
                self.report.truncated += 1;
            }
            Next::Back { complete: false }
        } else {
            self.expand(Some(step), depth, sleep, remembered)
        }
    }

    /// The kind of verdict the oracle gives after `step` that the cache may remember
    /// ([`Verdicts`]): in the per-tab search, after a step of the judged tab (in the whole
    /// world a verdict is about the tab a step touched, which the bits do not say).
    fn verdict_kind(&self, step: &Step) -> Option<Verdicts> {
        match self.scope {
            Scope::Tab(c, _) if step.client() == Some(c) => Some(match step {
                Step::DeliverFetchResponse { .. } => Verdicts::AFTER_FETCH,
                _ => Verdicts::AFTER_STEP,
            }),
            _ => None,
        }
    }

    /// The schedule to here broke an invariant: record it, then stop, or (in `shortest`
    /// mode) search on for strictly shorter ones only.
    fn violated(&mut self, violation: Violation, delivery: Option<Step>) -> Next {
        let mut steps = path(&self.frames);
        if let Some(delivery) = delivery {
            // Met one step further than this state, at a delivery the search does not
            // take: beyond `depth_max` the real search would have cut there.
            if steps.len() >= self.depth_max {
                if self.report.counterexample.is_none() {
                    self.report.truncated += 1;
                }
                return Next::Back { complete: false };
            }
            steps.push(delivery);
        }
        self.report.schedules += 1;
        if violation.invariant == Invariant::Converges && self.scope != Scope::Whole {
            self.report.note_tab_convergence(steps.len());
        }
        let real = match self.scope.concretize(
            self.stores,
            &self.bound.world,
            self.bound.depth_max,
            steps,
            violation,
        ) {
            Ok(real) => real,
            Err(breach) => {
                self.report.refuse(breach);
                return Next::Stop;
            }
        };
        let length = real.steps.len();
        self.report.record(real.steps, real.violation);
        if !self.bound.shortest {
            return Next::Stop;
        }
        // Only strictly shorter (real) counterexamples matter from now on. In the whole
        // world the real length is `depth`; a per-tab convergence violation's is longer.
        self.depth_max = self.depth_max.min(length.max(1) - 1);
        Next::Back { complete: false }
    }

    /// A quiescent state: the convergence check ends the schedule, unless the cache has
    /// seen this state end one already.
    fn quiescent(&mut self, step: Step, depth: usize) -> Next {
        // Few states end a schedule: asked at every arrival, before convergence, whose
        // real counterexample delivers every queued response (so is longer).
        if let Some(next) = self.after_post_response(Some(step), depth) {
            return next;
        }
        if let Some(violation) = self.scope.converged(&self.world, depth - 1) {
            return self.violated(violation, None);
        }
        match self.key().map(|key| self.cache.visit_quiescent(key)) {
            Some(true) => self.report.revisits_pruned += 1,
            Some(false) => {
                self.cached_here += 1;
                self.report.schedules += 1;
            }
            None => self.report.schedules += 1,
        }
        Next::Back { complete: true }
    }

    /// What a state reached by `step`, `depth` steps from the start, holds when the
    /// judged tab's POST responses are inert ([`Scope::after_post_response`]): a
    /// violation after a delivery (which ends the schedule), or a breach of H2 (which
    /// stops the search). Asked at a state's first arrival only (and at every arrival once
    /// a counterexample was found, where a shorter path makes a shorter one): both are
    /// functions of the state.
    fn after_post_response(&mut self, step: Option<Step>, depth: usize) -> Option<Next> {
        match self
            .scope
            .after_post_response(&self.world, step, depth, &mut self.inert)
        {
            Ok(None) => None,
            Ok(Some((violation, delivery))) => Some(self.violated(violation, Some(delivery))),
            Err(breach) => {
                self.report.refuse(breach);
                Some(Next::Stop)
            }
        }
    }

    /// A state with steps enabled, `depth` steps from the start, reached by `arrived` (none
    /// at the start) with the sleep set `sleep` passed on: the frame that searches it, with
    /// the steps that neither sleep nor (when cached) were covered by an earlier search of
    /// the same state. `verdict`: the kind of the oracle's verdict after `arrived` still to
    /// judge here, unless the state has a key and the cache knows it clean.
    fn expand(
        &mut self,
        arrived: Option<Step>,
        depth: usize,
        sleep: Vec<Step>,
        verdict: Option<Verdicts>,
    ) -> Next {
        if let Some(&step) = self.prefix.get(depth) {
            debug_assert!(
                self.enabled.contains(&step),
                "a unit's prefix is a path of the tree"
            );
            // Not cached, so judged and asked at every walk down the prefix.
            if verdict.is_some() {
                if let Some(next) = self.judge(arrived, depth) {
                    return next;
                }
            }
            if let Some(next) = self.after_post_response(arrived, depth) {
                return next;
            }
            return Next::Descend {
                todo: vec![step],
                sleep: Vec::new(),
                cache: None,
            };
        }
        let sleep = sleep_here(sleep, &self.enabled);
        let sleep_mask = mask_of(&self.enabled, &sleep);
        let (todo, cache) = match self.key() {
            None => {
                // Not cached (no cache, too many steps, or a store that did not expose
                // this state): judged here.
                if verdict.is_some() {
                    if let Some(next) = self.judge(arrived, depth) {
                        return next;
                    }
                }
                if let Some(next) = self.after_post_response(arrived, depth) {
                    return next;
                }
                (!sleep_mask, None)
            }
            Some(key) => match self.visit(key, sleep_mask, arrived, depth, verdict) {
                Ok((todo, slot)) => (todo, Some(slot)),
                Err(next) => return next,
            },
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

    /// [`Search::expand`] at a state with the key `key` and the sleep set `sleep_mask`:
    /// what the cache leaves to search from it and the slot to write back to, or what the
    /// search does next when nothing is searched from it (covered, or a violation met). The
    /// verdict of kind `verdict` is judged unless the cache knows it clean; H2 and the
    /// verdict after a POST response at a state's first arrival (and at every arrival once a
    /// counterexample was found).
    fn visit(
        &mut self,
        key: u64,
        sleep_mask: u64,
        arrived: Option<Step>,
        depth: usize,
        verdict: Option<Verdicts>,
    ) -> Result<(u64, CacheSlot), Next> {
        let remaining = steps_left(self.depth_max, depth);
        match self.cache.visit(key, sleep_mask, remaining) {
            Visit::Pruned { complete, clean } => {
                if let Some(kind) = verdict.filter(|&k| !clean.cover(k)) {
                    if let Some(next) = self.judge(arrived, depth) {
                        return Err(next);
                    }
                    self.cache.judged_clean(key, kind);
                }
                self.report.revisits_pruned += 1;
                Err(Next::Back { complete })
            }
            Visit::Search {
                todo,
                mut slot,
                revisit,
                clean,
            } => {
                if let Some(kind) = verdict.filter(|&k| !clean.cover(k)) {
                    if let Some(next) = self.judge(arrived, depth) {
                        // Searched no further: stored as such.
                        self.cache.leave(slot, false, self.depth_max, depth);
                        return Err(next);
                    }
                    slot.judged_clean(kind);
                }
                if revisit {
                    self.report.revisits_partial += 1;
                } else {
                    self.cached_here += 1;
                }
                if !revisit || self.report.counterexample.is_some() {
                    if let Some(next) = self.after_post_response(arrived, depth) {
                        // Searched no further: stored as such.
                        self.cache.leave(slot, false, self.depth_max, depth);
                        return Err(next);
                    }
                }
                Ok((todo, slot))
            }
        }
    }

    /// The oracle's verdict after `arrived`, taken to reach this state `depth` steps from
    /// the start, when it finds a violation: what the search does next.
    fn judge(&mut self, arrived: Option<Step>, depth: usize) -> Option<Next> {
        let step = arrived.expect("a verdict to judge follows a step");
        let violation = self.scope.verdict(&self.world, &step, depth - 1)?;
        Some(self.violated(violation, None))
    }

    /// Counts the observable state the search is at (the report's `distinct_states`), in
    /// the stateless search only: with the cache on, the report counts distinct full
    /// states instead, and a second set of every observable state would cost a third of
    /// the memory again (33 M of them on `--sends 2`) for a statistic.
    fn observe(&mut self) {
        self.observed
            .insert(observable_fingerprint(&self.world, self.scope));
    }

    /// The number of the world's state, when the cache is on and the state fits it (its
    /// sleep set as a mask: at most 64 steps enabled).
    fn key(&mut self) -> Option<u64> {
        if !self.caching || self.enabled.len() > MASK_STEPS {
            None
        } else if self.bound.reductions.exact_keys {
            self.ids.id(&self.world, self.scope).map(u64::from)
        } else {
            full_state_fingerprint(&self.world, self.scope, &mut self.buf)
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

    /// Calls `progress` about five times a second, and checks the limits then: true when
    /// one is hit (the search stops, inconclusive). The clock is read every 64 steps, so
    /// that a slow store (an exec adapter) still shows progress and stops in time.
    fn report_progress(&mut self, progress: &mut dyn FnMut(SearchProgress)) -> bool {
        if self.report.steps_applied < self.last_progress + 64 {
            return false;
        }
        self.last_progress = self.report.steps_applied;
        let now = std::time::Instant::now();
        if now < self.next_progress {
            return false;
        }
        self.next_progress = now + std::time::Duration::from_millis(200);
        let states = self.states_so_far();
        progress(SearchProgress {
            fraction_done: Some(
                (self.units_done.0 as f64 + fraction_done(&self.frames))
                    / self.units_done.1.max(1) as f64,
            ),
            schedules: self.report.schedules,
            states,
            steps_applied: self.report.steps_applied,
            tab: match self.scope {
                Scope::Whole => None,
                Scope::Tab(c, _) => Some(c),
            },
        });
        match self.limits.hit(states) {
            Some(limit) => {
                self.report.limit_hit = Some(limit);
                true
            }
            None => false,
        }
    }

    /// `--max-states`, checked after every step of a search that has its cache to itself
    /// rather than at the progress tick with the other limits: the count alone decides
    /// where a one-thread search stops, so what it reports when stopped is the same on
    /// every machine and every run. (On several threads which states come first varies
    /// with timing anyway; there the shared cache is counted at the tick.)
    fn over_max_states(&mut self) -> bool {
        if self.bound.limits.max_states.is_none() {
            return false;
        }
        let states = if self.caching && !self.bound.reductions.exact_keys {
            debug_assert_eq!(
                self.cached_here,
                self.cache.len(),
                "the cache is this search's"
            );
            self.cached_here
        } else {
            self.states_so_far()
        };
        match self.limits.over_states(states) {
            Some(limit) => {
                self.report.limit_hit = Some(limit);
                true
            }
            None => false,
        }
    }

    /// Distinct states reached so far: full states when cached, else observable ones.
    fn states_so_far(&self) -> u64 {
        if self.caching && self.bound.reductions.exact_keys {
            self.ids.states()
        } else if self.caching {
            self.cache.len()
        } else {
            self.observed.len() as u64
        }
    }

    /// The report, with the counts of what was stored.
    fn finish(mut self) -> ExploreReport {
        self.report.distinct_states = self.states_so_far();
        self.report.states_cached = self.cache.len();
        if self.caching && self.bound.reductions.exact_keys {
            self.report.state_key_bytes = self.ids.part_bytes();
            self.report.distinct_full_states = self.ids.states();
        } else if self.caching {
            self.report.distinct_full_states = self.cache.len();
            self.report.visited_bytes = self.cache.bytes();
        }
        self.report
    }
}
