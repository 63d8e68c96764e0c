//! The composable sender: congestion-control hooks, a loss-recovery wrapper built on
//! NewReno without copying it, the send scheduler (pacing, a per-packet gate), the typed
//! `[tcp.cc]` table, and the packet size budget.

use crate::common::*;
use sim::tcp::cc::{CcState, CongestionControl, CongestionEvent};
use sim::tcp::recovery::newreno::NewRenoRecovery;
use sim::tcp::recovery::{AckInfo, AckVerdict, Decision, Decisions, LossRecovery, SendState};
use sim::tcp::sched::{GateView, Pacing, SendGate};
use std::sync::{Arc, Mutex};

/// NewReno growth that records which hooks were called.
struct Recording(Arc<Mutex<Vec<&'static str>>>);
impl CongestionControl for Recording {
    fn name(&self) -> &'static str {
        "recording"
    }
    fn on_ack(&mut self, s: &mut CcState, acked: f64, _rtt: Option<SimTime>, _now: SimTime) {
        s.cwnd += acked.min(1.0);
    }
    fn per_packet_hooks(&self) -> bool {
        true
    }
    fn on_rtt_sample(&mut self, _s: &mut CcState, _rtt: SimTime, _now: SimTime) {
        self.0.lock().unwrap().push("rtt");
    }
    fn on_packet_sent(&mut self, _s: &mut CcState, _seq: u64, _bytes: u32, retx: bool, _now: SimTime) {
        self.0.lock().unwrap().push(if retx { "sent-retx" } else { "sent" });
    }
    fn ssthresh(&mut self, _s: &CcState, flight: f64, ev: CongestionEvent, _now: SimTime) -> f64 {
        self.0.lock().unwrap().push(match ev {
            CongestionEvent::FastRetransmit => "event-fr",
            CongestionEvent::Ecn => "event-ecn",
            CongestionEvent::Timeout => "event-rto",
        });
        (flight / 2.0).max(2.0)
    }
    fn on_rto(&mut self, _s: &mut CcState, _now: SimTime) {
        self.0.lock().unwrap().push("rto");
    }
    fn on_recovery_exit(&mut self, _s: &mut CcState, _now: SimTime) {
        self.0.lock().unwrap().push("exit");
    }
}

/// Every hook fires where it should: the SYN-ACK's RTT sample, 10 segments sent, the 3rd
/// dupack's congestion event and retransmission, the full ACK's recovery exit (the
/// script's ACK echoes segment 9, the one ending at the ACK: a second RTT sample), then
/// an RTO's congestion event and the on_rto hook.
#[test]
fn congestion_control_hooks() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut s = Script::with_cc(defaults(), Box::new(Recording(log.clone())), 1000 * MSS);
    s.open();
    s.advance(ms(100));
    s.syn_ack(false);
    s.advance(ms(100));
    s.dupacks(3);
    s.ack_bytes(s.seq(10), 0); // the full ACK
    let sent_before = log.lock().unwrap().len();
    s.expire_timer();
    let l = log.lock().unwrap().clone();
    let count = |k: &str| l.iter().filter(|x| **x == k).count();
    assert_eq!(count("rtt"), 2);
    assert_eq!(l[1..11], ["sent"; 10]);
    assert_eq!(l[11..13], ["event-fr", "sent-retx"]);
    assert!(l[13..sent_before].contains(&"exit"));
    assert_eq!(&l[sent_before..sent_before + 2], &["event-rto", "rto"]);
}

/// A TCP-DCR-like wrapper around NewReno, with no copy of it: the duplicate ACK that
/// would start fast retransmit starts a 50 ms timer instead; if the hole fills first
/// (snd_una advances) nothing happens, else the timer enters NewReno's recovery.
#[derive(Default)]
struct Delayed {
    inner: NewRenoRecovery,
    waiting: bool,
}
impl LossRecovery for Delayed {
    fn name(&self) -> &'static str {
        "delayed-newreno"
    }
    fn on_ack(&mut self, s: &SendState, a: &AckInfo, now: SimTime, out: &mut Decisions) -> AckVerdict {
        if a.newly > 0 && self.waiting {
            self.waiting = false; // the hole filled: no response
            out.push(Decision::DisarmTimer);
        }
        if a.dup && !self.inner.in_recovery() && self.inner.dupacks() + 1 >= s.dupthresh {
            if !self.waiting {
                self.waiting = true;
                out.push(Decision::ArmTimer(now + SimTime::from_ms(50)));
            }
            return AckVerdict { grow: false, restart_rto: false };
        }
        self.inner.on_ack(s, a, now, out)
    }
    fn enter_recovery(&mut self, s: &SendState, now: SimTime, out: &mut Decisions) {
        self.inner.enter_recovery(s, now, out)
    }
    fn on_rto(&mut self, s: &SendState, now: SimTime, out: &mut Decisions) {
        self.waiting = false;
        self.inner.on_rto(s, now, out)
    }
    fn on_timer(&mut self, s: &SendState, now: SimTime, out: &mut Decisions) {
        if std::mem::take(&mut self.waiting) {
            self.inner.enter_recovery(s, now, out);
        }
    }
    fn in_recovery(&self) -> bool {
        self.inner.in_recovery()
    }
    fn dupacks(&self) -> u32 {
        self.inner.dupacks()
    }
    fn recovery_point(&self) -> u64 {
        self.inner.recovery_point()
    }
    fn next_segment(&self, s: &SendState, wnd: u64) -> Option<(u64, u64)> {
        self.inner.next_segment(s, wnd)
    }
}

/// The wrapper in use: three dupacks at t = 200 ms send nothing; 50 ms later the
/// Recovery timer enters NewReno's fast retransmit (ssthresh 5, segment 0 resent).
#[test]
fn recovery_wrapper_delays_fast_retransmit() {
    let (mut s, _) = established(defaults());
    s.flow.set_recovery(Box::new(Delayed::default()));
    s.advance(ms(100));
    assert!(s.dupacks(3).is_empty());
    assert!(!s.in_recovery());
    let sent = s.expire_timer();
    assert_eq!(s.now, ms(250));
    assert!(s.in_recovery());
    assert_eq!(segs(&s, &sent), vec![0]);
    assert_eq!(s.ssthresh(), 5.0);
}

/// Pacing at 12 Mbit/s: a 1500 B packet every 1500 x 8 / 12e6 = 1 ms. The SYN-ACK at
/// 100 ms lets one segment out; the Send timer releases the next at 101 ms, 102 ms...
#[test]
fn paced_sender() {
    let p = TcpParams { pacing: Pacing::Rate(12e6), ..defaults() };
    let (mut s, first) = established(p);
    assert_eq!(segs(&s, &first), vec![0]);
    for k in 1..4 {
        let sent = s.expire_timer();
        assert_eq!(s.now, ms(100 + k));
        assert_eq!(segs(&s, &sent), vec![k]);
    }
}

/// A per-packet gate: at most 3 segments beyond snd_una, else ask again 5 ms later.
struct AtMostThree;
impl SendGate for AtMostThree {
    fn name(&self) -> &'static str {
        "at-most-three"
    }
    fn release_at(&mut self, v: &GateView, now: SimTime) -> Option<SimTime> {
        (v.snd_nxt - v.snd_una >= 3 * MSS).then(|| now + SimTime::from_ms(5))
    }
}

#[test]
fn gated_sender() {
    let mut s = Script::new(defaults(), 1000 * MSS);
    s.flow.set_send_gate(Box::new(AtMostThree));
    s.open();
    s.advance(ms(100));
    let first = s.syn_ack(false);
    assert_eq!(segs(&s, &first), vec![0, 1, 2]);
    s.advance(ms(1));
    let more = s.ack_segs(1); // one acknowledged: one more may go
    assert_eq!(segs(&s, &more), vec![3]);
}

/// `[tcp.cc]` as a typed table; unknown kinds and fields named by their path.
#[test]
fn cc_table_in_scenarios() {
    let parse = |t: &str| sim::Scenario::from_toml_str(&scenario(t)).map(|_| ());
    parse("cc = { kind = \"newreno\" }\nrecovery = \"sack\"\npacing = \"10Mbps\"").unwrap();
    parse("cc = \"newreno\"").unwrap();
    let e = parse("cc = { kind = \"bogus\" }").unwrap_err();
    assert!(e.contains("tcp.cc"), "{e}");
    let e = parse("cc = { kind = \"newreno\", beta = 0.5 }").unwrap_err();
    assert!(e.contains("beta"), "{e}");
    let e = parse("cc = \"reno2\"").unwrap_err();
    assert!(e.contains("tcp.cc") && e.contains("newreno"), "{e}");
    let e = sim::Scenario::from_toml_str(&scenario("pacing = \"fast\""))
        .and_then(|sc| sc.build(Some(1)).map(|_| ()))
        .unwrap_err();
    assert!(e.contains("tcp.pacing"), "{e}");
}

/// No packet struct over 128 B (issue 9); SACK blocks live beside the packet, so it stays
/// 72 B as before SACK: 4 x u64 (seq, ack, ts, ts_echo) + 6 x u32 + 2 x u16 + the 8 B
/// super-packet header + the 4 B SACK slot = 72.
#[test]
fn packet_stays_small() {
    assert_eq!(std::mem::size_of::<Packet>(), 72);
}
