//! The integration tests: one binary (one link, one process to schedule), a module per
//! area, the helpers they share in `support`. Most drive the real binary; regression tests
//! are named after the bug they pin.

mod buggy;
mod bugs;
mod classes;
mod cli;
mod cli_fuzzing;
mod cli_scenarios;
mod contract;
mod doc_examples;
mod docs;
mod exec;
mod exec_findings;
mod explore_figures;
mod gate;
mod import;
mod laws;
mod localize;
mod node_durable;
mod pasted;
mod pins_and_names;
mod render_policies;
mod report;
mod robust;
mod scenarios;
mod shard;
mod strategies_cli;
mod support;
mod verbatim;
mod world_options;
