//! The pluggable families as one table: every name a scenario file accepts for a
//! congestion control, a queue discipline, a topology, a traffic kind, a send gate and a
//! reordering response, with its description. Read from the registries themselves (the
//! congestion controls' `registry!` in tcp/cc/mod.rs; for the others the `kind`-tagged
//! scenario types, whose variants are their registries and whose doc comments are the
//! descriptions), so `superpacket list`, docs/schema.md and the "allowed: ..." messages
//! cannot disagree.

use serde_json::Value;

use crate::tcp::cc;

/// A family: its name, where a scenario sets it, and its members (name, description).
#[derive(Clone, Debug, PartialEq)]
pub struct Family {
    pub name: &'static str,
    pub field: &'static str,
    pub members: Vec<(String, String)>,
}

/// The `kind`-tagged scenario types of each family (their schema definitions).
const TAGGED: &[(&str, &str, &str)] = &[
    ("topologies", "[topology] kind", "TopologySpec"),
    ("queue disciplines", "queue = { kind = ... }", "QueueSpec"),
    ("traffic kinds", "[[traffic]] kind", "TrafficSpec"),
    ("send gates", "[tcp] gate = { kind = ... }", "GateSpec"),
    ("reordering responses", "[tcp] reordering", "ReorderingTable"),
];

/// Every family, in the order `superpacket list` shows them.
pub fn families() -> Vec<Family> {
    let schema = super::schema::json_schema();
    let defs = &schema["$defs"];
    let mut out = vec![Family {
        name: "congestion controls",
        field: "[tcp] cc = NAME, or [tcp.cc] kind = NAME plus parameters",
        members: cc::DESCRIPTIONS.iter().map(|(n, d)| (n.to_string(), tidy(d))).collect(),
    }];
    for &(name, field, def) in TAGGED {
        out.push(Family { name, field, members: kinds(&defs[def]) });
    }
    out
}

/// (kind, description) of each variant of a `kind`-tagged definition.
fn kinds(def: &Value) -> Vec<(String, String)> {
    let variants = def["oneOf"].as_array().map(Vec::as_slice).unwrap_or_default();
    variants
        .iter()
        .filter_map(|v| {
            let kind = v["properties"]["kind"]["const"].as_str()?;
            Some((kind.to_string(), tidy(v["description"].as_str().unwrap_or(""))))
        })
        .collect()
}

/// A doc comment as one line of prose.
fn tidy(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn family(name: &str) -> Vec<String> {
        families().into_iter().find(|f| f.name == name).expect(name).members.into_iter().map(|m| m.0).collect()
    }

    fn builds(toml: &str) {
        let sc = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("{e}\n{toml}"));
        sc.build(Some(1)).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    }

    const DUMBBELL: &str = r#"
        name = "t"
        duration = "10ms"
        [topology]
        kind = "dumbbell"
        pairs = 1
        access = { rate = "100Mbps", delay = "1ms" }
        bottleneck = { rate = "10Mbps", delay = "5ms" }
    "#;

    /// The same dumbbell with a bottleneck that marks ECN (DCTCP is refused without one).
    const MARKING: &str = r#"
        name = "t"
        duration = "10ms"
        [topology]
        kind = "dumbbell"
        pairs = 1
        access = { rate = "100Mbps", delay = "1ms" }
        bottleneck = { rate = "10Mbps", delay = "5ms", queue = { kind = "droptail", limit = 100, ecn_threshold = 20 } }
    "#;

    /// Every congestion control of the registry parses by name, builds, runs and lists,
    /// and every name the short form accepts is in the list (and nothing else).
    #[test]
    fn every_congestion_control_parses_builds_and_lists() {
        let listed = family("congestion controls");
        for name in cc::NAMES {
            assert!(listed.iter().any(|n| n == name), "{name} not listed");
            builds(&format!(
                "{MARKING}\n[tcp]\ncc = \"{name}\"\n[[traffic]]\nkind = \"bulk\"\nfrom = \"s0\"\nto = \"d0\"\n"
            ));
        }
        builds(&format!("{DUMBBELL}\n[tcp.cc]\nkind = \"fixed\"\nwindow = 4\n[[traffic]]\nkind = \"bulk\"\nfrom = \"s0\"\nto = \"d0\"\n"));
        assert_eq!(listed.len(), cc::NAMES.len() + 1, "NAMES and the table form's `fixed`: {listed:?}");
        let bad = Scenario::from_toml_str(&format!("{DUMBBELL}\n[tcp]\ncc = \"nope\"\n")).unwrap_err();
        for name in cc::NAMES {
            assert!(bad.contains(name), "the refusal lists {name}: {bad}");
        }
    }

    /// Every queue discipline of the registry builds on the bottleneck from a minimal
    /// table; a new kind fails here until it has its table below.
    #[test]
    fn every_queue_discipline_parses_builds_and_lists() {
        let tables = [
            ("droptail", "{ kind = \"droptail\" }"),
            ("red", "{ kind = \"red\", min_th = 5, max_th = 15 }"),
            ("superpacket", "{ kind = \"superpacket\", limit = 100, threshold = 50 }"),
            ("rio", "{ kind = \"rio\", in = { min_th = 5, max_th = 15 }, out = { min_th = 2, max_th = 8 } }"),
            ("riops", "{ kind = \"riops\", in = { min_th = 5, max_th = 15 }, out = { min_th = 2, max_th = 8 } }"),
        ];
        assert_eq!(family("queue disciplines"), tables.iter().map(|t| t.0.to_string()).collect::<Vec<_>>());
        for (_, t) in tables {
            builds(&DUMBBELL.replace("delay = \"5ms\" }", &format!("delay = \"5ms\", queue = {t} }}")));
        }
    }

    /// Every send gate of the registry builds from a minimal table and runs a flow; a new
    /// kind fails here until it has its table below.
    #[test]
    fn every_send_gate_parses_builds_and_lists() {
        let tables = [
            ("bursts", "{ kind = \"bursts\", burst_pkts = 4, rate = \"5Mbps\" }"),
            ("pda", "{ kind = \"pda\" }"),
            ("burstiness", "{ kind = \"burstiness\" }"),
        ];
        assert_eq!(family("send gates"), tables.iter().map(|t| t.0.to_string()).collect::<Vec<_>>());
        for (_, t) in tables {
            builds(&format!(
                "{DUMBBELL}\n[tcp]\ngate = {t}\n[[traffic]]\nkind = \"bulk\"\nfrom = \"s0\"\nto = \"d0\"\n"
            ));
        }
    }

    /// Every traffic kind of the registry builds from a minimal table on a dumbbell of two
    /// pairs, adds a flow, a generator or a source, and runs; the refusal of an unknown
    /// kind lists them all. A new kind fails here until it has its table below.
    #[test]
    fn every_traffic_kind_parses_builds_and_lists() {
        let tables = [
            ("bulk", "from = \"s0\"\nto = \"d0\""),
            ("flow", "from = \"s0\"\nto = \"d0\"\nsize_pkts = 10"),
            ("poisson", "from = \"s0\"\nto = \"d0\"\nrate_per_s = 100\nsize_pkts = 10"),
            ("back_to_back", "from = \"s{i}\"\nto = \"d{i}\"\ncount = 2\nsize_pkts = 10"),
            ("web", "servers = \"s{i}\"\nserver_count = 2\nclients = \"d{i}\"\nclient_count = 2\nsessions = 2"),
            ("cbr", "from = \"s0\"\nto = \"d0\"\nrate = \"1Mbps\""),
            ("onoff", "from = \"s0\"\nto = \"d0\"\nrate = \"1Mbps\"\non_time = \"1ms\"\noff_time = \"1ms\""),
            ("mbs_probe", "from = \"s0\"\nto = \"d0\""),
            ("sp_attack", "from = \"s0\"\nto = \"d0\"\nattack = \"spoof_flood\"\nrate_pps = 1000"),
            ("workload", "hosts = [\"s*\", \"d*\"]\ncdf = \"web_search\"\nload = 0.1"),
            ("incast", "client = \"d0\"\nservers = [\"s*\"]\nbytes = 10000\nperiod = \"2ms\""),
        ];
        assert_eq!(family("traffic kinds"), tables.iter().map(|t| t.0.to_string()).collect::<Vec<_>>());
        let two_pairs = DUMBBELL.replace("pairs = 1", "pairs = 2");
        for (kind, t) in tables {
            let toml = format!("{two_pairs}\n[[traffic]]\nkind = \"{kind}\"\n{t}\n");
            let sc = Scenario::from_toml_str(&toml).unwrap_or_else(|e| panic!("{e}\n{toml}"));
            let mut sim = sc.build(Some(1)).unwrap_or_else(|e| panic!("{e}\n{toml}"));
            assert!(sim.flows.len() + sim.gens.len() + sim.sources.len() > 0, "{kind} added nothing");
            sim.run_until(sc.duration.0);
        }
        let bad = Scenario::from_toml_str(&format!("{DUMBBELL}\n[[traffic]]\nkind = \"nope\"\n")).unwrap_err();
        for (kind, _) in tables {
            assert!(bad.contains(kind), "the refusal lists {kind}: {bad}");
        }
    }

    /// Every family has members, each with a description (the list shows them).
    #[test]
    fn every_member_is_described() {
        for f in families() {
            assert!(!f.members.is_empty(), "{}", f.name);
            for (n, d) in &f.members {
                assert!(!d.is_empty(), "{} {n} has no description", f.name);
            }
        }
    }
}
