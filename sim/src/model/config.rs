//! The options of one simulated world, every one derived from the seed (swarm style, after
//! TigerBeetle's VOPR) and printed before anything else so a run is self-describing.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// The RNG stream the world options are drawn from; strategies use other streams of the
/// same seed so that changing a strategy never changes the world it explores.
pub const CONFIG_STREAM: u64 = 0;

/// Every option of a simulated world. Limits are named with their unit last.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// Whether a tab is sent the agent's current status when it connects. When false, a
    /// fresh tab believes the agent is running until the first `status` event.
    pub status_on_connect: bool,
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
            tool_calls_per_turn_max: rng.random_range(0u32..=2) as u8,
            turn_failures: rng.random_bool(0.25),
            ws_reorder_window: if rng.random_bool(0.75) {
                1
            } else {
                rng.random_range(2u32..=3) as u8
            },
            status_on_connect: rng.random_bool(0.75),
            steps_max: 200,
            drain_steps_max: 2000,
        }
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

    #[test]
    fn every_world_has_two_clients_and_a_sender() {
        for seed in 0..500 {
            let c = WorldConfig::from_seed(seed);
            assert!(c.clients >= 2);
            assert!((0..c.clients).any(|i| c.is_active(i)));
        }
    }
}
