//! Scenario files: one schema, defined here once with serde (`deny_unknown_fields`).
//! TOML from files, JSON from Python dicts; both go through the same types, and every
//! error names the field path (`topology.bottleneck.queue.limit: ...`).
//!
//! Units: rates are strings with a unit ("10Gbps", "1.25Mbps"); times are strings with a
//! unit ("25us", "200ms", "5s"); queue limits are packets unless `unit = "bytes"`.
//! Every field, its type, unit, default and limits: docs/schema.md, generated from these
//! types and their doc comments (schema.rs, `make schema`); examples/ has whole scenarios.

use schemars::JsonSchema;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};

use crate::core::rng::Rng;
use crate::core::time::{parse_duration, parse_rate, BitsPerSec, SimTime};
use crate::engine::sim::Sim;
use crate::net::link::Link;
use crate::net::queue::droptail::DropTail;
use crate::net::queue::red::RedParams;
use crate::net::queue::red_disc::RedDisc;
use crate::net::queue::superpacket::{SuperPacketDisc, ThresholdRule};
use crate::net::queue::{QueueDisc, Unit};
use crate::net::reorder::{Negative, ReorderParams, ReorderStage};
use crate::net::topology::Network;
use crate::tcp::cc;
use crate::tcp::gate::burstiness::{BcParams, Estimator, Measure};
use crate::tcp::gate::pda::PdaParams;
use crate::tcp::gate::GateConfig;
use crate::tcp::recovery::dcr::{DcrBase, DcrConfig};
use crate::tcp::recovery::ncr::{NcrConfig, NcrVariant};
use crate::tcp::recovery::{RecoveryKind, Reordering};
use crate::tcp::sched::Pacing;
use crate::tcp::{RtoBackoffReset, SpDenial, SpMode, TcpParams, UNLIMITED};
use crate::traffic::attack::{AttackMode, Attacker};
use crate::traffic::mbs_probe::{MbsProbe, ProbeParams};
use crate::traffic::raw::{Periods, RawKind, RawSource, Stream};
use crate::traffic::{FlowSpec, GenKind, Generator};

pub mod fabric;
/// The RIO-PS pieces of the schema (issue 4): rio/riops queues, edge classifiers,
/// back_to_back and web traffic.
pub mod riops;
use riops::{BackToBackSpec, ClassifierSpec, RioSpec, WebSpec};

/// The datacenter workloads (traffic/workload.rs, traffic/cdf.rs): workload and incast traffic.
pub mod workload;

pub mod costs;
pub mod registry;
pub mod schema;
use crate::core::memory::MemoryEstimate;
use workload::{IncastSpec, WorkloadSpec};

/// Deserialises `v` and reports errors as "@path@ message" so that nested tagged enums
/// (which serde buffers, losing the path) still name the full field path.
fn de_path<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Result<T, String> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let outer = e.path().to_string();
        let outer = if outer == "." { String::new() } else { outer };
        let inner = e.inner().to_string();
        let (ipath, msg) = split_path(&inner);
        let full = match (outer.is_empty(), ipath.is_empty()) {
            (true, _) => ipath.to_string(),
            (false, true) => outer,
            (false, false) => format!("{outer}.{ipath}"),
        };
        format!("@{full}@ {msg}")
    })
}

/// Splits "@path@ message" into (path, message); plain messages have an empty path.
fn split_path(s: &str) -> (&str, &str) {
    if let Some(rest) = s.strip_prefix('@') {
        if let Some(i) = rest.find("@ ") {
            return (&rest[..i], &rest[i + 2..]);
        }
    }
    ("", s)
}

/// Deserialize for an enum selected by a `kind` field, one struct per variant, keeping
/// field paths in errors and listing the allowed kinds.
/// The JSON Schema it implements (docs/schema.md) is a `oneOf` of the variants' tables,
/// each with its `kind` added, made from the same list (crate::core::schema::tagged_schema).
macro_rules! tagged {
    ($enum:ident, $what:literal, { $($name:literal => $variant:ident($ty:ty)),+ $(,)? }) => {
        impl JsonSchema for $enum {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($enum).into()
            }
            fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let variants = vec![$(crate::core::schema::kind_variant::<$ty>(g, $name)),+];
                crate::core::schema::tagged_schema($what, variants)
            }
        }

        impl<'de> Deserialize<'de> for $enum {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let mut v = serde_json::Value::deserialize(d)?;
                let allowed = [$($name),+].join(", ");
                let obj = v.as_object_mut().ok_or_else(|| de::Error::custom(format!("expected a table with a `kind` field ({allowed})")))?;
                let kind = match obj.remove("kind") {
                    Some(serde_json::Value::String(k)) => k,
                    Some(_) => return Err(de::Error::custom(format!("@kind@ must be a string, one of: {allowed}"))),
                    None => return Err(de::Error::custom(format!("missing field `kind` (the {}: one of {allowed})", $what))),
                };
                match kind.as_str() {
                    $($name => de_path(v).map($enum::$variant).map_err(de::Error::custom),)+
                    other => Err(de::Error::custom(format!("@kind@ unknown {} {other:?}; allowed: {allowed}", $what))),
                }
            }
        }
    };
}

/// A duration given as a string with a unit.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Dur(pub SimTime);

/// What the parser accepts (`time::parse_duration`), for the schema.
impl JsonSchema for Dur {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Duration".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        crate::core::schema::duration_schema()
    }
}

/// The shortest exact form ("80ms", "1.5s"): the schema's defaults.
impl Serialize for Dur {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::core::schema::format_duration(self.0))
    }
}

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_duration(&s).map(Dur).map_err(de::Error::custom)
    }
}

/// A rate given as a string with a unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate(pub BitsPerSec);

/// What the parser accepts (`time::parse_rate`), for the schema.
impl JsonSchema for Rate {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Rate".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        crate::core::schema::rate_schema()
    }
}

/// The shortest exact form ("10Gbps"): the schema's defaults.
impl Serialize for Rate {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::core::schema::format_rate(self.0))
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_rate(&s).map(Rate).map_err(de::Error::custom)
    }
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Free text naming the scenario.
    #[serde(default)]
    pub name: String,
    /// Free text describing the scenario.
    #[serde(default)]
    pub description: String,
    /// Simulated time to run, e.g. "5s"; above 0.
    pub duration: Dur,
    /// Run seed (any u64); the API's or CLI's `seed` overrides it. Default 1.
    #[serde(default)]
    pub seed: Option<u64>,
    /// The network (`[topology]`): `kind` and that kind's fields.
    pub topology: TopologySpec,
    /// TCP defaults for every flow; a traffic entry's `tcp` table overrides fields.
    #[serde(default)]
    pub tcp: TcpSpec,
    /// The sources (`[[traffic]]`), each a table with `kind`.
    #[serde(default)]
    pub traffic: Vec<TrafficSpec>,
    /// What the run records besides the flow table: queue and flow series, pcap traces, the
    /// monitor.
    #[serde(default)]
    pub output: OutputSpec,
    /// Reordering stages (net/reorder.rs; the reordering model of Bhandarkar and Reddy,
    /// "Robustness to Packet Reordering in High-speed Networks", 2007): on named links or on
    /// every link leaving a router.
    #[serde(default)]
    pub reorder: Vec<ReorderSpec>,
}

/// `[[reorder]]`: each packet chosen with probability `q` waits an extra delay from
/// Normal(`delay_mean`, `delay_sd`) after the wire, so later packets overtake it.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReorderSpec {
    /// Links ("R1->R2") whose far end delays packets.
    #[serde(default)]
    pub links: Vec<String>,
    /// A router whose forwarded packets are delayed: every link leaving it (dcr-multihop's
    /// R3 "reorders 1 % of the packets it forwards").
    #[serde(default)]
    pub router: Option<String>,
    /// Probability that a packet (of the kind `packets` selects) is held, in [0, 1].
    pub q: f64,
    /// Mean of the extra delay (Normal).
    #[serde(default = "d_reorder_mean")]
    pub delay_mean: Dur,
    /// Standard deviation of the extra delay.
    #[serde(default = "d_reorder_sd")]
    pub delay_sd: Dur,
    /// A negative draw is "redraw"n (default) or "clamp"ed to 0.
    #[serde(default)]
    pub negative: NegativeSpec,
    /// "data" (default: ACKs are not reordered) or "all".
    #[serde(default)]
    pub packets: ReorderPacketsSpec,
}

fn d_reorder_mean() -> Dur {
    Dur(SimTime::from_ms(25))
}
fn d_reorder_sd() -> Dur {
    Dur(SimTime::from_ms(8))
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NegativeSpec {
    #[default]
    Redraw,
    Clamp,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReorderPacketsSpec {
    #[default]
    Data,
    All,
}

/// The network. `kind` selects the shape; node names follow from it.
#[derive(Clone, Debug)]
pub enum TopologySpec {
    Dumbbell(DumbbellSpec),
    Star(StarSpec),
    Chain(ChainSpec),
    Graph(GraphSpec),
    /// A two-tier Clos fabric (scenario_fabric.rs).
    LeafSpine(Box<fabric::LeafSpineSpec>),
    /// A k-ary three-tier fat tree (scenario_fabric.rs).
    FatTree(Box<fabric::FatTreeSpec>),
}

/// Senders s0..s{pairs-1} -> R1 -> R2 -> receivers d0..d{pairs-1}.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    /// Sender-receiver pairs, 1..=100000 (MAX_HOSTS).
    pub pairs: u32,
    /// Every host link (s{i} <-> R1 and R2 <-> d{i}); its `classifier` goes on the sender
    /// links s{i} -> R1 only.
    pub access: LinkSpec,
    /// The R1 <-> R2 link.
    pub bottleneck: LinkSpec,
    /// One edge classifier (an edge router's table) on every sender link s{i} -> R1.
    #[serde(default)]
    pub edge_classifier: Option<ClassifierSpec>,
}

/// Senders s0..s{senders-1} -> R -> d (incast).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StarSpec {
    /// Senders, 1..=100000 (MAX_HOSTS).
    pub senders: u32,
    /// Each s{i} <-> R link.
    pub sender_link: LinkSpec,
    /// The R <-> d link (its R -> d queue is the incast bottleneck).
    pub receiver_link: LinkSpec,
}

/// Parking lot: routers R1..R{routers} in a line; with `host_link`, a host H{i} on each
/// router R{i}.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChainSpec {
    /// Routers in the line, 2..=100000 (MAX_HOSTS).
    pub routers: u32,
    /// Each R{i} <-> R{i+1} link.
    pub link: LinkSpec,
    /// With it, a host H{i} on each router R{i} over this link; absent: no hosts.
    #[serde(default)]
    pub host_link: Option<LinkSpec>,
}

/// Any graph: named nodes and full-duplex links between them.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    /// Node names, each unique; a name may not hold "->" (links are named "a->b").
    pub nodes: Vec<String>,
    /// Full-duplex links between named nodes.
    pub links: Vec<GraphLink>,
}

tagged!(TopologySpec, "topology kind", {
    "dumbbell" => Dumbbell(DumbbellSpec),
    "star" => Star(StarSpec),
    "chain" => Chain(ChainSpec),
    "graph" => Graph(GraphSpec),
    "leaf_spine" => LeafSpine(fabric::LeafSpineSpec),
    "fat_tree" => FatTree(fabric::FatTreeSpec),
});

/// A full-duplex link: the same rate and delay both ways, a queue at each end.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Line rate of each direction.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Dur,
    /// Egress queue of each direction (default DropTail of 1000 packets).
    #[serde(default)]
    #[schemars(default = "d_queue_json")]
    pub queue: QueueSpec,
    /// Queue of the reverse direction (b -> a) when it differs.
    #[serde(default)]
    pub reverse_queue: Option<QueueSpec>,
    /// Independent random loss probability per packet, both directions, in [0, 1)
    /// (validation).
    #[serde(default)]
    pub loss: f64,
    /// Edge classifier on the a -> b direction, its own table (on a dumbbell's `access`:
    /// the sender links s{i} -> R1 only).
    #[serde(default)]
    pub classifier: Option<ClassifierSpec>,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphLink {
    /// One end: a name of `nodes`.
    pub a: String,
    /// The other end: a name of `nodes`.
    pub b: String,
    /// Line rate of each direction.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Dur,
    /// Egress queue of each direction (default DropTail of 1000 packets).
    #[serde(default)]
    #[schemars(default = "d_queue_json")]
    pub queue: QueueSpec,
    /// Queue of the reverse direction (b -> a) when it differs.
    #[serde(default)]
    pub reverse_queue: Option<QueueSpec>,
    /// Independent random loss probability per packet, both directions, in [0, 1)
    /// (validation).
    #[serde(default)]
    pub loss: f64,
    /// Edge classifier on the a -> b direction, its own table.
    #[serde(default)]
    pub classifier: Option<ClassifierSpec>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UnitSpec {
    #[default]
    Packets,
    Bytes,
}

impl From<UnitSpec> for Unit {
    fn from(u: UnitSpec) -> Unit {
        match u {
            UnitSpec::Packets => Unit::Packets,
            UnitSpec::Bytes => Unit::Bytes,
        }
    }
}

fn d_limit() -> u64 {
    1000
}
fn d_p_max() -> f64 {
    0.1
}
fn d_w_q() -> f64 {
    0.002
}
fn d_true() -> bool {
    true
}
fn d_mean_pkt() -> u32 {
    1500
}
fn d_one() -> u32 {
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
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RuleSpec {
    #[default]
    Static,
    Ewma,
    Outstanding,
}

fn d_epoch() -> Dur {
    Dur(SimTime::from_ms(80))
}
fn d_bloom_bits() -> u32 {
    1 << 16
}
fn d_bloom_hashes() -> u32 {
    4
}
fn d_max_pairs() -> u32 {
    4096
}
fn d_max_len() -> u16 {
    64
}
fn d_rule_weight() -> f64 {
    0.25
}
fn d_one_u32() -> u32 {
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
fn d_queue_json() -> serde_json::Value {
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
                };
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

/// TCP settings; every field optional, filled from the scenario's `[tcp]` table and
/// then from the defaults below (`TcpParams::default()`, the project's
/// common defaults).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Congestion control: a name of cc::NAMES ("newreno") or a `[tcp.cc]` table with
    /// `kind` and the algorithm's parameters (tcp/cc/mod.rs, `CcConfig`). "dctcp"
    /// (`cc = { kind = "dctcp", g = 0.0625 }`, g in (0, 1], RFC 8257) turns ECN on and
    /// makes the receiver echo CE exactly (RFC 8257 section 3.2, `TcpParams::ece_echo`);
    /// pair it with a marking queue (droptail `ecn_threshold`).
    #[schemars(default = "tcp_default::cc")]
    pub cc: Option<cc::CcSpec>,
    /// Payload bytes per full segment, 1..=65495.
    #[schemars(default = "tcp_default::mss")]
    pub mss: Option<u32>,
    /// IP + TCP header bytes per packet.
    #[schemars(default = "tcp_default::header_bytes")]
    pub header_bytes: Option<u32>,
    /// Initial window, segments; at least 1, at most 1,000,000 (`MAX_INIT_CWND`: the
    /// first flight is built at once).
    #[schemars(default = "tcp_default::init_cwnd")]
    pub init_cwnd: Option<f64>,
    /// Maximum window, segments; at least 1. Default unlimited.
    #[schemars(default = "tcp_default::max_cwnd")]
    pub max_cwnd: Option<f64>,
    /// Lower bound of the retransmission timeout (RFC 6298 (2.4)); at most `max_rto`.
    #[schemars(default = "tcp_default::min_rto")]
    pub min_rto: Option<Dur>,
    /// Upper bound of the retransmission timeout, backoff included; at least `min_rto`.
    #[schemars(default = "tcp_default::max_rto")]
    pub max_rto: Option<Dur>,
    /// Retransmission timeout before the first RTT sample (RFC 6298 (2.1)); above 0.
    #[schemars(default = "tcp_default::init_rto")]
    pub init_rto: Option<Dur>,
    /// RFC 6298 clock granularity G.
    #[schemars(default = "tcp_default::granularity")]
    pub granularity: Option<Dur>,
    /// Duplicate ACKs that trigger a fast retransmit (RFC 5681); at least 1.
    #[schemars(default = "tcp_default::dupack_threshold")]
    pub dupack_threshold: Option<u32>,
    /// The receiver ACKs every second full segment or after `delack_timeout` (RFC 5681
    /// section 4.2); false: every segment.
    #[schemars(default = "tcp_default::delayed_ack")]
    pub delayed_ack: Option<bool>,
    /// The delayed-ACK timer (with `delayed_ack`).
    #[schemars(default = "tcp_default::delack_timeout")]
    pub delack_timeout: Option<Dur>,
    /// Negotiate ECN (RFC 3168). Default false; true with cc kind "dctcp", which
    /// rejects false.
    #[schemars(default = "tcp_default::ecn")]
    pub ecn: Option<bool>,
    /// Send as super-packets (Li, UCB/EECS-2013-83, section 2.3): "off", "flow" (the whole flow is
    /// one super-packet) or "runs" (every `sp_len` consecutive packets).
    #[schemars(default = "tcp_default::superpacket")]
    pub superpacket: Option<SpModeSpec>,
    /// Packets per super-packet in "runs" mode; at least 1.
    #[schemars(default = "tcp_default::sp_len")]
    pub sp_len: Option<u16>,
    /// On a denied super-packet: "fallback" (the paper's implementation: time out, then
    /// plain NewReno) or "retry" (the ideal: resend as a new super-packet).
    #[schemars(default = "tcp_default::sp_on_denial")]
    pub sp_on_denial: Option<SpDenialSpec>,
    /// Super-packet sends in all under "retry" before falling back; at least 1.
    #[schemars(default = "tcp_default::sp_attempts")]
    pub sp_attempts: Option<u8>,
    /// RFC 3042 limited transmit (false: the papers' ns-2 NewReno has none); NewReno
    /// recovery only.
    #[schemars(default = "tcp_default::limited_transmit")]
    pub limited_transmit: Option<bool>,
    /// Quantise RTT samples and RTO to ticks of this length, as ns-2's tcpTick_ ("100ms"
    /// in the RIO-PS papers); "0s" (default) for none.
    #[schemars(default = "tcp_default::rtt_tick")]
    pub rtt_tick: Option<Dur>,
    /// When a backed-off RTO ends: "rtt_sample" (RFC 6298 with Karn: at the next valid RTT
    /// sample; default) or "new_ack" (ns-3: at the next ACK of new data).
    #[schemars(default = "tcp_default::rto_backoff_reset")]
    pub rto_backoff_reset: Option<RtoBackoffResetSpec>,
    /// Loss recovery: "newreno" (RFC 6582, default) or "sack" (RFC 2018 blocks, RFC 6675).
    #[schemars(default = "tcp_default::recovery")]
    pub recovery: Option<RecoverySpec>,
    /// The response to reordering around loss recovery: "none" (default), "dcr"
    /// (TCP-DCR: wait one SRTT after the first duplicate ACK), "ncr" (RFC 4653, needs
    /// recovery = "sack"), or a table with `kind` and the options of
    /// tcp/recovery/dcr.rs (`tau_srtt`, `tau`, `base` = "first_dupack" | "expiry",
    /// `grow_during_tau`, `rearm_rto`) or ncr.rs (`variant` = "careful" | "aggressive").
    #[schemars(default = "tcp_default::reordering")]
    pub reordering: Option<ReorderingSpec>,
    /// The send scheduler: "off" (window-limited, default), "cc" (the congestion
    /// control's pacing rate, for an algorithm that gives one: none built in does) or a
    /// rate ("10Mbps"): one packet per size x 8 / rate.
    #[schemars(default = "tcp_default::pacing")]
    pub pacing: Option<String>,
    /// A per-packet send rule (tcp/gate/): a table with `kind` = "bursts" (`burst_pkts`,
    /// `rate`), "pda" (the options of tcp/gate/pda.rs, all optional) or "burstiness"
    /// (`threshold`, `strict`, `measure`, `estimator`, `gain`, `filter_rtts`, `headroom`,
    /// `ss_headroom`: tcp/gate/burstiness.rs).
    pub gate: Option<GateSpec>,
    /// The reaction to a data packet dropped by the host's own NIC queue: "ignore"
    /// (default; found as any loss) or "cwr" (Linux: enter CWR, tcp/mod.rs `LocalDrop`).
    #[schemars(default = "tcp_default::local_drop")]
    pub local_drop: Option<LocalDropSpec>,
    /// Receiver ACK batching (interrupt coalescing, tcp/mod.rs `AckBatch`):
    /// `{ pkts = 8, timeout = "1ms" }`; off by default.
    pub ack_batch: Option<AckBatchSpec>,
}

/// The values `TcpSpec::resolve` fills in for absent fields (TcpParams::default() and the
/// constants below), as the schema's defaults.
mod tcp_default {
    use super::*;
    use crate::tcp::LocalDrop;

    fn d() -> TcpParams {
        TcpParams::default()
    }
    fn dur(t: SimTime) -> Option<Dur> {
        Some(Dur(t))
    }
    pub fn cc() -> Option<&'static str> {
        Some(cc::CcConfig::default().name())
    }
    pub fn mss() -> Option<u32> {
        Some(d().mss)
    }
    pub fn header_bytes() -> Option<u32> {
        Some(d().header)
    }
    pub fn init_cwnd() -> Option<f64> {
        Some(d().init_cwnd)
    }
    /// Infinite: JSON null, "unset".
    pub fn max_cwnd() -> Option<f64> {
        Some(d().max_cwnd).filter(|w| w.is_finite())
    }
    pub fn min_rto() -> Option<Dur> {
        dur(d().min_rto)
    }
    pub fn max_rto() -> Option<Dur> {
        dur(d().max_rto)
    }
    pub fn init_rto() -> Option<Dur> {
        dur(d().init_rto)
    }
    pub fn granularity() -> Option<Dur> {
        dur(d().granularity)
    }
    pub fn dupack_threshold() -> Option<u32> {
        Some(d().dupack_threshold)
    }
    pub fn delayed_ack() -> Option<bool> {
        Some(d().delayed_ack)
    }
    pub fn delack_timeout() -> Option<Dur> {
        dur(d().delack_timeout)
    }
    /// Without cc kind "dctcp".
    pub fn ecn() -> Option<bool> {
        Some(d().ecn)
    }
    pub fn superpacket() -> Option<SpModeSpec> {
        Some(D_SP_MODE)
    }
    pub fn sp_len() -> Option<u16> {
        Some(D_SP_LEN)
    }
    pub fn sp_on_denial() -> Option<SpDenialSpec> {
        Some(D_SP_DENIAL)
    }
    pub fn sp_attempts() -> Option<u8> {
        Some(D_SP_ATTEMPTS)
    }
    pub fn limited_transmit() -> Option<bool> {
        Some(d().limited_transmit)
    }
    pub fn rtt_tick() -> Option<Dur> {
        dur(d().rtt_tick)
    }
    pub fn rto_backoff_reset() -> Option<RtoBackoffResetSpec> {
        Some(match d().rto_backoff_reset {
            RtoBackoffReset::RttSample => RtoBackoffResetSpec::RttSample,
            RtoBackoffReset::NewAck => RtoBackoffResetSpec::NewAck,
        })
    }
    pub fn recovery() -> Option<RecoverySpec> {
        Some(match d().recovery {
            RecoveryKind::NewReno => RecoverySpec::Newreno,
            RecoveryKind::Sack => RecoverySpec::Sack,
        })
    }
    pub fn reordering() -> Option<&'static str> {
        matches!(d().reordering, Reordering::None).then_some("none")
    }
    pub fn pacing() -> Option<&'static str> {
        matches!(d().pacing, Pacing::Off).then_some("off")
    }
    pub fn local_drop() -> Option<LocalDropSpec> {
        Some(match d().local_drop {
            LocalDrop::Ignore => LocalDropSpec::Ignore,
            LocalDrop::Cwr => LocalDropSpec::Cwr,
        })
    }
}

/// The values the gates, the reordering responses and the MBS probe take for absent
/// options (their `Default` impls), as the schema's defaults.
mod param_default {
    use super::*;

    macro_rules! defaults {
        ($($name:ident: $t:ty = $e:expr;)+) => {
            $(pub fn $name() -> Option<$t> {
                Some($e)
            })+
        };
    }

    fn pda() -> PdaParams {
        PdaParams::default()
    }
    fn bc() -> BcParams {
        BcParams::default()
    }
    fn dcr() -> DcrConfig {
        DcrConfig::default()
    }
    fn probe() -> ProbeParams {
        ProbeParams::default()
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
        dcr_tau_srtt: f64 = dcr().tau_srtt;
        dcr_base: DcrBaseSpec = match dcr().base {
            DcrBase::FirstDupack => DcrBaseSpec::FirstDupack,
            DcrBase::Expiry => DcrBaseSpec::Expiry,
        };
        dcr_grow_during_tau: bool = dcr().grow_during_tau;
        dcr_rearm_rto: bool = dcr().rearm_rto;
        ncr_variant: NcrVariantSpec = match NcrConfig::default().variant {
            NcrVariant::Careful => NcrVariantSpec::Careful,
            NcrVariant::Aggressive => NcrVariantSpec::Aggressive,
        };
        probe_packet_bytes: u32 = probe().pkt_bytes;
        probe_trials: u32 = probe().trials;
        probe_max_train: u32 = probe().max_train;
        probe_resolution: f64 = probe().resolution;
        probe_fac_train: u32 = probe().fac_train;
        probe_fac_epsilon: f64 = probe().fac_epsilon;
        probe_fac_rounds: u32 = probe().fac_rounds;
        probe_init_timeout: Dur = Dur(probe().init_timeout);
    }
}

/// `superpacket`, `sp_len`, `sp_on_denial` and `sp_attempts` when absent.
const D_SP_MODE: SpModeSpec = SpModeSpec::Off;
const D_SP_LEN: u16 = 10;
const D_SP_DENIAL: SpDenialSpec = SpDenialSpec::Fallback;
const D_SP_ATTEMPTS: u8 = 3;

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AckBatchSpec {
    /// ACK after this many data packets, 1..=100000.
    pub pkts: u32,
    /// ... or after this long since the first unacknowledged one; above 0, at most 10s.
    pub timeout: Dur,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LocalDropSpec {
    Ignore,
    Cwr,
}

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
        #[schemars(default = "param_default::pda_init_burst")]
        init_burst: Option<u32>,
        /// Largest burst, packets (at most what the host's NIC queue holds + 1); at most
        /// 1000000.
        #[serde(default)]
        #[schemars(default = "param_default::pda_max_burst")]
        max_burst: Option<u32>,
        /// Steady-phase bursts are max(2, mbs_fraction x MBS) packets; in (0, 1].
        #[serde(default)]
        #[schemars(default = "param_default::pda_mbs_fraction")]
        mbs_fraction: Option<f64>,
        /// Weight of a new available-bandwidth sample in A; in (0, 1].
        #[serde(default)]
        #[schemars(default = "param_default::pda_gain")]
        gain: Option<f64>,
        /// New traffic is detected when A falls below rate x (1 - detect); in (0, 1].
        #[serde(default)]
        #[schemars(default = "param_default::pda_detect")]
        detect: Option<f64>,
        /// Round trips to hold after yielding, at most 1000.
        #[serde(default)]
        #[schemars(default = "param_default::pda_hold_rtts")]
        hold_rtts: Option<u32>,
        /// Rate growth per SRTT while balancing, as a share of the capacity C; in (0, 1].
        #[serde(default)]
        #[schemars(default = "param_default::pda_balance_step")]
        balance_step: Option<f64>,
        /// The rate never goes below this share of the capacity estimate; in (0, 1].
        #[serde(default)]
        #[schemars(default = "param_default::pda_min_share")]
        min_share: Option<f64>,
    },
    /// Burstiness control (tcp/gate/burstiness.rs; Wei, Hegde, Low, "Burstiness Control for
    /// High Speed Long Distance TCP", PFLDnet 2005): a packet leaves only while
    /// the queue the flow builds stays within `threshold`.
    Burstiness {
        /// B_th, packets: a packet leaves only while the queue the flow builds B <=
        /// threshold; finite, 0..=1000000.
        #[serde(default)]
        #[schemars(default = "param_default::bc_threshold")]
        threshold: Option<f64>,
        /// true: send only while B < threshold (then threshold must be above 0); false:
        /// while B <= threshold.
        #[serde(default)]
        #[schemars(default = "param_default::bc_strict")]
        strict: Option<bool>,
        /// How B is measured: "queue" (the flow's own queue at a bottleneck of rate c, a
        /// leaky bucket) or "anchor" (the slides' B from the anchor packet).
        #[serde(default)]
        #[schemars(default = "param_default::bc_measure")]
        measure: Option<String>,
        /// The available bandwidth c: "delivery" (largest per-SRTT delivery rate of the
        /// last `filter_rtts`), "delivery_ewma" (EWMA-smoothed, weight `gain`) or "window"
        /// (cwnd / SRTT).
        #[serde(default)]
        #[schemars(default = "param_default::bc_estimator")]
        estimator: Option<String>,
        /// EWMA weight of a new delivery-rate sample ("delivery_ewma"); in (0, 1].
        #[serde(default)]
        #[schemars(default = "param_default::bc_gain")]
        gain: Option<f64>,
        /// Samples the "delivery" estimator's max filter keeps (one per SRTT), 1..=10000.
        #[serde(default)]
        #[schemars(default = "param_default::bc_filter_rtts")]
        filter_rtts: Option<u32>,
        /// The delivery estimators' factor on c out of slow start; finite, 1..=100.
        #[serde(default)]
        #[schemars(default = "param_default::bc_headroom")]
        headroom: Option<f64>,
        /// The delivery estimators' factor on c in slow start; finite, 1..=100.
        #[serde(default)]
        #[schemars(default = "param_default::bc_ss_headroom")]
        ss_headroom: Option<f64>,
    },
}

impl GateSpec {
    fn resolve(&self, path: &str) -> Result<GateConfig, String> {
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

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecoverySpec {
    Newreno,
    Sack,
}

/// `reordering` in `[tcp]`: a name or a table with `kind` (see `TcpSpec::reordering`).
#[derive(Clone, Debug, PartialEq)]
pub struct ReorderingSpec(ReorderingTable);

#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum ReorderingTable {
    /// No response: the standard fast retransmit.
    None {},
    /// TCP-DCR (tcp/recovery/dcr.rs): the fast retransmit waits tau after the first
    /// duplicate ACK.
    Dcr {
        /// tau as a multiple of SRTT at the first duplicate ACK (1.0: one RTT); finite, >= 0.
        #[serde(default)]
        #[schemars(default = "param_default::dcr_tau_srtt")]
        tau_srtt: Option<f64>,
        /// A fixed tau instead (overrides `tau_srtt`).
        #[serde(default)]
        tau: Option<Dur>,
        /// Which state the loss response after tau is based on: FlightSize and cwnd at the
        /// first duplicate ACK ("first_dupack") or when tau expires ("expiry", the draft's
        /// "standard FR/FR" literally).
        #[serde(default)]
        #[schemars(default = "param_default::dcr_base")]
        base: Option<DcrBaseSpec>,
        /// Additive increase continues during tau (draft section 4).
        #[serde(default)]
        #[schemars(default = "param_default::dcr_grow_during_tau")]
        grow_during_tau: Option<bool>,
        /// Restart the retransmission timer at the delayed fast retransmit.
        #[serde(default)]
        #[schemars(default = "param_default::dcr_rearm_rto")]
        rearm_rto: Option<bool>,
    },
    /// RFC 4653 TCP-NCR (tcp/recovery/ncr.rs): extended limited transmit; needs
    /// recovery = "sack".
    Ncr {
        /// RFC 4653's "careful" (Careful Limited Transmit, LT_F = 2/3) or "aggressive" variant.
        #[schemars(default = "param_default::ncr_variant")]
        #[serde(default)]
        variant: Option<NcrVariantSpec>,
    },
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum DcrBaseSpec {
    FirstDupack,
    Expiry,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum NcrVariantSpec {
    Careful,
    Aggressive,
}

const REORDERING_NAMES: &str = "none, dcr, ncr";

/// A name of REORDERING_NAMES (the response with its defaults) or a `kind` table.
impl JsonSchema for ReorderingSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ReorderingSpec".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = REORDERING_NAMES.split(", ").collect();
        crate::core::schema::name_or_table(
            g.subschema_for::<ReorderingTable>(),
            &names,
            "the response with its defaults",
        )
    }
}

impl<'de> Deserialize<'de> for ReorderingSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = ReorderingSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a reordering response ({REORDERING_NAMES}) or a table with `kind`")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<ReorderingSpec, E> {
                let t = match s {
                    "none" => ReorderingTable::None {},
                    "dcr" => ReorderingTable::Dcr {
                        tau_srtt: None,
                        tau: None,
                        base: None,
                        grow_during_tau: None,
                        rearm_rto: None,
                    },
                    "ncr" => ReorderingTable::Ncr { variant: None },
                    _ => {
                        return Err(E::custom(format!(
                            "unknown reordering response {s:?}; allowed: {REORDERING_NAMES}"
                        )))
                    }
                };
                Ok(ReorderingSpec(t))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, m: A) -> Result<ReorderingSpec, A::Error> {
                ReorderingTable::deserialize(de::value::MapAccessDeserializer::new(m)).map(ReorderingSpec)
            }
        }
        d.deserialize_any(V)
    }
}

impl ReorderingSpec {
    fn resolve(&self, path: &str) -> Result<Reordering, String> {
        Ok(match &self.0 {
            ReorderingTable::None {} => Reordering::None,
            ReorderingTable::Dcr { tau_srtt, tau, base, grow_during_tau, rearm_rto } => {
                let d = DcrConfig::default();
                let c = DcrConfig {
                    tau_srtt: tau_srtt.unwrap_or(d.tau_srtt),
                    tau: tau.map(|t| t.0),
                    base: match base {
                        None => d.base,
                        Some(DcrBaseSpec::FirstDupack) => DcrBase::FirstDupack,
                        Some(DcrBaseSpec::Expiry) => DcrBase::Expiry,
                    },
                    grow_during_tau: grow_during_tau.unwrap_or(d.grow_during_tau),
                    rearm_rto: rearm_rto.unwrap_or(d.rearm_rto),
                };
                c.validate(path)?;
                Reordering::Dcr(c)
            }
            ReorderingTable::Ncr { variant } => Reordering::Ncr(NcrConfig {
                variant: match variant {
                    None => NcrConfig::default().variant,
                    Some(NcrVariantSpec::Careful) => NcrVariant::Careful,
                    Some(NcrVariantSpec::Aggressive) => NcrVariant::Aggressive,
                },
            }),
        })
    }
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RtoBackoffResetSpec {
    RttSample,
    NewAck,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpModeSpec {
    Off,
    Flow,
    Runs,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpDenialSpec {
    Fallback,
    Retry,
}

impl TcpSpec {
    /// This spec's fields over `base`'s.
    fn over(&self, base: &TcpSpec) -> TcpSpec {
        macro_rules! pick {
            ($f:ident) => {
                self.$f.clone().or_else(|| base.$f.clone())
            };
        }
        TcpSpec {
            cc: pick!(cc),
            mss: pick!(mss),
            header_bytes: pick!(header_bytes),
            init_cwnd: pick!(init_cwnd),
            max_cwnd: pick!(max_cwnd),
            min_rto: pick!(min_rto),
            max_rto: pick!(max_rto),
            init_rto: pick!(init_rto),
            granularity: pick!(granularity),
            dupack_threshold: pick!(dupack_threshold),
            delayed_ack: pick!(delayed_ack),
            delack_timeout: pick!(delack_timeout),
            ecn: pick!(ecn),
            superpacket: pick!(superpacket),
            sp_len: pick!(sp_len),
            sp_on_denial: pick!(sp_on_denial),
            sp_attempts: pick!(sp_attempts),
            limited_transmit: pick!(limited_transmit),
            rtt_tick: pick!(rtt_tick),
            rto_backoff_reset: pick!(rto_backoff_reset),
            recovery: pick!(recovery),
            reordering: pick!(reordering),
            pacing: pick!(pacing),
            gate: pick!(gate),
            local_drop: pick!(local_drop),
            ack_batch: pick!(ack_batch),
        }
    }

    /// This entry's table over the scenario's `[tcp]` table, resolved. An error the `[tcp]`
    /// table makes by itself (the same check failing on it alone) is reported under `tcp`,
    /// where it was written, not under every traffic entry that inherits it.
    pub(crate) fn resolve_over(&self, base: &TcpSpec, path: &str) -> Result<(TcpParams, cc::CcConfig), String> {
        self.over(base).resolve(path).map_err(|e| match base.resolve("tcp") {
            Err(b) if b.strip_prefix("tcp").map(|rest| format!("{path}{rest}")).as_deref() == Some(e.as_str()) => b,
            _ => e,
        })
    }

    fn resolve(&self, path: &str) -> Result<(TcpParams, cc::CcConfig), String> {
        let d = TcpParams::default();
        let cc_cfg = self.cc.clone().map(|c| c.0).unwrap_or_default();
        cc_cfg.validate(&format!("{path}.cc"))?;
        // DCTCP works on ECE (RFC 8257 section 3): ECN is on unless refused, and refusing
        // it is an error rather than a silent NewReno
        if cc_cfg.needs_ecn() && self.ecn == Some(false) {
            return Err(format!("{path}.ecn: cc kind {:?} needs ECN; leave ecn unset or true", cc_cfg.name()));
        }
        let p = TcpParams {
            mss: self.mss.unwrap_or(d.mss),
            header: self.header_bytes.unwrap_or(d.header),
            init_cwnd: self.init_cwnd.unwrap_or(d.init_cwnd),
            max_cwnd: self.max_cwnd.unwrap_or(d.max_cwnd),
            min_rto: self.min_rto.map_or(d.min_rto, |x| x.0),
            max_rto: self.max_rto.map_or(d.max_rto, |x| x.0),
            init_rto: self.init_rto.map_or(d.init_rto, |x| x.0),
            granularity: self.granularity.map_or(d.granularity, |x| x.0),
            dupack_threshold: self.dupack_threshold.unwrap_or(d.dupack_threshold),
            delayed_ack: self.delayed_ack.unwrap_or(d.delayed_ack),
            delack_timeout: self.delack_timeout.map_or(d.delack_timeout, |x| x.0),
            ecn: self.ecn.unwrap_or(d.ecn || cc_cfg.needs_ecn()),
            ece_echo: cc_cfg.ece_echo(),
            sp: match self.superpacket.unwrap_or(D_SP_MODE) {
                SpModeSpec::Off => SpMode::Off,
                SpModeSpec::Flow => SpMode::Flow,
                SpModeSpec::Runs => SpMode::Runs(self.sp_len.unwrap_or(D_SP_LEN)),
            },
            sp_on_denial: match self.sp_on_denial.unwrap_or(D_SP_DENIAL) {
                SpDenialSpec::Fallback => SpDenial::Fallback,
                SpDenialSpec::Retry => SpDenial::Retry { attempts: self.sp_attempts.unwrap_or(D_SP_ATTEMPTS) },
            },
            limited_transmit: self.limited_transmit.unwrap_or(d.limited_transmit),
            rtt_tick: self.rtt_tick.map_or(d.rtt_tick, |x| x.0),
            rto_backoff_reset: match self.rto_backoff_reset {
                None => d.rto_backoff_reset,
                Some(RtoBackoffResetSpec::RttSample) => RtoBackoffReset::RttSample,
                Some(RtoBackoffResetSpec::NewAck) => RtoBackoffReset::NewAck,
            },
            recovery: match self.recovery {
                None => d.recovery,
                Some(RecoverySpec::Newreno) => RecoveryKind::NewReno,
                Some(RecoverySpec::Sack) => RecoveryKind::Sack,
            },
            reordering: match &self.reordering {
                None => Reordering::None,
                Some(r) => r.resolve(&format!("{path}.reordering"))?,
            },
            pacing: match self.pacing.as_deref() {
                None | Some("off") => Pacing::Off,
                Some("cc") => Pacing::Cc,
                Some(r) => match crate::core::time::parse_rate(r) {
                    Ok(b) if b.0 > 0 => Pacing::Rate(b.0 as f64),
                    _ => {
                        return Err(format!("{path}.pacing: \"off\", \"cc\" or a rate such as \"10Mbps\" (got {r:?})"))
                    }
                },
            },
            gate: match &self.gate {
                None => GateConfig::None,
                Some(g) => g.resolve(&format!("{path}.gate"))?,
            },
            local_drop: match self.local_drop {
                None => d.local_drop,
                Some(LocalDropSpec::Ignore) => crate::tcp::LocalDrop::Ignore,
                Some(LocalDropSpec::Cwr) => crate::tcp::LocalDrop::Cwr,
            },
            ack_batch: match self.ack_batch {
                None => None,
                Some(b) => {
                    if b.pkts == 0 || b.pkts > 100_000 {
                        return Err(format!("{path}.ack_batch.pkts: must be 1..100000 (got {})", b.pkts));
                    }
                    if b.timeout.0 == SimTime::ZERO || b.timeout.0 > SimTime::from_secs(10) {
                        return Err(format!(
                            "{path}.ack_batch.timeout: must be above 0 and at most 10s (got {}s)",
                            b.timeout.0.as_secs_f64()
                        ));
                    }
                    Some(crate::tcp::AckBatch { pkts: b.pkts, timeout: b.timeout.0 })
                }
            },
        };
        if self.sp_len == Some(0) {
            return Err(format!("{path}.sp_len: must be >= 1"));
        }
        if self.sp_attempts == Some(0) {
            return Err(format!("{path}.sp_attempts: must be >= 1"));
        }
        if matches!(p.reordering, Reordering::Ncr(_)) && p.recovery != RecoveryKind::Sack {
            return Err(format!("{path}.reordering: \"ncr\" needs recovery = \"sack\" (RFC 4653 builds on SACK)"));
        }
        if p.limited_transmit && p.recovery == RecoveryKind::Sack {
            // only the NewReno recovery sends new data on the first duplicate ACKs
            return Err(format!(
                "{path}.limited_transmit: has no effect with recovery = \"sack\" (only the NewReno recovery \
                 implements RFC 3042); leave it unset or use recovery = \"newreno\""
            ));
        }
        if p.pacing == Pacing::Cc {
            // asked of the algorithm itself: a controller that never gives a rate would
            // make "cc" the same as "off"
            let state = cc::CcState { cwnd: p.init_cwnd, ssthresh: f64::INFINITY, max_cwnd: p.max_cwnd };
            if cc_cfg.build().pacing_rate(&state, Some(SimTime::from_ms(100))).is_none() {
                return Err(format!(
                    "{path}.pacing: \"cc\" needs a congestion control that gives a pacing rate, and {:?} gives \
                     none; use \"off\" or a rate such as \"10Mbps\"",
                    cc_cfg.name()
                ));
            }
        }
        if p.mss == 0 || p.mss > 65_495 {
            return Err(format!("{path}.mss: must be in 1..=65495 (got {})", p.mss));
        }
        if p.init_cwnd.is_nan() || p.init_cwnd < 1.0 {
            return Err(format!("{path}.init_cwnd: must be >= 1 (got {})", p.init_cwnd));
        }
        if p.init_cwnd > MAX_INIT_CWND {
            return Err(format!("{path}.init_cwnd: must be at most {MAX_INIT_CWND} (got {})", p.init_cwnd));
        }
        if p.max_cwnd.is_nan() || p.max_cwnd < 1.0 {
            return Err(format!("{path}.max_cwnd: must be >= 1 (got {})", p.max_cwnd));
        }
        if p.dupack_threshold == 0 {
            return Err(format!("{path}.dupack_threshold: must be >= 1"));
        }
        if p.min_rto > p.max_rto || p.init_rto == SimTime::ZERO {
            return Err(format!("{path}: need 0 < init_rto and min_rto <= max_rto"));
        }
        Ok((p, cc_cfg))
    }
}

/// A traffic source; `kind` selects it. `from`/`to` may contain "{i}", replaced by
/// 0..count-1 (one source per value).
#[derive(Clone, Debug)]
pub enum TrafficSpec {
    Bulk(BulkSpec),
    Flow(FlowSpecToml),
    Poisson(PoissonSpec),
    /// Closed-loop sources (scenario_riops.rs).
    BackToBack(BackToBackSpec),
    /// Web sessions (scenario_riops.rs).
    Web(WebSpec),
    /// Constant-bit-rate packets, no transport (traffic/raw.rs).
    Cbr(CbrSpec),
    /// On-off packets, no transport (traffic/raw.rs).
    OnOff(OnOffSpec),
    /// The MBS and available-bandwidth probe (traffic/mbs_probe.rs).
    MbsProbe(MbsProbeSpec),
    /// An attacker on the super-packet router's state (traffic/attack.rs).
    SpAttack(SpAttackSpec),
    /// Datacenter flow-size workload: Poisson arrivals per host at a load, sizes from an
    /// empirical CDF (scenario_workload.rs, traffic/workload.rs).
    Workload(WorkloadSpec),
    /// Incast rounds: servers answer one client at the same instant (scenario_workload.rs,
    /// traffic/incast.rs).
    Incast(IncastSpec),
}

/// An attacker (traffic/attack.rs; the attacks of Li, UCB/EECS-2013-83, section 3.1): `attack` is
/// `spoof_flood`, `bloom_pollution`, `outstanding_drain` or `epoch_sync`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpAttackSpec {
    /// The attack: "spoof_flood", "bloom_pollution", "outstanding_drain" or "epoch_sync"
    /// (traffic/attack.rs).
    pub attack: String,
    /// The attacker's node.
    pub from: String,
    /// The node its packets are sent to.
    pub to: String,
    /// Packets per second (epoch_sync: per second on average, sent in bursts), in (0, 1e8].
    pub rate_pps: f64,
    /// Wire bytes per packet, 28..=65535.
    #[serde(default = "d_attack_bytes")]
    pub packet_bytes: u32,
    /// The `len` written in every header, at least 1.
    #[serde(default = "d_attack_len")]
    pub len: u16,
    /// Time the attack starts.
    #[serde(default)]
    pub start: Dur,
    /// Time the attack stops (default: the end of the run).
    #[serde(default)]
    pub stop: Option<Dur>,
    /// Nodes whose (node, to) pairs outstanding_drain claims, and spoof_flood aims at.
    #[serde(default)]
    pub victims: Vec<String>,
    /// spoof_flood: aim spoofed sources at the victims' home slots in a table of this
    /// many slots (a power of two, at most 2^26) under the public zero key; 0: random
    /// sources (aiming needs `victims`).
    #[serde(default)]
    pub aim_slots: u64,
    /// Spoofed sources per victim when aiming, 1..=4096.
    #[serde(default = "d_aim_per_victim")]
    pub aim_per_victim: u32,
    /// epoch_sync: the epoch grid the attacker assumes (k x epoch); above 0.
    #[serde(default = "d_epoch")]
    pub epoch: Dur,
}

fn d_attack_bytes() -> u32 {
    40
}
fn d_attack_len() -> u16 {
    10
}
fn d_aim_per_victim() -> u32 {
    64
}

fn d_pkt_bytes() -> u32 {
    1500
}

/// A constant-bit-rate source: `rate` in packets of `packet_bytes` wire bytes.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CbrSpec {
    /// Source node name; "{i}" is replaced by 0..count-1, one source per value.
    pub from: String,
    /// Destination node name, "{i}" as in `from`; never the source itself.
    pub to: String,
    /// Sources made from this entry (values of {i}); 0 makes none (e.g. a sweep's point
    /// without this traffic).
    #[serde(default = "d_one")]
    pub count: u32,
    /// Sending rate, in packets of `packet_bytes`; at most 1e8 packets a second.
    pub rate: Rate,
    /// Wire bytes per packet, 28..=65535.
    #[serde(default = "d_pkt_bytes")]
    pub packet_bytes: u32,
    /// Time the first packet leaves.
    #[serde(default)]
    pub start: Dur,
    /// No packet leaves at or after this time, after `start` (default: the end of the
    /// run).
    #[serde(default)]
    pub stop: Option<Dur>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PeriodsSpec {
    #[default]
    Exponential,
    Fixed,
}

/// An on-off source: `rate` during on periods of mean `on_time`, silent during off
/// periods of mean `off_time`; periods `exponential` (default) or `fixed`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpec {
    /// Source node name; "{i}" is replaced by 0..count-1, one source per value.
    pub from: String,
    /// Destination node name, "{i}" as in `from`; never the source itself.
    pub to: String,
    /// Sources made from this entry (values of {i}); 0 makes none (e.g. a sweep's point
    /// without this traffic).
    #[serde(default = "d_one")]
    pub count: u32,
    /// Sending rate during on periods, in packets of `packet_bytes`; at most 1e8 packets
    /// a second.
    pub rate: Rate,
    /// Mean (or fixed) length of an on period; above 0.
    pub on_time: Dur,
    /// Mean (or fixed) length of an off period.
    pub off_time: Dur,
    /// Period lengths: "exponential" with the given means (default) or "fixed".
    #[serde(default)]
    pub distribution: PeriodsSpec,
    /// Wire bytes per packet, 28..=65535.
    #[serde(default = "d_pkt_bytes")]
    pub packet_bytes: u32,
    /// Time the first on period starts.
    #[serde(default)]
    pub start: Dur,
    /// No packet leaves at or after this time, after `start` (default: the end of the
    /// run).
    #[serde(default)]
    pub stop: Option<Dur>,
}

/// The MBS probe (traffic/mbs_probe.rs has the procedure and the defaults).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MbsProbeSpec {
    /// The probing node.
    pub from: String,
    /// The node that reports the trains back.
    pub to: String,
    /// Time the first train leaves.
    #[serde(default)]
    pub start: Dur,
    /// Wire bytes per probe packet, 28..=65535.
    #[serde(default)]
    #[schemars(default = "param_default::probe_packet_bytes")]
    pub packet_bytes: Option<u32>,
    /// Times each train size is tried (it is loss-free only if every trial is), 1..=100.
    #[serde(default)]
    #[schemars(default = "param_default::probe_trials")]
    pub trials: Option<u32>,
    /// Largest train, packets, 2..=1000000.
    #[serde(default)]
    #[schemars(default = "param_default::probe_max_train")]
    pub max_train: Option<u32>,
    /// The binary search stops at max(1, resolution x N) packets; in [0, 0.5).
    #[serde(default)]
    #[schemars(default = "param_default::probe_resolution")]
    pub resolution: Option<f64>,
    /// Packets per FAC train (at most the MBS), at least 2.
    #[serde(default)]
    #[schemars(default = "param_default::probe_fac_train")]
    pub fac_train: Option<u32>,
    /// A FAC estimate is accepted when |r_out - r_in| / r_in is below this; in (0, 1).
    #[serde(default)]
    #[schemars(default = "param_default::probe_fac_epsilon")]
    pub fac_epsilon: Option<f64>,
    /// At most this many FAC trains, 1..=1000.
    #[serde(default)]
    #[schemars(default = "param_default::probe_fac_rounds")]
    pub fac_rounds: Option<u32>,
    /// Timeout of a train before any RTT is known; above 0.
    #[serde(default)]
    #[schemars(default = "param_default::probe_init_timeout")]
    pub init_timeout: Option<Dur>,
}

/// Long-lived flows (never run out of data).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BulkSpec {
    /// Source node name; "{i}" is replaced by 0..count-1, one source per value.
    pub from: String,
    /// Destination node name, "{i}" as in `from`; never the source itself.
    pub to: String,
    /// Sources made from this entry (values of {i}); 0 makes none (e.g. a sweep's point
    /// without this traffic).
    #[serde(default = "d_one")]
    pub count: u32,
    /// Time the first flow starts.
    #[serde(default)]
    pub start: Dur,
    /// Each flow starts at start + uniform[0, start_jitter).
    #[serde(default)]
    pub start_jitter: Dur,
    /// TCP settings of this entry's flows, over the scenario's `[tcp]` table.
    #[serde(default)]
    pub tcp: TcpSpec,
}

/// Flows of a fixed size (`size_bytes`, or `size_pkts` full segments).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpecToml {
    /// Source node name; "{i}" is replaced by 0..count-1, one source per value.
    pub from: String,
    /// Destination node name, "{i}" as in `from`; never the source itself.
    pub to: String,
    /// Sources made from this entry (values of {i}); 0 makes none (e.g. a sweep's point
    /// without this traffic).
    #[serde(default = "d_one")]
    pub count: u32,
    /// Payload bytes per flow, at least 1; give this or `size_pkts`, not both.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// Full segments (mss bytes each) per flow, at least 1; give this or `size_bytes`, not
    /// both.
    #[serde(default)]
    pub size_pkts: Option<u64>,
    /// Time the first flow starts.
    #[serde(default)]
    pub start: Dur,
    /// Each flow starts at start + uniform[0, start_jitter).
    #[serde(default)]
    pub start_jitter: Dur,
    /// TCP settings of this entry's flows, over the scenario's `[tcp]` table.
    #[serde(default)]
    pub tcp: TcpSpec,
}

/// Poisson flow arrivals at `rate_per_s` from `start` until `stop` (default: the end).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoissonSpec {
    /// Source node name; "{i}" is replaced by 0..count-1, one source per value.
    pub from: String,
    /// Destination node name, "{i}" as in `from`; never the source itself.
    pub to: String,
    /// Sources made from this entry (values of {i}); 0 makes none (e.g. a sweep's point
    /// without this traffic).
    #[serde(default = "d_one")]
    pub count: u32,
    /// Flow arrivals per second (per source), finite and above 0.
    pub rate_per_s: f64,
    /// Payload bytes per flow, at least 1; give this or `size_pkts`, not both.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// Full segments (mss bytes each) per flow, at least 1; give this or `size_bytes`, not
    /// both.
    #[serde(default)]
    pub size_pkts: Option<u64>,
    /// Arrivals from this time.
    #[serde(default)]
    pub start: Dur,
    /// No flow (or packet) starts at or after this time (default: the end of the run).
    #[serde(default)]
    pub stop: Option<Dur>,
    /// TCP settings of this entry's flows, over the scenario's `[tcp]` table.
    #[serde(default)]
    pub tcp: TcpSpec,
}

tagged!(TrafficSpec, "traffic kind", {
    "bulk" => Bulk(BulkSpec),
    "flow" => Flow(FlowSpecToml),
    "poisson" => Poisson(PoissonSpec),
    "back_to_back" => BackToBack(BackToBackSpec),
    "web" => Web(WebSpec),
    "cbr" => Cbr(CbrSpec),
    "onoff" => OnOff(OnOffSpec),
    "mbs_probe" => MbsProbe(MbsProbeSpec),
    "sp_attack" => SpAttack(SpAttackSpec),
    "workload" => Workload(WorkloadSpec),
    "incast" => Incast(IncastSpec),
});

fn d_sample() -> Dur {
    Dur(SimTime::from_ms(1))
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Links whose queue length is sampled ("R1->R2"), or ["all"].
    #[serde(default)]
    pub sample_queues: Vec<String>,
    /// Interval of the `sample_queues` series; above 0, with duration / interval x links at
    /// most 20000000 rows (MONITOR_MAX_ROWS).
    #[serde(default = "d_sample")]
    pub sample_interval: Dur,
    /// Interval of the per-flow received-bytes series (throughput over time); off when
    /// absent. Above 0 and at least duration / 20000000 (MONITOR_MAX_ROWS); the same
    /// bound holds for the rows of all the flows open at the start together.
    #[serde(default)]
    pub sample_flows: Option<Dur>,
    /// Links traced to pcap files ("R->d" or "R-to-d"), or ["all"] (trace/mod.rs).
    #[serde(default)]
    pub pcap: Vec<String>,
    /// Bytes kept of each traced frame; 0 = whole frames (zero-filled payload).
    #[serde(default)]
    pub pcap_snaplen: u32,
    /// The high-frequency monitor (monitor.rs): `{ link = "R1->R2", interval = "1ms" }`.
    #[serde(default)]
    pub monitor: Option<MonitorSpec>,
    /// The memory the run may be estimated to hold before it starts ("16GB", "512MiB";
    /// default 8GB; the environment's SUPERPACKET_MEMORY_BUDGET wins): memory.rs.
    #[serde(default)]
    pub memory_budget: Option<String>,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MonitorSpec {
    /// The link monitored, "a->b".
    pub link: String,
    /// Sampling interval; above 0 and at least duration / 20000000 (MONITOR_MAX_ROWS).
    pub interval: Dur,
}

/// Rows the monitor, the queue series or the flow series may write in one run
/// (duration / interval, times the links sampled).
pub const MONITOR_MAX_ROWS: u64 = 20_000_000;

/// One row of the per-flow series (engine/sim.rs `FlowSample`), bytes.
const FLOW_SAMPLE_BYTES: f64 = std::mem::size_of::<crate::engine::sim::FlowSample>() as f64;

/// The largest initial window (segments): a flow's first flight is built in one event
/// (10^9 segments took all memory). 10^6 segments of 1460 bytes (1.46 GB) exceed any
/// bandwidth-delay product simulated here (100 Gb/s x 100 ms is 0.86 x 10^6).
pub const MAX_INIT_CWND: f64 = 1_000_000.0;

/// Hosts (dumbbell pairs, star senders) or routers (chain) a built-in topology may have.
pub const MAX_HOSTS: u32 = 100_000;

impl Default for OutputSpec {
    fn default() -> Self {
        OutputSpec {
            sample_queues: Vec::new(),
            sample_interval: d_sample(),
            sample_flows: None,
            pcap: Vec::new(),
            pcap_snaplen: 0,
            monitor: None,
            memory_budget: None,
        }
    }
}

/// Stream ids of the run's random streams (rng.rs).
const STREAM_LINK_LOSS: u64 = 1 << 20;
const STREAM_QUEUE: u64 = 2 << 20;
const STREAM_TRAFFIC: u64 = 3 << 20;
const STREAM_REORDER: u64 = 4 << 20;

impl ReorderSpec {
    /// Puts a reordering stage on each link this entry names.
    fn attach(
        &self,
        net: &mut Network,
        seed: u64,
        path: &str,
        mem: &mut MemoryEstimate,
        end: SimTime,
    ) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.q) {
            return Err(format!("{path}.q: must be a probability in [0, 1] (got {})", self.q));
        }
        let mut ids = Vec::new();
        for (j, name) in self.links.iter().enumerate() {
            ids.push(net.link_by_any_name(name).ok_or_else(|| {
                format!(
                    "{path}.links[{j}]: unknown link {name:?} (links are named \"a->b\" or \"a-to-b\", e.g. {:?})",
                    net.links.first().map(|l| l.name.as_str()).unwrap_or("")
                )
            })?);
        }
        if let Some(r) = &self.router {
            let n = net.node(r).ok_or_else(|| format!("{path}.router: unknown node {r:?}"))?;
            ids.extend((0..net.links.len() as u32).filter(|&l| net.links[l as usize].from == n));
        }
        if ids.is_empty() {
            return Err(format!("{path}: name `links` or a `router`"));
        }
        let p = ReorderParams {
            q: self.q,
            mean: self.delay_mean.0,
            sd: self.delay_sd.0,
            negative: match self.negative {
                NegativeSpec::Redraw => Negative::Redraw,
                NegativeSpec::Clamp => Negative::Clamp,
            },
            data_only: self.packets == ReorderPacketsSpec::Data,
        };
        for l in ids {
            let link = &mut net.links[l as usize];
            // the stage holds q of the link's packets for about mean + 3 sd (at most the run)
            let hold = (self.delay_mean.0 + self.delay_sd.0 + self.delay_sd.0 + self.delay_sd.0).min(end);
            mem.charge(&format!("{path}.delay_mean"), costs::held_bytes(self.q, link.rate, hold, end))?;
            if link.reorder.is_some() {
                return Err(format!("{path}: link {} already has a reordering stage", link.name));
            }
            link.reorder = Some(Box::new(ReorderStage::new(p, Rng::stream(seed, STREAM_REORDER + l as u64))));
        }
        Ok(())
    }
}

impl Scenario {
    pub fn from_toml_str(s: &str) -> Result<Scenario, String> {
        Self::from_value(Self::toml_to_json(s)?)
    }

    /// A TOML document as a JSON value, NaN and infinities refused naming the field: the
    /// project's one TOML parser (Python's sweeps read their base scenario through it).
    pub fn toml_to_json(s: &str) -> Result<serde_json::Value, String> {
        let v: serde_json::Value = toml::from_str(s).map_err(|e| {
            // one line: "TOML syntax error at line L, column C: message"
            let at = e.span().map(|sp| {
                let before = &s[..sp.start.min(s.len())];
                let line = before.matches('\n').count() + 1;
                let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                format!(" at line {line}, column {col}")
            });
            format!("TOML syntax error{}: {}", at.unwrap_or_default(), e.message().trim().replace('\n', " "))
        })?;
        // JSON has no NaN or infinity: serde_json would turn them into null, and an
        // optional field would silently take its default
        if let Ok(t) = toml::from_str::<toml::Value>(s) {
            non_finite(&t, &mut String::new())?;
        }
        Ok(v)
    }

    pub fn from_json_str(s: &str) -> Result<Scenario, String> {
        let v: serde_json::Value = serde_json::from_str(s).map_err(|e| format!("JSON: {e}"))?;
        Self::from_value(v)
    }

    pub fn from_value(v: serde_json::Value) -> Result<Scenario, String> {
        let sc: Scenario = de_path(v).map_err(|e| {
            let (path, msg) = split_path(&e);
            if path.is_empty() {
                msg.to_string()
            } else {
                format!("{path}: {msg}")
            }
        })?;
        Ok(sc)
    }

    /// Builds the network, the flows and the generators; validates what serde cannot.
    pub fn build(&self, seed: Option<u64>) -> Result<Sim, String> {
        let seed = seed.or(self.seed).unwrap_or(1);
        if self.duration.0 == SimTime::ZERO {
            return Err("duration: must be > 0".into());
        }
        // the run's memory: every traffic entry charged before anything is built, each
        // table before it is allocated (memory.rs); nothing past the budget is allocated
        let mut mem = MemoryEstimate::new(MemoryEstimate::budget_of(self.output.memory_budget.as_deref())?);
        for (k, t) in self.traffic.iter().enumerate() {
            costs::charge_traffic(&mut mem, &format!("traffic[{k}]"), t, self.duration.0)?;
        }
        let mut net = Network::default();
        let mut b = Builder { net: &mut net, seed, mem: &mut mem, duration: self.duration.0 };
        match &self.topology {
            TopologySpec::Dumbbell(DumbbellSpec { pairs, access, bottleneck, edge_classifier }) => {
                if *pairs == 0 || *pairs > MAX_HOSTS {
                    return Err(format!("topology.pairs: must be 1..{MAX_HOSTS} (got {pairs})"));
                }
                b.node("R1")?;
                b.node("R2")?;
                for i in 0..*pairs {
                    b.node(&format!("s{i}"))?;
                    b.node(&format!("d{i}"))?;
                }
                for i in 0..*pairs {
                    b.duplex(&format!("s{i}"), "R1", access, "topology.access")?;
                }
                b.duplex("R1", "R2", bottleneck, "topology.bottleneck")?;
                let rx_access = LinkSpec { classifier: None, ..access.clone() };
                for i in 0..*pairs {
                    b.duplex("R2", &format!("d{i}"), &rx_access, "topology.access")?;
                }
                if let Some(ec) = edge_classifier {
                    let path = "topology.edge_classifier";
                    b.mem.charge(&format!("{path}.max_flows"), costs::classifier_bytes(ec))?;
                    let c = ec.add_to(b.net, "edge@R1".into(), seed, path)?;
                    let ids: Vec<u32> = (0..*pairs).filter_map(|i| b.net.link_by_name(&format!("s{i}->R1"))).collect();
                    riops::attach(b.net, c, &ids);
                }
            }
            TopologySpec::Star(StarSpec { senders, sender_link, receiver_link }) => {
                if *senders == 0 || *senders > MAX_HOSTS {
                    return Err(format!("topology.senders: must be 1..{MAX_HOSTS} (got {senders})"));
                }
                b.node("R")?;
                b.node("d")?;
                for i in 0..*senders {
                    b.node(&format!("s{i}"))?;
                    b.duplex(&format!("s{i}"), "R", sender_link, "topology.sender_link")?;
                }
                b.duplex("R", "d", receiver_link, "topology.receiver_link")?;
            }
            TopologySpec::Chain(ChainSpec { routers, link, host_link }) => {
                if *routers < 2 || *routers > MAX_HOSTS {
                    return Err(format!("topology.routers: must be 2..{MAX_HOSTS} (got {routers})"));
                }
                for i in 1..=*routers {
                    b.node(&format!("R{i}"))?;
                }
                for i in 1..*routers {
                    b.duplex(&format!("R{i}"), &format!("R{}", i + 1), link, "topology.link")?;
                }
                if let Some(hl) = host_link {
                    for i in 1..=*routers {
                        b.node(&format!("H{i}"))?;
                        b.duplex(&format!("H{i}"), &format!("R{i}"), hl, "topology.host_link")?;
                    }
                }
            }
            TopologySpec::Graph(GraphSpec { nodes, links }) => {
                for (i, n) in nodes.iter().enumerate() {
                    b.node(n).map_err(|e| format!("topology.nodes[{i}]: {e}"))?;
                }
                for (i, l) in links.iter().enumerate() {
                    let spec = LinkSpec {
                        rate: l.rate,
                        delay: l.delay,
                        queue: l.queue.clone(),
                        reverse_queue: l.reverse_queue.clone(),
                        loss: l.loss,
                        classifier: l.classifier.clone(),
                    };
                    b.duplex(&l.a, &l.b, &spec, &format!("topology.links[{i}]"))?;
                }
            }
            TopologySpec::LeafSpine(ls) => fabric::build_leaf_spine(&mut b, ls)?,
            TopologySpec::FatTree(ft) => fabric::build_fat_tree(&mut b, ft)?,
        }
        for (i, r) in self.reorder.iter().enumerate() {
            r.attach(&mut net, seed, &format!("reorder[{i}]"), &mut mem, self.duration.0)?;
        }
        let mut sim = Sim::new(net, seed);
        // the estimate goes with the simulation: entries whose flow count needs the built
        // network (workload, incast: the hosts' link rates) charge it as they are added
        sim.memory = mem;
        let end = self.duration.0;
        for (k, t) in self.traffic.iter().enumerate() {
            self.add_traffic(&mut sim, k, t, seed, end)?;
        }
        // refused even when no queue is sampled: a 0 there is a mistake either way
        if self.output.sample_interval.0 == SimTime::ZERO {
            return Err("output.sample_interval: must be above 0".into());
        }
        if !self.output.sample_queues.is_empty() {
            let mut ids = Vec::new();
            for (i, name) in self.output.sample_queues.iter().enumerate() {
                if name == "all" {
                    ids.extend(0..sim.net.links.len() as u32);
                } else {
                    let id = sim.net.link_by_any_name(name).ok_or_else(|| {
                        format!(
                            "output.sample_queues[{i}]: unknown link {name:?} (links are named \"a->b\" or \"a-to-b\", e.g. {:?})",
                            sim.net.links.first().map(|l| l.name.as_str()).unwrap_or("")
                        )
                    })?;
                    ids.push(id);
                }
            }
            let iv = self.output.sample_interval.0;
            let rows = (self.duration.0.ns() / iv.ns()).saturating_mul(ids.len() as u64);
            if rows > MONITOR_MAX_ROWS {
                return Err(format!(
                    "output.sample_interval: {}s over {}s for {} links is {rows} rows, above {MONITOR_MAX_ROWS} (a longer interval, or fewer links)",
                    iv.as_secs_f64(),
                    self.duration.0.as_secs_f64(),
                    ids.len()
                ));
            }
            sim.sample_queues(ids, iv);
        }
        if let Some(iv) = self.output.sample_flows {
            if iv.0 == SimTime::ZERO || self.duration.0.ns() / iv.0.ns().max(1) > MONITOR_MAX_ROWS {
                return Err(format!(
                    "output.sample_flows: must be above 0 and at least duration / {MONITOR_MAX_ROWS} = {}s (got {}s)",
                    self.duration.0.as_secs_f64() / MONITOR_MAX_ROWS as f64,
                    iv.0.as_secs_f64()
                ));
            }
            // every flow gets a row per interval: the flows opened at the start count in
            // all against the same bound as one link's series, and their rows are charged
            let rows = (self.duration.0.ns() / iv.0.ns().max(1)).saturating_mul(sim.flows.len() as u64);
            if rows > MONITOR_MAX_ROWS {
                return Err(format!(
                    "output.sample_flows: {}s over {}s for {} flows is {rows} rows, above {MONITOR_MAX_ROWS} \
                     (a longer interval, or fewer flows)",
                    iv.0.as_secs_f64(),
                    self.duration.0.as_secs_f64(),
                    sim.flows.len()
                ));
            }
            sim.memory.charge("output.sample_flows", rows as f64 * FLOW_SAMPLE_BYTES)?;
            sim.sample_flows(iv.0);
        }
        if let Some(m) = &self.output.monitor {
            let l = sim.net.link_by_any_name(&m.link).ok_or_else(|| {
                format!(
                    "output.monitor.link: unknown link {:?} (links are named \"a->b\" or \"a-to-b\", e.g. {:?})",
                    m.link,
                    sim.net.links.first().map(|l| l.name.as_str()).unwrap_or("")
                )
            })?;
            let iv = m.interval.0;
            if iv == SimTime::ZERO || self.duration.0.ns() / iv.ns() > MONITOR_MAX_ROWS {
                return Err(format!(
                    "output.monitor.interval: must be above 0 and at least duration / {MONITOR_MAX_ROWS} = {}s (got {}s)",
                    self.duration.0.as_secs_f64() / MONITOR_MAX_ROWS as f64,
                    iv.as_secs_f64()
                ));
            }
            sim.monitor(l, iv);
        }
        sim.trace_by_name(&self.output.pcap, "output.pcap", self.output.pcap_snaplen)?;
        sim.charge_traces("output.pcap", self.duration.0)?;
        Ok(sim)
    }

    fn add_traffic(&self, sim: &mut Sim, k: usize, t: &TrafficSpec, seed: u64, end: SimTime) -> Result<(), String> {
        let path = format!("traffic[{k}]");
        let (from, to, count, tcp) = match t {
            TrafficSpec::Bulk(BulkSpec { from, to, count, tcp, .. })
            | TrafficSpec::Flow(FlowSpecToml { from, to, count, tcp, .. })
            | TrafficSpec::Poisson(PoissonSpec { from, to, count, tcp, .. }) => (from, to, *count, tcp),
            TrafficSpec::BackToBack(_) | TrafficSpec::Web(_) => {
                return riops::add_traffic(self, sim, k, t, seed, end);
            }
            TrafficSpec::Workload(_) | TrafficSpec::Incast(_) => {
                return workload::add_traffic(self, sim, k, t, seed, end);
            }
            TrafficSpec::Cbr(_) | TrafficSpec::OnOff(_) | TrafficSpec::MbsProbe(_) | TrafficSpec::SpAttack(_) => {
                return add_raw(sim, k, t, seed, end);
            }
        };
        let (params, cc_name) = tcp.resolve_over(&self.tcp, &format!("{path}.tcp"))?;
        sim.tcp_configs.push((path.clone(), tcp_config_line(&params, &cc_name)));
        let size_of = |bytes: Option<u64>, pkts: Option<u64>| -> Result<u64, String> {
            match (bytes, pkts) {
                (Some(b), None) if b > 0 => Ok(b),
                (None, Some(p)) if p > 0 => p
                    .checked_mul(params.mss as u64)
                    .filter(|&b| b < UNLIMITED)
                    .ok_or_else(|| format!("{path}.size_pkts: too large")),
                (Some(_), Some(_)) => Err(format!("{path}: give size_bytes or size_pkts, not both")),
                (None, None) => Err(format!("{path}: size_bytes or size_pkts is required")),
                (Some(_), None) => Err(format!("{path}.size_bytes: must be at least 1 (got 0)")),
                _ => Err(format!("{path}.size_pkts: must be at least 1 (got 0)")),
            }
        };
        for i in 0..count {
            let src = node_of(sim, &from.replace("{i}", &i.to_string()), &format!("{path}.from"))?;
            let dst = node_of(sim, &to.replace("{i}", &i.to_string()), &format!("{path}.to"))?;
            if src == dst {
                return Err(format!("{path}: from and to are the same node"));
            }
            let mut rng = Rng::stream(seed, STREAM_TRAFFIC + ((k as u64) << 12) + i as u64);
            let cc = cc_name.build();
            match t {
                TrafficSpec::Bulk(BulkSpec { start, start_jitter, .. }) => {
                    let st = start.0 + SimTime((rng.uniform() * start_jitter.0.ns() as f64) as u64);
                    sim.add_flow(src, dst, params, cc, UNLIMITED, st).map_err(|e| format!("{path}: {e}"))?;
                }
                TrafficSpec::Flow(FlowSpecToml { size_bytes, size_pkts, start, start_jitter, .. }) => {
                    let size = size_of(*size_bytes, *size_pkts)?;
                    let st = start.0 + SimTime((rng.uniform() * start_jitter.0.ns() as f64) as u64);
                    sim.add_flow(src, dst, params, cc, size, st).map_err(|e| format!("{path}: {e}"))?;
                }
                TrafficSpec::Poisson(PoissonSpec { rate_per_s, size_bytes, size_pkts, start, stop, .. }) => {
                    if rate_per_s.is_nan() || *rate_per_s <= 0.0 || !rate_per_s.is_finite() {
                        return Err(format!("{path}.rate_per_s: must be > 0"));
                    }
                    let size = size_of(*size_bytes, *size_pkts)?;
                    sim.route_id(src, dst).map_err(|e| format!("{path}: {e}"))?;
                    sim.route_id(dst, src).map_err(|e| format!("{path}: {e}"))?;
                    let flow = FlowSpec { src, dst, params, cc: cc_name.clone(), size };
                    let stop = stop.map_or(end, |s| s.0);
                    sim.add_generator(Generator {
                        kind: GenKind::Poisson { rate_per_s: *rate_per_s, start: start.0, stop, flow },
                        rng,
                    });
                }
                TrafficSpec::BackToBack(_) | TrafficSpec::Web(_) => unreachable!("routed to riops above"),
                TrafficSpec::Workload(_) | TrafficSpec::Incast(_) => unreachable!("routed to workload above"),
                TrafficSpec::Cbr(_) | TrafficSpec::OnOff(_) | TrafficSpec::MbsProbe(_) | TrafficSpec::SpAttack(_) => {
                    unreachable!("routed to add_raw above")
                }
            }
        }
        Ok(())
    }
}

/// The resolved congestion control, recovery, reordering response and gate of a traffic
/// entry, as the results' `tcp_configs` record them.
fn tcp_config_line(params: &TcpParams, cc: &cc::CcConfig) -> String {
    format!("cc: {cc:?}; recovery: {:?}; reordering: {:?}; gate: {:?}", params.recovery, params.reordering, params.gate)
}

/// The fastest non-TCP source, packets a second (an attacker's `rate_pps` bound too):
/// each packet is an event, so a faster one piles events up faster than any run ends.
pub const MAX_SOURCE_PPS: f64 = 1e8;

/// Adds the non-TCP sources of traffic entry `k` (cbr, onoff, mbs_probe).
fn add_raw(sim: &mut Sim, k: usize, t: &TrafficSpec, seed: u64, end: SimTime) -> Result<(), String> {
    let path = format!("traffic[{k}]");
    let check_bytes = |b: u32, field: &str| -> Result<u32, String> {
        if !(28..=65_535).contains(&b) {
            return Err(format!("{path}.{field}: must be 28..65535 wire bytes (got {b})"));
        }
        Ok(b)
    };
    let (from, to, count) = match t {
        TrafficSpec::Cbr(c) => (&c.from, &c.to, c.count),
        TrafficSpec::OnOff(c) => (&c.from, &c.to, c.count),
        TrafficSpec::MbsProbe(c) => (&c.from, &c.to, 1),
        TrafficSpec::SpAttack(c) => (&c.from, &c.to, 1),
        _ => unreachable!("add_raw is for raw kinds"),
    };
    for i in 0..count {
        let src = node_of(sim, &from.replace("{i}", &i.to_string()), &format!("{path}.from"))?;
        let dst = node_of(sim, &to.replace("{i}", &i.to_string()), &format!("{path}.to"))?;
        if src == dst {
            return Err(format!("{path}: from and to are the same node"));
        }
        // in a fabric, ECMP over the source's UDP 5-tuple (one path per source, as a flow)
        let fwd = sim.source_route(src, dst, true).map_err(|e| format!("{path}: {e}"))?;
        let rev = sim.source_route(dst, src, false).map_err(|e| format!("{path}: {e}"))?;
        let rng = Rng::stream(seed, STREAM_TRAFFIC + ((k as u64) << 12) + i as u64);
        let stop_of = |s: &Option<Dur>| s.map_or(end, |d| d.0.min(end));
        // a stream's rate (at most MAX_SOURCE_PPS packets a second, as an attacker's) and
        // its period (stop after start), as workload and incast check theirs
        let check_stream = |rate: Rate, b: u32, start: Dur, stop: Option<Dur>| -> Result<(), String> {
            let pps = rate.0 .0 as f64 / (8.0 * b as f64);
            if pps > MAX_SOURCE_PPS {
                return Err(format!(
                    "{path}.rate: at most {MAX_SOURCE_PPS:e} packets/s of packet_bytes {b} (got {pps:.3e}); \
                     use larger packets or a lower rate"
                ));
            }
            if let Some(stop) = stop.filter(|s| s.0 <= start.0) {
                return Err(format!(
                    "{path}.stop: must be after start ({} <= {})",
                    crate::core::schema::format_duration(stop.0),
                    crate::core::schema::format_duration(start.0)
                ));
            }
            Ok(())
        };
        let kind = match t {
            TrafficSpec::Cbr(c) => {
                let b = check_bytes(c.packet_bytes, "packet_bytes")?;
                check_stream(c.rate, b, c.start, c.stop)?;
                RawKind::Stream(Stream::new(c.rate.0 .0 as f64, b, None, c.start.0, stop_of(&c.stop)))
            }
            TrafficSpec::OnOff(c) => {
                let b = check_bytes(c.packet_bytes, "packet_bytes")?;
                check_stream(c.rate, b, c.start, c.stop)?;
                if c.on_time.0 == SimTime::ZERO {
                    return Err(format!("{path}.on_time: must be > 0"));
                }
                let how = match c.distribution {
                    PeriodsSpec::Exponential => Periods::Exponential,
                    PeriodsSpec::Fixed => Periods::Fixed,
                };
                let p = Some((c.on_time.0, c.off_time.0, how));
                RawKind::Stream(Stream::new(c.rate.0 .0 as f64, b, p, c.start.0, stop_of(&c.stop)))
            }
            TrafficSpec::MbsProbe(c) => {
                let d = ProbeParams::default();
                let p = ProbeParams {
                    pkt_bytes: check_bytes(c.packet_bytes.unwrap_or(d.pkt_bytes), "packet_bytes")?,
                    trials: c.trials.unwrap_or(d.trials),
                    max_train: c.max_train.unwrap_or(d.max_train),
                    resolution: c.resolution.unwrap_or(d.resolution),
                    fac_train: c.fac_train.unwrap_or(d.fac_train),
                    fac_epsilon: c.fac_epsilon.unwrap_or(d.fac_epsilon),
                    fac_rounds: c.fac_rounds.unwrap_or(d.fac_rounds),
                    init_timeout: c.init_timeout.map_or(d.init_timeout, |x| x.0),
                    start: c.start.0,
                };
                if p.trials == 0 || p.trials > 100 {
                    return Err(format!("{path}.trials: must be 1..100 (got {})", p.trials));
                }
                if !(2..=1_000_000).contains(&p.max_train) {
                    return Err(format!("{path}.max_train: must be 2..1000000 packets (got {})", p.max_train));
                }
                if !(0.0..0.5).contains(&p.resolution) {
                    return Err(format!("{path}.resolution: must be in [0, 0.5) (got {})", p.resolution));
                }
                if p.fac_train < 2 {
                    return Err(format!("{path}.fac_train: must be >= 2 packets (got {})", p.fac_train));
                }
                if !(p.fac_epsilon > 0.0 && p.fac_epsilon < 1.0) {
                    return Err(format!("{path}.fac_epsilon: must be in (0, 1) (got {})", p.fac_epsilon));
                }
                if p.fac_rounds == 0 || p.fac_rounds > 1000 {
                    return Err(format!("{path}.fac_rounds: must be 1..1000 (got {})", p.fac_rounds));
                }
                if p.init_timeout == SimTime::ZERO {
                    return Err(format!("{path}.init_timeout: must be > 0"));
                }
                let first = sim.route(fwd)[0];
                let line = sim.net.links[first as usize].rate.0 as f64;
                RawKind::Probe(Box::new(MbsProbe::new(p, line)))
            }
            TrafficSpec::SpAttack(c) => {
                let mode = match c.attack.as_str() {
                    "spoof_flood" => AttackMode::SpoofFlood,
                    "bloom_pollution" => AttackMode::BloomPollution,
                    "outstanding_drain" => AttackMode::OutstandingDrain,
                    "epoch_sync" => AttackMode::EpochSync,
                    other => {
                        return Err(format!(
                            "{path}.attack: unknown attack {other:?} (spoof_flood, bloom_pollution, outstanding_drain, epoch_sync)"
                        ))
                    }
                };
                if !(c.rate_pps.is_finite() && c.rate_pps > 0.0 && c.rate_pps <= MAX_SOURCE_PPS) {
                    return Err(format!("{path}.rate_pps: must be in (0, 1e8] packets/s (got {})", c.rate_pps));
                }
                let b = check_bytes(c.packet_bytes, "packet_bytes")?;
                if c.len == 0 {
                    return Err(format!("{path}.len: must be >= 1 packet"));
                }
                if c.epoch.0 == SimTime::ZERO {
                    return Err(format!("{path}.epoch: must be > 0"));
                }
                if c.aim_slots != 0 && !(c.aim_slots.is_power_of_two() && c.aim_slots <= 1 << 26) {
                    return Err(format!(
                        "{path}.aim_slots: must be 0 or a power of two up to 2^26 (got {})",
                        c.aim_slots
                    ));
                }
                if !(1..=4096).contains(&c.aim_per_victim) {
                    return Err(format!("{path}.aim_per_victim: must be 1..4096 (got {})", c.aim_per_victim));
                }
                let mut victims = Vec::new();
                for (j, v) in c.victims.iter().enumerate() {
                    victims.push(node_of(sim, v, &format!("{path}.victims[{j}]"))?);
                }
                if victims.is_empty() && (mode == AttackMode::OutstandingDrain || c.aim_slots > 0) {
                    return Err(format!("{path}.victims: {} needs at least one victim node", mode.name()));
                }
                let first = sim.route(fwd)[0];
                let line = sim.net.links[first as usize].rate.0 as f64;
                let mut a = Attacker::new(
                    mode,
                    c.rate_pps,
                    b,
                    c.len,
                    c.start.0,
                    stop_of(&c.stop),
                    src,
                    dst,
                    victims,
                    c.epoch.0,
                    line,
                );
                if c.aim_slots > 0 {
                    a.aim(c.aim_slots, c.aim_per_victim as usize);
                }
                RawKind::Attack(Box::new(a))
            }
            _ => unreachable!(),
        };
        sim.add_source(RawSource {
            traffic: path.clone(),
            src,
            dst,
            fwd,
            rev,
            kind,
            rng,
            stats: Default::default(),
            wake_at: None,
        });
    }
    Ok(())
}

/// The first NaN or infinite number in a TOML document, as a one-line error naming it.
fn non_finite(v: &toml::Value, path: &mut String) -> Result<(), String> {
    match v {
        toml::Value::Float(x) if !x.is_finite() => Err(format!("{path}: must be a finite number (got {x})")),
        toml::Value::Table(t) => {
            for (k, x) in t {
                let n = path.len();
                if n > 0 {
                    path.push('.');
                }
                path.push_str(k);
                non_finite(x, path)?;
                path.truncate(n);
            }
            Ok(())
        }
        toml::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let n = path.len();
                path.push_str(&format!("[{i}]"));
                non_finite(x, path)?;
                path.truncate(n);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn node_of(sim: &Sim, name: &str, path: &str) -> Result<u32, String> {
    sim.net.node(name).ok_or_else(|| {
        let names: Vec<&str> = sim.net.node_names().take(8).collect();
        format!(
            "{path}: unknown node {name:?} (nodes: {}{})",
            names.join(", "),
            if sim.net.nodes.len() > 8 { ", ..." } else { "" }
        )
    })
}

struct Builder<'a> {
    net: &'a mut Network,
    seed: u64,
    /// The run's memory, charged before each table is allocated (memory.rs).
    mem: &'a mut MemoryEstimate,
    /// The run's duration (what a link's pipe may come to hold).
    duration: SimTime,
}

impl Builder<'_> {
    fn node(&mut self, name: &str) -> Result<u32, String> {
        self.net.add_node(name)
    }

    fn duplex(&mut self, a: &str, b: &str, spec: &LinkSpec, path: &str) -> Result<(), String> {
        let na = self.net.node(a).ok_or_else(|| format!("{path}.a: unknown node {a:?}"))?;
        let nb = self.net.node(b).ok_or_else(|| format!("{path}.b: unknown node {b:?}"))?;
        if !(0.0..1.0).contains(&spec.loss) {
            return Err(format!("{path}.loss: must be in [0, 1) (got {})", spec.loss));
        }
        for (x, y, q) in [(na, nb, &spec.queue), (nb, na, spec.reverse_queue.as_ref().unwrap_or(&spec.queue))] {
            self.mem.charge(&format!("{path}.queue.bloom_bits"), costs::queue_bytes(q))?;
            self.mem.charge(&format!("{path}.delay"), costs::pipe_bytes(spec.rate.0, spec.delay.0, self.duration))?;
            if let (true, Some(c)) = (x == na, &spec.classifier) {
                self.mem.charge(&format!("{path}.classifier.max_flows"), costs::classifier_bytes(c))?;
            }
            let id = self.net.links.len() as u64;
            let disc = q.build(spec.rate.0, Rng::stream(self.seed, STREAM_QUEUE + id), &format!("{path}.queue"))?;
            let name = format!("{}->{}", self.net.nodes[x as usize].name, self.net.nodes[y as usize].name);
            let mut link = Link::new(
                name,
                x,
                y,
                spec.rate.0,
                spec.delay.0,
                disc,
                spec.loss,
                Rng::stream(self.seed, STREAM_LINK_LOSS + id),
            );
            if let (true, Some(c)) = (x == na, &spec.classifier) {
                riops::own_classifier(self.net, &mut link, c, self.seed, path)?;
            }
            self.net.add_link(link);
        }
        Ok(())
    }
}
