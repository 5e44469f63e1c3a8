//! `current`: the note's code today. `message-consumed` binds the consumed row to
//! `liveTurnId`, so the sealing turn's reconcile drops it (the bug D fix).
//!
//! No bug of the note's catalogue is known to remain; whatever the fuzzer finds here is
//! new. Its keep rule is still "untagged user row ⇒ keep", which the note warns turns any
//! tagging gap into a linger/duplicate.

use super::fix_ab::keep_preserved_or_untagged_user;
use super::tab::{
    backfill_latest_initiator, consumed_bind_live_turn, KeepContext, LiveRow, ReconcilePolicy,
    TabStore,
};
use crate::model::store::Store;
use crate::model::wire::{MessageId, TurnId};
use crate::store::kind::StoreKind;

/// The note's pass-3 code: `fix-abc` with a consumed row bound to `liveTurnId`.
#[derive(Clone, Hash)]
pub struct Current;

impl ReconcilePolicy for Current {
    fn backfill(&self, live: &mut [LiveRow], turn_id: TurnId) {
        backfill_latest_initiator(live, turn_id);
    }
    fn on_consumed(&self, row: &mut LiveRow, id: MessageId, live_turn_id: Option<TurnId>) {
        consumed_bind_live_turn(row, id, live_turn_id);
    }
    fn keep(&self, row: &LiveRow, ctx: &KeepContext<'_>) -> bool {
        keep_preserved_or_untagged_user(row, ctx)
    }
}

/// `current` in [`STORES`](super::STORES): the store under test, the one CI gates with
/// `check --store current`; what the fuzzer finds in it is in `scenarios/found/`.
pub const KIND: StoreKind = StoreKind {
    name: "current",
    summary: "+ consumed row bound to liveTurnId (fixes D): the note's state today",
    make: || Box::new(TabStore::new(Current)) as Box<dyn Store>,
};
