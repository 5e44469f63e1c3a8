//! Deltas appended verbatim: a real store grows its streaming message with `text += delta`,
//! so its live row reads `txt:t1.1txt:t1.2`, where the reference stores show
//! `txt:t1.1 txt:t1.2`. The oracle must find content however a store joins deltas
//! (`docs/protocol.md`): a correct store that joins verbatim gets no finding, and a buggy
//! one is caught exactly where it is caught joining with spaces.
//!
//! Each store here is a shipped store seen through one transformation of its render,
//! applied after every input (as in `buggy.rs`): the spaces between the deltas of a live
//! assistant row are removed, which is the row a verbatim store shows. Sealed rows are the
//! backend's and stay as they are.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use reconcile_sim::campaign::fuzz::{classes_of_seed, run_one};
use reconcile_sim::model::store::{Answer, Store, StoreFactory};
use reconcile_sim::model::wire::{ClientId, Input, RenderRow, Role};
use reconcile_sim::run::strategy::StrategySpec;
use reconcile_sim::run::RunReport;
use reconcile_sim::store::by_name;
use reconcile_sim::trace::class::Class;

/// The inner store, its render with live assistant rows joined verbatim.
struct Verbatim {
    inner: Box<dyn Store>,
    rows: Vec<RenderRow>,
    joined: Arc<AtomicBool>,
}

impl Verbatim {
    fn refresh(&mut self) {
        self.rows = self.inner.render().to_vec();
        for row in self.rows.iter_mut() {
            if row.is_live() && row.role == Role::Assistant {
                if row.text.matches("txt:").count() > 1 {
                    self.joined.store(true, Ordering::Relaxed);
                }
                row.text.retain(|c| c != ' ');
            }
        }
    }
}

impl Store for Verbatim {
    fn boot(&mut self) -> Answer {
        let effects = self.inner.boot()?;
        self.refresh();
        Ok(effects)
    }
    fn handle(&mut self, input: &Input) -> Answer {
        let effects = self.inner.handle(input)?;
        self.refresh();
        Ok(effects)
    }
    fn render(&self) -> &[RenderRow] {
        &self.rows
    }
}

/// A shipped store (by name), joining verbatim; `joined` is set when one of its stores
/// renders two or more deltas joined.
struct VerbatimKind {
    name: &'static str,
    joined: Arc<AtomicBool>,
}

impl VerbatimKind {
    fn new(name: &'static str) -> VerbatimKind {
        VerbatimKind {
            name,
            joined: Arc::default(),
        }
    }
}

impl StoreFactory for VerbatimKind {
    fn name(&self) -> String {
        format!("{}-verbatim", self.name)
    }
    fn make(&self, client: ClientId) -> Box<dyn Store> {
        let mut store = Verbatim {
            inner: by_name(self.name).expect("a shipped store").make(client),
            rows: Vec::new(),
            joined: Arc::clone(&self.joined),
        };
        store.refresh();
        Box::new(store)
    }
}

/// `durable` breaks nothing (1 000 000 seeds per strategy, docs/benchmarks.md); joining
/// its deltas verbatim must not make the oracle find anything in 20 000 seeds, while most
/// of those runs do show joined deltas (so the test is not vacuous).
#[test]
fn a_correct_store_joining_deltas_verbatim_has_no_finding_in_20000_seeds() {
    let kind = VerbatimKind::new("durable");
    let mut joined_runs = 0;
    for seed in 0..20_000 {
        kind.joined.store(false, Ordering::Relaxed);
        let r = run_one(&kind, StrategySpec::Random, seed);
        assert_eq!(
            r.outcome.invariant(),
            None,
            "seed {seed}: durable joining verbatim reported {:?}",
            r.outcome
        );
        joined_runs += u64::from(kind.joined.load(Ordering::Relaxed));
    }
    eprintln!("durable joining verbatim: 20000 seeds pass, {joined_runs} showed joined deltas");
    assert!(
        joined_runs > 5000,
        "only {joined_runs} runs showed deltas joined verbatim"
    );
}

/// The note's stores joining verbatim fail on exactly the seeds, with exactly the classes
/// (every class each seed reaches, in order, with the schedule that shows it) they fail
/// with joining with spaces: verbatim joining hides no bug and invents none.
#[test]
fn the_notes_stores_joining_verbatim_fail_exactly_as_they_do_with_spaces() {
    for name in ["current", "membership"] {
        let plain = by_name(name).unwrap();
        let verbatim = VerbatimKind::new(name);
        let mut failing = 0;
        for seed in 0..2000 {
            let a = classes_of_seed(&plain, StrategySpec::Random, seed);
            let b = classes_of_seed(&verbatim, StrategySpec::Random, seed);
            let key = |v: &[(Class, Vec<Class>, RunReport)]| -> Vec<_> {
                v.iter()
                    .map(|(c, m, r)| (c.clone(), m.clone(), r.steps.clone(), r.outcome.invariant()))
                    .collect()
            };
            assert_eq!(key(&a), key(&b), "{name} seed {seed}");
            failing += u64::from(!a.is_empty());
        }
        eprintln!("{name}: 2000 seeds, {failing} failing, identical classes joining verbatim");
        assert!(failing > 1000, "{name}: only {failing} failing seeds");
    }
}
