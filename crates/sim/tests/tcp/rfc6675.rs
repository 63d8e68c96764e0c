//! SACK: RFC 2018 (the receiver's blocks) and RFC 6675 (loss recovery), the rules as
//! ../shared/ALGORITHMS.md section 0 states them.

use crate::common::*;
use sim::tcp::recovery::RecoveryKind;
use sim::tcp::sack::SackBlock;

fn sack() -> TcpParams {
    TcpParams { recovery: RecoveryKind::Sack, ..defaults() }
}

fn data(k: u64) -> Packet {
    Packet {
        seq: 1 + k * MSS,
        payload: MSS as u32,
        size: MSS as u32 + 40,
        flags: flags::DATA | flags::ACK,
        ..Packet::default()
    }
}

fn blk(l: u64, r: u64) -> SackBlock {
    SackBlock { left: 1 + l * MSS, right: 1 + r * MSS }
}

/// RFC 2018 section 4: the receiver holds 0, then 2 arrives out of order: the ACK (of
/// everything below 1) carries one block, [2, 3). Then 4: blocks [4, 5) first (the
/// triggering segment), then [2, 3). Then 1 fills the first hole: the cumulative ACK
/// moves to 3 and the remaining block [4, 5) is still reported.
#[test]
fn receiver_blocks() {
    let mut s = Script::new(sack(), 100 * MSS);
    let (a, b) = s.deliver_data_sack(&data(0));
    assert_eq!((a[0].ack, b[0].len()), (1 + MSS, 0));
    let (a, b) = s.deliver_data_sack(&data(2));
    assert_eq!(a[0].ack, 1 + MSS);
    assert_eq!(b[0], vec![blk(2, 3)]);
    let (_, b) = s.deliver_data_sack(&data(4));
    assert_eq!(b[0], vec![blk(4, 5), blk(2, 3)]);
    let (a, b) = s.deliver_data_sack(&data(1));
    assert_eq!(a[0].ack, 1 + 3 * MSS);
    assert_eq!(b[0], vec![blk(4, 5)]);
}

/// Without SACK recovery the receiver sends no blocks.
#[test]
fn no_blocks_without_sack() {
    let mut s = Script::new(defaults(), 100 * MSS);
    s.deliver_data(&data(0));
    let (_, b) = s.deliver_data_sack(&data(2));
    assert!(b[0].is_empty());
}

/// RFC 6675 section 5 and step 4: segment 0 of 0..9 lost; ACKs SACK 1, 1..2, 1..3. The
/// third duplicate ACK starts recovery: RecoveryPoint = HighData (end of segment 9),
/// ssthresh = cwnd = FlightSize/2 = 10/2 = 5, segment 0 resent. SetPipe: un-SACKed 0 and
/// 4..9 = 7 segments, 0 is lost (3 SACKed segments > 2 SMSS above it: -1) and
/// retransmitted (+1): pipe 7 >= cwnd, so nothing else goes.
#[test]
fn recovery_starts_at_dupthresh() {
    let (mut s, _) = established(sack());
    s.advance(ms(100));
    assert!(s.ack_sack(0, &[(1, 2)]).is_empty());
    assert!(s.ack_sack(0, &[(1, 3)]).is_empty());
    assert!(!s.in_recovery());
    let sent = s.ack_sack(0, &[(1, 4)]);
    assert!(s.in_recovery());
    assert_eq!(segs(&s, &sent), vec![0]);
    assert_eq!((s.ssthresh(), s.cwnd()), (5.0, 5.0));
    assert_eq!(s.recover(), s.seq(10));
    assert_eq!(s.pipe_segs(), Some(7.0));
}

/// RFC 6675 section 5 (2): IsLost(HighACK + 1) starts recovery before DupThresh duplicate
/// ACKs: one ACK SACKing 1..4 (4 segments > 2 SMSS above segment 0).
#[test]
fn recovery_starts_when_first_segment_is_lost() {
    let (mut s, _) = established(sack());
    s.advance(ms(100));
    let sent = s.ack_sack(0, &[(1, 5)]);
    assert!(s.in_recovery());
    assert_eq!(segs(&s, &sent), vec![0]);
}

/// RFC 6675 (C) and NextSeg rules 1-2: segments 0 and 5 lost out of 0..9. After entry
/// (SACK 1..3, cwnd 5) the ACKs SACK 1..4, then 6, 7, 8 (blocks [6,x) and [1,5)):
/// - SACK 1..4: pipe = 6 un-SACKed - 1 lost + 1 retransmitted = 6: nothing;
/// - +6: pipe = 5 - 1 + 1 = 5: nothing (cwnd - pipe < SMSS);
/// - +7: pipe 4 - 1 + 1 = 4: one segment; segment 5 is not lost yet (only 2 SACKed
///   segments above it), so rule 2: new segment 10;
/// - +8: 3 SACKed segments above 5: lost. Outstanding 0..10 with 7 SACKed: un-SACKed 0,
///   5, 9, 10; lost 0 and 5; retransmitted 0: pipe = 4 - 2 + 1 = 3: two segments, rule 1
///   first (segment 5, pipe then 4), then rule 2 (new segment 11).
#[test]
fn next_seg_rules() {
    let (mut s, _) = established(sack());
    s.advance(ms(100));
    s.ack_sack(0, &[(1, 2)]);
    s.ack_sack(0, &[(1, 3)]);
    s.ack_sack(0, &[(1, 4)]);
    assert!(s.ack_sack(0, &[(1, 5)]).is_empty());
    assert_eq!(s.pipe_segs(), Some(6.0));
    assert!(s.ack_sack(0, &[(6, 7), (1, 5)]).is_empty());
    assert_eq!(s.pipe_segs(), Some(5.0));
    let sent = s.ack_sack(0, &[(6, 8), (1, 5)]);
    assert_eq!(segs(&s, &sent), vec![10]);
    let sent = s.ack_sack(0, &[(6, 9), (1, 5)]);
    assert_eq!(segs(&s, &sent), vec![5, 11]);
    assert!(sent[0].has(flags::RETX) && !sent[1].has(flags::RETX));
    // (A): the resent 0 and 5 arrive; the ACK of everything below 10 is at RecoveryPoint:
    // recovery ends with cwnd = ssthresh = 5
    s.advance(ms(100));
    s.ack_sack(5, &[(6, 9)]);
    assert!(s.in_recovery()); // below RecoveryPoint: a partial ACK
    s.ack_sack(10, &[]);
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 5.0);
}

/// RFC 6675 section 2: an ACK that advances the cumulative ACK and newly SACKs data is a
/// duplicate ACK too (DupAcks reset to 0 by the advance, then 1).
#[test]
fn cumulative_ack_with_new_sack_counts_as_duplicate() {
    let (mut s, _) = established(sack());
    s.advance(ms(100));
    s.ack_sack(1, &[(3, 4)]);
    assert_eq!(s.dupack_count(), 1);
    s.ack_sack(2, &[]);
    assert_eq!(s.dupack_count(), 0);
}

/// RFC 6675 section 5.1 and RFC 2018 section 5: an RTO ends recovery, turns off the SACKed
/// marks and resends the first unacknowledged segment; no new recovery starts before the
/// cumulative ACK reaches the RecoveryPoint set at the timeout (end of segment 9).
#[test]
fn timeout_clears_scoreboard() {
    let (mut s, _) = established(sack());
    s.advance(ms(100));
    s.ack_sack(0, &[(1, 5)]);
    assert!(s.in_recovery());
    let sent = s.expire_timer();
    assert!(!s.in_recovery());
    assert_eq!(segs(&s, &sent), vec![0]);
    assert_eq!(s.cwnd(), 1.0);
    // SACKs of data sent before the timeout do not start a recovery
    for k in 2..6 {
        s.ack_sack(0, &[(1, k)]);
    }
    assert!(!s.in_recovery());
}

/// After the timeout, go-back-N skips what the receiver SACKs again. With the window set
/// to 10 after the timeout (ssthresh 5: congestion avoidance, 10 + 1/10 -> 10 whole
/// segments), the ACK of segment 0 that SACKs 2..3 lets out 1, then 4..10 (segments 1..10
/// from snd_una), never 2 or 3.
#[test]
fn go_back_n_skips_sacked_after_timeout() {
    let (mut s, _) = established(sack());
    s.expire_timer();
    s.set_cwnd(10.0, 5.0);
    s.advance(ms(100));
    let sent = s.ack_sack(1, &[(2, 4)]);
    assert_eq!(segs(&s, &sent), vec![1, 4, 5, 6, 7, 8, 9, 10]);
}

/// SetPipe() from running totals equals SetPipe() by scanning the scoreboard after every
/// ACK of a lossy transfer, and the transfer completes. The flow is both ends: its data
/// packets go to its own receiver (5 % of them lost, chosen by a fixed LCG), whose ACKs
/// and SACK blocks come back 1 ms later; when nothing is in flight the RTO fires.
#[test]
fn incremental_pipe_matches_scan() {
    use sim::tcp::recovery::Recovery;
    for seed in 1..=20u64 {
        let p = TcpParams { init_cwnd: 60.0, ..sack() };
        let (mut s, first) = Script::established(p, 400 * MSS, ms(100));
        let mut rng = seed;
        let mut lose = move || {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (rng >> 33) % 100 < 5
        };
        let mut wire: std::collections::VecDeque<Packet> = first.into_iter().collect();
        let mut checks = 0;
        for _ in 0..100_000 {
            if s.flow.stats.end.is_some() && s.flow.stats.sender_done.is_some() {
                break;
            }
            let Some(d) = wire.pop_front() else {
                wire.extend(s.expire_timer());
                continue;
            };
            if lose() {
                continue;
            }
            let (acks, blocks) = s.deliver_data_sack(&d);
            for (a, b) in acks.iter().zip(&blocks) {
                wire.extend(s.advance_firing(ms(1)));
                wire.extend(s.deliver_ack_sack(a, b));
                if let Recovery::Sack(r) = s.flow.recovery() {
                    assert_eq!(
                        r.set_pipe(&s.flow.send_state()),
                        r.set_pipe_by_scan(&s.flow.send_state()),
                        "seed {seed}"
                    );
                    checks += 1;
                }
            }
        }
        assert!(s.flow.stats.sender_done.is_some(), "seed {seed}: transfer did not complete");
        assert_eq!(s.flow.stats.bytes_received, 400 * MSS);
        assert!(checks > 100);
    }
}

/// NextSeg rule 4: a 10-segment flow loses 0 and 9 (the tail). SACKs of 1..8 start
/// recovery at the third duplicate and resend 0 (RescueRxt = end of segment 0). When the
/// resent 0 arrives, the ACK of everything below 9 leaves only 9 outstanding: not lost
/// (nothing SACKed above it), no new data, so rules 1-3 fail; HighACK has passed
/// RescueRxt, so 9 goes as the one rescue retransmission instead of waiting for the RTO.
/// Its own loss is left to the timer: a second rescue in the same recovery is not sent.
#[test]
fn rescue_retransmission() {
    let (mut s, first) = Script::established(sack(), 10 * MSS, ms(100));
    assert_eq!(first.len(), 10);
    s.advance(ms(100));
    for k in 2..=4 {
        s.ack_sack(0, &[(1, k)]);
    }
    assert!(s.in_recovery());
    for k in 5..=9 {
        assert!(s.ack_sack(0, &[(1, k)]).is_empty());
    }
    let sent = s.ack_sack(9, &[]);
    assert_eq!(segs(&s, &sent), vec![9]);
    assert!(sent[0].has(flags::RETX));
    assert!(s.dupacks(2).is_empty());
}

/// SACK in a whole simulation: 8 long flows through a 10 Mbps / 20 ms bottleneck with a
/// 20-packet DropTail buffer (losses in bursts), 30 s, NewReno vs SACK, seeds 1-3.
/// Packets and SACK side-table slots are conserved every 100 ms (blocks travel with
/// their ACKs and are freed when the ACK is delivered or dropped). SACK resends only
/// what is missing, where NewReno learns one hole per RTT and goes back N after a
/// timeout: in every seed SACK retransmits less and delivers at least as many bytes.
/// (Timeouts: 14/25/11 NewReno vs 18/9/7 SACK: no ordering holds seed by seed.)
#[test]
fn sack_in_a_simulation() {
    let run = |recovery: &str, seed: u64| {
        let toml = format!(
            r#"
duration = "30s"
[topology]
kind = "dumbbell"
pairs = 8
access = {{ rate = "100Mbps", delay = "1ms" }}
[topology.bottleneck]
rate = "10Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = 20 }}
[tcp]
recovery = "{recovery}"
[[traffic]]
kind = "bulk"
from = "s{{i}}"
to = "d{{i}}"
count = 8
start_jitter = "10ms"
"#
        );
        let sc = sim::Scenario::from_toml_str(&toml).unwrap();
        let mut sim = sc.build(Some(seed)).unwrap();
        let mut t = SimTime::ZERO;
        while t < SimTime::from_secs(30) {
            t = t + ms(100);
            sim.run_until(t);
            sim.check_conservation().unwrap_or_else(|e| panic!("{recovery} at {t}: {e}"));
        }
        let retx: u64 = sim.flows.records().map(|f| f.stats.retransmits).sum();
        let bytes: u64 = sim.flows.records().map(|f| f.stats.bytes_received).sum();
        (retx, bytes)
    };
    for seed in 1..=3 {
        let (rx_nr, b_nr) = run("newreno", seed);
        let (rx_sack, b_sack) = run("sack", seed);
        eprintln!("seed {seed}: retransmits newreno {rx_nr} sack {rx_sack}; bytes {b_nr} {b_sack}");
        assert!(rx_sack < rx_nr, "seed {seed}");
        assert!(b_sack >= b_nr, "seed {seed}");
        // 10 Mbit/s for 30 s is 37.5 MB on the wire; payload is 1460/1500 of a full
        // packet: over 90 % of that arrives
        assert!(b_nr as f64 > 0.9 * 37.5e6 * 1460.0 / 1500.0, "seed {seed}");
    }
}

/// Lost retransmissions (tcp_mark_lost_retrans in Linux before RACK): segment 0 is lost,
/// recovery starts at the 3rd duplicate ACK and retransmits it while HighData is the end
/// of segment 9 (snd_max = seq(10)). New segments 10, 11, ... follow as the SACKs shrink
/// pipe. While the SACKs reach only up to segment 12 (high SACKed = seq(13) would be
/// needed: snd_max at the retransmission + DupThresh x SMSS = seq(10 + 3)), nothing more
/// happens to segment 0; the first SACK that covers segment 12 (block up to seq(13))
/// shows that three segments sent after the retransmission arrived without it: it is
/// lost, and goes again at once, without waiting for an RTO.
#[test]
fn lost_retransmission_is_resent() {
    let (mut s, _) = established(sack());
    s.advance(ms(100));
    let mut zero_sent = 0;
    for k in 2..=13 {
        let sent = s.ack_sack(0, &[(1, k)]);
        zero_sent += retx(&sent).iter().filter(|p| s.seg(p.seq) == 0).count();
        let want = if k < 4 {
            0
        } else if k < 13 {
            1
        } else {
            2
        };
        assert_eq!(zero_sent, want, "SACK of 1..{k}: {} new segments so far", s.snd_max() / MSS);
    }
    assert_eq!(s.flow.stats.timeouts, 0);
}

/// RFC 6937 (Proportional Rate Reduction) in SACK recovery, on the RFC's own example: a
/// window of 20 segments, segment 0 lost, one duplicate ACK per later segment (each SACKs
/// one more), Reno's ssthresh = 20 / 2 = 10, RecoverFS = cwnd = 20 at entry. At the k-th
/// duplicate ACK (k >= 3) prr_delivered = k - 2. The 3rd enters recovery: pipe = 20 - 3
/// SACKed - 1 lost = 16 > ssthresh, sndcnt = ceil(1 x 10 / 20) - 0 = 1: the fast
/// retransmit alone. While pipe > ssthresh one segment leaves per two delivered
/// (ceil((k - 2) x 10 / 20) - prr_out = 1 at odd k): new segments 20..24 at k = 5, 7, 9,
/// 11, 13, none at even k. At k = 15 pipe = 25 - 15 SACKed - 1 lost + 1 retransmitted =
/// 10 = ssthresh: the slow-start bound gives min(10 - 10, ...) = 0; from k = 16 pipe is 9
/// after each ACK and one segment leaves per ACK (25..28), so the flight ends at pipe =
/// 29 - 19 - 1 + 1 = 10 = ssthresh, PRR's aim. RFC 6675 alone (cwnd = ssthresh = 10 at
/// once) would send nothing until pipe fell below 10, then one per ACK.
#[test]
fn prr_sends_one_per_two_delivered() {
    let p = TcpParams { init_cwnd: 20.0, recovery: RecoveryKind::Sack, prr: true, ..defaults() };
    let (mut s, first) = established(p);
    assert_eq!(first.len(), 20);
    s.advance(ms(100));
    let mut sent_at = Vec::new();
    for k in 1..=19u64 {
        let sent = s.ack_sack(0, &[(1, 1 + k)]);
        sent_at.push((k, segs(&s, &sent)));
    }
    let expect: Vec<(u64, Vec<u64>)> = (1..=19u64)
        .map(|k| match k {
            3 => (k, vec![0]),
            5..=13 if k % 2 == 1 => (k, vec![20 + (k - 5) / 2]),
            16..=19 => (k, vec![25 + (k - 16)]),
            _ => (k, vec![]),
        })
        .collect();
    assert_eq!(sent_at, expect);
    assert_eq!(s.ssthresh(), 10.0);
    assert_eq!(s.pipe_segs(), Some(10.0));
    // the retransmission's ACK covers everything up to 20: recovery ends, cwnd = ssthresh
    s.ack_sack(20, &[]);
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 10.0);
}

/// PRR's slow-start reduction bound (RFC 6937 PRR-SSRB) after a burst of losses: 20
/// segments, 0..9 lost, duplicate ACKs SACK 10, 11, 12, ... The 3rd enters recovery with
/// pipe = 20 - 3 SACKed - 10 lost = 7 < ssthresh = 10: sndcnt = min(10 - 7,
/// max(prr_delivered - prr_out, DeliveredData)) = min(3, 1) = 1 (a duplicate ACK is no
/// "safe" ACK: no extra MSS): the fast retransmit of 0 alone, where RFC 6675 sends
/// ssthresh - pipe = 3 at once (0, 1, 2). Each later duplicate ACK delivers one segment
/// and lets one retransmission out (1, 2, ...): packet conservation.
#[test]
fn prr_ssrb_conserves_packets_after_a_burst_of_losses() {
    for (prr, entry) in [(true, vec![0]), (false, vec![0, 1, 2])] {
        let p = TcpParams { init_cwnd: 20.0, recovery: RecoveryKind::Sack, prr, ..defaults() };
        let (mut s, _) = established(p);
        s.advance(ms(100));
        s.ack_sack(0, &[(10, 11)]);
        s.ack_sack(0, &[(10, 12)]);
        let sent = s.ack_sack(0, &[(10, 13)]);
        assert_eq!(segs(&s, &sent), entry, "prr {prr}");
        if prr {
            let sent = s.ack_sack(0, &[(10, 14)]);
            assert_eq!(segs(&s, &sent), vec![1]);
            let sent = s.ack_sack(0, &[(10, 15)]);
            assert_eq!(segs(&s, &sent), vec![2]);
        }
    }
}

/// What a timeout does to the SACKed marks. 20 segments sent; the receiver gets the
/// odd segments 11, 13, .., 19 and reports each new one first, with the two reported
/// before (RFC 2018: at most three blocks here); the 3rd duplicate ACK starts recovery,
/// then the RTO fires (cwnd 1, go-back-N from segment 0). The go-back-N segments 0..9
/// arrive in order and each ACK repeats only the three latest blocks, 15, 17, 19. With
/// "clear" (RFC 2018 section 5) the sender forgot 11 and 13 and sends them again; with
/// "keep" (Linux's tcp_timeout_mark_lost) it skips every odd segment it knows the
/// receiver holds (the issue's PDA flows resent much of a window the first way).
#[test]
fn sack_marks_kept_or_cleared_across_a_timeout() {
    for keep in [false, true] {
        let after = if keep { sim::tcp::SackAfterRto::Keep } else { sim::tcp::SackAfterRto::Clear };
        let p = TcpParams { init_cwnd: 20.0, recovery: RecoveryKind::Sack, sack_after_rto: after, ..defaults() };
        let (mut s, _) = established(p);
        s.advance(ms(100));
        let odd = [(11, 12), (13, 14), (15, 16), (17, 18), (19, 20)];
        for k in 0..odd.len() {
            let blocks: Vec<(u64, u64)> = odd[..=k].iter().rev().take(3).copied().collect();
            s.ack_sack(0, &blocks);
        }
        assert!(s.in_recovery());
        let resent = s.expire_timer();
        assert_eq!(segs(&s, &resent)[0], 0, "go-back-N from snd_una");
        let latest = [(19, 20), (17, 18), (15, 16)];
        let mut sent = Vec::new();
        for k in 1..=14 {
            s.advance(ms(1));
            let out = s.ack_sack(k.min(11), &latest);
            sent.extend(segs(&s, &out));
        }
        for g in [11, 13] {
            assert_eq!(sent.contains(&g), !keep, "keep {keep}: sent {sent:?}");
        }
        assert!(sent.contains(&10) && sent.contains(&12), "keep {keep}: sent {sent:?}");
    }
}

/// RFC 6675 section 5 (3), limited transmit with SACK (Linux's tcp_packets_in_flight): a
/// window of 3 segments, 0..2 sent, segment 0 lost. By hand:
/// - SACK 1: pipe = 3 outstanding - 1 SACKed = 2, cwnd - pipe = 1 SMSS: new segment 3;
/// - SACK 1..2: pipe = 4 - 2 = 2 (segment 0 is not lost yet: 2 SACKed segments are not
///   more than (DupThresh - 1) SMSS above it): new segment 4;
/// - SACK 1..3: the third duplicate ACK: recovery, segment 0 retransmitted.
///
/// Without limited transmit the flight of 3 fills the window: the two duplicate ACKs the
/// window can produce send nothing, and the loss waits for the retransmission timer.
#[test]
fn limited_transmit_with_sack_keeps_a_small_window_out_of_timeouts() {
    let p = TcpParams { init_cwnd: 3.0, limited_transmit: true, ..sack() };
    let (mut s, first) = established(p);
    assert_eq!(segs(&s, &first), vec![0, 1, 2]);
    s.advance(ms(100));
    let sent = s.ack_sack(0, &[(1, 2)]);
    assert_eq!(segs(&s, &sent), vec![3]);
    assert_eq!(s.cwnd(), 3.0);
    let sent = s.ack_sack(0, &[(1, 3)]);
    assert_eq!(segs(&s, &sent), vec![4]);
    assert!(!s.in_recovery());
    let sent = s.ack_sack(0, &[(1, 4)]);
    assert!(s.in_recovery());
    assert_eq!(segs(&s, &sent)[0], 0);

    let p = TcpParams { init_cwnd: 3.0, ..sack() };
    let (mut s, _) = established(p);
    s.advance(ms(100));
    assert!(s.ack_sack(0, &[(1, 2)]).is_empty());
    assert!(s.ack_sack(0, &[(1, 3)]).is_empty());
    assert!(!s.in_recovery());
}
