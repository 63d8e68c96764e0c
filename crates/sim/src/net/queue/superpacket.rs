//! The super-packet router queue: Appendix A1-A3 of Y. Li, "Benefits and Practicality of
//! Super-Packets" (UCB/EECS-2013-83), through `crates/admission`, on a FIFO whose pktCnt
//! is the number of waiting packets (ns-2's queue length, the paper's simulator).
//!
//! Threshold rules (section 2.4 and 6.1):
//! - `Static`: t fixed (the paper's experiments).
//! - `Ewma`: "an exponential moving average that takes into account the number of recent
//!   super-packet arrivals" (6.1). Our reading: A = EWMA (weight `w`) of the packets
//!   announced by super-packet first packets per EPOCH, updated at each epoch boundary;
//!   t = clamp(buffSize - A, t_min, buffSize). More super-packets => smaller t (2.4).
//! - `Outstanding`: t from df x sum of outstanding packets (6.1), with
//!   df = 1 - r_out / r_in measured at run time (r_in: EWMA of the arrival rate of
//!   super-packet packets, r_out: the link's service rate in full packets), read as the
//!   buffer space the accepted super-packets still need: t = clamp(buffSize -
//!   ceil(df x sum outstanding), t_min, buffSize). These readings are ours; the paper
//!   leaves the rules as ideas.

use crate::core::check::{unit_fraction, Validate};
use std::collections::HashMap;

use admission::{Admission, Config, Defences, DropReason as AdmDrop, PacketMeta, SpHeaderRepr, Verdict as AdmVerdict};

use super::disc::{d_one_u32, d_true, QueueKind};
use super::disc::{DropReason, QueueDisc, QueueState, Unit, Verdict};
use crate::core::packet::{flags, ipv4_of as addr, Packet};
use crate::core::rng::Rng;
use crate::core::time::BitsPerSec;
use crate::core::time::SimTime;
use crate::core::units::{Dur, UnitSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ThresholdRule {
    Static,
    Ewma { weight: f64, t_min: u32 },
    Outstanding { weight: f64, t_min: u32, service_pkts_per_s: f64 },
}

/// Per super-packet bookkeeping for the "whole vs partly" counters (simulation
/// instrumentation only; the router state itself is bounded, in `Admission`).
#[derive(Clone, Copy, Debug, Default)]
struct SpTrack {
    len: u16,
    admitted: u16,
    dropped_after_admit: u16,
    false_positive_or_full: bool,
}

pub struct SuperPacketDisc {
    adm: Admission,
    /// pktCnt, buffSize and t in packets, or in bytes (section 2.4: "t will simply be an
    /// actual size limit").
    unit: Unit,
    rule: ThresholdRule,
    base_t: u32,
    // Ewma rule
    epoch_announced: f64,
    ewma_announced: f64,
    epoch_mark: u64,
    // Outstanding rule
    last_sp_arrival: Option<SimTime>,
    r_in: f64,
    track: HashMap<(u32, u32, u32), SpTrack>,
    /// Admitted super-packets per admission round, for the incast report: a round is a
    /// run of super-packet first packets with gaps under EPOCH / 8 (10 ms at 80 ms), so
    /// the retries after a 200 ms timeout open a new round.
    pub rounds: Vec<u32>,
    last_first_arrival: Option<SimTime>,
    /// Measured Bloom false-positive rate (simulation ground truth): subsequent
    /// packets of triples this router never admitted, and those of them the Bloom
    /// filter said yes to (any verdict but NotAdmitted).
    fp_queries: u64,
    fp_hits: u64,
    /// Ingress port of the packet being decided (`set_ingress`), for the port quota.
    port: u32,
}

impl SuperPacketDisc {
    pub fn new(cfg: Config, rule: ThresholdRule, unit: Unit) -> Result<Self, String> {
        Self::with_defences(cfg, Defences::default(), rule, unit)
    }

    /// With the section 3.1 switches of `admission::Defences`.
    pub fn with_defences(cfg: Config, defences: Defences, rule: ThresholdRule, unit: Unit) -> Result<Self, String> {
        let base_t = cfg.threshold;
        let adm = Admission::with_defences(cfg, defences)?;
        Ok(SuperPacketDisc {
            adm,
            unit,
            rule,
            base_t,
            epoch_announced: 0.0,
            ewma_announced: 0.0,
            epoch_mark: 0,
            last_sp_arrival: None,
            r_in: 0.0,
            track: HashMap::new(),
            rounds: Vec::new(),
            last_first_arrival: None,
            fp_queries: 0,
            fp_hits: 0,
            port: u32::MAX,
        })
    }

    pub fn admission(&self) -> &Admission {
        &self.adm
    }

    fn update_threshold(&mut self, pkt: &Packet, now: SimTime) {
        let buff = self.adm.config().buff_size;
        match self.rule {
            ThresholdRule::Static => {}
            ThresholdRule::Ewma { weight, t_min } => {
                let epoch = self.adm.config().epoch_ns;
                while now.ns() >= self.epoch_mark + epoch {
                    self.ewma_announced = (1.0 - weight) * self.ewma_announced + weight * self.epoch_announced;
                    self.epoch_announced = 0.0;
                    self.epoch_mark += epoch;
                }
                if let Some(sp) = pkt.sp.filter(|s| s.first) {
                    self.epoch_announced += sp.len as f64;
                }
                let a = self.ewma_announced.max(self.epoch_announced * weight);
                let t = (buff as f64 - a).round().clamp(t_min as f64, buff as f64) as u32;
                self.adm.set_threshold(t);
            }
            ThresholdRule::Outstanding { weight, t_min, service_pkts_per_s } => {
                if pkt.sp.is_some() {
                    if let Some(prev) = self.last_sp_arrival {
                        let dt = (now - prev).as_secs_f64().max(1e-9);
                        self.r_in = (1.0 - weight) * self.r_in + weight / dt;
                    }
                    self.last_sp_arrival = Some(now);
                }
                let df = if self.r_in > 0.0 { (1.0 - service_pkts_per_s / self.r_in).clamp(0.0, 1.0) } else { 0.0 };
                let need = (df * self.adm.total_outstanding() as f64).ceil();
                let t = (buff as f64 - need).clamp(t_min as f64, buff as f64) as u32;
                self.adm.set_threshold(t);
            }
        }
    }

    /// (whole, partly) counts over the super-packets this router admitted.
    pub fn whole_partly(&self) -> (u64, u64, u64) {
        let mut whole = 0;
        let mut partly = 0;
        let mut partly_explained = 0;
        for t in self.track.values() {
            if t.len == 0 {
                continue;
            }
            if t.dropped_after_admit == 0 && t.admitted >= t.len {
                whole += 1;
            } else if t.dropped_after_admit > 0 {
                partly += 1;
                if t.false_positive_or_full {
                    partly_explained += 1;
                }
            }
        }
        (whole, partly, partly_explained)
    }
}

impl QueueDisc for SuperPacketDisc {
    fn limit(&self) -> Option<(u64, Unit)> {
        Some((self.adm.config().buff_size as u64, self.unit))
    }
    fn wants_ingress(&self) -> bool {
        self.adm.defences().max_pairs_per_port > 0
    }
    fn set_ingress(&mut self, port: u32) {
        self.port = port;
    }
    fn name(&self) -> &'static str {
        "superpacket"
    }

    fn enqueue(&mut self, pkt: &Packet, q: QueueState, now: SimTime) -> Verdict {
        self.update_threshold(pkt, now);
        let meta = PacketMeta {
            src: addr(pkt.src),
            dst: addr(pkt.dst),
            sp: pkt.sp.map(|h| SpHeaderRepr { sid: h.sid, len: h.len, first: h.first }),
            syn: pkt.has(flags::SYN),
        };
        let pkt_cnt = match self.unit {
            Unit::Packets => q.pkts,
            // the byte count of what is queued plus this packet must stay under the limit
            Unit::Bytes => (q.bytes + pkt.size as u64 - 1).min(u32::MAX as u64) as u32,
        };
        let v = self.adm.on_arrival_port(now.ns(), &meta, pkt_cnt, self.port);
        if pkt.sp.is_some_and(|h| h.first) {
            let gap = SimTime(self.adm.config().epoch_ns / 8);
            if self.last_first_arrival.is_none_or(|t| now - t > gap) {
                self.rounds.push(0);
            }
            self.last_first_arrival = Some(now);
        }
        if let Some(h) = pkt.sp {
            let key = (meta.src, meta.dst, h.sid);
            match v {
                AdmVerdict::Admit => {
                    if h.first {
                        self.track.insert(key, SpTrack { len: h.len, admitted: 1, ..Default::default() });
                        if let Some(r) = self.rounds.last_mut() {
                            *r += 1;
                        }
                    } else if let Some(t) = self.track.get_mut(&key) {
                        t.admitted += 1;
                    } else {
                        // a triple never admitted here, let in by a Bloom false positive
                        self.fp_queries += 1;
                        self.fp_hits += 1;
                    }
                }
                AdmVerdict::Drop(why) => {
                    if !h.first && !self.track.contains_key(&key) && why != AdmDrop::BadHeader {
                        self.fp_queries += 1;
                        self.fp_hits += (why != AdmDrop::NotAdmitted) as u64;
                    }
                    if !h.first {
                        if let Some(t) = self.track.get_mut(&key) {
                            t.dropped_after_admit += 1;
                            if matches!(why, AdmDrop::BloomFalsePositive | AdmDrop::BufferFull) {
                                t.false_positive_or_full = true;
                            }
                        }
                    }
                }
            }
        }
        match v {
            AdmVerdict::Admit => Verdict::Enqueue,
            AdmVerdict::Drop(why) => Verdict::Drop(match why {
                AdmDrop::Threshold => DropReason::SpThreshold,
                AdmDrop::BufferFull => DropReason::SpBufferFull,
                AdmDrop::NotAdmitted => DropReason::SpNotAdmitted,
                AdmDrop::BloomFalsePositive => DropReason::SpBloomFalsePositive,
                AdmDrop::OutstandingExhausted => DropReason::SpOutstandingExhausted,
                AdmDrop::TableFull => DropReason::SpTableFull,
                AdmDrop::BadHeader => DropReason::SpBadHeader,
                AdmDrop::SourceCap => DropReason::SpSourceCap,
                AdmDrop::PortQuota => DropReason::SpPortQuota,
            }),
        }
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        let s = self.adm.stats();
        let (whole, partly, explained) = self.whole_partly();
        vec![
            ("sp_admitted", s.sp_admitted as f64),
            ("sp_denied", s.sp_denied as f64),
            ("sp_whole", whole as f64),
            ("sp_partly", partly as f64),
            ("sp_partly_explained", explained as f64),
            ("sp_false_positives", s.false_positives_detected() as f64),
            ("sp_epoch_shifts", s.epoch_shifts as f64),
            ("sp_threshold_now", self.adm.threshold() as f64),
            ("sp_base_threshold", self.base_t as f64),
            ("sp_memory_bytes", self.adm.memory_bytes() as f64),
            ("sp_rounds", self.rounds.len() as f64),
            ("sp_round1_admitted", self.rounds.first().copied().unwrap_or(0) as f64),
            ("sp_round2_admitted", self.rounds.get(1).copied().unwrap_or(0) as f64),
            ("sp_round3_admitted", self.rounds.get(2).copied().unwrap_or(0) as f64),
            ("sp_round4_admitted", self.rounds.get(3).copied().unwrap_or(0) as f64),
            // section 3.1: table occupancy and refusals, work per decision, Bloom fill
            // and measured false-positive rate, reserved packets per source
            ("sp_table_pairs", s.pairs_h2 as f64),
            ("sp_table_pairs_peak", s.pairs_peak as f64),
            ("sp_table_max_pairs", self.adm.config().max_pairs as f64),
            ("sp_table_refusals", s.dropped(AdmDrop::TableFull) as f64),
            ("sp_table_grows", s.table_grows as f64),
            ("sp_source_cap_refusals", s.dropped(AdmDrop::SourceCap) as f64),
            ("sp_port_quota_refusals", s.dropped(AdmDrop::PortQuota) as f64),
            ("sp_reserved_peak", s.reserved_peak as f64),
            ("sp_probes", s.probes as f64),
            ("sp_probes_per_decision", s.probes_per_decision()),
            ("sp_probes_max", s.probes_max as f64),
            ("sp_bloom_fill_peak", self.adm.bloom_fill_peak()),
            ("sp_bloom_items_peak", s.bloom_items_peak as f64),
            ("sp_fp_queries", self.fp_queries as f64),
            ("sp_fp_hits", self.fp_hits as f64),
            (
                "sp_fp_rate_measured",
                if self.fp_queries > 0 { self.fp_hits as f64 / self.fp_queries as f64 } else { 0.0 },
            ),
            ("sp_epoch_phase_s", self.adm.defences().epoch_phase_ns as f64 * 1e-9),
        ]
    }
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

impl SuperpacketSpec {
    /// The admission library's configuration with `key` (`limit` and `threshold`, checked
    /// to fit u32 by `validate`, saturate).
    fn config(&self, key: [u64; 2]) -> admission::Config {
        let sp = self;
        admission::Config {
            buff_size: u32::try_from(sp.limit).unwrap_or(u32::MAX),
            threshold: u32::try_from(sp.threshold).unwrap_or(u32::MAX),
            epoch_ns: sp.epoch.0.ns(),
            bloom_bits: sp.bloom_bits,
            bloom_hashes: sp.bloom_hashes,
            max_pairs: sp.max_pairs,
            max_len: sp.max_len,
            key,
            admit_syn: sp.admit_syn,
        }
    }
}

impl Validate for SuperpacketSpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        let sp = self;
        u32::try_from(sp.limit).map_err(|_| format!("{path}.limit: too large"))?;
        u32::try_from(sp.threshold).map_err(|_| format!("{path}.threshold: too large"))?;
        unit_fraction(path, "port_share", sp.port_share)?;
        // named by the scenario's fields (the library's are buff_size, epoch_ns)
        sp.config([0, 0]).validate().map_err(|e| {
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
        if !(sp.rule_weight > 0.0 && sp.rule_weight <= 1.0) {
            return Err(format!("{path}.rule_weight: must be in (0, 1]"));
        }
        if sp.rule != RuleSpec::Static && sp.t_min as u64 > sp.limit {
            // the rule clamps t to [t_min, limit]: an empty range
            return Err(format!("{path}.t_min: must be at most limit ({}) (got {})", sp.limit, sp.t_min));
        }
        Ok(())
    }
}

impl QueueKind for SuperpacketSpec {
    fn build(&self, _: &'static str, rate: BitsPerSec, rng: Rng, path: &str) -> Result<Box<dyn QueueDisc>, String> {
        debug_assert_eq!(self.validate(path), Ok(()));
        let sp = self;
        let mut key_rng = rng;
        // a per-router secret (section 3.1), drawn from the run's seed
        let cfg = sp.config([key_rng.next_u64(), key_rng.next_u64()]);
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
        let rule = match sp.rule {
            RuleSpec::Static => ThresholdRule::Static,
            RuleSpec::Ewma => ThresholdRule::Ewma { weight: sp.rule_weight, t_min: sp.t_min },
            RuleSpec::Outstanding => ThresholdRule::Outstanding {
                weight: sp.rule_weight,
                t_min: sp.t_min,
                service_pkts_per_s: rate.0 as f64 / (8.0 * 1500.0),
            },
        };
        let unit: Unit = sp.unit.into();
        Ok(Box::new(SuperPacketDisc::with_defences(cfg, defences, rule, unit)?))
    }

    /// The two Bloom generations (admission/moving_bloom.rs: 2 x bloom_bits / 8 bytes) and
    /// the two generations of the hash table (moving_table.rs: 2 x next_power_of_two(2
    /// max_pairs) slots; 1.5 GB at max_pairs = 2^24, which went uncharged).
    fn prealloc_bytes(&self) -> f64 {
        // with a port quota, two generations of PORT_ROWS (port, pairs) counters
        let rows = if self.port_share < 1.0 { 2 * admission::moving_table::PORT_ROWS * 8 } else { 0 };
        2.0 * f64::from(self.bloom_bits) / 8.0
            + admission::moving_table::MovingTable::bytes_for(self.max_pairs) as f64
            + rows as f64
    }
}
