//! `durable-db-order`: `durable`'s keep/drop rules, with live rows in the order the DB
//! will hold them, as far as the tab has been told.
//!
//! A production store of the kind the note describes renders this way (issue 30): the
//! user's own messages stay at the bottom, below every streamed row, until an event says
//! where the backend put them: `message-consumed` naming them (folded into the coming tool
//! result, appended as trailing history, or drained into the next turn) or the first
//! event of a new turn (whose initiator is among them). Placing a message ends the
//! streaming row, so a bubble is split where the consumed message will be written, and
//! the text that follows goes below it, as the DB will hold it. Invariant 5 accepts this
//! order as well as arrival order (`docs/model.md`, "Invariant 5"). Everything that
//! decides keep/drop is `durable`'s ([`super::durable`]).

use super::{DurableStore, RenderPolicy};
use crate::model::store::Store;
use crate::store::kind::StoreKind;

/// `durable-db-order` in [`STORES`](super::STORES): a correct store of another rendering
/// policy, so any finding against it is news.
pub const KIND: StoreKind = StoreKind {
    name: "durable-db-order",
    summary: "durable, DB order: own messages below the stream until placed; split at consume",
    make: || Box::new(DurableStore::with_policy(RenderPolicy::DbOrder)) as Box<dyn Store>,
};
