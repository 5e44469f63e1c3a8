//! `pct`: probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte,
//! "A Randomized Scheduler with Probabilistic Guarantees of Finding Bugs", ASPLOS 2010), as
//! shuttle's `scheduler/pct.rs` applies it, adapted to steps that name their source.
//!
//! PCT orders *threads*: sequential sources of steps. Here a thread is a [`Thread`], finer
//! than [`Step::actor`] ([`Step::source`]): the agent, and per tab its POST handler, fetch server, WebSocket,
//! POST responses, fetch responses and user. Each thread gets a random place in the
//! priority order when first seen; at every step the highest-priority thread with an
//! enabled step acts (choosing uniformly among its own enabled steps, which are data
//! choices such as "delta or tool call", or which of two served fetch responses arrives).
//! At `depth − 1` change points, drawn uniformly from `1..=STEPS_ESTIMATE`, the thread that
//! just acted drops to the lowest priority (each later change point lower still). As in
//! Coyote and shuttle (and unlike the paper, where every thread exists from the start), a
//! thread first seen after a change point may be placed below a demoted one. A bug of depth
//! `d` among `n` threads and `k` steps is found with probability at least `1 / (n ·
//! k^(d−1))` per run.
//!
//! Why threads and not actors: with one priority per tab, "this tab's fetch response stays
//! behind while the next turn streams to the same tab" is a coin flip at every step, since
//! the delivery and the response belong to one actor. With a priority per source it is one
//! priority order. Measured with `cargo run --release -- bench` (median schedules to the
//! first failure over 101 seed ranges, depth 3): `current` inv3 went from 653 with actor
//! priorities to 26 with thread priorities (uniform random: 108); bug A from 12 to 15.
//! See docs/benchmarks.md.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Strategy, STRATEGY_STREAM};
use crate::model::step::{Source, Step};

/// Default bug depth (`--depth`).
pub const DEPTH_DEFAULT: u32 = 3;

/// The deepest bug `--depth` may ask for: `depth − 1` change points are drawn up front,
/// and a run's main phase has at most 200 steps (`steps_max`), so a deeper one would only
/// allocate change points that can never all be reached.
pub const DEPTH_MAX: u32 = 200;

/// Steps the change points are spread over. Measured: the main phase of a seeded run of
/// the shipped stores takes 30–110 steps (median ≈ 55; `config.steps_max` is 200, which
/// would waste most change points past the end of the run).
pub const STEPS_ESTIMATE: u32 = 60;

/// A PCT thread: one sequential [`Source`] of steps.
pub type Thread = Source;

/// Threads per client in [`thread_index`].
const PER_CLIENT: usize = 6;

/// The thread a step belongs to, as a dense index: the agent is 0, then six per client.
fn thread_index(step: &Step) -> usize {
    let (client, k) = match step.source() {
        Source::Agent => return 0,
        Source::PostHandler(c) => (c, 0),
        Source::FetchServer(c) => (c, 1),
        Source::WebSocket(c) => (c, 2),
        Source::PostResponses(c) => (c, 3),
        Source::FetchResponses(c) => (c, 4),
        Source::User(c) => (c, 5),
    };
    1 + PER_CLIENT * client as usize + k
}

/// PCT over [`Thread`]s: a random priority per thread, and `depth − 1` change points in
/// the first [`STEPS_ESTIMATE`] steps at which the acting thread is demoted.
pub struct PctStrategy {
    rng: ChaCha8Rng,
    /// Seen threads by [`thread_index`], highest priority first.
    order: Vec<usize>,
    /// `rank[thread index]`: its position in `order`, `None` until first seen.
    rank: Vec<Option<u32>>,
    /// Step counts at which the acting thread is demoted, ascending.
    change_points: Vec<u32>,
    steps: u32,
    depth: u32,
}

impl PctStrategy {
    /// The strategy of `seed` for bugs of depth `depth` (at least 1; [`DEPTH_DEFAULT`]
    /// unless `--depth` says otherwise). The change points are drawn now; a thread's
    /// priority when the thread is first seen.
    pub fn new(seed: u64, depth: u32) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(STRATEGY_STREAM);
        let depth = depth.max(1);
        let mut change_points: Vec<u32> = (1..depth)
            .map(|_| rng.random_range(1..=STEPS_ESTIMATE))
            .collect();
        change_points.sort_unstable();
        PctStrategy {
            rng,
            order: Vec::new(),
            rank: Vec::new(),
            change_points,
            steps: 0,
            depth,
        }
    }

    /// The rank of `thread` (0 is the highest priority). A thread seen for the first time
    /// gets a uniformly random place in the current order, as a task created mid-run does
    /// in Coyote's and shuttle's PCT.
    fn rank(&mut self, thread: usize) -> u32 {
        if let Some(Some(r)) = self.rank.get(thread) {
            return *r;
        }
        if thread >= self.rank.len() {
            self.rank.resize(thread + 1, None);
        }
        let at = self.rng.random_range(0..=self.order.len() as u32) as usize;
        self.order.insert(at, thread);
        self.reindex();
        self.rank[thread].expect("just ranked")
    }

    fn reindex(&mut self) {
        for (r, t) in self.order.iter().enumerate() {
            self.rank[*t] = Some(r as u32);
        }
    }
}

impl Strategy for PctStrategy {
    fn choose(&mut self, enabled: &[Step]) -> usize {
        // The highest-priority thread with an enabled step, and how many steps it has.
        // Threads are ranked on first sight in `enabled` order, so an insertion can shift
        // the ranks of threads seen before it in this loop: compare by thread, not rank.
        for s in enabled {
            self.rank(thread_index(s));
        }
        let mut best = (u32::MAX, usize::MAX);
        let mut count = 0u32;
        for s in enabled {
            let t = thread_index(s);
            let r = self.rank[t].expect("ranked above");
            if r < best.0 {
                best = (r, t);
                count = 1;
            } else if r == best.0 {
                count += 1;
            }
        }
        let thread = best.1;
        let k = self.rng.random_range(0..count) as usize;
        let pick = enabled
            .iter()
            .enumerate()
            .filter(|(_, s)| thread_index(s) == thread)
            .nth(k)
            .map(|(i, _)| i)
            .expect("k < count");
        self.steps += 1;
        if self.change_points.contains(&self.steps) {
            // Demote the thread that just acted to the lowest priority (as Coyote and
            // shuttle do; a thread first seen later may still be placed below it). Equal
            // change points demote once more, harmlessly: it is already lowest.
            let r = self.rank[thread].expect("ranked") as usize;
            let t = self.order.remove(r);
            self.order.push(t);
            self.reindex();
        }
        pick
    }

    fn describe(&self) -> String {
        format!(
            "pct depth = {}, change points at steps {:?} (of an estimated {STEPS_ESTIMATE})",
            self.depth, self.change_points
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_choices_and_highest_priority_thread_acts() {
        let enabled = [
            Step::AgentDelta,
            Step::Send { client: 0 },
            Step::Send { client: 1 },
        ];
        let picks = |seed| {
            let mut s = PctStrategy::new(seed, 3);
            (0..20).map(|_| s.choose(&enabled)).collect::<Vec<_>>()
        };
        assert_eq!(picks(5), picks(5));
        // Before the first change point, one thread keeps acting.
        let mut s = PctStrategy::new(9, 1);
        let first = s.choose(&enabled);
        for _ in 0..30 {
            assert_eq!(s.choose(&enabled), first, "depth 1 never changes priority");
        }
    }

    #[test]
    fn a_change_point_demotes_the_acting_thread() {
        let enabled = [Step::AgentDelta, Step::Send { client: 0 }];
        let mut s = PctStrategy::new(3, 2);
        let cp = s.change_points[0];
        let mut picks = Vec::new();
        for _ in 0..cp + 3 {
            picks.push(s.choose(&enabled));
        }
        let before = picks[cp as usize - 1];
        let after = picks[cp as usize];
        assert_ne!(
            before, after,
            "after the change point the other thread acts"
        );
    }

    #[test]
    fn one_tabs_websocket_and_fetch_responses_are_separate_threads() {
        // Both steps belong to client 0 (one actor), but to two PCT threads: at depth 1
        // each seed keeps picking one of them, and both orders occur across seeds.
        let enabled = [
            Step::DeliverEvent {
                client: 0,
                event: 1,
            },
            Step::DeliverFetchResponse {
                client: 0,
                request: crate::model::wire::RequestId(1),
            },
        ];
        let mut firsts = std::collections::BTreeSet::new();
        for seed in 0..20 {
            let mut s = PctStrategy::new(seed, 1);
            let first = s.choose(&enabled);
            for _ in 0..10 {
                assert_eq!(s.choose(&enabled), first, "seed {seed}");
            }
            firsts.insert(first);
        }
        assert_eq!(firsts.len(), 2, "both threads come first for some seed");
        assert_ne!(thread_index(&enabled[0]), thread_index(&enabled[1]));
    }
}
