//! Traffic: long-lived (bulk) flows and fixed flows are added directly as flows at their
//! start times (scenario/traffic/); generators here create flows as the run goes, each
//! its algorithm implementing `FlowSource` (spec.rs) and its own random stream.
//!
//! Poisson arrivals (poisson.rs), closed-loop sources (closed_loop.rs), the web model
//! (web.rs), the datacenter workloads (workload.rs: flow sizes from an empirical CDF,
//! cdf.rs) and incast rounds (incast.rs) are generators; non-TCP sources (raw.rs,
//! mbs_probe.rs, attack.rs) send packets of their own.

pub mod attack;
pub mod cdf;
pub mod closed_loop;
pub mod incast;
pub mod mbs_probe;
pub mod poisson;
pub mod raw;
pub mod spec;
pub mod web;
pub mod workload;

use crate::core::rng::Rng;
use crate::core::time::SimTime;
pub use spec::{FlowSource, FlowSpec};

/// A generator: its algorithm and its random stream.
pub struct Generator {
    pub source: Box<dyn FlowSource>,
    pub rng: Rng,
}

impl Generator {
    pub fn new(source: Box<dyn FlowSource>, rng: Rng) -> Generator {
        Generator { source, rng }
    }

    pub fn first_arrival(&mut self) -> Option<SimTime> {
        self.source.first_arrival(&mut self.rng)
    }

    /// The generator's event at `now`: the flow to open and the next event time.
    pub fn fire(&mut self, now: SimTime) -> (Option<FlowSpec>, Option<SimTime>) {
        self.source.fire(now, &mut self.rng)
    }

    /// A flow this generator opened completed at `now` (sim.rs hook): the flow to open
    /// next, for closed-loop sources.
    pub fn on_flow_done(&mut self, now: SimTime) -> Option<FlowSpec> {
        self.source.on_flow_done(now)
    }

    /// The algorithm as its own type, if it is a `T` (tests and results read its state).
    pub fn source_as<T: FlowSource>(&self) -> Option<&T> {
        let any: &dyn std::any::Any = self.source.as_ref();
        any.downcast_ref()
    }
}
