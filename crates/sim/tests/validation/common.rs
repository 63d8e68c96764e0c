//! Helpers shared by the validation tests: build a scenario from TOML, run it, and check
//! packet conservation at the end of every run (and, on request, at every step).

use sim::net::link::Link;
use sim::{Scenario, Sim, SimTime};

/// Parses and builds `toml` with `seed`; panics with the error (a test bug).
pub fn build(toml: &str, seed: u64) -> (Scenario, Sim) {
    let sc = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("scenario: {e}"));
    let sim = sc.build(Some(seed)).unwrap_or_else(|e| panic!("build: {e}"));
    (sc, sim)
}

/// Builds and runs `toml` for its whole `duration`, then checks conservation.
pub fn run(toml: &str, seed: u64) -> Sim {
    let (sc, mut sim) = build(toml, seed);
    sim.run_until(sc.duration.0);
    finish(&sim);
    sim
}

/// Runs to `until` in steps of `step`, checking conservation after every step
/// (mid-run: packets queued, in service and on the wire must all be accounted for).
pub fn run_checked(sim: &mut Sim, until: SimTime, step: SimTime) {
    while sim.now < until {
        let next = (sim.now + step).min(until);
        sim.run_until(next);
        if let Err(e) = sim.check_conservation() {
            panic!("conservation broken at {}: {e}", sim.now);
        }
    }
}

/// The end-of-run check every test calls: packet conservation per link and per flow
/// (`Sim::check_conservation`), plus an outside count: every live packet of the slab
/// is held by some link (queued, in service or on the wire).
pub fn finish(sim: &Sim) {
    if let Err(e) = sim.check_conservation() {
        panic!("conservation broken at the end ({}): {e}", sim.now);
    }
    let held: usize = sim.net.links.iter().map(|l| l.held_packets().count()).sum();
    assert_eq!(held, sim.live_packets(), "live packets not held by any link");
    // TCP flows and non-TCP sources (their reports included)
    let raw =
        |f: &dyn Fn(&sim::traffic::raw::RawStats) -> u64| -> u64 { sim.sources.iter().map(|s| f(&s.stats)).sum() };
    let sent: u64 =
        sim.flows.records().map(|f| f.stats.pkts_sent).sum::<u64>() + raw(&|s| s.pkts_sent + s.replies_sent);
    let fate: u64 = sim.flows.records().map(|f| f.stats.pkts_delivered + f.stats.pkts_dropped).sum::<u64>()
        + raw(&|s| s.pkts_delivered + s.pkts_dropped + s.replies_delivered + s.replies_dropped);
    assert_eq!(sent, fate + held as u64, "sent != delivered + dropped + held");
}

/// The directed link called `name` ("R1->R2").
pub fn link<'a>(sim: &'a Sim, name: &str) -> &'a Link {
    let id = sim.net.link_by_name(name).unwrap_or_else(|| panic!("no link {name}"));
    &sim.net.links[id as usize]
}

/// Jain's fairness index (sum x)^2 / (n sum x^2) (Jain, Chiu and Hawe 1984).
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}
