//! DropTail: a FIFO that drops arrivals when full; capacity in packets or bytes.

use super::{DropReason, QueueDisc, QueueState, Unit, Verdict};
use crate::packet::Packet;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug)]
pub struct DropTail {
    pub limit: u64,
    pub unit: Unit,
}

impl DropTail {
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
    fn name(&self) -> &'static str {
        "droptail"
    }

    fn wants_dequeue(&self) -> bool {
        false
    }

    fn as_droptail(&self) -> Option<DropTail> {
        Some(*self)
    }

    #[inline]
    fn enqueue(&mut self, pkt: &Packet, q: QueueState, _now: SimTime) -> Verdict {
        let fits = match self.unit {
            Unit::Packets => (q.pkts as u64) < self.limit,
            Unit::Bytes => q.bytes + pkt.size as u64 <= self.limit,
        };
        if fits {
            Verdict::Enqueue
        } else {
            Verdict::Drop(DropReason::Overflow)
        }
    }
}
