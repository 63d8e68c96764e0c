//! SCENARIOS.md "TCP-DCR and high-speed TCP under reordering", its must-hold claims at
//! small scale (100 Mbps instead of 1 Gbps, 30 s instead of 100 s; the full scale is
//! `superpacket reproduce dcr`): without DCR utilisation collapses under reordering, with
//! DCR it stays high, and with no reordering DCR changes utilisation by under 5 %.

use crate::common::*;
use sim::SimTime;

/// One flow of `cc` with SACK and `reordering` over a 100 Mbps dumbbell, RTT 50 ms
/// (2 x (1 + 23 + 1) ms), buffer = BDP = 100 Mbps x 50 ms / 1500 B = 417 packets, access
/// 200 Mbps; `q` of the data packets on R1 -> R2 held back by Normal(25 ms, 8 ms).
fn toml(cc: &str, reordering: &str, q: f64) -> String {
    format!(
        r#"
duration = "30s"
[tcp]
cc = "{cc}"
recovery = "sack"
reordering = "{reordering}"
[topology]
kind = "dumbbell"
pairs = 1
access = {{ rate = "200Mbps", delay = "1ms" }}
bottleneck = {{ rate = "100Mbps", delay = "23ms", queue = {{ kind = "droptail", limit = 417 }} }}
[[traffic]]
kind = "bulk"
from = "s0"
to = "d0"
[[reorder]]
links = ["R1->R2"]
q = {q}
"#
    )
}

/// Bottleneck utilisation over the second half of the run (after the first slow start).
fn utilisation(cc: &str, reordering: &str, q: f64) -> f64 {
    let (_, mut sim) = build(&toml(cc, reordering, q), 1);
    let half = SimTime::from_secs(15);
    sim.run_until(half);
    let b0 = link(&sim, "R1->R2").busy_ns(half);
    sim.run_until(SimTime::from_secs(30));
    finish(&sim);
    (link(&sim, "R1->R2").busy_ns(sim.now) - b0) as f64 / half.ns() as f64
}

#[test]
fn dcr_claims_small_scale() {
    for cc in ["highspeed", "bic"] {
        // measured when written: 1.000 / 1.000 at q = 0, 0.016 (HighSpeed) and 0.024 (BIC)
        // without DCR at q = 0.05, 1.000 with DCR
        let plain0 = utilisation(cc, "none", 0.0);
        let dcr0 = utilisation(cc, "dcr", 0.0);
        let plain = utilisation(cc, "none", 0.05);
        let dcr = utilisation(cc, "dcr", 0.05);
        eprintln!("{cc}: q=0 plain {plain0:.3} dcr {dcr0:.3}; q=0.05 plain {plain:.3} dcr {dcr:.3}");
        assert!(plain < 0.5, "{cc}: without DCR utilisation must collapse at q = 0.05: {plain}");
        assert!(dcr > 0.9, "{cc}: with DCR it stays above 90 % at q = 0.05: {dcr}");
        assert!((dcr0 - plain0).abs() / plain0 < 0.05, "{cc}: no reordering, DCR within 5 %: {dcr0} vs {plain0}");
    }
}

/// A run says which variant of its congestion control and reordering response it used,
/// defaults spelled out (issue 10: "say which one a run used").
#[test]
fn run_names_its_variants() {
    let (_, sim) = build(&toml("highspeed", "dcr", 0.0), 1);
    let s = sim::output::results::collect(&sim, "x").summary;
    let c = s["tcp_configs"]["traffic[0]"].as_str().unwrap();
    assert!(c.contains("Highspeed(Params { mode: LinuxTable, per_ack: false"), "{c}");
    assert!(c.contains("Dcr(DcrConfig { tau_srtt: 1.0") && c.contains("base: FirstDupack"), "{c}");
}

/// README: TCP-NCR (RFC 4653) does not hold utilisation under this reordering: its
/// DupThresh, 2/3 of the flight, tolerates delays up to ~2/3 RTT (33 ms here) while
/// Normal(25, 8) ms exceeds that for ~10 % of the reordered packets, and cwnd is held
/// during extended limited transmit. Measured when written at q = 0.05: 0.036
/// (HighSpeed), 0.139 (BIC) in the second half.
#[test]
fn ncr_collapses_under_continuous_reordering() {
    for cc in ["highspeed", "bic"] {
        let ncr = utilisation(cc, "ncr", 0.05);
        assert!(ncr < 0.5, "{cc}: NCR at q = 0.05: {ncr}");
        assert!(utilisation(cc, "ncr", 0.0) > 0.95, "{cc}: NCR without reordering");
    }
}
