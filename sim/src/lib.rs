//! reconcile-sim: a deterministic interleaving simulator and fuzz harness for the frontend
//! code that decides which transient ("live") chat rows to keep or drop when a turn's
//! durable chunks arrive.
//!
//! The modules follow the pipeline, and imports point one way only (a test checks it):
//!
//! - [`model`]: the simulated world (backend, clients, network), its steps and options,
//!   the wire types a store sees, and the [`model::store::Store`] interface it drives.
//! - [`exec`]: the transport to a store in another process (`exec:'COMMAND'`): the line
//!   protocol, its processes, faults and timeouts.
//! - [`store`]: the stores under test, by kind: the note's tab store and its policies
//!   (`store::note`), `durable` (`store::durable`), and the registry that resolves a
//!   `--store` spec, `exec:` through [`exec`].
//! - [`oracle`]: judges what each tab shows against the backend's ground truth.
//! - [`run`]: one run: the run loop (a step source, the world, the oracle, an observer)
//!   and the strategies that choose steps.
//! - [`explore`]: the bounded exhaustive search of every schedule of a small world (a
//!   model checker over [`run`]'s pieces), its reductions, shards and result files.
//! - [`trace`]: what runs leave behind: scenario files, shrinking, timelines, coverage.
//! - [`campaign`]: many runs: fuzz, the CI gate, the nightly run, benchmarks, and the one
//!   place failures are shrunk and saved.
//! - [`testing`]: hand-built interleavings (bugs A–D), differential testing, proptest
//!   strategies.
//!
//! - [`util`]: the bottom layer every other may use: atomic writes, fds, the `I/N` shard.
//!
//! See `docs/model.md` for every modelling choice.

#![deny(missing_docs)]

pub mod campaign;
pub mod exec;
pub mod explore;
pub mod model;
pub mod oracle;
pub mod run;
pub mod store;
pub mod testing;
pub mod trace;
pub mod util;

#[cfg(test)]
mod layering;
