//! The state cache: Godefroid's state-space caching with sleep sets ("Partial-Order
//! Methods for the Verification of Concurrent Systems", 1996, ch. 6), extended with a
//! depth budget. The search asks it one question per arrival at a state that has steps,
//! [`Cache::visit`], and tells it what the search from there covered when it backtracks
//! out, [`Cache::leave`]. States are named by 64-bit fingerprints of their full keys (see
//! `visited.rs` for the collision bound) or, with [`crate::explore::Reductions::exact_keys`], by
//! their exact numbers ([`super::key::StateIds`]), so two states share an entry only
//! if they are equal.

use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

use super::slot::{CacheSlot, Verdicts};

/// A state's exploration budget in the cache: nothing below it was cut, any budget is
/// covered.
const BUDGET_COMPLETE: u32 = 0xFFFF;
/// The budget of a state whose search was cut before it began: covers nothing.
const BUDGET_NONE: u32 = 0;
/// The entry of a state whose search another thread started and has not finished: its
/// promise to cover what a complete entry covers (see [`Cache`], "Several threads").
const BUDGET_PROMISED: u32 = 0xFFFE;
/// The largest finite budget: budgets are kept in 16 bits, so the search never looks
/// further than this many steps ([`crate::explore::engine::dfs`] cuts `depth_max` to it; a
/// schedule that long is reported as cut, never as verified).
pub(crate) const BUDGET_MAX: u32 = 0xFFFD;
/// The sleep set's bits in a packed entry; the verdicts' two bits are above them, and the
/// budget in the 16 bits above those.
const SLEEP_BITS: u32 = super::slot::MASK_STEPS as u32;
/// Where the verdicts' bits ([`Verdicts`]) start in a packed entry.
const VERDICT_SHIFT: u32 = SLEEP_BITS;
/// Where the budget starts in a packed entry.
const BUDGET_SHIFT: u32 = SLEEP_BITS + 2;

/// What the cache knows about one full state `s`: it was searched with sleep set `Z` and
/// budget `b`. Invariant: every schedule suffix from `s` of at most `b` steps whose first
/// step is not in `Z` is covered (explored, or equivalent by commuting independent steps
/// to an explored one, which is what a sleep set guarantees), with every violation on it
/// recorded. Because the state determines its future, this does not depend on the path
/// that reached `s`. Also the verdicts known clean at `s` ([`Verdicts`]). Packed into one
/// word (`Z` in the low [`SLEEP_BITS`] bits, the verdicts in the 2 above, `b` in the 16
/// above those): with the 64-bit fingerprint, 16 bytes a slot instead of 24, which is
/// most of what a state costs the search.
#[derive(Clone, Copy)]
struct CacheEntry(u64);

impl CacheEntry {
    fn new(sleep: u64, budget: u32, clean: Verdicts) -> CacheEntry {
        debug_assert!(sleep >> SLEEP_BITS == 0 && budget <= BUDGET_COMPLETE && clean.0 < 4);
        CacheEntry(sleep | u64::from(clean.0) << VERDICT_SHIFT | u64::from(budget) << BUDGET_SHIFT)
    }
    /// `Z`, as a bit mask over the state's enabled steps (in their order).
    fn sleep(self) -> u64 {
        self.0 & ((1 << SLEEP_BITS) - 1)
    }
    /// `b`: how many further steps the search below this state was allowed.
    fn budget(self) -> u32 {
        (self.0 >> BUDGET_SHIFT) as u32
    }
    /// The verdicts known clean here.
    fn clean(self) -> Verdicts {
        Verdicts((self.0 >> VERDICT_SHIFT) as u8 & 3)
    }
}

/// What to do at a cached state, as [`Cache::visit`] decides.
pub(crate) enum Visit {
    /// Everything from here is covered: search nothing. `complete`: the covering search
    /// was not cut (else the path that reached here is not complete either). `clean`:
    /// the verdicts known clean here.
    Pruned { complete: bool, clean: Verdicts },
    /// Search the steps whose bits are set in `todo`, then write back through `slot`.
    /// `revisit`: the state was in the cache already (a partial revisit, for the report).
    /// `clean`: the verdicts known clean here.
    Search {
        todo: u64,
        slot: CacheSlot,
        revisit: bool,
        clean: Verdicts,
    },
}

/// How many independently locked tables the cache is split into (by a key's top bits).
const SHARDS: usize = 64;

/// The cache: one entry per full state searched from (or reached quiescent), shared by
/// every thread of a search ([`crate::explore::engine::dfs`] with `jobs > 1`). It is split into
/// [`SHARDS`] tables, each behind its own lock, so that threads seldom wait for each
/// other, and so that a table's growth (which briefly holds the old and the new table)
/// costs a 64th of the memory it would in one table.
///
/// **Several threads.** Every finished entry is a true claim about its state (the invariant
/// of [`CacheEntry`]), and a state's future never changes, so a claim stays true whoever
/// wrote it and whatever happened since. An entry whose search is still running is marked
/// *promised* (`b` = [`BUDGET_PROMISED`]): a thread that meets it takes it as the complete
/// entry it will become, and searches only what it will not cover. The promise is kept
/// unless the promising search is cut (`depth_max`, a limit) or meets a violation, and then
/// the search cannot verify anything anyway: a cut or a limit makes it inconclusive, and a
/// violation makes [`crate::explore::engine::dfs`] run the one-thread search again for the
/// counterexample. So the verdict of a search on several threads is the one-thread verdict.
/// When a search ends it writes its own claim ([`Cache::leave`]), combined with the claim
/// the entry holds by then: two claims with the same budget cover together every suffix not
/// starting in `Z₁ ∩ Z₂`; otherwise the one with the larger budget is kept. With one thread
/// no promise is ever met (the state graph has no cycle, so a state is never reached again
/// while it is being searched), the entry at `leave` is always the one its own visit wrote,
/// and this is exactly the single-threaded algorithm.
pub(crate) struct Cache {
    shards: Box<[std::sync::Mutex<FxHashMap<u64, CacheEntry>>]>,
}

impl Default for Cache {
    fn default() -> Cache {
        Cache {
            shards: (0..SHARDS).map(|_| Default::default()).collect(),
        }
    }
}

/// The budget a search from depth `depth` has under `depth_max` (never [`BUDGET_COMPLETE`]).
pub(crate) fn steps_left(depth_max: usize, depth: usize) -> u32 {
    debug_assert!(
        depth_max <= BUDGET_MAX as usize,
        "depth_max is cut to BUDGET_MAX"
    );
    u32::try_from(depth_max.saturating_sub(depth)).map_or(BUDGET_MAX, |b| b.min(BUDGET_MAX))
}

impl Cache {
    /// Arriving at state `key` with sleep set `Z'` (`sleep`, a mask over its enabled
    /// steps) and `remaining` steps left: what must be searched from here so that, after
    /// it, the entry's invariant holds for this visit. With the entry `(Z, b)`:
    ///
    /// - None: the state is new. Search every step not in `Z'`, as the stateless search
    ///   would; store `Z'`, with no budget until the search ends.
    /// - `b ≥ r` and `Z ⊆ Z'`: the stateless search from here would explore the suffixes
    ///   not starting in `Z'` ⊇ `Z`, of at most `r ≤ b` steps: all covered. **Pruned.**
    /// - `b ≥ r` and `Z ⊄ Z'`: only suffixes starting with a step of `Z \ Z'` are
    ///   uncovered: search just those (the sleep set starts at `Z'` and grows as usual),
    ///   then store `Z ∩ Z'` with budget `min(b, b_new)` ([`Cache::leave`]).
    /// - `b < r` (its search was cut shorter: first reached deeper, or above a violation
    ///   in `shortest` mode): search as if new, storing `Z'`.
    ///
    /// A search that starts here marks the entry *promised* until it ends; another thread
    /// that arrives meanwhile takes the promise as `b` complete (see [`Cache`]).
    pub(crate) fn visit(&self, key: u64, sleep: u64, remaining: u32) -> Visit {
        let new_search = |revisit, clean| Visit::Search {
            todo: !sleep,
            slot: CacheSlot {
                key,
                sleep,
                earlier_budget: None,
                clean: Verdicts::default(),
            },
            revisit,
            clean,
        };
        let mut entries = self.shard(key);
        let e = match entries.entry(key) {
            Entry::Vacant(v) => {
                v.insert(CacheEntry::new(sleep, BUDGET_PROMISED, Verdicts::default()));
                return new_search(false, Verdicts::default());
            }
            Entry::Occupied(o) => o.into_mut(),
        };
        let (z, mut b, clean) = (e.sleep(), e.budget(), e.clean());
        if b == BUDGET_PROMISED {
            b = BUDGET_COMPLETE; // another thread's search, still running: its promise
        }
        if b == BUDGET_NONE || b < remaining {
            *e = CacheEntry::new(sleep, BUDGET_PROMISED, clean);
            return new_search(true, clean);
        }
        let uncovered = z & !sleep;
        if uncovered == 0 {
            return Visit::Pruned {
                complete: b == BUDGET_COMPLETE,
                clean,
            };
        }
        let earlier_budget = Some(b);
        *e = CacheEntry::new(z & sleep, BUDGET_PROMISED, clean);
        Visit::Search {
            todo: uncovered,
            slot: CacheSlot {
                key,
                sleep: z & sleep,
                earlier_budget,
                clean: Verdicts::default(),
            },
            revisit: true,
            clean,
        }
    }

    /// Arriving at quiescent state `key` (no step enabled, convergence already judged):
    /// true when it was reached before, so this arrival adds nothing; else it is stored as
    /// searched in full (its only schedule suffix is the empty one).
    pub(crate) fn visit_quiescent(&self, key: u64) -> bool {
        match self.shard(key).entry(key) {
            Entry::Occupied(_) => true,
            Entry::Vacant(slot) => {
                slot.insert(CacheEntry::new(0, BUDGET_COMPLETE, Verdicts::default()));
                false
            }
        }
    }

    /// The search from the frame of `slot`, at `depth`, ended (backtrack). Its budget is
    /// unbounded when it was `complete` (nothing below cut or violating), else what
    /// `depth_max` allowed it at the end, which after a counterexample is less than the
    /// violation's distance from here: a visit closer to the root, where that violation
    /// makes a shorter counterexample, has more budget and searches again. A partial
    /// revisit covers no more than the earlier search's budget.
    pub(crate) fn leave(&self, slot: CacheSlot, complete: bool, depth_max: usize, depth: usize) {
        let budget = if complete {
            BUDGET_COMPLETE
        } else {
            steps_left(depth_max, depth)
        };
        let budget = slot.earlier_budget.map_or(budget, |b| b.min(budget));
        let mine = CacheEntry::new(slot.sleep, budget, slot.clean);
        let mut entries = self.shard(slot.key);
        let e = entries.entry(slot.key).or_insert(mine);
        let (b, clean) = (e.budget(), e.clean().with(slot.clean));
        *e = if b == BUDGET_PROMISED || b < budget {
            CacheEntry::new(slot.sleep, budget, clean)
        } else if b == budget {
            CacheEntry::new(e.sleep() & slot.sleep, budget, clean)
        } else {
            CacheEntry::new(e.sleep(), b, clean)
        };
    }

    /// Records that the verdicts `kind` were judged clean at state `key`, which a pruned
    /// visit found in the cache (an arrival that searches from the state records them
    /// when it leaves: [`CacheSlot::judged_clean`]).
    pub(crate) fn judged_clean(&self, key: u64, kind: Verdicts) {
        if let Some(e) = self.shard(key).get_mut(&key) {
            *e = CacheEntry::new(e.sleep(), e.budget(), e.clean().with(kind));
        }
    }

    /// The table holding `key`, locked. A thread that panicked while holding it left
    /// only whole entries behind (each write is one word), so its poisoning is ignored.
    fn shard(&self, key: u64) -> std::sync::MutexGuard<'_, FxHashMap<u64, CacheEntry>> {
        // Mixed first: exact keys (`--exact-keys`) are small consecutive numbers.
        let mixed = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.shard_at((mixed >> (64 - SHARDS.trailing_zeros())) as usize)
    }

    /// How many states are cached.
    pub(crate) fn len(&self) -> u64 {
        (0..SHARDS).map(|i| self.shard_at(i).len() as u64).sum()
    }

    /// Bytes of the tables, about: each slot holds a key and an entry, plus a control byte.
    pub(crate) fn bytes(&self) -> u64 {
        let slot = std::mem::size_of::<(u64, CacheEntry)>() + 1;
        (0..SHARDS)
            .map(|i| (self.shard_at(i).capacity() * slot) as u64)
            .sum()
    }

    /// The `i`-th table, locked (see [`Cache::shard`] on poisoning).
    fn shard_at(&self, i: usize) -> std::sync::MutexGuard<'_, FxHashMap<u64, CacheEntry>> {
        self.shards[i]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use crate::explore::{search, state_key, ExploreBound, ExploreReport, KeyWriter, StateCache};
    use crate::model::step::Step;
    use crate::model::world::World;
    use crate::store::{by_name, StoreKind};

    /// Every full state key reached (at every arrival), and the report.
    fn reached(store: &StoreKind, b: &ExploreBound) -> (BTreeSet<Vec<u8>>, ExploreReport) {
        let mut keys: BTreeSet<Vec<u8>> = BTreeSet::new();
        let (mut key, mut scratch) = (KeyWriter::default(), KeyWriter::default());
        let report = search(
            store,
            b,
            &mut |_| {},
            Some(&mut |w: &World, _: &[Step]| {
                assert!(state_key(w, &mut key, &mut scratch));
                keys.insert(key.bytes.clone());
            }),
        );
        (keys, report)
    }

    /// Small bounds for the cross-checks: (store, sends, one sender, deltas, window,
    /// tool calls, status on connect).
    const CROSS_CHECK_BOUNDS: &[(&str, u8, bool, u8, u8, u8, bool)] = &[
        ("durable", 1, true, 1, 1, 0, true),
        ("durable", 1, true, 1, 1, 0, false),
        ("durable", 1, true, 0, 1, 1, true),
        ("current", 1, true, 1, 1, 0, true),
        ("current", 1, true, 0, 2, 0, true),
        ("current", 1, true, 0, 1, 1, true),
        ("naive", 1, true, 1, 1, 0, true),
        ("naive", 2, true, 0, 1, 0, true),
        ("canary", 1, true, 1, 1, 0, false),
        ("canary", 2, true, 0, 1, 0, true),
        ("membership", 1, true, 0, 1, 0, true),
        ("fix-abc", 1, true, 0, 1, 0, true),
    ];

    fn cross_check_bound(
        (_, sends, one_sender, deltas, window, tool_calls, status): (
            &str,
            u8,
            bool,
            u8,
            u8,
            u8,
            bool,
        ),
    ) -> ExploreBound {
        let mut b = ExploreBound::small(2, sends);
        b.world.passive_observer = one_sender;
        b.world.deltas_per_segment_max = deltas;
        b.world.ws_reorder_window = window;
        b.world.tool_calls_per_turn_max = tool_calls;
        b.world.status_on_connect = status;
        b
    }

    /// The cache is sound: on every small bound, the search with the cache reaches exactly
    /// the full states the stateless search reaches and gives the same verdict (the same
    /// invariant, the same shortest counterexample length, and with `--first` the very
    /// same counterexample, since a pruned subtree never holds a violation).
    #[test]
    fn state_cache_reaches_the_same_states_and_verdicts_as_the_stateless_search() {
        for &case in CROSS_CHECK_BOUNDS {
            let store = by_name(case.0).unwrap();
            let b = cross_check_bound(case);
            for shortest in [true, false] {
                let mut off = b.clone();
                off.shortest = shortest;
                let mut on = off.clone();
                on.reductions.state_cache = true;
                let (keys_off, r_off) = reached(&store, &off);
                let (keys_on, r_on) = reached(&store, &on);
                let what = format!("{} shortest={shortest} {}", case.0, off.describe());
                assert_eq!(r_on.state_cache, StateCache::On);
                assert_eq!(r_off.verified(), r_on.verified(), "{what}");
                let verdict = |r: &ExploreReport| {
                    r.counterexample
                        .as_ref()
                        .map(|c| (c.violation.invariant, c.steps.len()))
                };
                assert_eq!(verdict(&r_off), verdict(&r_on), "{what}");
                if shortest {
                    assert_eq!(keys_off, keys_on, "{what}: reached states differ");
                    // With the cache the report counts full states, not observable ones.
                    assert_eq!(r_on.distinct_states, r_on.distinct_full_states, "{what}");
                } else {
                    assert_eq!(r_off.counterexample, r_on.counterexample, "{what}");
                    assert!(keys_on.is_subset(&keys_off), "{what}");
                }
                if r_on.verified() {
                    // Every reached state that is not quiescent was searched from, once.
                    assert!(r_on.states_cached <= keys_on.len() as u64, "{what}");
                    assert!(r_on.revisits_pruned > 0, "{what}: nothing merged");
                    assert!(r_on.steps_applied < r_off.steps_applied, "{what}");
                }
            }
        }
        // Plain enumeration with the cache reaches the same states as with sleep sets.
        let store = by_name("durable").unwrap();
        let mut b = cross_check_bound(CROSS_CHECK_BOUNDS[0]);
        let (reduced, _) = reached(&store, &b);
        b.reductions.sleep_sets = false;
        b.reductions.state_cache = true;
        let (plain_cached, r) = reached(&store, &b);
        assert!(r.verified());
        assert_eq!(reduced, plain_cached);
    }

    /// The verdicts judged clean at a state are kept through every later write of its
    /// entry (a revisit, a promise, another search's claim) and given at every visit; a
    /// kind never recorded is never reported clean.
    #[test]
    fn verdicts_judged_clean_stay_with_the_state() {
        use super::{Cache, Visit, BUDGET_MAX};
        use crate::explore::state::slot::Verdicts;
        let cache = Cache::default();
        let (key, remaining) = (42, 10);
        let Visit::Search {
            mut slot, clean, ..
        } = cache.visit(key, 0b01, remaining)
        else {
            panic!("a new state is searched")
        };
        assert_eq!(clean, Verdicts::default());
        slot.judged_clean(Verdicts::AFTER_STEP);
        cache.leave(slot, true, BUDGET_MAX as usize, 0);
        // Pruned: everything covered, and the verdict after a step known clean.
        let Visit::Pruned { complete, clean } = cache.visit(key, 0b01, remaining) else {
            panic!("covered")
        };
        assert!(complete && clean.cover(Verdicts::AFTER_STEP));
        assert!(!clean.cover(Verdicts::AFTER_FETCH));
        cache.judged_clean(key, Verdicts::AFTER_FETCH);
        // A partial revisit (a smaller sleep set) rewrites the entry: both kept.
        let Visit::Search { slot, clean, .. } = cache.visit(key, 0b00, remaining) else {
            panic!("the step asleep before is searched now")
        };
        assert!(clean.cover(Verdicts::AFTER_STEP) && clean.cover(Verdicts::AFTER_FETCH));
        cache.leave(slot, false, 5, 0);
        let Visit::Search { clean, .. } = cache.visit(key, 0b00, BUDGET_MAX) else {
            panic!("a cut search covers less than this budget")
        };
        assert!(clean.cover(Verdicts::AFTER_STEP) && clean.cover(Verdicts::AFTER_FETCH));
        // Another state knows nothing.
        let Visit::Search { clean, .. } = cache.visit(7, 0, remaining) else {
            panic!("new")
        };
        assert_eq!(clean, Verdicts::default());
    }
}
