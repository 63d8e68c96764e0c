//! Check 1: the FCT of a 10-packet NewReno flow on an idle path equals the hand-computed
//! handshake + serialisation + propagation time to the nanosecond.
//!
//! Conventions (SCENARIOS.md "Common defaults" and the simulator's): FCT runs from the
//! SYN until the receiver holds every byte; the sender sends its initial window the
//! instant the SYN-ACK arrives; routers forward in zero time; serialisation of B bytes
//! at R bit/s is B*8/R seconds rounded to the nearest ns; store and forward: a packet
//! starts on the next link only once fully received. Serialisation times used below:
//!
//! | bytes | 10 Mbps    | 100 Mbps | 1 Gbps   |
//! |-------|------------|----------|----------|
//! | 40    | 32,000     | 3,200    | 320      |
//! | 900   |            | 72,000   | 7,200    |
//! | 1500  | 1,200,000  | 120,000  | 12,000   |

use crate::common::{build, finish};
use sim::SimTime;

/// Runs the single flow of `toml` to completion; returns (end - start, start) in ns
/// after checking the flow saw no loss and exchanged exactly `data_pkts` data packets
/// and as many ACKs, plus SYN and SYN-ACK.
fn single_flow_fct(toml: &str, data_pkts: u64) -> (u64, u64) {
    let (_, mut sim) = build(toml, 1);
    sim.run_until(SimTime::from_secs(1));
    finish(&sim);
    assert_eq!(sim.flows.len(), 1);
    let f = sim.flows.record(0);
    let s = &f.stats;
    assert_eq!((s.timeouts, s.retransmits, s.pkts_dropped), (0, 0, 0));
    assert_eq!(s.data_pkts_sent, data_pkts);
    // SYN + SYN-ACK + one ACK per data packet (delayed ACK off) + the data.
    assert_eq!(s.pkts_sent, 2 + 2 * data_pkts);
    assert_eq!(s.pkts_delivered, s.pkts_sent);
    assert_eq!(s.bytes_received, f.size);
    let end = s.end.expect("flow completed").ns();
    let start = f.start.ns();
    assert_eq!(f.fct().map(|t| t.ns()), Some(end - start), "fct() disagrees with end - start");
    (end - start, start)
}

/// One sender -> R (1 Gbps, 25 us) -> d (100 Mbps, 25 us), the incast path.
///
/// Handshake, one way: SYN 320 + 25,000 (s->R) + 3,200 + 25,000 (R->d) = 53,520;
/// the SYN-ACK takes the same back: H = 2 x 53,520 = 107,040 ns.
/// Data at H: on s->R packet j (0-based) finishes at H + 12,000 (j+1) and reaches R
/// 25,000 later. The 100 Mbps link is 10x slower, so from packet 0's arrival at
/// H + 37,000 it serialises the 10 packets back to back: the last one finishes at
/// H + 37,000 + 10 x 120,000 = H + 1,237,000 and reaches d at H + 1,262,000.
/// FCT = 107,040 + 1,262,000 = 1,369,040 ns.
#[test]
fn fct_exact_incast_path() {
    let toml = r#"
        duration = "1s"
        [topology]
        kind = "star"
        senders = 1
        sender_link = { rate = "1Gbps", delay = "25us" }
        receiver_link = { rate = "100Mbps", delay = "25us", queue = { kind = "droptail", limit = 50 } }
        [tcp]
        init_cwnd = 10
        [[traffic]]
        kind = "flow"
        from = "s0"
        to = "d"
        size_bytes = 14600
    "#;
    let (fct, _) = single_flow_fct(toml, 10);
    assert_eq!(fct, 1_369_040, "expected 1,369,040 ns, got {fct}");
}

/// Same path, a 14,000 B flow starting at 3 ms: 9 full segments + one of 860 B payload
/// (900 B on the wire). FCT counts from the flow's own start.
///
/// H = 107,040 as above. Packets 0..8 as before: packet 8 leaves R at
/// H + 37,000 + 9 x 120,000 = H + 1,117,000. Packet 9 (900 B) reaches R at
/// H + 9 x 12,000 + 7,200 + 25,000 = H + 140,200, waits, and is serialised in 72,000:
/// done at H + 1,189,000, at d at H + 1,214,000. FCT = 107,040 + 1,214,000 = 1,321,040.
#[test]
fn fct_exact_partial_last_segment_late_start() {
    let toml = r#"
        duration = "1s"
        [topology]
        kind = "star"
        senders = 1
        sender_link = { rate = "1Gbps", delay = "25us" }
        receiver_link = { rate = "100Mbps", delay = "25us" }
        [[traffic]]
        kind = "flow"
        from = "s0"
        to = "d"
        size_bytes = 14000
        start = "3ms"
        tcp = { init_cwnd = 10 }
    "#;
    let (fct, start) = single_flow_fct(toml, 10);
    assert_eq!(start, 3_000_000);
    assert_eq!(fct, 1_321_040, "expected 1,321,040 ns, got {fct}");
}

/// Three hops with the bottleneck in the middle:
/// A -(1 Gbps, 100 us)-> R1 -(100 Mbps, 2 ms)-> R2 -(1 Gbps, 50 us)-> B.
///
/// SYN one way: 320 + 100,000 + 3,200 + 2,000,000 + 320 + 50,000 = 2,153,840;
/// H = 2 x 2,153,840 = 4,307,680.
/// Hop 1: packet j reaches R1 at H + 12,000 (j+1) + 100,000. Hop 2 (10x slower) runs back
/// to back from packet 0's arrival at H + 112,000: packet 9 is done at
/// H + 112,000 + 10 x 120,000 = H + 1,312,000 and reaches R2 at H + 3,312,000.
/// Hop 3: packets arrive 120,000 apart and take 12,000 each, so none waits: packet 9 is
/// done at H + 3,324,000 and reaches B at H + 3,374,000.
/// FCT = 4,307,680 + 3,374,000 = 7,681,680 ns.
#[test]
fn fct_exact_three_hops() {
    let toml = r#"
        duration = "1s"
        [topology]
        kind = "graph"
        nodes = ["A", "R1", "R2", "B"]
        links = [
            { a = "A", b = "R1", rate = "1Gbps", delay = "100us" },
            { a = "R1", b = "R2", rate = "100Mbps", delay = "2ms" },
            { a = "R2", b = "B", rate = "1Gbps", delay = "50us" },
        ]
        [tcp]
        init_cwnd = 10
        [[traffic]]
        kind = "flow"
        from = "A"
        to = "B"
        size_pkts = 10
    "#;
    let (fct, _) = single_flow_fct(toml, 10);
    assert_eq!(fct, 7_681_680, "expected 7,681,680 ns, got {fct}");
}

/// Four hops through a parking lot: H1 -(100 Mbps, 500 us)-> R1 -(10 Mbps, 1 ms)-> R2
/// -(10 Mbps, 1 ms)-> R3 -(100 Mbps, 500 us)-> H3; two equal bottlenecks in a row.
///
/// SYN one way: (3,200 + 500,000) + 2 x (32,000 + 1,000,000) + (3,200 + 500,000)
/// = 3,070,400; H = 6,140,800.
/// Hop 1: packet j reaches R1 at H + 120,000 (j+1) + 500,000. Hop 2 runs back to back from
/// H + 620,000: packet j done at H + 620,000 + 1,200,000 (j+1), at R2 1 ms later.
/// Hop 3 has the same rate: each packet arrives exactly as the previous one finishes, so
/// none waits: packet 9 done at H + 620,000 + 12,000,000 + 1,000,000 + 1,200,000
/// = H + 14,820,000, at R3 at H + 15,820,000. Hop 4: + 120,000 + 500,000 = H + 16,440,000.
/// FCT = 6,140,800 + 16,440,000 = 22,580,800 ns.
#[test]
fn fct_exact_four_hop_chain() {
    let toml = r#"
        duration = "1s"
        [topology]
        kind = "chain"
        routers = 3
        link = { rate = "10Mbps", delay = "1ms" }
        host_link = { rate = "100Mbps", delay = "500us" }
        [[traffic]]
        kind = "flow"
        from = "H1"
        to = "H3"
        size_pkts = 10
        tcp = { init_cwnd = 10, mss = 1460, header_bytes = 40 }
    "#;
    let (fct, _) = single_flow_fct(toml, 10);
    assert_eq!(fct, 22_580_800, "expected 22,580,800 ns, got {fct}");
}

/// A 10 Mb/s host link with a 5-packet NIC queue, a 20-segment initial window, a
/// 20-segment flow; `LOCAL` stands for the `[tcp]` line under test.
const NIC_SCENARIO: &str = r#"
    name = "nic"
    duration = "100ms"
    [topology]
    kind = "graph"
    nodes = ["A", "R", "B"]
    links = [
        { a = "A", b = "R", rate = "10Mbps", delay = "1ms", queue = { kind = "droptail", limit = 5 } },
        { a = "R", b = "B", rate = "100Mbps", delay = "1ms" },
    ]
    [tcp]
    host = "ns2"
    init_cwnd = 20
    LOCAL
    [[traffic]]
    kind = "flow"
    from = "A"
    to = "B"
    size_pkts = 20
"#;

/// Drops at the sender's own NIC queue (txqueuelen) are counted apart from router drops:
/// a 10 Mb/s host link with a 5-packet queue gets the 20-segment initial window at once
/// after the handshake: 1 goes into service, 5 wait, 14 are dropped there; the 100 Mb/s
/// path after it drops nothing.
#[test]
fn sender_nic_drops_counted_apart() {
    let toml = &NIC_SCENARIO.replace("LOCAL", "local_drop = \"ignore\"");
    let sim = super::common::run(toml, 1);
    let f = sim.flows.record(0).stats;
    assert_eq!(f.sender_drops, 14);
    assert_eq!(f.pkts_dropped, 14);
    let r = sim::output::results::collect(&sim, "nic");
    assert_eq!(r.summary["sender_drops"], 14);
}

/// `local_drop = "cwr"` (Linux's tcp_enter_cwr on a local congestion return): the same
/// 20-segment window into the 5-packet NIC queue. The window is emitted at once (snd_max
/// 20 segments ahead of snd_una, nothing acknowledged), so at the first NIC drop FlightSize
/// is 20: ssthresh = 20 / 2 = 10 and cwnd drops to 10, once for the window (14 drops, one
/// reduction). Checked at 4.5 ms, after the handshake (about 4.1 ms) and before any data
/// is acknowledged; with "ignore" (ns-2's host) the window stays 20.
#[test]
fn local_drop_enters_cwr() {
    let base = NIC_SCENARIO;
    for (local, cwnd, ssthresh, cwr) in
        [("local_drop = \"cwr\"", 10.0, 10.0, 1), ("local_drop = \"ignore\"", 20.0, f64::INFINITY, 0)]
    {
        let (_, mut sim) = super::common::build(&base.replace("LOCAL", local), 1);
        sim.run_until(sim::SimTime::from_us(4_500));
        let f = sim.flows.get(0).expect("the flow is still sending");
        assert_eq!(f.stats.sender_drops, 14, "{local}");
        assert_eq!(f.stats.local_cwr, cwr, "{local}");
        assert_eq!(f.cc_state.cwnd, cwnd, "{local}");
        assert_eq!(f.cc_state.ssthresh, ssthresh, "{local}");
        super::common::finish(&sim);
    }
    let bad = base.replace("LOCAL", "local_drop = \"panic\"");
    let e = sim::Scenario::from_toml_str(&bad).err().unwrap();
    assert!(e.contains("local_drop") && !e.contains('\n'), "{e}");
}

/// `local_drop = "hold"` (Linux's tcp_write_xmit and tcp_enter_cwr): the same 20-segment
/// window into the 5-packet NIC queue of an idle 10 Mb/s link. The queue takes 6 (one
/// straight into service, 5 waiting: ns-2's occupancy convention), refuses the 7th: the
/// 14 others stay unsent, nothing is lost, and the window is reduced once from cwnd, as
/// Linux's ssthresh for Reno: max(20 / 2, 2) = 10, cwnd = min(10, 20) = 10. At 4.5 ms
/// (handshake about 4.07 ms, the next service start 1.2 ms after it, at 5.27 ms) 6 have
/// left. By the end the held segments have left as the queue drained, in order: 20 data
/// packets for 20 segments, no retransmission, nothing out of order, no drop anywhere.
/// (The NIC is this path's bottleneck, so later windows may be refused and reduced again,
/// once per window, as in Linux: not asserted.)
#[test]
fn local_drop_hold_keeps_refused_segments() {
    let toml = NIC_SCENARIO.replace("LOCAL", "local_drop = \"hold\"");
    let (_, mut sim) = super::common::build(&toml, 1);
    sim.run_until(sim::SimTime::from_us(4_500));
    let f = sim.flows.get(0).expect("the flow is still sending");
    assert_eq!(f.stats.data_pkts_sent, 6);
    assert_eq!(f.stats.nic_refusals, 1);
    assert_eq!((f.stats.sender_drops, f.stats.pkts_dropped), (0, 0));
    assert_eq!(f.stats.local_cwr, 1);
    assert_eq!((f.cc_state.cwnd, f.cc_state.ssthresh), (10.0, 10.0));
    sim.run_until(sim::SimTime::from_ms(100));
    let f = sim.flows.record(0).stats;
    assert!(f.end.is_some(), "the flow completes");
    assert_eq!(f.data_pkts_sent, 20);
    assert_eq!((f.retransmits, f.timeouts, f.ooo_arrivals), (0, 0, 0));
    assert_eq!((f.sender_drops, f.pkts_dropped), (0, 0));
    let drops: u64 = sim.net.links.iter().map(|l| l.stats.total_drops()).sum();
    assert_eq!(drops, 0);
    super::common::finish(&sim);
}

/// TCP Small Queues (Linux's host, tcp/tsq.rs): a 60-segment flow from a 10 Mb/s host
/// with a 1,000-packet NIC queue over a path of about 100 ms RTT (1 ms, then 49 ms at
/// 1 Gb/s). The limit by hand: the pacing rate is at most 2 x 60 x 1,460 B / 0.1 s =
/// 1.75 MB/s (slow start, 200 %), whose 1 ms term (/1024) is 1,711 B, below 2 packets
/// (3,000 B): the flow keeps at most 2 packets below the socket, one in service and at
/// most one waiting in the NIC queue. Without it the 10-segment initial window goes at
/// once: 1 in service, 9 waiting (and slow start's later bursts, two packets per ACK
/// against one drained, more). The 10 Mb/s link never idles either way (a packet
/// waits when its predecessor leaves), so the completion times agree within one packet's
/// serialisation (1.2 ms); nothing is refused or lost.
#[test]
fn tcp_small_queues_keep_two_packets_below_the_socket() {
    let toml = |tsq: &str| {
        format!(
            r#"
            name = "tsq"
            duration = "2s"
            [topology]
            kind = "graph"
            nodes = ["A", "R", "B"]
            links = [
                {{ a = "A", b = "R", rate = "10Mbps", delay = "1ms", queue = {{ kind = "droptail", limit = 1000 }} }},
                {{ a = "R", b = "B", rate = "1Gbps", delay = "49ms" }},
            ]
            [tcp]
            init_cwnd = 10
            {tsq}
            [[traffic]]
            kind = "flow"
            from = "A"
            to = "B"
            size_pkts = 60
            "#
        )
    };
    let with = super::common::run(&toml(""), 1);
    let without = super::common::run(&toml("tsq = false"), 1);
    let waiting = |s: &sim::Sim| super::common::link(s, "A->R").stats.max_pkts;
    assert_eq!(waiting(&with), 1);
    assert!(waiting(&without) >= 9, "{}", waiting(&without)); // slow start's bursts add more
    let (a, b) = (with.flows.record(0), without.flows.record(0));
    for f in [a, b] {
        assert_eq!((f.stats.nic_refusals, f.stats.pkts_dropped, f.stats.retransmits), (0, 0, 0));
    }
    let (fa, fb) = (a.fct().expect("done").ns() as i64, b.fct().expect("done").ns() as i64);
    assert!((fa - fb).abs() <= 1_200_000, "FCT {fa} ns with TSQ, {fb} ns without");
}
