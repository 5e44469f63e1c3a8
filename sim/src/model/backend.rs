//! The backend: one chat session every tab shares (the agent, its queue, the durable chunk
//! DB); the steps it takes are in `backend_steps.rs`. Every choice the note leaves open is
//! in the module doc of [`crate::model::world`] and in `docs/model.md`.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::wire::{ChunkRow, Event, MessageId, Role, TurnId};

/// Where the running turn is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TurnPhase {
    /// Streaming text, tool calls and results.
    Streaming,
    /// `status idle|error` emitted; the durable write has not happened.
    Finishing,
    /// Rows written; `turn-sealed` not yet emitted.
    Written,
}

/// A row the running turn has streamed, written at the end: its role, text and the
/// message ids folded into it.
pub(super) type PendingRow = (Role, String, Vec<MessageId>);

/// The turn the agent is running.
#[derive(Clone, Debug)]
pub struct Turn {
    pub(super) id: TurnId,
    pub(super) phase: TurnPhase,
    /// Rows streamed so far, written at the end.
    pub(super) pending_rows: Vec<PendingRow>,
    pub(super) deltas_total: u32,
    pub(super) deltas_in_segment: u8,
    pub(super) tool_calls: u8,
    pub(super) open_call: Option<u32>,
}

impl Turn {
    /// The turn's id.
    pub fn id(&self) -> TurnId {
        self.id
    }
    /// Where the turn is in its life.
    pub fn phase(&self) -> TurnPhase {
        self.phase
    }
}

/// The one chat session every client shares.
#[derive(Debug, Default)]
pub struct Backend {
    /// Durable chunk rows, in `seq` order. Shared with fetch snapshots until it changes.
    pub(super) db: Arc<Vec<ChunkRow>>,
    /// Messages queued, awaiting consumption, with the text each was POSTed with.
    pub(super) queue: Vec<(MessageId, String)>,
    /// Ground truth for the oracle: the messages each tool result folded in, by
    /// (turn, call), for results that folded any.
    pub(super) folded: BTreeMap<(TurnId, u32), Vec<MessageId>>,
    pub(super) turn: Option<Turn>,
    /// Turns whose durable write has happened, in write order (what a fetch response
    /// reports as `written_turns`).
    pub(super) written_turns: Arc<Vec<TurnId>>,
    pub(super) next_seq: u32,
    pub(super) next_turn: u32,
    /// The ids the backend minted, by the world's id of the message (a POST that carried
    /// no id, which every world takes, as real backends do). Events and the DB keep the
    /// world's ids (the facts every observer reads); a store is told the minted ones
    /// ([`Backend::wire_event`], [`Backend::wire_chunks`]), as a real backend would name
    /// them.
    pub(super) minted: BTreeMap<MessageId, MessageId>,
}

/// The first id the backend mints: far above any id a world's users send (`m1`, `m10`,
/// `m2`, … up to a few dozen), so the two never meet, and `m901`, `m902`, … read as the
/// server's in a trace.
pub const MINTED_ID_BASE: u32 = 900;

impl Backend {
    /// A backend with an empty DB and no turn.
    pub(super) fn new() -> Backend {
        Backend {
            next_seq: 1,
            next_turn: 1,
            ..Backend::default()
        }
    }

    /// The durable chunk rows, in `seq` order.
    pub fn db(&self) -> &[ChunkRow] {
        &self.db
    }

    /// The tool result (its turn and call) that folded message `m` in as an interrupt,
    /// if one did: where the DB holds `m` (inside that result's row).
    pub fn result_folding(&self, m: MessageId) -> Option<(TurnId, u32)> {
        self.folded
            .iter()
            .find(|(_, ids)| ids.contains(&m))
            .map(|(at, _)| *at)
    }

    /// Messages queued, awaiting consumption, oldest first.
    pub fn queue(&self) -> impl ExactSizeIterator<Item = MessageId> + '_ {
        self.queue.iter().map(|(id, _)| *id)
    }

    /// The messages the tool result of call `call` of turn `turn` folded in (empty for
    /// one that folded none, or has not happened).
    pub fn folded_into(&self, turn: TurnId, call: u32) -> &[MessageId] {
        self.folded.get(&(turn, call)).map_or(&[], Vec::as_slice)
    }

    /// The turn the agent is running, if any.
    pub fn turn(&self) -> Option<&Turn> {
        self.turn.as_ref()
    }

    /// The `seq` of the newest row, 0 when the DB is empty (a snapshot's `snapshot_seq`).
    pub fn last_seq(&self) -> u32 {
        self.db.last().map_or(0, |r| r.seq)
    }

    /// The running turn, if it is streaming.
    pub(super) fn streaming_turn(&self) -> Option<&Turn> {
        self.turn
            .as_ref()
            .filter(|t| t.phase == TurnPhase::Streaming)
    }

    /// The running turn, which the caller knows exists (the step is enabled).
    pub(super) fn running(&mut self) -> &mut Turn {
        self.turn.as_mut().expect("enabled: a turn is running")
    }

    /// The id the backend names message `id` by on the wire: the one it minted, if it
    /// minted one, else the client's.
    pub fn wire_id(&self, id: MessageId) -> MessageId {
        self.minted.get(&id).copied().unwrap_or(id)
    }

    /// The world's id of the message the backend names `wire` on the wire (the inverse of
    /// [`Backend::wire_id`]).
    pub fn world_id(&self, wire: MessageId) -> MessageId {
        self.minted
            .iter()
            .find(|(_, minted)| **minted == wire)
            .map_or(wire, |(world, _)| *world)
    }

    /// A snapshot's rows as a store is told them: the message ids the backend minted in
    /// place of the world's. Shared, not copied, when no row holds a minted id.
    pub fn wire_chunks(&self, chunks: Arc<Vec<ChunkRow>>) -> Arc<Vec<ChunkRow>> {
        let minted = |r: &ChunkRow| r.message_ids.iter().any(|m| self.minted.contains_key(m));
        if self.minted.is_empty() || !chunks.iter().any(minted) {
            return chunks;
        }
        let rows = chunks
            .iter()
            .map(|r| ChunkRow {
                message_ids: r.message_ids.iter().map(|m| self.wire_id(*m)).collect(),
                ..r.clone()
            })
            .collect();
        Arc::new(rows)
    }

    /// `event` as a store is told it: the message ids the backend minted in place of the
    /// world's (events are recorded with the world's ids, the facts every observer reads).
    pub fn wire_event(&self, event: Event) -> Event {
        if self.minted.is_empty() {
            return event;
        }
        match event {
            Event::MessageQueued { message_id, text } => Event::MessageQueued {
                message_id: self.wire_id(message_id),
                text,
            },
            Event::MessageConsumed {
                message_ids,
                reason,
            } => Event::MessageConsumed {
                message_ids: message_ids.into_iter().map(|m| self.wire_id(m)).collect(),
                reason,
            },
            other => other,
        }
    }

    pub(super) fn push_row(
        &mut self,
        turn_id: TurnId,
        role: Role,
        text: String,
        ids: Vec<MessageId>,
    ) {
        Arc::make_mut(&mut self.db).push(ChunkRow {
            seq: self.next_seq,
            turn_id,
            role,
            text,
            message_ids: ids,
        });
        self.next_seq += 1;
    }

    /// Start turn `turn_id`, its one user row (`text`, holding `ids`) persisted at once.
    pub(super) fn start_turn(&mut self, text: String, ids: Vec<MessageId>) -> TurnId {
        let turn_id = TurnId(self.next_turn);
        self.next_turn += 1;
        self.push_row(turn_id, Role::User, text, ids);
        self.turn = Some(Turn {
            id: turn_id,
            phase: TurnPhase::Streaming,
            pending_rows: Vec::new(),
            deltas_total: 0,
            deltas_in_segment: 0,
            tool_calls: 0,
            open_call: None,
        });
        turn_id
    }
}
