//! RFC 3168 (ECN) sections 6.1.1-6.1.5: negotiation, the sender's reaction to ECE and
//! its CWR, the receiver's ECE, pure ACKs and retransmissions not ECN-capable.

use crate::common::*;

fn ecn() -> TcpParams {
    TcpParams { ecn: true, ..defaults() }
}

/// RFC 3168 6.1.1: an ECN-setup SYN carries ECE and CWR; the receiver answers with an
/// ECN-setup SYN-ACK (ECE, not CWR); then data packets are ECT.
#[test]
fn negotiation() {
    let mut s = Script::new(ecn(), 100 * MSS);
    let syn = s.open();
    assert!(syn[0].has(flags::ECE) && syn[0].has(flags::CWR));
    let synack = s.deliver_data(&syn[0]);
    assert!(synack[0].has(flags::ECE) && !synack[0].has(flags::CWR));
    s.advance(ms(100));
    let data = s.syn_ack(true);
    assert!(data.iter().all(|p| p.has(flags::ECT)));
}

/// RFC 3168 6.1.1: without ECE in the SYN-ACK the connection is not ECN-capable.
#[test]
fn no_ect_without_negotiation() {
    let mut s = Script::new(ecn(), 100 * MSS);
    s.open();
    s.advance(ms(100));
    let data = s.syn_ack(false);
    assert!(data.iter().all(|p| !p.has(flags::ECT)));
}

/// RFC 3168 6.1.2: on ECE, ssthresh = max(FlightSize/2, 2) and cwnd = ssthresh, at most
/// once per window, and cwnd is not increased in response to an ECE ACK. The ACK of
/// segment 0 with ECE: FlightSize after it = segments 1..9 = 9, so ssthresh = cwnd = 4.5.
/// A second ECE ACK (segment 1, same window) changes nothing.
#[test]
fn ece_reduces_once_per_window_without_growth() {
    let (mut s, _) = established(ecn());
    s.advance(ms(100));
    s.ack_bytes(s.seq(1), flags::ECE);
    assert_eq!(s.ssthresh(), 4.5);
    assert_eq!(s.cwnd(), 4.5);
    s.ack_bytes(s.seq(2), flags::ECE);
    assert_eq!(s.ssthresh(), 4.5);
    assert_eq!(s.cwnd(), 4.5);
}

/// RFC 3168 6.1.2: CWR is set on the first new data packet sent after the reduction, and
/// only on it. After the ECE reduction to 4.5 (whole window 4), segments 1..9 are in
/// flight; as the ACKs of 1..8 arrive (no ECE; each adds 1/cwnd) the flight falls below
/// the window and new segments go: the first (10) carries CWR, the later ones not.
#[test]
fn cwr_on_first_new_data_after_ece() {
    let (mut s, _) = established(ecn());
    s.advance(ms(100));
    s.ack_bytes(s.seq(1), flags::ECE);
    let mut new = Vec::new();
    for k in 2..=9 {
        new.extend(s.ack_segs(k));
    }
    let news: Vec<_> = new.iter().filter(|p| !p.has(flags::RETX)).collect();
    assert!(news.len() >= 2, "{news:?}");
    assert!(news[0].has(flags::CWR));
    assert!(news[1..].iter().all(|p| !p.has(flags::CWR)));
}

/// RFC 3168 6.1.3: the receiver sets ECE on every ACK from a CE packet on until a packet
/// with CWR arrives; a CE in that same CWR packet starts ECE again.
#[test]
fn receiver_echoes_ce_until_cwr() {
    let mut s = Script::new(ecn(), 100 * MSS);
    let mk = |k: u64, f: u16| Packet {
        seq: 1 + k * MSS,
        payload: MSS as u32,
        size: MSS as u32 + 40,
        flags: flags::DATA | flags::ACK | flags::ECT | f,
        ..Packet::default()
    };
    assert!(!s.deliver_data(&mk(0, 0))[0].has(flags::ECE));
    assert!(s.deliver_data(&mk(1, flags::CE))[0].has(flags::ECE));
    assert!(s.deliver_data(&mk(2, 0))[0].has(flags::ECE));
    assert!(!s.deliver_data(&mk(3, flags::CWR))[0].has(flags::ECE));
    assert!(s.deliver_data(&mk(4, flags::CWR | flags::CE))[0].has(flags::ECE));
}

/// RFC 3168 6.1.4: pure ACKs are not ECN-capable (the ACK path has no congestion
/// response).
#[test]
fn pure_acks_not_ect() {
    let (mut s, first) = established(ecn());
    let acks = s.deliver_data(&first[0]);
    assert!(!acks[0].has(flags::ECT));
}

/// RFC 3168 6.1.5: retransmitted data packets MUST NOT be ECT (fast retransmit and RTO).
#[test]
fn retransmissions_not_ect() {
    let (mut s, _) = established(ecn());
    s.advance(ms(100));
    let fr = s.dupacks(3);
    assert!(fr[0].has(flags::RETX) && !fr[0].has(flags::ECT));
    let rto = s.expire_timer();
    assert!(rto[0].has(flags::RETX) && !rto[0].has(flags::ECT));
}

/// RFC 3168 6.1.2: a loss-driven reduction is a window reduction too: the first new data
/// packet after a fast retransmit carries CWR, so the receiver stops echoing ECE and one
/// congestion event does not reduce twice. Segment 0 lost, dupacks 1..9: cwnd reaches 11
/// at the 6th dupack and segment 10 (new data) goes with CWR.
#[test]
fn cwr_after_fast_retransmit() {
    let (mut s, _) = established(ecn());
    s.advance(ms(100));
    let sent = s.dupacks(6);
    let new: Vec<_> = sent.iter().filter(|p| !p.has(flags::RETX)).collect();
    assert_eq!(new.len(), 1);
    assert!(new[0].has(flags::CWR));
}

/// RFC 3168 6.1.2 after an RTO: the first new data packet after the timeout carries CWR.
/// RTO at 400 ms: cwnd 1, segment 0 resent; its ACK (through 9, the rest arrived)
/// gives cwnd 2 and new segments 10, 11: 10 carries CWR, 11 not.
#[test]
fn cwr_after_timeout() {
    let (mut s, _) = established(ecn());
    s.expire_timer();
    s.advance(ms(100));
    let sent = s.ack_segs(10);
    assert_eq!(segs(&s, &sent), vec![10, 11]);
    assert!(sent[0].has(flags::CWR));
    assert!(!sent[1].has(flags::CWR));
}

/// A reduction never raises the window: after an RTO (cwnd 1, ssthresh 5) an ECE on the
/// ACK of the resent segment 0 must not set cwnd from the FlightSize of the data sent
/// before the timeout (9 segments, which would give 4.5): the ECE belongs to the window
/// already reduced by the timeout, and cwnd does not grow on an ECE ACK. cwnd stays 1.
#[test]
fn ece_after_timeout_does_not_raise_cwnd() {
    let (mut s, _) = established(ecn());
    s.expire_timer();
    s.advance(ms(100));
    s.ack_bytes(s.seq(1), flags::ECE);
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(s.ssthresh(), 5.0);
}
