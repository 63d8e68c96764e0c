//! Durations and rates as a scenario writes them (strings with a unit, parsed by
//! core/time.rs, written back in their shortest exact form for the schema's defaults), and
//! the unit of a queue's limit: the value types every family's scenario table uses.

use schemars::JsonSchema;
use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};

use crate::core::time::{parse_duration, parse_rate, BitsPerSec, SimTime};

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
        let s = with_unit(serde_json::Value::deserialize(d)?, "a duration", "\"200ms\"", "s")?;
        parse_duration(&s).map(Dur).map_err(D::Error::custom)
    }
}

/// A duration's or rate's string, or an error with an example of the right form: a bare
/// number is refused naming the unit it would need (`100000000` for a rate: "a rate as
/// a string with a unit, e.g. \"100Mbps\" (got the number 100000000; in bits per second
/// that is \"100000000bps\")").
fn with_unit<E: serde::de::Error>(v: serde_json::Value, what: &str, example: &str, base: &str) -> Result<String, E> {
    match v {
        serde_json::Value::String(s) => Ok(s),
        serde_json::Value::Number(n) => Err(E::custom(format!(
            "{what} as a string with a unit, e.g. {example} (got the number {n}; in {} that is \"{n}{base}\")",
            if base == "s" { "seconds" } else { "bits per second" }
        ))),
        other => Err(E::custom(format!("{what} as a string with a unit, e.g. {example} (got {other})"))),
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
        let s = with_unit(serde_json::Value::deserialize(d)?, "a rate", "\"100Mbps\"", "bps")?;
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
