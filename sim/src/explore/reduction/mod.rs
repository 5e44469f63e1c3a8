//! The reductions that make a search smaller without changing its verdict: which steps
//! commute (the sleep sets' relation) and what one search judges (one tab at a time,
//! symmetry, persistent sets, inert POST responses). The argument for each is in its file
//! and in `docs/model.md`, "Explore: reductions and their soundness".

pub mod independence;
pub mod scope;
