//! The state of a search: what names a state (exact keys, fingerprints), what the searches
//! remember of the states they reached (the depth-first cache, the breadth-first visited
//! set) and the depth-first search's stack of frames.
//!
//! Imports inside point one way: `view` ← `key` ← `fingerprint`; `slot` ← `cache` and
//! `frame`; `visited` alone.

pub mod cache;
pub mod fingerprint;
pub mod frame;
pub mod key;
pub mod slot;
pub mod view;
pub mod visited;
