//! DropTail: a FIFO that drops arrivals when full; capacity in packets or bytes.
//!
//! Optionally the DCTCP switch ("step") marking: M. Alizadeh et al., "Data Center TCP
//! (DCTCP)", SIGCOMM 2010, section 3.1 ("an arriving packet is marked with the CE
//! codepoint if the queue occupancy is greater than K upon its arrival"), RFC 8257
//! section 3.1. With `ecn_threshold = Some(K)`:
//!
//! ```text
//! q = the queue the arrival finds (waiting packets, not itself, not the one being
//!     serialised; packets or bytes, the queue's unit)
//! q > K and the packet is ECT  -> CE-marked and enqueued (if it fits)
//! otherwise                    -> plain DropTail
//! ```
//!
//! Marking never drops: the only drop is the overflow of `limit`, ECT or not. A packet
//! that is not ECN-capable (pure ACKs, retransmissions, flows without ECN) above K is
//! enqueued unmarked, as by a plain DropTail (unlike RED's ECN mode, which drops it
//! early). K: the paper's guideline (section 3.3) is K > C x RTT / 7.

use super::disc::{d_limit, QueueKind};
use super::disc::{DropReason, QueueDisc, QueueState, Unit, Verdict};
use crate::core::check::{positive, Validate};
use crate::core::packet::{flags, Packet};
use crate::core::rng::Rng;
use crate::core::time::BitsPerSec;
use crate::core::time::SimTime;
use crate::core::units::UnitSpec;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug)]
pub struct DropTail {
    pub limit: u64,
    pub unit: Unit,
    /// K: CE-mark ECT arrivals that find more than K queued (packets or bytes, `unit`);
    /// None: never mark.
    pub ecn_threshold: Option<u64>,
    /// Arrivals CE-marked (counter `droptail_ecn_marks`).
    pub marks: u64,
}

impl DropTail {
    /// A plain DropTail (no marking).
    pub fn new(limit: u64, unit: Unit) -> DropTail {
        DropTail { limit, unit, ecn_threshold: None, marks: 0 }
    }

    /// How many waiting packets of `pkt_bytes` wire bytes the buffer holds (the MBS fluid
    /// model's Q, the PDA sender's NIC bound).
    pub fn capacity_pkts(&self, pkt_bytes: u32) -> u64 {
        match self.unit {
            Unit::Packets => self.limit,
            Unit::Bytes => self.limit / pkt_bytes.max(1) as u64,
        }
    }
}

impl QueueDisc for DropTail {
    fn limit(&self) -> Option<(u64, Unit)> {
        Some((self.limit, self.unit))
    }
    fn marks_ecn(&self) -> bool {
        self.ecn_threshold.is_some()
    }
    fn name(&self) -> &'static str {
        "droptail"
    }

    fn wants_dequeue(&self) -> bool {
        false
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        match self.ecn_threshold {
            Some(_) => vec![("droptail_ecn_marks", self.marks as f64)],
            None => Vec::new(),
        }
    }

    #[inline]
    fn enqueue(&mut self, pkt: &Packet, q: QueueState, _now: SimTime) -> Verdict {
        let (occupancy, fits) = match self.unit {
            Unit::Packets => (q.pkts as u64, (q.pkts as u64) < self.limit),
            Unit::Bytes => (q.bytes, q.bytes + pkt.size as u64 <= self.limit),
        };
        if !fits {
            return Verdict::Drop(DropReason::Overflow);
        }
        match self.ecn_threshold {
            // DCTCP paper section 3.1: "greater than K upon its arrival"
            Some(k) if occupancy > k && pkt.has(flags::ECT) => {
                self.marks += 1;
                Verdict::Mark
            }
            _ => Verdict::Enqueue,
        }
    }
}

/// DropTail: a FIFO that refuses an arrival finding it full (the default queue of every
/// link, limit 1000 packets); with `ecn_threshold`, DCTCP's marking.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropTailSpec {
    /// Capacity (packets, or bytes with unit = "bytes"); at least 1.
    #[serde(default = "d_limit")]
    pub limit: u64,
    /// Unit of `limit` and `ecn_threshold`: packets or bytes.
    #[serde(default)]
    pub unit: UnitSpec,
    /// DCTCP marking threshold K (queue/droptail.rs; DCTCP paper section 3.1, RFC 8257
    /// section 3.1), in the queue's unit: an ECT arrival that finds more than K queued
    /// is CE-marked (never dropped for it). In 1..=limit; unset: no marking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<u64>,
}

impl Validate for DropTailSpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        let &DropTailSpec { limit, ecn_threshold, .. } = self;
        positive(path, "limit", limit)?;
        if let Some(k) = ecn_threshold {
            if k == 0 || k > limit {
                return Err(format!("{path}.ecn_threshold: must be in 1..=limit ({limit}) (got {k})"));
            }
        }
        Ok(())
    }
}

impl QueueKind for DropTailSpec {
    fn build(&self, _: &'static str, _: BitsPerSec, _: Rng, path: &str) -> Result<Box<dyn QueueDisc>, String> {
        debug_assert_eq!(self.validate(path), Ok(()));
        let &DropTailSpec { limit, unit, ecn_threshold } = self;
        Ok(Box::new(DropTail { ecn_threshold, ..DropTail::new(limit, unit.into()) }))
    }
}
