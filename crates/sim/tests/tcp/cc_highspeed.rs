//! HighSpeed TCP (RFC 3649; cc/highspeed.rs): the table against the RFC's generator and
//! Linux's rows, a(w) and b(w) at the windows of ALGORITHMS.md section 1's test table, growth
//! and decrease of the controller alone, the response function (RFC 3649 Table 3) from a
//! deterministic loss process, and the controller in a scripted flow.

use crate::common::*;
use sim::tcp::cc::highspeed::{self, HighSpeed, LowP, Mode, Params, LINUX_ROWS, TABLE};
use sim::tcp::cc::{CcConfig, CcState, CongestionControl, CongestionEvent};

const T0: SimTime = SimTime::ZERO;

fn hs(mode: Mode) -> HighSpeed {
    Params { mode, ..Params::default() }.build()
}

/// Congestion avoidance state: cwnd `w`, ssthresh below it.
fn ca(w: f64) -> CcState {
    CcState { cwnd: w, ssthresh: 2.0, max_cwnd: f64::INFINITY, abc_limit: 1.0 }
}

/// `n` ACKs of `acked` segments each.
fn acks(cc: &mut dyn CongestionControl, s: &mut CcState, n: usize, acked: f64) {
    for _ in 0..n {
        cc.on_ack(s, acked, None, T0);
    }
}

fn loss(cc: &mut dyn CongestionControl, w: f64) -> f64 {
    cc.ssthresh(&ca(w), w, CongestionEvent::FastRetransmit, T0)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

/// RFC 3649 Table 13 (the Perl program) re-run: w = 38, 39, ... < 100000; a row each time
/// a(w) = w^2 2 b(w) / ((2 - b(w)) w^1.2 12.8) exceeds the last printed a(w), untruncated, by
/// more than 1 (the first row, 38, printed by hand with a = 1). Its w_i must be the literal's,
/// its b(w_i) must round to the literal's b_i (RFC Table 12's two decimals) and floor(256 b(w_i))
/// must be the literal's md_i (Linux's hstcp_aimd_vals). 73 rows, the last 94717.
#[test]
fn highspeed_table_regenerated() {
    let b = |w: f64| (0.1 - 0.5) * (w.ln() - 38f64.ln()) / (83000f64.ln() - 38f64.ln()) + 0.5;
    let mut rows = vec![(38u32, 0.5)];
    let mut olda = 1.0;
    for num in 38..100000u32 {
        let w = num as f64;
        let bw = b(w);
        let aw = (w * w * 2.0 * bw) / ((2.0 - bw) * w.powf(1.2) * 12.8);
        if aw > olda + 1.0 {
            rows.push((num, bw));
            olda = aw;
        }
    }
    assert_eq!(rows.len(), 73);
    assert_eq!(TABLE.len(), 73);
    assert_eq!(LINUX_ROWS, 72);
    for (i, (&(w, bw), &(tw, md, bh))) in rows.iter().zip(TABLE.iter()).enumerate() {
        assert_eq!(w, tw, "row {i}");
        assert_eq!((256.0 * bw).floor() as u32, md, "row {i} md");
        assert_eq!((100.0 * bw).round() as u32, bh, "row {i} b");
    }
    assert_eq!(TABLE[72].0, 94717);
    assert_eq!(TABLE[LINUX_ROWS - 1].0, 89053); // Linux stops here
}

/// A few rows by hand, b(w) = 0.5 - 0.4 ln(w/38) / ln(83000/38), ln(83000/38) = 7.689010:
/// - w = 118: ln(118/38) = 1.133098, b = 0.5 - 0.4 x 1.133098 / 7.689010 = 0.441054,
///   256 b = 112.91 -> md 112 (Linux 112; the printed 0.44 would give 256 x 0.44 = 112.64,
///   rounded 113: md comes from the exact b). a(118) = 118^0.8 x 2b/(2-b) / 12.8
///   = 45.4470 x 0.565836 / 12.8 = 2.0090 > 1 + 1, while a(117) = 1.9980: 118 is the first
///   w with a > 2, the row (118, 2, 0.44) of Table 12.
/// - w = 1058: ln(1058/38) = 3.326549, b = 0.5 - 0.4 x 3.326549 / 7.689010 = 0.326945,
///   256 b = 83.70 -> 83; b rounds to 0.33.
/// - w = 10661: ln = 5.636761, b = 0.206763, 256 b = 52.93 -> 52; 0.21.
/// - w = 89053: ln = 7.759401, b = 0.096338, 256 b = 24.66 -> 24; 0.10.
#[test]
fn highspeed_table_rows_by_hand() {
    let row = |w: u32| TABLE.iter().position(|r| r.0 == w).map(|i| (i + 1, TABLE[i].1, TABLE[i].2));
    assert_eq!(row(38), Some((1, 128, 50)));
    assert_eq!(row(118), Some((2, 112, 44)));
    assert_eq!(row(1058), Some((8, 83, 33)));
    assert_eq!(row(10661), Some((30, 52, 21)));
    assert_eq!(row(84035), Some((71, 25, 10)));
    assert_eq!(row(89053), Some((72, 24, 10)));
    assert_eq!(row(94717), Some((73, 23, 9)));
}

/// linux-table at the sheet's windows (ALGORITHMS.md section 1 test table, "Linux" column):
/// ceiling lookup w_{i-1} < w <= w_i, a = i + 1, ssthresh = w - floor(w md / 256):
/// - 38: row 38 (a 1, md 128): 38 - floor(38 x 128/256 = 19) = 19;
/// - 39: 38 < 39 <= 118, a 2, md 112 (0.4375): 39 - floor(4368/256 = 17.06) = 22;
/// - 1000: 851 < 1000 <= 1058, a 8, md 83 (0.3242): 1000 - floor(83000/256 = 324.2) = 676;
/// - 10000: 9991 < 10000 <= 10661, a 30, md 52 (0.2031): 10000 - floor(2031.25) = 7969;
/// - 83000: 79517 < 83000 <= 84035, a 71, md 25 (0.0977): 83000 - floor(8105.47) = 74895;
/// - 100000: above 89053, the last row, a 72, md 24 (0.09375): 100000 - 9375 = 90625.
#[test]
fn highspeed_linux_table_at_sheet_windows() {
    let mut c = hs(Mode::LinuxTable);
    for (w, a, md, ss) in [
        (38.0, 1.0, 128.0, 19.0),
        (39.0, 2.0, 112.0, 22.0),
        (1000.0, 8.0, 83.0, 676.0),
        (10000.0, 30.0, 52.0, 7969.0),
        (83000.0, 71.0, 25.0, 74895.0),
        (100000.0, 72.0, 24.0, 90625.0),
    ] {
        assert_eq!(c.aimd_at(w), (a, md / 256.0), "w {w}");
        assert_eq!(loss(&mut c, w), ss, "w {w}");
    }
    // the Linux table has no 94717 row: at 94717 still a = 72
    assert_eq!(c.aimd_at(94717.0).0, 72.0);
}

/// rfc-floor at the same windows (RFC Table 12 read as printed, w_i <= w < w_{i+1}):
/// 38 and 39: row 38 (a 1, b 0.50) -> 19 and 19.5 (Linux gives a = 2 at 39);
/// 1000: row 851 (a 7, b 0.34) -> 0.66 x 1000 = 660 (RFC a(1000) = 7.752, floored 7);
/// 10000: row 9991 (a 29, b 0.21) -> 7900; 83000: row 79517 (a 70, b 0.10) -> 74700;
/// 100000: row 94717 (a 73, b 0.09) -> 91000 (Linux stops at a = 72).
#[test]
fn highspeed_rfc_floor_at_sheet_windows() {
    let mut c = hs(Mode::RfcFloor);
    for (w, a, b, ss) in [
        (38.0, 1.0, 0.50, 19.0),
        (39.0, 1.0, 0.50, 19.5),
        (117.0, 1.0, 0.50, 58.5),
        (118.0, 2.0, 0.44, 66.08),
        (1000.0, 7.0, 0.34, 660.0),
        (10000.0, 29.0, 0.21, 7900.0),
        (83000.0, 70.0, 0.10, 74700.0),
        (100000.0, 73.0, 0.09, 91000.0),
    ] {
        let (ca_, cb) = c.aimd_at(w);
        assert_eq!(ca_, a, "w {w}");
        assert!(close(cb, b, 1e-12), "w {w}: b {cb}");
        assert!(close(loss(&mut c, w), ss, 1e-9), "w {w}");
    }
}

/// continuous, Low_P = 1e-3 (RFC 3649 section 5): p(w) = exp(ln 1e-3 + x (ln 1e-7 - ln 1e-3)),
/// x = ln(w/38)/ln(83000/38); a = w^2 p 2b/(2-b).
/// - w = 83000: x = 1, p = 1e-7, b = 0.1: a = 6.889e9 x 1e-7 x 0.2/1.9 = 688.9 x 0.105263
///   = 72.516 (RFC section 7: "a(83000) = 72"); ssthresh = 0.9 x 83000 = 74700.
/// - w = 1000: x = ln(26.3158)/7.689010 = 3.270169/7.689010 = 0.425304,
///   p = 1e-3 x 10^(-4 x 0.425304) = 1e-3 x 10^-1.701216 = 1.98968e-5, b = 0.5 - 0.4 x 0.425304
///   = 0.329878: a = 1e6 x 1.98968e-5 x 0.659757/1.670122 = 19.8968 x 0.395037 = 7.8600;
///   ssthresh = (1 - 0.329878) x 1000 = 670.12.
/// - w = 10000: x = ln(263.158)/7.689010 = 5.572754/7.689010 = 0.724769, p = 1e-3 x
///   10^-2.899076 = 1.26161e-6, b = 0.210092: a = 1e8 x 1.26161e-6 x 0.420184/1.789908
///   = 126.161 x 0.234751 = 29.617.
/// - w = 39: the formula gives 0.979 (< 1); a is floored at 1 (RFC Appendix C's program).
/// - w = 38: Reno (a = 1, b = 0.5).
#[test]
fn highspeed_continuous_rfc_low_p() {
    let mut c = hs(Mode::Continuous);
    let (a, b) = c.aimd_at(83000.0);
    assert!(close(a, 72.516, 1e-3) && close(b, 0.1, 1e-12), "{a} {b}");
    assert!(close(loss(&mut c, 83000.0), 74700.0, 1e-6));
    let (a, b) = c.aimd_at(1000.0);
    assert!(close(a, 7.8600, 1e-3) && close(b, 0.329878, 1e-6), "{a} {b}");
    assert!(close(loss(&mut c, 1000.0), 670.12, 1e-2));
    assert!(close(c.aimd_at(10000.0).0, 29.617, 1e-3));
    assert_eq!(c.aimd_at(39.0).0, 1.0);
    assert_eq!(c.aimd_at(38.0), (1.0, 0.5));
}

/// continuous with ns-2's Low_P = 1.5/38^2 = 1.0388e-3 (ALGORITHMS.md: a(1000) = 8.034,
/// a(10000) = 29.93, a(83000) = 72.52): by hand at 1000, ln(1e-7/1.0388e-3) = -9.248468,
/// p = 1.0388e-3 x exp(0.425304 x -9.248468) = 1.0388e-3 x exp(-3.933412) = 2.03365e-5,
/// a = 20.3365 x 0.395037 = 8.0337. At 38 it is 1 exactly: 38^2 x 1.5/38^2 x 1/1.5.
#[test]
fn highspeed_continuous_ns2_low_p() {
    let c = Params { mode: Mode::Continuous, low_p: Some(LowP::Ns2), ..Params::default() }.build();
    assert!(close(c.aimd_at(1000.0).0, 8.034, 1e-3));
    assert!(close(c.aimd_at(10000.0).0, 29.93, 1e-2));
    assert!(close(c.aimd_at(83000.0).0, 72.52, 1e-2));
    assert!(close(c.aimd_at(39.0).0, 1.0172, 1e-4)); // p(39) = 1.0039e-3 x ..., above 1: not floored
}

/// One RTT of congestion avoidance at 1000 = 1000 ACKs of one segment. With constant a,
/// c <- c + a/c gives c^2 <- c^2 + 2a + a^2/c^2, so after N ACKs c^2 = c0^2 + 2aN (+ N a^2/c^2,
/// here 1000 x 64/1e6 = 0.064, +3e-5 in c):
/// - linux-table, a = 8 (no row crossed below 1058): sqrt(1e6 + 16000) = 1007.9683;
/// - rfc-floor, a = 7: sqrt(1e6 + 14000) = 1006.9757;
/// - at 10000, linux-table a = 30: sqrt(1e8 + 600000) = 10029.9551.
#[test]
fn highspeed_one_rtt_at_1000_and_10000() {
    for (mode, w, want) in [
        (Mode::LinuxTable, 1000.0, 1007.9683),
        (Mode::RfcFloor, 1000.0, 1006.9757),
        (Mode::LinuxTable, 10000.0, 10029.9551),
    ] {
        let mut c = hs(mode);
        let mut s = ca(w);
        acks(&mut c, &mut s, w as usize, 1.0);
        assert!(close(s.cwnd, want, 1e-4), "{mode:?} {w}: {}", s.cwnd);
    }
}

/// k loss-free RTTs, one ACK per RTT covering the whole window (a/w per segment x w segments
/// = +a per RTT exactly): from 1000, 5 RTTs at a = 8 give 1040; four more give 1048, 1056,
/// 1064 (1056 <= 1058: still a = 8) and, 1064 being above the 1058 row, a = 9: 1073.
#[test]
fn highspeed_k_rtts_add_a_per_rtt() {
    let mut c = hs(Mode::LinuxTable);
    let mut s = ca(1000.0);
    for _ in 0..5 {
        let w = s.cwnd;
        c.on_ack(&mut s, w, None, T0);
    }
    assert!(close(s.cwnd, 1040.0, 1e-9), "{}", s.cwnd);
    for _ in 0..4 {
        let w = s.cwnd;
        c.on_ack(&mut s, w, None, T0);
    }
    assert!(close(s.cwnd, 1073.0, 1e-9), "{}", s.cwnd);
}

/// Per acknowledged segment (default) versus per ACK (`per_ack = true`, Linux): 500 delayed
/// ACKs of 2 segments each at 1000 (one RTT). Per segment: each ACK adds 8 x 2/c,
/// c^2 = 1e6 + 2 x 16 x 500 = 1016000 -> 1007.9683; per ACK: 8/c, c^2 = 1e6 + 2 x 8 x 500
/// -> sqrt(1008000) = 1003.9920 (half the growth, ALGORITHMS.md "about a(w)/2 per RTT").
#[test]
fn highspeed_per_ack_counting_flag() {
    let mut per_seg = hs(Mode::LinuxTable);
    let mut per_ack = Params { per_ack: true, ..Params::default() }.build();
    let (mut s1, mut s2) = (ca(1000.0), ca(1000.0));
    acks(&mut per_seg, &mut s1, 500, 2.0);
    acks(&mut per_ack, &mut s2, 500, 2.0);
    assert!(close(s1.cwnd, 1007.9683, 1e-4), "{}", s1.cwnd);
    assert!(close(s2.cwnd, 1003.9920, 1e-4), "{}", s2.cwnd);
}

/// At or below Low_Window every mode is Reno: from 20, 20 ACKs give c^2 = 400 + 2 x 20 plus
/// sum 1/c^2 (20/420 = 0.0476) = 440.0476, c = 20.9773 (NewReno's own growth); a loss at
/// 38 leaves 19. Slow start below ssthresh: +1 per ACK.
#[test]
fn highspeed_low_window_is_reno() {
    for mode in [Mode::LinuxTable, Mode::RfcFloor, Mode::Continuous] {
        let mut c = hs(mode);
        let mut s = ca(20.0);
        acks(&mut c, &mut s, 20, 1.0);
        assert!(close(s.cwnd, 20.9773, 1e-4), "{mode:?}: {}", s.cwnd);
        assert_eq!(loss(&mut c, 38.0), 19.0, "{mode:?}");
        let mut s = CcState { cwnd: 10.0, ssthresh: 100.0, max_cwnd: f64::INFINITY, abc_limit: 1.0 };
        acks(&mut c, &mut s, 3, 1.0);
        assert_eq!(s.cwnd, 13.0);
    }
}

/// The response function (RFC 3649 section 5, Table 3: W = 0.12/p^0.835, W(1e-6) = 12279,
/// W(1e-7) = 83981) from the control law: one loss every 1/p acknowledged segments, the window
/// cut to ssthresh at each (the recovery exit of Linux and SACK), one ACK per segment. W is
/// the average window over time: segments over RTTs, an ACK lasting 1/cwnd of an RTT, taken
/// over the second half of the cycles (the first half settles the sawtooth). The RFC derived
/// a(w) so that the sawtooth's mean is w; here a and b follow the instantaneous window and
/// the tables quantise a, so expect a few per cent: within 5 % for every mode (Standard TCP
/// would average 1.2/sqrt(p) = 1200 and 3795).
#[test]
fn highspeed_response_function() {
    for (p, want, cycles) in [(1e-6, 12279.0, 12), (1e-7, 83981.0, 6)] {
        for mode in [Mode::LinuxTable, Mode::RfcFloor, Mode::Continuous] {
            let mut c = hs(mode);
            let mut s = ca(want);
            let n = (1.0 / p) as usize;
            let (mut segs, mut rtts) = (0.0, 0.0);
            for cycle in 0..cycles {
                for _ in 0..n {
                    if cycle >= cycles / 2 {
                        segs += 1.0;
                        rtts += 1.0 / s.cwnd;
                    }
                    c.on_ack(&mut s, 1.0, None, T0);
                }
                let ss = c.ssthresh(&s, s.cwnd, CongestionEvent::FastRetransmit, T0);
                s.cwnd = ss;
                s.ssthresh = ss;
            }
            let w = segs / rtts;
            assert!((w / want - 1.0).abs() < 0.05, "{mode:?} p {p}: W {w:.0} vs {want}");
        }
    }
}

/// Scripted flow: 3 duplicate ACKs at cwnd 1000 (about 1000 segments in flight) enter fast
/// recovery with the HSTCP ssthresh, 676 under linux-table (1000 - floor(83000/256)), 660
/// under rfc-floor (0.66 x 1000), not NewReno's FlightSize/2 = 500; cwnd = ssthresh + 3.
#[test]
fn highspeed_fast_retransmit_in_a_flow() {
    for (mode, ss) in [(Mode::LinuxTable, 676.0), (Mode::RfcFloor, 660.0)] {
        let mut s = flow_at(CcConfig::Highspeed(Params { mode, ..Params::default() }), 1000.0);
        assert_eq!((s.snd_max() - s.snd_una()) / MSS, 1000); // segments 1..=1000 in flight
        let sent = s.dupacks(3);
        assert_eq!(segs(&s, &sent), vec![1]);
        assert!(s.in_recovery());
        assert_eq!(s.ssthresh(), ss, "{mode:?}");
        assert_eq!(s.cwnd(), ss + 3.0);
    }
}

/// Scripted flow: an RTO at cwnd 10000 sets ssthresh by the same rule (Linux calls
/// ssthresh() on RTO too): 10000 - floor(10000 x 52/256) = 7969, and cwnd = 1.
#[test]
fn highspeed_rto_in_a_flow() {
    let mut s = flow_at(CcConfig::Highspeed(Params::default()), 10000.0);
    let sent = s.expire_timer();
    assert_eq!(segs(&s, &sent), vec![1]);
    assert_eq!(s.ssthresh(), 7969.0);
    assert_eq!(s.cwnd(), 1.0);
}

/// A flow of 20,000 segments using `cc`, segment 0 acknowledged with cwnd at `w` (so about
/// `w` segments are in flight), then cwnd set to exactly `w` in congestion avoidance.
pub fn flow_at(cc: CcConfig, w: f64) -> Script {
    let mut s = Script::with_cc(defaults(), cc.build(), 20000 * MSS);
    s.open();
    s.advance(ms(100));
    s.syn_ack(false);
    s.set_cwnd(w, w);
    s.advance(ms(100));
    s.ack_segs(1);
    s.set_cwnd(w, w);
    s
}

/// `cc = "highspeed"` and its table; a bad mode lists the modes, a bad low_p names its path.
#[test]
fn highspeed_scenario_parsing() {
    let parse = |t: &str| sim::Scenario::from_toml_str(&scenario(t)).and_then(|sc| sc.build(Some(1)).map(|_| ()));
    parse("cc = \"highspeed\"").unwrap();
    parse("cc = { kind = \"highspeed\", mode = \"rfc-floor\", per_ack = true }").unwrap();
    parse("cc = { kind = \"highspeed\", mode = \"continuous\", low_p = 1e-3 }").unwrap();
    parse("cc = { kind = \"highspeed\", mode = \"continuous\", low_p = \"ns2\" }").unwrap();
    let e = parse("cc = { kind = \"highspeed\", mode = \"ceiling\" }").unwrap_err();
    assert!(e.contains("tcp.cc") && e.contains("linux-table") && e.contains("rfc-floor"), "{e}");
    let e = parse("cc = { kind = \"highspeed\", mode = \"continuous\", low_p = 2.0 }").unwrap_err();
    assert!(e.contains("tcp.cc.low_p"), "{e}");
    let e = parse("cc = { kind = \"highspeed\", low_p = 1e-3 }").unwrap_err();
    assert!(e.contains("tcp.cc.low_p") && e.contains("continuous"), "{e}");
    let e = parse("cc = { kind = \"highspeed\", mode = \"continuous\", low_p = \"ns3\" }").unwrap_err();
    assert!(e.contains("tcp.cc") && e.contains("ns2"), "{e}");
    let e = parse("cc = { kind = \"highspeed\", md = 3 }").unwrap_err();
    assert!(e.contains("md"), "{e}");
    assert_eq!(CcConfig::by_name("highspeed"), Some(CcConfig::Highspeed(Params::default())));
    assert_eq!(Params::default().mode, Mode::LinuxTable);
    assert_eq!(highspeed::LOW_P_RFC, 1e-3);
}
