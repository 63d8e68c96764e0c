//! The engine: the simulation (`Sim`), its event loop, forwarding along routes, the TCP
//! and non-TCP endpoints, the flow table, samplers and monitor, conservation checks and
//! pcap writing. Imports from core/, net/, tcp/ and traffic/.

pub mod flows;
pub mod monitor;
pub mod pcap;
pub mod routes;
pub mod sim;
