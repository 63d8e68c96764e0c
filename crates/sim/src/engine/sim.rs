//! The simulator: one deterministic event loop over arenas of links and flows.
//!
//! Per packet and hop there is exactly one event: its arrival at the far end of the link
//! (`PipeOut`, see link.rs for why service starts need no event). Routers forward in zero time
//! (SCENARIOS.md "Common defaults"): a packet leaving a pipe enters the next link of its
//! source route at once, or is handed to its TCP endpoint at the end of the route.

use std::collections::HashMap;

use crate::core::event::EventList;
use crate::core::packet::{flags, FlowId, LinkId, NodeId, Packet, PacketSlab, PktId, RouteId};
use crate::engine::flows::Flows;
use crate::engine::monitor::{window_queue_bits, FluidFlow, Monitor, MonitorRow};
use crate::net::link::Arrival;
use crate::net::topology::{FiveTuple, Multipath};
use crate::tcp::cc::CongestionControl;
use crate::tcp::recovery::LossRecovery;
use crate::tcp::sack::{SackBlock, SackBlocks};
use crate::tcp::{Flow, SenderState, TcpOut, TcpParams};

/// The spraying RNG's stream (apart from the scenario's streams, scenario.rs).
const STREAM_SPRAY: u64 = 0x5350_5241_5900_0000; // "SPRAY"
/// At most this many equal-cost paths per pair to spray over (a k = 16 fat tree has 64
/// between pods).
const SPRAY_MAX_PATHS: usize = 1024;
use crate::core::time::SimTime;
use crate::net::topology::Network;
use crate::traffic::raw::{RawKind, RawSource};
use crate::traffic::Generator;

/// Every route's links in one array, each route a (start, end) span of it: a hop's
/// lookup (`forward`) reads an 8-byte span and the links beside other routes' links,
/// not a pointer to an allocation of its own (a cache miss more per hop on a large fabric).
#[derive(Default)]
struct Routes {
    links: Vec<LinkId>,
    spans: Vec<(u32, u32)>,
}

impl Routes {
    fn len(&self) -> usize {
        self.spans.len()
    }

    fn push(&mut self, path: &[LinkId]) {
        let start = u32::try_from(self.links.len()).expect("over 2^32 route links");
        let end = u32::try_from(self.links.len() + path.len()).expect("over 2^32 route links");
        self.links.extend_from_slice(path);
        self.spans.push((start, end));
    }
}

impl std::ops::Index<usize> for Routes {
    type Output = [LinkId];
    #[inline(always)]
    fn index(&self, r: usize) -> &[LinkId] {
        let (start, end) = self.spans[r];
        // SAFETY: spans are only made by `push`, each the range of links it appended, and
        // `links` only grows
        unsafe { self.links.get_unchecked(start as usize..end as usize) }
    }
}

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
    pub marks: u64,
    /// Bytes that reached the far end.
    pub bytes_delivered: u64,
}

pub struct Sim {
    pub now: SimTime,
    events: EventList<Ev>,
    pub net: Network,
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
    pub tcp_configs: Vec<(String, String)>,
    /// The high-frequency monitor of one link (output.monitor, monitor.rs).
    pub monitor: Option<Monitor>,
}

impl Sim {
    pub fn new(net: Network, seed: u64) -> Sim {
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
            monitor: None,
        }
    }

    /// The precomputed route from `src` to `dst` (cached per pair).
    pub fn route_id(&mut self, src: NodeId, dst: NodeId) -> Result<RouteId, String> {
        if let Some(&r) = self.route_cache.get(&(src, dst)) {
            return Ok(r);
        }
        let path = self.net.route(src, dst).ok_or_else(|| {
            format!("no route from {:?} to {:?}", self.net.nodes[src as usize].name, self.net.nodes[dst as usize].name)
        })?;
        let id = self.routes.len() as RouteId;
        self.routes.push(&path);
        self.route_cache.insert((src, dst), id);
        Ok(id)
    }

    /// A path as a route id, interned: flows on the same path share it.
    fn intern_path(&mut self, path: Vec<LinkId>) -> RouteId {
        let path = path.into_boxed_slice();
        if let Some(&r) = self.path_ids.get(&path) {
            return r;
        }
        let id = self.routes.len() as RouteId;
        self.routes.push(&path);
        self.path_ids.insert(path, id);
        id
    }

    /// The route of one direction of flow `f` under the network's multipath rule
    /// (topology.rs): the pair's shortest path, or the path ECMP hashes its 5-tuple onto
    /// (with spraying, that path is the flow's own and each packet draws among the pair's
    /// equal-cost paths, `spray_sets`).
    fn flow_route(&mut self, f: FlowId, src: NodeId, dst: NodeId, forward: bool) -> Result<RouteId, String> {
        if self.net.multipath == Multipath::Single {
            return self.route_id(src, dst);
        }
        let (sport, dport) = (crate::net::trace::src_port(f), crate::net::trace::DST_PORT);
        let (sport, dport) = if forward { (sport, dport) } else { (dport, sport) };
        self.multipath_route(FiveTuple { src, dst, sport, dport, proto: 6 })
    }

    /// The route of one direction of the next non-TCP source (`add_source`) under the
    /// multipath rule: its UDP 5-tuple as the pcap traces write it (trace/mod.rs: the
    /// source's port to the discard port 9, reports back) hashed like a TCP flow's.
    pub fn source_route(&mut self, src: NodeId, dst: NodeId, forward: bool) -> Result<RouteId, String> {
        if self.net.multipath == Multipath::Single {
            return self.route_id(src, dst);
        }
        let (sport, dport) = (crate::net::trace::udp_port(self.sources.len() as u32), crate::net::trace::UDP_SINK_PORT);
        let (sport, dport) = if forward { (sport, dport) } else { (dport, sport) };
        self.multipath_route(FiveTuple { src, dst, sport, dport, proto: 17 })
    }

    fn multipath_route(&mut self, t: FiveTuple) -> Result<RouteId, String> {
        let (src, dst) = (t.src, t.dst);
        let path = self.net.ecmp_route(&t, self.seed).ok_or_else(|| {
            format!("no route from {:?} to {:?}", self.net.nodes[src as usize].name, self.net.nodes[dst as usize].name)
        })?;
        let r = self.intern_path(path);
        if self.net.multipath == Multipath::Spray && !self.spray_sets.contains_key(&r) {
            let set: Vec<RouteId> =
                self.net.equal_cost_paths(src, dst, SPRAY_MAX_PATHS).into_iter().map(|p| self.intern_path(p)).collect();
            for &q in &set {
                self.spray_sets.insert(q, set.clone().into_boxed_slice());
            }
            self.spray_sets.entry(r).or_insert_with(|| set.into_boxed_slice());
        }
        Ok(r)
    }

    pub fn route(&self, r: RouteId) -> &[LinkId] {
        &self.routes[r as usize]
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

    pub fn add_generator(&mut self, mut g: Generator) {
        let first = g.first_arrival();
        let id = self.gens.len() as u32;
        self.gens.push(g);
        if let Some(t) = first {
            self.events.push(t.ns(), Ev::Gen(id));
        }
    }

    /// Adds a non-TCP source; its first event is its own (`Stream::first`, a probe's start).
    pub fn add_source(&mut self, mut s: RawSource) {
        let first = match &mut s.kind {
            RawKind::Stream(st) => st.first(&mut s.rng),
            RawKind::Probe(p) => p.next_wake(),
            RawKind::Attack(a) => a.first(),
        };
        let id = self.sources.len() as u32;
        s.wake_at = first;
        self.sources.push(s);
        if let Some(t) = first {
            self.events.push(t.max(self.now).ns(), Ev::Source(id));
        }
    }

    /// Records every flow's received bytes every `interval` (throughput over time).
    pub fn sample_flows(&mut self, interval: SimTime) {
        if interval == SimTime::ZERO {
            return;
        }
        self.flow_sample_interval = interval;
        self.flows.keep_all(); // the series sample every flow, finished or not
        self.events.push(self.now.ns(), Ev::FlowSample);
    }

    /// Monitors link `l` every `interval` (monitor.rs): its queue, the largest queue
    /// since the previous row, and the queue the windows of the flows crossing it predict.
    pub fn monitor(&mut self, l: LinkId, interval: SimTime) {
        if interval == SimTime::ZERO {
            return;
        }
        self.monitor = Some(Monitor { link: l, interval, rows: Vec::new() });
        self.events.push(self.now.ns(), Ev::Monitor);
    }

    /// One monitor row (`Ev::Monitor`).
    #[inline(never)]
    fn monitor_fire(&mut self) {
        let Some(m) = self.monitor.as_ref() else { return };
        let (l, interval) = (m.link, m.interval);
        self.net.links[l as usize].advance(self.now, &self.slab);
        let mut fluid = Vec::new();
        let (mut window_pkts, mut wire) = (0.0, None);
        for f in self.flows.live() {
            if f.state != SenderState::Established || !self.routes[f.fwd as usize].contains(&l) {
                continue;
            }
            let w = f.cc_state.cwnd.min(f.cc_state.max_cwnd).max(0.0);
            let full = (f.p.mss + f.p.header) as f64;
            wire.get_or_insert(full);
            window_pkts += w;
            fluid.push(FluidFlow {
                w_bits: w * full * 8.0,
                d_s: self.base_rtt(f.fwd, f.rev, f.p.mss + f.p.header, f.p.header),
            });
        }
        let link = &mut self.net.links[l as usize];
        let c = link.rate.0 as f64;
        let q_bits = window_queue_bits(&fluid, c);
        let row = MonitorRow {
            t: self.now,
            queue_pkts: link.q.pkts,
            max_queue_pkts: link.stats.recent_max_pkts.max(link.q.pkts),
            window_pkts,
            predicted_pkts: q_bits / (8.0 * wire.unwrap_or(1500.0)),
            drops: link.stats.total_drops(),
        };
        link.stats.recent_max_pkts = link.q.pkts;
        if let Some(m) = self.monitor.as_mut() {
            m.rows.push(row);
        }
        self.events.push((self.now + interval).ns(), Ev::Monitor);
    }

    /// The propagation round trip of a flow in seconds: every link's delay both ways,
    /// one `data`-byte packet's serialisation on each forward link, one `ack`-byte
    /// packet's on each reverse link.
    pub fn base_rtt(&self, fwd: RouteId, rev: RouteId, data: u32, ack: u32) -> f64 {
        let leg = |r: RouteId, bytes: u32| -> f64 {
            self.routes[r as usize]
                .iter()
                .map(|&l| {
                    let link = &self.net.links[l as usize];
                    link.delay.as_secs_f64() + bytes as f64 * 8.0 / link.rate.0 as f64
                })
                .sum()
        };
        leg(fwd, data) + leg(rev, ack)
    }

    /// The FCT of a `size`-byte flow alone on the empty network with an unlimited window
    /// (the denominator of FCT slowdown, as datacenter transport papers define it): the
    /// handshake (SYN out, SYN-ACK back, header-only packets stored and forwarded at
    /// every hop), then the data as a train of full packets and a last shorter one sent
    /// back to back, stored and forwarded along `fwd`, until the last byte arrives. A
    /// train of equal packets leaves link l spaced by the slowest serialisation up to l;
    /// the last packet follows the one before it (a tandem of deterministic servers). A
    /// lower bound for any sender; a flow whose window never limits it meets it exactly.
    pub fn ideal_fct(&self, fwd: RouteId, rev: RouteId, size: u64, mss: u32, header: u32) -> SimTime {
        let ser = |bytes: u64, rate: u64| -> u64 { (bytes * 8 * 1_000_000_000).div_ceil(rate.max(1)) };
        let links = |r: RouteId| self.routes[r as usize].iter().map(|&l| &self.net.links[l as usize]);
        let leg = |r: RouteId, bytes: u64| -> u64 {
            links(r).map(|l| l.delay.ns().saturating_add(ser(bytes, l.rate.0))).fold(0u64, |a, b| a.saturating_add(b))
        };
        let mss = mss.max(1) as u64;
        let n = size.div_ceil(mss).max(1);
        let full = mss + header as u64;
        let last = size - (n - 1) * mss + header as u64;
        let data = if n == 1 {
            leg(fwd, last)
        } else {
            // end of transmission at link l of the first full packet (d0), of the
            // (n-1)-th (dk), and of the last packet (dl); `arrive` = when it reaches l
            let (mut gap, mut arrive0, mut arrive_l) = (0u64, 0u64, 0u64);
            for l in links(fwd) {
                let s_full = ser(full, l.rate.0);
                gap = gap.max(s_full);
                let d0 = arrive0.saturating_add(s_full);
                let dk = d0.saturating_add((n - 2).saturating_mul(gap));
                let dl = arrive_l.max(dk).saturating_add(ser(last, l.rate.0));
                arrive0 = d0.saturating_add(l.delay.ns());
                arrive_l = dl.saturating_add(l.delay.ns());
            }
            arrive_l
        };
        SimTime::from_ns(leg(fwd, header as u64).saturating_add(leg(rev, header as u64)).saturating_add(data))
    }

    pub fn sample_queues(&mut self, links: Vec<LinkId>, interval: SimTime) {
        if links.is_empty() || interval == SimTime::ZERO {
            return;
        }
        self.sample_links = links;
        self.sample_interval = interval;
        self.events.push(self.now.ns(), Ev::Sample);
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
                flow.on_timer(now, &mut out);
                self.emit(f, out);
            }
            Ev::Gen(g) => self.generator_fire(g),
            Ev::Source(s) => self.source_fire(s),
            Ev::Monitor => self.monitor_fire(),
            Ev::FlowSample => self.flow_sample_fire(),
            Ev::Sample => {
                for &l in &self.sample_links {
                    self.net.links[l as usize].advance(self.now, &self.slab);
                    let link = &self.net.links[l as usize];
                    let (q, st) = (link.q, &link.stats);
                    self.samples.push(QueueSample {
                        t: self.now,
                        link: l,
                        pkts: q.pkts,
                        bytes: q.bytes,
                        arrivals: st.arrivals,
                        drops: st.total_drops(),
                        marks: st.marks,
                        bytes_delivered: st.bytes_delivered,
                    });
                }
                let next = self.now + self.sample_interval;
                self.events.push(next.ns(), Ev::Sample);
            }
        }
    }

    /// One row of every flow's series (`Ev::FlowSample`).
    #[inline(never)]
    fn flow_sample_fire(&mut self) {
        let now = self.now;
        self.flow_samples.extend(self.flows.live().map(|f| FlowSample {
            t: now,
            flow: f.id,
            bytes_received: f.stats.bytes_received,
            cwnd: f.cc_state.cwnd,
            ssthresh: f.cc_state.ssthresh,
            srtt: f.srtt(),
            in_recovery: f.rec.as_ref().is_some_and(|r| r.in_recovery()),
        }));
        self.events.push((now + self.flow_sample_interval).ns(), Ev::FlowSample);
    }

    fn generator_fire(&mut self, g: u32) {
        let now = self.now;
        let (spec, next) = self.gens[g as usize].fire(now);
        if let Some(spec) = spec {
            self.open_generated(g, spec);
        }
        if let Some(t) = next {
            self.events.push(t.ns(), Ev::Gen(g));
        }
    }

    /// A source's event: a packet time (stream, probe train) or a probe's decision.
    fn source_fire(&mut self, s: u32) {
        let now = self.now;
        let src = &mut self.sources[s as usize];
        if src.wake_at != Some(now) {
            return; // superseded
        }
        src.wake_at = None;
        let mut forged = None;
        let pkt = match &mut src.kind {
            RawKind::Stream(st) => {
                let (send, next) = st.fire(now, &mut src.rng);
                src.wake_at = next;
                send.then_some((0, src.stats.pkts_sent, st.pkt_bytes))
            }
            RawKind::Probe(p) => {
                let k = p.fire(now);
                src.wake_at = p.next_wake();
                k.map(|(train, idx)| (train as u64, idx as u64, p.p.pkt_bytes))
            }
            RawKind::Attack(a) => {
                let (ap, next) = a.fire(&mut src.rng);
                src.wake_at = next;
                forged = Some(ap);
                Some((0, src.stats.pkts_sent, a.pkt_bytes))
            }
        };
        if let Some(t) = src.wake_at {
            self.events.push(t.ns(), Ev::Source(s));
        }
        if let Some((train, seq, size)) = pkt {
            let src = &mut self.sources[s as usize];
            src.stats.pkts_sent += 1;
            src.stats.bytes_sent += size as u64;
            let mut p = Packet {
                seq,
                ack: train,
                ts: now,
                flow: s,
                route: src.fwd,
                src: src.src,
                dst: src.dst,
                size,
                payload: size.saturating_sub(28), // IPv4 + UDP headers
                flags: flags::RAW,
                ..Packet::default()
            };
            if let Some(ap) = forged {
                // an attacker claims any source address (routing uses the route)
                p.src = ap.src;
                p.sp = Some(ap.sp);
            }
            self.inject(p);
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

    /// A non-TCP packet reached the end of its route: counted; a probe's packet is
    /// reported back (40 B), a report goes to its probe.
    #[inline(never)]
    fn raw_deliver(&mut self, pkt: Packet) {
        let now = self.now;
        let s = pkt.flow;
        let src = &mut self.sources[s as usize];
        if pkt.has(flags::ACK) {
            src.stats.replies_delivered += 1;
            if let RawKind::Probe(p) = &mut src.kind {
                p.on_report(pkt.ack as u32, pkt.ts, pkt.ts_echo, now);
                if let Some(w) = p.next_wake().filter(|&w| Some(w) != src.wake_at) {
                    src.wake_at = Some(w);
                    self.events.push(w.max(now).ns(), Ev::Source(s));
                }
            }
            return;
        }
        src.stats.pkts_delivered += 1;
        src.stats.bytes_delivered += pkt.size as u64;
        if let RawKind::Probe(_) = src.kind {
            src.stats.replies_sent += 1;
            let r = Packet {
                seq: pkt.seq,
                ack: pkt.ack,
                ts: now,
                ts_echo: pkt.ts,
                flow: s,
                route: src.rev,
                src: src.dst,
                dst: src.src,
                size: 40,
                payload: 12,
                flags: flags::RAW | flags::ACK,
                ..Packet::default()
            };
            self.inject(r);
        }
    }

    /// Opens a flow generator `g` asked for, now; the flow remembers its generator.
    fn open_generated(&mut self, g: u32, spec: crate::traffic::FlowSpec) {
        let cc = spec.cc.build();
        // routes were validated when the generator was added
        if let Ok(f) = self.add_flow(spec.src, spec.dst, spec.params, cc, spec.size, self.now) {
            self.flows.live_mut(f).owner = Some(g);
        }
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
            (p.src, p.dst) = if p.route == flow.fwd { (flow.src, flow.dst) } else { (flow.dst, flow.src) };
            self.inject(p);
        }
        // put the buffers back; the placeholder left by `take` holds no allocation
        std::mem::forget(std::mem::replace(&mut self.out, out));
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
        if let Some(c) = self.net.links[l as usize].classifier {
            // RIO-PS edge classifier (net/classifier.rs): tag In/Out before the queue decides
            self.net.classifiers[c as usize].classify(self.slab.get_mut(id), now);
        }
        match self.net.links[l as usize].arrive(now, id, &mut self.slab) {
            Arrival::Accepted(Some(t)) => self.events.push(t.ns(), Ev::PipeOut(l)),
            Arrival::Accepted(None) => {}
            Arrival::Dropped(_) => self.drop_pkt(id),
        }
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
            flow.on_ack(&pkt, sack, now, &mut out);
            if !was_done && flow.stats.sender_done.is_some() {
                done_owner = flow.owner; // closed-loop sources (issue 4)
            }
        }
        self.emit(f, out);
        if let Some(g) = done_owner {
            // the flow completed (every byte acknowledged): its generator may open the next
            if let Some(spec) = self.gens[g as usize].on_flow_done(now) {
                self.open_generated(g, spec);
            }
        }
    }

    /// Packet conservation (checked at the end of every test run): for every link,
    /// arrivals = drops + departures + queued + in service and departures = delivered +
    /// on the wire; for every flow, sent = delivered + dropped + in the network.
    pub fn check_conservation(&self) -> Result<(), String> {
        let now = self.now;
        let mut in_net: Vec<u64> = vec![0; self.flows.len()];
        let mut raw_in_net: Vec<u64> = vec![0; self.sources.len()];
        let mut sack_held = 0;
        for (i, l) in self.net.links.iter().enumerate() {
            let s = &l.stats;
            let queued = l.waiting();
            let svc = l.in_service(now) as u64;
            let departures = l.departures(now);
            if s.arrivals != s.total_drops() + departures + queued as u64 + svc {
                return Err(format!(
                    "link {} ({}): arrivals {} != drops {} + departures {} + queued {} + in service {}",
                    i,
                    l.name,
                    s.arrivals,
                    s.total_drops(),
                    departures,
                    queued,
                    svc
                ));
            }
            if svc > 1 {
                return Err(format!("link {}: {} packets in service at once", l.name, svc));
            }
            if l.q.pkts as usize != queued {
                return Err(format!("link {}: queue count {} != waiting slots {}", l.name, l.q.pkts, queued));
            }
            for p in l.held_packets() {
                if self.slab.get(p).has(flags::RAW) {
                    raw_in_net[self.slab.get(p).flow as usize] += 1;
                    continue;
                }
                in_net[self.slab.get(p).flow as usize] += 1;
                sack_held += (self.slab.get(p).sack != 0) as usize;
            }
        }
        // every SACK side-table slot in use belongs to an ACK still in the network
        if sack_held != self.sacks.len() - self.free_sacks.len() {
            return Err(format!(
                "SACK slots in use {} != ACKs with blocks in the network {}",
                self.sacks.len() - self.free_sacks.len(),
                sack_held
            ));
        }
        // a retired flow's pkts_sent is delivered + dropped: none of it may be in the network
        for (f, flow) in self.flows.records().enumerate() {
            let s = &flow.stats;
            if s.pkts_sent != s.pkts_delivered + s.pkts_dropped + in_net[f] {
                return Err(format!(
                    "flow {f}: sent {} != delivered {} + dropped {} + in network {}",
                    s.pkts_sent, s.pkts_delivered, s.pkts_dropped, in_net[f]
                ));
            }
        }
        for (i, src) in self.sources.iter().enumerate() {
            let s = &src.stats;
            let sent = s.pkts_sent + s.replies_sent;
            let gone = s.pkts_delivered + s.pkts_dropped + s.replies_delivered + s.replies_dropped;
            if sent != gone + raw_in_net[i] {
                return Err(format!(
                    "source {i} ({}): sent {sent} (reports included) != delivered + dropped {gone} + in network {}",
                    src.traffic, raw_in_net[i]
                ));
            }
        }
        let total: u64 = in_net.iter().sum::<u64>() + raw_in_net.iter().sum::<u64>();
        if total as usize != self.slab.live() {
            return Err(format!("packets held by links {} != live packets {}", total, self.slab.live()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Routes;

    /// Each route reads back as pushed, empty ones included, against a Vec of Vecs.
    #[test]
    fn routes_read_back_as_pushed() {
        let mut rng = crate::core::rng::Rng::new(7);
        let mut routes = Routes::default();
        let mut reference: Vec<Vec<u32>> = Vec::new();
        for _ in 0..1000 {
            let path: Vec<u32> = (0..rng.range_u64(0, 6)).map(|_| rng.range_u64(0, 5000) as u32).collect();
            routes.push(&path);
            reference.push(path);
            assert_eq!(routes.len(), reference.len());
        }
        for (r, path) in reference.iter().enumerate() {
            assert_eq!(&routes[r], path.as_slice());
        }
    }
}
