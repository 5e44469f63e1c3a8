//! `fix-ab`: also keep untagged user rows (`turnId === undefined && role === "user"`).
//!
//! Fixes bug B. Carries bug C: the `turn-start` backfill tags *every* trailing untagged
//! user row, including pending `queued-` rows, with the new turn id, so that turn's
//! reconcile wipes them (invariant 1). Also carries bug D (the consumed row is stripped to
//! a plain untagged row, which the B rule then keeps forever: invariant 2).

use super::tab::{
    backfill_every_trailing, consumed_strip_prefix, KeepContext, LiveRow, ReconcilePolicy, TabStore,
};
use crate::model::store::Store;
use crate::model::wire::{MessageId, Role, TurnId};
use crate::store::kind::StoreKind;

/// The note's pass-1 code: the A+B keep-filter, with the backfill that still over-tags
/// trailing `queued-` rows (bug C).
#[derive(Clone, Hash)]
pub struct FixAb;

/// The A+B keep-filter, shared by every later note variant.
pub fn keep_preserved_or_untagged_user(row: &LiveRow, ctx: &KeepContext<'_>) -> bool {
    (ctx.preserve_turn_id.is_some() && row.turn_id == ctx.preserve_turn_id)
        || (row.turn_id.is_none() && row.role == Role::User)
}

impl ReconcilePolicy for FixAb {
    fn backfill(&self, live: &mut [LiveRow], turn_id: TurnId) {
        backfill_every_trailing(live, turn_id);
    }
    fn on_consumed(&self, row: &mut LiveRow, id: MessageId, _live_turn_id: Option<TurnId>) {
        consumed_strip_prefix(row, id);
    }
    fn keep(&self, row: &LiveRow, ctx: &KeepContext<'_>) -> bool {
        keep_preserved_or_untagged_user(row, ctx)
    }
}

/// `fix-ab` in [`STORES`](super::STORES): the store `scenarios/bug-c.json` breaks
/// (invariant 1) and `fix-abc` survives.
pub const KIND: StoreKind = StoreKind {
    name: "fix-ab",
    summary: "+ keep untagged user rows (fixes B; bug C: backfill over-tags queued rows)",
    make: || Box::new(TabStore::new(FixAb)) as Box<dyn Store>,
};
