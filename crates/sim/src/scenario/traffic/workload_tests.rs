//! Tests of the workload and incast kinds (a child module of workload.rs, for the
//! generators' state): the offered load of each bundled table through the schema,
//! permutations, host patterns, link_rate, short_tcp, incast rounds and the one-line
//! errors naming each field.

use crate::scenario::traffic::hosts::glob;
use super::*;
use crate::core::time::SimTime;
use crate::engine::sim::Sim;
use crate::scenario::Scenario;
use crate::traffic::FlowSpec;

/// A two-tier graph named like the leaf-spine fabric: hosts h{leaf}_{i} on leaf{leaf},
/// leaves on spine0; host links at `host_rate` except h1_3's at 1 Gbps.
fn fabric(host_rate: &str, duration: &str, traffic: &str) -> String {
    let mut nodes = vec!["\"spine0\"".to_string()];
    let mut links = Vec::new();
    for l in 0..2 {
        nodes.push(format!("\"leaf{l}\""));
        links.push(format!("{{ a = \"leaf{l}\", b = \"spine0\", rate = \"100Gbps\", delay = \"1us\" }}"));
        for i in 0..4 {
            nodes.push(format!("\"h{l}_{i}\""));
            let rate = if (l, i) == (1, 3) { "1Gbps" } else { host_rate };
            links.push(format!("{{ a = \"h{l}_{i}\", b = \"leaf{l}\", rate = \"{rate}\", delay = \"1us\" }}"));
        }
    }
    format!(
        "duration = \"{duration}\"\n[topology]\nkind = \"graph\"\nnodes = [{}]\nlinks = [{}]\n{traffic}",
        nodes.join(", "),
        links.join(", ")
    )
}

fn build(toml: &str, seed: u64) -> Result<Sim, String> {
    Scenario::from_toml_str(toml)?.build(Some(seed))
}

/// Fires every generator of `sim` to its end without simulating packets: the flows
/// they would open, as (generator, time, spec).
fn arrivals(sim: &mut Sim) -> Vec<(usize, SimTime, FlowSpec)> {
    let mut out = Vec::new();
    for (g, gen) in sim.gens.iter_mut().enumerate() {
        let mut t = gen.first_arrival();
        while let Some(now) = t {
            let (f, next) = gen.fire(now);
            out.extend(f.map(|f| (g, now, f)));
            t = next;
        }
    }
    out
}

#[test]
fn offered_load_matches_the_target_for_each_table() {
    // The must-hold of the issue: offered payload bytes x 8 / (duration x C) within
    // 2 % of `load`, C of each host its NIC (h1_3 is at 1 Gbps: its own C). Rate per
    // 10 Gbps host at load 0.5: 0.5e10 / (8 E[S]) = 365.2 flows/s (web search),
    // 124.1 (data mining), 5,190 (Facebook Hadoop). The window gives each table
    // n flows with a relative sd of the offered bytes sqrt(1 + cv^2) / sqrt(n) (a
    // compound Poisson sum; cv = sd / mean of the table: 2.32, 9.68, 5.56):
    // web search 400 s, n = 1.06e6, sd 0.25 %; data mining 4,000 s, n = 3.6e6,
    // sd 0.51 %; Facebook Hadoop 50 s, n = 1.9e6, sd 0.41 %: 2 % is 4 sd or more.
    for (cdf, secs, want_rate) in [("web_search", 400, 365.2), ("data_mining", 4000, 124.1), ("fb_hadoop", 50, 5190.0)]
    {
        let traffic = format!(
            "[[traffic]]\nkind = \"workload\"\nhosts = [\"h*\"]\ncdf = \"{cdf}\"\nload = 0.5\nstart = \"1s\"\n"
        );
        let mut sim = build(&fabric("10Gbps", &format!("{}s", secs + 1), &traffic), 1).unwrap();
        assert_eq!(sim.gens.len(), 8);
        for (i, g) in sim.gens.iter().enumerate() {
            let w = g.source_as::<WorkloadSource>().unwrap_or_else(|| panic!("generator {i}"));
            let want = if i == 7 { want_rate / 10.0 } else { want_rate };
            assert!((w.rate_per_s / want - 1.0).abs() < 1e-3, "{cdf} host {i}: {} flows/s", w.rate_per_s);
        }
        let flows = arrivals(&mut sim);
        let c_total = 7.0 * 10e9 + 1e9;
        let bytes: u64 = flows.iter().map(|(_, _, f)| f.size).sum();
        let load = bytes as f64 * 8.0 / (secs as f64 * c_total);
        assert!((load / 0.5 - 1.0).abs() < 0.02, "{cdf}: offered load {load:.4} ({} flows)", flows.len());
        assert!(flows.iter().all(|(_, t, f)| *t >= SimTime::from_secs(1) && f.src != f.dst));
        eprintln!("{cdf}: offered load {load:.5} of 0.5 over {} flows", flows.len());
    }
}

#[test]
fn permutation_sends_each_host_to_exactly_one_other() {
    let traffic = "[[traffic]]\nkind = \"workload\"\nhosts = [\"h*\"]\ncdf = \"fb_hadoop\"\nload = 0.2\npattern = \"permutation\"\n";
    let mut maps = Vec::new();
    for seed in [1, 2, 3] {
        let mut sim = build(&fabric("10Gbps", "100ms", traffic), seed).unwrap();
        let hosts: Vec<NodeId> = (0..2)
            .flat_map(|l| (0..4).map(move |i| (l, i)))
            .map(|(l, i)| sim.net.node(&format!("h{l}_{i}")).unwrap())
            .collect();
        let mut dst_of = vec![None; hosts.len()];
        for (g, _, f) in arrivals(&mut sim) {
            assert_eq!(f.src, hosts[g]);
            assert_ne!(f.dst, f.src);
            assert!(dst_of[g].is_none_or(|d| d == f.dst), "host {g} sends to two hosts");
            dst_of[g] = Some(f.dst);
        }
        // every host sent (about 52 flows each), to distinct hosts: a derangement
        let mut dsts: Vec<NodeId> = dst_of.iter().map(|d| d.expect("every host sends")).collect();
        maps.push(dsts.clone());
        dsts.sort();
        assert_eq!(dsts, hosts);
    }
    assert!(maps[0] != maps[1] || maps[1] != maps[2], "the permutation follows the seed");
}

#[test]
fn hosts_short_tcp_and_link_rate_take_effect() {
    // a rack (h1_*), link_rate overriding the NICs: 1 Gbps x 0.5 / (8 x 120,420.75)
    let traffic = "[[traffic]]\nkind = \"workload\"\nhosts = [\"h1_*\"]\ncdf = \"fb_hadoop\"\nload = 0.5\nlink_rate = \"1Gbps\"\nshort_tcp = { max_bytes = 1000, tcp = { init_cwnd = 32 } }\n[tcp]\ninit_cwnd = 4\n";
    let mut sim = build(&fabric("10Gbps", "2s", traffic), 1).unwrap();
    let rack: Vec<NodeId> = (0..4).map(|i| sim.net.node(&format!("h1_{i}")).unwrap()).collect();
    assert_eq!(sim.gens.len(), 4);
    for g in &sim.gens {
        let w = g.source_as::<WorkloadSource>().unwrap();
        assert!((w.rate_per_s - 519.0).abs() < 0.1, "{}", w.rate_per_s);
    }
    let flows = arrivals(&mut sim);
    assert!(flows.len() > 3000);
    for (_, _, f) in &flows {
        assert!(rack.contains(&f.src) && rack.contains(&f.dst));
        assert_eq!(f.params.init_cwnd, if f.size <= 1000 { 32.0 } else { 4.0 }, "size {}", f.size);
    }
    assert!(sim.tcp_configs.iter().any(|(k, _)| k == "traffic[0].short_tcp"));
}

#[test]
fn incast_servers_answer_each_round_at_once() {
    // period 10 ms from 5 ms until the end of a 100 ms run: rounds at 5, 15, .., 95 ms;
    // the client matches the pattern too and is left out: 3 servers
    let traffic = "[[traffic]]\nkind = \"incast\"\nclient = \"h0_0\"\nservers = [\"h0_*\"]\nbytes = 30000\nperiod = \"10ms\"\nstart = \"5ms\"\n";
    let mut sim = build(&fabric("10Gbps", "100ms", traffic), 1).unwrap();
    let client = sim.net.node("h0_0").unwrap();
    let mut flows = arrivals(&mut sim);
    flows.sort_by_key(|(g, t, _)| (*t, *g));
    assert_eq!(flows.len(), 10 * 3);
    for (r, round) in flows.chunks(3).enumerate() {
        for (_, t, f) in round {
            assert_eq!(*t, SimTime::from_ms(5 + 10 * r as u64));
            assert_eq!((f.dst, f.size), (client, 30_000));
            assert_ne!(f.src, client);
        }
    }
}

#[test]
fn schema_errors_name_the_field() {
    let wl = |extra: &str| format!("[[traffic]]\nkind = \"workload\"\nhosts = [\"h*\"]\ncdf = \"web_search\"\n{extra}");
    let ic = |extra: &str| {
        format!("[[traffic]]\nkind = \"incast\"\nclient = \"h0_0\"\nservers = [\"h1_*\"]\nbytes = 1000\n{extra}")
    };
    let dir = std::env::temp_dir().join(format!("sp-cdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "0 0\n100 50\n50 100\n").unwrap();
    let good = dir.join("good.txt");
    std::fs::write(&good, "# mine\n1000 0.5\n3000 1\n").unwrap();
    let cases = [
        (wl("load = 0"), "traffic[0].load: must be in (0, 1]"),
        (wl("load = 1.5"), "traffic[0].load: must be in (0, 1]"),
        (wl("load = nan"), "traffic[0].load: must be a finite number"),
        (wl("load = 0.5\nhosts2 = 1"), "traffic[0].hosts2: unknown field `hosts2`"),
        (wl("load = 0.5\ncdf2 = 1").replace("cdf = \"web_search\"\n", ""), "traffic[0].cdf2: unknown field `cdf2`"),
        (wl("load = 0.5").replace("\"web_search\"", "\"websearch\""), "traffic[0].cdf: unknown table \"websearch\""),
        (
            wl("load = 0.5").replace("\"web_search\"", "{ file = \"/nonexistent/x.txt\" }"),
            "traffic[0].cdf.file: cannot read",
        ),
        (
            wl("load = 0.5").replace("\"web_search\"", &format!("{{ file = {:?} }}", bad.to_str().unwrap())),
            "line 3: size 50 is below line 2's 100",
        ),
        (
            wl("load = 0.5").replace("\"web_search\"", "{ path = \"x\" }"),
            "traffic[0].cdf.path: unknown field `path`, expected `file`",
        ),
        (wl("load = 0.5").replace("[\"h*\"]", "[\"h*\", \"x*\"]"), "traffic[0].hosts[1]: \"x*\" matches no node"),
        (wl("load = 0.5").replace("[\"h*\"]", "[]"), "traffic[0].hosts: give at least one"),
        (wl("load = 0.5").replace("[\"h*\"]", "[\"h0_0\"]"), "traffic[0].hosts: need at least 2 hosts"),
        (wl("load = 0.5\npattern = \"ring\""), "traffic[0].pattern: unknown variant `ring`"),
        (wl("load = 0.5\nshort_tcp = { max_bytes = 0 }"), "traffic[0].short_tcp.max_bytes: must be >= 1"),
        (wl("load = 0.5\nshort_tcp = { max_bytes = 10, tcp = { mss = 0 } }"), "traffic[0].short_tcp.tcp.mss"),
        (wl("load = 0.5\nstart = \"200s\""), "traffic[0].start: must be before stop"),
        (
            wl("load = 1\nlink_rate = \"100Gbps\"").replace("\"web_search\"", "\"fb_hadoop\""),
            "traffic[0].load: about 1.661e7 flows expected over 20 s",
        ),
        (ic("period = \"0s\""), "traffic[0].period: must be > 0"),
        (ic(""), "traffic[0]: period (or rate_per_s) is required"),
        (ic("period = \"1ms\"\nrate_per_s = 5.0"), "traffic[0]: give period or rate_per_s, not both"),
        (ic("rate_per_s = -1.0"), "traffic[0].rate_per_s: must be > 0"),
        (ic("period = \"1ms\"").replace("bytes = 1000", "bytes = 0"), "traffic[0].bytes: must be in 1.."),
        (ic("period = \"1ms\"").replace("\"h0_0\"", "\"nobody\""), "traffic[0].client: unknown node \"nobody\""),
        (
            ic("period = \"1ms\"").replace("[\"h1_*\"]", "[\"h0_0\"]"),
            "traffic[0].servers: the patterns match only the client",
        ),
        (ic("period = \"1ms\"").replace("[\"h1_*\"]", "[\"q*\"]"), "traffic[0].servers[0]: \"q*\" matches no node"),
        (ic("period = \"10ns\""), "traffic[0].period: about 8.000e9 flows expected (rounds x 4 servers)"),
    ];
    let mut wrong = Vec::new();
    for (traffic, want) in cases {
        let e = match build(&fabric("10Gbps", "20s", &traffic), 1) {
            Ok(_) => "(built)".to_string(),
            Err(e) => e,
        };
        // the file's error comes after its path
        let file = e.starts_with("traffic[0].cdf.file: ") && e.contains(want);
        if !(e.starts_with(want) || file) || e.contains('\n') {
            wrong.push(format!("{traffic}\n got: {e}\nwant: {want}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
    // two hosts x0, x1 linked to each other only: no route from the fabric's hosts
    let island = fabric("10Gbps", "1s", &wl("load = 0.5").replace("[\"h*\"]", "[\"h0_*\", \"x*\"]"))
        .replace("nodes = [", "nodes = [\"x0\", \"x1\", ")
        .replace("links = [", "links = [{ a = \"x0\", b = \"x1\", rate = \"1Gbps\", delay = \"1us\" }, ");
    let e = build(&island, 1).map(|_| ()).unwrap_err();
    // the error ends with the line of the file that sets `hosts`
    let line = island.lines().position(|l| l.trim_start().starts_with("hosts")).expect("hosts") + 1;
    assert_eq!(e, format!("traffic[0].hosts: no route from \"x0\" to \"h0_0\" (line {line})"));
    // a file of fractions is read (relative paths: from the current directory)
    let ok = wl("load = 0.5").replace("\"web_search\"", &format!("{{ file = {:?} }}", good.to_str().unwrap()));
    let sim = build(&fabric("10Gbps", "1s", &ok), 1).unwrap();
    let w = sim.gens[0].source_as::<WorkloadSource>().unwrap();
    // half the flows at 1,000 B (the first point's mass), half uniform on [1,000,
    // 3,000]: 0.5 x 1,000 + 0.5 x 2,000
    assert_eq!(w.cdf.mean(), 1500.0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn glob_matches_runs_of_characters() {
    for (pat, name, want) in [
        ("h*", "h0", true),
        ("h*", "h12_3", true),
        ("h*", "leaf0", false),
        ("h3_*", "h3_0", true),
        ("h3_*", "h31_0", false),
        ("h1_*", "h1_2_3", true),
        ("*", "R1", true),
        ("s*", "s10", true),
        ("s*", "spine0", true),
        ("h*_0", "h2_0", true),
        ("h*_0", "h2_01", false),
        ("*_*_*", "h1_2_3", true),
        ("*_*_*", "h1_2", false),
        ("d0", "d0", true),
        ("d0", "d01", false),
        ("", "", true),
        ("a**b", "ab", true),
    ] {
        assert_eq!(glob(pat, name), want, "{pat:?} vs {name:?}");
    }
}

#[test]
fn workload_and_incast_flows_are_charged_to_the_memory_estimate() {
    // The estimate (memory.rs) of the same fabric with and without the entry differs by
    // the entry's charge: a row of FLOW_ROW_BYTES (600 B) per flow expected over the run
    // plus a LIVE_FLOW_BYTES (1,200 B) flow open per host.
    // Workload, web search (WORKLOADS.md mean 1,711,250 B) at load 0.5 over 100 s: a
    // 10 Gbps host opens 0.5 x 1e10 / (8 x 1,711,250) = 365.21 flows/s, h1_3 at 1 Gbps
    // 36.521 flows/s; expected (7 x 365.21 + 36.521) x 100 = 259,300 flows;
    // charge 8 x 1,200 + 259,300 x 600 = 155.59 MB.
    let base = build(&fabric("10Gbps", "100s", ""), 1).unwrap().memory.total();
    let wl = "[[traffic]]\nkind = \"workload\"\nhosts = [\"h*\"]\ncdf = \"web_search\"\nload = 0.5\n";
    let with = build(&fabric("10Gbps", "100s", wl), 1).unwrap().memory.total();
    let per_host = 0.5e10 / (8.0 * 1_711_250.0);
    let want = 8.0 * 1200.0 + (7.0 * per_host + per_host / 10.0) * 100.0 * 600.0;
    assert!((with - base - want).abs() < 1e-6 * want, "{} vs {want}", with - base);
    // past a budget, refused by the field before any flow exists
    let tight = format!("{}[output]\nmemory_budget = \"100MB\"\n", fabric("10Gbps", "100s", wl));
    let e = build(&tight, 1).err().unwrap();
    assert!(e.starts_with("traffic[0].load: the run would hold about 15"), "{e}");
    // Incast every 1 ms over 1 s, client h0_0, servers h0_1..h0_3: 1,000 rounds x 3
    // servers = 3,000 flows; charge 3 x 1,200 + 3,000 x 600 = 1,803,600 B.
    let base = build(&fabric("10Gbps", "1s", ""), 1).unwrap().memory.total();
    let ic =
        "[[traffic]]\nkind = \"incast\"\nclient = \"h0_0\"\nservers = [\"h0_*\"]\nbytes = 30000\nperiod = \"1ms\"\n";
    let with = build(&fabric("10Gbps", "1s", ic), 1).unwrap().memory.total();
    assert!((with - base - 1_803_600.0).abs() < 1.0, "{}", with - base);
}
