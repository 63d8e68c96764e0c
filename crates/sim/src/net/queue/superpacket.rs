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

use std::collections::HashMap;

use admission::{Admission, Config, Defences, DropReason as AdmDrop, PacketMeta, SpHeaderRepr, Verdict as AdmVerdict};

use super::disc::{DropReason, QueueDisc, QueueState, Unit, Verdict};
use crate::core::packet::{flags, ipv4_of as addr, Packet};
use crate::core::time::SimTime;

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
