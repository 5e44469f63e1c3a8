//! From a recorded log to a scenario: a schedule of the world whose view from one tab is
//! what the log shows (`reconcile-sim import`, `docs/record.md`).
//!
//! The recorded tab is client 0. Its log fixes everything client 0 is told, in order: each
//! frame is a delivery of the matching event, each response a delivery of the matching
//! answer, each user action the matching step. What the tab could not see (what the
//! backend did between, what other tabs sent) is searched for among the world's own steps:
//! a bounded depth-first search, in the world's sorted step order, so the schedule found
//! is the same on every run. The search runs the world with two stand-in stores that copy
//! themselves (so a branch is a copy, not a replay): client 0's answers each input with the
//! requests the log shows the tab made right after it; every other tab's posts what its
//! user sends and asks for nothing. The store under test is run only on the schedule
//! found, which is then judged as any scenario is.
//!
//! Ids are the app's: each is bound to a world id the first time the search matches it,
//! one to one, and must keep that binding. Texts are never read (a private log has
//! placeholders); equal texts (or placeholders) of different messages make the world's
//! texts collide.
//!
//! Where no schedule explains an entry, [`ImportError::Unexplained`] names the furthest
//! entry any schedule reached and why it could not go on: a finding about the backend's
//! contract (it did what the model does not allow) or about the model.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::hash::Hasher;
use std::sync::Arc;

// Every other tab's stand-in: posts what its user sends, asks for nothing else (what the
// backend sees of a tab; explore's per-tab search stands in the same way).
use crate::explore::reduction::scope::PostOnly;
use crate::model::config::{WorldConfig, DRAIN_STEPS_MAX_DEFAULT, STEPS_MAX_DEFAULT};
use crate::model::content::MessageTexts;
use crate::model::judged::Judged;
use crate::model::pins::WorldPins;
use crate::model::record::StepRecord;
use crate::model::step::Step;
use crate::model::store::{Answer, Store};
use crate::model::wire::{
    ChunkRow, Effect, Event, Input, MessageId, PostOutcome, RenderRow, RequestId, TurnId,
};
use crate::model::world::World;
use crate::trace::log::{
    FetchBody, Id, Log, LogEvent, LogRow, PostBody, PostOutcomeName, Route, What,
};

/// The search's limits. Named with their unit last.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct SearchLimits {
    /// Unseen steps (backend, other tabs) the search may put between two entries: more
    /// than any one of the tab's observations needs in the model (a turn's end is three
    /// steps, a send and its handling two).
    pub hidden_steps_max: usize,
    /// World states the search may visit over every world it tries, before it gives up
    /// (inconclusive: neither explained nor refused).
    pub states_max: u64,
}

impl Default for SearchLimits {
    fn default() -> SearchLimits {
        SearchLimits {
            hidden_steps_max: 12,
            states_max: 500_000,
        }
    }
}

/// What an import found.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The world the schedule runs in.
    pub config: WorldConfig,
    /// The schedule: every step, the tab's and the inferred ones.
    pub steps: Vec<Step>,
    /// How many of `steps` were inferred (not an entry of the log).
    pub inferred: usize,
    /// World states visited.
    pub states: u64,
}

/// Why a log could not be imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImportError {
    /// The log cannot be a tab's whole life (entries dropped by the recorder), or holds
    /// something the import cannot use; not a finding.
    Refused(String),
    /// No schedule of the world explains entry `entry`: what the log shows there is
    /// something the model does not allow at that point.
    Unexplained {
        /// The entry's index in the log.
        entry: usize,
        /// The entry in words.
        what: String,
        /// Why no schedule explains it.
        why: String,
    },
    /// The search hit its limit before deciding.
    Limit {
        /// The furthest entry reached.
        entry: usize,
        /// States visited.
        states: u64,
    },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Refused(why) => f.write_str(why),
            ImportError::Unexplained { entry, what, why } => write!(
                f,
                "entry {entry} ({what}) cannot be explained by the model: {why}"
            ),
            ImportError::Limit { entry, states } => write!(
                f,
                "the search visited {states} world states without explaining the log (it reached entry {entry}); a longer log may need a larger limit (--states-max)"
            ),
        }
    }
}

/// One thing client 0 is told, with the entry it comes from.
#[derive(Clone, Debug)]
enum Obs {
    /// The user sends, with the text (or placeholder) if the log has it.
    Send(Option<String>),
    Scroll(bool),
    Frame(LogEvent),
    Post(PostBody),
    Fetch(RequestId, FetchBody),
}

/// The log read as the search needs it.
struct Plan {
    /// What client 0 is told, in order, with each one's entry index.
    obs: Vec<(usize, Obs)>,
    /// The requests the tab made at boot (`[0]`) and after each observation (`[k + 1]`).
    effects: Vec<Vec<Req>>,
}

#[derive(Clone, Debug)]
enum Req {
    Fetch(RequestId),
    /// A POST, with the app's message id if it carried one.
    Post(Option<Id>),
}

fn plan(log: &Log) -> Result<Plan, ImportError> {
    if log.dropped > 0 {
        return Err(ImportError::Refused(format!(
            "the recorder dropped the tab's first {} entries (its ring buffer was full): the import explains a tab from its first moment, so record with a larger limit",
            log.dropped
        )));
    }
    let mut obs = Vec::new();
    let mut effects: Vec<Vec<Req>> = vec![Vec::new()];
    let mut fetches: BTreeMap<u64, RequestId> = BTreeMap::new();
    let mut posts_open: Vec<u64> = Vec::new();
    let mut next_fetch = 1u32;
    for (i, entry) in log.entries.iter().enumerate() {
        match &entry.what {
            What::Send { text } => obs.push((i, Obs::Send(text.clone()))),
            What::Scroll { at_bottom } => obs.push((i, Obs::Scroll(*at_bottom))),
            What::Frame { event, .. } => obs.push((i, Obs::Frame(event.clone()))),
            What::Request {
                id, route, message, ..
            } => {
                let req = match route {
                    Route::Fetch => {
                        let r = RequestId(next_fetch);
                        next_fetch += 1;
                        fetches.insert(*id, r);
                        Req::Fetch(r)
                    }
                    Route::Post => {
                        posts_open.push(*id);
                        Req::Post(message.clone())
                    }
                };
                effects.last_mut().expect("one at least").push(req);
                continue;
            }
            What::Response {
                request,
                post,
                fetch,
            } => {
                if let Some(body) = post {
                    if posts_open.first() != Some(request) {
                        return Err(ImportError::Unexplained {
                            entry: i,
                            what: entry.what.describe(),
                            why: format!(
                                "it answers POST {request} before an earlier POST was answered, and the model answers a tab's POSTs in the order it sent them (one connection, handled in order)"
                            ),
                        });
                    }
                    posts_open.remove(0);
                    obs.push((i, Obs::Post(body.clone())));
                } else if let Some(body) = fetch {
                    let r = fetches[request];
                    obs.push((i, Obs::Fetch(r, body.clone())));
                }
            }
        }
        effects.push(Vec::new());
    }
    Ok(Plan { obs, effects })
}

/// Client 0's stand-in: answers its `k`-th input with the requests the log shows after
/// the `k`-th observation.
#[derive(Clone)]
struct Recorded {
    effects: Arc<Vec<Vec<Req>>>,
    fed: usize,
}

impl Store for Recorded {
    fn boot(&mut self) -> Answer {
        Ok(self.answer(0, None))
    }
    fn handle(&mut self, input: &Input) -> Answer {
        self.fed += 1;
        let sent = match input {
            Input::UserSend { message_id, text } => Some((*message_id, text.clone())),
            _ => None,
        };
        Ok(self.answer(self.fed, sent))
    }
    fn render(&self) -> &[RenderRow] {
        &[]
    }
    fn hash_state(&self, state: &mut dyn Hasher) -> bool {
        state.write_usize(self.fed);
        true
    }
    fn clone_box(&self) -> Option<Box<dyn Store>> {
        Some(Box::new(self.clone()))
    }
}

impl Recorded {
    fn answer(&self, k: usize, sent: Option<(MessageId, String)>) -> Vec<Effect> {
        let Some(reqs) = self.effects.get(k) else {
            return Vec::new();
        };
        reqs.iter()
            .map(|r| match r {
                Req::Fetch(request_id) => Effect::Fetch {
                    request_id: *request_id,
                },
                Req::Post(id) => {
                    let (m, text) = sent.clone().unwrap_or((MessageId(0), String::new()));
                    Effect::Post {
                        message_id: id.as_ref().map(|_| m),
                        text,
                    }
                }
            })
            .collect()
    }
}

/// The app's ids bound to the world's, one to one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Bindings {
    turns: BTreeMap<Id, TurnId>,
    turns_back: BTreeMap<TurnId, Id>,
    messages: BTreeMap<Id, MessageId>,
    messages_back: BTreeMap<MessageId, Id>,
    /// Texts (or placeholders) bound to the world's texts: equal in the log exactly
    /// where equal in the world (colliding texts are what some classes need).
    texts: BTreeMap<String, String>,
    texts_back: BTreeMap<String, String>,
}

impl Bindings {
    fn turn(&mut self, app: &Id, world: TurnId) -> bool {
        match (self.turns.get(app), self.turns_back.get(&world)) {
            (Some(w), _) => *w == world,
            (None, Some(_)) => false,
            (None, None) => {
                self.turns.insert(app.clone(), world);
                self.turns_back.insert(world, app.clone());
                true
            }
        }
    }
    fn message(&mut self, app: &Id, world: MessageId) -> bool {
        match (self.messages.get(app), self.messages_back.get(&world)) {
            (Some(w), _) => *w == world,
            (None, Some(_)) => false,
            (None, None) => {
                self.messages.insert(app.clone(), world);
                self.messages_back.insert(world, app.clone());
                true
            }
        }
    }

    fn text(&mut self, app: &str, world: &str) -> bool {
        match (self.texts.get(app), self.texts_back.get(world)) {
            (Some(w), _) => w == world,
            (None, Some(_)) => false,
            (None, None) => {
                self.texts.insert(app.to_string(), world.to_string());
                self.texts_back.insert(world.to_string(), app.to_string());
                true
            }
        }
    }

    /// Whether the world's `event` is the log's `logged`, binding ids as it goes.
    fn event(&mut self, logged: &LogEvent, event: &Event) -> bool {
        match (logged, event) {
            (LogEvent::TurnStart { turn }, Event::TurnStart { turn_id }) => {
                self.turn(turn, *turn_id)
            }
            (LogEvent::TextDelta { turn, .. }, Event::TextDelta { turn_id, .. }) => {
                match (turn, turn_id) {
                    (Some(a), Some(w)) => self.turn(a, *w),
                    (None, None) => true,
                    _ => false,
                }
            }
            (
                LogEvent::ToolCall { turn, call, .. },
                Event::ToolCall {
                    turn_id, call: c, ..
                },
            )
            | (
                LogEvent::ToolResult { turn, call, .. },
                Event::ToolResult {
                    turn_id, call: c, ..
                },
            ) => call == c && self.turn(turn, *turn_id),
            (LogEvent::MessageQueued { message, .. }, Event::MessageQueued { message_id, .. }) => {
                self.message(message, *message_id)
            }
            (
                LogEvent::MessageConsumed { messages, reason },
                Event::MessageConsumed {
                    message_ids,
                    reason: r,
                },
            ) => {
                messages.len() == message_ids.len()
                    && (reason.is_none() || reason == r)
                    && messages
                        .iter()
                        .zip(message_ids)
                        .all(|(a, w)| self.message(a, *w))
            }
            (LogEvent::Status { status }, Event::Status { status: s }) => status == s,
            (LogEvent::TurnSealed { turn }, Event::TurnSealed { turn_id }) => {
                self.turn(turn, *turn_id)
            }
            _ => false,
        }
    }

    fn post(&mut self, logged: &PostBody, answer: &PostOutcome) -> bool {
        match (logged.outcome, answer) {
            (PostOutcomeName::Started, PostOutcome::Started { turn_id }) => {
                logged.turn.as_ref().is_none_or(|t| self.turn(t, *turn_id))
            }
            (PostOutcomeName::Queued, PostOutcome::Queued) => true,
            _ => false,
        }
    }

    fn rows(&mut self, logged: &[LogRow], rows: &[ChunkRow]) -> bool {
        logged.len() == rows.len()
            && logged.iter().zip(rows).all(|(a, w)| {
                a.role == w.role
                    && a.messages.len() == w.message_ids.len()
                    && (a.role != crate::model::wire::Role::User
                        || a.text.as_ref().is_none_or(|t| self.text(t, &w.text)))
                    && self.turn(&a.turn, w.turn_id)
                    && a.messages
                        .iter()
                        .zip(&w.message_ids)
                        .all(|(m, id)| self.message(m, *id))
            })
    }
}

/// The most deltas in one segment and tool calls in one turn the log shows: in the frames,
/// and in the history pages (turns whose frames the tab may not have seen).
fn deltas_and_calls_max(plan: &Plan, frames: &[&LogEvent]) -> (usize, usize) {
    let mut deltas_max = 0usize;
    let mut calls_max = 0usize;
    let mut deltas: BTreeMap<Option<&Id>, usize> = BTreeMap::new();
    let mut calls: BTreeMap<&Id, usize> = BTreeMap::new();
    for e in frames {
        match e {
            LogEvent::TextDelta { turn, .. } => {
                let n = deltas.entry(turn.as_ref()).or_default();
                *n += 1;
                deltas_max = deltas_max.max(*n);
            }
            LogEvent::ToolCall { turn, .. } => {
                deltas.clear();
                let n = calls.entry(turn).or_default();
                *n += 1;
                calls_max = calls_max.max(*n);
            }
            LogEvent::TurnStart { .. } | LogEvent::ToolResult { .. } => deltas.clear(),
            _ => {}
        }
    }
    // What the history pages show of turns whose frames the tab may not have seen.
    for (_, o) in &plan.obs {
        if let Obs::Fetch(_, body) = o {
            let mut per_turn: BTreeMap<&Id, (usize, usize)> = BTreeMap::new();
            for row in &body.rows {
                let (calls, run) = per_turn.entry(&row.turn).or_default();
                match row.role {
                    crate::model::wire::Role::ToolCall => {
                        *calls += 1;
                        *run = 0;
                    }
                    // One assistant row is a segment of at least one delta.
                    crate::model::wire::Role::Assistant => {
                        *run += 1;
                        deltas_max = deltas_max.max(1);
                    }
                    _ => {}
                }
                calls_max = calls_max.max(*calls);
            }
        }
    }
    (deltas_max, calls_max)
}

/// Every message the log names, in rows and events: each may be another tab's, so its user
/// may send that many (a bound, not a count: the search sends only what it needs).
fn messages_named(plan: &Plan) -> usize {
    let mut named: BTreeSet<&Id> = BTreeSet::new();
    for (_, o) in &plan.obs {
        match o {
            Obs::Fetch(_, body) => named.extend(body.rows.iter().flat_map(|r| &r.messages)),
            Obs::Frame(LogEvent::MessageQueued { message, .. }) => {
                named.insert(message);
            }
            Obs::Frame(LogEvent::MessageConsumed { messages, .. }) => named.extend(messages),
            _ => {}
        }
    }
    named.len()
}

/// The options a log shows, and the choices it leaves open (tried in turn).
fn candidate_worlds(log: &Log, plan: &Plan, pins: &WorldPins) -> Vec<WorldConfig> {
    let frames: Vec<&LogEvent> = plan
        .obs
        .iter()
        .filter_map(|(_, o)| match o {
            Obs::Frame(e) => Some(e),
            _ => None,
        })
        .collect();
    let count = |f: &dyn Fn(&LogEvent) -> bool| frames.iter().filter(|e| f(e)).count();
    let sends = plan
        .obs
        .iter()
        .filter(|(_, o)| matches!(o, Obs::Send(_)))
        .count();
    let scrolls = plan
        .obs
        .iter()
        .filter(|(_, o)| matches!(o, Obs::Scroll(_)))
        .count();
    let starts = count(&|e| matches!(e, LogEvent::TurnStart { .. }));
    let queued = count(&|e| matches!(e, LogEvent::MessageQueued { .. }));
    // Deltas per segment and tool calls per turn, as the frames and pages show them.
    let (deltas_max, calls_max) = deltas_and_calls_max(plan, &frames);
    let others = messages_named(plan).max(starts + queued);
    let texts = texts_collide(log);
    let base = WorldConfig {
        clients: 2,
        passive_observer: false,
        sends_per_client: sends.max(others).clamp(1, 255) as u8,
        scrolls_per_client: scrolls.min(255) as u8,
        deltas_per_segment_max: deltas_max.min(255) as u8,
        tool_calls_per_turn_max: calls_max.min(255) as u8,
        turn_failures: count(&|e| {
            matches!(
                e,
                LogEvent::Status {
                    status: crate::model::wire::AgentStatus::Error
                }
            )
        }) > 0,
        ws_reorder_window: 1,
        ws_overtakes_max: None,
        status_on_connect: true,
        message_texts: if texts {
            MessageTexts::Colliding
        } else {
            MessageTexts::Tokens
        },
        continuation_drains: false,
        consume_reasons: count(&|e| {
            matches!(
                e,
                LogEvent::MessageConsumed {
                    reason: Some(_),
                    ..
                }
            )
        }) > 0,
        queued_texts: count(&|e| matches!(e, LogEvent::MessageQueued { text: Some(_), .. })) > 0,
        retired_server_ids: Default::default(),
        deltas_without_turn_ids: count(&|e| matches!(e, LogEvent::TextDelta { turn: None, .. }))
            > 0,
        judged: Judged::ALL,
        steps_max: STEPS_MAX_DEFAULT,
        drain_steps_max: DRAIN_STEPS_MAX_DEFAULT,
    };
    let first_is_idle = matches!(
        frames.first(),
        Some(LogEvent::Status {
            status: crate::model::wire::AgentStatus::Idle
        })
    );
    let consumed = count(&|e| matches!(e, LogEvent::MessageConsumed { .. })) > 0;
    // A private log's placeholders cannot show that one text holds another (`ok` and `ok
    // thanks`, which some classes need): distinct texts first, then colliding ones.
    let texts_tried: &[MessageTexts] = match (base.message_texts, log.private) {
        (MessageTexts::Tokens, true) => &[MessageTexts::Tokens, MessageTexts::Colliding],
        (MessageTexts::Tokens, false) => &[MessageTexts::Tokens],
        _ => &[MessageTexts::Colliding],
    };
    let mut out = Vec::new();
    // In order first (one socket delivers in order); reordered only when that fails.
    for ws_reorder_window in [1, 2, 3] {
        for status_on_connect in [first_is_idle, !first_is_idle] {
            for continuation_drains in [false, true] {
                if continuation_drains && !consumed {
                    continue;
                }
                for &message_texts in texts_tried {
                    let c = pins.apply(WorldConfig {
                        status_on_connect,
                        continuation_drains,
                        ws_reorder_window,
                        message_texts,
                        ..base.clone()
                    });
                    if c.incoherence().is_none() && !out.contains(&c) {
                        out.push(c);
                    }
                }
            }
        }
    }
    out
}

/// Whether two messages of the log carry the same text (or placeholder), or, in a log
/// that is not private, one's text holds another's: the world's colliding texts.
fn texts_collide(log: &Log) -> bool {
    let mut texts: BTreeSet<&str> = BTreeSet::new();
    let mut sent: Vec<&str> = Vec::new();
    for e in &log.entries {
        if let What::Send { text: Some(t) } = &e.what {
            sent.push(t);
        }
        if let What::Response {
            fetch: Some(body), ..
        } = &e.what
        {
            for row in &body.rows {
                if row.role == crate::model::wire::Role::User {
                    if let Some(t) = &row.text {
                        texts.insert(t);
                    }
                }
            }
        }
    }
    let mut seen = BTreeSet::new();
    if sent.iter().any(|t| !seen.insert(*t)) {
        return true;
    }
    if log.private {
        return false;
    }
    texts.extend(sent);
    let all: Vec<&str> = texts.into_iter().collect();
    all.iter().enumerate().any(|(i, a)| {
        all.iter()
            .enumerate()
            .any(|(j, b)| i != j && !a.is_empty() && b.contains(a))
    })
}

/// The depth-first search over one world.
struct Search<'p> {
    plan: &'p Plan,
    limits: SearchLimits,
    states: u64,
    seen: HashMap<(usize, u64, u64), usize>,
    /// The furthest observation reached and why the search could not go past it.
    furthest: (usize, Option<String>),
    path: Vec<Step>,
    found: Option<Vec<Step>>,
    out_of_states: bool,
}

impl<'p> Search<'p> {
    fn key(world: &World, cursor: usize, b: &Bindings) -> (usize, u64, u64) {
        // A fixed-key hasher: the same keys on every run (only a cache, never output).
        let mut h = std::collections::hash_map::DefaultHasher::new();
        world.hash_shared_state(&mut h);
        for c in 0..world.clients().len() {
            world.hash_client_state(c, &mut h);
        }
        let mut hb = std::collections::hash_map::DefaultHasher::new();
        std::hash::Hash::hash(b, &mut hb);
        (cursor, h.finish(), hb.finish())
    }

    /// Whether what is in flight to client 0 can still be what the log shows next: every
    /// event in its inbox is the next frame of the log (in order: one ordered socket), its
    /// POST answers the next POST responses, each served fetch its response's rows.
    fn consistent(&self, world: &World, cursor: usize, b: &Bindings) -> bool {
        let mut b = b.clone();
        let rest = &self.plan.obs[cursor..];
        let c0 = world.client(0);
        let frames_ahead = || {
            rest.iter().filter_map(|(_, o)| match o {
                Obs::Frame(e) => Some(e),
                _ => None,
            })
        };
        if world.config().ws_reorder_window > 1 {
            // Reordered: each event in flight is one of the frames to come, by shape
            // (ids are bound when it is delivered).
            // One the log never shows stays in flight to its end, overtaken by every
            // later delivery: at most `window - 1` can be.
            let mut used = vec![false; frames_ahead().count()];
            let mut unseen = 0;
            for (_, event) in c0.inbox() {
                let shape = describe_shape(event);
                match frames_ahead()
                    .enumerate()
                    .position(|(k, e)| !used[k] && logged_shape(e) == shape)
                {
                    Some(k) => used[k] = true,
                    None => unseen += 1,
                }
            }
            if unseen >= usize::from(world.config().ws_reorder_window) {
                return false;
            }
        } else {
            let mut frames = rest.iter().filter_map(|(_, o)| match o {
                Obs::Frame(e) => Some(e),
                _ => None,
            });
            for (_, event) in c0.inbox() {
                match frames.next() {
                    Some(logged) => {
                        if !b.event(logged, event) {
                            return false;
                        }
                    }
                    // In flight when the log ends: the tab never saw it.
                    None => break,
                }
            }
        }
        let mut posts = rest.iter().filter_map(|(_, o)| match o {
            Obs::Post(p) => Some(p),
            _ => None,
        });
        for answer in c0.post_responses() {
            match posts.next() {
                Some(p) => {
                    if !b.post(p, &answer.outcome) {
                        return false;
                    }
                }
                None => break,
            }
        }
        for f in c0.fetch_responses() {
            let logged = rest.iter().find_map(|(_, o)| match o {
                Obs::Fetch(r, body) if *r == f.request => Some(body),
                _ => None,
            });
            if let Some(body) = logged {
                if !b.rows(&body.rows, snapshot(world, f.snapshot_seq)) {
                    return false;
                }
            }
        }
        true
    }

    /// The tab's steps that are observation `cursor`, with the bindings each makes.
    fn observed(
        &self,
        world: &World,
        cursor: usize,
        b: &Bindings,
    ) -> Result<Vec<(Step, Bindings)>, String> {
        let c0 = world.client(0);
        let mut enabled = Vec::new();
        world.enabled_steps(&mut enabled);
        let on = |s: &Step| enabled.binary_search(s).is_ok();
        let mut out = Vec::new();
        match &self.plan.obs[cursor].1 {
            Obs::Send(text) => {
                let s = Step::Send { client: 0 };
                if !on(&s) {
                    return Err("the tab's user has no send left".into());
                }
                let mut nb = b.clone();
                if let Some(t) = text {
                    if !nb.text(t, &world.next_message_text()) {
                        return Err("the model's next message here has a text that is not the log's equal-or-different pattern".into());
                    }
                }
                // The POST it makes carries the world's next id: bound to the app's.
                if let Some(Req::Post(Some(app))) = self.plan.effects[cursor + 1]
                    .iter()
                    .find(|r| matches!(r, Req::Post(_)))
                {
                    if !nb.message(app, world.next_message_id()) {
                        return Err(format!(
                            "message id {app} was already bound to another message"
                        ));
                    }
                }
                out.push((s, nb));
            }
            Obs::Scroll(at_bottom) => {
                let s = if *at_bottom {
                    Step::ScrollDown { client: 0 }
                } else {
                    Step::ScrollUp { client: 0 }
                };
                if !on(&s) {
                    return Err("the model's user cannot scroll that way here".into());
                }
                out.push((s, b.clone()));
            }
            Obs::Frame(logged) => {
                let window = world.config().ws_reorder_window as usize;
                let mut nearest = None;
                for (id, event) in c0.inbox().take(window) {
                    let s = Step::DeliverEvent {
                        client: 0,
                        event: id,
                    };
                    nearest.get_or_insert_with(|| describe_event(event));
                    let mut nb = b.clone();
                    if on(&s) && nb.event(logged, event) {
                        out.push((s, nb));
                    }
                }
                if out.is_empty() {
                    return Err(match nearest {
                        Some(e) => format!("the tab's next event in the model is {e}"),
                        None => "no event is on its way to the tab in the model".into(),
                    });
                }
            }
            Obs::Post(p) => {
                let s = Step::DeliverPostResponse { client: 0 };
                match c0.post_responses().next() {
                    None => {
                        return Err("no POST answer is on its way to the tab in the model".into())
                    }
                    Some(a) => {
                        let mut nb = b.clone();
                        if on(&s) && nb.post(p, &a.outcome) {
                            out.push((s, nb));
                        } else {
                            return Err(format!("the model answers that POST {:?}", a.outcome));
                        }
                    }
                }
            }
            Obs::Fetch(r, body) => {
                let s = Step::DeliverFetchResponse {
                    client: 0,
                    request: *r,
                };
                match c0.fetch_responses().iter().find(|f| f.request == *r) {
                    None => {
                        return Err(if c0.fetch_requests().any(|q| q == r) {
                            "the fetch was not served yet in the model".into()
                        } else {
                            "the tab never asked for it in the model".into()
                        })
                    }
                    Some(f) => {
                        let rows = snapshot(world, f.snapshot_seq);
                        let mut nb = b.clone();
                        if on(&s) && nb.rows(&body.rows, rows) {
                            out.push((s, nb));
                        } else {
                            return Err(format!(
                                "no state of the model's history has those {} rows (the model served {} rows here)",
                                body.rows.len(),
                                rows.len()
                            ));
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// Explain observations `cursor..` from `world`, with as few unseen steps before each
    /// as the model needs: unseen steps happen as late as they can, so what the tab could
    /// not see is not made to happen earlier than it must (where the oracle would judge
    /// the tab against a backend ahead of what the tab was shown).
    fn deepen(&mut self, world: &World, cursor: usize, b: &Bindings) -> bool {
        for budget in 0..=self.limits.hidden_steps_max {
            if self.dfs(world, cursor, b, budget) {
                return true;
            }
            if self.out_of_states {
                return false;
            }
        }
        false
    }

    /// Explain observations `cursor..` from `world` with at most `budget` unseen steps
    /// before observation `cursor`.
    fn dfs(&mut self, world: &World, cursor: usize, b: &Bindings, budget: usize) -> bool {
        if cursor == self.plan.obs.len() {
            self.found = Some(self.path.clone());
            return true;
        }
        if self.states >= self.limits.states_max {
            self.out_of_states = true;
            return false;
        }
        // Failing with a budget fails with every smaller one.
        let key = Self::key(world, cursor, b);
        if self.seen.get(&key).is_some_and(|&tried| tried >= budget) {
            return false;
        }
        self.seen.insert(key, budget);
        self.states += 1;
        if cursor > self.furthest.0 {
            self.furthest = (cursor, None);
        }
        match self.observed(world, cursor, b) {
            Ok(steps) => {
                for (step, nb) in steps {
                    if let Some(next) = self.advance(world, step, cursor + 1, &nb) {
                        self.path.push(step);
                        if self.deepen(&next, cursor + 1, &nb) {
                            return true;
                        }
                        self.path.pop();
                    }
                    if self.out_of_states {
                        return false;
                    }
                }
            }
            Err(why) => {
                if cursor == self.furthest.0 && self.furthest.1.is_none() {
                    self.furthest.1 = Some(why);
                }
            }
        }
        if budget == 0 {
            return false;
        }
        let mut enabled = Vec::new();
        world.enabled_steps(&mut enabled);
        for step in enabled {
            let unseen = match step {
                Step::HandlePost { .. }
                | Step::AgentDelta
                | Step::AgentToolCall
                | Step::AgentToolResult { .. }
                | Step::AgentEnd
                | Step::AgentFail
                | Step::AgentWrite
                | Step::AgentSeal => true,
                Step::ServeFetch { client } => client == 0,
                // Another tab's user: one tab stands for every other (its POSTs are
                // handled in the order sent, which the tab cannot tell from several
                // tabs' as it sees only the events).
                Step::Send { client } => client != 0,
                _ => false,
            };
            if !unseen {
                continue;
            }
            if let Some(next) = self.advance(world, step, cursor, b) {
                self.path.push(step);
                if self.dfs(&next, cursor, b, budget - 1) {
                    return true;
                }
                self.path.pop();
            }
            if self.out_of_states {
                return false;
            }
        }
        false
    }

    /// `world` after `step`, if the store took it and what is in flight to the tab can
    /// still be what the log shows from observation `cursor` on.
    fn advance(&mut self, world: &World, step: Step, cursor: usize, b: &Bindings) -> Option<World> {
        let mut next = world.try_clone()?;
        let mut rec = StepRecord::new(step);
        next.apply_into(step, &mut rec).ok()?;
        self.consistent(&next, cursor, b).then_some(next)
    }
}

/// The rows a fetch served at `snapshot_seq` holds: the DB only grows, so its prefix.
fn snapshot(world: &World, snapshot_seq: u32) -> &[ChunkRow] {
    let db = world.backend().db();
    let n = db.iter().take_while(|r| r.seq <= snapshot_seq).count();
    &db[..n]
}

/// An event's kind and the fields that are not ids.
fn describe_shape(e: &Event) -> (std::mem::Discriminant<LogEvent>, Option<u32>, String) {
    logged_shape(&crate::trace::log::log_event(e))
}

fn logged_shape(e: &LogEvent) -> (std::mem::Discriminant<LogEvent>, Option<u32>, String) {
    match e {
        LogEvent::ToolCall { call, .. } | LogEvent::ToolResult { call, .. } => {
            (std::mem::discriminant(e), Some(*call), String::new())
        }
        LogEvent::Status { .. } => (std::mem::discriminant(e), None, e.to_string()),
        LogEvent::MessageConsumed { messages, .. } => (
            std::mem::discriminant(e),
            Some(messages.len() as u32),
            String::new(),
        ),
        _ => (std::mem::discriminant(e), None, String::new()),
    }
}

fn describe_event(e: &Event) -> String {
    crate::trace::log::log_event(e).to_string()
}

/// Find a schedule of the world whose view from client 0 is `log`, in a world the log
/// shows, with `pins` (the store's contract, then `--world`) applied on top.
pub fn import(log: &Log, pins: &WorldPins, limits: SearchLimits) -> Result<Imported, ImportError> {
    let plan = plan(log)?;
    let effects = Arc::new(plan.effects.clone());
    let mut states = 0;
    let mut furthest: Option<(usize, Option<String>)> = None;
    let mut out_of_states = false;
    for config in candidate_worlds(log, &plan, pins) {
        let world = World::with_stores(config.clone(), |i| {
            if i == 0 {
                Box::new(Recorded {
                    effects: Arc::clone(&effects),
                    fed: 0,
                })
            } else {
                Box::new(PostOnly)
            }
        });
        let mut search = Search {
            plan: &plan,
            limits: SearchLimits {
                states_max: limits.states_max.saturating_sub(states),
                ..limits
            },
            states: 0,
            seen: HashMap::new(),
            furthest: (0, None),
            path: Vec::new(),
            found: None,
            out_of_states: false,
        };
        let b = Bindings::default();
        let ok = search.consistent(&world, 0, &b) && search.deepen(&world, 0, &b);
        states += search.states;
        if ok {
            let steps = search.found.expect("found");
            return Ok(Imported {
                inferred: steps.len() - plan.obs.len(),
                config,
                steps,
                states,
            });
        }
        out_of_states |= search.out_of_states;
        if furthest.as_ref().is_none_or(|f| search.furthest.0 > f.0) {
            furthest = Some(search.furthest);
        }
        if out_of_states {
            break;
        }
    }
    let (cursor, why) = furthest.unwrap_or((0, None));
    if out_of_states {
        return Err(ImportError::Limit {
            entry: plan.obs.get(cursor).map_or(log.entries.len(), |o| o.0),
            states,
        });
    }
    let Some((entry, _)) = plan.obs.get(cursor) else {
        return Err(ImportError::Refused(
            "the log holds nothing the tab was told".into(),
        ));
    };
    Err(ImportError::Unexplained {
        entry: *entry,
        what: log.entries[*entry].what.describe(),
        why: why.unwrap_or_else(|| {
            "no schedule of the world reaches it with everything before it as the log shows (within the search's bound of unseen steps between two entries)".into()
        }),
    })
}
