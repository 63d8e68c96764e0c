//! Scalable TCP (STCP): T. Kelly, "Scalable TCP: Improving Performance in HighSpeed Wide Area
//! Networks", ACM CCR 33(2), April 2003; ALGORITHMS.md section 2.
//!
//! Multiplicative increase, multiplicative decrease above a legacy window lwnd:
//! - congestion avoidance, cwnd >= lwnd: cwnd += a per acknowledged segment (a = 0.01 in the
//!   paper: +1 % of the window per RTT with one ACK per segment);
//! - congestion avoidance, cwnd < lwnd: standard TCP, cwnd += acked / cwnd (lwnd = 16 in the
//!   paper);
//! - congestion event: cwnd <- (1 - b) cwnd, b = 0.125, so ssthresh = 0.875 cwnd (floored at 2
//!   segments). The loss recovery time, log(1/(1-b)) / log(1+a) = 13.4 RTTs, does not depend
//!   on the rate.
//!
//! `preset` (ALGORITHMS.md section 15 item 3):
//! - `kelly` (default): a = 0.01 per acknowledged segment, lwnd = 16.
//! - `linux`: Linux net/ipv4/tcp_scalable.c (torvalds/linux commit 02b5a60),
//!   tcp_cong_avoid_ai(tp, min(snd_cwnd, TCP_SCALABLE_AI_CNT = 50)): +1 segment per
//!   min(cwnd, 50) acknowledged segments, i.e. a = 1/50 = 0.02 per segment with lwnd = 50
//!   (Reno-like below 50). Its comment chose 50 rather than 100 "to account for delayed ack",
//!   which held while the kernel counted ACKs; current kernels count acknowledged segments,
//!   so the gain is twice Kelly's. ns-3 TcpScalable (AIFactor 50) is the same.
//!
//! `ai` and `legacy_window` override the preset's values one by one; `b` is Linux's
//! 1/2^TCP_SCALABLE_MD_SCALE = 1/8 in both presets. The decrease is computed in real numbers,
//! (1 - b) cwnd: Linux's integer cwnd - (cwnd >> 3) gives the same for multiples of 8 and at
//! most 7/8 of a segment more otherwise. The same ssthresh on fast retransmit, ECN and RTO
//! (Linux and ns-3 call ssthresh() on RTO too). Slow start is RFC 5681's, as in newreno.rs.

use crate::core::check::open_unit;
use super::control::{CcState, CongestionControl, CongestionEvent};
use crate::core::time::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Whose constants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// Kelly 2003: a = 0.01 per segment, lwnd = 16.
    #[default]
    Kelly,
    /// Linux tcp_scalable.c / ns-3: a = 0.02 per segment (AI_CNT 50), lwnd = 50.
    Linux,
}

impl Preset {
    /// (a per acknowledged segment, legacy window).
    pub fn constants(self) -> (f64, f64) {
        match self {
            Preset::Kelly => (0.01, 16.0),
            Preset::Linux => (1.0 / 50.0, 50.0),
        }
    }
}

/// `[tcp.cc] kind = "scalable"` parameters.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// `kelly` (default) or `linux`.
    pub preset: Preset,
    /// Increase per acknowledged segment above the legacy window (default: the preset's), in
    /// (0, 1].
    pub ai: Option<f64>,
    /// Below this window, standard TCP increase (default: the preset's); finite, >= 0.
    pub legacy_window: Option<f64>,
    /// Multiplicative decrease (default 0.125), in (0, 1).
    pub b: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params { preset: Preset::Kelly, ai: None, legacy_window: None, b: 0.125 }
    }
}

impl Params {
    pub fn validate(&self, path: &str) -> Result<(), String> {
        if let Some(ai) = self.ai {
            if !(ai.is_finite() && ai > 0.0 && ai <= 1.0) {
                return Err(format!("{path}.ai: must be in (0, 1] segments per acknowledged segment (got {ai})"));
            }
        }
        if let Some(l) = self.legacy_window {
            if !(l.is_finite() && l >= 0.0) {
                return Err(format!("{path}.legacy_window: must be a finite number >= 0 (got {l})"));
            }
        }
        open_unit(path, "b", self.b)
    }

    pub fn build(&self) -> Scalable {
        let (ai, lwnd) = self.preset.constants();
        Scalable { ai: self.ai.unwrap_or(ai), legacy_window: self.legacy_window.unwrap_or(lwnd), b: self.b }
    }
}

pub struct Scalable {
    pub ai: f64,
    pub legacy_window: f64,
    pub b: f64,
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    #[inline]
    fn on_ack(&mut self, s: &mut CcState, acked: f64, _rtt: Option<SimTime>, _now: SimTime) {
        if s.cwnd < s.ssthresh {
            s.slow_start(acked); // RFC 5681 eq. 2
        } else if s.cwnd < self.legacy_window {
            s.cwnd += acked / s.cwnd; // standard TCP below lwnd
        } else {
            s.cwnd += self.ai * acked; // Kelly: cwnd += a per ACK of one segment
        }
    }

    fn ssthresh(&mut self, s: &CcState, _flight: f64, _ev: CongestionEvent, _now: SimTime) -> f64 {
        ((1.0 - self.b) * s.cwnd).max(2.0)
    }
}
