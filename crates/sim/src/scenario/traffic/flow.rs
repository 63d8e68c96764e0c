//! `kind = "flow"`: TCP flows of a fixed size, one per value of "{i}", opened at
//! staggered and jittered starts.

use schemars::JsonSchema;
use serde::Deserialize;

use super::kind::{each_pair, flow_size, staggered, TrafficCtx, TrafficKind};
use crate::core::memory::{MemoryEstimate, FLOW_ROW_BYTES, LIVE_FLOW_BYTES};
use crate::core::time::SimTime;
use crate::scenario::common::Dur;
use crate::scenario::tcp::TcpSpec;

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
    #[serde(default = "crate::scenario::queue::d_one")]
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
    /// Staggered starts: flow i (the value of {i}) starts `start_interval` x i after
    /// `start`, its jitter added to that (e.g. four flows 1 s apart: count = 4,
    /// start_interval = "1s"). A start past the run's end never comes.
    #[serde(default)]
    pub start_interval: Dur,
    /// TCP settings of this entry's flows, over the scenario's `[tcp]` table.
    #[serde(default)]
    pub tcp: TcpSpec,
}

impl TrafficKind for FlowSpecToml {
    fn charge(&self, mem: &mut MemoryEstimate, path: &str, _end: SimTime) -> Result<(), String> {
        mem.charge(&format!("{path}.count"), f64::from(self.count) * (LIVE_FLOW_BYTES + FLOW_ROW_BYTES))
    }

    fn tcp(&self) -> Option<&TcpSpec> {
        Some(&self.tcp)
    }

    fn build(&self, ctx: &mut TrafficCtx) -> Result<(), String> {
        let (params, cc) = ctx.resolve_tcp(&self.tcp)?;
        ctx.record_tcp(ctx.path.clone(), &params, &cc);
        each_pair(ctx, &self.from, &self.to, self.count, |ctx, i, src, dst| {
            let mut rng = ctx.source_rng(i);
            let size = flow_size(self.size_bytes, self.size_pkts, params.mss, &ctx.path)?;
            let jitter = SimTime((rng.uniform() * self.start_jitter.0.ns() as f64) as u64);
            let st = staggered(self.start.0, self.start_interval.0, i, jitter);
            ctx.add_flow(src, dst, params, cc.build(), size, st).map_err(|e| format!("{}: {e}", ctx.path))
        })
    }
}
