//! `fix-abc`: the `turn-start` backfill skips `queued-` rows and tags only the single most
//! recent non-queued initiator, then stops.
//!
//! Fixes bug C. Carries bug D: `message-consumed` strips the `queued-` prefix to a plain
//! untagged user row, which the B rule keeps on every reconcile, so the interrupt bubble
//! lingers forever and duplicates the `[USER INTERRUPT]` text sealed in the tool result
//! (invariant 2).

use super::fix_ab::keep_preserved_or_untagged_user;
use super::tab::{
    backfill_latest_initiator, consumed_strip_prefix, KeepContext, LiveRow, ReconcilePolicy,
    TabStore,
};
use crate::model::store::Store;
use crate::model::wire::{MessageId, TurnId};
use crate::store::kind::StoreKind;

/// The note's pass-2 code: the backfill tags only the initiator, but a consumed row is
/// still stripped to a plain untagged row (bug D).
#[derive(Clone, Hash)]
pub struct FixAbc;

impl ReconcilePolicy for FixAbc {
    fn backfill(&self, live: &mut [LiveRow], turn_id: TurnId) {
        backfill_latest_initiator(live, turn_id);
    }
    fn on_consumed(&self, row: &mut LiveRow, id: MessageId, _live_turn_id: Option<TurnId>) {
        consumed_strip_prefix(row, id);
    }
    fn keep(&self, row: &LiveRow, ctx: &KeepContext<'_>) -> bool {
        keep_preserved_or_untagged_user(row, ctx)
    }
}

/// `fix-abc` in [`STORES`](super::STORES): the store `scenarios/bug-d.json` breaks
/// (invariant 2) and `current` survives.
pub const KIND: StoreKind = StoreKind {
    name: "fix-abc",
    summary: "+ backfill skips queued rows (fixes C; bug D: consumed bubble lingers)",
    make: || Box::new(TabStore::new(FixAbc)) as Box<dyn Store>,
};
