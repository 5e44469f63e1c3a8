//! Hand-built interleavings: drive a world step by step with named actions, record the
//! steps, then judge the whole trace with the ordinary replay (oracle and drain included).
//!
//! This is how the note's bugs A–D are written as executable interleavings. Each action
//! panics if its step is not enabled at that point: that is a mistake in the script, not a
//! finding, and a test should fail loudly on it.

use crate::model::config::WorldConfig;
use crate::model::step::Step;
use crate::model::store::StoreFactory;
use crate::model::wire::{ClientId, Event};
use crate::model::world::World;
use crate::run::{replay, RunReport};

/// A small fixed world for hand-built scenarios: two active clients, in-order delivery,
/// status sent on connect, no turn failures, generous budgets.
pub fn scripted_config() -> WorldConfig {
    WorldConfig {
        clients: 2,
        passive_observer: false,
        sends_per_client: 3,
        scrolls_per_client: 4,
        deltas_per_segment_max: 3,
        tool_calls_per_turn_max: 2,
        turn_failures: false,
        ws_reorder_window: 1,
        ws_overtakes_max: None,
        status_on_connect: true,
        message_texts: crate::model::content::MessageTexts::Tokens,
        continuation_drains: false,
        consume_reasons: false,
        queued_texts: false,
        retired_server_ids: crate::model::config::Retired,
        deltas_without_turn_ids: false,
        judged: crate::model::judged::Judged::ALL,
        steps_max: 200,
        drain_steps_max: 2000,
    }
}

/// Records steps against a live world.
pub struct Script<'a> {
    stores: &'a dyn StoreFactory,
    world: World,
    steps: Vec<Step>,
    scratch: Vec<Step>,
}

impl<'a> Script<'a> {
    /// A script on a fresh world of `config` whose tabs run `stores`.
    pub fn new(config: WorldConfig, stores: &'a dyn StoreFactory) -> Self {
        Script {
            stores,
            world: World::new(config, stores),
            steps: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Apply `step`, which must be enabled.
    pub fn step(&mut self, step: Step) -> &mut Self {
        assert!(
            self.world.is_enabled(&step, &mut self.scratch),
            "script error: {step} is not enabled after {} steps",
            self.steps.len()
        );
        self.steps.push(step);
        // A crash is judged by the replay in `finish`.
        let _ = self.world.apply_into(step, &mut ());
        self
    }

    /// `c`'s user sends the next message: an optimistic or `queued-` row, and a POST in
    /// flight.
    pub fn send(&mut self, c: ClientId) -> &mut Self {
        self.step(Step::Send { client: c })
    }
    /// The backend handles `c`'s oldest POST: `turn-start` when the agent is idle,
    /// `message-queued` when it is not.
    pub fn post(&mut self, c: ClientId) -> &mut Self {
        self.step(Step::HandlePost { client: c })
    }
    /// The agent streams one delta into the running turn.
    pub fn delta(&mut self) -> &mut Self {
        self.step(Step::AgentDelta)
    }
    /// The agent opens a tool call, whose result is where an interrupt can land.
    pub fn tool_call(&mut self) -> &mut Self {
        self.step(Step::AgentToolCall)
    }
    /// The open tool call returns; with `interrupt`, the queue is folded into it as
    /// `[USER INTERRUPT]` blocks (bug D's consumption).
    pub fn tool_result(&mut self, interrupt: bool) -> &mut Self {
        self.step(Step::AgentToolResult { interrupt })
    }
    /// The agent ends its reply: queued messages become trailing history, or, with none,
    /// `status idle` goes out before the write.
    pub fn end(&mut self) -> &mut Self {
        self.step(Step::AgentEnd)
    }
    /// The durable write: the turn's rows are in the DB, `turn-sealed` not yet sent.
    pub fn write(&mut self) -> &mut Self {
        self.step(Step::AgentWrite)
    }
    /// `turn-sealed`: the event every tab reconciles on once it arrives.
    pub fn seal(&mut self) -> &mut Self {
        self.step(Step::AgentSeal)
    }
    /// `status idle`, the durable write and `turn-sealed`, with no reply text queued.
    pub fn finish_turn(&mut self) -> &mut Self {
        self.end().write().seal()
    }
    /// `c`'s user scrolls up, so a `turn-sealed` reaching `c` defers its reconcile (bug A's
    /// setting).
    pub fn scroll_up(&mut self, c: ClientId) -> &mut Self {
        self.step(Step::ScrollUp { client: c })
    }
    /// `c`'s user scrolls back to the bottom, flushing a deferred reconcile.
    pub fn scroll_down(&mut self, c: ClientId) -> &mut Self {
        self.step(Step::ScrollDown { client: c })
    }
    /// Serve client `c`'s oldest fetch, then deliver that response.
    pub fn fetch(&mut self, c: ClientId) -> &mut Self {
        self.step(Step::ServeFetch { client: c });
        let request = self
            .world
            .client(c)
            .fetch_responses()
            .last()
            .expect("just served")
            .request;
        self.step(Step::DeliverFetchResponse { client: c, request })
    }
    /// Deliver client `c`'s oldest undelivered event.
    pub fn deliver_next(&mut self, c: ClientId) -> &mut Self {
        let event = self
            .world
            .client(c)
            .inbox()
            .next()
            .unwrap_or_else(|| panic!("script error: c{c} has no event to deliver"))
            .0;
        self.step(Step::DeliverEvent { client: c, event })
    }
    /// Deliver every event waiting for client `c`, in order.
    pub fn deliver_all(&mut self, c: ClientId) -> &mut Self {
        while self.world.client(c).inbox().len() > 0 {
            self.deliver_next(c);
        }
        self
    }
    /// Deliver client `c`'s events up to and including the first matching `pred`.
    pub fn deliver_until(&mut self, c: ClientId, pred: impl Fn(&Event) -> bool) -> &mut Self {
        loop {
            let hit = pred(
                self.world
                    .client(c)
                    .inbox()
                    .next()
                    .unwrap_or_else(|| panic!("script error: c{c} ran out of events"))
                    .1,
            );
            self.deliver_next(c);
            if hit {
                return self;
            }
        }
    }
    /// Deliver all of client `c`'s POST responses.
    pub fn post_responses(&mut self, c: ClientId) -> &mut Self {
        while self.world.client(c).post_responses().len() > 0 {
            self.step(Step::DeliverPostResponse { client: c });
        }
        self
    }

    /// The world as the script left it (for assertions on intermediate state).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The recorded steps.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Judge the recorded steps with the ordinary replay, on `stores` (which may differ
    /// from the store the script was recorded with: the steps are the same interleaving).
    pub fn judge(&self, stores: &dyn StoreFactory) -> RunReport {
        replay(stores, self.world.config().clone(), &self.steps)
    }

    /// Judge on the store the script was recorded with.
    pub fn finish(&self) -> RunReport {
        self.judge(self.stores)
    }
}
