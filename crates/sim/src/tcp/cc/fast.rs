//! FAST TCP: C. Jin, D. X. Wei, S. H. Low, "FAST TCP: motivation, architecture,
//! algorithms, performance", IEEE INFOCOM 2004; D. X. Wei, C. Jin, S. H. Low, S. Hegde,
//! same title, IEEE/ACM ToN 14(6), 2006; the estimators and the MI phase as the ns-2
//! module of T. Cui and L. Andrew (CUBIN, tcp-fast.cc v1.1.3). ALGORITHMS.md section 7
//! (its recommended default; [R] marks there: the window law is recalled from the papers
//! and consistent with the ns-2 code).
//!
//! - Window law, once per update (every other RTT by default, as ns-2 and Linux's
//!   prototype): w <- min{ 2w, (1 - gamma) w + gamma (baseRTT/avgRTT w + alpha) },
//!   at least 2. Equilibrium: alpha packets queued per flow, w* = x* baseRTT + alpha.
//!   The ToN law with the current window w (ns-2 uses the window in flight when the
//!   acknowledged packet left, and has no 2w cap: `cap_2w = false` drops the cap).
//! - baseRTT: the minimum RTT sample; avgRTT: EWMA of the samples with weight
//!   min(1/256, 3/w) (ns-2).
//! - MI phase (ns-2): while avgRTT - baseRTT < `mi_threshold` (0.75 ms), cwnd grows by one
//!   segment per segment acknowledged (about doubling per RTT), and no update runs.
//! - Update boundaries by time: an RTT has passed when now >= the last boundary + avgRTT
//!   (ns-2's test); the law runs at every other boundary (`every_rtt = true`: each).
//! - Loss: halve (the trait's ssthresh = FlightSize/2, then the recovery in use); RTO:
//!   cwnd = 2 (ns-2's slowstart_).
//! - Constants: alpha = 100 packets (ns-2; the Linux prototype's experiments used 200),
//!   gamma = 0.5.
//!
//! Not here: ns-2's "window pacing" (an increase spread over the next period's ACKs) and
//! its fast-expire retransmission; the increase is applied at once.

use crate::core::check::unit_fraction;
use super::control::{CcState, CongestionControl, CongestionEvent};
use crate::core::time::SimTime;
use schemars::JsonSchema;
use serde::Deserialize;

/// `[tcp.cc] kind = "fast"`.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Packets each flow keeps queued at equilibrium (100); finite, in (0, 1000000].
    pub alpha: f64,
    /// Step of the window law, (0, 1] (0.5).
    pub gamma: f64,
    /// MI phase while the queueing delay is below this many seconds (0.00075), in [0, 10).
    pub mi_threshold: f64,
    /// The ToN law's min{2w, .} (true).
    pub cap_2w: bool,
    /// Update every RTT instead of every other RTT (false).
    pub every_rtt: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params { alpha: 100.0, gamma: 0.5, mi_threshold: 0.00075, cap_2w: true, every_rtt: false }
    }
}

impl Params {
    pub fn validate(&self, path: &str) -> Result<(), String> {
        // at most 10^6 packets, as init_cwnd: without cap_2w one update sets w near
        // alpha / 2, and the sender builds that flight at once
        if !(self.alpha.is_finite() && self.alpha > 0.0 && self.alpha <= 1e6) {
            return Err(format!("{path}.alpha: must be a finite number in (0, 1000000] packets (got {})", self.alpha));
        }
        unit_fraction(path, "gamma", self.gamma)?;
        if !(self.mi_threshold.is_finite() && self.mi_threshold >= 0.0 && self.mi_threshold < 10.0) {
            return Err(format!("{path}.mi_threshold: must be in [0, 10) seconds (got {})", self.mi_threshold));
        }
        Ok(())
    }

    pub fn build(&self) -> Fast {
        Fast::new(self.clone())
    }
}

pub struct Fast {
    p: Params,
    /// Seconds; None until the first sample.
    base_rtt: Option<f64>,
    avg_rtt: Option<f64>,
    last_boundary: Option<SimTime>,
    boundaries: u64,
    pub updates: u64,
}

impl Fast {
    pub fn new(p: Params) -> Fast {
        Fast { p, base_rtt: None, avg_rtt: None, last_boundary: None, boundaries: 0, updates: 0 }
    }

    pub fn base_rtt(&self) -> Option<f64> {
        self.base_rtt
    }

    pub fn avg_rtt(&self) -> Option<f64> {
        self.avg_rtt
    }

    /// The window law: the next window from `w`, baseRTT `base` and average RTT `avg`.
    pub fn target(&self, w: f64, base: f64, avg: f64) -> f64 {
        let t = (1.0 - self.p.gamma) * w + self.p.gamma * (base / avg * w + self.p.alpha);
        let t = if self.p.cap_2w { t.min(2.0 * w) } else { t };
        t.max(2.0)
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }

    fn on_ack(&mut self, s: &mut CcState, acked: f64, rtt: Option<SimTime>, now: SimTime) {
        if let Some(r) = rtt {
            let r = r.as_secs_f64().max(1e-9);
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            let wgt = (1.0 / 256.0f64).min(3.0 / s.cwnd.max(1.0));
            self.avg_rtt = Some(self.avg_rtt.map_or(r, |a| a + wgt * (r - a)));
        }
        let (Some(base), Some(avg)) = (self.base_rtt, self.avg_rtt) else {
            s.cwnd += acked; // no sample yet: MI
            return;
        };
        if avg - base < self.p.mi_threshold {
            s.cwnd += acked; // MI phase
            self.last_boundary = Some(now);
            return;
        }
        let last = *self.last_boundary.get_or_insert(now);
        if now < last + SimTime::from_secs_f64(avg) {
            return;
        }
        self.last_boundary = Some(now);
        self.boundaries += 1;
        if self.p.every_rtt || self.boundaries.is_multiple_of(2) {
            s.cwnd = self.target(s.cwnd, base, avg);
            self.updates += 1;
        }
    }

    fn ssthresh(&mut self, _s: &CcState, flight: f64, _ev: CongestionEvent, _now: SimTime) -> f64 {
        (flight / 2.0).max(2.0) // halve
    }

    fn on_rto(&mut self, s: &mut CcState, now: SimTime) {
        s.cwnd = 2.0; // ns-2's slowstart_
        self.last_boundary = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fast(alpha: f64) -> Fast {
        Fast::new(Params { alpha, ..Params::default() })
    }

    /// ALGORITHMS.md section 7: w = 1000, baseRTT 0.1 s, RTT 0.12 s, alpha 200, gamma
    /// 0.5: 0.5 x 1000 + 0.5 x (1000 x 0.1/0.12 + 200) = 500 + 516.67 = 1016.67 (the 2w
    /// cap does not bind). From w = 10 at RTT = baseRTT, 0.5 x 10 + 0.5 x 210 = 110: the
    /// cap gives 20.
    #[test]
    fn one_step_and_the_cap() {
        let f = fast(200.0);
        assert!((f.target(1000.0, 0.1, 0.12) - 1016.6667).abs() < 1e-3);
        assert_eq!(f.target(10.0, 0.1, 0.1), 20.0);
        let f = Fast::new(Params { alpha: 200.0, cap_2w: false, ..Params::default() });
        assert_eq!(f.target(10.0, 0.1, 0.1), 110.0);
    }

    /// Fixed point on a fluid link: C = 100 Mb/s of 1500 B packets = 8333.33 pkt/s,
    /// baseRTT 100 ms, alpha 200: the queue holds w - C baseRTT packets when w exceeds
    /// the pipe, so RTT = 0.1 + (w - 833.33)/C; the law's fixed point is w* = C baseRTT +
    /// alpha = 1033.33 (q* = 24 ms). From w = 100, within 40 updates.
    #[test]
    fn fluid_fixed_point() {
        let f = fast(200.0);
        let (c, base): (f64, f64) = (8333.333, 0.1);
        let mut w: f64 = 100.0;
        for _ in 0..40 {
            let rtt = base + ((w - c * base) / c).max(0.0);
            w = f.target(w, base, rtt);
        }
        assert!((w - 1033.333).abs() < 0.5, "w = {w}");
        // two flows of alpha 200 share it: each w* = (C/2) baseRTT + 200 = 616.67, q* = 48 ms
        let (mut w1, mut w2): (f64, f64) = (100.0, 900.0);
        for _ in 0..200 {
            let rtt = base + ((w1 + w2 - c * base) / c).max(0.0);
            (w1, w2) = (f.target(w1, base, rtt), f.target(w2, base, rtt));
        }
        assert!((w1 - 616.667).abs() < 1.0 && (w2 - 616.667).abs() < 1.0, "{w1} {w2}");
    }
}
