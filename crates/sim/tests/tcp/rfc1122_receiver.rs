//! The receiver: delayed ACK (RFC 1122 4.2.3.2, RFC 5681 4.2), immediate ACKs for
//! out-of-order data and filled holes, timestamps echo (Karn), and FIN / completion.

use crate::common::*;

fn data(k: u64, f: u16) -> Packet {
    Packet {
        seq: 1 + k * MSS,
        payload: MSS as u32,
        size: MSS as u32 + 40,
        ts: SimTime::from_ms(k),
        flags: flags::DATA | flags::ACK | f,
        ..Packet::default()
    }
}

fn delack() -> TcpParams {
    TcpParams { delayed_ack: true, ..defaults() }
}

/// RFC 1122 4.2.3.2: "an ACK should be generated for at least every second full-sized
/// segment": the first in-order segment is held, the second is acknowledged at once.
#[test]
fn ack_every_second_full_segment() {
    let mut s = Script::new(delack(), 100 * MSS);
    assert!(s.deliver_data(&data(0, 0)).is_empty());
    let a = s.deliver_data(&data(1, 0));
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].ack, 1 + 2 * MSS);
    // RFC 7323 4.3: the echo is of the earliest unacknowledged segment (segment 0)
    assert_eq!(a[0].ts_echo, SimTime::from_ms(0));
}

/// RFC 1122 4.2.3.2: the delay must be less than 0.5 s; a lone segment is acknowledged
/// when the delayed-ACK timer (200 ms) expires.
#[test]
fn lone_segment_acked_after_timeout() {
    let mut s = Script::new(delack(), 100 * MSS);
    assert!(s.deliver_data(&data(0, 0)).is_empty());
    assert_eq!(s.delack_deadline(), Some(ms(200)));
    s.advance(ms(199));
    assert!(s.receiver_timer().is_empty());
    s.advance(ms(1));
    let a = s.receiver_timer();
    assert_eq!(a[0].ack, 1 + MSS);
}

/// RFC 5681 4.2: an out-of-order segment is acknowledged at once (a duplicate ACK), and
/// so is the segment that fills the hole (ACK of everything buffered).
#[test]
fn out_of_order_and_hole_fill_acked_at_once() {
    let mut s = Script::new(delack(), 100 * MSS);
    let dup = s.deliver_data(&data(1, 0));
    assert_eq!(dup[0].ack, 1);
    let fill = s.deliver_data(&data(0, 0));
    assert_eq!(fill[0].ack, 1 + 2 * MSS);
}

/// RFC 6298 section 3 (Karn), receiver side: the ACK of a retransmitted segment carries no
/// valid timestamp echo.
#[test]
fn no_echo_for_retransmission() {
    let mut s = Script::new(defaults(), 100 * MSS);
    let a = s.deliver_data(&data(0, flags::RETX));
    assert!(!a[0].has(flags::TSV));
    let b = s.deliver_data(&data(1, 0));
    assert!(b[0].has(flags::TSV));
}

/// FIN: a flow of 2.5 segments sends 3 segments, the last of 730 B with FIN (and only
/// it); the receiver completes when it holds all 3650 B, and the sender is done with no
/// timer left when the ACK of byte 3651 arrives.
#[test]
fn fin_and_completion() {
    let size = 2 * MSS + MSS / 2;
    let (mut s, first) = Script::established(defaults(), size, ms(100));
    assert_eq!(first.len(), 3);
    assert_eq!(first[2].payload, 730);
    assert!(first[2].has(flags::FIN));
    assert!(!first[0].has(flags::FIN) && !first[1].has(flags::FIN));
    for p in &first {
        s.deliver_data(p);
    }
    assert_eq!(s.flow.stats.bytes_received, size);
    assert!(s.flow.stats.end.is_some());
    s.advance(ms(100));
    s.ack_bytes(1 + size, 0);
    assert!(s.flow.stats.sender_done.is_some());
    assert_eq!(s.rto_deadline(), None);
}
