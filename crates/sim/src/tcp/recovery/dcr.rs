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

use super::{AckInfo, AckVerdict, LossRecovery, Recovery};
use crate::core::time::SimTime;
use crate::tcp::timers::TimerKind;
use crate::tcp::{Flow, TcpOut};

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
    /// Duplicate ACKs since then (each lets one new segment out).
    dups: u64,
}

pub struct Dcr {
    inner: Box<Recovery>,
    cfg: DcrConfig,
    waiting: Option<Waiting>,
    /// The flow's DupThresh, in force only while the inner piece is in recovery; outside
    /// it the delay timer alone starts a recovery (0: not read from the flow yet).
    dupthresh: u32,
}

/// DupThresh outside recovery: no duplicate-ACK count or IsLost() reaches it.
const LIFTED: u32 = u32::MAX / 2;

impl Dcr {
    pub fn new(inner: Recovery, cfg: DcrConfig) -> Dcr {
        Dcr { inner: Box::new(inner), cfg, waiting: None, dupthresh: 0 }
    }

    fn tau(&self, f: &Flow) -> SimTime {
        match (self.cfg.tau, f.srtt()) {
            (Some(t), _) => t,
            (None, Some(s)) => SimTime((s.ns() as f64 * self.cfg.tau_srtt) as u64),
            // no RTT sample yet: the RTO bounds the delay (section 4.1)
            (None, None) => f.rto(),
        }
    }

    /// DupThresh is the flow's own in recovery and lifted outside it.
    fn sync(&mut self, f: &mut Flow) {
        if self.dupthresh == 0 {
            self.dupthresh = f.p.dupack_threshold;
        }
        f.p.dupack_threshold = if self.inner.in_recovery() { self.dupthresh } else { LIFTED };
    }

    /// A first duplicate ACK for the hole at snd_una: tau starts.
    fn start(&mut self, f: &mut Flow, now: SimTime) {
        self.waiting = Some(Waiting { una: f.snd_una, flight: f.snd_max - f.snd_una, cwnd: f.cc_state.cwnd, dups: 1 });
        let t = now + self.tau(f);
        f.set_timer(TimerKind::Recovery, t);
    }

    fn stop(&mut self, f: &mut Flow) {
        self.waiting = None;
        f.cancel_timer(TimerKind::Recovery);
    }

    /// Window growth continues during tau (draft section 4: "additive increase
    /// continues"; section 5.4: during tau the flow behaves as a TCP with twice the RTT):
    /// each duplicate ACK reports one more segment delivered and grows the window as one
    /// ACK of one segment would, in slow start as in congestion avoidance. Without it a
    /// flow whose every window holds a reordered packet would open its window only on
    /// the rare cumulative ACKs.
    fn grow(&mut self, f: &mut Flow, now: SimTime) {
        if self.cfg.grow_during_tau {
            f.grow_cwnd(1.0, None, now);
        }
    }
}

impl LossRecovery for Dcr {
    fn name(&self) -> &'static str {
        "dcr"
    }

    fn on_ack(&mut self, f: &mut Flow, a: &AckInfo, now: SimTime, out: &mut TcpOut) -> AckVerdict {
        self.sync(f);
        let before = if a.newly > 0 { 0 } else { self.inner.dupacks() };
        let v = self.inner.on_ack(f, a, now, out);
        self.sync(f);
        if self.inner.in_recovery() {
            return v;
        }
        let dup = self.inner.dupacks() > before;
        if let Some(w) = self.waiting {
            if f.snd_una > w.una {
                // the hole filled before tau: reordering, not congestion
                if self.inner.sacked_above(f) && f.snd_max > f.snd_una {
                    // the next hole was overtaken too: its own first duplicate ACK, now
                    self.start(f, now);
                } else {
                    self.stop(f);
                }
                return v;
            }
        }
        match self.waiting.as_mut() {
            None if dup && f.snd_max > f.snd_una && f.snd_una >= self.inner.recovery_point() => {
                self.start(f, now);
                self.grow(f, now);
            }
            Some(w) if dup => {
                w.dups += 1;
                self.grow(f, now);
            }
            _ => {}
        }
        v
    }

    fn enter_recovery(&mut self, f: &mut Flow, now: SimTime, out: &mut TcpOut) {
        self.stop(f);
        self.sync(f);
        f.p.dupack_threshold = self.dupthresh;
        self.inner.enter_recovery(f, now, out);
        self.sync(f);
    }

    fn on_rto(&mut self, f: &mut Flow, now: SimTime) {
        self.stop(f);
        self.inner.on_rto(f, now);
        self.sync(f);
    }

    fn on_timer(&mut self, f: &mut Flow, now: SimTime, out: &mut TcpOut) {
        let Some(w) = self.waiting else { return self.inner.on_timer(f, now, out) };
        if f.snd_una != w.una || f.snd_una >= f.snd_max || self.inner.in_recovery() {
            self.stop(f);
            return;
        }
        if self.cfg.base == DcrBase::FirstDupack {
            f.response_flight = Some(w.flight as f64 / f.p.mss as f64);
            f.cc_state.cwnd = f.cc_state.cwnd.min(w.cwnd);
        }
        self.enter_recovery(f, now, out);
        f.response_flight = None;
        if self.cfg.rearm_rto {
            let rto = f.rto();
            f.set_timer(TimerKind::Rto, now + rto);
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

    fn next_segment(&self, f: &Flow, wnd: u64) -> Option<(u64, u64)> {
        match self.waiting {
            // one new segment per duplicate ACK beyond the flight at the first one
            Some(w) => {
                let allowed = w.flight + w.dups * f.p.mss as u64;
                self.inner.next_segment(f, wnd.max(allowed))
            }
            None => self.inner.next_segment(f, wnd),
        }
    }

    fn on_sent(&mut self, snd_max: u64, seq: u64, len: u64) {
        self.inner.on_sent(snd_max, seq, len)
    }

    fn pipe(&self, f: &Flow) -> Option<u64> {
        self.inner.pipe(f)
    }

    fn sacked_bytes(&self) -> u64 {
        self.inner.sacked_bytes()
    }
}
