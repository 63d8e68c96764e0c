//! The interface of a loss-recovery piece (mod.rs has the pieces): what it reads of the
//! sender (`SendState`, a copy), what it answers (`Decision`s the sender applies in
//! order, an `AckVerdict`), and the `LossRecovery` trait itself.

use crate::core::time::SimTime;
use crate::tcp::sack::SackBlock;

/// What an ACK tells loss recovery (snd_una has already moved to `ack`).
#[derive(Clone, Copy, Debug)]
pub struct AckInfo<'a> {
    pub ack: u64,
    /// Bytes this ACK newly acknowledged cumulatively (0 for a duplicate).
    pub newly: u64,
    /// RFC 5681's duplicate ACK: snd_una unchanged, data outstanding, no payload.
    pub dup: bool,
    /// SACK blocks carried by the ACK (empty without SACK).
    pub sack: &'a [SackBlock],
}

/// What the sender does after recovery saw an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckVerdict {
    /// The congestion control may grow the window (the ACK is outside recovery).
    pub grow: bool,
    /// Restart the retransmission timer (RFC 6298 5.3; not for the later partial ACKs of
    /// RFC 6582's impatient variant).
    pub restart_rto: bool,
}

/// The sender as loss recovery reads it, copied before each call (sender.rs
/// `Flow::send_state`). Sequence numbers in bytes, windows in segments.
#[derive(Clone, Copy, Debug)]
pub struct SendState {
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// One past the last data byte.
    pub end_seq: u64,
    pub mss: u64,
    /// DupThresh: the flow's, or the one a wrapper hands its inner piece.
    pub dupthresh: u32,
    /// RFC 3042 limited transmit is on.
    pub limited_transmit: bool,
    pub cwnd: f64,
    pub ssthresh: f64,
    pub srtt: Option<SimTime>,
    pub rto: SimTime,
    /// The FlightSize (segments) a congestion response is based on, when a wrapper fixes
    /// it (TCP-DCR's flight at the first duplicate ACK, TCP-NCR's FlightSizePrev): the
    /// response uses the smaller of it and the current FlightSize.
    pub response_flight: Option<f64>,
}

impl SendState {
    /// FlightSize in segments (RFC 5681: data sent and not cumulatively acknowledged).
    #[inline]
    pub fn flight(&self) -> f64 {
        (self.snd_max - self.snd_una) as f64 / self.mss as f64
    }

    /// FlightSize for a congestion response: the current one or the smaller fixed one.
    #[inline]
    pub fn response_flight(&self) -> f64 {
        let f = self.flight();
        self.response_flight.map_or(f, |r| r.min(f))
    }

    /// What `d` does to the sequence space and the window as this copy knows them (a
    /// wrapper reads its inner piece's effects before the sender applies them; a
    /// response's ssthresh and a growth are the congestion control's and stay unknown).
    pub fn note(&mut self, d: &Decision) {
        match *d {
            Decision::SendNew { len } => {
                self.snd_nxt += len;
                self.snd_max = self.snd_max.max(self.snd_nxt);
            }
            Decision::SetCwnd(w) => self.cwnd = w,
            Decision::SetSsthresh(s) => self.ssthresh = s,
            _ => {}
        }
    }
}

/// One thing loss recovery asks of the sender, applied in the order given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    /// The loss response of fast retransmit: counted, ssthresh from the congestion
    /// control for this FlightSize (segments), and RFC 3168 6.1.2's bookkeeping (CWR on
    /// the next new data, no ECN reduction in this window).
    Respond {
        flight: f64,
    },
    /// cwnd = ssthresh + `plus` segments, at least 1 (after `Respond`).
    WindowFromSsthresh {
        plus: f64,
    },
    /// Resend [seq, seq + len) now, whatever the window.
    Retransmit {
        seq: u64,
        len: u64,
    },
    /// Send `len` new bytes at snd_nxt now, whatever the window (limited transmit).
    SendNew {
        len: u64,
    },
    SetCwnd(f64),
    SetSsthresh(f64),
    /// cwnd from Proportional Rate Reduction for the ssthresh in force (prr.rs).
    PrrWindow(super::prr::PrrAck),
    /// Recovery ended: the congestion control's `on_recovery_exit`.
    RecoveryExit,
    /// The congestion control grows the window as for `acked` segments ACKed.
    Grow {
        acked: f64,
    },
    /// Arms (replaces) the flow's `TimerKind::Recovery` timer.
    ArmTimer(SimTime),
    DisarmTimer,
    /// Restarts the retransmission timer at now + RTO.
    RestartRto,
}

/// Decisions in order; the sender owns one and reuses it.
pub type Decisions = Vec<Decision>;

pub trait LossRecovery: Send {
    fn name(&self) -> &'static str;

    /// An ACK that advanced snd_una or is a duplicate (`a.dup`): update the state, push
    /// what must go regardless of the window (a fast retransmit) to `out`.
    fn on_ack(&mut self, s: &SendState, a: &AckInfo, now: SimTime, out: &mut Decisions) -> AckVerdict;

    /// The common case from the piece's own state alone (NewReno: new data outside
    /// recovery). `None`: call `on_ack`. Saves building a `SendState` on most ACKs.
    #[inline]
    fn on_ack_fast(&mut self, _a: &AckInfo) -> Option<AckVerdict> {
        None
    }

    /// Enters fast recovery now: ssthresh from the congestion control, the first
    /// unacknowledged segment resent (RFC 5681 3.2 steps 2-3, RFC 6675 step 4).
    fn enter_recovery(&mut self, s: &SendState, now: SimTime, out: &mut Decisions);

    /// A retransmission timeout (the sender has set ssthresh, cwnd and go-back-N).
    fn on_rto(&mut self, s: &SendState, now: SimTime, out: &mut Decisions);

    /// The flow's `TimerKind::Recovery` timer fired.
    fn on_timer(&mut self, _s: &SendState, _now: SimTime, _out: &mut Decisions) {}

    fn in_recovery(&self) -> bool;

    /// Duplicate ACKs since the last ACK that advanced snd_una.
    fn dupacks(&self) -> u32;

    /// RFC 6582's `recover` / RFC 6675's RecoveryPoint (highest sequence sent at entry).
    fn recovery_point(&self) -> u64;

    /// The next segment (seq, len) the usable window `wnd` (bytes) lets out, if any.
    fn next_segment(&self, s: &SendState, wnd: u64) -> Option<(u64, u64)>;

    /// A segment chosen by `next_segment` is being sent (`snd_max` before it is sent).
    fn on_sent(&mut self, _snd_max: u64, _seq: u64, _len: u64) {}

    /// RFC 6675 pipe in bytes, for pieces that keep a scoreboard.
    fn pipe(&self, _s: &SendState) -> Option<u64> {
        None
    }

    /// Data above snd_una is SACKed: a hole remains at snd_una (false without SACK).
    fn sacked_above(&self, _s: &SendState) -> bool {
        false
    }

    /// Octets SACKed above snd_una (0 without SACK): delivered but not cumulatively
    /// acknowledged (a send gate's delivery-rate estimate).
    fn sacked_bytes(&self) -> u64 {
        0
    }

    /// The FlightSize (segments) a wrapper has fixed for congestion responses between
    /// calls (TCP-NCR's FlightSizePrev during extended limited transmit): the sender's
    /// timeout response uses it.
    fn response_flight(&self) -> Option<f64> {
        None
    }
}

/// The window-limited next segment from snd_nxt (go-back-N after a timeout): shared by
/// NewReno and by SACK outside recovery.
#[inline]
pub fn next_in_order(s: &SendState, wnd: u64) -> Option<(u64, u64)> {
    in_order_segment(s.snd_una, s.snd_nxt, s.end_seq, s.mss, wnd)
}

/// `next_in_order` from the four numbers it reads (the sender's NewReno path, P1's cost,
/// without building a `SendState` per segment).
#[inline]
pub fn in_order_segment(snd_una: u64, snd_nxt: u64, end_seq: u64, mss: u64, wnd: u64) -> Option<(u64, u64)> {
    if snd_nxt >= end_seq {
        return None;
    }
    let len = mss.min(end_seq - snd_nxt);
    (snd_nxt + len - snd_una <= wnd).then_some((snd_nxt, len))
}
