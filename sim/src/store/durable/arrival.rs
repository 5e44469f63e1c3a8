//! `durable-arrival`: `durable`'s keep/drop rules, with live rows in arrival order and a
//! new assistant row after the user's own row.
//!
//! When the user sends a message while the reply streams, `durable` keeps growing the
//! streaming row in place, above the new user row. This store ends the streaming row at
//! the send instead: the text that follows opens a new assistant row below the user's
//! row, so the thread reads top to bottom in the order things reached the tab. Both are
//! defensible renderings, and invariant 5 accepts both (`docs/model.md`, "Invariant 5":
//! a run of deltas may be split around a user row). Everything that decides keep/drop is
//! `durable`'s ([`super::durable`]).

use super::{DurableStore, RenderPolicy};
use crate::model::store::Store;
use crate::store::kind::StoreKind;

/// `durable-arrival` in [`STORES`](super::STORES): a correct store of another rendering
/// policy, so any finding against it is news.
pub const KIND: StoreKind = StoreKind {
    name: "durable-arrival",
    summary:
        "durable, arrival order: a send ends the streaming row (new bubble below the user's row)",
    make: || Box::new(DurableStore::with_policy(RenderPolicy::Arrival)) as Box<dyn Store>,
};
