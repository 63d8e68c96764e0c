//! `kind = "poisson"`: TCP flows of a fixed size arriving as a Poisson process at each
//! source (traffic/poisson.rs).

use schemars::JsonSchema;
use serde::Deserialize;

use super::kind::{each_pair, flow_size, TrafficCtx, TrafficKind};
use crate::core::check::positive_finite;
use crate::core::memory::{MemoryEstimate, FLOW_ROW_BYTES, LIVE_FLOW_BYTES};
use crate::core::time::SimTime;
use crate::scenario::common::Dur;
use crate::scenario::tcp::TcpSpec;
use crate::traffic::poisson::PoissonArrivals;
use crate::traffic::FlowSpec;

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
    #[serde(default = "crate::scenario::queue::d_one")]
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

impl TrafficKind for PoissonSpec {
    /// A live flow per source and a row per flow expected over [start, stop).
    fn charge(&self, mem: &mut MemoryEstimate, path: &str, end: SimTime) -> Result<(), String> {
        if !(self.rate_per_s.is_finite() && self.rate_per_s > 0.0) {
            return Ok(()); // refused by name when the entry is built
        }
        let span = self.stop.map_or(end, |s| s.0).min(end).saturating_sub(self.start.0).as_secs_f64();
        let flows = f64::from(self.count) * self.rate_per_s * span;
        mem.charge(&format!("{path}.count"), f64::from(self.count) * LIVE_FLOW_BYTES)?;
        mem.charge(&format!("{path}.rate_per_s"), flows * FLOW_ROW_BYTES)
    }

    fn validate(&self, path: &str) -> Result<(), String> {
        // no source (count = 0): nothing of the table is used, and nothing was ever refused
        if self.count == 0 {
            return Ok(());
        }
        positive_finite(path, "rate_per_s", self.rate_per_s)
    }

    fn tcp(&self) -> Option<&TcpSpec> {
        Some(&self.tcp)
    }

    fn build(&self, ctx: &mut TrafficCtx) -> Result<(), String> {
        let (params, cc) = ctx.resolve_tcp(&self.tcp)?;
        ctx.record_tcp(ctx.path.clone(), &params, &cc);
        let rate_per_s = self.rate_per_s;
        each_pair(ctx, &self.from, &self.to, self.count, |ctx, i, src, dst| {
            let rng = ctx.source_rng(i);
            let path = ctx.path.clone();
            let size = flow_size(self.size_bytes, self.size_pkts, params.mss, &path)?;
            ctx.route(src, dst).map_err(|e| format!("{path}: {e}"))?;
            ctx.route(dst, src).map_err(|e| format!("{path}: {e}"))?;
            let flow = FlowSpec { src, dst, params, cc: cc.clone(), size };
            let stop = self.stop.map_or(ctx.end, |s| s.0);
            ctx.add_generator(PoissonArrivals { rate_per_s, start: self.start.0, stop, flow }, rng);
            Ok(())
        })
    }
}
