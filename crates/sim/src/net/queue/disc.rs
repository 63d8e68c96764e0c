//! What every queue discipline shares: the trait (the decision only: the link owns the
//! FIFO and the bookkeeping), its verdicts, the queue state it sees, the drop reasons.
//! A discipline is one file implementing `QueueDisc`; it imports this file only.

use std::any::Any;

use crate::core::check::Validate;
use crate::core::packet::Packet;
use crate::core::rng::Rng;
use crate::core::time::BitsPerSec;
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

/// A queue discipline's scenario table. Its `Validate` holds every check of the table
/// (run in the validate phase, before anything is built); `build` relies on it.
pub trait QueueKind: Validate {
    /// The discipline for a link of `rate`, drawing from `rng`, named `kind` in results;
    /// an error names its field under `path`.
    fn build(&self, kind: &'static str, rate: BitsPerSec, rng: Rng, path: &str) -> Result<Box<dyn QueueDisc>, String>;

    /// Settings this queue accepts that likely do not mean what was meant, one line each
    /// naming the field.
    fn warnings(&self, _path: &str) -> Vec<String> {
        Vec::new()
    }

    /// Bytes the discipline allocates when built, charged to the run's memory estimate
    /// before the build (scenario/links.rs); a queue that allocates any is not built
    /// twice to check it.
    fn prealloc_bytes(&self) -> f64 {
        0.0
    }
}

/// A RED threshold `max_th` at or above the buffer's `limit`, which the average queue
/// cannot reach before the tail drops.
pub(crate) fn max_th_warning(field: String, max_th: f64, limit: u64) -> Option<String> {
    (max_th >= limit as f64).then(|| {
        format!(
            "{field}: {max_th} is at or above the queue's limit {limit}: the average queue cannot reach \
             it before the buffer drops at its tail (a max_th below limit, e.g. limit / 2)"
        )
    })
}

pub fn d_limit() -> u64 {
    1000
}
pub fn d_p_max() -> f64 {
    0.1
}
pub fn d_w_q() -> f64 {
    0.002
}
pub fn d_true() -> bool {
    true
}
pub fn d_mean_pkt() -> u32 {
    1500
}
pub fn d_one_u32() -> u32 {
    1
}
