//! Results as plain columns (DESIGN.md: statistics are rows handed to Python as columns,
//! then polars DataFrames and Parquet; never printed strings to parse).

use crate::core::packet::NodeId;
use crate::engine::flows::FlowRecord;
use crate::engine::sim::Sim;
use crate::net::mbs;
use crate::net::queue::DropReason;
use crate::traffic::mbs_probe::MbsProbe;
use crate::traffic::raw::RawSource;

#[derive(Clone, Debug)]
pub enum Column {
    U64(Vec<u64>),
    F64(Vec<f64>),
    OptF64(Vec<Option<f64>>),
    Str(Vec<String>),
    /// Strings of few distinct values (node and algorithm names, one per flow): each row's
    /// index into `values`, which are in order of first appearance. Read as `Str`.
    Dict {
        values: Vec<String>,
        codes: Vec<u32>,
    },
    Bool(Vec<bool>),
}

impl Column {
    /// Rows in the column.
    pub fn len(&self) -> usize {
        match self {
            Column::U64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::OptF64(v) => v.len(),
            Column::Str(v) => v.len(),
            Column::Dict { codes, .. } => codes.len(),
            Column::Bool(v) => v.len(),
        }
    }

    /// A `Dict` column of `rows` (4 B a row instead of a `String`).
    pub fn dict<'a>(rows: impl Iterator<Item = &'a str>) -> Column {
        let mut index: std::collections::HashMap<&'a str, u32> = std::collections::HashMap::new();
        let mut values = Vec::new();
        let codes = rows
            .map(|r| {
                *index.entry(r).or_insert_with(|| {
                    values.push(r.to_string());
                    values.len() as u32 - 1
                })
            })
            .collect();
        Column::Dict { values, codes }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Debug, Default)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn push(&mut self, name: &str, c: Column) {
        self.columns.push((name.to_string(), c));
    }

    pub fn get(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    pub fn to_json(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        for (n, c) in &self.columns {
            let v = match c {
                Column::U64(v) => serde_json::json!(v),
                Column::F64(v) => serde_json::json!(v),
                Column::OptF64(v) => serde_json::json!(v),
                Column::Str(v) => serde_json::json!(v),
                Column::Dict { values, codes } => {
                    serde_json::json!(codes.iter().map(|&c| &values[c as usize]).collect::<Vec<_>>())
                }
                Column::Bool(v) => serde_json::json!(v),
            };
            m.insert(n.clone(), v);
        }
        serde_json::Value::Object(m)
    }
}

pub struct RunResults {
    pub flows: Table,
    pub links: Table,
    /// Discipline-specific counters, long format: (link, counter, value).
    pub queue_counters: Table,
    pub queue_series: Table,
    /// Per-flow received bytes over time (`output.sample_flows`).
    pub flow_series: Table,
    /// Non-TCP sources (cbr, onoff, mbs_probe), one row each.
    pub sources: Table,
    /// Every train of every MBS probe as judged.
    pub probe_trains: Table,
    /// The high-frequency monitor's rows (`output.monitor`, monitor.rs).
    pub monitor: Table,
    pub summary: serde_json::Map<String, serde_json::Value>,
}

/// Collects the run's tables from a finished (or paused) simulation.
pub fn collect(sim: &Sim, name: &str) -> RunResults {
    let mut r = collect_tables(sim, name);
    flow_columns(sim, |n, c| r.flows.push(n, c));
    r
}

/// The flows table one column at a time, each handed to `sink` as soon as it is built
/// (the Python extension sends each on before the next exists: a run of 1.66 M flows
/// then holds one column in Rust, not the whole table). Every flow's row in id order,
/// live or retired (flows.rs), walked once per column.
pub fn flow_columns(sim: &Sim, mut sink: impl FnMut(&str, Column)) {
    let now = sim.now;
    let fl = || sim.flows.records();
    let u = |f: &dyn Fn(&FlowRecord) -> u64| Column::U64(fl().map(|r| f(&r)).collect());
    sink("flow_id", u(&|f| f.id as u64));
    // names as codes: a String per row cost 56 B of the ~385 B a row took (1.66 M rows)
    let node_name = |n: NodeId| sim.net.nodes[n as usize].name.as_str();
    sink("src", Column::dict(fl().map(|f| node_name(f.src))));
    sink("dst", Column::dict(fl().map(|f| node_name(f.dst))));
    sink("cc", Column::dict(fl().map(|f| f.cc)));
    sink("bulk", Column::Bool(fl().map(|f| f.is_bulk()).collect()));
    sink("size_bytes", Column::OptF64(fl().map(|f| (!f.is_bulk()).then_some(f.size as f64)).collect()));
    sink("start_s", Column::F64(fl().map(|f| f.start.as_secs_f64()).collect()));
    sink("end_s", Column::OptF64(fl().map(|f| f.stats.end.map(|t| t.as_secs_f64())).collect()));
    sink("fct_s", Column::OptF64(fl().map(|f| f.fct().map(|t| t.as_secs_f64())).collect()));
    sink("ideal_fct_s", Column::OptF64(fl().map(|f| f.stats.ideal_fct.map(|t| t.as_secs_f64())).collect()));
    sink(
        "slowdown",
        Column::OptF64(
            fl().map(|f| Some(f.fct()?.as_secs_f64() / f.stats.ideal_fct?.as_secs_f64().max(1e-12))).collect(),
        ),
    );
    sink("completed", Column::Bool(fl().map(|f| f.stats.end.is_some()).collect()));
    sink("bytes_received", u(&|f| f.stats.bytes_received));
    sink(
        "goodput_bps",
        Column::F64(
            fl().map(|f| {
                let end = f.stats.end.unwrap_or(now);
                let dt = end.saturating_sub(f.start).as_secs_f64();
                if dt > 0.0 {
                    f.stats.bytes_received as f64 * 8.0 / dt
                } else {
                    0.0
                }
            })
            .collect(),
        ),
    );
    sink("pkts_sent", u(&|f| f.stats.pkts_sent));
    sink("pkts_delivered", u(&|f| f.stats.pkts_delivered));
    sink("pkts_dropped", u(&|f| f.stats.pkts_dropped));
    sink("sender_drops", u(&|f| f.stats.sender_drops));
    sink("local_cwr", u(&|f| f.stats.local_cwr));
    sink("nic_refusals", u(&|f| f.stats.nic_refusals));
    sink("data_pkts_sent", u(&|f| f.stats.data_pkts_sent));
    sink("retransmits", u(&|f| f.stats.retransmits));
    sink("timeouts", u(&|f| f.stats.timeouts));
    sink("fast_retransmits", u(&|f| f.stats.fast_retransmits));
    sink("ecn_reductions", u(&|f| f.stats.ecn_reductions));
    sink("ooo_arrivals", u(&|f| f.stats.ooo_arrivals));
    sink(
        "mean_rtt_s",
        Column::OptF64(
            fl().map(|f| {
                (f.stats.rtt_samples > 0).then(|| f.stats.rtt_sum_ns as f64 / f.stats.rtt_samples as f64 * 1e-9)
            })
            .collect(),
        ),
    );
    sink("cwnd_pkts", Column::F64(fl().map(|f| f.cwnd).collect()));
    sink("sp_sent", u(&|f| f.stats.sp_sent));
    sink("sp_denied", u(&|f| f.stats.sp_denied));
    sink("sp_fell_back", Column::Bool(fl().map(|f| f.stats.sp_fell_back).collect()));
}

/// Every table but the flows (`flow_columns`; `RunResults::flows` left empty).
pub fn collect_tables(sim: &Sim, name: &str) -> RunResults {
    let now = sim.now;
    let node = |n: u32| sim.net.nodes[n as usize].name.clone();
    let fl = || sim.flows.records();
    let flows = Table::default();

    let ls = &sim.net.links;
    let mut links = Table::default();
    let lu = |f: &dyn Fn(&crate::net::link::Link) -> u64| Column::U64(ls.iter().map(f).collect());
    links.push("link_id", Column::U64((0..ls.len() as u64).collect()));
    links.push("name", Column::Str(ls.iter().map(|l| l.name.clone()).collect()));
    links.push("from", Column::Str(ls.iter().map(|l| node(l.from)).collect()));
    links.push("to", Column::Str(ls.iter().map(|l| node(l.to)).collect()));
    links.push("queue", Column::Str(ls.iter().map(|l| l.disc_name().to_string()).collect()));
    // every link has a queue, host NICs included: its limit is part of the result
    links.push("limit", Column::OptF64(ls.iter().map(|l| l.limit().map(|(n, _)| n as f64)).collect()));
    links.push("limit_unit", Column::Str(ls.iter().map(|l| l.limit().map_or("", |(_, u)| u).to_string()).collect()));
    links.push("rate_bps", lu(&|l| l.rate.0));
    links.push("delay_s", Column::F64(ls.iter().map(|l| l.delay.as_secs_f64()).collect()));
    links.push("arrivals", lu(&|l| l.stats.arrivals));
    links.push("departures", lu(&|l| l.departures(now)));
    links.push("delivered", lu(&|l| l.stats.delivered));
    links.push("drops", lu(&|l| l.stats.total_drops()));
    for r in DropReason::ALL {
        links.push(&format!("drops_{}", r.name()), lu(&|l| l.stats.drops[r as usize]));
    }
    links.push("refusals", lu(&|l| l.stats.refusals));
    links.push("marks", lu(&|l| l.stats.marks));
    links.push("bytes_arrived", lu(&|l| l.stats.bytes_arrived));
    links.push("bytes_departed", lu(&|l| l.bytes_departed(now)));
    links.push("max_pkts", lu(&|l| l.stats.max_pkts as u64));
    links.push("max_bytes", lu(&|l| l.stats.max_bytes));
    let t = now.ns().max(1) as f64;
    links.push("mean_pkts", Column::F64(ls.iter().map(|l| l.stats.occ_integral as f64 / t).collect()));
    links.push("mean_bytes", Column::F64(ls.iter().map(|l| l.stats.occ_bytes_integral as f64 / t).collect()));
    links.push("utilization", Column::F64(ls.iter().map(|l| (l.busy_ns(now) as f64 / t).min(1.0)).collect()));
    links.push("queued_pkts", lu(&|l| l.queue_state().pkts as u64));
    links.push("on_wire_pkts", lu(&|l| l.on_wire(now) as u64));
    links.push("reordered", lu(&|l| l.reorder.as_ref().map_or(0, |r| r.delayed)));

    let mut qc = (Vec::new(), Vec::new(), Vec::new());
    for l in ls {
        for (k, v) in l.disc_counters() {
            qc.0.push(l.name.clone());
            qc.1.push(k.to_string());
            qc.2.push(v);
        }
    }
    // edge classifiers (classifier.rs), named "classifier@LINK" or by their router
    for c in &sim.net.classifiers {
        for (k, v) in c.counters() {
            qc.0.push(c.name.clone());
            qc.1.push(k.to_string());
            qc.2.push(v);
        }
    }
    let mut queue_counters = Table::default();
    queue_counters.push("link", Column::Str(qc.0));
    queue_counters.push("counter", Column::Str(qc.1));
    queue_counters.push("value", Column::F64(qc.2));

    let ss = &sim.samples;
    let mut series = Table::default();
    series.push("t_s", Column::F64(ss.iter().map(|s| s.t.as_secs_f64()).collect()));
    series.push("link", Column::Str(ss.iter().map(|s| ls[s.link as usize].name.clone()).collect()));
    series.push("pkts", Column::U64(ss.iter().map(|s| s.pkts as u64).collect()));
    series.push("bytes", Column::U64(ss.iter().map(|s| s.bytes).collect()));
    // the link's cumulative counters at each sample (rates are differences)
    series.push("arrivals", Column::U64(ss.iter().map(|s| s.arrivals).collect()));
    series.push("drops", Column::U64(ss.iter().map(|s| s.drops).collect()));
    series.push("refusals", Column::U64(ss.iter().map(|s| s.refusals).collect()));
    series.push("marks", Column::U64(ss.iter().map(|s| s.marks).collect()));
    series.push("bytes_delivered", Column::U64(ss.iter().map(|s| s.bytes_delivered).collect()));

    let fcts: Vec<f64> = fl().filter_map(|f| f.fct()).map(|t| t.as_secs_f64()).collect();
    let mut summary = serde_json::Map::new();
    summary.insert("name".into(), name.into());
    summary.insert("seed".into(), sim.seed.into());
    summary.insert("sim_time_s".into(), now.as_secs_f64().into());
    summary.insert("events".into(), sim.events_processed.into());
    // which variant of each congestion control and reordering response a run used, with
    // every parameter (defaults included), per traffic entry
    if !sim.tcp_configs.is_empty() {
        let m: serde_json::Map<String, serde_json::Value> =
            sim.tcp_configs.iter().map(|(k, v)| (k.clone(), v.clone().into())).collect();
        summary.insert("tcp_configs".into(), m.into());
    }
    summary.insert("flows".into(), sim.flows.len().into());
    summary.insert("completed_flows".into(), fcts.len().into());
    let mean = if fcts.is_empty() { None } else { Some(fcts.iter().sum::<f64>() / fcts.len() as f64) };
    summary.insert("mean_fct_s".into(), mean.into());
    summary.insert("flows_with_timeout".into(), fl().filter(|f| f.stats.timeouts > 0).count().into());
    let drops: u64 = ls.iter().map(|l| l.stats.total_drops()).sum();
    summary.insert("drops".into(), drops.into());
    // TCP data dropped by the senders' own NIC queues, apart from everything else
    let sender_drops: u64 = fl().map(|f| f.stats.sender_drops).sum();
    summary.insert("sender_drops".into(), sender_drops.into());
    // segments the NIC queues refused and their flows kept (local_drop = "hold")
    let nic_refusals: u64 = fl().map(|f| f.stats.nic_refusals).sum();
    summary.insert("nic_refusals".into(), nic_refusals.into());
    let mut warnings = sim.warnings.clone();
    if 2 * sender_drops > drops {
        warnings.push(format!(
            "most drops ({sender_drops} of {drops}) were at the senders' own NIC queues, not in the network: the \
             hosts send faster than their first links drain (tcp.local_drop = \"hold\" keeps what the queue \
             refuses, as Linux does; or a longer host queue, or pacing)"
        ));
    }
    if !warnings.is_empty() {
        summary.insert("warnings".into(), warnings.into());
    }
    summary.insert("live_packets".into(), sim.live_packets().into());
    summary.insert("peak_live_packets".into(), sim.peak_live_packets().into());
    let cons = match sim.check_conservation() {
        Ok(()) => "ok".to_string(),
        Err(e) => e,
    };
    summary.insert("conservation".into(), cons.into());
    let fs = &sim.flow_samples;
    let mut flow_series = Table::default();
    flow_series.push("t_s", Column::F64(fs.iter().map(|s| s.t.as_secs_f64()).collect()));
    flow_series.push("flow_id", Column::U64(fs.iter().map(|s| s.flow as u64).collect()));
    flow_series.push("bytes_received", Column::U64(fs.iter().map(|s| s.bytes_received).collect()));
    flow_series.push("cwnd_pkts", Column::F64(fs.iter().map(|s| s.cwnd).collect()));
    // ssthresh is infinite until the first reduction: null there (JSON, Arrow)
    flow_series.push(
        "ssthresh_pkts",
        Column::OptF64(fs.iter().map(|s| s.ssthresh.is_finite().then_some(s.ssthresh)).collect()),
    );
    flow_series.push("srtt_s", Column::OptF64(fs.iter().map(|s| s.srtt.map(|x| x.as_secs_f64())).collect()));
    flow_series.push("in_recovery", Column::Bool(fs.iter().map(|s| s.in_recovery).collect()));
    let (sources, probe_trains, probes) = raw_tables(sim);
    if !probes.is_empty() {
        summary.insert("probes".into(), probes.into());
    }
    let mut monitor = Table::default();
    if let Some(m) = sim.monitor.as_ref() {
        let r = &m.rows;
        monitor.push("t_s", Column::F64(r.iter().map(|x| x.t.as_secs_f64()).collect()));
        monitor.push("queue_pkts", Column::U64(r.iter().map(|x| x.queue_pkts as u64).collect()));
        monitor.push("max_queue_pkts", Column::U64(r.iter().map(|x| x.max_queue_pkts as u64).collect()));
        monitor.push("window_pkts", Column::F64(r.iter().map(|x| x.window_pkts).collect()));
        monitor.push("predicted_pkts", Column::F64(r.iter().map(|x| x.predicted_pkts).collect()));
        monitor.push("drops", Column::U64(r.iter().map(|x| x.drops).collect()));
    }
    RunResults {
        flows,
        links,
        queue_counters,
        queue_series: series,
        flow_series,
        sources,
        probe_trains,
        monitor,
        summary,
    }
}

/// The fluid-model hops of a source's path: capacity, cross traffic (the long-run mean
/// rate of every other non-TCP source whose route uses the link) and the free buffer in
/// packets of `pkt_bytes` (a DropTail limit; other disciplines: None).
pub fn path_hops(sim: &Sim, s: usize, pkt_bytes: u32) -> Option<Vec<mbs::Hop>> {
    let src = &sim.sources[s];
    let mut hops = Vec::new();
    for &l in sim.route(src.fwd) {
        let link = &sim.net.links[l as usize];
        let dt = link.disc.as_droptail()?;
        let q = dt.capacity_pkts(pkt_bytes) as f64;
        let cross: f64 = sim
            .sources
            .iter()
            .enumerate()
            .filter(|(j, o)| *j != s && sim.route(o.fwd).contains(&l))
            .map(|(_, o)| o.mean_rate_bps())
            .sum();
        hops.push(mbs::Hop { capacity: link.rate.0 as f64, cross, q_pkts: q });
    }
    Some(hops)
}

fn raw_tables(sim: &Sim) -> (Table, Table, Vec<serde_json::Value>) {
    let node = |n: u32| sim.net.nodes[n as usize].name.clone();
    let ss = &sim.sources;
    let t = sim.now.as_secs_f64();
    let mut sources = Table::default();
    let u = |f: &dyn Fn(&RawSource) -> u64| Column::U64(ss.iter().map(f).collect());
    sources.push("source_id", Column::U64((0..ss.len() as u64).collect()));
    sources.push("traffic", Column::Str(ss.iter().map(|s| s.traffic.clone()).collect()));
    sources.push("kind", Column::Str(ss.iter().map(|s| s.kind_name().to_string()).collect()));
    sources.push("src", Column::Str(ss.iter().map(|s| node(s.src)).collect()));
    sources.push("dst", Column::Str(ss.iter().map(|s| node(s.dst)).collect()));
    sources.push("mean_rate_bps", Column::F64(ss.iter().map(|s| s.mean_rate_bps()).collect()));
    sources.push("pkts_sent", u(&|s| s.stats.pkts_sent));
    sources.push("pkts_delivered", u(&|s| s.stats.pkts_delivered));
    sources.push("pkts_dropped", u(&|s| s.stats.pkts_dropped));
    sources.push("bytes_sent", u(&|s| s.stats.bytes_sent));
    sources.push("bytes_delivered", u(&|s| s.stats.bytes_delivered));
    sources.push(
        "throughput_bps",
        Column::F64(ss.iter().map(|s| if t > 0.0 { s.stats.bytes_delivered as f64 * 8.0 / t } else { 0.0 }).collect()),
    );
    sources.push("replies_dropped", u(&|s| s.stats.replies_dropped));

    let mut tr = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut probes = Vec::new();
    for (i, s) in ss.iter().enumerate() {
        let Some(p) = s.kind.as_any().downcast_ref::<MbsProbe>() else { continue };
        for r in &p.records {
            tr.0.push(s.traffic.clone());
            tr.1.push(r.t.as_secs_f64());
            tr.2.push(r.phase.name().to_string());
            tr.3.push(r.n as u64);
            tr.4.push(r.rate_in_bps);
            tr.5.push(r.received as u64);
            tr.6.push(r.rate_out_bps);
            tr.7.push(r.lossless);
        }
        let hops = path_hops(sim, i, p.p.pkt_bytes);
        let model = hops.as_ref().map(|h| mbs::path_mbs(h, p.line_rate));
        let res = &p.result;
        probes.push(serde_json::json!({
            "traffic": s.traffic,
            "src": node(s.src),
            "dst": node(s.dst),
            "phase": p.phase.name(),
            "mbs_pkts": res.mbs_pkts,
            "mbs_bytes": res.mbs_pkts.map(|m| m as u64 * p.p.pkt_bytes as u64),
            "mbs_unbounded": res.unbounded,
            "mbs_model_pkts": model.flatten(),
            "mbs_model_unbounded": model.is_some_and(|m| m.is_none()),
            "abw_bps": res.abw_bps,
            "abw_model_bps": hops.as_ref().map(|h| mbs::path_abw(h)),
            "capacity_bps": res.capacity_bps,
            "cross_bps": res.cross_bps,
            "line_rate_bps": p.line_rate,
            "trains": p.records.len(),
            "probe_bytes": s.stats.bytes_sent,
        }));
    }
    let mut probe_trains = Table::default();
    probe_trains.push("probe", Column::Str(tr.0));
    probe_trains.push("t_s", Column::F64(tr.1));
    probe_trains.push("phase", Column::Str(tr.2));
    probe_trains.push("n", Column::U64(tr.3));
    probe_trains.push("rate_in_bps", Column::F64(tr.4));
    probe_trains.push("received", Column::U64(tr.5));
    probe_trains.push("rate_out_bps", Column::OptF64(tr.6));
    probe_trains.push("lossless", Column::Bool(tr.7));
    (sources, probe_trains, probes)
}
