//! What every table of the scenario shares: durations and rates as strings with a unit,
//! queue units, errors that name their field path (`de_path`, the `tagged!` enums
//! selected by `kind`), node names, the run's bounds and its random streams.

use schemars::JsonSchema;
use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};

use crate::core::time::{parse_duration, parse_rate, BitsPerSec, SimTime};
use crate::engine::sim::Sim;
use crate::net::queue::Unit;

pub(crate) fn de_path<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Result<T, String> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let outer = e.path().to_string();
        let outer = if outer == "." { String::new() } else { outer };
        let inner = e.inner().to_string();
        let (ipath, msg) = split_path(&inner);
        let full = match (outer.is_empty(), ipath.is_empty()) {
            (true, _) => ipath.to_string(),
            (false, true) => outer,
            (false, false) => format!("{outer}.{ipath}"),
        };
        format!("@{full}@ {msg}")
    })
}

/// Splits "@path@ message" into (path, message); plain messages have an empty path.
pub(crate) fn split_path(s: &str) -> (&str, &str) {
    if let Some(rest) = s.strip_prefix('@') {
        if let Some(i) = rest.find("@ ") {
            return (&rest[..i], &rest[i + 2..]);
        }
    }
    ("", s)
}

/// Deserialize for an enum selected by a `kind` field, one struct per variant, keeping
/// field paths in errors and listing the allowed kinds.
/// The JSON Schema it implements (docs/schema.md) is a `oneOf` of the variants' tables,
/// each with its `kind` added, made from the same list (crate::core::schema::tagged_schema).
macro_rules! tagged {
    ($enum:ident, $what:literal, { $($name:literal => $variant:ident($ty:ty)),+ $(,)? }) => {
        impl schemars::JsonSchema for $enum {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($enum).into()
            }
            fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let variants = vec![$(crate::core::schema::kind_variant::<$ty>(g, $name)),+];
                crate::core::schema::tagged_schema($what, variants)
            }
        }

        impl<'de> serde::Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::Error as _;
                let mut v = <serde_json::Value as serde::Deserialize>::deserialize(d)?;
                let allowed = [$($name),+].join(", ");
                let obj = v.as_object_mut().ok_or_else(|| D::Error::custom(format!("expected a table with a `kind` field ({allowed})")))?;
                let kind = match obj.remove("kind") {
                    Some(serde_json::Value::String(k)) => k,
                    Some(_) => return Err(D::Error::custom(format!("@kind@ must be a string, one of: {allowed}"))),
                    None => return Err(D::Error::custom(format!("missing field `kind` (the {}: one of {allowed})", $what))),
                };
                match kind.as_str() {
                    $($name => $crate::scenario::common::de_path(v).map($enum::$variant).map_err(D::Error::custom),)+
                    other => Err(D::Error::custom(format!("@kind@ unknown {} {other:?}; allowed: {allowed}", $what))),
                }
            }
        }
    };
}
pub(crate) use tagged;

/// `name: type = expr;` lines as functions returning `Some(expr)`: the schema's defaults
/// of optional fields, taken from the simulator's own `Default`s.
macro_rules! defaults {
    ($($name:ident: $t:ty = $e:expr;)+) => {
        $(pub fn $name() -> Option<$t> {
            Some($e)
        })+
    };
}
pub(crate) use defaults;

/// A duration given as a string with a unit.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Dur(pub SimTime);

/// What the parser accepts (`time::parse_duration`), for the schema.
impl JsonSchema for Dur {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Duration".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        crate::core::schema::duration_schema()
    }
}

/// The shortest exact form ("80ms", "1.5s"): the schema's defaults.
impl Serialize for Dur {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::core::schema::format_duration(self.0))
    }
}

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_duration(&s).map(Dur).map_err(D::Error::custom)
    }
}

/// A rate given as a string with a unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate(pub BitsPerSec);

/// What the parser accepts (`time::parse_rate`), for the schema.
impl JsonSchema for Rate {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Rate".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        crate::core::schema::rate_schema()
    }
}

/// The shortest exact form ("10Gbps"): the schema's defaults.
impl Serialize for Rate {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::core::schema::format_rate(self.0))
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_rate(&s).map(Rate).map_err(D::Error::custom)
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UnitSpec {
    #[default]
    Packets,
    Bytes,
}

impl From<UnitSpec> for Unit {
    fn from(u: UnitSpec) -> Unit {
        match u {
            UnitSpec::Packets => Unit::Packets,
            UnitSpec::Bytes => Unit::Bytes,
        }
    }
}

/// Rows the monitor, the queue series or the flow series may write in one run
/// (duration / interval, times the links sampled).
pub const MONITOR_MAX_ROWS: u64 = 20_000_000;

/// One row of the per-flow series (engine/sim.rs `FlowSample`), bytes.
pub(crate) const FLOW_SAMPLE_BYTES: f64 = std::mem::size_of::<crate::engine::sim::FlowSample>() as f64;

/// The largest initial window (segments): a flow's first flight is built in one event
/// (10^9 segments took all memory). 10^6 segments of 1460 bytes (1.46 GB) exceed any
/// bandwidth-delay product simulated here (100 Gb/s x 100 ms is 0.86 x 10^6).
pub const MAX_INIT_CWND: f64 = 1_000_000.0;

/// Hosts (dumbbell pairs, star senders) or routers (chain) a built-in topology may have.
pub const MAX_HOSTS: u32 = 100_000;

/// Stream ids of the run's random streams (rng.rs).
pub(crate) const STREAM_LINK_LOSS: u64 = 1 << 20;
pub(crate) const STREAM_QUEUE: u64 = 2 << 20;
pub(crate) const STREAM_TRAFFIC: u64 = 3 << 20;
pub(crate) const STREAM_REORDER: u64 = 4 << 20;

pub(crate) fn node_of(sim: &Sim, name: &str, path: &str) -> Result<u32, String> {
    sim.net.node(name).ok_or_else(|| {
        let names: Vec<&str> = sim.net.node_names().take(8).collect();
        format!(
            "{path}: unknown node {name:?} (nodes: {}{})",
            names.join(", "),
            if sim.net.nodes.len() > 8 { ", ..." } else { "" }
        )
    })
}
