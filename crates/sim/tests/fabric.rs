//! Datacenter fabrics (issue 16 section 1): leaf-spine and fat-tree shapes, ECMP by a
//! seeded 5-tuple hash at every switch, per-packet spraying, queue disciplines by port
//! class, schema errors. Expected values are counted from the shapes' definitions
//! (Al-Fares et al., SIGCOMM 2008, section 3.2 for the fat tree) and binomial bounds.
//!
//! Run: `cargo test --release -p superpacket-sim --test fabric`.

use sim::{Scenario, Sim, SimTime};

fn build(toml: &str, seed: u64) -> Sim {
    let sc = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("scenario: {e}"));
    sc.build(Some(seed)).unwrap_or_else(|e| panic!("build: {e}"))
}

fn build_err(toml: &str) -> String {
    match Scenario::from_toml_str(toml).and_then(|sc| sc.build(Some(1))) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

fn leaf_spine(leaves: u32, spines: u32, hosts: u32, routing: &str, extra: &str) -> String {
    format!(
        r#"
        duration = "10ms"
        [topology]
        kind = "leaf_spine"
        leaves = {leaves}
        spines = {spines}
        hosts_per_leaf = {hosts}
        host_link = {{ rate = "10Gbps", delay = "1us" }}
        fabric_link = {{ rate = "40Gbps", delay = "1us" }}
        routing = "{routing}"
        {extra}
        "#
    )
}

/// Names of the links of flow `f`'s forward route.
fn path(sim: &Sim, f: usize) -> Vec<String> {
    sim.route(sim.flows.get(f as u32).expect("live flow").fwd)
        .iter()
        .map(|&l| sim.net.links[l as usize].name.clone())
        .collect()
}

fn link<'a>(sim: &'a Sim, name: &str) -> &'a sim::net::link::Link {
    &sim.net.links[sim.net.link_by_name(name).unwrap_or_else(|| panic!("no link {name}")) as usize]
}

#[test]
fn leaf_spine_has_the_counted_nodes_links_and_hop_counts() {
    // 3 leaves x 4 hosts, 2 spines: 12 hosts + 5 switches = 17 nodes; 12 host links +
    // 3 x 2 fabric links, each two directed links = 36.
    let toml = leaf_spine(3, 2, 4, "ecmp", "");
    let sim = build(&toml, 1);
    assert_eq!(sim.net.nodes.len(), 17);
    assert_eq!(sim.net.links.len(), 36);
    for n in ["h0_0", "h2_3", "leaf2", "spine1"] {
        assert!(sim.net.node(n).is_some(), "{n}");
    }
    // same rack: host -> leaf -> host (2 links); other rack: host, leaf, spine, leaf, host (4)
    let toml = format!(
        "{toml}\n[[traffic]]\nkind = \"flow\"\nfrom = \"h0_0\"\nto = \"h0_1\"\nsize_bytes = 1000\n\
         [[traffic]]\nkind = \"flow\"\nfrom = \"h0_0\"\nto = \"h2_3\"\nsize_bytes = 1000\n"
    );
    let mut sim = build(&toml, 1);
    assert_eq!(path(&sim, 0), ["h0_0->leaf0", "leaf0->h0_1"]);
    let p = path(&sim, 1);
    assert_eq!(p.len(), 4);
    assert_eq!((p[0].as_str(), p[3].as_str()), ("h0_0->leaf0", "leaf2->h2_3"));
    sim.run_until(SimTime::from_ms(10));
    sim.check_conservation().unwrap();
    assert!(sim.flows.records().all(|f| f.stats.sender_done.is_some()));
}

#[test]
fn ecmp_spreads_flows_over_spines_within_binomial_bounds() {
    // 2,000 flows from rack 0 to rack 1 over 4 spines: each spine's count is
    // Binomial(2000, 1/4), mean 500, sd sqrt(2000 x 1/4 x 3/4) = 19.4; 4 sd = 77.5.
    // The reverse directions (rack 1 -> rack 0, hashed on the swapped tuple) alike.
    let mut toml = leaf_spine(2, 4, 8, "ecmp", "");
    toml.push_str("[[traffic]]\nkind = \"flow\"\nfrom = \"h0_{i}\"\nto = \"h1_{i}\"\ncount = 8\nsize_bytes = 1000\n");
    let mut traffic = String::new();
    for _ in 0..249 {
        traffic.push_str(
            "[[traffic]]\nkind = \"flow\"\nfrom = \"h0_{i}\"\nto = \"h1_{i}\"\ncount = 8\nsize_bytes = 1000\n",
        );
    }
    toml.push_str(&traffic);
    let sim = build(&toml, 7);
    assert_eq!(sim.flows.len(), 2000);
    for (dir, hop) in [("fwd", 1usize), ("rev", 1usize)] {
        let mut per_spine = [0u32; 4];
        for f in sim.flows.live() {
            let r = if dir == "fwd" { f.fwd } else { f.rev };
            let l = &sim.net.links[sim.route(r)[hop] as usize];
            let spine = if dir == "fwd" { &l.name["leaf0->spine".len()..] } else { &l.name["leaf1->spine".len()..] };
            per_spine[spine.parse::<usize>().unwrap()] += 1;
        }
        for (s, &c) in per_spine.iter().enumerate() {
            assert!((c as f64 - 500.0).abs() < 77.5, "{dir}: spine {s} carries {c} of 2000 flows: {per_spine:?}");
        }
    }
    // a flow's two directions are hashed independently: the reverse spine matches the
    // forward one for about 1/4 of the flows (Binomial(2000, 1/4) again)
    let same = sim
        .flows
        .live()
        .filter(|f| {
            let a = &sim.net.links[sim.route(f.fwd)[1] as usize].name;
            let b = &sim.net.links[sim.route(f.rev)[1] as usize].name;
            a["leaf0->".len()..] == b["leaf1->".len()..]
        })
        .count();
    assert!((same as f64 - 500.0).abs() < 77.5, "{same}");
}

#[test]
fn ecmp_choice_follows_the_seed_and_is_deterministic() {
    let mut toml = leaf_spine(2, 4, 16, "ecmp", "");
    toml.push_str("[[traffic]]\nkind = \"flow\"\nfrom = \"h0_{i}\"\nto = \"h1_{i}\"\ncount = 16\nsize_bytes = 1000\n");
    let spines = |seed| (0..16).map(|f| path(&build(&toml, seed), f)[1].clone()).collect::<Vec<_>>();
    assert_eq!(spines(3), spines(3));
    // 16 flows, 4 spines: two seeds agreeing on all 16 has probability 4^-16
    assert_ne!(spines(3), spines(4));
}

#[test]
fn ecmp_keeps_every_packet_of_a_flow_on_one_path_and_spraying_spreads_them() {
    // One flow of 2,000 full packets from rack 0 to rack 1 over 4 spines. ECMP: exactly
    // one leaf0 uplink carries packets. Spraying: each data packet draws one of the 4
    // paths, so each uplink's share of the 2,001 forward packets (SYN + data) is
    // Binomial(2001, 1/4): mean 500, sd 19.4, bound 4 sd.
    let flow = "[[traffic]]\nkind = \"flow\"\nfrom = \"h0_0\"\nto = \"h1_0\"\nsize_pkts = 2000\n";
    for routing in ["ecmp", "spray"] {
        let toml = leaf_spine(2, 4, 2, routing, "").replace("10ms", "50ms") + flow;
        let mut sim = build(&toml, 5);
        sim.run_until(SimTime::from_ms(50));
        sim.check_conservation().unwrap();
        assert!(sim.flows.record(0).stats.sender_done.is_some(), "{routing}: flow not done");
        let up: Vec<u64> = (0..4).map(|s| link(&sim, &format!("leaf0->spine{s}")).stats.arrivals).collect();
        let total: u64 = up.iter().sum();
        assert!(total >= 2001, "{routing}: the SYN and 2,000 data packets cross an uplink ({total})");
        if routing == "ecmp" {
            assert_eq!(up.iter().filter(|&&n| n > 0).count(), 1, "ecmp: {up:?}");
        } else {
            for &n in &up {
                assert!(
                    (n as f64 - total as f64 / 4.0).abs() < 4.0 * (total as f64 * 3.0 / 16.0).sqrt(),
                    "spray: {up:?}"
                );
            }
        }
    }
}

#[test]
fn non_tcp_sources_take_ecmp_paths_like_flows() {
    // 2,000 CBR sources from rack 0 to rack 1 over 4 spines, each hashed on its UDP
    // 5-tuple: each spine's count is Binomial(2000, 1/4), mean 500, sd 19.4, bound 4 sd
    // (before, every source took the pair's one shortest path: one spine carried all).
    let mut toml = leaf_spine(2, 4, 8, "ecmp", "");
    for _ in 0..250 {
        toml.push_str("[[traffic]]\nkind = \"cbr\"\nfrom = \"h0_{i}\"\nto = \"h1_{i}\"\ncount = 8\nrate = \"1Mbps\"\n");
    }
    let sim = build(&toml, 7);
    assert_eq!(sim.sources.len(), 2000);
    let mut per_spine = [0u32; 4];
    for s in &sim.sources {
        let l = &sim.net.links[sim.route(s.fwd)[1] as usize];
        per_spine[l.name["leaf0->spine".len()..].parse::<usize>().unwrap()] += 1;
    }
    for (s, &c) in per_spine.iter().enumerate() {
        assert!((c as f64 - 500.0).abs() < 77.5, "spine {s} carries {c} of 2000 sources: {per_spine:?}");
    }
    // One source of 1 Gb/s for 10 ms (about 833 packets of 1500 B): under ECMP one
    // uplink carries them all; spraying draws a path per packet, Binomial(n, 1/4) each.
    for routing in ["ecmp", "spray"] {
        let cbr = "[[traffic]]\nkind = \"cbr\"\nfrom = \"h0_0\"\nto = \"h1_0\"\nrate = \"1Gbps\"\n";
        let mut sim = build(&(leaf_spine(2, 4, 2, routing, "") + cbr), 5);
        sim.run_until(SimTime::from_ms(10));
        sim.check_conservation().unwrap();
        let up: Vec<u64> = (0..4).map(|s| link(&sim, &format!("leaf0->spine{s}")).stats.arrivals).collect();
        let total: u64 = up.iter().sum();
        assert!(total > 800, "{routing}: {up:?}");
        if routing == "ecmp" {
            assert_eq!(up.iter().filter(|&&n| n > 0).count(), 1, "ecmp: {up:?}");
        } else {
            for &n in &up {
                let sd = (total as f64 * 3.0 / 16.0).sqrt();
                assert!((n as f64 - total as f64 / 4.0).abs() < 4.0 * sd, "spray: {up:?}");
            }
        }
    }
}

#[test]
fn fat_tree_has_k_cubed_over_4_hosts_and_the_counted_equal_cost_paths() {
    // k = 4: 16 hosts, (k/2)^2 = 4 cores, 8 aggregation, 8 edge switches = 36 nodes;
    // links: 16 host + k pods x (k/2)^2 edge-agg + k x (k/2)^2 agg-core = 16 + 16 + 16
    // = 48 duplex, 96 directed.
    let toml = r#"
        duration = "10ms"
        [topology]
        kind = "fat_tree"
        k = 4
        host_link = { rate = "10Gbps", delay = "1us" }
        fabric_link = { rate = "10Gbps", delay = "1us" }
        [[traffic]]
        kind = "flow"
        from = "h0_0_0"
        to = "h0_0_1"
        size_bytes = 1000
        [[traffic]]
        kind = "flow"
        from = "h0_0_0"
        to = "h0_1_0"
        size_bytes = 1000
        [[traffic]]
        kind = "flow"
        from = "h0_0_0"
        to = "h3_1_1"
        size_bytes = 1000
    "#;
    let mut sim = build(toml, 1);
    assert_eq!(sim.net.nodes.len(), 36);
    assert_eq!(sim.net.links.len(), 96);
    // hops: same edge 2, same pod 4, other pod 6
    assert_eq!([path(&sim, 0).len(), path(&sim, 1).len(), path(&sim, 2).len()], [2, 4, 6]);
    // equal-cost paths: same pod k/2 = 2 (one per aggregation switch), other pod
    // (k/2)^2 = 4 (aggregation switch x core switch)
    let mut n = |a: &str, b: &str| {
        let (a, b) = (sim.net.node(a).unwrap(), sim.net.node(b).unwrap());
        sim.net.equal_cost_paths(a, b, 1000).len()
    };
    assert_eq!([n("h0_0_0", "h0_0_1"), n("h0_0_0", "h0_1_0"), n("h0_0_0", "h3_1_1")], [1, 2, 4]);
    sim.run_until(SimTime::from_ms(10));
    sim.check_conservation().unwrap();
    assert!(sim.flows.records().all(|f| f.stats.sender_done.is_some()));
}

#[test]
fn a_k16_fat_tree_has_1024_hosts_and_64_paths_between_pods() {
    let toml = r#"
        duration = "1ms"
        [topology]
        kind = "fat_tree"
        k = 16
        host_link = { rate = "10Gbps", delay = "1us" }
        fabric_link = { rate = "10Gbps", delay = "1us" }
    "#;
    let mut sim = build(toml, 1);
    // 1024 hosts + 64 core + 16 x (8 + 8) = 1344 nodes
    assert_eq!(sim.net.nodes.len(), 1344);
    let (a, b) = (sim.net.node("h0_0_0").unwrap(), sim.net.node("h15_7_7").unwrap());
    assert_eq!(sim.net.equal_cost_paths(a, b, 1000).len(), 64);
}

#[test]
fn port_classes_put_disciplines_where_they_say() {
    let extra = r#"
        [[topology.queues]]
        ports = "all_switch_ports"
        queue = { kind = "droptail", limit = 77 }
        [[topology.queues]]
        ports = "leaf_uplinks"
        queue = { kind = "red", limit = 300, min_th = 50, max_th = 150 }
    "#;
    let sim = build(&leaf_spine(2, 2, 2, "ecmp", extra), 1);
    let kind = |n: &str| link(&sim, n).disc_name();
    let cap = |n: &str| link(&sim, n).limit();
    assert_eq!(cap("h0_0->leaf0"), Some((1000, "pkts")), "host NICs keep the link's default queue");
    assert_eq!(cap("leaf0->h0_0"), Some((77, "pkts")));
    assert_eq!(cap("spine1->leaf1"), Some((77, "pkts")));
    assert_eq!(kind("leaf1->spine0"), "red");
    // every queue states its limit (the links table's limit, limit_unit)
    assert_eq!(link(&sim, "leaf1->spine0").limit(), Some((300, "pkts")));
    assert_eq!(link(&sim, "h0_0->leaf0").limit(), Some((1000, "pkts")));
}

#[test]
fn bad_fabrics_are_refused_by_field() {
    let ft = |k: &str| {
        format!(
            "duration = \"1s\"\n[topology]\nkind = \"fat_tree\"\nk = {k}\nhost_link = {{ rate = \"1Gbps\", delay = \"1us\" }}\nfabric_link = {{ rate = \"1Gbps\", delay = \"1us\" }}\n"
        )
    };
    assert!(build_err(&ft("5")).starts_with("topology.k: must be even"), "{}", build_err(&ft("5")));
    assert!(build_err(&ft("0")).starts_with("topology.k:"));
    assert!(build_err(&ft("100")).starts_with("topology.k:"), "100^3/4 = 250,000 hosts");
    assert!(build_err(&leaf_spine(0, 2, 2, "ecmp", "")).starts_with("topology.leaves: must be 1.."));
    assert!(build_err(&leaf_spine(1000, 2, 1000, "ecmp", "")).starts_with("topology.hosts_per_leaf:"));
    let e = build_err(&leaf_spine(
        2,
        2,
        2,
        "ecmp",
        "[[topology.queues]]\nports = \"core_downlinks\"\nqueue = { kind = \"droptail\" }\n",
    ));
    assert!(e.starts_with("topology.queues[0].ports:"), "{e}");
    let e = build_err(&leaf_spine(2, 2, 2, "sideways", ""));
    assert!(e.contains("routing") || e.contains("sideways"), "{e}");
}

#[test]
fn a_flow_alone_with_an_unlimited_window_meets_its_ideal_fct() {
    // Rack 0 -> rack 1: links 10, 40, 40, 10 Gb/s, 1 us each. By hand:
    // - SYN (40 B) out: 4 x 1000 + 32 + 8 + 8 + 32 = 4,080 ns; the SYN-ACK back the same:
    //   handshake 8,160 ns.
    // - 146,000 B = 100 segments of 1,460 B, 150,000 B on the wire. The first 1,500 B
    //   packet: 4 x 1000 + 1200 + 300 + 300 + 1200 = 7,000 ns; the other 148,500 B at the
    //   10 Gb/s bottleneck: 118,800 ns.
    // ideal = 8,160 + 7,000 + 118,800 = 133,960 ns. With init_cwnd 200 the window never
    // limits the flow, so its FCT is the ideal. (So does the default 10: the path holds
    // about (7,000 + 4,080) / 1,200 = 9.2 packets, and slow start's ACKs come back before
    // the NIC runs dry.) With init_cwnd 1 the pipe drains in the first round trips.
    for (cwnd, alone) in [(200, true), (10, true), (1, false)] {
        let toml = leaf_spine(2, 1, 1, "ecmp", &format!("[tcp]\ninit_cwnd = {cwnd}\n"))
            + "[[traffic]]\nkind = \"flow\"\nfrom = \"h0_0\"\nto = \"h1_0\"\nsize_bytes = 146000\n";
        let mut sim = build(&toml, 1);
        sim.run_until(SimTime::from_ms(10));
        let f = sim.flows.record(0);
        assert_eq!(f.stats.ideal_fct, Some(SimTime::from_ns(133_960)));
        let fct = f.fct().expect("done").ns();
        if alone {
            assert_eq!(fct, 133_960, "FCT {fct} ns");
        } else {
            assert!(fct > 133_960 + 8_000, "a round trip more at least: {fct} ns");
        }
    }
}

#[test]
fn the_ideal_fct_follows_a_short_last_packet_through_a_faster_last_link() {
    // a -(10 Gb/s, 1 us)-> r -(40 Gb/s, 1 us)-> b; 14,700 B = 10 segments of 1,460 B and
    // one of 100 B: 10 packets of 1,500 B and one of 140 B on the wire. By hand:
    // - handshake: SYN 40 B: (1000 + 32) + (1000 + 8) = 2,040 ns each way: 4,080 ns;
    // - full packets leave a every 1,200 ns; the first ends at r -> b at
    //   1200 + 1000 + 300 = 2,500, the tenth 9 x 1,200 later: 13,300 ns;
    // - the last: out of a at 10 x 1,200 + 112 = 12,112, at r at 13,112, behind the tenth
    //   until 13,300, out at 13,300 + 28 = 13,328, at b at 14,328 ns.
    // ideal = 4,080 + 14,328 = 18,408 ns. (Charging all bytes after the first packet at
    // the bottleneck would say 18,492: 84 ns too much, a slowdown below 1.)
    let toml = r#"
        duration = "1ms"
        [topology]
        kind = "graph"
        nodes = ["a", "r", "b"]
        links = [
            { a = "a", b = "r", rate = "10Gbps", delay = "1us" },
            { a = "r", b = "b", rate = "40Gbps", delay = "1us" },
        ]
        [tcp]
        init_cwnd = 200
        [[traffic]]
        kind = "flow"
        from = "a"
        to = "b"
        size_bytes = 14700
    "#;
    let mut sim = build(toml, 1);
    sim.run_until(SimTime::from_ms(1));
    let f = sim.flows.record(0);
    assert_eq!(f.stats.ideal_fct, Some(SimTime::from_ns(18_408)));
    assert_eq!(f.fct(), Some(SimTime::from_ns(18_408)));
}

/// Source validation never refuses an honest packet: on a k = 4 fat tree with ECMP
/// (flows take any of the equal-cost paths, and ACKs come back by others), every one of
/// the 20 switches validating sources gives the same flows table, byte for byte, as none
/// validating, and no link counts a `source_invalid` drop. The rule accepts a source on
/// every port that lies on a shortest path from it (net/ingress.rs), and every route the
/// simulator builds is one.
#[test]
fn source_validation_never_refuses_an_honest_packet_under_ecmp() {
    let base = r#"
        duration = "30ms"
        [topology]
        kind = "fat_tree"
        k = 4
        host_link = { rate = "10Gbps", delay = "1us" }
        fabric_link = { rate = "10Gbps", delay = "1us", queue = { kind = "droptail", limit = 50 } }
        [[traffic]]
        kind = "workload"
        hosts = ["h*"]
        cdf = "web_search"
        load = 0.5
        stop = "20ms"
    "#;
    let mut switches: Vec<String> = (0..4).map(|c| format!("\"core{c}\"")).collect();
    for p in 0..4 {
        for i in 0..2 {
            switches.push(format!("\"agg{p}_{i}\""));
            switches.push(format!("\"edge{p}_{i}\""));
        }
    }
    let validated = format!("source_validation = [{}]\n{base}", switches.join(", "));
    let run = |s: &str| {
        let sc = sim::Scenario::from_toml_str(s).unwrap();
        let mut sim = sc.build(Some(3)).unwrap();
        sim.run_until(sc.duration.0);
        sim.check_conservation().unwrap();
        sim
    };
    let (plain, checked) = (run(base), run(&validated));
    let r = sim::net::queue::DropReason::SourceInvalid as usize;
    assert_eq!(checked.net.links.iter().map(|l| l.stats.drops[r]).sum::<u64>(), 0);
    assert!(checked.net.links.iter().filter(|l| l.has_ingress_hook()).count() >= 20 * 4);
    let flows = |s: &sim::Sim| sim::output::results::collect(s, "x").flows.to_json();
    let (a, b) = (flows(&plain), flows(&checked));
    assert!(a["fct_s"].as_array().unwrap().len() > 50, "a workload of some size");
    assert_eq!(a, b);
}
