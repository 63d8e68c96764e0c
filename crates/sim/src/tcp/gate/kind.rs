//! What every send gate's scenario table implements (the registry in mod.rs lists them).

use std::fmt;

use crate::tcp::sched::SendGate;

/// A send gate's scenario table, which is also its parameters.
pub trait GateKind: fmt::Debug {
    /// Refuses a value out of range, naming the field under `path`.
    fn validate(&self, path: &str) -> Result<(), String>;
    /// The gate of a flow whose host sends at `line_rate` bits/s (its first link), whose
    /// NIC queue holds `nic_pkts` full packets (None: not a packet-counted DropTail), whose
    /// full segment carries `mss` payload bytes in `wire` bytes.
    fn build(&self, line_rate: f64, nic_pkts: Option<u64>, mss: u32, wire: u32) -> Box<dyn SendGate>;
    /// How the summary's TCP configuration line writes it: `Variant(Params { .. })`
    /// unless the gate says otherwise.
    fn config_line(&self, variant: &str) -> String {
        format!("{variant}({self:?})")
    }
}
