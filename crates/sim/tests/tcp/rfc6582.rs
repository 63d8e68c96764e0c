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

/// RFC 6937 (PRR) without SACK, on the RFC's own example: a window of 20 segments,
/// segment 0 lost, one duplicate ACK per later segment; Reno's ssthresh = 20 / 2 = 10,
/// RecoverFS = cwnd = 20. Each duplicate ACK counts one segment delivered (RFC 6937
/// section 3; Linux's Reno counts it as SACKed), so the trace is SACK's
/// (rfc6675.rs `prr_sends_one_per_two_delivered`): at the k-th duplicate ACK (k >= 3)
/// prr_delivered = k - 2; the 3rd enters recovery with pipe = 20 - 3 counted - 1 lost =
/// 16 > ssthresh and sndcnt = ceil(1 x 10 / 20) - 0 = 1, the fast retransmit alone;
/// then one new segment per two delivered (20..24 at k = 5, 7, .., 13); at k = 15 pipe =
/// 25 - 15 = 10 = ssthresh (the slow-start bound gives 0); from k = 16 pipe = 9 and one
/// segment leaves per ACK (25..28). Without PRR (RFC 5681 inflation): cwnd = 10 + k from
/// k = 3, so nothing new leaves until cwnd reaches flight + 1 = 21 at k = 11, then one
/// per duplicate ACK (20..28 at k = 11..19): the same nine segments, in a burst at the
/// end of the window instead of spread across it.
#[test]
fn prr_without_sack_sends_one_per_two_delivered() {
    for prr in [true, false] {
        let p = TcpParams { init_cwnd: 20.0, prr, ..defaults() };
        let (mut s, first) = established(p);
        assert_eq!(first.len(), 20);
        s.advance(ms(100));
        let mut sent_at = Vec::new();
        for k in 1..=19u64 {
            let sent = s.dupacks(1);
            sent_at.push((k, segs(&s, &sent)));
        }
        let expect: Vec<(u64, Vec<u64>)> = (1..=19u64)
            .map(|k| match k {
                3 => (k, vec![0]),
                5..=13 if prr && k % 2 == 1 => (k, vec![20 + (k - 5) / 2]),
                16..=19 if prr => (k, vec![25 + (k - 16)]),
                11..=19 if !prr => (k, vec![20 + (k - 11)]),
                _ => (k, vec![]),
            })
            .collect();
        assert_eq!(sent_at, expect, "prr {prr}");
        assert_eq!(s.ssthresh(), 10.0);
        // the retransmission's ACK covers everything through 19 (a full ACK): recovery
        // ends; PRR: cwnd = ssthresh = 10 (Linux tcp_end_cwnd_reduction); RFC 6582
        // option 1: min(ssthresh, FlightSize + 1) = min(10, 9 + 1) = 10
        s.ack_segs(20);
        assert!(!s.in_recovery());
        assert_eq!(s.cwnd(), 10.0, "prr {prr}");
    }
}

/// PRR without SACK at a partial ACK. Window 0..9, segments 0 and 5 lost, ssthresh 5,
/// RecoverFS 10. Duplicate ACK k (k = 3..8) counts one delivered: the 3rd enters with
/// pipe = 10 - 3 - 1 = 6 > 5, sndcnt = ceil(1 x 5 / 10) = 1 (the retransmission of 0);
/// k = 4: ceil(2 x 5 / 10) - 1 = 0; k = 5: pipe = 5 = ssthresh, 0; k = 6..8: pipe = 4 <
/// 5, sndcnt = min(1, max(prr_delivered - prr_out, 1)) = 1 each: 10, 11, 12. The resent 0
/// arrives: the ACK of 0..4 acknowledges 5 segments, 4 of them already counted by
/// duplicate ACKs (Linux: 5 - 1 of the 8 counted), so it delivers 1 (prr_delivered 7).
/// With segment 5 lost and not yet resent pipe = (13 - 5) - 4 counted - 1 = 3 < 5; the
/// ACK advanced snd_una (the bound's extra segment): sndcnt = min(5 - 3, max(7 - 4, 1)
/// plus 1) = 2: the retransmission of 5 and one new segment, 13. Every figure here equals
/// RFC 6582's (the tests above) for this loss pattern, the window included: cwnd counts
/// the 4 segments reported delivered above snd_una, 5 + 4 = 9.
#[test]
fn prr_without_sack_partial_ack() {
    let (mut s, _) = established(TcpParams { prr: true, ..defaults() });
    s.advance(ms(100));
    let sent = s.dupacks(8);
    assert_eq!(segs(&s, &sent), vec![0, 10, 11, 12]);
    s.advance(ms(100));
    let sent = s.ack_segs(5);
    assert!(s.in_recovery());
    assert_eq!(segs(&s, &sent), vec![5, 13]);
    assert!(sent[0].has(flags::RETX));
    assert_eq!(s.cwnd(), 9.0);
}
