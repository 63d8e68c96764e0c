//! LTCP (draft-bhandarkar-ltcp-01; cc/ltcp.rs): the layer windows W_K, the layer count and
//! the per-RTT increase at the sheet's windows, the loss response dropping at most one layer,
//! the time to claim bandwidth, slow-start exit, RTO and recovery-exit resets, and the
//! controller in a scripted flow. Values: ALGORITHMS.md section 8 "Test values" (W_T = 50).

use crate::cc_highspeed::flow_at;
use crate::common::*;
use sim::tcp::cc::ltcp::{Ltcp, Params};
use sim::tcp::cc::{CcConfig, CcState, CongestionControl, CongestionEvent};

const T0: SimTime = SimTime::ZERO;

fn ltcp() -> Ltcp {
    Params::default().build()
}

fn ca(w: f64) -> CcState {
    CcState { cwnd: w, ssthresh: 2.0, max_cwnd: f64::INFINITY, abc_limit: 1.0 }
}

/// One RTT as one ACK covering the whole window: K/cwnd per segment x cwnd segments = +K.
fn rtt(cc: &mut dyn CongestionControl, s: &mut CcState) -> f64 {
    let before = s.cwnd;
    let w = s.cwnd;
    cc.on_ack(s, w, None, T0);
    s.cwnd - before
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

/// W_K = K (K+1) (K-1) / 6 x 50 for K = 1..20 (draft Table 1): e.g. K = 5: 5 x 6 x 4 / 6
/// x 50 = 1000; K = 20: 20 x 21 x 19 / 6 x 50 = 1330 x 50 = 66500.
#[test]
fn ltcp_layer_windows() {
    let l = ltcp();
    let want = [
        0.0, 50.0, 200.0, 500.0, 1000.0, 1750.0, 2800.0, 4200.0, 6000.0, 8250.0, 11000.0, 14300.0, 18200.0, 22750.0,
        28000.0, 34000.0, 40800.0, 48450.0, 57000.0, 66500.0,
    ];
    for (k, w) in (1..=20).zip(want) {
        assert_eq!(l.layer_window(k), w, "K = {k}");
    }
}

/// K(W) and the CA increase per RTT (= K): 40 -> 1; 50 -> 2; 199 -> 2; 200 -> 3; 300 -> 3;
/// 1000 -> 5; 10000 -> 10 (8250 <= 10000 < 11000); 30000 -> 15 (28000 <= 30000 < 34000).
#[test]
fn ltcp_layers_and_increase_per_rtt() {
    for (w, k) in [(40.0, 1), (50.0, 2), (199.0, 2), (200.0, 3), (300.0, 3), (1000.0, 5), (10000.0, 10), (30000.0, 15)]
    {
        let mut l = ltcp();
        assert_eq!(l.layers_for(w), k, "W = {w}");
        let mut s = ca(w);
        let inc = rtt(&mut l, &mut s);
        assert!(close(inc, k as f64, 1e-9), "W = {w}: +{inc}");
        assert_eq!(l.layers(), k);
    }
}

/// One RTT at 1000 as 1000 ACKs of one segment: K = 5, c^2 = 1e6 + 2 x 5 x 1000 (+ 1000 x
/// 25/1e6 = 0.025) -> sqrt(1010000.025) = 1004.9876; at 10000 (K = 10), 10000 ACKs:
/// sqrt(1e8 + 200000) = 10009.9950.
#[test]
fn ltcp_one_rtt_of_single_acks() {
    for (w, want) in [(1000.0, 1004.9876), (10000.0, 10009.9950)] {
        let mut l = ltcp();
        let mut s = ca(w);
        for _ in 0..w as usize {
            l.on_ack(&mut s, 1.0, None, T0);
        }
        assert!(close(s.cwnd, want, 1e-4), "{w}: {}", s.cwnd);
    }
}

/// Loss: cwnd <- 0.85 cwnd, at most one layer dropped (K -= 1 when the new window is below
/// W_K), then +K' per RTT:
/// - 10000 (K 10) -> 8500 >= W_10 = 8250: K stays 10;
/// - 1000 (K 5) -> 850 < W_5 = 1000: K = 4;
/// - 30000 (K 15) -> 25500 < W_15 = 28000: K = 14;
/// - 66500 (K 20) -> 56525 < W_20: K = 19, though 56525 < W_19 = 57000 too (beta = 0.15 is
///   not below 3/(K+1) = 0.143 at K = 20: the draft's one-layer rule, kept as written).
#[test]
fn ltcp_loss_drops_at_most_one_layer() {
    for (w, ss, k) in [(10000.0, 8500.0, 10), (1000.0, 850.0, 4), (30000.0, 25500.0, 14), (66500.0, 56525.0, 19)] {
        let mut l = ltcp();
        let mut s = ca(w);
        rtt(&mut l, &mut s); // layers built up by congestion avoidance at w
        s.cwnd = w;
        let got = l.ssthresh(&s, w, CongestionEvent::FastRetransmit, T0);
        assert!(close(got, ss, 1e-9), "{w}: {got}");
        assert_eq!(l.layers(), k, "{w}");
        s.cwnd = got;
        s.ssthresh = got;
        assert!(close(rtt(&mut l, &mut s), k as f64, 1e-9));
    }
}

/// Time to claim bandwidth from W_T (draft section 4.2): ((K-2)(K+3)/4) W_T RTTs, K = 3:
/// 1 x 6/4 x 50 = 75 RTTs (from 50 to 200 at +2 per RTT); K = 4: 2 x 7/4 x 50 = 175
/// (75 + 300/3 from 200 to 500); TCP at +1 per RTT needs 150 and 450, the speed-ups 2.00 and
/// 2.57 of draft Table 1. With one whole-window ACK per RTT the count is exact; with
/// one ACK per segment each RTT gives a little under K (the increments K/c shrink as c grows
/// and floor(c) ACKs make an RTT), at most a few segments over the climb: 75..=78 and 175..=178.
#[test]
fn ltcp_time_to_claim() {
    let claim = |target: f64, per_segment: bool| {
        let mut l = ltcp();
        let mut s = ca(50.0);
        let mut n = 0;
        while s.cwnd < target - 1e-6 {
            if per_segment {
                for _ in 0..s.cwnd as usize {
                    l.on_ack(&mut s, 1.0, None, T0);
                }
            } else {
                rtt(&mut l, &mut s);
            }
            n += 1;
        }
        n
    };
    assert_eq!(claim(200.0, false), 75);
    assert_eq!(claim(500.0, false), 175);
    assert!((75..=78).contains(&claim(200.0, true)));
    assert!((175..=178).contains(&claim(500.0, true)));
}

/// Slow start keeps K = 1 (+1 per ACK); the first congestion-avoidance ACK derives K from
/// cwnd: slow start to 1000 = ssthresh, then one RTT adds K(1000) = 5.
#[test]
fn ltcp_slow_start_exit_derives_layers() {
    let mut l = ltcp();
    let mut s = CcState { cwnd: 10.0, ssthresh: 1000.0, max_cwnd: f64::INFINITY, abc_limit: 1.0 };
    while s.cwnd < s.ssthresh {
        l.on_ack(&mut s, 1.0, None, T0);
    }
    assert_eq!(s.cwnd, 1000.0);
    assert_eq!(l.layers(), 1);
    assert!(close(rtt(&mut l, &mut s), 5.0, 1e-9));
    assert_eq!(l.layers(), 5);
}

/// Recovery exit far below the layer's window (NewReno's cwnd = min(ssthresh,
/// FlightSize + 1) with little in flight): K recomputed from cwnd. Loss at 1000 -> 850, K 4; an exit at
/// 850 keeps K = 4; an exit at cwnd 100 gives K(100) = 2, then slow start (+1 per ACK) back
/// to ssthresh 850, and the first RTT there adds K(850) = 4 again.
#[test]
fn ltcp_recovery_exit_recomputes_layers() {
    let mut l = ltcp();
    let mut s = ca(1000.0);
    rtt(&mut l, &mut s);
    s.cwnd = 1000.0;
    l.ssthresh(&s, 1000.0, CongestionEvent::FastRetransmit, T0);
    s = CcState { cwnd: 850.0, ssthresh: 850.0, max_cwnd: f64::INFINITY, abc_limit: 1.0 };
    l.on_recovery_exit(&mut s, T0);
    assert_eq!(l.layers(), 4);
    s.cwnd = 100.0;
    l.on_recovery_exit(&mut s, T0);
    assert_eq!(l.layers(), 2);
    for _ in 0..750 {
        l.on_ack(&mut s, 1.0, None, T0);
    }
    assert_eq!((s.cwnd, l.layers()), (850.0, 2));
    assert!(close(rtt(&mut l, &mut s), 4.0, 1e-9));
}

/// W_T is a parameter: W_T = 100 doubles every W_K (W_2 = 100, W_3 = 400): at 300, K = 2.
#[test]
fn ltcp_w_t_option() {
    let mut l = Params { w_t: 100.0, ..Params::default() }.build();
    assert_eq!((l.layer_window(2), l.layer_window(3)), (100.0, 400.0));
    let mut s = ca(300.0);
    assert!(close(rtt(&mut l, &mut s), 2.0, 1e-9));
    // beta = 0.5: a loss at 1000 leaves 500 (= W_4: K 5 -> 4)
    let mut l = Params { beta: 0.5, ..Params::default() }.build();
    let mut s = ca(1000.0);
    rtt(&mut l, &mut s);
    s.cwnd = 1000.0;
    assert_eq!(l.ssthresh(&s, 1000.0, CongestionEvent::FastRetransmit, T0), 500.0);
    assert_eq!(l.layers(), 4);
}

/// Scripted flow: 3 duplicate ACKs at cwnd 1000 give ssthresh 0.85 x 1000 = 850 (cwnd 853).
#[test]
fn ltcp_fast_retransmit_in_a_flow() {
    let mut s = flow_at(CcConfig::Ltcp(Params::default()), 1000.0);
    s.dupacks(3);
    assert!(s.in_recovery());
    assert!(close(s.ssthresh(), 850.0, 1e-9), "{}", s.ssthresh());
    assert!(close(s.cwnd(), 853.0, 1e-9));
}

/// Scripted flow: an RTO at 10000 (K = 10 after a CA ACK there) sets ssthresh 8500 and cwnd 1,
/// and K back to 1: after slow start ends at 100 (cwnd = ssthresh = 100, set here), the next
/// ACK of one segment adds K(100)/100 = 2/100, not the stale K = 10's 10/100.
#[test]
fn ltcp_rto_resets_layers() {
    let mut s = flow_at(CcConfig::Ltcp(Params::default()), 10000.0);
    s.advance(ms(1));
    s.ack_segs(2); // congestion avoidance at 10000: K = 10
    let c = s.cwnd();
    assert!(close(c, 10000.0 + 10.0 / 10000.0, 1e-9), "{c}");
    s.set_cwnd(10000.0, 10000.0);
    let sent = s.expire_timer();
    assert_eq!(segs(&s, &sent), vec![2]);
    assert!(close(s.ssthresh(), 8500.0, 1e-9));
    assert_eq!(s.cwnd(), 1.0);
    s.set_cwnd(100.0, 100.0);
    s.advance(ms(1));
    s.ack_segs(3);
    assert!(close(s.cwnd(), 100.02, 1e-9), "{}", s.cwnd());
}

/// `cc = "ltcp"` and its table; bad values name their field.
#[test]
fn ltcp_scenario_parsing() {
    let parse = |t: &str| sim::Scenario::from_toml_str(&scenario(t)).and_then(|sc| sc.build(Some(1)).map(|_| ()));
    parse("cc = \"ltcp\"").unwrap();
    parse("cc = { kind = \"ltcp\", w_t = 50, beta = 0.15 }").unwrap();
    let e = parse("cc = { kind = \"ltcp\", beta = 1.2 }").unwrap_err();
    assert!(e.contains("tcp.cc.beta"), "{e}");
    let e = parse("cc = { kind = \"ltcp\", w_t = -1 }").unwrap_err();
    assert!(e.contains("tcp.cc.w_t"), "{e}");
    let e = parse("cc = { kind = \"ltcp\", layers = 3 }").unwrap_err();
    assert!(e.contains("layers"), "{e}");
    assert_eq!(CcConfig::by_name("ltcp"), Some(CcConfig::Ltcp(Params::default())));
}
