//! The breadth-first search over fingerprints, on several threads, with a result that does
//! not depend on how many.
//!
//! Level `d` holds the distinct states first reached after `d` steps. Expanding it takes
//! every step this [`Scope`] takes from every state (no sleep sets: every transition is
//! applied and judged, so nothing rests on an independence relation), judges it, and keeps
//! each state not seen before, named by a 64-bit fingerprint of its full state key
//! ([`fingerprint`]; see `visited.rs` and [`super::collision_bound`] for the collision bound). Every arrival is
//! judged, also at a state already visited, so a violation is found on every transition
//! that causes it; a state already visited is only not searched *from* again, which is
//! sound because the key determines the future (see the module doc of [`super`]).
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

use std::sync::mpsc;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crate::model::step::Step;
use crate::model::store::StoreFactory;
use crate::model::world::World;
use crate::oracle::Violation;

use super::limits::Limits;
use super::scope::Scope;
use super::state_key::KeyWriter;
use super::visited::Fingerprints;
use super::{Counterexample, Engine, ExploreBound, ExploreReport, Progress, StateCache};

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

/// The fingerprint of `world`'s full state as `scope` sees it: SipHash-1-3 (fixed keys,
/// the same in every run) over the exact key, i.e. the shared state, then each tab's
/// part, length-prefixed ([`Scope::client_part`]). `None` when a store cannot expose its
/// state.
pub fn fingerprint(world: &World, scope: Scope, buf: &mut Buffers) -> Option<u64> {
    use std::hash::Hasher;
    buf.key.bytes.clear();
    world.hash_shared_state(&mut buf.key);
    for client in 0..world.clients().len() {
        if !scope.client_part(world, client, &mut buf.part, &mut buf.scratch) {
            return None;
        }
        buf.key.write_usize(buf.part.bytes.len());
        buf.key.bytes.extend_from_slice(&buf.part.bytes);
    }
    let mut h = std::hash::DefaultHasher::new();
    h.write(&buf.key.bytes);
    Some(h.finish())
}

/// Reused key buffers.
#[derive(Default)]
pub struct Buffers {
    key: KeyWriter,
    part: KeyWriter,
    scratch: KeyWriter,
}

/// Whether the breadth-first search can run: every store exposes and copies its state.
pub(super) fn supported(stores: &dyn StoreFactory, bound: &ExploreBound, scope: Scope) -> bool {
    let world = scope.world(&bound.config, stores);
    world.try_clone().is_some() && fingerprint(&world, scope, &mut Buffers::default()).is_some()
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
    unfaithful: Option<String>,
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
    limits: Limits,
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

impl Worker<'_> {
    fn expand(&mut self, depth: usize) -> Expanded {
        use std::sync::atomic::Ordering::Relaxed;
        let mut out = Expanded::default();
        let visited = Arc::clone(&self.visited);
        let visited = visited.read().expect("no writer panicked");
        let mut enabled = Vec::new();
        let mut after = Vec::new();
        self.pending.clear();
        let nodes = std::mem::take(&mut self.nodes);
        for (n, node) in nodes.into_iter().enumerate() {
            if n % 1024 == 1023 {
                if self.counters.stop.load(Relaxed) {
                    break;
                }
                let states = visited.len() + self.counters.arrivals.load(Relaxed);
                if let Some(limit) = self.limits.hit(states) {
                    self.counters.stop.store(true, Relaxed);
                    out.limit = Some(limit);
                    break;
                }
            }
            self.scope.enabled_steps(&node.world, &mut enabled);
            if self.bound.persistent {
                self.scope.persistent_set(&node.world, &mut enabled);
            }
            debug_assert!(!enabled.is_empty(), "quiescent states are never kept");
            if depth >= self.bound.depth_max {
                out.truncated += 1;
                continue;
            }
            assert!(enabled.len() <= 256, "more than 256 steps enabled");
            let mut parent = Some(node.world);
            let last = enabled.len() - 1;
            for (i, &step) in enabled.iter().enumerate() {
                let order = (node.rank as u64) << 8 | i as u64;
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
                    parent: node.link.clone(),
                });
                let violation = match self.scope.judge_step(&mut world, step, depth) {
                    Ok(v) => v,
                    Err(breach) => {
                        out.unfaithful = Some(breach.0);
                        self.counters.stop.store(true, Relaxed);
                        return out;
                    }
                };
                let violation = violation.or_else(|| {
                    self.scope.enabled_steps(&world, &mut after);
                    after
                        .is_empty()
                        .then(|| self.scope.converged(&world, depth))
                        .flatten()
                });
                if let Some(violation) = violation {
                    out.found.push(Found {
                        order,
                        steps: path_of(&Some(link)),
                        violation,
                    });
                    continue;
                }
                let fp = fingerprint(&world, self.scope, &mut self.buf).expect("checked");
                if visited.contains(fp) {
                    out.revisits += 1;
                    continue;
                }
                self.counters.arrivals.fetch_add(1, Relaxed);
                let what = if after.is_empty() {
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
        }
        self.counters.steps.fetch_add(out.steps_applied, Relaxed);
        out
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

/// Breadth-first search of `scope` within `bound` on `jobs` threads (see the module doc).
/// The caller checked [`supported`].
pub(super) fn search(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    scope: Scope,
    jobs: usize,
    progress: &mut dyn FnMut(Progress),
) -> ExploreReport {
    let jobs = jobs.max(1);
    let mut report = ExploreReport::empty(bound, StateCache::On);
    report.engine = Engine::BreadthFirst { jobs };
    report.reduction = false;
    let root = scope.world(&bound.config, stores);
    let root_fp = fingerprint(&root, scope, &mut Buffers::default()).expect("supported");
    let mut enabled = Vec::new();
    scope.enabled_steps(&root, &mut enabled);
    if enabled.is_empty() {
        report.schedules = 1;
        report.distinct_full_states = 1;
        if let Some(v) = scope.converged(&root, 0) {
            match scope.concretize(stores, &bound.config, bound.depth_max, Vec::new(), v) {
                Ok(c) => report.counterexample = Some(c),
                Err(breach) => report.per_tab_refused = Some(breach.0),
            }
        }
        return report;
    }
    drop(root);
    let visited = Arc::new(RwLock::new(Fingerprints::default()));
    visited.write().expect("fresh").insert(root_fp);
    let counters = Counters::default();
    let limits = Limits::new(bound);
    let tab = match scope {
        Scope::Whole => None,
        Scope::Tab(c) => Some(c),
    };
    let mut best: Option<Best> = None;
    std::thread::scope(|s| {
        let (tx_back, rx_back) = mpsc::channel::<(usize, Reply)>();
        let mut to_workers = Vec::new();
        for w in 0..jobs {
            let (tx, rx) = mpsc::channel::<Command>();
            to_workers.push(tx);
            let tx_back = tx_back.clone();
            let visited = Arc::clone(&visited);
            let counters = &counters;
            s.spawn(move || {
                let initial = scope.world(&bound.config, stores);
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
                if w == 0 {
                    let world = worker.initial.try_clone().expect("checked");
                    worker.nodes.push(Node {
                        rank: 0,
                        world,
                        link: None,
                    });
                }
                for command in rx {
                    let reply = match command {
                        Command::Expand { depth } => Reply::Expanded(worker.expand(depth)),
                        Command::Settle { keep, receive } => {
                            worker.settle(keep, receive);
                            Reply::Settled
                        }
                    };
                    if tx_back.send((w, reply)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx_back);
        let mut level_sizes: Vec<u64> = vec![1];
        let mut states_in_level = 1u64;
        for depth in 0.. {
            if states_in_level == 0 {
                break;
            }
            for tx in &to_workers {
                tx.send(Command::Expand { depth }).expect("worker alive");
            }
            let mut expanded: Vec<Option<Expanded>> = (0..jobs).map(|_| None).collect();
            let mut got = 0;
            while got < jobs {
                match rx_back.recv_timeout(Duration::from_millis(200)) {
                    Ok((w, Reply::Expanded(e))) => {
                        expanded[w] = Some(e);
                        got += 1;
                    }
                    Ok((_, Reply::Settled)) => unreachable!("settled before expanding"),
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        let states = visited_len(&visited) + counters_arrivals(&counters);
                        progress(Progress {
                            fraction_done: estimate(&level_sizes, states),
                            schedules: report.schedules,
                            states,
                            steps_applied: report.steps_applied + counters_steps(&counters),
                            tab,
                        });
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => panic!("a worker died"),
                }
            }
            counters
                .arrivals
                .store(0, std::sync::atomic::Ordering::Relaxed);
            counters
                .steps
                .store(0, std::sync::atomic::Ordering::Relaxed);
            let mut arrivals: Vec<(usize, Arrival)> = Vec::new();
            let mut found: Vec<Found> = Vec::new();
            for (w, e) in expanded.into_iter().enumerate() {
                let e = e.expect("every worker answered");
                report.steps_applied += e.steps_applied;
                report.truncated += e.truncated;
                report.revisits += e.revisits;
                if report.per_tab_refused.is_none() {
                    report.per_tab_refused = e.unfaithful;
                }
                if report.limit_hit.is_none() {
                    report.limit_hit = e.limit;
                }
                arrivals.extend(e.arrivals.into_iter().map(|a| (w, a)));
                found.extend(e.found);
            }
            if report.per_tab_refused.is_some() || report.limit_hit.is_some() {
                break;
            }
            found.sort_by_key(|f| f.order);
            report.schedules += found.len() as u64;
            for f in found {
                if f.violation.invariant == crate::oracle::Invariant::Converges
                    && scope != Scope::Whole
                {
                    report.note_tab_convergence(f.steps.len());
                }
                let counterexample = match scope.concretize(
                    stores,
                    &bound.config,
                    bound.depth_max,
                    f.steps,
                    f.violation,
                ) {
                    Ok(c) => c,
                    Err(breach) => {
                        report.per_tab_refused = Some(breach.0);
                        break;
                    }
                };
                let key = (counterexample.steps.len(), depth, f.order);
                if best.as_ref().is_none_or(|b| key < b.key) {
                    best = Some(Best {
                        key,
                        counterexample,
                    });
                }
            }
            if report.per_tab_refused.is_some() {
                break;
            }
            arrivals.sort_by_key(|(_, a)| a.order);
            let mut keep: Vec<Vec<(usize, u32, Arc<Link>)>> =
                (0..jobs).map(|_| Vec::new()).collect();
            let mut rank = 0u32;
            {
                let mut vis = visited.write().expect("no reader panicked");
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
            states_in_level = rank as u64;
            report.states_cached += states_in_level;
            level_sizes.push(states_in_level);
            // Stop: in first mode at the first level with a violation; in shortest mode
            // once no longer one can come (every later one is at least `depth + 2` long
            // and loses ties to this level's).
            if let Some(b) = &best {
                if !bound.shortest || b.key.0 <= depth + 2 {
                    break;
                }
            }
            if let Some(limit) = limits.hit(visited_len(&visited)) {
                report.limit_hit = Some(limit);
                break;
            }
            // Share the next level's states out evenly.
            let target = (states_in_level as usize).div_ceil(jobs);
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
            for (w, (k, r)) in keep.into_iter().zip(receive).enumerate() {
                let k = k.into_iter().map(|(p, rank, _)| (p, rank)).collect();
                to_workers[w]
                    .send(Command::Settle {
                        keep: k,
                        receive: r,
                    })
                    .expect("worker alive");
            }
            for _ in 0..jobs {
                match rx_back.recv() {
                    Ok((_, Reply::Settled)) => {}
                    _ => panic!("a worker died"),
                }
            }
            let states = visited_len(&visited);
            progress(Progress {
                fraction_done: estimate(&level_sizes, states),
                schedules: report.schedules,
                states,
                steps_applied: report.steps_applied,
                tab,
            });
        }
        drop(to_workers);
    });
    let vis = visited.read().expect("no writer panicked");
    report.distinct_full_states = vis.len();
    report.visited_bytes = report.visited_bytes.max(vis.bytes());
    report.counterexample = best.map(|b| b.counterexample);
    report
}

fn visited_len(visited: &RwLock<Fingerprints>) -> u64 {
    visited.read().expect("no writer panicked").len()
}

fn counters_arrivals(c: &Counters) -> u64 {
    c.arrivals.load(std::sync::atomic::Ordering::Relaxed)
}

fn counters_steps(c: &Counters) -> u64 {
    c.steps.load(std::sync::atomic::Ordering::Relaxed)
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
