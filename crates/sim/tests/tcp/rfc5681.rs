//! RFC 5681 (TCP congestion control): section 3.1 (slow start, congestion avoidance,
//! the loss window) and section 3.2 (fast retransmit / fast recovery, steps 1-6).

use crate::common::*;

/// RFC 5681 3.1: the initial window is the configured IW (init_cwnd = 10, RFC 6928);
/// "the initial value of ssthresh SHOULD be set arbitrarily high".
#[test]
fn initial_window_and_ssthresh() {
    let (s, first) = established(defaults());
    assert_eq!(segs(&s, &first), (0..10).collect::<Vec<_>>());
    assert_eq!(s.cwnd(), 10.0);
    assert_eq!(s.ssthresh(), f64::INFINITY);
}

/// RFC 5681 3.1 eq. 2: in slow start cwnd += min(N, SMSS) per ACK. The ACK of segment 0
/// gives cwnd 11; 9 segments remain in flight, so 11 - 9 = 2 new segments (10, 11) go.
#[test]
fn slow_start_adds_one_segment_per_ack() {
    let (mut s, _) = established(defaults());
    s.advance(ms(100));
    let sent = s.ack_segs(1);
    assert_eq!(s.cwnd(), 11.0);
    assert_eq!(segs(&s, &sent), vec![10, 11]);
}

/// RFC 5681 3.1 eq. 2: an ACK covering N = 2 segments still adds at most one SMSS
/// (cwnd 10 -> 11, not 12; RFC 3465's L = 2 is not used).
#[test]
fn slow_start_counts_at_most_one_smss_per_ack() {
    let (mut s, _) = established(defaults());
    s.advance(ms(100));
    s.ack_segs(2);
    assert_eq!(s.cwnd(), 11.0);
}

/// RFC 5681 3.1 eq. 3: in congestion avoidance cwnd += SMSS*SMSS/cwnd per ACK, i.e.
/// 1/cwnd segments. From cwnd = ssthresh = 10, ten ACKs of one segment each give
/// c <- c + 1/c ten times: 10.1, 10.19901, 10.29706, 10.39417, 10.49038, 10.58571,
/// 10.68017, 10.77381, 10.86662, 10.95865 (about one segment per RTT).
#[test]
fn congestion_avoidance_adds_one_over_cwnd_per_ack() {
    let (mut s, _) = established(defaults());
    s.set_cwnd(10.0, 10.0);
    s.advance(ms(100));
    for k in 1..=10 {
        s.ack_segs(k);
    }
    assert!((s.cwnd() - 10.95865).abs() < 1e-5, "cwnd {}", s.cwnd());
}

/// RFC 5681 3.1 eq. 4 and the loss window: on an RTO, ssthresh = max(FlightSize/2,
/// 2 SMSS) = max(10/2, 2) = 5 and cwnd = LW = 1 segment; only segment 0 is resent.
#[test]
fn timeout_sets_ssthresh_half_flight_and_cwnd_one() {
    let (mut s, _) = established(defaults());
    let sent = s.expire_timer();
    assert_eq!(s.ssthresh(), 5.0);
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(segs(&s, &sent), vec![0]);
    assert!(sent[0].has(flags::RETX));
}

/// RFC 5681 eq. 4 floor: with 3 segments in flight, ssthresh = max(3/2, 2) = 2.
#[test]
fn ssthresh_floor_is_two_segments() {
    let p = TcpParams { init_cwnd: 3.0, ..defaults() };
    let (mut s, first) = established(p);
    assert_eq!(first.len(), 3);
    s.expire_timer();
    assert_eq!(s.ssthresh(), 2.0);
}

/// RFC 5681 3.1: "if the SYN or SYN/ACK is lost, the initial window used by a sender
/// after a correctly transmitted SYN MUST be one segment".
#[test]
fn initial_window_is_one_after_lost_syn() {
    let mut s = Script::new(defaults(), 1000 * MSS);
    s.open();
    let resent = s.expire_timer(); // SYN lost: resent at t = 1 s (initial RTO)
    assert!(resent[0].has(flags::SYN));
    assert_eq!(s.now, SimTime::from_secs(1));
    s.advance(ms(100));
    let first = s.syn_ack(false);
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(segs(&s, &first), vec![0]);
}

/// Segment 0 of the first flight (0..9) is lost; segments 1..9 each trigger a duplicate
/// ACK. Returns the script after `n` dupacks and what the n-th sent.
fn lose_first(n: u32) -> (Script, Vec<Packet>) {
    let (mut s, _) = established(defaults());
    s.advance(ms(100));
    let mut last = Vec::new();
    for _ in 0..n {
        last = s.dupacks(1);
    }
    (s, last)
}

/// RFC 5681 3.2 step 1: the first and second duplicate ACKs send nothing here (limited
/// transmit is off by default: SCENARIOS.md follows ns-2's NewReno) and leave cwnd.
#[test]
fn fr_step1_first_two_dupacks() {
    let (s, sent) = lose_first(2);
    assert!(sent.is_empty());
    assert_eq!(s.cwnd(), 10.0);
    assert!(!s.in_recovery());
}

/// RFC 5681 3.2 steps 2-3: the third duplicate ACK sets ssthresh = max(FlightSize/2, 2)
/// = 10/2 = 5, retransmits the first unacknowledged segment (0) and sets cwnd =
/// ssthresh + 3 = 8.
#[test]
fn fr_steps2_3_third_dupack() {
    let (s, sent) = lose_first(3);
    assert_eq!(s.ssthresh(), 5.0);
    assert_eq!(s.cwnd(), 8.0);
    assert_eq!(segs(&s, &sent), vec![0]);
    assert!(sent[0].has(flags::RETX));
    assert!(s.in_recovery());
}

/// RFC 5681 3.2 steps 4-5: each further duplicate ACK inflates cwnd by one; new data
/// goes when cwnd allows. Flight (snd_nxt - snd_una) is 10 segments: dupacks 4, 5 and 6
/// give cwnd 9, 10, 11, so the 6th dupack releases segment 10; 9 dupacks give cwnd 14
/// and segments 10..13.
#[test]
fn fr_steps4_5_inflate_and_send() {
    let (s, sent) = lose_first(5);
    assert_eq!(s.cwnd(), 10.0);
    assert!(sent.is_empty());
    let (mut s, sent) = lose_first(6);
    assert_eq!(s.cwnd(), 11.0);
    assert_eq!(segs(&s, &sent), vec![10]);
    let more = s.dupacks(3);
    assert_eq!(s.cwnd(), 14.0);
    assert_eq!(segs(&s, &more), vec![11, 12, 13]);
}

/// RFC 5681 3.2 step 6 with RFC 6582 3.2 step 3 option 1: the ACK of the retransmitted
/// segment 0 covers 0..9 (a full ACK: above recover = last byte of segment 9); cwnd =
/// min(ssthresh, max(FlightSize, SMSS) + SMSS) with FlightSize = segments 10..13 = 4:
/// min(5, 4 + 1) = 5. Recovery ends.
#[test]
fn fr_step6_full_ack_deflates() {
    let (mut s, _) = lose_first(9);
    s.advance(ms(100));
    s.ack_segs(10);
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 5.0);
}
