//! superpacket-emu: a userspace router for emulation. It forwards real Ethernet frames
//! between veth interfaces (AF_PACKET sockets, packet(7)) through the scenario's links,
//! each an egress queue (DropTail or RED), a serialiser at the link's rate and a propagation
//! delay (link.rs), by static routes given in a JSON configuration (config.rs) that
//! `superpacket emulate` writes. Counters per link are written as JSON at exit.

pub mod blast;
pub mod config;
pub mod link;
pub mod red;
pub mod router;
pub mod sys;
