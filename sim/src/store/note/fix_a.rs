//! `fix-a`: keep rows of the turn we are explicitly preserving (`preserveTurnId`).
//!
//! Fixes bug A. Still carries bug B: an optimistic queued user bubble (untagged) is
//! dropped by an earlier turn's reconcile although it is in no sealed chunk (invariant 1).

use super::tab::{
    backfill_every_trailing, consumed_strip_prefix, KeepContext, LiveRow, ReconcilePolicy, TabStore,
};
use crate::model::store::Store;
use crate::model::wire::{MessageId, TurnId};
use crate::store::kind::StoreKind;

/// Bug A's fix alone: keep the rows of `preserveTurnId`, drop everything else, untagged
/// optimistic and `queued-` rows included.
#[derive(Clone, Hash)]
pub struct FixA;

impl ReconcilePolicy for FixA {
    fn backfill(&self, live: &mut [LiveRow], turn_id: TurnId) {
        backfill_every_trailing(live, turn_id);
    }
    fn on_consumed(&self, row: &mut LiveRow, id: MessageId, _live_turn_id: Option<TurnId>) {
        consumed_strip_prefix(row, id);
    }
    fn keep(&self, row: &LiveRow, ctx: &KeepContext<'_>) -> bool {
        ctx.preserve_turn_id.is_some() && row.turn_id == ctx.preserve_turn_id
    }
}

/// `fix-a` in [`STORES`](super::STORES): the store `scenarios/bug-b.json` breaks
/// (invariant 1) and `fix-ab` survives.
pub const KIND: StoreKind = StoreKind {
    name: "fix-a",
    summary: "+ preserveTurnId (fixes A; bug B: queued bubble dropped)",
    make: || Box::new(TabStore::new(FixA)) as Box<dyn Store>,
};
