//! The two search engines: depth-first with sleep sets and the state cache ([`dfs`]), and
//! breadth-first over fingerprints on several threads ([`bfs`]). Both search one
//! [`crate::explore::reduction::scope::Scope`] and return the same verdict and
//! counterexample for it.

pub mod bfs;
pub mod dfs;
