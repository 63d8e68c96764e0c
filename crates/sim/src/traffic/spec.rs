//! What a traffic generator asks the engine to open: one TCP flow.

use crate::core::packet::NodeId;
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
