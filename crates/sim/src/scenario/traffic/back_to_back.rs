//! `kind = "back_to_back"`: closed-loop sources (traffic/closed_loop.rs), each opening
//! its next flow of a fixed size when the previous completes (the RIO-PS experiments,
//! seeds/001).

use schemars::JsonSchema;
use serde::Deserialize;

use super::kind::{flow_size, nodes, TrafficCtx, TrafficKind};
use crate::core::memory::{MemoryEstimate, FLOW_ROW_BYTES, LIVE_FLOW_BYTES};
use crate::core::time::SimTime;
use crate::scenario::common::Dur;
use crate::scenario::tcp::TcpSpec;
use crate::traffic::closed_loop::BackToBack;
use crate::traffic::FlowSpec;

/// Random streams of this kind (rng.rs).
const STREAM_B2B: u64 = 2 << 40;

/// Flows of a fixed size, each opening when the source's previous flow completes.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackToBackSpec {
    /// Node names with "{i}", i in first..first+count.
    pub from: String,
    /// Destination node name, "{i}" as in `from`.
    pub to: String,
    /// Sources (values of {i}), at least 1.
    #[serde(default = "crate::scenario::queue::d_one")]
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

impl TrafficKind for BackToBackSpec {
    /// One open flow per source; the flows after it are not known before the run.
    fn charge(&self, mem: &mut MemoryEstimate, path: &str, _end: SimTime) -> Result<(), String> {
        mem.charge(&format!("{path}.count"), f64::from(self.count) * (LIVE_FLOW_BYTES + FLOW_ROW_BYTES))
    }

    fn validate(&self, path: &str) -> Result<(), String> {
        if self.max_flows == Some(0) {
            return Err(format!("{path}.max_flows: must be >= 1"));
        }
        Ok(())
    }

    fn tcp(&self) -> Option<&TcpSpec> {
        Some(&self.tcp)
    }

    fn build(&self, ctx: &mut TrafficCtx) -> Result<(), String> {
        let path = ctx.path.clone();
        let (params, cc) = ctx.resolve_tcp(&self.tcp)?;
        let size = flow_size(self.size_bytes, self.size_pkts, params.mss, &path)?;
        let srcs = nodes(ctx, &self.from, self.first, self.count, &format!("{path}.from"))?;
        let dsts = nodes(ctx, &self.to, self.first, self.count, &format!("{path}.to"))?;
        for (i, (&src, &dst)) in srcs.iter().zip(&dsts).enumerate() {
            if src == dst {
                return Err(format!("{path}: from and to are the same node"));
            }
            ctx.route(src, dst).map_err(|e| format!("{path}: {e}"))?;
            ctx.route(dst, src).map_err(|e| format!("{path}: {e}"))?;
            let mut rng = ctx.rng(STREAM_B2B + ((ctx.k as u64) << 20) + i as u64);
            let start = self.start.0 + SimTime((rng.uniform() * self.start_jitter.0.ns() as f64) as u64);
            let flow = FlowSpec { src, dst, params, cc: cc.clone(), size };
            let stop = self.stop.map_or(ctx.end, |s| s.0);
            ctx.add_generator(BackToBack::new(flow, start, stop, self.max_flows), rng);
        }
        Ok(())
    }
}
