//! What every traffic kind's scenario table implements (the registry in mod.rs lists
//! them), and the narrow view of the simulation a kind builds through (`TrafficCtx`):
//! node names, routes, the TCP tables over the scenario's `[tcp]`, the memory estimate
//! and the three things a kind may add (TCP flows, generators, non-TCP sources).

use crate::core::memory::MemoryEstimate;
use crate::core::packet::{NodeId, RouteId};
use crate::core::rng::Rng;
use crate::core::time::SimTime;
use crate::engine::sim::Sim;
use crate::net::topology::Network;
use crate::scenario::common::{node_of, STREAM_TRAFFIC};
use crate::scenario::tcp::{tcp_config_line, TcpSpec};
use crate::tcp::cc::{CcConfig, CongestionControl};
use crate::tcp::TcpParams;
use crate::traffic::raw::RawSource;
use crate::traffic::{FlowSource, Generator};

/// A traffic kind's scenario table.
pub trait TrafficKind {
    /// Charges what the entry's flows will hold to the run's memory estimate before
    /// anything is built (the cost phase); an error names the field under `path`. `end`
    /// is the end of the run. Kinds whose flows need the built network (the hosts' link
    /// rates) charge them when they are built instead (`TrafficCtx::charge`).
    fn charge(&self, _mem: &mut MemoryEstimate, _path: &str, _end: SimTime) -> Result<(), String> {
        Ok(())
    }

    /// Refuses a value out of range that nothing built is needed to check, naming the
    /// field under `path` (the shared checks of core/check.rs): run in the validate
    /// phase (`TrafficSpec`'s `Validate`), before the cost and every build, so `build`
    /// relies on it.
    fn validate(&self, _path: &str) -> Result<(), String> {
        Ok(())
    }

    /// The entry's own `tcp` table; None for a non-TCP source.
    fn tcp(&self) -> Option<&TcpSpec>;

    /// The entry's TCP settings as (where they are written, the table over `defaults`):
    /// its `tcp` table, then any sub-table over that (a workload's `short_tcp`).
    fn tcp_tables(&self, defaults: &TcpSpec) -> Vec<(&'static str, TcpSpec)> {
        self.tcp().map(|t| vec![("", t.over(defaults))]).unwrap_or_default()
    }

    /// Adds the entry's sources to the simulation; an error names its field under
    /// `ctx.path`.
    fn build(&self, ctx: &mut TrafficCtx) -> Result<(), String>;
}

/// What a traffic kind sees of the simulation while it is built: entry `k` of the
/// scenario's `[[traffic]]` at `path`, the run's `seed` and `end`.
pub struct TrafficCtx<'a> {
    sim: &'a mut Sim,
    defaults: &'a TcpSpec,
    pub k: usize,
    /// "traffic[k]": every error names its field under it.
    pub path: String,
    pub seed: u64,
    pub end: SimTime,
}

impl<'a> TrafficCtx<'a> {
    pub(super) fn new(sim: &'a mut Sim, defaults: &'a TcpSpec, k: usize, seed: u64, end: SimTime) -> Self {
        TrafficCtx { sim, defaults, k, path: format!("traffic[{k}]"), seed, end }
    }

    /// The network built so far (nodes, links), read only.
    pub fn net(&self) -> &Network {
        &self.sim.net
    }

    /// The node named `name`; the error (at `field`) lists some of the nodes.
    pub fn node(&self, name: &str, field: &str) -> Result<NodeId, String> {
        node_of(self.sim, name, field)
    }

    /// The entry's `tcp` table over the scenario's `[tcp]`, resolved (errors at
    /// `path.tcp`, or at `tcp` when the scenario's table makes them alone).
    pub fn resolve_tcp(&self, tcp: &TcpSpec) -> Result<(TcpParams, CcConfig), String> {
        tcp.resolve_over(self.defaults, &format!("{}.tcp", self.path))
    }

    /// The scenario's `[tcp]` table (a sub-table such as `short_tcp` goes over the entry's
    /// table over it).
    pub fn tcp_defaults(&self) -> &TcpSpec {
        self.defaults
    }

    /// Records the TCP configuration of the flows set at `at`, for the results.
    pub fn record_tcp(&mut self, at: String, params: &TcpParams, cc: &CcConfig) {
        self.sim.tcp_configs.push((at, tcp_config_line(params, cc)));
    }

    /// The run's random stream `stream`.
    pub fn rng(&self, stream: u64) -> Rng {
        Rng::stream(self.seed, stream)
    }

    /// The random stream of source `i` of the entry (the value of "{i}").
    pub fn source_rng(&self, i: u32) -> Rng {
        Rng::stream(self.seed, STREAM_TRAFFIC + ((self.k as u64) << 12) + u64::from(i))
    }

    /// Checks that `a` reaches `b` (the route is computed once and cached).
    pub fn route(&mut self, a: NodeId, b: NodeId) -> Result<RouteId, String> {
        self.sim.route_id(a, b)
    }

    /// A non-TCP source's route from `a` to `b` (in a fabric, ECMP over its 5-tuple).
    pub fn source_route(&mut self, a: NodeId, b: NodeId, forward: bool) -> Result<RouteId, String> {
        self.sim.source_route(a, b, forward)
    }

    /// The rate (bits/s) of the first link of route `r`.
    pub fn first_link_rate(&self, r: RouteId) -> f64 {
        let first = self.sim.route(r)[0];
        self.sim.net.links[first as usize].rate.0 as f64
    }

    /// Charges `bytes` to the run's memory estimate, at `field`.
    pub fn charge(&mut self, field: &str, bytes: f64) -> Result<(), String> {
        self.sim.memory.charge(field, bytes)
    }

    /// Adds a TCP flow of `size` payload bytes opening at `start`.
    pub fn add_flow(
        &mut self,
        src: NodeId,
        dst: NodeId,
        params: TcpParams,
        cc: Box<dyn CongestionControl>,
        size: u64,
        start: SimTime,
    ) -> Result<(), String> {
        self.sim.add_flow(src, dst, params, cc, size, start).map(|_| ())
    }

    /// Adds a generator, which opens flows as the run goes, drawing from `rng`.
    pub fn add_generator(&mut self, source: impl FlowSource, rng: Rng) {
        self.sim.add_generator(Generator::new(Box::new(source), rng))
    }

    /// Adds a non-TCP source.
    pub fn add_source(&mut self, s: RawSource) {
        self.sim.add_source(s)
    }
}

/// A flow's payload from `size_bytes` or `size_pkts` full segments of `mss` bytes, the
/// error naming the field under `path`.
pub fn flow_size(bytes: Option<u64>, pkts: Option<u64>, mss: u32, path: &str) -> Result<u64, String> {
    match (bytes, pkts) {
        (Some(b), None) if b > 0 => Ok(b),
        (None, Some(p)) if p > 0 => p
            .checked_mul(u64::from(mss))
            .filter(|&b| b < crate::tcp::UNLIMITED)
            .ok_or_else(|| format!("{path}.size_pkts: too large")),
        (Some(_), Some(_)) => Err(format!("{path}: give size_bytes or size_pkts, not both")),
        (None, None) => Err(format!("{path}: size_bytes or size_pkts is required")),
        (Some(_), None) => Err(format!("{path}.size_bytes: must be at least 1 (got 0)")),
        _ => Err(format!("{path}.size_pkts: must be at least 1 (got 0)")),
    }
}

/// Calls `each(ctx, i, src, dst)` for i in 0..count, the nodes named by `from` and `to`
/// with "{i}" replaced by i (errors at `path.from`, `path.to`), never the same node.
pub fn each_pair(
    ctx: &mut TrafficCtx,
    from: &str,
    to: &str,
    count: u32,
    mut each: impl FnMut(&mut TrafficCtx, u32, NodeId, NodeId) -> Result<(), String>,
) -> Result<(), String> {
    for i in 0..count {
        let src = ctx.node(&from.replace("{i}", &i.to_string()), &format!("{}.from", ctx.path))?;
        let dst = ctx.node(&to.replace("{i}", &i.to_string()), &format!("{}.to", ctx.path))?;
        if src == dst {
            return Err(format!("{}: from and to are the same node", ctx.path));
        }
        each(ctx, i, src, dst)?;
    }
    Ok(())
}

/// The start of flow `i` of an entry: `start` + `interval` x i + `jitter`, saturating (a
/// start past any run's end never comes).
pub fn staggered(start: SimTime, interval: SimTime, i: u32, jitter: SimTime) -> SimTime {
    SimTime(start.ns().saturating_add(interval.ns().saturating_mul(u64::from(i))).saturating_add(jitter.ns()))
}

/// The nodes named by `pattern` with "{i}" replaced by first..first+count, at least one.
pub fn nodes(ctx: &TrafficCtx, pattern: &str, first: u32, count: u32, path: &str) -> Result<Vec<NodeId>, String> {
    if count == 0 {
        return Err(format!("{path}: count must be >= 1"));
    }
    (first..first.saturating_add(count)).map(|i| ctx.node(&pattern.replace("{i}", &i.to_string()), path)).collect()
}
