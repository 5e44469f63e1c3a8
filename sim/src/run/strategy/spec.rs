//! Which strategy, with its parameters, as the user and the files name it: parsed once,
//! built per seed into one of the strategies of this folder.

use super::pct;
use super::random;
use super::swarm;
use super::Strategy;

/// Which strategy, with its parameters: parsed once (from `--strategy NAME [--depth D]`
/// or from its text form `random`, `pct`, `pct:D`, `swarm`), built per seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StrategySpec {
    /// Uniform choice ([`random`]).
    Random,
    /// PCT ([`pct`]) with this bug depth, or [`pct::DEPTH_DEFAULT`] when `None`.
    Pct {
        /// The bug depth, when given explicitly.
        depth: Option<u32>,
    },
    /// Swarm testing ([`swarm`]).
    Swarm,
}

impl StrategySpec {
    /// Every strategy with its default parameters, in the order campaigns run them.
    pub const ALL: [StrategySpec; 3] = [
        StrategySpec::Random,
        StrategySpec::Pct { depth: None },
        StrategySpec::Swarm,
    ];

    /// The strategy's name (what `--strategy` takes).
    pub fn name(self) -> &'static str {
        match self {
            StrategySpec::Random => "random",
            StrategySpec::Pct { .. } => "pct",
            StrategySpec::Swarm => "swarm",
        }
    }

    /// `name` with `depth` (`--strategy NAME [--depth D]`), or a message naming the
    /// choices.
    pub fn from_flags(name: &str, depth: Option<u32>) -> Result<StrategySpec, String> {
        let spec = match name {
            "random" => StrategySpec::Random,
            "pct" => StrategySpec::Pct { depth: None },
            "swarm" => StrategySpec::Swarm,
            _ => {
                let names: Vec<&str> = StrategySpec::ALL.iter().map(|s| s.name()).collect();
                return Err(format!(
                    "unknown strategy '{name}'; known strategies: {}",
                    names.join(", ")
                ));
            }
        };
        match (spec, depth) {
            (_, None) => Ok(spec),
            (StrategySpec::Pct { .. }, Some(0)) => Err("--depth must be at least 1".into()),
            (StrategySpec::Pct { .. }, Some(d)) if d > pct::DEPTH_MAX => Err(format!(
                "--depth {d} is too deep: at most {} (a run has at most 200 main-phase steps)",
                pct::DEPTH_MAX
            )),
            (StrategySpec::Pct { .. }, Some(d)) => Ok(StrategySpec::Pct { depth: Some(d) }),
            (_, Some(_)) => Err("--depth applies only to --strategy pct".into()),
        }
    }

    /// The strategy for `seed`.
    pub fn build(self, seed: u64) -> Box<dyn Strategy> {
        match self {
            StrategySpec::Random => Box::new(random::RandomStrategy::new(seed)),
            StrategySpec::Pct { depth } => Box::new(pct::PctStrategy::new(
                seed,
                depth.unwrap_or(pct::DEPTH_DEFAULT),
            )),
            StrategySpec::Swarm => Box::new(swarm::SwarmStrategy::new(seed)),
        }
    }

    /// The flags that select this strategy on the command line (empty for the default).
    pub fn flags(self) -> String {
        match self {
            StrategySpec::Random => String::new(),
            StrategySpec::Pct { depth: Some(d) } => format!(" --strategy pct --depth {d}"),
            other => format!(" --strategy {}", other.name()),
        }
    }
}

/// The text form: `random`, `pct`, `pct:D`, `swarm` (what reports and scenario files say).
impl std::fmt::Display for StrategySpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StrategySpec::Pct { depth: Some(d) } => write!(f, "pct:{d}"),
            other => f.write_str(other.name()),
        }
    }
}

impl std::str::FromStr for StrategySpec {
    type Err = String;
    fn from_str(s: &str) -> Result<StrategySpec, String> {
        match s.strip_prefix("pct:") {
            Some(d) => {
                let depth = d.parse().map_err(|_| format!("bad PCT depth in '{s}'"))?;
                StrategySpec::from_flags("pct", Some(depth))
            }
            None => StrategySpec::from_flags(s, None),
        }
    }
}

impl serde::Serialize for StrategySpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for StrategySpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<StrategySpec, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
