//! Splitting a seeded campaign over machines: `--shard I/N` takes a deterministic part of
//! the seeds, so that the N shards together run exactly the seeds of the unsharded
//! campaign, each once, and `reconcile-sim merge` can add their results back up
//! ([`crate::campaign::merge`]).
//!
//! **The partition.** Seeds are cut into blocks of consecutive seeds from the campaign's
//! first seed: block `b` holds `start + b·B .. start + (b+1)·B`. Shard `I` of `N` takes the
//! blocks `b` with `b mod N = I − 1`, in order: round-robin, so every shard gets seeds from
//! the whole range and shards stay balanced whatever the budget. Every store runs every
//! seed of a block, so a seed's runs on all stores are in one shard. `fuzz` and `nightly`
//! use the campaign's own work chunks as blocks ([`crate::campaign::fuzz::CHUNK_SEEDS`],
//! 64 seeds); `check` uses its fuzz batches ([`crate::campaign::check::BATCH_SEEDS`],
//! 1000 seeds, one JUnit testcase each), so a testcase is never split.
//!
//! **With a seed budget** (`--seeds S`) the blocks end at `start + S` (the last one may
//! be short); each shard runs all of its blocks, and the union over the N shards is
//! `start .. start + S`, exactly.
//!
//! **With a time budget** (`--time T`) each shard runs its own blocks, in order, for T on
//! its machine, and reports, like an unsharded campaign, the longest prefix of *its*
//! seeds that every store finished. The union is then every seed some shard covered: all
//! seeds up to where the slowest shard stopped, then a ragged end where the faster ones
//! went on. Nothing is thrown away; the merged report counts every seed run and, when the
//! union is not one range, says which ranges it covers ([`covered_ranges`]).

use std::ops::Range;

pub use crate::util::shard::Shard;

/// The seed ranges covered by some shards of a campaign split into blocks of `block`
/// seeds from `start`: `covered` gives, for each shard present, how many of its own seeds
/// (a prefix of its blocks, in order) it ran; `total` is the campaign's seed budget
/// (`None` for a time budget, where blocks never run out). Adjacent ranges are joined, so
/// a complete seed-budget campaign gives the one range `start .. start + total`.
pub fn covered_ranges(
    start: u64,
    block: u64,
    total: Option<u64>,
    count: u64,
    covered: &[(u64, u64)],
) -> Vec<Range<u64>> {
    let block = block.max(1);
    let block_len = |b: u64| -> u64 {
        let first = b.saturating_mul(block);
        match total {
            Some(t) if first >= t => 0,
            Some(t) => block.min(t - first),
            None => block,
        }
    };
    let mut ranges: Vec<Range<u64>> = Vec::new();
    let mut parts: Vec<(u64, u64)> = Vec::new();
    for &(index, seeds) in covered {
        let Ok(shard) = Shard::new(index, count) else {
            continue;
        };
        let mut left = seeds;
        let mut local = 0;
        while left > 0 {
            let b = shard.block(local);
            let len = block_len(b).min(left);
            if len == 0 {
                break;
            }
            let from = start.saturating_add(b.saturating_mul(block));
            parts.push((from, from.saturating_add(len)));
            left -= len;
            local += 1;
        }
    }
    parts.sort_unstable();
    for (from, to) in parts {
        match ranges.last_mut() {
            Some(r) if r.end >= from => r.end = r.end.max(to),
            _ => ranges.push(from..to),
        }
    }
    ranges
}

/// Ranges as text: `0..64, 128..192` (the first `max` of them, then how many more).
pub fn format_ranges(ranges: &[Range<u64>], max: usize) -> String {
    let mut parts: Vec<String> = ranges
        .iter()
        .take(max)
        .map(|r| format!("{}..{}", r.start, r.end))
        .collect();
    if ranges.len() > max {
        parts.push(format!("… ({} ranges in all)", ranges.len()));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_of_counts_the_seeds_of_owned_blocks() {
        for count in 1..=7 {
            for seeds in [0u64, 1, 63, 64, 65, 640, 1000, 12_345] {
                let mut total = 0;
                for index in 1..=count {
                    let shard = Shard::new(index, count).unwrap();
                    let by_block: u64 = (0..seeds.div_ceil(64))
                        .filter(|&b| shard.owns(b))
                        .map(|b| 64.min(seeds - b * 64))
                        .sum();
                    assert_eq!(shard.seeds_of(seeds, 64), by_block, "{shard} of {seeds}");
                    total += by_block;
                }
                assert_eq!(total, seeds);
            }
        }
    }

    #[test]
    fn shards_parse_and_range_check() {
        assert_eq!("3/7".parse::<Shard>(), Ok(Shard { index: 3, count: 7 }));
        assert_eq!("1/1".parse::<Shard>(), Ok(Shard::WHOLE));
        assert_eq!(
            " 2 / 2 ".trim().parse::<Shard>(),
            Ok(Shard { index: 2, count: 2 })
        );
        for (bad, says) in [
            ("0/3", "between 1 and N = 3"),
            ("4/3", "between 1 and N = 3"),
            ("1/0", "at least 1"),
            ("3", "not I/N"),
            ("a/3", "'a' is not a whole number"),
            ("1/-2", "'-2' is not a whole number"),
        ] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        assert_eq!(Shard { index: 2, count: 5 }.to_string(), "2/5");
    }

    /// Every block belongs to exactly one shard, and a shard's local blocks are its own.
    #[test]
    fn the_shards_partition_the_blocks() {
        for count in 1..9 {
            for b in 0..100 {
                let owners: Vec<u64> = (1..=count)
                    .filter(|&i| Shard { index: i, count }.owns(b))
                    .collect();
                assert_eq!(owners.len(), 1, "block {b} of {count} shards");
            }
            for index in 1..=count {
                let s = Shard { index, count };
                for local in 0..20 {
                    assert!(s.owns(s.block(local)));
                }
            }
        }
    }

    #[test]
    fn complete_seed_budgets_cover_one_range() {
        for count in 1..8u64 {
            // 1000 seeds in blocks of 64: 15 full blocks and one of 40.
            let per: Vec<(u64, u64)> = (1..=count)
                .map(|i| {
                    let s = Shard { index: i, count };
                    let seeds = (0..16)
                        .filter(|&b| s.owns(b))
                        .map(|b| if b == 15 { 40 } else { 64 })
                        .sum();
                    (i, seeds)
                })
                .collect();
            assert_eq!(per.iter().map(|p| p.1).sum::<u64>(), 1000);
            assert_eq!(
                covered_ranges(7, 64, Some(1000), count, &per),
                vec![7..1007]
            );
        }
    }

    #[test]
    fn ragged_time_budgets_show_their_gaps() {
        // Shard 1 of 2 ran 3 blocks (0, 2, 4), shard 2 one and a half (1, half of 3).
        let r = covered_ranges(0, 10, None, 2, &[(1, 30), (2, 15)]);
        assert_eq!(r, vec![0..35, 40..50]);
        assert_eq!(format_ranges(&r, 5), "0..35, 40..50");
        assert_eq!(format_ranges(&r, 1), "0..35, … (2 ranges in all)");
        // A shard that ran nothing covers nothing.
        assert_eq!(covered_ranges(0, 10, None, 2, &[(2, 0)]), vec![]);
    }
}
