//! The runs a campaign's witness searches have made, shared by all its failures.
//!
//! Looking for a witness of a class without a world feature
//! ([`crate::campaign::findings`]) runs the campaign's seeds in their worlds cut down: the
//! same seeds in the same worlds for every class whose first seed is near, and all of them
//! again when a smaller witness reopens a search. `fuzz --store current --seeds 10000` made
//! 5 631 such runs of which 2 676 repeated one made before. Each run is a pure function of
//! its store, world, strategy and seed, so remembering what it showed changes nothing a
//! search finds, only how often the same run is made.
//!
//! The campaign's own runs are remembered too ([`SeenRuns::remember`]): a seed whose world
//! has nothing the search cuts (most seeds' worlds have an ordered socket, so a search
//! without WebSocket reordering meets them unchanged) is the very run the campaign made,
//! classes and all. Of that search's 5 631 runs, 2 031 were such.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::model::config::WorldConfig;
use crate::model::store::StoreFactory;
use crate::oracle::Invariant;
use crate::run::strategy::StrategySpec;
use crate::run::RunReport;
use crate::trace::class::{every_class_of_schedule, Class};

/// What identifies a run: the store's name, the seed, the strategy and the world.
type RunKey = (String, u64, StrategySpec, WorldConfig);

/// The most campaign runs remembered ([`SeenRuns::remember`]): searches start at a class's
/// first seed, and the first seeds of a campaign's classes are low, so a long campaign's
/// later seeds would cost memory (about 100 bytes each) and seldom be met.
pub const REMEMBERED_MAX: usize = 1 << 17;

/// The classes each run showed, with the invariant that noticed each.
#[derive(Default)]
pub struct SeenRuns {
    runs: Mutex<BTreeMap<RunKey, Shown>>,
    /// Campaign runs remembered so far ([`SeenRuns::remember`] stops at [`REMEMBERED_MAX`];
    /// shards that meet take in each other's, so theirs may add up to more).
    remembered: Mutex<usize>,
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
        let key = (store.name(), seed, strategy, world.clone());
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

impl SeenRuns {
    /// Remember the run of `strategy` seeded with `seed` in `world` on the store named
    /// `store`, made elsewhere: every class it showed, as [`every_class_of_schedule`]
    /// gives them (`found`, each with its mask and run). The campaign's own runs, so that
    /// a search meeting one of its seeds in the same world does not make it again.
    /// Beyond [`REMEMBERED_MAX`] such runs, nothing more is remembered.
    pub fn remember(
        &self,
        store: String,
        world: WorldConfig,
        strategy: StrategySpec,
        seed: u64,
        found: &[(Class, Vec<Class>, RunReport)],
    ) {
        {
            let mut remembered = lock(&self.remembered);
            if *remembered >= REMEMBERED_MAX {
                return;
            }
            *remembered += 1;
        }
        let classes = found
            .iter()
            .map(|(c, _, r)| (c.clone(), r.outcome.invariant()))
            .collect();
        lock(&self.runs).insert((store, seed, strategy, world), classes);
    }

    /// The classes the remembered run showed, if it is remembered (for tests elsewhere).
    #[cfg(test)]
    pub(crate) fn shown(
        &self,
        store: &str,
        world: &WorldConfig,
        strategy: StrategySpec,
        seed: u64,
    ) -> Option<Vec<Class>> {
        let key = (store.to_string(), seed, strategy, world.clone());
        let runs = lock(&self.runs);
        Some(runs.get(&key)?.iter().map(|(c, _)| c.clone()).collect())
    }

    /// How many runs are remembered.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        lock(&self.runs).len()
    }

    /// Take in everything `other` remembers (another shard's campaign runs), leaving it
    /// empty.
    pub fn absorb(&self, other: &SeenRuns) {
        let runs = std::mem::take(&mut *lock(&other.runs));
        let added = std::mem::take(&mut *lock(&other.remembered));
        *lock(&self.remembered) += added;
        lock(&self.runs).extend(runs);
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

    /// A campaign's run, remembered, answers a search that meets the same seed in the same
    /// world without making it (and, for a class it showed, makes it once, as fresh), also
    /// after another shard's memory took it in; the same seed in another world is run.
    #[test]
    fn a_remembered_campaign_run_answers_the_search_that_meets_it() {
        let store = Counted(AtomicUsize::new(0));
        let made = || store.0.load(Ordering::Relaxed);
        let random = StrategySpec::Random;
        let kind = &crate::store::note::current::KIND;
        let seed = (0..100)
            .find(|s| {
                let world = WorldConfig::from_seed(*s);
                !every_class_of_schedule(kind, world, random, *s)
                    .0
                    .is_empty()
            })
            .expect("current fails on some seed");
        let world = WorldConfig::from_seed(seed);
        let (found, _) = every_class_of_schedule(&store, world.clone(), random, seed);
        let per_run = made();
        let campaign = SeenRuns::default();
        campaign.remember(store.name(), world.clone(), random, seed, &found);
        let shared = SeenRuns::default();
        shared.absorb(&campaign);
        assert!(lock(&campaign.runs).is_empty(), "absorbed, not copied");
        assert_eq!(*lock(&shared.remembered), 1);
        let offered = Cell::new(0);
        let never = |_: &Class, _: Option<Invariant>| {
            offered.set(offered.get() + 1);
            false
        };
        assert_eq!(
            shared.first_showing(&store, &world, random, seed, never),
            None
        );
        assert_eq!(
            offered.get(),
            found.len(),
            "every class it showed was offered"
        );
        assert_eq!(made(), per_run, "the campaign's run is not made again");
        let first = found.first().cloned().expect("a class");
        let again = shared.first_showing(&store, &world, random, seed, |c, _| *c == first.0);
        assert_eq!(again, Some(first));
        assert_eq!(made(), 2 * per_run);
        let mut cut = world.clone();
        cut.turn_failures = !cut.turn_failures;
        shared.first_showing(&store, &cut, random, seed, |_, _| false);
        assert_eq!(made(), 3 * per_run, "another world is another run");
    }
}
