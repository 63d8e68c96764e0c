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
