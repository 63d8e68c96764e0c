//! Cross traffic (traffic/raw.rs) and the MBS probe (traffic/mbs_probe.rs) against the
//! fluid model of ALGORITHMS.md section 13, derived by hand in each test.

use super::common::{build, finish, run, run_checked};
use sim::{Scenario, SimTime};

/// One bottleneck R->D of 1 Gb/s with a 100-packet DropTail buffer; the probe's host S
/// at `line` Gb/s; constant-rate cross traffic from X (10 Gb/s host) at `cross` Mb/s.
fn probe_path(line: u32, cross: u32) -> String {
    let cbr = if cross == 0 {
        String::new()
    } else {
        format!("[[traffic]]\nkind = \"cbr\"\nfrom = \"X\"\nto = \"D\"\nrate = \"{cross}Mbps\"\n")
    };
    format!(
        r#"
        name = "probe"
        duration = "5s"
        [topology]
        kind = "graph"
        nodes = ["S", "X", "R", "D"]
        links = [
          {{ a = "S", b = "R", rate = "{line}Gbps", delay = "1ms" }},
          {{ a = "X", b = "R", rate = "10Gbps", delay = "1ms" }},
          {{ a = "R", b = "D", rate = "1Gbps", delay = "1ms", queue = {{ kind = "droptail", limit = 100 }} }},
        ]
        {cbr}
        [[traffic]]
        kind = "mbs_probe"
        from = "S"
        to = "D"
        start = "10ms"
        "#
    )
}

fn probe_result(toml: &str) -> serde_json::Value {
    let sc = Scenario::from_toml_str(toml).unwrap();
    let mut sim = sc.build(Some(1)).unwrap();
    run_checked(&mut sim, sc.duration.0, SimTime::from_ms(100));
    finish(&sim);
    let r = sim::output::results::collect(&sim, "probe");
    r.summary["probes"][0].clone()
}

/// The measured MBS within 10 % of the fluid model Q / (1 - A/R) and the FAC estimate
/// within 10 % of C - X, at three constant cross-traffic rates. Line rate R = 2 Gb/s,
/// C = 1 Gb/s, Q = 100 packets:
///   X = 0:       A/R = 0.5,  100 / 0.5  = 200;  A = 1000 Mb/s
///   X = 300 Mb/s: A/R = 0.35, 100 / 0.65 = 153.8 -> 153; A = 700 Mb/s
///   X = 600 Mb/s: A/R = 0.2,  100 / 0.8  = 125;  A = 400 Mb/s
#[test]
fn probe_matches_the_fluid_model_at_three_cross_rates() {
    for (x, mbs, abw) in [(0u32, 200.0, 1000e6), (300, 153.0, 700e6), (600, 125.0, 400e6)] {
        let p = probe_result(&probe_path(2, x));
        let measured = p["mbs_pkts"].as_f64().unwrap_or_else(|| panic!("no MBS at X = {x}: {p}"));
        assert!((measured / mbs - 1.0).abs() <= 0.10, "X = {x} Mb/s: MBS {measured} vs fluid {mbs}");
        let est = p["abw_bps"].as_f64().unwrap();
        assert!((est / abw - 1.0).abs() <= 0.10, "X = {x} Mb/s: available bandwidth {est} vs {abw}");
        if x > 0 {
            // the model the results report is the same formula from the scenario
            assert_eq!(p["mbs_model_pkts"].as_f64(), Some(mbs), "{p}");
            assert_eq!(p["abw_model_bps"].as_f64(), Some(abw), "{p}");
        }
        assert_eq!(p["phase"], "done");
    }
}

/// ALGORITHMS.md's cases measured: R = 10 Gb/s, Q = 100: X = 0 -> 111, X = 500 Mb/s ->
/// 100 / 0.95 = 105.
#[test]
fn probe_at_ten_times_the_bottleneck() {
    for (x, mbs) in [(0u32, 111.0), (500, 105.0)] {
        let p = probe_result(&probe_path(10, x));
        let m = p["mbs_pkts"].as_f64().unwrap();
        assert!((m / mbs - 1.0).abs() <= 0.10, "X = {x}: {m} vs {mbs}");
    }
}

/// A path with no bottleneck for the probe (line rate 1 Gb/s into 1 Gb/s, no cross
/// traffic, R <= A): every train up to max_train passes: unbounded, as the model says.
#[test]
fn unbounded_when_line_rate_is_below_available_bandwidth() {
    let toml = probe_path(1, 0).replace("start = \"10ms\"", "start = \"10ms\"\nmax_train = 256");
    let p = probe_result(&toml);
    assert_eq!(p["mbs_unbounded"], true, "{p}");
    assert_eq!(p["mbs_pkts"].as_u64(), Some(256));
    assert_eq!(p["mbs_model_unbounded"], true);
}

/// CBR and on-off sources load the links at their rates: 300 Mb/s CBR for 2 s is one
/// 1500 B packet per 12,000 / 300e6 s = 40 us, at k x 40 us < 2 s: k = 0 .. 49,999, 50,000
/// packets (all delivered by the 2.1 s end); on-off 1 Gb/s, fixed 2 ms on / 8 ms off:
/// 167 packets per 10 ms period (0 .. 166 x 12 us < 2 ms), 200 periods = 33,400.
/// Conservation is checked mid-run with packets queued behind each other at R->D.
#[test]
fn cross_traffic_rates_and_conservation() {
    let toml = r#"
        name = "xt"
        duration = "2.1s"
        [topology]
        kind = "graph"
        nodes = ["X1", "X2", "R", "D"]
        links = [
          { a = "X1", b = "R", rate = "10Gbps", delay = "1ms" },
          { a = "X2", b = "R", rate = "10Gbps", delay = "1ms" },
          { a = "R", b = "D", rate = "10Gbps", delay = "1ms" },
        ]
        [[traffic]]
        kind = "cbr"
        from = "X1"
        to = "D"
        rate = "300Mbps"
        stop = "2s"
        [[traffic]]
        kind = "onoff"
        from = "X2"
        to = "D"
        rate = "1Gbps"
        on_time = "2ms"
        off_time = "8ms"
        distribution = "fixed"
        stop = "2s"
    "#;
    let (sc, mut sim) = build(toml, 1);
    run_checked(&mut sim, sc.duration.0, SimTime::from_ms(7));
    finish(&sim);
    assert_eq!(sim.sources[0].stats.pkts_delivered, 50_000);
    assert_eq!(sim.sources[1].stats.pkts_delivered, 33_400);
    let rd = sim.net.link_by_name("R->D").unwrap() as usize;
    assert_eq!(sim.net.links[rd].stats.delivered, 83_400, "the links count raw packets like any");
    let r = sim::output::results::collect(&sim, "xt");
    assert_eq!(r.sources.get("kind").map(|c| c.len()), Some(2));
}

/// Same seed, same bytes: exponential on-off periods and the probe's trains.
#[test]
fn deterministic_per_seed() {
    let toml = probe_path(2, 300)
        .replace("[[traffic]]\nkind = \"cbr\"", "[[traffic]]\nkind = \"onoff\"\non_time = \"1ms\"\noff_time = \"3ms\"");
    let a = run(&toml, 5);
    let b = run(&toml, 5);
    let ja = sim::output::results::collect(&a, "x");
    let jb = sim::output::results::collect(&b, "x");
    assert_eq!(ja.probe_trains.to_json(), jb.probe_trains.to_json());
    assert_eq!(ja.sources.to_json(), jb.sources.to_json());
}

/// Every new field refused by name.
#[test]
fn bad_raw_traffic_names_the_field() {
    let base = probe_path(2, 300);
    let cases = [
        ("rate = \"300Mbps\"", "rate = \"300Mbps\"\npacket_bytes = 10", "packet_bytes"),
        ("rate = \"300Mbps\"", "rate = \"fast\"", "rate"),
        ("rate = \"300Mbps\"", "rate = \"300Mbps\"\nburst = 3", "burst"),
        ("start = \"10ms\"", "start = \"10ms\"\ntrials = 0", "trials"),
        ("start = \"10ms\"", "start = \"10ms\"\nmax_train = 1", "max_train"),
        ("start = \"10ms\"", "start = \"10ms\"\nfac_epsilon = 2.0", "fac_epsilon"),
        ("start = \"10ms\"", "start = \"10ms\"\nfac_train = 1", "fac_train"),
        ("start = \"10ms\"", "start = \"10ms\"\nresolution = -1.0", "resolution"),
        ("kind = \"cbr\"", "kind = \"onoff\"", "on_time"),
        ("to = \"D\"\nrate", "to = \"Q\"\nrate", "traffic[0].to"),
    ];
    for (from, to, word) in cases {
        let f = base.replacen(from, to, 1);
        let e = match Scenario::from_toml_str(&f).and_then(|s| s.build(Some(1)).map(|_| ())) {
            Ok(()) => panic!("accepted {to:?}"),
            Err(e) => e,
        };
        assert!(e.contains(word), "{e:?} does not name {word:?}");
        assert!(!e.contains('\n'), "one line: {e:?}");
    }
    let f = base.replacen("kind = \"cbr\"", "kind = \"onoff\"\non_time = \"0s\"\noff_time = \"1ms\"", 1);
    let e = Scenario::from_toml_str(&f).unwrap().build(Some(1)).err().unwrap();
    assert!(e.contains("on_time"), "{e}");
}

/// The README's finding: with the line rate equal to the bottleneck's (R = C = 1 Gb/s),
/// a full queue frees one place per probe packet served and the next probe packet takes
/// it, so tail drop falls on the cross traffic and the probe, seeing only its own losses,
/// reports an MBS above the fluid model (X = 300 Mb/s: 100 / (1 - 0.7) = 333; measured
/// more than 10 % above it) while the cross traffic loses packets.
#[test]
fn probe_overshoots_when_line_rate_equals_the_bottleneck() {
    let sc = Scenario::from_toml_str(&probe_path(1, 300)).unwrap();
    let mut sim = sc.build(Some(1)).unwrap();
    sim.run_until(sc.duration.0);
    finish(&sim);
    let r = sim::output::results::collect(&sim, "probe");
    let p = &r.summary["probes"][0];
    let (m, model) = (p["mbs_pkts"].as_f64().unwrap(), p["mbs_model_pkts"].as_f64().unwrap());
    assert_eq!(model, 333.0);
    assert!(m > 1.1 * model, "measured {m} vs model {model}");
    assert!(sim.sources[0].stats.pkts_dropped > 0, "the cross traffic took the losses");
}
