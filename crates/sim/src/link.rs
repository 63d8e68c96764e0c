//! A link: egress queue (a discipline's decision + FIFO plumbing) + serialiser (rate) +
//! propagation delay. One pending event per busy serialiser and one per non-empty pipe:
//! the pipe is a ring of packets in flight in arrival order (constant delay keeps it
//! sorted), as htsim's sim/pipe.cpp.

use std::collections::VecDeque;

use crate::packet::{NodeId, PktId};
use crate::queue::{DropReason, QueueDisc, QueueState};
use crate::rng::Rng;
use crate::time::{BitsPerSec, SimTime};

/// Per-link counters (the link table of the results).
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    pub arrivals: u64,
    pub bytes_arrived: u64,
    /// Serialisation finished (packet on the wire).
    pub departures: u64,
    pub bytes_departed: u64,
    /// Reached the far end.
    pub delivered: u64,
    pub drops: [u64; DropReason::COUNT],
    pub marks: u64,
    pub max_pkts: u32,
    pub max_bytes: u64,
    /// Integral of the waiting-packet count over time (packet x ns).
    pub occ_integral: u128,
    pub occ_bytes_integral: u128,
    pub last_change: SimTime,
    /// Time the serialiser was busy (ns), for utilisation.
    pub busy_ns: u64,
}

impl LinkStats {
    pub fn total_drops(&self) -> u64 {
        self.drops.iter().sum()
    }
}

pub struct Link {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: BitsPerSec,
    pub delay: SimTime,
    pub(crate) fifo: VecDeque<PktId>,
    pub(crate) q: QueueState,
    pub(crate) tx: Option<PktId>,
    pub(crate) pipe: VecDeque<(SimTime, PktId)>,
    pub(crate) disc: Box<dyn QueueDisc>,
    pub(crate) loss: f64,
    pub(crate) rng: Rng,
    pub stats: LinkStats,
}

impl Link {
    pub fn new(
        name: String,
        from: NodeId,
        to: NodeId,
        rate: BitsPerSec,
        delay: SimTime,
        disc: Box<dyn QueueDisc>,
        loss: f64,
        rng: Rng,
    ) -> Link {
        Link {
            name,
            from,
            to,
            rate,
            delay,
            fifo: VecDeque::new(),
            q: QueueState::default(),
            tx: None,
            pipe: VecDeque::new(),
            disc,
            loss,
            rng,
            stats: LinkStats::default(),
        }
    }

    pub fn queue_state(&self) -> QueueState {
        self.q
    }

    pub fn disc_name(&self) -> &'static str {
        self.disc.name()
    }

    pub fn disc_counters(&self) -> Vec<(&'static str, f64)> {
        self.disc.counters()
    }

    pub fn in_flight(&self) -> usize {
        self.pipe.len()
    }

    pub fn in_service(&self) -> bool {
        self.tx.is_some()
    }

    /// Accounts the time-weighted occupancy up to `now` before the queue changes.
    #[inline]
    pub(crate) fn account(&mut self, now: SimTime) {
        let dt = (now - self.stats.last_change).ns() as u128;
        self.stats.occ_integral += self.q.pkts as u128 * dt;
        self.stats.occ_bytes_integral += self.q.bytes as u128 * dt;
        self.stats.last_change = now;
    }

    /// Ids of the packets the link holds (queued, in service, on the wire).
    pub fn held_packets(&self) -> impl Iterator<Item = PktId> + '_ {
        self.fifo.iter().copied().chain(self.tx).chain(self.pipe.iter().map(|&(_, p)| p))
    }
}
