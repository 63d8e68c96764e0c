//! What a traffic generator asks the engine to open (one TCP flow) and what every
//! generator's algorithm implements (`FlowSource`).

use std::any::Any;

use crate::core::packet::NodeId;
use crate::core::rng::Rng;
use crate::core::time::SimTime;
use crate::tcp::TcpParams;

/// What a generator asks the simulator to open.
#[derive(Clone, Debug)]
pub struct FlowSpec {
    pub src: NodeId,
    pub dst: NodeId,
    pub params: TcpParams,
    pub cc: crate::tcp::cc::CcConfig,
    pub size: u64,
}

/// A generator's algorithm: when it opens flows and which. The engine asks for the first
/// event time once when the generator is added, calls `fire` at each time it returns
/// (the flow to open now, if any, and the next time), and tells it when a flow it opened
/// completes (a closed-loop source opens its next one then). `rng` is the generator's
/// own random stream.
pub trait FlowSource: Any + Send {
    fn first_arrival(&mut self, rng: &mut Rng) -> Option<SimTime>;
    fn fire(&mut self, now: SimTime, rng: &mut Rng) -> (Option<FlowSpec>, Option<SimTime>);
    fn on_flow_done(&mut self, _now: SimTime) -> Option<FlowSpec> {
        None
    }
}
