//! Burstiness control: window control decides how much a flow sends per round trip, this
//! rule decides when each packet leaves, so a flow never builds more than `threshold`
//! packets of queue beyond what its window alone would (a micro-burst from ACK
//! compression or a window jump leaves paced at the available bandwidth instead).
//!
//! Source: seeds/003 (D. X. Wei, S. Hegde, S. H. Low, "Burstiness Control for High Speed
//! Long Distance TCP", PFLDnet 2005, slides 14-21: "for each packet (packet n) to be sent,
//! at time t, u is the first packet that is sent but not acknowledged: it is sent 1 RTT
//! before ... Send the packet only when B is smaller than a threshold"; slide 19 names the
//! available bandwidth for the connection). The slides' formula is lost in the text; the
//! measure here is ALGORITHMS.md section 12's reconstruction [X]:
//!
//!   B(n) = (n - u) - c (t - s_u)
//!
//! packets sent since u beyond what the path drained at the available bandwidth c
//! (pkt/s) since u left at s_u: the queue this flow builds. Packet n leaves at t only if
//! B(n) <= `threshold`; otherwise it waits until t' = s_u + (n - u - threshold) / c (where
//! B = threshold), or until an ACK moves u (the send loop runs on every ACK).
//!
//! u is "sent 1 RTT before" (slide 16) only while no loss holds it back: a lost packet
//! stays the first unacknowledged for a round trip or more, (t - s_u) grows and B falls
//! without bound, so the rule would let any burst go during loss recovery. Slide 21
//! reads "If u < m" (the rest of its text is lost): here, when u left more than one SRTT
//! ago, B counts from m instead, the first packet sent at or after t - SRTT (ours).
//!
//! `measure = "queue"` (the default, ours): B as the queue this flow builds at a bottleneck
//! of rate c is the largest such count over every start point s in the last round trip,
//! max_s [(packets sent in [s, t)) - c (t - s)] (Reich's formula), of which the slides'
//! B is the term s = s_u; kept as a leaky bucket (+1 per packet sent, drained at c). The
//! two agree while the flow sends at c or faster since u; they differ after the flow
//! sent less for a while (a timeout, a small window, ACKs held back): the slides' B
//! then lets a whole catch-up burst go at once (one FAST flow from a host with a
//! 100-packet NIC queue, 622 Mb/s x 360 ms: a window jumping from 77 to 361 packets after
//! a timeout lost 589 packets in its own NIC with `measure = "anchor"`), the queue form
//! paces it. `measure = "anchor"` is the slides' B as ALGORITHMS.md reconstructs it.
//!
//! Choices the sources leave open, each an option with its default:
//! - `threshold` (B_th), packets: 10 (ALGORITHMS.md section 12's default without an MBS
//!   estimate; the slides give no value).
//! - `strict`: false sends while B <= threshold (the sheet's test values); true while
//!   B < threshold (the slides' "smaller than"); they differ by one packet.
//! - `estimator` of c. A delivery-rate sample is the packets delivered (cumulatively
//!   acknowledged or SACKed: snd_una plus the SACKed octets above it, never decreasing)
//!   over one smoothed RTT divided by its length.
//!   - "delivery" (default, ours): the largest of the last `filter_rtts` = 10 samples
//!     (BBR's bandwidth filter, Cardwell et al., ACM Queue 2016), times `headroom` = 1.25
//!     (BBR's probing gain) once out of slow start, `ss_headroom` = 2 in slow start
//!     (cwnd < ssthresh, where the window doubles per round trip).
//!   - "delivery_ewma": ALGORITHMS.md section 12 (a) as written: an EWMA of `gain` = 1/8
//!     over the samples, with the same headrooms.
//!   - "window": cwnd / SRTT, FAST's own rate (slide 25: "bandwidth under-estimation by
//!     cwnd/RTT leads to slow convergence"), no headroom.
//!
//!   Why not the sheet's (a) as the default: the gate limits the delivery it then
//!   measures. With headroom 1 a flow may exceed c by only B_th packets per round trip,
//!   so c, and the flow, grow by B_th per round trip: one FAST flow at 622 Mb/s x 360 ms
//!   (a window of 19,000 packets) reached 16.6 Mb/s in 300 s (bench.rs
//!   `run_fast_burstiness`, this gate before the change). The headroom lets c grow by
//!   1.25x (2x in slow start) per round trip while still cutting micro-bursts. Every
//!   estimate is capped at the host's line rate.
//! - n - u counts transmissions, retransmissions included (every packet adds to the
//!   queue), and retransmissions are held like new data: a loss recovery that releases
//!   a window's worth of retransmissions at once is a burst too. s_u is the first
//!   transmission time of u. Until the first estimate (the first round trip), and while
//!   nothing was sent in the last SRTT, the rule lets packets go.
//!
//! Test values (ALGORITHMS.md section 12): s_u = 0, t = 0.1 s, c = 1000 pkt/s,
//! B_th = 10: n - u = 105 gives B = 5 (send); n - u = 111 gives B = 11, held until
//! t' = (111 - 10) / 1000 = 0.101 s.

use crate::core::check::int_range;
use std::collections::VecDeque;

use crate::core::time::SimTime;
use crate::tcp::sched::{GateView, SendGate};

use super::kind::GateKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How B is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    // This flow's own queue at a bottleneck of rate c (a leaky bucket): the largest B
    // over every start point, not only the anchor.
    #[default]
    Queue,
    // The slides' B, from the anchor (u, or m) only.
    Anchor,
}

/// How the available bandwidth c is estimated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Estimator {
    // The largest per-SRTT delivery rate of the last `filter_rtts`, with headroom.
    #[default]
    Delivery,
    // The per-SRTT delivery rates EWMA-smoothed (weight `gain`), with headroom.
    DeliveryEwma,
    // cwnd / SRTT.
    Window,
}

/// Burstiness control (tcp/gate/burstiness.rs; Wei, Hegde, Low, "Burstiness Control for
/// High Speed Long Distance TCP", PFLDnet 2005): a packet leaves only while
/// the queue the flow builds stays within `threshold`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct BcParams {
    /// B_th, packets: a packet leaves only while the queue the flow builds B <=
    /// threshold; finite, 0..=1000000.
    pub threshold: f64,
    /// true: send only while B < threshold (then threshold must be above 0); false:
    /// while B <= threshold.
    pub strict: bool,
    /// How B is measured: "queue" (the flow's own queue at a bottleneck of rate c, a
    /// leaky bucket) or "anchor" (the slides' B from the anchor packet).
    pub measure: Measure,
    /// The available bandwidth c: "delivery" (largest per-SRTT delivery rate of the
    /// last `filter_rtts`), "delivery_ewma" (EWMA-smoothed, weight `gain`) or "window"
    /// (cwnd / SRTT).
    pub estimator: Estimator,
    /// EWMA weight of a new delivery-rate sample ("delivery_ewma"); in (0, 1].
    pub gain: f64,
    /// Samples the "delivery" estimator's max filter keeps (one per SRTT), 1..=10000.
    pub filter_rtts: u32,
    /// The delivery estimators' factor on c out of slow start; finite, 1..=100.
    pub headroom: f64,
    /// The delivery estimators' factor on c in slow start; finite, 1..=100.
    pub ss_headroom: f64,
}

impl GateKind for BcParams {
    fn validate(&self, path: &str) -> Result<(), String> {
        let p = self;
        int_range(path, "filter_rtts", p.filter_rtts.into(), 1, 10_000)?;
        for (name, v) in [("headroom", p.headroom), ("ss_headroom", p.ss_headroom)] {
            if !(v.is_finite() && (1.0..=100.0).contains(&v)) {
                return Err(format!("{path}.{name}: must be a finite number in 1..100 (got {v})"));
            }
        }
        if !(p.threshold.is_finite() && (0.0..=1e6).contains(&p.threshold)) {
            return Err(format!("{path}.threshold: must be a finite number in 0..1000000 packets (got {})", p.threshold));
        }
        if !(p.gain > 0.0 && p.gain <= 1.0) {
            return Err(format!("{path}.gain: must be in (0, 1] (got {})", p.gain));
        }
        if p.strict && p.threshold == 0.0 {
            // B < 0 never holds: nothing could ever leave (the gate re-armed every ns)
            return Err(format!(
                "{path}.threshold: 0 with strict = true lets no packet leave (B < 0 never holds); \
                 use strict = false or a threshold above 0"
            ));
        }
        Ok(())
    }

    fn build(&self, line_rate: f64, _: Option<u64>, mss: u32, wire: u32) -> Box<dyn SendGate> {
        Box::new(Burstiness::new(*self, line_rate, mss, wire))
    }
}

impl Default for BcParams {
    fn default() -> Self {
        BcParams {
            threshold: 10.0,
            strict: false,
            measure: Measure::Queue,
            estimator: Estimator::Delivery,
            gain: 0.125,
            filter_rtts: 10,
            headroom: 1.25,
            ss_headroom: 2.0,
        }
    }
}

const EPS: f64 = 1e-9;
/// The transmission log's bounds without an SRTT (the first round trip) and in entries.
const LOG_MAX_NS: u64 = 60_000_000_000;
const LOG_MAX: usize = 1 << 22;

pub struct Burstiness {
    p: BcParams,
    /// Payload bytes of a full segment (packet counts are in segments).
    mss: f64,
    /// The host's line rate in full packets per second (the cap on c).
    line_pps: f64,
    /// Per new segment not yet cumulatively acknowledged, oldest first: its end sequence
    /// number and first send time (the front gives s_u).
    sent: VecDeque<(u64, SimTime)>,
    /// Packets this gate let go, retransmissions included.
    tx: u64,
    /// Send time and `tx` before it of every transmission of the last two SRTTs (the
    /// anchor is never older than one).
    log: VecDeque<(SimTime, u64)>,
    /// Delivery estimators: the EWMA or the filter's samples (pkt/s), and the current
    /// sampling interval's start.
    rate: Option<f64>,
    samples: VecDeque<f64>,
    win_start: Option<(SimTime, u64)>,
    /// Octets delivered so far (snd_una + SACKed), its high-water mark.
    delivered: u64,
    /// `Measure::Queue`: the flow's virtual queue (packets) as of `vq_at`.
    vq: f64,
    vq_at: SimTime,
    /// Packets this gate held (a release time named), for the results.
    pub holds: u64,
}

impl Burstiness {
    /// `line_rate` bits/s; `mss` payload and `wire` bytes of a full segment.
    pub fn new(p: BcParams, line_rate: f64, mss: u32, wire: u32) -> Burstiness {
        Burstiness {
            p,
            mss: mss.max(1) as f64,
            line_pps: line_rate / (8.0 * wire.max(1) as f64),
            sent: VecDeque::new(),
            tx: 0,
            log: VecDeque::new(),
            rate: None,
            samples: VecDeque::new(),
            win_start: None,
            delivered: 0,
            vq: 0.0,
            vq_at: SimTime::ZERO,
            holds: 0,
        }
    }

    /// The available-bandwidth estimate c in packets/s, if any.
    pub fn estimate(&self, v: &GateView) -> Option<f64> {
        let headroom = if v.cwnd < v.ssthresh { self.p.ss_headroom } else { self.p.headroom };
        let c = match self.p.estimator {
            Estimator::Delivery => self.samples.iter().copied().reduce(f64::max)? * headroom,
            Estimator::DeliveryEwma => self.rate? * headroom,
            Estimator::Window => {
                let srtt = v.srtt?.as_secs_f64();
                if srtt <= 0.0 {
                    return None;
                }
                v.cwnd / srtt
            }
        };
        (c > 0.0).then_some(c.min(self.line_pps))
    }

    /// The packet B counts from and its send time: u, unless u left more than one SRTT
    /// ago (a lost packet holds snd_una back), then the first packet sent since
    /// t - SRTT (None: nothing was sent in the last SRTT, no burst to measure).
    /// Returns the anchor's send time and the packets sent since it, itself included.
    /// Counted from the first transmission at or after max(s_u, t - SRTT), whatever it
    /// carried (a retransmission too: after a timeout only retransmissions may have
    /// left since).
    pub fn anchor(&self, v: &GateView, now: SimTime) -> Option<(SimTime, u64)> {
        let srtt = v.srtt?;
        let mut from = SimTime(now.ns().saturating_sub(srtt.ns()));
        if let Some(&(_, s_u)) = self.sent.front() {
            from = from.max(s_u);
        }
        let i = self.log.partition_point(|e| e.0 < from);
        self.log.get(i).map(|&(t, tx)| (t, self.tx - tx))
    }

    /// The virtual queue at `now`, drained at `c` pkt/s since the last transmission.
    pub fn queue_at(&self, c: f64, now: SimTime) -> f64 {
        (self.vq - c * now.ns().saturating_sub(self.vq_at.ns()) as f64 * 1e-9).max(0.0)
    }

    /// Drops log entries older than two SRTTs (a bound, should SRTT grow).
    fn prune(&mut self, srtt: Option<SimTime>, now: SimTime) {
        let keep = srtt.map_or(LOG_MAX_NS, |r| r.ns().saturating_mul(2));
        let cut = now.ns().saturating_sub(keep);
        while self.log.front().is_some_and(|e| e.0.ns() < cut) || self.log.len() > LOG_MAX {
            self.log.pop_front();
        }
    }

    /// The slides' B(n) for the packet `v` describes, at `now`, and c (None: no estimate,
    /// or nothing sent in the last SRTT).
    pub fn measure(&self, v: &GateView, now: SimTime) -> Option<(f64, f64)> {
        let (s_a, n_a) = self.anchor(v, now)?;
        let c = self.estimate(v)?;
        Some((n_a as f64 - c * (now - s_a).as_secs_f64(), c))
    }
}

impl SendGate for Burstiness {
    fn name(&self) -> &'static str {
        "burstiness"
    }

    fn release_at(&mut self, v: &GateView, now: SimTime) -> Option<SimTime> {
        let (b, c) = match self.p.measure {
            Measure::Queue => {
                let c = self.estimate(v)?;
                (self.queue_at(c, now), c)
            }
            Measure::Anchor => self.measure(v, now)?,
        };
        // EPS: float rounding in B (the wait below is whole ns, rounded up)
        let ok = if self.p.strict { b < self.p.threshold - EPS } else { b <= self.p.threshold + EPS };
        if ok {
            return None;
        }
        // B drains to the threshold (B - B_th) / c later (for the anchor form the sheet's
        // t' = s_a + (n - a - B_th) / c); strictly, one ns later still
        let wait_ns = ((b - self.p.threshold) / c * 1e9 - 1e-3).ceil().clamp(0.0, 1e18) as u64;
        self.holds += 1;
        Some(now + SimTime((wait_ns + self.p.strict as u64).max(1)))
    }

    /// Window control and burstiness control split the work (slide 26): while this rule
    /// holds packets the window is not what limits the flow, so it must not grow.
    fn holds_window(&self) -> bool {
        true
    }

    fn on_sent(&mut self, v: &GateView, now: SimTime) {
        if self.p.measure == Measure::Queue {
            self.vq = match self.estimate(v) {
                Some(c) => self.queue_at(c, now) + 1.0,
                None => 0.0, // no estimate: the gate is open, nothing to account
            };
            self.vq_at = now;
        }
        let end = v.seq + v.len;
        if v.len > 0 && self.sent.back().is_none_or(|&(e, _)| end > e) && v.seq >= v.snd_max {
            self.sent.push_back((end, now));
        }
        self.log.push_back((now, self.tx));
        self.tx += 1;
        self.prune(v.srtt, now);
    }

    fn on_ack(&mut self, v: &GateView, now: SimTime) {
        while self.sent.front().is_some_and(|&(e, _)| e <= v.snd_una) {
            self.sent.pop_front();
        }
        self.prune(v.srtt, now);
        if self.p.estimator == Estimator::Window {
            return;
        }
        self.delivered = self.delivered.max(v.snd_una + v.sacked);
        let Some(srtt) = v.srtt else { return };
        match self.win_start {
            None => self.win_start = Some((now, self.delivered)),
            Some((t0, d0)) => {
                let dt = now - t0;
                if dt >= srtt && dt > SimTime::ZERO {
                    let sample = (self.delivered - d0) as f64 / self.mss / dt.as_secs_f64();
                    self.rate = Some(match self.rate {
                        None => sample,
                        Some(r) => r + self.p.gain * (sample - r),
                    });
                    if self.samples.len() >= self.p.filter_rtts.max(1) as usize {
                        self.samples.pop_front();
                    }
                    self.samples.push_back(sample);
                    self.win_start = Some((now, self.delivered));
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "burstiness_tests.rs"]
mod tests;
