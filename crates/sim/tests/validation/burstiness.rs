//! Burstiness control (tcp/gate/burstiness.rs), receiver ACK batching and the
//! high-frequency monitor (monitor.rs) of seeds/003, against hand-computed values: one
//! fixed-window flow over a 100 Mb/s bottleneck, so the window's own queue is known.

use super::common::{link, run};
use sim::Sim;

/// One flow of a constant 250-packet window: 1 Gb/s access links of 1 ms, a 100 Mb/s
/// bottleneck of 8 ms with a `limit`-packet DropTail queue; `tcp` adds lines to [tcp].
fn scenario(limit: u32, tcp: &str) -> String {
    format!(
        r#"
        name = "bc"
        duration = "5s"
        [topology]
        kind = "dumbbell"
        pairs = 1
        access = {{ rate = "1Gbps", delay = "1ms", queue = {{ kind = "droptail", limit = 10000 }} }}
        bottleneck = {{ rate = "100Mbps", delay = "8ms", queue = {{ kind = "droptail", limit = {limit} }} }}
        [tcp]
        host = "ns2"  # the figures below are derived for the ns-2 agents' host
        cc = {{ kind = "fixed", window = 250 }}
        init_cwnd = 250
        recovery = "sack"
        {tcp}
        [[traffic]]
        kind = "bulk"
        from = "s0"
        to = "d0"
        [output]
        monitor = {{ link = "R1->R2", interval = "1ms" }}
        "#
    )
}

const BATCH: &str = r#"ack_batch = { pkts = 32, timeout = "10ms" }"#;
/// The gate with its defaults: B as the flow's own queue at rate c (the leaky-bucket
/// form), c the largest delivery rate of the last 10 SRTTs times 1.25 (the first
/// second's losses set ssthresh, so the slow-start headroom of 2 is over).
const GATE: &str = r#"gate = { kind = "burstiness" }"#;

/// The monitor's rows from 1 s on (after the initial 250-packet burst).
fn steady(sim: &Sim) -> Vec<sim::engine::monitor::MonitorRow> {
    sim.monitor.as_ref().expect("monitor").rows.iter().filter(|r| r.t.as_secs_f64() >= 1.0).copied().collect()
}

/// Drops at the bottleneck from 1 s on (the monitor's cumulative count).
fn steady_drops(sim: &Sim) -> u64 {
    let rows = &sim.monitor.as_ref().unwrap().rows;
    let first = rows.iter().find(|r| r.t.as_secs_f64() >= 1.0).unwrap().drops;
    rows.last().unwrap().drops - first
}

/// The window prediction by hand: 100 Mb/s of 1500 B packets is 8333.33 pkt/s; the
/// propagation round trip is 2 x (1 + 8 + 1) ms = 20 ms plus a data packet's
/// serialisation on the way out (12 + 120 + 12 us) and an ACK's on the way back
/// (0.32 + 3.2 + 0.32 us): 20.14784 ms, a BDP of 167.899 packets; a window of 250 leaves
/// 250 - 167.899 = 82.101 queued. The queue the monitor measures is that, within a packet.
#[test]
fn monitor_predicts_the_fixed_window_queue() {
    let sim = run(&scenario(1000, ""), 1);
    let rows = steady(&sim);
    assert!(rows.len() >= 3990, "{} rows", rows.len());
    for r in &rows {
        assert!((r.predicted_pkts - 82.101).abs() < 0.001, "predicted {}", r.predicted_pkts);
        assert_eq!(r.window_pkts, 250.0);
        assert!((r.queue_pkts as f64 - 82.101).abs() <= 1.0, "queue {} at {}", r.queue_pkts, r.t);
        assert!(r.max_queue_pkts >= r.queue_pkts && r.max_queue_pkts as f64 <= 83.101);
    }
    assert_eq!(steady_drops(&sim), 0);
}

/// Receiver ACK batching, by hand: 32 data packets handed to TCP at once produce 32 ACKs
/// back to back on d0's 1 Gb/s link (0.32 us each); the 100 Mb/s reverse bottleneck
/// serves one per 3.2 us, so a batch leaves 32 x (1 - 0.32/3.2) = 28.8 of them waiting
/// at R2 (28, or 29 with one in service). Without batching ACKs arrive one per data
/// packet (120 us apart) and never wait. Every data packet is still acknowledged: the
/// flow's goodput is the same within 0.1 %.
#[test]
fn ack_batching_compresses_acks() {
    let plain = run(&scenario(1000, ""), 1);
    let batched = run(&scenario(1000, BATCH), 1);
    assert!(link(&plain, "R2->R1").stats.max_pkts <= 1);
    let m = link(&batched, "R2->R1").stats.max_pkts;
    assert!((28..=29).contains(&m), "ACKs waiting at R2: {m}");
    let g = |s: &Sim| s.flows.record(0).stats.bytes_received as f64;
    assert!((g(&batched) / g(&plain) - 1.0).abs() < 1e-3, "{} vs {}", g(&batched), g(&plain));
}

/// The loop of slide 12 and its cure: the batched ACKs release 32-packet bursts at
/// 1 Gb/s into the 100 Mb/s bottleneck, each adding about 32 x (1 - 0.1) = 28.8 packets
/// to the queue the window predicts, so a 75-packet buffer overflows every few round
/// trips. Burstiness control (B_th = 10) lets at most 11 packets beyond the rate c go
/// back to back: the bottleneck queue stays below the window prediction plus the
/// threshold (slide 35), no packet is lost after the first second, and the goodput is
/// at least as high.
#[test]
fn burstiness_control_removes_the_router_drops_of_ack_compression() {
    let bursty = run(&scenario(75, BATCH), 1);
    let gated = run(&scenario(75, &format!("{BATCH}\n{GATE}")), 1);
    assert!(steady_drops(&bursty) > 1000, "without the gate: {} drops", steady_drops(&bursty));
    assert_eq!(steady_drops(&gated), 0, "with the gate");
    for r in steady(&gated) {
        assert!(r.max_queue_pkts as f64 <= r.predicted_pkts + 10.0, "{} at {}", r.max_queue_pkts, r.t);
    }
    let g = |s: &Sim| s.flows.record(0).stats.bytes_received;
    assert!(g(&gated) >= g(&bursty), "goodput {} < {}", g(&gated), g(&bursty));
}
