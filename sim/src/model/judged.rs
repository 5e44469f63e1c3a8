//! Which of the oracle's invariants a run judges, as the world's options carry it: a bit
//! per invariant, by number (1–5). The world never reads it; it rides with the options
//! ([`crate::model::config::WorldConfig::judged`]) so every replay, shrink and recheck of
//! a run judges what the run judged. The names, the parsing of `--invariants` / `--skip`
//! and the judging itself are the oracle's (`oracle::judged`).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How many invariants a user may choose among (1–5; a crash is always judged).
pub const INVARIANTS: u8 = 5;

const ALL_BITS: u8 = (1 << INVARIANTS) - 1;

/// A set of judged invariants, by number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Judged(u8);

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

    /// Whether invariant `n` (1–5) is judged.
    pub fn judges_number(self, n: u8) -> bool {
        (1..=INVARIANTS).contains(&n) && self.0 & (1 << (n - 1)) != 0
    }

    /// The judged invariants' numbers, in order.
    pub fn numbers(self) -> Vec<u8> {
        (1..=INVARIANTS)
            .filter(|n| self.judges_number(*n))
            .collect()
    }

    /// The set of the invariants numbered `numbers` (numbers outside 1–5 are ignored).
    pub fn of_numbers(numbers: impl IntoIterator<Item = u8>) -> Judged {
        Judged(
            numbers
                .into_iter()
                .filter(|n| (1..=INVARIANTS).contains(n))
                .fold(0, |b, n| b | (1 << (n - 1))),
        )
    }

    /// Whether nothing is judged (refused wherever a set is read).
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// Written `["inv1", "inv2", …]`: the invariants' short names.
impl Serialize for Judged {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let names: Vec<String> = self.numbers().iter().map(|n| format!("inv{n}")).collect();
        names.serialize(s)
    }
}

/// Read from short (`inv1`) or full (`inv1-no-loss`) names.
impl<'de> Deserialize<'de> for Judged {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let names = Vec::<String>::deserialize(d)?;
        let mut numbers = Vec::new();
        for name in &names {
            let n = name
                .strip_prefix("inv")
                .and_then(|rest| rest.split('-').next())
                .and_then(|n| n.parse::<u8>().ok())
                .filter(|n| (1..=INVARIANTS).contains(n))
                .ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        "`{name}` is not an invariant that can be chosen: list inv1..inv5 (a crash is always judged)"
                    ))
                })?;
            numbers.push(n);
        }
        if numbers.is_empty() {
            return Err(serde::de::Error::custom(
                "no invariant judged: list at least one of inv1..inv5",
            ));
        }
        Ok(Judged::of_numbers(numbers))
    }
}

impl schemars::JsonSchema for Judged {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Judged".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<String>>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_as_short_names_and_reads_full_ones() {
        let j = Judged::of_numbers([1, 4]);
        let json = serde_json::to_string(&j).unwrap();
        assert_eq!(json, r#"["inv1","inv4"]"#);
        assert_eq!(serde_json::from_str::<Judged>(&json).unwrap(), j);
        let full = r#"["inv1-no-loss","inv4-converges"]"#;
        assert_eq!(serde_json::from_str::<Judged>(full).unwrap(), j);
        assert!(serde_json::from_str::<Judged>("[]").is_err());
        assert!(serde_json::from_str::<Judged>(r#"["crash"]"#).is_err());
        assert!(serde_json::from_str::<Judged>(r#"["inv6"]"#).is_err());
        assert!(Judged::ALL.is_all() && !j.is_all());
    }
}
