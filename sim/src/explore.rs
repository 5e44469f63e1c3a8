//! `explore`: bounded exhaustive search of every schedule of a small world, with sleep-set
//! partial-order reduction (Godefroid, "Partial-Order Methods for the Verification of
//! Concurrent Systems", 1996; the idea behind loom's and shuttle's DFS pruning).
//!
//! The search is *stateless*, like shuttle's DFS scheduler: a `World` holds boxed stores
//! and cannot be cloned, so after a backtrack the world is rebuilt by replaying the current
//! path from the start. No state is ever merged by hash: a store's render does not capture
//! its internal state (pending reconciles, in-flight fetches, queued ids), so treating two
//! states with equal renders as equal could prune real behaviour. The only pruning is the
//! sleep set, which is sound for everything the oracle checks (see [`independent`]).
//!
//! The search space: from the initial world, every enabled step, recursively, until no step
//! is enabled (the world is quiescent, so the runner's drain would be empty) and then the
//! convergence check. A schedule ends early at its first violation. `depth_max` bounds the
//! length of a schedule (a schedule cut there is counted as truncated, and the result is
//! not a verification).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

use crate::config::WorldConfig;
use crate::oracle::{check_converged, check_step, Invariant, Violation};
use crate::step::{Actor, Step};
use crate::store::StoreFactory;
use crate::world::World;

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
}

impl ExploreBound {
    /// A small world: `clients` tabs, each sending `sends_per_client`, no failures,
    /// in-order WebSocket, status sent on connect.
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
                steps_max: 0,
                drain_steps_max: 0,
            },
            depth_max: 200,
            reduction: true,
            shortest: true,
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

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExploreReport {
    pub bound: String,
    pub reduction: bool,
    /// Complete schedules run: to quiescence, or to a violation.
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

struct Frame {
    enabled: Vec<Step>,
    sleep: Vec<Step>,
    /// Next index into `enabled` to try.
    next: usize,
    /// The step taken from this frame (valid once `next > 0`).
    taken: Option<Step>,
}

/// Search every schedule within `bound`. `progress` is called every few thousand
/// schedules.
pub fn explore(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    progress: &mut dyn FnMut(Progress),
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
        counterexample: None,
    };
    let mut states: BTreeSet<u64> = BTreeSet::new();
    let mut world = World::new(config.clone(), stores);
    states.insert(fingerprint(&world));
    let mut enabled = Vec::new();
    world.enabled_steps(&mut enabled);
    let mut frames = vec![Frame {
        enabled: enabled.clone(),
        sleep: Vec::new(),
        next: 0,
        taken: None,
    }];
    let mut dirty = false;
    let mut last_report = 0u64;
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
    while let Some(top) = frames.last_mut() {
        let pick = (top.next..top.enabled.len()).find(|&i| !top.sleep.contains(&top.enabled[i]));
        let Some(i) = pick else {
            frames.pop();
            dirty = true;
            continue;
        };
        let step = top.enabled[i];
        top.next = i + 1;
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
            world = World::new(config.clone(), stores);
            for f in &frames[..frames.len() - 1] {
                let s = f.taken.expect("taken");
                let _ = world.apply(s);
                report.steps_applied += 1;
            }
            dirty = false;
        }
        report.steps_applied += 1;
        let violation = match world.apply(step) {
            Err(crash) => Some(Violation {
                invariant: Invariant::Crash,
                client: Some(crash.client),
                step_index: depth - 1,
                messages: Vec::new(),
                expected: "the store handles the input".to_string(),
                seen: vec![format!("panicked: {}", crash.message)],
            }),
            Ok(()) => check_step(&world, &step, depth - 1),
        };
        states.insert(fingerprint(&world));
        let path = |frames: &[Frame]| -> Vec<Step> {
            frames.iter().map(|f| f.taken.expect("taken")).collect()
        };
        if let Some(v) = violation {
            report.schedules += 1;
            dirty = true;
            record(&mut report, path(&frames), v);
            if !bound.shortest {
                break;
            }
            depth_max = depth - 1;
            continue;
        }
        world.enabled_steps(&mut enabled);
        if enabled.is_empty() {
            report.schedules += 1;
            dirty = true;
            if let Some(v) = check_converged(&world, depth - 1) {
                record(&mut report, path(&frames), v);
                if !bound.shortest {
                    break;
                }
                depth_max = depth - 1;
            }
        } else if depth >= depth_max {
            // Cut here: after a counterexample, only strictly shorter schedules matter.
            if report.counterexample.is_none() {
                report.truncated += 1;
            }
            dirty = true;
        } else if enabled.iter().all(|s| child_sleep.contains(s)) {
            report.sleep_blocked += 1;
            dirty = true;
        } else {
            frames.push(Frame {
                enabled: enabled.clone(),
                sleep: child_sleep,
                next: 0,
                taken: None,
            });
        }
        if report.schedules >= last_report + 4096 {
            last_report = report.schedules;
            progress(Progress {
                fraction_done: fraction_done(&frames),
                schedules: report.schedules,
            });
        }
    }
    report.distinct_states = states.len() as u64;
    report
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
        let n = f.enabled.len().max(1) as f64;
        done += weight * (f.next.saturating_sub(1)) as f64 / n;
        weight /= n;
    }
    done.min(1.0)
}

/// A hash of everything observable about the world: the backend, every client's network
/// queues and user facts, and every render. Not the stores' internal state.
pub fn fingerprint(world: &World) -> u64 {
    struct HashWriter(std::collections::hash_map::DefaultHasher);
    impl std::fmt::Write for HashWriter {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            s.hash(&mut self.0);
            Ok(())
        }
    }
    // DefaultHasher::new() uses fixed keys: the same state hashes the same in every run.
    let mut w = HashWriter(std::collections::hash_map::DefaultHasher::new());
    let _ = write!(w, "{:?}", world.backend);
    for c in &world.clients {
        let _ = write!(
            w,
            "|{:?}{:?}{:?}{:?}{:?}{}{}{}{:?}{:?}{:?}{:?}",
            c.inbox,
            c.posts,
            c.post_responses,
            c.fetch_requests,
            c.fetch_responses,
            c.scrolled_up,
            c.sends_left,
            c.scrolls_left,
            c.sent,
            c.deltas_shown,
            c.seals_shown,
            c.store.render()
        );
    }
    w.0.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert_eq!(p.schedules, 180);
        assert!(p.verified());
        let r = explore(&store, &scroll_only(), &mut |_| {});
        assert_eq!(r.schedules, 9);
        assert!(r.verified());
        // Same states either way: the reduction drops schedules, not states.
        assert_eq!(p.distinct_states, r.distinct_states);
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
            let replayed = crate::runner::replay(&store, b.config.clone(), &c.steps);
            assert!(matches!(replayed.outcome, crate::runner::Outcome::Fail(_)));
        }
        let store = by_name("durable").unwrap();
        let mut b = ExploreBound::small(2, 1);
        b.config.passive_observer = true;
        let r = explore(&store, &b, &mut |_| {});
        assert!(r.verified(), "{:?}", r.counterexample);
    }
}
