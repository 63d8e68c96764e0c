//! A link: egress queue (a discipline's decision + FIFO plumbing) + serialiser (rate) +
//! propagation delay.
//!
//! A FIFO served at a constant rate fixes each accepted packet's service start and
//! arrival time the moment it is enqueued (start = max(now, busy_until)). So the link
//! keeps one ring of every packet it holds, waiting, in service or on the wire, in
//! FIFO order with those times, and needs ONE pending event: the arrival of the ring's
//! head at the far end (htsim's pipe, sim/pipe.cpp, extended over the queue). Service
//! starts are applied lazily, at their exact times, before anything reads the queue
//! (`advance`), so disciplines see the same queue as with a departure event per packet.

use crate::core::packet::{flags, NodeId, PacketSlab, PktId};
use crate::core::ring::Ring;
use crate::core::rng::Rng;
use crate::core::time::{BitsPerSec, SimTime};
use crate::net::queue::{Disc, DropReason, QueueDisc, QueueState, Verdict};

/// Per-link counters (the link table of the results). `repr(C)`, those every packet
/// updates first: they share cache lines.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct LinkStats {
    pub arrivals: u64,
    pub bytes_arrived: u64,
    /// Reached the far end.
    pub delivered: u64,
    pub bytes_delivered: u64,
    /// Serialisation time of every accepted packet (ns), for utilisation.
    pub busy_ns: u64,
    pub last_change: SimTime,
    /// Integral of the waiting-packet count over time (packet x ns).
    pub occ_integral: u128,
    pub occ_bytes_integral: u128,
    pub max_pkts: u32,
    /// The largest waiting-packet count since the monitor last read it (monitor.rs).
    pub recent_max_pkts: u32,
    pub max_bytes: u64,
    pub marks: u64,
    pub drops: [u64; DropReason::COUNT],
    /// Data segments a sending host's flow kept unsent because this queue (its NIC) was
    /// full (`LocalDrop::Hold`): asked before they arrived, so neither arrivals nor drops.
    pub refusals: u64,
}

/// A packet the link holds, with its fixed service start and far-end arrival times.
#[derive(Clone, Copy, Debug, Default)]
pub struct Slot {
    pub start: SimTime,
    pub arrive: SimTime,
    pub pkt: PktId,
    pub size: u32,
}

/// What became of a packet offered to a link (`Link::arrive`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Refused (counted in the link's drops): the caller frees the packet and tells its
    /// sender.
    Dropped(DropReason),
    /// Accepted; `Some(t)`: the link held nothing, so its one pending event (the head of
    /// its ring reaching the far end) is now due at `t` and the caller schedules it.
    Accepted(Option<SimTime>),
}

impl LinkStats {
    pub fn total_drops(&self) -> u64 {
        self.drops.iter().sum()
    }
}

/// `repr(C)` and cache-line aligned, the fields every packet reads or writes first (the
/// ring, the queue state, the serialiser, the discipline, then the counters), the rest
/// after: a packet's visit touches the link's first few lines, not all of it.
#[repr(C, align(64))]
pub struct Link {
    /// Every packet held, in FIFO order.
    ring: Ring<Slot>,
    /// How many slots at the front of the ring have started service.
    started: usize,
    /// Waiting packets (not yet in service), as of the last `advance`.
    pub(crate) q: QueueState,
    busy_until: SimTime,
    pub delay: SimTime,
    /// Serialisation times of the last two packet sizes seen (a division saved per packet:
    /// nearly every packet is a full segment or a pure ACK).
    tx_cache: [(u32, SimTime); 2],
    /// Packet trace (trace/mod.rs); None = tracing off.
    pub(crate) trace: Option<Box<crate::net::trace::LinkTrace>>,
    /// Reordering after the wire (reorder.rs): chosen packets wait an extra delay there.
    pub reorder: Option<Box<crate::net::reorder::ReorderStage>>,
    /// Edge classifier at this link's entry (index into `Network::classifiers`; RIO-PS,
    /// classifier.rs): tags each arriving packet In/Out before the queue decides.
    pub(crate) classifier: Option<u32>,
    /// The node this link leaves validates sources (net/ingress.rs) or the queue counts
    /// pairs per ingress port: the engine looks at the packet's ingress before `arrive`.
    pub(crate) ingress_hook: bool,
    /// `classifier` or `ingress_hook`: one test on the hot path for both (set by
    /// `Sim::new`).
    pub(crate) pre_queue: bool,
    pub(crate) loss: f64,
    pub(crate) disc: Disc,
    pub stats: LinkStats,
    pub(crate) rng: Rng,
    pub rate: BitsPerSec,
    pub from: NodeId,
    pub to: NodeId,
    pub name: String,
}

impl Link {
    #[allow(clippy::too_many_arguments)]
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
            ring: Ring::new(),
            started: 0,
            q: QueueState::default(),
            busy_until: SimTime::ZERO,
            tx_cache: [(0, SimTime::ZERO); 2],
            disc: Disc::new(disc),
            loss,
            rng,
            stats: LinkStats::default(),
            trace: None,
            classifier: None,
            ingress_hook: false,
            pre_queue: false,
            reorder: None,
        }
    }

    /// Whether the engine looks at a packet's ingress port before this link's queue
    /// (source validation at the node it leaves, or a per-port queue quota).
    pub fn has_ingress_hook(&self) -> bool {
        self.ingress_hook
    }

    pub fn queue_state(&self) -> QueueState {
        self.q
    }

    /// The queue's hard limit and unit ("pkts" or "bytes"), if its discipline has one.
    pub fn limit(&self) -> Option<(u64, &'static str)> {
        self.disc.limit().map(|(n, u)| (n, if u == crate::net::queue::Unit::Packets { "pkts" } else { "bytes" }))
    }

    /// Whether the link's queue may mark packets CE (ECN).
    pub fn marks_ecn(&self) -> bool {
        self.disc.marks_ecn()
    }

    pub fn disc_name(&self) -> &'static str {
        self.disc.name()
    }

    pub fn disc_counters(&self) -> Vec<(&'static str, f64)> {
        self.disc.counters()
    }

    /// Packets waiting in the queue (not yet in service): the ring's slots that have
    /// not started, as of the last `advance`.
    pub fn waiting(&self) -> usize {
        self.ring.len() - self.started
    }

    /// Packets on the wire (serialised, not yet arrived) at `now` (after `advance`).
    pub fn on_wire(&self, now: SimTime) -> usize {
        self.ring.iter().take(self.started).filter(|s| s.arrive - self.delay <= now).count()
    }

    /// Packets in service at `now` (0 or 1, after `advance`).
    pub fn in_service(&self, now: SimTime) -> usize {
        self.ring.iter().take(self.started).filter(|s| s.arrive - self.delay > now).count()
    }

    /// Packets held by the reordering stage (reorder.rs): off the link, not yet arrived.
    pub fn reorder_held(&self) -> usize {
        self.reorder.as_ref().map_or(0, |r| r.held())
    }

    /// Packets whose serialisation finished by `now`: delivered + on the wire (a packet
    /// held back by the reordering stage is on the wire).
    pub fn departures(&self, now: SimTime) -> u64 {
        self.stats.delivered + self.on_wire(now) as u64 + self.reorder_held() as u64
    }

    pub fn bytes_departed(&self, now: SimTime) -> u64 {
        self.stats.bytes_delivered
            + self
                .ring
                .iter()
                .take(self.started)
                .filter(|s| s.arrive - self.delay <= now)
                .map(|s| s.size as u64)
                .sum::<u64>()
    }

    /// When the serialiser finishes the last packet enqueued (the past when idle).
    #[inline]
    pub fn busy_until(&self) -> SimTime {
        self.busy_until
    }

    /// Serialiser busy time up to `now`.
    pub fn busy_ns(&self, now: SimTime) -> u64 {
        self.stats.busy_ns - self.busy_until.saturating_sub(now).ns().min(self.stats.busy_ns)
    }

    /// Serialisation time of `size` bytes on this link.
    #[inline]
    pub(crate) fn tx_time(&mut self, size: u32) -> SimTime {
        if self.tx_cache[0].0 == size {
            return self.tx_cache[0].1;
        }
        if self.tx_cache[1].0 == size {
            self.tx_cache.swap(0, 1);
            return self.tx_cache[0].1;
        }
        let t = self.rate.tx_time(size);
        self.tx_cache[1] = self.tx_cache[0];
        self.tx_cache[0] = (size, t);
        t
    }

    /// Accounts the time-weighted occupancy up to `now` before the queue changes.
    #[inline]
    pub(crate) fn account(&mut self, now: SimTime) {
        let dt = (now - self.stats.last_change).ns() as u128;
        self.stats.occ_integral += self.q.pkts as u128 * dt;
        self.stats.occ_bytes_integral += self.q.bytes as u128 * dt;
        self.stats.last_change = now;
    }

    /// Applies every service start up to `now`, at its own time: the waiting count drops
    /// and the discipline hears of the dequeue (RED's idle period, super-packet pktCnt).
    #[inline(always)]
    pub(crate) fn advance(&mut self, now: SimTime, pkts: &crate::core::packet::PacketSlab) {
        // nothing waiting (the common case on a fast link): nothing can start
        if self.q.pkts != 0 {
            self.advance_waiting(now, pkts);
        }
    }

    fn advance_waiting(&mut self, now: SimTime, pkts: &crate::core::packet::PacketSlab) {
        while let Some(s) = self.ring.get(self.started) {
            if s.start > now {
                break;
            }
            let (start, size, pkt) = (s.start, s.size, s.pkt);
            self.account(start);
            self.q.pkts -= 1;
            self.q.bytes -= size as u64;
            self.started += 1;
            self.disc.on_dequeue(pkts.get(pkt), self.q, start);
        }
    }

    /// How many packets of `bytes` wire bytes arriving now the queue accepts for sure:
    /// its hard limit less what waits, plus one for an idle serialiser (that packet goes
    /// straight into service, ns-2's occupancy convention); None when the discipline has
    /// no hard limit or the limit cannot hold even one such packet (a sender cannot wait
    /// for room that never comes). Random early drops (RED) are not foreseen.
    pub fn room(&mut self, now: SimTime, slab: &PacketSlab, bytes: u32) -> Option<u32> {
        self.advance(now, slab);
        let (limit, unit) = self.disc.limit()?;
        let (free, empty) = match unit {
            crate::net::queue::Unit::Packets => (limit.saturating_sub(self.q.pkts as u64), limit),
            crate::net::queue::Unit::Bytes => {
                let b = bytes.max(1) as u64;
                (limit.saturating_sub(self.q.bytes) / b, limit / b)
            }
        };
        if empty == 0 {
            return None;
        }
        let idle = (free > 0 && self.busy_until <= now) as u64;
        Some((free + idle).min(u32::MAX as u64 - 1) as u32)
    }

    /// When the next waiting packet starts service (the queue then has one more place),
    /// after `advance`; None when nothing waits.
    pub fn next_start(&self) -> Option<SimTime> {
        self.ring.get(self.started).map(|s| s.start)
    }

    /// A packet arrives at the link's egress at `now`: random loss, then the discipline's
    /// verdict on the queue as it is, then into the ring with its service start and
    /// far-end arrival fixed (straight into service on an idle serialiser, ns-2's enque
    /// then deque). Every counter of the arrival is kept here. A traced link records the
    /// packet at its service start.
    #[inline(always)]
    pub fn arrive(&mut self, now: SimTime, id: PktId, slab: &mut PacketSlab) -> Arrival {
        self.advance(now, slab);
        let size = slab.get(id).size;
        self.stats.arrivals += 1;
        self.stats.bytes_arrived += size as u64;
        if self.loss > 0.0 && self.rng.uniform() < self.loss {
            return self.refuse(DropReason::RandomLoss);
        }
        match self.disc.enqueue(slab.get(id), self.q, now) {
            Verdict::Drop(why) => return self.refuse(why),
            Verdict::Mark => {
                self.stats.marks += 1;
                slab.get_mut(id).flags |= flags::CE;
            }
            Verdict::Enqueue => {}
        }
        let start = now.max(self.busy_until);
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.record(start, slab.get(id)); // pcap trace (net/trace/)
        }
        let dt = self.tx_time(size);
        self.busy_until = start + dt;
        self.stats.busy_ns += dt.ns();
        let arrive = self.busy_until + self.delay;
        let due = self.ring.is_empty().then_some(arrive);
        self.ring.push_back(Slot { start, arrive, pkt: id, size });
        if start == now {
            self.started += 1;
            self.disc.on_dequeue(slab.get(id), self.q, now);
        } else {
            self.account(now);
            self.q.pkts += 1;
            self.q.bytes += size as u64;
            if self.q.pkts > self.stats.max_pkts {
                self.stats.max_pkts = self.q.pkts;
            }
            if self.q.pkts > self.stats.recent_max_pkts {
                self.stats.recent_max_pkts = self.q.pkts;
            }
            if self.q.bytes > self.stats.max_bytes {
                self.stats.max_bytes = self.q.bytes;
            }
        }
        Arrival::Accepted(due)
    }

    #[inline]
    /// A packet refused before the queue saw it (source validation at the node this link
    /// leaves): counted as an arrival and a drop, so that the link's conservation holds.
    pub(crate) fn refuse_before_queue(&mut self, size: u32, why: DropReason) {
        self.stats.arrivals += 1;
        self.stats.bytes_arrived += size as u64;
        self.stats.drops[why as usize] += 1;
    }

    fn refuse(&mut self, why: DropReason) -> Arrival {
        self.stats.drops[why as usize] += 1;
        Arrival::Dropped(why)
    }

    /// The link's one pending event at `now`: the head of its ring reaches the far end
    /// and leaves the link (`head` is then the next one). The caller asks the reordering
    /// stage (`hold_back`) or counts it delivered (`delivered`).
    #[inline(always)]
    pub fn depart_head(&mut self, now: SimTime, slab: &PacketSlab) -> Slot {
        self.advance(now, slab);
        let slot = self.ring.pop_front().expect("a departure from an empty link");
        debug_assert!(self.started > 0 && slot.arrive == now);
        self.started -= 1;
        slot
    }

    /// The next packet to reach the far end: (its arrival time, the packet).
    #[inline(always)]
    pub fn head(&self) -> Option<(SimTime, PktId)> {
        self.ring.front().map(|n| (n.arrive, n.pkt))
    }

    /// A departed packet reached the far end.
    #[inline(always)]
    pub fn delivered(&mut self, slot: Slot) {
        self.stats.delivered += 1;
        self.stats.bytes_delivered += slot.size as u64;
    }

    /// The reordering stage may hold a departing packet back (net/reorder.rs): until when.
    #[inline(always)]
    pub fn hold_back(&mut self, now: SimTime, slot: Slot, slab: &PacketSlab) -> Option<SimTime> {
        let r = self.reorder.as_deref_mut()?;
        let d = r.choose(slab.get(slot.pkt))?;
        r.hold(now + d, slot.pkt, slot.size);
        Some(now + d)
    }

    /// The reordering stage releases the packet it holds that is due at `now`; delivered.
    #[cold]
    pub fn release_held(&mut self, now: SimTime) -> PktId {
        let r = self.reorder.as_deref_mut().expect("a release without a reordering stage");
        let (t, id, size) = r.release().expect("a release with nothing held");
        debug_assert_eq!(t, now);
        self.stats.delivered += 1;
        self.stats.bytes_delivered += size as u64;
        id
    }

    /// Ids of the packets the link holds (queued, in service, on the wire, held back by
    /// the reordering stage).
    pub fn held_packets(&self) -> impl Iterator<Item = PktId> + '_ {
        self.ring.iter().map(|s| s.pkt).chain(self.reorder.iter().flat_map(|r| r.held_packets()))
    }
}
