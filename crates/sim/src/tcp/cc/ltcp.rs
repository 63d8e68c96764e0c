//! LTCP (Layered TCP): draft-bhandarkar-ltcp-01 (S. Bhandarkar, S. Jain, A. L. N. Reddy,
//! Aug 2004) sections 4.1-4.3; also Bhandarkar, Jain, Reddy, ACM CCR 36(1), Jan 2006.
//! ALGORITHMS.md section 8. No simulator or kernel ships it; this follows the draft.
//!
//! A flow with window W runs K "layers" (K virtual Reno flows): in congestion avoidance the
//! window grows by K/cwnd per acknowledged segment, +K per RTT (section 4.1). Layer K+1 is
//! added when cwnd >= W_{K+1}, with (section 4.2)
//!
//!   W_1 = 0, W_K = K (K+1) (K-1) / 6 * W_T for K >= 2, W_T = 50 segments
//!   (0, 50, 200, 500, 1000, 1750, ... draft Table 1),
//!
//! so K is the layer count for W_K <= W < W_{K+1} (the section 4.3 pseudo-code writes
//! "cwnd > W_{K+1}"; the two differ only at exactly W_{K+1}). On a loss the window drops to
//! (1 - beta) cwnd, beta = 0.15, and at most one layer is removed: if the reduced window is
//! below W_K, K -= 1 (section 4.3). The draft shows that one layer suffices while
//! beta < 3/(K+1), true for beta = 0.15 only up to K = 18; above, the rule is kept as
//! written, so after a loss at K >= 20 the layer count can stay one above the window's
//! (ALGORITHMS.md section 15 item 7).
//!
//! Choices where the draft is silent (ALGORITHMS.md section 8, "[X]"):
//! - the increase is per acknowledged segment (cwnd += K acked / cwnd; the draft's per-ACK
//!   "cwnd += K/cwnd", printed as "cwnd = K/cwnd", a typo);
//! - slow start is RFC 5681's with K = 1; when it exits, K is derived from cwnd (the largest
//!   K with W_K <= cwnd), which the per-ACK layer test below does by adding as many layers as
//!   cwnd allows;
//! - fast retransmit, ECN and RTO all set ssthresh = (1 - beta) cwnd (floored at 2); after an
//!   RTO, K = 1 (slow start from one segment, K recomputed when it exits);
//! - when the window falls below W_K otherwise (recovery exit at cwnd = min(ssthresh,
//!   FlightSize + 1) under NewReno), K is recomputed from cwnd ("recompute K whenever cwnd
//!   changes by more than one layer").

use crate::core::check::open_unit;
use super::control::{CcState, CongestionControl, CongestionEvent};
use crate::core::time::SimTime;
use schemars::JsonSchema;
use serde::Deserialize;

/// `[tcp.cc] kind = "ltcp"` parameters.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Window threshold W_T (segments): one layer below it (default 50); finite, at least 1.
    pub w_t: f64,
    /// Multiplicative decrease beta (default 0.15), in (0, 1).
    pub beta: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params { w_t: 50.0, beta: 0.15 }
    }
}

impl Params {
    pub fn validate(&self, path: &str) -> Result<(), String> {
        if !(self.w_t.is_finite() && self.w_t >= 1.0) {
            return Err(format!("{path}.w_t: must be a finite number of segments >= 1 (got {})", self.w_t));
        }
        open_unit(path, "beta", self.beta)
    }

    pub fn build(&self) -> Ltcp {
        Ltcp { w_t: self.w_t, beta: self.beta, k: 1 }
    }
}

pub struct Ltcp {
    pub w_t: f64,
    pub beta: f64,
    /// Number of layers K (>= 1).
    k: u32,
}

impl Ltcp {
    /// W_K = K (K+1) (K-1) / 6 * W_T (W_1 = 0).
    #[inline]
    pub fn layer_window(&self, k: u32) -> f64 {
        let k = k as f64;
        k * (k + 1.0) * (k - 1.0) / 6.0 * self.w_t
    }

    /// The layer count of window `w`: the largest K >= 1 with W_K <= w.
    pub fn layers_for(&self, w: f64) -> u32 {
        let mut k = 1;
        while self.layer_window(k + 1) <= w {
            k += 1;
        }
        k
    }

    /// The current layer count K.
    pub fn layers(&self) -> u32 {
        self.k
    }
}

impl CongestionControl for Ltcp {
    fn name(&self) -> &'static str {
        "ltcp"
    }

    #[inline]
    fn on_ack(&mut self, s: &mut CcState, acked: f64, _rtt: Option<SimTime>, _now: SimTime) {
        if s.cwnd < s.ssthresh {
            s.slow_start(acked); // RFC 5681 eq. 2, K stays 1 (section 4.3)
            return;
        }
        // section 4.3: add a layer once cwnd reaches W_{K+1}; a loop, so that the first
        // ACK after slow start derives K from cwnd
        while s.cwnd >= self.layer_window(self.k + 1) {
            self.k += 1;
        }
        s.cwnd += self.k as f64 * acked / s.cwnd; // +K per RTT
    }

    fn ssthresh(&mut self, s: &CcState, _flight: f64, _ev: CongestionEvent, _now: SimTime) -> f64 {
        // layers up to date with the window at the event (also straight out of slow start)
        while s.cwnd >= self.layer_window(self.k + 1) {
            self.k += 1;
        }
        let w = (1.0 - self.beta) * s.cwnd; // WR = beta W
        if self.k > 1 && w < self.layer_window(self.k) {
            self.k -= 1; // at most one layer per loss
        }
        w.max(2.0)
    }

    fn on_rto(&mut self, _s: &mut CcState, _now: SimTime) {
        self.k = 1; // slow start again; K from cwnd when it exits
    }

    fn on_recovery_exit(&mut self, s: &mut CcState, _now: SimTime) {
        if s.cwnd < self.layer_window(self.k) {
            self.k = self.layers_for(s.cwnd);
        }
    }
}
