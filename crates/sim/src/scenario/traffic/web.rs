//! `kind = "web"`: web sessions (traffic/web.rs), pages of objects, one connection
//! each, between a pool of servers and a pool of clients (the RIO-PS experiments,
//! seeds/001).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::kind::{nodes, TrafficCtx, TrafficKind};
use crate::core::check::Validate;
use crate::core::memory::{MemoryEstimate, FLOW_ROW_BYTES, LIVE_FLOW_BYTES};
use crate::core::time::SimTime;
use crate::scenario::common::Dur;
use crate::scenario::tcp::TcpSpec;
use crate::traffic::web::{WebModel, WebSession};

/// Random streams of this kind (rng.rs).
const STREAM_WEB: u64 = 3 << 40;

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
    #[serde(default = "crate::scenario::queue::d_one")]
    pub server_count: u32,
    /// The first value of {i} in `servers`.
    #[serde(default)]
    pub server_first: u32,
    /// Client pool (as the servers); session j browses from client j mod client_count.
    pub clients: String,
    /// Clients in the pool, at least 1.
    #[serde(default = "crate::scenario::queue::d_one")]
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

impl WebSpec {
    /// The session model of traffic/web.rs.
    fn model(&self) -> WebModel {
        let w = self;
        WebModel {
            inter_page_s: w.inter_page.0.as_secs_f64(),
            inter_object_s: w.inter_object.0.as_secs_f64(),
            objects_min: w.objects_min,
            objects_max: w.objects_max,
            size_min: w.size_min_bytes,
            size_max: w.size_max_bytes,
            shape: w.shape,
        }
    }
}

impl TrafficKind for WebSpec {
    /// The model (its own check, fields named relative to the entry), the sessions and
    /// the pools' sizes.
    fn validate(&self, path: &str) -> Result<(), String> {
        let w = self;
        w.model().validate(path)?;
        if w.sessions == 0 || w.sessions > 1 << 20 {
            return Err(format!("{path}.sessions: must be in 1..=2^20 (got {})", w.sessions));
        }
        for (field, n) in [("server_count", w.server_count), ("client_count", w.client_count)] {
            if n == 0 {
                return Err(format!("{path}.{field}: must be at least 1 (got 0)"));
            }
        }
        Ok(())
    }

    /// A live flow per session and a row per object expected over [start, stop).
    fn charge(&self, mem: &mut MemoryEstimate, path: &str, end: SimTime) -> Result<(), String> {
        let w = self;
        let refused = w.objects_max > crate::traffic::web::MAX_OBJECTS_PER_PAGE || w.sessions > 1 << 20;
        if refused || w.inter_page.0 == SimTime::ZERO || w.inter_object.0 == SimTime::ZERO {
            return Ok(()); // refused by name when the entry is built
        }
        // objects per second per session: pages/s x objects per page, at most one
        // per inter-object gap (traffic/web.rs)
        let per_page = (f64::from(w.objects_min) + f64::from(w.objects_max)) / 2.0;
        let page_rate = per_page / w.inter_page.0.as_secs_f64();
        let object_rate = 1.0 / w.inter_object.0.as_secs_f64();
        let span = w.stop.map_or(end, |s| s.0).min(end).saturating_sub(w.start.0).as_secs_f64();
        let per_session = page_rate.min(object_rate) * span;
        let field = if per_session < 1e5 {
            "sessions"
        } else if object_rate < page_rate {
            "inter_object"
        } else {
            "inter_page"
        };
        let sessions = f64::from(w.sessions);
        mem.charge(&format!("{path}.{field}"), sessions * (LIVE_FLOW_BYTES + (1.0 + per_session) * FLOW_ROW_BYTES))
    }

    fn tcp(&self) -> Option<&TcpSpec> {
        Some(&self.tcp)
    }

    fn build(&self, ctx: &mut TrafficCtx) -> Result<(), String> {
        let w = self;
        let path = ctx.path.clone();
        let (params, cc) = ctx.resolve_tcp(&w.tcp)?;
        let model = self.model();
        let servers: Arc<[u32]> =
            nodes(ctx, &w.servers, w.server_first, w.server_count, &format!("{path}.servers"))?.into();
        let clients = nodes(ctx, &w.clients, w.client_first, w.client_count, &format!("{path}.clients"))?;
        for &s in servers.iter() {
            for &c in &clients {
                if s == c {
                    return Err(format!("{path}: a node is both server and client"));
                }
                ctx.route(s, c).map_err(|e| format!("{path}: {e}"))?;
                ctx.route(c, s).map_err(|e| format!("{path}: {e}"))?;
            }
        }
        let stop = w.stop.map_or(ctx.end, |s| s.0);
        for j in 0..w.sessions {
            let client = clients[(j % w.client_count) as usize];
            let s = WebSession::new(model, client, servers.clone(), params, cc.clone(), w.start.0, stop);
            let rng = ctx.rng(STREAM_WEB + ((ctx.k as u64) << 24) + u64::from(j));
            ctx.add_generator(s, rng);
        }
        Ok(())
    }
}
