//! Two fingerprints of a state, one home: what each hashes and what it is for.
//!
//! - [`full_state_fingerprint`]: 64 bits of the **full** state (the world and every
//!   store's internal state, as a scope sees it). It names states in the breadth-first
//!   visited set and in the depth-first cache; two different states with one fingerprint
//!   would be merged, at most `n²/2⁶⁵` over `n` states (`visited.rs`).
//! - [`observable_fingerprint`]: a hash of what is **observable** (the backend, the
//!   networks, the users' facts and every render), not the stores' internal state. Never
//!   a key for merging (a render does not capture pending work): the report's
//!   `distinct_states` counts these.
//!
//! Both read a tab through a [`KeyView`]: in full, or as a POST source.

use std::hash::Hash;

use crate::model::store::Store;
use crate::model::world::World;

use super::key::KeyWriter;
use super::view::{hash_post_source, KeyView};

/// The fingerprint of `world`'s full state as `scope` sees it: XXH3-64 (seed 0, the same
/// in every run and on every machine) over a key of it: the shared state, then each
/// tab's part ([`super::key::tab_part`]'s fields), every integer at its full width and each
/// part followed by its length (so the key reads back from its end: injective, like
/// [`super::key::state_key`], whose varints and length prefixes cost a copy and a loop per
/// integer here, on every arrival). A judged tab's own part (its store, user and facts)
/// enters the key as its 128-bit digest ([`own_digest`]), remembered by the tab until its
/// next step: backend steps, most of a search's, then feed no store. Two different own
/// parts with equal digests would make two states one; the collision bound counts that
/// chance too ([`super::visited::collision_bound`]). `None` when a store cannot expose its
/// state.
pub fn full_state_fingerprint(world: &World, view: impl KeyView, buf: &mut Buffers) -> Option<u64> {
    use std::hash::Hasher;
    let Buffers { fixed: key, own } = buf;
    key.bytes.clear();
    world.hash_shared_state(key);
    for (client, c) in world.clients().iter().enumerate() {
        let start = key.bytes.len();
        if view.in_full(client as crate::model::wire::ClientId) {
            world.hash_client_network(client, key);
            let digest = c.own_digest(|| own_digest(world, client, own))?;
            debug_assert_eq!(
                Some(digest),
                store_digest(c.store(), own).map(|store| own_digest_of(world, client, own, store)),
                "a tab's remembered digests are those of its own part as it is now"
            );
            key.write_u128(digest);
        } else {
            hash_post_source(c, key);
        }
        key.write_u64((key.bytes.len() - start) as u64);
    }
    Some(xxhash_rust::xxh3::xxh3_64(&key.bytes))
}

/// The 128-bit digest of tab `client`'s own part: XXH3-128 over the user's budget and
/// facts ([`World::hash_client_own`]) then the store's digest ([`store_digest`]), or
/// `None` when the store cannot expose its state.
pub fn own_digest(world: &World, client: usize, buf: &mut FixedWidth) -> Option<u128> {
    let c = &world.clients()[client];
    let store = c.store_digest(|store| store_digest(store, buf))?;
    Some(own_digest_of(world, client, buf, store))
}

/// [`own_digest`], given the store's digest.
fn own_digest_of(world: &World, client: usize, buf: &mut FixedWidth, store: u128) -> u128 {
    use std::hash::Hasher;
    buf.bytes.clear();
    world.hash_client_own(client, buf);
    buf.write_u128(store);
    xxhash_rust::xxh3::xxh3_128(&buf.bytes)
}

/// The 128-bit digest of a store's state: XXH3-128 over what [`Store::hash_state`] feeds
/// (into `buf`), or `None` when the store cannot expose its state. Two different states
/// with one digest would be taken for one: at most `n(n-1)/2 / 2^128` over `n` store
/// states, far below the fingerprints' own bound ([`super::visited::collision_bound`]).
pub fn store_digest(store: &dyn Store, buf: &mut FixedWidth) -> Option<u128> {
    buf.bytes.clear();
    store
        .hash_state(buf)
        .then(|| xxhash_rust::xxh3::xxh3_128(&buf.bytes))
}

/// A `Hasher` that records what it is fed, integers little-endian at their full width
/// (self-delimiting, so the record stays injective): [`full_state_fingerprint`]'s key.
#[derive(Default)]
pub struct FixedWidth {
    bytes: Vec<u8>,
}

impl FixedWidth {
    /// Forgets what was fed.
    pub fn clear(&mut self) {
        self.bytes.clear();
    }
    /// What was fed since the last [`FixedWidth::clear`].
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl std::hash::Hasher for FixedWidth {
    fn finish(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(&self.bytes)
    }
    fn write(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }
    fn write_u8(&mut self, n: u8) {
        self.bytes.push(n);
    }
    fn write_u16(&mut self, n: u16) {
        self.bytes.extend_from_slice(&n.to_le_bytes());
    }
    fn write_u32(&mut self, n: u32) {
        self.bytes.extend_from_slice(&n.to_le_bytes());
    }
    fn write_u64(&mut self, n: u64) {
        self.bytes.extend_from_slice(&n.to_le_bytes());
    }
    fn write_u128(&mut self, n: u128) {
        self.bytes.extend_from_slice(&n.to_le_bytes());
    }
    fn write_usize(&mut self, n: usize) {
        self.bytes.extend_from_slice(&(n as u64).to_le_bytes());
    }
}

/// Reused key buffers.
#[derive(Default)]
pub struct Buffers {
    fixed: FixedWidth,
    /// For a tab's own digest, computed while `fixed` holds the key so far.
    own: FixedWidth,
}

/// A hash of everything observable about the world as `scope` sees it: the backend, every
/// judged client's network queues, budgets, user facts and render, and of a POST source
/// what the state key holds of it ([`super::key::tab_part`]). Not the stores' internal
/// state, so never a key for merging (a render does not capture pending work), but a
/// function of the full state the scope keys; public because the report's
/// `distinct_states` counts these.
pub fn observable_fingerprint(world: &World, view: impl KeyView) -> u64 {
    // The exact bytes first, then one XXH3-64 over them (seed 0: the same state hashes the
    // same in every run): many small writes to a streaming hasher cost several times more.
    let mut h = KeyWriter::default();
    world.hash_shared_state(&mut h);
    for (i, c) in world.clients().iter().enumerate() {
        if view.in_full(i as crate::model::wire::ClientId) {
            world.hash_client_state(i, &mut h);
            c.render().hash(&mut h);
        } else {
            hash_post_source(c, &mut h);
        }
    }
    xxhash_rust::xxh3::xxh3_64(&h.bytes)
}
