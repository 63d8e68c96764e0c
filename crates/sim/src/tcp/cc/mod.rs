//! Congestion control behind one small trait (smoltcp's congestion.rs, quinn's
//! ControllerFactory): one required method, no-op defaults for the rest. Windows are in
//! segments (the papers' unit: "cwnd of 1 is the same as 1 MSS").
//!
//! The sender (tcp/sender.rs) runs loss detection and NewReno fast recovery (RFC 6582);
//! a congestion control only says how the window grows on new ACKs and what ssthresh
//! becomes after a congestion event.

pub mod newreno;

use crate::time::SimTime;

/// The window state a congestion control reads and writes (segments).
#[derive(Clone, Copy, Debug)]
pub struct CcState {
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Upper bound on cwnd (scenario "max cwnd"); f64::INFINITY when unlimited.
    pub max_cwnd: f64,
}

/// The kind of congestion signal that triggered a window reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionEvent {
    /// Three duplicate ACKs (fast retransmit, RFC 5681 section 3.2).
    FastRetransmit,
    /// ECN-Echo (RFC 3168 section 6.1.2).
    Ecn,
    /// Retransmission timeout (RFC 5681 section 3.1, eq. 4).
    Timeout,
}

pub trait CongestionControl: Send {
    fn name(&self) -> &'static str;

    /// New data acknowledged outside loss recovery: grow the window.
    /// `acked` is in segments; `rtt` is this ACK's RTT sample when valid (Karn).
    fn on_ack(&mut self, s: &mut CcState, acked: f64, rtt: Option<SimTime>, now: SimTime);

    /// ssthresh after a congestion event; `flight` is FlightSize in segments.
    /// Default: RFC 5681 eq. 4, ssthresh = max(FlightSize / 2, 2 SMSS).
    fn ssthresh(&mut self, _s: &CcState, flight: f64, _ev: CongestionEvent, _now: SimTime) -> f64 {
        (flight / 2.0).max(2.0)
    }

    /// Fast recovery ended with a full ACK (RFC 6582 section 3.2 step 3).
    fn on_recovery_exit(&mut self, _s: &mut CcState, _now: SimTime) {}
}

/// The built-in algorithms, by the name used in scenario files.
pub fn by_name(name: &str) -> Option<Box<dyn CongestionControl>> {
    match name {
        "newreno" => Some(Box::new(newreno::NewReno)),
        _ => None,
    }
}

pub const NAMES: &[&str] = &["newreno"];
