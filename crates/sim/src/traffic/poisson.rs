//! Poisson flow arrivals: inter-arrival times exponential with mean 1 / rate (a Poisson
//! process), each arrival one TCP flow of the configured size, from `start` until `stop`.

use super::spec::{FlowSource, FlowSpec};
use crate::core::rng::Rng;
use crate::core::time::SimTime;

pub struct PoissonArrivals {
    pub rate_per_s: f64,
    pub start: SimTime,
    pub stop: SimTime,
    pub flow: FlowSpec,
}

impl FlowSource for PoissonArrivals {
    fn first_arrival(&mut self, rng: &mut Rng) -> Option<SimTime> {
        let t = self.start + SimTime::from_secs_f64(rng.exponential(1.0 / self.rate_per_s));
        (t < self.stop).then_some(t)
    }

    fn fire(&mut self, now: SimTime, rng: &mut Rng) -> (Option<FlowSpec>, Option<SimTime>) {
        let next = now + SimTime::from_secs_f64(rng.exponential(1.0 / self.rate_per_s));
        (Some(self.flow.clone()), (next < self.stop).then_some(next))
    }
}
