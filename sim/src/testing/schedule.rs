//! Schedules as plain values, and (with the opt-in `proptest` feature) proptest
//! strategies that generate and shrink them, so a Rust user can state properties over the
//! simulated world:
//!
//! ```
//! use proptest::prelude::*;
//! use reconcile_sim::testing::schedule::strategies::{fixed_seed, schedules};
//!
//! proptest! {
//!     #![proptest_config(fixed_seed(16))]
//!     fn membership_never_crashes(s in schedules(60)) {
//!         let report = s.run(&reconcile_sim::store::note::membership::KIND);
//!         prop_assert_ne!(
//!             report.outcome.invariant(),
//!             Some(reconcile_sim::oracle::Invariant::Crash)
//!         );
//!     }
//! }
//! membership_never_crashes(); // in a test crate: put #[test] above the fn instead
//! ```
//!
//! A schedule is a world and a list of choices; choice `k` picks
//! `enabled[choice % enabled.len()]` at step `k` (the enabled steps come in their
//! documented sorted order). proptest shrinks the list by dropping choices and moving them
//! toward 0 (the first enabled step), which is the choice-sequence shrinking Hypothesis
//! made popular; failures can then be shrunk further and saved with
//! [`crate::trace::shrink::shrink`] and [`crate::trace::scenario::Scenario::record`].

use crate::model::config::WorldConfig;
use crate::model::store::StoreFactory;
use crate::run::{execute, Next, RunReport};

/// A world and the scheduling choices made in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// The world the choices are made in, generated and shrunk with them.
    pub config: WorldConfig,
    /// One per step: a choice `c` applies `enabled[c % enabled.len()]`, so any list is a
    /// valid schedule, and shrinking toward fewer, smaller choices means shorter schedules
    /// that take earlier enabled steps.
    pub choices: Vec<u32>,
}

impl Schedule {
    /// Run the schedule on `stores`: one step per choice while any step is enabled, then
    /// the drain phase and the convergence check, like every other run.
    pub fn run(&self, stores: &dyn StoreFactory) -> RunReport {
        let mut choices = self.choices.iter();
        execute(stores, self.config.clone(), |_, enabled, _| {
            match (choices.next(), enabled.is_empty()) {
                (Some(&c), false) => Next::Apply(enabled[c as usize % enabled.len()]),
                _ => Next::Stop,
            }
        })
    }
}

/// proptest strategies over worlds, schedules, steps and scenario files.
#[cfg(feature = "proptest")]
pub mod strategies {
    use proptest::prelude::*;

    use super::Schedule;
    use crate::model::config::WorldConfig;
    use crate::model::step::{Step, StepKind};
    use crate::oracle::Invariant;
    use crate::trace::class::{Binding, Class, Effect, Fate, RowKind, Subject, Trigger};
    use crate::trace::scenario::{Scenario, ScenarioStep, FORMAT_VERSION};

    /// The seed every proptest of this crate starts from, so that the suite draws the
    /// same cases on every run (a law that fails, fails again).
    pub const SEED: u64 = 36;

    /// A proptest config of `cases` cases drawn from [`SEED`], not from a random seed.
    /// To explore other cases, set `PROPTEST_RNG_SEED=<u64>` (proptest's own variable;
    /// it is used instead of [`SEED`] when set), e.g. `for s in 1 2 3; do
    /// PROPTEST_RNG_SEED=$s cargo test --profile checked --test it laws::; done`; a case
    /// it finds failing is then a fixed-seed test to add. `PROPTEST_CASES` is ignored:
    /// the number of cases is each law's own.
    pub fn fixed_seed(cases: u32) -> ProptestConfig {
        let base = ProptestConfig::default(); // reads the PROPTEST_* variables
        let rng_seed = match base.rng_seed {
            proptest::test_runner::RngSeed::Random => proptest::test_runner::RngSeed::Fixed(SEED),
            chosen => chosen,
        };
        ProptestConfig {
            cases,
            rng_seed,
            ..base
        }
    }

    /// World options in the ranges `WorldConfig::from_seed` draws from, plus a single
    /// client and zero budgets so shrinking can reach the smallest worlds: each option of
    /// [`WorldConfig::OPTIONS`] in its fuzzable range.
    pub fn world_configs() -> impl Strategy<Value = WorldConfig> {
        let ranges: Vec<_> = WorldConfig::OPTIONS.iter().map(|o| o.min..=o.max).collect();
        ranges.prop_map(WorldConfig::from_options)
    }

    /// Schedules of up to `steps_max` choices.
    pub fn schedules(steps_max: usize) -> impl Strategy<Value = Schedule> {
        (
            world_configs(),
            proptest::collection::vec(any::<u32>(), 0..=steps_max),
        )
            .prop_map(|(config, choices)| Schedule { config, choices })
    }

    /// Any step naming clients below `clients` (enabled or not: replay skips those): a
    /// kind from [`StepKind::ALL`], then its fields.
    pub fn steps(clients: u8) -> impl Strategy<Value = Step> {
        (
            proptest::sample::select(StepKind::ALL),
            0..clients.max(1),
            any::<u32>(),
            any::<bool>(),
        )
            .prop_map(|(kind, client, id, interrupt)| kind.example(client, id, interrupt))
    }

    /// Root-cause classes, every field drawn from what a class can hold (and arbitrary
    /// text where a class holds text).
    pub fn classes() -> impl Strategy<Value = Class> {
        let effect = prop_oneof![
            Just(Effect::Disappears),
            Just(Effect::Lingers),
            Just(Effect::EndsWrong),
            ".*".prop_map(Effect::Shape),
            ".*".prop_map(Effect::Crash),
            Just(Effect::NeverSettles),
        ];
        let made = prop_oneof![Just(RowKind::Optimistic), Just(RowKind::Queued)];
        let fate = prop_oneof![
            Just(Fate::StartedTurn),
            Just(Fate::Consumed),
            Just(Fate::Waiting)
        ];
        let binding = prop_oneof![
            Just(Binding::NotLive),
            Just(Binding::Unbound),
            Just(Binding::OwnTurn),
            Just(Binding::OtherTurn)
        ];
        let subject = prop_oneof![
            (
                made,
                proptest::option::of(fate),
                proptest::option::of(binding)
            )
                .prop_map(|(made, fate, binding)| Subject::Message {
                    made,
                    fate,
                    binding
                }),
            proptest::option::of(any::<bool>())
                .prop_map(|turn_started| Subject::Stream { turn_started }),
            Just(Subject::OtherMessage),
            Just(Subject::Any),
        ];
        let trigger = prop_oneof![
            Just(Trigger::Fetch),
            Just(Trigger::StaleFetch),
            ".*".prop_map(Trigger::Event),
            ".*".prop_map(Trigger::Input),
        ];
        (effect, subject, proptest::option::of(trigger)).prop_map(|(effect, subject, trigger)| {
            Class {
                effect,
                subject,
                trigger,
            }
        })
    }

    /// Whole scenario files, with arbitrary text where the format allows any.
    pub fn scenarios() -> impl Strategy<Value = Scenario> {
        world_configs().prop_flat_map(|config| {
            let clients = config.clients;
            (
                Just(config),
                proptest::collection::vec((steps(clients), proptest::option::of(".*")), 0..40),
                proptest::option::of(proptest::sample::select(Invariant::ALL.to_vec())),
                proptest::option::of(any::<u64>()),
                proptest::option::of(".*"),
                "[a-z][a-z0-9:./_-]{0,20}",
                (
                    proptest::option::of(classes()),
                    proptest::collection::vec(classes(), 0..3),
                    any::<bool>(),
                ),
            )
                .prop_map(
                    |(
                        config,
                        steps,
                        expect,
                        seed,
                        description,
                        store,
                        (class, masked, known_failure),
                    )| {
                        Scenario {
                            version: FORMAT_VERSION,
                            description,
                            // An exec store's recorded directory, relative to the file.
                            store_dir: store.starts_with("exec:").then(|| "..".to_string()),
                            // And the name its adapter states.
                            store_name: store
                                .starts_with("exec:")
                                .then(|| "node:current".to_string()),
                            store,
                            seed,
                            strategy: seed.map(|_| "random".to_string()),
                            expect,
                            class,
                            masked,
                            needs: None,
                            known_failure,
                            world_pins: Default::default(),
                            contract: Default::default(),
                            config,
                            steps: steps
                                .into_iter()
                                .map(|(step, note)| ScenarioStep { step, note })
                                .collect(),
                        }
                    },
                )
        })
    }
}
