//! Traffic: long-lived (bulk) flows and fixed flows are added directly as flows at their
//! start times (scenario.rs); generators here create flows as the run goes.
//!
//! Poisson arrivals: inter-arrival times exponential with mean 1/rate (a Poisson
//! process), each arrival one TCP flow of the configured size. Closed-loop sources
//! (closed_loop.rs), the web model (web.rs), the datacenter workloads (workload.rs: flow
//! sizes from an empirical CDF, cdf.rs) and incast rounds (incast.rs) are generators too.

pub mod attack;
pub mod cdf;
pub mod closed_loop;
pub mod incast;
pub mod mbs_probe;
pub mod raw;
pub mod spec;
pub mod web;
pub mod workload;

use crate::core::rng::Rng;
use crate::core::time::SimTime;
pub use spec::FlowSpec;

pub struct Generator {
    pub kind: GenKind,
    pub rng: Rng,
}

pub enum GenKind {
    Poisson {
        rate_per_s: f64,
        start: SimTime,
        stop: SimTime,
        flow: FlowSpec,
    },
    /// The next flow opens when the previous completes (`on_flow_done`).
    BackToBack(closed_loop::BackToBack),
    /// One web session.
    Web(web::WebSession),
    /// One source host of a datacenter workload (Poisson arrivals, CDF sizes).
    Workload(Box<workload::WorkloadSource>),
    /// One server of an incast entry.
    Incast(Box<incast::IncastServer>),
}

impl Generator {
    pub fn first_arrival(&mut self) -> Option<SimTime> {
        match &mut self.kind {
            GenKind::Poisson { rate_per_s, start, stop, .. } => {
                let t = *start + SimTime::from_secs_f64(self.rng.exponential(1.0 / *rate_per_s));
                (t < *stop).then_some(t)
            }
            GenKind::BackToBack(b) => b.first_arrival(),
            GenKind::Web(w) => w.first_arrival(&mut self.rng),
            GenKind::Workload(w) => w.first_arrival(&mut self.rng),
            GenKind::Incast(s) => s.first_arrival(&mut self.rng),
        }
    }

    /// The generator's event at `now`: the flow to open and the next event time.
    pub fn fire(&mut self, now: SimTime) -> (Option<FlowSpec>, Option<SimTime>) {
        match &mut self.kind {
            GenKind::Poisson { rate_per_s, stop, flow, .. } => {
                let next = now + SimTime::from_secs_f64(self.rng.exponential(1.0 / *rate_per_s));
                (Some(flow.clone()), (next < *stop).then_some(next))
            }
            GenKind::BackToBack(b) => (b.next_flow(now), None),
            GenKind::Web(w) => w.fire(now, &mut self.rng),
            GenKind::Workload(w) => w.fire(now, &mut self.rng),
            GenKind::Incast(s) => s.fire(now, &mut self.rng),
        }
    }

    /// A flow this generator opened completed at `now` (sim.rs hook): the flow to open
    /// next, for closed-loop sources.
    pub fn on_flow_done(&mut self, now: SimTime) -> Option<FlowSpec> {
        match &mut self.kind {
            GenKind::BackToBack(b) => b.on_flow_done(now),
            _ => None,
        }
    }
}
