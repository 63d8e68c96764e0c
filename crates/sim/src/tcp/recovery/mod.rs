//! Loss detection and recovery behind one interface: NewReno (RFC 6582, newreno.rs) and
//! SACK (RFC 2018 blocks, RFC 6675 recovery, sack.rs). The sender (sender.rs) runs the
//! handshake, the RTT estimator, the RTO (RFC 6298) and ECN; for every ACK that advances
//! snd_una or is a duplicate it asks the recovery piece what happens, and the send loop
//! asks it for the next segment the window lets out.
//!
//! A wrapper (TCP-DCR delaying the response to the first duplicate ACK, TCP-NCR's
//! extended limited transmit) implements `LossRecovery` around an inner piece and calls
//! its methods, `enter_recovery` among them, instead of copying it. The flow's own
//! `TimerKind::Recovery` timer is theirs (`on_timer`).

pub mod dcr;
pub mod ncr;
pub mod newreno;
pub mod sack;

use super::sack::SackBlock;
use super::{Flow, TcpOut};
use crate::core::time::SimTime;

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

pub trait LossRecovery: Send {
    fn name(&self) -> &'static str;

    /// An ACK that advanced snd_una or is a duplicate (`a.dup`): update the state, send
    /// what must go regardless of the window (a fast retransmit) with `f.send_segment`.
    fn on_ack(&mut self, f: &mut Flow, a: &AckInfo, now: SimTime, out: &mut TcpOut) -> AckVerdict;

    /// The common case without the flow: an ACK that needs nothing but the piece's own
    /// state (NewReno: new data outside recovery). `None`: call `on_ack`. Saves taking the
    /// piece out of the flow on most ACKs.
    #[inline]
    fn on_ack_fast(&mut self, _a: &AckInfo) -> Option<AckVerdict> {
        None
    }

    /// Enters fast recovery now: ssthresh from the congestion control, the first
    /// unacknowledged segment resent (RFC 5681 3.2 steps 2-3, RFC 6675 step 4).
    fn enter_recovery(&mut self, f: &mut Flow, now: SimTime, out: &mut TcpOut);

    /// A retransmission timeout (the sender has set ssthresh, cwnd and go-back-N).
    fn on_rto(&mut self, f: &mut Flow, now: SimTime);

    /// The flow's `TimerKind::Recovery` timer fired.
    fn on_timer(&mut self, _f: &mut Flow, _now: SimTime, _out: &mut TcpOut) {}

    fn in_recovery(&self) -> bool;

    /// Duplicate ACKs since the last ACK that advanced snd_una.
    fn dupacks(&self) -> u32;

    /// RFC 6582's `recover` / RFC 6675's RecoveryPoint (highest sequence sent at entry).
    fn recovery_point(&self) -> u64;

    /// The next segment (seq, len) the usable window `wnd` (bytes) lets out, if any.
    fn next_segment(&self, f: &Flow, wnd: u64) -> Option<(u64, u64)>;

    /// A segment chosen by `next_segment` is being sent (`snd_max` before it is sent).
    fn on_sent(&mut self, _snd_max: u64, _seq: u64, _len: u64) {}

    /// RFC 6675 pipe in bytes, for pieces that keep a scoreboard.
    fn pipe(&self, _f: &Flow) -> Option<u64> {
        None
    }

    /// Data above snd_una is SACKed: a hole remains at snd_una (false without SACK).
    fn sacked_above(&self, _f: &Flow) -> bool {
        false
    }

    /// Octets SACKed above snd_una (0 without SACK): delivered but not cumulatively
    /// acknowledged (a send gate's delivery-rate estimate).
    fn sacked_bytes(&self) -> u64 {
        0
    }
}

/// The built-in recovery pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryKind {
    NewReno,
    Sack,
}

/// How the sender responds to reordering: not at all (the built-in piece alone),
/// TCP-DCR (dcr.rs) or TCP-NCR (ncr.rs, SACK only) around it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Reordering {
    #[default]
    None,
    Dcr(dcr::DcrConfig),
    Ncr(ncr::NcrConfig),
}

impl Reordering {
    pub fn name(&self) -> &'static str {
        match self {
            Reordering::None => "none",
            Reordering::Dcr(_) => "dcr",
            Reordering::Ncr(_) => "ncr",
        }
    }
}

/// The window-limited next segment from snd_nxt (go-back-N after a timeout): shared by
/// NewReno and by SACK outside recovery.
#[inline]
pub fn next_in_order(f: &Flow, wnd: u64) -> Option<(u64, u64)> {
    let end = f.end_seq();
    if f.snd_nxt >= end {
        return None;
    }
    let len = (f.p.mss as u64).min(end - f.snd_nxt);
    (f.snd_nxt + len - f.snd_una <= wnd).then_some((f.snd_nxt, len))
}

/// The flow's recovery piece: the built-ins dispatched statically (NewReno's per-ACK and
/// per-segment paths inline into the sender, P1's cost), anything else (a wrapper such
/// as TCP-DCR) through the trait.
pub enum Recovery {
    NewReno(newreno::NewRenoRecovery),
    Sack(Box<sack::SackRecovery>),
    Custom(Box<dyn LossRecovery>),
}

macro_rules! each {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            Recovery::NewReno($r) => $e,
            Recovery::Sack($r) => $e,
            Recovery::Custom($r) => $e,
        }
    };
}

impl Recovery {
    pub fn new(k: RecoveryKind) -> Recovery {
        match k {
            RecoveryKind::NewReno => Recovery::NewReno(newreno::NewRenoRecovery::default()),
            RecoveryKind::Sack => Recovery::Sack(Box::default()),
        }
    }

    /// The built-in piece `k`, wrapped by the reordering response `r`.
    pub fn build(k: RecoveryKind, r: Reordering) -> Recovery {
        let inner = Recovery::new(k);
        match r {
            Reordering::None => inner,
            Reordering::Dcr(c) => Recovery::Custom(Box::new(dcr::Dcr::new(inner, c))),
            Reordering::Ncr(c) => Recovery::Custom(Box::new(ncr::Ncr::new(inner, c))),
        }
    }
}

impl LossRecovery for Recovery {
    fn name(&self) -> &'static str {
        each!(self, r => r.name())
    }
    #[inline]
    fn on_ack(&mut self, f: &mut Flow, a: &AckInfo, now: SimTime, out: &mut TcpOut) -> AckVerdict {
        each!(self, r => r.on_ack(f, a, now, out))
    }
    #[inline]
    fn on_ack_fast(&mut self, a: &AckInfo) -> Option<AckVerdict> {
        each!(self, r => r.on_ack_fast(a))
    }
    fn enter_recovery(&mut self, f: &mut Flow, now: SimTime, out: &mut TcpOut) {
        each!(self, r => r.enter_recovery(f, now, out))
    }
    fn on_rto(&mut self, f: &mut Flow, now: SimTime) {
        each!(self, r => r.on_rto(f, now))
    }
    fn on_timer(&mut self, f: &mut Flow, now: SimTime, out: &mut TcpOut) {
        each!(self, r => r.on_timer(f, now, out))
    }
    #[inline]
    fn in_recovery(&self) -> bool {
        each!(self, r => r.in_recovery())
    }
    fn dupacks(&self) -> u32 {
        each!(self, r => r.dupacks())
    }
    fn recovery_point(&self) -> u64 {
        each!(self, r => r.recovery_point())
    }
    fn pipe(&self, f: &Flow) -> Option<u64> {
        each!(self, r => r.pipe(f))
    }
    fn sacked_above(&self, f: &Flow) -> bool {
        each!(self, r => r.sacked_above(f))
    }
    fn sacked_bytes(&self) -> u64 {
        each!(self, r => r.sacked_bytes())
    }
    #[inline]
    fn next_segment(&self, f: &Flow, wnd: u64) -> Option<(u64, u64)> {
        each!(self, r => r.next_segment(f, wnd))
    }
    #[inline]
    fn on_sent(&mut self, snd_max: u64, seq: u64, len: u64) {
        each!(self, r => r.on_sent(snd_max, seq, len))
    }
}
