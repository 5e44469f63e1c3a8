//! The bottom layer: small helpers every layer may use, with no knowledge of the world,
//! stores or runs: atomic file writes, fds, the `I/N` shard, work spread over threads in
//! input order, the program's name in printed commands.

pub mod fd;
pub mod fs;
pub mod parallel;
pub mod program;
pub mod shard;
