//! Keyed hashing: SipHash-c-d.
//!
//! Source: J.-P. Aumasson and D. J. Bernstein, "SipHash: a fast short-input PRF",
//! INDOCRYPT 2012 (section 2, "Specification of SipHash"). Why a keyed PRF at all:
//! Li 2013 section 3.1 lets an adversary spoof (src, dst) pairs to load the hash
//! table h2 and raise the false-positive rate of the Bloom filter b2. With an
//! unkeyed hash she could also choose keys that collide on purpose (long probe
//! runs, aimed false positives against a victim's pair). With a per-router secret
//! key the positions are pseudo-random to anyone who does not hold the key.
//!
//! The admission code uses SipHash-1-3 (one compression round, three finalization
//! rounds, the variant Rust's std `HashMap` uses) on two fixed-size messages:
//! the 8-byte pair (src, dst) for the moving hash table and the 12-byte triple
//! (src, dst, sid) for the moving Bloom filter. [`siphash`] is the general
//! definition over bytes; the fixed-size functions are the same computation
//! unrolled (a test checks them against it), sharing the first word ([`PairPrefix`]).

/// A 128-bit SipHash key, `k0` = bytes 0..8 and `k1` = bytes 8..16, little-endian
/// (SipHash paper section 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SipKey {
    /// First key word.
    pub k0: u64,
    /// Second key word.
    pub k1: u64,
}

impl SipKey {
    /// A key from two words (the `Config::key` layout).
    pub const fn new(key: [u64; 2]) -> Self {
        SipKey { k0: key[0], k1: key[1] }
    }
}

/// The internal state v0..v3 (SipHash paper section 2, "Initialization").
#[derive(Clone, Copy)]
struct State {
    v0: u64,
    v1: u64,
    v2: u64,
    v3: u64,
}

impl State {
    #[inline(always)]
    fn new(key: SipKey) -> Self {
        // v0 = k0 ^ "somepseu", v1 = k1 ^ "dorandom", v2 = k0 ^ "lygenera", v3 = k1 ^ "tedbytes"
        State {
            v0: key.k0 ^ 0x736f_6d65_7073_6575,
            v1: key.k1 ^ 0x646f_7261_6e64_6f6d,
            v2: key.k0 ^ 0x6c79_6765_6e65_7261,
            v3: key.k1 ^ 0x7465_6462_7974_6573,
        }
    }

    /// SipRound (SipHash paper section 2, Figure 2.1).
    #[inline(always)]
    fn round(&mut self) {
        self.v0 = self.v0.wrapping_add(self.v1);
        self.v1 = self.v1.rotate_left(13);
        self.v1 ^= self.v0;
        self.v0 = self.v0.rotate_left(32);
        self.v2 = self.v2.wrapping_add(self.v3);
        self.v3 = self.v3.rotate_left(16);
        self.v3 ^= self.v2;
        self.v0 = self.v0.wrapping_add(self.v3);
        self.v3 = self.v3.rotate_left(21);
        self.v3 ^= self.v0;
        self.v2 = self.v2.wrapping_add(self.v1);
        self.v1 = self.v1.rotate_left(17);
        self.v1 ^= self.v2;
        self.v2 = self.v2.rotate_left(32);
    }

    /// Compression of one message word m_i: v3 ^= m_i; c SipRounds; v0 ^= m_i.
    #[inline(always)]
    fn compress<const C: usize>(&mut self, m: u64) {
        self.v3 ^= m;
        for _ in 0..C {
            self.round();
        }
        self.v0 ^= m;
    }

    /// Finalization: v2 ^= 0xff; d SipRounds; return v0 ^ v1 ^ v2 ^ v3.
    #[inline(always)]
    fn finish<const D: usize>(mut self) -> u64 {
        self.v2 ^= 0xff;
        for _ in 0..D {
            self.round();
        }
        self.v0 ^ self.v1 ^ self.v2 ^ self.v3
    }
}

/// SipHash-c-d of `msg` under `key` (the general definition, any length).
pub fn siphash<const C: usize, const D: usize>(key: SipKey, msg: &[u8]) -> u64 {
    let mut s = State::new(key);
    let mut chunks = msg.chunks_exact(8);
    for chunk in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        s.compress::<C>(u64::from_le_bytes(w));
    }
    // Last block: the remaining bytes little-endian, the length mod 256 in the top byte.
    let mut last = [0u8; 8];
    let rest = chunks.remainder();
    last[..rest.len()].copy_from_slice(rest);
    let b = u64::from_le_bytes(last) | ((msg.len() as u64 & 0xff) << 56);
    s.compress::<C>(b);
    s.finish::<D>()
}

/// The 8-byte pair message: `src` little-endian then `dst` little-endian.
#[inline(always)]
pub fn pair_word(src: u32, dst: u32) -> u64 {
    src as u64 | (dst as u64) << 32
}

/// The SipHash-1-3 state after the first message word `pair_word(src, dst)`. The
/// 8-byte pair message and every 12-byte (src, dst, sid) message start with that
/// word, so a packet that needs both hashes compresses it once.
#[derive(Clone, Copy)]
pub struct PairPrefix {
    state: State,
    word: u64,
}

impl PairPrefix {
    /// Initialize with `key` and compress the pair word.
    #[inline]
    pub fn new(key: SipKey, src: u32, dst: u32) -> Self {
        let word = pair_word(src, dst);
        let mut state = State::new(key);
        state.compress::<1>(word);
        PairPrefix { state, word }
    }

    /// The pair word (src, dst).
    #[inline]
    pub fn word(&self) -> u64 {
        self.word
    }

    /// SipHash-1-3 of the 8-byte message (src, dst): last block = length 8 only.
    #[inline]
    pub fn pair_hash(&self) -> u64 {
        let mut s = self.state;
        s.compress::<1>(8u64 << 56);
        s.finish::<3>()
    }

    /// SipHash-1-3 of the 12-byte message (src, dst, sid): last block = sid, length 12.
    #[inline]
    pub fn triple_hash(&self, sid: u32) -> u64 {
        let mut s = self.state;
        s.compress::<1>(sid as u64 | 12u64 << 56);
        s.finish::<3>()
    }
}

/// SipHash-1-3 of the 8-byte message `pair_word(src, dst).to_le_bytes()`.
#[inline]
pub fn hash_pair(key: SipKey, src: u32, dst: u32) -> u64 {
    PairPrefix::new(key, src, dst).pair_hash()
}

/// SipHash-1-3 of the 12-byte message (src, dst, sid), each little-endian.
#[inline]
pub fn hash_triple(key: SipKey, src: u32, dst: u32, sid: u32) -> u64 {
    PairPrefix::new(key, src, dst).triple_hash(sid)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAPER_KEY: SipKey = SipKey { k0: 0x0706_0504_0302_0100, k1: 0x0f0e_0d0c_0b0a_0908 };

    /// SipHash paper, Appendix A: key 00..0f, message 00..0e, SipHash-2-4 = a129ca6149be45e5.
    #[test]
    fn paper_test_vector_2_4() {
        let msg: Vec<u8> = (0u8..15).collect();
        assert_eq!(siphash::<2, 4>(PAPER_KEY, &msg), 0xa129_ca61_49be_45e5);
    }

    /// Reference implementation vectors.h, first entry (empty message): 31 0e 0e dd 47 db 6f 72.
    #[test]
    fn reference_vector_empty_2_4() {
        assert_eq!(siphash::<2, 4>(PAPER_KEY, &[]), 0x726f_db47_dd0e_0e31);
    }

    /// Independent truth: std's (deprecated but stable) `SipHasher` is SipHash-2-4.
    #[test]
    #[allow(deprecated)]
    fn matches_std_siphasher_2_4_on_all_lengths() {
        use std::hash::{Hasher, SipHasher};
        let msg: Vec<u8> = (0u8..64).map(|i| i.wrapping_mul(37).wrapping_add(11)).collect();
        let key = SipKey::new([0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210]);
        for n in 0..=msg.len() {
            let mut h = SipHasher::new_with_keys(key.k0, key.k1);
            h.write(&msg[..n]);
            assert_eq!(siphash::<2, 4>(key, &msg[..n]), h.finish(), "length {n}");
        }
    }

    #[test]
    fn fixed_size_paths_match_general_definition() {
        let key = SipKey::new([0xdead_beef_0bad_f00d, 0x1234_5678_9abc_def0]);
        for (src, dst, sid) in [(0u32, 0u32, 0u32), (1, 2, 3), (u32::MAX, 7, u32::MAX), (0x0a00_0001, 0x0a00_0002, 83)]
        {
            let mut m = Vec::new();
            m.extend_from_slice(&src.to_le_bytes());
            m.extend_from_slice(&dst.to_le_bytes());
            assert_eq!(hash_pair(key, src, dst), siphash::<1, 3>(key, &m));
            m.extend_from_slice(&sid.to_le_bytes());
            assert_eq!(hash_triple(key, src, dst, sid), siphash::<1, 3>(key, &m));
        }
    }

    #[test]
    fn key_changes_output() {
        let a = hash_pair(SipKey::new([1, 2]), 10, 20);
        let b = hash_pair(SipKey::new([1, 3]), 10, 20);
        assert_ne!(a, b);
    }
}
