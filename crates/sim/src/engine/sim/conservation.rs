//! Packet conservation, checked at the end of every test run: what each link and each
//! flow sent is delivered, dropped or still held.

use super::Sim;
use crate::core::packet::flags;

impl Sim {
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
