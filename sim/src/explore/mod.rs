//! `explore`: bounded exhaustive search of every schedule of a small world, with sleep-set
//! partial-order reduction (Godefroid, "Partial-Order Methods for the Verification of
//! Concurrent Systems", 1996; the idea behind loom's and shuttle's DFS pruning) and, when
//! every store can expose its state, state caching.
//!
//! The search space: from the initial world, every enabled step, recursively, until no step
//! is enabled (the world is quiescent, so the runner's drain would be empty) and then the
//! convergence check. A schedule ends early at its first violation. `depth_max` bounds the
//! length of a schedule (a schedule cut there is counted as truncated, and the result is
//! not a verification).
//!
//! The search is depth-first, like shuttle's DFS scheduler (or breadth-first on several
//! threads, [`engine::bfs`]); by default one tab is judged at a time with the other tabs
//! reduced to their POSTs, one tab per class of interchangeable tabs
//! ([`reduction::scope`]), with persistent sets, and states are named by 64-bit
//! fingerprints of the exact key (the argument below holds for exact keys; with
//! fingerprints it holds unless two of the `n` states collide, at most `n²/2⁶⁵`, see
//! `visited.rs`). `docs/model.md` ("Explore: reductions and their soundness") sums up every
//! reduction's argument. The rooms (no file uses one that uses it back, directly or not: a
//! test below checks it):
//!
//! - this file: the public API and [`explore`], a short pipeline of passes;
//!   `passes.rs`: the passes (per tab, fallbacks, the shortest-length check).
//! - `engine/`: the two engines, `dfs.rs` (the search loop: take the next step from the
//!   state on top of the stack, judge it, then go deeper, back, or stop) and `bfs.rs`.
//! - `shard.rs`: the work units a shard or a thread takes; `merge.rs`: result files and
//!   their merge.
//! - `reduction/`: `scope.rs` (the per-tab abstraction, symmetry, persistent sets, inert
//!   POST responses) and `independence.rs` (which steps commute, [`independent`], the
//!   relation the sleep sets rest on).
//! - `state/`: `frame.rs` (the stack of states on the current path with their sleep sets,
//!   and how the search comes back to a state after a backtrack: from a copy of the world
//!   taken there, [`World::try_clone`], when every store can copy itself
//!   ([`crate::model::store::Store::clone_box`]), else by replaying the path from the
//!   start; either way the same states are reached); `cache.rs` (the state cache, its one
//!   decision per arrival, `Cache::visit`, and what a backtrack writes back,
//!   `Cache::leave`); `slot.rs` (what a frame holds of the cache); `visited.rs` (the
//!   breadth-first visited set); `fingerprint.rs` (the full-state and the observable
//!   fingerprints); `key.rs` (exact state keys, [`state_key`], hash-consed as `StateIds`);
//!   `view.rs` (how much of a tab a key holds, where the scope and the keys meet).
//! - `report.rs`: what a search found; `bound.rs`: what it searches (the world, the
//!   reductions, the limits, the parallelism); `limits.rs`: `--max-states`,
//!   `--max-memory`, `--time`.
//!
//! # State caching, and why it is sound with sleep sets
//!
//! **Equal keys, equal futures.** A render does not capture a store's internal state
//! (pending reconciles, in-flight fetches, queued ids), so states are never merged by
//! render: [`observable_fingerprint`] (the observable state) is a statistic only. Merging uses the
//! **full state key** ([`state_key`]): the world's own state ([`World::hash_shared_state`],
//! [`World::hash_client_state`]: backend, every client's queues, user budgets and the
//! ground-truth facts the oracle reads) and every store's complete internal state
//! ([`crate::model::store::Store::hash_state`]). The key is exact, not a hash: the bytes
//! the state's `Hash` implementations feed, recorded verbatim (`Hash` streams are
//! injective), so two states share a key only if they are equal, and no collision bound
//! is needed. Hash-consing the keys to keep millions in memory (`StateIds`) keeps them
//! exact. Equal states have the same enabled steps, the same effects, the same oracle
//! verdicts. A store that cannot expose its state (`hash_state` returns false, e.g. an
//! exec store) turns caching off for the whole search ([`StateCache::Unsupported`]),
//! which is then the stateless search.
//!
//! **Pruning that respects sleep sets.** Plain "seen, so prune" is unsound together with
//! sleep sets (a state first explored with a large sleep set skipped steps a later visit
//! with a smaller sleep set must take). The cache therefore follows Godefroid (1996), ch.
//! 6, "state-space caching and sleep sets", extended with a depth budget. For each state
//! `s` it stores `(Z, b)`: the sleep set `s` was explored with and the budget `b` of that
//! exploration (how many further steps it was allowed; unbounded when nothing below `s`
//! was cut at `depth_max` or ended in a violation). Invariant: *every schedule suffix from
//! `s` of at most `b` steps whose first step is not in `Z` is covered* (explored, or
//! equivalent by commuting independent steps to an explored one, which is what a sleep
//! set guarantees), with every violation on it recorded. Because the key determines the
//! future, "covered from `s`" does not depend on the path that reached `s`. Reaching `s`
//! again with sleep set `Z'` and `r` steps left, the stateless search would explore the
//! suffixes of at most `r` steps not starting in `Z'`; so (`Cache::visit`):
//!
//! - `b ≥ r` and `Z ⊆ Z'`: all covered. **Pruned.**
//! - `b ≥ r` and `Z ⊄ Z'`: only suffixes starting with a step of `Z \ Z'` are uncovered:
//!   explore just those, then store `Z ∩ Z'` with budget `min(b, b_new)`.
//! - `b < r` (first reached deeper, so its exploration was cut shorter) or `s` is still
//!   being explored: explored as if new, storing `Z'`.
//!
//! **What the cache never skips.** The oracle's step check depends on the step as well as
//! the state, so it runs on every arrival, before the cache is consulted: the cache only
//! ever skips steps *out of* a state already searched. In `shortest` mode `depth_max`
//! shrinks after each counterexample; a violation below `s` makes `b` finite (`depth_max −
//! depth` at the end of `s`'s exploration, smaller than the violation's distance from `s`),
//! so when `s` is reached again closer to the root, where that violation would make a
//! shorter counterexample, `b < r` and `s` is searched again. Truncation works the same
//! way: a state cut at `depth_max` never counts as fully explored for a visit with more
//! budget.

pub mod bound;
pub mod engine;
mod limits;
pub mod merge;
mod passes;
pub mod reduction;
pub mod report;
pub mod shard;
pub mod state;

use crate::model::store::StoreFactory;
#[cfg(doc)]
use crate::model::world::World;

pub use bound::{
    world_refusal, Engine, ExploreBound, OneThreadOnly, Parallelism, Reductions, Refused, JOBS_MAX,
};
pub use limits::{resident_bytes, Limits, TimeLimit};
pub use merge::{
    merge_explore_results, ExploreConfig, ExploreOutcome, ExploreResult, ShardsHeld, FORMAT,
    FORMAT_VERSION, KIND,
};
pub use reduction::independence::independent;
pub use report::{Counterexample, Covered, ExploreReport, SearchProgress, StateCache};
pub use shard::Shard;
pub use state::fingerprint::observable_fingerprint;
pub use state::key::{state_key, KeyWriter};
pub use state::visited::collision_bound;

/// Search every schedule within `bound`: what the CLI's `explore` and `bench` report, a
/// verification of the bound or its shortest counterexample. `progress` is called every
/// few thousand schedules (depth-first) or a few times a second (breadth-first), for a bar.
///
/// With [`Reductions::per_tab`], each tab to search ([`reduction::scope::tabs_to_search`])
/// gets a search of its own, one after the other, and the report adds them up: the counts
/// are sums, the counterexample is the shortest (the first tab's on a tie). If a store
/// breaks the per-tab premise, the whole world is searched instead and the report says why.
///
/// With [`Reductions::backend_first`], a search that meets a violation runs again without
/// it, so that the counterexample is the shortest (see
/// [`reduction::scope::Scope::persistent_set`]); `backend_first_found` keeps the length
/// the first search met. The passes are in `passes.rs`.
pub fn explore(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    progress: &mut dyn FnMut(SearchProgress),
) -> ExploreReport {
    let mut passes = passes::Passes::new(stores, bound, progress);
    let asked = bound.reductions;
    let report = passes.reduced(asked);
    let Some(found) = passes.met_with_backend_first(asked, &report) else {
        return report;
    };
    let without = Reductions {
        backend_first: false,
        ..asked
    };
    let mut report = passes.reduced(without);
    report.backend_first_found = Some(found);
    report
}

/// The depth-first search of the whole world, calling `on_arrival` at every arrival (tests).
#[cfg(test)]
fn search(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    progress: &mut dyn FnMut(SearchProgress),
    on_arrival: Option<engine::dfs::ArrivalHook<'_>>,
) -> ExploreReport {
    engine::dfs::search(
        stores,
        bound,
        reduction::scope::Scope::Whole,
        progress,
        on_arrival,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Invariant;
    use crate::store::by_name;

    /// The files of `explore/` and the files each one's code (before its tests, comments
    /// aside) names through `super::`, `self::` or `crate::explore::` paths, by module path.
    fn file_uses() -> std::collections::BTreeMap<Vec<String>, Vec<Vec<String>>> {
        fn walk(dir: &std::path::Path, at: Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                let name = p.file_stem().unwrap().to_string_lossy().to_string();
                let mut here = at.clone();
                if p.is_dir() {
                    here.push(name);
                    walk(&p, here, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    if name != "mod" {
                        here.push(name);
                    }
                    let text = std::fs::read_to_string(&p).unwrap();
                    let code = text.split("#[cfg(test)]").next().unwrap_or("");
                    let code: Vec<&str> = code
                        .lines()
                        .filter(|l| !l.trim_start().starts_with("//"))
                        .collect();
                    if !text.contains("#![cfg(test)]") {
                        out.push((here, code.join("\n")));
                    }
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/explore");
        let mut files = Vec::new();
        walk(&root, Vec::new(), &mut files);
        let modules: Vec<Vec<String>> = files.iter().map(|(m, _)| m.clone()).collect();
        let mut uses = std::collections::BTreeMap::new();
        for (me, code) in &files {
            let mut found = Vec::new();
            for (prefix, start) in [
                ("crate::explore::", Vec::new()),
                ("super::", me[..me.len().saturating_sub(1)].to_vec()),
                ("self::", me.clone()),
            ] {
                for (i, _) in code.match_indices(prefix) {
                    let rest = &code[i + prefix.len()..];
                    let mut path = start.clone();
                    path.extend(
                        rest.split("::")
                            .map(|s| {
                                s.chars()
                                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                            })
                            .map(String::from_iter)
                            .take_while(|s| !s.is_empty()),
                    );
                    let file = (1..=path.len())
                        .rev()
                        .map(|k| path[..k].to_vec())
                        .find(|p| modules.contains(p) && p != me);
                    found.extend(file);
                }
            }
            found.sort();
            found.dedup();
            uses.insert(me.clone(), found);
        }
        uses
    }

    /// No circle of files inside `explore/`: every file can be read knowing only the files
    /// it uses, which never lead back to it.
    #[test]
    fn the_files_of_explore_use_each_other_without_a_circle() {
        let uses = file_uses();
        assert!(uses.len() > 15, "{uses:?}");
        assert!(uses[&vec!["engine".to_string(), "dfs".to_string()]].len() > 5);
        // Kahn: repeatedly drop the files that use no remaining file.
        let mut left = uses.clone();
        while !left.is_empty() {
            let free: Vec<_> = left
                .iter()
                .filter(|(_, u)| u.iter().all(|f| !left.contains_key(f)))
                .map(|(f, _)| f.clone())
                .collect();
            assert!(!free.is_empty(), "a circle among {:?}", left);
            for f in free {
                left.remove(&f);
            }
        }
    }

    /// A report names every option that changes what a bound verifies: a bound on
    /// overtaking and colliding texts appear when set (and only then, so the lines of
    /// every other bound read as before).
    #[test]
    fn the_bound_line_names_overtaking_and_colliding_texts_when_set() {
        let mut b = ExploreBound::small(2, 1);
        let plain = b.describe();
        assert!(
            !plain.contains("overtakes") && !plain.contains("message_texts"),
            "{plain}"
        );
        b.world.ws_reorder_window = 2;
        b.world.ws_overtakes_max = Some(1);
        b.world.message_texts = crate::model::content::MessageTexts::Colliding;
        let line = b.describe();
        assert!(
            line.contains(" window=2 overtakes=1 status_on_connect=true message_texts=colliding depth_max=200"),
            "{line}"
        );
    }

    /// Two tabs, nobody sends, each scrolls up and down once; `status_on_connect` puts
    /// one `status idle` in each inbox. Per client the three steps (deliver, up, down)
    /// have 3 orders (the delivery goes before, between or after the scrolls) and the
    /// two clients' 3-step sequences interleave in C(6,3) = 20 ways: 3·3·20 = 180
    /// schedules. Steps of different clients commute, so the reduced search runs one
    /// schedule per pair of per-client orders: 3·3 = 9.
    fn scroll_only() -> ExploreBound {
        let mut b = ExploreBound::small(2, 0);
        b.world.scrolls_per_client = 1;
        b
    }

    #[test]
    fn tiny_bound_schedule_counts_match_hand_computed_numbers() {
        let store = by_name("current").unwrap();
        let mut plain = scroll_only();
        plain.reductions.sleep_sets = false;
        let p = explore(&store, &plain, &mut |_| {});
        assert_eq!(p.state_cache, StateCache::Off);
        assert_eq!(p.schedules, 180);
        assert!(p.verified());
        let r = explore(&store, &scroll_only(), &mut |_| {});
        assert_eq!(r.schedules, 9);
        assert!(r.verified());
        // Same states either way: the reduction drops schedules, not states.
        assert_eq!(p.distinct_states, r.distinct_states);
        // With the cache, each full state is searched once: per client the store ends in
        // the same state whatever the order of its three steps, so the 3·3 reduced
        // schedules end in one quiescent state (one schedule) and the rest are revisits.
        for mut b in [plain, scroll_only()] {
            b.reductions.state_cache = true;
            let c = explore(&store, &b, &mut |_| {});
            assert_eq!(c.state_cache, StateCache::On);
            assert!(c.verified());
            assert_eq!(c.schedules, 1);
            assert!(c.revisits_pruned > 0);
            assert_eq!(c.distinct_states, r.distinct_states);
        }
    }

    /// A store that keeps its state to itself (like an exec store): `hash_state` is the
    /// trait's default.
    struct Opaque(Box<dyn crate::model::store::Store>);
    impl crate::model::store::Store for Opaque {
        fn handle(&mut self, input: &crate::model::wire::Input) -> crate::model::store::Answer {
            self.0.handle(input)
        }
        fn render(&self) -> &[crate::model::wire::RenderRow] {
            self.0.render()
        }
    }
    struct OpaqueFactory;
    impl StoreFactory for OpaqueFactory {
        fn name(&self) -> String {
            "opaque-current".into()
        }
        fn make(&self, c: crate::model::wire::ClientId) -> Box<dyn crate::model::store::Store> {
            Box::new(Opaque(by_name("current").unwrap().make(c)))
        }
    }

    #[test]
    fn a_store_that_cannot_expose_its_state_gets_the_stateless_search() {
        let mut b = ExploreBound::small(2, 1);
        b.world.passive_observer = true;
        let stateless = explore(&OpaqueFactory, &b, &mut |_| {});
        b.reductions.state_cache = true;
        let asked = explore(&OpaqueFactory, &b, &mut |_| {});
        assert_eq!(asked.state_cache, StateCache::Unsupported);
        assert_eq!(asked.states_cached, 0);
        assert_eq!(
            ExploreReport {
                state_cache: StateCache::Off,
                ..asked
            },
            stateless
        );
        // The same store, able to say its state, is searched with the cache.
        let cached = explore(&by_name("current").unwrap(), &b, &mut |_| {});
        assert_eq!(cached.state_cache, StateCache::On);
    }

    #[test]
    fn explore_finds_the_note_bugs_in_small_bounds_and_verifies_durable() {
        // (store, sends per client, scrolls, expected invariant of the shortest failure)
        let cases = [
            // A stale fetch response overwrites a newer one: none of the note's stores
            // guard against it (inv3 on the observer tab).
            ("naive", 2, 0, Invariant::NewerTurnPreserved),
            ("current", 2, 0, Invariant::NewerTurnPreserved),
            ("membership", 2, 0, Invariant::NewerTurnPreserved),
            ("canary", 1, 0, Invariant::NoDuplicate),
        ];
        for (name, sends, scrolls, inv) in cases {
            let store = by_name(name).unwrap();
            let mut b = ExploreBound::small(2, sends);
            b.world.passive_observer = true;
            b.world.scrolls_per_client = scrolls;
            b.shortest = false;
            let r = explore(&store, &b, &mut |_| {});
            let c = r
                .counterexample
                .unwrap_or_else(|| panic!("{name} not caught"));
            assert_eq!(c.violation.invariant, inv, "{name}");
            // The counterexample replays to the same violation.
            let replayed = crate::run::replay(&store, b.world.clone(), &c.steps);
            assert!(matches!(replayed.outcome, crate::run::Outcome::Fail(_)));
        }
        let store = by_name("durable").unwrap();
        let mut b = ExploreBound::small(2, 1);
        b.world.passive_observer = true;
        let r = explore(&store, &b, &mut |_| {});
        assert!(r.verified(), "{:?}", r.counterexample);
    }
}

#[cfg(test)]
mod soundness_tests;
