//! Property tests (proptest) against independent truth: a literal model of
//! Appendix A1-A3 with exact sets instead of a Bloom filter and std HashMaps
//! instead of the fixed table; plus the all-or-nothing property of section 1.2,
//! the one-to-two-EPOCH state lifetime of section 3.1, and no panics on any input.

mod common;

use std::collections::{HashMap, HashSet};

use admission::{find_in_options, Admission, Config, DropReason, PacketMeta, SpHeaderRepr, Verdict};
use common::cfg;
use proptest::prelude::*;

/// A Bloom filter this large keeps false positives below 1e-12 per test case.
fn exact_cfg(max_pairs: u32) -> Config {
    Config { bloom_bits: 1 << 20, bloom_hashes: 4, max_pairs, max_len: 16, ..cfg() }
}

#[derive(Default)]
struct ModelGen {
    sids: HashSet<(u32, u32, u32)>,
    pairs: HashMap<(u32, u32), (u64, u64)>,
}

/// Appendix A1-A3 written out literally (exact membership, unbounded maps except
/// the max_pairs rule), with the fixed epoch grid of the crate.
struct Model {
    cfg: Config,
    prev: u64,
    h1: ModelGen,
    h2: ModelGen,
}

impl Model {
    fn new(cfg: Config) -> Self {
        Model { cfg, prev: 0, h1: ModelGen::default(), h2: ModelGen::default() }
    }

    fn arrival(&mut self, now: u64, p: &PacketMeta, pkt_cnt: u32) -> Verdict {
        let e = self.cfg.epoch_ns;
        if now > self.prev && now - self.prev > e {
            let k = (now - self.prev - 1) / e;
            self.prev += k * e;
            self.h1 = if k == 1 { std::mem::take(&mut self.h2) } else { ModelGen::default() };
            self.h2 = ModelGen::default();
        }
        let t = self.cfg.threshold;
        let Some(sp) = p.sp else {
            if p.syn && self.cfg.admit_syn {
                return if pkt_cnt < self.cfg.buff_size {
                    Verdict::Admit
                } else {
                    Verdict::Drop(DropReason::BufferFull)
                };
            }
            return if pkt_cnt < t { Verdict::Admit } else { Verdict::Drop(DropReason::Threshold) };
        };
        if sp.len == 0 || sp.len > self.cfg.max_len {
            return Verdict::Drop(DropReason::BadHeader);
        }
        let pair = (p.src, p.dst);
        let trip = (p.src, p.dst, sp.sid);
        if sp.first {
            if pkt_cnt >= t {
                return Verdict::Drop(DropReason::Threshold);
            }
            if !self.h2.pairs.contains_key(&pair) && self.h2.pairs.len() as u32 >= self.cfg.max_pairs {
                return Verdict::Drop(DropReason::TableFull);
            }
            let ent = self.h2.pairs.entry(pair).or_default();
            ent.0 += sp.len as u64;
            ent.1 += sp.len as u64 - 1;
            self.h2.sids.insert(trip);
            return Verdict::Admit;
        }
        let (inb1, inb2) = (self.h1.sids.contains(&trip), self.h2.sids.contains(&trip));
        let out1 = self.h1.pairs.get(&pair).map(|e| e.1);
        let out2 = self.h2.pairs.get(&pair).map(|e| e.1);
        let pick = match (inb1, inb2) {
            (false, false) => return Verdict::Drop(DropReason::NotAdmitted),
            (true, false) if out1.unwrap() == 0 => return Verdict::Drop(DropReason::OutstandingExhausted),
            (true, false) => 1,
            (false, true) if out2.unwrap() == 0 => return Verdict::Drop(DropReason::OutstandingExhausted),
            (false, true) => 2,
            (true, true) if out1.unwrap_or(0) > 0 => 1,
            (true, true) if out2.unwrap_or(0) > 0 => 2,
            (true, true) => return Verdict::Drop(DropReason::OutstandingExhausted),
        };
        if pkt_cnt >= self.cfg.buff_size {
            return Verdict::Drop(DropReason::BufferFull);
        }
        let g = if pick == 1 { &mut self.h1 } else { &mut self.h2 };
        g.pairs.get_mut(&pair).unwrap().1 -= 1;
        Verdict::Admit
    }

    fn outstanding(&self, pair: (u32, u32)) -> u64 {
        [&self.h1, &self.h2].iter().filter_map(|g| g.pairs.get(&pair)).map(|e| e.1).sum()
    }
}

#[derive(Debug, Clone)]
struct Op {
    dt: u64,
    src: u32,
    dst: u32,
    sp: Option<(u32, u16, bool)>,
    syn: bool,
    pkt_cnt: u32,
}

fn op() -> impl Strategy<Value = Op> {
    let sp = prop_oneof![
        1 => Just(None),
        3 => (0u32..3, prop_oneof![9 => 1u16..=6, 1 => 0u16..=18], prop::bool::weighted(0.25))
            .prop_map(Some),
    ];
    (
        prop_oneof![
            40 => 0u64..20,
            1 => 0u64..3 * common::EPOCH,
            1 => (0u64..=2).prop_map(|k| k * common::EPOCH),
        ],
        0u32..3,
        0u32..2,
        sp,
        any::<bool>(),
        // buffSize 50, t 5: mostly below t, some between t and buffSize, some at the top.
        prop_oneof![5 => 0u32..5, 3 => 5u32..48, 2 => 48u32..53],
    )
        .prop_map(|(dt, src, dst, sp, syn, pkt_cnt)| Op { dt, src, dst, sp, syn, pkt_cnt })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Same verdicts and outstanding counts as the literal model, step by step.
    /// Outstanding counts never go below zero (the model would underflow and panic)
    /// and `total_outstanding` equals the sum over pairs.
    #[test]
    fn matches_literal_model(ops in prop::collection::vec(op(), 1..200),
                             admit_syn in any::<bool>(), max_pairs in 2u32..6) {
        let c = Config { admit_syn, ..exact_cfg(max_pairs) };
        let mut adm = Admission::new(c.clone()).unwrap();
        let mut model = Model::new(c);
        let mut now = 0;
        for o in &ops {
            now += o.dt;
            let sp = o.sp.map(|(sid, len, first)| SpHeaderRepr { sid, len, first });
            let p = PacketMeta { src: o.src, dst: o.dst, sp, syn: o.syn };
            prop_assert_eq!(adm.on_arrival(now, &p, o.pkt_cnt), model.arrival(now, &p, o.pkt_cnt), "{:?}", o);
            let mut sum = 0u64;
            for src in 0..4 {
                for dst in 0..2 {
                    let got = adm.outstanding(src, dst) as u64;
                    prop_assert_eq!(got, model.outstanding((src, dst)));
                    sum += got;
                }
            }
            prop_assert_eq!(adm.total_outstanding(), sum);
        }
        prop_assert!(adm.stats().is_consistent());
    }

    /// Section 1.2 all-or-nothing: with no false positive and enough buffer, an
    /// admitted super-packet is forwarded whole and a denied one loses every packet.
    #[test]
    fn all_or_nothing(lens in prop::collection::vec(1u16..=12, 1..24),
                      order in prop::collection::vec(any::<u32>(), 300),
                      cnts in prop::collection::vec(0u32..9, 300)) {
        let mut adm = Admission::new(Config { buff_size: 1000, ..exact_cfg(64) }).unwrap();
        // Super-packet i: pair (i % 5, 7), sid i; packets interleaved at random,
        // each super-packet's own packets in order (its first packet first).
        let mut seq: Vec<usize> = lens.iter().enumerate().flat_map(|(i, &l)| std::iter::repeat_n(i, l as usize)).collect();
        let mut keyed: Vec<(u32, usize, usize)> = seq.drain(..).enumerate().map(|(j, i)| (order[j % order.len()], j, i)).collect();
        keyed.sort();
        let mut sent = vec![0u16; lens.len()];
        let mut admitted = vec![0u16; lens.len()];
        for (step, &(_, _, i)) in keyed.iter().enumerate() {
            let first = sent[i] == 0;
            sent[i] += 1;
            let p = PacketMeta { src: i as u32 % 5, dst: 7, syn: false,
                                 sp: Some(SpHeaderRepr { sid: i as u32, len: lens[i], first }) };
            if adm.on_arrival(step as u64, &p, cnts[step % cnts.len()]).is_admit() {
                admitted[i] += 1;
            }
        }
        for i in 0..lens.len() {
            prop_assert!(admitted[i] == 0 || admitted[i] == lens[i], "sp {} got {}/{}", i, admitted[i], lens[i]);
        }
        prop_assert_eq!(adm.total_outstanding(), 0);
    }

    /// Section 3.1: state lives at least one EPOCH and at most two, whatever the
    /// install time and the other traffic in between.
    #[test]
    fn state_lives_one_to_two_epochs(epoch in 1u64..1_000_000, t0 in 0u64..1_000_000_000_000,
                                     d_frac in 0u64..3000, others in prop::collection::vec(0u64..3000, 0..8)) {
        let mut adm = Admission::new(Config { epoch_ns: epoch, ..exact_cfg(16) }).unwrap();
        let sp = |first| Some(SpHeaderRepr { sid: 1, len: 2, first });
        let installed = adm.on_arrival(t0, &PacketMeta { src: 1, dst: 2, sp: sp(true), syn: false }, 0);
        prop_assert_eq!(installed, Verdict::Admit);
        let d = epoch * d_frac / 1000; // 0 .. 3 epochs
        let mut others = others.iter().map(|f| epoch * f / 1000).filter(|&x| x < d).collect::<Vec<_>>();
        others.sort();
        for x in others {
            adm.on_arrival(t0 + x, &PacketMeta { src: 9, dst: 9, sp: None, syn: false }, 0);
        }
        let v = adm.on_arrival(t0 + d, &PacketMeta { src: 1, dst: 2, sp: sp(false), syn: false }, 0);
        if d <= epoch {
            prop_assert_eq!(v, Verdict::Admit);
        }
        if d > 2 * epoch {
            prop_assert_eq!(v, Verdict::Drop(DropReason::NotAdmitted));
        }
    }

    /// The decoders never panic; whatever they accept re-encodes to the same option.
    #[test]
    fn decoders_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..48), max_len in any::<u16>()) {
        if let Ok(r) = SpHeaderRepr::parse(&bytes, max_len) {
            prop_assert!(r.len >= 1 && r.len <= max_len);
            let mut out = [0u8; 9];
            r.emit(&mut out);
            prop_assert_eq!(&out[..8], &bytes[..8]);
        }
        if let Ok(Some(r)) = find_in_options(&bytes, max_len) {
            prop_assert!(r.len >= 1 && r.len <= max_len);
        }
    }

    /// `on_arrival*` never panic on arbitrary inputs; bad headers are dropped and
    /// counted; the counters stay consistent.
    #[test]
    fn arrivals_never_panic(ops in prop::collection::vec(
            (any::<u64>(), any::<u32>(), any::<u32>(), any::<Option<(u32, u16, bool)>>(), any::<bool>(),
             any::<u32>(), prop::collection::vec(any::<u8>(), 0..24)), 1..40)) {
        let mut adm = Admission::new(Config { max_pairs: 4, bloom_bits: 64, bloom_hashes: 1, max_len: 10, ..cfg() }).unwrap();
        let mut bad = 0;
        for (now, src, dst, sp, syn, cnt, raw) in ops {
            let sp = sp.map(|(sid, len, first)| SpHeaderRepr { sid, len, first });
            let v = adm.on_arrival(now, &PacketMeta { src, dst, sp, syn }, cnt);
            if sp.is_some_and(|s| s.len == 0 || s.len > 10) {
                prop_assert_eq!(v, Verdict::Drop(DropReason::BadHeader));
                bad += 1;
            }
            let v = adm.on_arrival_options(now, src, dst, syn, &raw, cnt);
            if find_in_options(&raw, 10).is_err() {
                prop_assert_eq!(v, Verdict::Drop(DropReason::BadHeader));
                bad += 1;
            }
        }
        prop_assert_eq!(adm.stats().dropped(DropReason::BadHeader), bad);
        prop_assert!(adm.stats().is_consistent());
    }
}
