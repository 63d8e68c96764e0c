//! Queue disciplines: one small trait; the link does the FIFO plumbing and the
//! bookkeeping, a discipline only decides (ns-3 traffic-control's split: "received =
//! dropped before enqueue + enqueued"; Linux sch_red's split of algorithm and plumbing).
//!
//! Occupancy convention (ns-2's): the packet being serialised has left the queue, so a
//! queue of limit 50 holds 50 waiting packets plus the one on the wire.

pub mod disc;
pub mod droptail;
pub mod red;
pub mod red_disc;
pub mod registry;
pub mod rio;
pub mod superpacket;

use std::any::Any;

use crate::core::packet::Packet;
use crate::core::time::SimTime;
pub use disc::{DropReason, QueueDisc, QueueState, Unit, Verdict};
use droptail::DropTail;

/// A link's discipline: DropTail, the most common one, called directly; any other
/// through the trait.
pub enum Disc {
    DropTail(droptail::DropTail),
    Dyn { disc: Box<dyn QueueDisc>, wants_dequeue: bool },
}

impl Disc {
    pub fn new(d: Box<dyn QueueDisc>) -> Disc {
        let any: &dyn Any = &*d;
        match any.downcast_ref::<DropTail>() {
            Some(dt) => Disc::DropTail(*dt),
            None => Disc::Dyn { wants_dequeue: d.wants_dequeue(), disc: d },
        }
    }

    #[inline]
    pub fn enqueue(&mut self, pkt: &Packet, q: QueueState, now: SimTime) -> Verdict {
        match self {
            Disc::DropTail(d) => d.enqueue(pkt, q, now),
            Disc::Dyn { disc, .. } => disc.enqueue(pkt, q, now),
        }
    }

    #[inline]
    pub fn on_dequeue(&mut self, pkt: &Packet, q: QueueState, now: SimTime) {
        if let Disc::Dyn { disc, wants_dequeue: true } = self {
            disc.on_dequeue(pkt, q, now);
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Disc::DropTail(d) => d.name(),
            Disc::Dyn { disc, .. } => disc.name(),
        }
    }

    /// The buffer's hard limit and its unit.
    pub fn limit(&self) -> Option<(u64, Unit)> {
        match self {
            Disc::DropTail(d) => Some((d.limit, d.unit)),
            Disc::Dyn { disc, .. } => disc.limit(),
        }
    }

    /// Whether the discipline may mark packets CE.
    pub fn marks_ecn(&self) -> bool {
        match self {
            Disc::DropTail(d) => d.marks_ecn(),
            Disc::Dyn { disc, .. } => disc.marks_ecn(),
        }
    }

    /// Whether the decision depends on the ingress port (`QueueDisc::wants_ingress`).
    pub fn wants_ingress(&self) -> bool {
        match self {
            Disc::DropTail(_) => false,
            Disc::Dyn { disc, .. } => disc.wants_ingress(),
        }
    }

    /// The ingress port of the next packet to `enqueue` (`QueueDisc::set_ingress`).
    pub fn set_ingress(&mut self, port: u32) {
        if let Disc::Dyn { disc, .. } = self {
            disc.set_ingress(port);
        }
    }

    /// The discipline as a plain DropTail, if it is one (the MBS fluid model's buffer).
    pub fn as_droptail(&self) -> Option<DropTail> {
        match self {
            Disc::DropTail(d) => Some(*d),
            Disc::Dyn { .. } => None,
        }
    }

    pub fn counters(&self) -> Vec<(&'static str, f64)> {
        match self {
            Disc::DropTail(d) => d.counters(),
            Disc::Dyn { disc, .. } => disc.counters(),
        }
    }
}
