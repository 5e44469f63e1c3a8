//! Which invariants the oracle judges: all five by default, or the ones a team chose with
//! `--invariants LIST` or `--skip LIST` (a team that gates on invariants 1–4 alone, say,
//! because its rendering policy is its own business).
//!
//! The choice rides with the world's options ([`crate::model::config::WorldConfig::judged`],
//! left out of files when everything is judged), so every replay of a scenario, every
//! shrink and every recheck judges what the run that found it judged, with no second
//! mechanism beside the options. A store crash is always judged: it is not a property of
//! the render but the run itself ending.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::oracle::Invariant;

/// The invariants a user may choose among (a crash is always judged).
pub const CHOOSABLE: [Invariant; 5] = [
    Invariant::NoLoss,
    Invariant::NoDuplicate,
    Invariant::NewerTurnPreserved,
    Invariant::Converges,
    Invariant::RenderShape,
];

/// A set of judged invariants (a bit per [`CHOOSABLE`] invariant).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Judged(u8);

const ALL_BITS: u8 = (1 << CHOOSABLE.len()) - 1;

fn bit(inv: Invariant) -> u8 {
    CHOOSABLE
        .iter()
        .position(|i| *i == inv)
        .map_or(0, |p| 1 << p)
}

impl Default for Judged {
    fn default() -> Self {
        Judged::ALL
    }
}

impl Judged {
    /// Every invariant (the default).
    pub const ALL: Judged = Judged(ALL_BITS);

    /// Whether every invariant is judged (then it is left out of files).
    pub fn is_all(&self) -> bool {
        self.0 == ALL_BITS
    }

    /// Whether `inv` is judged (a crash always is).
    pub fn judges(self, inv: Invariant) -> bool {
        inv == Invariant::Crash || self.0 & bit(inv) != 0
    }

    /// The judged invariants, in report order.
    pub fn invariants(self) -> Vec<Invariant> {
        CHOOSABLE.into_iter().filter(|i| self.judges(*i)).collect()
    }

    /// The skipped invariants, in report order.
    pub fn skipped(self) -> Vec<Invariant> {
        CHOOSABLE.into_iter().filter(|i| !self.judges(*i)).collect()
    }

    /// Exactly `invs` (and crashes).
    pub fn only(invs: &[Invariant]) -> Judged {
        Judged(invs.iter().fold(0, |b, i| b | bit(*i)))
    }

    /// From `--invariants LIST` (judge only these) or `--skip LIST` (judge all but these);
    /// both absent: everything. Both given, an empty list, an unknown name, or skipping
    /// everything is an error naming the valid names.
    pub fn from_flags(invariants: Option<&str>, skip: Option<&str>) -> Result<Judged, String> {
        match (invariants, skip) {
            (None, None) => Ok(Judged::ALL),
            (Some(_), Some(_)) => Err(
                "--invariants and --skip cannot be used together: name the invariants to judge, or the ones to skip".to_string(),
            ),
            (Some(list), None) => {
                let set = parse_list(list, "--invariants")?;
                Ok(Judged(set))
            }
            (None, Some(list)) => {
                let set = parse_list(list, "--skip")?;
                if set == ALL_BITS {
                    return Err(format!(
                        "--skip {list} skips every invariant: keep at least one to judge"
                    ));
                }
                Ok(Judged(ALL_BITS & !set))
            }
        }
    }

    /// The flags that choose this set again: empty for everything, else
    /// ` --invariants inv1-no-loss,…`.
    pub fn flags(self) -> String {
        if self.is_all() {
            String::new()
        } else {
            format!(" --invariants {}", self.list())
        }
    }

    /// The judged invariants' names, comma-separated.
    pub fn list(self) -> String {
        self.invariants()
            .iter()
            .map(|i| i.name())
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// An invariant by its full name (`inv1-no-loss`) or its number (`inv1`).
pub fn parse_invariant(name: &str) -> Option<Invariant> {
    CHOOSABLE
        .into_iter()
        .find(|i| i.name() == name || i.name().split('-').next() == Some(name))
}

/// The valid names, for error messages.
pub fn valid_names() -> String {
    CHOOSABLE
        .iter()
        .map(|i| {
            let full = i.name();
            format!("{} ({full})", full.split('-').next().unwrap_or(full))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn parse_list(list: &str, flag: &str) -> Result<u8, String> {
    let mut set = 0;
    for name in list.split(',').map(str::trim) {
        if name.is_empty() {
            return Err(format!(
                "{flag} '{list}': an empty name; valid names: {}",
                valid_names()
            ));
        }
        let inv = parse_invariant(name).ok_or_else(|| {
            format!(
                "{flag}: unknown invariant '{name}'; valid names: {}",
                valid_names()
            )
        })?;
        set |= bit(inv);
    }
    if set == 0 {
        return Err(format!("{flag}: no invariant named"));
    }
    Ok(set)
}

impl fmt::Display for Judged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_all() {
            f.write_str("all")
        } else {
            let skipped: Vec<&str> = self.skipped().iter().map(|i| i.name()).collect();
            write!(f, "{} (skipped: {})", self.list(), skipped.join(","))
        }
    }
}

impl Serialize for Judged {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.invariants().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Judged {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let invs = Vec::<Invariant>::deserialize(d)?;
        if invs.contains(&Invariant::Crash) {
            return Err(serde::de::Error::custom(
                "`crash` is always judged: list only inv1..inv5",
            ));
        }
        if invs.is_empty() {
            return Err(serde::de::Error::custom(
                "no invariant judged: list at least one of inv1..inv5",
            ));
        }
        Ok(Judged::only(&invs))
    }
}

impl schemars::JsonSchema for Judged {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Judged".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<Invariant>>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_parse_short_and_full_names_and_read_back() {
        assert_eq!(Judged::from_flags(None, None), Ok(Judged::ALL));
        let skip5 = Judged::from_flags(None, Some("inv5")).unwrap();
        assert!(!skip5.judges(Invariant::RenderShape));
        assert!(skip5.judges(Invariant::NoLoss) && skip5.judges(Invariant::Crash));
        assert_eq!(
            Judged::from_flags(Some("inv1-no-loss, inv2,inv3,inv4"), None),
            Ok(skip5)
        );
        assert_eq!(
            skip5.flags(),
            " --invariants inv1-no-loss,inv2-no-duplicate,inv3-newer-turn,inv4-converges"
        );
        let again = skip5.flags();
        let list = again.trim_start().strip_prefix("--invariants ").unwrap();
        assert_eq!(Judged::from_flags(Some(list), None), Ok(skip5));
        assert_eq!(Judged::ALL.flags(), "");
        assert_eq!(
            skip5.to_string(),
            "inv1-no-loss,inv2-no-duplicate,inv3-newer-turn,inv4-converges (skipped: inv5-render-shape)"
        );
    }

    #[test]
    fn bad_lists_are_clear_errors() {
        let e = Judged::from_flags(Some("inv1"), Some("inv5")).unwrap_err();
        assert!(e.contains("cannot be used together"), "{e}");
        let e = Judged::from_flags(None, Some("inv9")).unwrap_err();
        assert!(e.contains("unknown invariant 'inv9'"), "{e}");
        assert!(e.contains("inv5 (inv5-render-shape)"), "{e}");
        let e = Judged::from_flags(Some("inv1,,inv2"), None).unwrap_err();
        assert!(e.contains("empty name"), "{e}");
        let e = Judged::from_flags(None, Some("inv1,inv2,inv3,inv4,inv5")).unwrap_err();
        assert!(e.contains("skips every invariant"), "{e}");
        assert!(Judged::from_flags(Some("crash"), None).is_err());
    }

    #[test]
    fn serialises_as_the_judged_names() {
        let j = Judged::only(&[Invariant::NoLoss, Invariant::Converges]);
        let json = serde_json::to_string(&j).unwrap();
        assert_eq!(json, r#"["inv1-no-loss","inv4-converges"]"#);
        assert_eq!(serde_json::from_str::<Judged>(&json).unwrap(), j);
        assert!(serde_json::from_str::<Judged>("[]").is_err());
        assert!(serde_json::from_str::<Judged>(r#"["crash"]"#).is_err());
    }
}
