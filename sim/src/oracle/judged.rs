//! Which invariants the oracle judges: all five by default, or the ones a team chose with
//! `--invariants LIST` or `--skip LIST` (a team that gates on invariants 1–4 alone, say,
//! because its rendering policy is its own business).
//!
//! The choice rides with the world's options ([`crate::model::config::WorldConfig::judged`],
//! left out of files when everything is judged), so every replay of a scenario, every
//! shrink and every recheck judges what the run that found it judged, with no second
//! mechanism beside the options. A store crash is always judged: it is not a property of
//! the render but the run itself ending.

use crate::model::judged::Judged;
use crate::oracle::invariant::Invariant;

/// The invariants a user may choose among (a crash is always judged).
pub const CHOOSABLE: [Invariant; 5] = [
    Invariant::NoLoss,
    Invariant::NoDuplicate,
    Invariant::NewerTurnPreserved,
    Invariant::Converges,
    Invariant::RenderShape,
];

/// The number of a choosable invariant (1–5), `None` for a crash.
fn number(inv: Invariant) -> Option<u8> {
    CHOOSABLE
        .iter()
        .position(|i| *i == inv)
        .map(|p| p as u8 + 1)
}

/// What the oracle reads of a [`Judged`] set: by invariant, with names.
pub trait JudgedExt {
    /// Whether `inv` is judged (a crash always is).
    fn judges(self, inv: Invariant) -> bool;
    /// The judged invariants, in report order.
    fn invariants(self) -> Vec<Invariant>;
    /// The skipped invariants, in report order.
    fn skipped(self) -> Vec<Invariant>;
    /// The judged invariants' full names, comma-separated.
    fn list(self) -> String;
    /// The flags that choose this set again: empty for everything, else
    /// ` --invariants inv1-no-loss,…`.
    fn flags(self) -> String;
    /// `all`, or the judged list with the skipped ones: what headers print.
    fn describe(self) -> String;
}

impl JudgedExt for Judged {
    fn judges(self, inv: Invariant) -> bool {
        number(inv).is_none_or(|n| self.judges_number(n))
    }
    fn invariants(self) -> Vec<Invariant> {
        CHOOSABLE.into_iter().filter(|i| self.judges(*i)).collect()
    }
    fn skipped(self) -> Vec<Invariant> {
        CHOOSABLE.into_iter().filter(|i| !self.judges(*i)).collect()
    }
    fn list(self) -> String {
        self.invariants()
            .iter()
            .map(|i| i.name())
            .collect::<Vec<_>>()
            .join(",")
    }
    fn flags(self) -> String {
        if self.is_all() {
            String::new()
        } else {
            format!(" --invariants {}", self.list())
        }
    }
    fn describe(self) -> String {
        if self.is_all() {
            "all".to_string()
        } else {
            let skipped: Vec<&str> = self.skipped().iter().map(|i| i.name()).collect();
            format!("{} (skipped: {})", self.list(), skipped.join(","))
        }
    }
}

/// Exactly `invs` (and crashes).
pub fn only(invs: &[Invariant]) -> Judged {
    Judged::of_numbers(invs.iter().filter_map(|i| number(*i)))
}

/// From `--invariants LIST` (judge only these) or `--skip LIST` (judge all but these);
/// both absent: everything. Both given, an empty name, an unknown name, or skipping
/// everything is an error naming the valid names.
pub fn from_flags(invariants: Option<&str>, skip: Option<&str>) -> Result<Judged, String> {
    match (invariants, skip) {
        (None, None) => Ok(Judged::ALL),
        (Some(_), Some(_)) => Err(
            "--invariants and --skip cannot be used together: name the invariants to judge, or the ones to skip".to_string(),
        ),
        (Some(list), None) => Ok(only(&parse_list(list, "--invariants")?)),
        (None, Some(list)) => {
            let skipped = parse_list(list, "--skip")?;
            let kept: Vec<Invariant> = CHOOSABLE
                .into_iter()
                .filter(|i| !skipped.contains(i))
                .collect();
            if kept.is_empty() {
                return Err(format!(
                    "--skip {list} skips every invariant: keep at least one to judge"
                ));
            }
            Ok(only(&kept))
        }
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

fn parse_list(list: &str, flag: &str) -> Result<Vec<Invariant>, String> {
    let mut out = Vec::new();
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
        out.push(inv);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_parse_short_and_full_names_and_read_back() {
        assert_eq!(from_flags(None, None), Ok(Judged::ALL));
        let skip5 = from_flags(None, Some("inv5")).unwrap();
        assert!(!skip5.judges(Invariant::RenderShape));
        assert!(skip5.judges(Invariant::NoLoss) && skip5.judges(Invariant::Crash));
        assert_eq!(
            from_flags(Some("inv1-no-loss, inv2,inv3,inv4"), None),
            Ok(skip5)
        );
        assert_eq!(
            skip5.flags(),
            " --invariants inv1-no-loss,inv2-no-duplicate,inv3-newer-turn,inv4-converges"
        );
        let again = skip5.flags();
        let list = again.trim_start().strip_prefix("--invariants ").unwrap();
        assert_eq!(from_flags(Some(list), None), Ok(skip5));
        assert_eq!(Judged::ALL.flags(), "");
        assert_eq!(
            skip5.describe(),
            "inv1-no-loss,inv2-no-duplicate,inv3-newer-turn,inv4-converges (skipped: inv5-render-shape)"
        );
    }

    #[test]
    fn bad_lists_are_clear_errors() {
        let e = from_flags(Some("inv1"), Some("inv5")).unwrap_err();
        assert!(e.contains("cannot be used together"), "{e}");
        let e = from_flags(None, Some("inv9")).unwrap_err();
        assert!(e.contains("unknown invariant 'inv9'"), "{e}");
        assert!(e.contains("inv5 (inv5-render-shape)"), "{e}");
        let e = from_flags(Some("inv1,,inv2"), None).unwrap_err();
        assert!(e.contains("empty name"), "{e}");
        let e = from_flags(None, Some("inv1,inv2,inv3,inv4,inv5")).unwrap_err();
        assert!(e.contains("skips every invariant"), "{e}");
        assert!(from_flags(Some("crash"), None).is_err());
    }

    #[test]
    fn only_reads_back_as_its_invariants() {
        let j = only(&[Invariant::NoLoss, Invariant::Converges]);
        assert_eq!(j.invariants(), [Invariant::NoLoss, Invariant::Converges]);
        assert!(j.judges(Invariant::Crash));
        assert_eq!(j.numbers(), [1, 4]);
    }
}
