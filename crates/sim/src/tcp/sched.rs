//! The send scheduler, between window and wire: a segment the window (and loss
//! recovery) lets out leaves now (window-limited, the default), at the pacing rate, or
//! when a per-packet rule allows it (a `SendGate`: burstiness control, MBS bursts). When
//! a segment must wait, the scheduler names the time and the flow's `TimerKind::Send`
//! timer wakes the send loop then.
//!
//! Pacing: packet k + 1 leaves no earlier than the release of packet k plus its
//! serialisation time at the pacing rate, size x 8 / rate (the token-less form of
//! Linux's fq pacing, one packet of credit).

use crate::core::time::SimTime;

/// Pacing as a scenario sets it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pacing {
    /// Window-limited: no pacing.
    Off,
    /// A fixed rate, bits per second.
    Rate(f64),
    /// The congestion control's `pacing_rate` (unpaced while it gives none).
    Cc,
}

/// What a per-packet rule sees of its flow.
#[derive(Clone, Copy, Debug)]
pub struct GateView {
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    pub cwnd: f64,
    pub srtt: Option<SimTime>,
    /// Wire bytes of the packet about to leave.
    pub bytes: u32,
    /// Its first sequence number and payload bytes (0 when the view is of an ACK).
    pub seq: u64,
    pub len: u64,
    /// Octets SACKed above snd_una (0 without SACK).
    pub sacked: u64,
    /// Slow-start threshold, segments (infinite before the first reduction).
    pub ssthresh: f64,
}

/// A per-packet sending rule (burstiness control, MBS pacing).
pub trait SendGate: Send {
    fn name(&self) -> &'static str;
    /// When the packet may leave: `None` now, else the earliest time to ask again.
    fn release_at(&mut self, v: &GateView, now: SimTime) -> Option<SimTime>;
    /// The packet left.
    fn on_sent(&mut self, _v: &GateView, _now: SimTime) {}
    /// An ACK arrived (after the sender processed it: `snd_una` is the new one).
    fn on_ack(&mut self, _v: &GateView, _now: SimTime) {}
    /// Whether the window stops growing while this gate holds packets back (sender.rs
    /// `grow_cwnd`): true for a gate that paces a window-controlled flow (burstiness
    /// control); false for one whose flow's window is a fixed bound by design (PDA).
    fn holds_window(&self) -> bool {
        false
    }
}

pub struct Scheduler {
    pub pacing: Pacing,
    /// Earliest release of the next paced packet.
    next_release: SimTime,
    pub gate: Option<Box<dyn SendGate>>,
}

impl Scheduler {
    pub fn new(pacing: Pacing) -> Scheduler {
        Scheduler { pacing, next_release: SimTime::ZERO, gate: None }
    }

    /// Whether the scheduler does anything (the window-limited fast path skips it).
    #[inline]
    pub fn is_window_limited(&self) -> bool {
        self.pacing == Pacing::Off && self.gate.is_none()
    }

    /// When the packet described by `v` may leave (`None`: now); `rate` is the pacing
    /// rate in bits/s in force (None: unpaced).
    pub fn release_at(&mut self, v: &GateView, rate: Option<f64>, now: SimTime) -> Option<SimTime> {
        if rate.is_some() && self.next_release > now {
            return Some(self.next_release);
        }
        match self.gate.as_mut() {
            Some(g) => g.release_at(v, now),
            None => None,
        }
    }

    /// An ACK arrived; the gate, if any, sees it.
    #[inline]
    pub fn on_ack(&mut self, v: &GateView, now: SimTime) {
        if let Some(g) = self.gate.as_mut() {
            g.on_ack(v, now);
        }
    }

    /// The packet described by `v` left at `now`.
    pub fn on_sent(&mut self, v: &GateView, rate: Option<f64>, now: SimTime) {
        if let Some(r) = rate.filter(|r| *r > 0.0) {
            let gap = SimTime::from_secs_f64(v.bytes as f64 * 8.0 / r);
            self.next_release = self.next_release.max(now) + gap;
        }
        if let Some(g) = self.gate.as_mut() {
            g.on_sent(v, now);
        }
    }
}
