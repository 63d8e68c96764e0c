//! Per-packet send rules (sched.rs `SendGate`), one file each, chosen by a scenario's
//! `[tcp] gate` table: `bursts` (paced bursts of a fixed size), `pda` (the
//! packet-drop-avoidance sender of seeds/002) and `burstiness` (FAST's burstiness
//! control, seeds/003).

pub mod burstiness;
pub mod bursts;
pub mod pda;

use super::sched::SendGate;

/// A gate as a scenario sets it (built per flow once its line rate is known).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum GateConfig {
    /// No gate: window-limited (or paced by `pacing`).
    #[default]
    None,
    Bursts {
        burst_pkts: u32,
        rate_bps: f64,
    },
    Pda(pda::PdaParams),
    Burstiness(burstiness::BcParams),
}

impl GateConfig {
    /// The gate for a flow whose host sends at `line_rate` bits/s (its first link), whose
    /// NIC queue holds `nic_pkts` full packets (None: not a packet-counted DropTail), whose
    /// full segment carries `mss` payload bytes in `wire` bytes.
    pub fn build(&self, line_rate: f64, nic_pkts: Option<u64>, mss: u32, wire: u32) -> Option<Box<dyn SendGate>> {
        match *self {
            GateConfig::None => None,
            GateConfig::Bursts { burst_pkts, rate_bps } => Some(Box::new(bursts::Bursts::new(burst_pkts, rate_bps))),
            GateConfig::Pda(mut p) => {
                // a burst handed to the NIC at once must fit its queue (+1 in service)
                if let Some(n) = nic_pkts {
                    p.max_burst = p.max_burst.min((n + 1).min(u32::MAX as u64) as u32).max(p.init_burst);
                }
                Some(Box::new(pda::Pda::new(p, line_rate)))
            }
            GateConfig::Burstiness(p) => Some(Box::new(burstiness::Burstiness::new(p, line_rate, mss, wire))),
        }
    }
}
