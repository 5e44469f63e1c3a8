//! Many runs: the parallel fuzz campaign, the CI gate, the nightly run, the cargo-fuzz
//! byte encoding and corpus, and benchmarks.

pub mod bench;
pub mod check;
pub mod corpus;
pub mod error;
pub mod findings;
pub mod fuzz;
pub mod fuzz_input;
pub mod libfuzzer;
pub mod merge;
pub mod nightly;
pub mod pipeline;
pub mod recheck;
pub mod report;
pub mod seen_runs;
pub mod settle_budget;
pub mod shard;
