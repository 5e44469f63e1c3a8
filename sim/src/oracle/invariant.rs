//! Which property broke: the note's invariants (and a crash), by name.
//!
//! Its own file because every file of the oracle names invariants: the checks that judge
//! them, [`super::judged`] that chooses which are judged, and the violation they report.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Which property broke.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub enum Invariant {
    /// Invariant 1, no loss: every message a tab's user sent stays visible, as a user row
    /// or folded into a tool result. Bugs B and C break it.
    #[serde(rename = "inv1-no-loss")]
    NoLoss,
    /// Invariant 2, no duplicate / no linger: once a tab has reconciled every seal it
    /// received, nothing shown sealed is also shown live. Bug D breaks it.
    #[serde(rename = "inv2-no-duplicate")]
    NoDuplicate,
    /// Invariant 3, newer turn preserved: streamed text that reached a tab stays visible,
    /// so an older turn's reconcile cannot wipe a newer turn's. Bug A breaks it.
    #[serde(rename = "inv3-newer-turn")]
    NewerTurnPreserved,
    /// Invariant 4, converges: after the drain phase every tab shows exactly the DB, row
    /// for row, with no live rows.
    #[serde(rename = "inv4-converges")]
    Converges,
    /// Invariant 5, what the user sees between reconciles: sealed rows first and as the DB
    /// has them, live rows in arrival order or the DB's order as the tab was told it (the
    /// user's own messages in send order, a turn below its initiator), each live row the
    /// shape of its role (text in the turn's assistant row, a tool result never receiving
    /// text, one view segment of a turn's text in one row, a run split only around a user
    /// row).
    #[serde(rename = "inv5-render-shape")]
    RenderShape,
    /// The store panicked (or, over a process boundary, died or misbehaved).
    #[serde(rename = "crash")]
    Crash,
}

impl Invariant {
    /// Every invariant, in the order reports list them (the fuzz table's columns).
    pub const ALL: [Invariant; 6] = [
        Invariant::NoLoss,
        Invariant::NoDuplicate,
        Invariant::NewerTurnPreserved,
        Invariant::Converges,
        Invariant::RenderShape,
        Invariant::Crash,
    ];

    /// The name scenario files (`expect`), reports and failure file names use, as in
    /// `inv2-no-duplicate`.
    pub fn name(self) -> &'static str {
        match self {
            Invariant::NoLoss => "inv1-no-loss",
            Invariant::NoDuplicate => "inv2-no-duplicate",
            Invariant::NewerTurnPreserved => "inv3-newer-turn",
            Invariant::Converges => "inv4-converges",
            Invariant::RenderShape => "inv5-render-shape",
            Invariant::Crash => "crash",
        }
    }

    /// The invariant [`Invariant::name`] spells `name`, if any.
    pub fn from_name(name: &str) -> Option<Invariant> {
        Invariant::ALL.into_iter().find(|i| i.name() == name)
    }
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each invariant's name reads back as that invariant, and nothing else reads as one.
    #[test]
    fn invariant_names_read_back() {
        for inv in Invariant::ALL {
            assert_eq!(Invariant::from_name(inv.name()), Some(inv));
        }
        assert_eq!(Invariant::from_name("inv1"), None);
        assert_eq!(Invariant::from_name(""), None);
    }
}
