//! What the run records as it goes: per-flow series, queue series of chosen links, and
//! the high-frequency monitor of one link (engine/monitor.rs).

use super::{Ev, FlowSample, QueueSample, Sim};
use crate::core::packet::LinkId;
use crate::core::time::SimTime;
use crate::engine::monitor::{window_queue_bits, FluidFlow, Monitor, MonitorRow};
use crate::tcp::recovery::LossRecovery;
use crate::tcp::SenderState;

impl Sim {
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
    pub(super) fn monitor_fire(&mut self) {
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

    pub fn sample_queues(&mut self, links: Vec<LinkId>, interval: SimTime) {
        if links.is_empty() || interval == SimTime::ZERO {
            return;
        }
        self.sample_links = links;
        self.sample_interval = interval;
        self.events.push(self.now.ns(), Ev::Sample);
    }

    /// One row of every sampled link's queue series (`Ev::Sample`); out of line, as the
    /// other samplers, to keep the event loop's hot arms tight.
    #[inline(never)]
    pub(super) fn queue_sample_fire(&mut self) {
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
                refusals: st.refusals,
                marks: st.marks,
                bytes_delivered: st.bytes_delivered,
            });
        }
        let next = self.now + self.sample_interval;
        self.events.push(next.ns(), Ev::Sample);
    }

    /// One row of every flow's series (`Ev::FlowSample`).
    #[inline(never)]
    pub(super) fn flow_sample_fire(&mut self) {
        let now = self.now;
        self.flow_samples.extend(self.flows.live().map(|f| FlowSample {
            t: now,
            flow: f.id,
            bytes_received: f.stats.bytes_received,
            cwnd: f.cc_state.cwnd,
            ssthresh: f.cc_state.ssthresh,
            srtt: f.srtt(),
            in_recovery: f.rec.in_recovery(),
        }));
        self.events.push((now + self.flow_sample_interval).ns(), Ev::FlowSample);
    }
}
