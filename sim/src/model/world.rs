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

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::model::backend::{Backend, TurnPhase};
use crate::model::client::{answer_or_cause, Client};
use crate::model::config::WorldConfig;
use crate::model::record::{Record, StepRecord, StoreCrash};
use crate::model::step::{Actor, Step};
use crate::model::store::{Answer, CrashCause, Store, StoreFactory, StoreFault};
use crate::model::wire::{AgentStatus, ClientId, Event, Input, MessageId, RenderRow};

/// Push `step`, then keep it only if `enabled`: no branch on `enabled`, which is close to
/// random from one step to the next (see [`World::enabled_steps`]).
#[inline(always)]
fn push_if(out: &mut Vec<Step>, enabled: bool, step: Step) {
    out.push(step);
    out.truncate(out.len() - 1 + usize::from(enabled));
}

/// A store whose [`Store::boot`] failed: its first input reports that failure as the
/// store's crash (the run ends there).
struct BootFailed {
    store: Box<dyn Store>,
    cause: Option<CrashCause>,
}

impl Store for BootFailed {
    fn handle(&mut self, input: &Input) -> Answer {
        match self.cause.take() {
            Some(cause) => Err(StoreFault { cause }),
            None => self.store.handle(input),
        }
    }
    fn render(&self) -> &[RenderRow] {
        self.store.render()
    }
}

/// The whole simulated world.
pub struct World {
    pub(super) config: WorldConfig,
    pub(super) backend: Backend,
    pub(super) clients: Vec<Client>,
    pub(super) next_event: u32,
    /// Messages sent so far (the next one is the `next_message`-th, 0-based).
    pub(super) next_message: u32,
}

impl World {
    /// A world of `config` whose client `i` runs `stores.make(i)`.
    pub fn new(config: WorldConfig, stores: &dyn StoreFactory) -> World {
        World::with_stores(config, |i| stores.make(i))
    }

    /// A world whose client `i` runs the store `make(i)`. Each store is booted
    /// ([`Store::boot`]) once every store is made, in client order, and what it asks for is
    /// queued like an input's effects; a store whose boot fails reports the failure as its
    /// crash on its first input.
    pub fn with_stores(
        config: WorldConfig,
        mut make: impl FnMut(ClientId) -> Box<dyn Store>,
    ) -> World {
        let mut stores: Vec<Box<dyn Store>> = (0..config.clients).map(&mut make).collect();
        let mut booted = Vec::with_capacity(stores.len());
        for store in &mut stores {
            let answer = catch_unwind(AssertUnwindSafe(|| store.boot()));
            booted.push(answer_or_cause(answer));
        }
        let clients = stores
            .into_iter()
            .zip(booted)
            .zip(0..)
            .map(|((store, boot), i)| {
                let sends = if config.is_active(i) {
                    config.sends_per_client
                } else {
                    0
                };
                // What a boot asks for is routed as an input's effects are.
                let (store, effects) = match boot {
                    Ok(effects) => (store, effects),
                    Err(cause) => {
                        let failed: Box<dyn Store> = Box::new(BootFailed {
                            store,
                            cause: Some(cause),
                        });
                        (failed, Vec::new())
                    }
                };
                let mut c = Client::new(store, sends, config.scrolls_per_client);
                c.route(effects);
                c
            })
            .collect();
        let mut world = World {
            config,
            backend: Backend::new(),
            clients,
            next_event: 1,
            next_message: 0,
        };
        if world.config.status_on_connect {
            world.broadcast(
                Event::Status {
                    status: AgentStatus::Idle,
                },
                &mut (),
            );
        }
        world
    }

    /// The world's options.
    pub fn config(&self) -> &WorldConfig {
        &self.config
    }

    /// The backend.
    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    /// Every client, by index.
    pub fn clients(&self) -> &[Client] {
        &self.clients
    }

    /// Client `client`.
    pub fn client(&self, client: ClientId) -> &Client {
        &self.clients[client as usize]
    }

    /// The text message `id` was sent with, if it was sent.
    pub fn message_text(&self, id: MessageId) -> Option<&str> {
        self.clients.iter().find_map(|c| {
            let i = c.sent.iter().position(|m| *m == id)?;
            Some(c.sent_texts[i].as_str())
        })
    }

    /// The id the next sent message will get.
    pub fn next_message_id(&self) -> MessageId {
        crate::model::content::message_id(self.next_message)
    }

    /// The text the next sent message will have (`message_texts` decides): what a search
    /// that matches recorded texts compares.
    pub fn next_message_text(&self) -> String {
        crate::model::content::message_text_of(
            self.config.message_texts,
            self.next_message,
            self.next_message_id(),
        )
    }

    /// Empties `client`'s inbox: for a search that never delivers to that tab (the
    /// per-tab search's POST sources), whose inbox would only grow and be copied.
    pub fn clear_inbox(&mut self, client: ClientId) {
        self.clients[client as usize].inbox.clear();
        self.clients[client as usize].overtaken.clear();
    }

    /// Put `event` in every client's inbox under the next event id.
    pub(super) fn broadcast(&mut self, event: Event, rec: &mut impl Record) {
        let id = self.next_event;
        self.next_event += 1;
        rec.broadcast(id, &event);
        // Every client gets a copy; the last one gets the original.
        if let Some((last, rest)) = self.clients.split_last_mut() {
            for c in rest {
                c.inbox.push_back((id, event.clone()));
            }
            last.inbox.push_back((id, event));
        }
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
        // POST handling waits while a turn finishes, unless the backend queues such POSTs
        // for a continuation turn (`continuation_drains`).
        let busy_finishing = !self.config.continuation_drains
            && matches!(
                self.backend.turn.as_ref().map(|t| t.phase),
                Some(TurnPhase::Finishing | TurnPhase::Written)
            );
        for (client, c) in self.numbered_clients() {
            push_if(
                out,
                !c.posts.is_empty() && !busy_finishing,
                Step::HandlePost { client },
            );
        }
        self.push_agent_steps(out);
        for (client, c) in self.numbered_clients() {
            push_if(
                out,
                !c.fetch_requests.is_empty(),
                Step::ServeFetch { client },
            );
        }
        self.push_deliveries(out);
        for (client, c) in self.numbered_clients() {
            push_if(out, c.sends_left > 0, Step::Send { client });
        }
        for (client, c) in self.numbered_clients() {
            push_if(
                out,
                c.scrolls_left > 0 && !c.scrolled_up,
                Step::ScrollUp { client },
            );
        }
        for (client, c) in self.numbered_clients() {
            // Out of scroll budget but still up: the user can always come back down.
            push_if(out, c.scrolled_up, Step::ScrollDown { client });
        }
        debug_assert!(out.is_sorted(), "enabled steps out of order: {out:?}");
    }

    #[inline(always)]
    fn numbered_clients(&self) -> impl Iterator<Item = (ClientId, &Client)> {
        self.clients
            .iter()
            .enumerate()
            .map(|(i, c)| (i as ClientId, c))
    }

    /// The agent's enabled steps, in `Step` order.
    #[inline(always)]
    fn push_agent_steps(&self, out: &mut Vec<Step>) {
        let cfg = &self.config;
        if let Some(t) = self.backend.streaming_turn() {
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
    }

    /// Whether no broadcast can make another event deliverable to `client`: its inbox
    /// already holds `ws_reorder_window` events (a broadcast lands behind them), or, under
    /// a bound on overtaking, one of the events that can arrive has been overtaken as often
    /// as the bound allows (nothing behind it can arrive before it).
    pub fn deliveries_closed(&self, client: ClientId) -> bool {
        let c = &self.clients[client as usize];
        let window = self.config.ws_reorder_window.max(1) as usize;
        c.inbox.len() >= window
            || (0..c.inbox.len()).any(|i| c.holds_back(i, self.config.ws_overtakes_max))
    }

    /// Every enabled delivery to a client (events, POST responses, fetch responses), in
    /// `Step` order.
    #[inline(always)]
    fn push_deliveries(&self, out: &mut Vec<Step>) {
        let window = self.config.ws_reorder_window.max(1) as usize;
        for (client, c) in self.numbered_clients() {
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
                let overtakes_max = self.config.ws_overtakes_max;
                for (i, (event, _)) in c.inbox.iter().take(window).enumerate() {
                    out.push(Step::DeliverEvent {
                        client,
                        event: *event,
                    });
                    if c.holds_back(i, overtakes_max) {
                        break;
                    }
                }
            }
        }
        for (client, c) in self.numbered_clients() {
            push_if(
                out,
                !c.post_responses.is_empty(),
                Step::DeliverPostResponse { client },
            );
        }
        for (client, c) in self.numbered_clients() {
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
    }

    /// Whether `step` is enabled now.
    pub fn is_enabled(&self, step: &Step, scratch: &mut Vec<Step>) -> bool {
        self.enabled_steps(scratch);
        scratch.binary_search(step).is_ok()
    }

    /// Apply one step, which the caller guarantees is enabled, and say what it did.
    pub fn apply(&mut self, step: Step) -> StepRecord {
        let mut record = StepRecord::new(step);
        let _ = self.apply_into(step, &mut record);
        record
    }

    /// Apply one step, which the caller guarantees is enabled, reporting what it does to
    /// `rec` (`&mut ()` reports nothing). A store that panics is a [`StoreCrash`], never
    /// propagated.
    pub fn apply_into(&mut self, step: Step, rec: &mut impl Record) -> Result<(), StoreCrash> {
        let turn_before = self.backend.turn.as_ref().map(|t| t.id());
        let fed = match step.actor() {
            Actor::Client(_) => self.apply_client_step(step, rec),
            Actor::Backend => {
                self.apply_backend_step(step, rec);
                Ok(())
            }
        };
        if step.actor() == Actor::Backend {
            if let Some(turn) = turn_before.or(self.backend.turn.as_ref().map(|t| t.id())) {
                rec.turn(turn);
            }
        }
        if let Err(crash) = &fed {
            rec.crashed(crash);
        }
        fed
    }

    /// True when nothing is left to do: no turn, no queue, nothing in flight anywhere.
    pub fn is_quiescent(&self) -> bool {
        self.backend.turn.is_none()
            && self.backend.queue.is_empty()
            && self.clients.iter().all(Client::is_idle)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::model::wire::{Effect, Input, RenderRow, Role};
    use crate::run::strategy::{random::RandomStrategy, Strategy};

    /// Every order in which tab 0 can be handed five events already broadcast, against the
    /// definition of the window and of the bound on overtaking: each event arrives while
    /// fewer than `window` older ones are still on their way, and no event is overtaken
    /// by more than `ws_overtakes_max` later ones. Without the bound an event may wait
    /// behind every later one; each bound allows fewer orders than the next.
    #[test]
    fn events_arrive_in_exactly_the_orders_the_window_and_the_overtaking_bound_allow() {
        const EVENTS: u32 = 5;
        fn allowed(order: &[u32], window: u8, overtakes: Option<u8>) -> bool {
            order.iter().enumerate().all(|(t, &e)| {
                let older_on_the_way = (1..e).filter(|x| !order[..t].contains(x)).count();
                let overtaken_by = order[..t].iter().filter(|&&y| y > e).count();
                older_on_the_way < usize::from(window)
                    && overtakes.is_none_or(|m| overtaken_by <= usize::from(m))
            })
        }
        fn permutations(rest: &mut Vec<u32>, prefix: &mut Vec<u32>, out: &mut BTreeSet<Vec<u32>>) {
            if rest.is_empty() {
                out.insert(prefix.clone());
            }
            for i in 0..rest.len() {
                let e = rest.remove(i);
                prefix.push(e);
                permutations(rest, prefix, out);
                prefix.pop();
                rest.insert(i, e);
            }
        }
        fn arrivals(world: &World, prefix: &mut Vec<u32>, out: &mut BTreeSet<Vec<u32>>) {
            let mut enabled = Vec::new();
            world.enabled_steps(&mut enabled);
            let mut any = false;
            for step in enabled {
                if let Step::DeliverEvent { client: 0, event } = step {
                    any = true;
                    let mut next = world.try_clone().expect("copies");
                    next.apply(step);
                    prefix.push(event);
                    arrivals(&next, prefix, out);
                    prefix.pop();
                }
            }
            if !any {
                out.insert(prefix.clone());
            }
        }
        let mut every = BTreeSet::new();
        permutations(&mut (1..=EVENTS).collect(), &mut Vec::new(), &mut every);
        assert_eq!(every.len(), 120);
        for window in 1..=3 {
            let mut counts = Vec::new();
            for overtakes in [Some(0), Some(1), Some(2), None] {
                let mut config = crate::explore::ExploreBound::small(2, 0).world;
                config.status_on_connect = false;
                config.ws_reorder_window = window;
                config.ws_overtakes_max = overtakes;
                let mut world = World::new(config, &crate::store::note::current::KIND);
                assert_eq!(world.client(0).inbox().len(), 0);
                for _ in 0..EVENTS {
                    let status = AgentStatus::Running;
                    world.broadcast(Event::Status { status }, &mut ());
                }
                let mut got = BTreeSet::new();
                arrivals(&world, &mut Vec::new(), &mut got);
                let expected: BTreeSet<Vec<u32>> = every
                    .iter()
                    .filter(|o| allowed(o, window, overtakes))
                    .cloned()
                    .collect();
                assert_eq!(got, expected, "window {window}, overtakes {overtakes:?}");
                counts.push(got.len());
            }
            if window == 1 {
                assert_eq!(counts, [1, 1, 1, 1], "in order");
            } else {
                assert!(
                    counts.windows(2).all(|w| w[0] < w[1]),
                    "{window}: {counts:?}"
                );
            }
        }
    }

    /// Laws of the backend model, checked over many random schedules: the DB's `seq` is
    /// strictly increasing; every turn has exactly one user row written at its start
    /// (plus trailing-history user rows); `status idle|error` is broadcast before that
    /// turn's `turn-sealed`; a queued message never gets a `turn-start`, except in a world
    /// with `continuation_drains`, where a turn's initiator row holds exactly the messages
    /// a continuation drained (and a non-continuation turn's initiator is one message that
    /// was never queued).
    #[test]
    fn backend_laws_hold_on_random_schedules() {
        let kind = crate::store::note::current::KIND;
        for seed in 0..300 {
            let mut world = World::new(WorldConfig::from_seed(seed), &kind);
            let mut strategy = RandomStrategy::new(seed);
            let mut enabled = Vec::new();
            let mut all_events: Vec<Event> = Vec::new();
            let mut queued: BTreeSet<MessageId> = BTreeSet::new();
            let mut continued: Vec<Vec<MessageId>> = Vec::new();
            for _ in 0..300 {
                world.enabled_steps(&mut enabled);
                if enabled.is_empty() {
                    break;
                }
                let step = enabled[strategy.choose(&enabled)];
                let record = world.apply(step);
                if step == Step::AgentSeal {
                    continued.extend(record.consumed().map(<[MessageId]>::to_vec));
                }
                all_events.extend(record.broadcast.into_iter().map(|(_, e)| e));
            }
            let db = world.backend().db();
            let seqs: Vec<u32> = db.iter().map(|r| r.seq).collect();
            assert!(
                seqs.windows(2).all(|w| w[0] < w[1]),
                "seed {seed}: seq not increasing"
            );
            let mut last_status_end = None;
            for (i, e) in all_events.iter().enumerate() {
                match e {
                    Event::MessageQueued { message_id, .. } => {
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
            for row in db.iter().filter(|r| r.role == Role::User) {
                let first_of_turn = db.iter().find(|r| r.turn_id == row.turn_id).unwrap();
                if first_of_turn.seq != row.seq {
                    continue;
                }
                if continued.contains(&row.message_ids) {
                    // A continuation's initiator: the messages it drained, joined.
                    assert!(world.config().continuation_drains, "seed {seed}");
                    continue;
                }
                // The initiator: never a message that was queued.
                assert_eq!(row.message_ids.len(), 1, "seed {seed}");
                assert!(
                    !queued.contains(&row.message_ids[0]),
                    "seed {seed}: queued message started a turn"
                );
            }
            let continuation_turns = db
                .iter()
                .filter(|r| continued.contains(&r.message_ids))
                .count();
            assert_eq!(continuation_turns, continued.len(), "seed {seed}");
        }
    }

    #[test]
    fn a_panicking_store_is_a_crash_value_not_a_harness_panic() {
        struct Boom;
        impl Store for Boom {
            fn handle(&mut self, _input: &Input) -> crate::model::store::Answer {
                panic!("boom")
            }
            fn render(&self) -> &[RenderRow] {
                &[]
            }
        }
        let config = crate::testing::script::scripted_config();
        let mut world = World::with_stores(config, |_| Box::new(Boom));
        let record = world.apply(Step::Send { client: 0 });
        assert_eq!(
            record.crash,
            Some(StoreCrash {
                client: 0,
                cause: CrashCause::Panicked {
                    message: "boom".into()
                }
            })
        );
        assert!(
            matches!(record.input, Some(Input::UserSend { .. })),
            "the input is recorded"
        );
    }

    /// A store's boot effects are queued when the world is made (a fetch for its tab's
    /// fetch server); a store whose boot fails crashes on its first input, with that cause.
    #[test]
    fn boot_effects_are_routed_and_a_failed_boot_is_the_first_crash() {
        use crate::model::wire::RequestId;
        struct Booting(bool);
        impl Store for Booting {
            fn boot(&mut self) -> Answer {
                if self.0 {
                    Ok(vec![Effect::Fetch {
                        request_id: RequestId(7),
                    }])
                } else {
                    Err(StoreFault {
                        cause: CrashCause::Io {
                            error: "no".into(),
                            stderr_tail: String::new(),
                        },
                    })
                }
            }
            fn handle(&mut self, _input: &Input) -> Answer {
                Ok(Vec::new())
            }
            fn render(&self) -> &[RenderRow] {
                &[]
            }
        }
        let config = crate::testing::script::scripted_config();
        let mut world = World::with_stores(config, |c| Box::new(Booting(c == 0)));
        let requests: Vec<_> = world.client(0).fetch_requests().copied().collect();
        assert_eq!(requests, [RequestId(7)]);
        let mut enabled = Vec::new();
        world.enabled_steps(&mut enabled);
        assert!(enabled.contains(&Step::ServeFetch { client: 0 }));
        assert_eq!(world.client(1).fetch_requests().len(), 0);
        let record = world.apply(Step::DeliverEvent {
            client: 1,
            event: 1,
        });
        assert!(matches!(
            record.crash,
            Some(StoreCrash {
                client: 1,
                cause: CrashCause::Io { .. }
            })
        ));
    }

    /// A step's record says what it did: the events it broadcast, what the store was
    /// given and asked for, what the backend did with a POST.
    #[test]
    fn a_step_record_says_what_the_step_did() {
        let config = crate::testing::script::scripted_config();
        let mut world = World::new(config, &crate::store::note::current::KIND);
        let send = world.apply(Step::Send { client: 0 });
        assert!(matches!(
            send.input,
            Some(Input::UserSend {
                message_id: MessageId(1),
                ..
            })
        ));
        assert!(matches!(
            send.effects.as_slice(),
            [Effect::Post {
                message_id: Some(MessageId(1)),
                ..
            }]
        ));
        let post = world.apply(Step::HandlePost { client: 0 });
        assert_eq!(
            post.posted,
            Some((
                MessageId(1),
                crate::model::wire::PostOutcome::Started {
                    turn_id: crate::model::wire::TurnId(1)
                }
            ))
        );
        assert_eq!(post.turn, Some(crate::model::wire::TurnId(1)));
        // status idle on connect is e1; turn-start and status running follow.
        let ids: Vec<u32> = post.broadcast.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, [2, 3]);
        let deliver = world.apply(Step::DeliverEvent {
            client: 1,
            event: 1,
        });
        assert_eq!(deliver.position, Some(0));
        assert!(deliver.broadcast.is_empty() && deliver.crash.is_none());
    }

    /// The agent offers exactly the steps its turn allows: deltas while no call is open
    /// and the segment is below `deltas_per_segment_max`, a tool call while none is open
    /// and the turn is below `tool_calls_per_turn_max`, the open call's result (with an
    /// interrupt only while something is queued) or else the end of the reply, a failure
    /// only in a world with `turn_failures`; then the write, then the seal; nothing idle.
    #[test]
    fn the_agent_offers_exactly_the_steps_its_turn_allows() {
        use Step::{AgentDelta as Delta, AgentEnd as End, AgentFail as Fail};
        use Step::{AgentSeal as Seal, AgentToolCall as Call, AgentWrite as Write};
        const PLAIN: Step = Step::AgentToolResult { interrupt: false };
        const INTERRUPT: Step = Step::AgentToolResult { interrupt: true };
        for failures in [false, true] {
            let mut config = crate::testing::script::scripted_config();
            config.turn_failures = failures;
            assert_eq!(config.deltas_per_segment_max, 3);
            assert_eq!(config.tool_calls_per_turn_max, 2);
            let mut world = World::new(config, &crate::store::note::current::KIND);
            // The agent's steps now: `steps`, and a failure too while the turn streams.
            let check = |world: &World, steps: &[Step], streaming: bool, what: &str| {
                let mut expected = steps.to_vec();
                if failures && streaming {
                    expected.push(Fail);
                    expected.sort();
                }
                let mut enabled = Vec::new();
                world.enabled_steps(&mut enabled);
                let agent: Vec<Step> = enabled
                    .into_iter()
                    .filter(|s| s.actor() == Actor::Backend)
                    .filter(|s| !matches!(s, Step::HandlePost { .. } | Step::ServeFetch { .. }))
                    .collect();
                assert_eq!(agent, expected, "{what} (turn_failures {failures})");
            };
            check(&world, &[], false, "idle");
            world.apply(Step::Send { client: 0 });
            world.apply(Step::HandlePost { client: 0 });
            check(&world, &[Delta, Call, End], true, "a turn just started");
            for _ in 0..3 {
                world.apply(Delta);
            }
            check(
                &world,
                &[Call, End],
                true,
                "a segment of 3 deltas, the most",
            );
            world.apply(Call);
            check(&world, &[PLAIN], true, "a call open, nothing queued");
            world.apply(Step::Send { client: 1 });
            world.apply(Step::HandlePost { client: 1 });
            check(
                &world,
                &[PLAIN, INTERRUPT],
                true,
                "a call open, a message queued",
            );
            world.apply(INTERRUPT);
            check(
                &world,
                &[Delta, Call, End],
                true,
                "one call of 2 made, a new segment",
            );
            world.apply(Call);
            world.apply(PLAIN);
            check(&world, &[Delta, End], true, "2 calls of 2 made");
            world.apply(End);
            check(&world, &[Write], false, "the reply ended, nothing queued");
            world.apply(Write);
            check(&world, &[Seal], false, "written");
            world.apply(Seal);
            check(&world, &[], false, "sealed");
        }
    }

    /// `deliveries_closed` says exactly whether one more broadcast would leave the tab's
    /// deliverable events as they are, at every state of tab 0's inbox that some order of
    /// arrival of four events reaches, for each window and bound on overtaking (the per-tab
    /// search of `explore` relies on it to let the tab go first).
    #[test]
    fn deliveries_are_closed_exactly_when_a_broadcast_adds_no_deliverable_event() {
        fn deliverable(world: &World) -> Vec<u32> {
            let mut enabled = Vec::new();
            world.enabled_steps(&mut enabled);
            enabled
                .iter()
                .filter_map(|s| match s {
                    Step::DeliverEvent { client: 0, event } => Some(*event),
                    _ => None,
                })
                .collect()
        }
        fn visit(world: &World, seen: &mut [usize; 2]) {
            let mut more = world.try_clone().expect("copies");
            more.broadcast(
                Event::Status {
                    status: AgentStatus::Running,
                },
                &mut (),
            );
            let closed = deliverable(&more) == deliverable(world);
            assert_eq!(
                world.deliveries_closed(0),
                closed,
                "inbox {:?}, window {}, overtakes {:?}",
                world
                    .client(0)
                    .inbox()
                    .map(|(id, _)| id)
                    .collect::<Vec<_>>(),
                world.config().ws_reorder_window,
                world.config().ws_overtakes_max
            );
            seen[usize::from(closed)] += 1;
            for event in deliverable(world) {
                let mut next = world.try_clone().expect("copies");
                next.apply(Step::DeliverEvent { client: 0, event });
                visit(&next, seen);
            }
        }
        for window in 1..=3 {
            for overtakes in [Some(0), Some(1), None] {
                let mut config = crate::explore::ExploreBound::small(2, 0).world;
                config.status_on_connect = false;
                config.ws_reorder_window = window;
                config.ws_overtakes_max = overtakes;
                let mut world = World::new(config, &crate::store::note::current::KIND);
                let mut seen = [0; 2];
                visit(&world, &mut seen);
                for _ in 0..4 {
                    let status = AgentStatus::Running;
                    world.broadcast(Event::Status { status }, &mut ());
                }
                visit(&world, &mut seen);
                assert!(
                    seen[0] > 0 && seen[1] > 0,
                    "window {window}, overtakes {overtakes:?}: open {}, closed {}",
                    seen[0],
                    seen[1]
                );
            }
        }
    }

    /// Along random schedules of several stores: the world is quiescent exactly when no
    /// step is left but a send or a scroll up (no turn, no queue, nothing in flight, every
    /// user at the bottom), and `is_enabled` says yes to each enabled step and no to each
    /// step enabled one step before and not now.
    #[test]
    fn quiescent_means_only_sends_and_scroll_ups_are_left_and_is_enabled_agrees() {
        let mut scratch = Vec::new();
        let (mut quiet, mut busy) = (0, 0);
        for name in ["naive", "fix-ab", "current"] {
            let kind = crate::store::by_name(name).unwrap();
            for seed in 0..40 {
                let mut world = World::new(WorldConfig::from_seed(seed), &kind);
                let mut strategy = RandomStrategy::new(seed);
                let (mut enabled, mut before) = (Vec::new(), Vec::new());
                for _ in 0..200 {
                    world.enabled_steps(&mut enabled);
                    let left_idle = enabled
                        .iter()
                        .all(|s| matches!(s, Step::Send { .. } | Step::ScrollUp { .. }));
                    assert_eq!(world.is_quiescent(), left_idle, "{name} seed {seed}");
                    if left_idle {
                        quiet += 1;
                    } else {
                        busy += 1;
                    }
                    for s in &before {
                        let now = enabled.contains(s);
                        assert_eq!(world.is_enabled(s, &mut scratch), now, "{name} {seed} {s}");
                    }
                    for s in &enabled {
                        assert!(world.is_enabled(s, &mut scratch), "{name} {seed} {s}");
                    }
                    if enabled.is_empty() {
                        break;
                    }
                    let step = enabled[strategy.choose(&enabled)];
                    if world.apply(step).crash.is_some() {
                        break;
                    }
                    std::mem::swap(&mut before, &mut enabled);
                }
            }
        }
        assert!(quiet > 0 && busy > 0, "quiet {quiet}, busy {busy}");
    }

    /// Fetch responses are offered in the order of their request ids, whatever order the
    /// store asked in (the ids are the store's own), so the enabled steps stay sorted.
    #[test]
    fn fetch_responses_are_offered_in_request_id_order() {
        use crate::model::wire::RequestId;
        struct FetchesTwice;
        impl Store for FetchesTwice {
            fn boot(&mut self) -> Answer {
                Ok(vec![
                    Effect::Fetch {
                        request_id: RequestId(9),
                    },
                    Effect::Fetch {
                        request_id: RequestId(3),
                    },
                ])
            }
            fn handle(&mut self, _input: &Input) -> Answer {
                Ok(Vec::new())
            }
            fn render(&self) -> &[RenderRow] {
                &[]
            }
        }
        let config = crate::testing::script::scripted_config();
        let mut world = World::with_stores(config, |_| Box::new(FetchesTwice));
        world.apply(Step::ServeFetch { client: 0 });
        world.apply(Step::ServeFetch { client: 0 });
        let mut enabled = Vec::new();
        world.enabled_steps(&mut enabled);
        let responses: Vec<Step> = enabled
            .iter()
            .copied()
            .filter(|s| matches!(s, Step::DeliverFetchResponse { .. }))
            .collect();
        assert_eq!(
            responses,
            [3, 9].map(|r| Step::DeliverFetchResponse {
                client: 0,
                request: RequestId(r)
            })
        );
        assert!(enabled.is_sorted(), "{enabled:?}");
    }

    /// A tab whose boot failed still shows what its store renders (an adapter can render
    /// restored rows at boot and then fail, here by reporting a fault), until its first
    /// input reports the boot's failure as the crash.
    #[test]
    fn a_tab_whose_boot_failed_shows_its_store_s_rows_until_its_first_input_crashes() {
        use crate::model::wire::Origin;
        struct Restored(Vec<RenderRow>);
        impl Store for Restored {
            fn boot(&mut self) -> Answer {
                Err(StoreFault {
                    cause: CrashCause::Protocol {
                        why: "the restored draft could not be resent".into(),
                        stderr_tail: String::new(),
                    },
                })
            }
            fn handle(&mut self, _input: &Input) -> Answer {
                Ok(Vec::new())
            }
            fn render(&self) -> &[RenderRow] {
                &self.0
            }
        }
        let row = RenderRow {
            origin: Origin::Live { id: "draft".into() },
            role: Role::User,
            turn_id: None,
            text: "restored".into(),
        };
        let config = crate::testing::script::scripted_config();
        let rows = vec![row];
        let mut world = World::with_stores(config, |_| Box::new(Restored(rows.clone())));
        assert_eq!(world.client(0).render(), rows);
        let record = world.apply(Step::Send { client: 0 });
        assert!(matches!(
            record.crash,
            Some(StoreCrash {
                client: 0,
                cause: CrashCause::Protocol { .. }
            })
        ));
        assert_eq!(world.client(0).render(), rows);
    }
}
