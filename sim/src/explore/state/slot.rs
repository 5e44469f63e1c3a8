//! What a frame of the depth-first search holds of the cache, between its arrival and its
//! backtrack: its slot ([`CacheSlot`]: what to write back), the verdicts known clean there
//! ([`Verdicts`]), and its sleep set as a bit mask over the state's enabled steps
//! ([`mask_of`], [`select`]). Its own file so that the cache and the frames both build on
//! it and neither on the other.

use crate::model::step::Step;

/// How many enabled steps a mask can name: a state with more is never cached. 46, so that
/// a cache entry packs a sleep mask, two verdict bits and a 16-bit budget into one word
/// (`cache.rs`). A state with more enabled steps is searched without the cache: sound,
/// only slower.
pub const MASK_STEPS: usize = 46;

/// Which of the oracle's verdicts at a state are known to find no violation, as bits: the
/// verdict after a step of the judged tab that is not a fetch response
/// ([`Verdicts::AFTER_STEP`]), and the one after a fetch response
/// ([`Verdicts::AFTER_FETCH`]). Each is a function of the full state alone (the oracle
/// judges the judged tab's render and facts and the backend's ground truth, and a step
/// only through whether it delivered a fetch response), so once one was judged clean
/// at a state, an arrival there by the same kind of step need not judge it again. A
/// verdict that found a violation is never recorded: every arrival judges it again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verdicts(pub(crate) u8);

impl Verdicts {
    /// After a step of the judged tab other than a fetch response.
    pub const AFTER_STEP: Verdicts = Verdicts(1);
    /// After a fetch response of the judged tab.
    pub const AFTER_FETCH: Verdicts = Verdicts(2);
    /// Whether every verdict of `kind` is among these.
    pub fn cover(self, kind: Verdicts) -> bool {
        self.0 & kind.0 == kind.0
    }
    pub(crate) fn with(self, other: Verdicts) -> Verdicts {
        Verdicts(self.0 | other.0)
    }
}

/// What a frame must write back to the cache when its search ends.
pub struct CacheSlot {
    pub(crate) key: u64,
    /// The sleep set the entry is to record: the arrival's own `Z'` for a new search,
    /// `Z ∩ Z'` for a partial revisit. Kept here rather than read back from the entry, so
    /// that what is written is this search's own claim even if another thread wrote the
    /// entry in the meantime.
    pub(crate) sleep: u64,
    /// For a revisit that searched only `Z \ Z'`: the budget of the earlier search, which
    /// still bounds what is covered.
    pub(crate) earlier_budget: Option<u32>,
    /// The verdicts this visit judged clean, to record.
    pub(crate) clean: Verdicts,
}

impl CacheSlot {
    /// Records that the verdicts `kind` were judged clean at this state.
    pub fn judged_clean(&mut self, kind: Verdicts) {
        self.clean = self.clean.with(kind);
    }
}

/// The bits of `subset` (a subset of `enabled`, both sorted) as a mask over `enabled`.
pub fn mask_of(enabled: &[Step], subset: &[Step]) -> u64 {
    subset
        .iter()
        .filter_map(|s| enabled.binary_search(s).ok())
        .filter(|&i| i < MASK_STEPS)
        .fold(0, |m, i| m | 1 << i)
}

/// The steps of `enabled` whose bit is set in `mask`, in order (every step past the 64th
/// is always selected: such states are never cached, so they are searched in full).
pub fn select(enabled: &[Step], mask: u64) -> Vec<Step> {
    enabled
        .iter()
        .enumerate()
        .filter(|&(i, _)| i >= MASK_STEPS || mask & (1 << i) != 0)
        .map(|(_, s)| *s)
        .collect()
}
