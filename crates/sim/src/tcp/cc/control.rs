//! The congestion-control interface every algorithm implements (one required method,
//! no-op defaults for the rest) and the window state it reads and writes. An algorithm
//! is one file importing this one; the registry of names is cc/mod.rs.

use crate::core::time::SimTime;

/// The window state a congestion control reads and writes (segments).
#[derive(Clone, Copy, Debug)]
pub struct CcState {
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Upper bound on cwnd (scenario "max cwnd"); f64::INFINITY when unlimited.
    pub max_cwnd: f64,
    /// The most segments one ACK adds to cwnd in slow start (RFC 3465's L): 1.0 as
    /// RFC 5681 eq. 2 (cwnd += min(N, SMSS)); f64::INFINITY as Linux's tcp_slow_start,
    /// which adds every segment the ACK acknowledges, up to ssthresh.
    pub abc_limit: f64,
}

impl CcState {
    /// Slow start's increase for an ACK of `acked` segments (RFC 5681 eq. 2 with
    /// `abc_limit` 1; RFC 3465 with a larger L). Above one segment the increase stops at
    /// ssthresh, as Linux's tcp_slow_start (cwnd = min(cwnd + acked, ssthresh)); an
    /// increase of at most one segment is RFC 5681's whether or not it crosses ssthresh.
    #[inline(always)]
    pub fn slow_start(&mut self, acked: f64) {
        let room = (self.ssthresh - self.cwnd).max(1.0);
        self.cwnd += acked.min(self.abc_limit.min(room).max(1.0));
    }
}

/// The kind of congestion signal that triggered a window reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionEvent {
    /// Three duplicate ACKs or an RFC 6675 loss (fast retransmit, RFC 5681 section 3.2).
    FastRetransmit,
    /// ECN-Echo (RFC 3168 section 6.1.2).
    Ecn,
    /// Retransmission timeout (RFC 5681 section 3.1, eq. 4).
    Timeout,
}

/// One ACK of new data as an ECN-measuring algorithm sees it (DCTCP, RFC 8257 section
/// 3.3 steps 1-8). Sequence numbers in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EcnAck {
    /// Bytes newly acknowledged (SEG.ACK - SND.UNA before the ACK).
    pub acked_bytes: u64,
    /// The ACK carried ECE (always false on a connection without ECN).
    pub ece: bool,
    /// The cumulative acknowledgment (SND.UNA after the ACK).
    pub ack: u64,
    /// SND.NXT: one past the highest sequence sent (the sender's snd_max).
    pub snd_nxt: u64,
}

pub trait CongestionControl: Send {
    fn name(&self) -> &'static str;

    /// New data acknowledged outside loss recovery: grow the window.
    /// `acked` is in segments; `rtt` is this ACK's RTT sample when valid (Karn).
    fn on_ack(&mut self, s: &mut CcState, acked: f64, rtt: Option<SimTime>, now: SimTime);

    /// Whether the sender calls `on_rtt_sample` and `on_packet_sent` (per-packet hooks
    /// cost a virtual call each; algorithms that use them say so here).
    fn per_packet_hooks(&self) -> bool {
        false
    }

    /// Every valid RTT sample (Karn's rule applied), in or out of recovery (Linux's
    /// pkts_acked): delay-based algorithms (Vegas, FAST) and H-TCP's RTT range use it.
    /// Called only when `per_packet_hooks` is true.
    fn on_rtt_sample(&mut self, _s: &mut CcState, _rtt: SimTime, _now: SimTime) {}

    /// A data packet left the sender (`retx`: a retransmission), for algorithms that
    /// count what they send (burst and rate estimators). Called only when
    /// `per_packet_hooks` is true.
    fn on_packet_sent(&mut self, _s: &mut CcState, _seq: u64, _bytes: u32, _retx: bool, _now: SimTime) {}

    /// Whether the algorithm measures ECN feedback itself (DCTCP): the sender then calls
    /// `on_ecn_ack` on every ACK of new data, and the algorithm's ssthresh for
    /// `CongestionEvent::Ecn` is its whole ECN response (in place of RFC 3168's halving,
    /// which is only the default ssthresh). The sender keeps RFC 3168's rules around it:
    /// at most one reduction per window of data, CWR, none in loss recovery.
    fn handles_ece(&self) -> bool {
        false
    }

    /// One ACK of new data, in or out of loss recovery, before the sender reacts to its
    /// ECE. Called only when `handles_ece` is true.
    fn on_ecn_ack(&mut self, _s: &mut CcState, _a: &EcnAck, _now: SimTime) {}

    /// The congestion event `ev`: the new ssthresh; `flight` is FlightSize in segments.
    /// Default: RFC 5681 eq. 4, ssthresh = max(FlightSize / 2, 2 SMSS); for
    /// `CongestionEvent::Ecn` the sender also sets cwnd to it (RFC 3168 section 6.1.2).
    fn ssthresh(&mut self, _s: &CcState, flight: f64, _ev: CongestionEvent, _now: SimTime) -> f64 {
        (flight / 2.0).max(2.0)
    }

    /// A retransmission timeout, after ssthresh was set and cwnd became the loss window
    /// (Linux's CA_Loss state: BIC and CUBIC reset their epoch here).
    fn on_rto(&mut self, _s: &mut CcState, _now: SimTime) {}

    /// Loss recovery ended (RFC 6582 section 3.2 step 3, RFC 6675 (A)).
    fn on_recovery_exit(&mut self, _s: &mut CcState, _now: SimTime) {}

    /// A pacing rate in bits/s, if the algorithm paces (FAST, MBS); `srtt` when known.
    /// Used by the send scheduler when the flow's `pacing = "cc"`.
    fn pacing_rate(&self, _s: &CcState, _srtt: Option<SimTime>) -> Option<f64> {
        None
    }
}

/// The receiver's ECN feedback (receiver.rs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EceEcho {
    /// RFC 3168 section 6.1.3: ECE on every ACK from a CE packet until a CWR packet.
    #[default]
    Rfc3168,
    /// RFC 8257 section 3.2: every ACK's ECE is the CE state of the data it
    /// acknowledges; with delayed ACKs, a change of CE state first acknowledges the
    /// packets held under the old state.
    Accurate,
}
