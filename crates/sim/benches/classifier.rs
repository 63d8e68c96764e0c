//! The RIO-PS edge classifier (classifier.rs) per packet, under the two loads of issue 4:
//! a flood of one-packet flows with random addresses (the table stays full, every packet
//! a miss, entries expiring behind it) and a steady mix of 1,000 active flows, for flow
//! tables of 10^3 .. 10^6 entries. A flat figure across table sizes is the O(1) claim;
//! `ops/packet` (probe steps + LRU removals, printed once per size) is the same claim
//! without a clock.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sim::core::rng::Rng;
use sim::net::classifier::{Classifier, ClassifierConfig};
use sim::SimTime;

fn cfg(max_flows: u32) -> ClassifierConfig {
    ClassifierConfig {
        lt: 20,
        slr: Some(3.0),
        tc: SimTime::from_secs(10),
        tu: SimTime::from_secs(1),
        max_flows,
        lt_min: 1,
        lt_max: 10_000,
        key: [7, 11],
    }
}

fn flood(c: &mut Criterion) {
    let mut g = c.benchmark_group("classifier_flood");
    for &n in &[1_000u32, 65_536, 1_000_000] {
        let mut cl = Classifier::new("bench".into(), cfg(n)).expect("config");
        let mut r = Rng::new(1);
        // 10^6 packets/s of new flows: far more than the table holds for T_u = 1 s
        let mut t = 0u64;
        for _ in 0..3 * n {
            t += 1_000;
            cl.observe(r.next_u64() as u32, r.next_u64() as u32, r.next_u64() as u32, SimTime(t));
        }
        let (ops0, pkts0) = (cl.stats.ops, cl.stats.pkts);
        let mem = cl.memory_bytes();
        g.throughput(Throughput::Elements(1));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                t += 1_000;
                cl.observe(r.next_u64() as u32, r.next_u64() as u32, r.next_u64() as u32, SimTime(t))
            })
        });
        assert_eq!(cl.memory_bytes(), mem, "memory must not grow");
        assert!(cl.len() <= n);
        let ops = (cl.stats.ops - ops0) as f64 / (cl.stats.pkts - pkts0) as f64;
        println!("classifier_flood/{n}: {ops:.2} ops/packet, {} entries, {mem} bytes", cl.len());
    }
    g.finish();
}

fn steady(c: &mut Criterion) {
    let mut g = c.benchmark_group("classifier_steady_1000_flows");
    for &n in &[1_000u32, 65_536, 1_000_000] {
        let mut cl = Classifier::new("bench".into(), cfg(n)).expect("config");
        let mut r = Rng::new(2);
        let mut t = 0u64;
        g.throughput(Throughput::Elements(1));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                t += 10_000;
                let f = r.range_u64(0, 999) as u32;
                cl.observe(0x0A00_0001, 0x0A00_0002, f, SimTime(t))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, flood, steady);
criterion_main!(benches);
