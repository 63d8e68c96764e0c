//! Admission decisions per second on a synthetic mix (Li 2013 Appendix A1-A3).
//!
//! Trace: 10,000 (src, dst) pairs. A third of the packets are normal packets from
//! random pairs; the rest belong to super-packets of len 10, 64 of them in flight
//! at a time, each from a random pair, their packets interleaved (first packet,
//! then 9 subsequent). pktCnt is drawn so that most packets see a queue below t,
//! some between t and buffSize, a few a full buffer: every A1 branch is taken.
//! Packets arrive 50 ns apart (the 2^18-packet trace spans 13 ms); EPOCH 20 ms,
//! so each generation ends an epoch holding about 7k of the 10k pairs (printed as
//! "peak pairs") and both generations are in use. Time keeps advancing across
//! iterations. Two Bloom sizes: 2^18 bits (few false positives at ~10k installs
//! per epoch) and the SCENARIOS.md default 2^16 (about 5 % false positives here).
//!
//! Run: `cargo bench -j1 --bench admission -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use admission::{Admission, Config, PacketMeta, SpHeaderRepr};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const PAIRS: u32 = 10_000;
const TRACE_LEN: usize = 1 << 18;
const IN_FLIGHT: usize = 64;
const SP_LEN: u16 = 10;
const GAP_NS: u64 = 50;

/// splitmix64: a deterministic generator for the trace.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn pair(i: u32) -> (u32, u32) {
    (0x0a00_0000 | i, 0xc0a8_0000 | (i % 16))
}

fn trace() -> Vec<(PacketMeta, u32)> {
    let mut rng = Rng(2013);
    let mut next_sid = vec![0u32; PAIRS as usize];
    // (pair index, sid, packets sent) of the super-packets in flight.
    let mut slots: Vec<(u32, u32, u16)> = Vec::with_capacity(IN_FLIGHT);
    let mut out = Vec::with_capacity(TRACE_LEN);
    while out.len() < TRACE_LEN {
        let pkt_cnt = match rng.below(100) {
            0..=69 => rng.below(5) as u32,       // below t
            70..=94 => 5 + rng.below(45) as u32, // t <= pktCnt < buffSize
            _ => 50 + rng.below(5) as u32,       // full buffer
        };
        if rng.below(3) == 0 {
            let (src, dst) = pair(rng.below(PAIRS as u64) as u32);
            out.push((PacketMeta { src, dst, sp: None, syn: false }, pkt_cnt));
            continue;
        }
        if slots.len() < IN_FLIGHT {
            let p = rng.below(PAIRS as u64) as u32;
            next_sid[p as usize] += 1;
            slots.push((p, next_sid[p as usize], 0));
        }
        let k = rng.below(slots.len() as u64) as usize;
        let (p, sid, sent) = slots[k];
        let (src, dst) = pair(p);
        let sp = SpHeaderRepr { sid, len: SP_LEN, first: sent == 0 };
        out.push((PacketMeta { src, dst, sp: Some(sp), syn: false }, pkt_cnt));
        if sent + 1 == SP_LEN {
            slots.swap_remove(k);
        } else {
            slots[k].2 = sent + 1;
        }
    }
    out
}

fn config(bloom_bits: u32) -> Config {
    Config {
        buff_size: 50,
        threshold: 5,
        epoch_ns: 20_000_000,
        bloom_bits,
        bloom_hashes: 4,
        max_pairs: 16_384,
        max_len: 64,
        key: [0x0123_4567_89ab_cdef, 0x0fed_cba9_8765_4321],
        admit_syn: false,
    }
}

fn bench(c: &mut Criterion) {
    let trace = trace();
    let mut group = c.benchmark_group("admission");
    group.throughput(Throughput::Elements(trace.len() as u64));
    for (name, bits) in [("mix_10k_pairs_bloom_2^18", 1 << 18), ("mix_10k_pairs_bloom_2^16", 1 << 16)] {
        let mut adm = Admission::new(config(bits)).expect("valid config");
        let mut now = 0u64;
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut admitted = 0u32;
                for (pkt, cnt) in &trace {
                    now += GAP_NS;
                    admitted += adm.on_arrival(now, black_box(pkt), *cnt).is_admit() as u32;
                }
                black_box(admitted)
            })
        });
        let s = adm.stats();
        eprintln!(
            "{name}: arrivals {} admitted {} sp admitted {} denied {} drops {:?} epochs {} \
             peak pairs {} fp detected {} memory {} B",
            s.arrivals,
            s.admitted(),
            s.sp_admitted,
            s.sp_denied,
            s.dropped,
            s.epoch_shifts,
            s.pairs_peak,
            s.false_positives_detected(),
            adm.memory_bytes()
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
