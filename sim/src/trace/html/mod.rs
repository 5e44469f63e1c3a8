//! Self-contained HTML reports of a replay: one file per scenario, with a sequence diagram
//! of the interleaving (lanes for the backend, each tab and its user; an arrow per event,
//! POST, fetch and response, reorderings visible as crossing arrows) and a step panel that
//! shows each tab's render beside the DB after any step, the differences marked.
//!
//! Everything is drawn from one replay ([`walk`]), the one the text timeline narrates, so
//! the picture and the words cannot disagree. Pages are deterministic (same inputs, same
//! bytes), fetch nothing (styles and script inline, a policy forbidding requests), read
//! without colour (marks are symbols and words), step by keyboard, and print.
//!
//! `page` (the frame and escaping), `walk` (the replay recorded), `compare` (a render
//! beside the DB), `diagram` (the SVG), `scenario` (the page). Campaign pages are
//! `crate::campaign::report`'s, on the same frame.

pub mod compare;
pub mod diagram;
pub mod page;
pub mod scenario;
pub mod walk;

pub use page::{escape, page, script_json};
pub use scenario::{scenario_page, ScenarioPage};
