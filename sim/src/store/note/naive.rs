//! `naive`: reconcile clears the whole live tail.
//!
//! Carries bug A (a newer, still-streaming turn is wiped when an earlier turn's deferred
//! reconcile flushes: invariant 3) and bug B (an optimistic queued user bubble is dropped:
//! invariant 1). Its backfill and consumed handler are the pre-C / pre-D ones, though with
//! nothing ever kept they cannot matter.

use super::tab::{
    backfill_every_trailing, consumed_strip_prefix, KeepContext, LiveRow, ReconcilePolicy, TabStore,
};
use crate::model::store::Store;
use crate::model::wire::{MessageId, TurnId};
use crate::store::kind::StoreKind;

/// The policy before any fix: the keep-filter keeps nothing, so every reconcile wipes the
/// whole live tail.
#[derive(Clone, Hash)]
pub struct Naive;

impl ReconcilePolicy for Naive {
    fn backfill(&self, live: &mut [LiveRow], turn_id: TurnId) {
        backfill_every_trailing(live, turn_id);
    }
    fn on_consumed(&self, row: &mut LiveRow, id: MessageId, _live_turn_id: Option<TurnId>) {
        consumed_strip_prefix(row, id);
    }
    fn keep(&self, _row: &LiveRow, _ctx: &KeepContext<'_>) -> bool {
        false
    }
}

/// `naive` in [`STORES`](super::STORES): the store `scenarios/bug-a.json` breaks
/// (invariant 3) and `fix-a` survives.
pub const KIND: StoreKind = StoreKind {
    name: "naive",
    summary: "reconcile clears the whole live tail (bugs A and B)",
    make: || Box::new(TabStore::new(Naive)) as Box<dyn Store>,
};
