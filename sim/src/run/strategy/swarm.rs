//! `swarm`: swarm testing (Groce et al., ISSTA 2012; TigerBeetle's VOPR and Hypothesis use
//! it): each seed disables some step kinds and gives the rest very different weights, so
//! each run explores a lopsided corner (no scrolling; sends before anything is delivered;
//! fetch responses held back) that a uniform choice would almost never reach.
//!
//! A disabled kind still runs when nothing else is enabled, so a run always progresses and
//! the drain phase is unaffected. The per-seed choices are printed with the seed's options
//! ([`Strategy::describe`]).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Strategy, STRATEGY_STREAM};
use crate::model::step::{Step, StepKind};

/// Probability that a kind is disabled for a seed.
const DISABLE_PROBABILITY: f64 = 0.25;

/// Weighted choice by [`StepKind`], with weights and disabled kinds drawn per seed: one
/// lopsided corner of the schedule space per seed.
pub struct SwarmStrategy {
    rng: ChaCha8Rng,
    /// Weight per kind; 0 means disabled.
    weights: [u32; StepKind::COUNT],
}

impl SwarmStrategy {
    /// The strategy of `seed`: each kind disabled with probability 1/4, otherwise weighted
    /// by a power of two from 1 to 512, drawn on the strategies' stream ([`STRATEGY_STREAM`]).
    pub fn new(seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(STRATEGY_STREAM);
        let mut weights = [0u32; StepKind::COUNT];
        for w in &mut weights {
            // Weights span three orders of magnitude: 1, 2, 4, … 512.
            let exp = rng.random_range(0u32..10);
            *w = if rng.random_bool(DISABLE_PROBABILITY) {
                0
            } else {
                1 << exp
            };
        }
        SwarmStrategy { rng, weights }
    }

    fn weight(&self, step: &Step) -> u32 {
        self.weights[step.kind() as usize]
    }
}

impl Strategy for SwarmStrategy {
    fn choose(&mut self, enabled: &[Step]) -> usize {
        let total: u32 = enabled.iter().map(|s| self.weight(s)).sum();
        if total == 0 {
            // Only disabled kinds are enabled: run one anyway, uniformly, so runs progress.
            return self.rng.random_range(0..enabled.len() as u32) as usize;
        }
        let mut r = self.rng.random_range(0..total);
        for (i, s) in enabled.iter().enumerate() {
            let w = self.weight(s);
            if r < w {
                return i;
            }
            r -= w;
        }
        unreachable!("r < total")
    }

    fn describe(&self) -> String {
        let disabled: Vec<&str> = StepKind::ALL
            .iter()
            .zip(self.weights)
            .filter(|(_, w)| *w == 0)
            .map(|(k, _)| k.name())
            .collect();
        let weights: Vec<String> = StepKind::ALL
            .iter()
            .zip(self.weights)
            .filter(|(_, w)| *w > 0)
            .map(|(k, w)| format!("{}={w}", k.name()))
            .collect();
        format!(
            "swarm disabled = [{}], weights = [{}]",
            disabled.join(", "),
            weights.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disabled_kind_runs_only_when_nothing_else_is_enabled() {
        let seed = (0..1000)
            .find(|&s| SwarmStrategy::new(s).weights[StepKind::AgentDelta as usize] == 0)
            .expect("some seed disables agent-delta");
        let mut s = SwarmStrategy::new(seed);
        let mixed = [Step::AgentDelta, Step::Send { client: 0 }];
        let send_enabled = s.weight(&mixed[1]) > 0;
        for _ in 0..100 {
            let i = s.choose(&mixed);
            if send_enabled {
                assert_eq!(
                    i, 1,
                    "the disabled kind is never chosen when another is enabled"
                );
            }
        }
        assert_eq!(s.choose(&[Step::AgentDelta]), 0);
        assert!(s.describe().contains("agent-delta"));
    }

    #[test]
    fn seeds_draw_different_swarms() {
        let distinct: std::collections::BTreeSet<_> =
            (0..50).map(|s| SwarmStrategy::new(s).weights).collect();
        assert!(distinct.len() > 40);
    }
}
