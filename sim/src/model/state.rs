//! The world's state as a value: a key for `explore`'s state cache and a deep copy to
//! return to. Every field is listed by an exhaustive destructuring, so a field added to
//! [`World`], [`Backend`], [`Turn`], [`Client`] or [`FetchInFlight`] and not covered here is a
//! compile error rather than a silently unsound cache or a missing copy.

use std::sync::Arc;

use crate::model::backend::{Backend, Turn, TurnPhase};
use crate::model::client::{Client, FetchInFlight};
use crate::model::world::World;

/// Together,
/// The world's state as a key: [`World::hash_shared_state`] and [`World::hash_client_state`] for every client cover
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
            folded,
            turn,
            written_turns,
            next_seq,
            next_turn,
            minted,
        } = backend;
        (
            db.as_slice(),
            queue,
            folded,
            written_turns.as_slice(),
            next_seq,
            next_turn,
            next_event,
            next_message,
        )
            .hash(h);
        // Empty unless a store POSTed without an id: left out then,
        // so the keys of every other search stay as they were.
        if !minted.is_empty() {
            minted.hash(h);
        }
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

    /// Client `client`'s network queues, user budget and facts, without its store: its
    /// network part ([`World::hash_client_network`]) then its own
    /// ([`World::hash_client_own`]).
    pub fn hash_client_state(&self, client: usize, h: &mut impl std::hash::Hasher) {
        self.hash_client_network(client, h);
        self.hash_client_own(client, h);
    }

    /// What is in flight between client `client` and the backend: its inbox, POSTs and
    /// fetches both ways. Backend steps change it; the tab's own part does not change
    /// without a step of the tab. A served fetch's snapshot is fed as its lengths: the DB
    /// and `written_turns` only ever grow by appending, so a snapshot is always their
    /// prefix of that length (the shared state holds the current ones).
    pub fn hash_client_network(&self, client: usize, h: &mut impl std::hash::Hasher) {
        use std::hash::Hash;
        let Client {
            store: _, // Store::hash_state
            inbox,
            overtaken,
            posts,
            post_responses,
            posted: _, // hash_client_own
            fetch_requests,
            fetch_responses,
            scrolled_up: _,  // hash_client_own
            sends_left: _,   // hash_client_own
            scrolls_left: _, // hash_client_own
            sent: _,         // hash_client_own
            sent_texts: _,   // hash_client_own
            deltas_shown: _, // hash_client_own
            learned: _,      // hash_client_own
            keys: _,         // a function of `sent_texts` and `deltas_shown`
            seals_shown: _,  // hash_client_own
            own_digest: _,   // a function of the own part and the store
        } = &self.clients[client];
        (inbox, posts, post_responses, fetch_requests).hash(h);
        // Always empty without the bound, so left out (the keys of every other search stay
        // as they were); with it, always fed.
        if self.config.ws_overtakes_max.is_some() {
            overtaken.hash(h);
        }
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

    /// Client `client`'s own part, without its store: its user's budget and scroll, and
    /// the ground-truth facts the oracle reads. Only a step of the tab changes it (or its
    /// store), which is what lets [`Client::own_digest`] remember a digest of it.
    pub fn hash_client_own(&self, client: usize, h: &mut impl std::hash::Hasher) {
        use std::hash::Hash;
        let Client {
            store: _,          // Store::hash_state
            inbox: _,          // hash_client_network
            overtaken: _,      // hash_client_network
            posts: _,          // hash_client_network
            post_responses: _, // hash_client_network
            posted,
            fetch_requests: _,  // hash_client_network
            fetch_responses: _, // hash_client_network
            scrolled_up,
            sends_left,
            scrolls_left,
            sent,
            sent_texts,
            deltas_shown,
            learned,
            keys: _, // a function of `sent_texts` and `deltas_shown`
            seals_shown,
            own_digest: _, // a function of the own part and the store
        } = &self.clients[client];
        (
            scrolled_up,
            sends_left,
            scrolls_left,
            sent,
            sent_texts,
            deltas_shown,
            learned,
            seals_shown,
        )
            .hash(h);
        posted.hash(h);
    }
}

/// A copy of the world, so that a search can return to a state without replaying the path
/// to it.
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
        let mut copies = Vec::with_capacity(clients.len());
        for c in clients {
            copies.push(try_clone_client(c)?);
        }
        Some(World {
            config: config.clone(),
            backend: copy_backend(backend),
            clients: copies,
            next_event: *next_event,
            next_message: *next_message,
        })
    }
}

/// A copy of the backend; the append-only DB and written turns are shared, not copied.
fn copy_backend(backend: &Backend) -> Backend {
    let Backend {
        db,
        queue,
        folded,
        turn,
        written_turns,
        next_seq,
        next_turn,
        minted,
    } = backend;
    Backend {
        minted: minted.clone(),
        db: Arc::clone(db),
        queue: queue.clone(),
        folded: folded.clone(),
        turn: turn.clone(),
        written_turns: Arc::clone(written_turns),
        next_seq: *next_seq,
        next_turn: *next_turn,
    }
}

/// A deep copy of a client, its store included, or `None` when the store cannot copy
/// itself.
fn try_clone_client(c: &Client) -> Option<Client> {
    let Client {
        store,
        inbox,
        overtaken,
        posts,
        post_responses,
        posted,
        fetch_requests,
        fetch_responses,
        scrolled_up,
        sends_left,
        scrolls_left,
        sent,
        sent_texts,
        deltas_shown,
        learned,
        keys,
        seals_shown,
        own_digest,
    } = c;
    Some(Client {
        store: store.try_share()?,
        inbox: inbox.clone(),
        overtaken: overtaken.clone(),
        posts: posts.clone(),
        post_responses: post_responses.clone(),
        posted: posted.clone(),
        fetch_requests: fetch_requests.clone(),
        fetch_responses: fetch_responses.clone(),
        scrolled_up: *scrolled_up,
        sends_left: *sends_left,
        scrolls_left: *scrolls_left,
        sent: sent.clone(),
        sent_texts: sent_texts.clone(),
        deltas_shown: deltas_shown.clone(),
        learned: learned.clone(),
        keys: keys.clone(),
        seals_shown: seals_shown.clone(),
        own_digest: own_digest.clone(),
    })
}
