//! Building blocks of the scenario's JSON Schema, for the types that parse themselves
//! (durations, rates, `kind`-tagged tables, a name or a table, aliases): each pluggable
//! family describes what it accepts with these, next to its parser; the schema
//! document itself is put together in scenario/schema.rs.

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value};

use crate::core::time::{BitsPerSec, SimTime, MAX_DURATION_NS};

/// The shortest exact duration string ("80ms", "1500us", "0s"), as `parse_duration` reads it.
pub fn format_duration(t: SimTime) -> String {
    let ns = t.ns();
    for (unit, mult) in [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)] {
        if ns.is_multiple_of(mult) {
            return format!("{}{unit}", ns / mult);
        }
    }
    format!("{ns}ns")
}

/// The shortest exact rate string ("10Gbps", "1500Kbps"), as `parse_rate` reads it.
pub fn format_rate(r: BitsPerSec) -> String {
    let bps = r.0;
    for (unit, mult) in [("Gbps", 1_000_000_000), ("Mbps", 1_000_000), ("Kbps", 1_000)] {
        if bps != 0 && bps.is_multiple_of(mult) {
            return format!("{}{unit}", bps / mult);
        }
    }
    format!("{bps}bps")
}

/// A duration field: what `time::parse_duration` accepts.
pub fn duration_schema() -> Schema {
    json_schema!({
        "type": "string",
        "description": format!(
            "A duration string such as \"10ms\": a number followed by ns, us, ms or s, at least 0 and at most {} s (time::MAX_DURATION_NS).",
            MAX_DURATION_NS / 1_000_000_000
        ),
        "pattern": "^\\s*[0-9.eE+-]+\\s*(ns|us|ms|s)\\s*$",
        "examples": ["25us", "10ms", "5s"]
    })
}

/// A rate field: what `time::parse_rate` accepts.
pub fn rate_schema() -> Schema {
    json_schema!({
        "type": "string",
        "description": "A rate string such as \"10Gbps\": a number followed by Gbps, Mbps, Kbps or bps (bits per second), at least 1 bps.",
        "pattern": "^\\s*[0-9.eE+-]+\\s*(Gbps|Mbps|Kbps|bps)\\s*$",
        "examples": ["10Gbps", "1.25Mbps"]
    })
}

/// One variant of a `kind`-tagged table: `T`'s table with `kind = name` added.
pub fn kind_variant<T: JsonSchema>(g: &mut SchemaGenerator, name: &str) -> Schema {
    let mut s = T::json_schema(g);
    let obj = s.ensure_object();
    let props = obj.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(p) = props {
        p.insert("kind".into(), serde_json::json!({ "type": "string", "const": name }));
    }
    let req = obj.entry("required").or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(r) = req {
        r.insert(0, Value::String("kind".into()));
    }
    s
}

/// A `kind`-tagged table (scenario.rs `tagged!`): one of `variants`.
pub fn tagged_schema(what: &str, variants: Vec<Schema>) -> Schema {
    json_schema!({
        "description": format!("A table whose `kind` field selects the {what}; the other fields are those of that kind."),
        "oneOf": variants
    })
}

/// A name (the short form, with defaults) or a full table.
pub fn name_or_table(table: Schema, names: &[&str], what: &str) -> Schema {
    json_schema!({
        "anyOf": [
            { "type": "string", "enum": names, "description": format!("A name: {what}.") },
            table
        ]
    })
}

/// Adds serde's `alias`es, which schemars leaves out: each (name, alias) pair becomes two
/// properties of which exactly one is required, the alias marked `x-alias-of` (the
/// Markdown shows it as such).
pub fn add_aliases(s: &mut Schema, pairs: &[(&str, &str)]) {
    let obj = s.ensure_object();
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        for (name, alias) in pairs {
            if let Some(mut a) = props.get(*name).cloned() {
                if let Value::Object(o) = &mut a {
                    o.insert("description".into(), format!("Alias of `{name}`.").into());
                    o.insert("x-alias-of".into(), (*name).into());
                }
                props.insert((*alias).into(), a);
            }
        }
    }
    let mut one_ofs = Vec::new();
    if let Some(Value::Array(req)) = obj.get_mut("required") {
        for (name, alias) in pairs {
            if let Some(i) = req.iter().position(|r| r == name) {
                req.remove(i);
                one_ofs.push(serde_json::json!({ "oneOf": [{ "required": [name] }, { "required": [alias] }] }));
            }
        }
    }
    if !one_ofs.is_empty() {
        obj.insert("allOf".into(), Value::Array(one_ofs));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_read_back() {
        for ns in [0, 1, 1_500, 80_000_000, 9_500_000_000, 123_456_789] {
            let s = format_duration(SimTime(ns));
            assert_eq!(crate::core::time::parse_duration(&s), Ok(SimTime(ns)), "{s}");
        }
        for bps in [1, 9600, 1_250_000, 10_000_000_000] {
            let s = format_rate(BitsPerSec(bps));
            assert_eq!(crate::core::time::parse_rate(&s), Ok(BitsPerSec(bps)), "{s}");
        }
    }
}
