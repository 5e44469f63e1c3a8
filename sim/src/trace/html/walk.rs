//! A scenario's replay walked step by step for a picture: the narration (what each step
//! did, the verdict, the class: [`crate::trace::timeline`]) and, from the same one replay,
//! what every step did in full ([`StepRecord`]) and the state after it: each tab's render,
//! whether its user is scrolled up, and how many rows the backend DB holds.

use crate::model::config::WorldConfig;
use crate::model::record::StepRecord;
use crate::model::step::Step;
use crate::model::store::StoreFactory;
use crate::model::wire::{ChunkRow, RenderRow};
use crate::model::world::World;
use crate::oracle::Violation;
use crate::run::{Observer, Outcome, StepAt};
use crate::trace::class::Class;
use crate::trace::timeline::{narrate_observed, Line, Narration};

/// The state of the world after a step, as the report shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Rows in the backend DB (it only grows: the first `db_rows` of [`Walk::db`]).
    pub db_rows: usize,
    /// Each tab's render, in tab order.
    pub renders: Vec<Vec<RenderRow>>,
    /// Each tab's user is scrolled up (a reconcile would be deferred).
    pub scrolled_up: Vec<bool>,
}

/// One replay, narrated, with every step's record and the state after it.
pub struct Walk {
    /// The narration: one line per input step (skipped ones too), then one per drain step.
    pub narration: Narration,
    /// The class of what broke, if anything did.
    pub class: Option<Class>,
    /// Per line of the narration, what the step did (`None` for a skipped step).
    pub records: Vec<Option<StepRecord>>,
    /// Per line of the narration, the state after it (a skipped step's is its
    /// predecessor's).
    pub after: Vec<Snapshot>,
    /// The state before the first step.
    pub before: Snapshot,
    /// The backend DB as the run ended (every snapshot's rows are a prefix of it).
    pub db: Vec<ChunkRow>,
    /// The violation that ended the run, if one did.
    pub violation: Option<Violation>,
    /// The line of the breaking step (the last one for a convergence failure), if any.
    pub break_line: Option<usize>,
}

/// Replay `steps` on `stores` in `config` (the run going on past violations of the
/// classes in `mask`, as the scenario file says) and record everything a report draws.
pub fn walk(
    stores: &dyn StoreFactory,
    config: WorldConfig,
    steps: &[Step],
    mask: &[Class],
) -> Walk {
    let clients = config.clients as usize;
    let mut recorder = Recorder {
        records: Vec::new(),
        after: Vec::new(),
        db: Vec::new(),
        before: Snapshot {
            db_rows: 0,
            renders: vec![Vec::new(); clients],
            scrolled_up: vec![false; clients],
        },
    };
    let (narration, class) = narrate_observed(stores, config, steps, mask, &mut recorder);
    let violation = match &narration.report.outcome {
        Outcome::Fail(v) => Some(v.clone()),
        Outcome::Pass => None,
    };
    let break_line = narration
        .lines
        .iter()
        .position(|l: &Line| l.breaks.is_some() && !l.masked);
    Walk {
        narration,
        class,
        records: recorder.records,
        after: recorder.after,
        before: recorder.before,
        db: recorder.db,
        violation,
        break_line,
    }
}

/// Keeps a copy of each step's record and the state after it.
struct Recorder {
    records: Vec<Option<StepRecord>>,
    after: Vec<Snapshot>,
    db: Vec<ChunkRow>,
    before: Snapshot,
}

impl Recorder {
    fn last(&self) -> Snapshot {
        self.after.last().unwrap_or(&self.before).clone()
    }
}

impl Observer for Recorder {
    fn on_step(&mut self, world: &World, record: &StepRecord, _: StepAt, _: Option<&Violation>) {
        let db = world.backend().db();
        if db.len() > self.db.len() {
            self.db.extend_from_slice(&db[self.db.len()..]);
        }
        let previous = self.last();
        let renders = world
            .clients()
            .iter()
            .zip(previous.renders)
            .map(|(c, was)| {
                // Most steps change one tab at most: the others keep theirs.
                if was.as_slice() == c.render() {
                    was
                } else {
                    c.render().to_vec()
                }
            })
            .collect();
        self.after.push(Snapshot {
            db_rows: db.len(),
            renders,
            scrolled_up: world.clients().iter().map(|c| c.scrolled_up()).collect(),
        });
        self.records.push(Some(record.clone()));
    }

    fn on_skip(&mut self, _: usize) {
        let same = self.last();
        self.after.push(same);
        self.records.push(None);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::store::by_name;
    use crate::trace::scenario::load;

    /// A committed scenario: `scenarios/NAME.json`.
    pub(crate) fn committed(name: &str) -> crate::trace::scenario::Scenario {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        load(&root.join("scenarios").join(format!("{name}.json"))).unwrap()
    }

    /// One record and one snapshot per narrated line, the DB only growing, and the
    /// breaking line the one the narration marks.
    #[test]
    fn a_walk_has_one_state_per_line() {
        let sc = committed("bug-d");
        let store = by_name(&sc.store).unwrap();
        let w = walk(&store, sc.config.clone(), &sc.steps(), &sc.masked);
        assert_eq!(w.records.len(), w.narration.lines.len());
        assert_eq!(w.after.len(), w.narration.lines.len());
        assert!(w.after.windows(2).all(|p| p[0].db_rows <= p[1].db_rows));
        assert_eq!(w.after.last().unwrap().db_rows, w.db.len());
        let b = w.break_line.expect("bug D breaks fix-abc");
        assert!(w.narration.lines[b].breaks.is_some());
        assert!(w.violation.is_some() && w.class.is_some());
    }
}
