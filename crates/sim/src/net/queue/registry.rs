//! The queue disciplines a scenario names, `queue = { kind = "name", ... }`: each is one
//! file (the algorithm, its scenario table with serde and JsonSchema, and `QueueKind`
//! (disc.rs) on that table: its checks (`Validate`), the builder, its warnings, the memory it allocates when
//! built) and one line of `registry!` below. The table's doc comment is its description
//! in `superpacket list` and the schema reference; the kind names in "allowed: ..." come
//! from the same line.

use super::disc::{d_limit, QueueDisc, QueueKind};
use crate::core::check::Validate;
use crate::core::rng::Rng;
use crate::core::time::BitsPerSec;
use crate::core::units::UnitSpec;

/// The registry: `"kind" => Variant(table type),` per discipline; makes `QueueSpec`, its
/// parser and schema (`tagged!`) and the dispatch to `QueueKind`.
macro_rules! registry {
    ($($name:literal => $variant:ident($ty:ty),)+) => {
        /// An egress queue discipline; `kind` selects it.
        #[derive(Clone, Debug)]
        pub enum QueueSpec {
            $($variant($ty),)+
        }

        crate::core::tagged::tagged!(QueueSpec, "queue kind", { $($name => $variant($ty)),+ });

        impl QueueSpec {
            /// The kind name and the table.
            fn kind(&self) -> (&'static str, &dyn QueueKind) {
                match self {
                    $(QueueSpec::$variant(t) => ($name, t),)+
                }
            }
        }
    };
}

registry! {
    "droptail" => Droptail(super::droptail::DropTailSpec),
    "red" => Red(super::red_disc::RedSpec),
    "superpacket" => Superpacket(super::superpacket::SuperpacketSpec),
    "rio" => Rio(super::rio::RioSpec),
    "riops" => Riops(super::rio::RioSpec),
}

/// The discipline's own checks, in the validate phase.
impl Validate for QueueSpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        self.kind().1.validate(path)
    }
}

impl QueueSpec {
    pub fn build(&self, rate: BitsPerSec, rng: Rng, path: &str) -> Result<Box<dyn QueueDisc>, String> {
        let (kind, table) = self.kind();
        table.build(kind, rate, rng, path)
    }

    pub fn warnings(&self, path: &str) -> Vec<String> {
        self.kind().1.warnings(path)
    }

    pub fn prealloc_bytes(&self) -> f64 {
        self.kind().1.prealloc_bytes()
    }
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec::Droptail(super::droptail::DropTailSpec {
            limit: d_limit(),
            unit: UnitSpec::Packets,
            ecn_threshold: None,
        })
    }
}

/// `QueueSpec::default()` as the schema's default of a link's `queue`.
pub fn d_queue_json() -> serde_json::Value {
    match QueueSpec::default() {
        QueueSpec::Droptail(d) => {
            let mut v = serde_json::to_value(d).expect("json");
            v["kind"] = "droptail".into();
            v
        }
        _ => unreachable!("the default queue is a DropTail"),
    }
}
