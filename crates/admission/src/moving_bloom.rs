//! The moving Bloom filter on (src, dst, sid), two generations b1 and b2.
//!
//! Source: Li 2013 section 2.2 ("we use a moving bloom filter to test its
//! membership ... The key to the bloom filter is (src, dst, sid)"), Appendix A2
//! ("b1 = b2; b2 = new BloomFilter()" on each epoch shift) and Appendix A3
//! ("b2.add((src,dst,sid))" on installation, b1/b2.test on each subsequent packet).
//!
//! - Fixed size: `bits` per generation (a power of two, at least 64; default 2^16
//!   per SCENARIOS.md), allocated once.
//! - k positions from one keyed 64-bit SipHash-1-3 by double hashing,
//!   g_i(x) = h_a(x) + i * h_b(x) mod m, i = 0..k-1 (A. Kirsch and M. Mitzenmacher,
//!   "Less Hashing, Same Performance: Building a Better Bloom Filter", ESA 2006,
//!   section 3): h_a = low 32 bits, h_b = high 32 bits forced odd so that with m a
//!   power of two the k positions are distinct.
//! - Keyed (section 3.1): without the router's key an attacker cannot pick
//!   (src, dst, sid) triples that hit a victim's bits; she can still raise the
//!   false-positive rate by volume, bounded by the fill of one generation, and
//!   [`MovingBloom::estimated_fp_rate`] reports it.
//! - "b2 = new BloomFilter()" zeroes one generation: O(bits / 64) word writes,
//!   only at an epoch shift.

use crate::siphash::{PairPrefix, SipKey};

pub use crate::moving_table::Gen;

/// Smallest filter: one 64-bit word.
pub const MIN_BITS: u32 = 64;
/// Largest hash count accepted.
pub const MAX_HASHES: u32 = 32;

/// A hashed (src, dst, sid) key: compute once per packet, test both generations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BloomKey {
    a: u32,
    b: u32,
}

/// Two Bloom generations b1 (previous epoch) and b2 (current epoch), Appendix A2.
#[derive(Debug)]
pub struct MovingBloom {
    words: [Box<[u64]>; 2],
    /// Items added to each generation since it was cleared.
    items: [u32; 2],
    /// Index of b2 in `words`; b1 is the other one.
    cur: usize,
    mask: u32,
    hashes: u32,
    key: SipKey,
}

impl MovingBloom {
    /// `bits` per generation: a power of two >= [`MIN_BITS`] (checked by
    /// `Config::validate`; other values are rounded up here). `hashes` in 1..=32.
    pub fn new(bits: u32, hashes: u32, key: SipKey) -> Self {
        let bits = bits.max(MIN_BITS).checked_next_power_of_two().unwrap_or(1 << 31);
        let n_words = (bits / 64) as usize;
        MovingBloom {
            words: [vec![0u64; n_words].into_boxed_slice(), vec![0u64; n_words].into_boxed_slice()],
            items: [0; 2],
            cur: 0,
            mask: bits - 1,
            hashes: hashes.clamp(1, MAX_HASHES),
            key,
        }
    }

    /// Hash (src, dst, sid) with the router's key.
    #[inline]
    pub fn key(&self, src: u32, dst: u32, sid: u32) -> BloomKey {
        Self::key_from(&PairPrefix::new(self.key, src, dst), sid)
    }

    /// The same from a (src, dst) prefix computed with this filter's key.
    #[inline]
    pub fn key_from(pre: &PairPrefix, sid: u32) -> BloomKey {
        let h = pre.triple_hash(sid);
        BloomKey { a: h as u32, b: (h >> 32) as u32 | 1 }
    }

    #[inline]
    fn index(&self, gen: Gen) -> usize {
        match gen {
            Gen::H2 => self.cur,
            Gen::H1 => self.cur ^ 1,
        }
    }

    /// "b.test((src,dst,sid))" (A3) on generation `gen` (H1 = b1, H2 = b2).
    #[inline]
    pub fn test(&self, gen: Gen, key: &BloomKey) -> bool {
        let words = &self.words[self.index(gen)];
        let mut pos = key.a;
        for _ in 0..self.hashes {
            // g_i = h_a + i * h_b mod m (Kirsch-Mitzenmacher)
            let bit = pos & self.mask;
            if words[(bit >> 6) as usize] & (1u64 << (bit & 63)) == 0 {
                return false;
            }
            pos = pos.wrapping_add(key.b);
        }
        true
    }

    /// `(b1.test(key), b2.test(key))` in one pass over the k positions.
    #[inline]
    pub fn test_both(&self, key: &BloomKey) -> (bool, bool) {
        let (w1, w2) = (&self.words[self.cur ^ 1], &self.words[self.cur]);
        let (mut in1, mut in2) = (true, true);
        let mut pos = key.a;
        for _ in 0..self.hashes {
            let bit = pos & self.mask;
            let (word, m) = ((bit >> 6) as usize, 1u64 << (bit & 63));
            in1 &= w1[word] & m != 0;
            in2 &= w2[word] & m != 0;
            if !in1 && !in2 {
                break;
            }
            pos = pos.wrapping_add(key.b);
        }
        (in1, in2)
    }

    /// "b2.add((src,dst,sid))" (A3, on state installation).
    #[inline]
    pub fn add(&mut self, key: &BloomKey) {
        let words = &mut self.words[self.cur];
        let mut pos = key.a;
        for _ in 0..self.hashes {
            let bit = pos & self.mask;
            words[(bit >> 6) as usize] |= 1u64 << (bit & 63);
            pos = pos.wrapping_add(key.b);
        }
        self.items[self.cur] = self.items[self.cur].saturating_add(1);
    }

    /// Epoch shift (A2): "b1 = b2; b2 = new BloomFilter();" in O(bits / 64).
    pub fn shift(&mut self) {
        self.cur ^= 1;
        self.words[self.cur].fill(0);
        self.items[self.cur] = 0;
    }

    /// Drop both generations (two or more epochs passed without an arrival).
    pub fn clear_all(&mut self) {
        for g in 0..2 {
            self.words[g].fill(0);
            self.items[g] = 0;
        }
    }

    /// Items added to `gen` since it was cleared.
    pub fn items(&self, gen: Gen) -> u32 {
        self.items[self.index(gen)]
    }

    /// Bits per generation (m).
    pub fn bits(&self) -> u32 {
        self.mask + 1
    }

    /// Hash functions (k).
    pub fn hashes(&self) -> u32 {
        self.hashes
    }

    /// Standard estimate of the false-positive rate of `gen`,
    /// (1 - e^(-k n / m))^k with n = items added.
    pub fn estimated_fp_rate(&self, gen: Gen) -> f64 {
        let k = self.hashes as f64;
        let n = self.items(gen) as f64;
        let m = self.bits() as f64;
        (1.0 - (-k * n / m).exp()).powf(k)
    }

    /// Bits set in `gen` (popcount, O(bits / 64)): the fill is this over [`bits`](Self::bits).
    pub fn bits_set(&self, gen: Gen) -> u32 {
        self.words[self.index(gen)].iter().map(|w| w.count_ones()).sum()
    }

    /// Heap bytes of both generations.
    pub fn memory_bytes(&self) -> usize {
        2 * self.words[0].len() * core::mem::size_of::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bloom(bits: u32, k: u32) -> MovingBloom {
        MovingBloom::new(bits, k, SipKey::new([7, 8]))
    }

    #[test]
    fn added_items_test_true_in_b2_only() {
        let mut b = bloom(1 << 16, 4);
        let k = b.key(1, 2, 3);
        assert!(!b.test(Gen::H2, &k));
        b.add(&k);
        assert!(b.test(Gen::H2, &k));
        assert!(!b.test(Gen::H1, &k));
        assert_eq!(b.items(Gen::H2), 1);
    }

    #[test]
    fn test_both_agrees_with_test() {
        let mut b = bloom(256, 3);
        for sid in 0..20 {
            b.add(&b.key(1, 1, sid));
        }
        b.shift();
        for sid in 10..40 {
            b.add(&b.key(1, 1, sid));
        }
        for sid in 0..2000 {
            let k = b.key(2, 1, sid);
            assert_eq!(b.test_both(&k), (b.test(Gen::H1, &k), b.test(Gen::H2, &k)));
        }
    }

    #[test]
    fn shift_moves_then_clears() {
        let mut b = bloom(1 << 10, 4);
        let k = b.key(1, 2, 3);
        b.add(&k);
        b.shift();
        assert!(b.test(Gen::H1, &k));
        assert!(!b.test(Gen::H2, &k));
        b.shift();
        assert!(!b.test(Gen::H1, &k));
        assert_eq!(b.items(Gen::H1) + b.items(Gen::H2), 0);
    }

    #[test]
    fn k_positions_are_distinct() {
        // With one word of 64 bits and k = 32, an item sets exactly 32 bits.
        let mut b = bloom(64, 32);
        let k = b.key(9, 9, 9);
        b.add(&k);
        assert_eq!(b.words[b.cur][0].count_ones(), 32);
    }

    #[test]
    fn sizes_and_memory() {
        let b = bloom(1 << 16, 4);
        assert_eq!(b.bits(), 1 << 16);
        assert_eq!(b.memory_bytes(), 2 * 8192);
        assert_eq!(bloom(100, 4).bits(), 128);
        assert!(b.estimated_fp_rate(Gen::H2) == 0.0);
    }

    #[test]
    fn fp_rate_is_near_the_estimate() {
        let mut b = bloom(1 << 12, 4);
        for sid in 0..400 {
            let k = b.key(1, 1, sid);
            b.add(&k);
        }
        let trials = 20_000u32;
        let fps = (0..trials).filter(|&i| b.test(Gen::H2, &b.key(2, 2, i))).count() as f64;
        let measured = fps / trials as f64;
        let est = b.estimated_fp_rate(Gen::H2);
        assert!((measured - est).abs() < 0.5 * est + 0.002, "{measured} vs {est}");
    }
}
