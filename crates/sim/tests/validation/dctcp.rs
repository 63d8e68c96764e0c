//! DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257): the DropTail marking threshold K
//! (queue/droptail.rs) as a discipline, then the paper's claim on one switch port: two
//! long DCTCP flows keep the port busy with the queue held near K, where DropTail with
//! NewReno fills the buffer.

use crate::common::{build, finish, link};
use sim::core::packet::{flags, Packet};
use sim::net::queue::droptail::DropTail;
use sim::net::queue::{DropReason, QueueDisc, QueueState, Unit, Verdict};
use sim::SimTime;

fn pkt(ect: bool) -> Packet {
    let f = flags::DATA | flags::ACK | if ect { flags::ECT } else { 0 };
    Packet { size: 1500, payload: 1460, flags: f, ..Packet::default() }
}

fn marking(limit: u64, unit: Unit, k: u64) -> DropTail {
    DropTail { ecn_threshold: Some(k), ..DropTail::new(limit, unit) }
}

/// K = 5, limit 10 packets. An ECT arrival finding q waiting packets: q <= 5 enqueued
/// unmarked ("greater than K upon its arrival", DCTCP section 3.1), 6..9 marked and
/// enqueued, 10 (full) dropped. Not ECT: never marked, dropped only at 10. The counter
/// holds the 4 marks. Byte mode, K = 7500 B, limit 15000 B, 1500-byte packets: 7500 B
/// queued -> unmarked, 7501 -> marked, 13500 (+1500 = the limit) -> marked, 13501 ->
/// overflow.
#[test]
fn droptail_marks_above_k_and_drops_only_when_full() {
    let mut d = marking(10, Unit::Packets, 5);
    for q in 0..=10u32 {
        let st = QueueState { pkts: q, bytes: 1500 * u64::from(q) };
        let want = match q {
            0..=5 => Verdict::Enqueue,
            6..=9 => Verdict::Mark,
            _ => Verdict::Drop(DropReason::Overflow),
        };
        assert_eq!(d.enqueue(&pkt(true), st, SimTime::ZERO), want, "ECT, q = {q}");
        let plain = if q < 10 { Verdict::Enqueue } else { Verdict::Drop(DropReason::Overflow) };
        assert_eq!(d.enqueue(&pkt(false), st, SimTime::ZERO), plain, "not ECT, q = {q}");
    }
    assert_eq!(d.counters(), vec![("droptail_ecn_marks", 4.0)]);
    assert!(DropTail::new(10, Unit::Packets).counters().is_empty());
    let mut d = marking(15_000, Unit::Bytes, 7_500);
    for (bytes, want) in [
        (7_500, Verdict::Enqueue),
        (7_501, Verdict::Mark),
        (13_500, Verdict::Mark),
        (13_501, Verdict::Drop(DropReason::Overflow)),
    ] {
        let st = QueueState { pkts: 0, bytes };
        assert_eq!(d.enqueue(&pkt(true), st, SimTime::ZERO), want, "{bytes} B");
    }
}

/// `ecn_threshold` must be in 1..=limit; the error is one line naming the field.
#[test]
fn ecn_threshold_validated() {
    for (k, ok) in [("0", false), ("501", false), ("1", true), ("500", true)] {
        let toml = one_port(&format!("{{ kind = \"droptail\", limit = 500, ecn_threshold = {k} }}"), DCTCP, "1ms");
        let r = sim::Scenario::from_toml_str(&toml).and_then(|sc| sc.build(Some(1)).map(|_| ()));
        match (ok, r) {
            (true, r) => r.unwrap_or_else(|e| panic!("K = {k}: {e}")),
            (false, Ok(())) => panic!("K = {k} accepted"),
            (false, Err(e)) => {
                assert!(e.contains("topology.receiver_link.queue.ecn_threshold") && !e.contains('\n'), "K = {k}: {e}")
            }
        }
    }
}

/// Two long flows s0, s1 -> R -> d, 25 us one way on every link: base RTT 4 x 25 =
/// 100 us, + 1.2 us to serialise a 1500-byte packet on the port R -> d (10 Gb/s) and
/// 0.3 us on the hosts' 40 Gb/s links (faster than the port, so that the port is the
/// bottleneck even of one flow alone: with 10 Gb/s hosts a NewReno flow left alone after
/// its partner's timeouts queues in its own NIC instead). `tcp`: the `[tcp]` table.
fn one_port(queue: &str, tcp: &str, duration: &str) -> String {
    format!(
        r#"
        duration = "{duration}"
        [topology]
        kind = "star"
        senders = 2
        sender_link = {{ rate = "40Gbps", delay = "25us" }}
        receiver_link = {{ rate = "10Gbps", delay = "25us", queue = {queue} }}
        [tcp]
        {tcp}
        [[traffic]]
        kind = "bulk"
        from = "s{{i}}"
        to = "d"
        count = 2
        start_jitter = "50us"
        [output]
        monitor = {{ link = "R->d", interval = "10us" }}
        "#
    )
}

/// (K, Q_min, Q_max, A) of the paper's analysis for this port (see below).
fn theory() -> (f64, f64, f64, f64) {
    let (k, n) = (65.0f64, 2.0f64);
    let bdp: f64 = 10e9 * 101.5e-6 / (1500.0 * 8.0);
    let amp = 0.5 * (2.0 * n * (bdp + k)).sqrt();
    let (q_max, q_min) = (k + n, k + n - amp);
    assert!((bdp - 84.58).abs() < 0.01 && (amp - 12.23).abs() < 0.01, "{bdp} {amp}");
    assert!(k > bdp / 7.0 && q_min > 0.0);
    (k, q_min, q_max, amp)
}

/// The DCTCP asserts of `dctcp_holds_one_port_queue_near_k`.
fn near_k(d: &PortRun, k: f64, q_min: f64, q_max: f64, amp: f64) {
    assert!(d.util > 0.95, "{d:?}");
    assert!(d.mean >= q_min - amp && d.mean <= q_max, "{d:?}");
    assert!(f64::from(d.p99) <= q_max + amp, "{d:?}");
    assert!(f64::from(d.max) < 2.0 * k, "{d:?}");
    assert_eq!(d.drops, 0, "{d:?}");
    assert!(d.marks > 0);
}

/// What the port's queue did after the warm-up.
#[derive(Debug)]
struct PortRun {
    util: f64,
    /// Time-average queue (packets waiting), exact (the link's occupancy integral).
    mean: f64,
    /// 99th percentile of the queue sampled every 10 us.
    p99: u32,
    /// Largest queue after the warm-up (the monitor's max between samples).
    max: u32,
    /// Largest queue over the whole run, slow start included.
    max_all: u32,
    drops: u64,
    marks: u64,
}

const DCTCP: &str = "cc = \"dctcp\"";
const K65: &str = "{ kind = \"droptail\", limit = 500, ecn_threshold = 65 }";

fn run_port(queue: &str, tcp: &str) -> PortRun {
    let warm = SimTime::from_ms(100);
    let end = SimTime::from_ms(600);
    let (_, mut sim) = build(&one_port(queue, tcp, "600ms"), 1);
    sim.run_until(warm);
    let (b0, occ0) = {
        let l = link(&sim, "R->d");
        (l.stats.bytes_delivered, l.stats.occ_integral)
    };
    sim.run_until(end);
    finish(&sim);
    let l = link(&sim, "R->d");
    let dt = (end - warm).ns() as f64;
    let util = (l.stats.bytes_delivered - b0) as f64 * 8.0 / (10e9 * dt * 1e-9);
    let mean = (l.stats.occ_integral - occ0) as f64 / dt;
    let rows: Vec<_> = sim.monitor.as_ref().expect("monitor").rows.iter().filter(|r| r.t > warm).collect();
    let mut q: Vec<u32> = rows.iter().map(|r| r.queue_pkts).collect();
    q.sort_unstable();
    PortRun {
        util,
        mean,
        p99: q[q.len() * 99 / 100],
        max: rows.iter().map(|r| r.max_queue_pkts).max().unwrap_or(0),
        max_all: l.stats.max_pkts,
        drops: l.stats.total_drops(),
        marks: l.stats.marks,
    }
}

/// The paper's claim (section 3.3, "Analysis"), N = 2 flows, C x RTT = 10 Gb/s x
/// 101.5 us / (1500 x 8 bit) = 84.6 packets, K = 65 (the paper's 10 Gb/s setting; the
/// guideline K > C x RTT / 7 = 12.1 packets holds):
///   the queue saw-tooths between Q_max = K + N = 67 and Q_min = Q_max - A, with the
///   amplitude A = (1/2) sqrt(2 N (C x RTT + K)) = (1/2) sqrt(4 x 149.6) = 12.2,
///   Q_min = 54.8 > 0: the link never idles, throughput 100 %.
/// Asserted after a 100 ms warm-up (slow start's overshoot excluded), 500 ms of run:
/// - utilisation > 95 %;
/// - the time-average queue within [Q_min - A, Q_max] = [42.6, 67];
/// - the 99th percentile at most Q_max + A = 79.2 (the fluid model has no packet-level
///   bursts; one amplitude of slack for them) and the largest queue below 2 K = 130,
///   far below the 500-packet buffer;
/// - no drop at all, slow start included: DCTCP works by marks.
///
/// DropTail with NewReno (no ECN) on the same port fills the buffer instead: largest
/// queue at the 500-packet limit, drops, a mean queue several times K.
#[test]
fn dctcp_holds_one_port_queue_near_k() {
    let (k, q_min, q_max, amp) = theory();

    let d = run_port(K65, DCTCP);
    let t = run_port("{ kind = \"droptail\", limit = 500 }", "cc = \"newreno\"");
    eprintln!(
        "one port, 2 flows, 10 Gb/s, RTT 100 us, after 100 ms:\n  DCTCP K=65: utilisation {:.2} %, \
         queue mean {:.1} p99 {} max {} (whole run {}), drops {}, marks {}\n  DropTail NewReno: \
         utilisation {:.2} %, queue mean {:.1} p99 {} max {} (whole run {}), drops {}",
        100.0 * d.util,
        d.mean,
        d.p99,
        d.max,
        d.max_all,
        d.drops,
        d.marks,
        100.0 * t.util,
        t.mean,
        t.p99,
        t.max,
        t.max_all,
        t.drops
    );
    near_k(&d, k, q_min, q_max, amp);
    assert!(t.max_all >= 495 && t.drops > 0, "{t:?}");
    assert!(t.mean > 3.0 * k, "{t:?}");
}

/// The same port with delayed ACKs (one ACK per two segments, RFC 1122): the receiver's
/// two-state machine (RFC 8257 section 3.2) keeps the echo exact, so the same bounds
/// hold. (With RFC 3168's sticky echo instead, every ACK after a CE would carry ECE
/// until the CWR arrives, one RTT later: the sender would see most of a window marked
/// and alpha would not measure the extent of congestion.)
#[test]
fn dctcp_one_port_with_delayed_acks() {
    let (k, q_min, q_max, amp) = theory();
    let d = run_port(K65, "cc = \"dctcp\"\ndelayed_ack = true");
    eprintln!(
        "one port, DCTCP K=65, delayed ACKs: utilisation {:.2} %, queue mean {:.1} p99 {} max {} (whole run {}), \
         drops {}, marks {}",
        100.0 * d.util,
        d.mean,
        d.p99,
        d.max,
        d.max_all,
        d.drops,
        d.marks
    );
    near_k(&d, k, q_min, q_max, amp);
}
