//! Tests of the burstiness gate (a child module of burstiness.rs, for the gate's state):
//! the sheet's values, ACK compression paced past the threshold, the queue form against the
//! anchor on a catch-up burst, the estimators of c, a lost u and retransmissions.

use super::*;

const MSS: u64 = 1000;

/// A gate measuring B from the anchor (the slides' form) with c fixed at `c` pkt/s
/// (the window estimator with cwnd = c x SRTT, SRTT = 1 s, out of slow start) and a
/// line rate far above it.
fn gate(c: f64) -> (Burstiness, GateView) {
    gate_with(c, Measure::Anchor)
}

fn gate_with(c: f64, measure: Measure) -> (Burstiness, GateView) {
    let p = BcParams { estimator: Estimator::Window, measure, ..BcParams::default() };
    let g = Burstiness::new(p, 1e12, MSS as u32, MSS as u32 + 40);
    let v = GateView {
        snd_una: 0,
        snd_nxt: 0,
        snd_max: 0,
        cwnd: c,
        srtt: Some(SimTime::from_secs(1)),
        bytes: MSS as u32 + 40,
        seq: 0,
        len: MSS,
        sacked: 0,
        ssthresh: 0.0,
    };
    (g, v)
}

/// Sends segments `from..to` at `t` through the gate's bookkeeping.
fn send(g: &mut Burstiness, v: &mut GateView, from: u64, to: u64, t: SimTime) {
    for k in from..to {
        v.seq = k * MSS;
        v.snd_max = v.seq;
        g.on_sent(v, t);
    }
    v.seq = to * MSS;
    v.snd_max = v.seq;
}

/// ALGORITHMS.md section 12's test values: u sent at s_u = 0, t = 0.1 s,
/// c = 1000 pkt/s, B_th = 10. n - u = 105 (u and 104 more sent): B = 105 - 1000 x 0.1
/// = 5 <= 10, send. n - u = 111: B = 11 > 10, hold until (111 - 10) / 1000 = 0.101 s,
/// where B = 10.
#[test]
fn sheet_values() {
    let (mut g, mut v) = gate(1000.0);
    send(&mut g, &mut v, 0, 1, SimTime::ZERO); // u = segment 0 at s_u = 0
    send(&mut g, &mut v, 1, 105, SimTime::from_ms(50));
    let t = SimTime::from_ms(100);
    let (b, c) = g.measure(&v, t).unwrap();
    assert!((b - 5.0).abs() < 1e-9 && (c - 1000.0).abs() < 1e-9, "B = {b}, c = {c}");
    assert_eq!(g.release_at(&v, t), None);
    send(&mut g, &mut v, 105, 111, t);
    assert_eq!(g.release_at(&v, t), Some(SimTime::from_us(101_000)));
    // at t' the measure is exactly the threshold: released (B <= B_th)
    assert_eq!(g.release_at(&v, SimTime::from_us(101_000)), None);
    // the slides' strict form waits one ns more
    g.p.strict = true;
    assert_eq!(g.release_at(&v, SimTime::from_us(101_000)), Some(SimTime(101_000_001)));
}

/// ACK compression (the sheet's third value): 50 ACKs arrive at once at t = RTT = 0.1 s
/// and the window lets 50 new packets go, after 100 sent at c = 1000 pkt/s from
/// s_u = 0, one per ms. The compressed ACKs moved u to segment 50, sent at 50 ms, so
/// new packet 100 + k has B = (100 + k - 50) - 1000 x (0.1 - 0.05) = k: packets
/// k = 0..10 leave at once (B <= 10: 11 packets), packet k > 10 waits until
/// 0.05 + (50 + k - 10) / 1000 s, (k - 10) ms after the ACKs: one per 1/c = 1 ms.
#[test]
fn ack_compression_paced_after_threshold() {
    let (mut g, mut v) = gate(1000.0);
    for i in 0..100u64 {
        v.seq = i * MSS;
        v.snd_max = v.seq;
        g.on_sent(&v, SimTime::from_ms(i)); // packet i at i ms: c = 1000 pkt/s
    }
    v.snd_una = 50 * MSS;
    g.on_ack(&v, SimTime::from_ms(100));
    let t = SimTime::from_ms(100);
    let mut now = t;
    let mut release = Vec::new();
    for k in 0..50u64 {
        v.seq = (100 + k) * MSS;
        v.snd_max = v.seq;
        if let Some(at) = g.release_at(&v, now) {
            now = at;
            assert_eq!(g.release_at(&v, now), None);
        }
        release.push((now - t).ns());
        g.on_sent(&v, now);
    }
    assert!(release[..11].iter().all(|&d| d == 0), "{:?}", &release[..12]);
    for (k, &d) in release.iter().enumerate().skip(11) {
        assert_eq!(d, (k as u64 - 10) * 1_000_000, "packet {k}");
    }
    assert_eq!(g.holds, 39);
}

/// The queue form against the anchor form after a lull: c = 1000 pkt/s, SRTT 100 ms;
/// u and 49 more leave one per ms (0..49 ms), then nothing until 99 ms, when the
/// window lets 60 go. From u: B = (50 + k) - 1000 x 0.099 = k - 49 <= 10 for all
/// k < 60, so the anchor form lets the 60 go at once. The flow's own queue had
/// drained (49 sent at c over 49 ms, then 50 ms idle), so the queue form lets
/// B_th + 1 = 11 go, then one per 1/c = 1 ms: packet k >= 11 at 99 + (k - 10) ms.
#[test]
fn queue_form_paces_a_catch_up_burst() {
    for measure in [Measure::Anchor, Measure::Queue] {
        let (mut g, mut v) = gate_with(1000.0, measure);
        v.srtt = Some(SimTime::from_ms(100));
        v.cwnd = 100.0;
        for k in 0..50u64 {
            send(&mut g, &mut v, k, k + 1, SimTime::from_ms(k));
        }
        let t = SimTime::from_ms(99);
        let mut now = t;
        for k in 0..60u64 {
            if let Some(at) = g.release_at(&v, now) {
                now = at;
                assert_eq!(g.release_at(&v, now), None);
            }
            let want = if measure == Measure::Anchor || k <= 10 { t } else { t + SimTime::from_ms(k - 10) };
            assert_eq!(now, want, "{measure:?} packet {k}");
            send(&mut g, &mut v, 50 + k, 51 + k, now);
        }
    }
}

/// "delivery_ewma" with headroom 1 (the sheet's (a)): 10 packets delivered per 10 ms
/// SRTT is 1000 pkt/s; the first sample is taken as it is, then an EWMA of 1/8: a
/// sample of 2000 pkt/s gives 1000 + (2000 - 1000) / 8 = 1125.
#[test]
fn delivery_ewma_estimate() {
    let p = BcParams { estimator: Estimator::DeliveryEwma, headroom: 1.0, ..BcParams::default() };
    let mut g = Burstiness::new(p, 1e12, MSS as u32, MSS as u32 + 40);
    let mut v = gate(0.0).1;
    v.srtt = Some(SimTime::from_ms(10));
    g.on_ack(&v, SimTime::ZERO);
    assert_eq!(g.estimate(&v), None);
    v.snd_una = 10 * MSS;
    g.on_ack(&v, SimTime::from_ms(10));
    assert!((g.estimate(&v).unwrap() - 1000.0).abs() < 1e-9);
    v.snd_una = 30 * MSS;
    g.on_ack(&v, SimTime::from_ms(20));
    assert!((g.estimate(&v).unwrap() - 1125.0).abs() < 1e-9);
    // a loss: snd_una stalls, 10 segments SACKed above it count as delivered:
    // 1000 pkt/s, 1125 + (1000 - 1125) / 8 = 1109.375
    v.sacked = 10 * MSS;
    g.on_ack(&v, SimTime::from_ms(30));
    assert!((g.estimate(&v).unwrap() - 1109.375).abs() < 1e-9);
    // an RTO clears the scoreboard: delivery never goes back (a sample of 0, not < 0)
    v.sacked = 0;
    g.on_ack(&v, SimTime::from_ms(40));
    assert!((g.estimate(&v).unwrap() - 1109.375 * 7.0 / 8.0).abs() < 1e-9);
    // in slow start (cwnd < ssthresh) the slow-start headroom, 2
    v.ssthresh = f64::INFINITY;
    assert!((g.estimate(&v).unwrap() - 2.0 * 1109.375 * 7.0 / 8.0).abs() < 1e-9);
}

/// "delivery" (the default): the largest of the last 3 (filter_rtts) per-SRTT samples,
/// times 1.25 out of slow start. Samples 1000, 3000, 2000, 500, 400 pkt/s (10, 30, 20,
/// 5, 4 packets per 10 ms): after the third the max is 3000 (3750 with headroom); after
/// the fifth the window holds 2000, 500, 400: 2500.
#[test]
fn delivery_max_filter() {
    let p = BcParams { filter_rtts: 3, ..BcParams::default() };
    let mut g = Burstiness::new(p, 1e12, MSS as u32, MSS as u32 + 40);
    let mut v = gate(0.0).1;
    v.srtt = Some(SimTime::from_ms(10));
    g.on_ack(&v, SimTime::ZERO);
    let mut una = 0;
    for (k, d) in [10u64, 30, 20, 5, 4].into_iter().enumerate() {
        una += d;
        v.snd_una = una * MSS;
        g.on_ack(&v, SimTime::from_ms(10 * (k as u64 + 1)));
        let want = match k {
            0 => 1000.0,
            1..=3 => 3000.0,
            _ => 2000.0,
        } * 1.25;
        assert!((g.estimate(&v).unwrap() - want).abs() < 1e-9, "after sample {k}: {:?}", g.estimate(&v));
    }
}

/// The cap: a window estimate above the line rate uses the line rate
/// (1 Gb/s in 1040-byte packets: 120,192.3 pkt/s).
#[test]
fn line_rate_caps_the_estimate() {
    let p = BcParams { estimator: Estimator::Window, ..BcParams::default() };
    let g = Burstiness::new(p, 1e9, MSS as u32, MSS as u32 + 40);
    let mut v = gate(0.0).1;
    v.cwnd = 1e9;
    let c = g.estimate(&v).unwrap();
    assert!((c - 1e9 / 8320.0).abs() < 1e-6, "{c}");
}

/// A lost u: segment 0 left at 0 and stays unacknowledged; segments 1..=100 left at
/// 0.901..1.000 s, one per ms; c = 1000 pkt/s, SRTT 100 ms. At t = 1 s, B from u
/// would be 101 - 1000 x 1.0 = -899 (any burst passes); from m, the first packet sent
/// since t - SRTT = 0.9 s (segment 1 at 0.901 s, 100 sent since): 100 - 1000 x 0.099
/// = 1, sent; 10 more at once give 11, held until 0.901 + (110 - 10)/1000 = 1.001 s.
#[test]
fn a_lost_u_counts_from_the_last_srtt() {
    let (mut g, mut v) = gate(1000.0);
    v.srtt = Some(SimTime::from_ms(100));
    v.cwnd = 100.0; // c = cwnd / SRTT = 1000 pkt/s
    send(&mut g, &mut v, 0, 1, SimTime::ZERO);
    for k in 1..=100u64 {
        send(&mut g, &mut v, k, k + 1, SimTime::from_ms(900 + k));
    }
    let t = SimTime::from_ms(1000);
    assert_eq!(g.anchor(&v, t), Some((SimTime::from_ms(901), 100)));
    let (b, _) = g.measure(&v, t).unwrap();
    assert!((b - 1.0).abs() < 1e-9, "B = {b}");
    assert_eq!(g.release_at(&v, t), None);
    send(&mut g, &mut v, 101, 111, t);
    assert_eq!(g.release_at(&v, t), Some(SimTime::from_ms(1001)));
    // nothing sent in the last SRTT: no burst to measure
    assert_eq!(g.anchor(&v, SimTime::from_ms(1200)), None);
}

/// Nothing in flight: the first packet goes. Retransmissions count like new data:
/// u at 0 and 10 retransmissions of it at once make B = 11 - c x 0 > 10 (c = 1 pkt/s),
/// so the next (new or not) is held until (11 - 10) / 1 = 1 s.
#[test]
fn retransmissions_count_and_empty_flight_passes() {
    let (mut g, mut v) = gate(1.0);
    v.seq = 500 * MSS;
    v.snd_max = v.seq;
    assert_eq!(g.release_at(&v, SimTime::ZERO), None, "nothing in flight");
    send(&mut g, &mut v, 500, 501, SimTime::ZERO);
    v.snd_max = 501 * MSS;
    for _ in 0..10 {
        v.seq = 500 * MSS; // a retransmission of u
        assert_eq!(g.release_at(&v, SimTime::ZERO), None);
        g.on_sent(&v, SimTime::ZERO);
    }
    v.seq = 501 * MSS;
    assert_eq!(g.release_at(&v, SimTime::ZERO), Some(SimTime::from_secs(1)));
    assert_eq!(g.sent.len(), 1, "retransmissions are not new segments");
}
