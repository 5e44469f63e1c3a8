//! reconcile-sim: a deterministic interleaving simulator and fuzz harness for the frontend
//! code that decides which transient ("live") chat rows to keep or drop when a turn's
//! durable chunks arrive.
//!
//! Data flows one way: a [`strategy`] picks one of the world's enabled [`step`]s, the
//! [`world`] applies it (backend, network, users, and the [`store`] under test), the
//! [`oracle`] judges the store's render against the backend's ground truth, and the
//! [`runner`] records the step. See `docs/model.md` for every modelling choice.

pub mod bench;
pub mod bugs;
pub mod check;
pub mod config;
pub mod corpus;
pub mod coverage;
pub mod differential;
pub mod explore;
pub mod fuzz;
pub mod fuzz_input;
pub mod nightly;
pub mod oracle;
pub mod protocol;
pub mod runner;
pub mod scenario;
pub mod schedule;
pub mod script;
pub mod shrink;
pub mod step;
pub mod store;
pub mod strategy;
pub mod timeline;
pub mod world;
