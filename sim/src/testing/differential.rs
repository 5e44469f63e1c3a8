//! Differential testing: two implementations of the same store (say the Rust model and
//! the Node adapter, or a model and the real TypeScript store) driven in lockstep through
//! the same steps, compared after every step.
//!
//! Two worlds are built from the same options, one per implementation. Each step the
//! source picks (from the first world's enabled steps) is applied to both; then every
//! input each store received, the effects it asked for, and every client's render must be
//! identical. The first difference is returned as a [`Divergence`] naming the step, the
//! input and both answers. Identical effects keep the two worlds identical, so their
//! enabled steps, the drain and the oracle's verdicts are identical too; the oracle is
//! not consulted here.

use std::fmt;

use crate::model::config::WorldConfig;
use crate::model::pins::WorldPins;
use crate::model::record::StepRecord;
use crate::model::step::Actor;
use crate::model::step::Step;
use crate::model::store::StoreFactory;
use crate::model::wire::{ClientId, Effect, Input};
use crate::model::world::World;
use crate::oracle::render_line;
use crate::run::strategy::StrategySpec;
use crate::run::Next;

/// What a lockstep run covered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Agreement {
    /// World steps applied to both (main phase and drain).
    pub steps: usize,
    /// Store inputs both implementations answered identically.
    pub inputs: usize,
    /// The main-phase steps applied, in order.
    pub main_steps: Vec<Step>,
}

/// The first point where the two implementations disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The reference implementation's store name (say the Rust model, `current`).
    pub reference: String,
    /// The implementation checked against it (say the Node adapter,
    /// `exec:'node adapters/node/store.js current'`).
    pub candidate: String,
    /// Index of the step (main phase then drain) after which they differ.
    pub step_index: usize,
    /// That step, as applied to both worlds.
    pub step: Step,
    /// What differs, one line each.
    pub details: Vec<String>,
    /// The main-phase steps applied up to the divergence (all of them when it came in
    /// the drain): a trace that reproduces it.
    pub main_steps: Vec<Step>,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "'{}' and '{}' diverge after step #{} ({}):",
            self.reference, self.candidate, self.step_index, self.step
        )?;
        for d in &self.details {
            writeln!(f, "  {d}")?;
        }
        Ok(())
    }
}

struct Side {
    world: World,
    /// What the last step did.
    record: StepRecord,
    crash: Option<String>,
}

impl Side {
    fn new(stores: &dyn StoreFactory, config: &WorldConfig) -> Side {
        Side {
            world: World::new(config.clone(), stores),
            record: StepRecord::new(Step::AgentSeal),
            crash: None,
        }
    }

    fn apply(&mut self, step: Step) {
        self.record = self.world.apply(step);
        if let Some(crash) = &self.record.crash {
            self.crash = Some(format!("c{} crashed: {}", crash.client, crash.cause));
        }
    }

    /// The input the step gave a store, with its client and answer (`None`: it crashed).
    fn exchange(&self) -> Option<(ClientId, &Input, Option<&[Effect]>)> {
        let client = match self.record.step.actor() {
            Actor::Client(c) => c,
            Actor::Backend => return None,
        };
        let effects = self
            .record
            .crash
            .is_none()
            .then_some(self.record.effects.as_slice());
        self.record.input.as_ref().map(|i| (client, i, effects))
    }
}

/// Drive `reference` and `candidate` through the steps `next` picks, then through the
/// deterministic drain, comparing after every step.
pub fn lockstep(
    reference: &dyn StoreFactory,
    candidate: &dyn StoreFactory,
    config: WorldConfig,
    mut next: impl FnMut(&World, &[Step], usize) -> Next,
) -> Result<Agreement, Box<Divergence>> {
    let mut a = Side::new(reference, &config);
    let mut b = Side::new(candidate, &config);
    let mut agreement = Agreement::default();
    let mut enabled = Vec::new();
    let mut applied = 0usize;
    loop {
        a.world.enabled_steps(&mut enabled);
        let step = match next(&a.world, &enabled, applied) {
            Next::Stop => break,
            Next::Skip(_) => continue,
            Next::Apply(s) => s,
        };
        applied += 1;
        agreement.main_steps.push(step);
        step_both(reference, candidate, &mut a, &mut b, step, &mut agreement)?;
        if a.crash.is_some() {
            return Ok(agreement); // both crashed alike: the run ends as the runner's would
        }
    }
    // The drain, as the runner does it: scroll-downs first, then the first drain step.
    let limit = config.drain_steps_max as usize;
    for _ in 0..limit {
        a.world.enabled_steps(&mut enabled);
        let Some(step) = crate::run::drain_pick(&enabled) else {
            break;
        };
        step_both(reference, candidate, &mut a, &mut b, step, &mut agreement)?;
        if a.crash.is_some() {
            break;
        }
    }
    Ok(agreement)
}

fn step_both(
    reference: &dyn StoreFactory,
    candidate: &dyn StoreFactory,
    a: &mut Side,
    b: &mut Side,
    step: Step,
    agreement: &mut Agreement,
) -> Result<(), Box<Divergence>> {
    a.apply(step);
    b.apply(step);
    let index = agreement.steps;
    agreement.steps += 1;
    let details = compare(reference, candidate, a, b);
    if details.is_empty() {
        agreement.inputs += usize::from(a.exchange().is_some());
        Ok(())
    } else {
        Err(Box::new(Divergence {
            reference: reference.name(),
            candidate: candidate.name(),
            step_index: index,
            step,
            details,
            main_steps: agreement.main_steps.clone(),
        }))
    }
}

fn compare(
    reference: &dyn StoreFactory,
    candidate: &dyn StoreFactory,
    a: &Side,
    b: &Side,
) -> Vec<String> {
    let (ra, rb) = (reference.name(), candidate.name());
    let mut details = Vec::new();
    if a.crash != b.crash {
        for (name, side) in [(&ra, a), (&rb, b)] {
            details.push(format!(
                "{name}: {}",
                side.crash.as_deref().unwrap_or("no crash")
            ));
        }
        return details;
    }
    let (la, lb) = (a.exchange(), b.exchange());
    if let (Some(ea), Some(eb)) = (la, lb) {
        let input = serde_json::to_string(ea.1).expect("inputs serialise");
        if ea.0 != eb.0 || ea.1 != eb.1 {
            details.push(format!(
                "the inputs differ (the worlds drifted): c{} {input} vs c{} {}",
                ea.0,
                eb.0,
                serde_json::to_string(eb.1).expect("inputs serialise"),
            ));
        } else if ea.2 != eb.2 {
            details.push(format!("c{} input {input}", ea.0));
            details.push(format!("  {ra} effects: {}", json(&ea.2)));
            details.push(format!("  {rb} effects: {}", json(&eb.2)));
        }
    }
    if la.is_some() != lb.is_some() {
        details.push(format!(
            "the number of inputs differs: {} vs {}",
            usize::from(la.is_some()),
            usize::from(lb.is_some())
        ));
    }
    for (i, (ca, cb)) in a.world.clients().iter().zip(b.world.clients()).enumerate() {
        let (ya, yb) = (ca.render(), cb.render());
        if ya == yb {
            continue;
        }
        match la.filter(|e| e.0 as usize == i) {
            Some((_, input, _)) => details.push(format!(
                "c{i} render differs after input {}",
                serde_json::to_string(input).expect("inputs serialise")
            )),
            None => details.push(format!("c{i} render differs")),
        }
        for (name, rows) in [(&ra, ya), (&rb, yb)] {
            details.push(format!("  {name} ({} rows):", rows.len()));
            for row in rows {
                details.push(format!("    {}", render_line(row)));
            }
        }
    }
    details
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serialises")
}

/// Lockstep over the run `seed` makes with the random strategy (what `run --seed` does).
pub fn lockstep_seed(
    reference: &dyn StoreFactory,
    candidate: &dyn StoreFactory,
    seed: u64,
) -> Result<Agreement, Box<Divergence>> {
    lockstep_seed_with(reference, candidate, StrategySpec::Random, seed)
}

/// [`lockstep_seed_with`] in the world of `seed` under `pins` (`diff --world`).
pub fn lockstep_seed_pinned(
    reference: &dyn StoreFactory,
    candidate: &dyn StoreFactory,
    strategy: StrategySpec,
    pins: &WorldPins,
    seed: u64,
) -> Result<Agreement, Box<Divergence>> {
    let config = pins.draw(seed);
    let mut strategy = strategy.build(seed);
    let next = crate::run::chosen_by(&config, &mut *strategy);
    lockstep(reference, candidate, config, next)
}

/// Lockstep over the run `seed` makes with `strategy`.
pub fn lockstep_seed_with(
    reference: &dyn StoreFactory,
    candidate: &dyn StoreFactory,
    strategy: StrategySpec,
    seed: u64,
) -> Result<Agreement, Box<Divergence>> {
    lockstep_seed_pinned(reference, candidate, strategy, &WorldPins::none(), seed)
}

/// Lockstep over a recorded trace (a scenario file's steps): steps not enabled at their
/// point are skipped, as [`crate::run::replay`] does.
pub fn lockstep_replay(
    reference: &dyn StoreFactory,
    candidate: &dyn StoreFactory,
    config: WorldConfig,
    steps: &[Step],
) -> Result<Agreement, Box<Divergence>> {
    let mut it = steps.iter().copied().enumerate();
    lockstep(reference, candidate, config, |_, enabled, _| {
        match it.next() {
            None => Next::Stop,
            Some((_, s)) if enabled.binary_search(&s).is_ok() => Next::Apply(s),
            Some((i, _)) => Next::Skip(i),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::note::{current, membership};

    #[test]
    fn a_store_agrees_with_itself() {
        for seed in 0..50 {
            let a = lockstep_seed(&current::KIND, &current::KIND, seed).unwrap();
            assert!(a.steps > 0 && a.inputs > 0);
        }
    }

    /// The comparison can fail: `current` and `membership` differ in their keep rule, and
    /// some seed shows it, naming the step and both renders.
    #[test]
    fn different_stores_diverge_with_a_readable_report() {
        let d = (0..200)
            .find_map(|seed| lockstep_seed(&current::KIND, &membership::KIND, seed).err())
            .expect("current and membership differ on some seed");
        let text = d.to_string();
        assert!(text.starts_with("'current' and 'membership' diverge after step #"));
        assert!(text.contains("render differs"), "{text}");
    }
}

/// Two stores diverge in lockstep: the property [`crate::trace::shrink::shrink_failing`]
/// keeps when it shrinks a divergence to a scenario.
pub struct Diverges<'a> {
    /// The reference store.
    pub reference: &'a dyn StoreFactory,
    /// The store compared with it.
    pub candidate: &'a dyn StoreFactory,
}

impl crate::trace::shrink::Failing for Diverges<'_> {
    fn stores(&self) -> &dyn StoreFactory {
        self.reference
    }
    fn run(
        &self,
        config: &WorldConfig,
        next: &mut dyn FnMut(&World, &[Step], usize) -> Next,
    ) -> (Vec<Step>, bool) {
        match lockstep(self.reference, self.candidate, config.clone(), next) {
            Ok(agreement) => (agreement.main_steps, false),
            Err(d) => (d.main_steps, true),
        }
    }
}

/// A divergence found by [`diff`], shrunk.
#[derive(Clone, Debug)]
pub struct FoundDivergence {
    /// The seed it was found with.
    pub seed: u64,
    /// The shrunk trace (its world, its steps), which reproduces it.
    pub shrunk: crate::trace::shrink::Reduced,
    /// The divergence the shrunk trace shows.
    pub divergence: Divergence,
}

/// Drive `reference` and `candidate` in lockstep over `seeds` seeds from `seed_start`;
/// the first divergence, shrunk (see [`Diverges`]), or how many seeds agreed.
pub fn diff(
    reference: &dyn StoreFactory,
    candidate: &dyn StoreFactory,
    strategy: StrategySpec,
    seed_start: u64,
    seeds: u64,
    limits: crate::trace::shrink::Limits,
    pins: &WorldPins,
) -> Result<u64, Box<FoundDivergence>> {
    for seed in seed_start..seed_start.saturating_add(seeds) {
        let Err(d) = lockstep_seed_pinned(reference, candidate, strategy, pins, seed) else {
            continue;
        };
        let config = pins.draw(seed);
        let failing = Diverges {
            reference,
            candidate,
        };
        let shrunk = crate::trace::shrink::shrink_failing(
            &failing,
            config,
            d.main_steps.len(),
            d.main_steps.clone(),
            limits,
        );
        let divergence =
            match lockstep_replay(reference, candidate, shrunk.config.clone(), &shrunk.steps) {
                Err(again) => *again,
                Ok(_) => *d, // shrinking kept it failing, so this cannot happen; report the original
            };
        return Err(Box::new(FoundDivergence {
            seed,
            shrunk,
            divergence,
        }));
    }
    Ok(seeds)
}
