//! superpacket-sim: a deterministic packet-level discrete-event network simulator.
//!
//! The crate is layered; each layer imports only from the ones before it
//! (docs/architecture.md, checked by scripts/check_layers.py):
//! `core` (time, random streams, packets, the event list) < `net` (links, queues,
//! topology, traces) < `tcp` (the sender and receiver, congestion control, loss
//! recovery, send gates) < `traffic` (sources and generators) < `engine` (`Sim`, the
//! event loop) < `scenario` (the scenario file: parse, validate, build) < `output`
//! (results tables). `bench` (the benchmarks' timing, behind the `bench` feature, on by
//! default; their scenarios are files of scenarios/) sits above them all.

#[cfg(feature = "bench")]
pub mod bench;
pub mod core;
pub mod engine;
pub mod net;
pub mod output;
pub mod scenario;
pub mod tcp;
pub mod traffic;

pub use crate::core::time::SimTime;
pub use crate::engine::sim::Sim;
pub use crate::scenario::Scenario;
