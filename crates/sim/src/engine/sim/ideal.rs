//! A flow's path as the empty network gives it: its propagation round trip, and its
//! ideal completion time (the denominator of FCT slowdown).

use super::Sim;
use crate::core::packet::RouteId;
use crate::core::time::SimTime;

impl Sim {
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
}
