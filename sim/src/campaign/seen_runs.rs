//! The runs a campaign's witness searches have made, shared by all its failures.
//!
//! Looking for a witness of a class without a world feature
//! ([`crate::campaign::findings`]) runs the campaign's seeds in their worlds cut down: the
//! same seeds in the same worlds for every class whose first seed is near, and all of them
//! again when a smaller witness reopens a search. `fuzz --store current --seeds 10000` made
//! 5 631 such runs of which 2 676 repeated one made before. Each run is a pure function of
//! its store, world, strategy and seed, so remembering what it showed changes nothing a
//! search finds, only how often the same run is made.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::model::config::WorldConfig;
use crate::model::store::StoreFactory;
use crate::oracle::Invariant;
use crate::run::strategy::StrategySpec;
use crate::run::RunReport;
use crate::trace::class::{every_class_of_schedule, Class};

/// What identifies a run: the store's name, the seed, the strategy and the world (as its
/// JSON, which every option is part of).
type RunKey = (String, u64, StrategySpec, String);

/// The classes each run showed, with the invariant that noticed each.
#[derive(Default)]
pub struct SeenRuns {
    runs: Mutex<BTreeMap<RunKey, Shown>>,
}

/// A run's classes, each with the invariant that noticed it.
type Shown = Vec<(Class, Option<Invariant>)>;

impl SeenRuns {
    /// The first of every class the run of `strategy` seeded with `seed` makes in `world`
    /// on `store` reaches ([`every_class_of_schedule`]) that `shows` accepts, with the
    /// classes masked before it and its run; `None` when none does. A run made before is
    /// not made again unless it has such a class (then once more, for its steps).
    pub fn first_showing(
        &self,
        store: &dyn StoreFactory,
        world: &WorldConfig,
        strategy: StrategySpec,
        seed: u64,
        shows: impl Fn(&Class, Option<Invariant>) -> bool,
    ) -> Option<(Class, Vec<Class>, RunReport)> {
        let world_json = serde_json::to_string(world).expect("a world serializes");
        let key = (store.name(), seed, strategy, world_json);
        let seen = lock(&self.runs).get(&key).cloned();
        if let Some(classes) = seen {
            if !classes.iter().any(|(c, i)| shows(c, *i)) {
                return None;
            }
        }
        let (found, _) = every_class_of_schedule(store, world.clone(), strategy, seed);
        let classes = found
            .iter()
            .map(|(c, _, r)| (c.clone(), r.outcome.invariant()))
            .collect();
        lock(&self.runs).insert(key, classes);
        found
            .into_iter()
            .find(|(c, _, r)| shows(c, r.outcome.invariant()))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::store::Store;
    use crate::model::wire::ClientId;
    use std::cell::Cell;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// `current`, counting the stores it makes (one per tab per run).
    struct Counted(AtomicUsize);

    impl StoreFactory for Counted {
        fn name(&self) -> String {
            "current".into()
        }
        fn make(&self, client: ClientId) -> Box<dyn Store> {
            self.0.fetch_add(1, Ordering::Relaxed);
            crate::store::note::current::KIND.make(client)
        }
    }

    /// A run made once is answered from memory for any class it did not show, and made
    /// again (giving the same run) for one it did; what is found is what a fresh run finds.
    #[test]
    fn a_run_is_made_again_only_for_a_class_it_showed() {
        let store = Counted(AtomicUsize::new(0));
        let made = || store.0.load(Ordering::Relaxed);
        let seen = SeenRuns::default();
        let random = StrategySpec::Random;
        let classes = |seed| {
            let kind = &crate::store::note::current::KIND;
            every_class_of_schedule(kind, WorldConfig::from_seed(seed), random, seed).0
        };
        let seed = (0..100)
            .find(|s| classes(*s).len() >= 2)
            .expect("current shows two classes on some seed");
        let world = WorldConfig::from_seed(seed);
        let (fresh, _) = every_class_of_schedule(&store, world.clone(), random, seed);
        let per_run = made();
        let asked = Cell::new(0);
        let never = |_: &Class, _: Option<Invariant>| {
            asked.set(asked.get() + 1);
            false
        };
        assert_eq!(
            seen.first_showing(&store, &world, random, seed, never),
            None
        );
        assert_eq!(
            asked.get(),
            fresh.len(),
            "every class of the run was offered"
        );
        assert_eq!(made(), 2 * per_run);
        // From memory: each class offered again, nothing run.
        assert_eq!(
            seen.first_showing(&store, &world, random, seed, never),
            None
        );
        assert_eq!(asked.get(), 2 * fresh.len());
        assert_eq!(made(), 2 * per_run, "a run remembered is not made again");
        // A class it showed: made again, the same as fresh.
        let last = fresh.last().unwrap().clone();
        let found = seen.first_showing(&store, &world, random, seed, |c, _| *c == last.0);
        assert_eq!(found, Some(last));
        assert_eq!(made(), 3 * per_run);
        // Another seed, strategy or world is another run.
        for (w, s, seed) in [
            (WorldConfig::from_seed(seed + 1), random, seed),
            (world.clone(), StrategySpec::Swarm, seed),
            (world.clone(), random, seed + 1),
        ] {
            let (fresh, _) = every_class_of_schedule(&store, w.clone(), s, seed);
            let before = made();
            assert_eq!(
                seen.first_showing(&store, &w, s, seed, |_, _| true),
                fresh.first().cloned()
            );
            assert!(made() > before, "{s:?} seed {seed}: a new run");
        }
        assert_eq!(lock(&seen.runs).len(), 4);
    }
}
