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

/// A kB field of /proc/self/status ("VmHWM:", "VmRSS:"), in bytes.
fn proc_status_bytes(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Peak resident set size of this process (VmHWM), bytes.
pub fn peak_rss_bytes() -> Option<u64> {
    proc_status_bytes("VmHWM:")
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

/// One long flow with a constant `window`-packet window (cc "fixed") over a
/// 10 Gbps path of 24 ms RTT (BDP 20,000 packets), two links of 0.5 % random loss each
/// (about 1 % per direction), under
/// `recovery` ("newreno" or "sack"): the per-ACK cost of loss recovery at large windows
/// (issue 9: a SACK flow's per-ACK work stays bounded at 10^4-10^5 packets).
pub fn run_window(window: u32, recovery: &str, duration_s: f64) -> Result<serde_json::Value, String> {
    let toml = format!(
        r#"
duration = "{duration_s}s"
[topology]
kind = "star"
senders = 1
sender_link = {{ rate = "10Gbps", delay = "6ms", loss = 0.005, queue = {{ kind = "droptail", limit = 100000 }} }}
receiver_link = {{ rate = "10Gbps", delay = "6ms", loss = 0.005, queue = {{ kind = "droptail", limit = 100000 }} }}
[tcp]
init_cwnd = {window}
cc = {{ kind = "fixed", window = {window} }}
recovery = "{recovery}"
[[traffic]]
kind = "bulk"
from = "s0"
to = "d"
"#
    );
    let sc = Scenario::from_toml_str(&toml)?;
    let mut sim = sc.build(Some(1))?;
    let t0 = Instant::now();
    sim.run_until(SimTime::from_secs_f64(duration_s));
    let wall = t0.elapsed().as_secs_f64();
    let f = &sim.flows[0];
    let delivered: u64 = f.stats.pkts_delivered;
    Ok(serde_json::json!({
        "scenario": "window",
        "build": BUILD,
        "window_pkts": window,
        "recovery": recovery,
        "sim_s": duration_s,
        "wall_s": wall,
        "events": sim.events_processed,
        "pkts_delivered": delivered,
        "ns_per_pkt_delivered": wall * 1e9 / delivered as f64,
        "goodput_bps": f.stats.bytes_received as f64 * 8.0 / duration_s,
        "timeouts": f.stats.timeouts,
        "fast_retransmits": f.stats.fast_retransmits,
        "retransmits": f.stats.retransmits,
    }))
}

/// The fast-burstiness setting of SCENARIOS.md (seeds/003, slide 3): one FAST TCP flow
/// (alpha = 500) from a 1 Gb/s host with a `txqueuelen`-packet NIC queue through a
/// 622 Mb/s bottleneck of 2000 packets, 360 ms round trip (2 x 179.99 ms + 4 x 5 us), so
/// about 18,700 + 500 packets in flight; reverse-path on-off traffic of 20 % of the
/// bottleneck (622 Mb/s bursts, exponential 10 ms on / 40 ms off) from a host behind R2
/// to one behind R1 for ACK compression. No monitor or series: the memory measured is the
/// simulator's state, not its output. `gate`: burstiness control (default options) on
/// or off.
pub fn fast_burstiness_toml(duration_s: f64, txqueuelen: u32, gate: bool) -> String {
    let gate = if gate { r#"gate = { kind = "burstiness" }"# } else { "" };
    format!(
        r#"
name = "fast-burstiness"
duration = "{duration_s}s"
[topology]
kind = "graph"
nodes = ["s", "d", "x", "y", "R1", "R2"]
links = [
  {{ a = "s", b = "R1", rate = "1Gbps", delay = "5us", queue = {{ kind = "droptail", limit = {txqueuelen} }} }},
  {{ a = "R1", b = "R2", rate = "622Mbps", delay = "179990us", queue = {{ kind = "droptail", limit = 2000 }} }},
  {{ a = "R2", b = "d", rate = "1Gbps", delay = "5us", queue = {{ kind = "droptail", limit = 10000 }} }},
  {{ a = "y", b = "R2", rate = "1Gbps", delay = "5us", queue = {{ kind = "droptail", limit = 10000 }} }},
  {{ a = "R1", b = "x", rate = "1Gbps", delay = "5us", queue = {{ kind = "droptail", limit = 10000 }} }},
]
[tcp]
cc = {{ kind = "fast", alpha = 500 }}
recovery = "sack"
local_drop = "cwr"
{gate}
[[traffic]]
kind = "bulk"
from = "s"
to = "d"
[[traffic]]
kind = "onoff"
from = "y"
to = "x"
rate = "622Mbps"
on_time = "10ms"
off_time = "40ms"
"#
    )
}

/// Current resident set size (VmRSS), bytes.
pub fn rss_bytes() -> Option<u64> {
    proc_status_bytes("VmRSS:")
}

/// Runs `fast_burstiness_toml` for `duration_s` simulated seconds in ten steps, the
/// resident set size and the packets alive after each (memory must stay flat in simulated
/// time with ~20,000 packets in flight: issue 11); wall time of the whole run.
pub fn run_fast_burstiness(duration_s: f64, txqueuelen: u32, gate: bool) -> Result<serde_json::Value, String> {
    if !(duration_s.is_finite() && duration_s > 0.0) {
        return Err("duration must be a finite number > 0".into());
    }
    let sc = Scenario::from_toml_str(&fast_burstiness_toml(duration_s, txqueuelen, gate))?;
    let mut sim = sc.build(Some(1))?;
    let mut steps = Vec::new();
    let t0 = Instant::now();
    for k in 1..=10 {
        sim.run_until(SimTime::from_secs_f64(duration_s * k as f64 / 10.0));
        let f = &sim.flows[0];
        steps.push(serde_json::json!({
            "sim_s": sim.now.as_secs_f64(),
            "wall_s": t0.elapsed().as_secs_f64(),
            "rss_bytes": rss_bytes(),
            "live_packets": sim.live_packets(),
            "in_flight_pkts": (f.snd_max - f.snd_una) as f64 / f.p.mss as f64,
        }));
    }
    let wall = t0.elapsed().as_secs_f64();
    let r = results::collect(&sim, "fast-burstiness");
    let f = &sim.flows[0];
    let bl = sim.net.link_by_name("R1->R2").ok_or("no bottleneck")?;
    let link = &sim.net.links[bl as usize];
    Ok(serde_json::json!({
        "scenario": "fast-burstiness",
        "build": BUILD,
        "txqueuelen": txqueuelen,
        "burstiness_control": gate,
        "sim_s": duration_s,
        "wall_s": wall,
        "events": sim.events_processed,
        "events_per_s": sim.events_processed as f64 / wall,
        "goodput_bps": f.stats.bytes_received as f64 * 8.0 / duration_s,
        "router_drops": link.stats.total_drops(),
        "sender_drops": f.stats.sender_drops,
        "max_queue_pkts": link.stats.max_pkts,
        "peak_live_packets": sim.peak_live_packets(),
        "peak_rss_bytes": peak_rss_bytes(),
        "steps": steps,
        "conservation": r.summary.get("conservation").cloned(),
    }))
}
