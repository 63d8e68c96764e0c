//! Section 3.1 defences and the counters the attacks experiment reads, each against
//! a value computed by hand (or by the textbook formula for the Bloom filter).

use admission::{siphash, Admission, Config, Defences, DropReason, PacketMeta, SpHeaderRepr, Verdict};

const MS: u64 = 1_000_000;

fn cfg() -> Config {
    Config { buff_size: 20, threshold: 10, epoch_ns: 80 * MS, key: [0, 0], ..Config::default() }
}

fn first(adm: &mut Admission, now: u64, src: u32, dst: u32, sid: u32, len: u16) -> Verdict {
    let pkt = PacketMeta { src, dst, sp: Some(SpHeaderRepr { sid, len, first: true }), syn: false };
    adm.on_arrival(now, &pkt, 0)
}

fn next(adm: &mut Admission, now: u64, src: u32, dst: u32, sid: u32, len: u16) -> Verdict {
    let pkt = PacketMeta { src, dst, sp: Some(SpHeaderRepr { sid, len, first: false }), syn: false };
    adm.on_arrival(now, &pkt, 0)
}

/// The measured false-positive rate of b2 (never-installed triples whose test says
/// yes) against (1 - e^{-kn/m})^k. m = 4096, k = 4, n = 1024: kn/m = 1,
/// (1 - e^{-1})^4 = 0.632121^4 = 0.15966; the fill against 1 - e^{-1} = 0.6321.
#[test]
fn measured_bloom_fp_rate_matches_the_formula() {
    let c = Config { bloom_bits: 4096, bloom_hashes: 4, key: [3, 4], ..cfg() };
    let mut adm = Admission::new(c).unwrap();
    for i in 0..1024u32 {
        assert_eq!(first(&mut adm, 1, 1000 + i, 1, i, 2), Verdict::Admit);
    }
    let fill = adm.bloom_fill();
    assert!((fill - 0.6321).abs() < 0.01, "fill {fill}");
    // Queries on pairs the table never saw: a Bloom "yes" is a detected false positive
    // (A3 "//false positive"), a "no" is NotAdmitted; nothing else can happen.
    let queries = 40_000u32;
    for j in 0..queries {
        let v = next(&mut adm, 2, 500_000 + j, 2, j, 2);
        assert!(matches!(v, Verdict::Drop(DropReason::BloomFalsePositive | DropReason::NotAdmitted)));
    }
    let measured = adm.stats().dropped(DropReason::BloomFalsePositive) as f64 / queries as f64;
    let formula = (1.0f64 - (-1.0f64).exp()).powi(4);
    assert!((formula - 0.15966).abs() < 1e-4);
    // sd of a binomial proportion at 40,000 queries: sqrt(0.16 x 0.84 / 40,000) = 0.0018
    assert!((measured - formula).abs() < 0.01, "measured {measured} vs {formula}");
    // At the epoch shift the fill is recorded as the peak.
    adm.on_arrival(80 * MS + 1, &PacketMeta { src: 9, dst: 9, sp: None, syn: false }, 0);
    assert!((adm.stats().bloom_bits_set_peak as f64 / 4096.0 - fill).abs() < 1e-12);
    assert_eq!(adm.stats().bloom_items_peak, 1024);
    assert_eq!(adm.bloom_fill(), 0.0);
}

/// Sources whose (src, dst = 1) pairs share home slot `home` of an 8-slot table
/// under the public zero key: what an attacker who knows the key can compute.
fn colliding(home: u64, n: usize) -> Vec<u32> {
    (1u32..).filter(|&s| siphash::hash_pair(siphash::SipKey::new([0, 0]), s, 1) & 7 == home).take(n).collect()
}

/// Probes per decision, by hand: four pairs aimed at one home slot of a 4-pair
/// (8-slot) table probe 1, 2, 3, 4 slots; a fifth is refused (bounded table).
#[test]
fn probes_per_decision_and_the_bounded_table() {
    let c = Config { max_pairs: 4, ..cfg() };
    let srcs = colliding(3, 5);
    let mut adm = Admission::new(c.clone()).unwrap();
    let mem = adm.memory_bytes();
    for &s in &srcs[..4] {
        assert_eq!(first(&mut adm, 1, s, 1, 7, 10), Verdict::Admit);
    }
    let st = adm.stats();
    assert_eq!((st.probes, st.probed_decisions, st.probes_max), (1 + 2 + 3 + 4, 4, 4));
    assert_eq!(adm.stats().probes_per_decision(), 2.5);
    assert_eq!(first(&mut adm, 1, srcs[4], 1, 7, 10), Verdict::Drop(DropReason::TableFull));
    assert_eq!(adm.table_occupancy(), (4, 4));
    assert_eq!(adm.memory_bytes(), mem);
    // A subsequent packet of the fourth pair finds it after 4 slots.
    assert_eq!(next(&mut adm, 2, srcs[3], 1, 7, 10), Verdict::Admit);
    assert_eq!(adm.stats().probes_max, 5);
    assert_eq!(adm.stats().probes, 10 + 5 + 4);

    // Bounded table off: the fifth pair doubles h2 (8 -> 16 slots) instead.
    let d = Defences { bounded_table: false, ..Defences::default() };
    let mut adm = Admission::with_defences(c, d).unwrap();
    for &s in &srcs {
        assert_eq!(first(&mut adm, 1, s, 1, 7, 10), Verdict::Admit);
    }
    assert_eq!(adm.table_occupancy().0, 5);
    assert_eq!(adm.stats().table_grows, 1);
    // table bytes = memory - struct - two Bloom generations of 2^16 bits
    let table = |a: &Admission| a.memory_bytes() - std::mem::size_of::<Admission>() - 2 * (1 << 16) / 8;
    assert_eq!(table(&adm), (16 + 8) * table(&Admission::new(cfg_pairs(4)).unwrap()) / 16);
}

fn cfg_pairs(n: u32) -> Config {
    Config { max_pairs: n, ..cfg() }
}

/// Per-source cap of 20 reserved packets: two super-packets of 10 from one (src, dst)
/// in an epoch, not three; the next epoch's h2 starts again from 0.
#[test]
fn per_source_cap_on_reserved_packets() {
    let d = Defences { max_reserved_per_pair: 20, ..Defences::default() };
    let mut adm = Admission::with_defences(cfg(), d).unwrap();
    assert_eq!(first(&mut adm, 1, 5, 6, 1, 10), Verdict::Admit);
    assert_eq!(first(&mut adm, 2, 5, 6, 2, 10), Verdict::Admit);
    assert_eq!(first(&mut adm, 3, 5, 6, 3, 10), Verdict::Drop(DropReason::SourceCap));
    assert_eq!(first(&mut adm, 3, 5, 6, 3, 21), Verdict::Drop(DropReason::SourceCap));
    assert_eq!(first(&mut adm, 4, 7, 6, 4, 10), Verdict::Admit, "another source is not capped");
    assert_eq!(adm.stats().reserved_peak, 20);
    assert_eq!(adm.stats().sp_denied, 2);
    assert_eq!(first(&mut adm, 80 * MS + 1, 5, 6, 5, 10), Verdict::Admit);
    // Without the cap the third is admitted and the entry reserves 30.
    let mut adm = Admission::new(cfg()).unwrap();
    for sid in 1..=3 {
        assert_eq!(first(&mut adm, sid as u64, 5, 6, sid, 10), Verdict::Admit);
    }
    assert_eq!(adm.stats().reserved_peak, 30);
}

/// EPOCH phase 30 ms of 80 ms: boundaries at 30, 110, 190 ms. A super-packet
/// installed at 29 ms moves to h1 at 30 ms and is gone after 110 ms; with phase 0
/// (boundaries 80, 160 ms) the same one lives until 160 ms.
#[test]
fn epoch_phase_moves_the_grid() {
    let d = Defences { epoch_phase_ns: 30 * MS, ..Defences::default() };
    let mut adm = Admission::with_defences(cfg(), d).unwrap();
    assert_eq!(first(&mut adm, 29 * MS, 5, 6, 1, 10), Verdict::Admit);
    assert_eq!(next(&mut adm, 31 * MS, 5, 6, 1, 10), Verdict::Admit);
    assert_eq!((adm.stats().epoch_shifts, adm.epoch_start()), (1, 30 * MS));
    assert_eq!(next(&mut adm, 110 * MS, 5, 6, 1, 10), Verdict::Admit);
    assert_eq!(next(&mut adm, 110 * MS + 1, 5, 6, 1, 10), Verdict::Drop(DropReason::NotAdmitted));
    assert_eq!(adm.epoch_start(), 110 * MS);

    let mut adm = Admission::new(cfg()).unwrap();
    assert_eq!(first(&mut adm, 29 * MS, 5, 6, 1, 10), Verdict::Admit);
    assert_eq!(next(&mut adm, 159 * MS, 5, 6, 1, 10), Verdict::Admit);
    assert_eq!(adm.stats().epoch_shifts, 1);
    assert_eq!(next(&mut adm, 160 * MS + 1, 5, 6, 1, 10), Verdict::Drop(DropReason::NotAdmitted));

    let bad = Defences { epoch_phase_ns: 80 * MS, ..Defences::default() };
    let err = Admission::with_defences(cfg(), bad).unwrap_err();
    assert!(err.contains("epoch_phase_ns"), "{err}");
}

/// Port quota of 3 pairs per generation: port 1 installs pairs 1..=3 and is refused a
/// fourth new pair, while an existing pair of port 1 still grows (the quota counts pairs,
/// not super-packets) and port 2 installs its own; the next epoch's h2 starts again from
/// 0. Without the quota (the default) the same fourth pair is admitted.
#[test]
fn port_quota_counts_new_pairs_per_ingress_port() {
    let from = |adm: &mut Admission, now: u64, src: u32, sid: u32, port: u32| {
        let pkt = PacketMeta { src, dst: 9, sp: Some(SpHeaderRepr { sid, len: 2, first: true }), syn: false };
        adm.on_arrival_port(now, &pkt, 0, port)
    };
    let d = Defences { max_pairs_per_port: 3, ..Defences::default() };
    let mut adm = Admission::with_defences(cfg(), d).unwrap();
    for src in 1..=3 {
        assert_eq!(from(&mut adm, 1, src, src, 1), Verdict::Admit);
    }
    assert_eq!(from(&mut adm, 2, 4, 4, 1), Verdict::Drop(DropReason::PortQuota));
    assert_eq!(from(&mut adm, 2, 1, 5, 1), Verdict::Admit, "an existing pair is no new pair");
    assert_eq!(from(&mut adm, 3, 4, 6, 2), Verdict::Admit, "another port has its own quota");
    assert_eq!(adm.table_occupancy().0, 4);
    assert_eq!(adm.stats().dropped(DropReason::PortQuota), 1);
    // epoch shift at 80 ms: h2 is new, port 1 may install three pairs again
    assert_eq!(from(&mut adm, 80 * MS + 1, 4, 7, 1), Verdict::Admit);
    let mut adm = Admission::new(cfg()).unwrap();
    for src in 1..=4 {
        assert_eq!(from(&mut adm, 1, src, src, 1), Verdict::Admit);
    }
}
