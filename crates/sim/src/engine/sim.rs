//! The simulator: one deterministic event loop over arenas of links and flows.
//!
//! Per packet and hop there is exactly one event: its arrival at the far end of the link
//! (`PipeOut`, see link.rs for why service starts need no event). Routers forward in zero time
//! (SCENARIOS.md "Common defaults"): a packet leaving a pipe enters the next link of its
//! source route at once, or is handed to its TCP endpoint at the end of the route.

use std::collections::HashMap;

mod conservation;
mod ideal;
mod nic;
mod routing;
mod sampling;
mod sources;

use crate::engine::routes::Routes;

use crate::core::event::EventList;
use crate::core::packet::{flags, FlowId, LinkId, NodeId, Packet, PacketSlab, PktId, RouteId};
use crate::engine::flows::Flows;
use crate::engine::monitor::Monitor;
use crate::net::ingress::SourceFilter;
use crate::net::link::Arrival;
use crate::net::queue::DropReason;
use crate::net::topology::Multipath;
use crate::tcp::cc::CongestionControl;
use crate::tcp::sack::{SackBlock, SackBlocks};
use crate::tcp::{Flow, LocalDrop, SenderState, TcpOut, TcpParams};

/// The spraying RNG's stream (apart from the scenario's streams, scenario.rs).
const STREAM_SPRAY: u64 = 0x5350_5241_5900_0000; // "SPRAY"
/// At most this many equal-cost paths per pair to spray over (a k = 16 fat tree has 64
/// between pods).
const SPRAY_MAX_PATHS: usize = 1024;
use crate::core::time::SimTime;
use crate::net::topology::Network;
use crate::traffic::raw::RawSource;
use crate::traffic::Generator;

#[derive(Clone, Copy, Debug)]
pub enum Ev {
    PipeOut(LinkId),
    /// A packet held by link's reordering stage (reorder.rs) arrives.
    Reorder(LinkId),
    FlowStart(FlowId),
    Timer(FlowId),
    Gen(u32),
    /// A non-TCP source's packet time or probe decision (traffic/raw.rs).
    Source(u32),
    Sample,
    FlowSample,
    Monitor,
    /// The next waiting packet of host link's NIC queue starts service: the flows that
    /// wait for room there send (`LocalDrop::Hold`).
    NicWake(LinkId),
}

/// One flow at one sampling time: what the receiver holds in order and the sender's
/// congestion state (the time series a congestion-control study plots).
#[derive(Clone, Copy, Debug)]
pub struct FlowSample {
    pub t: SimTime,
    pub flow: FlowId,
    /// In-order payload bytes the receiver holds.
    pub bytes_received: u64,
    /// cwnd and ssthresh in segments (ssthresh infinite before the first reduction).
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Smoothed RTT (RFC 6298), before the first sample None.
    pub srtt: Option<SimTime>,
    /// In loss recovery at that moment.
    pub in_recovery: bool,
}

/// One sampled queue length, with the link's cumulative counters at that time (rates
/// over time are their differences: drop/mark rate, per-link throughput).
#[derive(Clone, Copy, Debug)]
pub struct QueueSample {
    pub t: SimTime,
    pub link: LinkId,
    pub pkts: u32,
    pub bytes: u64,
    pub arrivals: u64,
    pub drops: u64,
    /// Segments its senders kept unsent because the queue was full (`LinkStats::refusals`).
    pub refusals: u64,
    pub marks: u64,
    /// Bytes that reached the far end.
    pub bytes_delivered: u64,
}

pub struct Sim {
    pub now: SimTime,
    events: EventList<Ev>,
    pub net: Network,
    /// Source validation at the nodes that do it (net/ingress.rs).
    pub source_filter: SourceFilter,
    /// Every flow by FlowId: live ones whole, finished ones as compact rows (flows.rs).
    pub flows: Flows,
    /// The run's memory as estimated while it was built (memory.rs).
    pub memory: crate::core::memory::MemoryEstimate,
    routes: Routes,
    route_cache: HashMap<(NodeId, NodeId), RouteId>,
    /// Multipath routes interned by their links (one RouteId per distinct path).
    path_ids: HashMap<Box<[LinkId]>, RouteId>,
    /// Spraying: a flow direction's route -> the pair's equal-cost routes to draw from.
    spray_sets: HashMap<RouteId, Box<[RouteId]>>,
    spray_rng: crate::core::rng::Rng,
    slab: PacketSlab,
    /// SACK blocks of the ACKs in flight (a packet's `sack` is 1 + its slot), beside the
    /// packets so that packets stay small; slots are reused.
    sacks: Vec<SackBlocks>,
    free_sacks: Vec<u32>,
    out: TcpOut,
    pub events_processed: u64,
    pub(crate) gens: Vec<Generator>,
    /// Non-TCP sources (cross traffic, MBS probes); their packets carry `flags::RAW`.
    pub sources: Vec<RawSource>,
    pub seed: u64,
    sample_links: Vec<LinkId>,
    sample_interval: SimTime,
    pub samples: Vec<QueueSample>,
    flow_sample_interval: SimTime,
    /// Per-flow series (output.sample_flows): received bytes and the sender's window
    /// state over time.
    pub flow_samples: Vec<FlowSample>,
    /// Per traffic entry, the congestion control and the reordering response it resolved
    /// to, every parameter spelled out (`traffic[k]` -> text), for the results.
    /// Settings the scenario accepted that likely do not mean what was meant, one line
    /// each naming the field (a RED max_th at or above the buffer's limit); the results'
    /// `warnings`, with those the run itself shows.
    pub warnings: Vec<String>,
    pub tcp_configs: Vec<(String, String)>,
    /// The high-frequency monitor of one link (output.monitor, monitor.rs).
    pub monitor: Option<Monitor>,
    /// Flows waiting for room in their host's NIC queue, by link (`LocalDrop::Hold`).
    nic_waits: HashMap<LinkId, NicWaiters>,
}

/// Flows waiting for room in one host's NIC queue, in the order they were refused, and
/// the pending wake-up.
#[derive(Default)]
struct NicWaiters {
    flows: Vec<FlowId>,
    wake_at: Option<SimTime>,
}

/// The data segments flow `flow`'s host NIC queue accepts now (`TcpOut::room`): asked of
/// the queue only for a flow that keeps what its NIC refuses (`LocalDrop::Hold`).
#[inline(always)]
fn nic_room(
    links: &mut [crate::net::link::Link],
    routes: &Routes,
    slab: &PacketSlab,
    flow: &Flow,
    now: SimTime,
) -> u32 {
    if flow.p.local_drop != LocalDrop::Hold {
        return u32::MAX;
    }
    let l = routes[flow.fwd as usize][0];
    links[l as usize].room(now, slab, flow.p.mss + flow.p.header).unwrap_or(u32::MAX)
}

impl Sim {
    pub fn new(mut net: Network, seed: u64) -> Sim {
        for l in net.links.iter_mut() {
            l.pre_queue = l.classifier.is_some() || l.ingress_hook;
        }
        Sim {
            now: SimTime::ZERO,
            events: EventList::new(),
            net,
            flows: Flows::default(),
            memory: Default::default(),
            routes: Routes::default(),
            route_cache: HashMap::new(),
            path_ids: HashMap::new(),
            spray_sets: HashMap::new(),
            spray_rng: crate::core::rng::Rng::stream(seed, STREAM_SPRAY),
            source_filter: SourceFilter::default(),
            slab: PacketSlab::default(),
            sacks: Vec::new(),
            free_sacks: Vec::new(),
            out: TcpOut::default(),
            events_processed: 0,
            gens: Vec::new(),
            sources: Vec::new(),
            seed,
            sample_links: Vec::new(),
            sample_interval: SimTime::ZERO,
            flow_sample_interval: SimTime::ZERO,
            flow_samples: Vec::new(),
            samples: Vec::new(),
            tcp_configs: Vec::new(),
            warnings: Vec::new(),
            monitor: None,
            nic_waits: HashMap::new(),
        }
    }

    /// Adds a TCP flow of `size` payload bytes from `src` to `dst` opening at `start`.
    pub fn add_flow(
        &mut self,
        src: NodeId,
        dst: NodeId,
        p: TcpParams,
        cc: Box<dyn CongestionControl>,
        size: u64,
        start: SimTime,
    ) -> Result<FlowId, String> {
        let id = self.flows.len() as FlowId;
        let fwd = self.flow_route(id, src, dst, true)?;
        let rev = self.flow_route(id, dst, src, false)?;
        let mut flow = Flow::new(id, src, dst, fwd, rev, p, cc, size, start);
        if !flow.is_bulk() {
            flow.stats.ideal_fct = Some(self.ideal_fct(fwd, rev, size, p.mss, p.header));
        }
        let nic = &self.net.links[self.routes[fwd as usize][0] as usize];
        let nic_pkts = nic.disc.as_droptail().map(|d| d.capacity_pkts(p.mss + p.header));
        if let Some(g) = p.gate.build(nic.rate.0 as f64, nic_pkts, p.mss, p.mss + p.header) {
            flow.set_send_gate(g);
        }
        self.flows.push(flow);
        self.events.push(start.max(self.now).ns(), Ev::FlowStart(id));
        Ok(id)
    }

    pub fn pending_events(&self) -> usize {
        self.events.len()
    }

    pub fn live_packets(&self) -> usize {
        self.slab.live()
    }

    pub fn peak_live_packets(&self) -> usize {
        self.slab.peak_live()
    }

    pub fn packet(&self, id: PktId) -> &Packet {
        self.slab.get(id)
    }

    /// Runs every event with time <= `until`; afterwards `now == until`.
    pub fn run_until(&mut self, until: SimTime) {
        while let Some((t, ev)) = self.events.pop_until(until.ns()) {
            self.now = SimTime(t);
            self.events_processed += 1;
            self.dispatch(ev);
        }
        self.reach(until);
    }

    /// As `run_until`, but stops after `max_events` events (the caller regains control
    /// within bounded wall time, e.g. to see a Ctrl-C): true when `until` was reached.
    /// Stopping early leaves the state as the middle of one `run_until`, so a run in
    /// bounded steps is event for event the run in one call.
    pub fn run_until_bounded(&mut self, until: SimTime, max_events: u64) -> bool {
        for _ in 0..max_events {
            let Some((t, ev)) = self.events.pop_until(until.ns()) else {
                self.reach(until);
                return true;
            };
            self.now = SimTime(t);
            self.events_processed += 1;
            self.dispatch(ev);
        }
        false
    }

    /// The end of a `run_until`: the clock at `until`, the links' accounting brought to it.
    fn reach(&mut self, until: SimTime) {
        if until > self.now {
            self.now = until;
        }
        let now = self.now;
        for l in &mut self.net.links {
            l.advance(now, &self.slab);
            l.account(now);
        }
    }

    #[inline]
    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::PipeOut(l) => self.pipe_out(l),
            Ev::Reorder(l) => self.reorder_out(l),
            Ev::FlowStart(f) => {
                let now = self.now;
                let mut out = std::mem::take(&mut self.out);
                self.flows.live_mut(f).open(now, &mut out);
                self.emit(f, out);
            }
            Ev::Timer(f) => {
                // a retired flow has no timer pending (flows.rs): its stale events find
                // nothing due, as they would have
                let Some(flow) = self.flows.get_mut(f) else { return };
                if flow.timer_at != Some(self.now) {
                    return; // superseded by an earlier re-arm
                }
                flow.timer_at = None;
                let now = self.now;
                let mut out = std::mem::take(&mut self.out);
                out.room = nic_room(&mut self.net.links, &self.routes, &self.slab, flow, now);
                flow.on_timer(now, &mut out);
                self.emit(f, out);
            }
            Ev::Gen(g) => self.generator_fire(g),
            Ev::Source(s) => self.source_fire(s),
            Ev::Monitor => self.monitor_fire(),
            Ev::NicWake(l) => self.nic_wake(l),
            Ev::FlowSample => self.flow_sample_fire(),
            Ev::Sample => self.queue_sample_fire(),
        }
    }

    /// Puts a new packet into the first link of its route (at its sender); with spraying,
    /// the route is first drawn among its pair's equal-cost paths (`spray`), for TCP and
    /// non-TCP packets alike.
    #[inline(always)]
    fn inject(&mut self, mut p: Packet) {
        if self.net.multipath == Multipath::Spray {
            p.route = self.spray(p.route);
        }
        let id = self.slab.alloc(p);
        let first = self.routes[p.route as usize][0];
        self.link_arrive(first, id);
    }

    /// Sends the packets a flow emitted and (re)arms its timer.
    #[inline]
    fn emit(&mut self, f: FlowId, mut out: TcpOut) {
        if !out.sacks.is_empty() {
            self.keep_sacks(&mut out);
        }
        for mut p in out.pkts.drain(..) {
            let flow = self.flows.live_mut(f);
            flow.stats.pkts_sent += 1;
            let fwd = p.route == flow.fwd;
            (p.src, p.dst) = if fwd { (flow.src, flow.dst) } else { (flow.dst, flow.src) };
            if flow.tsq.is_some() && fwd && p.payload > 0 {
                self.inject_below_socket(f, p);
            } else {
                self.inject(p);
            }
        }
        // put the buffers back; the placeholder left by `take` holds no allocation
        std::mem::forget(std::mem::replace(&mut self.out, out));
        let flow = self.flows.live_mut(f);
        if flow.tsq.as_ref().is_some_and(|t| t.throttled) {
            flow.tsq_wake_at_completion();
        }
        if flow.waits_for_nic() {
            self.on_nic_refused(f);
        }
        let flow = self.flows.live_mut(f);
        if let Some(d) = flow.next_deadline() {
            if flow.timer_at.is_none_or(|t| d < t) {
                flow.timer_at = Some(d);
                self.events.push(d.max(self.now).ns(), Ev::Timer(f));
            }
        } else if flow.state == SenderState::Done {
            self.flows.retire_if_done(f);
        }
    }

    /// Spraying: one of the equal-cost routes of `r`'s pair, uniformly at random.
    #[cold]
    fn spray(&mut self, r: RouteId) -> RouteId {
        match self.spray_sets.get(&r) {
            Some(set) if set.len() > 1 => set[self.spray_rng.range_u64(0, set.len() as u64 - 1) as usize],
            _ => r,
        }
    }

    /// Moves the SACK blocks of the ACKs in `out` to the side table; each ACK's `sack`
    /// becomes 1 + its slot there.
    #[cold]
    fn keep_sacks(&mut self, out: &mut TcpOut) {
        for p in out.pkts.iter_mut().filter(|p| p.sack != 0) {
            let b = out.sacks[p.sack as usize - 1];
            let slot = match self.free_sacks.pop() {
                Some(k) => {
                    self.sacks[k as usize] = b;
                    k
                }
                None => {
                    self.sacks.push(b);
                    self.sacks.len() as u32 - 1
                }
            };
            p.sack = slot + 1;
        }
        out.sacks.clear();
    }

    #[inline]
    fn drop_pkt(&mut self, id: PktId) {
        let p = self.slab.get(id);
        let (flow, sack) = (p.flow, p.sack);
        if p.has(flags::RAW) {
            let st = &mut self.sources[flow as usize].stats;
            if p.has(flags::ACK) {
                st.replies_dropped += 1;
            } else {
                st.pkts_dropped += 1;
            }
            self.slab.free(id);
            return;
        }
        let (hop, route) = (p.hop, p.route);
        let fwd = self.flows.live_mut(flow).fwd;
        // a sprayed packet's route is not the flow's own; its first link tells the side
        let at_sender = hop == 0
            && (route == fwd
                || self.net.multipath == Multipath::Spray
                    && self.routes[route as usize][0] == self.routes[fwd as usize][0]);
        // a retired flow has no packet left in the network (flows.rs)
        let f = self.flows.live_mut(flow);
        f.stats.pkts_dropped += 1;
        if at_sender {
            f.stats.sender_drops += 1; // the host's NIC queue (txqueuelen)
            let now = self.now;
            f.on_local_drop(now);
        }
        // its last packet may be gone; a drop at hop 0 happens while the flow emits, and
        // `emit` looks once it is done
        let retire = hop != 0 && f.state == SenderState::Done;
        if sack != 0 {
            self.free_sacks.push(sack - 1);
        }
        self.slab.free(id);
        if retire {
            self.flows.retire_if_done(flow);
        }
    }

    /// A packet arrives at the egress of link `l` (the link decides and keeps its
    /// counters, net/link.rs); the engine schedules the link's event or frees the packet.
    #[inline]
    fn link_arrive(&mut self, l: LinkId, id: PktId) {
        let now = self.now;
        if self.net.links[l as usize].pre_queue && !self.pre_queue(l, id) {
            return;
        }
        match self.net.links[l as usize].arrive(now, id, &mut self.slab) {
            Arrival::Accepted(Some(t)) => self.events.push(t.ns(), Ev::PipeOut(l)),
            Arrival::Accepted(None) => {}
            Arrival::Dropped(_) => self.drop_pkt(id),
        }
    }

    /// Before link `l`'s queue decides (links with `pre_queue`, one test on the hot path):
    /// source validation and the ingress port (`ingress`), then the RIO-PS edge
    /// classifier's In/Out tag (net/classifier.rs). False: the packet was refused.
    #[cold]
    #[inline(never)]
    fn pre_queue(&mut self, l: LinkId, id: PktId) -> bool {
        if self.net.links[l as usize].ingress_hook && !self.ingress(l, id) {
            return false;
        }
        if let Some(c) = self.net.links[l as usize].classifier {
            self.net.classifiers[c as usize].classify(self.slab.get_mut(id), self.now);
        }
        true
    }

    /// A packet about to enter link `l` at a node that validates sources or whose queue
    /// counts pairs per ingress port (net/ingress.rs): false when source validation
    /// refused it (counted on `l` and freed). The ingress port is the link the packet
    /// came in by, `u32::MAX` at the node that sent it.
    fn ingress(&mut self, l: LinkId, id: PktId) -> bool {
        let p = self.slab.get(id);
        let lin = if p.hop == 0 { u32::MAX } else { self.routes[p.route as usize][p.hop as usize - 1] };
        let link = &mut self.net.links[l as usize];
        if lin != u32::MAX && !self.source_filter.accepts(lin, p.src) {
            link.refuse_before_queue(p.size, DropReason::SourceInvalid);
            self.drop_pkt(id);
            return false;
        }
        link.disc.set_ingress(lin);
        true
    }

    /// The head of link `l`'s ring reaches the far end.
    #[inline]
    fn pipe_out(&mut self, l: LinkId) {
        let now = self.now;
        let link = &mut self.net.links[l as usize];
        let slot = link.depart_head(now, &self.slab);
        if let Some(next) = link.head() {
            self.events.push(next.0.ns(), Ev::PipeOut(l));
            // its packet is read at that event: on a fabric too large for the caches the
            // miss is taken now, overlapping this event
            self.slab.prefetch(next.1);
        }
        if let Some(t) = link.hold_back(now, slot, &self.slab) {
            self.events.push(t.ns(), Ev::Reorder(l));
            return;
        }
        link.delivered(slot);
        self.forward(slot.pkt);
    }

    /// The reordering stage of link `l` releases the packet due now.
    #[cold]
    fn reorder_out(&mut self, l: LinkId) {
        let id = self.net.links[l as usize].release_held(self.now);
        self.forward_cold(id);
    }

    /// `forward` out of line, for the reordering stage: a second inlined copy made the
    /// compiler stop inlining `deliver` into the hot path (+2.3 % instructions in P1).
    #[inline(never)]
    fn forward_cold(&mut self, id: PktId) {
        self.forward(id)
    }

    /// A packet reached the far end of a link: into the next link of its route, or to its
    /// endpoint. Always inlined: as a call from pipe_out it cost P1 4 % more instructions
    /// (callgrind, 436.7 M -> 454.1 M for P1 0.2 s).
    #[inline(always)]
    fn forward(&mut self, id: PktId) {
        let pkt = self.slab.get_mut(id);
        pkt.hop += 1;
        let route = &self.routes[pkt.route as usize];
        if (pkt.hop as usize) < route.len() {
            let next = route[pkt.hop as usize];
            self.link_arrive(next, id);
        } else {
            self.deliver(id);
        }
    }

    /// A packet reached the end of its route: hand it to its TCP endpoint. Inlined, with
    /// the endpoints' on_ack and on_data, into the one hot path (pipe_out -> forward):
    /// outlined they cost P1 1.6 % more instructions.
    #[inline(always)]
    fn deliver(&mut self, id: PktId) {
        let now = self.now;
        let pkt = *self.slab.get(id);
        self.slab.free(id);
        if pkt.has(flags::RAW) {
            self.raw_deliver(pkt);
            return;
        }
        let f = pkt.flow;
        let mut out = std::mem::take(&mut self.out);
        // a retired flow has no packet left in the network (flows.rs)
        let flow = self.flows.live_mut(f);
        flow.stats.pkts_delivered += 1;
        let mut done_owner = None;
        if pkt.has(flags::DATA) || (pkt.has(flags::SYN) && !pkt.has(flags::ACK)) {
            flow.on_data(&pkt, now, &mut out);
        } else {
            let was_done = flow.stats.sender_done.is_some();
            let sack: &[SackBlock] = if pkt.sack != 0 {
                self.free_sacks.push(pkt.sack - 1);
                self.sacks[pkt.sack as usize - 1].as_slice()
            } else {
                &[]
            };
            out.room = nic_room(&mut self.net.links, &self.routes, &self.slab, flow, now);
            flow.on_ack(&pkt, sack, now, &mut out);
            if !was_done && flow.stats.sender_done.is_some() {
                done_owner = flow.owner; // closed-loop sources (issue 4)
            }
        }
        self.emit(f, out);
        if let Some(g) = done_owner {
            // the flow completed (every byte acknowledged): its generator may open the next
            self.generator_flow_done(g, now);
        }
    }
}
