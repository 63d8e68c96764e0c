//! `gate` in `[tcp]`: the per-packet send rules (paced bursts, packet drop avoidance,
//! burstiness control) and their validation.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::tcp::gate::burstiness::{BcParams, Estimator, Measure};
use crate::tcp::gate::pda::PdaParams;
use crate::tcp::gate::GateConfig;

use super::common::Rate;

#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum GateSpec {
    /// Bursts of `burst_pkts` packets at line rate, spaced to an average `rate`
    /// (tcp/gate/).
    Bursts {
        /// Packets per burst, 1..=1000000.
        burst_pkts: u32,
        /// The average rate the bursts are spaced at (a burst at line rate every burst_pkts
        /// x size x 8 / rate).
        rate: Rate,
    },
    /// Lion's packet-drop avoidance (tcp/gate/pda.rs; G. Jin, "Packet Drop Avoidance for
    /// High-speed Network Transmission Protocol", LBNL 2004): bursts of a measured
    /// maximum burst size, gaps from the measured available bandwidth.
    Pda {
        /// First burst of the start phase, packets; 2..=max_burst.
        #[serde(default)]
        #[schemars(default = "gate_default::pda_init_burst")]
        init_burst: Option<u32>,
        /// Largest burst, packets (at most what the host's NIC queue holds + 1); at most
        /// 1000000.
        #[serde(default)]
        #[schemars(default = "gate_default::pda_max_burst")]
        max_burst: Option<u32>,
        /// Steady-phase bursts are max(2, mbs_fraction x MBS) packets; in (0, 1].
        #[serde(default)]
        #[schemars(default = "gate_default::pda_mbs_fraction")]
        mbs_fraction: Option<f64>,
        /// Weight of a new available-bandwidth sample in A; in (0, 1].
        #[serde(default)]
        #[schemars(default = "gate_default::pda_gain")]
        gain: Option<f64>,
        /// New traffic is detected when A falls below rate x (1 - detect); in (0, 1].
        #[serde(default)]
        #[schemars(default = "gate_default::pda_detect")]
        detect: Option<f64>,
        /// Round trips to hold after yielding, at most 1000.
        #[serde(default)]
        #[schemars(default = "gate_default::pda_hold_rtts")]
        hold_rtts: Option<u32>,
        /// Rate growth per SRTT while balancing, as a share of the capacity C; in (0, 1].
        #[serde(default)]
        #[schemars(default = "gate_default::pda_balance_step")]
        balance_step: Option<f64>,
        /// The rate never goes below this share of the capacity estimate; in (0, 1].
        #[serde(default)]
        #[schemars(default = "gate_default::pda_min_share")]
        min_share: Option<f64>,
    },
    /// Burstiness control (tcp/gate/burstiness.rs; Wei, Hegde, Low, "Burstiness Control for
    /// High Speed Long Distance TCP", PFLDnet 2005): a packet leaves only while
    /// the queue the flow builds stays within `threshold`.
    Burstiness {
        /// B_th, packets: a packet leaves only while the queue the flow builds B <=
        /// threshold; finite, 0..=1000000.
        #[serde(default)]
        #[schemars(default = "gate_default::bc_threshold")]
        threshold: Option<f64>,
        /// true: send only while B < threshold (then threshold must be above 0); false:
        /// while B <= threshold.
        #[serde(default)]
        #[schemars(default = "gate_default::bc_strict")]
        strict: Option<bool>,
        /// How B is measured: "queue" (the flow's own queue at a bottleneck of rate c, a
        /// leaky bucket) or "anchor" (the slides' B from the anchor packet).
        #[serde(default)]
        #[schemars(default = "gate_default::bc_measure")]
        measure: Option<String>,
        /// The available bandwidth c: "delivery" (largest per-SRTT delivery rate of the
        /// last `filter_rtts`), "delivery_ewma" (EWMA-smoothed, weight `gain`) or "window"
        /// (cwnd / SRTT).
        #[serde(default)]
        #[schemars(default = "gate_default::bc_estimator")]
        estimator: Option<String>,
        /// EWMA weight of a new delivery-rate sample ("delivery_ewma"); in (0, 1].
        #[serde(default)]
        #[schemars(default = "gate_default::bc_gain")]
        gain: Option<f64>,
        /// Samples the "delivery" estimator's max filter keeps (one per SRTT), 1..=10000.
        #[serde(default)]
        #[schemars(default = "gate_default::bc_filter_rtts")]
        filter_rtts: Option<u32>,
        /// The delivery estimators' factor on c out of slow start; finite, 1..=100.
        #[serde(default)]
        #[schemars(default = "gate_default::bc_headroom")]
        headroom: Option<f64>,
        /// The delivery estimators' factor on c in slow start; finite, 1..=100.
        #[serde(default)]
        #[schemars(default = "gate_default::bc_ss_headroom")]
        ss_headroom: Option<f64>,
    },
}

impl GateSpec {
    pub(crate) fn resolve(&self, path: &str) -> Result<GateConfig, String> {
        match self {
            GateSpec::Bursts { burst_pkts, rate } => {
                if *burst_pkts == 0 || *burst_pkts > 1_000_000 {
                    return Err(format!("{path}.burst_pkts: must be 1..1000000 (got {burst_pkts})"));
                }
                Ok(GateConfig::Bursts { burst_pkts: *burst_pkts, rate_bps: rate.0 .0 as f64 })
            }
            GateSpec::Pda { init_burst, max_burst, mbs_fraction, gain, detect, hold_rtts, balance_step, min_share } => {
                let d = PdaParams::default();
                let p = PdaParams {
                    init_burst: init_burst.unwrap_or(d.init_burst),
                    max_burst: max_burst.unwrap_or(d.max_burst),
                    mbs_fraction: mbs_fraction.unwrap_or(d.mbs_fraction),
                    gain: gain.unwrap_or(d.gain),
                    detect: detect.unwrap_or(d.detect),
                    hold_rtts: hold_rtts.unwrap_or(d.hold_rtts),
                    balance_step: balance_step.unwrap_or(d.balance_step),
                    min_share: min_share.unwrap_or(d.min_share),
                };
                if p.init_burst < 2 || p.init_burst > p.max_burst {
                    return Err(format!("{path}.init_burst: must be 2..max_burst (got {})", p.init_burst));
                }
                if p.max_burst > 1_000_000 {
                    return Err(format!("{path}.max_burst: must be at most 1000000 (got {})", p.max_burst));
                }
                for (name, v) in [
                    ("mbs_fraction", p.mbs_fraction),
                    ("gain", p.gain),
                    ("detect", p.detect),
                    ("balance_step", p.balance_step),
                    ("min_share", p.min_share),
                ] {
                    if !(v > 0.0 && v <= 1.0) {
                        return Err(format!("{path}.{name}: must be in (0, 1] (got {v})"));
                    }
                }
                if p.hold_rtts > 1000 {
                    return Err(format!("{path}.hold_rtts: must be at most 1000 (got {})", p.hold_rtts));
                }
                Ok(GateConfig::Pda(p))
            }
            GateSpec::Burstiness {
                threshold,
                strict,
                measure,
                estimator,
                gain,
                filter_rtts,
                headroom,
                ss_headroom,
            } => {
                let d = BcParams::default();
                let measure = match measure.as_deref() {
                    None => d.measure,
                    Some("queue") => Measure::Queue,
                    Some("anchor") => Measure::Anchor,
                    Some(m) => return Err(format!("{path}.measure: unknown {m:?}; allowed: \"queue\", \"anchor\"")),
                };
                let estimator = match estimator.as_deref() {
                    None => d.estimator,
                    Some("delivery") => Estimator::Delivery,
                    Some("delivery_ewma") => Estimator::DeliveryEwma,
                    Some("window") => Estimator::Window,
                    Some(e) => {
                        return Err(format!(
                            "{path}.estimator: unknown {e:?}; allowed: \"delivery\", \"delivery_ewma\", \"window\""
                        ));
                    }
                };
                let p = BcParams {
                    threshold: threshold.unwrap_or(d.threshold),
                    strict: strict.unwrap_or(d.strict),
                    measure,
                    estimator,
                    gain: gain.unwrap_or(d.gain),
                    filter_rtts: filter_rtts.unwrap_or(d.filter_rtts),
                    headroom: headroom.unwrap_or(d.headroom),
                    ss_headroom: ss_headroom.unwrap_or(d.ss_headroom),
                };
                if p.filter_rtts == 0 || p.filter_rtts > 10_000 {
                    return Err(format!("{path}.filter_rtts: must be 1..10000 (got {})", p.filter_rtts));
                }
                for (name, v) in [("headroom", p.headroom), ("ss_headroom", p.ss_headroom)] {
                    if !(v.is_finite() && (1.0..=100.0).contains(&v)) {
                        return Err(format!("{path}.{name}: must be a finite number in 1..100 (got {v})"));
                    }
                }
                if !(p.threshold.is_finite() && (0.0..=1e6).contains(&p.threshold)) {
                    return Err(format!(
                        "{path}.threshold: must be a finite number in 0..1000000 packets (got {})",
                        p.threshold
                    ));
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
                Ok(GateConfig::Burstiness(p))
            }
        }
    }
}

/// The schema's defaults of the gate tables: the gates' own `Default`s.
pub(crate) mod gate_default {
    use super::*;
    use crate::scenario::common::defaults;

    fn pda() -> PdaParams {
        PdaParams::default()
    }
    fn bc() -> BcParams {
        BcParams::default()
    }

    defaults! {
        pda_init_burst: u32 = pda().init_burst;
        pda_max_burst: u32 = pda().max_burst;
        pda_mbs_fraction: f64 = pda().mbs_fraction;
        pda_gain: f64 = pda().gain;
        pda_detect: f64 = pda().detect;
        pda_hold_rtts: u32 = pda().hold_rtts;
        pda_balance_step: f64 = pda().balance_step;
        pda_min_share: f64 = pda().min_share;
        bc_threshold: f64 = bc().threshold;
        bc_strict: bool = bc().strict;
        bc_measure: &'static str = match bc().measure {
            Measure::Queue => "queue",
            Measure::Anchor => "anchor",
        };
        bc_estimator: &'static str = match bc().estimator {
            Estimator::Delivery => "delivery",
            Estimator::DeliveryEwma => "delivery_ewma",
            Estimator::Window => "window",
        };
        bc_gain: f64 = bc().gain;
        bc_filter_rtts: u32 = bc().filter_rtts;
        bc_headroom: f64 = bc().headroom;
        bc_ss_headroom: f64 = bc().ss_headroom;
    }
}
