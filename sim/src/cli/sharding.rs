//! `--shard I/N` and `--result FILE`, shared by `fuzz`, `check` and `nightly`: run a
//! deterministic part of a campaign, and write a result that `merge` adds back up (see
//! `reconcile_sim::campaign::shard` and `reconcile_sim::campaign::merge`).

use std::path::PathBuf;

use reconcile_sim::campaign::shard::Shard;

/// `--shard I/N [--result FILE]`.
#[derive(clap::Args, Clone)]
pub struct ShardFlags {
    /// Run shard I of N only: every N-th block of seeds, from the I-th (blocks of 64 seeds;
    /// for `check`, its batches of 1000). The N shards together run exactly the seeds of
    /// the unsharded run; `reconcile-sim merge` adds their `--result` files up into its
    /// output. With `--time`, each shard runs its own blocks for that long.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Also write the run's result as JSON to FILE (atomically): its configuration, counts,
    /// first failing seeds and every shrunk scenario, for `reconcile-sim merge`. Name it
    /// `result.json` or `*.result.json` so that `merge DIR` finds it.
    #[arg(long, value_name = "FILE")]
    pub result: Option<PathBuf>,
}

impl ShardFlags {
    /// The shard to run (the whole campaign without `--shard`).
    pub fn shard(&self) -> Shard {
        self.shard.unwrap_or(Shard::WHOLE)
    }
}
