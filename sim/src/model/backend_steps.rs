//! The world's steps of the backend/agent actor: the `impl World` block that takes them,
//! apart from [`super::backend`] (the backend's state) so that the backend does not depend
//! on the world that steps it.

use std::sync::Arc;

use crate::model::backend::{TurnPhase, MINTED_ID_BASE};
use crate::model::client::PostAnswer;
use crate::model::content::{delta_text, tool_call_text, tool_result_text, INTERRUPT_MARKER};
use crate::model::record::Record;
use crate::model::step::Step;
use crate::model::wire::{
    AgentStatus, ClientId, ConsumeReason, Event, MessageId, PostOutcome, Role,
};
use crate::model::world::World;

/// The backend's steps. Each is called only when enabled ([`World::enabled_steps`]).
impl World {
    /// Apply a backend step (one whose actor is the backend).
    pub(super) fn apply_backend_step(&mut self, step: Step, rec: &mut impl Record) {
        match step {
            Step::HandlePost { client } => self.handle_post(client, rec),
            Step::AgentDelta => self.agent_delta(rec),
            Step::AgentToolCall => self.agent_tool_call(rec),
            Step::AgentToolResult { interrupt } => self.agent_tool_result(interrupt, rec),
            Step::AgentEnd => self.agent_end(rec),
            Step::AgentFail => self.agent_fail(rec),
            Step::AgentWrite => self.agent_write(),
            Step::AgentSeal => self.agent_seal(rec),
            Step::ServeFetch { client } => self.serve_fetch(client, rec),
            _ => unreachable!("{step} is not a backend step"),
        }
    }

    /// `HandlePost`: start a turn if the agent is idle (persisting the one user row and
    /// emitting `turn-start`, `status running`), otherwise queue the message. The backend
    /// mints the message an id when the POST carried none (every world takes such a POST,
    /// as real backends do: [`Client::route`](crate::model::client)).
    pub(super) fn handle_post(&mut self, client: ClientId, rec: &mut impl Record) {
        let post = self.clients[client as usize]
            .posts
            .pop_front()
            .expect("enabled");
        let message_id = post.message;
        if !post.carried_id {
            let minted = MessageId(MINTED_ID_BASE + 1 + self.backend.minted.len() as u32);
            self.backend.minted.insert(message_id, minted);
        }
        let outcome = if self.backend.turn.is_none() {
            let turn_id = self.backend.start_turn(post.text, vec![message_id]);
            self.broadcast(Event::TurnStart { turn_id }, rec);
            self.broadcast(
                Event::Status {
                    status: AgentStatus::Running,
                },
                rec,
            );
            PostOutcome::Started { turn_id }
        } else {
            let text = self.config.queued_texts.then(|| post.text.clone());
            self.backend.queue.push((message_id, post.text));
            self.broadcast(Event::MessageQueued { message_id, text }, rec);
            PostOutcome::Queued
        };
        rec.posted(message_id, outcome);
        let server_id = self.backend.minted.get(&message_id).copied();
        self.clients[client as usize]
            .post_responses
            .push_back(PostAnswer {
                posted: post.carried_id.then_some(message_id),
                outcome,
                server_id,
            });
    }

    /// `AgentDelta`: stream one text delta (appended to the turn's assistant row, or the
    /// start of a new one after a tool row).
    pub(super) fn agent_delta(&mut self, rec: &mut impl Record) {
        let turn = self.backend.running();
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
        let turn_id = (!self.config.deltas_without_turn_ids).then_some(turn.id);
        self.broadcast(Event::TextDelta { turn_id, text }, rec);
    }

    /// `AgentToolCall`: open a tool call (a possible interrupt boundary).
    pub(super) fn agent_tool_call(&mut self, rec: &mut impl Record) {
        let turn = self.backend.running();
        turn.tool_calls += 1;
        let call = turn.tool_calls as u32;
        turn.open_call = Some(call);
        turn.deltas_in_segment = 0;
        let text = tool_call_text(turn.id, call);
        turn.pending_rows
            .push((Role::ToolCall, text.clone(), Vec::new()));
        let turn_id = turn.id;
        self.broadcast(
            Event::ToolCall {
                turn_id,
                call,
                text,
            },
            rec,
        );
    }

    /// `AgentToolResult`: the open call returns; with `interrupt`, the queue is folded into
    /// the result as `[USER INTERRUPT]` blocks (`message-consumed` first).
    pub(super) fn agent_tool_result(&mut self, interrupt: bool, rec: &mut impl Record) {
        let consumed = if interrupt {
            std::mem::take(&mut self.backend.queue)
        } else {
            Vec::new()
        };
        let turn = self.backend.running();
        let call = turn.open_call.take().expect("enabled");
        let mut text = tool_result_text(turn.id, call);
        for (_, message) in &consumed {
            text.push(' ');
            text.push_str(INTERRUPT_MARKER);
            text.push(' ');
            text.push_str(message);
        }
        let ids: Vec<MessageId> = consumed.iter().map(|(id, _)| *id).collect();
        turn.pending_rows
            .push((Role::ToolResult, text.clone(), ids.clone()));
        let turn_id = turn.id;
        if !ids.is_empty() {
            self.backend.folded.insert((turn_id, call), ids.clone());
            self.consumed(ids, ConsumeReason::Interrupt, rec);
        }
        self.broadcast(
            Event::ToolResult {
                turn_id,
                call,
                text,
            },
            rec,
        );
    }

    /// `AgentEnd`: with messages queued, drain them as trailing history and go on;
    /// otherwise `status idle` (before the durable write).
    pub(super) fn agent_end(&mut self, rec: &mut impl Record) {
        if self.backend.queue.is_empty() {
            self.finish_turn(AgentStatus::Idle, rec);
        } else {
            self.drain_trailing(rec);
        }
    }

    /// `AgentFail`: trailing drain of the queue, then `status error`.
    pub(super) fn agent_fail(&mut self, rec: &mut impl Record) {
        self.backend.running().open_call = None;
        if !self.backend.queue.is_empty() {
            self.drain_trailing(rec);
        }
        self.finish_turn(AgentStatus::Error, rec);
    }

    /// `AgentWrite`: the durable write of the finished turn's rows (`flushAssistant`).
    pub(super) fn agent_write(&mut self) {
        let turn = self.backend.running();
        turn.phase = TurnPhase::Written;
        let rows = std::mem::take(&mut turn.pending_rows);
        let turn_id = turn.id;
        for (role, text, message_ids) in rows {
            self.backend.push_row(turn_id, role, text, message_ids);
        }
        Arc::make_mut(&mut self.backend.written_turns).push(turn_id);
    }

    /// `AgentSeal`: `turn-sealed`, after the write; the agent is idle again. In a world
    /// with `continuation_drains`, messages queued while the turn was finishing are then
    /// drained into a new turn at once (`message-consumed`, `turn-start`,
    /// `status running`): the manager's continuation, which runs before any other POST.
    pub(super) fn agent_seal(&mut self, rec: &mut impl Record) {
        let turn = self.backend.turn.take().expect("enabled");
        self.broadcast(Event::TurnSealed { turn_id: turn.id }, rec);
        if self.config.continuation_drains && !self.backend.queue.is_empty() {
            let consumed = std::mem::take(&mut self.backend.queue);
            let ids: Vec<MessageId> = consumed.iter().map(|(m, _)| *m).collect();
            let text = consumed
                .into_iter()
                .map(|(_, t)| t)
                .collect::<Vec<_>>()
                .join("\n");
            self.consumed(ids.clone(), ConsumeReason::Continuation, rec);
            let turn_id = self.backend.start_turn(text, ids);
            self.broadcast(Event::TurnStart { turn_id }, rec);
            self.broadcast(
                Event::Status {
                    status: AgentStatus::Running,
                },
                rec,
            );
        }
    }

    /// Whether the seal of the running turn would start a continuation turn (it then
    /// writes the DB and reads the queue: `explore`'s independence relation asks).
    pub fn seal_continues(&self) -> bool {
        self.config.continuation_drains && !self.backend.queue.is_empty()
    }

    /// Broadcast `message-consumed` for `ids`, with its reason in a world that sends one.
    fn consumed(&mut self, message_ids: Vec<MessageId>, why: ConsumeReason, rec: &mut impl Record) {
        let reason = self.config.consume_reasons.then_some(why);
        self.broadcast(
            Event::MessageConsumed {
                message_ids,
                reason,
            },
            rec,
        );
    }

    /// The end-of-reply `dequeueMessages()` site: queued messages become trailing user
    /// history of the running turn.
    fn drain_trailing(&mut self, rec: &mut impl Record) {
        let consumed = std::mem::take(&mut self.backend.queue);
        let turn = self.backend.running();
        let mut ids = Vec::with_capacity(consumed.len());
        for (m, text) in consumed {
            turn.pending_rows.push((Role::User, text, vec![m]));
            ids.push(m);
        }
        turn.deltas_in_segment = 0;
        self.consumed(ids, ConsumeReason::Trailing, rec);
    }

    fn finish_turn(&mut self, status: AgentStatus, rec: &mut impl Record) {
        self.backend.running().phase = TurnPhase::Finishing;
        self.broadcast(Event::Status { status }, rec);
    }
}
