//! What every queue discipline shares: the trait (the decision only: the link owns the
//! FIFO and the bookkeeping), its verdicts, the queue state it sees, the drop reasons.
//! A discipline is one file implementing `QueueDisc`; it imports this file only.

use std::any::Any;

use crate::core::packet::Packet;
use crate::core::time::SimTime;
use crate::core::units::UnitSpec;

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
    /// Super-packet refused: its ingress port holds its quota of the admission table
    /// (section 3.1 with source validation; the queue's `port_share`).
    SpPortQuota,
    /// Source validation (ingress filtering, BCP 38 / RFC 3704): the router the packet
    /// reached does not accept its source address on the port it came in by. Counted on
    /// the link the packet would have left by.
    SourceInvalid,
}

impl DropReason {
    pub const COUNT: usize = 14;
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
        DropReason::SpPortQuota,
        DropReason::SourceInvalid,
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
            DropReason::SpPortQuota => "sp_port_quota",
            DropReason::SourceInvalid => "source_invalid",
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
pub trait QueueDisc: Any + Send {
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
    /// The buffer's hard limit and its unit (the links table's `limit`, `limit_unit`).
    fn limit(&self) -> Option<(u64, Unit)> {
        None
    }
    /// Whether the discipline may mark ECN-capable packets CE instead of dropping them
    /// (a DropTail with a marking threshold, RED or RIO with `ecn`).
    fn marks_ecn(&self) -> bool {
        false
    }
    /// True when the decision depends on the port the packet came in by (the super-packet
    /// table's port quota): the engine then calls `set_ingress` before each `enqueue`.
    fn wants_ingress(&self) -> bool {
        false
    }
    /// The ingress port (the id of the link the packet arrived on, `u32::MAX` for a
    /// packet the node itself sent) of the packet whose `enqueue` comes next.
    fn set_ingress(&mut self, _port: u32) {}
}

/// Buffer capacity unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Packets,
    Bytes,
}

impl From<UnitSpec> for Unit {
    fn from(u: UnitSpec) -> Unit {
        match u {
            UnitSpec::Packets => Unit::Packets,
            UnitSpec::Bytes => Unit::Bytes,
        }
    }
}
