//! TCP-DCR (draft-bhandarkar-tcp-dcr-00 section 4) and TCP-NCR (RFC 4653 section 3) as
//! wrappers of the loss-recovery piece, against ../shared/ALGORITHMS.md sections 9 and 10
//! and their hand-computed test values.

use crate::common::*;
use sim::tcp::recovery::dcr::{DcrBase, DcrConfig};
use sim::tcp::recovery::ncr::{NcrConfig, NcrVariant};
use sim::tcp::recovery::{RecoveryKind, Reordering};

fn dcr(recovery: RecoveryKind) -> TcpParams {
    TcpParams { recovery, reordering: Reordering::Dcr(DcrConfig::default()), ..defaults() }
}

fn ncr(variant: NcrVariant, init_cwnd: f64) -> TcpParams {
    TcpParams {
        recovery: RecoveryKind::Sack,
        reordering: Reordering::Ncr(NcrConfig { variant }),
        init_cwnd,
        ..defaults()
    }
}

/// ALGORITHMS.md 9, timer mode: SRTT = 104 ms (the SYN-ACK's sample, RFC 6298 2.2), the
/// first duplicate ACK at t = 208 ms starts tau = 104 ms: no fast retransmit at the 3rd
/// or 5th duplicate ACK, one new segment per duplicate ACK (10, 11, ...: FlightSize was
/// 10 at the first one), and the retransmission of segment 0 exactly at 208 + 104 =
/// 312 ms. The response is based on the flight at the first duplicate ACK (9 (a)):
/// ssthresh = cwnd = max(10 / 2, 2) = 5, not 15 / 2 with the five segments sent during
/// tau. (The RTO, 312 ms after the first flight at 104 ms, would fire at 416 ms.)
#[test]
fn dcr_waits_one_srtt_then_retransmits() {
    let (mut s, first) = Script::established(dcr(RecoveryKind::Sack), 1000 * MSS, ms(104));
    assert_eq!(first.len(), 10);
    s.advance(ms(104));
    let mut new = Vec::new();
    for k in 1..=5 {
        let sent = s.ack_sack(0, &[(1, 1 + k)]);
        new.extend(segs(&s, &sent));
    }
    assert_eq!(new, vec![10, 11, 12, 13, 14], "one new segment per duplicate ACK");
    assert!(!s.in_recovery());
    assert_eq!(s.flow.stats.retransmits, 0);
    assert_eq!(s.recovery_deadline(), Some(ms(312)));
    let sent = s.expire_timer();
    assert_eq!(s.now, ms(312));
    assert!(s.in_recovery());
    assert_eq!(segs(&s, &retx(&sent).into_iter().copied().collect::<Vec<_>>()), vec![0]);
    assert_eq!((s.ssthresh(), s.cwnd()), (5.0, 5.0));
    // the delayed retransmission restarts the retransmission timer: RTO = SRTT +
    // 4 RTTVAR = 104 + 4 x 52 = 312 ms from 312 ms (it ran from the first flight at
    // 104 ms: 416 ms, before the retransmission could be acknowledged at ~416 ms)
    assert_eq!(s.rto_deadline(), Some(ms(624)));
}

/// `rearm_rto = false`: the timer keeps running from the first flight (104 + 312 ms).
#[test]
fn dcr_without_rearm_keeps_the_timer() {
    let p = TcpParams {
        reordering: Reordering::Dcr(DcrConfig { rearm_rto: false, ..DcrConfig::default() }),
        ..dcr(RecoveryKind::Sack)
    };
    let (mut s, _) = Script::established(p, 1000 * MSS, ms(104));
    s.advance(ms(104));
    for k in 1..=3 {
        s.ack_sack(0, &[(1, 1 + k)]);
    }
    s.expire_timer();
    assert!(s.in_recovery());
    assert_eq!(s.rto_deadline(), Some(ms(416)));
}

/// The literal-draft option `base = expiry`: the response uses FlightSize at expiry,
/// 15 segments (0..14 outstanding): ssthresh = 15 / 2 = 7.5.
#[test]
fn dcr_base_at_expiry() {
    let p = TcpParams {
        reordering: Reordering::Dcr(DcrConfig { base: DcrBase::Expiry, ..DcrConfig::default() }),
        ..dcr(RecoveryKind::Sack)
    };
    let (mut s, _) = Script::established(p, 1000 * MSS, ms(104));
    s.advance(ms(104));
    for k in 1..=5 {
        s.ack_sack(0, &[(1, 1 + k)]);
    }
    s.expire_timer();
    assert_eq!(s.ssthresh(), 7.5);
}

/// The hole fills before tau (reordering): the cumulative ACK of 0..5 at 250 ms cancels
/// the timer; past 312 ms nothing is retransmitted and the window was not reduced.
/// Slow start went on: each duplicate ACK during tau grew it as one ACK of one segment
/// (+3), and the cumulative ACK adds min(5, 1) (RFC 5681 eq. 2): 10 + 3 + 1 = 14.
#[test]
fn dcr_hole_filled_no_response() {
    let (mut s, _) = Script::established(dcr(RecoveryKind::Sack), 1000 * MSS, ms(104));
    s.advance(ms(104));
    for k in 1..=3 {
        s.ack_sack(0, &[(1, 1 + k)]);
    }
    s.advance(ms(42));
    s.ack_segs(5);
    assert_eq!(s.recovery_deadline(), None);
    s.advance_firing(ms(100));
    assert_eq!(s.flow.stats.retransmits, 0);
    assert_eq!(s.flow.stats.fast_retransmits, 0);
    assert_eq!(s.cwnd(), 14.0);
}

/// A second overtaken hole: segments 0 and 2 delayed, 1 and 3.. arrive. When 0 arrives
/// the cumulative ACK moves to 2 with 3.. still SACKed above it: that hole gets its own
/// tau from now (250 ms + 104 ms), instead of an immediate fast retransmit by IsLost()
/// (3 segments SACKed above segment 2 would make it lost for plain SACK).
#[test]
fn dcr_next_hole_gets_its_own_delay() {
    let (mut s, _) = Script::established(dcr(RecoveryKind::Sack), 1000 * MSS, ms(104));
    s.advance(ms(104));
    s.ack_sack(0, &[(1, 2)]);
    s.ack_sack(0, &[(3, 4), (1, 2)]);
    s.ack_sack(0, &[(3, 5), (1, 2)]);
    s.ack_sack(0, &[(3, 6), (1, 2)]);
    s.advance(ms(42));
    let sent = s.ack_sack(2, &[(3, 6)]);
    assert!(retx(&sent).is_empty());
    assert!(!s.in_recovery());
    assert_eq!(s.recovery_deadline(), Some(ms(250 + 104)));
    // the second hole is really lost: fast retransmit of segment 2 when its tau ends
    let sent = s.expire_timer();
    assert_eq!(s.now, ms(354));
    assert_eq!(segs(&s, &retx(&sent).into_iter().copied().collect::<Vec<_>>()), vec![2]);
}

/// DCR around NewReno (no SACK): plain duplicate ACKs, no fast retransmit at the 3rd; at
/// expiry RFC 5681 3.2 steps 2-3 with the first-dupack flight: ssthresh = 10 / 2 = 5,
/// cwnd = ssthresh + 3 = 8.
#[test]
fn dcr_wraps_newreno() {
    let (mut s, _) = Script::established(dcr(RecoveryKind::NewReno), 1000 * MSS, ms(104));
    s.advance(ms(104));
    let sent = s.dupacks(4);
    assert_eq!(segs(&s, &sent), vec![10, 11, 12, 13]);
    assert!(!s.in_recovery());
    let sent = s.expire_timer();
    assert_eq!(s.now, ms(312));
    assert_eq!(segs(&s, &retx(&sent).into_iter().copied().collect::<Vec<_>>()), vec![0]);
    assert_eq!((s.ssthresh(), s.cwnd()), (5.0, 8.0));
}

/// An RTO during tau still counts (the slides): with tau = 1 s the RTO (416 ms) comes
/// first; tau is cancelled, the timeout is processed as usual (ssthresh = FlightSize/2 =
/// 13 / 2 = 6.5, cwnd = 1, segment 0 resent) and no delayed response follows.
#[test]
fn dcr_rto_during_tau() {
    let p = TcpParams {
        reordering: Reordering::Dcr(DcrConfig { tau: Some(ms(1000)), ..DcrConfig::default() }),
        ..dcr(RecoveryKind::Sack)
    };
    let (mut s, _) = Script::established(p, 1000 * MSS, ms(104));
    s.advance(ms(104));
    for k in 1..=3 {
        s.ack_sack(0, &[(1, 1 + k)]);
    }
    let sent = s.expire_timer();
    assert_eq!(s.now, ms(416));
    assert_eq!(s.flow.stats.timeouts, 1);
    assert_eq!(segs(&s, &sent), vec![0]);
    assert_eq!((s.ssthresh(), s.cwnd()), (6.5, 1.0));
    assert_eq!(s.recovery_deadline(), None);
}

/// ALGORITHMS.md 10 test values, FlightSizePrev = 30, the s-th SACK-bearing ACK SACKing
/// segments 1..=s above a single hole at 0 (DupThresh rounded up, loss tested with the
/// previous ACK's E.6 value):
/// - Careful (LT_F = 2/3): DupThresh starts at max(2/3 x 30, 3) = 20; at s = 1 pipe = 29 =
///   FlightSizePrev - 1, so a segment goes (Skipped = 1), then on every other SACK:
///   ceil(s/2) new after s SACKs; after s = 29, 15 sent, FlightSize 45, DupThresh =
///   ceil(2/3 x 45) = 30, so the 30th SACK starts recovery;
/// - Aggressive (LT_F = 1/2): DupThresh 15, one new per SACK; after s = 28, FlightSize 58,
///   DupThresh 29: the 29th SACK starts recovery with 28 sent.
///
/// Then ssthresh = cwnd = FlightSizePrev / 2 = 15 (section 3.4).
#[test]
fn ncr_trigger_points() {
    for (variant, trigger, sent_before) in [(NcrVariant::Careful, 30, 15), (NcrVariant::Aggressive, 29, 28)] {
        let (mut s, first) = Script::established(ncr(variant, 30.0), 1000 * MSS, ms(100));
        assert_eq!(first.len(), 30);
        s.advance(ms(100));
        let mut new = 0;
        for k in 1..trigger {
            let sent = s.ack_sack(0, &[(1, 1 + k)]);
            assert!(retx(&sent).is_empty(), "{variant:?}: retransmission at SACK {k}");
            new += sent.len();
            if variant == NcrVariant::Careful {
                assert_eq!(new as u64, k.div_ceil(2), "careful: ceil(s/2) new after s = {k}");
            }
        }
        assert_eq!(new, sent_before, "{variant:?}");
        assert!(!s.in_recovery());
        let sent = s.ack_sack(0, &[(1, 1 + trigger)]);
        assert!(s.in_recovery(), "{variant:?}: recovery at SACK {trigger}");
        assert_eq!(segs(&s, &retx(&sent).into_iter().copied().collect::<Vec<_>>())[0], 0);
        assert_eq!((s.ssthresh(), s.cwnd()), (15.0, 15.0), "{variant:?}");
    }
}

/// RFC 4653 3.2, reordering: ELT ends with the cumulative ACK. FlightSizePrev = 30;
/// after 4 SACKs (Careful: 2 new sent, 32 outstanding) the hole fills and the ACK covers
/// 0..=4: FlightSize = 32 - 5 = 27, so cwnd = min(27 + 1, 30) = 28 (T.1) and ssthresh =
/// 30 (T.2): slow start back to the old operating point. No retransmission.
#[test]
fn ncr_reordering_restores_window() {
    let (mut s, _) = Script::established(ncr(NcrVariant::Careful, 30.0), 1000 * MSS, ms(100));
    s.advance(ms(100));
    for k in 1..=4 {
        s.ack_sack(0, &[(1, 1 + k)]);
    }
    assert_eq!(s.snd_max(), s.seq(32));
    s.ack_segs(5);
    assert_eq!(s.flow.stats.retransmits, 0);
    assert_eq!(s.ssthresh(), 30.0);
    assert_eq!(s.cwnd(), 28.0, "T.1 sets cwnd; the ending ACK does not grow it again");
}

/// A small flight: FlightSize 4 gives DupThresh = max(2/3 x 4, 3) = 3 at entry
/// (ALGORITHMS.md 10). The first SACK lets one new segment out (pipe 3 <= 4 - 1), so E.6
/// makes it ceil(2/3 x 5) = 4; the third SACK also sends (pipe 5 - 3 = 2, + Skipped 1 =
/// 3 <= 3): FlightSize 6, DupThresh 4. The 4th SACK starts recovery, ssthresh = 4 / 2 = 2.
#[test]
fn ncr_small_flight() {
    let (mut s, _) = Script::established(ncr(NcrVariant::Careful, 4.0), 1000 * MSS, ms(100));
    s.advance(ms(100));
    let sent = s.ack_sack(0, &[(1, 2)]);
    assert_eq!(segs(&s, &sent), vec![4]);
    assert_eq!(s.flow.p.dupack_threshold, 3);
    s.ack_sack(0, &[(1, 3)]);
    s.ack_sack(0, &[(1, 4)]);
    assert_eq!(s.snd_max(), s.seq(6));
    assert!(!s.in_recovery());
    s.ack_sack(0, &[(1, 5)]);
    assert!(s.in_recovery());
    assert_eq!(s.ssthresh(), 2.0);
}

/// `[tcp] reordering`: names, tables, and one-line errors naming the field.
#[test]
fn reordering_in_scenarios() {
    let parse = |t: &str| sim::Scenario::from_toml_str(&scenario(t)).and_then(|sc| sc.build(Some(1)).map(|_| ()));
    parse("reordering = \"dcr\"").unwrap();
    parse("reordering = { kind = \"dcr\", tau_srtt = 2.0, base = \"expiry\" }").unwrap();
    parse("recovery = \"sack\"\nreordering = { kind = \"ncr\", variant = \"aggressive\" }").unwrap();
    // NCR builds on SACK: accepted under the default host (Linux's: SACK recovery),
    // refused where NewReno recovery is chosen
    parse("reordering = \"ncr\"").unwrap();
    let e = parse("recovery = \"newreno\"\nreordering = \"ncr\"").unwrap_err();
    assert!(e.contains("tcp.reordering") && e.contains("sack"), "{e}");
    let e = parse("reordering = \"rack\"").unwrap_err();
    assert!(e.contains("tcp.reordering") && e.contains("dcr, ncr"), "{e}");
    let e = parse("reordering = { kind = \"dcr\", tau_srtt = -1.0 }").unwrap_err();
    assert!(e.contains("tcp.reordering.tau_srtt"), "{e}");
    let e = parse("reordering = { kind = \"dcr\", tau_srtt = nan }").unwrap_err();
    assert!(e.contains("tcp.reordering.tau_srtt"), "{e}");
    let e = parse("reordering = { kind = \"ncr\", variant = \"bold\" }").unwrap_err();
    assert!(e.contains("tcp.reordering") && e.contains("careful"), "{e}");
}

/// The defect of a delayed response when snd_max - snd_una is far above cwnd (after a
/// long SACK recovery, whose SACKed data above the holes stays in it, or after a window
/// reduction while the old window drains): TCP-DCR took the flight at the first duplicate
/// ACK as snd_max - snd_una. A SACK + DCR flow sends 50 segments (init_cwnd 50); its
/// window is then cut to cwnd = ssthresh = 5 (as an ECN or local reduction would) with
/// the 50 still unacknowledged. A duplicate ACK SACKing segment 1 starts tau: the flight
/// the window lets be in the network is min(50, 5) = 5 segments, and packet conservation
/// allows 5 + 1 duplicate ACK = 6 < 50: nothing new leaves (before the fix: 50 + 1, so
/// segment 50 left). When tau expires the response is based on that flight of 5:
/// ssthresh = max(5 / 2, 2) = 2.5, never above the cwnd of 5 before it (before the fix:
/// 50 / 2 = 25, a "reduction" to five times the window).
#[test]
fn dcr_response_bounded_by_cwnd() {
    let p = TcpParams { init_cwnd: 50.0, ..dcr(RecoveryKind::Sack) };
    let (mut s, first) = Script::established(p, 1000 * MSS, ms(100));
    assert_eq!(first.len(), 50);
    s.set_cwnd(5.0, 5.0);
    s.advance(ms(100));
    let sent = s.ack_sack(0, &[(1, 2)]);
    assert_eq!(segs(&s, &sent), Vec::<u64>::new(), "nothing new beyond the window");
    assert!(s.recovery_deadline().is_some(), "tau runs");
    let before = s.cwnd();
    s.expire_timer();
    assert!(s.in_recovery());
    assert_eq!(s.ssthresh(), 2.5, "after a cwnd of {before}");
    assert!(s.cwnd() <= before, "cwnd {} after {before}", s.cwnd());
}

/// DCR over SACK with limited transmit on (Linux's host): during tau DCR's own rule,
/// one new segment per duplicate ACK beyond the flight at the first one (ALGORITHMS.md
/// 9 (b)), is the only sending rule, as with it off: segments 10-14 for five duplicate
/// ACKs. RFC 6675's limited transmit compares pipe (SACKed data out) with the same
/// allowance, which counts each duplicate ACK's segment already; together they let two
/// segments out per duplicate ACK (cwnd 10 + k and pipe 10 + sent - k after k of them:
/// 9 new segments for 5), so a full queue kept overflowing for the whole of tau: one flow
/// of H-TCP at 1 Gbps without reordering lost 0.74 % of its packets, against 0.006 %.
#[test]
fn dcr_during_tau_one_segment_per_dupack_with_limited_transmit() {
    let p = TcpParams { limited_transmit: true, ..dcr(RecoveryKind::Sack) };
    let (mut s, first) = Script::established(p, 1000 * MSS, ms(104));
    assert_eq!(first.len(), 10);
    s.advance(ms(104));
    let mut new = Vec::new();
    for k in 1..=5 {
        let sent = s.ack_sack(0, &[(1, 1 + k)]);
        new.extend(segs(&s, &sent));
    }
    assert_eq!(new, vec![10, 11, 12, 13, 14], "one new segment per duplicate ACK");
    let sent = s.expire_timer();
    assert_eq!(segs(&s, &retx(&sent).into_iter().copied().collect::<Vec<_>>()), vec![0]);
}

/// DCR over SACK on Linux's host (limited transmit): data SACKed above a hole is not in
/// the network, so it must not take the window's place during tau. Segments 0 and 2 are
/// overtaken; cwnd = ssthresh = 10 (congestion avoidance, growing by 1/cwnd an ACK).
/// Duplicate ACKs SACKing 1, then 3, then 4 send 10, 11, 12 (one per duplicate ACK).
/// Segment 0 arrives: the ACK of 2 leaves 3 and 4 SACKed above the next hole, which
/// starts its own tau. Outstanding is 13 - 2 = 11 segments, of which 2 are SACKed: 9 in
/// the network against a window of 10.5 (10 + 5 ACKs / 10). The allowance is the
/// outstanding data, at most the window plus the SACKed 2: min(11, 12.5) = 11, plus this
/// ACK's 1: segment 13 leaves (10 in the network). The next duplicate ACK (SACKing 5)
/// sends 14: still 10. Before, the SACKed segments counted against the window: nothing
/// left at the ACK of 2, segment 13 at the next, 9 in the network for as long as holes
/// kept overtaking (one flow of H-TCP at 1 Gb/s with 1 % of packets delayed 25 ms: 89.7 %
/// utilisation with a window above the path's).
#[test]
fn dcr_sacked_data_above_the_hole_is_not_in_the_window() {
    let p = TcpParams { limited_transmit: true, ..dcr(RecoveryKind::Sack) };
    let (mut s, first) = Script::established(p, 1000 * MSS, ms(104));
    assert_eq!(first.len(), 10);
    s.set_cwnd(10.0, 10.0);
    s.advance(ms(104));
    let sent_at = |s: &mut Script, cum: u64, blocks: &[(u64, u64)]| {
        let p = s.ack_sack(cum, blocks);
        segs(s, &p)
    };
    let mut new = sent_at(&mut s, 0, &[(1, 2)]);
    new.extend(sent_at(&mut s, 0, &[(3, 4), (1, 2)]));
    new.extend(sent_at(&mut s, 0, &[(3, 5), (1, 2)]));
    assert_eq!(new, vec![10, 11, 12], "one new segment per duplicate ACK");
    let at_ack = sent_at(&mut s, 2, &[(3, 5)]);
    assert!(s.recovery_deadline().is_some(), "the next hole's tau runs");
    assert_eq!(at_ack, vec![13], "the SACKed 3 and 4 are not in the network");
    let next = sent_at(&mut s, 2, &[(3, 6)]);
    assert_eq!(next, vec![14], "one new segment per duplicate ACK");
    // in the network: outstanding less the SACKed 3, 4 and 5
    assert_eq!(s.snd_max() / MSS - s.snd_una() / MSS - 3, 10);
    assert!(!s.in_recovery());
}
