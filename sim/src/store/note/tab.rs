//! A Rust model of the note's frontend tab store (`tabs.svelte.ts`), generic over the
//! three decisions the note's bugs live in.
//!
//! State mirrors the note's field names: `chunks` (sealed), `live` (transient),
//! `queued_messages`, `live_turn_id`, `agent_status`, the scroll flag and the deferred
//! reconcile (`pendingReconcileTabs`, here one pending sealed turn per tab). For speed and
//! so that [`Store::render`] can hand out a slice, `chunks` and `live` are kept as one
//! vector of render rows: the first `sealed_len` are the chunks, the rest is `live`.
//!
//! Modelling choices the note leaves open (also in `docs/model.md`):
//! - A send while `agent_status == Running` creates a `queued-<id>` row and pushes the id
//!   onto `queued_messages`; otherwise an untagged optimistic row with id `<id>`. Sending
//!   does not itself flip `agent_status` (the note names only `status` events as its source).
//! - `agent_status` starts as `Running` ("a freshly-created tab defaults to agentStatus:
//!   running").
//! - `message-queued` for a row this tab shows as optimistic turns it into a `queued-` row
//!   and records it in `queued_messages` (the message was queued after all); for another
//!   tab's message it does nothing (other tabs' pending messages are not shown).
//! - `message-consumed` always removes the ids from `queued_messages`; what it does to the
//!   row is the policy's (bug D).
//! - Deltas grow the turn's current streaming row in place (`currentAssistantId`, "the
//!   in-flight turn + its streaming row"), wherever it sits in `live` (a queued user row
//!   may follow it); a tool event (of any turn) ends the segment, and the next delta, or one
//!   whose row a reconcile dropped, starts a new assistant row at the end of `live`. Its id
//!   is `a-<turn>-<n>`, `n` the number of live rows the tab had created before it, so no two
//!   rows share an id. (The note does not say how its ids are made. Numbering by the
//!   current row count, as this model first did, reused an id once a reconcile dropped more
//!   live rows than it added chunks, and the next delta grew the older row: an
//!   inv5-render-shape failure that came from the model's ids, not from a keep/drop
//!   decision; `fuzz` hit it on `fix-ab` (random seed 8911) and on `fix-a` and `fix-ab`
//!   (swarm seed 3081). `durable` had the same numbering:
//!   `scenarios/found/durable-row-ids-seed41621.json`.)
//! - Reconcile: on `turn-sealed` (deferred while scrolled up, the latest deferred turn
//!   wins), fetch; on the response, replace `chunks` and keep `live` rows by the policy,
//!   with `preserveTurnId = liveTurnId` when `liveTurnId != sealedTurnId`, computed when
//!   the response is applied (the note's `reloadChunksFromApi` filters after its await).
//!   A response is applied whatever its age: the note's code has no staleness guard.

use std::collections::BTreeMap;
use std::hash::Hash;

use crate::model::store::{Answer, Store};
use crate::model::wire::{
    AgentStatus, ChunkRow, Effect, Event, Input, MessageId, Origin, RenderRow, RequestId, Role,
    TurnId,
};

/// What the reconcile filter may look at besides the row itself.
pub struct KeepContext<'a> {
    /// `liveTurnId` if it differs from the turn being reconciled (the bug A fix).
    pub preserve_turn_id: Option<TurnId>,
    /// `tab.queuedMessages`: messages this tab sent that are still awaiting consumption.
    pub queued_messages: &'a [MessageId],
}

/// A live row as the policies see it.
pub type LiveRow = RenderRow;

/// The three places the note's variants differ.
/// `Clone` and `Hash` so a store can be copied and its state keyed (`explore` returns to
/// a state by copying the world and merges equal states).
pub trait ReconcilePolicy: Clone + Hash + Send + 'static {
    /// On `turn-start {turn_id}`: bind optimistic rows to the new turn.
    fn backfill(&self, live: &mut [LiveRow], turn_id: TurnId);
    /// On `message-consumed` naming this tab's row (`queued-<id>`).
    fn on_consumed(&self, row: &mut LiveRow, id: MessageId, live_turn_id: Option<TurnId>);
    /// The reconcile keep-filter: true keeps the live row.
    fn keep(&self, row: &LiveRow, ctx: &KeepContext<'_>) -> bool;
}

/// The id of a live row.
pub fn live_id(row: &LiveRow) -> &str {
    match &row.origin {
        Origin::Live { id } => id,
        Origin::Sealed { .. } => "",
    }
}

/// True for a still-pending queued row (`queued-` prefix).
pub fn is_queued_row(row: &LiveRow) -> bool {
    live_id(row).starts_with(QUEUED_PREFIX)
}

/// The message id of a `queued-<id>` row.
pub fn queued_message_id(row: &LiveRow) -> Option<MessageId> {
    live_id(row)
        .strip_prefix(QUEUED_PREFIX)
        .and_then(|rest| rest.strip_prefix('m'))
        .and_then(|n| n.parse().ok())
        .map(MessageId)
}

/// The note's id convention for a still-pending queued row, `queued-<queueId>` (the queue
/// id is the message id): one of the proxies the note's reconcile reads as "not sealed".
pub const QUEUED_PREFIX: &str = "queued-";

/// The pre-C backfill: tag every trailing untagged user row (walking back from the end
/// of `live` until the first non-user row).
pub fn backfill_every_trailing(live: &mut [LiveRow], turn_id: TurnId) {
    for row in live.iter_mut().rev() {
        if row.role != Role::User {
            break;
        }
        if row.turn_id.is_none() {
            row.turn_id = Some(turn_id);
        }
    }
}

/// The bug C fix: in the trailing block of user rows, skip `queued-` rows and tag only
/// the most recent untagged non-queued row (the initiator), then stop.
pub fn backfill_latest_initiator(live: &mut [LiveRow], turn_id: TurnId) {
    for row in live.iter_mut().rev() {
        if row.role != Role::User {
            break;
        }
        if row.turn_id.is_none() && !is_queued_row(row) {
            row.turn_id = Some(turn_id);
            break;
        }
    }
}

/// The pre-D consumed handler: strip the `queued-` prefix, leaving a plain untagged row.
pub fn consumed_strip_prefix(row: &mut LiveRow, id: MessageId) {
    row.origin = Origin::Live { id: id.to_string() };
}

/// The bug D fix: strip the prefix and bind the row to `liveTurnId`.
pub fn consumed_bind_live_turn(row: &mut LiveRow, id: MessageId, live_turn_id: Option<TurnId>) {
    consumed_strip_prefix(row, id);
    row.turn_id = live_turn_id;
}

/// The note's tab store, parameterised by its reconcile policy.
#[derive(Clone, Hash)]
pub struct TabStore<P> {
    policy: P,
    /// `chunks` (first `sealed_len`) ++ `live`.
    rows: Vec<RenderRow>,
    sealed_len: usize,
    queued_messages: Vec<MessageId>,
    live_turn_id: Option<TurnId>,
    agent_status: AgentStatus,
    scrolled_up: bool,
    /// `pendingReconcileTabs` for this tab: the sealed turn whose reconcile is deferred.
    pending_reconcile: Option<TurnId>,
    /// Fetches in flight and the sealed turn each one reconciles.
    in_flight: BTreeMap<RequestId, TurnId>,
    /// `currentAssistantId`: the turn and id of the live row the turn's text streams
    /// into, until a tool event ends the segment.
    current_assistant: Option<(Option<TurnId>, String)>,
    next_request: u32,
    /// Live rows created so far (never goes down): numbers assistant row ids, so an id
    /// names one row for the tab's life.
    live_rows_created: u32,
}

impl<P: ReconcilePolicy> TabStore<P> {
    /// A fresh tab running `policy`: no rows, `agentStatus` running (the note: "a
    /// freshly-created tab defaults to `agentStatus: "running"`"), at the bottom, nothing
    /// pending.
    pub fn new(policy: P) -> Self {
        TabStore {
            policy,
            rows: Vec::new(),
            sealed_len: 0,
            queued_messages: Vec::new(),
            live_turn_id: None,
            agent_status: AgentStatus::Running,
            scrolled_up: false,
            pending_reconcile: None,
            in_flight: BTreeMap::new(),
            current_assistant: None,
            next_request: 1,
            live_rows_created: 0,
        }
    }

    fn push_live(&mut self, id: String, role: Role, turn_id: Option<TurnId>, text: String) {
        self.rows.push(RenderRow {
            origin: Origin::Live { id },
            role,
            turn_id,
            text,
        });
        self.live_rows_created += 1;
    }

    fn find_live(&self, id: &str) -> Option<usize> {
        let start = self.sealed_len;
        self.rows[start..]
            .iter()
            .position(|r| live_id(r) == id)
            .map(|i| i + start)
    }

    /// `reconcileSealedTurn`: fetch now, or defer while scrolled up.
    fn reconcile_sealed_turn(&mut self, turn_id: TurnId, effects: &mut Vec<Effect>) {
        if self.scrolled_up {
            self.pending_reconcile = Some(turn_id);
            return;
        }
        let request_id = RequestId(self.next_request);
        self.next_request += 1;
        self.in_flight.insert(request_id, turn_id);
        effects.push(Effect::Fetch { request_id });
    }

    /// The second half of `reloadChunksFromApi`: replace chunks, filter live.
    fn apply_fetch(&mut self, request_id: RequestId, chunks: &[ChunkRow]) {
        let Some(sealed_turn) = self.in_flight.remove(&request_id) else {
            return; // not ours: a real store would ignore an unknown response too
        };
        let preserve_turn_id = self.live_turn_id.filter(|&t| t != sealed_turn);
        let live: Vec<RenderRow> = self.rows.drain(self.sealed_len..).collect();
        self.rows.clear();
        self.rows.extend(chunks.iter().map(RenderRow::sealed));
        self.sealed_len = self.rows.len();
        let ctx = KeepContext {
            preserve_turn_id,
            queued_messages: &self.queued_messages,
        };
        let kept: Vec<RenderRow> = live
            .into_iter()
            .filter(|row| self.policy.keep(row, &ctx))
            .collect();
        self.rows.extend(kept);
    }

    /// A delta grows the turn's current assistant row (`currentAssistantId`) in place,
    /// wherever it sits in `live`; with none (the turn's first text, text after a tool
    /// event, or a row a reconcile dropped) it starts a new assistant row at the end, which
    /// becomes current.
    fn text_delta(&mut self, turn_id: Option<TurnId>, text: &str) {
        let current = match &self.current_assistant {
            Some((t, id)) if *t == turn_id => self.find_live(id),
            _ => None,
        };
        if let Some(i) = current {
            let row = &mut self.rows[i];
            row.text.push(' ');
            row.text.push_str(text);
            return;
        }
        let turn = turn_id.map_or_else(|| "-".to_string(), |t| t.to_string());
        let id = format!("a-{turn}-{}", self.live_rows_created);
        self.push_live(id.clone(), Role::Assistant, turn_id, text.to_string());
        self.current_assistant = Some((turn_id, id));
    }

    /// A tool event (of any turn) ends the current text segment: the next text starts a
    /// new row.
    fn end_segment(&mut self) {
        self.current_assistant = None;
    }

    /// For a row this tab shows as optimistic: it was queued after all.
    fn message_queued(&mut self, message_id: MessageId) {
        if let Some(i) = self.find_live(&message_id.to_string()) {
            self.rows[i].origin = Origin::Live {
                id: format!("{QUEUED_PREFIX}{message_id}"),
            };
            if !self.queued_messages.contains(&message_id) {
                self.queued_messages.push(message_id);
            }
        }
    }

    fn message_consumed(&mut self, message_ids: &[MessageId]) {
        for id in message_ids {
            self.queued_messages.retain(|q| q != id);
            if let Some(i) = self.find_live(&format!("{QUEUED_PREFIX}{id}")) {
                let live_turn_id = self.live_turn_id;
                self.policy
                    .on_consumed(&mut self.rows[i], *id, live_turn_id);
            }
        }
    }

    fn handle_event(&mut self, event: &Event, effects: &mut Vec<Effect>) {
        match event {
            Event::TurnStart { turn_id } => {
                self.live_turn_id = Some(*turn_id);
                let start = self.sealed_len;
                self.policy.backfill(&mut self.rows[start..], *turn_id);
            }
            // A delta without a turn id (beyond the note) is the turn the tab believes is
            // streaming: `liveTurnId`.
            Event::TextDelta { turn_id, text } => {
                self.text_delta(turn_id.or(self.live_turn_id), text)
            }
            Event::ToolCall {
                turn_id,
                call,
                text,
            } => {
                self.end_segment();
                self.push_live(
                    format!("call-{turn_id}-{call}"),
                    Role::ToolCall,
                    Some(*turn_id),
                    text.clone(),
                )
            }
            Event::ToolResult {
                turn_id,
                call,
                text,
            } => {
                self.end_segment();
                self.push_live(
                    format!("result-{turn_id}-{call}"),
                    Role::ToolResult,
                    Some(*turn_id),
                    text.clone(),
                )
            }
            // The note's store reads neither a queued message's text (it shows only its
            // own messages) nor a consume reason (the note's event has none).
            Event::MessageQueued { message_id, .. } => self.message_queued(*message_id),
            Event::MessageConsumed { message_ids, .. } => self.message_consumed(message_ids),
            Event::Status { status } => self.agent_status = *status,
            Event::TurnSealed { turn_id } => self.reconcile_sealed_turn(*turn_id, effects),
        }
    }
}

impl<P: ReconcilePolicy> Store for TabStore<P> {
    fn handle(&mut self, input: &Input) -> Answer {
        let mut effects = Vec::new();
        match input {
            Input::UserSend { message_id, text } => {
                if self.agent_status == AgentStatus::Running {
                    self.push_live(
                        format!("{QUEUED_PREFIX}{message_id}"),
                        Role::User,
                        None,
                        text.clone(),
                    );
                    self.queued_messages.push(*message_id);
                } else {
                    self.push_live(message_id.to_string(), Role::User, None, text.clone());
                }
                effects.push(Effect::Post {
                    message_id: Some(*message_id),
                    text: text.clone(),
                });
            }
            Input::Scroll { at_bottom } => {
                self.scrolled_up = !at_bottom;
                if *at_bottom {
                    if let Some(turn_id) = self.pending_reconcile.take() {
                        self.reconcile_sealed_turn(turn_id, &mut effects);
                    }
                }
            }
            Input::Event { event } => self.handle_event(event, &mut effects),
            Input::PostResponse { .. } => {}
            Input::FetchResponse {
                request_id, chunks, ..
            } => self.apply_fetch(*request_id, chunks),
        }
        Ok(effects)
    }

    fn render(&self) -> &[RenderRow] {
        &self.rows
    }

    fn clone_box(&self) -> Option<Box<dyn Store>> {
        Some(Box::new(self.clone()))
    }

    /// The derived `Hash` of the whole store, policy included: a field added to
    /// [`TabStore`] (or to a policy) is hashed without anyone having to remember it.
    fn hash_state(&self, mut state: &mut dyn std::hash::Hasher) -> bool {
        self.hash(&mut state);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::note::current::Current;

    /// `current` numbering its assistant rows as the model did before the fix: by the
    /// current row count (`rows.len()`), which a reconcile can lower. Before each input the
    /// count of rows created is reset to the row count; an input pushes at most one row,
    /// after `text_delta` has taken its number, so the id is exactly the old
    /// `a-<turn>-<rows.len()>`. Nothing else differs.
    struct RowCountIds(TabStore<Current>);

    impl Store for RowCountIds {
        fn handle(&mut self, input: &Input) -> Answer {
            self.0.live_rows_created = u32::try_from(self.0.rows.len()).unwrap();
            self.0.handle(input)
        }

        fn render(&self) -> &[RenderRow] {
            self.0.render()
        }
    }

    fn event(s: &mut dyn Store, event: Event) -> Vec<Effect> {
        s.handle(&Input::Event { event }).unwrap()
    }

    fn send(s: &mut dyn Store, m: u32) {
        s.handle(&Input::UserSend {
            message_id: MessageId(m),
            text: format!("msg:m{m}"),
        })
        .unwrap();
    }

    fn delta(s: &mut dyn Store, t: u32, text: &str) {
        let text = text.to_string();
        event(
            s,
            Event::TextDelta {
                turn_id: Some(TurnId(t)),
                text,
            },
        );
    }

    fn tool_call(s: &mut dyn Store, t: u32) {
        let text = format!("tool-call:t{t}.1");
        event(
            s,
            Event::ToolCall {
                turn_id: TurnId(t),
                call: 1,
                text,
            },
        );
    }

    fn chunk(seq: u32, role: Role, text: &str) -> ChunkRow {
        ChunkRow {
            seq,
            turn_id: TurnId(1),
            role,
            text: text.into(),
            message_ids: Vec::new(),
        }
    }

    /// The ids and texts of the live assistant rows after a scripted sequence in which
    /// t1's reconcile drops six live rows and adds four chunk rows (t1's text, split in two
    /// live rows by a tool event delivered between its deltas, is one chunk row; the
    /// consumed m3, bound to t1 and folded into its tool result, has no chunk row of its
    /// own), while t2 streams and is preserved.
    fn assistant_rows_after_a_shrinking_reconcile(s: &mut dyn Store) -> Vec<(String, String)> {
        event(
            s,
            Event::Status {
                status: AgentStatus::Idle,
            },
        );
        send(s, 1); // rows: m1 (optimistic)
        event(s, Event::TurnStart { turn_id: TurnId(1) }); // binds m1 to t1
        delta(s, 1, "x1"); // + t1's first segment
        tool_call(s, 1); // + call-t1-1, ends the segment
        send(s, 3); // + m3
        event(
            s,
            Event::MessageQueued {
                message_id: MessageId(3),
                text: None,
            },
        );
        event(
            s,
            Event::MessageConsumed {
                message_ids: vec![MessageId(3)],
                reason: None,
            },
        ); // binds m3 to t1 (liveTurnId)
        let result = "tool-result:t1.1 [USER INTERRUPT] msg:m3".to_string();
        event(
            s,
            Event::ToolResult {
                turn_id: TurnId(1),
                call: 1,
                text: result.clone(),
            },
        );
        delta(s, 1, "x2"); // + t1's second segment
        let fetch = event(s, Event::TurnSealed { turn_id: TurnId(1) });
        assert_eq!(
            fetch,
            vec![Effect::Fetch {
                request_id: RequestId(1)
            }]
        );
        send(s, 2); // + m2: 7 rows
        event(s, Event::TurnStart { turn_id: TurnId(2) }); // binds m2 to t2
        delta(s, 2, "y1"); // t2's first segment, numbered 7 by the old scheme
        tool_call(s, 2);
        s.handle(&Input::FetchResponse {
            request_id: RequestId(1),
            snapshot_seq: 4,
            chunks: vec![
                chunk(1, Role::User, "msg:m1"),
                chunk(2, Role::Assistant, "x1 x2"),
                chunk(3, Role::ToolCall, "tool-call:t1.1"),
                chunk(4, Role::ToolResult, &result),
            ]
            .into(),
            written_turns: vec![TurnId(1)].into(),
        })
        .unwrap();
        // 4 chunks + m2, t2's first segment, call-t2-1 (t2 preserved): 7 rows again.
        assert_eq!(s.render().len(), 7);
        delta(s, 2, "y2"); // t2's second segment: a new row
        delta(s, 2, "y3"); // grows the current row
        s.render()
            .iter()
            .filter(|r| r.role == Role::Assistant && r.is_live())
            .map(|r| (live_id(r).to_string(), r.text.clone()))
            .collect()
    }

    fn user(id: &str, turn: Option<u32>) -> LiveRow {
        RenderRow {
            origin: Origin::Live { id: id.into() },
            role: Role::User,
            turn_id: turn.map(TurnId),
            text: format!("msg:{}", id.trim_start_matches(QUEUED_PREFIX)),
        }
    }

    fn assistant(turn: u32) -> LiveRow {
        RenderRow {
            origin: Origin::Live {
                id: format!("a-t{turn}-0"),
            },
            role: Role::Assistant,
            turn_id: Some(TurnId(turn)),
            text: format!("txt:t{turn}.1"),
        }
    }

    fn turns(live: &[LiveRow]) -> Vec<Option<u32>> {
        live.iter().map(|r| r.turn_id.map(|t| t.0)).collect()
    }

    #[test]
    fn row_ids_and_the_queued_prefix_read_back() {
        let queued = user("queued-m30", None);
        let plain = user("m30", None);
        let sealed = RenderRow::sealed(&chunk(1, Role::User, "msg:m30"));
        assert_eq!(
            (live_id(&queued), live_id(&plain), live_id(&sealed)),
            ("queued-m30", "m30", "")
        );
        assert_eq!(
            (
                is_queued_row(&queued),
                is_queued_row(&plain),
                is_queued_row(&sealed)
            ),
            (true, false, false)
        );
        assert_eq!(queued_message_id(&queued), Some(MessageId(30)));
        assert_eq!(queued_message_id(&plain), None);
        assert_eq!(queued_message_id(&user("queued-x", None)), None);
    }

    /// Live rows: m1 above t1's text, then the trailing user rows m2 (untagged), m4
    /// (already t1's), queued m3 (untagged).
    fn trailing_users() -> Vec<LiveRow> {
        vec![
            user("m1", None),
            assistant(1),
            user("m2", None),
            user("m4", Some(1)),
            user("queued-m3", None),
        ]
    }

    #[test]
    fn backfill_before_c_tags_every_trailing_untagged_user_row() {
        let mut live = trailing_users();
        backfill_every_trailing(&mut live, TurnId(2));
        assert_eq!(
            turns(&live),
            [None, Some(1), Some(2), Some(1), Some(2)],
            "the trailing block only, tagged rows kept"
        );
    }

    #[test]
    fn backfill_after_c_tags_only_the_latest_untagged_non_queued_row() {
        let mut live = trailing_users();
        backfill_latest_initiator(&mut live, TurnId(2));
        assert_eq!(turns(&live), [None, Some(1), Some(2), Some(1), None]);
        // With no such row in the trailing block, nothing is tagged.
        let mut live = vec![user("m1", None), assistant(1), user("queued-m3", None)];
        backfill_latest_initiator(&mut live, TurnId(2));
        assert_eq!(turns(&live), [None, Some(1), None]);
    }

    #[test]
    fn consumed_handlers_strip_the_prefix_and_bind_only_after_d() {
        let mut row = user("queued-m3", None);
        consumed_strip_prefix(&mut row, MessageId(3));
        assert_eq!((live_id(&row), row.turn_id), ("m3", None));
        let mut row = user("queued-m3", None);
        consumed_bind_live_turn(&mut row, MessageId(3), Some(TurnId(5)));
        assert_eq!((live_id(&row), row.turn_id), ("m3", Some(TurnId(5))));
    }

    /// `queuedMessages` and the fetch ids: a send while running is queued, an optimistic
    /// row that `message-queued` names becomes queued, `message-consumed` removes only
    /// the ids it names, and each reconcile fetches with a new request id.
    #[test]
    fn queued_messages_and_fetch_ids_are_kept_as_the_note_keeps_them() {
        let mut s = TabStore::new(Current);
        send(&mut s, 1); // a fresh tab is running: queued-m1
        event(
            &mut s,
            Event::Status {
                status: AgentStatus::Idle,
            },
        );
        send(&mut s, 2); // idle: optimistic m2
        assert_eq!(s.queued_messages, [MessageId(1)]);
        let queued = Event::MessageQueued {
            message_id: MessageId(2),
            text: None,
        };
        event(&mut s, queued.clone());
        event(&mut s, queued);
        assert_eq!(s.queued_messages, [MessageId(1), MessageId(2)]);
        let ids: Vec<&str> = s.render().iter().map(live_id).collect();
        assert_eq!(ids, ["queued-m1", "queued-m2"]);
        event(
            &mut s,
            Event::MessageConsumed {
                message_ids: vec![MessageId(1)],
                reason: None,
            },
        );
        assert_eq!(s.queued_messages, [MessageId(2)]);
        let fetches: Vec<Vec<Effect>> = (0..2)
            .map(|_| event(&mut s, Event::TurnSealed { turn_id: TurnId(1) }))
            .collect();
        assert_eq!(
            fetches,
            [1, 2].map(|n| vec![Effect::Fetch {
                request_id: RequestId(n)
            }])
        );
    }

    #[test]
    fn row_ids_the_old_numbering_reuses_a_live_id_and_grows_the_wrong_row() {
        let mut old = RowCountIds(TabStore::new(Current));
        let rows = assistant_rows_after_a_shrinking_reconcile(&mut old);
        assert_eq!(
            rows,
            [
                ("a-t2-7".to_string(), "y1 y3".to_string()),
                ("a-t2-7".to_string(), "y2".to_string()),
            ],
            "two live rows share an id and the delta grew the older one"
        );
    }

    #[test]
    fn row_ids_count_rows_created_so_each_is_unique_and_the_delta_grows_its_own_row() {
        let mut fixed = TabStore::new(Current);
        let rows = assistant_rows_after_a_shrinking_reconcile(&mut fixed);
        assert_eq!(
            rows,
            [
                ("a-t2-7".to_string(), "y1".to_string()),
                ("a-t2-9".to_string(), "y2 y3".to_string()),
            ]
        );
        let live: Vec<&str> = fixed.rows[fixed.sealed_len..].iter().map(live_id).collect();
        let unique: std::collections::BTreeSet<&str> = live.iter().copied().collect();
        assert_eq!(
            unique.len(),
            live.len(),
            "every live row has its own id: {live:?}"
        );
    }
}
