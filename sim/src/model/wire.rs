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
    User,
    Assistant,
    ToolCall,
    ToolResult,
}

/// The agent status as broadcast by `status` events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentStatus {
    Idle,
    Running,
    Error,
}

/// One durable chunk row, as stored by the backend and returned by a chunk fetch.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChunkRow {
    /// The real database sequence number: strictly increasing in write order.
    pub seq: u32,
    pub turn_id: TurnId,
    pub role: Role,
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
    TurnStart {
        turn_id: TurnId,
    },
    TextDelta {
        turn_id: TurnId,
        text: String,
    },
    ToolCall {
        turn_id: TurnId,
        call: u32,
        text: String,
    },
    ToolResult {
        turn_id: TurnId,
        call: u32,
        text: String,
    },
    MessageQueued {
        message_id: MessageId,
    },
    MessageConsumed {
        message_ids: Vec<MessageId>,
    },
    Status {
        status: AgentStatus,
    },
    TurnSealed {
        turn_id: TurnId,
    },
}

/// How the backend handled a posted message (the POST response body).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum PostOutcome {
    /// The agent was idle: the message started this turn and is persisted as its user row.
    Started { turn_id: TurnId },
    /// The agent was busy: the message was queued.
    Queued,
}

/// Everything a store is ever told. One input per simulated step at most.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "input", rename_all = "kebab-case")]
pub enum Input {
    /// The user typed and sent a message. The store must show it and POST it.
    UserSend { message_id: MessageId, text: String },
    /// The user scrolled; `at_bottom: false` means scrolled up (reconcile deferred).
    Scroll { at_bottom: bool },
    /// A WebSocket event arrived.
    Event { event: Event },
    /// The response to this store's POST arrived.
    PostResponse {
        message_id: MessageId,
        response: PostOutcome,
    },
    /// The response to this store's chunk fetch arrived: the whole chunk history as of
    /// the moment the backend served the request (`snapshot_seq` is its largest `seq`, 0
    /// when empty).
    FetchResponse {
        request_id: RequestId,
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
    Post { message_id: MessageId, text: String },
    /// Fetch the chunk history. The id is the store's own, echoed in the response.
    Fetch { request_id: RequestId },
}

/// Where a rendered row comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "kebab-case")]
pub enum Origin {
    /// A durable chunk row with this `seq` (from `groupRowsToMessages(chunks)`).
    Sealed { seq: u32 },
    /// A transient live row with this id (e.g. `m3` or `queued-m3`).
    Live { id: String },
}

/// One row of what the user sees: `groupRowsToMessages(chunks) ++ live`, in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RenderRow {
    #[serde(flatten)]
    pub origin: Origin,
    pub role: Role,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<TurnId>,
    pub text: String,
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

    pub fn is_live(&self) -> bool {
        matches!(self.origin, Origin::Live { .. })
    }
}
