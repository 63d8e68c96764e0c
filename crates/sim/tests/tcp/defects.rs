//! The defects issue 9 lists, each as the rule it broke (these tests failed before the
//! fix that came with them).

use crate::common::*;
use sim::tcp::cc::{CcState, CongestionControl, CongestionEvent};

/// RFC 5681 counts duplicate ACKs since the last ACK that advanced snd_una. Recovery from
/// the loss of segment 0 (9 dupacks, segments 10..13 sent) ends with the full ACK of 0..9;
/// then segment 10 is lost: 11, 12, 13 give three duplicate ACKs, which must start a fast
/// retransmit of segment 10 (the counter must not carry the 9 of the last recovery).
#[test]
fn dupack_count_resets_after_full_ack() {
    let (mut s, _) = established(defaults());
    s.advance(ms(100));
    s.dupacks(9);
    s.advance(ms(100));
    s.ack_segs(10);
    assert!(!s.in_recovery());
    assert_eq!(s.dupack_count(), 0);
    let sent = s.dupacks(3);
    assert!(s.in_recovery());
    assert_eq!(segs(&s, &sent)[0], 10);
}

/// RFC 6582 3.2 step 4: "If the partial ACK acknowledges at least one SMSS of new data,
/// then add back SMSS bytes". A partial ACK of 730 B (half a segment) deflates cwnd by
/// 0.5 segment and adds nothing back: after the 3rd dupack cwnd = 8, so 8 - 0.5 = 7.5.
#[test]
fn partial_ack_below_one_smss_adds_nothing_back() {
    let (mut s, _) = established(defaults());
    s.advance(ms(100));
    s.dupacks(3);
    assert_eq!(s.cwnd(), 8.0);
    s.ack_bytes(1 + MSS / 2, 0);
    assert!(s.in_recovery());
    assert!(approx(s.cwnd(), 7.5), "cwnd {}", s.cwnd());
}

/// max_cwnd bounds the usable window, not the recovery arithmetic (ns-2's maxcwnd_ caps
/// the window the sender uses). max_cwnd = 10; segments 0 and 1 lost, 2..9 give 8
/// dupacks: cwnd 5 + 3 + 5 = 13 (usable 10). The resent 0 brings a partial ACK of one
/// segment: 13 - 1 + 1 = 13 (clamping would give 10 and a later deflation too small).
#[test]
fn max_cwnd_bounds_usable_window_only() {
    let p = TcpParams { max_cwnd: 10.0, ..defaults() };
    let (mut s, _) = established(p);
    s.advance(ms(100));
    let sent = s.dupacks(8);
    assert_eq!(segs(&s, &sent), vec![0]); // usable window 10 = flight: nothing new
    assert_eq!(s.cwnd(), 13.0);
    s.advance(ms(100));
    s.ack_segs(1);
    assert_eq!(s.cwnd(), 13.0);
}

/// A congestion control whose ssthresh is half of cwnd, to see whether it is consulted.
struct HalfCwnd;
impl CongestionControl for HalfCwnd {
    fn name(&self) -> &'static str {
        "half-cwnd"
    }
    fn on_ack(&mut self, s: &mut CcState, acked: f64, _rtt: Option<SimTime>, _now: SimTime) {
        s.cwnd += acked;
    }
    fn ssthresh(&mut self, s: &CcState, _flight: f64, _ev: CongestionEvent, _now: SimTime) -> f64 {
        (s.cwnd / 2.0).max(2.0)
    }
}

/// RFC 5681 3.1 (after eq. 4): when the segment timed out has already been retransmitted
/// by the retransmission timer, ssthresh is held constant. First RTO: ssthresh =
/// 10/2 = 5, cwnd 1. The resent segment 0 is lost too: the second RTO must keep 5 (the
/// window law would give max(1/2, 2) = 2).
#[test]
fn repeated_timeout_keeps_ssthresh() {
    let mut s = Script::with_cc(defaults(), Box::new(HalfCwnd), 1000 * MSS);
    s.open();
    s.advance(ms(100));
    s.syn_ack(false);
    s.expire_timer();
    assert_eq!(s.ssthresh(), 5.0);
    s.expire_timer();
    assert_eq!(s.ssthresh(), 5.0);
    assert_eq!(s.cwnd(), 1.0);
}

/// Opens a flow of congestion control `cc` with `p` as `Script::established` does.
fn established_cc(p: TcpParams, cc: &str) -> Script {
    let mut s = Script::with_cc(p, sim::tcp::cc::by_name(cc).expect("a built-in name"), 1000 * MSS);
    s.open();
    s.advance(ms(100));
    s.syn_ack(p.ecn);
    s
}

/// Issue "Hosts and TCP that behave like Linux", section 0: no loss response leaves
/// ssthresh above the cwnd before it (but for RFC 5681's floor of 2 segments), for every
/// congestion control and both recoveries, when snd_max - snd_una is far above cwnd: 50
/// segments sent (init_cwnd 50), then the window cut to 5 (as by an earlier reduction
/// while the old window drains). Before the fix the response took FlightSize = 50 and
/// "reduced" to 25 or more. SACK recovery also sets cwnd from ssthresh (RFC 6675), so
/// its cwnd stays at most 5; NewReno's inflation (ssthresh + 3) is recovery's own.
#[test]
fn no_loss_response_raises_the_window() {
    for &cc in sim::tcp::cc::NAMES {
        for rec in [sim::tcp::recovery::RecoveryKind::NewReno, sim::tcp::recovery::RecoveryKind::Sack] {
            let p = TcpParams { init_cwnd: 50.0, recovery: rec, ecn: cc == "dctcp", ..defaults() };
            let mut s = established_cc(p, cc);
            s.set_cwnd(5.0, 5.0);
            s.advance(ms(100));
            if rec == sim::tcp::recovery::RecoveryKind::Sack {
                for k in 1..=3 {
                    s.ack_sack(0, &[(1, 1 + k)]);
                }
            } else {
                s.dupacks(3);
            }
            assert!(s.in_recovery(), "{cc} {rec:?}");
            assert!(s.ssthresh() <= 5.0, "{cc} {rec:?}: ssthresh {} after a cwnd of 5", s.ssthresh());
            if rec == sim::tcp::recovery::RecoveryKind::Sack {
                assert!(s.cwnd() <= 5.0, "{cc} {rec:?}: cwnd {} after a cwnd of 5", s.cwnd());
            }
        }
    }
}

/// The same for a timeout after a timeout: the first RTO (nothing acknowledged of 50
/// segments) sets ssthresh from a flight of 50 and cwnd = 1 (FAST: 2); one segment is
/// then acknowledged (cwnd at most 3 in slow start, snd_max - snd_una still 49 segments) and the timer
/// fires again for the next segment: ssthresh at most max(cwnd before, 2) (RFC 5681
/// eq. 4 with FlightSize = 49 gave 24.5; Linux's tcp_enter_loss takes it from cwnd).
#[test]
fn second_timeout_reduces_from_the_window() {
    for &cc in sim::tcp::cc::NAMES {
        let p = TcpParams { init_cwnd: 50.0, ecn: cc == "dctcp", ..defaults() };
        let mut s = established_cc(p, cc);
        s.expire_timer();
        assert!(s.cwnd() <= 2.0, "{cc}: the loss window, cwnd {}", s.cwnd());
        s.advance(ms(10));
        s.ack_segs(1);
        let before = s.cwnd();
        assert!(before <= 3.0 && s.snd_max() - s.snd_una() >= 49 * MSS, "{cc}: cwnd {before}");
        s.expire_timer();
        assert!(s.ssthresh() <= before.max(2.0), "{cc}: ssthresh {} after a cwnd of {before}", s.ssthresh());
    }
}
