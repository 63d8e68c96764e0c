//! TCP Vegas (cc/vegas.rs): constructed RTT sample sequences with diff computed by hand,
//! the +1 / -1 / 0 of congestion avoidance, the slow-start exit, the Reno fallback, and
//! where the paper's diff and Linux's differ (ALGORITHMS.md section 6).

use crate::common::*;
use sim::tcp::cc::vegas::{self, Decision, Diff, Vegas};
use sim::tcp::cc::{CcConfig, CcState, CongestionControl};

fn st(cwnd: f64, ssthresh: f64) -> CcState {
    CcState { cwnd, ssthresh, max_cwnd: f64::INFINITY, abc_limit: 1.0 }
}

fn vegas(diff: Diff) -> Vegas {
    vegas::Params { diff, ..Default::default() }.build()
}

/// An ACK of one segment at `now_ms` carrying an RTT sample of `rtt_ms` (the segment was
/// sent at now - rtt).
fn ack(v: &mut Vegas, s: &mut CcState, now_ms: u64, rtt_ms: u64) {
    v.on_ack(s, 1.0, Some(ms(rtt_ms)), ms(now_ms));
}

/// One round after the one that began at `start_ms`: three ACKs of segments sent before it
/// (in-round samples) and the ACK of the first segment sent at its start, which closes it;
/// every sample is `rtt_ms`. Returns when the next round began.
fn round(v: &mut Vegas, s: &mut CcState, start_ms: u64, rtt_ms: u64) -> u64 {
    for k in (1..=3).rev() {
        ack(v, s, start_ms + rtt_ms - 10 * k, rtt_ms); // sent 30, 20, 10 ms before the start
    }
    let end = start_ms + rtt_ms;
    ack(v, s, end, rtt_ms); // sent at the start: the round ends
    end
}

/// Congestion avoidance (cwnd 20, ssthresh 10), baseRTT 100 ms from the ACK at 100 ms that
/// starts the first round; alpha 2, beta 4:
/// - round 1, RTT 110 ms: paper diff = 20 x (110 - 100)/110 = 1.818 < 2: +1 -> 21; Linux
///   diff = floor(20 x 10/100) = 2, within [2, 4]: hold, 20;
/// - round 2, RTT 125 ms: paper 21 x 25/125 = 4.2 > 4: -1 -> 20 (ssthresh min(10, 20)
///   stays 10); Linux floor(20 x 25/100) = 5 > 4: -1 -> 19;
/// - round 3, RTT 120 ms: paper 20 x 20/120 = 3.33: hold, 20; Linux floor(19 x 20/100) = 3:
///   hold, 19.
#[test]
fn congestion_avoidance_rounds() {
    type Want = [(f64, Decision, f64); 3];
    let paper: Want =
        [(20.0 / 11.0, Decision::Increase, 21.0), (4.2, Decision::Decrease, 20.0), (10.0 / 3.0, Decision::Hold, 20.0)];
    let linux: Want = [(2.0, Decision::Hold, 20.0), (5.0, Decision::Decrease, 19.0), (3.0, Decision::Hold, 19.0)];
    for (mode, want) in [(Diff::Paper, paper), (Diff::Linux, linux)] {
        let mut v = vegas(mode);
        let mut s = st(20.0, 10.0);
        ack(&mut v, &mut s, 100, 100);
        assert_eq!(s.cwnd, 20.0);
        let mut start = 100;
        for (k, (rtt, (diff, d, cwnd))) in [110, 125, 120].into_iter().zip(want).enumerate() {
            start = round(&mut v, &mut s, start, rtt);
            let got = v.last_diff().unwrap();
            assert!((got - diff).abs() < 1e-9, "{mode:?} round {}: diff {got} vs {diff}", k + 1);
            assert_eq!(v.last_decision(), Some(d), "{mode:?} round {}", k + 1);
            assert_eq!(s.cwnd, cwnd, "{mode:?} round {}", k + 1);
        }
        assert_eq!(s.ssthresh, 10.0);
        assert_eq!(v.base_rtt(), Some(ms(100)));
    }
}

/// Within a round congestion avoidance does nothing: after the start and three in-round
/// ACKs cwnd is still 20.
#[test]
fn no_change_within_a_round() {
    let mut v = vegas(Diff::Paper);
    let mut s = st(20.0, 10.0);
    ack(&mut v, &mut s, 100, 100);
    for t in [150, 160, 170] {
        ack(&mut v, &mut s, t, 110);
    }
    assert_eq!(s.cwnd, 20.0);
    assert_eq!(v.last_decision(), None);
}

/// Fewer than 3 samples in a round: Reno. One in-round ACK (sent at 40 ms) and the closing
/// ACK (sent at 100 ms) are 2 samples: cwnd += 2 segments acknowledged/20 = 20.1.
#[test]
fn reno_fallback_with_two_samples() {
    let mut v = vegas(Diff::Paper);
    let mut s = st(20.0, 10.0);
    ack(&mut v, &mut s, 100, 100);
    ack(&mut v, &mut s, 150, 110);
    ack(&mut v, &mut s, 210, 110);
    assert_eq!(v.last_decision(), Some(Decision::Reno));
    assert!((s.cwnd - 20.1).abs() < 1e-12, "{}", s.cwnd);
}

/// Slow start (cwnd 19, ssthresh infinite): the round's first ACK and two in-round ACKs add
/// one each: 22; the closing ACK at 250 ms (sent at 100 ms) with 3 samples of 150 ms and
/// baseRTT 100 ms:
/// - paper: diff = 22 x 50/150 = 7.33 > gamma = 1: leave slow start with cwnd = min(22,
///   22 x 100/150 + 1) = 14.667 + 1 = 15.667, ssthresh = 15.667;
/// - Linux: floor(22 x 50/100) = 11 > 1: target = floor(22 x 100/150) = 14, cwnd = 15.
///
/// With 102 ms samples diff = 22 x 2/102 = 0.43 <= 1 (Linux floor(0.44) = 0): slow start
/// goes on, 23.
#[test]
fn slow_start_exit() {
    for (mode, rtt, cwnd, ss, d) in [
        (Diff::Paper, 150, 15.0 + 2.0 / 3.0, 15.0 + 2.0 / 3.0, Decision::LeaveSlowStart),
        (Diff::Linux, 150, 15.0, 15.0, Decision::LeaveSlowStart),
        (Diff::Paper, 102, 23.0, f64::INFINITY, Decision::SlowStart),
        (Diff::Linux, 102, 23.0, f64::INFINITY, Decision::SlowStart),
    ] {
        let mut v = vegas(mode);
        let mut s = st(19.0, f64::INFINITY);
        ack(&mut v, &mut s, 100, 100);
        ack(&mut v, &mut s, 100 + rtt - 100, rtt); // sent at 0
        ack(&mut v, &mut s, 100 + rtt - 90, rtt); // sent at 10 ms
        assert_eq!(s.cwnd, 22.0);
        ack(&mut v, &mut s, 100 + rtt, rtt); // sent at 100 ms: the round ends
        assert_eq!(v.last_decision(), Some(d), "{mode:?} {rtt}");
        assert!((s.cwnd - cwnd).abs() < 1e-9, "{mode:?} {rtt}: {}", s.cwnd);
        assert_eq!(s.ssthresh == f64::INFINITY, ss == f64::INFINITY);
        if ss.is_finite() {
            assert!((s.ssthresh - ss).abs() < 1e-9, "{mode:?}: {}", s.ssthresh);
        }
    }
}

/// The window never goes below 2: cwnd 2.5 (integer window 2), RTT 500 ms = 5 baseRTT,
/// Linux's diff floor(2 x 400/100) = 8 > 4: -1 -> 1.5, raised to 2. The paper's diff at
/// cwnd 6: 6 x 400/500 = 4.8 > 4: -1 -> 5.
#[test]
fn window_floor() {
    let mut v = vegas(Diff::Linux);
    let mut s = st(2.5, 2.0);
    ack(&mut v, &mut s, 100, 100);
    round(&mut v, &mut s, 100, 500);
    assert_eq!(v.last_decision(), Some(Decision::Decrease));
    assert_eq!(s.cwnd, 2.0);
    let mut v = vegas(Diff::Paper);
    let mut s = st(6.0, 2.0);
    ack(&mut v, &mut s, 100, 100);
    round(&mut v, &mut s, 100, 500);
    assert_eq!(s.cwnd, 5.0);
}

fn vegas_flow() -> Script {
    let mut s = Script::with_cc(defaults(), CcConfig::Vegas(Default::default()).build(), 1000 * MSS);
    s.open();
    s.advance(ms(100));
    s.syn_ack(false);
    s
}

/// A scripted flow (first flight 0..9 sent at 100 ms): the ACK of segment 0 at 200 ms (RTT
/// 100 ms) starts the first round and slow-starts to 11 (segments 10, 11 leave at 200 ms);
/// the ACKs of 1..8 at 330 ms (RTT 230 ms, sent before the round) slow-start to 19; the
/// cumulative ACK of 9 and 10 at 350 ms is triggered by segment 10 (sent at 200 ms, RTT
/// 150 ms) and closes the round: 9 samples, RTT 150 ms, baseRTT 100 ms: diff = 19 x 50/150
/// = 6.33 > 1: cwnd = min(19, 19 x 100/150 + 1) = 13.667 = ssthresh (NewReno: 20).
#[test]
fn scripted_slow_start_exit() {
    let mut s = vegas_flow();
    s.advance(ms(100));
    s.ack_segs(1);
    assert_eq!(s.cwnd(), 11.0);
    s.advance(ms(130));
    for k in 2..=9 {
        s.ack_segs(k);
    }
    assert_eq!(s.cwnd(), 19.0);
    s.advance(ms(20));
    s.ack_segs(11);
    assert!((s.cwnd() - 13.666667).abs() < 1e-6, "{}", s.cwnd());
    assert!((s.ssthresh() - 13.666667).abs() < 1e-6, "{}", s.ssthresh());
}

/// Losses are Reno's: three duplicate ACKs with 10 in flight: ssthresh = 10/2 = 5, cwnd 8.
#[test]
fn scripted_loss_is_reno() {
    let mut s = vegas_flow();
    s.advance(ms(100));
    s.dupacks(3);
    assert_eq!(s.ssthresh(), 5.0);
    assert_eq!(s.cwnd(), 8.0);
}

/// `cc = "vegas"` and a table; bad values named by their path.
#[test]
fn vegas_in_scenarios() {
    let parse = |t: &str| sim::Scenario::from_toml_str(&scenario(t)).and_then(|sc| sc.build(Some(1)).map(|_| ()));
    parse("cc = \"vegas\"").unwrap();
    parse("cc = { kind = \"vegas\", alpha = 1, beta = 3, diff = \"linux\" }").unwrap();
    let e = parse("cc = { kind = \"vegas\", gamma = -1 }").unwrap_err();
    assert!(e.contains("tcp.cc.gamma"), "{e}");
    let e = parse("cc = { kind = \"vegas\", alpha = 5 }").unwrap_err();
    assert!(e.contains("tcp.cc.alpha"), "{e}");
    let e = parse("cc = { kind = \"vegas\", diff = \"bsd\" }").unwrap_err();
    assert!(e.contains("tcp.cc") && e.contains("paper") && e.contains("linux"), "{e}");
}
