//! What a scenario's sizes cost in memory, charged to the run's estimate (memory.rs)
//! before the build allocates them: flows per traffic entry and over the run, classifier
//! tables, packets a link's pipe may hold (pcap traces: trace/mod.rs `charge_traces`).
//! (A queue's own tables, the super-packet router's, are its `QueueKind::prealloc_bytes`.)

use super::riops::ClassifierSpec;
use crate::core::time::SimTime;

/// A classifier table of `max_flows` entries (classifier.rs `Classifier::new`): slots (a
/// power of two >= 2 max_flows, 4 bytes each), entries (40 bytes), the free list (4
/// bytes), the count histogram (4 bytes per L_t value).
pub fn classifier_bytes(c: &ClassifierSpec) -> f64 {
    let n = f64::from(c.max_flows);
    let slots = (2.0 * n).log2().ceil().exp2().max(2.0);
    slots * 4.0 + n * (40.0 + 4.0) + (f64::from(c.lt_max) + 2.0) * 4.0
}

/// The packets a link's pipe holds when full: rate x min(delay, duration) in packets of
/// 1500 bytes, `PIPE_PACKET_BYTES` each. (A CBR source at 100 Gb/s into a link of 100 s
/// delay aborted the process in its first seconds.)
pub fn pipe_bytes(rate: crate::core::time::BitsPerSec, delay: SimTime, duration: SimTime) -> f64 {
    packets_bytes(rate, delay.min(duration), 1500.0)
}

/// The packets of `wire_bytes` a link of `rate` carries in `t`, `PIPE_PACKET_BYTES` each.
fn packets_bytes(rate: crate::core::time::BitsPerSec, t: SimTime, wire_bytes: f64) -> f64 {
    rate.0 as f64 * t.as_secs_f64() / (8.0 * wire_bytes) * PIPE_PACKET_BYTES
}

/// The packets a reordering stage may hold: `q` of the link's packets for `hold` (at
/// most the run), counted in the smallest packets any source sends (28 wire bytes, a
/// cbr's least) rather than full ones: a stage holding a small-packet stream for a long
/// time (10 Gb/s of 28 B packets held 10^7 s) took tens of GB unseen.
pub fn held_bytes(q: f64, rate: crate::core::time::BitsPerSec, hold: SimTime, duration: SimTime) -> f64 {
    q * packets_bytes(rate, hold.min(duration), MIN_WIRE_BYTES)
}

/// The smallest packet a source sends, wire bytes (a cbr or on-off source's least).
pub const MIN_WIRE_BYTES: f64 = 28.0;

/// A packet in flight: its slab slot and its place in the link's ring. Measured: 67 B
/// per packet (peak RSS of 6.7 x 10^6 packets in two 10 Gb/s pipes of 4 s), about
/// `size_of::<Packet>()`.
pub const PIPE_PACKET_BYTES: f64 = std::mem::size_of::<crate::core::packet::Packet>() as f64;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::classifier::{Classifier, ClassifierConfig};
    use crate::scenario::queue::QueueSpec;

    #[test]
    fn classifier_charge_is_what_the_table_allocates() {
        for max_flows in [1, 1000, 4096, 100_000] {
            let spec: ClassifierSpec = serde_json::from_value(serde_json::json!({ "max_flows": max_flows })).unwrap();
            let cfg = ClassifierConfig {
                lt: spec.lt,
                slr: spec.slr,
                tc: spec.tc.0,
                tu: spec.tu.0,
                max_flows,
                lt_min: spec.lt_min,
                lt_max: spec.lt_max,
                key: [1, 2],
            };
            let c = Classifier::new(String::new(), cfg).unwrap();
            let real = (c.memory_bytes() - std::mem::size_of::<Classifier>()) as f64;
            assert!(
                (classifier_bytes(&spec) - real).abs() <= 1.0,
                "{max_flows}: {} vs {real}",
                classifier_bytes(&spec)
            );
        }
    }

    #[test]
    fn superpacket_charge_is_what_the_router_allocates() {
        // independent of `bytes_for`: the heap the built router's table and filters report
        for (bits, pairs) in [(1u32 << 16, 1u32), (1 << 20, 4096), (1 << 16, 100_000)] {
            let spec: QueueSpec = serde_json::from_value(serde_json::json!({
                "kind": "superpacket", "limit": 100, "threshold": 10, "bloom_bits": bits, "max_pairs": pairs
            }))
            .unwrap();
            let cfg = admission::Config { bloom_bits: bits, max_pairs: pairs, ..admission::Config::default() };
            let a = admission::Admission::new(cfg).unwrap();
            let real = (a.memory_bytes() - std::mem::size_of::<admission::Admission>()) as f64;
            let est = spec.prealloc_bytes();
            assert!((est - real).abs() <= 1.0, "{bits} bits, {pairs} pairs: {est} vs {real}");
        }
    }

    #[test]
    fn pipe_holds_rate_times_delay_up_to_the_run() {
        let g = crate::core::time::BitsPerSec(12_000_000_000); // 10^6 packets of 1500 B per second
        let p = pipe_bytes(g, SimTime::from_secs(2), SimTime::from_secs(10));
        assert!((p / PIPE_PACKET_BYTES - 2e6).abs() < 1.0);
        assert_eq!(pipe_bytes(g, SimTime::from_secs(100), SimTime::from_secs(2)), p);
    }
}
