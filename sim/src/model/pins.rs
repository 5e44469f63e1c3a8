//! World pins: what `--world` fixes of the worlds seeds draw.
//!
//! A seed draws every world option ([`WorldConfig::from_seed`]); a team whose system never
//! has some feature (one ordered socket per tab, no failed turns) pins it, and the seeds
//! still draw everything left free. A `--world` value is one of:
//!
//! - `NAME=VALUE`: pin an option (`ws_reorder_window=1`, `turn_failures=false`,
//!   `message_texts=tokens`);
//! - `NAME=A..B` (half-open, as in Rust: `1..3` is 1 or 2) or `NAME=A..=B` (inclusive):
//!   keep the option in a range. A drawn value inside it is kept; one outside is mapped
//!   into it by `A + (drawn - minimum) % width`, a function of the drawn value alone, so
//!   the same seed gives the same world;
//! - a profile name: `ordered-socket` (one ordered socket per tab: `ws_reorder_window=1`,
//!   so only HTTP responses race with WebSocket events) or `note` (the design note's
//!   world, the default: pins nothing);
//! - a JSON file (`world.json`: an object whose keys are option names and whose values
//!   are `true`/`false`, numbers, `"tokens"`/`"colliding"` or range strings `"1..=2"`).
//!
//! Several `--world` values add up; a later one overrides an earlier one for the same
//! option. Pins apply after drawing, and no draw is skipped, so a world without pins is
//! exactly the world the seed always drew (traces keep their bytes). Unknown names, bad
//! values and pins whose worlds are incoherent ([`WorldConfig::incoherence`]) are refused
//! when parsed, with the valid names; an option a pin makes incoherent with one left free
//! is resolved in favour of the pin (the free one takes the value the pin needs).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::model::config::{WorldConfig, WorldOption};

/// The environment variable the cargo-fuzz targets read `--world` values from
/// (whitespace-separated).
pub const WORLD_ENV: &str = "RECONCILE_SIM_WORLD";

/// The named profiles: name, what it means, its pins.
pub const PROFILES: [(&str, &str, &[&str]); 2] = [
    (
        "ordered-socket",
        "one ordered WebSocket per tab: events arrive in emission order; only HTTP responses race with them",
        &["ws_reorder_window=1"],
    ),
    (
        "note",
        "the design note's world (the default): every option drawn by the seed",
        &[],
    ),
];

/// Options retired since files recorded pins of them: `--world` refuses them with the
/// reason, and files written before are read without them.
const RETIRED: [&str; 1] = ["server_ids"];

/// What a pin does to one option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// Always this value.
    Pin(u8),
    /// Within `lo..=hi`.
    Range {
        /// The lowest value.
        lo: u8,
        /// The highest value.
        hi: u8,
    },
}

impl Setting {
    fn allows(self, v: u8) -> bool {
        match self {
            Setting::Pin(p) => p == v,
            Setting::Range { lo, hi } => (lo..=hi).contains(&v),
        }
    }
}

/// How an option's values are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Bool,
    Int,
    Texts,
}

fn kind(option: &WorldOption) -> Kind {
    let mut c = WorldConfig::from_options(WorldConfig::OPTIONS.map(|o| o.min));
    (option.set)(&mut c, option.max);
    match serde_json::to_value(&c)
        .ok()
        .and_then(|v| v.get(option.name).cloned())
    {
        Some(serde_json::Value::Bool(_)) => Kind::Bool,
        Some(serde_json::Value::String(_)) => Kind::Texts,
        _ => Kind::Int,
    }
}

fn write_value(option: &WorldOption, v: u8) -> String {
    match kind(option) {
        Kind::Bool => (v != 0).to_string(),
        Kind::Texts => if v == 0 { "tokens" } else { "colliding" }.to_string(),
        Kind::Int => v.to_string(),
    }
}

fn option_named(name: &str) -> Result<(usize, WorldOption), String> {
    WorldConfig::OPTIONS
        .iter()
        .copied()
        .enumerate()
        .find(|(_, o)| o.name == name)
        .ok_or_else(|| format!("--world: unknown option '{name}'; {}", valid_names()))
}

/// The valid option names with their values, and the profiles: for error messages and
/// `--help`.
pub fn valid_names() -> String {
    let options: Vec<String> = WorldConfig::OPTIONS
        .iter()
        .map(|o| match kind(o) {
            Kind::Bool => format!("{} (true|false)", o.name),
            Kind::Texts => format!("{} (tokens|colliding)", o.name),
            Kind::Int => format!("{} ({}..={})", o.name, o.min, o.max),
        })
        .collect();
    let profiles: Vec<&str> = PROFILES.iter().map(|p| p.0).collect();
    format!(
        "valid options: {}; profiles: {}; or a JSON file of options",
        options.join(", "),
        profiles.join(", ")
    )
}

fn parse_value(option: &WorldOption, text: &str) -> Result<u8, String> {
    let v = match (kind(option), text) {
        (Kind::Bool, "true") => Some(1),
        (Kind::Bool, "false") => Some(0),
        (Kind::Texts, "tokens") => Some(0),
        (Kind::Texts, "colliding") => Some(1),
        (Kind::Int, t) => t.parse::<u8>().ok(),
        _ => None,
    };
    let expected = match kind(option) {
        Kind::Bool => "true or false".to_string(),
        Kind::Texts => "tokens or colliding".to_string(),
        Kind::Int => format!("a whole number in {}..={}", option.min, option.max),
    };
    match v {
        Some(v) if (option.min..=option.max).contains(&v) => Ok(v),
        _ => Err(format!(
            "--world {}={text}: expected {expected}",
            option.name
        )),
    }
}

fn parse_setting(option: &WorldOption, text: &str) -> Result<Setting, String> {
    let range = text
        .split_once("..=")
        .map(|(a, b)| (a, b, true))
        .or_else(|| text.split_once("..").map(|(a, b)| (a, b, false)));
    let Some((a, b, inclusive)) = range else {
        return parse_value(option, text).map(Setting::Pin);
    };
    let lo = parse_value(option, a.trim())?;
    let hi = if inclusive {
        Some(parse_value(option, b.trim())?)
    } else {
        // A half-open end may be one past the largest value (`0..4` is 0..=3).
        let end = match (kind(option), b.trim().parse::<u8>()) {
            (Kind::Int, Ok(end)) if end == option.max.saturating_add(1) => end,
            _ => parse_value(option, b.trim())?,
        };
        end.checked_sub(1)
    };
    match hi {
        Some(hi) if lo <= hi => Ok(if lo == hi {
            Setting::Pin(lo)
        } else {
            Setting::Range { lo, hi }
        }),
        _ => Err(format!(
            "--world {}={text}: an empty range (`A..B` is half-open, `A..=B` inclusive)",
            option.name
        )),
    }
}

/// What `--world` fixes: a setting per pinned option, by its index in
/// [`WorldConfig::OPTIONS`]. Written to files as the list of canonical settings
/// (`["ws_reorder_window=1"]`), which `--world` reads back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorldPins {
    settings: BTreeMap<usize, Setting>,
}

impl WorldPins {
    /// No pins: the seeds' worlds as drawn.
    pub fn none() -> WorldPins {
        WorldPins::default()
    }

    /// Whether nothing is pinned.
    pub fn is_empty(&self) -> bool {
        self.settings.is_empty()
    }

    /// Parse the `--world` values, in order (later ones override earlier ones).
    pub fn parse<S: AsRef<str>>(values: &[S]) -> Result<WorldPins, String> {
        let mut pins = WorldPins::default();
        for v in values {
            pins.add(v.as_ref().trim())?;
        }
        pins.check()?;
        Ok(pins)
    }

    /// Parse the whitespace-separated `--world` values of [`WORLD_ENV`], if it is set.
    pub fn from_env() -> Result<WorldPins, String> {
        match std::env::var(WORLD_ENV) {
            Ok(text) => {
                let values: Vec<&str> = text.split_whitespace().collect();
                WorldPins::parse(&values).map_err(|e| format!("{WORLD_ENV}: {e}"))
            }
            Err(_) => Ok(WorldPins::none()),
        }
    }

    /// The pins a store declares as its backend's contract (the `world` of an adapter's
    /// `hello`, a Rust store's [`crate::model::store::StoreFactory::contract`]): the same
    /// grammar as `--world`, but no files (a contract travels with the store, a path would
    /// mean something else wherever the store runs).
    pub fn contract<S: AsRef<str>>(values: &[S]) -> Result<WorldPins, String> {
        if let Some(file) = values
            .iter()
            .map(|v| v.as_ref().trim())
            .find(|v| !v.contains('=') && !PROFILES.iter().any(|p| p.0 == *v))
        {
            return Err(format!(
                "the declared contract names '{file}': a contract is NAME=VALUE settings and profiles only; {}",
                valid_names()
            ));
        }
        WorldPins::parse(values).map_err(|e| format!("the declared contract: {e}"))
    }

    /// These pins with `later`'s on top (a later setting of an option replaces this one's),
    /// refused when no world satisfies the two together: a store's contract under the
    /// command's `--world`.
    pub fn then(&self, later: &WorldPins) -> Result<WorldPins, String> {
        let mut merged = self.clone();
        merged
            .settings
            .extend(later.settings.iter().map(|(&i, &s)| (i, s)));
        merged.check()?;
        Ok(merged)
    }

    /// The settings of `later` that replace a different setting of these pins, each
    /// written `NAME=NEW (was OLD)`: what `--world` overrode of a contract.
    pub fn overridden_by(&self, later: &WorldPins) -> Vec<String> {
        let one = |i: usize, s: Setting| {
            WorldPins {
                settings: BTreeMap::from([(i, s)]),
            }
            .settings()
            .remove(0)
        };
        later
            .settings
            .iter()
            .filter_map(|(&i, &s)| {
                let old = *self.settings.get(&i)?;
                (old != s).then(|| {
                    let new = one(i, s);
                    let was = one(i, old);
                    let was = was.split_once('=').map_or(was.as_str(), |(_, v)| v);
                    format!("{new} (was {was})")
                })
            })
            .collect()
    }

    fn add(&mut self, value: &str) -> Result<(), String> {
        if let Some((name, setting)) = value.split_once('=') {
            if RETIRED.contains(&name.trim()) {
                return Err(format!(
                    "--world {value}: `{}` is retired: every world's backend now mints an id for a POST that carries none, as real backends do; drop this pin",
                    name.trim()
                ));
            }
            let (i, option) = option_named(name.trim())?;
            self.settings
                .insert(i, parse_setting(&option, setting.trim())?);
            return Ok(());
        }
        if let Some((_, _, pins)) = PROFILES.iter().find(|p| p.0 == value) {
            for p in *pins {
                self.add(p)?;
            }
            return Ok(());
        }
        let looks_like_file = value.ends_with(".json") || value.contains('/');
        if !looks_like_file {
            return Err(format!(
                "--world '{value}': not NAME=VALUE, a profile or a .json file; {}",
                valid_names()
            ));
        }
        let text = std::fs::read_to_string(value)
            .map_err(|e| format!("--world {value}: cannot read the world file: {e}"))?;
        self.add_file(value, &text)
    }

    fn add_file(&mut self, path: &str, text: &str) -> Result<(), String> {
        let json: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("--world {path}: not JSON: {e}"))?;
        let serde_json::Value::Object(map) = json else {
            return Err(format!(
                "--world {path}: expected an object whose keys are option names; {}",
                valid_names()
            ));
        };
        for (name, v) in map {
            let text = match v {
                serde_json::Value::Bool(b) => b.to_string(),
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::String(s) => s,
                other => {
                    return Err(format!(
                        "--world {path}: key `{name}`: {other} is not a value or a range"
                    ))
                }
            };
            self.add(&format!("{name}={text}"))
                .map_err(|e| format!("{path}: {e}"))?;
        }
        Ok(())
    }

    fn setting(&self, name: &str) -> Option<Setting> {
        let i = WorldConfig::OPTIONS.iter().position(|o| o.name == name)?;
        self.settings.get(&i).copied()
    }

    /// Refuse pins no world satisfies.
    fn check(&self) -> Result<(), String> {
        let pinned = |name: &str, v: u8| self.setting(name) == Some(Setting::Pin(v));
        if pinned("clients", 1) && pinned("passive_observer", 1) {
            return Err(
                "--world clients=1 with passive_observer=true: the one tab would be a passive observer, and no user would send".to_string(),
            );
        }
        if pinned("deltas_without_turn_ids", 1)
            && self
                .setting("ws_reorder_window")
                .is_some_and(|s| !s.allows(1))
        {
            let mut c = WorldConfig::from_seed(0);
            c.deltas_without_turn_ids = true;
            c.ws_reorder_window = 2;
            let why = c.incoherence().unwrap_or_default();
            return Err(format!("--world: incoherent pins: {why}"));
        }
        // Every combination the rules above let through is coherent: check it on a few
        // draws, so a new rule of `incoherence` not mirrored here is still refused up front.
        for seed in 0..16 {
            if let Some(why) = self.apply(WorldConfig::from_seed(seed)).incoherence() {
                return Err(format!("--world: incoherent pins: {why}"));
            }
        }
        Ok(())
    }

    /// `drawn` with the pins applied: a pinned option takes its value, a ranged one keeps
    /// its drawn value when in range and is mapped into it otherwise; then an option left
    /// free that a pin made incoherent takes the value the pin needs.
    pub fn apply(&self, drawn: WorldConfig) -> WorldConfig {
        if self.is_empty() {
            return drawn;
        }
        let mut c = drawn;
        for (&i, &s) in &self.settings {
            let option = WorldConfig::OPTIONS[i];
            let v = (option.get)(&c);
            let v = match s {
                Setting::Pin(p) => p,
                Setting::Range { lo, hi } if (lo..=hi).contains(&v) => v,
                Setting::Range { lo, hi } => lo + (v.saturating_sub(option.min)) % (hi - lo + 1),
            };
            (option.set)(&mut c, v);
        }
        if c.clients == 1 && self.setting("passive_observer").is_none() {
            c.passive_observer = false;
        }
        if c.incoherence().is_some() {
            if self.setting("deltas_without_turn_ids").is_none() {
                c.deltas_without_turn_ids = false;
            } else if self
                .setting("ws_reorder_window")
                .is_none_or(|s| s.allows(1))
            {
                c.ws_reorder_window = 1;
                c.ws_overtakes_max = None;
            }
        }
        c
    }

    /// The world of `seed` under these pins.
    pub fn draw(&self, seed: u64) -> WorldConfig {
        self.apply(WorldConfig::from_seed(seed))
    }

    /// Every setting, canonical (`ws_reorder_window=1`, `sends_per_client=1..=2`), in
    /// option order.
    pub fn settings(&self) -> Vec<String> {
        self.settings
            .iter()
            .map(|(&i, &s)| {
                let o = WorldConfig::OPTIONS[i];
                match s {
                    Setting::Pin(v) => format!("{}={}", o.name, write_value(&o, v)),
                    Setting::Range { lo, hi } => format!(
                        "{}={}..={}",
                        o.name,
                        write_value(&o, lo),
                        write_value(&o, hi)
                    ),
                }
            })
            .collect()
    }

    /// The flags that set these pins again: empty without pins, else
    /// ` --world ws_reorder_window=1 --world …`.
    pub fn flags(&self) -> String {
        self.settings()
            .iter()
            .map(|s| format!(" --world {s}"))
            .collect()
    }

    /// These pins but the settings `other` has too (the same option, the same setting):
    /// what a command's pins add to a store's contract.
    pub fn beyond(&self, other: &WorldPins) -> WorldPins {
        WorldPins {
            settings: self
                .settings
                .iter()
                .filter(|(i, s)| other.settings.get(i) != Some(s))
                .map(|(&i, &s)| (i, s))
                .collect(),
        }
    }

    /// Whether option `name` is pinned to one value (not left free, nor to a range): every
    /// world drawn under these pins has that value, so a search for a witness in a world
    /// with another is moot.
    pub fn fixes(&self, name: &str) -> bool {
        matches!(self.setting(name), Some(Setting::Pin(_)))
    }

    /// The settings `config` is outside of, canonical (`ws_reorder_window=1`): none when
    /// these pins allow it. What a replay says of a scenario whose world the store's
    /// contract rules out.
    pub fn unmet_by(&self, config: &WorldConfig) -> Vec<String> {
        self.settings
            .iter()
            .filter(|(&i, &s)| !s.allows((WorldConfig::OPTIONS[i].get)(config)))
            .map(|(&i, &s)| {
                WorldPins {
                    settings: BTreeMap::from([(i, s)]),
                }
                .settings()
                .remove(0)
            })
            .collect()
    }

    /// Whether `config` is a world these pins allow (a scenario replayed under pins).
    pub fn allows(&self, config: &WorldConfig) -> bool {
        self.settings
            .iter()
            .all(|(&i, &s)| s.allows((WorldConfig::OPTIONS[i].get)(config)))
    }
}

impl fmt::Display for WorldPins {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&self.settings().join(" "))
        }
    }
}

impl Serialize for WorldPins {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.settings().serialize(s)
    }
}

impl<'de> Deserialize<'de> for WorldPins {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut values = Vec::<String>::deserialize(d)?;
        values.retain(|v| {
            v.split_once('=')
                .is_none_or(|(name, _)| !RETIRED.contains(&name.trim()))
        });
        if values
            .iter()
            .any(|v| !v.contains('=') || v.ends_with(".json"))
        {
            return Err(serde::de::Error::custom(
                "world pins are written NAME=VALUE or NAME=A..=B",
            ));
        }
        WorldPins::parse(&values).map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for WorldPins {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "WorldPins".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<String>>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::content::MessageTexts;
    use crate::trace::assume::Assumption;

    #[test]
    fn no_pins_leave_every_draw_as_it_was() {
        let pins = WorldPins::parse::<&str>(&[]).unwrap();
        let note = WorldPins::parse(&["note"]).unwrap();
        assert_eq!(pins, note);
        for seed in 0..200 {
            assert_eq!(pins.draw(seed), WorldConfig::from_seed(seed));
        }
        assert_eq!(pins.flags(), "");
        assert_eq!(pins.to_string(), "none");
    }

    #[test]
    fn a_retired_option_is_refused_with_its_reason_and_dropped_from_files() {
        let err = WorldPins::parse(&["server_ids=true"]).unwrap_err();
        assert!(err.contains("retired") && err.contains("mints"), "{err}");
        let read: WorldPins =
            serde_json::from_str(r#"["server_ids=true","ws_reorder_window=1"]"#).unwrap();
        assert_eq!(read.settings(), ["ws_reorder_window=1"]);
    }

    #[test]
    fn a_contract_takes_settings_and_profiles_and_the_command_s_pins_override_it() {
        let contract = WorldPins::contract(&[
            "ordered-socket",
            "consume_reasons=true",
            "turn_failures=false",
        ])
        .unwrap();
        assert_eq!(
            contract.settings(),
            [
                "turn_failures=false",
                "ws_reorder_window=1",
                "consume_reasons=true"
            ]
        );
        let err = WorldPins::contract(&["my-world.json"]).unwrap_err();
        assert!(
            err.contains("my-world.json") && err.contains("contract"),
            "{err}"
        );
        assert!(WorldPins::contract(&["consume_reasons=maybe"]).is_err());
        // --world on top: a later setting replaces the contract's, the rest stays.
        let cli = WorldPins::parse(&["turn_failures=true", "clients=2"]).unwrap();
        let merged = contract.then(&cli).unwrap();
        assert_eq!(
            merged.settings(),
            [
                "clients=2",
                "turn_failures=true",
                "ws_reorder_window=1",
                "consume_reasons=true"
            ]
        );
        assert_eq!(
            contract.overridden_by(&cli),
            ["turn_failures=true (was false)"]
        );
        assert!(
            contract.overridden_by(&contract).is_empty(),
            "the same value overrides nothing"
        );
        for seed in 0..100 {
            let c = merged.draw(seed);
            assert!(c.turn_failures && c.consume_reasons && c.ws_reorder_window == 1);
        }
        // Incoherent together: refused, naming why.
        let no_ids = WorldPins::contract(&["deltas_without_turn_ids=true"]).unwrap();
        let reorder = WorldPins::parse(&["ws_reorder_window=2"]).unwrap();
        let err = no_ids.then(&reorder).unwrap_err();
        assert!(err.contains("incoherent"), "{err}");
    }

    #[test]
    fn pins_override_and_the_rest_is_drawn() {
        let pins = WorldPins::parse(&["ws_reorder_window=1", "turn_failures=false"]).unwrap();
        let mut differs = 0;
        for seed in 0..300 {
            let drawn = WorldConfig::from_seed(seed);
            let c = pins.draw(seed);
            assert_eq!(c.ws_reorder_window, 1);
            assert!(!c.turn_failures);
            assert_eq!(c.clients, drawn.clients, "free options stay drawn");
            assert_eq!(c.message_texts, drawn.message_texts);
            assert!(c.incoherence().is_none());
            differs += usize::from(c != drawn);
        }
        assert!(differs > 50, "pins change many worlds: {differs}");
        assert_eq!(
            pins.flags(),
            " --world turn_failures=false --world ws_reorder_window=1"
        );
    }

    #[test]
    fn the_ordered_socket_profile_pins_the_reorder_window() {
        let pins = WorldPins::parse(&["ordered-socket"]).unwrap();
        assert_eq!(pins.settings(), ["ws_reorder_window=1"]);
        assert!((0..500).all(|s| !Assumption::WsReordering.holds(&pins.draw(s))));
    }

    #[test]
    fn ranges_are_deterministic_and_stay_in_range() {
        let half_open = WorldPins::parse(&["sends_per_client=2..4"]).unwrap();
        let inclusive = WorldPins::parse(&["sends_per_client=2..=3"]).unwrap();
        assert_eq!(half_open, inclusive);
        assert_eq!(inclusive.settings(), ["sends_per_client=2..=3"]);
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let c = inclusive.draw(seed);
            assert!((2..=3).contains(&c.sends_per_client));
            assert_eq!(c, inclusive.draw(seed), "same seed, same world");
            let drawn = WorldConfig::from_seed(seed).sends_per_client;
            if (2..=3).contains(&drawn) {
                assert_eq!(c.sends_per_client, drawn, "in range: kept");
            }
            seen.insert(c.sends_per_client);
        }
        assert_eq!(seen.len(), 2, "both values are reached");
        // A one-value range is a pin.
        assert_eq!(
            WorldPins::parse(&["ws_reorder_window=2..=2"]).unwrap(),
            WorldPins::parse(&["ws_reorder_window=2"]).unwrap()
        );
    }

    #[test]
    fn every_assumption_without_is_a_valid_pin_that_rules_it_out() {
        for a in Assumption::ALL {
            let pins =
                WorldPins::parse(&[a.without()]).unwrap_or_else(|e| panic!("{}: {e}", a.without()));
            for seed in 0..100 {
                assert!(!a.holds(&pins.draw(seed)), "{a:?} seed {seed}");
            }
        }
    }

    #[test]
    fn a_pin_wins_over_a_free_option_it_makes_incoherent() {
        let pins = WorldPins::parse(&["ws_reorder_window=3"]).unwrap();
        let wants_turnless = WorldPins::parse(&["deltas_without_turn_ids=true"]).unwrap();
        let one_tab = WorldPins::parse(&["clients=1"]).unwrap();
        for seed in 0..200 {
            assert!(pins.draw(seed).incoherence().is_none());
            let c = wants_turnless.draw(seed);
            assert!(c.deltas_without_turn_ids && c.ws_reorder_window == 1);
            let c = one_tab.draw(seed);
            assert!(c.is_active(0), "the one tab sends");
        }
    }

    #[test]
    fn bad_values_are_clear_errors_naming_what_is_valid() {
        let cases: [(&[&str], &str); 8] = [
            (&["ws_reorder=1"], "unknown option 'ws_reorder'"),
            (&["ws_reorder_window=9"], "expected a whole number in 1..=3"),
            (&["turn_failures=maybe"], "expected true or false"),
            (&["message_texts=1"], "expected tokens or colliding"),
            (&["sends_per_client=3..1"], "empty range"),
            (&["sideways"], "not NAME=VALUE, a profile or a .json file"),
            (
                &["deltas_without_turn_ids=true", "ws_reorder_window=2..=3"],
                "incoherent pins",
            ),
            (
                &["clients=1", "passive_observer=true"],
                "no user would send",
            ),
        ];
        for (values, needle) in cases {
            let e = WorldPins::parse(values).unwrap_err();
            assert!(e.contains(needle), "{values:?}: {e}");
        }
        let e = WorldPins::parse(&["nope=1"]).unwrap_err();
        assert!(
            e.contains("ws_reorder_window (1..=3)") && e.contains("ordered-socket"),
            "{e}"
        );
        let e = WorldPins::parse(&["/no/such/world.json"]).unwrap_err();
        assert!(e.contains("cannot read the world file"), "{e}");
    }

    #[test]
    fn a_world_file_reads_like_flags() {
        let mut pins = WorldPins::default();
        pins.add_file(
            "w.json",
            r#"{"ws_reorder_window": 1, "turn_failures": false, "message_texts": "colliding", "sends_per_client": "1..=2"}"#,
        )
        .unwrap();
        let flags = WorldPins::parse(&[
            "ws_reorder_window=1",
            "turn_failures=false",
            "message_texts=colliding",
            "sends_per_client=1..=2",
        ])
        .unwrap();
        assert_eq!(pins, flags);
        assert_eq!(flags.draw(5).message_texts, MessageTexts::Colliding);
        let e = WorldPins::default()
            .add_file("w.json", r#"{"clients": [1]}"#)
            .unwrap_err();
        assert!(e.contains("not a value or a range"), "{e}");
        let e = WorldPins::default().add_file("w.json", "[1]").unwrap_err();
        assert!(e.contains("keys are option names"), "{e}");
    }

    #[test]
    fn pins_serialise_as_their_settings_and_read_back() {
        let pins = WorldPins::parse(&["ordered-socket", "sends_per_client=1..=2"]).unwrap();
        let json = serde_json::to_string(&pins).unwrap();
        assert_eq!(json, r#"["sends_per_client=1..=2","ws_reorder_window=1"]"#);
        assert_eq!(serde_json::from_str::<WorldPins>(&json).unwrap(), pins);
        assert!(serde_json::from_str::<WorldPins>(r#"["ordered-socket"]"#).is_err());
        assert!(pins.allows(&pins.draw(3)));
    }
    /// The documented formula for a drawn value outside a range, `A + (drawn - minimum) %
    /// width`, on the two options whose minimum is not 0 (`ws_reorder_window`, 1..=3, and
    /// `clients`, 1..=3): a seed that draws an ordered socket (window 1) gets window 2 under
    /// `ws_reorder_window=2..=3`, the very world `ws_reorder_window=2` gives it, and a seed
    /// that draws three tabs gets one under `clients=1..=2`. (Reading the drawn value as an
    /// offset from 0 instead gives window 3 and two tabs: another world, another run.)
    #[test]
    fn a_range_maps_a_drawn_value_by_its_offset_from_the_options_minimum() {
        let window = WorldPins::parse(&["ws_reorder_window=2..=3"]).unwrap();
        let two = WorldPins::parse(&["ws_reorder_window=2"]).unwrap();
        let clients = WorldPins::parse(&["clients=1..=2"]).unwrap();
        let (mut ordered, mut three) = (0, 0);
        for seed in 0..300 {
            let drawn = WorldConfig::from_seed(seed);
            let c = window.draw(seed);
            match drawn.ws_reorder_window {
                1 => {
                    ordered += 1;
                    assert_eq!(c.ws_reorder_window, 2, "seed {seed}: 2 + (1 - 1) % 2");
                    assert_eq!(c, two.draw(seed), "seed {seed}: the world of window 2");
                }
                w => assert_eq!(c.ws_reorder_window, w, "seed {seed}: in range, kept"),
            }
            let c = clients.draw(seed);
            match drawn.clients {
                3 => {
                    three += 1;
                    assert_eq!(c.clients, 1, "seed {seed}: 1 + (3 - 1) % 2");
                }
                n => assert_eq!(c.clients, n, "seed {seed}: in range, kept"),
            }
        }
        assert!(
            ordered > 100 && three > 50,
            "{ordered} ordered, {three} of three tabs"
        );
        // Every option whose values are numbers, every range inside it: the formula.
        for o in WorldConfig::OPTIONS.iter().filter(|o| kind(o) == Kind::Int) {
            for lo in o.min..=o.max {
                for hi in lo + 1..=o.max {
                    let pins = WorldPins::parse(&[format!("{}={lo}..={hi}", o.name)]).unwrap();
                    for seed in 0..40 {
                        let drawn = (o.get)(&WorldConfig::from_seed(seed));
                        let want = if (lo..=hi).contains(&drawn) {
                            drawn
                        } else {
                            lo + (drawn - o.min) % (hi - lo + 1)
                        };
                        let got = (o.get)(&pins.draw(seed));
                        assert_eq!(got, want, "{}={lo}..={hi} seed {seed}", o.name);
                    }
                }
            }
        }
    }

    /// `deltas_without_turn_ids=true` needs an ordered socket: with a window pin or range
    /// that allows 1 (`1`, `1..=2`, `1..=3`) the pins are coherent and every world has
    /// window 1; with one that does not (`2`, `3`, `2..=3`, `2..3`) they are refused up
    /// front, in either order, naming the reason. Without the turnless deltas every window
    /// is coherent.
    #[test]
    fn turnless_deltas_cohere_with_a_window_that_allows_one_and_with_no_other() {
        for window in ["1", "1..=2", "1..=3", "1..3", "1..2"] {
            let w = format!("ws_reorder_window={window}");
            for values in [
                [w.as_str(), "deltas_without_turn_ids=true"],
                ["deltas_without_turn_ids=true", w.as_str()],
            ] {
                let pins = WorldPins::parse(&values)
                    .unwrap_or_else(|e| panic!("{values:?} is coherent: {e}"));
                for seed in 0..100 {
                    let c = pins.draw(seed);
                    assert!(c.deltas_without_turn_ids, "{values:?} seed {seed}");
                    assert_eq!(c.ws_reorder_window, 1, "{values:?} seed {seed}");
                    assert!(c.incoherence().is_none(), "{values:?} seed {seed}");
                }
            }
        }
        for window in ["2", "3", "2..=3", "2..4", "3..=3"] {
            let w = format!("ws_reorder_window={window}");
            for values in [
                [w.as_str(), "deltas_without_turn_ids=true"],
                ["deltas_without_turn_ids=true", w.as_str()],
            ] {
                let e = WorldPins::parse(&values).unwrap_err();
                assert!(
                    e.starts_with("--world: incoherent pins: deltas_without_turn_ids = true needs ws_reorder_window = 1"),
                    "{values:?}: {e}"
                );
            }
            let pins = WorldPins::parse(&[w.as_str(), "deltas_without_turn_ids=false"])
                .unwrap_or_else(|e| panic!("{w} without turnless deltas: {e}"));
            assert!((0..50).all(|s| pins.draw(s).ws_reorder_window > 1), "{w}");
        }
        // A pin on the window alone turns free turnless deltas off; the pin on the deltas
        // alone turns the free window to 1 (`a_pin_wins_over_a_free_option_it_makes_incoherent`).
        let free = WorldPins::parse(&["ws_reorder_window=2..=3"]).unwrap();
        assert!((0..100).any(|s| WorldConfig::from_seed(s).deltas_without_turn_ids));
        assert!((0..100).all(|s| !free.draw(s).deltas_without_turn_ids));
    }
}
