//! The simulated world: one backend (agent, queue, durable chunk DB), several clients each
//! with its own store under test, and the network between them.
//!
//! The world knows nothing of invariants. It applies one [`Step`] at a time, records the
//! facts an oracle needs (what each user sent, what each client was shown), and offers the
//! enabled steps in sorted order. Every modelling choice the design note leaves open is
//! written down here and in `docs/model.md`; the short version:
//!
//! - **Turn start.** A POST handled while the agent is idle starts a turn: it persists
//!   exactly one user chunk row at once and emits `turn-start {turnId}` then
//!   `status running` ("fired once per user-initiated processMessage, which persists
//!   exactly one user chunk row").
//! - **Queue.** A POST handled while a turn streams is queued (`message-queued`). A queued
//!   message never gets its own `turn-start`.
//! - **Consumption.** At a tool-result boundary the agent may drain the whole queue into the
//!   result as `[USER INTERRUPT]` blocks; at the end of its reply it drains what is left as
//!   trailing history (persisted as user rows of the running turn) and keeps going
//!   ("the two `dequeueMessages()` sites"). `message-consumed` is emitted before the text.
//! - **Turn end.** `status idle` fires *before* the durable write, then the write, then
//!   `turn-sealed` (three separate steps, so fetches can be served between them). While a
//!   turn is between `status idle` and `turn-sealed`, POST handling waits (we assume
//!   processMessage is serialised behind flushAssistant; the note does not say).
//! - **Failure.** A turn may fail at any point while streaming: the queue is drained as
//!   trailing history (so no queued message is stranded with no turn to consume it), then
//!   `status error`, the write of everything streamed so far, and `turn-sealed`. The note
//!   lists `error` as a status but not what a failed turn persists; we choose "what was
//!   streamed", and a sealed turn, because a turn that never seals would leave every
//!   store's live rows unreconciled by construction.
//! - **Network.** Per client, WebSocket events are delivered in order or within a bounded
//!   reordering window; POSTs are handled in the order sent; fetches are served in the
//!   order asked, but served responses may reach the client in any order (separate HTTP
//!   requests), which is how stale responses are applied after fresh ones.
//! - **Tabs** all connect at the start, when the DB is empty. With `status_on_connect` a
//!   tab is sent the agent's status as its first event; without it, a fresh tab learns the
//!   status only from the next `status` event.

use std::collections::{BTreeSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::model::config::WorldConfig;
use crate::model::step::Step;
use crate::model::store::{Store, StoreFactory};
use crate::model::wire::{
    delta_text, message_text, AgentStatus, ChunkRow, ClientId, Effect, Event, Input, MessageId,
    PostOutcome, RequestId, Role, TurnId, INTERRUPT_MARKER,
};
use crate::oracle::tokens::{token_key, KeySet, TokenKey};

/// Where the running turn is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnPhase {
    /// Streaming text, tool calls and results.
    Streaming,
    /// `status idle|error` emitted; the durable write has not happened.
    Finishing,
    /// Rows written; `turn-sealed` not yet emitted.
    Written,
}

/// The turn the agent is running.
#[derive(Clone, Debug)]
pub struct Turn {
    pub id: TurnId,
    pub phase: TurnPhase,
    /// Rows streamed so far, written at the end (role, text, message ids folded in).
    pending_rows: Vec<(Role, String, Vec<MessageId>)>,
    deltas_total: u32,
    deltas_in_segment: u8,
    tool_calls: u8,
    open_call: Option<u32>,
}

/// The one chat session every client shares.
#[derive(Debug, Default)]
pub struct Backend {
    /// Durable chunk rows, in `seq` order. Shared with fetch snapshots until it changes.
    pub db: Arc<Vec<ChunkRow>>,
    pub queue: Vec<MessageId>,
    pub turn: Option<Turn>,
    /// Turns whose durable write has happened, in write order (what a fetch response
    /// reports as `written_turns`).
    pub written_turns: Arc<Vec<TurnId>>,
    next_seq: u32,
    next_turn: u32,
}

/// A served fetch on its way back to the client.
#[derive(Clone, Debug)]
pub struct FetchInFlight {
    pub request: RequestId,
    pub snapshot_seq: u32,
    pub chunks: Arc<Vec<ChunkRow>>,
    pub written_turns: Arc<Vec<TurnId>>,
}

/// One browser tab: the store under test plus its network endpoints, its user, and the
/// facts the oracle needs about it.
pub struct Client {
    pub store: Box<dyn Store>,
    /// Undelivered WebSocket events, oldest first, with their global event ids.
    pub inbox: VecDeque<(u32, Event)>,
    pub posts: VecDeque<(MessageId, String)>,
    pub post_responses: VecDeque<(MessageId, PostOutcome)>,
    pub fetch_requests: VecDeque<RequestId>,
    pub fetch_responses: Vec<FetchInFlight>,
    pub scrolled_up: bool,
    pub sends_left: u8,
    pub scrolls_left: u8,
    /// Ground truth: messages this client's user sent, in order.
    pub sent: Vec<MessageId>,
    /// Their texts (`msg:m<N>`), kept so the oracle does not format them on every check.
    pub sent_texts: Vec<String>,
    /// Ground truth: delta texts delivered to this client, in delivery order.
    pub deltas_shown: Vec<String>,
    /// The keys of `sent_texts` and `deltas_shown`, for the oracle (boxed: a `Vec` of
    /// clients stays a small allocation).
    pub keys: Box<TrackedKeys>,
    /// Ground truth: turns whose `turn-sealed` this client has received.
    pub seals_shown: BTreeSet<TurnId>,
}

/// The content-token keys of what the oracle tracks for a client, parsed once when the
/// world records a text so the oracle compares numbers, not strings, on every check.
#[derive(Clone, Debug, Default)]
pub struct TrackedKeys {
    /// Parallel to [`Client::sent_texts`].
    pub sent: Vec<Option<TokenKey>>,
    /// Parallel to [`Client::deltas_shown`].
    pub deltas: Vec<Option<TokenKey>>,
    /// The same keys as sets, so that "every tracked token is shown" is a few word
    /// operations.
    pub sent_set: KeySet,
    pub delta_set: KeySet,
    /// A tracked text has no key (never for the world's own texts): the oracle then
    /// takes the long way.
    pub unkeyed: bool,
}

impl TrackedKeys {
    fn add_sent(&mut self, text: &str) {
        let key = token_key(text);
        match key {
            Some(k) => self.sent_set.insert(k),
            None => self.unkeyed = true,
        }
        self.sent.push(key);
    }

    fn add_delta(&mut self, text: &str) {
        let key = token_key(text);
        match key {
            Some(k) => self.delta_set.insert(k),
            None => self.unkeyed = true,
        }
        self.deltas.push(key);
    }
}

/// A store panicked while handling an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreCrash {
    pub client: ClientId,
    pub message: String,
}

/// Push `step`, then keep it only if `enabled`: no branch on `enabled`, which is close to
/// random from one step to the next (see [`World::enabled_steps`]).
#[inline(always)]
fn push_if(out: &mut Vec<Step>, enabled: bool, step: Step) {
    out.push(step);
    out.truncate(out.len() - 1 + usize::from(enabled));
}

/// The whole simulated world.
pub struct World {
    pub config: WorldConfig,
    pub backend: Backend,
    pub clients: Vec<Client>,
    next_event: u32,
    next_message: u32,
}

impl World {
    pub fn new(config: WorldConfig, stores: &dyn StoreFactory) -> World {
        World::with_stores(config, |i| stores.make(i))
    }

    /// A world whose client `i` runs the store `make(i)`.
    pub fn with_stores(
        config: WorldConfig,
        mut make: impl FnMut(ClientId) -> Box<dyn Store>,
    ) -> World {
        let clients = (0..config.clients)
            .map(|i| Client {
                store: make(i),
                // 21 events of 48 bytes: the most that stays under glibc's 1 KiB per-thread
                // cache (larger blocks take the slow path); enough for 96 % of runs.
                inbox: VecDeque::with_capacity(21),
                posts: VecDeque::new(),
                post_responses: VecDeque::new(),
                fetch_requests: VecDeque::new(),
                fetch_responses: Vec::new(),
                scrolled_up: false,
                sends_left: if config.is_active(i) {
                    config.sends_per_client
                } else {
                    0
                },
                scrolls_left: config.scrolls_per_client,
                sent: Vec::new(),
                sent_texts: Vec::new(),
                deltas_shown: Vec::new(),
                keys: Box::default(),
                seals_shown: BTreeSet::new(),
            })
            .collect();
        let mut world = World {
            config,
            backend: Backend {
                next_seq: 1,
                next_turn: 1,
                ..Backend::default()
            },
            clients,
            next_event: 1,
            next_message: 1,
        };
        if world.config.status_on_connect {
            world.broadcast(Event::Status {
                status: AgentStatus::Idle,
            });
        }
        world
    }

    fn broadcast(&mut self, event: Event) {
        let id = self.next_event;
        self.next_event += 1;
        // Every client gets a copy; the last one gets the original.
        if let Some((last, rest)) = self.clients.split_last_mut() {
            for c in rest {
                c.inbox.push_back((id, event.clone()));
            }
            last.inbox.push_back((id, event));
        }
    }

    fn streaming_turn(&self) -> Option<&Turn> {
        self.backend
            .turn
            .as_ref()
            .filter(|t| t.phase == TurnPhase::Streaming)
    }

    /// Push every enabled step, in sorted order, into `out` (cleared first).
    ///
    /// The groups are emitted in the order `Step`'s `Ord` puts them (variant, then
    /// client, then id), so the list comes out sorted without a sort in the common case.
    /// This runs before every step, and which client has what pending is close to random,
    /// so the per-client groups are built without branching on it: each candidate step is
    /// pushed and then kept or dropped by its condition ([`push_if`]).
    pub fn enabled_steps(&self, out: &mut Vec<Step>) {
        out.clear();
        let cfg = &self.config;
        let busy_finishing = matches!(
            self.backend.turn.as_ref().map(|t| t.phase),
            Some(TurnPhase::Finishing | TurnPhase::Written)
        );
        let clients = || {
            self.clients
                .iter()
                .enumerate()
                .map(|(i, c)| (i as ClientId, c))
        };
        for (client, c) in clients() {
            push_if(
                out,
                !c.posts.is_empty() && !busy_finishing,
                Step::HandlePost { client },
            );
        }
        if let Some(t) = self.streaming_turn() {
            if t.open_call.is_none() && t.deltas_in_segment < cfg.deltas_per_segment_max {
                out.push(Step::AgentDelta);
            }
            if t.open_call.is_none() && t.tool_calls < cfg.tool_calls_per_turn_max {
                out.push(Step::AgentToolCall);
            }
            if t.open_call.is_some() {
                out.push(Step::AgentToolResult { interrupt: false });
                if !self.backend.queue.is_empty() {
                    out.push(Step::AgentToolResult { interrupt: true });
                }
            } else {
                out.push(Step::AgentEnd);
            }
            if cfg.turn_failures {
                out.push(Step::AgentFail);
            }
        }
        match self.backend.turn.as_ref().map(|t| t.phase) {
            Some(TurnPhase::Finishing) => out.push(Step::AgentWrite),
            Some(TurnPhase::Written) => out.push(Step::AgentSeal),
            _ => {}
        }
        for (client, c) in clients() {
            push_if(
                out,
                !c.fetch_requests.is_empty(),
                Step::ServeFetch { client },
            );
        }
        let window = cfg.ws_reorder_window.max(1) as usize;
        for (client, c) in clients() {
            if window == 1 {
                let front = c.inbox.front().map(|(id, _)| *id);
                push_if(
                    out,
                    front.is_some(),
                    Step::DeliverEvent {
                        client,
                        event: front.unwrap_or(0),
                    },
                );
            } else {
                for (event, _) in c.inbox.iter().take(window) {
                    out.push(Step::DeliverEvent {
                        client,
                        event: *event,
                    });
                }
            }
        }
        for (client, c) in clients() {
            push_if(
                out,
                !c.post_responses.is_empty(),
                Step::DeliverPostResponse { client },
            );
        }
        for (client, c) in clients() {
            if c.fetch_responses.is_empty() {
                continue;
            }
            let start = out.len();
            for f in &c.fetch_responses {
                out.push(Step::DeliverFetchResponse {
                    client,
                    request: f.request,
                });
            }
            // Request ids are the store's own: their order is not guaranteed.
            if !out[start..].is_sorted() {
                out[start..].sort_unstable();
            }
        }
        for (client, c) in clients() {
            push_if(out, c.sends_left > 0, Step::Send { client });
        }
        for (client, c) in clients() {
            push_if(
                out,
                c.scrolls_left > 0 && !c.scrolled_up,
                Step::ScrollUp { client },
            );
        }
        for (client, c) in clients() {
            // Out of scroll budget but still up: the user can always come back down.
            push_if(out, c.scrolled_up, Step::ScrollDown { client });
        }
        debug_assert!(out.is_sorted(), "enabled steps out of order: {out:?}");
    }

    /// Whether `step` is enabled now.
    pub fn is_enabled(&self, step: &Step, scratch: &mut Vec<Step>) -> bool {
        self.enabled_steps(scratch);
        scratch.binary_search(step).is_ok()
    }

    /// A one-line description of what `step` would do now (for traces), without applying it.
    pub fn describe(&self, step: &Step) -> String {
        let client = |c: ClientId| self.clients.get(c as usize);
        match *step {
            Step::HandlePost { client: c } => match client(c).and_then(|c| c.posts.front()) {
                Some((m, _)) => format!("POST {m} reaches the backend ({})", {
                    if self.backend.turn.is_some() {
                        "agent busy: queued".to_string()
                    } else {
                        format!("agent idle: starts t{}", self.backend.next_turn)
                    }
                }),
                None => String::new(),
            },
            Step::DeliverEvent { client: c, event } => client(c)
                .and_then(|c| c.inbox.iter().find(|(id, _)| *id == event))
                .map(|(_, e)| describe_event(e))
                .unwrap_or_default(),
            Step::DeliverPostResponse { client: c } => client(c)
                .and_then(|c| c.post_responses.front())
                .map(|(m, o)| match o {
                    PostOutcome::Started { turn_id } => {
                        format!("POST {m} response: started {turn_id}")
                    }
                    PostOutcome::Queued => format!("POST {m} response: queued"),
                })
                .unwrap_or_default(),
            Step::DeliverFetchResponse { client: c, request } => client(c)
                .and_then(|c| c.fetch_responses.iter().find(|f| f.request == request))
                .map(|f| {
                    format!(
                        "fetch {request} response: {} rows up to seq {}",
                        f.chunks.len(),
                        f.snapshot_seq
                    )
                })
                .unwrap_or_default(),
            Step::ServeFetch { client: c } => client(c)
                .and_then(|c| c.fetch_requests.front())
                .map(|r| {
                    format!(
                        "fetch {r} served: snapshot up to seq {}",
                        self.backend.db.last().map_or(0, |r| r.seq)
                    )
                })
                .unwrap_or_default(),
            Step::Send { .. } => format!("user sends {}", MessageId(self.next_message)),
            Step::AgentEnd if !self.backend.queue.is_empty() => {
                format!("trailing drain of {}", list_ids(&self.backend.queue))
            }
            Step::AgentToolResult { interrupt: true } => {
                format!("interrupt with {}", list_ids(&self.backend.queue))
            }
            _ => String::new(),
        }
    }

    /// Apply one step. The caller guarantees it is enabled. A panicking store is reported as
    /// a [`StoreCrash`], never propagated.
    pub fn apply(&mut self, step: Step) -> Result<(), StoreCrash> {
        match step {
            Step::HandlePost { client } => self.handle_post(client),
            Step::AgentDelta => {
                let turn = self.backend.turn.as_mut().expect("enabled");
                turn.deltas_total += 1;
                turn.deltas_in_segment += 1;
                let text = delta_text(turn.id, turn.deltas_total);
                match turn.pending_rows.last_mut() {
                    Some((Role::Assistant, body, _)) => {
                        body.push(' ');
                        body.push_str(&text);
                    }
                    _ => turn
                        .pending_rows
                        .push((Role::Assistant, text.clone(), Vec::new())),
                }
                let turn_id = turn.id;
                self.broadcast(Event::TextDelta { turn_id, text });
            }
            Step::AgentToolCall => {
                let turn = self.backend.turn.as_mut().expect("enabled");
                turn.tool_calls += 1;
                let call = turn.tool_calls as u32;
                turn.open_call = Some(call);
                turn.deltas_in_segment = 0;
                let text = format!("tool-call:{}.{call}", turn.id);
                turn.pending_rows
                    .push((Role::ToolCall, text.clone(), Vec::new()));
                let turn_id = turn.id;
                self.broadcast(Event::ToolCall {
                    turn_id,
                    call,
                    text,
                });
            }
            Step::AgentToolResult { interrupt } => {
                let consumed = if interrupt {
                    std::mem::take(&mut self.backend.queue)
                } else {
                    Vec::new()
                };
                let turn = self.backend.turn.as_mut().expect("enabled");
                let call = turn.open_call.take().expect("enabled");
                let mut text = format!("tool-result:{}.{call}", turn.id);
                for m in &consumed {
                    text.push(' ');
                    text.push_str(INTERRUPT_MARKER);
                    text.push(' ');
                    text.push_str(&message_text(*m));
                }
                turn.pending_rows
                    .push((Role::ToolResult, text.clone(), consumed.clone()));
                let turn_id = turn.id;
                if !consumed.is_empty() {
                    self.broadcast(Event::MessageConsumed {
                        message_ids: consumed,
                    });
                }
                self.broadcast(Event::ToolResult {
                    turn_id,
                    call,
                    text,
                });
            }
            Step::AgentEnd => {
                if self.backend.queue.is_empty() {
                    self.finish_turn(AgentStatus::Idle);
                } else {
                    self.drain_trailing();
                }
            }
            Step::AgentFail => {
                self.backend.turn.as_mut().expect("enabled").open_call = None;
                if !self.backend.queue.is_empty() {
                    self.drain_trailing();
                }
                self.finish_turn(AgentStatus::Error);
            }
            Step::AgentWrite => {
                let turn = self.backend.turn.as_mut().expect("enabled");
                turn.phase = TurnPhase::Written;
                let rows = std::mem::take(&mut turn.pending_rows);
                let turn_id = turn.id;
                let db = Arc::make_mut(&mut self.backend.db);
                for (role, text, message_ids) in rows {
                    db.push(ChunkRow {
                        seq: self.backend.next_seq,
                        turn_id,
                        role,
                        text,
                        message_ids,
                    });
                    self.backend.next_seq += 1;
                }
                Arc::make_mut(&mut self.backend.written_turns).push(turn_id);
            }
            Step::AgentSeal => {
                let turn = self.backend.turn.take().expect("enabled");
                self.broadcast(Event::TurnSealed { turn_id: turn.id });
            }
            Step::ServeFetch { client } => {
                let c = &mut self.clients[client as usize];
                let request = c.fetch_requests.pop_front().expect("enabled");
                c.fetch_responses.push(FetchInFlight {
                    request,
                    snapshot_seq: self.backend.db.last().map_or(0, |r| r.seq),
                    chunks: Arc::clone(&self.backend.db),
                    written_turns: Arc::clone(&self.backend.written_turns),
                });
            }
            Step::DeliverEvent { client, event } => {
                let c = &mut self.clients[client as usize];
                let pos = c
                    .inbox
                    .iter()
                    .position(|(id, _)| *id == event)
                    .expect("enabled");
                let (_, ev) = c.inbox.remove(pos).expect("enabled");
                if let Event::TurnSealed { turn_id } = &ev {
                    c.seals_shown.insert(*turn_id);
                }
                let input = Input::Event { event: ev };
                let fed = self.feed(client, &input);
                // The delta's text is recorded once the store is done with the input (moved,
                // not copied), also when the store crashed on it.
                if let Input::Event {
                    event: Event::TextDelta { text, .. },
                } = input
                {
                    let c = &mut self.clients[client as usize];
                    c.keys.add_delta(&text);
                    c.deltas_shown.push(text);
                }
                fed?;
            }
            Step::DeliverPostResponse { client } => {
                let (message_id, response) = self.clients[client as usize]
                    .post_responses
                    .pop_front()
                    .expect("enabled");
                self.feed(
                    client,
                    &Input::PostResponse {
                        message_id,
                        response,
                    },
                )?;
            }
            Step::DeliverFetchResponse { client, request } => {
                let c = &mut self.clients[client as usize];
                let pos = c
                    .fetch_responses
                    .iter()
                    .position(|f| f.request == request)
                    .expect("enabled");
                let f = c.fetch_responses.remove(pos);
                let input = Input::FetchResponse {
                    request_id: f.request,
                    snapshot_seq: f.snapshot_seq,
                    chunks: f.chunks,
                    written_turns: f.written_turns,
                };
                self.feed(client, &input)?;
            }
            Step::Send { client } => {
                let message_id = MessageId(self.next_message);
                self.next_message += 1;
                let c = &mut self.clients[client as usize];
                c.sends_left -= 1;
                c.sent.push(message_id);
                let text = message_text(message_id);
                c.keys.add_sent(&text);
                c.sent_texts.push(text.clone());
                self.feed(client, &Input::UserSend { message_id, text })?;
            }
            Step::ScrollUp { client } | Step::ScrollDown { client } => {
                let up = matches!(step, Step::ScrollUp { .. });
                let c = &mut self.clients[client as usize];
                c.scrolls_left = c.scrolls_left.saturating_sub(1);
                c.scrolled_up = up;
                self.feed(client, &Input::Scroll { at_bottom: !up })?;
            }
        }
        Ok(())
    }

    fn handle_post(&mut self, client: ClientId) {
        let (message_id, text) = self.clients[client as usize]
            .posts
            .pop_front()
            .expect("enabled");
        let outcome = if self.backend.turn.is_none() {
            let turn_id = TurnId(self.backend.next_turn);
            self.backend.next_turn += 1;
            let db = Arc::make_mut(&mut self.backend.db);
            db.push(ChunkRow {
                seq: self.backend.next_seq,
                turn_id,
                role: Role::User,
                text,
                message_ids: vec![message_id],
            });
            self.backend.next_seq += 1;
            self.backend.turn = Some(Turn {
                id: turn_id,
                phase: TurnPhase::Streaming,
                pending_rows: Vec::new(),
                deltas_total: 0,
                deltas_in_segment: 0,
                tool_calls: 0,
                open_call: None,
            });
            self.broadcast(Event::TurnStart { turn_id });
            self.broadcast(Event::Status {
                status: AgentStatus::Running,
            });
            PostOutcome::Started { turn_id }
        } else {
            self.backend.queue.push(message_id);
            self.broadcast(Event::MessageQueued { message_id });
            PostOutcome::Queued
        };
        self.clients[client as usize]
            .post_responses
            .push_back((message_id, outcome));
    }

    /// The end-of-reply `dequeueMessages()` site: queued messages become trailing user
    /// history of the running turn.
    fn drain_trailing(&mut self) {
        let consumed = std::mem::take(&mut self.backend.queue);
        let turn = self.backend.turn.as_mut().expect("running");
        for m in &consumed {
            turn.pending_rows
                .push((Role::User, message_text(*m), vec![*m]));
        }
        turn.deltas_in_segment = 0;
        self.broadcast(Event::MessageConsumed {
            message_ids: consumed,
        });
    }

    fn finish_turn(&mut self, status: AgentStatus) {
        self.backend.turn.as_mut().expect("running").phase = TurnPhase::Finishing;
        self.broadcast(Event::Status { status });
    }

    /// Give `input` to client `client`'s store and route the effects it asks for.
    fn feed(&mut self, client: ClientId, input: &Input) -> Result<(), StoreCrash> {
        let c = &mut self.clients[client as usize];
        let effects =
            catch_unwind(AssertUnwindSafe(|| c.store.handle(input))).map_err(|payload| {
                StoreCrash {
                    client,
                    message: panic_message(payload.as_ref()),
                }
            })?;
        for effect in effects {
            match effect {
                Effect::Post { message_id, text } => c.posts.push_back((message_id, text)),
                Effect::Fetch { request_id } => c.fetch_requests.push_back(request_id),
            }
        }
        Ok(())
    }

    /// True when nothing is left to do: no turn, no queue, nothing in flight anywhere.
    pub fn is_quiescent(&self) -> bool {
        self.backend.turn.is_none()
            && self.backend.queue.is_empty()
            && self.clients.iter().all(|c| {
                c.inbox.is_empty()
                    && c.posts.is_empty()
                    && c.post_responses.is_empty()
                    && c.fetch_requests.is_empty()
                    && c.fetch_responses.is_empty()
                    && !c.scrolled_up
            })
    }

    /// The id the next sent message will get.
    pub fn next_message_id(&self) -> MessageId {
        MessageId(self.next_message)
    }
}

fn list_ids(ids: &[MessageId]) -> String {
    ids.iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// A short human description of an event.
pub fn describe_event(e: &Event) -> String {
    match e {
        Event::TurnStart { turn_id } => format!("turn-start {turn_id}"),
        Event::TextDelta { text, .. } => format!("text-delta {text}"),
        Event::ToolCall { text, .. } => format!("tool-call {text}"),
        Event::ToolResult { text, .. } => format!("tool-result {text}"),
        Event::MessageQueued { message_id } => format!("message-queued {message_id}"),
        Event::MessageConsumed { message_ids } => {
            format!("message-consumed {}", list_ids(message_ids))
        }
        Event::Status { status } => format!(
            "status {}",
            match status {
                AgentStatus::Idle => "idle",
                AgentStatus::Running => "running",
                AgentStatus::Error => "error",
            }
        ),
        Event::TurnSealed { turn_id } => format!("turn-sealed {turn_id}"),
    }
}

/// The text of a panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

/// The world's state as a key for `explore`'s state cache (added for state caching; kept
/// in its own block). Every field is listed by an exhaustive destructuring, so a field
/// added to [`World`], [`Backend`], [`Turn`], [`Client`] or [`FetchInFlight`] and not
/// covered here is a compile error rather than a silently unsound cache. Together,
/// [`World::hash_shared_state`] and [`World::hash_client_state`] for every client cover
/// everything about the world except the stores and the constant `config`: the backend,
/// the id counters, every client's network queues, user budgets and the ground-truth facts
/// [`crate::oracle`] reads besides the renders. Each stream is injective.
impl World {
    /// The backend and the global id counters.
    pub fn hash_shared_state(&self, h: &mut impl std::hash::Hasher) {
        use std::hash::Hash;
        let World {
            config: _,
            backend,
            clients: _, // hash_client_state
            next_event,
            next_message,
        } = self;
        let Backend {
            db,
            queue,
            turn,
            written_turns,
            next_seq,
            next_turn,
        } = backend;
        (
            db.as_slice(),
            queue,
            written_turns.as_slice(),
            next_seq,
            next_turn,
            next_event,
            next_message,
        )
            .hash(h);
        match turn {
            None => 0u8.hash(h),
            Some(Turn {
                id,
                phase,
                pending_rows,
                deltas_total,
                deltas_in_segment,
                tool_calls,
                open_call,
            }) => {
                1u8.hash(h);
                let phase = match phase {
                    TurnPhase::Streaming => 0u8,
                    TurnPhase::Finishing => 1,
                    TurnPhase::Written => 2,
                };
                (
                    id,
                    phase,
                    pending_rows,
                    deltas_total,
                    deltas_in_segment,
                    tool_calls,
                    open_call,
                )
                    .hash(h);
            }
        }
    }

    /// Client `client`'s network queues, user budget and facts, without its store. A
    /// served fetch's snapshot is fed as its lengths: the DB and `written_turns` only ever
    /// grow by appending, so a snapshot is always their prefix of that length (the
    /// shared state holds the current ones).
    pub fn hash_client_state(&self, client: usize, h: &mut impl std::hash::Hasher) {
        use std::hash::Hash;
        let Client {
            store: _, // Store::hash_state
            inbox,
            posts,
            post_responses,
            fetch_requests,
            fetch_responses,
            scrolled_up,
            sends_left,
            scrolls_left,
            sent,
            sent_texts,
            deltas_shown,
            keys: _, // a function of `sent_texts` and `deltas_shown`
            seals_shown,
        } = &self.clients[client];
        (
            inbox,
            posts,
            post_responses,
            fetch_requests,
            scrolled_up,
            sends_left,
            scrolls_left,
            sent,
            sent_texts,
            deltas_shown,
            seals_shown,
        )
            .hash(h);
        fetch_responses.len().hash(h);
        for f in fetch_responses {
            let FetchInFlight {
                request,
                snapshot_seq,
                chunks,
                written_turns,
            } = f;
            debug_assert!(self.backend.db.starts_with(chunks), "the DB is append-only");
            debug_assert!(self.backend.written_turns.starts_with(written_turns));
            (request, snapshot_seq, chunks.len(), written_turns.len()).hash(h);
        }
    }
}

/// A copy of the world for `explore`, so that a search can return to a state without
/// replaying the path to it (added for state caching; kept in its own block).
impl World {
    /// A deep copy, or `None` when a store cannot copy itself
    /// ([`crate::model::store::Store::clone_box`]). Every field is listed, so a new one is a
    /// compile error here rather than a silently missing copy.
    pub fn try_clone(&self) -> Option<World> {
        let World {
            config,
            backend,
            clients,
            next_event,
            next_message,
        } = self;
        let Backend {
            db,
            queue,
            turn,
            written_turns,
            next_seq,
            next_turn,
        } = backend;
        let mut copies = Vec::with_capacity(clients.len());
        for c in clients {
            let Client {
                store,
                inbox,
                posts,
                post_responses,
                fetch_requests,
                fetch_responses,
                scrolled_up,
                sends_left,
                scrolls_left,
                sent,
                sent_texts,
                deltas_shown,
                keys,
                seals_shown,
            } = c;
            copies.push(Client {
                store: store.clone_box()?,
                inbox: inbox.clone(),
                posts: posts.clone(),
                post_responses: post_responses.clone(),
                fetch_requests: fetch_requests.clone(),
                fetch_responses: fetch_responses.clone(),
                scrolled_up: *scrolled_up,
                sends_left: *sends_left,
                scrolls_left: *scrolls_left,
                sent: sent.clone(),
                sent_texts: sent_texts.clone(),
                deltas_shown: deltas_shown.clone(),
                keys: keys.clone(),
                seals_shown: seals_shown.clone(),
            });
        }
        Some(World {
            config: config.clone(),
            backend: Backend {
                db: Arc::clone(db),
                queue: queue.clone(),
                turn: turn.clone(),
                written_turns: Arc::clone(written_turns),
                next_seq: *next_seq,
                next_turn: *next_turn,
            },
            clients: copies,
            next_event: *next_event,
            next_message: *next_message,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::strategy::{random::RandomStrategy, Strategy};

    /// Laws of the backend model, checked over many random schedules: the DB's `seq` is
    /// strictly increasing; every turn has exactly one user row written at its start
    /// (plus trailing-history user rows); `status idle|error` reaches each inbox before
    /// that turn's `turn-sealed`; a queued message never gets a `turn-start`.
    #[test]
    fn backend_laws_hold_on_random_schedules() {
        let kind = crate::store::current::KIND;
        for seed in 0..300 {
            let mut world = World::new(WorldConfig::from_seed(seed), &kind);
            let mut strategy = RandomStrategy::new(seed);
            let mut enabled = Vec::new();
            let mut all_events: Vec<Event> = Vec::new();
            let mut queued: BTreeSet<MessageId> = BTreeSet::new();
            for _ in 0..300 {
                world.enabled_steps(&mut enabled);
                if enabled.is_empty() {
                    break;
                }
                let step = enabled[strategy.choose(&enabled)];
                let before = world.clients[0].inbox.len();
                let _ = world.apply(step);
                // Client 0's inbox sees every broadcast; collect new ones in order.
                let inbox = &world.clients[0].inbox;
                if !matches!(step, Step::DeliverEvent { client: 0, .. }) && inbox.len() > before {
                    all_events.extend(inbox.iter().skip(before).map(|(_, e)| e.clone()));
                }
            }
            let seqs: Vec<u32> = world.backend.db.iter().map(|r| r.seq).collect();
            assert!(
                seqs.windows(2).all(|w| w[0] < w[1]),
                "seed {seed}: seq not increasing"
            );
            let mut last_status_end = None;
            for (i, e) in all_events.iter().enumerate() {
                match e {
                    Event::MessageQueued { message_id } => {
                        queued.insert(*message_id);
                    }
                    Event::Status {
                        status: AgentStatus::Idle | AgentStatus::Error,
                    } => last_status_end = Some(i),
                    Event::TurnSealed { .. } => {
                        assert!(
                            last_status_end.is_some_and(|s| s < i),
                            "seed {seed}: sealed before status"
                        )
                    }
                    _ => {}
                }
            }
            for row in world.backend.db.iter() {
                if row.role == Role::User {
                    let first_of_turn = world
                        .backend
                        .db
                        .iter()
                        .find(|r| r.turn_id == row.turn_id)
                        .unwrap();
                    if first_of_turn.seq == row.seq {
                        // The initiator: never a message that was queued.
                        let id: u32 = row.text.trim_start_matches("msg:m").parse().unwrap();
                        assert!(
                            !queued.contains(&MessageId(id)),
                            "seed {seed}: queued message started a turn"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_panicking_store_is_a_crash_value_not_a_harness_panic() {
        struct Boom;
        impl Store for Boom {
            fn handle(&mut self, _input: &Input) -> Vec<Effect> {
                panic!("boom")
            }
            fn render(&self) -> &[crate::model::wire::RenderRow] {
                &[]
            }
        }
        let mut world = World::with_stores(crate::testing::script::scripted_config(), |_| {
            Box::new(Boom)
        });
        let crash = world.apply(Step::Send { client: 0 }).unwrap_err();
        assert_eq!(
            crash,
            StoreCrash {
                client: 0,
                message: "boom".into()
            }
        );
    }
}
