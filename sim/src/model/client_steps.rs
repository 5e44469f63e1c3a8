//! The world's steps of the clients (and the fetch server's): the `impl World` block that
//! takes them, apart from [`super::client`] (a tab's state) so that the client does not
//! depend on the world that steps it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::model::client::{answer_or_cause, FetchInFlight, Own};
use crate::model::content::{message_id, message_text_of};
use crate::model::record::{Record, StoreCrash};
use crate::model::step::Step;
use crate::model::store::StoreFault;
use crate::model::wire::{ClientId, Event, Input, RequestId};
use crate::model::world::World;

/// The steps that reach a tab, and the fetch server's. Each is called only when enabled.
impl World {
    /// Apply a client step (one whose actor is a client).
    pub(super) fn apply_client_step(
        &mut self,
        step: Step,
        rec: &mut impl Record,
    ) -> Result<(), StoreCrash> {
        if let Some(client) = step.client() {
            // The tab's own part may change: its digest is asked again.
            self.clients[client as usize].own_digest.forget();
        }
        match step {
            Step::DeliverEvent { client, event } => self.deliver_event(client, event, rec),
            Step::DeliverPostResponse { client } => self.deliver_post_response(client, rec),
            Step::DeliverFetchResponse { client, request } => {
                self.deliver_fetch_response(client, request, rec)
            }
            Step::Send { client } => self.send(client, rec),
            Step::ScrollUp { client } => self.scroll(client, true, rec),
            Step::ScrollDown { client } => self.scroll(client, false, rec),
            _ => unreachable!("{step} is not a client step"),
        }
    }

    /// `ServeFetch`: the backend serves `client`'s oldest fetch with a snapshot of the DB.
    pub(super) fn serve_fetch(&mut self, client: ClientId, rec: &mut impl Record) {
        let snapshot_seq = self.backend.last_seq();
        let c = &mut self.clients[client as usize];
        let request = c.fetch_requests.pop_front().expect("enabled");
        rec.served(request, snapshot_seq);
        c.fetch_responses.push(FetchInFlight {
            request,
            snapshot_seq,
            chunks: Arc::clone(&self.backend.db),
            written_turns: Arc::clone(&self.backend.written_turns),
        });
    }

    /// `DeliverEvent`: WebSocket event `event` reaches `client`.
    pub(super) fn deliver_event(
        &mut self,
        client: ClientId,
        event: u32,
        rec: &mut impl Record,
    ) -> Result<(), StoreCrash> {
        let c = &mut self.clients[client as usize];
        let pos = c
            .inbox
            .iter()
            .position(|(id, _)| *id == event)
            .expect("enabled");
        rec.position(pos);
        let (_, ev) = c.inbox.remove(pos).expect("enabled");
        if self.config.ws_overtakes_max.is_some() {
            count_overtakes(&mut c.overtaken, pos);
        }
        match &ev {
            Event::TurnSealed { turn_id } => {
                Arc::make_mut(&mut c.seals_shown).insert(*turn_id);
            }
            Event::ToolCall { text, .. } | Event::ToolResult { text, .. } => {
                Arc::make_mut(&mut c.keys).add_marker(text)
            }
            _ => {}
        }
        let own = Own {
            sent: &c.sent,
            db: &self.backend.db,
        };
        if c.learned.learns_from(&ev, own) {
            Arc::make_mut(&mut c.learned).delivered(&ev, own);
        }
        let input = Input::Event {
            event: self.backend.wire_event(ev),
        };
        let fed = self.feed(client, &input, rec);
        // The delta's text is recorded once the store is done with the input (moved, not
        // copied), also when the store crashed on it.
        if let Input::Event {
            event: Event::TextDelta { text, .. },
        } = input
        {
            let c = &mut self.clients[client as usize];
            Arc::make_mut(&mut c.keys).add_delta(&text);
            Arc::make_mut(&mut c.deltas_shown).push(text);
        }
        fed
    }

    /// `DeliverPostResponse`: the oldest POST response reaches `client`.
    pub(super) fn deliver_post_response(
        &mut self,
        client: ClientId,
        rec: &mut impl Record,
    ) -> Result<(), StoreCrash> {
        let answer = self.clients[client as usize]
            .post_responses
            .pop_front()
            .expect("enabled");
        self.feed(client, &answer.input(), rec)
    }

    /// `DeliverFetchResponse`: served response `request` reaches `client`.
    pub(super) fn deliver_fetch_response(
        &mut self,
        client: ClientId,
        request: RequestId,
        rec: &mut impl Record,
    ) -> Result<(), StoreCrash> {
        let c = &mut self.clients[client as usize];
        let pos = c
            .fetch_responses
            .iter()
            .position(|f| f.request == request)
            .expect("enabled");
        rec.position(pos);
        let f = c.fetch_responses.remove(pos);
        let input = Input::FetchResponse {
            request_id: f.request,
            snapshot_seq: f.snapshot_seq,
            chunks: self.backend.wire_chunks(f.chunks),
            written_turns: f.written_turns,
        };
        self.feed(client, &input, rec)
    }

    /// `Send`: the user of `client` sends the next message.
    pub(super) fn send(
        &mut self,
        client: ClientId,
        rec: &mut impl Record,
    ) -> Result<(), StoreCrash> {
        let k = self.next_message;
        let message_id = message_id(k);
        self.next_message += 1;
        let text = message_text_of(self.config.message_texts, k, message_id);
        let c = &mut self.clients[client as usize];
        c.sends_left -= 1;
        Arc::make_mut(&mut c.sent).push(message_id);
        Arc::make_mut(&mut c.learned).sent();
        Arc::make_mut(&mut c.keys).add_sent(&text);
        Arc::make_mut(&mut c.sent_texts).push(text.clone());
        self.feed(client, &Input::UserSend { message_id, text }, rec)
    }

    /// `ScrollUp` / `ScrollDown`: the user of `client` scrolls.
    pub(super) fn scroll(
        &mut self,
        client: ClientId,
        up: bool,
        rec: &mut impl Record,
    ) -> Result<(), StoreCrash> {
        let c = &mut self.clients[client as usize];
        c.scrolls_left = c.scrolls_left.saturating_sub(1);
        c.scrolled_up = up;
        self.feed(client, &Input::Scroll { at_bottom: !up }, rec)
    }

    /// Give `input` to client `client`'s store and route the effects it asks for. A
    /// panicking store is reported as a [`StoreCrash`], never propagated.
    fn feed(
        &mut self,
        client: ClientId,
        input: &Input,
        rec: &mut impl Record,
    ) -> Result<(), StoreCrash> {
        let c = &mut self.clients[client as usize];
        // A store shared with a copy of the world is copied first (inside the catch: the
        // copy is the store's own code).
        let answer = catch_unwind(AssertUnwindSafe(|| match c.store.get_mut() {
            Ok(store) => store.handle(input),
            Err(cause) => Err(StoreFault { cause }),
        }));
        let effects = match answer_or_cause(answer) {
            Ok(effects) => effects,
            Err(cause) => {
                rec.fed(input, None);
                return Err(StoreCrash { client, cause });
            }
        };
        rec.fed(input, Some(&effects));
        c.route(effects);
        Ok(())
    }
}

/// Under a bound on overtaking: the event at `pos` of the inbox was just taken, so each
/// event before it was overtaken once more, and the counts after it move one place
/// towards the front. `overtaken` stays parallel to the inbox's front, with no trailing
/// zeros, so that equal inboxes with equal counts hash alike.
fn count_overtakes(overtaken: &mut Vec<u8>, pos: usize) {
    if pos < overtaken.len() {
        overtaken.remove(pos);
    }
    if overtaken.len() < pos {
        overtaken.resize(pos, 0);
    }
    for n in &mut overtaken[..pos] {
        *n = n.saturating_add(1);
    }
    while overtaken.last() == Some(&0) {
        overtaken.pop();
    }
}
