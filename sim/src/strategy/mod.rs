//! Strategies choose which enabled step runs next. One small trait, one file each.
//!
//! A strategy sees only the enabled steps (sorted, see [`Step`]) and returns an index into
//! them; the world and the oracle never see the strategy. Every strategy is seeded and is
//! the only source of scheduling randomness, so a (seed, strategy) pair is a whole run.

use crate::step::Step;

pub mod random;

/// Picks the next step among the enabled ones.
pub trait Strategy {
    /// Return an index into `enabled` (never empty).
    fn choose(&mut self, enabled: &[Step]) -> usize;
}

/// The RNG stream strategies draw from (the world options use stream 0).
pub const STRATEGY_STREAM: u64 = 1;

/// Strategy names, for the CLI and error messages.
pub const NAMES: &[&str] = &["random"];

/// Build a strategy by name for `seed`.
pub fn by_name(name: &str, seed: u64) -> Option<Box<dyn Strategy>> {
    match name {
        "random" => Some(Box::new(random::RandomStrategy::new(seed))),
        _ => None,
    }
}
