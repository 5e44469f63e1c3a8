//! reconcile-sim: a deterministic interleaving simulator and fuzz harness for the frontend
//! code that decides which transient ("live") chat rows to keep or drop when a turn's
//! durable chunks arrive.
//!
//! The modules follow the pipeline, and imports point one way only (a test checks it):
//!
//! - [`model`]: the simulated world (backend, clients, network), its steps and options,
//!   the wire types a store sees, and the [`model::store::Store`] interface it drives.
//! - [`store`]: the stores under test (the note's variants, `durable`, `exec:`).
//! - [`oracle`]: judges what each tab shows against the backend's ground truth.
//! - [`run`]: one run loop (a step source, the world, the oracle, an observer), the
//!   strategies that choose steps, and `explore`'s exhaustive search.
//! - [`trace`]: what runs leave behind: scenario files, shrinking, timelines, coverage.
//! - [`campaign`]: many runs: fuzz, the CI gate, the nightly run, benchmarks, and the one
//!   place failures are shrunk and saved.
//! - [`testing`]: hand-built interleavings (bugs A–D), differential testing, proptest
//!   strategies.
//!
//! See `docs/model.md` for every modelling choice.

pub mod campaign;
pub mod model;
pub mod oracle;
pub mod run;
pub mod store;
pub mod testing;
pub mod trace;
