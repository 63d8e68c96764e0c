//! Benchmark scenario P1 (issue 2): a dumbbell of 64 long-lived NewReno flows, access
//! links 10 Gbps / 10 us, bottleneck 10 Gbps / 100 us with a 1000-packet buffer, 1500 B
//! packets, initial cwnd 10, no receiver-window limit, tracing off.

use std::time::Instant;

use crate::core::time::SimTime;
use crate::output::results;
use crate::scenario::Scenario;

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

/// riops-web, Exp1 with RIO-PS (python/superpacket/experiments/riops_web.py `scenario`,
/// "exp1-ito3", "riops"): a 20-pair dumbbell, access 100 Mbps / 1 ms, bottleneck 8 Mbps /
/// 48 ms with the slides' RIO-PS queue (B = 2.5 BDP = 500 packets, ECN) and edge
/// classifier; 874 web sessions (90 % load with 460 B minimum objects, ~410 connections
/// per second) from s10..s19 to d10..d19, and the foreground batches (10 x 10 packets
/// every 25 s, 10 x 1000 packets every 125 s).
pub fn riops_web_toml(duration_s: f64) -> String {
    let mut t = format!(
        r#"
name = "riops-web-exp1-ito3-riops"
duration = "{duration_s}s"
[topology]
kind = "dumbbell"
pairs = 20
access = {{ rate = "100Mbps", delay = "1ms" }}
bottleneck = {{ rate = "8Mbps", delay = "48ms", queue = {{ kind = "riops", limit = 500, w_q = 0.001953125, gentle = true, wait = true, ecn = true, mean_pkt_size = 500, short = {{ min_th = 75, max_th = 175, p_max = 0.05 }}, long = {{ min_th = 75, max_th = 250, p_max = 0.1 }} }} }}
edge_classifier = {{ lt = 20, slr = 3.0, tc = "10s", tu = "1s", max_flows = 4096 }}
[tcp]
mss = 460
header_bytes = 40
max_cwnd = 128
granularity = "100ms"
init_rto = "3s"
ecn = true
[output]
sample_queues = ["R1->R2"]
sample_interval = "1s"
[[traffic]]
kind = "web"
servers = "s{{i}}"
server_first = 10
server_count = 10
clients = "d{{i}}"
client_first = 10
client_count = 10
sessions = 874
inter_page = "9.5s"
inter_object = "0.05s"
objects_min = 2
objects_max = 7
size_min_bytes = 460.0
size_max_bytes = 200000.0
shape = 1.2
"#
    );
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

/// The fabric of the datacenter benchmark (issue 16 section 6) for `hosts` hosts: 16 (a
/// k = 4 fat tree), 144 (the issue's leaf-spine: 9 leaves of 16 hosts, 4 spines, 10 Gbps
/// host links, 40 Gbps fabric links), 128 (a k = 8 fat tree) or 1024 (a k = 16 fat
/// tree); every link 1 us, every port 500 packets. Fat trees use 10 Gbps everywhere (full
/// bisection). DCTCP marking at K = 65 packets on 10 Gbps ports, 4 x 65 = 260 on 40 Gbps
/// ports (K scales with C x RTT: RFC 8257 section 4, the DCTCP paper's guideline).
fn datacenter_topology(hosts: u32) -> Result<String, String> {
    let q = |k: u32| format!("{{ kind = \"droptail\", limit = 500, ecn_threshold = {k} }}");
    let link = |rate: &str, k: u32| format!("{{ rate = \"{rate}\", delay = \"1us\", queue = {} }}", q(k));
    Ok(match hosts {
        144 => format!(
            "kind = \"leaf_spine\"\nleaves = 9\nspines = 4\nhosts_per_leaf = 16\nhost_link = {}\nfabric_link = {}\n",
            link("10Gbps", 65),
            link("40Gbps", 260)
        ),
        16 | 128 | 1024 => {
            let k = match hosts {
                16 => 4,
                128 => 8,
                _ => 16,
            };
            format!(
                "kind = \"fat_tree\"\nk = {k}\nhost_link = {}\nfabric_link = {}\n",
                link("10Gbps", 65),
                link("10Gbps", 65)
            )
        }
        _ => return Err(format!("--hosts must be 16, 128, 144 or 1024 (got {hosts})")),
    })
}

pub fn datacenter_toml(hosts: u32, duration_s: f64) -> Result<String, String> {
    Ok(format!(
        r#"
name = "bench-datacenter-{hosts}"
duration = "{duration_s}s"
[topology]
{}
[tcp]
cc = "dctcp"
min_rto = "1ms"
[[traffic]]
kind = "workload"
hosts = ["h*"]
cdf = "web_search"
load = 0.5
"#,
        datacenter_topology(hosts)?
    ))
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
    let sc = Scenario::from_toml_str(&datacenter_toml(hosts, warmup_s + duration_s)?)?;
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
