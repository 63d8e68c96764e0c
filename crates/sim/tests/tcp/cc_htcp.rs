//! H-TCP (cc/htcp.rs) against the hand-computed values of ALGORITHMS.md section 5: the
//! f_alpha / alpha table, the RTT scaling, beta from the RTT range and the bandwidth switch,
//! Delta measured from the end of the congestion response, and the named options.

use crate::common::*;
use sim::tcp::cc::htcp::{self, Arithmetic, Htcp, RttScaling};
use sim::tcp::cc::{CcConfig, CcState, CongestionControl, CongestionEvent};

fn st(cwnd: f64, ssthresh: f64) -> CcState {
    CcState { cwnd, ssthresh, max_cwnd: f64::INFINITY, abc_limit: 1.0 }
}

const FR: CongestionEvent = CongestionEvent::FastRetransmit;

/// A congestion event at `t` with recovery ending at `t` too (Delta restarts at `t`).
fn event(h: &mut Htcp, s: &mut CcState, t: SimTime) -> f64 {
    let ss = h.ssthresh(s, s.cwnd, FR, t);
    h.on_recovery_exit(s, t);
    ss
}

/// alpha at Delta = `delta_ms` after the end of the last congestion event, cwnd 1000 in
/// congestion avoidance, minRTT `rtt_ms`. With `beta08`, RTT samples of 100, 120 and 125 ms
/// (maxRTT 125: each at most 20 ms above the last) and two events first: the first always
/// uses beta 0.5 and sets modeswitch, then maxRTT fades to 100 + 0.95 x 25 = 123.75 ms
/// (Linux: 100 + 25 x 95/100 = 123), so the second has beta = 100/123.75 = 0.808 -> 0.8
/// (Linux: (100 << 7)/123 = 104 -> 102, i.e. 0.797). No throughput is measured (too few
/// ACKs), so the bandwidth switch stays quiet (maxB = old_maxB = 0).
fn alpha_at(p: htcp::Params, rtt_ms: u64, beta08: bool, delta_ms: u64) -> (f64, f64) {
    let mut h = p.build();
    let mut s = st(1000.0, 1000.0);
    h.on_rtt_sample(&mut s, ms(rtt_ms), SimTime::ZERO);
    let mut base = SimTime::ZERO;
    if beta08 {
        h.on_rtt_sample(&mut s, ms(120), SimTime::ZERO);
        h.on_rtt_sample(&mut s, ms(125), SimTime::ZERO);
        event(&mut h, &mut s, SimTime::from_secs(1));
        assert_eq!(h.beta(), 0.5);
        base = SimTime::from_secs(2);
        event(&mut h, &mut s, base);
    }
    h.on_ack(&mut s, 1.0, None, base + ms(delta_ms));
    (h.alpha(), h.beta())
}

const DELTAS: [u64; 6] = [500, 1000, 1500, 2000, 5000, 10_000];

/// ALGORITHMS.md section 5 table, real-valued default (minRTT 100 ms, so the RTT scaling's
/// K = 1): f_alpha = 1 + 10 (Delta - 1) + 0.25 (Delta - 1)^2 above Delta_L = 1 s:
/// 1.5 s: 1 + 5 + 0.0625 = 6.0625; 2 s: 1 + 10 + 0.25 = 11.25; 5 s: 1 + 40 + 4 = 45;
/// 10 s: 1 + 90 + 20.25 = 111.25; 1 at 0.5 and 1 s. alpha = 2 (1 - beta) f_alpha:
/// beta 0.5: f_alpha itself; beta 0.8: 0.4 f_alpha = 0.4, 0.4, 2.425, 4.5, 18, 44.5.
#[test]
fn alpha_table_real() {
    let f = [1.0, 1.0, 6.0625, 11.25, 45.0, 111.25];
    for (d, f) in DELTAS.iter().zip(f) {
        let (a, b) = alpha_at(Default::default(), 100, false, *d);
        assert_eq!(b, 0.5);
        assert!((a - f).abs() < 1e-9, "Delta {d} ms: {a} vs {f}");
        let (a, b) = alpha_at(Default::default(), 100, true, *d);
        assert_eq!(b, 0.8);
        assert!((a - 0.4 * f).abs() < 1e-9, "Delta {d} ms, beta 0.8: {a} vs {}", 0.4 * f);
    }
}

/// The drafts' quadratic coefficient 0.5 (`quad_coeff = 0.5`): 1.5 s: 1 + 5 + 0.125 =
/// 6.125; 2 s: 11.5; 5 s: 1 + 40 + 8 = 49; 10 s: 1 + 90 + 40.5 = 131.5.
#[test]
fn alpha_table_draft_coefficient() {
    let f = [1.0, 1.0, 6.125, 11.5, 49.0, 131.5];
    let p = htcp::Params { quad_coeff: 0.5, ..Default::default() };
    for (d, f) in DELTAS.iter().zip(f) {
        let (a, _) = alpha_at(p.clone(), 100, false, *d);
        assert!((a - f).abs() < 1e-9, "Delta {d} ms: {a} vs {f}");
    }
}

/// `arithmetic = "linux"` (HZ 1000, d = Delta - 1 s in ms): factor = 1 + (10 d + (d/2)^2/HZ)/HZ:
/// 1.5 s: 1 + (5000 + 62)/1000 = 6; 2 s: 1 + (10000 + 250)/1000 = 11; 5 s: 1 + (40000 +
/// 4000)/1000 = 45; 10 s: 1 + (90000 + 20250)/1000 = 111. alpha = 2 factor (128 - beta)/128:
/// beta 64: the factor; beta 102: 52 factor/128 = 0.40625, 0.40625, 2.4375, 4.46875,
/// 18.28125, 45.09375 (the sheet's 0.406, 4.469, 18.28).
#[test]
fn alpha_table_linux_fixed_point() {
    let p = htcp::Params { arithmetic: Arithmetic::Linux, ..Default::default() };
    let f = [1.0, 1.0, 6.0, 11.0, 45.0, 111.0];
    for (d, f) in DELTAS.iter().zip(f) {
        let (a, _) = alpha_at(p.clone(), 100, false, *d);
        assert_eq!(a, f, "Delta {d} ms");
        let (a, b) = alpha_at(p.clone(), 100, true, *d);
        assert_eq!(b, 102.0 / 128.0);
        assert_eq!(a, 52.0 * f / 128.0, "Delta {d} ms, beta 102");
    }
}

/// RTT scaling, beta 0.5, Delta = 5 s (f_alpha 45), K = minRTT/100 ms in [0.1, 2]:
/// - Linux fixed point: 10 ms: scale = 8000/(10 x 10) = 80, 45 x 8/80 = 4.5 -> 4; 100 ms:
///   scale 8, 45; 200 ms: scale 4, 90. Delta = 2 s, 10 ms: 11 x 8/80 = 1.1 -> 1.
/// - real (default): 45 x 0.1 = 4.5; 45; 90; Delta 2 s: 11.25 x 0.1 = 1.125.
#[test]
fn rtt_scaling_linux() {
    let lin = htcp::Params { arithmetic: Arithmetic::Linux, ..Default::default() };
    for (rtt, d, want_lin, want_real) in
        [(10, 5000, 4.0, 4.5), (100, 5000, 45.0, 45.0), (200, 5000, 90.0, 90.0), (10, 2000, 1.0, 1.125)]
    {
        let (a, _) = alpha_at(lin.clone(), rtt, false, d);
        assert_eq!(a, want_lin, "linux, {rtt} ms, {d} ms");
        let (a, _) = alpha_at(Default::default(), rtt, false, d);
        assert!((a - want_real).abs() < 1e-9, "real, {rtt} ms, {d} ms: {a}");
    }
}

/// Where the RTT-scaling modes differ: minRTT 200 ms (K = 2) at Delta = 0.5 s (f_alpha =
/// 1): Linux scales anyway, max(1, 1 x 2) = 2; the draft does not scale at Delta <=
/// Delta_L: 1; off: 1. At Delta = 5 s: Linux and draft 45 x 2 = 90, off 45.
#[test]
fn rtt_scaling_modes() {
    for (mode, low, high) in
        [(RttScaling::Linux, 2.0, 90.0), (RttScaling::Draft, 1.0, 90.0), (RttScaling::Off, 1.0, 45.0)]
    {
        let p = htcp::Params { rtt_scaling: mode, ..Default::default() };
        let (a, _) = alpha_at(p.clone(), 200, false, 500);
        assert!((a - low).abs() < 1e-9, "{mode:?}: {a}");
        let (a, _) = alpha_at(p, 200, false, 5000);
        assert!((a - high).abs() < 1e-9, "{mode:?}: {a}");
    }
}

/// ssthresh = max(cwnd beta, 2): the first event at cwnd 1000 uses beta 0.5: 500; with
/// beta 0.8 (the RTT range of `alpha_at`) 800; Linux fixed point (1000 x 102) >> 7 =
/// 796.875 -> 796. A small window: max(3 x 0.5, 2) = 2.
#[test]
fn ssthresh_from_beta() {
    let mut h = htcp::Params::default().build();
    let mut s = st(1000.0, 1000.0);
    h.on_rtt_sample(&mut s, ms(100), SimTime::ZERO);
    h.on_rtt_sample(&mut s, ms(120), SimTime::ZERO);
    h.on_rtt_sample(&mut s, ms(125), SimTime::ZERO);
    assert_eq!(event(&mut h, &mut s, SimTime::from_secs(1)), 500.0);
    assert_eq!(event(&mut h, &mut s, SimTime::from_secs(2)), 800.0);
    assert_eq!(h.max_rtt(), SimTime(122_562_500)); // 100 + 0.95 x 23.75 = 122.5625 ms

    let mut h = htcp::Params { arithmetic: Arithmetic::Linux, ..Default::default() }.build();
    let mut s = st(1000.0, 1000.0);
    h.on_rtt_sample(&mut s, ms(100), SimTime::ZERO);
    h.on_rtt_sample(&mut s, ms(120), SimTime::ZERO);
    h.on_rtt_sample(&mut s, ms(125), SimTime::ZERO);
    event(&mut h, &mut s, SimTime::from_secs(1));
    assert_eq!(event(&mut h, &mut s, SimTime::from_secs(2)), 796.0);

    let mut h = htcp::Params::default().build();
    let mut s = st(3.0, 3.0);
    assert_eq!(event(&mut h, &mut s, SimTime::ZERO), 2.0);
}

/// The bandwidth switch: after the first event (t = 0, beta 0.5, modeswitch set; RTTs 100
/// to 125 ms), ten ACKs of one segment at t = 100 ms in congestion avoidance at cwnd 10
/// (alpha = 1: Delta 0.1 s) measure the throughput at the 9th (9 >= cwnd - alpha = 10 - 1
/// segments and 100 ms >= minRTT have passed): 9/0.1 s = 90 packets/s, within 3 minRTT of
/// the event: B = maxB = 90. At the second event maxB = 90 against old_maxB = 0: 5 x 90 is
/// outside [0, 0], a change of more than 20 %: beta = 0.5 and modeswitch cleared. With
/// `bandwidth_switch = false` the second event uses the RTT range: beta = 100/123.75 -> 0.8.
/// With `adaptive_backoff = false` beta is 0.5 always.
#[test]
fn bandwidth_switch_and_adaptive_backoff() {
    for (switch, adaptive, beta) in [(true, true, 0.5), (false, true, 0.8), (false, false, 0.5)] {
        let p = htcp::Params { bandwidth_switch: switch, adaptive_backoff: adaptive, ..Default::default() };
        let mut h = p.build();
        let mut s = st(10.0, 10.0);
        h.on_rtt_sample(&mut s, ms(100), SimTime::ZERO);
        h.on_rtt_sample(&mut s, ms(120), SimTime::ZERO);
        h.on_rtt_sample(&mut s, ms(125), SimTime::ZERO);
        event(&mut h, &mut s, SimTime::ZERO);
        for _ in 0..10 {
            h.on_ack(&mut s, 1.0, None, ms(100));
        }
        if switch {
            assert!((h.max_b() - 90.0).abs() < 1e-9, "{}", h.max_b());
        }
        event(&mut h, &mut s, SimTime::from_secs(1));
        assert_eq!(h.beta(), beta, "switch {switch}, adaptive {adaptive}");
    }
}

/// Delta starts at the END of the congestion response. Fast recovery: signal at t = 0,
/// recovery exit at 0.5 s, ACK at 2.5 s: Delta = 2 s, alpha = 11.25 (from the signal it
/// would be 2.5 s: 1 + 15 + 0.5625 = 16.5625). ECN: the echo at t = 0 with 10 segments in
/// flight; the response ends with the ACK that completes those 10 (at 0.2 s), so ACKs at
/// 2.2 s have Delta = 2 s: 11.25 (from the echo, 2.2 s: 1 + 12 + 0.36 = 13.36).
#[test]
fn delta_from_end_of_recovery() {
    let mut h = htcp::Params::default().build();
    let mut s = st(10.0, 10.0);
    h.on_rtt_sample(&mut s, ms(100), SimTime::ZERO);
    h.ssthresh(&s, 10.0, FR, SimTime::ZERO);
    h.on_recovery_exit(&mut s, ms(500));
    h.on_ack(&mut s, 1.0, None, ms(2500));
    assert!((h.alpha() - 11.25).abs() < 1e-9, "{}", h.alpha());

    let mut h = htcp::Params::default().build();
    let mut s = st(10.0, 10.0);
    h.on_rtt_sample(&mut s, ms(100), SimTime::ZERO);
    let ss = h.ssthresh(&s, 10.0, CongestionEvent::Ecn, SimTime::ZERO);
    let mut s = st(ss, ss);
    for _ in 0..10 {
        h.on_ack(&mut s, 1.0, None, ms(200));
    }
    // alpha is recomputed when the integer window next changes (Linux: at the next +1):
    // cwnd is 6.8 after the 10 ACKs above, so a few ACKs at 2.2 s cross 7
    for _ in 0..3 {
        h.on_ack(&mut s, 1.0, None, ms(2200));
    }
    assert!((h.alpha() - 11.25).abs() < 1e-9, "{}", h.alpha());
}

/// Growth at 1000 packets: Delta = 5 s, beta 0.5, alpha = 45; 1000 ACKs of one segment at
/// cwnd 1000 add 45/cwnd each: c^2 grows by 2 x 45 + (45/c)^2 = 90.0019 per ACK, so
/// cwnd = sqrt(1000^2 + 1000 x 90.0019) = 1044.032 (about alpha per RTT).
#[test]
fn growth_at_1000_packets() {
    let mut h = htcp::Params::default().build();
    let mut s = st(1000.0, 1000.0);
    h.on_rtt_sample(&mut s, ms(100), SimTime::ZERO);
    for _ in 0..1000 {
        h.on_ack(&mut s, 1.0, None, SimTime::from_secs(5));
    }
    assert!((s.cwnd - 1044.032).abs() < 1e-3, "{}", s.cwnd);
}

/// A small window in the low-speed regime (Delta < 1 s, beta 0.5: alpha = 1): Reno, cwnd
/// 10 and ten ACKs: c <- c + 1/c ten times = 10.95865.
#[test]
fn small_window_is_reno() {
    let mut h = htcp::Params::default().build();
    let mut s = st(10.0, 10.0);
    h.on_rtt_sample(&mut s, ms(100), SimTime::ZERO);
    for _ in 0..10 {
        h.on_ack(&mut s, 1.0, None, ms(200));
    }
    assert!((s.cwnd - 10.95865).abs() < 1e-5, "{}", s.cwnd);
}

fn htcp_flow() -> Script {
    let mut s = Script::with_cc(defaults(), CcConfig::Htcp(Default::default()).build(), 1000 * MSS);
    s.open();
    s.advance(ms(100));
    s.syn_ack(false);
    s
}

/// A scripted flow (minRTT 100 ms from the SYN-ACK, so K = 1): 9 duplicate ACKs at 200 ms
/// (the 3rd: ssthresh = 10 x 0.5 = 5, the first event's beta; the 4th..9th inflate cwnd to
/// 14 and send segments 10..13), the full ACK at 300 ms ends recovery with cwnd = min(5,
/// 4 + 1) = 5. The ACK of segment 10 at 2.3 s: Delta = 2 s from the recovery's end, alpha =
/// 11.25: cwnd = 5 + 11.25/5 = 7.25 (from the loss signal at 200 ms Delta would be 2.1 s,
/// f_alpha = 1 + 11 + 0.25 x 1.21 = 12.3025: 7.4605).
#[test]
fn scripted_recovery() {
    let mut s = htcp_flow();
    s.advance(ms(100));
    s.dupacks(3);
    assert_eq!(s.ssthresh(), 5.0);
    assert_eq!(s.cwnd(), 8.0);
    s.dupacks(6);
    s.advance(ms(100));
    s.ack_segs(10);
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 5.0);
    s.advance(SimTime::from_secs(2));
    s.ack_segs(11);
    assert!((s.cwnd() - 7.25).abs() < 1e-9, "{}", s.cwnd());
}

/// A scripted timeout at 400 ms (cwnd 10, 10 in flight): ssthresh = 10 x 0.5 = 5, cwnd 1.
/// At 500 ms the ACKs of segments 0..9 (one each): 0..3 slow-start to 5, 4..9 are
/// congestion avoidance with alpha 1 (Delta < 1 s): 5 + 1/5 + ... six times = 6.09935; the
/// 10th acknowledges all the FlightSize of the timeout: the Loss response ends, Delta
/// restarts at 500 ms. The ACK of segment 10 at 2.5 s: Delta = 2 s, alpha = 11.25, cwnd =
/// 6.09935 + 11.25/6.09935 = 7.94381 (from the timeout, Delta = 2.1 s: 8.11637).
#[test]
fn scripted_timeout() {
    let mut s = htcp_flow();
    s.expire_timer();
    assert_eq!(s.now, ms(400));
    assert_eq!(s.ssthresh(), 5.0);
    assert_eq!(s.cwnd(), 1.0);
    s.advance(ms(100));
    for k in 1..=10 {
        s.ack_segs(k);
    }
    assert!((s.cwnd() - 6.09935).abs() < 1e-5, "{}", s.cwnd());
    s.advance(SimTime::from_secs(2));
    s.ack_segs(11);
    assert!((s.cwnd() - 7.94381).abs() < 1e-5, "{}", s.cwnd());
}

/// A timeout during fast recovery keeps the recovery's ssthresh: 9 dupacks (ssthresh 5,
/// cwnd inflated to 14), then the timeout: ssthresh stays 5 (a second event would have
/// beta = 100/100 ms -> 0.8 and give 14 x 0.8 = 11.2), cwnd 1.
#[test]
fn scripted_timeout_in_recovery_keeps_ssthresh() {
    let mut s = htcp_flow();
    s.advance(ms(100));
    s.dupacks(9);
    assert_eq!(s.cwnd(), 14.0);
    s.expire_timer();
    assert_eq!(s.ssthresh(), 5.0);
    assert_eq!(s.cwnd(), 1.0);
}

/// `cc = "htcp"` and a table; bad values named by their path.
#[test]
fn htcp_in_scenarios() {
    let parse = |t: &str| sim::Scenario::from_toml_str(&scenario(t)).and_then(|sc| sc.build(Some(1)).map(|_| ()));
    parse("cc = \"htcp\"").unwrap();
    parse("cc = { kind = \"htcp\", quad_coeff = 0.5, rtt_scaling = \"draft\", arithmetic = \"linux\" }").unwrap();
    let e = parse("cc = { kind = \"htcp\", delta_l = 0.5 }").unwrap_err();
    assert!(e.contains("tcp.cc.delta_l"), "{e}");
    let e = parse("cc = { kind = \"htcp\", quad_coeff = -0.25 }").unwrap_err();
    assert!(e.contains("tcp.cc.quad_coeff"), "{e}");
    let e = parse("cc = { kind = \"htcp\", rtt_scaling = \"sometimes\" }").unwrap_err();
    assert!(e.contains("tcp.cc") && e.contains("linux") && e.contains("draft") && e.contains("off"), "{e}");
}
