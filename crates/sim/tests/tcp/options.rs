//! The sender's options: RFC 3042 limited transmit, ns-2 tick quantisation of RTT and
//! RTO, and when a backed-off RTO ends (`rto_backoff_reset`).

use crate::common::*;
use sim::tcp::RtoBackoffReset;

/// RFC 3042: with limited transmit on, the first and second duplicate ACKs each send one
/// new segment (10, 11: FlightSize 11 and 12 <= cwnd + 2 = 12) and leave cwnd at 10. The
/// third starts fast retransmit with ssthresh from the FlightSize without them (RFC 5681
/// 3.2 step 2): (12 - 2)/2 = 5, cwnd = 5 + 3 = 8.
#[test]
fn limited_transmit() {
    let p = TcpParams { limited_transmit: true, ..defaults() };
    let (mut s, _) = established(p);
    s.advance(ms(100));
    let one = s.dupacks(1);
    assert_eq!(segs(&s, &one), vec![10]);
    let two = s.dupacks(1);
    assert_eq!(segs(&s, &two), vec![11]);
    assert_eq!(s.cwnd(), 10.0);
    let three = s.dupacks(1);
    assert_eq!(segs(&s, &three), vec![0]);
    assert_eq!(s.ssthresh(), 5.0);
    assert_eq!(s.cwnd(), 8.0);
}

/// Limited transmit stops at cwnd + 2: with cwnd 10 and 12 segments out after the two
/// sends above, nothing more goes even with dupthresh 5 (dupacks 3 and 4 send nothing).
#[test]
fn limited_transmit_bounded_by_cwnd_plus_two() {
    let p = TcpParams { limited_transmit: true, dupack_threshold: 5, ..defaults() };
    let (mut s, _) = established(p);
    s.advance(ms(100));
    let sent = s.dupacks(4);
    assert_eq!(segs(&s, &sent), vec![10, 11]);
}

/// ns-2 ticks (tcpTick_ = 100 ms): the SYN's 120 ms becomes round(1.2) = 1 tick = 100 ms:
/// SRTT 100, RTTVAR 50, RTO = 100 + max(G = 1 tick, 4 x 50) = 300 ms. Segment 0 (sent at
/// 120 ms) acknowledged at 380 ms: 260 ms -> round(2.6) = 3 ticks = 300 ms; RTTVAR =
/// 3/4 x 50 + 1/4 x |100 - 300| = 87.5; SRTT = 7/8 x 100 + 1/8 x 300 = 125; RTO = 125 +
/// max(100, 350) = 475 ms, rounded up to whole ticks: 500 ms.
#[test]
fn tick_quantisation() {
    let p = TcpParams { rtt_tick: ms(100), ..defaults() };
    let (mut s, _) = Script::established(p, 100 * MSS, ms(120));
    assert_eq!(s.srtt(), Some(ms(100)));
    assert_eq!(s.rto(), ms(300));
    s.advance(ms(260));
    s.ack_segs(1);
    assert_eq!(s.srtt(), Some(ms(125)));
    assert_eq!(s.rttvar(), SimTime::from_us(87_500));
    assert_eq!(s.rto(), ms(500));
}

/// The incast fallback, where a flow retransmits every byte: RTT 1 ms, so RTO = 1 +
/// max(1, 2) = 3 ms, raised to min_rto = 200 ms; the timer of segment 0 (sent at 1 ms)
/// fires at 201 ms, RTO backs off to 400 ms and 0 is resent. Its ACK at 202 ms is of a
/// retransmission (no RTT sample) and restarts the timer:
/// - "rtt_sample" (RFC 6298, default): RTO stays 400 ms, next timeout at 602 ms;
/// - "new_ack" (ns-3): RTO recomputed from SRTT/RTTVAR, 200 ms, next timeout at 402 ms.
#[test]
fn rto_backoff_reset() {
    for (mode, rto, deadline) in [(RtoBackoffReset::RttSample, 400, 602), (RtoBackoffReset::NewAck, 200, 402)] {
        let p = TcpParams { rto_backoff_reset: mode, ..defaults() };
        let (mut s, _) = Script::established(p, 100 * MSS, ms(1));
        assert_eq!(s.rto(), ms(200));
        s.expire_timer();
        assert_eq!(s.now, ms(201));
        assert_eq!(s.rto(), ms(400));
        s.advance(ms(1));
        s.ack_segs(1);
        assert_eq!(s.rto(), ms(rto), "{mode:?}");
        assert_eq!(s.rto_deadline(), Some(ms(deadline)), "{mode:?}");
    }
}

/// The options in a scenario file: accepted by name, a bad value named by its path.
#[test]
fn options_in_scenarios() {
    let ok = scenario(
        "recovery = \"newreno\"\nlimited_transmit = true\nrtt_tick = \"100ms\"\nrto_backoff_reset = \"new_ack\"",
    );
    let sc = sim::Scenario::from_toml_str(&ok).unwrap_or_else(|e| panic!("{e}"));
    let sim = sc.build(Some(1)).unwrap_or_else(|e| panic!("{e}"));
    let p = sim.flows.get(0).expect("live").p;
    assert!(p.limited_transmit);
    assert_eq!(p.rtt_tick, ms(100));
    assert_eq!(p.rto_backoff_reset, RtoBackoffReset::NewAck);
    let e = sim::Scenario::from_toml_str(&scenario("rto_backoff_reset = \"sometimes\"")).map(|_| ()).unwrap_err();
    assert!(e.contains("tcp.rto_backoff_reset"), "{e}");
}

/// A send gate that lets `n` packets go, then holds every later one for a second;
/// `holds` says whether the window must stay put while it holds (`SendGate::holds_window`).
struct HoldAfter {
    n: u32,
    holds: bool,
}

impl sim::tcp::sched::SendGate for HoldAfter {
    fn name(&self) -> &'static str {
        "hold-after"
    }
    fn release_at(&mut self, _v: &sim::tcp::sched::GateView, now: SimTime) -> Option<SimTime> {
        (self.n == 0).then(|| now + ms(1000))
    }
    fn on_sent(&mut self, _v: &sim::tcp::sched::GateView, _now: SimTime) {
        self.n -= 1;
    }
    fn holds_window(&self) -> bool {
        self.holds
    }
}

/// The window does not grow while a gate, not the window, limits sending (Linux's
/// tcp_is_cwnd_limited; RFC 7661 section 4.3: no increase in the non-validated phase).
/// Slow start, initial window 10 (RFC 5681 3.1: +1 per ACK of new data): the gate lets
/// the first flight of 10 go, which uses the window, so the ACK of segment 0 grows cwnd
/// to 11. The two segments that window allows are held by the gate, so the ACK of
/// segment 1 leaves cwnd at 11; a gate that does not hold the window (the PDA sender's
/// fixed window) lets it reach 12.
#[test]
fn window_held_while_the_gate_holds() {
    for (holds, want) in [(true, 11.0), (false, 12.0)] {
        let mut s = Script::new(defaults(), 100 * 1460);
        s.flow.set_send_gate(Box::new(HoldAfter { n: 10, holds }));
        s.open();
        s.advance(ms(100));
        let first = s.syn_ack(false);
        assert_eq!(first.len(), 10);
        s.advance(ms(100));
        assert!(s.ack_segs(1).is_empty(), "held by the gate");
        assert_eq!(s.cwnd(), 11.0);
        s.ack_segs(2);
        assert_eq!(s.cwnd(), want, "holds_window = {holds}");
    }
}

/// `[tcp] host`: the profile the unset fields follow. Expected values are Linux's own
/// defaults, read from its sources, not from this crate: net.ipv4.tcp_sack = 1
/// (tcp_ipv4.c), PRR in tcp_recovery.c (since 3.2), tcp_timeout_mark_lost keeps the SACKed
/// marks, tcp_set_rto adds the floor to SRTT, tcp_write_xmit holds a refused segment, and
/// tcp_cubic.c has hystart = 1 (HyStart is CUBIC's alone). "ns2": ns-2's one-way agents
/// (NewReno recovery, no SACK, no slow-start exit, no transmit queue of the host's own).
#[test]
fn host_profiles() {
    use sim::tcp::recovery::RecoveryKind;
    use sim::tcp::{LocalDrop, RtoFormula, SackAfterRto, SlowStartExit};
    let params = |t: &str| {
        let sc = sim::Scenario::from_toml_str(&scenario(t)).unwrap_or_else(|e| panic!("{e}"));
        sc.build(Some(1)).unwrap_or_else(|e| panic!("{e}")).flows.get(0).expect("live").p
    };
    for (tcp, cubic) in [("", false), ("host = \"linux\"", false), ("cc = \"cubic\"", true)] {
        let p = params(tcp);
        assert_eq!(p.recovery, RecoveryKind::Sack, "{tcp}");
        assert!(p.prr, "{tcp}");
        assert_eq!(p.sack_after_rto, SackAfterRto::Keep, "{tcp}");
        assert_eq!(p.rto_formula, RtoFormula::Linux, "{tcp}");
        assert_eq!(p.local_drop, LocalDrop::Hold, "{tcp}");
        assert!(p.limited_transmit, "{tcp}");
        assert_eq!(p.tsq, Some(1 << 20), "{tcp}"); // net.ipv4.tcp_limit_output_bytes
        let want = if cubic { SlowStartExit::HyStart } else { SlowStartExit::None };
        assert_eq!(p.slow_start_exit, want, "{tcp}");
    }
    for tcp in ["host = \"ns2\"", "host = \"ns2\"\ncc = \"cubic\""] {
        let p = params(tcp);
        assert_eq!(p.recovery, RecoveryKind::NewReno, "{tcp}");
        assert!(!p.prr, "{tcp}");
        assert_eq!(p.sack_after_rto, SackAfterRto::Clear, "{tcp}");
        assert_eq!(p.rto_formula, RtoFormula::Rfc6298, "{tcp}");
        assert_eq!(p.local_drop, LocalDrop::Ignore, "{tcp}");
        assert_eq!(p.slow_start_exit, SlowStartExit::None, "{tcp}");
        assert!(!p.limited_transmit, "{tcp}");
        assert_eq!(p.tsq, None, "{tcp}");
    }
    // a field the scenario sets wins over the profile; NewReno under Linux's host is
    // RFC 6582's NewReno (PRR off unless set), not an error
    let p = params("recovery = \"newreno\"\nlocal_drop = \"ignore\"\ncc = \"cubic\"\nslow_start_exit = \"none\"");
    assert_eq!((p.recovery, p.prr, p.local_drop), (RecoveryKind::NewReno, false, LocalDrop::Ignore));
    assert_eq!(p.slow_start_exit, SlowStartExit::None);
    let p = params("host = \"ns2\"\nrecovery = \"sack\"\nprr = true");
    assert_eq!((p.recovery, p.prr, p.local_drop), (RecoveryKind::Sack, true, LocalDrop::Ignore));
    // PRR with NewReno recovery when asked for (RFC 6937 section 3 without SACK)
    let p = params("recovery = \"newreno\"\nprr = true");
    assert_eq!((p.recovery, p.prr), (RecoveryKind::NewReno, true));
    assert_eq!(params("tsq_limit_output_bytes = 65536").tsq, Some(65536));
    assert_eq!(params("host = \"ns2\"\ntsq = true").tsq, Some(1 << 20));
    for (bad, field) in [
        ("tsq_limit_output_bytes = 0", "tcp.tsq_limit_output_bytes"),
        ("tsq = false\ntsq_limit_output_bytes = 9", "tcp.tsq_limit_output_bytes"),
    ] {
        let e = sim::Scenario::from_toml_str(&scenario(bad)).and_then(|sc| sc.build(Some(1)).map(|_| ())).unwrap_err();
        assert!(e.contains(field), "{e}");
    }
    let e = sim::Scenario::from_toml_str(&scenario("host = \"bsd\"")).map(|_| ()).unwrap_err();
    assert!(e.contains("tcp.host") || e.contains("host"), "{e}");
    assert!(e.contains("linux") && e.contains("ns2"), "{e}");
}

/// `slow_start_exit` by name in a scenario: "hystart++" and "limited" (RFC 3742's
/// suggested max_ssthresh of 100 unless set); `max_ssthresh` refused elsewhere and at 0.
#[test]
fn slow_start_exits_in_scenarios() {
    use sim::tcp::SlowStartExit;
    let build = |t: &str| sim::Scenario::from_toml_str(&scenario(t)).and_then(|sc| sc.build(Some(1)));
    let exit = |t: &str| build(t).unwrap_or_else(|e| panic!("{e}")).flows.get(0).expect("live").p.slow_start_exit;
    assert_eq!(exit("slow_start_exit = \"hystart++\""), SlowStartExit::HyStartPp);
    assert_eq!(exit("slow_start_exit = \"limited\""), SlowStartExit::Limited { max_ssthresh: 100 });
    assert_eq!(exit("slow_start_exit = \"limited\"\nmax_ssthresh = 40"), SlowStartExit::Limited { max_ssthresh: 40 });
    for bad in ["slow_start_exit = \"limited\"\nmax_ssthresh = 0", "max_ssthresh = 40"] {
        let e = build(bad).map(|_| ()).unwrap_err();
        assert!(e.contains("tcp.max_ssthresh"), "{e}");
    }
}

/// `slow_start_increment`: what one ACK covering several segments adds in slow start.
/// Established with cwnd 10 and segments 0..9 out, ssthresh set to 20 (below it: slow
/// start). An ACK of segments 0..4 (5 segments at once, as a delayed or stretch ACK or a
/// cumulative ACK that jumps past data the receiver held):
/// - "rfc5681" (RFC 5681 eq. 2, cwnd += min(N, SMSS)): 10 + 1 = 11;
/// - "linux" (tcp_slow_start, cwnd = min(cwnd + acked, ssthresh)): 10 + 5 = 15.
///
/// A second ACK of 5..9 (5 more): "linux" 15 + 5 = 20 would reach ssthresh exactly; with
/// ssthresh 18 it stops there (min(20, 18) = 18). An ACK of one segment adds one under
/// both, even when it crosses ssthresh (RFC 5681's rule, kept so that a flow whose ACKs
/// each cover one segment runs the same under both).
#[test]
fn slow_start_increment_counts_what_one_ack_covers() {
    let run = |abc_limit: f64, ssthresh: f64| {
        let p = TcpParams { abc_limit, ..defaults() };
        let (mut s, _) = established(p);
        s.set_cwnd(10.0, ssthresh);
        s.advance(ms(100));
        s.ack_segs(5);
        let after_one = s.cwnd();
        s.ack_segs(10);
        (after_one, s.cwnd())
    };
    assert_eq!(run(1.0, 20.0), (11.0, 12.0));
    assert_eq!(run(f64::INFINITY, 20.0), (15.0, 20.0));
    assert_eq!(run(f64::INFINITY, 18.0), (15.0, 18.0));
    // one segment per ACK: +1 each under both, the last crossing ssthresh 10.5 to 11
    for limit in [1.0, f64::INFINITY] {
        let p = TcpParams { abc_limit: limit, ..defaults() };
        let (mut s, _) = established(p);
        s.set_cwnd(10.0, 10.5);
        s.advance(ms(100));
        s.ack_segs(1);
        assert_eq!(s.cwnd(), 11.0, "abc_limit {limit}");
    }
    // by name in a scenario, each host's default, and a bad value named
    let limit = |t: &str| {
        let sc = sim::Scenario::from_toml_str(&scenario(t)).unwrap_or_else(|e| panic!("{e}"));
        sc.build(Some(1)).unwrap_or_else(|e| panic!("{e}")).flows.get(0).expect("live").p.abc_limit
    };
    assert_eq!(limit(""), f64::INFINITY);
    assert_eq!(limit("host = \"ns2\""), 1.0);
    assert_eq!(limit("slow_start_increment = \"rfc5681\""), 1.0);
    assert_eq!(limit("host = \"ns2\"\nslow_start_increment = \"linux\""), f64::INFINITY);
    let e = sim::Scenario::from_toml_str(&scenario("slow_start_increment = \"abc\"")).map(|_| ()).unwrap_err();
    assert!(e.contains("slow_start_increment") && e.contains("rfc5681") && e.contains("linux"), "{e}");
}
