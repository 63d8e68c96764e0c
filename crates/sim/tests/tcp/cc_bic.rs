//! BIC-TCP (cc/bic.rs) against the hand-computed values of ALGORITHMS.md section 3:
//! Linux tcp_bic.c's cnt table, the loss rule with fast convergence, the idealised
//! per-RTT trajectory, and the `paper` and `ns3` presets where they differ.

use crate::common::*;
use sim::tcp::cc::bic::{self, Bic, Preset};
use sim::tcp::cc::{CcConfig, CcState, CongestionControl, CongestionEvent};

fn st(cwnd: f64, ssthresh: f64) -> CcState {
    CcState { cwnd, ssthresh, max_cwnd: f64::INFINITY, abc_limit: 1.0 }
}

fn bic(p: bic::Params) -> Bic {
    p.build()
}

fn linux() -> Bic {
    bic(bic::Params::default())
}

/// One loss at `cwnd` (FlightSize = cwnd): returns the new ssthresh.
fn loss(b: &mut Bic, cwnd: f64) -> f64 {
    b.ssthresh(&st(cwnd, cwnd), cwnd, CongestionEvent::FastRetransmit, SimTime::ZERO)
}

/// ALGORITHMS.md section 3, "Test values", Linux cnt before the delayed-ACK scaling with
/// W_max = 1000 (set by a first loss at cwnd 1000):
/// - 800: dist = (1000 - 800)/4 = 50 > 16: cnt = 800/16 = 50;
/// - 900: dist = 25 > 16: 900/16 = 56;
/// - 950: dist = 12: 950/12 = 79;
/// - 996: dist = 4/4 = 1 <= 1: 996 x 20/4 = 4980; 999: dist = 0: 999 x 5 = 4995;
/// - 1002 < 1000 + 4: 1002 x 20/4 = 5010;
/// - 1010 < 1000 + 16 x 3 = 1048: 1010 x 3/10 = 303; 1047: 3141/47 = 66;
/// - 1048, 1100 >= 1048: cwnd/16 = 65, 68.
#[test]
fn cnt_table_at_w_max_1000() {
    let mut b = linux();
    loss(&mut b, 1000.0);
    assert_eq!(b.w_max(), 1000);
    let table = [
        (800, 50),
        (900, 56),
        (950, 79),
        (996, 4980),
        (999, 4995),
        (1002, 5010),
        (1010, 303),
        (1047, 66),
        (1048, 65),
        (1100, 68),
    ];
    for (cwnd, cnt) in table {
        assert_eq!(b.raw_cnt(cwnd), cnt, "cnt({cwnd})");
    }
}

/// W_max = 0 (no loss yet): cnt(100) = 100/16 = 6 (100 >= 0 + 48: linear), within the
/// "at most 20" clamp; cnt(14) = 14 (at or below low_window: Reno); cnt(30) = 3 x 30/30 =
/// 3; cnt(1000) = 1000/16 = 62, clamped to 20 (at least +5 % per RTT).
#[test]
fn cnt_without_a_loss() {
    let b = linux();
    assert_eq!(b.w_max(), 0);
    assert_eq!(b.raw_cnt(100), 6);
    assert_eq!(b.raw_cnt(14), 14);
    assert_eq!(b.raw_cnt(30), 3);
    assert_eq!(b.raw_cnt(1000), 20);
}

/// The loss sequence of ALGORITHMS.md section 3: a first loss at cwnd 1000 gives
/// ssthresh = floor(1000 x 819/1024) = floor(799.80) = 799 and W_max = 1000; the next at
/// 950 < W_max is fast convergence: W_max = floor(950 x (1024 + 819)/2048) =
/// floor(854.91) = 854, ssthresh = floor(950 x 819/1024) = floor(759.81) = 759.
/// Without fast convergence W_max = 950.
#[test]
fn loss_rule_and_fast_convergence() {
    let mut b = linux();
    assert_eq!(loss(&mut b, 1000.0), 799.0);
    assert_eq!(b.w_max(), 1000);
    assert_eq!(loss(&mut b, 950.0), 759.0);
    assert_eq!(b.w_max(), 854);

    let mut b = bic(bic::Params { fast_convergence: Some(false), ..Default::default() });
    loss(&mut b, 1000.0);
    assert_eq!(loss(&mut b, 950.0), 759.0);
    assert_eq!(b.w_max(), 950);
}

/// At or below low_window = 14 the loss response is Reno's: cwnd 10: max(10/2, 2) = 5;
/// cwnd 14: 14/2 = 7 (Linux's test is cwnd <= 14); cwnd 3: max(1, 2) = 2. ns-3's test is
/// strict (cwnd < 14), so at 14 it already uses beta: 0.8 x 14 = 11.2.
#[test]
fn loss_at_small_windows() {
    let mut b = linux();
    assert_eq!(loss(&mut b, 10.0), 5.0);
    assert_eq!(loss(&mut b, 14.0), 7.0);
    assert_eq!(loss(&mut b, 3.0), 2.0);
    let mut n = bic(bic::Params { preset: Preset::Ns3, ..Default::default() });
    assert!((loss(&mut n, 14.0) - 11.2).abs() < 1e-9);
}

/// The `ns3` preset: the same loss sequence gives W_max = 0.8 x 950 = 760 (fast
/// convergence factor beta, not (1 + beta)/2) and ssthresh = max(0.8 x 950, 2) = 760;
/// the first loss 0.8 x 1000 = 800.
/// The `paper` preset (beta = 0.125 cut, window kept 0.875): first loss ssthresh =
/// floor(1000 x 0.875) = 875; at 950: W_max = floor(950 x (2 - 0.125)/2) = floor(890.6) =
/// 890, ssthresh = floor(950 x 0.875) = floor(831.25) = 831.
#[test]
fn presets_loss_rule() {
    let mut n = bic(bic::Params { preset: Preset::Ns3, ..Default::default() });
    assert_eq!(loss(&mut n, 1000.0), 800.0);
    assert_eq!(n.w_max(), 1000);
    assert_eq!(loss(&mut n, 950.0), 760.0);
    assert_eq!(n.w_max(), 760);

    let mut p = bic(bic::Params { preset: Preset::Paper, ..Default::default() });
    assert_eq!(loss(&mut p, 1000.0), 875.0);
    assert_eq!(loss(&mut p, 950.0), 831.0);
    assert_eq!(p.w_max(), 890);
}

/// Runs `rtts` RTTs of the idealised law: one ACK per RTT acknowledging the whole window
/// (so cwnd += cwnd/cnt with `delayed_ack = false`, which counts segments). Returns the
/// window at the end of each RTT.
fn per_rtt(b: &mut Bic, start: f64, rtts: usize) -> Vec<f64> {
    let mut s = st(start, start - 1.0);
    let mut out = Vec::new();
    for k in 0..rtts {
        let acked = s.cwnd;
        b.on_ack(&mut s, acked, None, SimTime::from_ms(100 * k as u64));
        out.push(s.cwnd);
    }
    out
}

/// ALGORITHMS.md section 3, the idealised per-RTT trajectory from 800 after a loss at
/// W_max = 1000 (cwnd += cwnd/cnt each RTT, cnt from the integer window):
/// - RTT 1-9: 800 + 800/50 = 816, 816 + 816/51 = 832, ..., 928 + 928/58 = 944 (every
///   window w in 800..928 is a multiple of 16 with dist > 16, so cnt = w/16: +16);
/// - 944: dist = 56/4 = 14, cnt = 944/14 = 67: 944 + 944/67 = 958.0896;
/// - 958: dist = 42/4 = 10, cnt = 95: 958.0896 + 958.0896/95 = 968.1747;
/// - 968: dist = 8, cnt = 121: + 8.0014 = 976.1761;
/// - 976: dist = 6, cnt = 162: + 6.0258 = 982.2019;
/// - 982: dist = 4, cnt = 245: + 4.0090 = 986.2109;
/// - 986: dist = 3, cnt = 328: + 3.0067 = 989.2177;
/// - 989: dist = 2, cnt = 494: + 2.0025 = 991.2201;
/// - 991: dist = 2, cnt = 495: + 2.0025 = 993.2226;
/// - 993: dist = 7/4 = 1 <= 1, cnt = 993 x 20/4 = 4965: + 0.2000 = 993.4226, then +0.2.
#[test]
fn idealised_trajectory_from_800() {
    let mut b = bic(bic::Params { delayed_ack: Some(false), ..Default::default() });
    loss(&mut b, 1000.0);
    let got = per_rtt(&mut b, 800.0, 18);
    let want = [
        816.0, 832.0, 848.0, 864.0, 880.0, 896.0, 912.0, 928.0, 944.0, 958.0896, 968.1747, 976.1761, 982.2019,
        986.2109, 989.2177, 991.2201, 993.2226, 993.4226,
    ];
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() < 1e-4, "RTT {}: {g} vs {w}", k + 1);
    }
}

/// The `ns3` preset's trajectory (ALGORITHMS.md: 815.7, 831.7, ..., 943.6 at RTT 9, 957.5,
/// 967.5, ...; above 993 +0.8 per RTT, past 1000 at RTT 26): the counter must exceed cnt,
/// so cwnd += cwnd/(cnt + 1): 800 + 800/51 = 815.686; 815.686 + 815.686/(50 + 1) =
/// 831.680 (cnt(815) = 50); ... RTT 9: 943.64; 943.64 (dist 14, cnt 67): + 943.64/68 =
/// 957.51; 957.51 (dist 10, cnt 95): + 957.51/96 = 967.49. Near W_max cnt = w 5/4:
/// 993.45 (cnt 1241) + 993.45/1242 = 994.25; RTT 25 ends at 999.85, RTT 26 at 1000.65.
#[test]
fn ns3_trajectory_from_800() {
    let mut b = bic(bic::Params { preset: Preset::Ns3, ..Default::default() });
    loss(&mut b, 1000.0);
    let got = per_rtt(&mut b, 800.0, 26);
    for (k, w) in [(1, 815.686), (2, 831.680), (9, 943.64), (10, 957.51), (11, 967.49), (25, 999.85), (26, 1000.65)] {
        assert!((got[k - 1] - w).abs() < 0.006, "RTT {k}: {} vs {w}", got[k - 1]);
    }
}

/// The `paper` preset, one RTT from ssthresh 875 after a loss at 1000: B = 2, S_max = 32:
/// dist = (1000 - 875)/2 = 62 > 32: cnt = 875/32 = 27: 875 + 875/27 = 907.407 (Linux's
/// constants give 875 + 875/(875/16 = 54) = 891.204).
#[test]
fn paper_preset_one_rtt() {
    let mut p = bic(bic::Params { preset: Preset::Paper, ..Default::default() });
    loss(&mut p, 1000.0);
    let got = per_rtt(&mut p, 875.0, 1);
    assert!((got[0] - 907.407).abs() < 1e-3, "{}", got[0]);
    let mut l = bic(bic::Params { delayed_ack: Some(false), ..Default::default() });
    loss(&mut l, 1000.0);
    let got = per_rtt(&mut l, 875.0, 1);
    assert!((got[0] - 891.204).abs() < 1e-3, "{}", got[0]);
}

/// At 10,000 packets (idealised, segments counted): a loss at 10,000 gives ssthresh =
/// floor(10000 x 819/1024) = floor(7998.05) = 7998; from 7998, dist = 2002/4 = 500 > 16,
/// cnt = 7998/16 = 499: one RTT gives 7998 + 7998/499 = 8014.028 (S_max = 16 per RTT).
#[test]
fn ten_thousand_packets() {
    let mut b = bic(bic::Params { delayed_ack: Some(false), ..Default::default() });
    assert_eq!(loss(&mut b, 10_000.0), 7998.0);
    let got = per_rtt(&mut b, 7998.0, 1);
    assert!((got[0] - 8014.028).abs() < 1e-3, "{}", got[0]);
}

/// The Linux default counts ACKs, with cnt scaled by 16/delayed_ack. One segment per ACK:
/// the integer EWMA goes 32 + 1 - 32/16 = 31 on the first ACK and stays there (31 + 1 -
/// 31/16 = 31). From 800 after a loss at 1000: cnt = 50 x 16/31 = 25 (800/31 = 25.8) for
/// windows 800..815: 16 x 25 = 400 ACKs reach 816; then cnt(816) = 51, 816/31 = 26 for
/// 816..831: the other 400 ACKs add 400/26 = 15.3846: 800 ACKs end at 831.3846, about
/// twice the 16 per RTT of the idealised law.
#[test]
fn linux_delayed_ack_ratio_per_ack() {
    let mut b = linux();
    loss(&mut b, 1000.0);
    let mut s = st(800.0, 799.0);
    for _ in 0..800 {
        b.on_ack(&mut s, 1.0, None, SimTime::ZERO);
    }
    assert_eq!(b.delayed_ack_ratio(), 31);
    assert!((s.cwnd - 831.3846).abs() < 1e-4, "{}", s.cwnd);
}

/// Small window, congestion avoidance at cwnd = ssthresh = 10 (no loss yet): cnt = cwnd =
/// 10 (Reno mode). Counting segments (`delayed_ack = false`): ten ACKs add 10 x 1/10 = 1:
/// 11. Linux's ratio 31: cnt = 10 x 16/31 = 5 and 11 x 16/31 = 5: ten ACKs add 2: 12.
#[test]
fn small_window() {
    let mut b = bic(bic::Params { delayed_ack: Some(false), ..Default::default() });
    let mut s = st(10.0, 10.0);
    for _ in 0..10 {
        b.on_ack(&mut s, 1.0, None, SimTime::ZERO);
    }
    assert!((s.cwnd - 11.0).abs() < 1e-9, "{}", s.cwnd);
    let mut b = linux();
    let mut s = st(10.0, 10.0);
    for _ in 0..10 {
        b.on_ack(&mut s, 1.0, None, SimTime::ZERO);
    }
    assert!((s.cwnd - 12.0).abs() < 1e-9, "{}", s.cwnd);
}

/// cnt is recomputed at most every HZ/32 = 31.25 ms while the integer window is unchanged
/// (W_max 1000, cwnd 800):
/// - t = 0, 1 segment: ratio 31, cnt = 800/31 = 25: +1/25;
/// - t = 10 ms, 4 segments (a stretch ACK): ratio 31 + 4 - 1 = 34, which would give cnt =
///   800/34 = 23, but the window is still 800 and 10 ms <= 31.25 ms: cnt stays 25: +1/25;
/// - t = 50 ms, 1 segment: ratio 34 + 1 - 2 = 33, recomputed: 800/33 = 24: +1/24.
///
/// cwnd = 800 + 0.04 + 0.04 + 1/24 = 800.121667 (recomputing at 10 ms would give
/// 800 + 0.04 + 1/23 + 1/24 = 800.125145).
#[test]
fn cnt_rate_limit() {
    let mut b = linux();
    loss(&mut b, 1000.0);
    let mut s = st(800.0, 799.0);
    b.on_ack(&mut s, 1.0, None, SimTime::ZERO);
    b.on_ack(&mut s, 4.0, None, ms(10));
    b.on_ack(&mut s, 1.0, None, ms(50));
    assert_eq!(b.delayed_ack_ratio(), 33);
    assert!((s.cwnd - 800.121667).abs() < 1e-6, "{}", s.cwnd);
}

/// A timeout resets every BIC variable (Linux bictcp_state(TCP_CA_Loss)): after a loss at
/// 1000, its recovery, and a timeout at 900, W_max = 0 and the ratio is back to 32 (the timeout's ssthresh
/// is still computed first: 900 < 1000, fast convergence, floor(900 x 0.7998) = 719).
/// ns-3 resets nothing: W_max = floor(0.8 x 900) = 720.
#[test]
fn timeout_resets_state() {
    let mut b = linux();
    loss(&mut b, 1000.0);
    let mut s = st(900.0, 799.0);
    b.on_recovery_exit(&mut s, SimTime::ZERO);
    for _ in 0..5 {
        b.on_ack(&mut s, 1.0, None, SimTime::ZERO);
    }
    assert_eq!(b.delayed_ack_ratio(), 31);
    let ss = b.ssthresh(&st(900.0, 799.0), 900.0, CongestionEvent::Timeout, SimTime::ZERO);
    assert_eq!(ss, 719.0);
    b.on_rto(&mut st(1.0, ss), SimTime::ZERO);
    assert_eq!(b.w_max(), 0);
    assert_eq!(b.delayed_ack_ratio(), 32);

    let mut n = bic(bic::Params { preset: Preset::Ns3, ..Default::default() });
    loss(&mut n, 1000.0);
    n.on_recovery_exit(&mut st(800.0, 800.0), SimTime::ZERO);
    n.ssthresh(&st(900.0, 800.0), 900.0, CongestionEvent::Timeout, SimTime::ZERO);
    n.on_rto(&mut st(1.0, 720.0), SimTime::ZERO);
    assert_eq!(n.w_max(), 720);
}

/// A scripted flow: cwnd raised to 20 before the first duplicate ACKs (the first dupack
/// lets segments 10..19 out); the third dupack enters fast recovery with BIC's ssthresh
/// from cwnd: floor(20 x 819/1024) = floor(15.996) = 15, cwnd = 15 + 3 = 18 (NewReno
/// would give FlightSize/2 = 10).
#[test]
fn scripted_fast_retransmit() {
    let cc = CcConfig::Bic(Default::default()).build();
    let mut s = Script::with_cc(defaults(), cc, 1000 * MSS);
    s.open();
    s.advance(ms(100));
    s.syn_ack(false);
    s.set_cwnd(20.0, f64::INFINITY);
    s.advance(ms(100));
    s.dupacks(3);
    assert!(s.in_recovery());
    assert_eq!(s.ssthresh(), 15.0);
    assert_eq!(s.cwnd(), 18.0);
}

/// A scripted timeout at cwnd 20 (10 segments in flight): ssthresh = floor(20 x 0.7998) =
/// 15, W_max = 20, cwnd = 1; then slow start back to 15 by ACKs of segments 1..14. The
/// Linux reset leaves W_max = 0: at cwnd 15, 15 < 0 + 48 gives cnt = 3 x 15/15 = 3, and
/// with the ratio at 31 (reset to 32, one segment per ACK) 3 x 16/31 = 0 -> 1: the next ACK
/// adds a whole segment: 16. ns-3 keeps W_max = 20: ssthresh = 0.8 x 20 = 16, at cwnd 16
/// dist = 4/4 = 1: cnt = 16 x 5/4 = 20, effective 21: the next ACK adds 1/21: 16.0476.
#[test]
fn scripted_timeout_resets_w_max() {
    for (preset, ss, after) in [(Preset::Linux, 15.0, 16.0), (Preset::Ns3, 16.0, 16.0 + 1.0 / 21.0)] {
        let cc = CcConfig::Bic(bic::Params { preset, ..Default::default() }).build();
        let mut s = Script::with_cc(defaults(), cc, 1000 * MSS);
        s.open();
        s.advance(ms(100));
        s.syn_ack(false);
        s.set_cwnd(20.0, f64::INFINITY);
        s.expire_timer();
        assert_eq!(s.ssthresh(), ss, "{preset:?}");
        assert_eq!(s.cwnd(), 1.0);
        s.advance(ms(100));
        let mut k = 1;
        while s.cwnd() < ss {
            s.ack_segs(k);
            k += 1;
        }
        assert_eq!(s.cwnd(), ss, "{preset:?}");
        s.ack_segs(k);
        assert!((s.cwnd() - after).abs() < 1e-9, "{preset:?}: {}", s.cwnd());
    }
}

/// A timeout during fast recovery keeps the recovery's ssthresh (Linux tcp_enter_loss
/// reduces ssthresh only once per window): cwnd 20, three dupacks: ssthresh 15, cwnd 18;
/// seven more inflate cwnd to 25; the timeout leaves ssthresh at 15 (recomputing from the
/// inflated cwnd would give floor(25 x 0.7998) = 19) and cwnd 1.
#[test]
fn scripted_timeout_in_recovery_keeps_ssthresh() {
    let cc = CcConfig::Bic(Default::default()).build();
    let mut s = Script::with_cc(defaults(), cc, 1000 * MSS);
    s.open();
    s.advance(ms(100));
    s.syn_ack(false);
    s.set_cwnd(20.0, f64::INFINITY);
    s.advance(ms(100));
    s.dupacks(10);
    assert_eq!(s.cwnd(), 25.0);
    s.expire_timer();
    assert_eq!(s.ssthresh(), 15.0);
    assert_eq!(s.cwnd(), 1.0);
}

/// `cc = "bic"` and a `[tcp.cc]` table with a preset and an override; bad values named by
/// their path.
#[test]
fn bic_in_scenarios() {
    let parse = |t: &str| sim::Scenario::from_toml_str(&scenario(t)).and_then(|sc| sc.build(Some(1)).map(|_| ()));
    parse("cc = \"bic\"").unwrap();
    parse("cc = { kind = \"bic\", preset = \"ns3\", smooth_part = 10 }").unwrap();
    let e = parse("cc = { kind = \"bic\", beta = 1.5 }").unwrap_err();
    assert!(e.contains("tcp.cc.beta"), "{e}");
    let e = parse("cc = { kind = \"bic\", b = 1 }").unwrap_err();
    assert!(e.contains("tcp.cc.b:"), "{e}");
    let e = parse("cc = { kind = \"bic\", preset = \"bsd\" }").unwrap_err();
    assert!(e.contains("tcp.cc") && e.contains("linux") && e.contains("paper") && e.contains("ns3"), "{e}");
    let e = parse("cc = { kind = \"bic\", smax = 3 }").unwrap_err();
    assert!(e.contains("tcp.cc") && e.contains("smax"), "{e}");
}
