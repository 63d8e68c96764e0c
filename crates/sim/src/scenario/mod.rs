//! Scenario files: one schema, defined here once with serde (`deny_unknown_fields`).
//! TOML from files, JSON from Python dicts; both go through the same types, and every
//! error names the field path (`topology.bottleneck.queue.limit: ...`).
//!
//! Units: rates are strings with a unit ("10Gbps", "1.25Mbps"); times are strings with a
//! unit ("25us", "200ms", "5s"); queue limits are packets unless `unit = "bytes"`.
//! Every field, its type, unit, default and limits: docs/schema.md, generated from these
//! types and their doc comments (schema.rs, `make schema`); examples/ has whole scenarios.
//!
//! Checks come in two kinds. What needs nothing built is each table's `Validate`
//! (core/check.rs), walked by `Scenario::validate` in the validate phase, before the cost
//! and every build: the duration, the topology with its links and queues, the reordering
//! stages, the traffic entries, the outputs' interval. What needs the built network (node
//! and link names, routes, link rates, the flows of the built simulation, whether any
//! queue marks ECN) stays in its build phase, each marked by a one-line comment; so do,
//! for now, the `[tcp]` tables (resolved when their flows are built), the classifiers and
//! the output intervals bounded by the duration.

pub mod common;
pub mod costs;
pub mod fabric;
pub mod links;
pub mod output;
pub mod queue;
pub mod recovery;
pub mod registry;
pub mod reorder;
/// The RIO-PS edge classifier's table.
pub mod riops;
pub mod schema;
pub mod tcp;
pub mod tcp_choices;
pub mod topology;
/// The traffic kinds' registry, one file per kind.
pub mod traffic;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::core::check::Validate;
use crate::core::memory::MemoryEstimate;
use crate::core::time::SimTime;
use crate::engine::sim::Sim;
use crate::net::ingress::SourceFilter;
use crate::net::topology::Network;

use self::common::{de_path, plain_types, split_path, with_suggestion, Dur};
use self::links::Builder;
use self::output::OutputSpec;
use self::reorder::ReorderSpec;
use self::tcp::TcpSpec;
use self::topology::TopologySpec;
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
    /// Nodes that validate sources on every port (ingress filtering, BCP 38 / RFC 3704
    /// feasible-path reverse-path forwarding, net/ingress.rs): a packet whose source
    /// could not have reached the node by the port it came in on (a spoofed address) is
    /// dropped there, counted as `drops_source_invalid` on the link it would have left by.
    #[serde(default)]
    pub source_validation: Vec<String>,
    /// The TOML text the scenario was read from (`from_toml_str`): errors found while
    /// building name the line of the field they are about.
    #[serde(skip)]
    #[schemars(skip)]
    pub(crate) source: Option<std::sync::Arc<str>>,
}

impl Scenario {
    /// A scenario file's text; an error in a field ends with the line of the file that
    /// sets it (or of the nearest table above it that the file has): "(line 12)".
    pub fn from_toml_str(s: &str) -> Result<Scenario, String> {
        let mut sc = Self::from_value(Self::toml_to_json(s)?).map_err(|e| with_line(s, e))?;
        sc.source = Some(s.into());
        Ok(sc)
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
            let msg = plain_types(&with_suggestion(msg));
            if path.is_empty() {
                msg
            } else {
                format!("{path}: {msg}")
            }
        })?;
        Ok(sc)
    }

    /// Builds the network, the flows and the generators; validates what serde cannot.
    /// The phases, in order (each error names its field): validate, cost (every traffic
    /// entry charged to the memory estimate before anything is allocated), topology
    /// (with the reordering stages), traffic, outputs.
    pub fn build(&self, seed: Option<u64>) -> Result<Sim, String> {
        self.build_phases(seed).map_err(|e| match &self.source {
            Some(text) => with_line(text, e),
            None => e,
        })
    }

    fn build_phases(&self, seed: Option<u64>) -> Result<Sim, String> {
        let seed = seed.or(self.seed).unwrap_or(1);
        self.validate()?;
        let mut mem = self.cost()?;
        let (net, filter, warnings) = self.network(seed, &mut mem)?;
        let mut sim = Sim::new(net, seed);
        sim.source_filter = filter;
        sim.warnings = warnings;
        // the estimate goes with the simulation: entries whose flow count needs the built
        // network (workload, incast: the hosts' link rates) charge it as they are added
        sim.memory = mem;
        for (k, t) in self.traffic.iter().enumerate() {
            t.build(&self.tcp, &mut sim, k, seed, self.duration.0)?;
        }
        self.check_ecn_marking(&sim)?;
        self.output.attach(&mut sim, self.duration.0)?;
        Ok(sim)
    }

    /// A congestion control that works on ECN marks (DCTCP, RFC 8257) where no queue of
    /// the built network marks packets: its window law would never see a mark and it would
    /// run as a loss-based TCP without saying so. Refused, naming where the control is set.
    fn check_ecn_marking(&self, sim: &Sim) -> Result<(), String> {
        // needs the built network (whether any of its queues marks): a build-phase check
        if sim.net.links.iter().any(|l| l.marks_ecn()) {
            return Ok(());
        }
        for (k, t) in self.traffic.iter().enumerate() {
            for (sub, spec) in t.tcp_tables(&self.tcp) {
                let path = format!("traffic[{k}]{sub}.tcp");
                let (_, cc) = spec.resolve(&path)?;
                if cc.needs_ecn() {
                    // the scenario's [tcp] when neither the entry nor its sub-table set it
                    let set_here = match (sub, t) {
                        ("", _) => t.tcp_tables(&TcpSpec::default())[0].1.cc.is_some(),
                        _ => true,
                    };
                    let at = if set_here { format!("{path}.cc") } else { "tcp.cc".to_string() };
                    return Err(format!(
                        "{at}: {} reacts to ECN marks, but no queue in the network marks packets \
                         (give a droptail queue an ecn_threshold, or a red or rio queue ecn = true)",
                        cc.name()
                    ));
                }
            }
        }
        Ok(())
    }

    /// The validate phase: every check of the tree that serde cannot make and nothing
    /// built is needed for (`Validate`, core/check.rs), each table at its field path.
    fn validate(&self) -> Result<(), String> {
        if self.duration.0 == SimTime::ZERO {
            return Err("duration: must be > 0".into());
        }
        self.topology.validate("topology")?;
        for (i, r) in self.reorder.iter().enumerate() {
            r.validate(&format!("reorder[{i}]"))?;
        }
        for (k, t) in self.traffic.iter().enumerate() {
            t.validate(&format!("traffic[{k}]"))?;
        }
        self.output.validate("output")?;
        Ok(())
    }

    /// The run's memory: every traffic entry charged before anything is built, each
    /// table before it is allocated (core/memory.rs); nothing past the budget is allocated.
    fn cost(&self) -> Result<MemoryEstimate, String> {
        let mut mem = MemoryEstimate::new(MemoryEstimate::budget_of(self.output.memory_budget.as_deref())?);
        for (k, t) in self.traffic.iter().enumerate() {
            t.charge(&mut mem, &format!("traffic[{k}]"), self.duration.0)?;
        }
        Ok(mem)
    }

    /// The topology phase: the network and its reordering stages.
    fn network(&self, seed: u64, mem: &mut MemoryEstimate) -> Result<(Network, SourceFilter, Vec<String>), String> {
        let mut net = Network::default();
        let mut b = Builder { net: &mut net, seed, mem, duration: self.duration.0, warnings: Vec::new() };
        self.topology.build(&mut b)?;
        let warnings = b.warnings;
        for (i, r) in self.reorder.iter().enumerate() {
            r.attach(&mut net, seed, &format!("reorder[{i}]"), mem, self.duration.0)?;
        }
        let mut filter = SourceFilter::default();
        for (i, name) in self.source_validation.iter().enumerate() {
            // a node name: needs the built network
            let node = net
                .node(name)
                .ok_or_else(|| format!("source_validation[{i}]: no node named {name:?} in the topology"))?;
            filter.add_node(&mut net, node);
        }
        for l in net.links.iter_mut() {
            // a queue that counts pairs per ingress port (the super-packet port quota)
            l.ingress_hook |= l.disc.wants_ingress();
        }
        Ok((net, filter, warnings))
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

/// `e` ("path: message") with " (line N)" appended when `text` sets that field.
fn with_line(text: &str, e: String) -> String {
    match e.split_once(": ").and_then(|(p, _)| line_of(text, p)) {
        Some(n) => format!("{e} (line {n})"),
        None => e,
    }
}

/// The line of TOML text `text` that holds field `path` ("traffic[0].tcp.cc"): its key's
/// line, or that of the deepest table or array element on the way that the text has.
/// None for a path the text does not reach at all (or text that does not parse).
fn line_of(text: &str, path: &str) -> Option<usize> {
    use toml::de::{DeTable, DeValue};
    if path.is_empty() || path.contains(' ') {
        return None;
    }
    let root = DeTable::parse(text).ok()?;
    let mut table = Some(root.get_ref());
    let mut at: Option<usize> = None;
    for seg in path.split('.') {
        let (key, rest) = seg.split_once('[').map_or((seg, ""), |(k, r)| (k, r));
        let Some((k, mut v)) = table.and_then(|t| t.iter().find(|(k, _)| k.get_ref() == key)) else { break };
        at = Some(k.span().start);
        for idx in rest.split('[').filter(|x| !x.is_empty()) {
            let i: usize = idx.trim_end_matches(']').parse().ok()?;
            match v.get_ref() {
                DeValue::Array(a) if i < a.len() => {
                    v = &a[i];
                    at = Some(v.span().start);
                }
                _ => return at.map(|p| text[..p.min(text.len())].matches('\n').count() + 1),
            }
        }
        table = match v.get_ref() {
            DeValue::Table(t) => Some(t),
            _ => None,
        };
    }
    at.map(|p| text[..p.min(text.len())].matches('\n').count() + 1)
}
