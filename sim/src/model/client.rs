//! A browser tab: the store under test, its network endpoints (WebSocket inbox, POSTs and
//! fetches in flight), its user, and the ground truth about what the tab's user sent and
//! was shown. The steps that feed a tab's store are in `client_steps.rs`.

use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;

use crate::model::content::{leading_token_key, token_key, KeySet, TokenKey};
use crate::model::memo::Memo;
use crate::model::shared_store::SharedStore;
use crate::model::store::{Answer, CrashCause, Store};
use crate::model::wire::{
    ChunkRow, Effect, Event, Input, MessageId, PostOutcome, RenderRow, RequestId, TurnId,
};

/// A served fetch on its way back to the client.
#[derive(Clone, Debug)]
pub struct FetchInFlight {
    /// The store's request id.
    pub request: RequestId,
    /// The largest `seq` in the snapshot (0 when empty).
    pub snapshot_seq: u32,
    pub(super) chunks: Arc<Vec<ChunkRow>>,
    pub(super) written_turns: Arc<Vec<TurnId>>,
}

/// A POST on its way to the backend.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PostInFlight {
    /// The world's id of the message posted: the id the POST carried, or, for a POST that
    /// carried none, the oldest message the tab's user sent that it had not posted yet.
    pub message: MessageId,
    /// The text posted.
    pub text: String,
    /// Whether the POST carried the id (else the backend mints one).
    pub carried_id: bool,
}

/// The answer to a POST, on its way back to the tab.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PostAnswer {
    /// The id the POST carried, if any.
    pub posted: Option<MessageId>,
    /// Started a turn, or queued.
    pub outcome: PostOutcome,
    /// The id the backend minted, if it minted one.
    pub server_id: Option<MessageId>,
}

impl PostAnswer {
    /// What the store is told.
    pub fn input(&self) -> Input {
        Input::PostResponse {
            message_id: self.posted,
            response: self.outcome,
            server_id: self.server_id,
        }
    }
}

/// One browser tab.
pub struct Client {
    pub(super) store: SharedStore,
    /// Undelivered WebSocket events, oldest first, with their global event ids.
    pub(super) inbox: VecDeque<(u32, Event)>,
    /// Under a bound on overtaking (`ws_overtakes_max`): how many later events have
    /// overtaken each of the oldest events of `inbox` (parallel to its front, no trailing
    /// zeros). Only an event among the `window − 1` oldest can have been overtaken: a
    /// delivery takes one of the `window` oldest and overtakes the events before it, and
    /// an event only ever moves towards the front. Always empty without the bound.
    pub(super) overtaken: Vec<u8>,
    pub(super) posts: VecDeque<PostInFlight>,
    pub(super) post_responses: VecDeque<PostAnswer>,
    /// The messages the tab's store has POSTed so far (by the world's ids), to tell which
    /// message a POST without an id is.
    pub(super) posted: Vec<MessageId>,
    pub(super) fetch_requests: VecDeque<RequestId>,
    pub(super) fetch_responses: Vec<FetchInFlight>,
    pub(super) scrolled_up: bool,
    pub(super) sends_left: u8,
    pub(super) scrolls_left: u8,
    /// Ground truth: messages this client's user sent, in order.
    pub(super) sent: Arc<Vec<MessageId>>,
    /// Their texts (`msg:m<N>`), kept so the oracle does not format them on every check.
    pub(super) sent_texts: Arc<Vec<String>>,
    /// Ground truth: delta texts delivered to this client, in delivery order.
    pub(super) deltas_shown: Arc<Vec<String>>,
    /// What this tab learned when, for the oracle's judgement of order and shape: the
    /// tab's clock at each send (parallel to `sent`), at each delta delivery and the
    /// delta's view segment (parallel to `deltas_shown`), and each tool marker delivered.
    pub(super) learned: Arc<Learned>,
    /// The keys of `sent_texts` and `deltas_shown`. This and the other facts above are
    /// shared (`Arc`) between a tab and its copies, and copied only when a step adds to
    /// them: the search copies a world far more often than a send or a delta changes one.
    pub(super) keys: Arc<TrackedKeys>,
    /// Ground truth: turns whose `turn-sealed` this client has received.
    pub(super) seals_shown: Arc<BTreeSet<TurnId>>,
    /// A digest of the tab's own part (its store, user and facts:
    /// [`World::hash_client_own`] and the store's digest) in the current state, once
    /// asked for ([`Client::own_digest`]); forgotten at each step of the tab, the only
    /// steps that change that part. Backend steps, most of a search's, leave it as it is,
    /// so a search's fingerprint feeds the store's state once per state of the store.
    pub(super) own_digest: Memo,
}

/// When a tab learned each piece of content, by its own clock (one tick per send and per
/// delivered delta or tool event), and how the tab saw a turn's deltas grouped into
/// segments, in two strengths:
///
/// - a **run** is deltas of one turn delivered with nothing between them (no tool event,
///   no `turn-start`, no other turn's delta): a store streaming into the turn's current
///   assistant row (the note's `currentAssistantId`) has every reason to keep a run in one
///   row;
/// - a **segment** is deltas of one turn between two of that turn's tool events: what
///   the backend writes as one row, and what no row may mix (text after a tool call never
///   belongs in the row before it).
///
/// A store can tell no more than this from the events it receives.
#[derive(Clone, Debug, Default, Hash)]
pub struct Learned {
    /// The tab's clock: ticks once per send and per delivered delta or tool event.
    pub clock: u32,
    /// The clock at each send, parallel to [`Client::sent`].
    pub sent_at: Vec<u32>,
    /// For each delta delivered, parallel to [`Client::deltas_shown`]: the clock then, its
    /// run and its segment.
    pub deltas: Vec<DeltaSeen>,
    /// Each tool marker (`tool-call:…`, `tool-result:…`) delivered, with the clock then.
    pub markers: Vec<(TokenKey, u32)>,
    /// Each of the tab's own messages a delivered `message-consumed` named, with when
    /// ([`Learned::told_at`]): when the tab was told where the DB will hold it (a tool
    /// result, trailing history, the next turn's first row). Only its own ([`Own`]), the
    /// first time, by id.
    pub consumed: Vec<(MessageId, u32)>,
    /// The first event delivered (its `turn-start`, or content that overtook it) of each
    /// turn one of the tab's own messages started, with when, just before it
    /// ([`Learned::told_at`]): when the tab was told the turn began, so where its
    /// initiating message sits in the DB. Only those turns ([`Own`]), by id.
    pub turns_seen: Vec<(TurnId, u32)>,
    /// Runs begun so far.
    runs: u32,
    /// The turn of the open run, if one is open.
    run_turn: Option<TurnId>,
    /// Per turn, the tool events of that turn delivered so far (its segment number).
    tool_events: Vec<(TurnId, u32)>,
}

/// When a tab was shown one delta, and how it was grouped (see [`Learned`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeltaSeen {
    /// The tab's clock at delivery.
    pub at: u32,
    /// Its run (numbered per tab).
    pub run: u32,
    /// Its segment: its turn and the number of that turn's tool events before it.
    pub segment: (TurnId, u32),
}

/// What is the tab's own, for what [`Learned`] records: the oracle reads when the tab was
/// told a message's place in the DB only for the tab's own messages (`decided` in
/// `oracle/render.rs`, asked of [`Client::sent`]), so the tab records it for those alone.
/// Recording other tabs' messages and turns too would be history nothing reads, yet part
/// of the state `explore` tells states apart by: when another tab's turn started, by this
/// tab's clock, made 3.3x the states on `--sends 2 --deltas 0` (issue 48).
#[derive(Clone, Copy)]
pub(super) struct Own<'a> {
    /// The messages the tab's user sent ([`Client::sent`]).
    pub(super) sent: &'a [MessageId],
    /// The DB, whose rows say which messages started which turn.
    pub(super) db: &'a [ChunkRow],
}

impl Own<'_> {
    /// Whether the tab's user sent `m`.
    fn message(self, m: MessageId) -> bool {
        self.sent.contains(&m)
    }

    /// Whether one of the tab's own messages started `turn`: the turn's first row in the
    /// DB (its initiator, written before any of its events is sent) holds one. A superset
    /// of the turns the oracle asks about (`initiated` in `oracle/render.rs`: the turn
    /// whose first row is the first user row holding an own message).
    fn turn(self, turn: TurnId) -> bool {
        self.db
            .iter()
            .find(|r| r.turn_id == turn)
            .is_some_and(|r| r.message_ids.iter().any(|m| self.message(*m)))
    }
}

impl Learned {
    fn tick(&mut self) -> u32 {
        self.clock += 1;
        self.clock
    }

    pub(super) fn sent(&mut self) {
        let t = self.tick();
        self.sent_at.push(t);
    }

    fn tool_events_of(&mut self, turn: TurnId) -> &mut u32 {
        let i = match self.tool_events.iter().position(|(t, _)| *t == turn) {
            Some(i) => i,
            None => {
                self.tool_events.push((turn, 0));
                self.tool_events.len() - 1
            }
        };
        &mut self.tool_events[i].1
    }

    /// Whether [`Learned::delivered`] changes anything for `event` (so that a tab's copy,
    /// shared with its snapshots, is copied only then).
    pub(super) fn learns_from(&self, event: &Event, own: Own<'_>) -> bool {
        match event {
            Event::TextDelta { .. } | Event::ToolCall { .. } | Event::ToolResult { .. } => true,
            Event::MessageConsumed { message_ids, .. } => {
                message_ids.iter().any(|m| own.message(*m))
            }
            Event::TurnStart { turn_id } => self.run_turn.is_some() || self.first_of(*turn_id, own),
            _ => false,
        }
    }

    /// Whether an event of `turn` is the first of a turn of the tab's own that reached it.
    fn first_of(&self, turn: TurnId, own: Own<'_>) -> bool {
        !self.turns_seen.iter().any(|(t, _)| *t == turn) && own.turn(turn)
    }

    /// The tab learned that `turn` exists (its first event, if this is it, of a turn of
    /// its own).
    fn turn_seen(&mut self, turn: TurnId, own: Own<'_>) {
        if self.first_of(turn, own) {
            let at = self.told_at();
            first_time(&mut self.turns_seen, turn, at);
        }
    }

    /// When the tab is told something about where the DB holds a message (its
    /// `message-consumed`, its turn's first event): the tick of the last streamed content
    /// (delta or tool marker) it was shown, 0 before any, rather than the clock, which
    /// also ticks at sends. The oracle compares such a time only with the times of
    /// streamed content (a message's place in the DB's order against a content row's),
    /// never with a send's (arrival order compares sends with content) and, in the end,
    /// never with another such time (`in_some_defensible_order` in `oracle/render.rs`: a
    /// pair of the tab's own messages out of order is caught by the send-order rule
    /// first). No content came between that tick and the clock, so every verdict is the
    /// one the clock gives; but two schedules that differ only in whether the tab was
    /// told before or after its own send are one state (issue 48).
    pub fn told_at(&self) -> u32 {
        let delta = self.deltas.last().map_or(0, |d| d.at);
        let marker = self.markers.last().map_or(0, |(_, at)| *at);
        delta.max(marker)
    }

    /// An event reached the tab.
    pub(super) fn delivered(&mut self, event: &Event, own: Own<'_>) {
        match event {
            Event::TextDelta { turn_id, text } => {
                let turn_id = delta_turn(*turn_id, text);
                self.turn_seen(turn_id, own);
                let at = self.tick();
                if self.run_turn != Some(turn_id) {
                    self.runs += 1;
                    self.run_turn = Some(turn_id);
                }
                let segment = (turn_id, *self.tool_events_of(turn_id));
                let run = self.runs;
                self.deltas.push(DeltaSeen { at, run, segment });
            }
            Event::ToolCall { turn_id, text, .. } | Event::ToolResult { turn_id, text, .. } => {
                self.turn_seen(*turn_id, own);
                let at = self.tick();
                self.run_turn = None;
                *self.tool_events_of(*turn_id) += 1;
                if let Some(key) = leading_token_key(text) {
                    self.markers.push((key, at));
                }
            }
            Event::TurnStart { turn_id } => {
                self.turn_seen(*turn_id, own);
                self.run_turn = None;
            }
            Event::MessageConsumed { message_ids, .. } => {
                let at = self.told_at();
                for m in message_ids.iter().filter(|m| own.message(**m)) {
                    first_time(&mut self.consumed, *m, at);
                }
            }
            _ => {}
        }
    }
}

/// Record that the tab was told about `id` at `at`, unless it was told before (the first
/// time is the one the oracle reads), keeping `told` sorted by id: the oracle looks an id
/// up and never reads the order, so two schedules that told the tab the same things in
/// another order (events overtaking one another) leave one state, not two (issue 48).
fn first_time<K: Ord>(told: &mut Vec<(K, u32)>, id: K, at: u32) {
    if let Err(i) = told.binary_search_by(|(k, _)| k.cmp(&id)) {
        told.insert(i, (id, at));
    }
}

/// The turn a delta belongs to: the one its event names, or, for a delta sent without a
/// turn id (`deltas_without_turn_ids`), the one its token names (`txt:t<T>.<K>`: the
/// world's ground truth, which no store reads).
pub fn delta_turn(turn_id: Option<TurnId>, text: &str) -> TurnId {
    match (turn_id, token_key(text)) {
        (Some(t), _) => t,
        (None, Some(TokenKey::Txt(t, _))) => TurnId(t),
        (None, _) => TurnId(0),
    }
}

/// The content keys of what a client's user sent and was shown, parsed once when the world
/// records a text, so that checks compare numbers, not strings.
#[derive(Clone, Debug, Default)]
pub struct TrackedKeys {
    /// Parallel to [`Client::sent_texts`].
    pub sent: Vec<Option<TokenKey>>,
    /// Parallel to [`Client::deltas_shown`].
    pub deltas: Vec<Option<TokenKey>>,
    /// The tool markers (`tool-call:…`, `tool-result:…`) delivered, in order: streamed
    /// content too, which invariant 3 keeps visible.
    pub markers: Vec<TokenKey>,
    /// Every key above (sent, deltas, markers) in one set, so that "every tracked token is
    /// shown", asked after every step, is one subset test of a few words.
    pub tracked: KeySet,
    /// A tracked text has no key (a message in a world of colliding texts): checks then
    /// take the long way.
    pub unkeyed: bool,
    /// The delta keys sorted, each with its index in [`Client::deltas_shown`]: where a
    /// delta token of a render was delivered, by binary search.
    pub delta_index: Vec<(TokenKey, u32)>,
}

impl TrackedKeys {
    /// The index in [`Client::deltas_shown`] of the delta with `key`, if it was delivered.
    pub fn delta_position(&self, key: TokenKey) -> Option<usize> {
        self.delta_index
            .binary_search_by_key(&key, |(k, _)| *k)
            .ok()
            .map(|i| self.delta_index[i].1 as usize)
    }
}

impl TrackedKeys {
    pub(super) fn add_sent(&mut self, text: &str) {
        let key = token_key(text);
        match key {
            Some(k) => self.tracked.insert(k),
            None => self.unkeyed = true,
        }
        self.sent.push(key);
    }

    pub(super) fn add_marker(&mut self, text: &str) {
        if let Some(key) = leading_token_key(text) {
            self.tracked.insert(key);
            self.markers.push(key);
        }
    }

    pub(super) fn add_delta(&mut self, text: &str) {
        let key = token_key(text);
        match key {
            Some(k) => {
                self.tracked.insert(k);
                let at = self.delta_index.partition_point(|(d, _)| *d < k);
                self.delta_index.insert(at, (k, self.deltas.len() as u32));
            }
            None => self.unkeyed = true,
        }
        self.deltas.push(key);
    }
}

impl Client {
    pub(super) fn new(store: Box<dyn Store>, sends: u8, scrolls: u8) -> Client {
        Client {
            store: SharedStore::new(store),
            // 21 events of 48 bytes: the most that stays under glibc's 1 KiB per-thread
            // cache (larger blocks take the slow path); enough for 96 % of runs.
            inbox: VecDeque::with_capacity(21),
            overtaken: Vec::new(),
            posts: VecDeque::new(),
            post_responses: VecDeque::new(),
            posted: Vec::new(),
            fetch_requests: VecDeque::new(),
            fetch_responses: Vec::new(),
            scrolled_up: false,
            sends_left: sends,
            scrolls_left: scrolls,
            sent: Arc::default(),
            sent_texts: Arc::default(),
            deltas_shown: Arc::default(),
            learned: Arc::default(),
            keys: Arc::default(),
            seals_shown: Arc::default(),
            own_digest: Memo::default(),
        }
    }

    /// What the tab's user sees right now.
    pub fn render(&self) -> &[RenderRow] {
        self.store.get().render()
    }
    /// The store under test.
    pub fn store(&self) -> &dyn Store {
        self.store.get()
    }
    /// The digest of the store's state ([`SharedStore::digest`]): remembered until the
    /// store is next fed, and shared with the world's copies.
    pub fn store_digest(&self, compute: impl FnOnce(&dyn Store) -> Option<u128>) -> Option<u128> {
        self.store.digest(compute)
    }
    /// Undelivered WebSocket events with their ids, oldest first.
    pub fn inbox(&self) -> impl ExactSizeIterator<Item = (u32, &Event)> + '_ {
        self.inbox.iter().map(|(id, e)| (*id, e))
    }
    /// POST responses not yet delivered, oldest first.
    pub fn post_responses(&self) -> impl ExactSizeIterator<Item = &PostAnswer> {
        self.post_responses.iter()
    }
    /// POSTs the store asked for that the backend has not handled yet, oldest first.
    pub fn posts(&self) -> impl ExactSizeIterator<Item = &PostInFlight> {
        self.posts.iter()
    }
    /// Fetches the store asked for that the backend has not served yet, oldest first.
    pub fn fetch_requests(&self) -> impl ExactSizeIterator<Item = &RequestId> {
        self.fetch_requests.iter()
    }
    /// Served fetch responses not yet delivered.
    pub fn fetch_responses(&self) -> &[FetchInFlight] {
        &self.fetch_responses
    }
    /// The user is scrolled up (a reconcile is deferred).
    pub fn scrolled_up(&self) -> bool {
        self.scrolled_up
    }
    /// Ground truth: messages this tab's user sent, in order.
    pub fn sent(&self) -> &[MessageId] {
        &self.sent
    }
    /// Ground truth: the texts of [`Client::sent`].
    pub fn sent_texts(&self) -> &[String] {
        &self.sent_texts
    }
    /// Ground truth: streamed delta texts delivered to this tab, in delivery order.
    pub fn deltas_shown(&self) -> &[String] {
        &self.deltas_shown
    }
    /// When the tab learned each piece of content, and its view segments.
    pub fn learned(&self) -> &Learned {
        &self.learned
    }
    /// The keys of the sent and shown texts.
    pub fn keys(&self) -> &TrackedKeys {
        &self.keys
    }
    /// Ground truth: turns whose `turn-sealed` this tab received.
    pub fn seals_shown(&self) -> &BTreeSet<TurnId> {
        &self.seals_shown
    }
    /// The digest of the tab's own part in its current state: the one remembered since
    /// the tab's last step, else `compute`'s (remembered when it gives one). `compute`
    /// must be a function of the own part alone ([`World::hash_client_own`] and the
    /// store's state), the same function at every call: the world never
    /// looks inside the digest, it only forgets it when that part may change.
    pub fn own_digest(&self, compute: impl FnOnce() -> Option<u128>) -> Option<u128> {
        self.own_digest.get_or(compute)
    }
    /// Whether this tab's user has a send left (a passive observer never has).
    pub fn can_send(&self) -> bool {
        self.sends_left > 0
    }
    /// No fetch of this tab is waiting to be served or delivered.
    pub fn no_fetch_outstanding(&self) -> bool {
        self.fetch_requests.is_empty() && self.fetch_responses.is_empty()
    }

    /// Whether the `i`-th oldest event of the inbox holds back every later one: under
    /// `bound` (`ws_overtakes_max`), later events overtook it as often as the bound
    /// allows, so none behind it may arrive before it. Never without a bound.
    pub(super) fn holds_back(&self, i: usize, bound: Option<u8>) -> bool {
        bound.is_some_and(|m| self.overtaken.get(i).copied().unwrap_or(0) >= m)
    }

    /// Nothing is in flight to or from this tab and its user is at the bottom.
    pub(super) fn is_idle(&self) -> bool {
        self.inbox.is_empty()
            && self.posts.is_empty()
            && self.post_responses.is_empty()
            && self.no_fetch_outstanding()
            && !self.scrolled_up
    }
}

impl Client {
    /// Queue what the store asked for: a POST for the backend, a fetch for this tab's
    /// fetch server. A POST without a message id is taken as real backends take it: the
    /// backend mints the id ([`Backend`](crate::model::backend::Backend)'s `minted`).
    pub(super) fn route(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            match effect {
                Effect::Post { message_id, text } => {
                    let message = message_id.unwrap_or_else(|| self.oldest_unposted());
                    self.posted.push(message);
                    self.posts.push_back(PostInFlight {
                        message,
                        text,
                        carried_id: message_id.is_some(),
                    });
                }
                Effect::Fetch { request_id } => self.fetch_requests.push_back(request_id),
            }
        }
    }

    /// The message a POST without an id stands for: the oldest the user sent that the
    /// store has not posted yet (a store posts its user's messages in the order they were
    /// sent). [`UNKNOWN_MESSAGE`] when every sent message was posted already: a message
    /// nobody sent, as a POST of an id nobody was given would be.
    fn oldest_unposted(&self) -> MessageId {
        self.sent
            .iter()
            .copied()
            .find(|m| !self.posted.contains(m))
            .unwrap_or(UNKNOWN_MESSAGE)
    }
}

/// The world's id for a POST without an id that stands for no message the user sent.
pub const UNKNOWN_MESSAGE: MessageId = MessageId(0);

/// A store's answer (caught as by `catch_unwind`): its effects, or why it crashed (a
/// fault it reported, or a panic).
pub(super) fn answer_or_cause(
    answer: std::thread::Result<Answer>,
) -> Result<Vec<Effect>, CrashCause> {
    match answer {
        Ok(Ok(effects)) => Ok(effects),
        Ok(Err(fault)) => Err(fault.cause),
        Err(payload) => Err(CrashCause::Panicked {
            message: panic_message(payload.as_ref()),
        }),
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
