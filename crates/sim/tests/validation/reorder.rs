//! The reordering stage (reorder.rs; ALGORITHMS.md section 11): its delay distribution,
//! where the delay sits (beside propagation, after the wire), how far packets are
//! overtaken, packet conservation with packets held in it, and its input errors.

use crate::common::*;
use sim::core::rng::Rng;
use sim::net::reorder::{Negative, ReorderParams, ReorderStage};
use sim::SimTime;

/// One flow s0 -> d0 over a dumbbell (access 1 Gbps / 1 ms, bottleneck 10 Mbps / 10 ms,
/// 1000-packet buffers), `tcp` and `extra` appended.
fn scenario(flow: &str, tcp: &str, extra: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
[tcp]
{tcp}
[topology]
kind = "dumbbell"
pairs = 1
access = {{ rate = "1Gbps", delay = "1ms" }}
bottleneck = {{ rate = "10Mbps", delay = "10ms" }}
[[traffic]]
from = "s0"
to = "d0"
{flow}
{extra}
"#
    )
}

/// ALGORITHMS.md 11 test: with q = 1, 10^5 draws of D have mean 25 +- 0.1 ms and sd
/// 8 +- 0.1 ms (the standard error of the mean is 8 / sqrt(10^5) = 0.025 ms), none
/// negative. Clamping instead of redrawing puts P(D < 0) = Phi(-25/8) = Phi(-3.125) =
/// 0.000889 of the draws at 0: 88.9 expected in 10^5 (sd 9.4), so 50..130.
#[test]
fn delay_distribution() {
    let mut r = ReorderStage::new(ReorderParams { q: 1.0, ..ReorderParams::default() }, Rng::stream(7, 1));
    let d: Vec<f64> = (0..100_000).map(|_| r.draw().as_secs_f64() * 1e3).collect();
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    let sd = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    assert!((mean - 25.0).abs() < 0.1, "mean {mean}");
    assert!((sd - 8.0).abs() < 0.1, "sd {sd}");
    assert!(d.iter().all(|&x| x >= 0.0));
    let p = ReorderParams { q: 1.0, negative: Negative::Clamp, ..ReorderParams::default() };
    let mut r = ReorderStage::new(p, Rng::stream(7, 2));
    let zeros = (0..100_000).filter(|_| r.draw() == SimTime::ZERO).count();
    assert!((50..=130).contains(&zeros), "clamped zeros {zeros}");
}

/// The delay sits beside propagation: with q = 1 and sd = 0 every data packet of a
/// 10-packet flow (one initial window) is late by exactly 25 ms and none overtakes
/// another, so the FCT grows by exactly 25 ms and no segment arrives out of order. The
/// SYN and the ACKs are not delayed (data packets only).
#[test]
fn equal_delays_shift_without_reordering() {
    let flow = "kind = \"flow\"\nsize_pkts = 10";
    let base = run(&scenario(flow, "", "", "2s"), 1);
    let late = run(&scenario(flow, "", "[[reorder]]\nlinks = [\"R1->R2\"]\nq = 1.0\ndelay_sd = \"0s\"", "2s"), 1);
    let (b, l) = (base.flows.record(0).fct().unwrap(), late.flows.record(0).fct().unwrap());
    assert_eq!(l - b, SimTime::from_ms(25));
    assert_eq!(late.flows.record(0).stats.ooo_arrivals, 0);
    assert_eq!(link(&late, "R1->R2").reorder.as_ref().unwrap().delayed, 10);
}

/// A packet held back D = 5.5 ms behind a saturated 10 Mbps link (a 1500 B packet every
/// 1.2 ms) is overtaken by floor(5.5 / 1.2) = 4 packets, each an out-of-order arrival at
/// the receiver. With q = 1 % two delayed packets rarely fall within 4 packets of each
/// other (about 8 % of them), and such a pair shows fewer overtakers than 4 each, so the
/// out-of-order arrivals per delayed packet lie in [3.5, 4]. A fixed window of 50 keeps
/// the link busy whatever the reordering does; DupThresh 1000 avoids retransmissions.
#[test]
fn overtaken_by_delay_over_packet_time() {
    let sim = run(
        &scenario(
            "kind = \"bulk\"",
            "cc = { kind = \"fixed\", window = 50 }\ndupack_threshold = 1000",
            "[[reorder]]\nlinks = [\"R1->R2\"]\nq = 0.01\ndelay_mean = \"5.5ms\"\ndelay_sd = \"0s\"",
            "10s",
        ),
        3,
    );
    let delayed = link(&sim, "R1->R2").reorder.as_ref().unwrap().delayed as f64;
    let ooo = sim.flows.record(0).stats.ooo_arrivals as f64;
    assert!(delayed > 50.0, "delayed {delayed}");
    let per = ooo / delayed;
    assert!((3.5..=4.0).contains(&per), "out-of-order arrivals per delayed packet {per} ({ooo} / {delayed})");
    assert_eq!(sim.flows.record(0).stats.retransmits, 0);
}

/// Packets held by the stage are counted by the conservation check, mid-run too, and
/// q = 0 changes nothing (the stage draws from its own stream).
#[test]
fn conservation_and_q_zero() {
    let flow = "kind = \"bulk\"\ncount = 1";
    let toml = scenario(flow, "recovery = \"sack\"", "[[reorder]]\nlinks = [\"R1->R2\"]\nq = 0.3", "3s");
    let (_, mut sim) = build(&toml, 2);
    let mut max_held = 0;
    while sim.now < SimTime::from_secs(3) {
        let next = sim.now + SimTime::from_ms(7);
        sim.run_until(next);
        sim.check_conservation().unwrap_or_else(|e| panic!("at {}: {e}", sim.now));
        max_held = max_held.max(link(&sim, "R1->R2").reorder_held());
    }
    finish(&sim);
    assert!(max_held > 0);
    let plain = run(&scenario(flow, "recovery = \"sack\"", "", "3s"), 2);
    let zero = run(&scenario(flow, "recovery = \"sack\"", "[[reorder]]\nlinks = [\"R1->R2\"]\nq = 0.0", "3s"), 2);
    let json = |s: &sim::Sim| sim::output::results::collect(s, "x").flows.to_json();
    assert_eq!(json(&plain), json(&zero));
}

/// `router = "R2"` puts a stage on every link leaving R2 (both directions of the chain
/// and the host link), none elsewhere.
#[test]
fn router_reorders_what_it_forwards() {
    let toml = r#"
duration = "1s"
[topology]
kind = "chain"
routers = 3
link = { rate = "1Gbps", delay = "1ms" }
host_link = { rate = "1Gbps", delay = "1ms" }
[[reorder]]
router = "R2"
q = 0.01
"#;
    let (_, sim) = build(toml, 1);
    let with: Vec<&str> = sim.net.links.iter().filter(|l| l.reorder.is_some()).map(|l| l.name.as_str()).collect();
    assert_eq!(with, vec!["R2->R1", "R2->R3", "R2->H2"]);
}

/// Bad input: one line naming the field.
#[test]
fn reorder_input_errors() {
    let flow = "kind = \"flow\"\nsize_pkts = 10";
    let err = |extra: &str| {
        sim::Scenario::from_toml_str(&scenario(flow, "", extra, "1s"))
            .and_then(|sc| sc.build(Some(1)).map(|_| ()))
            .unwrap_err()
    };
    for (extra, want) in [
        ("[[reorder]]\nlinks = [\"R1->R2\"]\nq = -0.1", "reorder[0].q"),
        ("[[reorder]]\nlinks = [\"R1->R2\"]\nq = 1.5", "reorder[0].q"),
        ("[[reorder]]\nlinks = [\"R1->R2\"]\nq = nan", "reorder[0].q"),
        ("[[reorder]]\nlinks = [\"R1->R2\"]\nq = 0.1\ndelay_sd = \"-8ms\"", "reorder[0].delay_sd"),
        ("[[reorder]]\nlinks = [\"R1->R9\"]\nq = 0.1", "reorder[0].links[0]"),
        ("[[reorder]]\nrouter = \"R9\"\nq = 0.1", "reorder[0].router"),
        ("[[reorder]]\nq = 0.1", "reorder[0]"),
        ("[[reorder]]\nlinks = [\"R1->R2\"]\nq = 0.1\nnegative = \"flip\"", "reorder[0].negative"),
    ] {
        let e = err(extra);
        assert!(e.contains(want) && !e.contains('\n'), "{extra:?}: {e}");
    }
}

/// Deterministic per seed: the same seed gives identical flow and link tables with 30 %
/// of the packets reordered; another seed draws other packets and delays.
#[test]
fn reordering_is_deterministic_per_seed() {
    let toml = scenario("kind = \"bulk\"", "recovery = \"sack\"", "[[reorder]]\nlinks = [\"R1->R2\"]\nq = 0.3", "2s");
    let tables = |seed: u64| {
        let r = sim::output::results::collect(&run(&toml, seed), "x");
        (r.flows.to_json(), r.links.to_json())
    };
    assert_eq!(tables(5), tables(5));
    assert_ne!(tables(5).1, tables(6).1);
}
