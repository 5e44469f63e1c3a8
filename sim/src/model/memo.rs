//! A digest remembered until what it names may change.

use std::cell::Cell;

/// A 128-bit digest of some state, computed at most once while that state stays as it is.
/// Whoever changes the state calls [`Memo::forget`]; the memo never looks at the state, so
/// the caller's `compute` must be the same function of it at every call. Copies of a world
/// copy their memos with the state they name.
#[derive(Clone, Debug, Default)]
pub struct Memo(Cell<Option<u128>>);

impl Memo {
    /// The digest remembered since the last [`Memo::forget`], else `compute`'s (remembered
    /// when it gives one: a state that cannot be named is asked again next time).
    pub fn get_or(&self, compute: impl FnOnce() -> Option<u128>) -> Option<u128> {
        if let Some(digest) = self.0.get() {
            return Some(digest);
        }
        let digest = compute();
        self.0.set(digest);
        digest
    }

    /// The state may change: the next [`Memo::get_or`] computes again.
    pub fn forget(&self) {
        self.0.set(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Computed once until forgotten; a copy keeps what was remembered; no digest is never
    /// remembered.
    #[test]
    fn remembers_until_forgotten() {
        let memo = Memo::default();
        let calls = Cell::new(0);
        let compute = |d| {
            calls.set(calls.get() + 1);
            d
        };
        assert_eq!(memo.get_or(|| compute(None)), None);
        assert_eq!(memo.get_or(|| compute(Some(7))), Some(7));
        assert_eq!(memo.get_or(|| compute(Some(8))), Some(7));
        assert_eq!(calls.get(), 2);
        let copy = memo.clone();
        memo.forget();
        assert_eq!(memo.get_or(|| compute(Some(9))), Some(9));
        assert_eq!(copy.get_or(|| compute(Some(10))), Some(7));
        assert_eq!(calls.get(), 3);
    }
}
