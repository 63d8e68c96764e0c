//! Whole-run tables pinned per example (smoltcp's tests/netsim.rs habit): every scenario
//! in examples/ runs with seed 1 and its flow table (FCT, timeouts, fast retransmits,
//! retransmits, ECN reductions) and totals are compared with the committed file in
//! tests/snapshots/. Any change that shifts results shows up here, in review, as a diff
//! of these files; regenerate them with `UPDATE_SNAPSHOTS=1 cargo test --release -p
//! superpacket-sim --test snapshots` and say in the commit which figure moved and why.

use sim::Scenario;
use std::fmt::Write;
use std::path::Path;

/// Flows beyond this many are summed into the totals line only (web-like examples open
/// thousands of flows).
const MAX_ROWS: usize = 60;

fn table(example: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let text = std::fs::read_to_string(root.join(format!("{example}.toml"))).expect("example");
    let sc = Scenario::from_toml_str(&text).expect("scenario");
    let mut sim = sc.build(Some(1)).expect("build");
    sim.run_until(sc.duration.0);
    sim.check_conservation().expect("conservation");
    let mut t = String::new();
    writeln!(t, "# {example} seed 1: flow fct_ns timeouts fast_retx retx ecn_red").unwrap();
    let (mut done, mut to, mut fr, mut rx, mut ecn) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for (i, f) in sim.flows.records().enumerate() {
        let s = &f.stats;
        done += f.fct().is_some() as u64;
        to += s.timeouts;
        fr += s.fast_retransmits;
        rx += s.retransmits;
        ecn += s.ecn_reductions;
        if i < MAX_ROWS {
            let fct = f.fct().map_or("-".to_string(), |d| d.ns().to_string());
            writeln!(t, "{i} {fct} {} {} {} {}", s.timeouts, s.fast_retransmits, s.retransmits, s.ecn_reductions)
                .unwrap();
        }
    }
    writeln!(
        t,
        "total flows {} completed {done} timeouts {to} fast_retx {fr} retx {rx} ecn_red {ecn}",
        sim.flows.len()
    )
    .unwrap();
    t
}

fn check(example: &str) {
    let got = table(example);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/snapshots/{example}.txt"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &got).expect("write snapshot");
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    if got != want {
        let diff: Vec<String> = want
            .lines()
            .zip(got.lines())
            .filter(|(a, b)| a != b)
            .take(10)
            .map(|(a, b)| format!("  pinned: {a}\n  now:    {b}"))
            .collect();
        panic!(
            "{example}: the whole-run table moved (UPDATE_SNAPSHOTS=1 to accept, and say why):\n{}",
            diff.join("\n")
        );
    }
}

#[test]
fn dumbbell() {
    check("dumbbell");
}

#[test]
fn incast() {
    check("incast");
}

#[test]
fn incast_superpacket() {
    check("incast-superpacket");
}

#[test]
fn riops_goodput() {
    check("riops-goodput");
}
