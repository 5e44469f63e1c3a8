//! The options of one simulated world, every one derived from the seed (swarm style, after
//! TigerBeetle's VOPR) and printed before anything else so a run is self-describing.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::model::content::MessageTexts;
use crate::model::judged::Judged;

/// Whether messages are the default unique tokens (the field is then left out of files,
/// which keeps older scenario files as they were).
fn is_tokens(texts: &MessageTexts) -> bool {
    *texts == MessageTexts::Tokens
}

/// The RNG stream the world options are drawn from; strategies use other streams of the
/// same seed so that changing a strategy never changes the world it explores.
pub const CONFIG_STREAM: u64 = 0;

/// The RNG stream the backend-fidelity options (the paths real backends have beyond the
/// note's) are drawn from: a stream of their own, so that adding them left every option
/// drawn before them as it was for every seed.
pub const BACKEND_STREAM: u64 = 2;

/// The value of a retired option: read from older files (any value) and ignored, never
/// written. A unit, so every world compares equal on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Retired;

impl<'de> Deserialize<'de> for Retired {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(|_| Retired)
    }
}

/// Whether a flag is off (the note's world), so that it is left out of files: older files
/// and the note's bug scenarios keep their bytes.
fn is_false(flag: &bool) -> bool {
    !*flag
}

/// Every option of a simulated world. Limits are named with their unit last.
// Ordered field by field so that a world can key a map of runs (`campaign::seen_runs`);
// a plain comment, as the doc comment is the scenario schema's description.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct WorldConfig {
    /// Browser tabs on the one chat session (≥ 2).
    pub clients: u8,
    /// The last client is a passive observer that never sends.
    pub passive_observer: bool,
    /// Messages each active client's user sends over the run.
    pub sends_per_client: u8,
    /// Scroll up/down toggles each user may make.
    pub scrolls_per_client: u8,
    /// Text deltas the agent streams per reply segment.
    pub deltas_per_segment_max: u8,
    /// Tool calls the agent makes per turn (each a possible interrupt boundary).
    pub tool_calls_per_turn_max: u8,
    /// Whether a turn may fail (`status error`).
    pub turn_failures: bool,
    /// WebSocket reordering window per client: 1 delivers in order; k lets any of the k
    /// oldest undelivered events arrive next.
    pub ws_reorder_window: u8,
    /// How many later events may overtake any one event within the reordering window
    /// (arrive at the tab while it is still on its way). Absent: any number, so one event
    /// may wait behind every later one. A bound of exhaustive search (`explore
    /// --overtakes`), not an option of the seeds' worlds: every order of arrival it
    /// allows, the unbounded window allows too, so the fuzzers, which always leave it
    /// absent, cover every behaviour of every bound. Absent in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ws_overtakes_max: Option<u8>,
    /// Whether a tab is sent the agent's current status when it connects. When false, a
    /// fresh tab believes the agent is running until the first `status` event.
    pub status_on_connect: bool,
    /// How users' messages are written: unique tokens, or everyday texts that repeat and
    /// contain one another (absent in older files: tokens).
    #[serde(default, skip_serializing_if = "is_tokens")]
    pub message_texts: MessageTexts,
    /// Beyond the note (real backends do this): a POST handled while a turn is finishing
    /// (between `status idle` and `turn-sealed`) is queued instead of waiting, and at the
    /// seal the queue is drained into a new turn whose initiator user row holds the
    /// queued messages' texts joined with a newline (`message-consumed`, then
    /// `turn-start`). Absent in older files: false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub continuation_drains: bool,
    /// Beyond the note: `message-consumed` says why (`reason`: `interrupt`, `trailing` or
    /// `continuation`). Absent in older files: false (the note's event has no reason).
    #[serde(default, skip_serializing_if = "is_false")]
    pub consume_reasons: bool,
    /// Beyond the note: `message-queued` carries the message's `text`, so a tab may show
    /// another tab's pending message. Absent in older files: false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub queued_texts: bool,
    /// Retired (was `server_ids`): every world's backend now mints an id for a POST that
    /// carries none, as real backends do (`docs/protocol.md`, "What the world accepts").
    /// Read and ignored, so files written before keep loading; never written.
    #[serde(default, rename = "server_ids", skip_serializing)]
    #[schemars(skip)]
    pub retired_server_ids: Retired,
    /// Beyond the note: `text-delta` carries no turn id (the store attributes it to the
    /// turn it believes is streaming). Only with in-order delivery (`ws_reorder_window`
    /// 1): a backend that leaves the turn out relies on its one socket's order. Absent in
    /// older files: false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub deltas_without_turn_ids: bool,
    /// Not an option of the world but, like the run limits below, of the run: the
    /// invariants the oracle judges (`--invariants` / `--skip`; see
    /// [`crate::oracle::judged`]). Absent: every invariant (older files, and every run
    /// that did not choose).
    #[serde(default, skip_serializing_if = "Judged::is_all")]
    pub judged: Judged,
    /// Steps chosen by the strategy before the drain phase.
    pub steps_max: u32,
    /// Steps the deterministic drain phase may take before it counts as not converging.
    pub drain_steps_max: u32,
}

impl WorldConfig {
    /// The world options for `seed`.
    pub fn from_seed(seed: u64) -> WorldConfig {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(CONFIG_STREAM);
        let clients = rng.random_range(2u32..=3) as u8;
        WorldConfig {
            clients,
            passive_observer: rng.random_bool(0.25),
            sends_per_client: rng.random_range(1u32..=3) as u8,
            scrolls_per_client: rng.random_range(0u32..=4) as u8,
            deltas_per_segment_max: rng.random_range(1u32..=3) as u8,
            // Tool-heavy: most turns may call tools, many more than once (tool turns are
            // where interrupts are folded and segments end, and bugs hide there).
            tool_calls_per_turn_max: [0u8, 1, 1, 2, 2, 2, 3, 3][rng.random_range(0u32..8) as usize],
            turn_failures: rng.random_bool(0.25),
            ws_reorder_window: if rng.random_bool(0.75) {
                1
            } else {
                rng.random_range(2u32..=3) as u8
            },
            ws_overtakes_max: None,
            status_on_connect: rng.random_bool(0.75),
            message_texts: if rng.random_bool(0.3) {
                MessageTexts::Colliding
            } else {
                MessageTexts::Tokens
            },
            continuation_drains: false,
            consume_reasons: false,
            queued_texts: false,
            retired_server_ids: Retired,
            deltas_without_turn_ids: false,
            judged: Judged::ALL,
            steps_max: STEPS_MAX_DEFAULT,
            drain_steps_max: DRAIN_STEPS_MAX_DEFAULT,
        }
        .with_backend_drawn(seed)
    }

    /// `self` with the backend-fidelity options drawn for `seed`, from their own stream
    /// ([`BACKEND_STREAM`]). Each real-backend path is in about a quarter to a half of
    /// the seeds' worlds, so most worlds still exercise the note's paths alone.
    fn with_backend_drawn(mut self, seed: u64) -> WorldConfig {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(BACKEND_STREAM);
        self.continuation_drains = rng.random_bool(0.25);
        self.consume_reasons = rng.random_bool(0.5);
        self.queued_texts = rng.random_bool(0.25);
        // Once `server_ids`, retired (every backend mints ids now): still drawn, so every
        // option drawn after it keeps its value for every seed.
        let _retired_server_ids = rng.random_bool(0.25);
        // Drawn always (one draw per option, whatever the world), kept only where it is
        // coherent: a backend that leaves the turn out of deltas relies on in-order delivery.
        let without_turn_ids = rng.random_bool(0.25);
        self.deltas_without_turn_ids = without_turn_ids && self.ws_reorder_window == 1;
        self
    }

    /// Why this combination of options is not a world a real system has, if it is not:
    /// the one place such combinations are refused (files, flags and fuzz bytes alike).
    pub fn incoherence(&self) -> Option<String> {
        if self.deltas_without_turn_ids && self.ws_reorder_window > 1 {
            return Some(format!(
                "deltas_without_turn_ids = true needs ws_reorder_window = 1 (got {}): a backend that leaves the turn out of text deltas relies on in-order delivery, and under reordering no store could tell which turn a delta belongs to",
                self.ws_reorder_window
            ));
        }
        None
    }

    /// Clients whose users send messages.
    pub fn is_active(&self, client: u8) -> bool {
        !(self.passive_observer && client + 1 == self.clients)
    }

    /// One line per option, `name = value`, sorted by name.
    pub fn describe(&self) -> String {
        let value = serde_json::to_value(self).expect("config serialises");
        let mut out = String::new();
        if let serde_json::Value::Object(map) = value {
            for (k, v) in map {
                out.push_str(&format!("  {k} = {v}\n"));
            }
        }
        out
    }
}

/// How the shrinker may cut an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// It is part of the world's shape, not a budget: the shrinker leaves it alone (it
    /// drops whole clients in its own pass).
    Never,
    /// A budget: lower it one at a time, down to the option's minimum.
    Down,
}

/// One option of a world's shape, as the code that enumerates options sees it: its name,
/// the range the fuzzers may give it (wider than what [`WorldConfig::from_seed`] draws, to
/// reach what the shrinker cuts worlds down to), and how the shrinker may cut it. Booleans
/// read 0 and 1.
#[derive(Clone, Copy)]
pub struct WorldOption {
    /// The field's name, as in scenario files.
    pub name: &'static str,
    /// The smallest value a fuzzer gives it.
    pub min: u8,
    /// The largest value a fuzzer gives it.
    pub max: u8,
    /// How the shrinker may cut it, and in which order among the cuts (lower first).
    pub cut: (Cut, u8),
    /// Read it.
    pub get: fn(&WorldConfig) -> u8,
    /// Write it.
    pub set: fn(&mut WorldConfig, u8),
}

impl std::fmt::Debug for WorldOption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

macro_rules! option {
    ($name:ident: u8, $min:literal..=$max:literal, $cut:expr) => {
        WorldOption {
            name: stringify!($name),
            min: $min,
            max: $max,
            cut: $cut,
            get: |c| c.$name,
            set: |c, v| c.$name = v,
        }
    };
    ($name:ident: texts, $cut:expr) => {
        WorldOption {
            name: stringify!($name),
            min: 0,
            max: 1,
            cut: $cut,
            get: |c| u8::from(c.$name == MessageTexts::Colliding),
            set: |c, v| {
                c.$name = if v == 0 {
                    MessageTexts::Tokens
                } else {
                    MessageTexts::Colliding
                }
            },
        }
    };
    ($name:ident: bool, $cut:expr) => {
        WorldOption {
            name: stringify!($name),
            min: 0,
            max: 1,
            cut: $cut,
            get: |c| u8::from(c.$name),
            set: |c, v| c.$name = v != 0,
        }
    };
}

impl WorldConfig {
    /// Every option of the world's shape, in field order: the one list the fuzz byte
    /// encoding, the proptest generator and the shrinker's budget cuts are derived from.
    /// (The run limits `steps_max` and `drain_steps_max` are not options of the world,
    /// nor is `ws_overtakes_max`, a bound of exhaustive search that narrows what the
    /// unbounded default allows.) A test checks it names every field, so a new option
    /// added without a row fails.
    pub const OPTIONS: [WorldOption; 14] = [
        option!(clients: u8, 1..=3, (Cut::Never, 0)),
        option!(passive_observer: bool, (Cut::Never, 0)),
        option!(sends_per_client: u8, 0..=3, (Cut::Down, 0)),
        option!(scrolls_per_client: u8, 0..=4, (Cut::Down, 1)),
        option!(deltas_per_segment_max: u8, 0..=3, (Cut::Down, 2)),
        option!(tool_calls_per_turn_max: u8, 0..=3, (Cut::Down, 3)),
        option!(turn_failures: bool, (Cut::Down, 5)),
        option!(ws_reorder_window: u8, 1..=3, (Cut::Down, 4)),
        option!(status_on_connect: bool, (Cut::Never, 0)),
        option!(message_texts: texts, (Cut::Down, 6)),
        option!(continuation_drains: bool, (Cut::Down, 7)),
        option!(consume_reasons: bool, (Cut::Down, 8)),
        option!(queued_texts: bool, (Cut::Down, 9)),
        option!(deltas_without_turn_ids: bool, (Cut::Down, 11)),
    ];

    /// The options the shrinker cuts, in the order it tries them.
    pub fn cuts() -> Vec<WorldOption> {
        let mut cuts: Vec<WorldOption> = Self::OPTIONS
            .into_iter()
            .filter(|o| o.cut.0 == Cut::Down)
            .collect();
        cuts.sort_by_key(|o| o.cut.1);
        cuts
    }

    /// A world with every option at `values` (one per [`WorldConfig::OPTIONS`] row) and the
    /// default run limits.
    pub fn from_options(values: impl IntoIterator<Item = u8>) -> WorldConfig {
        let mut config = WorldConfig {
            clients: 1,
            passive_observer: false,
            sends_per_client: 0,
            scrolls_per_client: 0,
            deltas_per_segment_max: 0,
            tool_calls_per_turn_max: 0,
            turn_failures: false,
            ws_reorder_window: 1,
            ws_overtakes_max: None,
            status_on_connect: false,
            message_texts: MessageTexts::Tokens,
            continuation_drains: false,
            consume_reasons: false,
            queued_texts: false,
            retired_server_ids: Retired,
            deltas_without_turn_ids: false,
            judged: Judged::ALL,
            steps_max: STEPS_MAX_DEFAULT,
            drain_steps_max: DRAIN_STEPS_MAX_DEFAULT,
        };
        for (option, v) in Self::OPTIONS.iter().zip(values) {
            (option.set)(&mut config, v);
        }
        // Bytes may ask for an incoherent world: keep the option that shapes the
        // transport and drop the one that needs another transport.
        if config.incoherence().is_some() {
            config.deltas_without_turn_ids = false;
        }
        config
    }
}

/// Steps a strategy may choose before the drain phase.
pub const STEPS_MAX_DEFAULT: u32 = 200;
/// Steps the drain phase may take before it counts as not converging.
pub const DRAIN_STEPS_MAX_DEFAULT: u32 = 2000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_config_and_configs_vary() {
        assert_eq!(WorldConfig::from_seed(7), WorldConfig::from_seed(7));
        let distinct: std::collections::BTreeSet<String> = (0..50)
            .map(|s| format!("{:?}", WorldConfig::from_seed(s)))
            .collect();
        assert!(distinct.len() > 20, "seeds should derive varied worlds");
    }

    /// The option table names every field but the run limits, in field order, and reads
    /// and writes the field it names.
    #[test]
    fn the_option_table_covers_every_option() {
        let mut config = WorldConfig::from_seed(3);
        config.message_texts = MessageTexts::Colliding;
        // Options left out of files while at the note's value: set, so they are written.
        config.continuation_drains = true;
        config.consume_reasons = true;
        config.queued_texts = true;
        config.deltas_without_turn_ids = true;
        assert_eq!(config.ws_overtakes_max, None, "no seed bounds overtaking");
        let value = serde_json::to_value(config).unwrap();
        assert!(
            value.get("ws_overtakes_max").is_none(),
            "left out when absent"
        );
        let fields: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .filter(|k| !["steps_max", "drain_steps_max", "judged"].contains(k))
            .collect();
        let mut names: Vec<&str> = WorldConfig::OPTIONS.iter().map(|o| o.name).collect();
        names.sort_unstable();
        assert_eq!(fields, names, "serde writes fields sorted");
        for (i, option) in WorldConfig::OPTIONS.iter().enumerate() {
            let mut config = WorldConfig::from_options(WorldConfig::OPTIONS.map(|o| o.min));
            (option.set)(&mut config, option.max);
            assert_eq!((option.get)(&config), option.max, "{}", option.name);
            let json = serde_json::to_value(&config).unwrap();
            let expected = if option.name == "message_texts" {
                serde_json::json!("colliding")
            } else if option.max == 1 && option.min == 0 && json[option.name].is_boolean() {
                serde_json::json!(true)
            } else {
                serde_json::json!(option.max)
            };
            assert_eq!(
                json[option.name], expected,
                "row {i} writes {}",
                option.name
            );
        }
    }

    #[test]
    fn every_world_has_two_clients_and_a_sender() {
        for seed in 0..500 {
            let c = WorldConfig::from_seed(seed);
            assert!(c.clients >= 2);
            assert!((0..c.clients).any(|i| c.is_active(i)));
        }
    }
}
