//! One shard, `I/N`: the `I`-th of `N` deterministic parts of a campaign's seeds or of a
//! search's work units. Campaigns cut seeds into blocks (`crate::campaign::shard`); `explore`
//! cuts its tree into units (`crate::explore::shard`); both give shard `I` the blocks or
//! units `u` with `u mod N = I − 1`, so the N shards together cover each exactly once.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One shard: the `index`-th (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Shard {
    /// Which shard, from 1.
    pub index: u64,
    /// How many shards the campaign or search is split into.
    pub count: u64,
}

impl Shard {
    /// The whole campaign: shard 1 of 1.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Shard `index` of `count`, or why not.
    pub fn new(index: u64, count: u64) -> Result<Shard, String> {
        if count == 0 {
            return Err(format!(
                "shard {index}/{count}: the number of shards N must be at least 1"
            ));
        }
        if index == 0 || index > count {
            return Err(format!(
                "shard {index}/{count}: the shard index I must be between 1 and N = {count}"
            ));
        }
        Ok(Shard { index, count })
    }

    /// Whether unit `unit` (0-based: a campaign's block of seeds from its first seed, or
    /// a search's work unit in its listing's order) is this shard's.
    pub fn owns(self, unit: u64) -> bool {
        unit % self.count == self.index - 1
    }

    /// How many of a `seeds`-seed campaign's seeds, in blocks of `block`, are this
    /// shard's (what its progress bar counts to).
    pub fn seeds_of(self, seeds: u64, block: u64) -> u64 {
        let block = block.max(1);
        let blocks = seeds.div_ceil(block);
        let first = self.index - 1;
        if blocks <= first {
            return 0;
        }
        let owned = (blocks - first).div_ceil(self.count);
        let short = match seeds % block {
            0 => 0,
            r if self.owns(blocks - 1) => block - r,
            _ => 0,
        };
        (owned * block).saturating_sub(short)
    }

    /// The campaign-wide number of this shard's `local`-th block (0-based).
    pub fn block(self, local: u64) -> u64 {
        local
            .saturating_mul(self.count)
            .saturating_add(self.index - 1)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `I/N`, with 1 ≤ I ≤ N.
    fn from_str(s: &str) -> Result<Shard, String> {
        let (i, n) = s.split_once('/').ok_or_else(|| {
            format!("'{s}' is not I/N (for example 2/8: the second of eight shards)")
        })?;
        let number = |t: &str, what: &str| {
            t.trim().parse::<u64>().map_err(|_| {
                format!("'{s}': {what} '{t}' is not a whole number (write I/N, for example 2/8)")
            })
        };
        Shard::new(number(i, "I")?, number(n, "N")?)
    }
}
