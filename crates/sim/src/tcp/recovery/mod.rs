//! Loss detection and recovery behind one interface: NewReno (RFC 6582, newreno.rs) and
//! SACK (RFC 2018 blocks, RFC 6675 recovery, sack.rs). The sender (sender.rs) runs the
//! handshake, the RTT estimator, the RTO (RFC 6298) and ECN; for every ACK that advances
//! snd_una or is a duplicate it asks the recovery piece what happens, and the send loop
//! asks it for the next segment the window lets out.
//!
//! A piece reads the sender through `SendState` (a copy) and answers with `Decision`s
//! (retransmit this, set the window, respond to a loss) that the sender applies in
//! order: the sequence space, the window and the counters are the sender's alone, and
//! this module knows nothing of the flow.
//!
//! A wrapper (TCP-DCR delaying the response to the first duplicate ACK, TCP-NCR's
//! extended limited transmit) implements `LossRecovery` around an inner piece and calls
//! its methods, `enter_recovery` among them, instead of copying it; it hands the inner
//! piece a `SendState` with its own DupThresh. The flow's `TimerKind::Recovery` timer is
//! theirs (`on_timer`, `Decision::ArmTimer`).

pub mod dcr;
pub mod ncr;
pub mod newreno;
pub mod piece;
pub mod prr;
pub mod sack;

use crate::core::time::SimTime;
pub use piece::{in_order_segment, next_in_order, AckInfo, AckVerdict, Decision, Decisions, LossRecovery, SendState};
pub use sack::RecoveryConfig;

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
    /// The built-in piece `k` with the options `c`.
    pub fn new(k: RecoveryKind, c: RecoveryConfig) -> Recovery {
        match k {
            RecoveryKind::NewReno => Recovery::NewReno(newreno::NewRenoRecovery::new(c.prr)),
            RecoveryKind::Sack => Recovery::Sack(Box::new(sack::SackRecovery::new(c))),
        }
    }

    /// The built-in piece `k`, wrapped by the reordering response `r`.
    pub fn build(k: RecoveryKind, r: Reordering, c: RecoveryConfig) -> Recovery {
        let inner = Recovery::new(k, c);
        match r {
            Reordering::None => inner,
            Reordering::Dcr(c) => Recovery::Custom(Box::new(dcr::Dcr::new(Box::new(inner), c))),
            Reordering::Ncr(c) => Recovery::Custom(Box::new(ncr::Ncr::new(Box::new(inner), c))),
        }
    }
}

impl LossRecovery for Recovery {
    fn name(&self) -> &'static str {
        each!(self, r => r.name())
    }
    #[inline]
    fn on_ack(&mut self, s: &SendState, a: &AckInfo, now: SimTime, out: &mut Decisions) -> AckVerdict {
        each!(self, r => r.on_ack(s, a, now, out))
    }
    #[inline]
    fn on_ack_fast(&mut self, a: &AckInfo) -> Option<AckVerdict> {
        each!(self, r => r.on_ack_fast(a))
    }
    fn enter_recovery(&mut self, s: &SendState, now: SimTime, out: &mut Decisions) {
        each!(self, r => r.enter_recovery(s, now, out))
    }
    fn on_rto(&mut self, s: &SendState, now: SimTime, out: &mut Decisions) {
        each!(self, r => r.on_rto(s, now, out))
    }
    fn on_timer(&mut self, s: &SendState, now: SimTime, out: &mut Decisions) {
        each!(self, r => r.on_timer(s, now, out))
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
    fn pipe(&self, s: &SendState) -> Option<u64> {
        each!(self, r => r.pipe(s))
    }
    fn sacked_above(&self, s: &SendState) -> bool {
        each!(self, r => r.sacked_above(s))
    }
    fn sacked_bytes(&self) -> u64 {
        each!(self, r => r.sacked_bytes())
    }
    fn response_flight(&self) -> Option<f64> {
        each!(self, r => r.response_flight())
    }
    #[inline]
    fn next_segment(&self, s: &SendState, wnd: u64) -> Option<(u64, u64)> {
        each!(self, r => r.next_segment(s, wnd))
    }
    #[inline]
    fn on_sent(&mut self, snd_max: u64, seq: u64, len: u64) {
        each!(self, r => r.on_sent(snd_max, seq, len))
    }
}
