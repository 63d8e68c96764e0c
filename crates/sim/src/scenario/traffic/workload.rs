//! `kind = "workload"` (WORKLOADS.md): Poisson flow arrivals per host at a target load,
//! sizes from an empirical CDF (traffic/workload.rs, traffic/cdf.rs), destinations all
//! to all or a permutation.
//!
//! ```toml
//! [[traffic]]
//! kind = "workload"
//! hosts = ["h*"]                  # node-name patterns, `*` any run of characters
//! cdf = "web_search"              # or "data_mining", "fb_hadoop", or { file = "my_cdf.txt" }
//! load = 0.5                      # of each host's link rate (its first link, or link_rate)
//! pattern = "all_to_all"          # or "permutation"
//! short_tcp = { max_bytes = 100000, tcp = { superpacket = "flow" } }
//! ```
//!
//! A relative `cdf.file` path is taken from the current directory of the process.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};

use super::hosts::{connected, select, window, MAX_EXPECTED_FLOWS};
use super::kind::{TrafficCtx, TrafficKind};
use crate::core::memory::{FLOW_ROW_BYTES, LIVE_FLOW_BYTES};
use crate::core::packet::NodeId;
use crate::scenario::common::{Dur, Rate};
use crate::scenario::tcp::TcpSpec;
use crate::traffic::cdf::FlowSizeCdf;
use crate::traffic::workload::{self, derangement, Dest, ShortTcp, WorkloadSource};

/// Random streams of this kind (rng.rs).
const STREAM_WORKLOAD: u64 = 4 << 40;
const STREAM_PERMUTATION: u64 = 5 << 40;

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

impl TrafficKind for WorkloadSpec {
    /// `short_tcp.max_bytes` and the load (the rest needs the flow-size table and the
    /// hosts' links).
    fn validate(&self, path: &str) -> Result<(), String> {
        if self.short_tcp.as_ref().is_some_and(|s| s.max_bytes == 0) {
            return Err(format!("{path}.short_tcp.max_bytes: must be >= 1"));
        }
        if !(self.load > 0.0 && self.load <= 1.0) {
            return Err(format!("{path}.load: must be in (0, 1] (a fraction of the host link rate; got {})", self.load));
        }
        Ok(())
    }

    fn tcp(&self) -> Option<&TcpSpec> {
        Some(&self.tcp)
    }

    /// Its `tcp` table, then `short_tcp` over that.
    fn tcp_tables(&self, defaults: &TcpSpec) -> Vec<(&'static str, TcpSpec)> {
        let tcp = self.tcp.over(defaults);
        let mut v = Vec::new();
        if let Some(s) = &self.short_tcp {
            v.push((".short_tcp", s.tcp.over(&tcp)));
        }
        v.insert(0, ("", tcp));
        v
    }

    /// The flows expected need the hosts' link rates: charged when built (`ctx.charge`).
    fn build(&self, ctx: &mut TrafficCtx) -> Result<(), String> {
        let w = self;
        let path = ctx.path.clone();
        let tcp = w.tcp.over(ctx.tcp_defaults());
        let (params, cc) = ctx.resolve_tcp(&w.tcp)?;
        ctx.record_tcp(path.clone(), &params, &cc);
        let short = match &w.short_tcp {
            None => None,
            Some(s) => {
                let sp = format!("{path}.short_tcp");
                let (params, cc) = s.tcp.over(&tcp).resolve(&format!("{sp}.tcp"))?;
                ctx.record_tcp(sp, &params, &cc);
                Some(ShortTcp { max_bytes: s.max_bytes, params, cc })
            }
        };
        let cdf = Arc::new(w.cdf.load(&format!("{path}.cdf"))?);
        let mean = cdf.mean();
        if mean < 1.0 {
            return Err(format!("{path}.cdf: the mean flow size must be at least 1 byte (got {mean} B)"));
        }
        let (start, stop) = window(w.start, w.stop, ctx.end, &path)?;
        let hosts: Arc<[NodeId]> = select(ctx, &w.hosts, &format!("{path}.hosts"))?.into();
        if hosts.len() < 2 {
            return Err(format!("{path}.hosts: need at least 2 hosts (got {:?})", ctx.net().nodes[hosts[0] as usize].name));
        }
        // C of each host: its first link (the NIC) or link_rate
        let mut nic: Vec<Option<f64>> = vec![None; ctx.net().nodes.len()];
        for l in ctx.net().links.iter().rev() {
            nic[l.from as usize] = Some(l.rate.0 as f64);
        }
        let mut rates = Vec::with_capacity(hosts.len());
        for &h in hosts.iter() {
            let c = match w.link_rate {
                Some(r) => r.0 .0 as f64,
                None => nic[h as usize].ok_or_else(|| {
                    format!("{path}.hosts: node {:?} has no link (give link_rate)", ctx.net().nodes[h as usize].name)
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
        ctx.charge(&format!("{path}.load"), open + expected * FLOW_ROW_BYTES)?;
        connected(ctx, &hosts, &format!("{path}.hosts"))?;
        let dests: Vec<Dest> = match w.pattern {
            PatternSpec::AllToAll => (0..hosts.len()).map(|me| Dest::Others { hosts: hosts.clone(), me }).collect(),
            PatternSpec::Permutation => {
                let mut rng = ctx.rng(STREAM_PERMUTATION + ctx.k as u64);
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
            let rng = ctx.rng(STREAM_WORKLOAD + ((ctx.k as u64) << 24) + i as u64);
            ctx.add_generator(src, rng);
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "workload_tests.rs"]
mod tests;
