//! TCP-DCR, Delayed Congestion Response: draft-bhandarkar-tcp-dcr-00 section 4 (the same
//! text as draft-ietf-tcpm-tcp-dcr-00), S. Bhandarkar and A. L. N. Reddy, "TCP-DCR:
//! Making TCP Robust to Non-Congestion Events", Networking 2004; the seed's slides
//! (seeds/004): "on the first dupack start a timer of one RTT; respond to loss only if the
//! hole is not filled when it fires; an RTO still counts". ../shared/ALGORITHMS.md
//! section 9 gives the choices where the draft is silent; each is an option here.
//!
//! A wrapper of any loss-recovery piece (NewReno or SACK), so it composes with every
//! congestion control:
//! - on the first duplicate ACK (not in recovery) start the congestion-response delay
//!   timer tau (`TimerKind::Recovery`); tau = `tau_srtt` x SRTT captured then (section 4.1:
//!   "one RTT", with a timer implementation SRTT; ALGORITHMS.md 9 (c)), or a fixed `tau`;
//! - during tau the inner piece keeps its scoreboard but may not start fast retransmit
//!   (its DupThresh is lifted); one new segment is sent per duplicate ACK (packet
//!   conservation, ALGORITHMS.md 9 (b)); additive increase continues: the congestion
//!   control's `on_ack` runs once per duplicate ACK in congestion avoidance;
//! - an ACK that advances the cumulative point before tau cancels the timer: no
//!   retransmission, no reduction. If that ACK still leaves a hole with data SACKed above
//!   it, that hole is a new first duplicate ACK and gets its own tau;
//! - tau expires: standard fast retransmit and recovery by the inner piece, whose DupThresh
//!   is restored (later losses of the window follow it as usual), with the response based
//!   on the flight and cwnd at the first duplicate ACK (`base = "first-dupack"`, the
//!   ALGORITHMS.md 9 (a) default, as NCR's FlightSizePrev) or on those at expiry
//!   (`base = "expiry"`, the draft read literally);
//! - the retransmission timer is untouched during tau; an RTO during tau cancels tau and
//!   is processed as usual (ALGORITHMS.md 9, "Interaction with the RTO"). When tau
//!   expires the delayed fast retransmit restarts the timer (`rearm_rto`, default on),
//!   as Linux re-arms it when it retransmits the first unacknowledged segment
//!   (tcp_xmit_retransmit_queue): the retransmission needs one more RTT to be
//!   acknowledged, so with tau = SRTT an RFC 6298 timer still running from the last new
//!   ACK (max(200 ms, SRTT + 4 RTTVAR)) fires before it whenever 2 SRTT exceeds it, and
//!   every delayed recovery would end in a timeout. [X]

use super::piece::{AckInfo, AckVerdict, Decision, Decisions, LossRecovery, SendState};
use crate::core::time::SimTime;

/// Which state the loss response after tau is based on (ALGORITHMS.md 9 (a)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DcrBase {
    /// FlightSize and cwnd at the first duplicate ACK (the default).
    FirstDupack,
    /// FlightSize and cwnd when tau expires (the draft's "standard FR/FR" literally).
    Expiry,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DcrConfig {
    /// tau as a multiple of SRTT at the first duplicate ACK (1.0: one RTT).
    pub tau_srtt: f64,
    /// A fixed tau instead (overrides `tau_srtt`).
    pub tau: Option<SimTime>,
    pub base: DcrBase,
    /// Additive increase continues during tau (draft section 4).
    pub grow_during_tau: bool,
    /// Restart the retransmission timer at the delayed fast retransmit.
    pub rearm_rto: bool,
}

impl Default for DcrConfig {
    fn default() -> Self {
        DcrConfig { tau_srtt: 1.0, tau: None, base: DcrBase::FirstDupack, grow_during_tau: true, rearm_rto: true }
    }
}

impl DcrConfig {
    pub fn validate(&self, path: &str) -> Result<(), String> {
        if !(self.tau_srtt.is_finite() && self.tau_srtt >= 0.0) {
            return Err(format!("{path}.tau_srtt: must be a finite number >= 0 (got {})", self.tau_srtt));
        }
        Ok(())
    }
}

/// The delay state of one hole.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    /// snd_una when the first duplicate ACK arrived (the hole).
    una: u64,
    /// FlightSize (bytes) and cwnd at the first duplicate ACK.
    flight: u64,
    cwnd: f64,
    /// What snd_max - snd_una may reach during tau before the duplicate ACKs' own
    /// segments: the flight, plus (Linux's host) the data SACKed above the hole then,
    /// which is not in the network.
    allow: u64,
    /// Duplicate ACKs since then (each lets one new segment out).
    dups: u64,
}

pub struct Dcr {
    /// The built-in piece wrapped (NewReno or SACK).
    inner: Box<dyn LossRecovery>,
    cfg: DcrConfig,
    waiting: Option<Waiting>,
}

/// DupThresh outside recovery: no duplicate-ACK count or IsLost() reaches it.
const LIFTED: u32 = u32::MAX / 2;

impl Dcr {
    pub fn new(inner: Box<dyn LossRecovery>, cfg: DcrConfig) -> Dcr {
        Dcr { inner, cfg, waiting: None }
    }

    fn tau(&self, s: &SendState) -> SimTime {
        match (self.cfg.tau, s.srtt) {
            (Some(t), _) => t,
            (None, Some(r)) => SimTime((r.ns() as f64 * self.cfg.tau_srtt) as u64),
            // no RTT sample yet: the RTO bounds the delay (section 4.1)
            (None, None) => s.rto,
        }
    }

    /// The sender as the inner piece sees it: DupThresh is the flow's in recovery and
    /// lifted outside it (only the delay timer starts a recovery).
    fn inner_view(&self, s: &SendState) -> SendState {
        SendState { dupthresh: if self.inner.in_recovery() { s.dupthresh } else { LIFTED }, ..*s }
    }

    /// A first duplicate ACK for the hole at snd_una: tau starts. The flight kept is what
    /// the window lets be in the network: snd_max - snd_una, at most cwnd. After a long
    /// SACK recovery snd_max - snd_una holds the SACKed data above the holes too, far
    /// above cwnd; taken whole, the sending allowance during tau (one segment per
    /// duplicate ACK beyond it) and the delayed response's ssthresh came from it (a
    /// flow on a path of 834 segments set ssthresh to 8,811 and overflowed its own NIC).
    ///
    /// With limited transmit on SACK (Linux's host, whose tcp_packets_in_flight leaves
    /// SACKed data out in every state) the data already SACKed above the hole is not in
    /// the network either: the allowance counts it beside the window, so packet
    /// conservation keeps a window's worth in the network. Counted against the window, a
    /// flow that always has an overtaken hole (1 % of packets delayed 25 ms at 1 Gbps)
    /// lost the 25 ms of data SACKed above it from its window for good. `sacked_before`
    /// is the SACKed data before this ACK: the segments it SACKs are its own duplicate
    /// ACK's allowance (`dups` = 1).
    fn start(&mut self, s: &SendState, sacked_before: u64, now: SimTime, out: &mut Decisions) {
        let window = (s.cwnd.max(1.0) * s.mss as f64) as u64;
        let outstanding = s.snd_max - s.snd_una;
        let flight = outstanding.min(window);
        let sacked = if s.limited_transmit { self.inner.sacked_bytes().min(sacked_before) } else { 0 };
        let allow = outstanding.min(window + sacked);
        self.waiting = Some(Waiting { una: s.snd_una, flight, cwnd: s.cwnd, allow, dups: 1 });
        out.push(Decision::ArmTimer(now + self.tau(s)));
    }

    fn stop(&mut self, out: &mut Decisions) {
        self.waiting = None;
        out.push(Decision::DisarmTimer);
    }

    /// Window growth continues during tau (draft section 4: "additive increase
    /// continues"; section 5.4: during tau the flow behaves as a TCP with twice the RTT):
    /// each duplicate ACK reports one more segment delivered and grows the window as one
    /// ACK of one segment would, in slow start as in congestion avoidance. Without it a
    /// flow whose every window holds a reordered packet would open its window only on
    /// the rare cumulative ACKs.
    fn grow(&mut self, out: &mut Decisions) {
        if self.cfg.grow_during_tau {
            out.push(Decision::Grow { acked: 1.0 });
        }
    }
}

impl LossRecovery for Dcr {
    fn name(&self) -> &'static str {
        "dcr"
    }

    fn on_ack(&mut self, s: &SendState, a: &AckInfo, now: SimTime, out: &mut Decisions) -> AckVerdict {
        let before = if a.newly > 0 { 0 } else { self.inner.dupacks() };
        let sacked_before = self.inner.sacked_bytes();
        let from = out.len();
        let v = self.inner.on_ack(&self.inner_view(s), a, now, out);
        if self.inner.in_recovery() {
            return v;
        }
        // the sender after the inner piece's decisions (an exit's window, limited transmit)
        let mut s = *s;
        for d in &out[from..] {
            s.note(d);
        }
        let s = &s;
        let dup = self.inner.dupacks() > before;
        if let Some(w) = self.waiting {
            if s.snd_una > w.una {
                // the hole filled before tau: reordering, not congestion
                if self.inner.sacked_above(s) && s.snd_max > s.snd_una {
                    // the next hole was overtaken too: its own first duplicate ACK, now
                    self.start(s, sacked_before, now, out);
                } else {
                    self.stop(out);
                }
                return v;
            }
        }
        match self.waiting.as_mut() {
            None if dup && s.snd_max > s.snd_una && s.snd_una >= self.inner.recovery_point() => {
                self.start(s, sacked_before, now, out);
                self.grow(out);
            }
            Some(w) if dup => {
                w.dups += 1;
                self.grow(out);
            }
            _ => {}
        }
        v
    }

    fn enter_recovery(&mut self, s: &SendState, now: SimTime, out: &mut Decisions) {
        self.stop(out);
        // the flow's DupThresh in recovery
        self.inner.enter_recovery(s, now, out);
    }

    fn on_rto(&mut self, s: &SendState, now: SimTime, out: &mut Decisions) {
        self.stop(out); // a timeout during tau ends it
        self.inner.on_rto(&self.inner_view(s), now, out);
    }

    fn on_timer(&mut self, s: &SendState, now: SimTime, out: &mut Decisions) {
        let Some(w) = self.waiting else { return self.inner.on_timer(&self.inner_view(s), now, out) };
        if s.snd_una != w.una || s.snd_una >= s.snd_max || self.inner.in_recovery() {
            self.stop(out);
            return;
        }
        let mut s = *s;
        if self.cfg.base == DcrBase::FirstDupack {
            s.response_flight = Some(w.flight as f64 / s.mss as f64);
            if w.cwnd < s.cwnd {
                let d = Decision::SetCwnd(w.cwnd);
                s.note(&d);
                out.push(d);
            }
        }
        self.enter_recovery(&s, now, out);
        if self.cfg.rearm_rto {
            out.push(Decision::RestartRto);
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
        let v = self.inner_view(s);
        match self.waiting {
            // one new segment per duplicate ACK beyond the flight at the first one, the
            // only sending rule during tau: RFC 6675's limited transmit (pipe, SACKed data
            // out) against the same allowance would count each duplicate ACK's segment
            // twice and let two out per duplicate ACK
            Some(w) => {
                let allowed = w.allow + w.dups * s.mss;
                let v = SendState { limited_transmit: false, ..v };
                self.inner.next_segment(&v, wnd.max(allowed))
            }
            None => self.inner.next_segment(&v, wnd),
        }
    }

    fn on_sent(&mut self, snd_max: u64, seq: u64, len: u64) {
        self.inner.on_sent(snd_max, seq, len)
    }

    fn pipe(&self, s: &SendState) -> Option<u64> {
        self.inner.pipe(&self.inner_view(s))
    }

    fn sacked_above(&self, s: &SendState) -> bool {
        self.inner.sacked_above(&self.inner_view(s))
    }

    fn sacked_bytes(&self) -> u64 {
        self.inner.sacked_bytes()
    }
}
