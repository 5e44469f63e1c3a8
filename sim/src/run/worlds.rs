//! How a command's worlds come from seeds: the seed draws them
//! ([`WorldConfig::from_seed`]), `--world` pins them ([`WorldPins`]), and `--invariants`
//! / `--skip` choose what the oracle judges in them ([`Judged`]). One value every command
//! that draws worlds carries, writes to its result file and compares when shards merge.

use serde::{Deserialize, Serialize};

use crate::model::config::WorldConfig;
use crate::model::judged::Judged;
use crate::model::pins::{WorldPins, WORLD_ENV};
use crate::model::store::StoreFactory;
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
    /// What `--world` pinned: on top of the contract, so it overrides it.
    #[serde(default, skip_serializing_if = "WorldPins::is_empty")]
    pub pins: WorldPins,
    /// What the store under test declared of its backend and transport (an adapter's
    /// `hello` `world`, [`crate::model::store::StoreFactory::contract`]): the worlds that
    /// store's app can meet. Every command applies it without a flag.
    #[serde(default, skip_serializing_if = "WorldPins::is_empty")]
    pub contract: WorldPins,
    /// The invariants judged.
    #[serde(default, skip_serializing_if = "Judged::is_all")]
    pub judged: Judged,
}

impl Worlds {
    /// These worlds under the contract the stores under test declared
    /// ([`StoreFactory::contract`]): one contract, which `--world` then overrides; an
    /// error when the stores declare different ones (each store's runs would draw other
    /// worlds: run them one at a time), or when the contract and the pins together are
    /// incoherent.
    pub fn under_contract_of(mut self, stores: &[&dyn StoreFactory]) -> Result<Worlds, String> {
        let mut declared: Option<(String, WorldPins)> = None;
        for store in stores {
            let contract = store.contract()?;
            match &declared {
                Some((first, theirs)) if *theirs != contract => {
                    return Err(format!(
                        "the stores declare different contracts ({first}: {theirs}; {}: {contract}): run them one at a time",
                        store.name()
                    ))
                }
                Some(_) => {}
                None => declared = Some((store.name(), contract)),
            }
        }
        self.contract = declared.map(|(_, c)| c).unwrap_or_default();
        self.contract.then(&self.pins).map_err(|e| {
            format!(
                "the store's contract ({}) under --world: {e}",
                self.contract
            )
        })?;
        Ok(self)
    }

    /// The pins every world of these is drawn under: the contract, then `--world`.
    pub fn effective(&self) -> WorldPins {
        if self.contract.is_empty() {
            return self.pins.clone();
        }
        self.contract
            .then(&self.pins)
            .expect("checked when the contract was taken")
    }

    /// The world of `seed`.
    pub fn draw(&self, seed: u64) -> WorldConfig {
        self.apply(WorldConfig::from_seed(seed))
    }

    /// `config` (a scenario's, a fuzz input's) with these pins and this choice of
    /// invariants applied.
    pub fn apply(&self, config: WorldConfig) -> WorldConfig {
        let mut c = self.effective().apply(config);
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
        Ok(Worlds {
            pins,
            judged,
            contract: WorldPins::none(),
        })
    }

    /// The environment that makes a cargo-fuzz target draw these worlds (empty for the
    /// default).
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let mut env = Vec::new();
        let pins = self.effective();
        if !pins.is_empty() {
            env.push((WORLD_ENV, pins.settings().join(" ")));
        }
        if !self.judged.is_all() {
            env.push((INVARIANTS_ENV, self.judged.list()));
        }
        env
    }

    /// Whether nothing is pinned or declared and everything judged.
    pub fn is_default(&self) -> bool {
        self.pins.is_empty() && self.contract.is_empty() && self.judged.is_all()
    }

    /// The flags that choose these worlds again (empty for the default). The contract is
    /// not repeated: the store declares it again wherever it runs.
    pub fn flags(&self) -> String {
        format!("{}{}", self.pins.flags(), self.judged.flags())
    }

    /// One line for a header: `contract: … · world pins: ws_reorder_window=1 · invariants:
    /// …`, empty for the default. What `--world` overrode of the contract is named.
    pub fn header(&self) -> String {
        let mut parts = Vec::new();
        if !self.contract.is_empty() {
            parts.push(format!(
                "contract (declared by the store): {}",
                self.contract
            ));
            let overridden = self.contract.overridden_by(&self.pins);
            if !overridden.is_empty() {
                parts.push(format!("--world overrides: {}", overridden.join(", ")));
            }
        }
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
            contract: Default::default(),
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
        assert!(!w.is_default());
    }

    /// A store declaring `contract` (as an adapter's `hello` does), running `current`.
    struct Declares(&'static str, &'static [&'static str]);

    impl StoreFactory for Declares {
        fn name(&self) -> String {
            self.0.into()
        }
        fn make(
            &self,
            client: crate::model::wire::ClientId,
        ) -> Box<dyn crate::model::store::Store> {
            crate::store::note::current::KIND.make(client)
        }
        fn contract(&self) -> Result<WorldPins, String> {
            WorldPins::contract(self.1)
        }
    }

    /// The stores' one contract is applied under `--world`, which overrides it: worlds
    /// drawn, the header (what was overridden named) and the fuzz targets' environment
    /// say so, the flags do not repeat it; a contract alone is not the default.
    #[test]
    fn the_stores_contract_applies_under_world_which_overrides_it() {
        const CONTRACT: &[&str] = &["ws_reorder_window=1", "consume_reasons=true"];
        let (a, b) = (Declares("a", CONTRACT), Declares("b", CONTRACT));
        let pinned = |pins: &[&str]| Worlds {
            pins: WorldPins::parse(pins).unwrap(),
            ..Worlds::default()
        };
        let w = pinned(&["ws_reorder_window=2"])
            .under_contract_of(&[&a, &b])
            .unwrap();
        assert_eq!(w.contract, WorldPins::parse(CONTRACT).unwrap());
        assert_eq!(
            w.effective(),
            WorldPins::parse(&["ws_reorder_window=2", "consume_reasons=true"]).unwrap()
        );
        for seed in 0..16 {
            let c = w.draw(seed);
            assert_eq!(
                (c.ws_reorder_window, c.consume_reasons),
                (2, true),
                "seed {seed}"
            );
        }
        assert_eq!(
            w.header(),
            "contract (declared by the store): ws_reorder_window=1 consume_reasons=true · --world overrides: ws_reorder_window=2 (was 1) · world pins: ws_reorder_window=2"
        );
        assert_eq!(w.flags(), " --world ws_reorder_window=2");
        assert_eq!(
            w.env(),
            [(
                WORLD_ENV,
                "ws_reorder_window=2 consume_reasons=true".to_string()
            )]
        );
        assert!(!w.is_default());
        // The contract alone: applied, nothing overridden, not the default.
        let w = Worlds::default().under_contract_of(&[&a]).unwrap();
        assert_eq!(
            w.header(),
            "contract (declared by the store): ws_reorder_window=1 consume_reasons=true"
        );
        assert_eq!(w.flags(), "");
        assert!(!w.is_default());
        assert_eq!(w.draw(3).ws_reorder_window, 1);
        // No store declaring one: the default.
        let w = Worlds::default().under_contract_of(&[]).unwrap();
        assert!(w.is_default());
    }

    /// Stores declaring different contracts are refused (each would draw other worlds),
    /// as is a contract no world satisfies under `--world`, and one that does not parse.
    #[test]
    fn different_contracts_and_incoherent_or_bad_ones_are_refused() {
        let ordered = Declares("ordered", &["ws_reorder_window=1"]);
        let reasons = Declares("reasons", &["consume_reasons=true"]);
        let err = Worlds::default()
            .under_contract_of(&[&ordered, &reasons])
            .unwrap_err();
        assert_eq!(
            err,
            "the stores declare different contracts (ordered: ws_reorder_window=1; reasons: consume_reasons=true): run them one at a time"
        );
        let turnless = Declares("turnless", &["deltas_without_turn_ids=true"]);
        let err = Worlds {
            pins: WorldPins::parse(&["ws_reorder_window=2"]).unwrap(),
            ..Worlds::default()
        }
        .under_contract_of(&[&turnless])
        .unwrap_err();
        assert!(
            err.starts_with(
                "the store's contract (deltas_without_turn_ids=true) under --world: --world: incoherent pins"
            ),
            "{err}"
        );
        let bad = Declares("bad", &["nonsense"]);
        let err = Worlds::default().under_contract_of(&[&bad]).unwrap_err();
        assert!(
            err.contains("the declared contract names 'nonsense'"),
            "{err}"
        );
    }

    /// Set in the environment of a child process of this test binary that runs
    /// [`from_env_in_a_child`].
    const CHILD: &str = "RECONCILE_SIM_WORLDS_TEST_CHILD";

    /// The cargo-fuzz targets draw the worlds the environment names. Read in a child
    /// process (this test binary again, running the ignored test below): setting this
    /// threaded process's environment would race other tests' reads of theirs.
    #[test]
    fn the_fuzz_targets_read_pins_and_invariants_from_the_environment() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "run::worlds::tests::from_env_in_a_child",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, "1")
            .env(WORLD_ENV, "ordered-socket consume_reasons=true")
            .env(INVARIANTS_ENV, "inv1,inv2")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("from_env: checked"),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    #[ignore = "run by the_fuzz_targets_read_pins_and_invariants_from_the_environment"]
    fn from_env_in_a_child() {
        if std::env::var_os(CHILD).is_none() {
            return;
        }
        let w = Worlds::from_env().unwrap();
        assert_eq!(
            w.pins,
            WorldPins::parse(&["ws_reorder_window=1", "consume_reasons=true"]).unwrap()
        );
        assert_eq!(w.judged.list(), "inv1-no-loss,inv2-no-duplicate");
        assert!(w.contract.is_empty());
        println!("from_env: checked");
    }
}
