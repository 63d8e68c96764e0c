//! RED as a queue discipline: the algorithm of red.rs (Floyd and Jacobson 1993) applied
//! to a FIFO with a hard limit, in packet or byte mode, marking ECN-capable packets
//! instead of dropping them on early (probabilistic) decisions (RFC 3168 section 7).
//! Forced decisions (avg beyond max_th, or 2 max_th when gentle) always drop, as ns-2.

use super::disc::{d_limit, d_mean_pkt, d_p_max, d_true, d_w_q, max_th_warning, QueueKind};
use super::disc::{DropReason, QueueDisc, QueueState, Unit, Verdict};
use super::red::{red_action, red_start_idle, red_update_avg, RedAction, RedParams, RedVars};
use crate::core::check::{positive, Validate};
use crate::core::packet::{flags, Packet};
use crate::core::rng::Rng;
use crate::core::time::BitsPerSec;
use crate::core::time::SimTime;
use crate::core::units::UnitSpec;
use schemars::JsonSchema;
use serde::Deserialize;

pub struct RedDisc {
    pub params: RedParams,
    pub vars: RedVars,
    pub limit: u64,
    pub unit: Unit,
    pub ecn: bool,
    rng: Rng,
    early_drops: u64,
    early_marks: u64,
    forced_drops: u64,
}

impl RedDisc {
    pub fn new(params: RedParams, limit: u64, unit: Unit, ecn: bool, rng: Rng) -> RedDisc {
        RedDisc {
            params,
            vars: RedVars { avg: 0.0, count: -1, idle_since: Some(SimTime::ZERO) },
            limit,
            unit,
            ecn,
            rng,
            early_drops: 0,
            early_marks: 0,
            forced_drops: 0,
        }
    }
}

impl QueueDisc for RedDisc {
    fn limit(&self) -> Option<(u64, Unit)> {
        Some((self.limit, self.unit))
    }
    fn marks_ecn(&self) -> bool {
        self.ecn
    }
    fn name(&self) -> &'static str {
        "red"
    }

    fn enqueue(&mut self, pkt: &Packet, q: QueueState, now: SimTime) -> Verdict {
        let v = self.decide(pkt, q, now);
        if q.pkts == 0 && matches!(v, Verdict::Drop(_)) {
            // The arrival was dropped and the queue is still empty: the idle period goes
            // on from now (Floyd and Jacobson 1993, Fig. 2: avg decays by
            // (1 - w_q)^f(time - q_time) over the time the queue is empty). Without this,
            // red_update_avg has consumed the idle start, later arrivals see no decay, and
            // an avg left above 2 max_th when the queue drained force-drops every packet
            // (all flows in RTO back-off) until w_q alone brings it down. ns-2 avoids the
            // case by never dropping an arrival to an idle queue (`qlen > 1`); Linux
            // restarts idling at the next empty dequeue (sch_red.c red_dequeue).
            red_start_idle(&mut self.vars, now);
        }
        v
    }

    fn on_dequeue(&mut self, _pkt: &Packet, q: QueueState, now: SimTime) {
        if q.pkts == 0 {
            red_start_idle(&mut self.vars, now);
        }
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("red_avg", self.vars.avg),
            ("red_early_drops", self.early_drops as f64),
            ("red_early_marks", self.early_marks as f64),
            ("red_forced_drops", self.forced_drops as f64),
        ]
    }
}

impl RedDisc {
    /// Fig. 2 for one arrival: update avg, then mark, drop or enqueue.
    fn decide(&mut self, pkt: &Packet, q: QueueState, now: SimTime) -> Verdict {
        let qlen = match self.unit {
            Unit::Packets => q.pkts as f64,
            Unit::Bytes => q.bytes as f64,
        };
        red_update_avg(&self.params, &mut self.vars, qlen, now);
        match red_action(&self.params, &mut self.vars, pkt.size, &mut self.rng) {
            RedAction::DontMark => {}
            RedAction::ProbMark => {
                if self.ecn && pkt.has(flags::ECT) {
                    self.early_marks += 1;
                    return self.fits(pkt, q).map_or(Verdict::Mark, Verdict::Drop);
                }
                self.early_drops += 1;
                return Verdict::Drop(DropReason::RedEarly);
            }
            RedAction::HardMark => {
                self.forced_drops += 1;
                return Verdict::Drop(DropReason::RedForced);
            }
        }
        self.fits(pkt, q).map_or(Verdict::Enqueue, Verdict::Drop)
    }

    /// None when the packet fits under the hard limit, else the overflow reason.
    fn fits(&self, pkt: &Packet, q: QueueState) -> Option<DropReason> {
        let ok = match self.unit {
            Unit::Packets => (q.pkts as u64) < self.limit,
            Unit::Bytes => q.bytes + pkt.size as u64 <= self.limit,
        };
        (!ok).then_some(DropReason::Overflow)
    }
}

/// RED (Floyd and Jacobson 1993); thresholds in the queue's unit.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    /// Capacity (packets, or bytes with unit = "bytes"); at least 1.
    #[serde(default = "d_limit")]
    pub limit: u64,
    /// Unit of `limit` and the thresholds; "bytes" also turns on RED's byte mode (drop
    /// probability scaled by size / `mean_pkt_size`).
    #[serde(default)]
    pub unit: UnitSpec,
    /// Lower threshold on the average queue, in the queue's unit; finite, >= 0.
    pub min_th: f64,
    /// Upper threshold on the average queue, in the queue's unit; above `min_th`.
    pub max_th: f64,
    /// Marking probability reached at average = `max_th`, in (0, 1].
    #[serde(default = "d_p_max")]
    pub p_max: f64,
    /// EWMA weight of the average queue size, per arrival, in (0, 1].
    #[serde(default = "d_w_q")]
    pub w_q: f64,
    /// The probability rises from `p_max` to 1 over [max_th, 2 max_th) instead of jumping
    /// to 1 (Floyd's gentle variant).
    #[serde(default = "d_true")]
    pub gentle: bool,
    /// ns-2 `wait_`: no mark until count x p_b >= 1 (marks spaced at least 1/p_b arrivals).
    #[serde(default = "d_true")]
    pub wait: bool,
    /// Mark ECN-capable packets instead of dropping them early.
    #[serde(default)]
    pub ecn: bool,
    /// Mean packet size (bytes) for byte mode and the idle-time decay; at least 1.
    #[serde(default = "d_mean_pkt")]
    pub mean_pkt_size: u32,
}

impl RedSpec {
    /// The algorithm's parameters, a small packet taking `idle_pkt_time_ns` on the wire.
    fn params(&self, idle_pkt_time_ns: u64) -> RedParams {
        let &RedSpec { unit, min_th, max_th, p_max, w_q, gentle, wait, mean_pkt_size, .. } = self;
        RedParams {
            min_th,
            max_th,
            p_max,
            w_q,
            gentle,
            wait,
            byte_mode: unit == UnitSpec::Bytes,
            mean_pkt_size,
            idle_pkt_time_ns,
        }
    }
}

/// The limit, then the parameters (the idle time comes from the link's rate when built,
/// at least 1 ns).
impl Validate for RedSpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        positive(path, "limit", self.limit)?;
        self.params(1).validate(path)
    }
}

impl QueueKind for RedSpec {
    fn build(&self, _: &'static str, rate: BitsPerSec, rng: Rng, path: &str) -> Result<Box<dyn QueueDisc>, String> {
        debug_assert_eq!(self.validate(path), Ok(()));
        let params = self.params(rate.tx_time(self.mean_pkt_size).ns().max(1));
        Ok(Box::new(RedDisc::new(params, self.limit, self.unit.into(), self.ecn, rng)))
    }

    fn warnings(&self, path: &str) -> Vec<String> {
        max_th_warning(format!("{path}.max_th"), self.max_th, self.limit).into_iter().collect()
    }
}
