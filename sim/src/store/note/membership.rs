//! `membership`: the note's recommended longer-term fix, taken literally.
//!
//! "Keep a live row iff it belongs to a turn we are explicitly preserving
//! (`turnId === preserveTurnId`) or it is still a pending queued message (its `queueId` is
//! still in `tab.queuedMessages`). Drop everything else." The backfill and consumed handler
//! are `current`'s, now only cosmetic. This is a hypothesis under test, not a given: note
//! that an optimistic initiator whose POST has not yet started a turn is neither preserved
//! nor queued.

use super::tab::{
    backfill_latest_initiator, consumed_bind_live_turn, is_queued_row, queued_message_id,
    KeepContext, LiveRow, ReconcilePolicy, TabStore,
};
use crate::model::store::Store;
use crate::model::wire::{MessageId, TurnId};
use crate::store::kind::StoreKind;

/// Keep a row of the preserved turn or a `queued-` row whose id is still in
/// `queuedMessages`; nothing else survives a reconcile.
#[derive(Clone, Hash)]
pub struct Membership;

impl ReconcilePolicy for Membership {
    fn backfill(&self, live: &mut [LiveRow], turn_id: TurnId) {
        backfill_latest_initiator(live, turn_id);
    }
    fn on_consumed(&self, row: &mut LiveRow, id: MessageId, live_turn_id: Option<TurnId>) {
        consumed_bind_live_turn(row, id, live_turn_id);
    }
    fn keep(&self, row: &LiveRow, ctx: &KeepContext<'_>) -> bool {
        let preserved = ctx.preserve_turn_id.is_some() && row.turn_id == ctx.preserve_turn_id;
        let pending_queued = is_queued_row(row)
            && queued_message_id(row).is_some_and(|id| ctx.queued_messages.contains(&id));
        preserved || pending_queued
    }
}

/// `membership` in [`STORES`](super::STORES): the recommended fix as a hypothesis; what
/// the fuzzer finds in it is in `scenarios/found/`.
pub const KIND: StoreKind = StoreKind {
    name: "membership",
    summary: "keep iff preserved turn or still in queuedMessages: the note's recommended fix",
    make: || Box::new(TabStore::new(Membership)) as Box<dyn Store>,
};
