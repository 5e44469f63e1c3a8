//! What a witness assumes of the world: the features of the simulated world a failure
//! needs, so a team whose system does not have one can tell the finding is not theirs.
//!
//! A world's options are the note's world plus choices real apps make differently (one
//! ordered socket per tab, no turn failures, the backend paths of `docs/model.md`'s
//! "Beyond the note"). A finding that needs WebSocket reordering is a bug of a store
//! only for an app whose transport reorders. So each saved witness lists the
//! [`Assumption`]s it **needs**: each feature its world has and without which replaying
//! the same steps no longer shows the same failure ([`needed`]). For a 1-minimal witness
//! this is exact for every feature the shrinker can cut (it already tried, and every
//! option in [`Assumption::ALL`] but another tab is one of its cuts); for a witness saved
//! unshrunk it is still checked by replay, except "another tab", which is then only what
//! the witness has.

use serde::{Deserialize, Serialize};

use crate::model::config::WorldConfig;
use crate::model::content::MessageTexts;

/// A feature of the simulated world a failure may need.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Assumption {
    /// WebSocket events reach a tab out of emission order (`ws_reorder_window` > 1). An
    /// app with one socket per tab never sees this.
    WsReordering,
    /// A turn fails (`turn_failures`).
    FailedTurn,
    /// Another tab of the same session (`clients` ≥ 2, the passive observer included).
    AnotherTab,
    /// Message texts that repeat or contain one another (`message_texts = colliding`).
    CollidingTexts,
    /// The backend drains its queue between turns into a new turn (`continuation_drains`).
    ContinuationDrains,
    /// `message-consumed` says why (`consume_reasons`).
    ConsumeReasons,
    /// `message-queued` carries the text (`queued_texts`).
    QueuedTexts,
    /// `text-delta` without a turn id (`deltas_without_turn_ids`).
    DeltasWithoutTurnIds,
}

impl Assumption {
    /// Every assumption, in report order.
    pub const ALL: [Assumption; 8] = [
        Assumption::WsReordering,
        Assumption::FailedTurn,
        Assumption::AnotherTab,
        Assumption::CollidingTexts,
        Assumption::ContinuationDrains,
        Assumption::ConsumeReasons,
        Assumption::QueuedTexts,
        Assumption::DeltasWithoutTurnIds,
    ];

    /// What a person reads.
    pub fn name(self) -> &'static str {
        match self {
            Assumption::WsReordering => "WebSocket reordering",
            Assumption::FailedTurn => "a failed turn",
            Assumption::AnotherTab => "another tab",
            Assumption::CollidingTexts => "colliding texts",
            Assumption::ContinuationDrains => "continuation drains",
            Assumption::ConsumeReasons => "consume reasons",
            Assumption::QueuedTexts => "queued texts",
            Assumption::DeltasWithoutTurnIds => "deltas without turn ids",
        }
    }

    /// The `--world` setting that rules it out.
    pub fn without(self) -> &'static str {
        match self {
            Assumption::WsReordering => "ws_reorder_window=1",
            Assumption::FailedTurn => "turn_failures=false",
            Assumption::AnotherTab => "clients=1",
            Assumption::CollidingTexts => "message_texts=tokens",
            Assumption::ContinuationDrains => "continuation_drains=false",
            Assumption::ConsumeReasons => "consume_reasons=false",
            Assumption::QueuedTexts => "queued_texts=false",
            Assumption::DeltasWithoutTurnIds => "deltas_without_turn_ids=false",
        }
    }

    /// The world option it is a value of (`ws_reorder_window`): the name in [`Self::without`].
    pub fn option(self) -> &'static str {
        self.without().split_once('=').map_or("", |(name, _)| name)
    }

    /// Whether `config`'s world has it.
    pub fn holds(self, config: &WorldConfig) -> bool {
        match self {
            Assumption::WsReordering => config.ws_reorder_window > 1,
            Assumption::FailedTurn => config.turn_failures,
            Assumption::AnotherTab => config.clients > 1,
            Assumption::CollidingTexts => config.message_texts == MessageTexts::Colliding,
            Assumption::ContinuationDrains => config.continuation_drains,
            Assumption::ConsumeReasons => config.consume_reasons,
            Assumption::QueuedTexts => config.queued_texts,
            Assumption::DeltasWithoutTurnIds => config.deltas_without_turn_ids,
        }
    }

    /// `config` without it, when the same steps can be replayed there (not for another
    /// tab: the steps name the tabs; the shrinker drops whole tabs in a pass of its own).
    fn lifted(self, config: &WorldConfig) -> Option<WorldConfig> {
        let mut c = config.clone();
        match self {
            Assumption::WsReordering => {
                c.ws_reorder_window = 1;
                c.ws_overtakes_max = None;
            }
            Assumption::FailedTurn => c.turn_failures = false,
            Assumption::AnotherTab => return None,
            Assumption::CollidingTexts => c.message_texts = MessageTexts::Tokens,
            Assumption::ContinuationDrains => c.continuation_drains = false,
            Assumption::ConsumeReasons => c.consume_reasons = false,
            Assumption::QueuedTexts => c.queued_texts = false,
            Assumption::DeltasWithoutTurnIds => c.deltas_without_turn_ids = false,
        }
        Some(c)
    }
}

impl Assumption {
    /// `config`'s world without it, for a search of new runs (not a replay: the steps
    /// change, so one tab can stand for two), when that world is coherent.
    pub fn world_without(self, config: &WorldConfig) -> Option<WorldConfig> {
        let c = match self {
            Assumption::AnotherTab => {
                let mut c = config.clone();
                c.clients = 1;
                c.passive_observer = false;
                c
            }
            other => other.lifted(config)?,
        };
        c.incoherence().is_none().then_some(c)
    }

    /// Schedules (random, PCT and swarm in turn) a campaign tries in the world without it before it reports a
    /// class as needing it: WebSocket reordering, the assumption most apps do not make,
    /// gets the most.
    pub fn tries(self) -> u64 {
        match self {
            Assumption::WsReordering => 1536,
            _ => 384,
        }
    }
}

impl std::fmt::Display for Assumption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The assumptions `config`'s world has, in report order.
pub fn present(config: &WorldConfig) -> Vec<Assumption> {
    Assumption::ALL
        .into_iter()
        .filter(|a| a.holds(config))
        .collect()
}

/// The assumptions the witness in `config` needs: each one its world has for which
/// `still_fails` (a replay of the witness's steps in the world without it, judged for
/// the same failure) says no. "Another tab" is needed whenever the world has it (see
/// [`Assumption::lifted`]). At most one replay per assumption the world has.
pub fn needed(
    config: &WorldConfig,
    mut still_fails: impl FnMut(WorldConfig) -> bool,
) -> Vec<Assumption> {
    present(config)
        .into_iter()
        .filter(|a| match a.lifted(config) {
            Some(c) if c.incoherence().is_none() => !still_fails(c),
            Some(_) => true,
            None => true,
        })
        .collect()
}

/// The names of assumptions retired since files recorded them: read and dropped, so
/// those files keep loading (`server-ids`: every world mints ids for id-less POSTs now).
const RETIRED: [&str; 1] = ["server-ids"];

/// Read a list of needs as files write it, dropping [`RETIRED`] names: `needs` of a
/// scenario file (`#[serde(deserialize_with)]`).
pub fn deserialize_needs<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<Assumption>>, D::Error> {
    let Some(names) = Option::<Vec<String>>::deserialize(d)? else {
        return Ok(None);
    };
    names
        .into_iter()
        .filter(|n| !RETIRED.contains(&n.as_str()))
        .map(|n| {
            Assumption::deserialize(serde::de::value::StrDeserializer::<serde_json::Error>::new(
                &n,
            ))
            .map_err(serde::de::Error::custom)
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// "needs WebSocket reordering, another tab", or "needs nothing beyond the note's
/// basics" when empty: how reports print a finding's assumptions.
pub fn describe(needs: &[Assumption]) -> String {
    if needs.is_empty() {
        "needs: none of the optional world features".to_string()
    } else {
        let names: Vec<&str> = needs.iter().map(|a| a.name()).collect();
        format!("needs: {}", names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_assumption_can_be_lifted_except_another_tab_and_lifting_removes_it() {
        let mut config = WorldConfig::from_seed(7);
        config.ws_reorder_window = 3;
        config.turn_failures = true;
        config.clients = 2;
        config.message_texts = MessageTexts::Colliding;
        config.continuation_drains = true;
        config.consume_reasons = true;
        config.queued_texts = true;
        config.deltas_without_turn_ids = false;
        let has = present(&config);
        assert_eq!(has.len(), 7, "{has:?}");
        for a in has {
            match a.lifted(&config) {
                None => assert_eq!(a, Assumption::AnotherTab),
                Some(c) => {
                    assert!(!a.holds(&c), "{a:?} still holds once lifted");
                    let others: Vec<_> = present(&c);
                    assert_eq!(others.len(), 6, "lifting {a:?} lifted more: {others:?}");
                }
            }
        }
    }

    #[test]
    fn a_retired_need_is_read_and_dropped_and_an_unknown_one_refused() {
        #[derive(Deserialize)]
        struct Needs {
            #[serde(deserialize_with = "deserialize_needs")]
            needs: Option<Vec<Assumption>>,
        }
        let read = |text: &str| serde_json::from_str::<Needs>(text).map(|n| n.needs);
        assert_eq!(
            read(r#"{"needs":["server-ids","another-tab"]}"#).unwrap(),
            Some(vec![Assumption::AnotherTab])
        );
        assert_eq!(read(r#"{"needs":null}"#).unwrap(), None);
        let err = read(r#"{"needs":["teleporting"]}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("teleporting"), "{err}");
    }

    #[test]
    fn needed_keeps_what_the_failure_needs_and_drops_what_it_does_not() {
        let mut config = WorldConfig::from_seed(7);
        config.ws_reorder_window = 2;
        config.turn_failures = true;
        config.clients = 1;
        config.message_texts = MessageTexts::Tokens;
        config.continuation_drains = false;
        config.consume_reasons = false;
        config.queued_texts = false;
        config.deltas_without_turn_ids = false;
        // A failure that happens only with reordering, whatever turn failures do.
        let needs = needed(&config, |c| c.ws_reorder_window > 1);
        assert_eq!(needs, vec![Assumption::WsReordering]);
        // One that happens only with failed turns.
        let needs = needed(&config, |c| c.turn_failures);
        assert_eq!(needs, vec![Assumption::FailedTurn]);
        assert_eq!(
            describe(&[Assumption::WsReordering, Assumption::AnotherTab]),
            "needs: WebSocket reordering, another tab"
        );
        assert_eq!(describe(&[]), "needs: none of the optional world features");
    }

    /// What reports print of each assumption: its name (also as `Display`), the `--world`
    /// setting that rules it out (a valid pin, under which no drawn world has it) and the
    /// option that setting names; reordering gets four times the other searches' tries.
    #[test]
    fn each_assumption_is_named_and_ruled_out_by_the_pin_it_prints() {
        let names: Vec<String> = Assumption::ALL.iter().map(|a| a.to_string()).collect();
        assert_eq!(
            names,
            [
                "WebSocket reordering",
                "a failed turn",
                "another tab",
                "colliding texts",
                "continuation drains",
                "consume reasons",
                "queued texts",
                "deltas without turn ids",
            ]
        );
        let options: Vec<&str> = Assumption::ALL.iter().map(|a| a.option()).collect();
        assert_eq!(
            options,
            [
                "ws_reorder_window",
                "turn_failures",
                "clients",
                "message_texts",
                "continuation_drains",
                "consume_reasons",
                "queued_texts",
                "deltas_without_turn_ids",
            ]
        );
        for a in Assumption::ALL {
            assert_eq!(a.name(), a.to_string());
            let pins = crate::model::pins::WorldPins::parse(&[a.without()])
                .unwrap_or_else(|e| panic!("{a:?}: {e}"));
            assert_eq!(pins.settings(), [a.without()], "{a:?}");
            assert!(
                (0..64).all(|seed| !a.holds(&pins.draw(seed))),
                "{a:?} held under {}",
                a.without()
            );
            assert!(
                (0..64).any(|seed| a.holds(&WorldConfig::from_seed(seed))),
                "{a:?} never drawn"
            );
            let tries = if a == Assumption::WsReordering {
                1536
            } else {
                384
            };
            assert_eq!(a.tries(), tries, "{a:?}");
        }
    }

    /// Where each numeric assumption starts: reordering from a window of 2, another tab
    /// from 2 clients; colliding texts only with `colliding`.
    #[test]
    fn holds_starts_at_a_window_of_two_and_at_two_tabs() {
        let mut c = WorldConfig::from_seed(7);
        for (window, holds) in [(1, false), (2, true), (3, true)] {
            c.ws_reorder_window = window;
            assert_eq!(Assumption::WsReordering.holds(&c), holds, "window {window}");
        }
        for (clients, holds) in [(1, false), (2, true), (3, true)] {
            c.clients = clients;
            assert_eq!(Assumption::AnotherTab.holds(&c), holds, "{clients} clients");
        }
        c.message_texts = MessageTexts::Tokens;
        assert!(!Assumption::CollidingTexts.holds(&c));
        c.message_texts = MessageTexts::Colliding;
        assert!(Assumption::CollidingTexts.holds(&c));
    }

    /// A search's world without another tab has one active tab; without any other
    /// assumption it is the lifted world; none when the world left is incoherent.
    #[test]
    fn world_without_cuts_to_one_active_tab_and_refuses_an_incoherent_world() {
        let mut config = WorldConfig::from_seed(7);
        config.clients = 3;
        config.passive_observer = true;
        config.turn_failures = true;
        config.ws_reorder_window = 2;
        config.deltas_without_turn_ids = false;
        let mut one = config.clone();
        one.clients = 1;
        one.passive_observer = false;
        assert_eq!(Assumption::AnotherTab.world_without(&config), Some(one));
        let mut no_failures = config.clone();
        no_failures.turn_failures = false;
        assert_eq!(
            Assumption::FailedTurn.world_without(&config),
            Some(no_failures)
        );
        // Turnless deltas under reordering: lifting failed turns leaves it incoherent,
        // lifting reordering makes it coherent.
        config.deltas_without_turn_ids = true;
        assert_eq!(Assumption::FailedTurn.world_without(&config), None);
        let lifted = Assumption::WsReordering.world_without(&config).unwrap();
        assert_eq!(
            (lifted.ws_reorder_window, lifted.ws_overtakes_max),
            (1, None)
        );
    }

    /// An assumption whose lifted world is incoherent is needed without a replay (none
    /// could be judged); another tab is needed whenever the world has it.
    #[test]
    fn needed_keeps_an_assumption_it_cannot_replay_without() {
        let mut config = WorldConfig::from_seed(7);
        config.ws_reorder_window = 2;
        config.deltas_without_turn_ids = true;
        config.turn_failures = true;
        config.clients = 2;
        config.message_texts = MessageTexts::Tokens;
        config.continuation_drains = false;
        config.consume_reasons = false;
        config.queued_texts = false;
        let mut replayed = Vec::new();
        let needs = needed(&config, |c| {
            replayed.push(c);
            true
        });
        assert_eq!(needs, [Assumption::FailedTurn, Assumption::AnotherTab]);
        // Only the coherent lifts were replayed: without reordering, without turnless deltas.
        assert_eq!(replayed.len(), 2, "{replayed:?}");
    }
}
