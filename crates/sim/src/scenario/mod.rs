//! Scenario files: one schema, defined here once with serde (`deny_unknown_fields`).
//! TOML from files, JSON from Python dicts; both go through the same types, and every
//! error names the field path (`topology.bottleneck.queue.limit: ...`).
//!
//! Units: rates are strings with a unit ("10Gbps", "1.25Mbps"); times are strings with a
//! unit ("25us", "200ms", "5s"); queue limits are packets unless `unit = "bytes"`.
//! Every field, its type, unit, default and limits: docs/schema.md, generated from these
//! types and their doc comments (schema.rs, `make schema`); examples/ has whole scenarios.

pub mod common;
pub mod costs;
pub mod fabric;
pub mod gate;
pub mod links;
pub mod output;
pub mod queue;
pub mod recovery;
pub mod registry;
pub mod reorder;
/// The RIO-PS pieces of the schema: rio/riops queues, edge classifiers, back_to_back and
/// web traffic.
pub mod riops;
pub mod schema;
pub mod tcp;
pub mod topology;
pub mod traffic;
/// The datacenter workloads (traffic/workload.rs, traffic/cdf.rs): workload and incast traffic.
pub mod workload;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::core::memory::MemoryEstimate;
use crate::core::time::SimTime;
use crate::engine::sim::Sim;
use crate::net::topology::Network;

use self::common::{de_path, split_path, Dur, FLOW_SAMPLE_BYTES, MAX_HOSTS, MONITOR_MAX_ROWS};
use self::links::{Builder, LinkSpec};
use self::output::OutputSpec;
use self::reorder::ReorderSpec;
use self::tcp::TcpSpec;
use self::topology::{ChainSpec, DumbbellSpec, GraphSpec, StarSpec, TopologySpec};
use self::traffic::TrafficSpec;

/// Deserialises `v` and reports errors as "@path@ message" so that nested tagged enums
/// (which serde buffers, losing the path) still name the full field path.
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
            traffic::add_traffic(&self.tcp, &mut sim, k, t, seed, end)?;
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
