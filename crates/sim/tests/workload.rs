//! Datacenter workloads end to end (WORKLOADS.md): examples/workload.toml (Facebook Hadoop
//! sizes at 30 % load all-to-all on two racks, with incast rounds into one host) runs to
//! completion, its incast rounds open on time, short flows take their own TCP table, and
//! the flow table is the same for the same seed. Every run ends with the conservation
//! check.
//!
//! Run: `cargo test --release -p superpacket-sim --test workload`.

use sim::output::results;
use sim::{Scenario, Sim, SimTime};

fn example() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/workload.toml")).expect("example")
}

fn run(toml: &str, seed: u64) -> Sim {
    let sc = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("scenario: {e}"));
    let mut sim = sc.build(Some(seed)).unwrap_or_else(|e| panic!("build: {e}"));
    sim.flows.keep_all(); // the tests read each flow's TCP parameters after the run
    sim.run_until(sc.duration.0);
    sim.check_conservation().unwrap_or_else(|e| panic!("conservation: {e}"));
    sim
}

fn name(sim: &Sim, n: u32) -> &str {
    &sim.net.nodes[n as usize].name
}

#[test]
fn example_workload_with_incast_finishes_its_flows() {
    let sim = run(&example(), 1);
    let client = sim.net.node("h0_0").unwrap();
    // incast: rounds at 1 + 5 r ms below 40 ms (r = 0..7), 4 servers h1_* each
    let on_grid = |t: SimTime| t >= SimTime::from_ms(1) && (t.ns() - 1_000_000).is_multiple_of(5_000_000);
    let incast: Vec<_> = sim
        .flows
        .live()
        .filter(|f| f.dst == client && f.size == 20_000 && name(&sim, f.src).starts_with("h1_") && on_grid(f.start))
        .collect();
    assert_eq!(incast.len(), 8 * 4);
    for r in 0..8u64 {
        let at = SimTime::from_ms(1 + 5 * r);
        let mut srcs: Vec<&str> = incast.iter().filter(|f| f.start == at).map(|f| name(&sim, f.src)).collect();
        srcs.sort();
        assert_eq!(srcs, ["h1_0", "h1_1", "h1_2", "h1_3"], "round {r}");
    }
    // background: 8 hosts x 3,114 flows/s (0.3 x 10 Gbps / (8 x 120,420.75 B)) x 40 ms
    // = 996 flows, Poisson: sd 31.6
    let background = sim.flows.len() - incast.len();
    assert!((background as f64 - 996.0).abs() < 5.0 * 31.6, "{background} background flows");
    for f in sim.flows.live() {
        assert_ne!(f.src, f.dst);
        assert!(name(&sim, f.src).starts_with('h') && name(&sim, f.dst).starts_with('h'));
        assert!(f.start < SimTime::from_ms(40));
        // short_tcp: init_cwnd 16 for flows of at most 14,600 B (the incast's 20 kB are not)
        assert_eq!(f.p.init_cwnd, if f.size <= 14_600 { 16.0 } else { 10.0 }, "size {}", f.size);
    }
    // the largest Facebook Hadoop flow (10 MB) needs 8.4 ms alone at 10 Gbps; the run
    // goes on 20 ms after the last arrival
    let done = sim.flows.live().filter(|f| f.stats.end.is_some()).count();
    assert_eq!(done, sim.flows.len(), "flows left unfinished");
}

#[test]
fn same_seed_same_flow_table() {
    let toml = example();
    let table = |sim: &Sim| results::collect(sim, "workload").flows.to_json();
    let a = run(&toml, 5);
    let b = run(&toml, 5);
    assert_eq!(table(&a), table(&b));
    let c = run(&toml, 6);
    assert_ne!(table(&a), table(&c), "another seed, other arrivals");
}

#[test]
fn permutation_on_a_dumbbell() {
    // Node names only: a dumbbell's senders and receivers (s*, d*) as the hosts, web
    // search sizes at 5 % of the 1 Gbps access links, each host to one other.
    let toml = r#"
        duration = "3s"
        [topology]
        kind = "dumbbell"
        pairs = 3
        access = { rate = "1Gbps", delay = "10us" }
        bottleneck = { rate = "10Gbps", delay = "50us" }
        [tcp]
        min_rto = "10ms"
        [[traffic]]
        kind = "workload"
        hosts = ["s*", "d*"]
        cdf = "web_search"
        load = 0.05
        pattern = "permutation"
        stop = "1s"
    "#;
    let sim = run(toml, 3);
    let mut dst_of = std::collections::BTreeMap::new();
    for f in sim.flows.live() {
        assert_ne!(f.src, f.dst);
        assert_eq!(*dst_of.entry(f.src).or_insert(f.dst), f.dst, "one destination per host");
    }
    // 6 hosts x 3.65 flows/s (0.05 x 1 Gbps / (8 x 1,711,250 B)) over 1 s: 22 flows
    assert!(sim.flows.len() >= 8, "{} flows", sim.flows.len());
    let mut dsts: Vec<u32> = dst_of.values().copied().collect();
    dsts.sort();
    dsts.dedup();
    assert_eq!(dsts.len(), dst_of.len(), "no host receives from two: {dst_of:?}");
    assert!(sim.flows.live().all(|f| f.stats.end.is_some()));
}
