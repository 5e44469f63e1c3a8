//! `random`: uniform choice among the enabled steps, from a ChaCha8 stream of the seed.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Strategy, STRATEGY_STREAM};
use crate::model::step::Step;

/// Uniform over the enabled steps: the baseline the other strategies are measured against
/// (`docs/benchmarks.md`).
pub struct RandomStrategy {
    rng: ChaCha8Rng,
}

impl RandomStrategy {
    /// The strategy of `seed`, drawing from its own stream ([`STRATEGY_STREAM`]) so that
    /// the world options drawn from the same seed do not depend on it.
    pub fn new(seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(STRATEGY_STREAM);
        RandomStrategy { rng }
    }
}

impl Strategy for RandomStrategy {
    fn choose(&mut self, enabled: &[Step]) -> usize {
        // u32 ranges sample identically on every platform (usize would not on 32-bit).
        self.rng.random_range(0..enabled.len() as u32) as usize
    }
}
