//! RIO-PS end to end (seeds/001; issue 4): the edge classifier inside a run, the RIO-PS
//! queue against RED on mice and elephants, closed-loop sources, the web model's offered
//! load, schema errors, determinism. Every run ends with the conservation check.
//!
//! Run: `cargo test --release -p superpacket-sim --test riops`.

use sim::net::queue::QueueDisc;
use sim::{Scenario, Sim, SimTime};

fn build(toml: &str, seed: u64) -> (Scenario, Sim) {
    let sc = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("scenario: {e}"));
    let sim = sc.build(Some(seed)).unwrap_or_else(|e| panic!("build: {e}"));
    (sc, sim)
}

fn run(toml: &str, seed: u64) -> Sim {
    let (sc, mut sim) = build(toml, seed);
    sim.run_until(sc.duration.0);
    sim.check_conservation().unwrap_or_else(|e| panic!("conservation: {e}"));
    sim
}

fn counters(sim: &Sim, link: &str) -> std::collections::HashMap<&'static str, f64> {
    let id = sim.net.link_by_name(link).unwrap_or_else(|| panic!("no link {link}"));
    sim.net.links[id as usize].disc_counters().into_iter().collect()
}

const RIOPS_Q: &str = r#"{ kind = "riops", limit = 100, w_q = 0.002, short = { min_th = 15, max_th = 35, p_max = 0.05 }, long = { min_th = 15, max_th = 50, p_max = 0.1 } }"#;

#[test]
fn classifier_tags_the_first_lt_packets_of_each_flow_in() {
    // A 20-packet flow and a 3-packet flow on a clean path, L_t = 5 fixed: the SYN and the
    // first 4 data packets of the long one are In, its other 16 Out; all of the short one
    // In. The RIO queue sees the same split.
    let toml = format!(
        r#"
        duration = "5s"
        [topology]
        kind = "dumbbell"
        pairs = 2
        access = {{ rate = "100Mbps", delay = "1ms" }}
        bottleneck = {{ rate = "10Mbps", delay = "10ms", queue = {RIOPS_Q} }}
        edge_classifier = {{ lt = 5, max_flows = 16 }}
        [tcp]
        mss = 460
        [[traffic]]
        kind = "flow"
        from = "s0"
        to = "d0"
        size_pkts = 20
        [[traffic]]
        kind = "flow"
        from = "s1"
        to = "d1"
        size_pkts = 3
        start = "1ms"
        "#
    );
    let sim = run(&toml, 1);
    assert!(sim.flows.records().all(|f| f.stats.end.is_some() && f.stats.retransmits == 0));
    let c = &sim.net.classifiers[0];
    assert_eq!(c.name, "edge@R1");
    assert_eq!((c.stats.tagged_in, c.stats.tagged_out), (5 + 4, 16));
    assert_eq!(c.stats.flows_added, 2);
    let q = counters(&sim, "R1->R2");
    assert_eq!((q["rio_in_arrivals"], q["rio_out_arrivals"]), (9.0, 16.0));
    // ACKs travel R2 -> R1 untouched (no classifier on that side)
    assert_eq!(sim.net.classifiers.len(), 1);
}

#[test]
fn riops_protects_short_flows_against_red() {
    // Mice and elephants: 8 long-lived flows and Poisson 8-packet flows through a 10 Mbps
    // bottleneck, L_t = 10 fixed. Under RIO-PS the In packets (all of the mice, the first
    // packets of the elephants) see the In average only: their loss rate is far below the
    // Out packets', and the mice finish sooner than under RED with the same buffer.
    let scenario = |q: &str, cls: &str| {
        format!(
            r#"
            duration = "40s"
            [topology]
            kind = "dumbbell"
            pairs = 4
            access = {{ rate = "100Mbps", delay = "1ms" }}
            bottleneck = {{ rate = "10Mbps", delay = "20ms", queue = {q} }}
            {cls}
            [tcp]
            mss = 460
            max_cwnd = 128
            init_rto = "3s"
            granularity = "100ms"
            [[traffic]]
            kind = "bulk"
            from = "s{{i}}"
            to = "d{{i}}"
            count = 4
            start_jitter = "1s"
            [[traffic]]
            kind = "bulk"
            from = "s{{i}}"
            to = "d{{i}}"
            count = 4
            start_jitter = "1s"
            [[traffic]]
            kind = "poisson"
            from = "s{{i}}"
            to = "d{{i}}"
            count = 4
            rate_per_s = 5.0
            size_pkts = 8
            start = "5s"
            stop = "35s"
            "#
        )
    };
    let red = r#"{ kind = "red", limit = 100, min_th = 15, max_th = 50, p_max = 0.1, w_q = 0.002 }"#;
    let (mut red_fct, mut rio_fct, mut n) = (0.0, 0.0, 0);
    for seed in 1..=3 {
        let s_red = run(&scenario(red, ""), seed);
        let s_rio = run(&scenario(RIOPS_Q, "edge_classifier = { lt = 10 }"), seed);
        let q = counters(&s_rio, "R1->R2");
        let loss = |c: &str| {
            (q[&*format!("rio_{c}_early_drops")]
                + q[&*format!("rio_{c}_forced_drops")]
                + q[&*format!("rio_{c}_overflow_drops")])
                / q[&*format!("rio_{c}_arrivals")]
        };
        let (l_in, l_out) = (loss("in"), loss("out"));
        eprintln!("seed {seed}: In loss {l_in} Out loss {l_out}");
        assert!(l_out > 0.002, "seed {seed}: the elephants must see loss ({l_out})");
        assert!(l_in < l_out / 3.0, "seed {seed}: In loss {l_in} vs Out {l_out}");
        let mice = |s: &Sim| -> Vec<f64> {
            s.flows.records().filter(|f| !f.is_bulk()).filter_map(|f| f.fct()).map(|t| t.as_secs_f64()).collect()
        };
        let (a, b) = (mice(&s_red), mice(&s_rio));
        assert!(a.len() > 100 && b.len() > 100);
        red_fct += a.iter().sum::<f64>() / a.len() as f64;
        rio_fct += b.iter().sum::<f64>() / b.len() as f64;
        n += 1;
    }
    let (red_fct, rio_fct) = (red_fct / n as f64, rio_fct / n as f64);
    eprintln!("mice FCT: RIO-PS {rio_fct} vs RED {red_fct}");
    assert!(rio_fct < 0.9 * red_fct, "mice FCT: RIO-PS {rio_fct} vs RED {red_fct}");
}

#[test]
fn back_to_back_opens_the_next_flow_when_the_previous_completes() {
    let toml = r#"
        duration = "20s"
        [topology]
        kind = "dumbbell"
        pairs = 2
        access = { rate = "100Mbps", delay = "1ms" }
        bottleneck = { rate = "10Mbps", delay = "20ms" }
        [tcp]
        mss = 460
        [[traffic]]
        kind = "back_to_back"
        from = "s{i}"
        to = "d{i}"
        count = 1
        size_pkts = 50
        [[traffic]]
        kind = "back_to_back"
        from = "s{i}"
        to = "d{i}"
        first = 1
        size_pkts = 5
        start = "1s"
        max_flows = 7
    "#;
    let sim = run(toml, 1);
    for src in ["s0", "s1"] {
        let node = sim.net.node(src).unwrap();
        let fl: Vec<_> = sim.flows.records().filter(|f| f.src == node).collect();
        for w in fl.windows(2) {
            // the next flow opens the instant the previous one's sender is done
            assert_eq!(Some(w[1].start), w[0].stats.sender_done, "{src}");
        }
        assert!(fl.iter().all(|f| f.dst == sim.net.node(&src.replace('s', "d")).unwrap()));
        if src == "s0" {
            // 50 packets: handshake + slow start from 10 over a 44 ms RTT, ~4 RTTs per flow
            assert!(fl.len() > 80 && fl.len() < 130, "{} flows", fl.len());
        } else {
            assert_eq!(fl.len(), 7, "max_flows");
            assert_eq!(fl[0].start, SimTime::from_secs(1));
        }
    }
}

#[test]
fn web_sessions_offer_the_models_load() {
    // 40 sessions over a path that never congests: payload delivered over T matches
    // sessions x pages/s x objects/page x E[S] (traffic/web.rs header formula).
    let toml = r#"
        duration = "3000s"
        [topology]
        kind = "dumbbell"
        pairs = 4
        access = { rate = "1Gbps", delay = "1ms" }
        bottleneck = { rate = "1Gbps", delay = "10ms" }
        [tcp]
        mss = 460
        [[traffic]]
        kind = "web"
        servers = "s{i}"
        server_count = 4
        clients = "d{i}"
        client_count = 4
        sessions = 40
        size_min_bytes = 4000.0
        stop = "2990s"
    "#;
    let sim = run(toml, 3);
    let m = sim::traffic::web::WebModel {
        inter_page_s: 9.5,
        inter_object_s: 0.05,
        objects_min: 2,
        objects_max: 7,
        size_min: 4000.0,
        size_max: 200_000.0,
        shape: 1.2,
    };
    assert!(sim.flows.records().all(|f| f.stats.end.is_some()));
    assert!(sim.flows.records().all(|f| f.size >= 4000 && f.size <= 200_000));
    let got: f64 = sim.flows.records().map(|f| f.stats.bytes_received as f64).sum();
    let want = 40.0 * m.session_bytes_per_s() * 2990.0;
    // ~45,000 objects; CoV of a size ~1.4, of the objects per page ~0.38: relative sd of
    // the total ~1 %
    assert!((got / want - 1.0).abs() < 0.05, "bytes {got} vs {want}");
    let objects = sim.flows.len() as f64;
    let want_objects = 40.0 * 4.5 / 9.5 * 2990.0;
    assert!((objects / want_objects - 1.0).abs() < 0.05, "{objects} vs {want_objects}");
    // every server and every client used
    for i in 0..4 {
        let s = sim.net.node(&format!("s{i}")).unwrap();
        let d = sim.net.node(&format!("d{i}")).unwrap();
        assert!(sim.flows.records().any(|f| f.src == s) && sim.flows.records().any(|f| f.dst == d));
    }
}

#[test]
fn riops_run_is_deterministic() {
    let toml = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/riops-goodput.toml"))
        .expect("example");
    let toml = toml.replace("duration = \"500s\"", "duration = \"60s\"");
    let a = run(&toml, 7);
    let b = run(&toml, 7);
    let fa: Vec<_> = a.flows.records().map(|f| (f.start, f.stats.end, f.stats.bytes_received)).collect();
    let fb: Vec<_> = b.flows.records().map(|f| (f.start, f.stats.end, f.stats.bytes_received)).collect();
    assert_eq!(fa, fb);
    assert_eq!(a.net.classifiers[0].stats, b.net.classifiers[0].stats);
    assert_eq!(a.net.classifiers[0].lt(), b.net.classifiers[0].lt());
    assert!(a.net.classifiers[0].stats.adjustments >= 5);
    a.net.classifiers[0].check().unwrap();
}

#[test]
fn schema_errors_name_the_field() {
    let base = |q: &str, extra: &str| {
        format!(
            r#"
            duration = "1s"
            [topology]
            kind = "dumbbell"
            pairs = 1
            access = {{ rate = "1Gbps", delay = "1ms" }}
            bottleneck = {{ rate = "1Gbps", delay = "1ms", queue = {q} }}
            {extra}
            "#
        )
    };
    let err = |t: String| match Scenario::from_toml_str(&t).and_then(|s| s.build(None).map(|_| ())) {
        Ok(()) => panic!("accepted: {t}"),
        Err(e) => e,
    };
    let bad = r#"{ kind = "riops", short = { min_th = 5, max_th = 4 }, long = { min_th = 1, max_th = 9 } }"#;
    let e = err(base(bad, ""));
    assert!(e.starts_with("topology.bottleneck.queue.in: red.max_th:"), "{e}");
    let e = err(base(r#"{ kind = "rio", in = { min_th = 1, max_th = 4 } }"#, ""));
    assert!(e.contains("topology.bottleneck.queue") && e.contains("out"), "{e}");
    let e = err(base(r#"{ kind = "droptail" }"#, "edge_classifier = { lt = 5, nope = 1 }"));
    assert!(e.starts_with("topology.edge_classifier") && e.contains("nope"), "{e}");
    let e = err(base(r#"{ kind = "droptail" }"#, "edge_classifier = { lt = 0 }"));
    assert!(e.starts_with("topology.edge_classifier.lt:"), "{e}");
    let e = err(base(
        r#"{ kind = "droptail" }"#,
        "[[traffic]]\nkind = \"web\"\nservers = \"s{i}\"\nclients = \"x{i}\"\nsessions = 1",
    ));
    assert!(e.starts_with("traffic[0].clients: unknown node"), "{e}");
    let e = err(base(r#"{ kind = "droptail" }"#, "[[traffic]]\nkind = \"back_to_back\"\nfrom = \"s0\"\nto = \"d0\""));
    assert!(e.contains("size_bytes or size_pkts is required"), "{e}");
    // a RIO queue builds and reports its name
    let sc = Scenario::from_toml_str(&base(RIOPS_Q, "")).unwrap();
    let s = sc.build(None).unwrap();
    let id = s.net.link_by_name("R1->R2").unwrap();
    assert_eq!(s.net.links[id as usize].disc_name(), "riops");
    let d: Box<dyn QueueDisc> = Box::new(sim::net::queue::droptail::DropTail::new(1, sim::net::queue::Unit::Packets));
    assert_eq!(d.name(), "droptail");
}

#[test]
fn simultaneous_events_beyond_the_wheel_horizon_all_run() {
    // Three flows on three separate 50 ms links starting together: their packets reach
    // the far ends at exactly the same times, beyond the event wheel's horizon. Every
    // flow must complete (loss-sensitivity runs hundreds of such independent paths).
    let toml = r#"
        duration = "10s"
        [topology]
        kind = "graph"
        nodes = ["a0", "a1", "a2", "b0", "b1", "b2"]
        links = [ { a = "a0", b = "b0", rate = "1Gbps", delay = "50ms" },
                  { a = "a1", b = "b1", rate = "1Gbps", delay = "50ms" },
                  { a = "a2", b = "b2", rate = "1Gbps", delay = "50ms" } ]
        [[traffic]]
        kind = "flow"
        from = "a{i}"
        to = "b{i}"
        count = 3
        size_pkts = 16
    "#;
    let sim = run(toml, 1);
    let done = sim.flows.records().filter(|f| f.stats.end.is_some()).count();
    assert_eq!(done, 3, "flows completed");
}
