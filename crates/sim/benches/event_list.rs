//! The event list alone: hold N pending events (10^3 .. 10^6) and run a steady state of
//! pop-one/push-one with exponentially distributed delays (the "hold" model of event-set
//! benchmarks, Jones 1986), so the figure is cost per hold operation at that size.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sim::core::event::EventList;
use sim::core::rng::Rng;

fn hold(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_list_hold");
    for &n in &[1_000usize, 100_000, 1_000_000] {
        let mut q = EventList::new();
        let mut r = Rng::new(1);
        for i in 0..n {
            q.push((r.exponential(1e6)) as u64, i as u32);
        }
        g.throughput(Throughput::Elements(1));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                let (t, e) = q.pop().expect("non-empty");
                q.push(t + r.exponential(1e6) as u64 + 1, e);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, hold);
criterion_main!(benches);
