//! How a command's worlds come from seeds: the seed draws them
//! ([`WorldConfig::from_seed`]), `--world` pins them ([`WorldPins`]), and `--invariants`
//! / `--skip` choose what the oracle judges in them ([`Judged`]). One value every command
//! that draws worlds carries, writes to its result file and compares when shards merge.

use serde::{Deserialize, Serialize};

use crate::model::config::WorldConfig;
use crate::model::judged::Judged;
use crate::model::pins::{WorldPins, WORLD_ENV};
use crate::oracle::judged::JudgedExt;

/// The environment variable the cargo-fuzz targets read the judged invariants from (a
/// `--invariants` list).
pub const INVARIANTS_ENV: &str = "RECONCILE_SIM_INVARIANTS";

/// How a command's worlds come from seeds: drawn by the seed, pinned by `--world`, and
/// judged as `--invariants` / `--skip` chose. The default is the note's world, every
/// invariant judged: what every command did before these flags. Written to result files
/// and compared when shards are merged (shards of one run must agree).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Worlds {
    /// What `--world` pinned.
    #[serde(default, skip_serializing_if = "WorldPins::is_empty")]
    pub pins: WorldPins,
    /// The invariants judged.
    #[serde(default, skip_serializing_if = "Judged::is_all")]
    pub judged: Judged,
}

impl Worlds {
    /// The world of `seed`.
    pub fn draw(&self, seed: u64) -> WorldConfig {
        let mut c = self.pins.apply(WorldConfig::from_seed(seed));
        c.judged = self.judged;
        c
    }

    /// `config` (a scenario's, a fuzz input's) with these pins and this choice of
    /// invariants applied.
    pub fn apply(&self, config: WorldConfig) -> WorldConfig {
        let mut c = self.pins.apply(config);
        c.judged = self.judged;
        c
    }

    /// What the cargo-fuzz targets read from the environment: the pins of [`WORLD_ENV`]
    /// and the invariants of [`INVARIANTS_ENV`] (a `--invariants` list).
    pub fn from_env() -> Result<Worlds, String> {
        let pins = WorldPins::from_env()?;
        let judged = match std::env::var(INVARIANTS_ENV) {
            Ok(list) => crate::oracle::judged::from_flags(Some(&list), None)
                .map_err(|e| format!("{INVARIANTS_ENV}: {e}"))?,
            Err(_) => Judged::ALL,
        };
        Ok(Worlds { pins, judged })
    }

    /// The environment that makes a cargo-fuzz target draw these worlds (empty for the
    /// default).
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let mut env = Vec::new();
        if !self.pins.is_empty() {
            env.push((WORLD_ENV, self.pins.settings().join(" ")));
        }
        if !self.judged.is_all() {
            env.push((INVARIANTS_ENV, self.judged.list()));
        }
        env
    }

    /// Whether nothing is pinned and everything judged.
    pub fn is_default(&self) -> bool {
        self.pins.is_empty() && self.judged.is_all()
    }

    /// The flags that choose these worlds again (empty for the default).
    pub fn flags(&self) -> String {
        format!("{}{}", self.pins.flags(), self.judged.flags())
    }

    /// One line for a header: `world: ws_reorder_window=1 · invariants: …`, empty for the
    /// default.
    pub fn header(&self) -> String {
        let mut parts = Vec::new();
        if !self.pins.is_empty() {
            parts.push(format!("world pins: {}", self.pins));
        }
        if !self.judged.is_all() {
            parts.push(format!("invariants: {}", self.judged.describe()));
        }
        parts.join(" · ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Invariant;

    #[test]
    fn the_default_draws_what_the_seed_draws_and_prints_nothing() {
        let w = Worlds::default();
        assert!(w.is_default());
        assert_eq!(w.flags(), "");
        assert_eq!(w.header(), "");
        assert!(w.env().is_empty());
        for seed in 0..100 {
            assert_eq!(w.draw(seed), WorldConfig::from_seed(seed));
        }
    }

    #[test]
    fn pins_and_invariants_show_in_flags_header_env_and_draws() {
        let w = Worlds {
            pins: WorldPins::parse(&["ordered-socket"]).unwrap(),
            judged: crate::oracle::judged::from_flags(None, Some("inv5")).unwrap(),
        };
        assert_eq!(
            w.flags(),
            " --world ws_reorder_window=1 --invariants inv1-no-loss,inv2-no-duplicate,inv3-newer-turn,inv4-converges"
        );
        assert_eq!(
            w.header(),
            "world pins: ws_reorder_window=1 · invariants: inv1-no-loss,inv2-no-duplicate,inv3-newer-turn,inv4-converges (skipped: inv5-render-shape)"
        );
        assert_eq!(
            w.env(),
            [
                (WORLD_ENV, "ws_reorder_window=1".to_string()),
                (
                    INVARIANTS_ENV,
                    "inv1-no-loss,inv2-no-duplicate,inv3-newer-turn,inv4-converges".to_string()
                )
            ]
        );
        let c = w.draw(11);
        assert_eq!(c.ws_reorder_window, 1);
        assert!(!c.judged.judges(Invariant::RenderShape));
        let json = serde_json::to_string(&w).unwrap();
        assert_eq!(
            json,
            r#"{"pins":["ws_reorder_window=1"],"judged":["inv1","inv2","inv3","inv4"]}"#
        );
        assert_eq!(serde_json::from_str::<Worlds>(&json).unwrap(), w);
    }
}
