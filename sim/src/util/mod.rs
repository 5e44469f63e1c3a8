//! The bottom layer: small helpers every layer may use, with no knowledge of the world,
//! stores or runs: atomic file writes, fds, the `I/N` shard.

pub mod fd;
pub mod fs;
pub mod shard;
