//! superpacket-sim: a deterministic packet-level discrete-event network simulator.
//! See ../../shared/DESIGN.md for the architecture.

pub mod bench;
pub mod classifier;
pub mod event;
pub mod flows;
pub mod link;
pub mod mbs;
pub mod memory;
pub mod monitor;
pub mod packet;
pub mod queue;
pub mod reorder;
pub mod results;
pub mod ring;
pub mod rng;
pub mod scenario;
pub mod schema;
pub mod sim;
pub mod tcp;
pub mod time;
pub mod topology;
pub mod trace;
pub mod traffic;

pub use scenario::Scenario;
pub use sim::Sim;
pub use time::SimTime;
