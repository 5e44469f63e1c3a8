//! `canary`: deliberately and obviously wrong, so that a green run proves something.
//!
//! Reconcile keeps every live row, so the first reconcile after any turn shows the turn
//! twice (sealed and live): invariant 2 on the first fetch response. If a campaign ever
//! reports the canary as passing, the harness (world, oracle or strategy) is broken.

use super::tab::{
    backfill_latest_initiator, consumed_bind_live_turn, KeepContext, LiveRow, ReconcilePolicy,
    TabStore,
};
use crate::model::store::Store;
use crate::model::wire::{MessageId, TurnId};
use crate::store::kind::StoreKind;

/// Keeps every live row, so the first reconcile of any turn shows it twice.
#[derive(Clone, Hash)]
pub struct Canary;

impl ReconcilePolicy for Canary {
    fn backfill(&self, live: &mut [LiveRow], turn_id: TurnId) {
        backfill_latest_initiator(live, turn_id);
    }
    fn on_consumed(&self, row: &mut LiveRow, id: MessageId, live_turn_id: Option<TurnId>) {
        consumed_bind_live_turn(row, id, live_turn_id);
    }
    fn keep(&self, _row: &LiveRow, _ctx: &KeepContext<'_>) -> bool {
        true
    }
}

/// `canary` in [`STORES`](super::STORES): every campaign must report it failing; one
/// that does not means the harness is broken.
pub const KIND: StoreKind = StoreKind {
    name: "canary",
    summary: "deliberately wrong (keeps every live row): proves the pipeline catches failures",
    make: || Box::new(TabStore::new(Canary)) as Box<dyn Store>,
};
