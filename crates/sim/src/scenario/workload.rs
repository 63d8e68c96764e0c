//! Scenario schema of the datacenter workloads (WORKLOADS.md): the `workload` traffic kind
//! (Poisson flow arrivals per host at a target load, sizes from an empirical CDF,
//! traffic/workload.rs) and the `incast` kind (synchronised responses to one client,
//! traffic/incast.rs). A child module of scenario.rs (it shares its private helpers);
//! scenario.rs only routes to it.
//!
//! ```toml
//! [[traffic]]
//! kind = "workload"
//! hosts = ["h*"]                  # node-name patterns, `*` any run of characters
//! cdf = "web_search"              # or "data_mining", "fb_hadoop", or { file = "my_cdf.txt" }
//! load = 0.5                      # of each host's link rate (its first link, or link_rate)
//! pattern = "all_to_all"          # or "permutation"
//! short_tcp = { max_bytes = 100000, tcp = { superpacket = "flow" } }
//! [[traffic]]
//! kind = "incast"
//! client = "h0_0"; servers = ["h1_*"]; bytes = 20000; period = "10ms"; jitter = "10us"
//! ```
//!
//! Host patterns select nodes by name only (in node insertion order), so they work on
//! any topology: `h*` every host of a leaf-spine or fat tree, `h3_*` a rack, `s*` a
//! dumbbell's senders. A relative `cdf.file` path is taken from the current directory
//! of the process.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};

use super::common::{node_of, Dur, Rate};
use super::tcp::TcpSpec;
use crate::core::memory::{FLOW_ROW_BYTES, LIVE_FLOW_BYTES};
use crate::core::packet::NodeId;
use crate::core::rng::Rng;
use crate::core::time::SimTime;
use crate::engine::sim::Sim;
use crate::traffic::cdf::FlowSizeCdf;
use crate::traffic::incast::{IncastServer, Rounds};
use crate::traffic::workload::{self, derangement, Dest, ShortTcp, WorkloadSource};
use crate::traffic::{FlowSpec, GenKind, Generator};

/// Random streams of this module (rng.rs), apart from scenario.rs's and riops's.
const STREAM_WORKLOAD: u64 = 4 << 40;
const STREAM_PERMUTATION: u64 = 5 << 40;
const STREAM_INCAST: u64 = 6 << 40;
const STREAM_INCAST_ROUNDS: u64 = 7 << 40;

/// Flows one `workload` or `incast` entry may be expected to open over the run (the sum
/// over its hosts of rate x (stop - start), or rounds x servers): every flow stays in the
/// results' flow table, about 1 kB each, so 10^7 flows is ~10 GB.
pub const MAX_EXPECTED_FLOWS: f64 = 1e7;

/// `cdf`: a bundled table's name or `{ file = "path" }`.
#[derive(Clone, Debug, PartialEq)]
pub enum CdfSpec {
    /// "web_search", "data_mining" or "fb_hadoop" (crates/sim/workloads/).
    Builtin(String),
    /// A two-column file (traffic/cdf.rs has the format); relative to the current
    /// directory.
    File(String),
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CdfFile {
    /// Path of a two-column file (size_bytes, cumulative probability; traffic/cdf.rs),
    /// relative to the current directory; at most 16 MiB.
    file: String,
}

/// A bundled table's name or `{ file = "path" }`.
impl JsonSchema for CdfSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CdfSpec".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names = FlowSizeCdf::builtin_names();
        let names: Vec<&str> = names.split(", ").map(|n| n.trim_matches('"')).collect();
        crate::core::schema::name_or_table(g.subschema_for::<CdfFile>(), &names, "a bundled table")
    }
}

impl<'de> Deserialize<'de> for CdfSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = CdfSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a table name ({}) or {{ file = \"path\" }}", FlowSizeCdf::builtin_names())
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<CdfSpec, E> {
                Ok(CdfSpec::Builtin(s.to_string()))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, m: A) -> Result<CdfSpec, A::Error> {
                CdfFile::deserialize(de::value::MapAccessDeserializer::new(m)).map(|f| CdfSpec::File(f.file))
            }
        }
        d.deserialize_any(V)
    }
}

/// The largest flow-size CDF file read (a table of a few thousand rows is a few hundred
/// kB; scenario files are capped at 16 MiB likewise): a longer file, or one that never
/// ends (`/dev/zero`), is refused after reading this much.
pub const MAX_CDF_FILE_BYTES: u64 = 16 << 20;

/// A text file of at most `max` bytes.
fn read_bounded(f: &str, max: u64) -> Result<String, String> {
    use std::io::Read;
    let mut text = String::new();
    let file = std::fs::File::open(f).map_err(|e| e.to_string())?;
    file.take(max + 1).read_to_string(&mut text).map_err(|e| e.to_string())?;
    if text.len() as u64 > max {
        return Err(format!("longer than {} MiB", max >> 20));
    }
    Ok(text)
}

impl CdfSpec {
    fn load(&self, path: &str) -> Result<FlowSizeCdf, String> {
        match self {
            CdfSpec::Builtin(name) => FlowSizeCdf::builtin(name).ok_or_else(|| {
                format!(
                    "{path}: unknown table {name:?}; built in: {}, or {{ file = \"path\" }}",
                    FlowSizeCdf::builtin_names()
                )
            }),
            CdfSpec::File(f) => {
                let text =
                    read_bounded(f, MAX_CDF_FILE_BYTES).map_err(|e| format!("{path}.file: cannot read {f:?}: {e}"))?;
                FlowSizeCdf::parse(&text).map_err(|e| format!("{path}.file: {f:?} {e}"))
            }
        }
    }
}

/// Destinations of a workload.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PatternSpec {
    /// Each flow to a host drawn uniformly among the other selected hosts.
    #[default]
    AllToAll,
    /// A random derangement fixed for the run: each host sends to one other host.
    Permutation,
}

/// `short_tcp`: the TCP settings of the flows of at most `max_bytes` bytes.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShortTcpSpec {
    /// Flows with size <= max_bytes (payload bytes) use `tcp`.
    pub max_bytes: u64,
    /// Overrides over the entry's `tcp` (then the scenario's `[tcp]`).
    #[serde(default)]
    pub tcp: TcpSpec,
}

/// `kind = "workload"`: Poisson flow arrivals at each selected host at `load` of its link
/// rate, sizes from `cdf`, destinations by `pattern` (traffic/workload.rs).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    /// Node-name patterns (`*` matches any run of characters) selecting the hosts that
    /// send and receive, in node insertion order; each must match at least one node.
    pub hosts: Vec<String>,
    /// The flow-size distribution: "web_search", "data_mining", "fb_hadoop", or
    /// `{ file = "path" }` (two columns, size_bytes and cumulative probability).
    pub cdf: CdfSpec,
    /// Offered load per host as a fraction of its link rate, in (0, 1]: each host
    /// opens load x C / (8 x mean flow bytes) flows per second.
    pub load: f64,
    /// C for every host (default: the rate of each host's first link, its NIC).
    #[serde(default)]
    pub link_rate: Option<Rate>,
    /// "all_to_all" (default) or "permutation".
    #[serde(default)]
    pub pattern: PatternSpec,
    /// Arrivals from `start` (the first an exponential gap after it).
    #[serde(default)]
    pub start: Dur,
    /// No flow opens at or after `stop` (default: the end of the run).
    #[serde(default)]
    pub stop: Option<Dur>,
    /// TCP overrides of this entry's flows.
    #[serde(default)]
    pub tcp: TcpSpec,
    /// Other TCP settings for the short flows (size <= max_bytes); off by default.
    #[serde(default)]
    pub short_tcp: Option<Box<ShortTcpSpec>>,
}

/// `kind = "incast"`: every `period` (or at Poisson times, `rate_per_s`) each server
/// sends `bytes` to `client` at the same instant (traffic/incast.rs).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IncastSpec {
    /// The node that receives the responses.
    pub client: String,
    /// Node-name patterns (as a workload's `hosts`) of the servers, all of them in every
    /// round; the client is left out if a pattern matches it.
    pub servers: Vec<String>,
    /// Payload bytes each server sends per round, 1..=1e15 (cdf::MAX_SIZE_BYTES).
    pub bytes: u64,
    /// Time between rounds; the first round at `start`. Give `period` or `rate_per_s`.
    #[serde(default)]
    pub period: Option<Dur>,
    /// Rounds per second at Poisson times (the first an exponential gap after `start`).
    #[serde(default)]
    pub rate_per_s: Option<f64>,
    /// Each server's flow opens at the round's start + uniform[0, jitter) (default 0); at
    /// most the entry's time window (stop - start).
    #[serde(default)]
    pub jitter: Dur,
    /// The first round (periodic), or the time Poisson rounds count from (default 0).
    #[serde(default)]
    pub start: Dur,
    /// No round starts at or after `stop` (default: the end of the run).
    #[serde(default)]
    pub stop: Option<Dur>,
    /// TCP overrides of the responses.
    #[serde(default)]
    pub tcp: TcpSpec,
}

/// Whether `name` matches `pat`, where `*` matches any run of characters (also none).
pub fn glob(pat: &str, name: &str) -> bool {
    let (p, n) = (pat.as_bytes(), name.as_bytes());
    let (mut i, mut j) = (0, 0);
    // the latest `*` seen and the name position it was tried at
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && p[i] == b'*' {
            star = Some((i, j));
            i += 1;
        } else if i < p.len() && p[i] == n[j] {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star {
            // let the star take one more character
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == b'*')
}

/// The nodes matching any of `patterns`, in node insertion order.
fn select(sim: &Sim, patterns: &[String], path: &str) -> Result<Vec<NodeId>, String> {
    if patterns.is_empty() {
        return Err(format!("{path}: give at least one node-name pattern (e.g. [\"h*\"])"));
    }
    for (j, pat) in patterns.iter().enumerate() {
        if !sim.net.node_names().any(|n| glob(pat, n)) {
            let names: Vec<&str> = sim.net.node_names().take(8).collect();
            return Err(format!(
                "{path}[{j}]: {pat:?} matches no node (nodes: {}{})",
                names.join(", "),
                if sim.net.nodes.len() > 8 { ", ..." } else { "" }
            ));
        }
    }
    Ok((0..sim.net.nodes.len() as NodeId)
        .filter(|&i| patterns.iter().any(|p| glob(p, &sim.net.nodes[i as usize].name)))
        .collect())
}

/// Checks that every host reaches every other: links are full-duplex (scenario.rs builds
/// them in pairs), so hosts reached from the first reach each other both ways. One search
/// over the links, O(nodes + links), where a route per pair would cost a shortest-path
/// search each (the routes of the pairs used are computed when their first flow opens).
fn connected(sim: &Sim, hosts: &[NodeId], path: &str) -> Result<(), String> {
    let n = sim.net.nodes.len();
    let mut next: Vec<Vec<NodeId>> = vec![Vec::new(); n];
    for l in &sim.net.links {
        next[l.from as usize].push(l.to);
    }
    let mut seen = vec![false; n];
    let mut stack = vec![hosts[0]];
    seen[hosts[0] as usize] = true;
    while let Some(u) = stack.pop() {
        for &v in &next[u as usize] {
            if !seen[v as usize] {
                seen[v as usize] = true;
                stack.push(v);
            }
        }
    }
    match hosts.iter().find(|&&h| !seen[h as usize]) {
        None => Ok(()),
        Some(&h) => Err(format!(
            "{path}: no route from {:?} to {:?}",
            sim.net.nodes[hosts[0] as usize].name, sim.net.nodes[h as usize].name
        )),
    }
}

/// Checks that `a` and `b` reach each other (routes are computed once and cached).
fn routes(sim: &mut Sim, a: NodeId, b: NodeId, path: &str) -> Result<(), String> {
    sim.route_id(a, b).map_err(|e| format!("{path}: {e}"))?;
    sim.route_id(b, a).map_err(|e| format!("{path}: {e}"))?;
    Ok(())
}

/// The window [start, stop) of an entry, checked; stop defaults to and is capped at the
/// end of the run.
fn window(start: Dur, stop: Option<Dur>, end: SimTime, path: &str) -> Result<(SimTime, SimTime), String> {
    let stop = stop.map_or(end, |s| s.0.min(end));
    if start.0 >= stop {
        return Err(format!(
            "{path}.start: must be before stop (or the end of the run) (got {}s, stop {}s)",
            start.0.as_secs_f64(),
            stop.as_secs_f64()
        ));
    }
    Ok((start.0, stop))
}

pub(super) fn add_workload(
    defaults: &TcpSpec,
    sim: &mut Sim,
    k: usize,
    w: &WorkloadSpec,
    seed: u64,
    end: SimTime,
) -> Result<(), String> {
    let path = format!("traffic[{k}]");
    let tcp = w.tcp.over(defaults);
    let (params, cc) = w.tcp.resolve_over(defaults, &format!("{path}.tcp"))?;
    sim.tcp_configs.push((path.clone(), super::tcp::tcp_config_line(&params, &cc)));
    let short = match &w.short_tcp {
        None => None,
        Some(s) => {
            let sp = format!("{path}.short_tcp");
            if s.max_bytes == 0 {
                return Err(format!("{sp}.max_bytes: must be >= 1"));
            }
            let (params, cc) = s.tcp.over(&tcp).resolve(&format!("{sp}.tcp"))?;
            sim.tcp_configs.push((sp, super::tcp::tcp_config_line(&params, &cc)));
            Some(ShortTcp { max_bytes: s.max_bytes, params, cc })
        }
    };
    if !(w.load > 0.0 && w.load <= 1.0) {
        return Err(format!("{path}.load: must be in (0, 1] (a fraction of the host link rate; got {})", w.load));
    }
    let cdf = Arc::new(w.cdf.load(&format!("{path}.cdf"))?);
    let mean = cdf.mean();
    if mean < 1.0 {
        return Err(format!("{path}.cdf: the mean flow size must be at least 1 byte (got {mean} B)"));
    }
    let (start, stop) = window(w.start, w.stop, end, &path)?;
    let hosts: Arc<[NodeId]> = select(sim, &w.hosts, &format!("{path}.hosts"))?.into();
    if hosts.len() < 2 {
        return Err(format!("{path}.hosts: need at least 2 hosts (got {:?})", sim.net.nodes[hosts[0] as usize].name));
    }
    // C of each host: its first link (the NIC) or link_rate
    let mut nic: Vec<Option<f64>> = vec![None; sim.net.nodes.len()];
    for l in sim.net.links.iter().rev() {
        nic[l.from as usize] = Some(l.rate.0 as f64);
    }
    let mut rates = Vec::with_capacity(hosts.len());
    for &h in hosts.iter() {
        let c = match w.link_rate {
            Some(r) => r.0 .0 as f64,
            None => nic[h as usize].ok_or_else(|| {
                format!("{path}.hosts: node {:?} has no link (give link_rate)", sim.net.nodes[h as usize].name)
            })?,
        };
        let rate = workload::rate_for_load(w.load, c, mean);
        if !(rate.is_finite() && rate > 0.0) {
            return Err(format!("{path}.load: {} gives no flows (rate {rate} flows/s)", w.load));
        }
        rates.push(rate);
    }
    let secs = (stop.saturating_sub(start)).as_secs_f64();
    let expected: f64 = rates.iter().map(|r| r * secs).sum();
    if expected > MAX_EXPECTED_FLOWS {
        return Err(format!(
            "{path}.load: about {expected:.3e} flows expected over {secs} s (sum over the hosts of rate x (stop - start)), above the limit of {MAX_EXPECTED_FLOWS:e}: lower the load, shorten the window or select fewer hosts"
        ));
    }
    // memory.rs: a row per flow expected over the run (Poisson: its mean), and an open
    // flow per host (more are open at once under load; the rows dominate long runs)
    let open = hosts.len() as f64 * LIVE_FLOW_BYTES;
    sim.memory.charge(&format!("{path}.load"), open + expected * FLOW_ROW_BYTES)?;
    connected(sim, &hosts, &format!("{path}.hosts"))?;
    let dests: Vec<Dest> = match w.pattern {
        PatternSpec::AllToAll => (0..hosts.len()).map(|me| Dest::Others { hosts: hosts.clone(), me }).collect(),
        PatternSpec::Permutation => {
            let mut rng = Rng::stream(seed, STREAM_PERMUTATION + k as u64);
            let p = derangement(hosts.len(), &mut rng);
            p.iter().map(|&d| Dest::Fixed(hosts[d])).collect()
        }
    };
    for (i, (dest, rate)) in dests.into_iter().zip(rates).enumerate() {
        let src = WorkloadSource {
            src: hosts[i],
            dest,
            cdf: cdf.clone(),
            rate_per_s: rate,
            start,
            stop,
            params,
            cc: cc.clone(),
            short: short.clone(),
            flows: 0,
            bytes: 0,
        };
        let rng = Rng::stream(seed, STREAM_WORKLOAD + ((k as u64) << 24) + i as u64);
        sim.add_generator(Generator { kind: GenKind::Workload(Box::new(src)), rng });
    }
    Ok(())
}

pub(super) fn add_incast(
    defaults: &TcpSpec,
    sim: &mut Sim,
    k: usize,
    c: &IncastSpec,
    seed: u64,
    end: SimTime,
) -> Result<(), String> {
    let path = format!("traffic[{k}]");
    let (params, cc) = c.tcp.resolve_over(defaults, &format!("{path}.tcp"))?;
    sim.tcp_configs.push((path.clone(), super::tcp::tcp_config_line(&params, &cc)));
    if c.bytes == 0 || c.bytes > crate::traffic::cdf::MAX_SIZE_BYTES as u64 {
        return Err(format!(
            "{path}.bytes: must be in 1..={:e} (got {})",
            crate::traffic::cdf::MAX_SIZE_BYTES,
            c.bytes
        ));
    }
    let client = node_of(sim, &c.client, &format!("{path}.client"))?;
    let servers: Vec<NodeId> =
        select(sim, &c.servers, &format!("{path}.servers"))?.into_iter().filter(|&s| s != client).collect();
    if servers.is_empty() {
        return Err(format!("{path}.servers: the patterns match only the client"));
    }
    let (start, stop) = window(c.start, c.stop, end, &path)?;
    let secs = (stop.saturating_sub(start)).as_secs_f64();
    if c.jitter.0 > stop.saturating_sub(start) {
        // a flow jittered past the entry's window would never open
        return Err(format!(
            "{path}.jitter: at most the entry's time window, stop - start = {} (got {})",
            crate::core::schema::format_duration(stop.saturating_sub(start)),
            crate::core::schema::format_duration(c.jitter.0)
        ));
    }
    let (rounds, expected) = match (c.period, c.rate_per_s) {
        (Some(p), None) => {
            if p.0 == SimTime::ZERO {
                return Err(format!("{path}.period: must be > 0"));
            }
            (Rounds::Periodic(p.0), (secs / p.0.as_secs_f64()).ceil())
        }
        (None, Some(r)) => {
            if !(r.is_finite() && r > 0.0) {
                return Err(format!("{path}.rate_per_s: must be > 0 (got {r})"));
            }
            (Rounds::Poisson(r), r * secs)
        }
        (Some(_), Some(_)) => return Err(format!("{path}: give period or rate_per_s, not both")),
        (None, None) => return Err(format!("{path}: period (or rate_per_s) is required")),
    };
    let expected = expected * servers.len() as f64;
    if expected > MAX_EXPECTED_FLOWS {
        return Err(format!(
            "{path}.period: about {expected:.3e} flows expected (rounds x {} servers), above the limit of {MAX_EXPECTED_FLOWS:e}: a longer period, a shorter window or fewer servers",
            servers.len()
        ));
    }
    // memory.rs: a row per flow of the run, a flow open per server
    let field = if c.period.is_some() { "period" } else { "rate_per_s" };
    let open = servers.len() as f64 * LIVE_FLOW_BYTES;
    sim.memory.charge(&format!("{path}.{field}"), open + expected * FLOW_ROW_BYTES)?;
    for &s in &servers {
        routes(sim, s, client, &format!("{path}.servers"))?;
    }
    let rounds_rng = Rng::stream(seed, STREAM_INCAST_ROUNDS + k as u64);
    for (j, &s) in servers.iter().enumerate() {
        let flow = FlowSpec { src: s, dst: client, params, cc: cc.clone(), size: c.bytes };
        let server = IncastServer::new(flow, rounds, start, stop, c.jitter.0, rounds_rng.clone());
        let rng = Rng::stream(seed, STREAM_INCAST + ((k as u64) << 24) + j as u64);
        sim.add_generator(Generator { kind: GenKind::Incast(Box::new(server)), rng });
    }
    Ok(())
}

#[cfg(test)]
#[path = "workload_tests.rs"]
mod tests;
