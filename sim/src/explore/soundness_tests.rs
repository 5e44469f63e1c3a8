#![cfg(test)]

//! The reductions against the search they replace: on bounds small enough for the
//! whole-world search (depth-first, sleep sets, exact-key cache; itself checked against the
//! stateless search in `cache.rs`), every reduced search must give the same verdict and, for
//! every shipped buggy store, a counterexample of the same shortest length that replays as
//! a real failure. The breadth-first search must give the same report on one thread and on
//! several; the depth-first search on two threads, the same verdict and counterexample.

use crate::explore::{explore, Engine, ExploreBound, ExploreReport};
use crate::oracle::Invariant;
use crate::store::by_name;
use std::collections::BTreeMap;

/// The buggy stores and the reference.
const STORES: [&str; 8] = [
    "naive",
    "fix-a",
    "fix-ab",
    "fix-abc",
    "current",
    "membership",
    "canary",
    "durable",
];

/// Small bounds: (sends per client, one sender, deltas, scrolls, window).
const BOUNDS: [(u8, bool, u8, u8, u8); 4] = [
    (1, true, 1, 0, 1),
    (1, false, 0, 0, 1),
    (2, true, 0, 0, 1),
    (1, true, 0, 1, 2),
];

/// The small bounds, and the last of them again with at most one event overtaking any
/// one (`--overtakes 1`: after a reordering the tab's set applies with a single event in
/// the inbox, see `World::deliveries_closed`).
fn small_bounds() -> Vec<ExploreBound> {
    let mut bounds = BOUNDS.map(bound).to_vec();
    let mut overtaking = bound(BOUNDS[3]);
    overtaking.world.ws_overtakes_max = Some(1);
    bounds.push(overtaking);
    bounds
}

fn bound((sends, one_sender, deltas, scrolls, window): (u8, bool, u8, u8, u8)) -> ExploreBound {
    let mut b = ExploreBound::small(2, sends);
    b.world.passive_observer = one_sender;
    b.world.deltas_per_segment_max = deltas;
    b.world.scrolls_per_client = scrolls;
    b.world.ws_reorder_window = window;
    b.reductions.state_cache = true;
    b
}

/// The reduced searches of `b`: per tab with symmetry, depth-first and breadth-first
/// (with and without persistent sets and backend-first sets, on one and two threads).
/// A search with backend-first sets is named as its twin without them, plus
/// " backend-first", and comes after it.
fn reduced(b: &ExploreBound) -> Vec<(String, ExploreBound)> {
    let mut r = b.clone();
    r.reductions.per_tab = true;
    r.reductions.symmetry = true;
    let mut out = per_tab_depth_first(&r);
    let mut w = b.clone();
    w.parallelism.jobs = 2;
    out.push(("whole-world depth-first jobs=2".to_string(), w));
    let mut x = b.clone();
    x.reductions.exact_keys = true;
    out.push(("whole-world depth-first exact keys".to_string(), x));
    for (persistent, backend_first, sets) in [
        (false, false, ""),
        (true, false, " persistent"),
        (true, true, " persistent backend-first"),
    ] {
        for jobs in [1, 2] {
            let mut x = r.clone();
            x.parallelism.engine = Engine::BreadthFirst { jobs };
            x.reductions.persistent = persistent;
            x.reductions.backend_first = backend_first;
            out.push((format!("per-tab breadth-first{sets} jobs={jobs}"), x));
        }
    }
    if b.world.passive_observer && b.world.ws_reorder_window == 1 && b.world.sends_per_client == 1 {
        // The whole world breadth-first too, on the smallest bound (seconds on the others).
        let mut w = b.clone();
        w.parallelism.engine = Engine::BreadthFirst { jobs: 2 };
        out.push(("whole-world breadth-first".to_string(), w));
    }
    out
}

/// Turns one reduction on.
type Reduction = fn(&mut ExploreBound);

/// The per-tab depth-first searches of `r`: plain, then with persistent sets, inert POST
/// responses and backend-first sets added one after the other, each on one thread and on
/// two.
fn per_tab_depth_first(r: &ExploreBound) -> Vec<(String, ExploreBound)> {
    let mut out = vec![("per-tab depth-first".to_string(), r.clone())];
    let added: [(&str, Reduction); 3] = [
        (" persistent", |x| x.reductions.persistent = true),
        (" inert", |x| x.reductions.inert_post_responses = true),
        (" backend-first", |x| x.reductions.backend_first = true),
    ];
    let (mut name, mut x) = ("per-tab depth-first".to_string(), r.clone());
    for (suffix, add) in added {
        add(&mut x);
        name.push_str(suffix);
        x.parallelism.jobs = 1;
        out.push((name.clone(), x.clone()));
        x.parallelism.jobs = 2;
        out.push((format!("{name} jobs=2"), x.clone()));
    }
    out
}

fn verdict(r: &ExploreReport) -> Option<(usize, Invariant)> {
    r.counterexample
        .as_ref()
        .map(|c| (c.steps.len(), c.violation.invariant))
}

#[test]
fn every_reduction_keeps_the_verdict_and_the_shortest_counterexample() {
    let mut caught = 0;
    let mut pruned = 0;
    for name in STORES {
        let store = by_name(name).unwrap();
        for b in small_bounds() {
            let base = explore(&store, &b, &mut |_| {});
            assert!(base.truncated == 0 && base.limit_hit.is_none());
            let mut bfs_reports: Vec<ExploreReport> = Vec::new();
            let mut reports: BTreeMap<String, ExploreReport> = BTreeMap::new();
            for (short, rb) in reduced(&b) {
                let what = format!("{name} {} {short}", b.describe());
                let r = explore(&store, &rb, &mut |_| {});
                // The depth-first search on two threads: the one-thread counterexample,
                // step for step (its verdict is checked below with every other search's).
                if short == "per-tab depth-first persistent jobs=2" {
                    let one = &reports["per-tab depth-first persistent"];
                    assert_eq!(
                        r.counterexample, one.counterexample,
                        "{what}: jobs changed the counterexample"
                    );
                }
                if rb.reductions.backend_first {
                    let twin = &reports[&short.replacen(" backend-first", "", 1)];
                    pruned += usize::from(backend_first_pruned(&r, twin, &base, &what));
                }
                agrees_with_the_plain_search(&store, &b, &base, &rb, &r, &what);
                if matches!(rb.parallelism.engine, Engine::BreadthFirst { .. })
                    && rb.reductions.per_tab
                {
                    bfs_reports.push(r.clone());
                }
                reports.insert(short, r);
            }
            // One thread or two: the same report, counterexample included.
            for pair in bfs_reports.chunks(2) {
                if let [one, two] = pair {
                    let strip = |r: &ExploreReport| ExploreReport {
                        engine: Engine::DepthFirst,
                        ..r.clone()
                    };
                    assert_eq!(strip(one), strip(two), "{name}: jobs changed the result");
                }
            }
            caught += usize::from(base.counterexample.is_some());
        }
    }
    // The test can fail: most (store, bound) pairs have a violation to find.
    assert!(caught >= 14, "only {caught} counterexamples");
    // Backend-first sets prune something on the verified bounds (else the checks above
    // would pass without them doing anything).
    assert!(
        pruned >= 2,
        "backend-first sets pruned on only {pruned} verified searches"
    );
}

/// A reduced search's report `r` (of bound `rb`) against the plain search's `base`: no
/// premise refused, the same verdict, and a counterexample that replays as a real failure
/// and is as short as the shortest.
fn agrees_with_the_plain_search(
    store: &dyn crate::model::store::StoreFactory,
    b: &ExploreBound,
    base: &ExploreReport,
    rb: &ExploreBound,
    r: &ExploreReport,
    what: &str,
) {
    assert_eq!(r.per_tab_refused, None, "{what}");
    assert_eq!(r.post_responses_refused, None, "{what}");
    if rb.reductions.inert_post_responses {
        assert!(r.scope.ends_with("POST responses inert"), "{what}");
    }
    assert_eq!(r.verified(), base.verified(), "{what}");
    let Some(c) = &r.counterexample else { return };
    // A real counterexample: it replays, in the real world, to a failure.
    let replayed = crate::run::replay(store, b.world.clone(), &c.steps);
    assert!(
        matches!(replayed.outcome, crate::run::Outcome::Fail(_)),
        "{what}: does not replay"
    );
    // As short as the shortest (a per-tab convergence violation is made so by
    // `shortest_check`, see `a_convergence_failure_gets_the_shortest_length_too`).
    assert_eq!(
        verdict(r),
        verdict(base),
        "{what}: {:?} vs {:?}",
        verdict(r),
        verdict(base)
    );
}

/// A search with backend-first sets (`r`) met a violation exactly when there is one (the
/// plain search's `base`), never a shorter one than the shortest; its report is then the
/// search's without them (checked like every other). True when it verified the bound in
/// fewer states than its `twin` without them.
fn backend_first_pruned(
    r: &ExploreReport,
    twin: &ExploreReport,
    base: &ExploreReport,
    what: &str,
) -> bool {
    let found = r.backend_first_found;
    let shortest = base.counterexample.as_ref().map(|c| c.steps.len());
    assert_eq!(found.is_some(), shortest.is_some(), "{what}");
    assert!(found >= shortest, "{what}: {found:?} < {shortest:?}");
    r.verified() && r.distinct_full_states < twin.distinct_full_states
}

/// The breadth-first search on several threads gives the same report as on one, also on
/// verified bounds (the counts are a property of the bound, not of the schedule of work).
#[test]
fn breadth_first_is_the_same_on_any_number_of_threads() {
    let store = by_name("durable").unwrap();
    let mut b = bound((1, false, 1, 0, 1));
    b.reductions.per_tab = true;
    b.reductions.symmetry = true;
    b.reductions.persistent = true;
    let runs: Vec<ExploreReport> = [1, 2, 3]
        .into_iter()
        .map(|jobs| {
            b.parallelism.engine = Engine::BreadthFirst { jobs };
            let r = explore(&store, &b, &mut |_| {});
            ExploreReport {
                engine: Engine::DepthFirst,
                ..r
            }
        })
        .collect();
    assert!(runs[0].verified());
    assert!(runs[0].distinct_full_states > 1000);
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[0], runs[2]);
}

/// A store that breaks the per-tab premise (it POSTs a message twice) is searched in the
/// whole world instead, and the report says why.
#[test]
fn a_store_that_posts_twice_is_searched_whole() {
    use crate::model::store::{Answer, Store, StoreFactory};
    use crate::model::wire::{ClientId, Effect, Input, RenderRow};
    struct Twice(Box<dyn Store>);
    impl Store for Twice {
        fn handle(&mut self, input: &Input) -> Answer {
            let mut effects = self.0.handle(input)?;
            if let Some(p @ Effect::Post { .. }) = effects.first().cloned() {
                effects.push(p);
            }
            Ok(effects)
        }
        fn render(&self) -> &[RenderRow] {
            self.0.render()
        }
        fn hash_state(&self, state: &mut dyn std::hash::Hasher) -> bool {
            self.0.hash_state(state)
        }
        fn clone_box(&self) -> Option<Box<dyn Store>> {
            Some(Box::new(Twice(self.0.clone_box()?)))
        }
    }
    struct TwiceKind;
    impl StoreFactory for TwiceKind {
        fn name(&self) -> String {
            "durable-posts-twice".into()
        }
        fn make(&self, c: ClientId) -> Box<dyn Store> {
            Box::new(Twice(by_name("durable").unwrap().make(c)))
        }
    }
    let mut b = bound((1, true, 0, 0, 1));
    b.reductions.per_tab = true;
    b.reductions.symmetry = true;
    for engine in [Engine::DepthFirst, Engine::BreadthFirst { jobs: 2 }] {
        b.parallelism.engine = engine;
        let r = explore(&TwiceKind, &b, &mut |_| {});
        assert!(r.per_tab_refused.is_some(), "{engine:?}");
        assert_eq!(r.scope, "whole world");
    }
}

/// A store that reads its POST responses breaks H2: the search with inert responses finds
/// out, says why, and searches again with them delivered, where the bug (a crash on the
/// second response) is found. Were H2 assumed instead of checked, the responses would
/// never reach the store and the bound would pass as verified.
#[test]
fn a_store_that_reads_post_responses_gets_them_delivered() {
    use crate::model::store::{Answer, Store, StoreFactory};
    use crate::model::wire::{ClientId, Input, RenderRow};
    struct Counting(Box<dyn Store>, u8);
    impl Store for Counting {
        fn handle(&mut self, input: &Input) -> Answer {
            if let Input::PostResponse { .. } = input {
                self.1 += 1;
                assert!(self.1 < 2, "a second POST response");
            }
            self.0.handle(input)
        }
        fn render(&self) -> &[RenderRow] {
            self.0.render()
        }
        fn hash_state(&self, state: &mut dyn std::hash::Hasher) -> bool {
            state.write_u8(self.1);
            self.0.hash_state(state)
        }
        fn clone_box(&self) -> Option<Box<dyn Store>> {
            Some(Box::new(Counting(self.0.clone_box()?, self.1)))
        }
    }
    struct CountingKind;
    impl StoreFactory for CountingKind {
        fn name(&self) -> String {
            "durable-counting-post-responses".into()
        }
        fn make(&self, c: ClientId) -> Box<dyn Store> {
            Box::new(Counting(by_name("durable").unwrap().make(c), 0))
        }
    }
    let mut b = bound((2, true, 0, 0, 1));
    b.reductions.per_tab = true;
    b.reductions.symmetry = true;
    b.reductions.persistent = true;
    let delivered = explore(&CountingKind, &b, &mut |_| {});
    let crash = verdict(&delivered);
    assert!(matches!(crash, Some((_, Invariant::Crash))), "{crash:?}");
    assert_eq!(delivered.post_responses_refused, None);
    b.reductions.inert_post_responses = true;
    let r = explore(&CountingKind, &b, &mut |_| {});
    let why = r
        .post_responses_refused
        .as_deref()
        .expect("H2 breach noticed");
    assert!(why.contains("changed the store's state"), "{why}");
    assert_eq!(verdict(&r), crash);
    assert!(!r.scope.contains("inert"), "{}", r.scope);
    // The shipped stores ignore them: the reduction applies.
    let r = explore(&by_name("durable").unwrap(), &b, &mut |_| {});
    assert_eq!(r.post_responses_refused, None);
    assert!(
        r.scope.ends_with("its own POST responses inert"),
        "{}",
        r.scope
    );
}

/// `--max-states`: a search stopped by a limit is never a verification.
#[test]
fn a_limit_hit_is_inconclusive() {
    let store = by_name("durable").unwrap();
    let mut b = bound((1, false, 1, 0, 1));
    b.limits.max_states = Some(50);
    for engine in [Engine::DepthFirst, Engine::BreadthFirst { jobs: 2 }] {
        b.parallelism.engine = engine;
        let r = explore(&store, &b, &mut |_| {});
        assert!(!r.verified(), "{engine:?}");
        assert!(
            r.limit_hit
                .as_deref()
                .is_some_and(|l| l.starts_with("--max-states 50 ")),
            "{:?}",
            r.limit_hit
        );
    }
}

/// `--max-states` stops the one-thread depth-first search at the state that passes it,
/// whatever the machine's speed: the count is checked after every step, not at the
/// progress tick, so two runs report the same counts and the stop is exact (one state
/// past the limit: the state that passed it). Checked on the full search and per tab,
/// with and without the state cache.
#[test]
fn max_states_stops_the_one_thread_search_at_the_same_state_every_run() {
    let store = by_name("durable").unwrap();
    let mut b = bound((2, false, 1, 0, 1));
    b.limits.max_states = Some(700);
    for (per_tab, cache) in [(false, true), (true, true), (true, false)] {
        b.reductions.per_tab = per_tab;
        b.reductions.symmetry = per_tab;
        b.reductions.state_cache = cache;
        let runs: Vec<ExploreReport> = (0..2).map(|_| explore(&store, &b, &mut |_| {})).collect();
        let what = format!("per_tab={per_tab} cache={cache}");
        for r in &runs {
            assert_eq!(
                r.limit_hit.as_deref(),
                Some(
                    "--max-states 700 reached (701 distinct states): search stopped, inconclusive"
                ),
                "{what}"
            );
            assert_eq!(r.distinct_states, 701, "{what}");
        }
        let counts = |r: &ExploreReport| (r.schedules, r.steps_applied, r.revisits_pruned);
        assert_eq!(counts(&runs[0]), counts(&runs[1]), "{what}");
    }
}

/// A store that never applies a fetch response: its live rows are never reconciled, so it
/// fails only at convergence (invariant 4), the one violation whose real length the
/// per-tab search cannot read off its own schedule.
struct NoFetch(Box<dyn crate::model::store::Store>);

impl crate::model::store::Store for NoFetch {
    fn handle(&mut self, input: &crate::model::wire::Input) -> crate::model::store::Answer {
        match input {
            crate::model::wire::Input::FetchResponse { .. } => Ok(Vec::new()),
            _ => self.0.handle(input),
        }
    }
    fn render(&self) -> &[crate::model::wire::RenderRow] {
        self.0.render()
    }
    fn hash_state(&self, state: &mut dyn std::hash::Hasher) -> bool {
        self.0.hash_state(state)
    }
    fn clone_box(&self) -> Option<Box<dyn crate::model::store::Store>> {
        Some(Box::new(NoFetch(self.0.clone_box()?)))
    }
}

struct NoFetchKind;

impl crate::model::store::StoreFactory for NoFetchKind {
    fn name(&self) -> String {
        "durable-no-fetch".into()
    }
    fn make(&self, c: crate::model::wire::ClientId) -> Box<dyn crate::model::store::Store> {
        Box::new(NoFetch(by_name("durable").unwrap().make(c)))
    }
}

/// A store that fails only at convergence: every reduced search reports a counterexample
/// of the whole world's shortest length, the per-tab ones after checking the whole world
/// below the length their concretized counterexample has (`shortest_check`).
#[test]
fn a_convergence_failure_gets_the_shortest_length_too() {
    for shape in [(1, true, 0, 0, 1), (1, false, 0, 0, 1)] {
        let b = bound(shape);
        let base = explore(&NoFetchKind, &b, &mut |_| {});
        let (len, inv) = verdict(&base).expect("the store never converges");
        assert_eq!(inv, Invariant::Converges);
        for (what, rb) in reduced(&b) {
            let r = explore(&NoFetchKind, &rb, &mut |_| {});
            assert_eq!(verdict(&r), Some((len, inv)), "{what}");
            if rb.reductions.per_tab {
                assert!(r.tab_convergence_at.is_some_and(|a| a < len), "{what}");
                let check = r.shortest_check.as_deref().unwrap_or_default();
                assert!(
                    check.starts_with("the whole world searched to depth"),
                    "{what}: {check}"
                );
            }
        }
    }
}

/// `--shard I/N`: at two bounds, the shards' units partition the listing, the states they
/// reach together are exactly the unsharded search's, their counts add up to at least its
/// counts, and the merged result has its verdict and its counterexample length (a buggy
/// store and the reference).
#[test]
fn shards_cover_the_unsharded_search_and_merge_to_its_verdict() {
    use crate::explore::{merge_explore_results, ExploreResult, Shard};
    use std::collections::BTreeSet;
    let mut checked = 0;
    for name in ["current", "durable"] {
        let store = by_name(name).unwrap();
        for shape in [(1, true, 1, 0, 1), (1, false, 0, 0, 1)] {
            let mut b = bound(shape);
            b.reductions.persistent = true;
            let (all, whole) = states_of(&store, &b);
            let n = 3;
            let mut union = BTreeSet::new();
            let mut results = Vec::new();
            let mut units: Vec<usize> = Vec::new();
            let mut states_sum = 0;
            for i in 1..=n {
                let mut s = b.clone();
                s.parallelism.shard = Some(Shard::new(i, n).unwrap());
                let (seen, r) = states_of(&store, &s);
                union.extend(seen);
                states_sum += r.distinct_full_states;
                let c = r.covered.clone().expect("a shard says what it covered");
                assert!(
                    c.prefix_depth > 0 && c.units_total >= 8 * n as usize,
                    "{c:?}"
                );
                units.extend(&c.units[0]);
                results.push(ExploreResult::new(name.to_string(), &s, r));
            }
            units.sort_unstable();
            let total = results[0]
                .result
                .report
                .covered
                .as_ref()
                .unwrap()
                .units_total;
            assert_eq!(
                units,
                (0..total).collect::<Vec<_>>(),
                "{name}: units partitioned"
            );
            if whole.counterexample.is_none() {
                // Every state of the bound is reached by some shard (a search that stops at
                // a counterexample reaches only what it needed).
                assert_eq!(union, all, "{name} {shape:?}");
                assert!(states_sum >= whole.distinct_full_states);
            }
            // Merged in any order: the unsharded verdict and counterexample length.
            results.reverse();
            let merged = merge_explore_results(results.clone()).unwrap();
            assert_eq!(merged.result.verified, whole.verified(), "{name}");
            assert_eq!(
                verdict(&merged.result.report).map(|v| v.0),
                verdict(&whole).map(|v| v.0),
                "{name} {shape:?}"
            );
            results.rotate_left(1);
            assert_eq!(merge_explore_results(results.clone()).unwrap(), merged);
            merge_refuses_bad_parts(&results);
            checked += 1;
        }
    }
    assert_eq!(checked, 4);
}

/// The whole-world depth-first search of `b`, and the exact keys of every state it
/// reached.
fn states_of(
    store: &dyn crate::model::store::StoreFactory,
    b: &ExploreBound,
) -> (std::collections::BTreeSet<Vec<u8>>, ExploreReport) {
    let mut seen = std::collections::BTreeSet::new();
    let mut hook = |w: &crate::model::world::World, _: &[crate::model::step::Step]| {
        let (mut key, mut scratch) = Default::default();
        assert!(crate::explore::state_key(w, &mut key, &mut scratch));
        let key: crate::explore::KeyWriter = key;
        seen.insert(key.bytes);
    };
    let r = super::engine::dfs::search(
        store,
        b,
        super::reduction::scope::Scope::Whole,
        &mut |_| {},
        Some(&mut hook),
    );
    (seen, r)
}

/// Missing, doubled and foreign parts of the three shards' `results` are refused.
fn merge_refuses_bad_parts(results: &[crate::explore::ExploreResult]) {
    use crate::explore::merge_explore_results;
    let err = merge_explore_results(results[..2].to_vec()).unwrap_err();
    assert!(err.contains("missing"), "{err}");
    let mut twice = results.to_vec();
    twice.push(results[0].clone());
    assert!(merge_explore_results(twice)
        .unwrap_err()
        .contains("given twice"));
    let mut other = results.to_vec();
    other[1].result.config.store = "naive".into();
    assert!(merge_explore_results(other)
        .unwrap_err()
        .contains("different configurations"));
    let mut old = results.to_vec();
    old[2].tool = "reconcile-sim 0.0.1".into();
    assert!(merge_explore_results(old)
        .unwrap_err()
        .contains("not by this build"));
}

/// Sharded per-tab searches with backend-first sets merge to the shortest counterexample:
/// a shard that meets a violation searches its own units again without the sets, and the
/// units are listed the same with and without them.
#[test]
fn shards_with_backend_first_sets_merge_to_the_shortest() {
    use crate::explore::{merge_explore_results, ExploreResult, Shard};
    let mut failing = 0;
    for name in ["current", "naive", "fix-ab", "durable"] {
        let store = by_name(name).unwrap();
        for shape in [(1, false, 0, 0, 1), (1, true, 0, 1, 2)] {
            let mut b = bound(shape);
            b.reductions.per_tab = true;
            b.reductions.symmetry = true;
            b.reductions.persistent = true;
            b.reductions.inert_post_responses = true;
            b.reductions.backend_first = true;
            let whole = explore(&store, &b, &mut |_| {});
            let n = 3;
            let results: Vec<ExploreResult> = (1..=n)
                .map(|i| {
                    let mut s = b.clone();
                    s.parallelism.shard = Some(Shard::new(i, n).unwrap());
                    ExploreResult::new(name.to_string(), &s, explore(&store, &s, &mut |_| {}))
                })
                .collect();
            let merged = merge_explore_results(results).unwrap();
            assert_eq!(merged.result.verified, whole.verified(), "{name} {shape:?}");
            assert_eq!(
                verdict(&merged.result.report),
                verdict(&whole),
                "{name} {shape:?}"
            );
            failing += usize::from(whole.counterexample.is_some());
        }
    }
    assert!(failing >= 4, "only {failing} bounds with a violation");
}
