//! The benchmarks' timing (docs/benchmarks.md): each runs a scenario file of
//! scenarios/ (p1, window, fast-burstiness, riops-web, datacenter), with its parameters
//! set from the command line, and reports wall and CPU time, events, memory and the
//! run's own figures. Behind the `bench` cargo feature (on by default: the
//! `superpacket-sim` binary and the Python extension's `bench` use it).

use std::time::Instant;

use crate::core::time::SimTime;
use crate::engine::sim::Sim;
use crate::output::results;
use crate::scenario::Scenario;

/// The benchmark scenario files, compiled in.
pub const P1: &str = include_str!("../../../scenarios/p1.toml");
const WINDOW: &str = include_str!("../../../scenarios/window.toml");
const FAST_BURSTINESS: &str = include_str!("../../../scenarios/fast-burstiness.toml");
const RIOPS_WEB: &str = include_str!("../../../scenarios/riops-web.toml");
const DATACENTER: &str = include_str!("../../../scenarios/datacenter.toml");

/// A scenario file as a JSON value with its duration set to `duration_s` seconds.
fn with_duration(text: &str, duration_s: f64) -> Result<serde_json::Value, String> {
    let mut v = Scenario::toml_to_json(text)?;
    v["duration"] = format!("{duration_s}s").into();
    Ok(v)
}

/// Builds a scenario value with seed 1.
fn build(v: serde_json::Value) -> Result<Sim, String> {
    Scenario::from_value(v)?.build(Some(1))
}

/// A kB field of /proc/self/status ("VmHWM:", "VmRSS:"), in bytes.
fn proc_status_bytes(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// CPU time this thread has run, ns (/proc/thread-self/schedstat's first field): the
/// benchmark's cost apart from what other processes take of a shared machine.
pub fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
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
    let bytes: u64 = sim.flows.records().map(|f| f.stats.bytes_received).sum();
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
        "packet_struct_bytes": std::mem::size_of::<crate::core::packet::Packet>(),
        "conservation": r.summary.get("conservation").cloned(),
    }))
}

/// One long flow with a constant `window`-packet window (cc "fixed") over a
/// 10 Gbps path of 24 ms RTT (BDP 20,000 packets), two links of 0.5 % random loss each
/// (about 1 % per direction), under
/// `recovery` ("newreno" or "sack"): the per-ACK cost of loss recovery at large windows
/// (issue 9: a SACK flow's per-ACK work stays bounded at 10^4-10^5 packets).
pub fn run_window(window: u32, recovery: &str, duration_s: f64) -> Result<serde_json::Value, String> {
    let mut v = with_duration(WINDOW, duration_s)?;
    v["tcp"]["init_cwnd"] = window.into();
    v["tcp"]["cc"]["window"] = window.into();
    v["tcp"]["recovery"] = recovery.into();
    let mut sim = build(v)?;
    let t0 = Instant::now();
    sim.run_until(SimTime::from_secs_f64(duration_s));
    let wall = t0.elapsed().as_secs_f64();
    let f = sim.flows.record(0);
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

/// The fast-burstiness scenario (scenarios/fast-burstiness.toml) for `duration_s`
/// seconds, the host's NIC queue of `txqueuelen` packets, burstiness control (default
/// options) on or off.
pub fn fast_burstiness_scenario(duration_s: f64, txqueuelen: u32, gate: bool) -> Result<serde_json::Value, String> {
    let mut v = with_duration(FAST_BURSTINESS, duration_s)?;
    v["topology"]["links"][0]["queue"]["limit"] = txqueuelen.into();
    if gate {
        v["tcp"]["gate"] = serde_json::json!({ "kind": "burstiness" });
    }
    Ok(v)
}

/// Current resident set size (VmRSS), bytes.
pub fn rss_bytes() -> Option<u64> {
    proc_status_bytes("VmRSS:")
}

/// Runs `fast_burstiness_scenario` for `duration_s` simulated seconds in ten steps, the
/// resident set size and the packets alive after each (memory must stay flat in simulated
/// time with ~20,000 packets in flight: issue 11); wall time of the whole run.
pub fn run_fast_burstiness(duration_s: f64, txqueuelen: u32, gate: bool) -> Result<serde_json::Value, String> {
    if !(duration_s.is_finite() && duration_s > 0.0) {
        return Err("duration must be a finite number > 0".into());
    }
    let mut sim = build(fast_burstiness_scenario(duration_s, txqueuelen, gate)?)?;
    let mut steps = Vec::new();
    let t0 = Instant::now();
    for k in 1..=10 {
        sim.run_until(SimTime::from_secs_f64(duration_s * k as f64 / 10.0));
        let f = sim.flows.get(0).ok_or("the bulk flow finished")?;
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
    let f = sim.flows.record(0);
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

/// The riops-web benchmark (scenarios/riops-web.toml) for `duration_s` seconds, with the
/// foreground batches (10 x 10 packets every 25 s, 10 x 1000 packets every 125 s)
/// appended, as TOML text.
pub fn riops_web_toml(duration_s: f64) -> String {
    let mut t: String = RIOPS_WEB
        .lines()
        .map(
            |l| if l.starts_with("duration = ") { format!("duration = \"{duration_s}s\"\n") } else { format!("{l}\n") },
        )
        .collect();
    for (every, pkts) in [(25, 10), (125, 1000)] {
        for s in (every..duration_s.ceil() as u64).step_by(every as usize) {
            t.push_str(&format!(
                "[[traffic]]\nkind = \"flow\"\nfrom = \"s{{i}}\"\nto = \"d{{i}}\"\ncount = 10\nsize_pkts = {pkts}\nstart = \"{s}s\"\nstart_jitter = \"1ms\"\n"
            ));
        }
    }
    t
}

/// Runs `riops_web_toml` for `duration_s` simulated seconds in ten steps: the resident
/// set size, the flows opened and the flows still holding a whole `Flow` after each
/// (memory flat in simulated time for an open-loop workload: issue "Hostile input,
/// bounded resources", section 3), then the results' tables (`results::collect`) and the
/// peak RSS (VmHWM) before and after them. A benchmark, not a test.
pub fn run_riops_web(duration_s: f64) -> Result<serde_json::Value, String> {
    if !(duration_s.is_finite() && duration_s > 0.0) {
        return Err("duration must be a finite number > 0".into());
    }
    let sc = Scenario::from_toml_str(&riops_web_toml(duration_s))?;
    let mut sim = sc.build(Some(1))?;
    let mut steps = Vec::new();
    let t0 = Instant::now();
    for k in 1..=10 {
        sim.run_until(SimTime::from_secs_f64(duration_s * k as f64 / 10.0));
        steps.push(serde_json::json!({
            "sim_s": sim.now.as_secs_f64(),
            "wall_s": t0.elapsed().as_secs_f64(),
            "rss_bytes": rss_bytes(),
            "flows": sim.flows.len(),
            "live_flows": sim.flows.live_count(),
        }));
    }
    let wall = t0.elapsed().as_secs_f64();
    let peak_run = peak_rss_bytes();
    let r = results::collect(&sim, "riops-web");
    Ok(serde_json::json!({
        "scenario": "riops-web-exp1-ito3-riops",
        "build": BUILD,
        "sim_s": duration_s,
        "wall_s": wall,
        "events": sim.events_processed,
        "flows": sim.flows.len(),
        "flows_finished": r.summary.get("completed_flows").cloned(),
        "live_flows": sim.flows.live_count(),
        "flow_struct_bytes": std::mem::size_of::<crate::tcp::Flow>(),
        "flow_table_bytes": sim.flows.table_bytes(),
        "peak_rss_run_bytes": peak_run,
        "peak_rss_bytes": peak_rss_bytes(),
        "steps": steps,
        "conservation": r.summary.get("conservation").cloned(),
    }))
}

/// The datacenter benchmark (scenarios/datacenter.toml: web search at 50 % load, DCTCP)
/// for `hosts` hosts: the file's leaf-spine for 144; for 16, 128 or 1024 a fat tree of
/// k = 4, 8 or 16 with 10 Gbps links everywhere (full bisection), every link 1 us, every
/// port 500 packets marking at K = 65.
pub fn datacenter_scenario(hosts: u32, duration_s: f64) -> Result<serde_json::Value, String> {
    let mut v = with_duration(DATACENTER, duration_s)?;
    let k = match hosts {
        144 => None,
        16 => Some(4),
        128 => Some(8),
        1024 => Some(16),
        _ => return Err(format!("--hosts must be 16, 128, 144 or 1024 (got {hosts})")),
    };
    if let Some(k) = k {
        let link = serde_json::json!({
            "rate": "10Gbps", "delay": "1us",
            "queue": { "kind": "droptail", "limit": 500, "ecn_threshold": 65 },
        });
        v["topology"] = serde_json::json!({ "kind": "fat_tree", "k": k, "host_link": link, "fabric_link": link });
    }
    v["name"] = format!("bench-datacenter-{hosts}").into();
    Ok(v)
}

/// `superpacket bench --scenario datacenter`: web search at 50 % load with DCTCP hosts on
/// the fabric of `hosts` hosts, `warmup_s` then `duration_s` measured. Packet-hops: every
/// packet departure from any link's queue onto its wire (a packet crossing 4 links is 4).
pub fn run_datacenter(hosts: u32, duration_s: f64, warmup_s: f64) -> Result<serde_json::Value, String> {
    for (what, v) in [("duration", duration_s), ("warmup", warmup_s)] {
        if !(v.is_finite() && v >= 0.0) || (what == "duration" && v == 0.0) {
            return Err(format!("{what} must be a finite number of seconds > 0"));
        }
    }
    let sc = Scenario::from_value(datacenter_scenario(hosts, warmup_s + duration_s)?)?;
    let t_build = Instant::now();
    let mut sim = sc.build(Some(1))?;
    let build_s = t_build.elapsed().as_secs_f64();
    let hops = |sim: &crate::engine::sim::Sim| -> u64 { sim.net.links.iter().map(|l| l.departures(sim.now)).sum() };
    let done =
        |sim: &crate::engine::sim::Sim| -> usize { sim.flows.records().filter(|f| f.stats.end.is_some()).count() };
    sim.run_until(SimTime::from_secs_f64(warmup_s));
    let (h0, e0, d0) = (hops(&sim), sim.events_processed, done(&sim));
    let (t0, c0) = (Instant::now(), thread_cpu_ns());
    sim.run_until(SimTime::from_secs_f64(warmup_s + duration_s));
    let wall = t0.elapsed().as_secs_f64();
    let cpu = match (c0, thread_cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 * 1e-9,
        _ => wall,
    };
    let (h1, e1, d1) = (hops(&sim), sim.events_processed, done(&sim));
    let r = results::collect(&sim, "datacenter");
    Ok(serde_json::json!({
        "scenario": "datacenter",
        "build": BUILD,
        "hosts": hosts,
        "nodes": sim.net.nodes.len(),
        "links": sim.net.links.len(),
        "sim_s": duration_s,
        "warmup_s": warmup_s,
        "build_s": build_s,
        "wall_s": wall,
        "packet_hops": h1 - h0,
        "cpu_s": cpu,
        "packet_hops_per_s": (h1 - h0) as f64 / wall,
        "packet_hops_per_cpu_s": (h1 - h0) as f64 / cpu,
        "cpu_ns_per_packet_hop": cpu * 1e9 / (h1 - h0).max(1) as f64,
        "events": e1 - e0,
        "events_per_s": (e1 - e0) as f64 / wall,
        "flows_started": sim.flows.len(),
        "flows_finished": d1 - d0,
        "peak_live_packets": sim.peak_live_packets(),
        "peak_rss_bytes": peak_rss_bytes(),
        "conservation": r.summary.get("conservation").cloned(),
    }))
}
