//! `kind = "incast"` (WORKLOADS.md): synchronised responses to one client, every server
//! sending at each round's start (traffic/incast.rs).
//!
//! ```toml
//! [[traffic]]
//! kind = "incast"
//! client = "h0_0"; servers = ["h1_*"]; bytes = 20000; period = "10ms"; jitter = "10us"
//! ```

use schemars::JsonSchema;
use serde::Deserialize;

use super::hosts::{select, window, MAX_EXPECTED_FLOWS};
use super::kind::{TrafficCtx, TrafficKind};
use crate::core::check::positive;
use crate::core::memory::{FLOW_ROW_BYTES, LIVE_FLOW_BYTES};
use crate::core::packet::NodeId;
use crate::scenario::common::Dur;
use crate::scenario::tcp::TcpSpec;
use crate::traffic::incast::{IncastServer, Rounds};
use crate::traffic::FlowSpec;

/// Random streams of this kind (rng.rs).
const STREAM_INCAST: u64 = 6 << 40;
const STREAM_INCAST_ROUNDS: u64 = 7 << 40;

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

impl TrafficKind for IncastSpec {
    /// The bytes per response (the rounds need the entry's window, checked against the
    /// run's end when built).
    fn validate(&self, path: &str) -> Result<(), String> {
        let max = crate::traffic::cdf::MAX_SIZE_BYTES;
        if self.bytes == 0 || self.bytes > max as u64 {
            return Err(format!("{path}.bytes: must be in 1..={max:e} (got {})", self.bytes));
        }
        Ok(())
    }

    fn tcp(&self) -> Option<&TcpSpec> {
        Some(&self.tcp)
    }

    /// The rounds expected need the entry's window checked first: charged when built
    /// (`ctx.charge`).
    fn build(&self, ctx: &mut TrafficCtx) -> Result<(), String> {
        let c = self;
        let path = ctx.path.clone();
        let (params, cc) = ctx.resolve_tcp(&c.tcp)?;
        ctx.record_tcp(path.clone(), &params, &cc);
        let client = ctx.node(&c.client, &format!("{path}.client"))?;
        let servers: Vec<NodeId> =
            select(ctx, &c.servers, &format!("{path}.servers"))?.into_iter().filter(|&s| s != client).collect();
        if servers.is_empty() {
            return Err(format!("{path}.servers: the patterns match only the client"));
        }
        let (start, stop) = window(c.start, c.stop, ctx.end, &path)?;
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
                positive(&path, "period", p.0)?;
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
        ctx.charge(&format!("{path}.{field}"), open + expected * FLOW_ROW_BYTES)?;
        for &s in &servers {
            routes(ctx, s, client, &format!("{path}.servers"))?;
        }
        let rounds_rng = ctx.rng(STREAM_INCAST_ROUNDS + ctx.k as u64);
        for (j, &s) in servers.iter().enumerate() {
            let flow = FlowSpec { src: s, dst: client, params, cc: cc.clone(), size: c.bytes };
            let server = IncastServer::new(flow, rounds, start, stop, c.jitter.0, rounds_rng.clone());
            let rng = ctx.rng(STREAM_INCAST + ((ctx.k as u64) << 24) + j as u64);
            ctx.add_generator(server, rng);
        }
        Ok(())
    }
}

/// Checks that `a` and `b` reach each other (routes are computed once and cached).
fn routes(ctx: &mut TrafficCtx, a: NodeId, b: NodeId, path: &str) -> Result<(), String> {
    ctx.route(a, b).map_err(|e| format!("{path}: {e}"))?;
    ctx.route(b, a).map_err(|e| format!("{path}: {e}"))?;
    Ok(())
}

