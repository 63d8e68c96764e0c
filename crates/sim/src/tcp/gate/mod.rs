//! Per-packet send rules (sched.rs `SendGate`), one file each, chosen by a scenario's
//! `[tcp] gate` table: `bursts` (paced bursts of a fixed size) and `pda` (the
//! packet-drop-avoidance sender of seeds/002).

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
}

impl GateConfig {
    /// The gate for a flow whose host sends at `line_rate` bits/s (its first link).
    pub fn build(&self, line_rate: f64) -> Option<Box<dyn SendGate>> {
        match *self {
            GateConfig::None => None,
            GateConfig::Bursts { burst_pkts, rate_bps } => Some(Box::new(bursts::Bursts::new(burst_pkts, rate_bps))),
            GateConfig::Pda(p) => Some(Box::new(pda::Pda::new(p, line_rate))),
        }
    }
}
