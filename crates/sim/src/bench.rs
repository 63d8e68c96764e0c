//! Benchmark scenario P1 (issue 2): a dumbbell of 64 long-lived NewReno flows, access
//! links 10 Gbps / 10 us, bottleneck 10 Gbps / 100 us with a 1000-packet buffer, 1500 B
//! packets, initial cwnd 10, no receiver-window limit, tracing off.

use std::time::Instant;

use crate::results;
use crate::scenario::Scenario;
use crate::time::SimTime;

pub const P1: &str = r#"
name = "P1"
duration = "5s"
[topology]
kind = "dumbbell"
pairs = 64
access = { rate = "10Gbps", delay = "10us", queue = { kind = "droptail", limit = 1000 } }
bottleneck = { rate = "10Gbps", delay = "100us", queue = { kind = "droptail", limit = 1000 } }
[tcp]
init_cwnd = 10
[[traffic]]
kind = "bulk"
from = "s{i}"
to = "d{i}"
count = 64
"#;

/// Peak resident set size of this process (VmHWM), bytes.
pub fn peak_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// How this library was compiled: "release", or "release+pgo" when the build set
/// SUPERPACKET_BUILD (the Makefile's profile-guided build, scripts/pgo-build.sh).
pub const BUILD: &str = match option_env!("SUPERPACKET_BUILD") {
    Some(b) => b,
    None => {
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    }
};

pub fn run_p1(duration_s: f64) -> Result<serde_json::Value, String> {
    if duration_s.is_nan() || duration_s <= 0.0 {
        return Err("duration must be > 0".into());
    }
    let sc = Scenario::from_toml_str(P1)?;
    let mut sim = sc.build(Some(1))?;
    let rss0 = peak_rss_bytes();
    let t0 = Instant::now();
    sim.run_until(SimTime::from_secs_f64(duration_s));
    let wall = t0.elapsed().as_secs_f64();
    let bl = sim.net.link_by_name("R1->R2").ok_or("no bottleneck")?;
    let bpkts = sim.net.links[bl as usize].departures(sim.now);
    let r = results::collect(&sim, "P1");
    let bytes: u64 = sim.flows.iter().map(|f| f.stats.bytes_received).sum();
    Ok(serde_json::json!({
        "scenario": "P1",
        "build": BUILD,
        "sim_s": duration_s,
        "wall_s": wall,
        "events": sim.events_processed,
        "events_per_s": sim.events_processed as f64 / wall,
        "bottleneck_pkts": bpkts,
        "bottleneck_pkts_per_s": bpkts as f64 / wall,
        "bottleneck_utilization": sim.net.links[bl as usize].busy_ns(sim.now) as f64 / sim.now.ns() as f64,
        "goodput_bps": bytes as f64 * 8.0 / duration_s,
        "peak_live_packets": sim.peak_live_packets(),
        "peak_rss_bytes": peak_rss_bytes(),
        "rss_before_run_bytes": rss0,
        "packet_struct_bytes": std::mem::size_of::<crate::packet::Packet>(),
        "conservation": r.summary.get("conservation").cloned(),
    }))
}
