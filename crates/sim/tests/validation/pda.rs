//! The send gates of tcp/gate/: paced bursts and the packet-drop-avoidance (PDA) sender
//! of seeds/002, against hand arithmetic and the paper's claim ("lion").

use super::common::{build, finish, run};
use sim::Scenario;

/// Goodput of flow `f` between `t0` and the end of the run, from its received-bytes
/// series (100 ms samples).
fn goodput_after(sim: &sim::Sim, f: u32, t0: f64) -> f64 {
    let s: Vec<_> = sim.flow_samples.iter().filter(|s| s.flow == f).collect();
    let a = s.iter().find(|s| s.t.as_secs_f64() >= t0 - 1e-9).unwrap();
    let b = s.last().unwrap();
    (b.bytes_received - a.bytes_received) as f64 * 8.0 / (b.t - a.t).as_secs_f64()
}

fn path(host: &str, cross: &str, gate: &str) -> String {
    format!(
        r#"
        name = "gate"
        duration = "4s"
        [topology]
        kind = "graph"
        nodes = ["S", "X", "R", "D"]
        links = [
          {{ a = "S", b = "R", rate = "{host}", delay = "1ms", queue = {{ kind = "droptail", limit = 100000 }} }},
          {{ a = "X", b = "R", rate = "10Gbps", delay = "1ms" }},
          {{ a = "R", b = "D", rate = "1Gbps", delay = "18ms", queue = {{ kind = "droptail", limit = 200 }} }},
        ]
        {cross}
        [[traffic]]
        kind = "bulk"
        from = "S"
        to = "D"
        tcp = {{ recovery = "sack", cc = {{ kind = "fixed", window = 6000 }}, gate = {gate} }}
        [output]
        sample_flows = "100ms"
        "#
    )
}

/// Bursts of 8 at 400 Mb/s average on an empty 1 Gb/s path: goodput = 400 Mb/s x
/// 1460 / 1500 payload = 389.3 Mb/s, no drop (bursts never queue: 8 packets at the line
/// rate equal to the bottleneck's).
#[test]
fn paced_bursts_keep_the_average_rate() {
    let sim = run(&path("1Gbps", "", "{ kind = \"bursts\", burst_pkts = 8, rate = \"400Mbps\" }"), 1);
    let g = goodput_after(&sim, 0, 1.0);
    assert!((g / 389.33e6 - 1.0).abs() < 0.01, "goodput {g}");
    assert_eq!(sim.flows.record(0).stats.pkts_dropped, 0);
}

/// PDA alone on a path whose bottleneck equals its line rate (R = C = 1 Gb/s, no cross
/// traffic: R <= A, the MBS unbounded): it fills the path, 1 Gb/s x 1460 / 1500 =
/// 973.3 Mb/s of goodput after its start phase, and loses nothing.
#[test]
fn pda_fills_an_empty_path_without_loss() {
    let sim = run(&path("1Gbps", "", "{ kind = \"pda\" }"), 1);
    let g = goodput_after(&sim, 0, 1.0);
    assert!(g > 0.97 * 973.33e6, "goodput {g}");
    assert_eq!(sim.flows.record(0).stats.pkts_dropped, 0);
    assert_eq!(sim.flows.record(0).stats.timeouts, 0);
}

/// PDA from a 10 Gb/s host into 1 Gb/s with 400 Mb/s of CBR cross traffic and a
/// 200-packet buffer: it keeps its rate near the available 600 Mb/s (between 60 % and
/// 100 % of it, goodput counted after the start phase) and loses under 1 % of what it
/// sends.
#[test]
fn pda_settles_below_the_available_bandwidth() {
    let cross = "[[traffic]]\nkind = \"cbr\"\nfrom = \"X\"\nto = \"D\"\nrate = \"400Mbps\"\n";
    let sim = run(&path("10Gbps", cross, "{ kind = \"pda\" }"), 1);
    let g = goodput_after(&sim, 0, 1.0);
    let avail = 600e6 * 1460.0 / 1500.0;
    assert!(g > 0.6 * avail && g <= 1.0 * avail, "goodput {g} vs available {avail}");
    let f = sim.flows.record(0).stats;
    assert!((f.pkts_dropped as f64) < 0.01 * f.pkts_sent as f64, "dropped {} of {}", f.pkts_dropped, f.pkts_sent);
}

/// SCENARIOS.md "lion": 1 Gb/s, RTT 80 ms, a window-based flow and the PDA sender
/// started together, 5 s: the paced sender finishes with fewer losses and at least the
/// throughput of the window-based one (NewReno and CUBIC).
#[test]
fn lion_paced_beats_window_based() {
    for cc in ["newreno", "cubic"] {
        let toml = format!(
            r#"
            name = "lion"
            duration = "5s"
            [topology]
            kind = "dumbbell"
            pairs = 2
            access = {{ rate = "1Gbps", delay = "1ms", queue = {{ kind = "droptail", limit = 100000 }} }}
            bottleneck = {{ rate = "1Gbps", delay = "38ms", queue = {{ kind = "droptail", limit = 666 }} }}
            [tcp]
            host = "ns2"  # the experiment's host (the paper compares with ns-2's agents)
            recovery = "sack"
            [[traffic]]
            kind = "bulk"
            from = "s0"
            to = "d0"
            tcp = {{ cc = "{cc}" }}
            [[traffic]]
            kind = "bulk"
            from = "s1"
            to = "d1"
            tcp = {{ cc = {{ kind = "fixed", window = 14000 }}, gate = {{ kind = "pda" }} }}
            "#
        );
        let (sc, mut sim) = build(&toml, 1);
        sim.run_until(sc.duration.0);
        finish(&sim);
        let (w, p) = (sim.flows.record(0).stats, sim.flows.record(1).stats);
        eprintln!(
            "{cc}: window {} B, {} lost; paced {} B, {} lost",
            w.bytes_received, w.pkts_dropped, p.bytes_received, p.pkts_dropped
        );
        assert!(p.pkts_dropped < w.pkts_dropped, "{cc}: paced lost {} vs {}", p.pkts_dropped, w.pkts_dropped);
        assert!(p.bytes_received >= w.bytes_received, "{cc}: paced {} B vs {} B", p.bytes_received, w.bytes_received);
    }
}

/// The gate's fields are refused by name.
#[test]
fn bad_gate_names_the_field() {
    let base = path("1Gbps", "", "GATE");
    for (gate, word) in [
        ("{ kind = \"bursts\", burst_pkts = 0, rate = \"1Mbps\" }", "burst_pkts"),
        ("{ kind = \"bursts\", burst_pkts = 4 }", "rate"),
        ("{ kind = \"pda\", mbs_fraction = 0.0 }", "mbs_fraction"),
        ("{ kind = \"pda\", init_burst = 1 }", "init_burst"),
        ("{ kind = \"pda\", gain = 2.0 }", "gain"),
        ("{ kind = \"pda\", min_share = -1.0 }", "min_share"),
        ("{ kind = \"pda\", burst = 3 }", "burst"),
        ("{ kind = \"lion\" }", "lion"),
    ] {
        let f = base.replace("GATE", gate);
        let e = match Scenario::from_toml_str(&f).and_then(|s| s.build(Some(1)).map(|_| ())) {
            Ok(()) => panic!("accepted {gate}"),
            Err(e) => e,
        };
        assert!(e.contains(word), "{e:?} does not name {word:?}");
        assert!(!e.contains('\n'), "one line: {e:?}");
    }
}

/// The start phase hands each doubling burst to the host's NIC at once: with a NIC queue
/// of 100 packets its bursts stop at 101 (100 waiting + 1 in service), so the NIC drops
/// nothing (without the bound, the 128-packet burst would lose 27 there).
#[test]
fn pda_bursts_fit_the_nic_queue() {
    let toml = path("1Gbps", "", "{ kind = \"pda\" }").replacen("limit = 100000", "limit = 100", 1);
    let sim = run(&toml, 1);
    let nic = sim.net.link_by_name("S->R").unwrap() as usize;
    assert_eq!(sim.net.links[nic].stats.total_drops(), 0);
    assert_eq!(sim.flows.record(0).stats.timeouts, 0);
    assert!(goodput_after(&sim, 0, 1.0) > 0.97 * 973.33e6);
}
