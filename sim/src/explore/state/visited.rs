//! The breadth-first search's visited set: 64-bit fingerprints of full states in one
//! open-addressed table (linear probing), 8 bytes a slot, at most 3/4 full. What a state
//! costs here is `8 / load` bytes: 10.7 to 21 (TLC keeps the same 8-byte fingerprints).
//!
//! Two different states with equal fingerprints would be merged, and the second one's
//! future never searched. With `n` states and fingerprints that behave like independent
//! uniform 64-bit values, the chance that any two of them collide is at most
//! `n(n-1)/2 / 2^64`: 5.4e-8 for a million states, 5.4e-6 for ten million, 5.4e-4 for
//! a hundred million ([`collision_bound`] prints it in each report). The key a fingerprint
//! hashes holds each judged tab's own part as a 128-bit digest (`bfs::fingerprint`): two
//! different own parts with one digest add at most `n(n-1)/2 / 2^128` per tab, a share
//! of the bound too small to print.

/// A set of nonzero 64-bit fingerprints.
pub(crate) struct Fingerprints {
    slots: Vec<u64>,
    len: usize,
    /// `64 - log2(slots.len())`: a fingerprint's home slot is its top bits.
    shift: u32,
}

impl Default for Fingerprints {
    fn default() -> Fingerprints {
        Fingerprints::with_log2(16)
    }
}

impl Fingerprints {
    fn with_log2(log2: u32) -> Fingerprints {
        Fingerprints {
            slots: vec![0; 1 << log2],
            len: 0,
            shift: 64 - log2,
        }
    }

    /// 0 marks an empty slot, so fingerprint 0 is stored as 1.
    fn nonzero(fp: u64) -> u64 {
        fp.max(1)
    }

    /// Whether `fp` is in the set.
    pub(crate) fn contains(&self, fp: u64) -> bool {
        let fp = Self::nonzero(fp);
        let mask = self.slots.len() - 1;
        let mut i = (fp >> self.shift) as usize;
        loop {
            match self.slots[i] {
                0 => return false,
                x if x == fp => return true,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Adds `fp`: true when it was not in the set.
    pub(crate) fn insert(&mut self, fp: u64) -> bool {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let fp = Self::nonzero(fp);
        let mask = self.slots.len() - 1;
        let mut i = (fp >> self.shift) as usize;
        loop {
            match self.slots[i] {
                0 => {
                    self.slots[i] = fp;
                    self.len += 1;
                    return true;
                }
                x if x == fp => return false,
                _ => i = (i + 1) & mask,
            }
        }
    }

    fn grow(&mut self) {
        let log2 = 64 - self.shift + 1;
        let old = std::mem::replace(self, Fingerprints::with_log2(log2));
        for fp in old.slots.into_iter().filter(|&x| x != 0) {
            self.insert(fp);
        }
    }

    /// How many fingerprints are stored.
    pub(crate) fn len(&self) -> u64 {
        self.len as u64
    }

    /// Bytes of the table.
    pub(crate) fn bytes(&self) -> u64 {
        (self.slots.len() * 8) as u64
    }
}

/// The bound on the chance that two of `n` states share a 64-bit fingerprint (see the
/// module doc). The chance that two tabs' own parts share a 128-bit digest (at most `n`
/// of them per judged tab: `bfs::fingerprint`) adds `t · n(n-1)/2 / 2^128` for `t`
/// judged tabs: a factor `1 + t / 2^64` on this figure, which no digit printed shows.
pub fn collision_bound(n: u64) -> f64 {
    let n = n as f64;
    n * (n - 1.0).max(0.0) / 2.0 / 2f64.powi(64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_keeps_what_is_inserted_through_growth() {
        let mut set = Fingerprints::default();
        let fp = |i: u64| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i << 7);
        for i in 0..200_000u64 {
            assert!(set.insert(fp(i)), "{i}");
        }
        assert_eq!(set.len(), 200_000);
        for i in 0..200_000u64 {
            assert!(set.contains(fp(i)));
            assert!(!set.insert(fp(i)));
        }
        assert!(!set.contains(fp(200_001)));
        // 0 and 1 are one fingerprint (0 marks an empty slot).
        set.insert(0);
        assert!(set.contains(1));
        assert!(set.bytes() >= 8 * 200_000 * 4 / 3);
    }
}
