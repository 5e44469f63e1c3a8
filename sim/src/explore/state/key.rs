//! Exact state keys: what "the same state" means to the cache.
//!
//! A key is the bytes the state's `Hash` implementations feed, recorded verbatim
//! ([`KeyWriter`]), so equal keys mean equal states, with no collision bound to argue. The
//! flat key ([`state_key`]) is the definition; the search stores keys hash-consed
//! ([`StateIds`]) to keep millions of them in memory, which is still exact. The
//! fingerprints (`fingerprint.rs`) hash such keys, or only what is observable.

use std::hash::{Hash, Hasher};

use rustc_hash::FxHashMap;

use crate::model::world::World;

use super::view::{hash_post_source, KeyView};

/// A `Hasher` that records what it is fed instead of hashing it: the exact state key.
/// Integers are written as LEB128 varints (self-delimiting, so the stream stays
/// injective and keys stay short); `finish` is never used by `Hash` implementations.
/// Public so that tests and tools can compare states by [`state_key`].
#[derive(Default)]
pub struct KeyWriter {
    /// The key so far: two states are equal iff these bytes are.
    pub bytes: Vec<u8>,
}

impl KeyWriter {
    fn varint(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.bytes.push((n as u8) | 0x80);
            n >>= 7;
        }
        self.bytes.push(n as u8);
    }
}

impl Hasher for KeyWriter {
    fn finish(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.bytes.hash(&mut h);
        h.finish()
    }
    fn write(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }
    fn write_u8(&mut self, n: u8) {
        self.bytes.push(n);
    }
    fn write_u16(&mut self, n: u16) {
        self.varint(n.into());
    }
    fn write_u32(&mut self, n: u32) {
        self.varint(n.into());
    }
    fn write_u64(&mut self, n: u64) {
        self.varint(n);
    }
    fn write_usize(&mut self, n: usize) {
        self.varint(n as u64);
    }
}

/// Client `client`'s part of the state into `part` (cleared first): its network queues,
/// budget and facts, then its store's state, length-prefixed. False when the store cannot
/// expose its state. `scratch` is reused between calls.
pub fn client_part(
    world: &World,
    client: usize,
    part: &mut KeyWriter,
    scratch: &mut KeyWriter,
) -> bool {
    part.bytes.clear();
    world.hash_client_state(client, part);
    scratch.bytes.clear();
    if !world.clients()[client].store().hash_state(scratch) {
        return false;
    }
    part.write_usize(scratch.bytes.len());
    part.bytes.extend_from_slice(&scratch.bytes);
    true
}

/// The full state key of `world` into `key` (cleared first): the shared state, then each
/// client's part, length-prefixed so that one part cannot run into the next. Exact: equal
/// keys, equal states. False when a store cannot expose its state. The search uses the
/// same parts through `StateIds`; this flat form is the definition, public for tests.
pub fn state_key(world: &World, key: &mut KeyWriter, scratch: &mut KeyWriter) -> bool {
    key.bytes.clear();
    world.hash_shared_state(key);
    let mut part = KeyWriter::default();
    for client in 0..world.clients().len() {
        if !client_part(world, client, &mut part, scratch) {
            return false;
        }
        key.write_usize(part.bytes.len());
        key.bytes.extend_from_slice(&part.bytes);
    }
    true
}

/// What the state key holds of tab `client` as `view` sees it, into `part` (cleared first):
/// everything for a tab held in full ([`client_part`]); for a POST source, only what the
/// backend can still see of it ([`hash_post_source`]). False when a store held in full
/// cannot expose its state.
pub fn tab_part(
    world: &World,
    view: impl KeyView,
    client: usize,
    part: &mut KeyWriter,
    scratch: &mut KeyWriter,
) -> bool {
    if view.in_full(client as crate::model::wire::ClientId) {
        return client_part(world, client, part, scratch);
    }
    part.bytes.clear();
    hash_post_source(&world.clients()[client], part);
    true
}

/// Exact state keys made small by hash-consing: each part of a state (the shared state,
/// each client's part) is stored once and named by a number, and the parts' numbers are
/// folded pairwise, one table per position, into one number per state. Two states get the
/// same number iff every part has the same bytes, i.e. iff their [`state_key`]s are equal:
/// no hashing, no collision. Worlds of a search differ in a few parts at a time, so the
/// parts are shared widely and a state costs a few table slots instead of its full bytes.
#[derive(Default)]
pub struct StateIds {
    parts: FxHashMap<Box<[u8]>, u32>,
    /// `folds[i]`: (number so far, number of client `i`'s part) → number so far.
    folds: Vec<FxHashMap<(u32, u32), u32>>,
    /// Bytes of the distinct parts stored.
    part_bytes: u64,
    part: KeyWriter,
    scratch: KeyWriter,
}

impl StateIds {
    fn intern(parts: &mut FxHashMap<Box<[u8]>, u32>, bytes: &[u8], total: &mut u64) -> u32 {
        if let Some(&id) = parts.get(bytes) {
            return id;
        }
        let id = u32::try_from(parts.len()).expect("fewer than 2^32 distinct parts");
        *total += bytes.len() as u64;
        parts.insert(bytes.into(), id);
        id
    }

    /// The number of `world`'s state as `view` sees it (see [`tab_part`]), or `None` if a
    /// store cannot expose its state.
    pub fn id(&mut self, world: &World, view: impl KeyView) -> Option<u32> {
        self.part.bytes.clear();
        world.hash_shared_state(&mut self.part);
        let mut id = Self::intern(&mut self.parts, &self.part.bytes, &mut self.part_bytes);
        for client in 0..world.clients().len() {
            if !tab_part(world, view, client, &mut self.part, &mut self.scratch) {
                return None;
            }
            let p = Self::intern(&mut self.parts, &self.part.bytes, &mut self.part_bytes);
            if self.folds.len() <= client {
                self.folds.push(FxHashMap::default());
            }
            let fold = &mut self.folds[client];
            let next = u32::try_from(fold.len()).expect("fewer than 2^32 distinct states");
            id = *fold.entry((id, p)).or_insert(next);
        }
        Some(id)
    }

    /// Bytes of the distinct parts stored (the report's `state_key_bytes`).
    pub fn part_bytes(&self) -> u64 {
        self.part_bytes
    }

    /// How many distinct full states were numbered.
    pub fn states(&self) -> u64 {
        self.folds.last().map_or(0, |f| f.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::ExploreBound;
    use crate::model::step::Step;
    use crate::oracle::{check_converged, check_step};

    /// The key covers every field that matters: two different paths that reach the same
    /// key must have the same future. Random walks over richer worlds than the search
    /// tests use (two senders, reordering, scrolls, tool calls) collect pairs of different
    /// paths to one key; each pair is replayed and then driven by the same seeded random
    /// continuation, and at every step both worlds must offer the same steps, show the
    /// same renders, get the same verdict and keep equal keys. A field that matters but is
    /// left out of a key makes two different states share a key, and their futures part
    /// here. (A field implied by the rest of the state, e.g. a store's `sealed_len` by its
    /// rows, cannot be caught this way, and cannot make the cache unsound either.)
    #[test]
    fn states_with_equal_keys_have_equal_futures() {
        use rand::{RngExt, SeedableRng};
        let mut pairs_checked = 0;
        for store in crate::store::STORES {
            for variant in 0..2u64 {
                let mut config = ExploreBound::small(2, 2).world;
                config.scrolls_per_client = 1;
                config.ws_reorder_window = 2;
                config.tool_calls_per_turn_max = variant as u8;
                config.deltas_per_segment_max = 2 - variant as u8;
                config.status_on_connect = variant == 0;
                let mut first_path: std::collections::BTreeMap<Vec<u8>, Vec<Step>> =
                    Default::default();
                let mut merged: Vec<(Vec<Step>, Vec<Step>)> = Vec::new();
                let (mut key, mut scratch) = (KeyWriter::default(), KeyWriter::default());
                let mut enabled = Vec::new();
                for walk in 0..300u64 {
                    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(walk + 1000 * variant);
                    let mut world = World::new(config.clone(), store);
                    let mut path = Vec::new();
                    loop {
                        world.enabled_steps(&mut enabled);
                        if enabled.is_empty() || path.len() > 80 {
                            break;
                        }
                        let step = enabled[rng.random_range(0..enabled.len())];
                        if world.apply(step).crash.is_some() {
                            break;
                        }
                        path.push(step);
                        assert!(state_key(&world, &mut key, &mut scratch));
                        match first_path.get(&key.bytes) {
                            Some(p) if *p != path && merged.len() < 40 => {
                                merged.push((p.clone(), path.clone()))
                            }
                            Some(_) => {}
                            None => {
                                first_path.insert(key.bytes.clone(), path.clone());
                            }
                        }
                    }
                }
                assert!(
                    merged.len() >= 20,
                    "{}: too few merges to check",
                    store.name
                );
                for (i, (p, q)) in merged.iter().enumerate() {
                    let mut w1 = World::new(config.clone(), store);
                    let mut w2 = World::new(config.clone(), store);
                    p.iter().for_each(|s| drop(w1.apply(*s)));
                    q.iter().for_each(|s| drop(w2.apply(*s)));
                    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(i as u64);
                    let (mut e1, mut e2) = (Vec::new(), Vec::new());
                    let (mut k1, mut k2) = (KeyWriter::default(), KeyWriter::default());
                    for n in 0..80 {
                        let what = format!("{}: {p:?} vs {q:?}, step {n} after", store.name);
                        assert!(state_key(&w1, &mut k1, &mut scratch));
                        assert!(state_key(&w2, &mut k2, &mut scratch));
                        assert_eq!(k1.bytes, k2.bytes, "{what}");
                        for (c1, c2) in w1.clients().iter().zip(w2.clients()) {
                            assert_eq!(c1.render(), c2.render(), "{what}");
                        }
                        w1.enabled_steps(&mut e1);
                        w2.enabled_steps(&mut e2);
                        assert_eq!(e1, e2, "{what}");
                        if e1.is_empty() {
                            assert_eq!(check_converged(&w1, 0), check_converged(&w2, 0));
                            break;
                        }
                        let step = e1[rng.random_range(0..e1.len())];
                        let (r1, r2) = (w1.apply(step), w2.apply(step));
                        assert_eq!(r1, r2, "{what}");
                        if r1.crash.is_some() {
                            break;
                        }
                        assert_eq!(check_step(&w1, &step, 0), check_step(&w2, &step, 0));
                    }
                    pairs_checked += 1;
                }
            }
        }
        assert!(pairs_checked >= 300);
    }
}
