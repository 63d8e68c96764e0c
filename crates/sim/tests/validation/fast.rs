//! FAST TCP (tcp/cc/fast.rs) in a network, against its equilibrium (ALGORITHMS.md section
//! 7; Jin, Wei, Low 2004): each flow keeps alpha packets queued, w* = x* baseRTT + alpha.

use super::common::run;

fn scenario(flows: u32) -> String {
    format!(
        r#"
        name = "fast"
        duration = "60s"
        [topology]
        kind = "dumbbell"
        pairs = {flows}
        access = {{ rate = "10Gbps", delay = "1us" }}
        bottleneck = {{ rate = "100Mbps", delay = "49998us", queue = {{ kind = "droptail", limit = 2000 }} }}
        [tcp]
        cc = {{ kind = "fast", alpha = 200 }}
        recovery = "sack"
        [[traffic]]
        kind = "bulk"
        from = "s{{i}}"
        to = "d{{i}}"
        count = {flows}
        start_jitter = "100ms"
        [output]
        sample_queues = ["R1->R2"]
        sample_interval = "10ms"
        "#
    )
}

/// One flow, 100 Mb/s of 1500 B packets = 8333.3 pkt/s, baseRTT ~ 100 ms (2 x 50 ms
/// plus 4 x 1 us, plus the 0.12 ms serialisation of a packet and 3.2 ns of its ACK at
/// the bottleneck, 0.0012 ms at 10 Gb/s), alpha 200: at equilibrium the bottleneck
/// holds alpha = 200 packets and w* = 8333.3 x 0.10012 + 200 = 1034.3. Checked over the
/// last 20 s: mean queue within 10 % of 200, final cwnd within 5 % of w*, no loss.
#[test]
fn one_flow_keeps_alpha_packets_queued() {
    let sim = run(&scenario(1), 1);
    let q: Vec<f64> = sim.samples.iter().filter(|s| s.t.as_secs_f64() >= 40.0).map(|s| s.pkts as f64).collect();
    let mean = q.iter().sum::<f64>() / q.len() as f64;
    assert!((mean / 200.0 - 1.0).abs() < 0.10, "mean queue {mean}");
    let w = sim.flows.record(0).cwnd;
    eprintln!("one FAST flow: mean queue {mean:.1} packets, cwnd {w:.1}");
    assert!((w / 1034.3 - 1.0).abs() < 0.05, "cwnd {w}");
    assert_eq!(sim.flows.record(0).stats.pkts_dropped, 0);
}

/// Two flows of alpha 200: 2 x 200 = 400 packets queued (q* = 48 ms) and the link shared
/// equally, each w* = 4166.7 x 0.10012 + 200 = 617.2.
#[test]
fn two_flows_share_and_queue_two_alphas() {
    let sim = run(&scenario(2), 1);
    let q: Vec<f64> = sim.samples.iter().filter(|s| s.t.as_secs_f64() >= 40.0).map(|s| s.pkts as f64).collect();
    let mean = q.iter().sum::<f64>() / q.len() as f64;
    assert!((mean / 400.0 - 1.0).abs() < 0.10, "mean queue {mean}");
    eprintln!(
        "two FAST flows: mean queue {mean:.1}, cwnd {:?}",
        sim.flows.records().map(|f| f.cwnd).collect::<Vec<_>>()
    );
    for f in sim.flows.records() {
        let w = f.cwnd;
        assert!((w / 617.2 - 1.0).abs() < 0.10, "cwnd {w}");
    }
}

/// `cc = "fast"` by name and as a table; bad values named by their path.
#[test]
fn fast_parameters_named() {
    use sim::Scenario;
    let ok = scenario(1).replace("cc = { kind = \"fast\", alpha = 200 }", "cc = \"fast\"");
    assert!(Scenario::from_toml_str(&ok).unwrap().build(Some(1)).is_ok());
    for (bad, word) in [
        ("alpha = 0", "alpha"),
        ("alpha = 200, gamma = 1.5", "gamma"),
        ("alpha = 200, mi_threshold = -1.0", "mi_threshold"),
        ("alpha = 200, beta = 3", "beta"),
    ] {
        let f = scenario(1).replace("alpha = 200", bad);
        let e = match Scenario::from_toml_str(&f).and_then(|s| s.build(Some(1)).map(|_| ())) {
            Ok(()) => panic!("accepted {bad}"),
            Err(e) => e,
        };
        assert!(e.contains(word), "{e:?} does not name {word}");
    }
}
