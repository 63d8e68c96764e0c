//! The high-frequency monitor of seeds/003 (slides 8, 15 and 22): one link's queue
//! sampled at packet timescale next to the queue the senders' windows alone predict.
//!
//! Slide 15: "Green: the long-term trend of queue length, controlled by window control
//! algorithm; White: instantaneous queue length, the effect of both window control
//! algorithm and [burstiness]"; slide 35: "the queue length is bounded by the sum of
//! window prediction and burstiness". The window prediction is the fluid model of slides
//! 32-34: flow i sends w_i per round trip d_i + q/C, so a backlogged link of capacity C
//! holds the q with
//!
//!   sum_i w_i / (d_i + q / C) = C,   q = 0 when sum_i w_i / d_i <= C,
//!
//! (with one common d: q = sum_i w_i - C d, the window minus the bandwidth-delay
//! product), over the TCP flows whose data crosses the link. w_i is the congestion
//! window (bounded by max_cwnd) in bits of full packets on the wire; d_i the flow's
//! propagation round trip from the topology: every link's delay both ways, plus one full
//! data packet's serialisation on each forward link and one ACK's on each reverse link.
//! q is solved by bisection and reported in full packets of the first such flow.
//!
//! Each row: the queue at the sample instant, the largest queue since the previous
//! sample (so the micro-bursts between samples are not lost), the windows' sum and the
//! prediction, and the link's cumulative drops.

use crate::core::packet::LinkId;
use crate::core::time::SimTime;

#[derive(Clone, Copy, Debug)]
pub struct MonitorRow {
    pub t: SimTime,
    pub queue_pkts: u32,
    pub max_queue_pkts: u32,
    /// Sum of the crossing flows' windows, packets.
    pub window_pkts: f64,
    /// The window prediction q, packets.
    pub predicted_pkts: f64,
    pub drops: u64,
}

pub struct Monitor {
    pub link: LinkId,
    pub interval: SimTime,
    pub rows: Vec<MonitorRow>,
}

/// One flow's share of the fluid model: window w in bits, propagation RTT d in seconds.
#[derive(Clone, Copy, Debug)]
pub struct FluidFlow {
    pub w_bits: f64,
    pub d_s: f64,
}

/// The queue q (bits) with sum_i w_i / (d_i + q / C) = C for capacity `c_bps`; 0 when the
/// windows do not fill the link. With one common d the answer is sum w - C d.
pub fn window_queue_bits(flows: &[FluidFlow], c_bps: f64) -> f64 {
    if flows.is_empty() || c_bps <= 0.0 {
        return 0.0;
    }
    let rate = |q: f64| -> f64 { flows.iter().map(|f| f.w_bits / (f.d_s + q / c_bps)).sum() };
    if flows.iter().any(|f| f.d_s <= 0.0) || rate(0.0) <= c_bps {
        // a zero-delay flow fills any link: its window is all queue
        return if rate(0.0) <= c_bps { 0.0 } else { flows.iter().map(|f| f.w_bits).sum() };
    }
    // rate(q) falls in q; at q = sum w each term is below C w_i / sum w, so the sum below C
    let (mut lo, mut hi) = (0.0, flows.iter().map(|f| f.w_bits).sum::<f64>());
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if rate(mid) > c_bps {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-9 * hi.max(1.0) {
            break;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One common d: q = sum w - C d. 100 Mb/s x 10 ms = 1 Mbit of BDP; windows of
    /// 0.7 + 0.6 Mbit leave 0.3 Mbit queued.
    #[test]
    fn common_delay_is_window_minus_bdp() {
        let f = [FluidFlow { w_bits: 0.7e6, d_s: 0.01 }, FluidFlow { w_bits: 0.6e6, d_s: 0.01 }];
        let q = window_queue_bits(&f, 100e6);
        assert!((q - 0.3e6).abs() < 1.0, "{q}");
        let f = [FluidFlow { w_bits: 0.9e6, d_s: 0.01 }];
        assert_eq!(window_queue_bits(&f, 100e6), 0.0, "below the BDP: empty");
    }

    /// Two round trips, 10 ms and 30 ms, windows of 1 and 2 Mbit into 100 Mb/s:
    /// 1e6/(0.01 + q/1e8) + 2e6/(0.03 + q/1e8) = 1e8. With u = q/1e8 (queueing delay):
    /// (0.03 + u) + 2 (0.01 + u) = 100 (0.01 + u)(0.03 + u), i.e.
    /// 100 u^2 + u - 0.02 = 0, u = (-1 + sqrt(1 + 8)) / 200 = 0.01 s: q = 1 Mbit.
    #[test]
    fn mixed_delays_by_hand() {
        let f = [FluidFlow { w_bits: 1e6, d_s: 0.01 }, FluidFlow { w_bits: 2e6, d_s: 0.03 }];
        let q = window_queue_bits(&f, 1e8);
        assert!((q - 1e6).abs() < 1.0, "{q}");
    }
}
