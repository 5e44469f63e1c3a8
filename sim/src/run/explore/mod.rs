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
//! The search is depth-first, like shuttle's DFS scheduler. After a backtrack the search
//! returns to the state it left from a copy of the world taken there
//! ([`World::try_clone`]), when every store can copy itself
//! ([`crate::model::store::Store::clone_box`]); otherwise the world is rebuilt by replaying the
//! current path from the start. Either way the same states are reached.
//!
//! # State caching, and why it is sound with sleep sets
//!
//! A render does not capture a store's internal state (pending reconciles, in-flight
//! fetches, queued ids), so states are never merged by render: [`fingerprint`] (the
//! observable state) is a statistic only. Merging uses the **full state key**
//! ([`state_key`]): the world's own state ([`World::hash_shared_state`],
//! [`World::hash_client_state`]: backend, every client's queues, user budgets and the
//! ground-truth facts the oracle reads) and every store's complete internal state
//! ([`crate::model::store::Store::hash_state`]). The key is exact, not a hash: the bytes the
//! state's `Hash` implementations feed, recorded verbatim (`Hash` streams are injective:
//! unequal values feed different byte sequences), so two states share a key only if they
//! are equal and no collision bound is needed. To keep millions of keys in memory, the
//! search stores them hash-consed (`StateIds`: each distinct part once, a state as a
//! number), which is still exact. Equal keys
//! mean equal futures: the same enabled steps, the same effects, the same oracle verdicts.
//! A store that cannot expose its state (`hash_state` returns false, e.g. an exec store)
//! turns caching off for the whole search ([`StateCache::Unsupported`]), which is then the
//! stateless search.
//!
//! Plain "seen, so prune" is unsound together with sleep sets (a state first explored with
//! a large sleep set skipped steps a later visit with a smaller sleep set must take). The
//! cache therefore follows Godefroid (1996), ch. 6, "state-space caching and sleep sets",
//! extended with a depth budget. For each state `s` it stores `(Z, b)`: the sleep set `s`
//! was explored with and the budget `b` of that exploration (how many further steps it was
//! allowed; unbounded when nothing below `s` was cut at `depth_max` or ended in a
//! violation). Invariant: *every schedule suffix from `s` of at most `b` steps whose first
//! step is not in `Z` is covered* (explored, or equivalent by commuting independent steps
//! to an explored one, which is what a sleep set guarantees), with every violation on it
//! recorded. Because the key determines the future, "covered from `s`" does not depend on
//! the path that reached `s`. Reaching `s` again with sleep set `Z'` and `r` steps left:
//! - `b ≥ r` and `Z ⊆ Z'`: the stateless search from here would explore the suffixes not
//!   starting in `Z'` ⊇ `Z`, of at most `r ≤ b` steps: all covered. **Pruned.**
//! - `b ≥ r` and `Z ⊄ Z'`: only suffixes starting with a step of `Z \ Z'` are uncovered:
//!   explore just those (the sleep set starts at `Z'` and grows as usual), then store
//!   `Z ∩ Z'` with budget `min(b, b_new)`.
//! - `b < r` (first reached deeper, so its exploration was cut shorter) or `s` is still
//!   being explored: explored as if new, storing `Z'`.
//!
//! The oracle's step check depends on the step as well as the state, so it runs on every
//! arrival, before the cache is consulted: the cache only ever skips steps *out of* a
//! state already searched. In `shortest` mode `depth_max` shrinks after each
//! counterexample; a violation below `s` makes `b` finite (`depth_max − depth` at the end
//! of `s`'s exploration, smaller than the violation's distance from `s`), so when `s` is
//! reached again closer to the root, where that violation would make a shorter
//! counterexample, `b < r` and `s` is searched again. Truncation works the same way: a
//! state cut at `depth_max` never counts as fully explored for a visit with more budget.
#![allow(missing_docs)]

use std::hash::{Hash, Hasher};

use rustc_hash::FxHashMap;

use serde::{Deserialize, Serialize};

use crate::model::config::WorldConfig;
use crate::model::step::{Actor, Step};
use crate::model::store::StoreFactory;
use crate::model::world::World;
use crate::oracle::{check_converged, Violation};

/// The declared independence relation: `a` and `b` commute (applying them in either order
/// from any state where both are enabled gives the same state, neither disables the
/// other) **and** the oracle's verdict after each depends only on state the other does not
/// touch. Sleep sets are sound for any relation with that property; everything not listed
/// here is treated as dependent.
///
/// - Steps of two different clients commute, except two `Send`s (message ids are global
///   and assigned in send order, so swapping two sends renames the messages). A client
///   step touches only that client's store, inbox, queues and user facts, and the oracle
///   judges only the client the step touched.
/// - A backend step and a step of client `c` commute unless the backend step is
///   `HandlePost {c}` (reads `c`'s POST queue, writes its POST responses) or
///   `ServeFetch {c}` (reads `c`'s fetch requests, writes its responses). Broadcasts only
///   append to inboxes: a delivery takes an event already within the reordering window,
///   which an append never pushes out. A fetch response carries a snapshot taken when it
///   was served, so later backend steps do not change it; and the DB rows the oracle
///   looks up by `seq` never change once written.
/// - Two backend steps commute only when one is `ServeFetch` and the other neither writes
///   the DB (`AgentWrite`, `HandlePost`) nor serves the same client: serving reads the DB
///   and a client queue; agent streaming, `status`, `turn-sealed` and consumption touch
///   neither.
pub fn independent(a: &Step, b: &Step) -> bool {
    match (a.actor(), b.actor()) {
        (Actor::Client(x), Actor::Client(y)) => {
            x != y && !(matches!(a, Step::Send { .. }) && matches!(b, Step::Send { .. }))
        }
        (Actor::Backend, Actor::Client(c)) => !backend_touches_client(a, c),
        (Actor::Client(c), Actor::Backend) => !backend_touches_client(b, c),
        (Actor::Backend, Actor::Backend) => match (a, b) {
            (Step::ServeFetch { client: x }, other) | (other, Step::ServeFetch { client: x }) => {
                match other {
                    Step::ServeFetch { client: y } => x != y,
                    Step::AgentWrite | Step::HandlePost { .. } => false,
                    _ => true,
                }
            }
            _ => false,
        },
    }
}

fn backend_touches_client(step: &Step, c: u8) -> bool {
    matches!(step, Step::HandlePost { client } | Step::ServeFetch { client } if *client == c)
}

/// What to search.
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
    /// in-order WebSocket, status sent on connect. Stateless search.
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

    /// One line naming the bound.
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

/// The shortest violating schedule found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counterexample {
    pub steps: Vec<Step>,
    pub violation: Violation,
}

/// Whether the search merged equal states.
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

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExploreReport {
    pub bound: String,
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
    pub counterexample: Option<Counterexample>,
}

impl ExploreReport {
    /// True when the whole bounded space was searched and nothing broke.
    pub fn verified(&self) -> bool {
        self.counterexample.is_none() && self.truncated == 0
    }
}

/// Progress, for a bar: the fraction of the search tree finished, and schedules so far.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub fraction_done: f64,
    pub schedules: u64,
}

/// A state's exploration budget in the cache: nothing below it was cut, any budget is
/// covered.
const BUDGET_COMPLETE: u32 = u32::MAX;
/// The budget of a state whose search is still running (or was cut before it began):
/// covers nothing yet.
const BUDGET_NONE: u32 = 0;

/// What the cache knows about one full state (see the module doc).
struct CacheEntry {
    /// The sleep set `Z`, as a bit mask over the state's enabled steps (in their order).
    sleep: u64,
    /// `b`: how many further steps the search below this state was allowed.
    budget: u32,
}

/// What a frame must write back to the cache when its search ends.
struct CacheSlot {
    key: u32,
    /// For a revisit that searched only `Z \ Z'`: the budget of the earlier search, which
    /// still bounds what is covered.
    earlier_budget: Option<u32>,
}

struct Frame {
    /// Steps taken to reach this state.
    depth: usize,
    enabled: Vec<Step>,
    /// The steps to search from here, in enabled order.
    todo: Vec<Step>,
    /// The current sleep set (grows by each step searched, with reduction on).
    sleep: Vec<Step>,
    /// Next index into `todo` to try.
    next: usize,
    /// The step taken from this frame (valid once `next > 0`).
    taken: Option<Step>,
    /// Nothing below this state was cut at `depth_max` or ended in a violation, and no
    /// pruned revisit below it relied on a cut search.
    complete: bool,
    cache: Option<CacheSlot>,
    /// A copy of the world in this state (when the stores can copy themselves), to come
    /// back to instead of replaying the path.
    snapshot: Option<World>,
}

/// A `Hasher` that records what it is fed instead of hashing it: the exact state key.
/// Integers are written as LEB128 varints (self-delimiting, so the stream stays
/// injective and keys stay short); `finish` is never used by `Hash` implementations.
#[derive(Default)]
pub struct KeyWriter {
    pub bytes: Vec<u8>,
}

impl KeyWriter {
    fn varint(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.bytes.push((n as u8) | 0x80);
            n >>= 7;
        }
        self.bytes.push(n as u8);
    }
}

impl Hasher for KeyWriter {
    fn finish(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.bytes.hash(&mut h);
        h.finish()
    }
    fn write(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }
    fn write_u8(&mut self, n: u8) {
        self.bytes.push(n);
    }
    fn write_u16(&mut self, n: u16) {
        self.varint(n.into());
    }
    fn write_u32(&mut self, n: u32) {
        self.varint(n.into());
    }
    fn write_u64(&mut self, n: u64) {
        self.varint(n);
    }
    fn write_usize(&mut self, n: usize) {
        self.varint(n as u64);
    }
}

/// Client `client`'s part of the state into `part` (cleared first): its network queues,
/// budget and facts, then its store's state, length-prefixed. False when the store cannot
/// expose its state. `scratch` is reused between calls.
fn client_part(
    world: &World,
    client: usize,
    part: &mut KeyWriter,
    scratch: &mut KeyWriter,
) -> bool {
    part.bytes.clear();
    world.hash_client_state(client, part);
    scratch.bytes.clear();
    if !world.clients()[client].store().hash_state(scratch) {
        return false;
    }
    part.write_usize(scratch.bytes.len());
    part.bytes.extend_from_slice(&scratch.bytes);
    true
}

/// The full state key of `world` into `key` (cleared first): the shared state, then each
/// client's part, length-prefixed so that one part cannot run into the next. Exact: equal
/// keys, equal states. False when a store cannot expose its state. The search uses the
/// same parts through [`StateIds`]; this flat form is the definition, for tests.
pub fn state_key(world: &World, key: &mut KeyWriter, scratch: &mut KeyWriter) -> bool {
    key.bytes.clear();
    world.hash_shared_state(key);
    let mut part = KeyWriter::default();
    for client in 0..world.clients().len() {
        if !client_part(world, client, &mut part, scratch) {
            return false;
        }
        key.write_usize(part.bytes.len());
        key.bytes.extend_from_slice(&part.bytes);
    }
    true
}

/// Exact state keys made small by hash-consing: each part of a state (the shared state,
/// each client's part) is stored once and named by a number, and the parts' numbers are
/// folded pairwise, one table per position, into one number per state. Two states get the
/// same number iff every part has the same bytes, i.e. iff their [`state_key`]s are equal:
/// no hashing, no collision. Worlds of a search differ in a few parts at a time, so the
/// parts are shared widely and a state costs a few table slots instead of its full bytes.
#[derive(Default)]
struct StateIds {
    parts: FxHashMap<Box<[u8]>, u32>,
    /// `folds[i]`: (number so far, number of client `i`'s part) → number so far.
    folds: Vec<FxHashMap<(u32, u32), u32>>,
    /// Bytes of the distinct parts stored.
    part_bytes: u64,
    part: KeyWriter,
    scratch: KeyWriter,
}

impl StateIds {
    fn intern(parts: &mut FxHashMap<Box<[u8]>, u32>, bytes: &[u8], total: &mut u64) -> u32 {
        if let Some(&id) = parts.get(bytes) {
            return id;
        }
        let id = u32::try_from(parts.len()).expect("fewer than 2^32 distinct parts");
        *total += bytes.len() as u64;
        parts.insert(bytes.into(), id);
        id
    }

    /// The number of `world`'s state, or `None` if a store cannot expose its state.
    fn id(&mut self, world: &World) -> Option<u32> {
        self.part.bytes.clear();
        world.hash_shared_state(&mut self.part);
        let mut id = Self::intern(&mut self.parts, &self.part.bytes, &mut self.part_bytes);
        for client in 0..world.clients().len() {
            if !client_part(world, client, &mut self.part, &mut self.scratch) {
                return None;
            }
            let p = Self::intern(&mut self.parts, &self.part.bytes, &mut self.part_bytes);
            if self.folds.len() <= client {
                self.folds.push(FxHashMap::default());
            }
            let fold = &mut self.folds[client];
            let next = u32::try_from(fold.len()).expect("fewer than 2^32 distinct states");
            id = *fold.entry((id, p)).or_insert(next);
        }
        Some(id)
    }
}

/// Search every schedule within `bound`. `progress` is called every few thousand
/// schedules.
pub fn explore(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    progress: &mut dyn FnMut(Progress),
) -> ExploreReport {
    search(stores, bound, progress, None)
}

/// Called with the world and the path to it on every arrival at a state (tests).
type ArrivalHook<'a> = &'a mut dyn FnMut(&World, &[Step]);

fn search(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    progress: &mut dyn FnMut(Progress),
    mut on_arrival: Option<ArrivalHook<'_>>,
) -> ExploreReport {
    let config = bound.config.clone();
    let mut depth_max = bound.depth_max;
    let mut report = ExploreReport {
        bound: bound.describe(),
        reduction: bound.reduction,
        schedules: 0,
        truncated: 0,
        sleep_blocked: 0,
        steps_applied: 0,
        distinct_states: 0,
        state_cache: StateCache::Off,
        states_cached: 0,
        distinct_full_states: 0,
        revisits_pruned: 0,
        revisits_partial: 0,
        state_key_bytes: 0,
        counterexample: None,
    };
    let mut states: rustc_hash::FxHashSet<u64> = Default::default(); // counted, never iterated
    let mut cache: FxHashMap<u32, CacheEntry> = FxHashMap::default();
    let mut ids = StateIds::default();
    let mut world = World::new(config.clone(), stores);
    let mut root_id = None;
    if bound.state_cache {
        root_id = ids.id(&world);
        report.state_cache = if root_id.is_some() {
            StateCache::On
        } else {
            StateCache::Unsupported
        };
    }
    let caching = report.state_cache == StateCache::On;
    states.insert(fingerprint(&world));
    if let Some(hook) = on_arrival.as_mut() {
        hook(&world, &[]);
    }
    let mut enabled = Vec::new();
    world.enabled_steps(&mut enabled);
    if enabled.is_empty() {
        report.schedules = 1;
        if let Some(v) = check_converged(&world, 0) {
            report.counterexample = Some(Counterexample {
                steps: Vec::new(),
                violation: v,
            });
        }
        report.distinct_states = 1;
        return report;
    }
    let mut frames = vec![Frame {
        depth: 0,
        enabled: enabled.clone(),
        todo: enabled.clone(),
        sleep: Vec::new(),
        next: 0,
        taken: None,
        complete: true,
        cache: None,
        snapshot: world.try_clone(),
    }];
    let copying = frames[0].snapshot.is_some();
    if let Some(root_key) = root_id.filter(|_| enabled.len() <= 64) {
        cache.insert(
            root_key,
            CacheEntry {
                sleep: 0,
                budget: BUDGET_NONE,
            },
        );
        frames[0].cache = Some(CacheSlot {
            key: root_key,
            earlier_budget: None,
        });
    }
    let mut dirty = false;
    let mut last_report = 0u64;
    while let Some(top) = frames.last_mut() {
        // After a counterexample, a step from a state at depth_max could only lead to a
        // longer one.
        let step_allowed = top.depth < depth_max;
        let Some(&step) = top.todo.get(top.next).filter(|_| step_allowed) else {
            let done = frames.pop().expect("non-empty");
            dirty = true;
            let complete = done.complete && done.next >= done.todo.len();
            if let Some(slot) = done.cache {
                let budget = if complete {
                    BUDGET_COMPLETE
                } else {
                    u32::try_from(depth_max.saturating_sub(done.depth)).unwrap_or(u32::MAX - 1)
                };
                let budget = slot.earlier_budget.map_or(budget, |b| b.min(budget));
                if let Some(e) = cache.get_mut(&slot.key) {
                    e.budget = budget;
                }
            }
            if let Some(parent) = frames.last_mut() {
                parent.complete &= complete;
            }
            continue;
        };
        top.next += 1;
        top.taken = Some(step);
        let child_sleep: Vec<Step> = if bound.reduction {
            top.sleep
                .iter()
                .filter(|u| independent(u, &step))
                .copied()
                .collect()
        } else {
            Vec::new()
        };
        if bound.reduction {
            top.sleep.push(step);
        }
        let depth = frames.len(); // schedule length once `step` is applied
        if dirty {
            let top = frames.last_mut().expect("non-empty");
            let last_use = top.next >= top.todo.len();
            match top.snapshot.as_ref() {
                // The last step from this state: the copy is not needed again.
                Some(_) if last_use => world = top.snapshot.take().expect("checked"),
                Some(copy) => world = copy.try_clone().expect("copied once already"),
                None => {
                    world = World::new(config.clone(), stores);
                    for f in &frames[..frames.len() - 1] {
                        let s = f.taken.expect("taken");
                        let _ = world.apply_into(s, &mut ());
                        report.steps_applied += 1;
                    }
                }
            }
            dirty = false;
        }
        report.steps_applied += 1;
        let violation = crate::run::judge_step(&mut world, step, depth - 1, &mut ());
        states.insert(fingerprint(&world));
        let path = |frames: &[Frame]| -> Vec<Step> {
            frames.iter().map(|f| f.taken.expect("taken")).collect()
        };
        if let Some(hook) = on_arrival.as_mut() {
            hook(&world, &path(&frames));
        }
        // Where this arrival ends, if it does: the parent learns whether it was complete.
        let mut ended_incomplete = false;
        let mut push: Option<Frame> = None;
        if let Some(v) = violation {
            report.schedules += 1;
            ended_incomplete = true;
            record(&mut report, path(&frames), v);
            if !bound.shortest {
                break;
            }
            depth_max = depth - 1;
        } else {
            world.enabled_steps(&mut enabled);
            if enabled.is_empty() {
                if let Some(v) = check_converged(&world, depth - 1) {
                    report.schedules += 1;
                    ended_incomplete = true;
                    record(&mut report, path(&frames), v);
                    if !bound.shortest {
                        break;
                    }
                    depth_max = depth - 1;
                } else if let Some(key) = caching.then(|| ids.id(&world)).flatten() {
                    match cache.entry(key) {
                        std::collections::hash_map::Entry::Occupied(_) => {
                            report.revisits_pruned += 1;
                        }
                        std::collections::hash_map::Entry::Vacant(slot) => {
                            report.schedules += 1;
                            slot.insert(CacheEntry {
                                sleep: 0,
                                budget: BUDGET_COMPLETE,
                            });
                        }
                    }
                } else {
                    report.schedules += 1;
                }
            } else if depth >= depth_max {
                // Cut here: after a counterexample, only strictly shorter schedules matter.
                if report.counterexample.is_none() {
                    report.truncated += 1;
                }
                ended_incomplete = true;
            } else {
                // Sleeping steps that are not enabled here can never be taken from here:
                // dropping them only shrinks the sleep set (more search, never less) and
                // keeps it a subset of the enabled steps, as the cache's bit masks need.
                let sleep: Vec<Step> = child_sleep
                    .into_iter()
                    .filter(|s| enabled.binary_search(s).is_ok())
                    .collect();
                let mut frame = Frame {
                    depth,
                    enabled: enabled.clone(),
                    todo: Vec::new(),
                    sleep,
                    next: 0,
                    taken: None,
                    complete: true,
                    cache: None,
                    snapshot: None,
                };
                let mut todo_mask = !mask_of(&frame.enabled, &frame.sleep);
                let key = (caching && frame.enabled.len() <= 64)
                    .then(|| ids.id(&world))
                    .flatten();
                if let Some(key) = key {
                    let sleep_mask = mask_of(&frame.enabled, &frame.sleep);
                    let remaining = u32::try_from(depth_max - depth).unwrap_or(u32::MAX - 1);
                    match cache.get_mut(&key) {
                        None => {
                            cache.insert(
                                key,
                                CacheEntry {
                                    sleep: sleep_mask,
                                    budget: BUDGET_NONE,
                                },
                            );
                            frame.cache = Some(CacheSlot {
                                key,
                                earlier_budget: None,
                            });
                        }
                        Some(e) if e.budget != BUDGET_NONE && e.budget >= remaining => {
                            if e.sleep & !sleep_mask == 0 {
                                // Godefroid's Z ⊆ Z': everything is covered.
                                report.revisits_pruned += 1;
                                if e.budget != BUDGET_COMPLETE {
                                    ended_incomplete = true;
                                }
                                todo_mask = 0;
                                frame.cache = None;
                            } else {
                                // Search only Z \ Z', remember Z ∩ Z'.
                                report.revisits_partial += 1;
                                todo_mask = e.sleep & !sleep_mask;
                                let earlier = e.budget;
                                e.sleep &= sleep_mask;
                                e.budget = BUDGET_NONE;
                                frame.cache = Some(CacheSlot {
                                    key,
                                    earlier_budget: Some(earlier),
                                });
                            }
                        }
                        Some(e) => {
                            // Searched with less budget (or still running): as if new.
                            report.revisits_partial += 1;
                            e.sleep = sleep_mask;
                            e.budget = BUDGET_NONE;
                            frame.cache = Some(CacheSlot {
                                key,
                                earlier_budget: None,
                            });
                        }
                    }
                    if frame.cache.is_some() {
                        frame.todo = select(&frame.enabled, todo_mask);
                        if frame.todo.is_empty() {
                            report.sleep_blocked += 1;
                        }
                        push = Some(frame);
                    }
                } else {
                    frame.todo = select(&frame.enabled, todo_mask);
                    if frame.todo.is_empty() {
                        report.sleep_blocked += 1;
                    } else {
                        push = Some(frame);
                    }
                }
            }
        }
        if ended_incomplete {
            frames.last_mut().expect("parent").complete = false;
        }
        match push {
            Some(mut frame) => {
                if copying && frame.todo.len() > 1 {
                    // Needed to come back here for the second step on.
                    frame.snapshot = world.try_clone();
                }
                frames.push(frame);
            }
            None => dirty = true,
        }
        if report.schedules + report.revisits_pruned >= last_report + 4096 {
            last_report = report.schedules + report.revisits_pruned;
            progress(Progress {
                fraction_done: fraction_done(&frames),
                schedules: report.schedules,
            });
        }
    }
    report.distinct_states = states.len() as u64;
    report.states_cached = cache.len() as u64;
    if caching {
        report.state_key_bytes = ids.part_bytes;
        report.distinct_full_states = ids.folds.last().map_or(0, |f| f.len() as u64);
    }
    report
}

/// The bits of `subset` (a subset of `enabled`, both sorted) as a mask over `enabled`.
fn mask_of(enabled: &[Step], subset: &[Step]) -> u64 {
    subset
        .iter()
        .filter_map(|s| enabled.binary_search(s).ok())
        .filter(|&i| i < 64)
        .fold(0, |m, i| m | 1 << i)
}

/// The steps of `enabled` whose bit is set in `mask`, in order (every step past the 64th
/// is always selected: such states are never cached, so they are searched in full).
fn select(enabled: &[Step], mask: u64) -> Vec<Step> {
    enabled
        .iter()
        .enumerate()
        .filter(|&(i, _)| i >= 64 || mask & (1 << i) != 0)
        .map(|(_, s)| *s)
        .collect()
}

fn record(report: &mut ExploreReport, steps: Vec<Step>, violation: Violation) {
    if report
        .counterexample
        .as_ref()
        .is_none_or(|c| steps.len() < c.steps.len())
    {
        report.counterexample = Some(Counterexample { steps, violation });
    }
}

/// The share of the tree already searched, assuming equal subtrees per choice.
fn fraction_done(frames: &[Frame]) -> f64 {
    let mut done = 0.0;
    let mut weight = 1.0;
    for f in frames {
        let n = f.todo.len().max(1) as f64;
        done += weight * (f.next.saturating_sub(1)) as f64 / n;
        weight /= n;
    }
    done.min(1.0)
}

/// A hash of everything observable about the world: the backend, every client's network
/// queues, budgets and user facts, and every render. Not the stores' internal state.
pub fn fingerprint(world: &World) -> u64 {
    // DefaultHasher::new() uses fixed keys: the same state hashes the same in every run.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    world.hash_shared_state(&mut h);
    for (i, c) in world.clients().iter().enumerate() {
        world.hash_client_state(i, &mut h);
        c.render().hash(&mut h);
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::{check_step, Invariant};
    use crate::store::{by_name, StoreKind};
    use std::collections::BTreeSet;

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

    /// Every full state key reached (at every arrival), and the report.
    fn reached(store: &StoreKind, b: &ExploreBound) -> (BTreeSet<Vec<u8>>, ExploreReport) {
        let mut keys: BTreeSet<Vec<u8>> = BTreeSet::new();
        let (mut key, mut scratch) = (KeyWriter::default(), KeyWriter::default());
        let report = search(
            store,
            b,
            &mut |_| {},
            Some(&mut |w: &World, _: &[Step]| {
                assert!(state_key(w, &mut key, &mut scratch));
                keys.insert(key.bytes.clone());
            }),
        );
        (keys, report)
    }

    /// Small bounds for the cross-checks: (store, sends, one sender, deltas, window,
    /// tool calls, status on connect).
    const CROSS_CHECK_BOUNDS: &[(&str, u8, bool, u8, u8, u8, bool)] = &[
        ("durable", 1, true, 1, 1, 0, true),
        ("durable", 1, true, 1, 1, 0, false),
        ("durable", 1, true, 0, 1, 1, true),
        ("current", 1, true, 1, 1, 0, true),
        ("current", 1, true, 0, 2, 0, true),
        ("current", 1, true, 0, 1, 1, true),
        ("naive", 1, true, 1, 1, 0, true),
        ("naive", 2, true, 0, 1, 0, true),
        ("canary", 1, true, 1, 1, 0, false),
        ("canary", 2, true, 0, 1, 0, true),
        ("membership", 1, true, 0, 1, 0, true),
        ("fix-abc", 1, true, 0, 1, 0, true),
    ];

    fn cross_check_bound(
        (_, sends, one_sender, deltas, window, tool_calls, status): (
            &str,
            u8,
            bool,
            u8,
            u8,
            u8,
            bool,
        ),
    ) -> ExploreBound {
        let mut b = ExploreBound::small(2, sends);
        b.config.passive_observer = one_sender;
        b.config.deltas_per_segment_max = deltas;
        b.config.ws_reorder_window = window;
        b.config.tool_calls_per_turn_max = tool_calls;
        b.config.status_on_connect = status;
        b
    }

    /// The cache is sound: on every small bound, the search with the cache reaches exactly
    /// the full states the stateless search reaches and gives the same verdict (the same
    /// invariant, the same shortest counterexample length, and with `--first` the very
    /// same counterexample, since a pruned subtree never holds a violation).
    #[test]
    fn state_cache_reaches_the_same_states_and_verdicts_as_the_stateless_search() {
        for &case in CROSS_CHECK_BOUNDS {
            let store = by_name(case.0).unwrap();
            let b = cross_check_bound(case);
            for shortest in [true, false] {
                let mut off = b.clone();
                off.shortest = shortest;
                let mut on = off.clone();
                on.state_cache = true;
                let (keys_off, r_off) = reached(&store, &off);
                let (keys_on, r_on) = reached(&store, &on);
                let what = format!("{} shortest={shortest} {}", case.0, off.describe());
                assert_eq!(r_on.state_cache, StateCache::On);
                assert_eq!(r_off.verified(), r_on.verified(), "{what}");
                let verdict = |r: &ExploreReport| {
                    r.counterexample
                        .as_ref()
                        .map(|c| (c.violation.invariant, c.steps.len()))
                };
                assert_eq!(verdict(&r_off), verdict(&r_on), "{what}");
                if shortest {
                    assert_eq!(keys_off, keys_on, "{what}: reached states differ");
                    assert_eq!(r_off.distinct_states, r_on.distinct_states, "{what}");
                } else {
                    assert_eq!(r_off.counterexample, r_on.counterexample, "{what}");
                    assert!(keys_on.is_subset(&keys_off), "{what}");
                }
                if r_on.verified() {
                    // Every reached state that is not quiescent was searched from, once.
                    assert!(r_on.states_cached <= keys_on.len() as u64, "{what}");
                    assert!(r_on.revisits_pruned > 0, "{what}: nothing merged");
                    assert!(r_on.steps_applied < r_off.steps_applied, "{what}");
                }
            }
        }
        // Plain enumeration with the cache reaches the same states as with sleep sets.
        let store = by_name("durable").unwrap();
        let mut b = cross_check_bound(CROSS_CHECK_BOUNDS[0]);
        let (reduced, _) = reached(&store, &b);
        b.reduction = false;
        b.state_cache = true;
        let (plain_cached, r) = reached(&store, &b);
        assert!(r.verified());
        assert_eq!(reduced, plain_cached);
    }

    /// A store that says its state but cannot copy itself: the search replays paths.
    struct NoCopy(Box<dyn crate::model::store::Store>);
    impl crate::model::store::Store for NoCopy {
        fn handle(&mut self, input: &crate::model::wire::Input) -> crate::model::store::Answer {
            self.0.handle(input)
        }
        fn render(&self) -> &[crate::model::wire::RenderRow] {
            self.0.render()
        }
        fn hash_state(&self, state: &mut dyn Hasher) -> bool {
            self.0.hash_state(state)
        }
    }
    struct NoCopyDurable;
    impl StoreFactory for NoCopyDurable {
        fn name(&self) -> String {
            "durable-no-copy".into()
        }
        fn make(&self, c: crate::model::wire::ClientId) -> Box<dyn crate::model::store::Store> {
            Box::new(NoCopy(by_name("durable").unwrap().make(c)))
        }
    }

    #[test]
    fn coming_back_by_copy_and_by_replay_search_the_same() {
        for (scrolls, window, cache) in [(1, 1, true), (0, 2, true), (0, 1, false)] {
            let mut b = ExploreBound::small(2, 1);
            b.config.passive_observer = true;
            b.config.scrolls_per_client = scrolls;
            b.config.ws_reorder_window = window;
            b.config.deltas_per_segment_max = 0;
            b.state_cache = cache;
            let copied = explore(&by_name("durable").unwrap(), &b, &mut |_| {});
            let replayed = explore(&NoCopyDurable, &b, &mut |_| {});
            assert!(copied.steps_applied < replayed.steps_applied);
            assert_eq!(
                ExploreReport {
                    steps_applied: 0,
                    ..copied
                },
                ExploreReport {
                    steps_applied: 0,
                    ..replayed
                }
            );
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

    /// The key covers every field that matters: two different paths that reach the same
    /// key must have the same future. Random walks over richer worlds than the search
    /// tests use (two senders, reordering, scrolls, tool calls) collect pairs of different
    /// paths to one key; each pair is replayed and then driven by the same seeded random
    /// continuation, and at every step both worlds must offer the same steps, show the
    /// same renders, get the same verdict and keep equal keys. A field that matters but is
    /// left out of a key makes two different states share a key, and their futures part
    /// here. (A field implied by the rest of the state, e.g. a store's `sealed_len` by its
    /// rows, cannot be caught this way, and cannot make the cache unsound either.)
    #[test]
    fn states_with_equal_keys_have_equal_futures() {
        use rand::{RngExt, SeedableRng};
        let mut pairs_checked = 0;
        for store in crate::store::STORES {
            for variant in 0..2u64 {
                let mut config = ExploreBound::small(2, 2).config;
                config.scrolls_per_client = 1;
                config.ws_reorder_window = 2;
                config.tool_calls_per_turn_max = variant as u8;
                config.deltas_per_segment_max = 2 - variant as u8;
                config.status_on_connect = variant == 0;
                let mut first_path: std::collections::BTreeMap<Vec<u8>, Vec<Step>> =
                    Default::default();
                let mut merged: Vec<(Vec<Step>, Vec<Step>)> = Vec::new();
                let (mut key, mut scratch) = (KeyWriter::default(), KeyWriter::default());
                let mut enabled = Vec::new();
                for walk in 0..300u64 {
                    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(walk + 1000 * variant);
                    let mut world = World::new(config.clone(), store);
                    let mut path = Vec::new();
                    loop {
                        world.enabled_steps(&mut enabled);
                        if enabled.is_empty() || path.len() > 80 {
                            break;
                        }
                        let step = enabled[rng.random_range(0..enabled.len())];
                        if world.apply(step).crash.is_some() {
                            break;
                        }
                        path.push(step);
                        assert!(state_key(&world, &mut key, &mut scratch));
                        match first_path.get(&key.bytes) {
                            Some(p) if *p != path && merged.len() < 40 => {
                                merged.push((p.clone(), path.clone()))
                            }
                            Some(_) => {}
                            None => {
                                first_path.insert(key.bytes.clone(), path.clone());
                            }
                        }
                    }
                }
                assert!(
                    merged.len() >= 20,
                    "{}: too few merges to check",
                    store.name
                );
                for (i, (p, q)) in merged.iter().enumerate() {
                    let mut w1 = World::new(config.clone(), store);
                    let mut w2 = World::new(config.clone(), store);
                    p.iter().for_each(|s| drop(w1.apply(*s)));
                    q.iter().for_each(|s| drop(w2.apply(*s)));
                    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(i as u64);
                    let (mut e1, mut e2) = (Vec::new(), Vec::new());
                    let (mut k1, mut k2) = (KeyWriter::default(), KeyWriter::default());
                    for n in 0..80 {
                        let what = format!("{}: {p:?} vs {q:?}, step {n} after", store.name);
                        assert!(state_key(&w1, &mut k1, &mut scratch));
                        assert!(state_key(&w2, &mut k2, &mut scratch));
                        assert_eq!(k1.bytes, k2.bytes, "{what}");
                        for (c1, c2) in w1.clients().iter().zip(w2.clients()) {
                            assert_eq!(c1.render(), c2.render(), "{what}");
                        }
                        w1.enabled_steps(&mut e1);
                        w2.enabled_steps(&mut e2);
                        assert_eq!(e1, e2, "{what}");
                        if e1.is_empty() {
                            assert_eq!(check_converged(&w1, 0), check_converged(&w2, 0));
                            break;
                        }
                        let step = e1[rng.random_range(0..e1.len())];
                        let (r1, r2) = (w1.apply(step), w2.apply(step));
                        assert_eq!(r1, r2, "{what}");
                        if r1.crash.is_some() {
                            break;
                        }
                        assert_eq!(check_step(&w1, &step, 0), check_step(&w2, &step, 0));
                    }
                    pairs_checked += 1;
                }
            }
        }
        assert!(pairs_checked >= 300);
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
