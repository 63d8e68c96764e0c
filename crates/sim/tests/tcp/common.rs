//! Shared set-up of the scripted flows.
#![allow(dead_code)]

pub use sim::core::packet::{flags, Packet};
pub use sim::tcp::script::{segs, Script};
pub use sim::tcp::TcpParams;
pub use sim::SimTime;

pub const MSS: u64 = 1460;

pub fn ms(x: u64) -> SimTime {
    SimTime::from_ms(x)
}

/// A long flow (1,000 segments) established at t = 100 ms; returns the first flight.
pub fn established(p: TcpParams) -> (Script, Vec<Packet>) {
    Script::established(p, 1000 * MSS, ms(100))
}

pub fn defaults() -> TcpParams {
    TcpParams::default()
}

pub fn approx(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// The packets of `pkts` that are retransmissions.
pub fn retx(pkts: &[Packet]) -> Vec<&Packet> {
    pkts.iter().filter(|p| p.has(flags::RETX)).collect()
}

/// A one-flow star scenario (10 packets, 1 Gbps, 1 ms) whose `[tcp]` table is `tcp`.
pub fn scenario(tcp: &str) -> String {
    format!(
        r#"
duration = "1s"
[tcp]
{tcp}
[topology]
kind = "star"
senders = 1
sender_link = {{ rate = "1Gbps", delay = "1ms" }}
receiver_link = {{ rate = "1Gbps", delay = "1ms", queue = {{ kind = "droptail", limit = 50 }} }}
[[traffic]]
kind = "flow"
from = "s0"
to = "d"
size_pkts = 10
"#
    )
}
