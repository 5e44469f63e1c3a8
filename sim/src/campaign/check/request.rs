//! What a check runs: its request (stores, seeds, scenarios, baseline, shard), the seed
//! it starts from, and its batch size.

use std::path::{Path, PathBuf};

use crate::campaign::shard::Shard;
use crate::model::store::StoreFactory;
use crate::run::strategy::StrategySpec;
use crate::run::worlds::Worlds;
use crate::store::recorded::RecordedError;
use crate::trace::scenario::Scenario;
use crate::trace::shrink::Limits;

/// Seeds per fuzz batch (one JUnit testcase each).
pub const BATCH_SEEDS: u64 = 1000;

/// The default fuzz budget per store: well under a second of CPU per store in a release
/// build, so a CI run of `check` stays far under a minute.
pub const DEFAULT_SEEDS: u64 = 10_000;

/// The first seed for `--seed S`: S itself when it is a decimal number, otherwise the
/// FNV-1a hash of its bytes cut to 48 bits (so `start + seeds` never overflows). The same
/// string gives the same seeds on every machine and build.
pub fn seed_start_from(s: &str) -> u64 {
    if let Ok(n) = s.parse::<u64>() {
        return n;
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h & 0xffff_ffff_ffff
}

/// `--seed S` checked: an empty (or blank) string is refused, since it is what an unset
/// variable gives (`--seed "$GITHUB_SHA"` outside GitHub Actions), and hashing it would
/// fuzz the same seeds on every run while looking like a per-commit gate (issue 48).
pub fn seed_start_checked(s: &str) -> Result<u64, String> {
    if s.trim().is_empty() {
        return Err(
            "is empty (an unset variable, such as \"$GITHUB_SHA\" outside GitHub Actions?): give a number or any non-empty string, such as a commit hash"
                .to_string(),
        );
    }
    Ok(seed_start_from(s))
}

/// What a check runs (see the module doc).
pub struct CheckRequest<'a> {
    /// Where the scenarios are (searched recursively for `*.json`).
    pub scenarios_dir: PathBuf,
    /// Whether `scenarios_dir` was named (`--scenarios DIR`): a named folder must exist. The
    /// default folder may be missing, which means no scenarios: a new store's project has
    /// none yet, and an empty folder cannot be committed.
    pub scenarios_named: bool,
    /// The stores under test; `None` replays each scenario on the store it names.
    pub under_test: Option<Vec<&'a dyn StoreFactory>>,
    /// Seeds to fuzz per store under test.
    pub seeds: u64,
    /// The first seed.
    pub seed_start: u64,
    /// How steps are chosen while fuzzing.
    pub strategy: StrategySpec,
    /// Worker threads.
    pub jobs: usize,
    /// Where failures found by fuzzing are written, shrunk.
    pub out: PathBuf,
    /// Shrinking limits.
    pub limits: Limits,
    /// A directory of known failures (`--known`): scenario files, each a known class of
    /// the store it names.
    pub known: Option<PathBuf>,
    /// The part of the check to run ([`crate::campaign::shard`]): shard `I/N` fuzzes the
    /// batches `b` with `b mod N = I − 1`, and only shard 1 replays the scenarios and runs
    /// the determinism check (every shard loads the scenarios and computes the baseline).
    /// [`Shard::WHOLE`] runs everything.
    pub shard: Shard,
    /// Run the first seeds of each store under test again and compare (see
    /// [`crate::campaign::recheck::check_determinism`]): `nondeterministic` and
    /// `state-leak` findings fail the check. The CLI turns it on for `exec:` stores.
    pub determinism: bool,
    /// Accept a check with no scenario file at all (`--allow-empty`); otherwise it is an
    /// error, so that a gate pointed at the wrong (or an emptied) folder cannot pass.
    pub allow_empty: bool,
    /// What `--world` pins in the fuzzed seeds' worlds, and the invariants judged (in
    /// the fuzzed runs and, when chosen, in every scenario's replay too).
    pub worlds: Worlds,
    /// Write the HTML report beside the saved scenarios (`--html`): the check's page and
    /// each new class's scenario page ([`crate::campaign::report`]).
    pub html: bool,
    /// How long settling the new classes found may take (`--settle-time`).
    pub settle: crate::campaign::settle_budget::SettleBudget,
}

impl CheckRequest<'_> {
    /// The default scenarios folder is not there (see [`CheckRequest::scenarios_named`]):
    /// there are no scenarios to replay, and the report says so.
    pub fn scenarios_absent(&self) -> bool {
        !self.scenarios_named && !self.scenarios_dir.exists()
    }
}

/// Resolves the store scenario file `path` names (a name, or `exec:`, which runs where the
/// file recorded it, and only with the user's consent: see [`crate::store::recorded`]).
pub type Resolver<'a> =
    &'a dyn Fn(&Path, &Scenario) -> Result<Box<dyn StoreFactory>, RecordedError>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (issue 48): `--seed ""` (an unset CI variable) was accepted and fuzzed
    /// the hash of the empty string.
    #[test]
    fn an_empty_or_blank_seed_string_is_refused() {
        for blank in ["", " ", "\t\n"] {
            let e = seed_start_checked(blank).unwrap_err();
            assert!(e.contains("unset variable"), "{e}");
        }
        assert_eq!(seed_start_checked("42"), Ok(42));
        assert_eq!(seed_start_checked("abc"), Ok(seed_start_from("abc")));
    }

    /// `--seed`: a decimal number is the first seed; any other string is its FNV-1a 64
    /// hash (the published test vectors) cut to 48 bits.
    #[test]
    fn a_seed_string_is_its_number_or_its_fnv_1a_hash_cut_to_48_bits() {
        assert_eq!(seed_start_from("0"), 0);
        assert_eq!(seed_start_from("1"), 1);
        assert_eq!(seed_start_from("18446744073709551615"), u64::MAX);
        assert_eq!(
            seed_start_from(""),
            0xcbf2_9ce4_8422_2325 & 0xffff_ffff_ffff
        );
        assert_eq!(
            seed_start_from("a"),
            0xaf63_dc4c_8601_ec8c & 0xffff_ffff_ffff
        );
        assert_eq!(
            seed_start_from("foobar"),
            0x8594_4171_f739_67e8 & 0xffff_ffff_ffff
        );
        assert_eq!(seed_start_from("-1"), seed_start_from("-1"));
        assert!(seed_start_from("-1") < 1 << 48);
    }
}
