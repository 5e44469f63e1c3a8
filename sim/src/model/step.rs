//! One schedulable step of the simulated world: the unit every strategy chooses among,
//! every trace records and every replay re-applies.
//!
//! Steps name what they act on by stable ids (client index, event id, request id), never by
//! a position in a list, so a trace with steps cut out still means the same thing and a
//! step that is no longer enabled can simply be skipped.
//!
//! The enabled steps are always offered in this type's `Ord` order (variant order below,
//! then fields), which is what makes "the strategy picks an index" deterministic.

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::model::wire::{ClientId, RequestId};

#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Step {
    // --- backend ---
    /// The backend handles the oldest POST in flight from `client`: starts a turn if the
    /// agent is idle, queues the message if it is running. Blocked while a turn is between
    /// `status idle` and `turn-sealed` (processMessage waits for the durable write).
    HandlePost { client: ClientId },
    /// The agent streams one text delta.
    AgentDelta,
    /// The agent makes a tool call.
    AgentToolCall,
    /// The open tool call returns; with `interrupt`, the queue is drained into the result
    /// as `[USER INTERRUPT]` blocks (`message-consumed` first).
    AgentToolResult { interrupt: bool },
    /// The agent finishes its reply. With messages queued, they are drained as trailing
    /// history (`message-consumed`) and the turn continues; otherwise `status idle`.
    AgentEnd,
    /// The turn fails: trailing drain of the queue, then `status error`.
    AgentFail,
    /// The durable write of the finished turn's rows (`flushAssistant`).
    AgentWrite,
    /// `turn-sealed`, after the write; the agent is idle again.
    AgentSeal,
    /// The backend serves the oldest chunk fetch from `client`: a snapshot of the DB now.
    ServeFetch { client: ClientId },

    // --- network to a client ---
    /// WebSocket event `event` reaches `client` (in order, or within the reorder window).
    DeliverEvent { client: ClientId, event: u32 },
    /// The oldest POST response reaches `client`.
    DeliverPostResponse { client: ClientId },
    /// A served fetch response reaches `client` (responses may overtake each other).
    DeliverFetchResponse {
        client: ClientId,
        #[schemars(with = "u32")]
        request: RequestId,
    },

    // --- users ---
    /// The user of `client` sends a new message.
    Send { client: ClientId },
    /// The user scrolls up (reconcile is deferred while scrolled up).
    ScrollUp { client: ClientId },
    /// The user scrolls back to the bottom (flushes a deferred reconcile).
    ScrollDown { client: ClientId },
}

/// Which part of the world acts in a step, for traces and timelines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Actor {
    Backend,
    Client(ClientId),
}

impl Step {
    pub fn actor(&self) -> Actor {
        match *self {
            Step::HandlePost { .. }
            | Step::AgentDelta
            | Step::AgentToolCall
            | Step::AgentToolResult { .. }
            | Step::AgentEnd
            | Step::AgentFail
            | Step::AgentWrite
            | Step::AgentSeal
            | Step::ServeFetch { .. } => Actor::Backend,
            Step::DeliverEvent { client, .. }
            | Step::DeliverPostResponse { client }
            | Step::DeliverFetchResponse { client, .. }
            | Step::Send { client }
            | Step::ScrollUp { client }
            | Step::ScrollDown { client } => Actor::Client(client),
        }
    }

    /// The kebab-case kind name, as in scenario files.
    pub fn kind(&self) -> &'static str {
        match self {
            Step::HandlePost { .. } => "handle-post",
            Step::AgentDelta => "agent-delta",
            Step::AgentToolCall => "agent-tool-call",
            Step::AgentToolResult { .. } => "agent-tool-result",
            Step::AgentEnd => "agent-end",
            Step::AgentFail => "agent-fail",
            Step::AgentWrite => "agent-write",
            Step::AgentSeal => "agent-seal",
            Step::ServeFetch { .. } => "serve-fetch",
            Step::DeliverEvent { .. } => "deliver-event",
            Step::DeliverPostResponse { .. } => "deliver-post-response",
            Step::DeliverFetchResponse { .. } => "deliver-fetch-response",
            Step::Send { .. } => "send",
            Step::ScrollUp { .. } => "scroll-up",
            Step::ScrollDown { .. } => "scroll-down",
        }
    }

    /// Steps the drain phase may take: everything that finishes work already started,
    /// nothing that starts new work (no sends, no scrolling up, no new agent output).
    pub fn is_drain_step(&self) -> bool {
        !matches!(
            self,
            Step::Send { .. }
                | Step::ScrollUp { .. }
                | Step::AgentDelta
                | Step::AgentToolCall
                | Step::AgentFail
                | Step::AgentToolResult { interrupt: true }
        )
    }
}

impl fmt::Display for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Actor::Backend => f.write_str("backend"),
            Actor::Client(c) => write!(f, "c{c}"),
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.actor(), self.kind())?;
        match *self {
            Step::HandlePost { client } | Step::ServeFetch { client } => write!(f, " c{client}"),
            Step::DeliverEvent { event, .. } => write!(f, " e{event}"),
            Step::DeliverFetchResponse { request, .. } => write!(f, " {request}"),
            Step::AgentToolResult { interrupt: true } => f.write_str(" +interrupt"),
            _ => Ok(()),
        }
    }
}
