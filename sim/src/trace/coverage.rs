//! Coverage of interesting orderings, in the protocol's own terms: which of the orderings
//! the design note's bugs need did a run (or a campaign) actually reach, and how often.
//!
//! Computed only when asked, by replaying a run's trace and looking at the world before
//! each step, so the fuzzing hot path pays nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::config::WorldConfig;
use crate::model::step::Step;
use crate::model::store::StoreFactory;
use crate::model::wire::{AgentStatus, Event, MessageId, TurnId};
use crate::model::world::{TurnPhase, World};

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
];

/// Counts per ordering name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
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

/// Replay `steps` then `drain` and count the orderings they reached.
// One arm per step kind reads better than guards split across arms.
#[allow(clippy::collapsible_match)]
pub fn coverage_of(
    stores: &dyn StoreFactory,
    config: WorldConfig,
    steps: &[Step],
    drain: &[Step],
) -> Coverage {
    let mut world = World::new(config, stores);
    let mut tabs = vec![TabFacts::default(); world.clients.len()];
    let mut cov = Coverage::default();
    let mut scratch = Vec::new();
    for step in steps.iter().chain(drain) {
        if !world.is_enabled(step, &mut scratch) {
            continue;
        }
        match *step {
            Step::DeliverEvent { client, event } => {
                let c = &world.clients[client as usize];
                if c.inbox.front().is_some_and(|(id, _)| *id != event) {
                    cov.hit("ws-event-reordered");
                }
                let ev = c
                    .inbox
                    .iter()
                    .find(|(id, _)| *id == event)
                    .map(|(_, e)| e.clone());
                let t = &mut tabs[client as usize];
                match ev {
                    Some(Event::MessageQueued { message_id }) => t.queued_seen.push(message_id),
                    Some(Event::MessageConsumed { message_ids }) => {
                        if message_ids
                            .iter()
                            .any(|m| c.sent.contains(m) && !t.queued_seen.contains(m))
                        {
                            cov.hit("consumed-before-queued");
                        }
                    }
                    Some(Event::TurnSealed { turn_id }) => {
                        if c.scrolled_up {
                            cov.hit("sealed-while-scrolled-up");
                        }
                        t.latest_seal = t.latest_seal.max(Some(turn_id));
                    }
                    Some(Event::TurnStart { turn_id }) => {
                        t.latest_start = t.latest_start.max(Some(turn_id))
                    }
                    Some(Event::Status { status }) => t.status_seen = Some(status),
                    _ => {}
                }
            }
            Step::DeliverFetchResponse { client, request } => {
                let c = &world.clients[client as usize];
                let t = &mut tabs[client as usize];
                if let Some(f) = c.fetch_responses.iter().find(|f| f.request == request) {
                    if t.max_snapshot.is_some_and(|m| f.snapshot_seq < m) {
                        cov.hit("stale-fetch-applied");
                    }
                    t.max_snapshot = t.max_snapshot.max(Some(f.snapshot_seq));
                }
                if t.latest_start.is_some() && t.latest_start > t.latest_seal {
                    cov.hit("reconcile-during-newer-turn");
                }
            }
            Step::Send { client } => {
                let t = &mut tabs[client as usize];
                if t.status_seen.is_none() {
                    cov.hit("fresh-tab-first-send");
                }
                let phase = world.backend.turn.as_ref().map(|t| t.phase);
                if t.status_seen == Some(AgentStatus::Idle)
                    && matches!(phase, Some(TurnPhase::Finishing | TurnPhase::Written))
                {
                    cov.hit("send-in-idle-before-seal-window");
                }
                if t.status_seen != Some(AgentStatus::Idle) {
                    t.sent_believing_running.push(world.next_message_id());
                }
            }
            Step::HandlePost { client } => {
                let c = &world.clients[client as usize];
                if world.backend.turn.is_none()
                    && c.posts.front().is_some_and(|(m, _)| {
                        tabs[client as usize].sent_believing_running.contains(m)
                    })
                {
                    cov.hit("post-started-turn-tab-believed-running");
                }
            }
            Step::AgentToolResult { interrupt: true } => cov.hit("interrupt-consumption"),
            Step::AgentEnd | Step::AgentFail if !world.backend.queue.is_empty() => {
                cov.hit("trailing-consumption")
            }
            Step::ServeFetch { .. } => {
                if world
                    .backend
                    .turn
                    .as_ref()
                    .is_some_and(|t| t.phase == TurnPhase::Finishing)
                {
                    cov.hit("fetch-served-before-write");
                }
            }
            _ => {}
        }
        if world.apply(*step).is_err() {
            break;
        }
    }
    cov
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::fuzz::run_one;

    #[test]
    fn a_campaign_reaches_every_ordering_and_counts_are_deterministic() {
        let store = crate::store::by_name("current").unwrap();
        let mut total = Coverage::default();
        for seed in 0..400 {
            let r = run_one(&store, "random", seed);
            total.merge(&coverage_of(&store, r.config, &r.steps, &r.drain));
        }
        for (name, _) in ORDERINGS {
            assert!(
                total.counts.get(*name).is_some_and(|n| *n > 0),
                "{name} never hit"
            );
        }
        let r = run_one(&store, "random", 3);
        let a = coverage_of(&store, r.config.clone(), &r.steps, &r.drain);
        let b = coverage_of(&store, r.config, &r.steps, &r.drain);
        assert_eq!(a, b);
    }

    #[test]
    fn a_run_without_sends_reaches_no_send_ordering() {
        let store = crate::store::by_name("current").unwrap();
        let mut cfg = crate::testing::script::scripted_config();
        cfg.sends_per_client = 0;
        let cov = coverage_of(&store, cfg, &[], &[]);
        assert!(cov.counts.is_empty());
    }
}
