//! `durable`: a store that keeps or drops a live row on positive, direct evidence of
//! durability, never on a proxy.
//!
//! The note's diagnosis: "every signal is a proxy for 'is this row already durable in
//! chunks?'" (`turnId` presence, the `queued-` prefix, `queuedMessages`, `liveTurnId`,
//! scroll state). This store asks the question itself, from two facts the backend knows
//! and reports in the fetch response (see `docs/model.md`, "Model additions"):
//!
//! - each chunk row lists the client message ids it holds (`ChunkRow::message_ids`): the
//!   user row's own id, or the ids folded into a tool result as `[USER INTERRUPT]` blocks;
//! - the response lists the turns whose durable write had happened (`written_turns`).
//!
//! Rules:
//! 1. A live user row (this tab's own send, keyed by message id) is dropped iff an applied
//!    snapshot holds its message id. Queued, consumed, optimistic, first send of a fresh
//!    tab: none of that matters; only "is it in `chunks`".
//! 2. A live row streamed for turn `T` (assistant text, tool call, tool result) is dropped
//!    iff an applied snapshot says `T` was written; once it has, further events of `T`
//!    (a late delta overtaken by the fetch) are not shown live, since `chunks` holds them.
//! 3. A snapshot older than one already applied (`snapshot_seq` smaller) is ignored: the
//!    DB only grows, so a newer snapshot is a superset and an older one can only lose rows.
//! 4. Reconcile is still triggered by `turn-sealed` and deferred while scrolled up (the
//!    note's UX rule); correctness no longer depends on which turn it was for.
//! 5. A turn's text streams into its current row in place (`currentAssistantId`) until a
//!    tool event ends the segment, as the note's store does. A new assistant row's id is
//!    `a-<turn>-<n>`, `n` the number of live rows the store had created before it, so no two
//!    rows ever share an id. (Numbering by the current row count reused ids: a snapshot can
//!    retire more live rows than it adds chunk rows (a consumed interrupt bubble has no chunk
//!    row of its own; text that a reordered tool event split into two live rows is one chunk
//!    row), so the count went down, a later segment of a turn got the id of an earlier one
//!    still live, and the next delta grew the earlier row:
//!    `scenarios/found/durable-row-ids-seed41621.json`.)
//!
//! 6. A delta without a turn id (beyond the note: `deltas_without_turn_ids`, a backend
//!    that relies on in-order delivery) belongs to the latest turn whose `turn-start`
//!    reached the tab: in order, the last one. (The latest, not the last: under
//!    reordering, where every delta names its turn and this is never read, the last
//!    differed between two orders of delivery and split `explore`'s states, 1.5× on
//!    `--sends 2 --window 2 --deltas 0`, issue 48.)
//!
//! `message-queued`, `message-consumed` and `status` change nothing that decides
//! keep/drop (a real UI would use them for styling only); `turn-start` only names the
//! turn a delta without a turn id belongs to.

pub mod arrival;
pub mod db_order;

use std::collections::BTreeSet;

use crate::model::store::{Answer, Store};
use crate::model::wire::{
    ChunkRow, Effect, Event, Input, MessageId, Origin, RenderRow, RequestId, Role, TurnId,
};
use crate::store::kind::StoreKind;

/// `Hash` covers the whole state, for [`Store::hash_state`] (derived, so a new field is
/// covered automatically).
#[derive(Clone, Default, Hash)]
pub struct DurableStore {
    /// Sealed rows (first `sealed_len`) ++ live rows, the render.
    rows: Vec<RenderRow>,
    sealed_len: usize,
    /// For each live row (parallel to `rows[sealed_len..]`), what makes it durable.
    live_keys: Vec<LiveKey>,
    /// Messages and turns an applied snapshot proved durable (only ever grow).
    durable_messages: BTreeSet<MessageId>,
    durable_turns: BTreeSet<TurnId>,
    /// `snapshot_seq` of the newest applied snapshot.
    applied_seq: Option<u32>,
    scrolled_up: bool,
    reconcile_deferred: bool,
    in_flight: BTreeSet<RequestId>,
    next_request: u32,
    /// The turn and id of the live row the turn's text streams into
    /// (`currentAssistantId`), until a tool event ends the segment.
    current_assistant: Option<(TurnId, String)>,
    /// Live rows created so far (never goes down): numbers assistant row ids, so an id
    /// names one row for the store's life (rule 5).
    live_rows_created: u32,
    /// The latest turn whose `turn-start` reached the tab (rule 6).
    live_turn: Option<TurnId>,
    /// Where live rows go (rule 7).
    policy: RenderPolicy,
    /// Under [`RenderPolicy::DbOrder`]: the tab's own messages whose place in the DB no
    /// event has told yet, in send order; their rows stay at the bottom of `live`.
    pending: Vec<MessageId>,
    /// Under [`RenderPolicy::DbOrder`]: the turns whose first event reached the tab.
    turns_seen: BTreeSet<TurnId>,
}

/// Where a store of this family puts live rows (rule 7). Each is a defensible rendering
/// that invariant 5 accepts (`docs/model.md`, "Invariant 5").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RenderPolicy {
    /// `durable`: rows in arrival order; the turn's streaming row grows in place, also
    /// above a message the user sent while it streams.
    #[default]
    InPlace,
    /// `durable-arrival`: rows in arrival order; a send ends the streaming row, so the
    /// text that follows opens a new assistant row below the user's own row.
    Arrival,
    /// `durable-db-order`: rows in the order the DB will hold them, as far as the tab has
    /// been told: the user's own messages stay below all content until an event places
    /// them (`message-consumed` naming them, or the first event of a new turn); placing
    /// one ends the streaming row, which is split where the message will be written.
    DbOrder,
}

/// Which durable fact retires a live row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum LiveKey {
    Message(MessageId),
    Turn(TurnId),
}

impl DurableStore {
    /// A fresh tab: nothing shown, no snapshot applied, fetch ids from 1.
    pub fn new() -> Self {
        DurableStore::with_policy(RenderPolicy::InPlace)
    }

    /// A fresh tab rendering its live rows by `policy`.
    pub fn with_policy(policy: RenderPolicy) -> Self {
        DurableStore {
            next_request: 1,
            policy,
            ..DurableStore::default()
        }
    }

    /// Where a new live row of streamed content goes: the bottom, or, under
    /// [`RenderPolicy::DbOrder`], above the first message not yet placed.
    fn content_slot(&self) -> usize {
        if self.policy != RenderPolicy::DbOrder || self.pending.is_empty() {
            return self.rows.len();
        }
        let first = self
            .live_keys
            .iter()
            .position(|k| matches!(k, LiveKey::Message(m) if self.pending.contains(m)));
        first.map_or(self.rows.len(), |i| self.sealed_len + i)
    }

    /// Under [`RenderPolicy::DbOrder`]: the messages `placed` now have their place, and
    /// so has every message this tab sent before them (the backend handles a tab's POSTs
    /// in order, so each earlier one was queued or started a turn before them). Their
    /// rows, already below every placed row, stay where they are; if any was shown, the
    /// streaming row ends there, so the text that follows goes below them.
    fn place(&mut self, placed: &[MessageId]) {
        let last = self.pending.iter().rposition(|m| placed.contains(m));
        if let Some(i) = last {
            self.pending.drain(..=i);
            self.end_segment();
        }
    }

    /// Under [`RenderPolicy::DbOrder`]: the first event of a turn places every pending
    /// message: each was sent before any of the turn's content reached the tab, so above
    /// that content it is in arrival order, and the turn's initiator is among them.
    fn turn_event(&mut self, turn_id: TurnId) {
        if self.policy == RenderPolicy::DbOrder
            && self.turns_seen.insert(turn_id)
            && !self.pending.is_empty()
        {
            self.pending.clear();
            self.end_segment();
        }
    }

    fn push_live(&mut self, key: LiveKey, id: String, role: Role, text: &str) {
        let turn_id = match key {
            LiveKey::Turn(t) => Some(t),
            LiveKey::Message(_) => None,
        };
        let at = match key {
            LiveKey::Turn(_) => self.content_slot(),
            LiveKey::Message(_) => self.rows.len(),
        };
        self.rows.insert(
            at,
            RenderRow {
                origin: Origin::Live { id },
                role,
                turn_id,
                text: text.to_string(),
            },
        );
        self.live_keys.insert(at - self.sealed_len, key);
        self.live_rows_created += 1;
    }

    fn reconcile(&mut self, effects: &mut Vec<Effect>) {
        if self.scrolled_up {
            self.reconcile_deferred = true;
            return;
        }
        let request_id = RequestId(self.next_request);
        self.next_request += 1;
        self.in_flight.insert(request_id);
        effects.push(Effect::Fetch { request_id });
    }

    fn apply_snapshot(&mut self, snapshot_seq: u32, chunks: &[ChunkRow], written: &[TurnId]) {
        if self.applied_seq.is_some_and(|a| snapshot_seq < a) {
            return; // stale: an older snapshot can only show less than what is shown
        }
        self.applied_seq = Some(snapshot_seq);
        for c in chunks {
            self.durable_messages.extend(c.message_ids.iter().copied());
        }
        self.durable_turns.extend(written.iter().copied());
        let live: Vec<RenderRow> = self.rows.drain(self.sealed_len..).collect();
        let keys = std::mem::take(&mut self.live_keys);
        self.rows.clear();
        self.rows.extend(chunks.iter().map(RenderRow::sealed));
        self.sealed_len = self.rows.len();
        for (row, key) in live.into_iter().zip(keys) {
            if !self.is_durable(key) {
                self.rows.push(row);
                self.live_keys.push(key);
            }
        }
    }

    fn is_durable(&self, key: LiveKey) -> bool {
        match key {
            LiveKey::Message(m) => self.durable_messages.contains(&m),
            LiveKey::Turn(t) => self.durable_turns.contains(&t),
        }
    }

    /// A delta grows the turn's current streaming row in place, wherever it sits in
    /// `live`; with none (the turn's first text, text after a tool event) it starts a new
    /// assistant row, which becomes current.
    fn text_delta(&mut self, turn_id: TurnId, text: &str) {
        let current = match &self.current_assistant {
            Some((t, id)) if *t == turn_id => self.rows[self.sealed_len..]
                .iter()
                .position(|r| matches!(&r.origin, Origin::Live { id: i } if i == id)),
            _ => None,
        };
        if let Some(i) = current {
            let row = &mut self.rows[self.sealed_len + i];
            row.text.push(' ');
            row.text.push_str(text);
            return;
        }
        let id = format!("a-{turn_id}-{}", self.live_rows_created);
        self.push_live(LiveKey::Turn(turn_id), id.clone(), Role::Assistant, text);
        self.current_assistant = Some((turn_id, id));
    }

    /// A tool event (of any turn) ends the current text segment: the next text starts a
    /// new row.
    fn end_segment(&mut self) {
        self.current_assistant = None;
    }

    fn handle_event(&mut self, event: &Event, effects: &mut Vec<Effect>) {
        match event {
            Event::TextDelta { turn_id, text } => {
                let turn_id = turn_id.or(self.live_turn).unwrap_or(TurnId(0));
                self.turn_event(turn_id);
                if !self.durable_turns.contains(&turn_id) {
                    self.text_delta(turn_id, text);
                }
            }
            Event::ToolCall {
                turn_id,
                call,
                text,
            } => {
                self.turn_event(*turn_id);
                self.end_segment();
                if !self.durable_turns.contains(turn_id) {
                    self.push_live(
                        LiveKey::Turn(*turn_id),
                        format!("call-{turn_id}-{call}"),
                        Role::ToolCall,
                        text,
                    );
                }
            }
            Event::ToolResult {
                turn_id,
                call,
                text,
            } => {
                self.turn_event(*turn_id);
                self.end_segment();
                if !self.durable_turns.contains(turn_id) {
                    self.push_live(
                        LiveKey::Turn(*turn_id),
                        format!("result-{turn_id}-{call}"),
                        Role::ToolResult,
                        text,
                    );
                }
            }
            Event::TurnSealed { .. } => self.reconcile(effects),
            Event::TurnStart { turn_id } => {
                self.turn_event(*turn_id);
                self.live_turn = self.live_turn.max(Some(*turn_id));
            }
            Event::MessageConsumed { message_ids, .. } => {
                if self.policy == RenderPolicy::DbOrder {
                    self.place(message_ids);
                }
            }
            Event::MessageQueued { .. } | Event::Status { .. } => {}
        }
    }
}

impl Store for DurableStore {
    fn handle(&mut self, input: &Input) -> Answer {
        let mut effects = Vec::new();
        match input {
            Input::UserSend { message_id, text } => {
                match self.policy {
                    RenderPolicy::InPlace => {}
                    RenderPolicy::Arrival => self.end_segment(),
                    RenderPolicy::DbOrder => self.pending.push(*message_id),
                }
                self.push_live(
                    LiveKey::Message(*message_id),
                    message_id.to_string(),
                    Role::User,
                    text,
                );
                effects.push(Effect::Post {
                    message_id: Some(*message_id),
                    text: text.clone(),
                });
            }
            Input::Scroll { at_bottom } => {
                self.scrolled_up = !at_bottom;
                if *at_bottom && std::mem::take(&mut self.reconcile_deferred) {
                    self.reconcile(&mut effects);
                }
            }
            Input::Event { event } => self.handle_event(event, &mut effects),
            Input::PostResponse { .. } => {}
            Input::FetchResponse {
                request_id,
                snapshot_seq,
                chunks,
                written_turns,
            } => {
                if self.in_flight.remove(request_id) {
                    self.apply_snapshot(*snapshot_seq, chunks, written_turns);
                }
            }
        }
        Ok(effects)
    }

    fn render(&self) -> &[RenderRow] {
        &self.rows
    }

    fn hash_state(&self, mut state: &mut dyn std::hash::Hasher) -> bool {
        std::hash::Hash::hash(self, &mut state);
        true
    }

    fn clone_box(&self) -> Option<Box<dyn Store>> {
        Some(Box::new(self.clone()))
    }
}

/// `durable` in [`STORES`](super::STORES): designed not to break any invariant, so any
/// finding against it is news; the nightly run's cargo-fuzz stage fuzzes it by default.
pub const KIND: StoreKind = StoreKind {
    name: "durable",
    summary: "keep a live row until a snapshot proves it durable (message ids, written turns)",
    make: || Box::new(DurableStore::new()) as Box<dyn Store>,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::fuzz::run_one;
    use crate::oracle::Invariant;
    use crate::run::{replay, Outcome};
    use crate::trace::scenario;
    use crate::trace::shrink::check_one_minimal;

    /// `durable` numbering its assistant rows as it did before the fix: by the current
    /// row count (`rows.len()`), which a snapshot can lower. Before each input the count of
    /// rows created is reset to the row count; an input pushes at most one row, after
    /// `text_delta` has taken its number, so the id is exactly the old
    /// `a-<turn>-<rows.len()>`. Nothing else differs.
    struct RowCountIds(DurableStore);

    impl Store for RowCountIds {
        fn handle(&mut self, input: &Input) -> Answer {
            self.0.live_rows_created = u32::try_from(self.0.rows.len()).unwrap();
            self.0.handle(input)
        }

        fn render(&self) -> &[RenderRow] {
            self.0.render()
        }
    }

    const ROW_COUNT_IDS: StoreKind = StoreKind {
        name: "durable-row-count-ids",
        summary: "durable with the old row ids (a-<turn>-<current row count>)",
        make: || Box::new(RowCountIds(DurableStore::new())) as Box<dyn Store>,
    };

    fn send(s: &mut dyn Store, m: u32) {
        s.handle(&Input::UserSend {
            message_id: MessageId(m),
            text: format!("msg:m{m}"),
        })
        .unwrap();
    }

    fn event(s: &mut dyn Store, event: Event) -> Vec<Effect> {
        s.handle(&Input::Event { event }).unwrap()
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

    fn chunk(seq: u32, role: Role, text: &str, message_ids: &[u32]) -> ChunkRow {
        ChunkRow {
            seq,
            turn_id: TurnId(1),
            role,
            text: text.into(),
            message_ids: message_ids.iter().copied().map(MessageId).collect(),
        }
    }

    /// The ids and texts of the live assistant rows, after a scripted sequence in which a
    /// snapshot retires six live rows of turn 1 and adds four chunk rows (t1's text, split
    /// in two live rows by a tool call delivered between its deltas, is one chunk row;
    /// the interrupt m2, folded into t1's tool result, has no chunk row of its own), while
    /// turn 2 streams.
    fn assistant_rows_after_a_shrinking_snapshot(s: &mut dyn Store) -> Vec<(String, String)> {
        send(s, 1); // rows: m1
        delta(s, 1, "x1"); // + t1's first segment
        tool_call(s, 1); // + call-t1-1, ends the segment
        delta(s, 1, "x2"); // + t1's second segment
        send(s, 2); // + m2 (the interrupt)
        let result = "tool-result:t1.1 [USER INTERRUPT] msg:m2".to_string();
        event(
            s,
            Event::ToolResult {
                turn_id: TurnId(1),
                call: 1,
                text: result.clone(),
            },
        );
        let fetch = event(s, Event::TurnSealed { turn_id: TurnId(1) });
        assert_eq!(
            fetch,
            vec![Effect::Fetch {
                request_id: RequestId(1)
            }]
        );
        send(s, 3); // + m3, which starts t2: 7 rows
        delta(s, 2, "y1"); // t2's first segment, numbered 7 by the old scheme
        tool_call(s, 2);
        s.handle(&Input::FetchResponse {
            request_id: RequestId(1),
            snapshot_seq: 4,
            chunks: vec![
                chunk(1, Role::User, "msg:m1", &[1]),
                chunk(2, Role::Assistant, "x1 x2", &[]),
                chunk(3, Role::ToolCall, "tool-call:t1.1", &[]),
                chunk(4, Role::ToolResult, &result, &[2]),
            ]
            .into(),
            written_turns: vec![TurnId(1)].into(),
        })
        .unwrap();
        // 4 chunks + m3, t2's first segment, call-t2-1: 7 rows again.
        assert_eq!(s.render().len(), 7);
        delta(s, 2, "y2"); // t2's second segment: a new row
        delta(s, 2, "y3"); // grows the current row
        s.render()
            .iter()
            .filter(|r| r.role == Role::Assistant && r.is_live())
            .map(|r| match &r.origin {
                Origin::Live { id } => (id.clone(), r.text.clone()),
                Origin::Sealed { .. } => unreachable!("live"),
            })
            .collect()
    }

    #[test]
    fn row_ids_the_old_numbering_reuses_a_live_id_and_grows_the_wrong_row() {
        let mut old = RowCountIds(DurableStore::new());
        let rows = assistant_rows_after_a_shrinking_snapshot(&mut old);
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
        let mut fixed = DurableStore::new();
        let rows = assistant_rows_after_a_shrinking_snapshot(&mut fixed);
        assert_eq!(
            rows,
            [
                ("a-t2-7".to_string(), "y1".to_string()),
                ("a-t2-9".to_string(), "y2 y3".to_string()),
            ]
        );
        let ids: BTreeSet<&str> = fixed
            .render()
            .iter()
            .filter_map(|r| match &r.origin {
                Origin::Live { id } => Some(id.as_str()),
                Origin::Sealed { .. } => None,
            })
            .collect();
        let live = fixed.render().iter().filter(|r| r.is_live()).count();
        assert_eq!(ids.len(), live, "every live row has its own id");
    }

    /// The committed scenario (found by fuzzing, shrunk against the old numbering) breaks
    /// inv5 with the old numbering, needs each of its steps for that, and passes now.
    #[test]
    fn row_ids_the_committed_scenario_breaks_inv5_on_the_old_numbering_only() {
        let text = include_str!("../../../../scenarios/found/durable-row-ids-seed41621.json");
        let path = std::path::Path::new("scenarios/found/durable-row-ids-seed41621.json");
        let sc = scenario::parse(path, text).unwrap();
        assert_eq!((sc.store.as_str(), sc.expect), ("durable", None));
        let steps = sc.steps();

        let report = replay(&ROW_COUNT_IDS, sc.config.clone(), &steps);
        assert!(report.skipped.is_empty(), "every step is enabled");
        assert_eq!(report.outcome.invariant(), Some(Invariant::RenderShape));
        assert_eq!(
            check_one_minimal(&ROW_COUNT_IDS, &sc.config, &steps, Invariant::RenderShape),
            Ok(()),
            "every step is needed for the old numbering to break inv5"
        );

        let report = replay(&KIND, sc.config.clone(), &steps);
        assert!(report.skipped.is_empty(), "every step is enabled");
        assert_eq!(report.outcome, Outcome::Pass);
    }

    #[test]
    fn a_stale_snapshot_is_ignored_and_a_fresh_one_retires_rows() {
        let mut s = DurableStore::new();
        let m1 = MessageId(1);
        s.handle(&Input::UserSend {
            message_id: m1,
            text: "msg:m1".into(),
        })
        .unwrap();
        s.handle(&Input::Event {
            event: Event::TurnSealed { turn_id: TurnId(1) },
        })
        .unwrap();
        s.handle(&Input::Event {
            event: Event::TurnSealed { turn_id: TurnId(1) },
        })
        .unwrap();
        let row = |seq| ChunkRow {
            seq,
            turn_id: TurnId(1),
            role: Role::User,
            text: "msg:m1".into(),
            message_ids: vec![m1],
        };
        s.handle(&Input::FetchResponse {
            request_id: RequestId(2),
            snapshot_seq: 1,
            chunks: vec![row(1)].into(),
            written_turns: vec![TurnId(1)].into(),
        })
        .unwrap();
        assert_eq!(s.render().len(), 1);
        assert!(
            !s.render()[0].is_live(),
            "the durable row replaced the live one"
        );
        s.handle(&Input::FetchResponse {
            request_id: RequestId(1),
            snapshot_seq: 0,
            chunks: vec![].into(),
            written_turns: vec![].into(),
        })
        .unwrap();
        assert_eq!(s.render().len(), 1, "the stale empty snapshot was ignored");
    }

    /// Rule 4: a `turn-sealed` that reaches a scrolled-up tab is deferred, and scrolling
    /// back down fetches once then; scrolling down with nothing deferred fetches nothing.
    #[test]
    fn scrolling_down_fetches_only_a_deferred_reconcile() {
        let mut s = DurableStore::new();
        let scroll =
            |s: &mut DurableStore, at_bottom| s.handle(&Input::Scroll { at_bottom }).unwrap();
        let none: Vec<Effect> = Vec::new();
        assert_eq!(scroll(&mut s, false), none);
        assert_eq!(scroll(&mut s, true), none, "nothing was deferred");
        assert_eq!(scroll(&mut s, false), none);
        let sealed = event(&mut s, Event::TurnSealed { turn_id: TurnId(1) });
        assert_eq!(sealed, none, "deferred while scrolled up");
        assert_eq!(
            scroll(&mut s, true),
            [Effect::Fetch {
                request_id: RequestId(1)
            }]
        );
        assert_eq!(scroll(&mut s, false), none);
        assert_eq!(
            scroll(&mut s, true),
            none,
            "the deferred reconcile was done once"
        );
    }

    #[test]
    fn durable_passes_seeds_every_note_variant_fails() {
        for strategy in crate::run::strategy::StrategySpec::ALL {
            for seed in 0..300 {
                let r = run_one(&KIND, strategy, seed);
                assert_eq!(
                    r.outcome,
                    crate::run::Outcome::Pass,
                    "{strategy} seed {seed}"
                );
            }
        }
    }
}
