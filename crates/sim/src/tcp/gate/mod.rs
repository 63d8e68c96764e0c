//! Per-packet send rules (sched.rs `SendGate`), one file each, chosen by a scenario's
//! `[tcp] gate` table: `bursts` (paced bursts of a fixed size), `pda` (the
//! packet-drop-avoidance sender of seeds/002) and `burstiness` (FAST's burstiness
//! control, seeds/003).

use std::fmt;

mod kind;

pub use kind::GateKind;

use super::sched::SendGate;

/// The registry: `"kind" => Variant(module::Params),` per gate, the module declared here.
/// Makes `GateSpec` (the scenario's `gate` table: its parser, schema and "allowed: ..."
/// list, `tagged!`) and `GateConfig` (the resolved gate, built per flow).
macro_rules! registry {
    ($($name:literal => $variant:ident($module:ident::$ty:ident),)+) => {
        $(pub mod $module;)+

        /// `[tcp] gate`: a per-packet send rule.
        #[derive(Clone, Debug, PartialEq)]
        pub enum GateSpec {
            $($variant($module::$ty),)+
        }

        crate::core::tagged::tagged!(GateSpec, "send gate", { $($name => $variant($module::$ty)),+ });

        /// A gate as a scenario sets it (built per flow once its line rate is known).
        #[derive(Clone, Copy, PartialEq, Default)]
        pub enum GateConfig {
            /// No gate: window-limited (or paced by `pacing`).
            #[default]
            None,
            $($variant($module::$ty),)+
        }

        impl GateSpec {
            /// The gate, its values checked; errors name the field under `path`.
            pub fn resolve(&self, path: &str) -> Result<GateConfig, String> {
                match self {
                    $(GateSpec::$variant(p) => {
                        p.validate(path)?;
                        Ok(GateConfig::$variant(*p))
                    })+
                }
            }
        }

        impl GateConfig {
            fn kind(&self) -> Option<(&'static str, &dyn GateKind)> {
                match self {
                    GateConfig::None => None,
                    $(GateConfig::$variant(p) => Some((stringify!($variant), p)),)+
                }
            }
        }
    };
}

registry! {
    "bursts" => Bursts(bursts::BurstsParams),
    "pda" => Pda(pda::PdaParams),
    "burstiness" => Burstiness(burstiness::BcParams),
}

impl GateConfig {
    /// The gate of a flow (`GateKind::build`); None without one.
    pub fn build(&self, line_rate: f64, nic_pkts: Option<u64>, mss: u32, wire: u32) -> Option<Box<dyn SendGate>> {
        self.kind().map(|(_, g)| g.build(line_rate, nic_pkts, mss, wire))
    }
}

/// `None`, or the gate's `GateKind::config_line`: the summary's TCP configuration line.
impl fmt::Debug for GateConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            None => f.write_str("None"),
            Some((variant, g)) => f.write_str(&g.config_line(variant)),
        }
    }
}
