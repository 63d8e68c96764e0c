//! TCP Vegas: L. S. Brakmo, L. L. Peterson, "TCP Vegas: End to End Congestion Avoidance
//! on a Global Internet", IEEE JSAC 13(8), 1995; with the rules of Linux
//! net/ipv4/tcp_vegas.c (`torvalds/linux` commit 09c434b, the copy read) and ns-3
//! TcpVegas (ALGORITHMS.md section 6).
//! The delay-based reference for FAST TCP.
//!
//! Once per round (an RTT), with RTT the minimum RTT sample of the round and baseRTT the
//! minimum ever:
//! - diff = cwnd (RTT - baseRTT)/RTT segments (default `diff = "paper"`: (Expected -
//!   Actual) baseRTT with Expected = cwnd/baseRTT, Actual = cwnd/RTT; ns-3 alike), or
//!   `diff = "linux"`: floor(cwnd (RTT - baseRTT)/baseRTT) with the integer window (a larger
//!   value for the same state);
//! - slow start: if diff > gamma, leave slow start with cwnd = min(cwnd, target + 1),
//!   target = cwnd baseRTT/RTT (floored under "linux"), and ssthresh = min(ssthresh, cwnd);
//!   otherwise slow start goes on (one segment per ACK, every ACK of the round, as Linux:
//!   the paper's every-other-RTT doubling is not used);
//! - congestion avoidance: diff > beta: cwnd -= 1 (and ssthresh = min(ssthresh, cwnd));
//!   diff < alpha: cwnd += 1; otherwise unchanged; cwnd stays >= 2. Nothing changes within a
//!   round.
//! - Fewer than 3 RTT samples in the round (Linux: "cntRTT <= 2"): Reno for the round,
//!   cwnd grows by (segments acknowledged in the round)/cwnd in congestion avoidance (about
//!   one per RTT). Linux applies Reno to the round's last ACK only; this counts the whole
//!   round.
//! - Losses, ECN and timeouts: Reno (the trait's ssthresh = max(FlightSize/2, 2)).
//!
//! Constants alpha = 2, beta = 4, gamma = 1 (Linux, ns-3; ns-2's Agent/TCP/Vegas uses 1,
//! 3, 1).
//!
//! Rounds: the hooks carry no sequence numbers, so a round is closed as Linux closes it
//! (the first ACK above the snd_nxt recorded when the round began) by time instead: the
//! ACK's RTT sample tells when the segment it acknowledges was sent (now - rtt), and the
//! round ends at the first ACK of a segment sent at or after the round's start. The first
//! ACK of the flow starts the first round; the end of fast recovery, an ECN reduction and a
//! timeout start a new one (Linux's vegas_enable on returning to Open). An ACK without a
//! sample (a retransmission acknowledged, Karn) cannot close a round. RTT samples are
//! on_ack's (outside recovery); so baseRTT does not see samples taken during recovery.

use super::control::{CcState, CongestionControl, CongestionEvent};
use crate::core::time::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How diff is computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Diff {
    /// cwnd (RTT - baseRTT)/RTT (Brakmo and Peterson; ns-3).
    #[default]
    Paper,
    /// floor(cwnd (RTT - baseRTT)/baseRTT), Linux tcp_vegas.c.
    Linux,
}

/// `[tcp.cc] kind = "vegas"`.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Increase below alpha segments queued (2); finite, >= 0, at most `beta`.
    pub alpha: f64,
    /// Decrease above beta segments queued (4); finite, >= 0.
    pub beta: f64,
    /// Leave slow start above gamma segments queued (1); finite, >= 0.
    pub gamma: f64,
    /// How diff is computed: "paper" (cwnd (RTT - baseRTT) / RTT) or "linux" (floor(cwnd
    /// (RTT - baseRTT) / baseRTT)).
    pub diff: Diff,
}

impl Default for Params {
    fn default() -> Self {
        Params { alpha: 2.0, beta: 4.0, gamma: 1.0, diff: Diff::Paper }
    }
}

impl Params {
    pub fn validate(&self, path: &str) -> Result<(), String> {
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta), ("gamma", self.gamma)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("{path}.{name}: must be a finite number >= 0 (got {v})"));
            }
        }
        if self.alpha > self.beta {
            return Err(format!("{path}.alpha: must be <= beta ({} > {})", self.alpha, self.beta));
        }
        Ok(())
    }

    pub fn build(&self) -> Vegas {
        Vegas::new(self.clone())
    }
}

/// What the round's end did to the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Fewer than 3 samples: Reno.
    Reno,
    /// Slow start goes on.
    SlowStart,
    /// Slow start left (diff > gamma).
    LeaveSlowStart,
    Increase,
    Decrease,
    Hold,
}

pub struct Vegas {
    p: Params,
    /// ns; u64::MAX until the first sample.
    base_rtt: u64,
    /// The round's minimum RTT and sample count.
    min_rtt: u64,
    cnt_rtt: u32,
    /// Segments acknowledged in the round (for the Reno fallback).
    round_acked: f64,
    /// When the round began (None: the next ACK starts one).
    round_start: Option<SimTime>,
    last_diff: Option<f64>,
    last_decision: Option<Decision>,
}

impl Vegas {
    pub fn new(p: Params) -> Vegas {
        Vegas {
            p,
            base_rtt: u64::MAX,
            min_rtt: u64::MAX,
            cnt_rtt: 0,
            round_acked: 0.0,
            round_start: None,
            last_diff: None,
            last_decision: None,
        }
    }

    pub fn base_rtt(&self) -> Option<SimTime> {
        (self.base_rtt != u64::MAX).then_some(SimTime(self.base_rtt))
    }

    /// diff at the last round that had enough samples.
    pub fn last_diff(&self) -> Option<f64> {
        self.last_diff
    }

    pub fn last_decision(&self) -> Option<Decision> {
        self.last_decision
    }

    /// diff for window `cwnd`, round RTT `rtt` and baseRTT `base` (ns).
    pub fn diff(&self, cwnd: f64, rtt: u64, base: u64) -> f64 {
        match self.p.diff {
            Diff::Paper => cwnd * (rtt - base) as f64 / rtt as f64,
            Diff::Linux => ((cwnd + 1e-7).floor() * (rtt - base) as f64 / base as f64).floor(),
        }
    }

    fn begin_round(&mut self, now: SimTime) {
        self.round_start = Some(now);
        self.min_rtt = u64::MAX;
        self.cnt_rtt = 0;
        self.round_acked = 0.0;
    }

    /// The once-per-round adjustment (Linux tcp_vegas_cong_avoid at an ACK past beg_snd_nxt).
    fn end_round(&mut self, s: &mut CcState, acked: f64) -> Decision {
        let slow_start = s.cwnd < s.ssthresh;
        if self.cnt_rtt <= 2 {
            if slow_start {
                s.slow_start(acked);
            } else {
                s.cwnd += self.round_acked / s.cwnd;
            }
            return Decision::Reno;
        }
        let (rtt, base) = (self.min_rtt, self.base_rtt);
        let diff = self.diff(s.cwnd, rtt, base);
        self.last_diff = Some(diff);
        let d = if slow_start {
            if diff > self.p.gamma {
                let mut target = s.cwnd * base as f64 / rtt as f64;
                if self.p.diff == Diff::Linux {
                    target = (s.cwnd + 1e-7).floor() * base as f64 / rtt as f64;
                    target = target.floor();
                }
                s.cwnd = s.cwnd.min(target + 1.0);
                s.ssthresh = s.ssthresh.min(s.cwnd);
                Decision::LeaveSlowStart
            } else {
                s.slow_start(acked);
                Decision::SlowStart
            }
        } else if diff > self.p.beta {
            s.cwnd -= 1.0;
            s.ssthresh = s.ssthresh.min(s.cwnd);
            Decision::Decrease
        } else if diff < self.p.alpha {
            s.cwnd += 1.0;
            Decision::Increase
        } else {
            Decision::Hold
        };
        if s.cwnd < 2.0 {
            s.cwnd = 2.0;
        }
        d
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    #[inline]
    fn on_ack(&mut self, s: &mut CcState, acked: f64, rtt: Option<SimTime>, now: SimTime) {
        // tcp_vegas_pkts_acked: the sample counts before this ACK's decision
        if let Some(r) = rtt {
            let r = r.ns().max(1);
            self.base_rtt = self.base_rtt.min(r);
            self.min_rtt = self.min_rtt.min(r);
            self.cnt_rtt += 1;
        }
        let Some(start) = self.round_start else {
            self.begin_round(now);
            if s.cwnd < s.ssthresh {
                s.slow_start(acked);
            }
            return;
        };
        self.round_acked += acked;
        // the round ends at the first ACK of a segment sent since it began
        if rtt.is_some_and(|r| now.saturating_sub(r) >= start) {
            let d = self.end_round(s, acked);
            self.last_decision = Some(d);
            self.begin_round(now);
        } else if s.cwnd < s.ssthresh {
            s.slow_start(acked); // slow start within the round
        }
    }

    fn ssthresh(&mut self, _s: &CcState, flight: f64, _ev: CongestionEvent, now: SimTime) -> f64 {
        self.begin_round(now);
        (flight / 2.0).max(2.0) // Reno, RFC 5681 eq. 4
    }

    fn on_rto(&mut self, _s: &mut CcState, now: SimTime) {
        self.begin_round(now);
    }

    fn on_recovery_exit(&mut self, _s: &mut CcState, now: SimTime) {
        self.begin_round(now);
    }
}
