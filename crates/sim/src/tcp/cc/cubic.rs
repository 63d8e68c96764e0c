//! CUBIC: RFC 9438 (August 2023, obsoletes RFC 8312), ALGORITHMS.md section 4.
//!
//! In congestion avoidance the window follows the cubic of RFC 9438 section 4.2, eq. 1:
//! W_cubic(t) = C (t - K)^3 + W_max, with K = cbrt((W_max - cwnd_epoch)/C) (eq. 2), t the
//! time since the congestion-avoidance stage began and cwnd_epoch the window then.
//! Constants (section 5): C = 0.4 segments/s^3, beta_cubic = 0.7.
//! - Per ACK (sections 4.4, 4.5): target = W_cubic(t + RTT), clamped to [cwnd, 1.5 cwnd];
//!   cwnd += (target - cwnd)/cwnd per segment acknowledged (at most up to target). RTT is the
//!   minimum RTT seen (Linux's delay_min; on_ack's samples, outside recovery).
//! - Reno-friendly region (section 4.3): W_est starts at cwnd_epoch and grows by
//!   alpha_cubic acked/cwnd per ACK, alpha_cubic = 3 (1 - beta)/(1 + beta) (= 9/17 for
//!   beta 0.7) until W_est reaches cwnd_prior, 1 after; when W_cubic(t) < W_est, cwnd =
//!   W_est (never lowered on an ACK here).
//! - Congestion event (section 4.6, Figure 5; section 4.7): W_max = cwnd, or cwnd (1 +
//!   beta)/2 when cwnd < W_max (fast convergence); cwnd_prior = cwnd; ssthresh =
//!   max(FlightSize beta, 2) (the RFC's flight_size; the sender sets cwnd from it; ECN
//!   alike). The next congestion-avoidance ACK starts a new epoch.
//! - Timeout (section 4.8): ssthresh as above; in the first congestion-avoidance stage
//!   after it K = 0, W_max = W_est = cwnd at the start of that stage. The same applies to a
//!   congestion-avoidance stage that starts before any congestion event (no W_max yet,
//!   section 4.10's rule for a slow start left without loss). A timeout during fast
//!   recovery (when NewReno's cwnd is inflated by the duplicate ACKs) is not a new event
//!   for W_max and cwnd_prior: only ssthresh = max(FlightSize beta, 2) is recomputed (with
//!   `ssthresh_from = "cwnd"` ssthresh is kept, as Linux's tcp_enter_loss does).
//! - Slow start: RFC 5681 (NewReno's, one segment per ACK); HyStart++ is not implemented.
//!
//! Options: `c`, `beta`, `fast_convergence` (on), `reno_friendly` (on), and
//! `ssthresh_from = "flight" | "cwnd"` ("flight", RFC 9438 Figure 5; "cwnd" as Linux and
//! ns-3, which the RFC allows only with other means of keeping an application-limited
//! cwnd from growing, which this sender does not have).
//!
//! Per-ACK cost: a few multiplications; the cube root is taken once per epoch.

use crate::core::check::open_unit;
use super::control::{CcState, CongestionControl, CongestionEvent};
use crate::core::time::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What ssthresh is computed from on a congestion event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshFrom {
    /// FlightSize x beta (RFC 9438 Figure 5, default).
    #[default]
    Flight,
    /// cwnd x beta (Linux, ns-3).
    Cwnd,
}

/// `[tcp.cc] kind = "cubic"`.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// C, segments/s^3 (0.4); finite, above 0.
    pub c: f64,
    /// beta_cubic, the window kept on a congestion event (0.7), in (0, 1).
    pub beta: f64,
    /// Fast convergence (RFC 9438 section 4.7): a flow that loses below its last W_max
    /// releases bandwidth.
    pub fast_convergence: bool,
    /// The Reno-friendly region (section 4.3).
    pub reno_friendly: bool,
    /// What ssthresh is computed from on a congestion event.
    pub ssthresh_from: SsthreshFrom,
}

impl Default for Params {
    fn default() -> Self {
        Params { c: 0.4, beta: 0.7, fast_convergence: true, reno_friendly: true, ssthresh_from: SsthreshFrom::Flight }
    }
}

impl Params {
    pub fn validate(&self, path: &str) -> Result<(), String> {
        if !(self.c.is_finite() && self.c > 0.0) {
            return Err(format!("{path}.c: must be a finite number > 0 (got {})", self.c));
        }
        open_unit(path, "beta", self.beta)
    }

    pub fn build(&self) -> Cubic {
        Cubic::new(self.clone())
    }
}

pub struct Cubic {
    p: Params,
    /// 3 (1 - beta)/(1 + beta).
    alpha_cubic: f64,
    /// W_max, segments (0: no congestion event yet).
    w_max: f64,
    /// cwnd just before the last congestion event.
    cwnd_prior: f64,
    /// Start of the current congestion-avoidance epoch (None: the next CA ACK starts one).
    t_epoch: Option<SimTime>,
    /// K, seconds.
    k: f64,
    /// The Reno-friendly estimate W_est, segments.
    w_est: f64,
    /// The next epoch is the first after a timeout (section 4.8).
    after_rto: bool,
    /// The minimum RTT seen, seconds (0 until a sample).
    min_rtt: f64,
    /// Between a fast-retransmit event and the end of its recovery.
    in_recovery: bool,
}

impl Cubic {
    pub fn new(p: Params) -> Cubic {
        let alpha_cubic = 3.0 * (1.0 - p.beta) / (1.0 + p.beta);
        Cubic {
            p,
            alpha_cubic,
            w_max: 0.0,
            cwnd_prior: 0.0,
            t_epoch: None,
            k: 0.0,
            w_est: 0.0,
            after_rto: false,
            min_rtt: 0.0,
            in_recovery: false,
        }
    }

    /// W_cubic(t), t seconds into the current epoch (eq. 1).
    #[inline]
    pub fn w_cubic(&self, t: f64) -> f64 {
        let d = t - self.k;
        self.p.c * d * d * d + self.w_max
    }

    /// K of the current epoch, seconds.
    pub fn k(&self) -> f64 {
        self.k
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    pub fn w_est(&self) -> f64 {
        self.w_est
    }

    pub fn cwnd_prior(&self) -> f64 {
        self.cwnd_prior
    }

    /// alpha_cubic = 3 (1 - beta)/(1 + beta).
    pub fn alpha_cubic(&self) -> f64 {
        self.alpha_cubic
    }

    fn start_epoch(&mut self, cwnd: f64, now: SimTime) {
        self.t_epoch = Some(now);
        if self.after_rto || self.w_max <= 0.0 {
            // section 4.8 (and 4.10): K = 0, W_max = W_est = cwnd at the start of CA
            if self.cwnd_prior <= 0.0 {
                self.cwnd_prior = cwnd; // no congestion event yet (section 4.10)
            }
            self.w_max = cwnd;
            self.k = 0.0;
            self.after_rto = false;
        } else {
            self.k = ((self.w_max - cwnd) / self.p.c).cbrt(); // eq. 2 (negative past W_max)
        }
        self.w_est = cwnd;
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    #[inline]
    fn on_ack(&mut self, s: &mut CcState, acked: f64, rtt: Option<SimTime>, now: SimTime) {
        if let Some(r) = rtt {
            let r = r.as_secs_f64();
            if self.min_rtt <= 0.0 || r < self.min_rtt {
                self.min_rtt = r;
            }
        }
        if s.cwnd < s.ssthresh {
            s.slow_start(acked); // slow start (RFC 5681 eq. 2; Linux: RFC 3465)
            return;
        }
        let t_epoch = match self.t_epoch {
            Some(t) => t,
            None => {
                self.start_epoch(s.cwnd, now);
                now
            }
        };
        let t = now.saturating_sub(t_epoch).as_secs_f64();
        let cwnd = s.cwnd;
        if self.p.reno_friendly {
            // section 4.3: alpha_cubic until W_est reaches cwnd_prior, then 1
            let a = if self.w_est >= self.cwnd_prior { 1.0 } else { self.alpha_cubic };
            self.w_est += a * acked / cwnd;
            if self.w_cubic(t) < self.w_est {
                s.cwnd = cwnd.max(self.w_est);
                return;
            }
        }
        // sections 4.4 (concave) and 4.5 (convex)
        let target = self.w_cubic(t + self.min_rtt).clamp(cwnd, 1.5 * cwnd);
        s.cwnd = cwnd + (target - cwnd) * (acked / cwnd).min(1.0);
    }

    fn ssthresh(&mut self, s: &CcState, flight: f64, ev: CongestionEvent, _now: SimTime) -> f64 {
        let cwnd = s.cwnd;
        self.t_epoch = None;
        if ev == CongestionEvent::Timeout && self.in_recovery {
            // a timeout within the fast recovery's window: not a new congestion event for
            // W_max (the cwnd is NewReno's, inflated by the duplicate ACKs)
            self.in_recovery = false;
            return match self.p.ssthresh_from {
                SsthreshFrom::Flight => (flight * self.p.beta).max(2.0), // RFC 5681 3.1, 9438 4.8
                SsthreshFrom::Cwnd => s.ssthresh,                        // Linux tcp_enter_loss
            };
        }
        self.in_recovery = ev == CongestionEvent::FastRetransmit;
        // section 4.7, fast convergence
        self.w_max = if self.p.fast_convergence && cwnd < self.w_max { cwnd * (1.0 + self.p.beta) / 2.0 } else { cwnd };
        self.cwnd_prior = cwnd;
        let base = match self.p.ssthresh_from {
            SsthreshFrom::Flight => flight,
            SsthreshFrom::Cwnd => cwnd,
        };
        (base * self.p.beta).max(2.0)
    }

    fn on_rto(&mut self, _s: &mut CcState, _now: SimTime) {
        // section 4.8
        self.after_rto = true;
        self.t_epoch = None;
        self.in_recovery = false;
    }

    fn on_recovery_exit(&mut self, _s: &mut CcState, _now: SimTime) {
        self.in_recovery = false;
    }
}
