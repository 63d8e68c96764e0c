//! `[[traffic]]`: the traffic kinds a scenario names, `kind = "name"`: each is one file
//! here (its scenario table with serde and JsonSchema, and `TrafficKind` (kind.rs) on
//! that table: the checks that need nothing built (`validate`), the memory it charges
//! before the build, its TCP tables, the builder
//! through the narrow `TrafficCtx`) and one line of `registry!` below. The table's doc
//! comment is its description in `superpacket list` and the schema reference; the kind
//! names in "allowed: ..." come from the same line. The algorithms the builders set up
//! (generators, non-TCP sources) live in traffic/, below the engine.

pub mod hosts;
pub mod kind;
pub mod raw;

pub use kind::{TrafficCtx, TrafficKind};

use crate::core::check::Validate;
use crate::core::memory::MemoryEstimate;
use crate::core::time::SimTime;
use crate::engine::sim::Sim;

use super::tcp::TcpSpec;

/// The registry: `"kind" => Variant(module::Table),` per traffic kind, the module
/// declared here. Makes `TrafficSpec`, its parser and schema (`tagged!`) and the
/// dispatch to `TrafficKind`.
macro_rules! registry {
    ($($name:literal => $variant:ident($module:ident::$ty:ident),)+) => {
        $(pub mod $module;)+

        /// A traffic source; `kind` selects it. `from`/`to` may contain "{i}", replaced by
        /// 0..count-1 (one source per value).
        #[derive(Clone, Debug)]
        pub enum TrafficSpec {
            $($variant($module::$ty),)+
        }

        crate::core::tagged::tagged!(TrafficSpec, "traffic kind", { $($name => $variant($module::$ty)),+ });

        impl TrafficSpec {
            /// The table as its kind.
            fn kind(&self) -> &dyn TrafficKind {
                match self {
                    $(TrafficSpec::$variant(t) => t,)+
                }
            }
        }
    };
}

registry! {
    "bulk" => Bulk(bulk::BulkSpec),
    "flow" => Flow(flow::FlowSpecToml),
    "poisson" => Poisson(poisson::PoissonSpec),
    "back_to_back" => BackToBack(back_to_back::BackToBackSpec),
    "web" => Web(web::WebSpec),
    "cbr" => Cbr(cbr::CbrSpec),
    "onoff" => OnOff(onoff::OnOffSpec),
    "mbs_probe" => MbsProbe(mbs_probe::MbsProbeSpec),
    "sp_attack" => SpAttack(sp_attack::SpAttackSpec),
    "workload" => Workload(workload::WorkloadSpec),
    "incast" => Incast(incast::IncastSpec),
}

/// The kind's own checks, in the validate phase.
impl Validate for TrafficSpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        self.kind().validate(path)
    }
}

impl TrafficSpec {
    /// Charges entry `path` to the run's memory estimate (the cost phase).
    pub fn charge(&self, mem: &mut MemoryEstimate, path: &str, end: SimTime) -> Result<(), String> {
        self.kind().charge(mem, path, end)
    }

    /// The entry's TCP settings as (where they are written, the table over `defaults`):
    /// its `tcp` table, and a workload's `short_tcp` over that. Non-TCP sources have none.
    pub(crate) fn tcp_tables(&self, defaults: &TcpSpec) -> Vec<(&'static str, TcpSpec)> {
        self.kind().tcp_tables(defaults)
    }

    /// Adds traffic entry `k` to the simulation, its TCP tables filled from the
    /// scenario's `[tcp]` (`defaults`); `end` is the end of the run.
    pub(crate) fn build(
        &self,
        defaults: &TcpSpec,
        sim: &mut Sim,
        k: usize,
        seed: u64,
        end: SimTime,
    ) -> Result<(), String> {
        self.kind().build(&mut TrafficCtx::new(sim, defaults, k, seed, end))
    }
}
