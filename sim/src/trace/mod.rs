//! What runs leave behind and how a person reads it: scenario files, shrinking a failing
//! trace, timelines and coverage of interesting orderings.

pub mod assume;
pub mod class;
pub mod coverage;
pub mod describe;
pub mod html;
pub mod import;
pub mod localize;
pub mod log;
pub mod scenario;
pub mod shrink;
pub mod timeline;
