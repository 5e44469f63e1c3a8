//! The interface between the world and a store under test: what the world drives. The
//! implementations live in [`crate::store`].
//!
//! A store is everything a real frontend tab store is, seen from outside: it is told about
//! user actions, WebSocket events and HTTP responses ([`Input`]); it asks for POSTs and
//! fetches ([`Effect`]); and it shows rows ([`RenderRow`]). The harness never looks inside.

use crate::model::wire::{ClientId, Effect, Input, RenderRow};

/// Why a store could not answer an input: a value, which the world turns into a `crash`
/// finding (a panic inside an in-process store is caught and becomes one too).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreFault {
    /// What went wrong, in words (for a store in another process: the fault and the tail
    /// of the process's stderr).
    pub message: String,
}

/// What a store answers to an input: the effects it asks for, in order, or why it could
/// not answer.
pub type Answer = Result<Vec<Effect>, StoreFault>;

/// A reconcile implementation under test.
pub trait Store {
    /// Handle one input and return the effects it asks for, in order.
    fn handle(&mut self, input: &Input) -> Answer;
    /// What the user sees right now: sealed groups then live rows.
    fn render(&self) -> &[RenderRow];
    /// Feed this store's **complete** internal state into `state`: every field that can
    /// influence a later [`Store::handle`] or [`Store::render`]. Two stores that feed equal
    /// byte streams must behave identically from then on (so the stream must be
    /// injective: `#[derive(Hash)]` over the state, or an exhaustive destructuring, does
    /// it). `explore` uses it to merge equal world states (state caching); it never looks
    /// inside a store otherwise. Return false when the state cannot be exposed (the
    /// default: an out-of-process store): `explore` then searches statelessly.
    fn hash_state(&self, _state: &mut dyn std::hash::Hasher) -> bool {
        false
    }
    /// A copy of this store in its current state, so that `explore` can return to a
    /// state without replaying the path to it; `None` (the default) when it cannot be
    /// copied, and `explore` replays.
    fn clone_box(&self) -> Option<Box<dyn Store>> {
        None
    }
}

/// Makes one store per client. Implemented by the shipped [`StoreKind`]s; a store in
/// another process implements it too.
pub trait StoreFactory: Sync {
    /// The name used in reports and reproduce commands (what `--store` takes).
    fn name(&self) -> String;
    /// A fresh store for client `client`.
    fn make(&self, client: ClientId) -> Box<dyn Store>;
}
