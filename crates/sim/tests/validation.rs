//! Validation of the simulator against independent truth: numbers derived by hand in
//! each test (serialisation and propagation arithmetic, the Mathis et al. formula,
//! Jain's index, the RED formula of Floyd and Jacobson Fig. 2), never the simulator's
//! own helpers. Every run ends with the packet-conservation check (`common::finish`).
//!
//! Run: `cargo test --release -p superpacket-sim --test validation` (release: some tests
//! simulate minutes of traffic). No wall-clock asserts.

#[path = "validation/burstiness.rs"]
mod burstiness;
#[path = "validation/common.rs"]
mod common;
#[path = "validation/dcr.rs"]
mod dcr;
#[path = "validation/dctcp.rs"]
mod dctcp;
#[path = "validation/determinism.rs"]
mod determinism;
#[path = "validation/fast.rs"]
mod fast;
#[path = "validation/fct.rs"]
mod fct;
#[path = "validation/incast.rs"]
mod incast;
#[path = "validation/input.rs"]
mod input;
#[path = "validation/mbs.rs"]
mod mbs;
#[path = "validation/pda.rs"]
mod pda;
#[path = "validation/red.rs"]
mod red;
#[path = "validation/reorder.rs"]
mod reorder;
#[path = "validation/series.rs"]
mod series;
#[path = "validation/throughput.rs"]
mod throughput;
