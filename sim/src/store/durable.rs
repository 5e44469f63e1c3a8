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
//!    tool event ends the segment, as the note's store does.
//!
//! `turn-start`, `message-queued`, `message-consumed` and `status` change nothing that
//! decides keep/drop (a real UI would use them for styling only).

use std::collections::BTreeSet;

use super::StoreKind;
use crate::model::store::{Answer, Store};
use crate::model::wire::{
    ChunkRow, Effect, Event, Input, MessageId, Origin, RenderRow, RequestId, Role, TurnId,
};

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
        DurableStore {
            next_request: 1,
            ..DurableStore::default()
        }
    }

    fn push_live(&mut self, key: LiveKey, id: String, role: Role, text: &str) {
        let turn_id = match key {
            LiveKey::Turn(t) => Some(t),
            LiveKey::Message(_) => None,
        };
        self.rows.push(RenderRow {
            origin: Origin::Live { id },
            role,
            turn_id,
            text: text.to_string(),
        });
        self.live_keys.push(key);
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
        let id = format!("a-{turn_id}-{}", self.rows.len());
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
                if !self.durable_turns.contains(turn_id) {
                    self.text_delta(*turn_id, text);
                }
            }
            Event::ToolCall {
                turn_id,
                call,
                text,
            } => {
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
            Event::TurnStart { .. }
            | Event::MessageQueued { .. }
            | Event::MessageConsumed { .. }
            | Event::Status { .. } => {}
        }
    }
}

impl Store for DurableStore {
    fn handle(&mut self, input: &Input) -> Answer {
        let mut effects = Vec::new();
        match input {
            Input::UserSend { message_id, text } => {
                self.push_live(
                    LiveKey::Message(*message_id),
                    message_id.to_string(),
                    Role::User,
                    text,
                );
                effects.push(Effect::Post {
                    message_id: *message_id,
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
