//! `pct`: probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte,
//! "A Randomized Scheduler with Probabilistic Guarantees of Finding Bugs", ASPLOS 2010), as
//! shuttle's `scheduler/pct.rs` applies it, adapted to steps that name their actor.
//!
//! The actors are [`Step::actor`]: the backend and each client. Each actor gets a random
//! priority when first seen; at every step the highest-priority actor with an enabled step
//! acts (choosing uniformly among its own enabled steps, which are data choices such as
//! "delta or tool call"). At `depth − 1` change points, drawn uniformly from
//! `1..=steps_estimate`, the actor that just acted drops below every other priority (each
//! later change point lower still). A bug of depth `d` among `n` actors and `k` steps is
//! then found with probability at least `1 / (n · k^(d−1))` per run, which is what makes
//! rare orderings (a deferred reconcile flushed exactly while a newer turn streams) common.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Strategy, STRATEGY_STREAM};
use crate::step::{Actor, Step};

/// Default bug depth (`--depth`): enough for bugs A–D, whose orderings need two forced
/// priority changes at most.
pub const DEPTH_DEFAULT: u32 = 3;

/// Steps the change points are spread over. Measured: the main phase of a seeded run of
/// the shipped stores takes 30–110 steps (median ≈ 55; `config.steps_max` is 200, which
/// would waste most change points past the end of the run).
pub const STEPS_ESTIMATE: u32 = 60;

pub struct PctStrategy {
    rng: ChaCha8Rng,
    /// Actors with their initial priority, highest first.
    priority: Vec<Actor>,
    /// Demoted actors, below every initial priority, each later demotion lowest.
    demoted: Vec<Actor>,
    /// Step counts at which the acting actor is demoted, ascending.
    change_points: Vec<u32>,
    steps: u32,
    depth: u32,
}

impl PctStrategy {
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
            priority: Vec::new(),
            demoted: Vec::new(),
            change_points,
            steps: 0,
            depth,
        }
    }

    fn rank(&mut self, actor: Actor) {
        if self.priority.contains(&actor) || self.demoted.contains(&actor) {
            return;
        }
        // A newly seen actor gets a uniformly random place among the initial priorities
        // (above every demoted actor, which live in `demoted`).
        let at = self.rng.random_range(0..=self.priority.len() as u32) as usize;
        self.priority.insert(at, actor);
    }

    /// Rank of an actor: initial priorities first, then demoted ones in demotion order.
    fn position(&self, actor: &Actor) -> usize {
        match self.priority.iter().position(|p| p == actor) {
            Some(i) => i,
            None => {
                self.priority.len()
                    + self
                        .demoted
                        .iter()
                        .position(|p| p == actor)
                        .expect("ranked")
            }
        }
    }
}

impl Strategy for PctStrategy {
    fn choose(&mut self, enabled: &[Step]) -> usize {
        // Rank every newly seen actor first: an insertion shifts the ranks of the others.
        for s in enabled {
            self.rank(s.actor());
        }
        let actor = enabled
            .iter()
            .map(|s| s.actor())
            .min_by_key(|a| self.position(a))
            .expect("enabled is never empty");
        let n = enabled.iter().filter(|s| s.actor() == actor).count() as u32;
        let k = self.rng.random_range(0..n) as usize;
        let pick = enabled
            .iter()
            .enumerate()
            .filter(|(_, s)| s.actor() == actor)
            .nth(k)
            .map(|(i, _)| i)
            .expect("k < n");
        self.steps += 1;
        if self.change_points.contains(&self.steps) {
            // (Equal change points demote once: the actor is already lowest.)
            // Demote the actor that just acted below everyone (later change points lower).
            let i = self
                .priority
                .iter()
                .position(|a| *a == actor)
                .expect("ranked");
            let a = self.priority.remove(i);
            self.priority.push(a);
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
    fn same_seed_same_choices_and_highest_priority_actor_acts() {
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
        // Before the first change point, one actor keeps acting.
        let mut s = PctStrategy::new(9, 1);
        let first = s.choose(&enabled);
        for _ in 0..30 {
            assert_eq!(s.choose(&enabled), first, "depth 1 never changes priority");
        }
    }

    #[test]
    fn a_change_point_demotes_the_acting_actor() {
        let enabled = [Step::AgentDelta, Step::Send { client: 0 }];
        let mut s = PctStrategy::new(3, 2);
        let cp = s.change_points[0];
        let mut picks = Vec::new();
        for _ in 0..cp + 3 {
            picks.push(s.choose(&enabled));
        }
        let before = picks[cp as usize - 1];
        let after = picks[cp as usize];
        assert_ne!(before, after, "after the change point the other actor acts");
    }
}
