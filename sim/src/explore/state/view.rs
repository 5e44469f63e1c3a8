//! Where the reductions and the state keys meet: how much of each tab a key holds.
//!
//! The per-tab search (`reduction/scope.rs`) judges one tab and reduces the others to POST
//! sources; a state's key must then hold the judged tab in full and of every POST source
//! only what the backend can still see of it. The keys and fingerprints ask that one
//! question through [`KeyView`], which the scope answers, so that the keys need not know
//! the scope and the scope can build on the keys: imports point one way.

use std::hash::{Hash, Hasher};

use crate::model::client::Client;
use crate::model::wire::ClientId;

/// How a search sees each tab in a state's key.
pub trait KeyView: Copy {
    /// Whether the key holds tab `client` in full (its queues, user, facts and store);
    /// otherwise it holds only what [`hash_post_source`] feeds.
    fn in_full(self, client: ClientId) -> bool;
}

/// What the state key holds of a POST source `c`: the messages it sent and how many of its
/// POSTs the backend handled (its queue of POSTs is the rest of them, in order).
pub fn hash_post_source(c: &Client, h: &mut impl Hasher) {
    (c.sent(), c.post_responses().len()).hash(h);
}
