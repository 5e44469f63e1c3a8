//! What a step did, reported by the world while it applies the step.
//!
//! Everything that wants to know what happened in a run (a timeline, scenario notes,
//! coverage, the shrinker's analysis, the differential driver) reads these reports instead
//! of walking the world again. The world writes them through the small [`Record`] trait:
//! the unit type `()` records nothing (the fuzzing hot path pays nothing for it, the calls
//! compile away), and [`StepRecord`] keeps a copy of everything.

use crate::model::step::Step;
use crate::model::store::CrashCause;
use crate::model::wire::{
    ClientId, Effect, Event, Input, MessageId, PostOutcome, RequestId, TurnId,
};

/// A store panicked (or, over a process boundary, failed) while handling an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreCrash {
    /// The client whose store failed.
    pub client: ClientId,
    /// What went wrong.
    pub cause: CrashCause,
}

/// Where the world reports what a step does, as it does it. Every method defaults to
/// doing nothing.
pub trait Record {
    /// The backend step ran within turn `turn` (the turn running when it began, or the
    /// one it started).
    fn turn(&mut self, _turn: TurnId) {}
    /// The step broadcast event `id` to every client's inbox.
    fn broadcast(&mut self, _id: u32, _event: &Event) {}
    /// The backend handled the POST of `message` with `outcome`.
    fn posted(&mut self, _message: MessageId, _outcome: PostOutcome) {}
    /// The backend served fetch `request` with a snapshot up to `snapshot_seq`.
    fn served(&mut self, _request: RequestId, _snapshot_seq: u32) {}
    /// The delivered event or fetch response sat at `position` in its queue (0: oldest).
    fn position(&mut self, _position: usize) {}
    /// The step's client's store was given `input` and asked for `effects` (`None`: it
    /// crashed).
    fn fed(&mut self, _input: &Input, _effects: Option<&[Effect]>) {}
    /// The store failed on the input.
    fn crashed(&mut self, _crash: &StoreCrash) {}
}

/// Records nothing.
impl Record for () {}

/// Everything one step did, copied out of the world.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepRecord {
    /// The step applied.
    pub step: Step,
    /// For a backend step, the turn it ran within.
    pub turn: Option<TurnId>,
    /// Events broadcast to every client, with their ids, in order.
    pub broadcast: Vec<(u32, Event)>,
    /// For `HandlePost`: the message and what the backend did with it.
    pub posted: Option<(MessageId, PostOutcome)>,
    /// For `ServeFetch`: the request served and the snapshot's largest `seq`.
    pub served: Option<(RequestId, u32)>,
    /// For a delivery: where the delivered item sat in its queue (0: the oldest).
    pub position: Option<usize>,
    /// What the step's client's store was given, if anything.
    pub input: Option<Input>,
    /// What the store asked for in answer, in order (empty when it crashed).
    pub effects: Vec<Effect>,
    /// The store failed on the input.
    pub crash: Option<StoreCrash>,
}

impl StepRecord {
    /// An empty record of `step`.
    pub fn new(step: Step) -> StepRecord {
        StepRecord {
            step,
            turn: None,
            broadcast: Vec::new(),
            posted: None,
            served: None,
            position: None,
            input: None,
            effects: Vec::new(),
            crash: None,
        }
    }

    /// Empty this record for `step`, keeping its buffers.
    pub fn reset(&mut self, step: Step) {
        self.step = step;
        self.turn = None;
        self.broadcast.clear();
        self.posted = None;
        self.served = None;
        self.position = None;
        self.input = None;
        self.effects.clear();
        self.crash = None;
    }

    /// The message ids of a `message-consumed` event this step broadcast, if any.
    pub fn consumed(&self) -> Option<&[MessageId]> {
        self.broadcast.iter().find_map(|(_, e)| match e {
            Event::MessageConsumed { message_ids, .. } => Some(message_ids.as_slice()),
            _ => None,
        })
    }
}

impl Record for StepRecord {
    fn turn(&mut self, turn: TurnId) {
        self.turn = Some(turn);
    }
    fn broadcast(&mut self, id: u32, event: &Event) {
        self.broadcast.push((id, event.clone()));
    }
    fn posted(&mut self, message: MessageId, outcome: PostOutcome) {
        self.posted = Some((message, outcome));
    }
    fn served(&mut self, request: RequestId, snapshot_seq: u32) {
        self.served = Some((request, snapshot_seq));
    }
    fn position(&mut self, position: usize) {
        self.position = Some(position);
    }
    fn fed(&mut self, input: &Input, effects: Option<&[Effect]>) {
        self.input = Some(input.clone());
        if let Some(effects) = effects {
            self.effects.extend_from_slice(effects);
        }
    }
    fn crashed(&mut self, crash: &StoreCrash) {
        self.crash = Some(crash.clone());
    }
}
