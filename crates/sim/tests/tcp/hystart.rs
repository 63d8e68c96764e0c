//! HyStart's two detectors (tcp/hystart.rs: Ha and Rhee 2011, Linux tcp_cubic.c) on
//! hand-made ACK sequences.

use sim::tcp::hystart::{Found, HyStart};
use sim::SimTime;

fn ms(x: u64) -> SimTime {
    SimTime::from_ms(x)
}

/// Delay increase: round 1 (ACKs up to sequence 1,000) sees RTTs of 100 ms, so the
/// minimum is 100 ms and the threshold clamp(100 / 8, 4, 16) = 12.5 ms. Round 2 (the
/// first ACK past 1,000) takes the smallest of its first 8 samples: 113 ms > 112.5 ms
/// ends slow start at its 9th sample (ssthresh = cwnd = 20); 112 ms does not. ACKs 3 ms
/// apart, so the ACK-train detector (2 ms) never fires.
#[test]
fn delay_increase_ends_slow_start() {
    for (rtt2, ends) in [(113, true), (112, false)] {
        let mut h = HyStart::default();
        let mut t = 0;
        for k in 0..9u64 {
            assert_eq!(h.on_ack(1 + k, 1000, Some(ms(100)), ms(t), 20.0, f64::INFINITY), None);
            t += 3;
        }
        let mut got = None;
        for k in 0..9u64 {
            got = h.on_ack(1001 + k, 2000, Some(ms(rtt2)), ms(t), 20.0, f64::INFINITY);
            t += 3;
            if k < 8 {
                assert_eq!(got, None, "sample {k}");
            }
        }
        assert_eq!(got, ends.then_some(20.0), "rtt {rtt2}");
        assert_eq!(h.found, ends.then_some(Found::DelayIncrease));
    }
}

/// ACK train: minimum RTT 100 ms (the first sample), then ACKs every 1 ms (within the
/// 2 ms delta) with no RTT sample: slow start ends at the first ACK more than 100 / 2 =
/// 50 ms after the round began, t = 51 ms. Below 16 segments nothing is detected.
#[test]
fn ack_train_ends_slow_start() {
    for (cwnd, at) in [(32.0, Some(51)), (15.0, None)] {
        let mut h = HyStart::default();
        let mut found_at = None;
        for t in 0..=80u64 {
            let rtt = (t == 0).then_some(ms(100));
            if h.on_ack(1 + t, 10_000, rtt, ms(t), cwnd, f64::INFINITY).is_some() {
                found_at = Some(t);
                break;
            }
        }
        assert_eq!(found_at, at, "cwnd {cwnd}");
    }
}

/// Limited slow start (RFC 3742 section 3), max_ssthresh 100, NewReno's slow start
/// (+1 per segment acknowledged), one segment per ACK, by hand:
/// - cwnd 100 (<= max_ssthresh): +1, to 101;
/// - cwnd 101: K = int(101 / 50) = 2: +1/2, to 101.5; then 102 (K = 2);
/// - from a window of 150: K = 3, +1/3 per ACK: 150 -> 150.333...
///
/// So above max_ssthresh a window of W grows by W / K ~ 50 = max_ssthresh / 2 per round.
#[test]
fn limited_slow_start_rfc3742() {
    use sim::tcp::script::Script;
    use sim::tcp::{SlowStartExit, TcpParams};
    let p = |w: f64| TcpParams {
        init_cwnd: w,
        slow_start_exit: SlowStartExit::Limited { max_ssthresh: 100 },
        ..TcpParams::default()
    };
    let (mut s, _) = Script::established(p(100.0), 100_000 * 1460, ms(100));
    s.advance(ms(100));
    for (n, want) in [(1, 101.0), (2, 101.5), (3, 102.0)] {
        s.ack_segs(n);
        assert_eq!(s.cwnd(), want, "after {n} ACKs");
    }
    let (mut s, _) = Script::established(p(150.0), 100_000 * 1460, ms(100));
    s.advance(ms(100));
    s.ack_segs(1);
    assert!((s.cwnd() - (150.0 + 1.0 / 3.0)).abs() < 1e-9, "{}", s.cwnd());
    // without it slow start adds the whole segment
    let (mut s, _) =
        Script::established(TcpParams { init_cwnd: 150.0, ..TcpParams::default() }, 100_000 * 1460, ms(100));
    s.advance(ms(100));
    s.ack_segs(1);
    assert_eq!(s.cwnd(), 151.0);
}

/// Round `g` (0-based) of hand-made HyStart++ rounds: `n` ACKs (10g + 1, 10g + 2, ...),
/// each with an RTT sample of `rtt` ms, while snd_max is 10g + 11, so the first ACK of
/// round g + 1 is the first to reach the round's windowEnd.
fn round(h: &mut sim::tcp::hystart_pp::HyStartPp, g: u64, rtt: u64, n: u64) -> Vec<(u64, Option<f64>, bool)> {
    (1..=n).map(|k| (k, h.on_ack(10 * g + k, 10 * g + 11, Some(ms(rtt)), 50.0, f64::INFINITY), h.in_css())).collect()
}

/// HyStart++ (RFC 9406 section 4.2), rounds of 10 ACKs with RTT samples:
/// - round 1 at 100 ms; round 2 at 112 ms: RttThresh = max(4, min(100 / 8, 16)) = 12.5,
///   112 < 112.5: slow start goes on; round 3 at 113 ms: 113 < 112 + 14;
/// - round 4 at 140 ms >= 113 + 14.125 enters CSS at its 8th sample (N_RTT_SAMPLE),
///   baseline 140 ms;
/// - CSS ends after CSS_ROUNDS = 5 rounds begun in it (rounds 5-9, RTTs 140-144, never
///   below the baseline): at the first ACK of round 9, ssthresh = cwnd (50).
#[test]
fn hystart_pp_rfc9406() {
    use sim::tcp::hystart_pp::HyStartPp;
    let mut h = HyStartPp::default();
    let mut css_at = None;
    let mut ended = None;
    for (g, rtt) in [100, 112, 113, 140, 140, 141, 142, 143, 144].into_iter().enumerate() {
        for (k, got, css) in round(&mut h, g as u64, rtt, 10) {
            if css && css_at.is_none() {
                css_at = Some((g + 1, k));
            }
            if got.is_some() && ended.is_none() {
                ended = Some((g + 1, k, got));
            }
        }
    }
    assert_eq!(css_at, Some((4, 8)));
    assert_eq!(ended, Some((9, 1, Some(50.0))));
    assert!(h.done && !h.in_css());

    // the growth: slow start capped at L = 8 segments per ACK, CSS a quarter of it
    let mut g = HyStartPp::default();
    assert_eq!(g.shape(20.0, 21.0), 21.0);
    assert_eq!(g.shape(20.0, 40.0), 28.0);
    round(&mut g, 0, 100, 10);
    round(&mut g, 1, 140, 10);
    assert!(g.in_css());
    assert_eq!(g.shape(20.0, 21.0), 20.25);
    // a CSS round whose minimum (120 ms) falls below the baseline (140 ms): the exit was
    // spurious, slow start again (at the 8th sample)
    let r = round(&mut g, 2, 120, 8);
    assert!(r[6].2 && !r[7].2 && !g.done);
}
