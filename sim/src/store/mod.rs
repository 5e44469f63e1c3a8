//! The store under test: one small trait, one file per implementation, one registry.
//!
//! A store is everything a real frontend tab store is, seen from outside: it is told about
//! user actions, WebSocket events and HTTP responses ([`Input`]); it asks for POSTs and
//! fetches ([`Effect`]); and it shows rows ([`RenderRow`]). The harness never looks inside.
//!
//! The note's variants share one tab state machine ([`tab::TabStore`]) and differ only in
//! a [`tab::ReconcilePolicy`]: the three places the note's bugs live (the `turn-start`
//! backfill, the `message-consumed` handler and the reconcile keep-filter).

use crate::exec::{self, ExecOptions};
use crate::model::store::StoreFactory;

pub mod durable;
pub mod kind;
pub mod note;
pub mod recorded;

pub use kind::StoreKind;

use note::{canary, current, fix_a, fix_ab, fix_abc, membership, naive};

/// Every shipped store, in the order the note's fixes landed, then the hypotheses.
pub const STORES: &[StoreKind] = &[
    naive::KIND,
    fix_a::KIND,
    fix_ab::KIND,
    fix_abc::KIND,
    current::KIND,
    membership::KIND,
    canary::KIND,
    durable::KIND,
    durable::arrival::KIND,
    durable::db_order::KIND,
];

/// Look a store up by name.
pub fn by_name(name: &str) -> Option<StoreKind> {
    STORES.iter().copied().find(|k| k.name == name)
}

/// The names of every shipped store, for error messages.
pub fn names() -> Vec<&'static str> {
    STORES.iter().map(|k| k.name).collect()
}

/// Why a store spec (what `--store` takes) names no store.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// Not a shipped store's name, nor `exec:`.
    #[error("unknown store '{name}'; known stores: {}", names().join(", "))]
    Unknown {
        /// The name given.
        name: String,
    },
    /// An `exec:` command that cannot be used.
    #[error(transparent)]
    Exec(#[from] exec::ExecError),
}

/// The store `spec` names: a shipped store's name, or `exec:'COMMAND ARGS'` for a store in
/// another process (started once now, through its handshake and a first `reset`, so that
/// a command that cannot run or cannot start is an error here rather than a crash finding
/// in every run).
pub fn resolve(spec: &str, options: ExecOptions) -> Result<Box<dyn StoreFactory>, ResolveError> {
    if spec.starts_with(exec::SPEC_PREFIX) {
        let factory = options.apply(exec::ExecFactory::from_spec(spec)?);
        factory.probe()?;
        return Ok(Box::new(factory));
    }
    match by_name(spec) {
        Some(kind) => Ok(Box::new(kind)),
        None => Err(ResolveError::Unknown {
            name: spec.to_string(),
        }),
    }
}

/// [`resolve`], where `all` names every shipped store.
pub fn resolve_all(
    spec: &str,
    options: ExecOptions,
) -> Result<Vec<Box<dyn StoreFactory>>, ResolveError> {
    if spec == "all" {
        return Ok(STORES
            .iter()
            .map(|k| Box::new(*k) as Box<dyn StoreFactory>)
            .collect());
    }
    Ok(vec![resolve(spec, options)?])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::KeyWriter;
    use crate::model::record::StepRecord;
    use crate::model::store::Store;
    use crate::model::wire::{Input, RenderRow};
    use crate::model::world::World;
    use crate::run::strategy::StrategySpec;
    use crate::run::{Observer, StepAt};

    /// Every input client 0's store was given in a run.
    #[derive(Default)]
    struct Inputs(Vec<Input>);

    impl Observer for Inputs {
        fn on_step(
            &mut self,
            _: &World,
            r: &StepRecord,
            _: StepAt,
            _: Option<&crate::oracle::Violation>,
        ) {
            if let (Some(input), Some(0)) = (&r.input, r.step.client()) {
                self.0.push(input.clone());
            }
        }
    }

    /// What a store shows and asks for when fed `inputs`.
    fn future(store: &mut dyn Store, inputs: &[Input]) -> Vec<(Vec<RenderRow>, String)> {
        inputs
            .iter()
            .map(|i| {
                let effects = format!("{:?}", store.handle(i));
                (store.render().to_vec(), effects)
            })
            .collect()
    }

    /// `hash_state` is injective: two states of a store that feed the same bytes behave
    /// the same from then on. States are taken from runs of many seeds; those whose bytes
    /// are equal are fed the same inputs (from other runs) and must show and ask for the
    /// same things. A `hash_state` that forgets a field merges states that differ, and
    /// their futures part here (explore's state cache relies on this).
    #[test]
    fn equal_hash_streams_mean_equal_futures_for_every_in_process_store() {
        for kind in STORES {
            let mut by_bytes: std::collections::BTreeMap<Vec<u8>, Box<dyn Store>> =
                Default::default();
            let mut probes: Vec<Vec<Input>> = Vec::new();
            let mut compared = 0;
            for seed in 0..60u64 {
                let mut inputs = Inputs::default();
                crate::campaign::fuzz::run_one_observed(
                    kind,
                    StrategySpec::Random,
                    seed + 10_000,
                    &mut inputs,
                );
                probes.push(inputs.0.into_iter().take(30).collect());
                let mut world =
                    World::new(crate::model::config::WorldConfig::from_seed(seed), kind);
                let mut strategy = StrategySpec::Random.build(seed);
                let mut enabled = Vec::new();
                for _ in 0..80 {
                    world.enabled_steps(&mut enabled);
                    if enabled.is_empty()
                        || world
                            .apply(enabled[strategy.choose(&enabled)])
                            .crash
                            .is_some()
                    {
                        break;
                    }
                    let store = world.client(0).store();
                    let mut key = KeyWriter::default();
                    assert!(store.hash_state(&mut key), "{}", kind.name);
                    match by_bytes.get(&key.bytes) {
                        None => {
                            by_bytes.insert(key.bytes, store.clone_box().expect("copies itself"));
                        }
                        Some(earlier) => {
                            let probe = &probes[seed as usize % probes.len()];
                            let (mut a, mut b) =
                                (earlier.clone_box().unwrap(), store.clone_box().unwrap());
                            assert_eq!(
                                a.render(),
                                b.render(),
                                "{}: equal bytes, different renders",
                                kind.name
                            );
                            assert_eq!(
                                future(a.as_mut(), probe),
                                future(b.as_mut(), probe),
                                "{}: equal bytes, different futures",
                                kind.name
                            );
                            compared += 1;
                        }
                    }
                }
            }
            assert!(
                compared > 50,
                "{}: only {compared} equal-byte pairs compared",
                kind.name
            );
            assert!(
                by_bytes.len() > 50,
                "{}: too few distinct states",
                kind.name
            );
        }
    }
}
