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
use crate::model::step::Step;

/// Every step kind, in [`Step`] variant order (the index is [`kind_index`]).
pub const KINDS: [&str; 15] = [
    "handle-post",
    "agent-delta",
    "agent-tool-call",
    "agent-tool-result",
    "agent-end",
    "agent-fail",
    "agent-write",
    "agent-seal",
    "serve-fetch",
    "deliver-event",
    "deliver-post-response",
    "deliver-fetch-response",
    "send",
    "scroll-up",
    "scroll-down",
];

/// Probability that a kind is disabled for a seed.
const DISABLE_PROBABILITY: f64 = 0.25;

/// The index of a step's kind in [`KINDS`].
pub fn kind_index(step: &Step) -> usize {
    match step {
        Step::HandlePost { .. } => 0,
        Step::AgentDelta => 1,
        Step::AgentToolCall => 2,
        Step::AgentToolResult { .. } => 3,
        Step::AgentEnd => 4,
        Step::AgentFail => 5,
        Step::AgentWrite => 6,
        Step::AgentSeal => 7,
        Step::ServeFetch { .. } => 8,
        Step::DeliverEvent { .. } => 9,
        Step::DeliverPostResponse { .. } => 10,
        Step::DeliverFetchResponse { .. } => 11,
        Step::Send { .. } => 12,
        Step::ScrollUp { .. } => 13,
        Step::ScrollDown { .. } => 14,
    }
}

pub struct SwarmStrategy {
    rng: ChaCha8Rng,
    /// Weight per kind; 0 means disabled.
    weights: [u32; KINDS.len()],
}

impl SwarmStrategy {
    pub fn new(seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(STRATEGY_STREAM);
        let mut weights = [0u32; KINDS.len()];
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
        self.weights[kind_index(step)]
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
        let disabled: Vec<&str> = KINDS
            .iter()
            .zip(self.weights)
            .filter(|(_, w)| *w == 0)
            .map(|(k, _)| *k)
            .collect();
        let weights: Vec<String> = KINDS
            .iter()
            .zip(self.weights)
            .filter(|(_, w)| *w > 0)
            .map(|(k, w)| format!("{k}={w}"))
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
    fn kind_index_matches_kind_names() {
        let steps = [
            Step::HandlePost { client: 0 },
            Step::AgentToolResult { interrupt: true },
            Step::DeliverFetchResponse {
                client: 1,
                request: crate::model::wire::RequestId(2),
            },
            Step::ScrollDown { client: 0 },
        ];
        for s in steps {
            assert_eq!(KINDS[kind_index(&s)], s.kind());
        }
    }

    #[test]
    fn a_disabled_kind_runs_only_when_nothing_else_is_enabled() {
        let seed = (0..1000)
            .find(|&s| SwarmStrategy::new(s).weights[kind_index(&Step::AgentDelta)] == 0)
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
