//! Queue disciplines: one small trait; the link does the FIFO plumbing and the
//! bookkeeping, a discipline only decides (ns-3 traffic-control's split: "received =
//! dropped before enqueue + enqueued"; Linux sch_red's split of algorithm and plumbing).
//!
//! Occupancy convention (ns-2's): the packet being serialised has left the queue, so a
//! queue of limit 50 holds 50 waiting packets plus the one on the wire.

pub mod droptail;
pub mod red;
pub mod red_disc;
pub mod rio;
pub mod superpacket;

use crate::packet::Packet;
use crate::time::SimTime;

/// Why a packet was dropped. One counter per reason on every link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DropReason {
    /// The buffer was full (DropTail, or RED's hard limit).
    Overflow = 0,
    /// RED early (probabilistic) drop.
    RedEarly,
    /// RED forced drop (average above max_th, or above 2 max_th with gentle).
    RedForced,
    /// Independent random loss on the link (validation option).
    RandomLoss,
    /// Super-packet admission: normal packet or new super-packet while pkt_cnt >= t.
    SpThreshold,
    /// Super-packet admission: accepted subsequent packet but pkt_cnt >= buffSize.
    SpBufferFull,
    /// Subsequent packet of a super-packet that this router did not admit.
    SpNotAdmitted,
    /// Bloom filter false positive detected (hash table has no entry).
    SpBloomFalsePositive,
    /// Outstanding count of the (src, dst) pair already zero.
    SpOutstandingExhausted,
    /// Super-packet state table full (memory bound).
    SpTableFull,
    /// Malformed super-packet header.
    SpBadHeader,
    /// Super-packet refused by the per-source cap on reserved packets (section 3.1).
    SpSourceCap,
}

impl DropReason {
    pub const COUNT: usize = 12;
    pub const ALL: [DropReason; DropReason::COUNT] = [
        DropReason::Overflow,
        DropReason::RedEarly,
        DropReason::RedForced,
        DropReason::RandomLoss,
        DropReason::SpThreshold,
        DropReason::SpBufferFull,
        DropReason::SpNotAdmitted,
        DropReason::SpBloomFalsePositive,
        DropReason::SpOutstandingExhausted,
        DropReason::SpTableFull,
        DropReason::SpBadHeader,
        DropReason::SpSourceCap,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::RedEarly => "red_early",
            DropReason::RedForced => "red_forced",
            DropReason::RandomLoss => "random_loss",
            DropReason::SpThreshold => "sp_threshold",
            DropReason::SpBufferFull => "sp_buffer_full",
            DropReason::SpNotAdmitted => "sp_not_admitted",
            DropReason::SpBloomFalsePositive => "sp_bloom_false_positive",
            DropReason::SpOutstandingExhausted => "sp_outstanding_exhausted",
            DropReason::SpTableFull => "sp_table_full",
            DropReason::SpBadHeader => "sp_bad_header",
            DropReason::SpSourceCap => "sp_source_cap",
        }
    }
}

/// What the discipline sees of the queue when deciding: the packets waiting (not the
/// one being serialised).
#[derive(Clone, Copy, Debug, Default)]
pub struct QueueState {
    pub pkts: u32,
    pub bytes: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    /// Enqueue with CE set (the packet was ECN-capable).
    Mark,
    Drop(DropReason),
}

/// A queue discipline: the decision only. The link owns the FIFO.
pub trait QueueDisc: Send {
    fn name(&self) -> &'static str;
    /// Decide on an arriving packet given the queue as it is before this packet.
    fn enqueue(&mut self, pkt: &Packet, q: QueueState, now: SimTime) -> Verdict;
    /// Called after a packet leaves the queue (starts serialisation); `q` is the state
    /// after its removal.
    fn on_dequeue(&mut self, _pkt: &Packet, _q: QueueState, _now: SimTime) {}
    /// Extra named counters of the discipline (for results tables).
    fn counters(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// False when `on_dequeue` does nothing (the link then skips the call).
    fn wants_dequeue(&self) -> bool {
        true
    }
    /// The discipline as a plain DropTail, if it is one (the link calls it directly).
    fn as_droptail(&self) -> Option<droptail::DropTail> {
        None
    }
    /// The buffer's hard limit and its unit (the links table's `limit`, `limit_unit`).
    fn limit(&self) -> Option<(u64, Unit)> {
        None
    }
}

/// A link's discipline: DropTail, the most common one, called directly; any other
/// through the trait.
pub enum Disc {
    DropTail(droptail::DropTail),
    Dyn { disc: Box<dyn QueueDisc>, wants_dequeue: bool },
}

impl Disc {
    pub fn new(d: Box<dyn QueueDisc>) -> Disc {
        match d.as_droptail() {
            Some(dt) => Disc::DropTail(dt),
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

    /// The discipline as a plain DropTail, if it is one (the MBS fluid model's buffer).
    pub fn as_droptail(&self) -> Option<droptail::DropTail> {
        match self {
            Disc::DropTail(d) => Some(*d),
            Disc::Dyn { disc, .. } => disc.as_droptail(),
        }
    }

    pub fn counters(&self) -> Vec<(&'static str, f64)> {
        match self {
            Disc::DropTail(d) => d.counters(),
            Disc::Dyn { disc, .. } => disc.counters(),
        }
    }
}

/// Buffer capacity unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Packets,
    Bytes,
}
