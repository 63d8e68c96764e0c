//! Packet reordering on a link: draft-bhandarkar-tcp-dcr-00 section 5.1 (the TCP-DCR
//! experiments: a share of the packets "delayed", the extra delay drawn from a normal
//! distribution with mean 25 ms and standard deviation 8 ms), as
//! ../shared/ALGORITHMS.md section 11 specifies it for this simulator:
//! - each packet is chosen independently with probability q (a Bernoulli draw from the
//!   link's own seeded stream), by default data packets only (ACKs are not reordered);
//! - a chosen packet gets an extra delay D ~ Normal(mean, sd), redrawn while negative
//!   (P(D < 0) = 0.089 % at 25/8 ms) or, as an option, clamped at 0;
//! - D is added after serialisation, beside the propagation delay: the packet does not
//!   hold the link or the queue longer, it arrives at t_tx_end + prop + D, and the
//!   packets sent after it overtake it.
//!
//! A held packet has left the link's ring (its serialisation and propagation are over)
//! and waits here; the conservation check counts it as on the wire.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::core::packet::{flags, Packet, PktId};
use crate::core::rng::Rng;
use crate::core::time::SimTime;

/// What to do with a negative draw of D.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Negative {
    Redraw,
    Clamp,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReorderParams {
    /// Probability that a packet is delayed.
    pub q: f64,
    pub mean: SimTime,
    pub sd: SimTime,
    pub negative: Negative,
    /// Only data packets are delayed (ACKs, SYNs pass).
    pub data_only: bool,
}

impl Default for ReorderParams {
    fn default() -> Self {
        ReorderParams {
            q: 0.0,
            mean: SimTime::from_ms(25),
            sd: SimTime::from_ms(8),
            negative: Negative::Redraw,
            data_only: true,
        }
    }
}

pub struct ReorderStage {
    pub p: ReorderParams,
    rng: Rng,
    /// Held packets by (release time, insertion order): ties leave in the order they came.
    held: BinaryHeap<Reverse<(u64, u64, PktId, u32)>>,
    seq: u64,
    /// Packets delayed so far.
    pub delayed: u64,
}

impl ReorderStage {
    pub fn new(p: ReorderParams, rng: Rng) -> ReorderStage {
        ReorderStage { p, rng, held: BinaryHeap::new(), seq: 0, delayed: 0 }
    }

    /// Whether `pkt`, leaving the link now, is delayed; if so, the extra delay.
    #[inline]
    pub fn choose(&mut self, pkt: &Packet) -> Option<SimTime> {
        if self.p.data_only && !pkt.has(flags::DATA) {
            return None;
        }
        (self.rng.uniform() < self.p.q).then(|| self.draw())
    }

    /// One draw of D (ns, rounded down to the integer clock).
    pub fn draw(&mut self) -> SimTime {
        let (m, s) = (self.p.mean.ns() as f64, self.p.sd.ns() as f64);
        loop {
            let d = self.rng.normal(m, s);
            if d >= 0.0 {
                return SimTime(d as u64);
            }
            if self.p.negative == Negative::Clamp {
                return SimTime::ZERO;
            }
        }
    }

    pub(crate) fn hold(&mut self, until: SimTime, id: PktId, size: u32) {
        self.held.push(Reverse((until.ns(), self.seq, id, size)));
        self.seq += 1;
        self.delayed += 1;
    }

    /// The held packet due first (its id and size).
    pub(crate) fn release(&mut self) -> Option<(SimTime, PktId, u32)> {
        self.held.pop().map(|Reverse((t, _, id, size))| (SimTime(t), id, size))
    }

    pub fn held(&self) -> usize {
        self.held.len()
    }

    pub fn held_packets(&self) -> impl Iterator<Item = PktId> + '_ {
        self.held.iter().map(|Reverse((_, _, id, _))| *id)
    }
}
