//! RFC 6582 (NewReno) section 3.2: `recover`, full and partial ACKs, the impatient
//! timer, and the RTO rule of step 5 (with section 4.1).

use crate::common::*;

/// Segments 0 and 5 of the first flight (0..9) are lost: 1..4 and 6..9 give 8 dupacks.
/// At the 3rd: ssthresh 5, cwnd 8, segment 0 resent; dupacks 4..8 inflate to 13, so
/// segments 10, 11, 12 go (flight 10 -> cwnd must reach 11, 12, 13).
fn lose_0_and_5() -> Script {
    let (mut s, _) = established(defaults());
    s.advance(ms(100));
    let sent = s.dupacks(8);
    assert_eq!(segs(&s, &sent), vec![0, 10, 11, 12]);
    assert_eq!(s.cwnd(), 13.0);
    s
}

/// RFC 6582 3.2 step 2: on entering fast retransmit, recover = the highest sequence
/// number transmitted (last byte of segment 9: seq(10) - 1).
#[test]
fn recover_is_highest_sent_at_entry() {
    let s = lose_0_and_5();
    assert_eq!(s.recover(), s.seq(10) - 1);
}

/// RFC 6582 3.2 step 4 (partial ACK): the resent segment 0 arrives; the ACK covers 0..4
/// (segment 5 is missing), below recover. Retransmit the first unacknowledged segment
/// (5), deflate cwnd by the 5 segments acknowledged and add back one SMSS (at least one
/// SMSS was acknowledged): 13 - 5 + 1 = 9. Flight is then snd_nxt - snd_una = 13 - 5 = 8
/// segments, so one new segment (13) also goes. Recovery goes on.
#[test]
fn partial_ack_retransmits_and_deflates() {
    let mut s = lose_0_and_5();
    s.advance(ms(100));
    let sent = s.ack_segs(5);
    assert!(s.in_recovery());
    assert_eq!(s.cwnd(), 9.0);
    assert_eq!(segs(&s, &sent), vec![5, 13]);
    assert!(sent[0].has(flags::RETX));
    assert!(!sent[1].has(flags::RETX));
}

/// RFC 6582 3.2 step 4, the "impatient" variant: the timer is reset on the first partial
/// ACK only. First partial ACK at t = 300 ms: deadline 300 ms + RTO. A second partial ACK
/// 50 ms later leaves it.
#[test]
fn impatient_timer_reset_on_first_partial_ack_only() {
    let mut s = lose_0_and_5();
    s.advance(ms(100));
    s.ack_segs(5);
    let first = s.rto_deadline().unwrap();
    assert_eq!(first, s.now + s.rto());
    s.advance(ms(50));
    s.ack_segs(7); // segments 5 and 6 acknowledged: still below recover, a partial ACK
    assert!(s.in_recovery());
    assert_eq!(s.rto_deadline(), Some(first));
}

/// RFC 6582 3.2 step 3: a full ACK (above recover) ends recovery; option 1 sets
/// cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS). After the partial ACK above,
/// segments 10..13 are in flight past 9; the ACK of everything through 9 leaves 4 in
/// flight: min(5, 4 + 1) = 5.
#[test]
fn full_ack_ends_recovery() {
    let mut s = lose_0_and_5();
    s.advance(ms(100));
    s.ack_segs(5);
    s.advance(ms(100));
    s.ack_segs(10);
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 5.0);
}

/// RFC 6582 3.2 step 5 / section 4.1: after an RTO, recover = highest sequence sent;
/// three duplicate ACKs that do not cover more than recover must not start a new fast
/// retransmit (they are duplicates of data sent before the timeout).
#[test]
fn dupacks_not_above_recover_after_rto_do_not_fast_retransmit() {
    let (mut s, _) = established(defaults());
    s.expire_timer();
    assert_eq!(s.recover(), s.seq(10) - 1);
    let sent = s.dupacks(3);
    assert!(sent.is_empty());
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 1.0);
}
