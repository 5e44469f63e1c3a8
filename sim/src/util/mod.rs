//! The bottom layer: small helpers every layer may use, with no knowledge of the world,
//! stores or runs: atomic file writes and the `I/N` shard.

pub mod fs;
pub mod shard;
