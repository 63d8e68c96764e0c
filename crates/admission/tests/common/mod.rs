//! A scripted router for tests (quiche test_sender style): send first, subsequent,
//! normal and SYN packets, advance time, inspect state.
#![allow(dead_code)]

use admission::{Admission, Config, Lookup, PacketMeta, SpHeaderRepr, Verdict};

/// EPOCH used by the scripted tests (ns).
pub const EPOCH: u64 = 1_000;

/// Small router: buffSize 50, t 5, EPOCH 1 us, Bloom 2^16 x 4, 64 pairs.
pub fn cfg() -> Config {
    Config {
        buff_size: 50,
        threshold: 5,
        epoch_ns: EPOCH,
        bloom_bits: 1 << 16,
        bloom_hashes: 4,
        max_pairs: 64,
        max_len: 64,
        key: [0x5eed_0001, 0x5eed_0002],
        admit_syn: false,
    }
}

/// The same router with a one-word, one-hash Bloom filter: false positives at will.
pub fn tiny_bloom_cfg() -> Config {
    Config { bloom_bits: 64, bloom_hashes: 1, ..cfg() }
}

pub struct Router {
    pub adm: Admission,
    pub now: u64,
}

pub fn sp(sid: u32, len: u16, first: bool) -> Option<SpHeaderRepr> {
    Some(SpHeaderRepr { sid, len, first })
}

impl Router {
    pub fn new(cfg: Config) -> Self {
        Router { adm: Admission::new(cfg).expect("valid config"), now: 0 }
    }

    pub fn send(&mut self, src: u32, dst: u32, sp: Option<SpHeaderRepr>, syn: bool, pkt_cnt: u32) -> Verdict {
        let pkt = PacketMeta { src, dst, sp, syn };
        let v = self.adm.on_arrival(self.now, &pkt, pkt_cnt);
        assert!(self.adm.stats().is_consistent());
        v
    }

    /// First packet of super-packet `sid` of length `len`.
    pub fn first(&mut self, src: u32, dst: u32, sid: u32, len: u16, pkt_cnt: u32) -> Verdict {
        self.send(src, dst, sp(sid, len, true), false, pkt_cnt)
    }

    /// A subsequent packet of super-packet `sid`.
    pub fn next(&mut self, src: u32, dst: u32, sid: u32, len: u16, pkt_cnt: u32) -> Verdict {
        self.send(src, dst, sp(sid, len, false), false, pkt_cnt)
    }

    pub fn normal(&mut self, src: u32, dst: u32, pkt_cnt: u32) -> Verdict {
        self.send(src, dst, None, false, pkt_cnt)
    }

    pub fn syn(&mut self, src: u32, dst: u32, pkt_cnt: u32) -> Verdict {
        self.send(src, dst, None, true, pkt_cnt)
    }

    pub fn advance(&mut self, ns: u64) {
        self.now += ns;
    }

    /// Move into the next epoch: jump to 1 ns past the current epoch's end and let
    /// an unrelated normal packet trigger exactly one A2 shift.
    pub fn next_epoch(&mut self) {
        let target = self.adm.epoch_start() + self.adm.config().epoch_ns + 1;
        assert!(target >= self.now, "already past the next epoch");
        self.now = target;
        let shifts = self.adm.stats().epoch_shifts;
        self.normal(0xFFFF_FFFF, 0xFFFF_FFFF, 0);
        assert_eq!(self.adm.stats().epoch_shifts, shifts + 1);
    }

    pub fn lookup(&self, src: u32, dst: u32, sid: u32) -> Lookup {
        self.adm.lookup(src, dst, sid)
    }

    /// A (src, sid) with `src` in 1000.. (a pair with no state) whose lookup
    /// satisfies `pred`: builds Bloom false positives on a tiny filter.
    pub fn find_triple(&self, dst: u32, pred: impl Fn(&Lookup) -> bool) -> (u32, u32) {
        for src in 1000..1100 {
            for sid in 0..1000 {
                if pred(&self.lookup(src, dst, sid)) {
                    return (src, sid);
                }
            }
        }
        panic!("no triple satisfies the predicate");
    }
}
