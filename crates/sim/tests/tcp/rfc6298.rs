//! RFC 6298 (computing TCP's retransmission timer): sections 2.1-2.5 (the estimator and
//! its bounds), 3 (Karn) and 5.1-5.7 (managing the timer).

use crate::common::*;

/// RFC 6298 2.1: before any RTT sample, RTO = the initial RTO (1 s): the SYN's timer.
#[test]
fn initial_rto_before_any_sample() {
    let mut s = Script::new(defaults(), 10 * MSS);
    s.open();
    assert_eq!(s.rto_deadline(), Some(SimTime::from_secs(1)));
}

/// RFC 6298 2.2: the first sample R = 100 ms gives SRTT = R = 100 ms, RTTVAR = R/2 =
/// 50 ms, RTO = SRTT + max(G, 4 RTTVAR) = 100 + max(1, 200) = 300 ms.
/// RFC 6298 5.1: the timer starts with the first data segment (t = 100 ms): 400 ms.
#[test]
fn first_sample() {
    let (s, _) = established(defaults());
    assert_eq!(s.srtt(), Some(ms(100)));
    assert_eq!(s.rttvar(), ms(50));
    assert_eq!(s.rto(), ms(300));
    assert_eq!(s.rto_deadline(), Some(ms(400)));
}

/// RFC 6298 2.3: segment 0, sent at t = 100 ms, is acknowledged at t = 240 ms: R' = 140 ms.
/// RTTVAR = 3/4 x 50 + 1/4 x |100 - 140| = 37.5 + 10 = 47.5 ms; SRTT = 7/8 x 100 +
/// 1/8 x 140 = 87.5 + 17.5 = 105 ms; RTO = 105 + 4 x 47.5 = 295 ms.
/// RFC 6298 5.3: the ACK of new data restarts the timer: 240 + 295 = 535 ms.
#[test]
fn later_sample_and_timer_restart() {
    let (mut s, _) = established(defaults());
    s.advance(ms(140));
    s.ack_segs(1);
    assert_eq!(s.rttvar(), SimTime::from_us(47_500));
    assert_eq!(s.srtt(), Some(ms(105)));
    assert_eq!(s.rto(), ms(295));
    assert_eq!(s.rto_deadline(), Some(ms(535)));
}

/// RFC 6298 2.4: a computed RTO below the minimum is rounded up to it. R = 10 ms gives
/// 10 + max(1, 20) = 30 ms, raised to min_rto = 200 ms.
#[test]
fn rto_rounded_up_to_minimum() {
    let (s, _) = Script::established(defaults(), 100 * MSS, ms(10));
    assert_eq!(s.rto(), ms(200));
}

/// RFC 6298 2.5 and 5.5: each expiry doubles the RTO up to the maximum. With max_rto =
/// 1 s: 300 -> 600 -> 1000 (not 1200) -> 1000 ms.
#[test]
fn backoff_doubles_up_to_maximum() {
    let p = TcpParams { max_rto: SimTime::from_secs(1), ..defaults() };
    let (mut s, _) = established(p);
    let mut rtos = Vec::new();
    for _ in 0..3 {
        s.expire_timer();
        rtos.push(s.rto());
    }
    assert_eq!(rtos, vec![ms(600), ms(1000), ms(1000)]);
}

/// RFC 6298 5.4-5.6: on expiry (t = 400 ms) retransmit the earliest unacknowledged
/// segment, back off (RTO 600 ms) and restart the timer: 400 + 600 = 1000 ms. The next
/// expiry resends segment 0 again at t = 1 s, with RTO 1.2 s.
#[test]
fn expiry_retransmits_backs_off_restarts() {
    let (mut s, _) = established(defaults());
    let sent = s.expire_timer();
    assert_eq!(s.now, ms(400));
    assert_eq!(segs(&s, &sent), vec![0]);
    assert_eq!(s.rto(), ms(600));
    assert_eq!(s.rto_deadline(), Some(ms(1000)));
    let again = s.expire_timer();
    assert_eq!(segs(&s, &again), vec![0]);
    assert_eq!(s.rto(), ms(1200));
}

/// RFC 6298 5.2: when all outstanding data is acknowledged, turn off the timer. A 2-segment
/// flow: the ACK of both ends it, and no timer is left.
#[test]
fn timer_off_when_all_acknowledged() {
    let (mut s, first) = Script::established(defaults(), 2 * MSS, ms(100));
    assert_eq!(first.len(), 2);
    s.advance(ms(100));
    s.ack_segs(2);
    assert_eq!(s.rto_deadline(), None);
}

/// RFC 6298 section 3 (Karn): the ACK of a retransmitted segment gives no RTT sample,
/// and the backed-off RTO stays until a valid sample (5.5 with Karn's algorithm). After
/// the expiry at 400 ms (RTO 600 ms) the ACK of the resent segment 0 leaves SRTT at
/// 100 ms and RTO at 600 ms.
#[test]
fn karn_no_sample_from_retransmission() {
    let (mut s, _) = established(defaults());
    s.expire_timer();
    s.advance(ms(100));
    s.ack_segs(1);
    assert_eq!(s.srtt(), Some(ms(100)));
    assert_eq!(s.rto(), ms(600));
}

/// RFC 6298 5.7: "If the timer expires awaiting the ACK of a SYN segment and the TCP
/// implementation is using an RTO less than 3 seconds, the RTO MUST be re-initialized
/// to 3 seconds when data transmission begins". The SYN times out at 1 s (RTO backs off
/// to 2 s), the SYN-ACK arrives at 1.1 s (Karn: no sample): data starts with RTO 3 s,
/// so its timer runs to 4.1 s.
#[test]
fn rto_three_seconds_after_lost_syn() {
    let mut s = Script::new(defaults(), 100 * MSS);
    s.open();
    s.expire_timer();
    s.advance(ms(100));
    s.syn_ack(false);
    assert_eq!(s.srtt(), None);
    assert_eq!(s.rto(), SimTime::from_secs(3));
    assert_eq!(s.rto_deadline(), Some(ms(4100)));
}

/// Linux's RTO (`rto_formula = "linux"`, tcp_set_rto): min_rto bounds the variance term,
/// not the whole. A 360 ms path: the SYN-ACK's sample gives SRTT 360 ms, RTTVAR 180 ms;
/// 30 ACKs each 360 ms after their segment bring RTTVAR down by 3/4 each time (180 x
/// 0.75^30 = 0.03 ms). RFC 6298: RTO = 360 + max(1 ms, 4 RTTVAR) = 361 ms (the 1 ms G;
/// above the 200 ms floor already). Linux: 360 + max(1, 4 RTTVAR, 200) = 560 ms.
#[test]
fn linux_rto_keeps_min_rto_above_srtt() {
    for (formula, rto) in [(sim::tcp::RtoFormula::Rfc6298, 361), (sim::tcp::RtoFormula::Linux, 560)] {
        let p = TcpParams { rto_formula: formula, init_cwnd: 40.0, ..defaults() };
        let (mut s, _) = Script::established(p, 1000 * MSS, ms(360));
        for k in 1..=30 {
            s.advance(if k == 1 { ms(360) } else { SimTime::ZERO });
            s.ack_segs(k);
        }
        assert_eq!(s.srtt(), Some(ms(360)), "{formula:?}");
        assert!(s.rttvar() < SimTime::from_us(250), "{formula:?}: rttvar {}", s.rttvar()); // 4 RTTVAR < G
        assert_eq!(s.rto(), ms(rto), "{formula:?}");
    }
}
