//! CUBIC (cc/cubic.rs) against RFC 9438 and the hand-computed values of ALGORITHMS.md
//! section 4: K and W_cubic(t) after a loss, the loss rule with fast convergence, the
//! Reno-friendly region, the timeout rule of section 4.8 and the named options.

use crate::common::*;
use sim::tcp::cc::cubic::{self, Cubic, SsthreshFrom};
use sim::tcp::cc::{CcConfig, CcState, CongestionControl, CongestionEvent};

fn st(cwnd: f64, ssthresh: f64) -> CcState {
    CcState { cwnd, ssthresh, max_cwnd: f64::INFINITY, abc_limit: 1.0 }
}

fn cubic() -> Cubic {
    cubic::Params::default().build()
}

/// A loss at `cwnd` with FlightSize `cwnd`; returns the state the sender leaves after
/// recovery: cwnd = ssthresh.
fn loss(c: &mut Cubic, cwnd: f64) -> CcState {
    let ss = c.ssthresh(&st(cwnd, 1e9), cwnd, CongestionEvent::FastRetransmit, SimTime::ZERO);
    st(ss, ss)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() < tol
}

/// W_max = 100: a loss at cwnd = FlightSize = 100 gives ssthresh = 0.7 x 100 = 70, W_max =
/// 100; the first congestion-avoidance ACK starts the epoch at cwnd_epoch = 70:
/// K = cbrt((100 - 70)/0.4) = cbrt(75) = 4.2172 s; W(0) = 70;
/// W(1 s) = 0.4 (1 - 4.2172)^3 + 100 = 0.4 x (-33.298) + 100 = 86.681; W(K) = 100;
/// W(2K) = 0.4 x 4.2172^3 + 100 = 0.4 x 75 + 100 = 130.
#[test]
fn k_and_curve_at_w_max_100() {
    let mut c = cubic();
    let mut s = loss(&mut c, 100.0);
    assert_eq!(s.ssthresh, 70.0);
    assert_eq!(c.w_max(), 100.0);
    c.on_ack(&mut s, 1.0, Some(ms(100)), SimTime::from_secs(10));
    let k = c.k();
    assert!(close(k, 4.2172, 1e-4), "K {k}");
    assert!(close(c.w_cubic(0.0), 70.0, 1e-9));
    assert!(close(c.w_cubic(1.0), 86.681, 1e-3), "{}", c.w_cubic(1.0));
    assert!(close(c.w_cubic(k), 100.0, 1e-9));
    assert!(close(c.w_cubic(2.0 * k), 130.0, 1e-9));
}

/// W_max = 1000: ssthresh 700, K = cbrt(300/0.4) = cbrt(750) = 9.0856 s, W(1 s) = 0.4 x
/// (1 - 9.0856)^3 + 1000 = 0.4 x (-528.61) + 1000 = 788.555.
/// W_max = 10,000: ssthresh 7000, K = cbrt(7500) = 19.5743 s,
/// W(1 s) = 0.4 x (-18.5743)^3 + 10000 = 0.4 x (-6408.26) + 10000 = 7436.70.
#[test]
fn k_at_1000_and_10000() {
    for (w, ss, k, w1) in [(1000.0, 700.0, 9.0856, 788.555), (10_000.0, 7000.0, 19.5743, 7436.70)] {
        let mut c = cubic();
        let mut s = loss(&mut c, w);
        assert!(close(s.ssthresh, ss, 1e-9));
        c.on_ack(&mut s, 1.0, Some(ms(100)), SimTime::from_secs(10));
        assert!(close(c.k(), k, 1e-4), "K {}", c.k());
        assert!(close(c.w_cubic(1.0), w1, 1e-2), "{}", c.w_cubic(1.0));
    }
}

/// The per-ACK update after the loss at 100 (RTT 100 ms, alpha_cubic = 3 x 0.3/1.7 =
/// 9/17 = 0.52941):
/// - ACK 1 at the epoch start t = 0: W_est = 70 + (9/17)/70 = 70.007563 > W_cubic(0) = 70:
///   Reno-friendly region, cwnd = W_est = 70.007563;
/// - ACK 2 at t = 0.9 s: W_est = 70.007563 + (9/17)/70.007563 = 70.015125 < W_cubic(0.9) =
///   0.4 (0.9 - 4.2172)^3 + 100 = 85.400: concave region, target = W_cubic(0.9 + 0.1) =
///   86.681 (within [cwnd, 1.5 cwnd]): cwnd += (86.681 - 70.007563)/70.007563 = 0.238163:
///   70.245726.
#[test]
fn per_ack_growth_towards_target() {
    let mut c = cubic();
    let mut s = loss(&mut c, 100.0);
    let t0 = SimTime::from_secs(10);
    c.on_ack(&mut s, 1.0, Some(ms(100)), t0);
    assert!(close(s.cwnd, 70.007563, 1e-6), "{}", s.cwnd);
    c.on_ack(&mut s, 1.0, Some(ms(100)), t0 + ms(900));
    assert!(close(c.w_est(), 70.015125, 1e-6), "{}", c.w_est());
    assert!(close(s.cwnd, 70.245726, 1e-6), "{}", s.cwnd);
}

/// The target is clamped to 1.5 cwnd: cwnd 70 at t = 20 s into the W_max = 100 epoch:
/// W_cubic(20.1) = 0.4 x (20.1 - 4.2172)^3 + 100 = 0.4 x 4006.6 + 100 = 1702.6 > 1.5 x 70
/// = 105: one ACK of one segment adds (105 - 70)/70 = 0.5 (reno_friendly off so only the
/// cubic region is seen).
#[test]
fn target_clamped_to_one_and_a_half_cwnd() {
    let mut c = cubic::Params { reno_friendly: false, ..Default::default() }.build();
    let mut s = loss(&mut c, 100.0);
    let t0 = SimTime::from_secs(10);
    c.on_ack(&mut s, 0.0, Some(ms(100)), t0);
    assert!(close(s.cwnd, 70.0, 1e-9));
    c.on_ack(&mut s, 1.0, Some(ms(100)), t0 + SimTime::from_secs(20));
    assert!(close(s.cwnd, 70.5, 1e-9), "{}", s.cwnd);
}

/// RFC 9438 Figure 5 and section 4.7: a loss at 100 then at 90 < W_max = 100: fast
/// convergence gives W_max = 90 x (1 + 0.7)/2 = 76.5, ssthresh = 0.7 x 90 = 63; without it
/// W_max = 90. cwnd_prior = 90 (the window before the reduction).
#[test]
fn loss_rule_and_fast_convergence() {
    let mut c = cubic();
    loss(&mut c, 100.0);
    let s = loss(&mut c, 90.0);
    assert!(close(s.ssthresh, 63.0, 1e-9));
    assert!(close(c.w_max(), 76.5, 1e-9));
    assert_eq!(c.cwnd_prior(), 90.0);

    let mut c = cubic::Params { fast_convergence: false, ..Default::default() }.build();
    loss(&mut c, 100.0);
    loss(&mut c, 90.0);
    assert_eq!(c.w_max(), 90.0);
}

/// ssthresh = max(beta FlightSize, 2) (RFC 9438 Figure 5): cwnd 100 with 80 in flight:
/// 0.7 x 80 = 56; `ssthresh_from = "cwnd"` (Linux, ns-3): 0.7 x 100 = 70. Small windows:
/// FlightSize 2: max(1.4, 2) = 2.
#[test]
fn ssthresh_from_flight_or_cwnd() {
    let ev = CongestionEvent::FastRetransmit;
    let mut c = cubic();
    assert!(close(c.ssthresh(&st(100.0, 1e9), 80.0, ev, SimTime::ZERO), 56.0, 1e-9));
    assert_eq!(c.ssthresh(&st(3.0, 1e9), 2.0, ev, SimTime::ZERO), 2.0);
    let mut c = cubic::Params { ssthresh_from: SsthreshFrom::Cwnd, ..Default::default() }.build();
    assert!(close(c.ssthresh(&st(100.0, 1e9), 80.0, ev, SimTime::ZERO), 70.0, 1e-9));
}

/// A timeout during fast recovery (loss at cwnd = FlightSize = 100: ssthresh 70, W_max
/// 100; NewReno's inflated cwnd 130 and FlightSize 110 at the timeout) is not a new
/// congestion event for W_max: ssthresh = 0.7 x 110 = 77 (RFC 5681 3.1 with beta), W_max
/// and cwnd_prior stay 100. With `ssthresh_from = "cwnd"` (Linux) ssthresh stays 70.
#[test]
fn timeout_during_recovery() {
    for (from, want) in [(SsthreshFrom::Flight, 77.0), (SsthreshFrom::Cwnd, 70.0)] {
        let mut c = cubic::Params { ssthresh_from: from, ..Default::default() }.build();
        let s = loss(&mut c, 100.0);
        assert!(close(s.ssthresh, 70.0, 1e-9));
        let ss = c.ssthresh(&st(130.0, s.ssthresh), 110.0, CongestionEvent::Timeout, SimTime::ZERO);
        assert!(close(ss, want, 1e-9), "{from:?}: {ss}");
        assert_eq!(c.w_max(), 100.0);
        assert_eq!(c.cwnd_prior(), 100.0);
    }
}

/// Reno-friendly region at a small window: a loss at 10 (cwnd_prior 10, W_max 10), epoch at
/// cwnd 7, K = cbrt(3/0.4) = 1.9574 s; one ACK per RTT of the whole window (acked = cwnd)
/// every 1 ms adds alpha_cubic = 9/17 to W_est while W_cubic stays near 7 (W_cubic(6 ms) =
/// 0.4 (0.006 - 1.9574)^3 + 10 = 7.0275): cwnd = W_est = 7 + n 9/17; after 6 ACKs 7 + 54/17
/// = 10.17647 >= cwnd_prior = 10, so alpha_cubic becomes 1: the 7th ACK gives 11.17647.
/// With `reno_friendly = false` cwnd follows the cubic alone (acked = cwnd moves it to the
/// target W_cubic(t + RTT), RTT unknown: 0): W_cubic(5 ms) = 0.4 (0.005 - 1.9574)^3 + 10 =
/// 7.0229 after the 6th ACK, W_cubic(6 ms) = 7.0275 after the 7th.
#[test]
fn reno_friendly_region() {
    for (friendly, want6, want7) in [(true, 7.0 + 54.0 / 17.0, 11.0 + 3.0 / 17.0), (false, 7.0229, 7.0275)] {
        let mut c = cubic::Params { reno_friendly: friendly, ..Default::default() }.build();
        let mut s = loss(&mut c, 10.0);
        assert!(close(s.cwnd, 7.0, 1e-9));
        let t0 = SimTime::from_secs(10);
        for k in 0..7 {
            if k == 6 {
                assert!(close(s.cwnd, want6, 1e-4), "{friendly}: {}", s.cwnd);
            }
            let acked = s.cwnd;
            c.on_ack(&mut s, acked, None, t0 + ms(k));
        }
        assert!(close(s.cwnd, want7, 1e-4), "{friendly}: {}", s.cwnd);
    }
}

/// Slow start below ssthresh is RFC 5681's: +1 per ACK of one segment (cwnd 10,
/// ssthresh 20: 11), whatever the cubic state.
#[test]
fn slow_start() {
    let mut c = cubic();
    let mut s = st(10.0, 20.0);
    c.on_ack(&mut s, 1.0, Some(ms(100)), SimTime::ZERO);
    assert_eq!(s.cwnd, 11.0);
}

/// A scripted flow: three duplicate ACKs with 10 segments in flight: ssthresh = 0.7 x 10 =
/// 7, cwnd = 7 + 3 = 10 (NewReno: 5 and 8).
#[test]
fn scripted_fast_retransmit() {
    let (mut s, _) = {
        let mut s = Script::with_cc(defaults(), CcConfig::Cubic(Default::default()).build(), 1000 * MSS);
        s.open();
        s.advance(ms(100));
        let first = s.syn_ack(false);
        (s, first)
    };
    s.advance(ms(100));
    s.dupacks(3);
    assert!(close(s.ssthresh(), 7.0, 1e-9));
    assert!(close(s.cwnd(), 10.0, 1e-9));
}

/// RFC 9438 section 4.8 in a scripted flow: the timeout at 400 ms (10 in flight) sets
/// ssthresh = 7 and cwnd = 1; the ACKs of segments 0..5 (retransmissions: no RTT sample)
/// slow-start to 7; the ACK of segment 6 starts the congestion-avoidance epoch with K = 0,
/// W_max = W_est = 7: W_est = 7 + (9/17)/7 = 7.075630 > W_cubic(0) = 7, cwnd = 7.075630. One
/// second later the ACK of segment 7: W_est = 7.075630 + (9/17)/7.075630 = 7.150452 <
/// W_cubic(1) = 0.4 x 1^3 + 7 = 7.4; target W_cubic(1 + 0) = 7.4 (no RTT sample yet):
/// cwnd = 7.075630 + (7.4 - 7.075630)/7.075630 = 7.121473. (Without the section 4.8 rule,
/// K = cbrt((10 - 7)/0.4) = 1.9574 and W_cubic(1) = 9.649 would give 7.439316.)
#[test]
fn scripted_timeout_restarts_the_curve() {
    let mut s = Script::with_cc(defaults(), CcConfig::Cubic(Default::default()).build(), 1000 * MSS);
    s.open();
    s.advance(ms(100));
    s.syn_ack(false);
    s.expire_timer();
    assert_eq!(s.now, ms(400));
    assert!(close(s.ssthresh(), 7.0, 1e-9));
    assert_eq!(s.cwnd(), 1.0);
    s.advance(ms(100));
    for k in 1..=6 {
        s.ack_segs(k);
    }
    assert!(close(s.cwnd(), 7.0, 1e-9), "{}", s.cwnd());
    s.ack_segs(7);
    assert!(close(s.cwnd(), 7.075630, 1e-6), "{}", s.cwnd());
    s.advance(SimTime::from_secs(1));
    s.ack_segs(8);
    assert!(close(s.cwnd(), 7.121473, 1e-6), "{}", s.cwnd());
}

/// `cc = "cubic"` and a table; bad values named by their path.
#[test]
fn cubic_in_scenarios() {
    let parse = |t: &str| sim::Scenario::from_toml_str(&scenario(t)).and_then(|sc| sc.build(Some(1)).map(|_| ()));
    parse("cc = \"cubic\"").unwrap();
    parse("cc = { kind = \"cubic\", beta = 0.8, ssthresh_from = \"cwnd\" }").unwrap();
    let e = parse("cc = { kind = \"cubic\", c = -1 }").unwrap_err();
    assert!(e.contains("tcp.cc.c:"), "{e}");
    let e = parse("cc = { kind = \"cubic\", beta = 1.0 }").unwrap_err();
    assert!(e.contains("tcp.cc.beta"), "{e}");
    let e = parse("cc = { kind = \"cubic\", ssthresh_from = \"pipe\" }").unwrap_err();
    assert!(e.contains("tcp.cc") && e.contains("flight") && e.contains("cwnd"), "{e}");
}
