//! The breadth-first search over fingerprints, on several threads, with a result that does
//! not depend on how many.
//!
//! Level `d` holds the distinct states first reached after `d` steps. Expanding it takes
//! every step this [`Scope`] takes from every state (no sleep sets: every transition is
//! applied and judged, so nothing rests on an independence relation), judges it, and keeps
//! each state not seen before, named by a 64-bit fingerprint of its full state key
//! ([`full_state_fingerprint`]; see `visited.rs` and
//! [`crate::explore::state::visited::collision_bound`] for the collision bound). Every
//! arrival is judged, also at a state already visited, so a violation is found on every
//! transition that causes it; a state already visited is only not searched *from* again,
//! which is sound because the key determines the future (see the module doc of
//! [`crate::explore`]).
//!
//! **Shortest counterexamples for free.** The first level at which a transition violates
//! gives the shortest counterexample length; the search finishes that level and stops.
//!
//! **Deterministic on any number of threads.** The states of a level are ranked: the
//! rank of a state is the position, in (parent's rank, step's index among the parent's
//! enabled steps) order, of the first arrival that reached it. Ranks, and so the kept
//! path to each state, the counts and the counterexample chosen (the first in that order,
//! among the shortest), are those a single thread computes; threads only share the work.
//! A world cannot move between threads (a store need not be `Send`), so each worker keeps
//! the states it reached; when the workers' shares drift apart, states are handed over as
//! their paths, which the receiver replays from its own copy of the initial world.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crate::model::step::Step;
use crate::model::store::StoreFactory;
use crate::model::world::World;
use crate::oracle::Violation;

use crate::explore::bound::{Engine, ExploreBound};
use crate::explore::limits::LimitCheck;
use crate::explore::reduction::scope::{PostResponses, Scope, Unfaithful};
use crate::explore::report::{Counterexample, ExploreReport, SearchProgress, StateCache};
use crate::explore::state::fingerprint::{full_state_fingerprint, Buffers};
use crate::explore::state::visited::Fingerprints;

/// The path to a state, shared by its descendants.
struct Link {
    step: Step,
    parent: Option<Arc<Link>>,
}

fn path_of(link: &Option<Arc<Link>>) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut at = link.as_ref();
    while let Some(l) = at {
        steps.push(l.step);
        at = l.parent.as_ref();
    }
    steps.reverse();
    steps
}

/// Whether the breadth-first search can run: every store exposes and copies its state.
pub(crate) fn supported(stores: &dyn StoreFactory, bound: &ExploreBound, scope: Scope) -> bool {
    let world = scope.world(&bound.world, stores);
    world.try_clone().is_some()
        && full_state_fingerprint(&world, scope, &mut Buffers::default()).is_some()
}

/// A state of the current level, held by the worker that reached it.
struct Node {
    rank: u32,
    world: World,
    link: Option<Arc<Link>>,
}

/// What an arrival led to, for the merge.
enum Arrived {
    /// A state with steps enabled, not visited before this level: the worker's pending
    /// index of its world.
    State {
        fp: u64,
        pending: usize,
        link: Arc<Link>,
    },
    /// A quiescent state that passed the convergence check.
    Quiescent { fp: u64 },
}

/// One arrival, with its place in the canonical order: `(parent rank) << 8 | step index`.
struct Arrival {
    order: u64,
    what: Arrived,
}

/// A violating transition, with its canonical order and the path to it.
struct Found {
    order: u64,
    steps: Vec<Step>,
    violation: Violation,
}

/// What a worker did with its share of a level.
#[derive(Default)]
struct Expanded {
    arrivals: Vec<Arrival>,
    found: Vec<Found>,
    steps_applied: u64,
    truncated: u64,
    revisits: u64,
    unfaithful: Option<Unfaithful>,
    limit: Option<String>,
}

/// What the coordinator tells a worker.
enum Command {
    /// Expand your states of level `depth`.
    Expand { depth: usize },
    /// The merge's decision: keep these pending states, with their ranks in the next
    /// level; give away these (pending index), receive these (rank, path).
    Settle {
        keep: Vec<(usize, u32)>,
        receive: Vec<(u32, Arc<Link>)>,
    },
}

struct Worker<'a> {
    scope: Scope,
    bound: &'a ExploreBound,
    limits: LimitCheck,
    visited: Arc<RwLock<Fingerprints>>,
    /// States reached so far (all workers), for the limits and the progress bar.
    counters: &'a Counters,
    nodes: Vec<Node>,
    /// The states this worker reached in the level being expanded, until the merge says
    /// which to keep.
    pending: Vec<Option<(World, Arc<Link>)>>,
    initial: World,
    buf: Buffers,
}

/// Counts the workers bump as they go, read by the coordinator for the progress bar.
#[derive(Default)]
struct Counters {
    arrivals: std::sync::atomic::AtomicU64,
    steps: std::sync::atomic::AtomicU64,
    stop: std::sync::atomic::AtomicBool,
}

impl<'a> Worker<'a> {
    /// A worker with its own copy of the initial world (a world cannot move between
    /// threads); the first worker also holds level 0, the initial state.
    fn new(
        scope: Scope,
        bound: &'a ExploreBound,
        stores: &dyn StoreFactory,
        limits: LimitCheck,
        visited: Arc<RwLock<Fingerprints>>,
        counters: &'a Counters,
        first: bool,
    ) -> Self {
        let initial = scope.world(&bound.world, stores);
        let mut worker = Worker {
            scope,
            bound,
            limits,
            visited,
            counters,
            nodes: Vec::new(),
            pending: Vec::new(),
            initial,
            buf: Buffers::default(),
        };
        if first {
            let world = worker.initial.try_clone().expect("checked");
            worker.nodes.push(Node {
                rank: 0,
                world,
                link: None,
            });
        }
        worker
    }

    /// Answers the coordinator's commands, as worker `w`, until it hangs up.
    fn serve(
        mut self,
        w: usize,
        commands: mpsc::Receiver<Command>,
        replies: mpsc::Sender<(usize, Reply)>,
    ) {
        for command in commands {
            let reply = match command {
                Command::Expand { depth } => Reply::Expanded(self.expand(depth)),
                Command::Settle { keep, receive } => {
                    self.settle(keep, receive);
                    Reply::Settled
                }
            };
            if replies.send((w, reply)).is_err() {
                return;
            }
        }
    }

    /// Expands this worker's states of level `depth`: every step enabled in each (only a
    /// persistent set's with `--persistent`) is applied and judged ([`Self::expand_node`]);
    /// a state at the depth bound is counted as truncated instead.
    fn expand(&mut self, depth: usize) -> Expanded {
        let mut out = Expanded::default();
        let visited = Arc::clone(&self.visited);
        let visited = visited.read().expect("no writer panicked");
        let mut enabled = Vec::new();
        let mut after = Vec::new();
        self.pending.clear();
        let nodes = std::mem::take(&mut self.nodes);
        for (n, node) in nodes.into_iter().enumerate() {
            if n % 1024 == 1023 && self.must_stop(&visited, &mut out) {
                break;
            }
            self.scope.enabled_steps(&node.world, &mut enabled);
            if self.bound.reductions.persistent {
                self.scope.persistent_set(
                    &node.world,
                    &mut enabled,
                    self.bound.reductions.backend_first,
                );
            }
            debug_assert!(!enabled.is_empty(), "quiescent states are never kept");
            if depth >= self.bound.depth_max {
                out.truncated += 1;
                continue;
            }
            if !self.expand_node(node, &enabled, depth, &visited, &mut after, &mut out) {
                return out;
            }
        }
        self.counters.steps.fetch_add(out.steps_applied, Relaxed);
        out
    }

    /// The limit check, made every 1024 states: whether another worker stopped the
    /// search, or a limit is hit (then this worker stops them all and says which).
    fn must_stop(&self, visited: &Fingerprints, out: &mut Expanded) -> bool {
        if self.counters.stop.load(Relaxed) {
            return true;
        }
        let states = visited.len() + self.counters.arrivals.load(Relaxed);
        if let Some(limit) = self.limits.hit(states) {
            self.counters.stop.store(true, Relaxed);
            out.limit = Some(limit);
            return true;
        }
        false
    }

    /// Applies each step of `enabled` to a copy of `node`'s world (the last step takes the
    /// world itself), judges the transition ([`Self::judge`]) and records a violation or
    /// the arrival ([`Self::arrive`]). Every transition is judged, whether or not it leads
    /// to a state visited before, so a violation is found on every transition that causes
    /// it. `false` when a per-tab judgement is unfaithful: the search stops.
    fn expand_node(
        &mut self,
        node: Node,
        enabled: &[Step],
        depth: usize,
        visited: &Fingerprints,
        after: &mut Vec<Step>,
        out: &mut Expanded,
    ) -> bool {
        assert!(enabled.len() <= 256, "more than 256 steps enabled");
        let Node {
            rank,
            world,
            link: parent_link,
        } = node;
        let mut parent = Some(world);
        let last = enabled.len() - 1;
        for (i, &step) in enabled.iter().enumerate() {
            let order = (rank as u64) << 8 | i as u64;
            let mut world = if i == last {
                parent.take().expect("the last step takes the parent")
            } else {
                parent
                    .as_ref()
                    .expect("kept until the last step")
                    .try_clone()
                    .expect("checked: every store copies itself")
            };
            out.steps_applied += 1;
            let link = Arc::new(Link {
                step,
                parent: parent_link.clone(),
            });
            let violation = match self.judge(&mut world, step, depth, after) {
                Ok(v) => v,
                Err(breach) => {
                    out.unfaithful = Some(breach);
                    self.counters.stop.store(true, Relaxed);
                    return false;
                }
            };
            if let Some(violation) = violation {
                out.found.push(Found {
                    order,
                    steps: path_of(&Some(link)),
                    violation,
                });
                continue;
            }
            self.arrive(world, link, order, visited, after.is_empty(), out);
        }
        true
    }

    /// Applies `step` to `world` and judges the transition: the invariants after the
    /// step, then, if it left no step enabled (`after` holds those enabled), convergence.
    fn judge(
        &self,
        world: &mut World,
        step: Step,
        depth: usize,
        after: &mut Vec<Step>,
    ) -> Result<Option<Violation>, Unfaithful> {
        debug_assert!(
            !matches!(self.scope, Scope::Tab(_, PostResponses::Inert)),
            "the breadth-first search delivers POST responses"
        );
        let violation = self.scope.judge_step(world, step, depth)?;
        Ok(violation.or_else(|| {
            self.scope.enabled_steps(world, after);
            after
                .is_empty()
                .then(|| self.scope.converged(world, depth))
                .flatten()
        }))
    }

    /// Records an arrival that violated nothing. A state visited in an earlier level is a
    /// revisit and is not searched from again (sound: its key determines its future); any
    /// other arrival goes to the merge, and a state with steps enabled is held until the
    /// merge says whether this worker keeps it.
    fn arrive(
        &mut self,
        world: World,
        link: Arc<Link>,
        order: u64,
        visited: &Fingerprints,
        quiescent: bool,
        out: &mut Expanded,
    ) {
        let fp = full_state_fingerprint(&world, self.scope, &mut self.buf).expect("checked");
        if visited.contains(fp) {
            out.revisits += 1;
            return;
        }
        self.counters.arrivals.fetch_add(1, Relaxed);
        let what = if quiescent {
            Arrived::Quiescent { fp }
        } else {
            self.pending.push(Some((world, Arc::clone(&link))));
            Arrived::State {
                fp,
                pending: self.pending.len() - 1,
                link,
            }
        };
        out.arrivals.push(Arrival { order, what });
    }

    /// Keeps the pending states `keep` (pending index, rank in the next level), drops the
    /// rest (given away or visited), and replays the states `receive` from the initial
    /// world.
    fn settle(&mut self, keep: Vec<(usize, u32)>, receive: Vec<(u32, Arc<Link>)>) {
        for (pending, rank) in keep {
            let (world, link) = self.pending[pending].take().expect("kept once");
            self.nodes.push(Node {
                rank,
                world,
                link: Some(link),
            });
        }
        for (rank, link) in receive {
            let mut world = self.initial.try_clone().expect("checked");
            for step in path_of(&Some(Arc::clone(&link))) {
                let _ = world.apply_into(step, &mut ());
            }
            self.nodes.push(Node {
                rank,
                world,
                link: Some(link),
            });
        }
        self.pending.clear();
    }
}

/// A worker's answer to a [`Command`].
enum Reply {
    Expanded(Expanded),
    Settled,
}

/// The best counterexample so far: ordered by real length, then level, then canonical
/// order within the level.
struct Best {
    key: (usize, usize, u64),
    counterexample: Counterexample,
}

/// The states each worker keeps of a level just merged: (pending index, rank, path).
type Kept = Vec<Vec<(usize, u32, Arc<Link>)>>;

/// Breadth-first search of `scope` within `bound` on `jobs` threads (see the module doc).
/// The caller checked [`supported`].
pub(crate) fn search(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    scope: Scope,
    jobs: usize,
    progress: &mut dyn FnMut(SearchProgress),
) -> ExploreReport {
    let jobs = jobs.max(1);
    let mut report = ExploreReport::empty(bound, StateCache::On);
    report.engine = Engine::BreadthFirst { jobs };
    report.reduction = false;
    let root = scope.world(&bound.world, stores);
    let root_fp = full_state_fingerprint(&root, scope, &mut Buffers::default()).expect("supported");
    let mut enabled = Vec::new();
    scope.enabled_steps(&root, &mut enabled);
    if enabled.is_empty() {
        judge_quiescent_root(&mut report, stores, bound, scope, &root);
        return report;
    }
    drop(root);
    let visited = Arc::new(RwLock::new(Fingerprints::default()));
    visited.write().expect("fresh").insert(root_fp);
    let counters = Counters::default();
    let limits = LimitCheck::new(&bound.limits);
    let (mut report, best) = std::thread::scope(|s| {
        let (tx_back, replies) = mpsc::channel::<(usize, Reply)>();
        let mut to_workers = Vec::new();
        for w in 0..jobs {
            let (tx, rx) = mpsc::channel::<Command>();
            to_workers.push(tx);
            let tx_back = tx_back.clone();
            let visited = Arc::clone(&visited);
            let counters = &counters;
            s.spawn(move || {
                Worker::new(scope, bound, stores, limits, visited, counters, w == 0)
                    .serve(w, rx, tx_back);
            });
        }
        drop(tx_back);
        let mut coordinator = Coordinator {
            stores,
            bound,
            scope,
            visited: &visited,
            counters: &counters,
            limits,
            tab: match scope {
                Scope::Whole => None,
                Scope::Tab(c, _) => Some(c),
            },
            to_workers,
            replies,
            progress,
            report,
            best: None,
            level_sizes: vec![1],
        };
        coordinator.run();
        // The workers stop when `to_workers` drops with the rest of the coordinator.
        (coordinator.report, coordinator.best)
    });
    let vis = visited.read().expect("no writer panicked");
    report.distinct_full_states = vis.len();
    report.visited_bytes = report.visited_bytes.max(vis.bytes());
    report.counterexample = best.map(|b| b.counterexample);
    report
}

/// The search when the initial state is quiescent: one schedule, judged for convergence.
fn judge_quiescent_root(
    report: &mut ExploreReport,
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    scope: Scope,
    root: &World,
) {
    report.schedules = 1;
    report.distinct_full_states = 1;
    if let Some(v) = scope.converged(root, 0) {
        match scope.concretize(stores, &bound.world, bound.depth_max, Vec::new(), v) {
            Ok(c) => report.counterexample = Some(c),
            Err(breach) => report.refuse(breach),
        }
    }
}

/// The coordinator's side of the search: it sends each level out, merges the workers'
/// answers in canonical order (so that counts, ranks and the counterexample chosen are a
/// single thread's), and owns the report and the writes to the visited set.
struct Coordinator<'a, 'p> {
    stores: &'a dyn StoreFactory,
    bound: &'a ExploreBound,
    scope: Scope,
    visited: &'a RwLock<Fingerprints>,
    counters: &'a Counters,
    limits: LimitCheck,
    tab: Option<u8>,
    to_workers: Vec<mpsc::Sender<Command>>,
    replies: mpsc::Receiver<(usize, Reply)>,
    progress: &'p mut dyn FnMut(SearchProgress),
    report: ExploreReport,
    best: Option<Best>,
    /// The number of states of each level so far, for the progress estimate.
    level_sizes: Vec<u64>,
}

impl Coordinator<'_, '_> {
    /// Level after level: expand, tally, judge the violations found, admit the new
    /// states, then share them out; until a level is empty, a counterexample settles the
    /// answer, or the search must stop (a limit, Ctrl-C, an unfaithful per-tab judgement).
    fn run(&mut self) {
        let mut states_in_level = 1u64;
        for depth in 0.. {
            if states_in_level == 0 {
                break;
            }
            let expanded = self.expand_level(depth);
            let (arrivals, found) = self.tally(expanded);
            if self.report.refused() || self.report.limit_hit.is_some() {
                break;
            }
            self.judge_found(found, depth);
            if self.report.refused() {
                break;
            }
            let keep = self.admit(arrivals);
            states_in_level = *self.level_sizes.last().expect("level 0 is counted");
            if self.done(depth) {
                break;
            }
            self.settle(share_out(keep, states_in_level));
            let states = visited_len(self.visited);
            self.show_progress(states, self.report.steps_applied);
        }
    }

    /// Sends level `depth` out and waits for every worker's share, showing progress every
    /// 200 ms meanwhile; then resets the live counters for the next level.
    fn expand_level(&mut self, depth: usize) -> Vec<Option<Expanded>> {
        for tx in &self.to_workers {
            tx.send(Command::Expand { depth }).expect("worker alive");
        }
        let jobs = self.to_workers.len();
        let mut expanded: Vec<Option<Expanded>> = (0..jobs).map(|_| None).collect();
        let mut got = 0;
        while got < jobs {
            match self.replies.recv_timeout(Duration::from_millis(200)) {
                Ok((w, Reply::Expanded(e))) => {
                    expanded[w] = Some(e);
                    got += 1;
                }
                Ok((_, Reply::Settled)) => unreachable!("settled before expanding"),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let states = visited_len(self.visited) + counters_arrivals(self.counters);
                    let steps = self.report.steps_applied + counters_steps(self.counters);
                    self.show_progress(states, steps);
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => panic!("a worker died"),
            }
        }
        self.counters.arrivals.store(0, Relaxed);
        self.counters.steps.store(0, Relaxed);
        expanded
    }

    /// Adds the workers' counts to the report and gathers their arrivals (each with the
    /// worker that holds its state) and violations.
    fn tally(&mut self, expanded: Vec<Option<Expanded>>) -> (Vec<(usize, Arrival)>, Vec<Found>) {
        let report = &mut self.report;
        let mut arrivals: Vec<(usize, Arrival)> = Vec::new();
        let mut found: Vec<Found> = Vec::new();
        for (w, e) in expanded.into_iter().enumerate() {
            let e = e.expect("every worker answered");
            report.steps_applied += e.steps_applied;
            report.truncated += e.truncated;
            report.revisits += e.revisits;
            if !report.refused() {
                if let Some(breach) = e.unfaithful {
                    report.refuse(breach);
                }
            }
            if report.limit_hit.is_none() {
                report.limit_hit = e.limit;
            }
            arrivals.extend(e.arrivals.into_iter().map(|a| (w, a)));
            found.extend(e.found);
        }
        (arrivals, found)
    }

    /// Turns the level's violations, in canonical order, into counterexamples and keeps the
    /// best ([`Best`]). A per-tab violation that does not replay in the whole world sets
    /// `per_tab_refused` and stops.
    fn judge_found(&mut self, mut found: Vec<Found>, depth: usize) {
        found.sort_by_key(|f| f.order);
        self.report.schedules += found.len() as u64;
        for f in found {
            if f.violation.invariant == crate::oracle::Invariant::Converges
                && self.scope != Scope::Whole
            {
                self.report.note_tab_convergence(f.steps.len());
            }
            let counterexample = match self.scope.concretize(
                self.stores,
                &self.bound.world,
                self.bound.depth_max,
                f.steps,
                f.violation,
            ) {
                Ok(c) => c,
                Err(breach) => {
                    self.report.refuse(breach);
                    return;
                }
            };
            let key = (counterexample.steps.len(), depth, f.order);
            if self.best.as_ref().is_none_or(|b| key < b.key) {
                self.best = Some(Best {
                    key,
                    counterexample,
                });
            }
        }
    }

    /// Admits the level's arrivals in canonical order, so ranks do not depend on the
    /// threads: the first arrival at a state not visited before keeps it (with the next
    /// rank), a quiescent one ends a schedule, any later one is a revisit. Returns what each
    /// worker keeps and records the new level's size.
    fn admit(&mut self, mut arrivals: Vec<(usize, Arrival)>) -> Kept {
        arrivals.sort_by_key(|(_, a)| a.order);
        let mut keep: Kept = (0..self.to_workers.len()).map(|_| Vec::new()).collect();
        let mut rank = 0u32;
        let report = &mut self.report;
        {
            let mut vis = self.visited.write().expect("no reader panicked");
            for (w, a) in arrivals {
                match a.what {
                    Arrived::State { fp, pending, link } => {
                        if vis.insert(fp) {
                            keep[w].push((pending, rank, link));
                            rank += 1;
                        } else {
                            report.revisits += 1;
                        }
                    }
                    Arrived::Quiescent { fp } => {
                        if vis.insert(fp) {
                            report.schedules += 1;
                        } else {
                            report.revisits += 1;
                        }
                    }
                }
            }
            report.visited_bytes = report.visited_bytes.max(vis.bytes());
        }
        let states_in_level = rank as u64;
        report.states_cached += states_in_level;
        self.level_sizes.push(states_in_level);
        keep
    }

    /// Whether the search ends after level `depth`. In first mode at the first level with
    /// a violation; in shortest mode once no shorter one can come (every later one is at
    /// least `depth + 2` long and loses ties to this level's); at a limit in any mode.
    fn done(&mut self, depth: usize) -> bool {
        if let Some(b) = &self.best {
            if !self.bound.shortest || b.key.0 <= depth + 2 {
                return true;
            }
        }
        if let Some(limit) = self.limits.hit(visited_len(self.visited)) {
            self.report.limit_hit = Some(limit);
            return true;
        }
        false
    }

    /// Sends each worker its [`Command::Settle`] (in worker order) and waits until every
    /// worker holds its share of the next level.
    fn settle(&mut self, settles: Vec<Command>) {
        for (w, settle) in settles.into_iter().enumerate() {
            self.to_workers[w].send(settle).expect("worker alive");
        }
        for _ in 0..self.to_workers.len() {
            match self.replies.recv() {
                Ok((_, Reply::Settled)) => {}
                _ => panic!("a worker died"),
            }
        }
    }

    /// Reports progress with `states` distinct states and `steps_applied` steps so far.
    fn show_progress(&mut self, states: u64, steps_applied: u64) {
        (self.progress)(SearchProgress {
            fraction_done: estimate(&self.level_sizes, states),
            schedules: self.report.schedules,
            states,
            steps_applied,
            tab: self.tab,
        });
    }
}

/// Shares the next level's `states` out evenly, as one [`Command::Settle`] per worker:
/// a worker holding more than `target + slack` states gives the excess away (as paths,
/// which the receiver replays) to workers below `target`, the rest to worker 0. The
/// slack saves replays when the shares are nearly even.
fn share_out(mut keep: Kept, states: u64) -> Vec<Command> {
    let jobs = keep.len();
    let target = (states as usize).div_ceil(jobs);
    let slack = 64.max(target / 16);
    let mut given: Vec<(u32, Arc<Link>)> = Vec::new();
    for k in keep.iter_mut() {
        if k.len() > target + slack {
            given.extend(k.drain(target..).map(|(_, rank, link)| (rank, link)));
        }
    }
    let mut receive: Vec<Vec<(u32, Arc<Link>)>> = (0..jobs).map(|_| Vec::new()).collect();
    for (w, k) in keep.iter().enumerate() {
        let room = target.saturating_sub(k.len());
        let take = room.min(given.len());
        receive[w].extend(given.drain(given.len() - take..));
    }
    receive[0].append(&mut given);
    keep.into_iter()
        .zip(receive)
        .map(|(k, receive)| Command::Settle {
            keep: k.into_iter().map(|(p, rank, _)| (p, rank)).collect(),
            receive,
        })
        .collect()
}

fn visited_len(visited: &RwLock<Fingerprints>) -> u64 {
    visited.read().expect("no writer panicked").len()
}

fn counters_arrivals(c: &Counters) -> u64 {
    c.arrivals.load(Relaxed)
}

fn counters_steps(c: &Counters) -> u64 {
    c.steps.load(Relaxed)
}

/// The share done, once the levels shrink: the states still to come estimated as a
/// geometric series at the last two levels' ratio.
fn estimate(level_sizes: &[u64], states: u64) -> Option<f64> {
    let [.., prev, last] = level_sizes else {
        return None;
    };
    if *last >= *prev || *prev == 0 {
        return None;
    }
    let r = *last as f64 / *prev as f64;
    let rest = *last as f64 * r / (1.0 - r);
    Some(states as f64 / (states as f64 + rest))
}
