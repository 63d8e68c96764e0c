//! A link's `queue` table: DropTail, RED, super-packet admission, RIO / RIO-PS
//! (riops.rs), and building the queue discipline.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::core::rng::Rng;
use crate::core::time::{BitsPerSec, SimTime};
use crate::net::queue::droptail::DropTail;
use crate::net::queue::red::RedParams;
use crate::net::queue::red_disc::RedDisc;
use crate::net::queue::superpacket::{SuperPacketDisc, ThresholdRule};
use crate::net::queue::{QueueDisc, Unit};

use super::common::{tagged, Dur, UnitSpec};
use super::riops::RioSpec;

pub(crate) fn d_limit() -> u64 {
    1000
}
pub(crate) fn d_p_max() -> f64 {
    0.1
}
pub(crate) fn d_w_q() -> f64 {
    0.002
}
pub(crate) fn d_true() -> bool {
    true
}
pub(crate) fn d_mean_pkt() -> u32 {
    1500
}
pub(crate) fn d_one() -> u32 {
    1
}

/// An egress queue discipline; `kind` selects it.
#[derive(Clone, Debug)]
pub enum QueueSpec {
    Droptail(DropTailSpec),
    Red(RedSpec),
    Superpacket(SuperpacketSpec),
    /// RED In/Out (scenario_riops.rs, queue/rio.rs).
    Rio(RioSpec),
    /// RIO with short = In, long = Out (the same discipline).
    Riops(RioSpec),
}

/// DropTail: a FIFO that refuses an arrival finding it full (the default queue of every
/// link, limit 1000 packets); with `ecn_threshold`, DCTCP's marking.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropTailSpec {
    /// Capacity (packets, or bytes with unit = "bytes"); at least 1.
    #[serde(default = "d_limit")]
    pub limit: u64,
    /// Unit of `limit` and `ecn_threshold`: packets or bytes.
    #[serde(default)]
    pub unit: UnitSpec,
    /// DCTCP marking threshold K (queue/droptail.rs; DCTCP paper section 3.1, RFC 8257
    /// section 3.1), in the queue's unit: an ECT arrival that finds more than K queued
    /// is CE-marked (never dropped for it). In 1..=limit; unset: no marking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<u64>,
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

/// The super-packet router (Y. Li, "Benefits and Practicality of Super-Packets", UC
/// Berkeley UCB/EECS-2013-83, Appendix A1-A3; section 6.1 for the rules).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SuperpacketSpec {
    /// buffSize (packets, or bytes with unit = "bytes"), 1..=2^32-1.
    pub limit: u64,
    /// Unit of `limit` and `threshold`: packets or bytes.
    #[serde(default)]
    pub unit: UnitSpec,
    /// t: normal packets and new super-packets are refused once the queue holds t; at most
    /// `limit`.
    pub threshold: u64,
    /// EPOCH of the moving hash table and Bloom filter; above 0.
    #[serde(default = "d_epoch")]
    pub epoch: Dur,
    /// Bits of the moving Bloom filter: a power of two, at least 64.
    #[serde(default = "d_bloom_bits")]
    pub bloom_bits: u32,
    /// Hash functions of the Bloom filter, 1..=32.
    #[serde(default = "d_bloom_hashes")]
    pub bloom_hashes: u32,
    /// (src, dst) entries per hash-table generation (memory bound, section 3.1), 1..=2^24.
    #[serde(default = "d_max_pairs")]
    pub max_pairs: u32,
    /// Largest super-packet length accepted (packets), at least 1.
    #[serde(default = "d_max_len")]
    pub max_len: u16,
    /// Always admit SYNs while the buffer has room.
    #[serde(default)]
    pub admit_syn: bool,
    /// Threshold rule: "static", "ewma" or "outstanding" (section 6.1).
    #[serde(default)]
    pub rule: RuleSpec,
    /// EWMA weight of the dynamic rules, in (0, 1].
    #[serde(default = "d_rule_weight")]
    pub rule_weight: f64,
    /// Lowest t a dynamic rule may set; at most `limit` under "ewma" and "outstanding".
    #[serde(default = "d_one_u32")]
    pub t_min: u32,
    /// The defences of section 3.1 of Li (UCB/EECS-2013-83), each on or off. `keyed`: a
    /// secret SipHash key per router drawn from the seed (true) or the public zero key.
    #[serde(default = "d_true")]
    pub keyed: bool,
    /// A table that refuses new pairs past `max_pairs` (true) or grows (false).
    #[serde(default = "d_true")]
    pub bounded_table: bool,
    /// Per-source cap on reserved packets per (src, dst) entry; 0: none.
    #[serde(default)]
    pub max_reserved_per_pair: u32,
    /// An EPOCH phase drawn at random per router (true) or epochs at k x EPOCH.
    #[serde(default)]
    pub random_epoch_phase: bool,
    /// Per-ingress-port quota: the share of `max_pairs` that first packets arriving by
    /// one port may install in a table generation, in (0, 1]; a new pair past it is
    /// refused (`drops_sp_port_quota`). 1: no quota. Paired with source validation
    /// (`source_validation`), a flood from one port cannot take the table the other
    /// ports' senders need.
    #[serde(default = "d_port_share")]
    pub port_share: f64,
}

pub(crate) fn d_port_share() -> f64 {
    1.0
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RuleSpec {
    #[default]
    Static,
    Ewma,
    Outstanding,
}

pub(crate) fn d_epoch() -> Dur {
    Dur(SimTime::from_ms(80))
}
pub(crate) fn d_bloom_bits() -> u32 {
    1 << 16
}
pub(crate) fn d_bloom_hashes() -> u32 {
    4
}
pub(crate) fn d_max_pairs() -> u32 {
    4096
}
pub(crate) fn d_max_len() -> u16 {
    64
}
pub(crate) fn d_rule_weight() -> f64 {
    0.25
}
pub(crate) fn d_one_u32() -> u32 {
    1
}

tagged!(QueueSpec, "queue kind", {
    "droptail" => Droptail(DropTailSpec),
    "red" => Red(RedSpec),
    "superpacket" => Superpacket(SuperpacketSpec),
    "rio" => Rio(RioSpec),
    "riops" => Riops(RioSpec),
});

/// `QueueSpec::default()` as the schema's default of a link's `queue`.
pub(crate) fn d_queue_json() -> serde_json::Value {
    match QueueSpec::default() {
        QueueSpec::Droptail(d) => {
            let mut v = serde_json::to_value(d).expect("json");
            v["kind"] = "droptail".into();
            v
        }
        _ => unreachable!("the default queue is a DropTail"),
    }
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec::Droptail(DropTailSpec { limit: d_limit(), unit: UnitSpec::Packets, ecn_threshold: None })
    }
}

impl QueueSpec {
    /// Settings this queue accepts that likely do not mean what was meant, one line each
    /// naming the field: a RED (or RIO class) `max_th` at or above the buffer's `limit`,
    /// which the average queue cannot reach before the tail drops.
    pub(crate) fn warnings(&self, path: &str) -> Vec<String> {
        let above = |field: String, max_th: f64, limit: u64| {
            (max_th >= limit as f64).then(|| {
                format!(
                    "{field}: {max_th} is at or above the queue's limit {limit}: the average queue cannot reach \
                     it before the buffer drops at its tail (a max_th below limit, e.g. limit / 2)"
                )
            })
        };
        match self {
            QueueSpec::Red(r) => above(format!("{path}.max_th"), r.max_th, r.limit).into_iter().collect(),
            QueueSpec::Rio(r) | QueueSpec::Riops(r) => [("in", &r.in_class), ("out", &r.out_class)]
                .into_iter()
                .filter_map(|(c, k)| above(format!("{path}.{c}.max_th"), k.max_th, r.limit))
                .collect(),
            QueueSpec::Droptail(_) | QueueSpec::Superpacket(_) => Vec::new(),
        }
    }

    pub(crate) fn build(&self, rate: BitsPerSec, rng: Rng, path: &str) -> Result<Box<dyn QueueDisc>, String> {
        match self {
            &QueueSpec::Droptail(DropTailSpec { limit, unit, ecn_threshold }) => {
                if limit == 0 {
                    return Err(format!("{path}.limit: must be > 0"));
                }
                if let Some(k) = ecn_threshold {
                    if k == 0 || k > limit {
                        return Err(format!("{path}.ecn_threshold: must be in 1..=limit ({limit}) (got {k})"));
                    }
                }
                Ok(Box::new(DropTail { ecn_threshold, ..DropTail::new(limit, unit.into()) }))
            }
            &QueueSpec::Red(RedSpec { limit, unit, min_th, max_th, p_max, w_q, gentle, wait, ecn, mean_pkt_size }) => {
                if limit == 0 {
                    return Err(format!("{path}.limit: must be > 0"));
                }
                let params = RedParams {
                    min_th,
                    max_th,
                    p_max,
                    w_q,
                    gentle,
                    wait,
                    byte_mode: unit == UnitSpec::Bytes,
                    mean_pkt_size,
                    idle_pkt_time_ns: rate.tx_time(mean_pkt_size).ns().max(1),
                };
                params.validate().map_err(|e| format!("{path}: {e}"))?;
                Ok(Box::new(RedDisc::new(params, limit, unit.into(), ecn, rng)))
            }
            QueueSpec::Rio(r) => r.build("rio", rate, rng, path),
            QueueSpec::Riops(r) => r.build("riops", rate, rng, path),
            QueueSpec::Superpacket(sp) => {
                let mut key_rng = rng;
                let cfg = admission::Config {
                    buff_size: u32::try_from(sp.limit).map_err(|_| format!("{path}.limit: too large"))?,
                    threshold: u32::try_from(sp.threshold).map_err(|_| format!("{path}.threshold: too large"))?,
                    epoch_ns: sp.epoch.0.ns(),
                    bloom_bits: sp.bloom_bits,
                    bloom_hashes: sp.bloom_hashes,
                    max_pairs: sp.max_pairs,
                    max_len: sp.max_len,
                    // a per-router secret (section 3.1), drawn from the run's seed
                    key: [key_rng.next_u64(), key_rng.next_u64()],
                    admit_syn: sp.admit_syn,
                };
                // drawn after the key, so the key of a run does not move
                let phase = key_rng.next_u64() % sp.epoch.0.ns().max(1);
                let cfg = admission::Config { key: if sp.keyed { cfg.key } else { [0, 0] }, ..cfg };
                let defences = admission::Defences {
                    bounded_table: sp.bounded_table,
                    max_reserved_per_pair: sp.max_reserved_per_pair,
                    epoch_phase_ns: if sp.random_epoch_phase { phase } else { 0 },
                    // 1.0: no quota (0); else floor(share x max_pairs), at least one pair
                    max_pairs_per_port: if sp.port_share >= 1.0 {
                        0
                    } else {
                        ((sp.port_share * sp.max_pairs as f64).floor() as u32).max(1)
                    },
                };
                if !(sp.port_share > 0.0 && sp.port_share <= 1.0) {
                    return Err(format!("{path}.port_share: must be in (0, 1] (got {})", sp.port_share));
                }
                // named by the scenario's fields (the library's are buff_size, epoch_ns)
                cfg.validate().map_err(|e| {
                    use admission::ConfigError as E;
                    match e {
                        E::BuffSizeZero => format!("{path}.limit: must be at least 1 (got 0)"),
                        E::ThresholdAboveBuffSize { threshold, buff_size } => {
                            format!("{path}.threshold: must be at most limit ({buff_size}) (got {threshold})")
                        }
                        E::EpochZero => format!("{path}.epoch: must be above 0"),
                        e => format!("{path}.{}: {e}", e.field()),
                    }
                })?;
                let rule = match sp.rule {
                    RuleSpec::Static => ThresholdRule::Static,
                    RuleSpec::Ewma => ThresholdRule::Ewma { weight: sp.rule_weight, t_min: sp.t_min },
                    RuleSpec::Outstanding => ThresholdRule::Outstanding {
                        weight: sp.rule_weight,
                        t_min: sp.t_min,
                        service_pkts_per_s: rate.0 as f64 / (8.0 * 1500.0),
                    },
                };
                if !(sp.rule_weight > 0.0 && sp.rule_weight <= 1.0) {
                    return Err(format!("{path}.rule_weight: must be in (0, 1]"));
                }
                if sp.rule != RuleSpec::Static && sp.t_min as u64 > sp.limit {
                    // the rule clamps t to [t_min, limit]: an empty range
                    return Err(format!("{path}.t_min: must be at most limit ({}) (got {})", sp.limit, sp.t_min));
                }
                let unit: Unit = sp.unit.into();
                Ok(Box::new(SuperPacketDisc::with_defences(cfg, defences, rule, unit)?))
            }
        }
    }
}
