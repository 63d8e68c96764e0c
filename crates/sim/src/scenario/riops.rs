//! Scenario schema of the RIO-PS pieces (issue 4; seeds/001): the edge classifier
//! (`classifier` on a link, `edge_classifier` on a dumbbell) and the `back_to_back` and
//! `web` traffic kinds (the `rio` and `riops` queue kinds' table is in net/queue/rio.rs). A child module of scenario.rs (it
//! shares its private helpers); scenario.rs only routes to it.
//!
//! ```toml
//! bottleneck = { rate = "8Mbps", delay = "48ms", queue = { kind = "riops", limit = 500, ecn = true,
//!     short = { min_th = 75, max_th = 175, p_max = 0.05 }, long = { min_th = 75, max_th = 250, p_max = 0.1 } } }
//! edge_classifier = { lt = 20, slr = 3, tc = "10s", tu = "1s", max_flows = 4096 }
//! [[traffic]]
//! kind = "back_to_back"           # the next flow opens when the previous completes
//! from = "s{i}"; to = "d{i}"; count = 10; size_pkts = 100; start_jitter = "1s"
//! [[traffic]]
//! kind = "web"                    # sessions of pages of objects, one connection each
//! servers = "s{i}"; server_count = 10; clients = "d{i}"; client_count = 10; sessions = 134
//! ```

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::common::{node_of, Dur};
use super::tcp::TcpSpec;
use crate::core::packet::LinkId;
use crate::core::rng::Rng;
use crate::core::time::SimTime;
use crate::engine::sim::Sim;
use crate::net::classifier::{Classifier, ClassifierConfig};
use crate::net::link::Link;
use crate::net::topology::Network;
use crate::tcp::UNLIMITED;
use crate::traffic::closed_loop::BackToBack;
use crate::traffic::web::{WebModel, WebSession};
use crate::traffic::{FlowSpec, GenKind, Generator};

/// Random streams of this module (rng.rs), apart from scenario.rs's.
const STREAM_CLASSIFIER: u64 = 1 << 40;
const STREAM_B2B: u64 = 2 << 40;
const STREAM_WEB: u64 = 3 << 40;

fn d_lt() -> u32 {
    20
}
fn d_tc() -> Dur {
    Dur(SimTime::from_secs(10))
}
fn d_tu() -> Dur {
    Dur(SimTime::from_secs(1))
}
fn d_cls_max_flows() -> u32 {
    4096
}
fn d_lt_max() -> u32 {
    10_000
}

/// The edge classifier (classifier.rs): per-flow packet counts, In while count <= L_t.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassifierSpec {
    /// Initial L_t (packets), in [lt_min, lt_max].
    #[serde(default = "d_lt")]
    pub lt: u32,
    /// Target short-to-long ratio of active flows, above 0; absent: L_t stays fixed.
    #[serde(default)]
    pub slr: Option<f64>,
    /// Adjustment period T_c; above 0.
    #[serde(default = "d_tc")]
    pub tc: Dur,
    /// Idle time T_u after which a flow's entry is removed; above 0.
    #[serde(default = "d_tu")]
    pub tu: Dur,
    /// Flow-table capacity, 1..=2^28; when full, packets of new flows are tagged Out.
    /// Each table (~48 bytes per entry, allocated at once, one per link that has it) is
    /// charged to the run's memory estimate (scenario/costs.rs `classifier_bytes`).
    #[serde(default = "d_cls_max_flows")]
    pub max_flows: u32,
    /// Smallest L_t the adjustment may set, packets; 1..=lt_max.
    #[serde(default = "super::queue::d_one_u32")]
    pub lt_min: u32,
    /// Largest L_t the adjustment may set, packets; at most 2^20.
    #[serde(default = "d_lt_max")]
    pub lt_max: u32,
}

impl ClassifierSpec {
    /// Builds a classifier named `name` into `net` and returns its index.
    pub(super) fn add_to(&self, net: &mut Network, name: String, seed: u64, path: &str) -> Result<u32, String> {
        let id = net.classifiers.len() as u64;
        let mut rng = Rng::stream(seed, STREAM_CLASSIFIER + id);
        let cfg = ClassifierConfig {
            lt: self.lt,
            slr: self.slr,
            tc: self.tc.0,
            tu: self.tu.0,
            max_flows: self.max_flows,
            lt_min: self.lt_min,
            lt_max: self.lt_max,
            // a per-classifier secret, drawn from the run's seed
            key: [rng.next_u64(), rng.next_u64()],
        };
        let c = Classifier::new(name, cfg).map_err(|e| format!("{path}.{e}"))?;
        net.classifiers.push(c);
        Ok(id as u32)
    }
}

/// Sets classifier `c` on the links `ids` (one table shared by all: an edge router).
pub(super) fn attach(net: &mut Network, c: u32, ids: &[LinkId]) {
    for &l in ids {
        net.links[l as usize].classifier = Some(c);
    }
}

/// Gives link `link` (direction a -> b of a duplex link) its own classifier.
pub(super) fn own_classifier(
    net: &mut Network,
    link: &mut Link,
    spec: &ClassifierSpec,
    seed: u64,
    path: &str,
) -> Result<(), String> {
    let c = spec.add_to(net, format!("classifier@{}", link.name), seed, &format!("{path}.classifier"))?;
    link.classifier = Some(c);
    Ok(())
}

/// Flows of a fixed size, each opening when the source's previous flow completes.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackToBackSpec {
    /// Node names with "{i}", i in first..first+count.
    pub from: String,
    /// Destination node name, "{i}" as in `from`.
    pub to: String,
    /// Sources (values of {i}), at least 1.
    #[serde(default = "super::queue::d_one")]
    pub count: u32,
    /// The first value of {i}.
    #[serde(default)]
    pub first: u32,
    /// Payload bytes per flow, at least 1; give this or `size_pkts`, not both.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// Full segments (mss bytes each) per flow, at least 1; give this or `size_bytes`, not
    /// both.
    #[serde(default)]
    pub size_pkts: Option<u64>,
    /// Time the sources start (each plus its jitter).
    #[serde(default)]
    pub start: Dur,
    /// Each source starts at start + uniform[0, start_jitter).
    #[serde(default)]
    pub start_jitter: Dur,
    /// No flow opens at or after `stop` (default: the end of the run).
    #[serde(default)]
    pub stop: Option<Dur>,
    /// At most this many flows per source, at least 1; unset: no limit.
    #[serde(default)]
    pub max_flows: Option<u64>,
    /// TCP settings of this entry's flows, over the scenario's `[tcp]` table.
    #[serde(default)]
    pub tcp: TcpSpec,
}

fn d_inter_page() -> Dur {
    Dur(SimTime::from_ms(9_500))
}
fn d_inter_object() -> Dur {
    Dur(SimTime::from_ms(50))
}
fn d_objects_min() -> u32 {
    2
}
fn d_objects_max() -> u32 {
    7
}
fn d_size_min() -> f64 {
    4.0
}
fn d_size_max() -> f64 {
    200_000.0
}
fn d_shape() -> f64 {
    1.2
}

/// Web sessions (traffic/web.rs); the defaults are the paper's model.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSpec {
    /// Server pool: a node name with "{i}", i in server_first..server_first+server_count.
    pub servers: String,
    /// Servers in the pool, at least 1.
    #[serde(default = "super::queue::d_one")]
    pub server_count: u32,
    /// The first value of {i} in `servers`.
    #[serde(default)]
    pub server_first: u32,
    /// Client pool (as the servers); session j browses from client j mod client_count.
    pub clients: String,
    /// Clients in the pool, at least 1.
    #[serde(default = "super::queue::d_one")]
    pub client_count: u32,
    /// The first value of {i} in `clients`.
    #[serde(default)]
    pub client_first: u32,
    /// Web sessions, 1..=2^20.
    pub sessions: u32,
    /// Mean time between pages of a session (exponential); above 0.
    #[serde(default = "d_inter_page")]
    pub inter_page: Dur,
    /// Mean time between objects of a page (exponential); above 0.
    #[serde(default = "d_inter_object")]
    pub inter_object: Dur,
    /// Fewest objects per page; 1..=objects_max.
    #[serde(default = "d_objects_min")]
    pub objects_min: u32,
    /// Most objects per page (uniform between the two); at most 100,000
    /// (`MAX_OBJECTS_PER_PAGE`, traffic/web.rs).
    #[serde(default = "d_objects_max")]
    pub objects_max: u32,
    /// Bounded Pareto object size minimum (bytes); above 0, below `size_max_bytes`.
    #[serde(default = "d_size_min")]
    pub size_min_bytes: f64,
    /// Bounded Pareto object size maximum (bytes); above `size_min_bytes`.
    #[serde(default = "d_size_max")]
    pub size_max_bytes: f64,
    /// Bounded Pareto shape; above 0 and not 1.
    #[serde(default = "d_shape")]
    pub shape: f64,
    /// Time the first session starts.
    #[serde(default)]
    pub start: Dur,
    /// No page starts at or after this time (default: the end of the run).
    #[serde(default)]
    pub stop: Option<Dur>,
    /// TCP settings of this entry's flows, over the scenario's `[tcp]` table.
    #[serde(default)]
    pub tcp: TcpSpec,
}

fn nodes(sim: &Sim, pattern: &str, first: u32, count: u32, path: &str) -> Result<Vec<u32>, String> {
    if count == 0 {
        return Err(format!("{path}: count must be >= 1"));
    }
    (first..first.saturating_add(count)).map(|i| node_of(sim, &pattern.replace("{i}", &i.to_string()), path)).collect()
}

/// Adds a `back_to_back` traffic entry (`k`: its index).
pub(super) fn add_back_to_back(
    defaults: &TcpSpec,
    sim: &mut Sim,
    k: usize,
    b: &BackToBackSpec,
    seed: u64,
    end: SimTime,
) -> Result<(), String> {
    let path = format!("traffic[{k}]");
    let (params, cc) = b.tcp.resolve_over(defaults, &format!("{path}.tcp"))?;
    let size = match (b.size_bytes, b.size_pkts) {
        (Some(x), None) if x > 0 => x,
        (None, Some(p)) if p > 0 => p
            .checked_mul(u64::from(params.mss))
            .filter(|&x| x < UNLIMITED)
            .ok_or_else(|| format!("{path}.size_pkts: too large"))?,
        (Some(_), Some(_)) => return Err(format!("{path}: give size_bytes or size_pkts, not both")),
        (None, None) => return Err(format!("{path}: size_bytes or size_pkts is required")),
        (Some(_), None) => return Err(format!("{path}.size_bytes: must be at least 1 (got 0)")),
        _ => return Err(format!("{path}.size_pkts: must be at least 1 (got 0)")),
    };
    if b.max_flows == Some(0) {
        return Err(format!("{path}.max_flows: must be >= 1"));
    }
    let srcs = nodes(sim, &b.from, b.first, b.count, &format!("{path}.from"))?;
    let dsts = nodes(sim, &b.to, b.first, b.count, &format!("{path}.to"))?;
    for (i, (&src, &dst)) in srcs.iter().zip(&dsts).enumerate() {
        if src == dst {
            return Err(format!("{path}: from and to are the same node"));
        }
        sim.route_id(src, dst).map_err(|e| format!("{path}: {e}"))?;
        sim.route_id(dst, src).map_err(|e| format!("{path}: {e}"))?;
        let mut rng = Rng::stream(seed, STREAM_B2B + ((k as u64) << 20) + i as u64);
        let start = b.start.0 + SimTime((rng.uniform() * b.start_jitter.0.ns() as f64) as u64);
        let flow = FlowSpec { src, dst, params, cc: cc.clone(), size };
        let stop = b.stop.map_or(end, |s| s.0);
        sim.add_generator(Generator {
            kind: GenKind::BackToBack(BackToBack::new(flow, start, stop, b.max_flows)),
            rng,
        });
    }
    Ok(())
}

/// Adds a `web` traffic entry (`k`: its index).
pub(super) fn add_web(
    defaults: &TcpSpec,
    sim: &mut Sim,
    k: usize,
    w: &WebSpec,
    seed: u64,
    end: SimTime,
) -> Result<(), String> {
    let path = format!("traffic[{k}]");
    let (params, cc) = w.tcp.resolve_over(defaults, &format!("{path}.tcp"))?;
    let model = WebModel {
        inter_page_s: w.inter_page.0.as_secs_f64(),
        inter_object_s: w.inter_object.0.as_secs_f64(),
        objects_min: w.objects_min,
        objects_max: w.objects_max,
        size_min: w.size_min_bytes,
        size_max: w.size_max_bytes,
        shape: w.shape,
    };
    model.validate().map_err(|e| format!("{path}.{e}"))?;
    if w.sessions == 0 || w.sessions > 1 << 20 {
        return Err(format!("{path}.sessions: must be in 1..=2^20 (got {})", w.sessions));
    }
    for (field, n) in [("server_count", w.server_count), ("client_count", w.client_count)] {
        if n == 0 {
            return Err(format!("{path}.{field}: must be at least 1 (got 0)"));
        }
    }
    let servers: Arc<[u32]> =
        nodes(sim, &w.servers, w.server_first, w.server_count, &format!("{path}.servers"))?.into();
    let clients = nodes(sim, &w.clients, w.client_first, w.client_count, &format!("{path}.clients"))?;
    for &s in servers.iter() {
        for &c in &clients {
            if s == c {
                return Err(format!("{path}: a node is both server and client"));
            }
            sim.route_id(s, c).map_err(|e| format!("{path}: {e}"))?;
            sim.route_id(c, s).map_err(|e| format!("{path}: {e}"))?;
        }
    }
    let stop = w.stop.map_or(end, |s| s.0);
    for j in 0..w.sessions {
        let client = clients[(j % w.client_count) as usize];
        let s = WebSession::new(model, client, servers.clone(), params, cc.clone(), w.start.0, stop);
        let rng = Rng::stream(seed, STREAM_WEB + ((k as u64) << 24) + u64::from(j));
        sim.add_generator(Generator { kind: GenKind::Web(s), rng });
    }
    Ok(())
}
