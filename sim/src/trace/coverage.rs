//! Coverage of interesting orderings, in the protocol's own terms: which of the orderings
//! the design note's bugs need did a run (or a campaign) actually reach, and how often.
//!
//! Counted only when asked, by a [`CoverageObserver`] watching a run (or a replay) step by
//! step, so the fuzzing hot path pays nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::backend::TurnPhase;
use crate::model::config::WorldConfig;
use crate::model::record::StepRecord;
use crate::model::step::Step;
use crate::model::store::StoreFactory;
use crate::model::wire::{AgentStatus, ClientId, Event, Input, MessageId, PostOutcome, TurnId};
use crate::model::world::World;
use crate::oracle::Violation;
use crate::run::{replay_observed, Observer, StepAt};

/// The orderings counted, with what each means.
pub const ORDERINGS: &[(&str, &str)] = &[
    ("consumed-before-queued", "message-consumed reached the sending tab before its message-queued"),
    ("sealed-while-scrolled-up", "turn-sealed reached a tab whose user was scrolled up (deferred reconcile)"),
    ("stale-fetch-applied", "a fetch response older than one already delivered to that tab was delivered"),
    ("reconcile-during-newer-turn", "a fetch response was delivered while the tab had seen a newer turn-start than its latest turn-sealed"),
    ("fresh-tab-first-send", "a user sent before any status event reached the tab"),
    ("send-in-idle-before-seal-window", "a user sent while the tab believed idle but the turn was not yet sealed"),
    ("post-started-turn-tab-believed-running", "a POST started a turn although the tab believed running when the user sent"),
    ("interrupt-consumption", "queued messages folded into a tool result"),
    ("trailing-consumption", "queued messages drained as trailing history"),
    ("ws-event-reordered", "a WebSocket event overtook an older one"),
    ("fetch-served-before-write", "a fetch was served between status idle and the durable write"),
    ("continuation-drain", "queued messages drained between turns into a new turn (continuation_drains)"),
    ("server-id-before-post-response", "an event named a tab's message by the server's id before the POST response told the tab that id (server_ids)"),
    ("delta-without-turn-id", "a text delta without a turn id reached a tab (deltas_without_turn_ids)"),
    ("queued-text-of-another-tab", "message-queued with the text of another tab's message reached a tab (queued_texts)"),
];

/// Counts per ordering name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// Times each ordering of [`ORDERINGS`] was reached, by name; one never reached is
    /// absent (and printed as 0).
    pub counts: BTreeMap<String, u64>,
}

impl Coverage {
    fn hit(&mut self, name: &str) {
        *self.counts.entry(name.to_string()).or_default() += 1;
    }

    /// Add another run's counts.
    pub fn merge(&mut self, other: &Coverage) {
        for (k, v) in &other.counts {
            *self.counts.entry(k.clone()).or_default() += v;
        }
    }

    /// One line per ordering, hit or not.
    pub fn format(&self) -> String {
        let mut out = String::new();
        for (name, what) in ORDERINGS {
            let n = self.counts.get(*name).copied().unwrap_or(0);
            out.push_str(&format!("  {n:>8}  {name:<40} {what}\n"));
        }
        out
    }
}

#[derive(Default, Clone)]
struct TabFacts {
    status_seen: Option<AgentStatus>,
    queued_seen: Vec<MessageId>,
    latest_start: Option<TurnId>,
    latest_seal: Option<TurnId>,
    max_snapshot: Option<u32>,
    /// Messages sent while the tab believed running.
    sent_believing_running: Vec<MessageId>,
}

/// Counts the orderings a run reaches, step by step (an [`Observer`]).
#[derive(Default)]
pub struct CoverageObserver {
    tabs: Vec<TabFacts>,
    /// What was counted so far.
    pub coverage: Coverage,
}

impl Observer for CoverageObserver {
    fn on_step(&mut self, world: &World, record: &StepRecord, _: StepAt, _: Option<&Violation>) {
        if self.tabs.is_empty() {
            self.tabs = vec![TabFacts::default(); world.clients().len()];
        }
        match (record.step, &record.input) {
            (Step::DeliverEvent { client, .. }, Some(Input::Event { event })) => {
                if record.position.is_some_and(|p| p > 0) {
                    self.coverage.hit("ws-event-reordered");
                }
                self.delivered(world, client, event);
            }
            (
                Step::DeliverFetchResponse { client, .. },
                Some(Input::FetchResponse { snapshot_seq, .. }),
            ) => {
                let t = &mut self.tabs[client as usize];
                if t.max_snapshot.is_some_and(|m| *snapshot_seq < m) {
                    self.coverage.hit("stale-fetch-applied");
                }
                t.max_snapshot = t.max_snapshot.max(Some(*snapshot_seq));
                if t.latest_start.is_some() && t.latest_start > t.latest_seal {
                    self.coverage.hit("reconcile-during-newer-turn");
                }
            }
            (Step::Send { client }, Some(Input::UserSend { message_id, .. })) => {
                self.sent(world, client, *message_id)
            }
            (Step::HandlePost { client }, _) => {
                if let Some((m, PostOutcome::Started { .. })) = record.posted {
                    if self.tabs[client as usize]
                        .sent_believing_running
                        .contains(&m)
                    {
                        self.coverage.hit("post-started-turn-tab-believed-running");
                    }
                }
            }
            (Step::AgentToolResult { interrupt: true }, _) => {
                self.coverage.hit("interrupt-consumption")
            }
            (Step::AgentEnd | Step::AgentFail, _) if record.consumed().is_some() => {
                self.coverage.hit("trailing-consumption")
            }
            (Step::AgentSeal, _) if record.consumed().is_some() => {
                self.coverage.hit("continuation-drain")
            }
            (Step::ServeFetch { .. }, _) => {
                let phase = world.backend().turn().map(|t| t.phase());
                if phase == Some(TurnPhase::Finishing) {
                    self.coverage.hit("fetch-served-before-write");
                }
            }
            _ => {}
        }
    }
}

impl CoverageObserver {
    fn delivered(&mut self, world: &World, client: ClientId, event: &Event) {
        let t = &mut self.tabs[client as usize];
        let c = world.client(client);
        let backend = world.backend();
        // Events reach a store with the server's ids where it minted them; the facts
        // are in the world's.
        let named = |wire: &MessageId| {
            let own = backend.world_id(*wire);
            let unexplained = own != *wire
                && c.sent().contains(&own)
                && c.post_responses().any(|a| a.server_id == Some(*wire));
            (own, unexplained)
        };
        let ids: Vec<(MessageId, bool)> = match event {
            Event::MessageQueued { message_id, .. } => vec![named(message_id)],
            Event::MessageConsumed { message_ids, .. } => message_ids.iter().map(named).collect(),
            _ => Vec::new(),
        };
        if ids.iter().any(|(_, unexplained)| *unexplained) {
            self.coverage.hit("server-id-before-post-response");
        }
        match event {
            Event::MessageQueued { text, .. } => {
                let own = ids[0].0;
                if text.is_some() && !c.sent().contains(&own) {
                    self.coverage.hit("queued-text-of-another-tab");
                }
                t.queued_seen.push(own)
            }
            Event::MessageConsumed { .. }
                if ids
                    .iter()
                    .any(|(m, _)| c.sent().contains(m) && !t.queued_seen.contains(m)) =>
            {
                self.coverage.hit("consumed-before-queued");
            }
            Event::TextDelta { turn_id: None, .. } => self.coverage.hit("delta-without-turn-id"),
            Event::TurnSealed { turn_id } => {
                if c.scrolled_up() {
                    self.coverage.hit("sealed-while-scrolled-up");
                }
                t.latest_seal = t.latest_seal.max(Some(*turn_id));
            }
            Event::TurnStart { turn_id } => t.latest_start = t.latest_start.max(Some(*turn_id)),
            Event::Status { status } => t.status_seen = Some(*status),
            _ => {}
        }
    }

    fn sent(&mut self, world: &World, client: ClientId, message: MessageId) {
        let t = &mut self.tabs[client as usize];
        if t.status_seen.is_none() {
            self.coverage.hit("fresh-tab-first-send");
        }
        let phase = world.backend().turn().map(|t| t.phase());
        if t.status_seen == Some(AgentStatus::Idle)
            && matches!(phase, Some(TurnPhase::Finishing | TurnPhase::Written))
        {
            self.coverage.hit("send-in-idle-before-seal-window");
        }
        if t.status_seen != Some(AgentStatus::Idle) {
            t.sent_believing_running.push(message);
        }
    }
}

/// Replay `steps` (a recorded run's main phase; the drain follows as it did) and count
/// the orderings they reached.
pub fn coverage_of(stores: &dyn StoreFactory, config: WorldConfig, steps: &[Step]) -> Coverage {
    let mut observer = CoverageObserver::default();
    replay_observed(stores, config, steps, &mut observer);
    observer.coverage
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::fuzz::run_one;

    #[test]
    fn a_campaign_reaches_every_ordering_and_counts_are_deterministic() {
        // durable never fails, so its runs go the whole way (a failing run stops early).
        let store = crate::store::by_name("durable").unwrap();
        let mut total = Coverage::default();
        for seed in 0..400 {
            let r = run_one(&store, crate::run::strategy::StrategySpec::Random, seed);
            total.merge(&coverage_of(&store, r.config, &r.steps));
        }
        // Only a store that POSTs without an id meets a minted one: `testing::paths`
        // reaches it with such a store.
        for (name, _) in ORDERINGS
            .iter()
            .filter(|(n, _)| *n != "server-id-before-post-response")
        {
            assert!(
                total.counts.get(*name).is_some_and(|n| *n > 0),
                "{name} never hit"
            );
        }
        let r = run_one(&store, crate::run::strategy::StrategySpec::Random, 3);
        let a = coverage_of(&store, r.config.clone(), &r.steps);
        let b = coverage_of(&store, r.config, &r.steps);
        assert_eq!(a, b);
    }

    #[test]
    fn a_run_without_sends_reaches_no_send_ordering() {
        let store = crate::store::by_name("current").unwrap();
        let mut cfg = crate::testing::script::scripted_config();
        cfg.sends_per_client = 0;
        let cov = coverage_of(&store, cfg, &[]);
        assert!(cov.counts.is_empty());
    }
}
