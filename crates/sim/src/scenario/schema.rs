//! The scenario schema reference, generated from the scenario types themselves
//! (scenario/ and tcp/cc/): their doc comments are the descriptions,
//! their `#[serde(default = ...)]` functions the defaults, and the hand-written parsers
//! (`kind`-tagged tables, durations, rates, a name or a table) say what they accept
//! through `JsonSchema` impls next to them. `json_schema()` is a JSON Schema (draft
//! 2020-12) of a scenario file, `markdown()` renders it as docs/schema.md:
//! `superpacket-sim --schema-md` / `--schema-json`, `make schema`; a test fails when the
//! checked-in files differ from these.

use serde_json::{Map, Value};

use crate::scenario::Scenario;

/// The checked-in Markdown reference and JSON Schema, relative to the repository root.
pub const MARKDOWN_PATH: &str = "docs/schema.md";
pub const JSON_PATH: &str = "docs/scenario.schema.json";
/// How to regenerate them (the drift test's message).
pub const REGENERATE: &str = "run `make schema` (cargo run -p superpacket-sim -- --schema-md > docs/schema.md; --schema-json > docs/scenario.schema.json)";

/// The JSON Schema of a scenario file (TOML or JSON: the same tree).
pub fn json_schema() -> Value {
    let g = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut s = g.into_root_schema_for::<Scenario>();
    let obj = s.ensure_object();
    obj.insert("title".into(), "superpacket scenario".into());
    obj.insert(
        "description".into(),
        "A superpacket scenario file (TOML, or JSON from Python). Generated from crates/sim/src/scenario/; docs/schema.md is the readable form.".into(),
    );
    s.to_value()
}

/// `json_schema()` as the checked-in file's text.
pub fn json_text() -> String {
    let mut s = serde_json::to_string_pretty(&json_schema()).expect("json");
    s.push('\n');
    s
}

// ---------------------------------------------------------------------------------------
// Markdown

struct Md<'a> {
    defs: &'a Map<String, Value>,
    /// Sections still to write (definition names), in the order first referenced.
    queue: Vec<String>,
    /// Where each definition is used ("Scenario.topology"), found while writing.
    used_in: Vec<(String, String)>,
    /// The same from a first pass, for the sections' "Used in" lines.
    known: Vec<(String, String)>,
    out: String,
}

fn anchor(name: &str) -> String {
    name.to_lowercase()
}

fn ref_name(v: &Value) -> Option<&str> {
    v.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

fn desc(v: &Value) -> &str {
    v.get("description").and_then(Value::as_str).unwrap_or("")
}

/// One line, Markdown-table safe.
fn cell(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").replace('|', "\\|")
}

fn json_inline(v: &Value) -> String {
    format!("`{}`", serde_json::to_string(v).expect("json"))
}

/// The string values of an enum schema (`enum`, or `oneOf` of `const`s), with their
/// descriptions.
fn enum_values(v: &Value) -> Option<Vec<(String, String)>> {
    if let Some(e) = v.get("enum").and_then(Value::as_array) {
        return e.iter().map(|x| x.as_str().map(|s| (s.to_string(), String::new()))).collect();
    }
    let alts = v.get("oneOf").and_then(Value::as_array)?;
    let mut out = Vec::new();
    for a in alts {
        if let Some(c) = a.get("const").and_then(Value::as_str) {
            out.push((c.to_string(), desc(a).to_string()));
        } else if let Some(e) = a.get("enum").and_then(Value::as_array) {
            for x in e {
                out.push((x.as_str()?.to_string(), desc(a).to_string()));
            }
        } else {
            return None;
        }
    }
    Some(out)
}

/// The variants of a `kind`-tagged schema: (kind, variant schema).
fn kind_variants(v: &Value) -> Option<Vec<(String, &Value)>> {
    let alts = v.get("oneOf").and_then(Value::as_array)?;
    alts.iter()
        .map(|a| {
            let k = a.get("properties")?.get("kind")?.get("const")?.as_str()?;
            Some((k.to_string(), a))
        })
        .collect()
}

fn quoted_values(vals: &[(String, String)]) -> String {
    vals.iter().map(|(v, _)| format!("`\"{v}\"`")).collect::<Vec<_>>().join(" | ")
}

impl Md<'_> {
    fn def(&self, name: &str) -> &Value {
        &self.defs[name]
    }

    fn link(&mut self, name: &str, from: &str) -> String {
        if !self.queue.iter().any(|n| n == name) {
            self.queue.push(name.to_string());
        }
        self.used_in.push((name.to_string(), from.to_string()));
        format!("[{name}](#{})", anchor(name))
    }

    /// The Type column of a field's schema; `from` is where it is used.
    fn type_of(&mut self, v: &Value, from: &str) -> String {
        if let Some(name) = ref_name(v) {
            let d = self.def(name).clone();
            return match name {
                "Duration" => "duration".into(),
                "Rate" => "rate".into(),
                _ if d.get("properties").is_some() || kind_variants(&d).is_some() || d.get("anyOf").is_some() => {
                    self.link(name, from)
                }
                _ => match enum_values(&d) {
                    Some(vals) => quoted_values(&vals),
                    None => self.link(name, from),
                },
            };
        }
        if let Some(alts) = v.get("anyOf").and_then(Value::as_array) {
            let parts: Vec<String> = alts
                .iter()
                .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
                .map(|a| self.type_of(a, from))
                .collect();
            return parts.join(" or ");
        }
        if let Some(c) = v.get("const") {
            return json_inline(c);
        }
        if let Some(vals) = enum_values(v) {
            return quoted_values(&vals);
        }
        let ty: Vec<&str> = match v.get("type") {
            Some(Value::String(s)) => vec![s.as_str()],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect(),
            _ => vec![],
        };
        match ty.as_slice() {
            ["array"] => {
                let items = v.get("items").cloned().unwrap_or(Value::Null);
                format!("array of {}", self.type_of(&items, from))
            }
            ["integer"] => match v.get("format").and_then(Value::as_str) {
                Some(f) => format!("integer ({})", f.replace("uint", "u").replace("int", "i")),
                None => "integer".into(),
            },
            [t] => t.to_string(),
            _ => "any".into(),
        }
    }

    /// Allowed values with descriptions, for the Description column.
    fn values_note(&self, v: &Value) -> String {
        let target = match ref_name(v) {
            Some(n) => self.def(n),
            None => v,
        };
        let target = match target.get("anyOf").and_then(Value::as_array) {
            Some(alts) => alts.iter().find(|a| a.get("type") != Some(&Value::String("null".into()))).unwrap_or(target),
            None => target,
        };
        let target = match ref_name(target) {
            Some(n) => self.def(n),
            None => target,
        };
        match enum_values(target) {
            Some(vals) if vals.iter().any(|(_, d)| !d.is_empty()) => {
                let list: Vec<String> = vals
                    .iter()
                    .map(|(n, d)| {
                        let d = d.trim_end_matches('.');
                        if d.is_empty() {
                            format!("`{n}`")
                        } else {
                            format!("`{n}`: {d}")
                        }
                    })
                    .collect();
                format!(" Values: {}.", list.join("; "))
            }
            _ => String::new(),
        }
    }

    /// The default of an optional field that records none: an Option is unset, a Vec
    /// empty, a table has its own fields' defaults.
    fn implicit_default(&self, p: &Value) -> String {
        let nullable = match p.get("type") {
            Some(Value::Array(a)) => a.iter().any(|t| t == "null"),
            _ => p
                .get("anyOf")
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(|x| x.get("type") == Some(&Value::String("null".into())))),
        };
        if nullable {
            return "unset".into();
        }
        if p.get("type").and_then(Value::as_str) == Some("array") {
            return "`[]`".into();
        }
        match ref_name(p).map(|n| self.def(n)) {
            Some(d) if d.get("properties").is_some() => "its fields' defaults".into(),
            _ => "unset".into(),
        }
    }

    /// A table of `v`'s fields (without `kind`), `owner` naming it for "used in".
    fn fields(&mut self, v: &Value, owner: &str) {
        let props = match v.get("properties").and_then(Value::as_object) {
            Some(p) => p.clone(),
            None => {
                self.out.push_str("No fields.\n\n");
                return;
            }
        };
        let required: Vec<&str> = v
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        // `allOf: [{ oneOf: [{ required: [a] }, { required: [b] }] }]`: one of a, b (aliases)
        let mut one_of: Vec<Vec<String>> = Vec::new();
        for a in v.get("allOf").and_then(Value::as_array).into_iter().flatten() {
            let names: Vec<String> = a
                .get("oneOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|o| o.get("required")?.as_array()?.first()?.as_str().map(String::from))
                .collect();
            one_of.push(names);
        }
        let group = |k: &str| one_of.iter().find(|g| g.iter().any(|n| n == k)).cloned();
        let mut names: Vec<&String> = props.keys().filter(|k| *k != "kind").collect();
        // required fields first, then the rest, each alphabetical
        names.sort_by_key(|k| (!required.contains(&k.as_str()) && group(k).is_none(), (*k).clone()));
        if names.is_empty() {
            self.out.push_str("No fields besides `kind`.\n\n");
            return;
        }
        self.out.push_str("| Field | Type | Default | Description |\n|---|---|---|---|\n");
        for name in names {
            let p = &props[name];
            let from = format!("{owner}.{name}");
            let ty = self.type_of(p, &from);
            let default = if required.contains(&name.as_str()) {
                "**required**".to_string()
            } else if let Some(of) = p.get("x-alias-of").and_then(Value::as_str) {
                format!("alias of `{of}`")
            } else if let Some(g) = group(name) {
                let names: Vec<String> = g.iter().map(|n| format!("`{n}`")).collect();
                format!("**required**: one of {}", names.join(", "))
            } else {
                match p.get("default") {
                    Some(Value::Null) => "unset".to_string(),
                    // a `#[serde(default)]` whose type has no JSON form: say what serde fills in
                    None => self.implicit_default(p),
                    Some(Value::Array(a)) if a.is_empty() => "`[]`".to_string(),
                    Some(d) => json_inline(d),
                }
            };
            let d = format!("{}{}", desc(p), self.values_note(p));
            self.out.push_str(&format!("| `{name}` | {} | {} | {} |\n", cell(&ty), cell(&default), cell(&d)));
        }
        self.out.push('\n');
    }

    fn section(&mut self, name: &str, v: &Value) {
        self.out.push_str(&format!("<a id=\"{}\"></a>\n\n## {name}\n\n", anchor(name)));
        let used: Vec<String> = self.known.iter().filter(|(n, _)| n == name).map(|(_, f)| format!("`{f}`")).collect();
        if !used.is_empty() {
            self.out.push_str(&format!("Used in: {}.\n\n", used.join(", ")));
        }
        if !desc(v).is_empty() {
            self.out.push_str(&format!("{}\n\n", desc(v)));
        }
        if let Some(vs) = kind_variants(v) {
            let kinds: Vec<String> = vs.iter().map(|(k, _)| format!("[`{k}`](#{}-{})", anchor(name), k)).collect();
            self.out.push_str(&format!("`kind`: {}.\n\n", kinds.join(", ")));
            for (k, a) in vs {
                self.out.push_str(&format!("<a id=\"{}-{k}\"></a>\n\n### {name}: `kind = \"{k}\"`\n\n", anchor(name)));
                if !desc(a).is_empty() {
                    self.out.push_str(&format!("{}\n\n", desc(a)));
                }
                self.fields(a, &format!("{name}[{k}]"));
            }
        } else if let Some(alts) = v.get("anyOf").and_then(Value::as_array) {
            // a name or a table
            let alts = alts.clone();
            for a in &alts {
                if let Some(vals) = enum_values(a) {
                    self.out.push_str(&format!("- a string, {}: {}\n", quoted_values(&vals), desc(a)));
                } else {
                    let t = self.type_of(a, name);
                    let what = if ref_name(a).is_some() { "a table" } else { "a value" };
                    self.out.push_str(&format!("- {what}: {t}\n"));
                }
            }
            self.out.push('\n');
        } else {
            self.fields(v, name);
        }
    }
}

/// docs/schema.md.
pub fn markdown() -> String {
    let root = json_schema();
    // a first pass finds where every definition is used, the second writes it
    let (_, used) = render(&root, Vec::new());
    render(&root, used).0
}

fn render(root: &Value, known: Vec<(String, String)>) -> (String, Vec<(String, String)>) {
    let empty = Map::new();
    let defs = root.get("$defs").and_then(Value::as_object).unwrap_or(&empty);
    let mut md = Md { defs, queue: Vec::new(), used_in: Vec::new(), known, out: String::new() };
    md.out.push_str(concat!(
        "# Scenario file schema reference\n\n",
        "<!-- Generated by `superpacket-sim --schema-md` from crates/sim/src/scenario/ and the types it uses; do not edit: `make schema` regenerates it. -->\n\n",
        "Every table and field a scenario file may have (TOML, or the same tree as JSON from Python), ",
        "generated from the Rust types that parse it, so it cannot drift from them: each description is the ",
        "field's doc comment, each default the value the parser fills in. Unknown fields are errors. ",
        "Limits that serde cannot express are checked when the scenario is built (`Scenario::build`, ",
        "`TcpSpec::resolve`); each field's description states them.\n\n",
        "- **duration**: a string with a unit, such as `\"25us\"`, `\"10ms\"`, `\"5s\"` (ns, us, ms, s).\n",
        "- **rate**: a string with a unit, such as `\"10Gbps\"`, `\"1.25Mbps\"` (Gbps, Mbps, Kbps, bps: bits per second).\n",
        "- **integer (u32)** and the like: the integer's range (u8, u16, u32, u64); a field's own limits are in its description.\n",
        "- **unset**: the field is optional and has no value of its own; the description says what applies then.\n",
        "- **required**: the field must be given.\n\n",
        "A JSON Schema of the same (draft 2020-12), for editors and validators, is ",
        "[scenario.schema.json](scenario.schema.json) (`superpacket-sim --schema-json`): e.g. with VS Code's ",
        "Even Better TOML (Taplo), put `#:schema ./docs/scenario.schema.json` on a scenario file's first line.\n\n",
    ));
    md.out.push_str("<a id=\"scenario\"></a>\n\n## Scenario\n\nThe top level of a scenario file.\n\n");
    md.fields(root, "Scenario");
    let mut i = 0;
    while i < md.queue.len() {
        let name = md.queue[i].clone();
        let v = md.def(&name).clone();
        md.section(&name, &v);
        i += 1;
    }
    while md.out.ends_with("\n\n") {
        md.out.pop();
    }
    (md.out, md.used_in)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::schema::format_duration;

    fn repo_file(rel: &str) -> String {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel);
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}; {REGENERATE}", p.display()))
    }

    /// The checked-in reference is what the types say now.
    #[test]
    fn checked_in_files_are_current() {
        assert!(repo_file(MARKDOWN_PATH) == format!("{}\n", markdown()), "{MARKDOWN_PATH} is stale: {REGENERATE}");
        assert!(repo_file(JSON_PATH) == json_text(), "{JSON_PATH} is stale: {REGENERATE}");
    }

    /// Every field of every table (the variants of `kind` tables included) has a
    /// description: its doc comment.
    #[test]
    fn every_field_is_documented() {
        fn walk(v: &Value, at: &str, missing: &mut Vec<String>) {
            match v {
                Value::Object(o) => {
                    if let Some(Value::Object(props)) = o.get("properties") {
                        for (k, p) in props {
                            if k != "kind" && desc(p).trim().is_empty() {
                                missing.push(format!("{at}.{k}"));
                            }
                        }
                    }
                    for (k, x) in o {
                        walk(x, &format!("{at}/{k}"), missing);
                    }
                }
                Value::Array(a) => {
                    for (i, x) in a.iter().enumerate() {
                        walk(x, &format!("{at}[{i}]"), missing);
                    }
                }
                _ => {}
            }
        }
        let mut missing = Vec::new();
        walk(&json_schema(), "", &mut missing);
        assert!(missing.is_empty(), "fields without a doc comment ({}):\n{}", missing.len(), missing.join("\n"));
    }

    /// The Default cell of `field` in the first table after the heading `heading`.
    fn md_default(md: &str, heading: &str, field: &str) -> String {
        let at = md.find(&format!("\n{heading}\n")).unwrap_or_else(|| panic!("no heading {heading:?}"));
        let row = md[at..]
            .lines()
            .find(|l| l.starts_with(&format!("| `{field}` |")))
            .unwrap_or_else(|| panic!("no field {field} under {heading}"));
        row.split(" | ").nth(2).expect("default cell").to_string()
    }

    /// The defaults the reference states are the ones a built scenario uses.
    #[test]
    fn stated_defaults_are_the_code_defaults() {
        let sc = Scenario::from_toml_str(
            r#"
            duration = "1s"
            [topology]
            kind = "dumbbell"
            pairs = 1
            access = { rate = "1Gbps", delay = "1ms" }
            bottleneck = { rate = "100Mbps", delay = "10ms" }
            [[traffic]]
            kind = "flow"
            from = "s0"
            to = "d0"
            size_pkts = 10
            "#,
        )
        .expect("scenario");
        let sim = sc.build(None).expect("build");
        let md = markdown();
        let queue = sim.net.links[0].disc.as_droptail().expect("the default queue is DropTail");
        assert_eq!(md_default(&md, "### QueueSpec: `kind = \"droptail\"`", "limit"), format!("`{}`", queue.limit));
        assert_eq!(queue.unit, crate::net::queue::Unit::Packets);
        assert_eq!(md_default(&md, "### QueueSpec: `kind = \"droptail\"`", "unit"), "`\"packets\"`");
        assert_eq!(queue.ecn_threshold, None);
        assert_eq!(md_default(&md, "### QueueSpec: `kind = \"droptail\"`", "ecn_threshold"), "unset");
        let flow = sim.flows.live().next().expect("one flow");
        let p = &flow.p;
        let tcp = "## TcpSpec";
        assert_eq!(md_default(&md, tcp, "mss"), format!("`{}`", p.mss));
        assert_eq!(md_default(&md, tcp, "header_bytes"), format!("`{}`", p.header));
        assert_eq!(md_default(&md, tcp, "init_cwnd"), format!("`{:?}`", p.init_cwnd));
        assert_eq!(md_default(&md, tcp, "dupack_threshold"), format!("`{}`", p.dupack_threshold));
        assert_eq!(md_default(&md, tcp, "min_rto"), format!("`\"{}\"`", format_duration(p.min_rto)));
        assert_eq!(md_default(&md, tcp, "init_rto"), format!("`\"{}\"`", format_duration(p.init_rto)));
        assert_eq!(md_default(&md, tcp, "delayed_ack"), format!("`{}`", p.delayed_ack));
        assert_eq!(md_default(&md, tcp, "cc"), format!("`\"{}\"`", flow.cc_name()));
        // and the literal values the issue names
        assert_eq!((queue.limit, p.mss, p.init_cwnd), (1000, 1460, 10.0));
        assert_eq!(md_default(&md, "## Scenario", "duration"), "**required**");
    }

    /// `v` against `s` (the JSON Schema keywords schema.rs produces: $ref, anyOf, oneOf,
    /// allOf, const, enum, type, properties, additionalProperties, required, items).
    fn conforms(v: &Value, s: &Value, root: &Value, at: &str) -> Result<(), String> {
        if let Some(name) = ref_name(s) {
            return conforms(v, &root["$defs"][name], root, at);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(alts) = s.get(key).and_then(Value::as_array) {
                let ok = alts.iter().filter(|a| conforms(v, a, root, at).is_ok()).count();
                if ok == 0 || (key == "oneOf" && ok > 1) {
                    return Err(format!("{at}: {ok} alternatives of {key} match"));
                }
            }
        }
        for a in s.get("allOf").and_then(Value::as_array).into_iter().flatten() {
            conforms(v, a, root, at)?;
        }
        if let Some(c) = s.get("const") {
            if c != v {
                return Err(format!("{at}: not {c}"));
            }
        }
        if let Some(e) = s.get("enum").and_then(Value::as_array) {
            if !e.contains(v) {
                return Err(format!("{at}: {v} not in {e:?}"));
            }
        }
        let types: Vec<&str> = match s.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let is = |t: &str| match t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "boolean" => v.is_boolean(),
            "null" => v.is_null(),
            "number" => v.is_number(),
            "integer" => v.is_u64() || v.is_i64(),
            _ => false,
        };
        if !types.is_empty() && !types.iter().any(|t| is(t)) {
            return Err(format!("{at}: {v} is not {types:?}"));
        }
        if let (Some(o), Some(props)) = (v.as_object(), s.get("properties").and_then(Value::as_object)) {
            for (k, x) in o {
                match props.get(k) {
                    Some(p) => conforms(x, p, root, &format!("{at}.{k}"))?,
                    None if s.get("additionalProperties") == Some(&Value::Bool(false)) => {
                        return Err(format!("{at}.{k}: unknown field"));
                    }
                    None => {}
                }
            }
        }
        if let Some(o) = v.as_object() {
            for r in s.get("required").and_then(Value::as_array).into_iter().flatten() {
                if !o.contains_key(r.as_str().unwrap_or("")) {
                    return Err(format!("{at}: missing {r}"));
                }
            }
        }
        if let (Some(a), Some(items)) = (v.as_array(), s.get("items")) {
            for (i, x) in a.iter().enumerate() {
                conforms(x, items, root, &format!("{at}[{i}]"))?;
            }
        }
        Ok(())
    }

    /// The JSON Schema accepts every scenario file of the repository (which the parser
    /// accepts), and refuses a misspelt field as the parser does: the hand-written
    /// schemas (kind tables, name-or-table fields, aliases) say what the parser reads.
    #[test]
    fn json_schema_accepts_what_the_parser_accepts() {
        let root = json_schema();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut n = 0;
        for sub in ["examples", "scenarios"] {
            for e in std::fs::read_dir(dir.join(sub)).expect("dir") {
                let p = e.expect("entry").path();
                if p.extension().and_then(|x| x.to_str()) != Some("toml") {
                    continue;
                }
                let text = std::fs::read_to_string(&p).expect("read");
                Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                let v = Scenario::toml_to_json(&text).expect("toml");
                conforms(&v, &root, &root, "").unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                n += 1;
            }
        }
        assert!(n >= 5, "found {n} scenario files");
        let bad = r#"
            duration = "1s"
            [topology]
            kind = "star"
            senders = 2
            sender_link = { rate = "1Gbps", delay = "1ms" }
            receiver_link = { rate = "1Gbps", delay = "1ms", queue = { kind = "droptail", limt = 5 } }
        "#;
        assert!(Scenario::from_toml_str(bad).is_err());
        let v = Scenario::toml_to_json(bad).expect("toml");
        assert!(conforms(&v, &root, &root, "").is_err());
        let short = r#"
            duration = "1s"
            [topology]
            kind = "star"
            senders = 2
            sender_link = { rate = "1Gbps", delay = "1ms" }
            receiver_link = { rate = "1Gbps", delay = "1ms", queue = { kind = "riops", short = { min_th = 5, max_th = 15 }, long = { min_th = 5, max_th = 15 } } }
            [tcp]
            cc = "cubic"
            reordering = { kind = "dcr", tau = "10ms" }
        "#;
        Scenario::from_toml_str(short).expect("aliases and names parse");
        let v = Scenario::toml_to_json(short).expect("toml");
        conforms(&v, &root, &root, "").expect("aliases and names in the schema");
    }
}
