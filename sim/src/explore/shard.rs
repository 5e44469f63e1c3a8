//! `explore --shard I/N`: a deterministic partition of one search tree, so that N machines
//! together search every schedule of a bound, and their results merge
//! ([`super::merge_explore_results`]).
//!
//! **The partition.** Every shard first lists the same **work units**: the prefixes of the
//! reduced search tree (the scope's steps, narrowed to persistent sets when the bound asks
//! for them, exactly as the depth-first search narrows them) at the smallest depth `K`
//! where there are at least `8·N` of them (so that shards stay balanced), with the
//! schedules that end before `K` (at quiescence or at a violation) as units of their own.
//! The listing is a stateless breadth-first expansion of the first `K` levels: no cache,
//! no sleep set, nothing that depends on what was searched before, so every shard lists the
//! same units in the same order (sorted as step lists). Shard `I` takes the units `u` with
//! `u mod N = I − 1` and searches below each ([`super::engine::dfs`]), with its own state cache.
//!
//! **Why the union is the whole search.** Every schedule of the reduced tree starts with
//! exactly one unit (a unit is a node of the tree at depth `K`, or a whole schedule shorter
//! than `K`), and below a unit the depth-first search covers every suffix, as it does below
//! the root: its cache and sleep sets only skip what is covered (the cache's entries are
//! facts about a state, whichever unit reached it; the prefix steps are taken with empty
//! sleep sets and never looked up in the cache, which only searches more). So the N shards
//! together cover every schedule, and a counterexample of the unsharded search lies below
//! some unit, in some shard, at the same length (the shortest over the shards is the
//! shortest of the whole). States below two units are searched in both shards: the shards'
//! state counts add up to at least the unsharded count, never less.

use crate::model::step::Step;
use crate::model::store::StoreFactory;
pub use crate::util::shard::Shard;

use super::bound::ExploreBound;
use super::reduction::scope::Scope;

/// Units per shard the listing aims at, for balance.
const UNITS_PER_SHARD: usize = 8;
/// The deepest the listing goes, whatever the count.
const MAX_PREFIX_DEPTH: usize = 24;

/// The work units of `scope`'s tree under `bound`, in their canonical order, and the prefix
/// depth: one empty unit (the whole tree) when `count` is 1.
pub(super) fn units(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    scope: Scope,
    count: u64,
) -> (usize, Vec<Vec<Step>>) {
    let want = UNITS_PER_SHARD.saturating_mul(count as usize);
    if count <= 1 {
        return (0, vec![Vec::new()]);
    }
    // (prefix, open): open prefixes have steps enabled after them and no violation.
    let mut level: Vec<(Vec<Step>, bool)> = vec![(Vec::new(), true)];
    let mut depth = 0;
    let mut enabled = Vec::new();
    while level.len() < want && depth < MAX_PREFIX_DEPTH && level.iter().any(|(_, open)| *open) {
        let mut next = Vec::new();
        for (prefix, open) in level {
            if !open {
                next.push((prefix, false));
                continue;
            }
            let mut world = scope.world(&bound.world, stores);
            for (i, &step) in prefix.iter().enumerate() {
                let _ = scope.judge_step(&mut world, step, i);
            }
            scope.enabled_steps(&world, &mut enabled);
            if bound.reductions.persistent {
                // Never backend-first sets here: a shard that meets a violation searches
                // its units again without them (see `explore`), so the listing must be
                // the same with and without them, or the merge's shortest would come from
                // two different cuts of the tree.
                scope.persistent_set(&world, &mut enabled, false);
            }
            for &step in &enabled {
                let mut w = match world.try_clone() {
                    Some(w) => w,
                    None => {
                        let mut w = scope.world(&bound.world, stores);
                        for (i, &s) in prefix.iter().enumerate() {
                            let _ = scope.judge_step(&mut w, s, i);
                        }
                        w
                    }
                };
                let ends = !matches!(scope.judge_step(&mut w, step, prefix.len()), Ok(None));
                let mut after = Vec::new();
                scope.enabled_steps(&w, &mut after);
                let mut p = prefix.clone();
                p.push(step);
                next.push((p, !ends && !after.is_empty()));
            }
        }
        level = next;
        depth += 1;
    }
    let mut units: Vec<Vec<Step>> = level.into_iter().map(|(p, _)| p).collect();
    units.sort();
    (depth, units)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_partition() {
        assert_eq!("2/8".parse::<Shard>(), Ok(Shard { index: 2, count: 8 }));
        assert!("0/8"
            .parse::<Shard>()
            .unwrap_err()
            .contains("between 1 and N"));
        assert!("3/0".parse::<Shard>().unwrap_err().contains("at least 1"));
        assert!("x".parse::<Shard>().unwrap_err().contains("is not I/N"));
        let shards: Vec<Shard> = (1..=3).map(|i| Shard::new(i, 3).unwrap()).collect();
        for unit in 0..20 {
            assert_eq!(shards.iter().filter(|s| s.owns(unit as u64)).count(), 1);
        }
    }
}
