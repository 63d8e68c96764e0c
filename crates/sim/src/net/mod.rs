//! The network layer: links with their queue disciplines and reordering stages, the
//! topology with its routes (ECMP), source validation, the RIO-PS edge classifier,
//! packet traces, and the
//! maximum-burst-size theory of a path. Imports only from core/.

pub mod classifier;
pub mod ingress;
pub mod link;
pub mod mbs;
pub mod queue;
pub mod reorder;
pub mod topology;
pub mod trace;
