//! Shards of one `fuzz` running at once in one process (the engine inside Node's worker
//! threads), sharing the work after the campaign: each failure is settled (rechecked,
//! shrunk, its needs found) by one of them, not by every shard that found its class.
//!
//! Separate `fuzz --shard` processes cannot do this: each settles what it found, and
//! `merge` keeps the smallest seed's. Shards that meet know every shard's first failures
//! before they settle any, so they settle exactly what the whole campaign would, each
//! failure once, and `merge` gets one finding per class. What a failure becomes depends
//! on it alone (see [`crate::campaign::recheck::settle`]), so which shard settles it
//! changes only the speed.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use crate::campaign::findings::Failure;
use crate::campaign::seen_runs::SeenRuns;
use crate::oracle::Invariant;
use crate::trace::class::Class;

/// What the shards of one command share.
pub trait Partners: Sync {
    /// Hand over this shard's first failures, wait for every other shard's, and return
    /// them all (this shard's among them, in any order); or why the meeting failed (a
    /// shard stopped before it came).
    fn meet(&self, mine: Vec<Failure>) -> Result<Vec<Vec<Failure>>, String>;
    /// The index of the next of the whole campaign's failures ([`first_of_all`] of what
    /// [`Partners::meet`] returned) to settle, each index handed to one shard once; `None`
    /// when none is left (any index past the last means none).
    fn take(&self) -> Option<usize>;
    /// The witness searches' memory of runs, shared by the shards (their searches overlap).
    fn seen(&self) -> &SeenRuns;
}

/// The first failures of a whole campaign from its shards' (`parts`, in any order): for
/// each store and class (or invariant, without classes) the failure of the smallest
/// seed, in the order an unsharded campaign gives them: by store (as in `stores`), then
/// by first seed and class, or, without classes, by invariant.
pub fn first_of_all(stores: &[String], parts: Vec<Vec<Failure>>) -> Vec<Failure> {
    type Key = (usize, Option<Class>, Option<Invariant>);
    let mut first: BTreeMap<Key, Failure> = BTreeMap::new();
    for failure in parts.into_iter().flatten() {
        let store = stores
            .iter()
            .position(|s| *s == failure.store)
            .unwrap_or(stores.len());
        let key = match &failure.class {
            Some(class) => (store, Some(class.clone()), None),
            None => (store, None, Some(failure.invariant)),
        };
        match first.entry(key) {
            Entry::Vacant(e) => {
                e.insert(failure);
            }
            Entry::Occupied(mut e) => {
                if failure.seed < e.get().seed {
                    e.insert(failure);
                }
            }
        }
    }
    let mut all: Vec<(Key, Failure)> = first.into_iter().collect();
    all.sort_by(|(a, fa), (b, fb)| match (&a.1, &b.1) {
        (Some(ca), Some(cb)) => (a.0, fa.seed, ca).cmp(&(b.0, fb.seed, cb)),
        _ => a.cmp(b),
    });
    all.into_iter().map(|(_, f)| f).collect()
}

/// [`Partners`] for shards on threads of one process: each waits at [`Partners::meet`]
/// until all have come, or until the meeting is abandoned (a shard that cannot come:
/// it failed, or its thread died), when every shard waiting, or yet to come, stops with
/// the reason.
pub struct Meeting {
    shards: usize,
    state: Mutex<MeetingState>,
    changed: Condvar,
    next: AtomicUsize,
    seen: SeenRuns,
}

#[derive(Default)]
struct MeetingState {
    parts: Vec<Vec<Failure>>,
    abandoned: Option<String>,
}

impl Meeting {
    /// A meeting of `shards` shards.
    pub fn new(shards: usize) -> Meeting {
        Meeting {
            shards,
            state: Mutex::default(),
            changed: Condvar::new(),
            next: AtomicUsize::new(0),
            seen: SeenRuns::default(),
        }
    }

    fn state(&self) -> MutexGuard<'_, MeetingState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stop every shard waiting (or yet to come) with `why`; the first reason stays.
    /// Shards that have met already go on settling.
    pub fn abandon(&self, why: String) {
        self.state().abandoned.get_or_insert(why);
        self.changed.notify_all();
    }
}

impl Partners for Meeting {
    fn meet(&self, mine: Vec<Failure>) -> Result<Vec<Vec<Failure>>, String> {
        let mut state = self.state();
        state.parts.push(mine);
        self.changed.notify_all();
        loop {
            if state.parts.len() >= self.shards {
                return Ok(state.parts.clone());
            }
            if let Some(why) = &state.abandoned {
                return Err(why.clone());
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn take(&self) -> Option<usize> {
        Some(self.next.fetch_add(1, Ordering::Relaxed))
    }

    fn seen(&self) -> &SeenRuns {
        &self.seen
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::campaign::fuzz::{run_campaign, run_campaign_shard, Budget, Campaign, CHUNK_SEEDS};
    use crate::campaign::merge::fuzz::FuzzScenario;
    use crate::campaign::pipeline::fuzz::{fuzz, FuzzPlan};
    use crate::campaign::pipeline::Silent;
    use crate::model::store::StoreFactory;
    use crate::run::strategy::StrategySpec;
    use crate::run::worlds::Worlds;
    use crate::store::by_name;
    use crate::trace::shrink::Limits;
    use crate::util::shard::Shard;

    fn campaign<'a>(stores: Vec<&'a dyn StoreFactory>, classes: bool) -> Campaign<'a> {
        Campaign {
            stores,
            strategy: StrategySpec::Random,
            seed_start: 5,
            budget: Budget::Seeds(2 * CHUNK_SEEDS + 9),
            jobs: 1,
            coverage: false,
            classes,
            worlds: Worlds::default(),
        }
    }

    /// Three shards' first failures, met, are the whole campaign's, in its order: with
    /// classes and without, on two stores.
    #[test]
    fn the_first_of_all_shards_first_failures_are_the_whole_campaigns() {
        let current = by_name("current").unwrap();
        let naive = by_name("naive").unwrap();
        let stores: Vec<&dyn StoreFactory> = vec![&current, &naive];
        let names: Vec<String> = stores.iter().map(|s| s.name()).collect();
        let never = AtomicBool::new(false);
        for classes in [true, false] {
            let c = campaign(stores.clone(), classes);
            let whole = run_campaign(&c, &|_| {}, &never).first_failures;
            // Shards in reverse order: the order parts arrive in must not matter.
            let parts: Vec<Vec<Failure>> = (1..=3)
                .rev()
                .map(|i| {
                    let shard = Shard::new(i, 3).unwrap();
                    run_campaign_shard(&c, shard, &|_| {}, &never).first_failures
                })
                .collect();
            assert!(
                parts.iter().filter(|p| !p.is_empty()).count() > 1,
                "several shards must find failures for the test to mean anything"
            );
            assert!(whole.len() < parts.iter().map(Vec::len).sum::<usize>());
            assert_eq!(first_of_all(&names, parts), whole, "classes: {classes}");
        }
    }

    /// Two shards on two threads meeting settle the whole campaign's failures between them,
    /// each once: their scenarios together are the unsharded `fuzz`'s, byte for byte.
    #[test]
    fn shards_that_meet_save_what_the_whole_fuzz_saves_each_once() {
        let current = by_name("current").unwrap();
        let plan = |shard: Shard, out: &std::path::Path, partners| FuzzPlan {
            campaign: campaign(vec![&current], true),
            shard,
            out: out.to_path_buf(),
            limits: Limits::default(),
            time: None,
            settle: crate::campaign::settle_budget::SettleBudget::Unbounded,
            check_determinism: false,
            result_file: None,
            details_file: false,
            partners,
            html: false,
        };
        let never = AtomicBool::new(false);
        let dir = tempfile::tempdir().unwrap();
        let scenarios = |shard, partners| {
            let out = dir.path().join(format!("{shard}").replace('/', "-of-"));
            let run = fuzz(&plan(shard, &out, partners), &Silent, &never).unwrap();
            run.result.result.scenarios
        };
        let whole = scenarios(Shard::WHOLE, None);
        assert!(whole.len() > 2, "{}", whole.len());
        let meeting = Meeting::new(2);
        let mut parts: Vec<Vec<FuzzScenario>> = std::thread::scope(|s| {
            let threads: Vec<_> = (1..=2)
                .map(|i| {
                    let meeting = &meeting as &dyn Partners;
                    let scenarios = &scenarios;
                    s.spawn(move || scenarios(Shard::new(i, 2).unwrap(), Some(meeting)))
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        let key = |s: &FuzzScenario| (s.store.clone(), s.seed, s.class.clone(), s.invariant);
        let mut met: Vec<FuzzScenario> = parts.drain(..).flatten().collect();
        met.sort_by_key(key);
        let mut whole = whole;
        whole.sort_by_key(key);
        assert_eq!(met, whole);
    }

    /// A shard waiting at a meeting stops with the reason when it is abandoned, as does
    /// one coming later; once all have met, abandoning changes nothing; each failure's
    /// index is taken once.
    #[test]
    fn an_abandoned_meeting_stops_the_shards_waiting_and_a_full_one_hands_each_index_once() {
        let meeting = Meeting::new(3);
        let waited = std::thread::scope(|s| {
            let waiting = s.spawn(|| meeting.meet(Vec::new()));
            // The waiting shard may come before or after the abandonment: both must stop.
            meeting.abandon("worker 2 failed".to_string());
            meeting.abandon("a later reason".to_string());
            waiting.join().unwrap()
        });
        assert_eq!(waited, Err("worker 2 failed".to_string()));
        assert_eq!(meeting.meet(Vec::new()), Err("worker 2 failed".to_string()));

        let full = Meeting::new(2);
        let met = std::thread::scope(|s| {
            let a = s.spawn(|| full.meet(Vec::new()));
            let b = s.spawn(|| full.meet(Vec::new()));
            (a.join().unwrap(), b.join().unwrap())
        });
        assert_eq!(met, (Ok(vec![vec![], vec![]]), Ok(vec![vec![], vec![]])));
        full.abandon("too late".to_string());
        assert_eq!(full.meet(Vec::new()).map(|p| p.len()), Ok(3));
        let taken: Vec<usize> = std::thread::scope(|s| {
            let t: Vec<_> = (0..4)
                .map(|_| s.spawn(|| (0..5).map(|_| full.take().unwrap()).collect::<Vec<_>>()))
                .collect();
            t.into_iter().flat_map(|t| t.join().unwrap()).collect()
        });
        let mut sorted = taken.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..20).collect::<Vec<_>>());
    }

    /// The witness searches' memory of runs is the meeting's, one for all its shards: a
    /// run one shard's search remembered is there for every other's.
    #[test]
    fn the_shards_of_a_meeting_share_one_memory_of_runs() {
        let meeting = Meeting::new(2);
        let partners: &dyn Partners = &meeting;
        let world = crate::model::config::WorldConfig::from_seed(1);
        partners.seen().remember(
            "current".into(),
            world.clone(),
            StrategySpec::Random,
            1,
            &[],
        );
        assert_eq!(partners.seen().len(), 1);
        assert_eq!(
            partners
                .seen()
                .shown("current", &world, StrategySpec::Random, 1),
            Some(Vec::new())
        );
    }
}
