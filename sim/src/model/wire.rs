//! The plain data that crosses the boundary between the simulated world and a store under
//! test: what a store is told ([`Input`]), what it asks for ([`Effect`]) and what the user
//! sees ([`RenderRow`]).
//!
//! These are deliberately the only things a store sees, so that a store can live in
//! another process (every type is serde) and so that the oracle judges only what a real
//! user would see, never a store's internals.
//!
//! The texts the world writes into these types follow the convention of
//! [`crate::model::content`].

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// A client (browser tab) index, 0-based.
pub type ClientId = u8;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

id_type!(
    /// A user message. Client-generated and globally unique; the queue id of a queued
    /// message is its message id (a pending queued row has row id `queued-<MessageId>`).
    MessageId,
    "m"
);
id_type!(
    /// An agent turn, assigned by the backend when a posted message starts one.
    TurnId,
    "t"
);
id_type!(
    /// A fetch request, numbered by the store that issues it (opaque to the world).
    RequestId,
    "f"
);

/// Who wrote a chunk row or a live row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// A user message: a turn's initiator or trailing-history row once sealed; an
    /// optimistic or `queued-` bubble while live.
    User,
    /// Streamed agent text (`text-delta`s), one row per segment between tool rows.
    Assistant,
    /// A tool call the agent made; it ends the current assistant segment.
    ToolCall,
    /// A tool call's result: where consumed messages are folded in as `[USER INTERRUPT]`
    /// blocks, so a message can be sealed without a user row of its own.
    ToolResult,
}

/// The agent status as broadcast by `status` events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentStatus {
    /// The reply is finished. Fires *before* the durable write (the note), so it is never
    /// a safe reconcile trigger.
    Idle,
    /// A turn is streaming, so a send is queued. A fresh tab assumes this until told
    /// otherwise (the note's corollary): its first send may be shown as queued.
    Running,
    /// The turn failed; it still writes what it streamed and seals (`docs/model.md`).
    Error,
}

/// One durable chunk row, as stored by the backend and returned by a chunk fetch.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChunkRow {
    /// The real database sequence number: strictly increasing in write order.
    pub seq: u32,
    /// The turn the row belongs to: its initiator's user row, its streamed rows and any
    /// messages drained into it as trailing history.
    pub turn_id: TurnId,
    /// Who wrote the row.
    pub role: Role,
    /// The row's text, in [`crate::model::content`]'s convention: `msg:m<N>` for a user
    /// row, space-separated deltas for an assistant row, `[USER INTERRUPT]` blocks inside
    /// a tool result.
    pub text: String,
    /// The client message ids whose text this row holds: the user row's own id, or the ids
    /// folded into a tool result as `[USER INTERRUPT]` blocks. Positive evidence that a
    /// message is durable (a real backend stores the client-generated id with the row).
    /// Additive: absent in older peers' JSON.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub message_ids: Vec<MessageId>,
}

/// A WebSocket event, broadcast by the backend to every connected client.
///
/// Field sets follow the design note exactly; in particular `turn-start` and
/// `message-consumed` carry no message/turn binding beyond what the note lists, because
/// that missing binding is what the reconcile code has to guess at.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Event {
    /// A posted message started a turn (`processMessage`), its one user chunk row already
    /// persisted. Once per user-initiated turn; a queued message never gets one. It does
    /// not say which message started the turn: the store's backfill guesses (bug C).
    TurnStart {
        /// The new turn: the store's `liveTurnId` from now on.
        turn_id: TurnId,
    },
    /// The agent streamed text into the running turn's assistant row.
    TextDelta {
        /// The turn streaming. Absent in a world with `deltas_without_turn_ids` (beyond
        /// the note: some backends leave it out and rely on in-order delivery).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn_id: Option<TurnId>,
        /// One delta, `txt:t<T>.<K>`: the unique token invariant 3 follows.
        text: String,
    },
    /// The agent opened a tool call: a new live row. Its result is where queued messages
    /// may be consumed as interrupts.
    ToolCall {
        /// The turn making the call.
        turn_id: TurnId,
        /// The call's number within its turn, from 1; its `tool-result` carries the same.
        call: u32,
        /// `tool-call:t<T>.<call>`.
        text: String,
    },
    /// The open tool call returned, with any messages consumed at this boundary folded in
    /// (their `message-consumed` arrives first).
    ToolResult {
        /// The turn whose call returned.
        turn_id: TurnId,
        /// The call it answers.
        call: u32,
        /// `tool-result:t<T>.<call>`, then one `[USER INTERRUPT] msg:m<N>` block per
        /// consumed message: the text invariant 2 finds them sealed in.
        text: String,
    },
    /// A send reached the backend while a turn was running and was queued (this tab's or
    /// another's).
    MessageQueued {
        /// The queued message; it is also its queue id.
        message_id: MessageId,
        /// The message's text, in a world with `queued_texts` (beyond the note: a real
        /// backend may send it, so another tab can show the pending message).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// The agent drained the queue into the running turn, as `[USER INTERRUPT]` blocks in
    /// a tool result or as trailing history. It does not say which: bug D lived there.
    MessageConsumed {
        /// Every message drained, in queue order (draining takes the whole queue).
        message_ids: Vec<MessageId>,
        /// Why, in a world with `consume_reasons` (beyond the note, whose event does not
        /// say: bug D lived there).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<ConsumeReason>,
    },
    /// The agent's status changed.
    Status {
        /// The new status. `idle` arrives before the durable write, so a store that
        /// reconciled on it would fetch too early (the note's invariant 4: key reconcile
        /// off `turn-sealed`).
        status: AgentStatus,
    },
    /// The turn's rows are durable (`flushAssistant` has run): the only safe reconcile
    /// trigger.
    TurnSealed {
        /// The sealed turn: the one the reconcile folds into `chunks`.
        turn_id: TurnId,
    },
}

/// Why the agent drained the queue (`message-consumed`'s `reason`, beyond the note).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConsumeReason {
    /// Folded into a tool result as `[USER INTERRUPT]` blocks.
    Interrupt,
    /// Appended to the running turn as trailing user history.
    Trailing,
    /// Drained between turns into a new turn, whose initiator row holds them joined.
    Continuation,
}

/// How the backend handled a posted message (the POST response body).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum PostOutcome {
    /// The agent was idle: the message started this turn and is persisted as its user row.
    Started {
        /// The turn the message started.
        turn_id: TurnId,
    },
    /// The agent was busy: the message was queued.
    Queued,
}

/// Everything a store is ever told. One input per simulated step at most.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "input", rename_all = "kebab-case")]
pub enum Input {
    /// The user typed and sent a message. The store must show it and POST it.
    UserSend {
        /// Global and assigned in send order (`m1`, `m2`, …), so it names the message
        /// across tabs and in `message-queued` / `message-consumed`.
        message_id: MessageId,
        /// `msg:m<N>`: the unique token invariant 1 looks for.
        text: String,
    },
    /// The user scrolled; `at_bottom: false` means scrolled up (reconcile deferred).
    Scroll {
        /// Whether the user is at the bottom now, where a deferred reconcile may run.
        at_bottom: bool,
    },
    /// A WebSocket event arrived.
    Event {
        /// The event, as the backend broadcast it.
        event: Event,
    },
    /// The response to this store's POST arrived.
    PostResponse {
        /// The id the POST carried (absent when it carried none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<MessageId>,
        /// Whether the backend started a turn with it or queued it, as a real POST
        /// answers.
        response: PostOutcome,
        /// The id the backend minted for the message, when it minted one (a POST with no
        /// id, which every world mints): the id events and chunk rows name it by.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        server_id: Option<MessageId>,
    },
    /// The response to this store's chunk fetch arrived: the whole chunk history as of
    /// the moment the backend served the request (`snapshot_seq` is its largest `seq`, 0
    /// when empty).
    FetchResponse {
        /// The id of the store's [`Effect::Fetch`], echoed so the store can tell which of
        /// its reconciles this answers.
        request_id: RequestId,
        /// The snapshot's largest `seq`: since the DB only grows, a smaller one than a
        /// snapshot already applied means this response was overtaken and is stale.
        snapshot_seq: u32,
        /// Shared, not copied: the world hands every response the snapshot it served
        /// (serde's `rc` feature writes it as the plain array, so the JSON is unchanged).
        chunks: Arc<Vec<ChunkRow>>,
        /// Turns whose durable write (`flushAssistant`) had happened when the snapshot was
        /// taken: positive evidence that a turn's streamed rows are in `chunks`. Additive:
        /// absent in older peers' JSON.
        #[serde(default)]
        written_turns: Arc<Vec<TurnId>>,
    },
}

/// What a store asks the world to do in answer to an input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "kebab-case")]
pub enum Effect {
    /// POST the message to the backend.
    Post {
        /// The message being sent, as in [`Input::UserSend`]. A store may leave it out
        /// (beyond the note: some frontends send no id while they believe the agent idle);
        /// the backend then mints one and names it in the POST response.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<MessageId>,
        /// Its text, which the backend persists (or folds into the turn) verbatim.
        text: String,
    },
    /// Fetch the chunk history. The id is the store's own, echoed in the response.
    Fetch {
        /// Chosen by the store; comes back in [`Input::FetchResponse`].
        request_id: RequestId,
    },
}

/// Where a rendered row comes from.
#[derive(Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "kebab-case")]
pub enum Origin {
    /// A durable chunk row with this `seq` (from `groupRowsToMessages(chunks)`).
    Sealed {
        /// The chunk row's `seq`, compared with the DB's by invariant 4.
        seq: u32,
    },
    /// A transient live row with this id (e.g. `m3` or `queued-m3`).
    Live {
        /// The store's id for the row: `m<N>` for an optimistic send, `queued-m<N>` while
        /// pending in the queue, the store's own for streamed rows.
        id: String,
    },
}

/// Written out for [`Clone::clone_from`], which reuses the id's buffer (the derived one
/// allocates a new one): the class watch copies a tab's live rows after every step.
impl Clone for Origin {
    fn clone(&self) -> Origin {
        match self {
            Origin::Sealed { seq } => Origin::Sealed { seq: *seq },
            Origin::Live { id } => Origin::Live { id: id.clone() },
        }
    }

    fn clone_from(&mut self, source: &Origin) {
        match (self, source) {
            (Origin::Live { id }, Origin::Live { id: from }) => id.clone_from(from),
            (this, source) => *this = source.clone(),
        }
    }
}

/// One row of what the user sees: `groupRowsToMessages(chunks) ++ live`, in order.
#[derive(Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RenderRow {
    /// Whether the row is sealed or live, and which one.
    #[serde(flatten)]
    pub origin: Origin,
    /// Who wrote it.
    pub role: Role,
    /// The row's `turnId`: always set on a sealed row; on a live row `None` while it is
    /// optimistic or queued, the bit the note's reconcile reads as "not yet sealed".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<TurnId>,
    /// What the user reads; the oracle finds content tokens in it wherever the store put
    /// them.
    pub text: String,
}

/// Written out for [`Clone::clone_from`], which reuses the row's buffers (the derived one
/// allocates new ones): the class watch copies a tab's live user rows after every step.
impl Clone for RenderRow {
    fn clone(&self) -> RenderRow {
        RenderRow {
            origin: self.origin.clone(),
            role: self.role,
            turn_id: self.turn_id,
            text: self.text.clone(),
        }
    }

    fn clone_from(&mut self, source: &RenderRow) {
        self.origin.clone_from(&source.origin);
        self.role = source.role;
        self.turn_id = source.turn_id;
        self.text.clone_from(&source.text);
    }
}

impl RenderRow {
    /// The render row of a sealed chunk row (the note's `groupRowsToMessages`, one row
    /// per chunk).
    pub fn sealed(chunk: &ChunkRow) -> RenderRow {
        RenderRow {
            origin: Origin::Sealed { seq: chunk.seq },
            role: chunk.role,
            turn_id: Some(chunk.turn_id),
            text: chunk.text.clone(),
        }
    }

    /// True for a transient `live` row: once a tab has settled, none may hold content that
    /// is also sealed (invariant 2), and after the drain none may remain (invariant 4).
    pub fn is_live(&self) -> bool {
        matches!(self.origin, Origin::Live { .. })
    }
}
