//! DCTCP (RFC 8257; Alizadeh et al., SIGCOMM 2010; cc/dctcp.rs): the alpha estimate
//! window by window, the window after a marked window, at most one reduction per window,
//! none without ECE, loss as standard TCP; the receiver's exact ECE echo (RFC 8257
//! section 3.2) with and without delayed ACKs; the scenario fields.
//!
//! g = 1/16 throughout. alpha starts at 1 and each observation window ends with the
//! first ACK above WindowEnd (RFC 8257 section 3.3 step 4), WindowEnd being SND.NXT when
//! the previous window ended; the first ACK of data ends a first, one-ACK window.

use crate::common::*;
use sim::tcp::cc::dctcp::{Dctcp, Params};
use sim::tcp::cc::{CcConfig, CcState, CongestionControl, CongestionEvent, EcnAck};
use sim::tcp::EceEcho;

const T0: SimTime = SimTime::ZERO;

fn params() -> TcpParams {
    TcpParams { ecn: true, ece_echo: EceEcho::Accurate, ..defaults() }
}

/// An ECN-capable DCTCP flow established at t = 100 ms; returns the first flight
/// (segments 0..9, cwnd 10, ssthresh infinite).
fn dctcp_flow(p: TcpParams) -> (Script, Vec<Packet>) {
    let mut s = Script::with_cc(p, CcConfig::Dctcp(Params::default()).build(), 1000 * MSS);
    s.open();
    s.advance(ms(100));
    let first = s.syn_ack(true);
    (s, first)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

// ---- the estimator alone: windows of ten 1000-byte ACKs, nine segments outstanding

/// Feeds one observation window to `c`: ACKs of 1000 bytes from `ack` on, each with
/// SND.NXT nine segments ahead (a sender with ten in flight), the first `marked` with ECE,
/// until one ends the window; returns the last ACK.
fn window(c: &mut Dctcp, mut ack: u64, marked: usize) -> (u64, usize) {
    let mut s = CcState { cwnd: 10.0, ssthresh: f64::INFINITY, max_cwnd: f64::INFINITY, abc_limit: 1.0 };
    let mut n = 0;
    loop {
        ack += 1000;
        let end = c.window_end();
        let a = EcnAck { acked_bytes: 1000, ece: n < marked, ack, snd_nxt: ack + 9000 };
        c.on_ecn_ack(&mut s, &a, T0);
        n += 1;
        if ack > end {
            return (ack, n);
        }
    }
}

/// alpha over k windows with a constant marked fraction F (RFC 8257 3.3 step 6, the
/// paper's eq. 1): alpha_k = F + (alpha_0 - F)(1 - g)^k, the deviation from F shrinking
/// by 15/16 a window. The first ACK (1000 bytes, ECE) is window 0: F = 1, alpha stays 1.
/// Each later window is ten ACKs (WindowEnd = SND.NXT = ack + 9000 when the previous one
/// ended, so the tenth ACK, ack + 10000, is the first above it).
/// - F = 5/10 = 0.5: alpha_k = 0.5 + 0.5 (15/16)^k: 0.96875, 0.939453125, ...,
///   k = 10: 0.5 + 0.5 x 0.524460475 = 0.762230237;
/// - F = 0: alpha_k = (15/16)^k: k = 10: 0.524460475;
/// - F = 1: alpha stays 1.
#[test]
fn alpha_follows_the_marked_fraction() {
    for (marked, f) in [(5, 0.5), (0, 0.0), (10, 1.0)] {
        let mut c = Params::default().build();
        let (mut ack, _) = window(&mut c, 1, 1);
        assert_eq!(c.alpha(), 1.0);
        let mut dev = 1.0 - f; // alpha_k - F
        for k in 1..=10 {
            let (a, n) = window(&mut c, ack, marked);
            assert_eq!(n, 10, "window {k} is ten ACKs");
            ack = a;
            dev *= 15.0 / 16.0;
            assert!(close(c.alpha(), f + dev), "F={f} k={k}: {} vs {}", c.alpha(), f + dev);
        }
        let want = match marked {
            5 => 0.762_230_237,
            0 => 0.524_460_475,
            _ => 1.0,
        };
        assert!((c.alpha() - want).abs() < 1e-9, "F={f}: {}", c.alpha());
    }
}

/// alpha changes only when a window ends: inside a window the ACKs only count bytes.
/// With g = 1, alpha is the last window's F: 3 marked ACKs of 10 -> 0.3.
#[test]
fn alpha_moves_only_at_window_ends() {
    let mut c = Params { g: 1.0 }.build();
    let (ack, _) = window(&mut c, 1, 0); // window 0 unmarked: alpha = F = 0
    assert_eq!(c.alpha(), 0.0);
    let mut s = CcState { cwnd: 10.0, ssthresh: f64::INFINITY, max_cwnd: f64::INFINITY, abc_limit: 1.0 };
    for j in 1..=9 {
        let a = EcnAck { acked_bytes: 1000, ece: true, ack: ack + 1000 * j, snd_nxt: ack + 1000 * j + 9000 };
        c.on_ecn_ack(&mut s, &a, T0);
        assert_eq!(c.alpha(), 0.0, "ACK {j} is inside the window");
    }
    let mut c = Params { g: 1.0 }.build();
    let (ack, _) = window(&mut c, 1, 0);
    window(&mut c, ack, 3);
    assert!(close(c.alpha(), 0.3), "{}", c.alpha());
}

/// The responses (RFC 8257 3.3 step 9, 3.5): ECN: cwnd (1 - alpha/2), at least 2; loss
/// and timeout: RFC 5681's max(FlightSize/2, 2), whatever alpha. With alpha = 1:
/// cwnd 40 -> 20; after one unmarked window (g = 1/16, alpha = 15/16): 40 x (1 - 15/32)
/// = 21.25; cwnd 3 -> 3 x 17/32 = 1.59 -> 2. Fast retransmit with FlightSize 30: 15.
#[test]
fn responses_to_ecn_and_loss() {
    let mut c = Params::default().build();
    let st = |w: f64| CcState { cwnd: w, ssthresh: f64::INFINITY, max_cwnd: f64::INFINITY, abc_limit: 1.0 };
    assert_eq!(c.ssthresh(&st(40.0), 30.0, CongestionEvent::Ecn, T0), 20.0);
    window(&mut c, 1, 0);
    assert_eq!(c.ssthresh(&st(40.0), 30.0, CongestionEvent::Ecn, T0), 21.25);
    assert_eq!(c.ssthresh(&st(3.0), 3.0, CongestionEvent::Ecn, T0), 2.0);
    assert_eq!(c.ssthresh(&st(40.0), 30.0, CongestionEvent::FastRetransmit, T0), 15.0);
    assert_eq!(c.ssthresh(&st(40.0), 30.0, CongestionEvent::Timeout, T0), 15.0);
    assert!(c.handles_ece());
}

// ---- the scripted sender

/// The window after a marked window, and one reduction per window.
///
/// ACK of segment 0, no ECE: window 0 = that ACK, F = 0, alpha = 15/16; WindowEnd =
/// SND.NXT = segment 10 (0..9 sent). Slow start: the ACKs of 0..9 make cwnd 20 and send
/// 10..29. The ACK of segment 10, with ECE, is the first above WindowEnd: window 1 =
/// segments 1..10, one marked: F = 0.1, alpha = (15/16)^2 + 0.1/16 = 0.87890625 + 0.00625
/// = 0.88515625; WindowEnd = segment 30. ECE, no growth on it: cwnd = ssthresh =
/// 20 (1 - 0.88515625/2) = 11.1484375 (RFC 3168 would give FlightSize/2 = 19/2 = 9.5).
///
/// ECE on the ACKs of 11..29: that window was already answered (RFC 3168: snd_una up to
/// snd_max = segment 30 at the reduction): cwnd stays 11.1484375, no growth on ECE.
/// Segments 30..40 go as the flight falls below 11 (30 with CWR). The ACK of segment 30,
/// ECE: it ends window 2 = segments 11..30, all marked: alpha = 0.88515625 x 15/16 + 1/16
/// = 0.892333984375, and it is past the reduced window: cwnd = 11.1484375 x
/// (1 - 0.4461669921875) = 6.17437267.
#[test]
fn window_after_a_marked_window_and_once_per_window() {
    let (mut s, _) = dctcp_flow(params());
    s.advance(ms(100));
    for k in 1..=10 {
        s.ack_segs(k);
    }
    assert_eq!((s.cwnd(), s.snd_max()), (20.0, s.seq(30)));
    s.ack_bytes(s.seq(11), flags::ECE);
    assert!(close(s.cwnd(), 11.1484375), "{}", s.cwnd());
    assert!(close(s.ssthresh(), 11.1484375));
    assert_eq!(s.flow.stats.ecn_reductions, 1);
    let mut sent = Vec::new();
    for k in 12..=30 {
        sent.extend(s.ack_bytes(s.seq(k), flags::ECE));
        assert!(close(s.cwnd(), 11.1484375), "k={k}: {}", s.cwnd());
        assert_eq!(s.flow.stats.ecn_reductions, 1);
    }
    assert_eq!(segs(&s, &sent), (30..=40).collect::<Vec<_>>());
    assert!(sent[0].has(flags::CWR) && !sent[1].has(flags::CWR));
    s.ack_bytes(s.seq(31), flags::ECE);
    assert_eq!(s.flow.stats.ecn_reductions, 2);
    assert!((s.cwnd() - 6.174_372_673).abs() < 1e-8, "{}", s.cwnd());
}

/// Unmarked windows: alpha_k = (15/16)^k, seen in the reduction that follows.
/// In slow start (one ACK per segment, two segments sent per ACK) the windows end at the
/// ACKs of segments 0, 10, 30, 70: WindowEnd = SND.NXT = 10, then 30, 70, 150. After
/// the k-th, an ECE on the next ACK (inside window k + 1, so alpha is unchanged) cuts
/// cwnd = 10 + (ACKs so far) to cwnd (1 - (15/16)^k / 2):
///   k = 1: 11 x (1 - 0.9375/2)      = 5.84375
///   k = 2: 21 x (1 - 0.87890625/2)  = 11.771484375
///   k = 3: 41 x (1 - 0.823974609/2) = 24.108520508
///   k = 4: 81 x (1 - 0.772476196/2) = 49.714714050
/// Before it, no ECE and no reduction: ssthresh still infinite.
#[test]
fn alpha_decays_over_unmarked_windows() {
    let want = [5.84375, 11.771484375, 24.108520508, 49.714714050];
    for (k, last) in [0u64, 10, 30, 70].into_iter().enumerate() {
        let (mut s, _) = dctcp_flow(params());
        s.advance(ms(100));
        for j in 1..=last + 1 {
            s.ack_segs(j);
        }
        assert_eq!(s.ssthresh(), f64::INFINITY);
        assert_eq!(s.flow.stats.ecn_reductions, 0);
        assert_eq!(s.cwnd(), 11.0 + last as f64);
        s.ack_bytes(s.seq(last + 2), flags::ECE);
        assert!((s.cwnd() - want[k]).abs() < 1e-8, "k={}: {}", k + 1, s.cwnd());
        assert_eq!(s.flow.stats.ecn_reductions, 1);
    }
}

/// No ECE, no reduction: 200 ACKs through slow start, cwnd = 10 + 200, ssthresh
/// infinite, no ECN reduction (while alpha decays to (15/16)^5: windows end at segments
/// 0, 10, 30, 70, 150).
#[test]
fn no_reduction_without_ece() {
    let (mut s, _) = dctcp_flow(params());
    s.advance(ms(100));
    for j in 1..=200 {
        s.ack_segs(j);
    }
    assert_eq!(s.cwnd(), 210.0);
    assert_eq!(s.ssthresh(), f64::INFINITY);
    assert_eq!(s.flow.stats.ecn_reductions, 0);
}

/// Loss is standard TCP's (RFC 8257 section 3.5): after the unmarked slow start of the
/// k = 4 case above (ACKs through segment 70, cwnd 81, alpha = (15/16)^4), segments
/// 71..151 are in flight (81); three duplicate ACKs: ssthresh = 81/2 = 40.5, not DCTCP's
/// 81 (1 - alpha/2) = 49.71; NewReno's cwnd = ssthresh + 3 = 43.5.
#[test]
fn loss_halves_as_standard_tcp() {
    let (mut s, _) = dctcp_flow(params());
    s.advance(ms(100));
    for j in 1..=71 {
        s.ack_segs(j);
    }
    assert_eq!(s.snd_max() - s.snd_una(), 81 * MSS);
    s.dupacks(3);
    assert_eq!(s.ssthresh(), 40.5);
    assert_eq!(s.cwnd(), 43.5);
}

// ---- the receiver (RFC 8257 section 3.2)

fn data(k: u64, f: u16) -> Packet {
    Packet {
        seq: 1 + k * MSS,
        payload: MSS as u32,
        size: MSS as u32 + 40,
        flags: flags::DATA | flags::ACK | flags::ECT | f,
        ..Packet::default()
    }
}

/// (segment index acknowledged up to, ECE) of each ACK.
fn acks(s: &Script, a: &[Packet]) -> Vec<(u64, bool)> {
    a.iter().map(|p| (s.seg(p.ack), p.has(flags::ECE))).collect()
}

/// Delayed ACKs, the two-state machine. CE bits of segments 0..10:
///
/// ```text
/// segment  0 1 2 | 3 4 5 | 6 7 | 8 9 | 10
/// CE       . . . | C C C | . . | . . | C
/// ```
///
/// 0: held. 1: second segment, ACK through 1 (ack = seg 2), ECE 0. 2: held.
/// 3 (CE, state 0 -> 1, segment 2 held): an immediate ACK through 2 (ack = seg 3) with
/// the OLD state's ECE 0; 3 is then held. 4: ACK through 4, ECE 1. 5: held.
/// 6 (no CE, 1 -> 0, 5 held): immediate ACK through 5 with ECE 1; 6 held. 7: ACK through
/// 7, ECE 0. 8: held. 9: ACK through 9, ECE 0. 10 (CE, 0 -> 1, nothing held): no extra
/// ACK, 10 held; the delayed-ACK timer then acknowledges it with ECE 1.
/// CWR plays no part: 7 carries CWR and 4..5 are ECE regardless.
#[test]
fn receiver_delayed_ack_state_machine() {
    let p = TcpParams { delayed_ack: true, ..params() };
    let mut s = Script::new(p, 100 * MSS);
    let ce = [false, false, false, true, true, true, false, false, false, false, true];
    let mut got = Vec::new();
    for (k, &c) in ce.iter().enumerate() {
        let k = k as u64;
        let f = if c { flags::CE } else { 0 } | if k == 7 { flags::CWR } else { 0 };
        let a = s.deliver_data(&data(k, f));
        got.push((k, acks(&s, &a)));
    }
    let want: Vec<(u64, Vec<(u64, bool)>)> = vec![
        (0, vec![]),
        (1, vec![(2, false)]),
        (2, vec![]),
        (3, vec![(3, false)]),
        (4, vec![(5, true)]),
        (5, vec![]),
        (6, vec![(6, true)]),
        (7, vec![(8, false)]),
        (8, vec![]),
        (9, vec![(10, false)]),
        (10, vec![]),
    ];
    assert_eq!(got, want);
    s.advance(ms(200));
    let a = s.receiver_timer();
    assert_eq!(acks(&s, &a), vec![(11, true)]);
}

/// Without delayed ACKs every ACK's ECE is the CE bit of the packet it acknowledges
/// (no CWR stickiness): CE pattern - C C - C - gives ECE 0 1 1 0 1 0, also when the
/// unmarked packet carries CWR. RFC 3168's receiver on the same packets: ECE from the
/// first CE until a CWR: 0 1 1 1 1 1 (no CWR among them).
#[test]
fn receiver_echo_without_delayed_ack() {
    let ce = [false, true, true, false, true, false];
    for (echo, want) in [
        (EceEcho::Accurate, [false, true, true, false, true, false]),
        (EceEcho::Rfc3168, [false, true, true, true, true, true]),
    ] {
        let mut s = Script::new(TcpParams { ece_echo: echo, ..params() }, 100 * MSS);
        for (k, &c) in ce.iter().enumerate() {
            let a = s.deliver_data(&data(k as u64, if c { flags::CE } else { 0 }));
            assert_eq!(acks(&s, &a), vec![(k as u64 + 1, want[k])], "{echo:?} segment {k}");
        }
    }
    let mut s = Script::new(params(), 100 * MSS);
    s.deliver_data(&data(0, flags::CE));
    let a = s.deliver_data(&data(1, flags::CWR | flags::CE));
    assert!(a[0].has(flags::ECE), "CWR does not clear the exact echo");
}

// ---- the scenario fields

/// `cc = "dctcp"` (or a table with g) turns ECN on and the exact echo; `ecn = false`
/// with it, g outside (0, 1] and unknown fields are one-line errors naming the field.
#[test]
fn dctcp_in_scenarios() {
    // the receiver link's queue marks: DCTCP is refused where no queue does
    let marking = |tcp: &str| scenario(tcp).replace("limit = 50 }", "limit = 50, ecn_threshold = 20 }");
    let build = |tcp: &str| -> Result<sim::Sim, String> {
        sim::Scenario::from_toml_str(&marking(tcp)).and_then(|sc| sc.build(Some(1)))
    };
    let unmarked = sim::Scenario::from_toml_str(&scenario("cc = \"dctcp\"")).and_then(|sc| sc.build(Some(1)));
    let e = unmarked.map(|_| ()).unwrap_err();
    assert!(e.starts_with("tcp.cc: dctcp reacts to ECN marks") && e.contains("ecn_threshold"), "{e}");
    for tcp in ["cc = \"dctcp\"", "cc = { kind = \"dctcp\", g = 0.125 }", "cc = \"dctcp\"\necn = true"] {
        let sim = build(tcp).unwrap_or_else(|e| panic!("{tcp}: {e}"));
        let f = sim.flows.get(0).expect("live flow");
        assert!(f.p.ecn && f.p.ece_echo == EceEcho::Accurate, "{tcp}");
        assert_eq!(f.cc_name(), "dctcp");
    }
    let plain = build("cc = \"newreno\"\necn = true").unwrap();
    assert_eq!(plain.flows.get(0).expect("live flow").p.ece_echo, EceEcho::Rfc3168);
    for (tcp, field) in [
        ("cc = \"dctcp\"\necn = false", "tcp.ecn"),
        ("cc = { kind = \"dctcp\", g = 0 }", "tcp.cc.g"),
        ("cc = { kind = \"dctcp\", g = 1.5 }", "tcp.cc.g"),
        ("cc = { kind = \"dctcp\", gain = 0.1 }", "gain"),
    ] {
        let e = build(tcp).map(|_| ()).unwrap_err();
        assert!(e.contains(field) && !e.contains('\n'), "{tcp}: {e}");
    }
}
