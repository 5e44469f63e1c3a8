//! The note's tab store and its policies: one tab state machine ([`tab::TabStore`]) and
//! one file per [`tab::ReconcilePolicy`], in the order the note's fixes landed
//! (`naive`, `fix-a`, `fix-ab`, `fix-abc`, `current`), then the hypotheses
//! (`membership`, `canary`).

pub mod canary;
pub mod current;
pub mod fix_a;
pub mod fix_ab;
pub mod fix_abc;
pub mod membership;
pub mod naive;
pub mod tab;
