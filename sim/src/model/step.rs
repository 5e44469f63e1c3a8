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

/// One thing that can happen next: a backend action, a delivery to a tab, or a tab's user
/// acting. Strategies choose among the enabled ones; traces and scenario files record them.
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
    HandlePost {
        /// The tab whose POST is handled.
        client: ClientId,
    },
    /// The agent streams one text delta.
    AgentDelta,
    /// The agent makes a tool call.
    AgentToolCall,
    /// The open tool call returns; with `interrupt`, the queue is drained into the result
    /// as `[USER INTERRUPT]` blocks (`message-consumed` first).
    AgentToolResult {
        /// Fold the whole queue into this result (offered only while the queue is not
        /// empty); `false` returns a plain result and leaves the queue for later.
        interrupt: bool,
    },
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
    ServeFetch {
        /// The tab whose fetch is served.
        client: ClientId,
    },

    // --- network to a client ---
    /// WebSocket event `event` reaches `client` (in order, or within the reorder window).
    DeliverEvent {
        /// The tab it reaches.
        client: ClientId,
        /// The event's id: its place in the backend's broadcast order, from 1 (`e<N>`),
        /// the same in every tab's inbox.
        event: u32,
    },
    /// The oldest POST response reaches `client`.
    DeliverPostResponse {
        /// The tab that sent the POST.
        client: ClientId,
    },
    /// A served fetch response reaches `client` (responses may overtake each other).
    DeliverFetchResponse {
        /// The tab that asked.
        client: ClientId,
        /// The store's own id for the fetch (`f<N>`): which of several served responses
        /// arrives, so that a stale one can overtake a fresh one.
        #[schemars(with = "u32")]
        request: RequestId,
    },

    // --- users ---
    /// The user of `client` sends a new message.
    Send {
        /// The tab whose user sends.
        client: ClientId,
    },
    /// The user scrolls up (reconcile is deferred while scrolled up).
    ScrollUp {
        /// The tab whose user scrolls.
        client: ClientId,
    },
    /// The user scrolls back to the bottom (flushes a deferred reconcile).
    ScrollDown {
        /// The tab whose user scrolls.
        client: ClientId,
    },
}

/// Declares [`StepKind`], its list and its names from one table, so that no list of step
/// kinds can miss one: [`Step::kind`] maps every step to a kind (exhaustively), and every
/// list of kinds is [`StepKind::ALL`].
macro_rules! step_kinds {
    ($($(#[$doc:meta])* $kind:ident => $name:literal,)*) => {
        /// A [`Step`]'s variant without its fields.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum StepKind {
            $($(#[$doc])* $kind,)*
        }

        impl StepKind {
            /// Every kind, in [`Step`] variant order (so `ALL[k as usize] == k`).
            pub const ALL: &'static [StepKind] = &[$(StepKind::$kind,)*];
            /// How many kinds there are.
            pub const COUNT: usize = StepKind::ALL.len();

            /// The kebab-case name, as in scenario files.
            pub fn name(self) -> &'static str {
                match self {
                    $(StepKind::$kind => $name,)*
                }
            }
        }
    };
}

step_kinds! {
    /// [`Step::HandlePost`]
    HandlePost => "handle-post",
    /// [`Step::AgentDelta`]
    AgentDelta => "agent-delta",
    /// [`Step::AgentToolCall`]
    AgentToolCall => "agent-tool-call",
    /// [`Step::AgentToolResult`]
    AgentToolResult => "agent-tool-result",
    /// [`Step::AgentEnd`]
    AgentEnd => "agent-end",
    /// [`Step::AgentFail`]
    AgentFail => "agent-fail",
    /// [`Step::AgentWrite`]
    AgentWrite => "agent-write",
    /// [`Step::AgentSeal`]
    AgentSeal => "agent-seal",
    /// [`Step::ServeFetch`]
    ServeFetch => "serve-fetch",
    /// [`Step::DeliverEvent`]
    DeliverEvent => "deliver-event",
    /// [`Step::DeliverPostResponse`]
    DeliverPostResponse => "deliver-post-response",
    /// [`Step::DeliverFetchResponse`]
    DeliverFetchResponse => "deliver-fetch-response",
    /// [`Step::Send`]
    Send => "send",
    /// [`Step::ScrollUp`]
    ScrollUp => "scroll-up",
    /// [`Step::ScrollDown`]
    ScrollDown => "scroll-down",
}

impl StepKind {
    /// A step of this kind, naming `client` and id `id` where the kind has them: how
    /// generators and error messages enumerate steps from [`StepKind::ALL`].
    pub fn example(self, client: ClientId, id: u32, interrupt: bool) -> Step {
        match self {
            StepKind::HandlePost => Step::HandlePost { client },
            StepKind::AgentDelta => Step::AgentDelta,
            StepKind::AgentToolCall => Step::AgentToolCall,
            StepKind::AgentToolResult => Step::AgentToolResult { interrupt },
            StepKind::AgentEnd => Step::AgentEnd,
            StepKind::AgentFail => Step::AgentFail,
            StepKind::AgentWrite => Step::AgentWrite,
            StepKind::AgentSeal => Step::AgentSeal,
            StepKind::ServeFetch => Step::ServeFetch { client },
            StepKind::DeliverEvent => Step::DeliverEvent { client, event: id },
            StepKind::DeliverPostResponse => Step::DeliverPostResponse { client },
            StepKind::DeliverFetchResponse => Step::DeliverFetchResponse {
                client,
                request: RequestId(id),
            },
            StepKind::Send => Step::Send { client },
            StepKind::ScrollUp => Step::ScrollUp { client },
            StepKind::ScrollDown => Step::ScrollDown { client },
        }
    }
}

/// One sequential source of steps in the simulated system: steps of one source happen in
/// order, steps of different sources race. The agent, and per tab the backend's POST
/// handler and fetch server, and the tab's WebSocket, POST responses, fetch responses and
/// user: a tab's user, its WebSocket and its HTTP responses are independent of each other
/// in a real browser, and so are the agent, the POST handler and the fetch server on the
/// backend. (PCT orders these as its threads.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// The agent: streaming, tool calls, the end of a turn, the write and the seal.
    Agent,
    /// The backend handling this tab's POSTs.
    PostHandler(ClientId),
    /// The backend serving this tab's chunk fetches.
    FetchServer(ClientId),
    /// This tab's WebSocket.
    WebSocket(ClientId),
    /// Responses to this tab's POSTs.
    PostResponses(ClientId),
    /// Responses to this tab's fetches.
    FetchResponses(ClientId),
    /// This tab's user.
    User(ClientId),
}

/// Which part of the world acts in a step, for traces and timelines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Actor {
    /// The backend: POST handling, the agent, fetch serving.
    Backend,
    /// A tab: deliveries to it and its user's actions.
    Client(ClientId),
}

impl Step {
    /// Who acts: the backend, or the tab a delivery reaches or whose user acts. The
    /// oracle judges only the tab a step touched; timelines give each actor a column.
    pub fn actor(&self) -> Actor {
        match self.source() {
            Source::Agent | Source::PostHandler(_) | Source::FetchServer(_) => Actor::Backend,
            Source::WebSocket(c)
            | Source::PostResponses(c)
            | Source::FetchResponses(c)
            | Source::User(c) => Actor::Client(c),
        }
    }

    /// The sequential source the step comes from.
    pub fn source(&self) -> Source {
        match *self {
            Step::AgentDelta
            | Step::AgentToolCall
            | Step::AgentToolResult { .. }
            | Step::AgentEnd
            | Step::AgentFail
            | Step::AgentWrite
            | Step::AgentSeal => Source::Agent,
            Step::HandlePost { client } => Source::PostHandler(client),
            Step::ServeFetch { client } => Source::FetchServer(client),
            Step::DeliverEvent { client, .. } => Source::WebSocket(client),
            Step::DeliverPostResponse { client } => Source::PostResponses(client),
            Step::DeliverFetchResponse { client, .. } => Source::FetchResponses(client),
            Step::Send { client } | Step::ScrollUp { client } | Step::ScrollDown { client } => {
                Source::User(client)
            }
        }
    }

    /// The step's kind (its variant, without fields).
    pub fn kind(&self) -> StepKind {
        match self {
            Step::HandlePost { .. } => StepKind::HandlePost,
            Step::AgentDelta => StepKind::AgentDelta,
            Step::AgentToolCall => StepKind::AgentToolCall,
            Step::AgentToolResult { .. } => StepKind::AgentToolResult,
            Step::AgentEnd => StepKind::AgentEnd,
            Step::AgentFail => StepKind::AgentFail,
            Step::AgentWrite => StepKind::AgentWrite,
            Step::AgentSeal => StepKind::AgentSeal,
            Step::ServeFetch { .. } => StepKind::ServeFetch,
            Step::DeliverEvent { .. } => StepKind::DeliverEvent,
            Step::DeliverPostResponse { .. } => StepKind::DeliverPostResponse,
            Step::DeliverFetchResponse { .. } => StepKind::DeliverFetchResponse,
            Step::Send { .. } => StepKind::Send,
            Step::ScrollUp { .. } => StepKind::ScrollUp,
            Step::ScrollDown { .. } => StepKind::ScrollDown,
        }
    }

    /// `self` with its client id (as actor, or as the POST/fetch the backend serves) mapped
    /// through `f`.
    pub fn map_client(self, f: impl Fn(ClientId) -> ClientId) -> Step {
        match self {
            Step::HandlePost { client } => Step::HandlePost { client: f(client) },
            Step::ServeFetch { client } => Step::ServeFetch { client: f(client) },
            Step::DeliverEvent { client, event } => Step::DeliverEvent {
                client: f(client),
                event,
            },
            Step::DeliverPostResponse { client } => Step::DeliverPostResponse { client: f(client) },
            Step::DeliverFetchResponse { client, request } => Step::DeliverFetchResponse {
                client: f(client),
                request,
            },
            Step::Send { client } => Step::Send { client: f(client) },
            Step::ScrollUp { client } => Step::ScrollUp { client: f(client) },
            Step::ScrollDown { client } => Step::ScrollDown { client: f(client) },
            Step::AgentDelta
            | Step::AgentToolCall
            | Step::AgentToolResult { .. }
            | Step::AgentEnd
            | Step::AgentFail
            | Step::AgentWrite
            | Step::AgentSeal => self,
        }
    }

    /// The client a step names, if any: as actor, or as the POST/fetch the backend serves.
    pub fn client(&self) -> Option<ClientId> {
        match self.source() {
            Source::Agent => None,
            Source::PostHandler(c)
            | Source::FetchServer(c)
            | Source::WebSocket(c)
            | Source::PostResponses(c)
            | Source::FetchResponses(c)
            | Source::User(c) => Some(c),
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
        write!(f, "{} {}", self.actor(), self.kind().name())?;
        match *self {
            Step::HandlePost { client } | Step::ServeFetch { client } => write!(f, " c{client}"),
            Step::DeliverEvent { event, .. } => write!(f, " e{event}"),
            Step::DeliverFetchResponse { request, .. } => write!(f, " {request}"),
            Step::AgentToolResult { interrupt: true } => f.write_str(" +interrupt"),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind's example step has that kind, serialises with that kind's name, and
    /// the kinds come in `Step`'s variant order.
    #[test]
    fn every_kind_names_its_steps_in_variant_order() {
        for (i, &kind) in StepKind::ALL.iter().enumerate() {
            assert_eq!(kind as usize, i);
            for interrupt in [false, true] {
                let step = kind.example(1, 7, interrupt);
                assert_eq!(step.kind(), kind);
                let json = serde_json::to_value(step).unwrap();
                assert_eq!(json["kind"], kind.name(), "{step:?}");
            }
        }
        let mut examples: Vec<Step> = StepKind::ALL
            .iter()
            .map(|k| k.example(0, 0, false))
            .collect();
        let sorted = examples.is_sorted();
        examples.dedup_by_key(|s| s.kind());
        assert!(sorted && examples.len() == StepKind::COUNT);
    }
}
