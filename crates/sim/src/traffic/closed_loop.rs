//! Closed-loop ("back to back") sources: a source sends a flow of a fixed size, and the
//! next flow opens the moment the previous one completes (its sender holds an ACK for
//! every byte), until `stop` or `max_flows`.
//!
//! Source: seeds/001 (Guo and Matta, ICNP 2001), slides "Preferential treatment to short
//! flows" and SCENARIOS.md "riops-goodput": 10 long sources sending 10,000-packet flows
//! and 10 short sources sending 100-packet flows back to back for about 500 s. The
//! simulator calls [`BackToBack::on_flow_done`] from its flow-completion hook (sim.rs).

use super::spec::{FlowSource, FlowSpec};
use crate::core::rng::Rng;
use crate::core::time::SimTime;

#[derive(Clone, Debug)]
pub struct BackToBack {
    pub flow: FlowSpec,
    /// The first flow opens at `start`.
    pub start: SimTime,
    /// No flow opens at or after `stop`.
    pub stop: SimTime,
    /// At most this many flows in all (None: unbounded).
    pub max_flows: Option<u64>,
    /// Flows opened so far.
    pub opened: u64,
}

impl BackToBack {
    pub fn new(flow: FlowSpec, start: SimTime, stop: SimTime, max_flows: Option<u64>) -> BackToBack {
        BackToBack { flow, start, stop, max_flows, opened: 0 }
    }

    pub fn first_arrival(&self) -> Option<SimTime> {
        (self.start < self.stop).then_some(self.start)
    }

    /// The next flow, if the source may open one at `now`.
    pub fn next_flow(&mut self, now: SimTime) -> Option<FlowSpec> {
        if now >= self.stop || self.max_flows.is_some_and(|m| self.opened >= m) {
            return None;
        }
        self.opened += 1;
        Some(self.flow.clone())
    }

    /// The source's flow completed at `now`: open the next one at once.
    pub fn on_flow_done(&mut self, now: SimTime) -> Option<FlowSpec> {
        self.next_flow(now)
    }
}

/// The first flow at `start`; each next one when the previous completes (no timed
/// events after the first, no random draws).
impl FlowSource for BackToBack {
    fn first_arrival(&mut self, _rng: &mut Rng) -> Option<SimTime> {
        BackToBack::first_arrival(self)
    }

    fn fire(&mut self, now: SimTime, _rng: &mut Rng) -> (Option<FlowSpec>, Option<SimTime>) {
        (self.next_flow(now), None)
    }

    fn on_flow_done(&mut self, now: SimTime) -> Option<FlowSpec> {
        BackToBack::on_flow_done(self, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::TcpParams;

    fn spec() -> FlowSpec {
        FlowSpec { src: 0, dst: 1, params: TcpParams::default(), cc: crate::tcp::cc::CcConfig::default(), size: 4600 }
    }

    #[test]
    fn stops_at_stop_time_and_max_flows() {
        let mut b = BackToBack::new(spec(), SimTime::from_ms(10), SimTime::from_secs(1), Some(3));
        assert_eq!(b.first_arrival(), Some(SimTime::from_ms(10)));
        assert!(b.next_flow(SimTime::from_ms(10)).is_some());
        assert!(b.on_flow_done(SimTime::from_ms(20)).is_some());
        assert!(b.on_flow_done(SimTime::from_ms(30)).is_some());
        assert!(b.on_flow_done(SimTime::from_ms(40)).is_none(), "max_flows");
        let mut b = BackToBack::new(spec(), SimTime::ZERO, SimTime::from_secs(1), None);
        assert!(b.next_flow(SimTime::ZERO).is_some());
        assert!(b.on_flow_done(SimTime::from_secs(1)).is_none(), "stop");
        assert_eq!(b.opened, 1);
    }
}
