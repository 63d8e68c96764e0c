//! `[[traffic]]`: the sources (TCP flows, Poisson arrivals, RIO-PS and datacenter traffic
//! in riops.rs and workload.rs, non-TCP sources) and adding them to a simulation.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::core::rng::Rng;
use crate::core::time::SimTime;
use crate::engine::sim::Sim;
use crate::tcp::UNLIMITED;
use crate::traffic::attack::{AttackMode, Attacker};
use crate::traffic::mbs_probe::{MbsProbe, ProbeParams};
use crate::traffic::raw::{Periods, RawKind, RawSource, Stream};
use crate::traffic::{FlowSpec, GenKind, Generator};

use super::common::{node_of, tagged, Dur, Rate, STREAM_TRAFFIC};
use super::raw::{CbrSpec, MbsProbeSpec, OnOffSpec, PeriodsSpec, SpAttackSpec, MAX_SOURCE_PPS};
use super::riops::{BackToBackSpec, WebSpec};
use super::tcp::{tcp_config_line, TcpSpec};
use super::workload::{IncastSpec, WorkloadSpec};
use super::{riops, workload};

/// A traffic source; `kind` selects it. `from`/`to` may contain "{i}", replaced by
/// 0..count-1 (one source per value).
#[derive(Clone, Debug)]
pub enum TrafficSpec {
    Bulk(BulkSpec),
    Flow(FlowSpecToml),
    Poisson(PoissonSpec),
    /// Closed-loop sources (scenario_riops.rs).
    BackToBack(BackToBackSpec),
    /// Web sessions (scenario_riops.rs).
    Web(WebSpec),
    /// Constant-bit-rate packets, no transport (traffic/raw.rs).
    Cbr(CbrSpec),
    /// On-off packets, no transport (traffic/raw.rs).
    OnOff(OnOffSpec),
    /// The MBS and available-bandwidth probe (traffic/mbs_probe.rs).
    MbsProbe(MbsProbeSpec),
    /// An attacker on the super-packet router's state (traffic/attack.rs).
    SpAttack(SpAttackSpec),
    /// Datacenter flow-size workload: Poisson arrivals per host at a load, sizes from an
    /// empirical CDF (scenario_workload.rs, traffic/workload.rs).
    Workload(WorkloadSpec),
    /// Incast rounds: servers answer one client at the same instant (scenario_workload.rs,
    /// traffic/incast.rs).
    Incast(IncastSpec),
}

/// Long-lived flows (never run out of data).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BulkSpec {
    /// Source node name; "{i}" is replaced by 0..count-1, one source per value.
    pub from: String,
    /// Destination node name, "{i}" as in `from`; never the source itself.
    pub to: String,
    /// Sources made from this entry (values of {i}); 0 makes none (e.g. a sweep's point
    /// without this traffic).
    #[serde(default = "super::queue::d_one")]
    pub count: u32,
    /// Time the first flow starts.
    #[serde(default)]
    pub start: Dur,
    /// Each flow starts at start + uniform[0, start_jitter).
    #[serde(default)]
    pub start_jitter: Dur,
    /// Staggered starts: flow i (the value of {i}) starts `start_interval` x i after
    /// `start`, its jitter added to that (e.g. four flows 1 s apart: count = 4,
    /// start_interval = "1s"). A start past the run's end never comes.
    #[serde(default)]
    pub start_interval: Dur,
    /// TCP settings of this entry's flows, over the scenario's `[tcp]` table.
    #[serde(default)]
    pub tcp: TcpSpec,
}

/// Flows of a fixed size (`size_bytes`, or `size_pkts` full segments).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpecToml {
    /// Source node name; "{i}" is replaced by 0..count-1, one source per value.
    pub from: String,
    /// Destination node name, "{i}" as in `from`; never the source itself.
    pub to: String,
    /// Sources made from this entry (values of {i}); 0 makes none (e.g. a sweep's point
    /// without this traffic).
    #[serde(default = "super::queue::d_one")]
    pub count: u32,
    /// Payload bytes per flow, at least 1; give this or `size_pkts`, not both.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// Full segments (mss bytes each) per flow, at least 1; give this or `size_bytes`, not
    /// both.
    #[serde(default)]
    pub size_pkts: Option<u64>,
    /// Time the first flow starts.
    #[serde(default)]
    pub start: Dur,
    /// Each flow starts at start + uniform[0, start_jitter).
    #[serde(default)]
    pub start_jitter: Dur,
    /// Staggered starts: flow i (the value of {i}) starts `start_interval` x i after
    /// `start`, its jitter added to that (e.g. four flows 1 s apart: count = 4,
    /// start_interval = "1s"). A start past the run's end never comes.
    #[serde(default)]
    pub start_interval: Dur,
    /// TCP settings of this entry's flows, over the scenario's `[tcp]` table.
    #[serde(default)]
    pub tcp: TcpSpec,
}

/// Poisson flow arrivals at `rate_per_s` from `start` until `stop` (default: the end).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoissonSpec {
    /// Source node name; "{i}" is replaced by 0..count-1, one source per value.
    pub from: String,
    /// Destination node name, "{i}" as in `from`; never the source itself.
    pub to: String,
    /// Sources made from this entry (values of {i}); 0 makes none (e.g. a sweep's point
    /// without this traffic).
    #[serde(default = "super::queue::d_one")]
    pub count: u32,
    /// Flow arrivals per second (per source), finite and above 0.
    pub rate_per_s: f64,
    /// Payload bytes per flow, at least 1; give this or `size_pkts`, not both.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// Full segments (mss bytes each) per flow, at least 1; give this or `size_bytes`, not
    /// both.
    #[serde(default)]
    pub size_pkts: Option<u64>,
    /// Arrivals from this time.
    #[serde(default)]
    pub start: Dur,
    /// No flow (or packet) starts at or after this time (default: the end of the run).
    #[serde(default)]
    pub stop: Option<Dur>,
    /// TCP settings of this entry's flows, over the scenario's `[tcp]` table.
    #[serde(default)]
    pub tcp: TcpSpec,
}

tagged!(TrafficSpec, "traffic kind", {
    "bulk" => Bulk(BulkSpec),
    "flow" => Flow(FlowSpecToml),
    "poisson" => Poisson(PoissonSpec),
    "back_to_back" => BackToBack(BackToBackSpec),
    "web" => Web(WebSpec),
    "cbr" => Cbr(CbrSpec),
    "onoff" => OnOff(OnOffSpec),
    "mbs_probe" => MbsProbe(MbsProbeSpec),
    "sp_attack" => SpAttack(SpAttackSpec),
    "workload" => Workload(WorkloadSpec),
    "incast" => Incast(IncastSpec),
});

/// The start of flow `i` of an entry: `start` + `interval` x i + `jitter`, saturating (a
/// start past any run's end never comes).
fn staggered(start: SimTime, interval: SimTime, i: u32, jitter: SimTime) -> SimTime {
    SimTime(start.ns().saturating_add(interval.ns().saturating_mul(u64::from(i))).saturating_add(jitter.ns()))
}

/// Adds traffic entry `k` to the simulation, its TCP tables filled from the scenario's
/// `[tcp]` (`defaults`).
pub(crate) fn add_traffic(
    defaults: &TcpSpec,
    sim: &mut Sim,
    k: usize,
    t: &TrafficSpec,
    seed: u64,
    end: SimTime,
) -> Result<(), String> {
    let path = format!("traffic[{k}]");
    let (from, to, count, tcp) = match t {
        TrafficSpec::Bulk(BulkSpec { from, to, count, tcp, .. })
        | TrafficSpec::Flow(FlowSpecToml { from, to, count, tcp, .. })
        | TrafficSpec::Poisson(PoissonSpec { from, to, count, tcp, .. }) => (from, to, *count, tcp),
        TrafficSpec::BackToBack(b) => return riops::add_back_to_back(defaults, sim, k, b, seed, end),
        TrafficSpec::Web(w) => return riops::add_web(defaults, sim, k, w, seed, end),
        TrafficSpec::Workload(w) => return workload::add_workload(defaults, sim, k, w, seed, end),
        TrafficSpec::Incast(c) => return workload::add_incast(defaults, sim, k, c, seed, end),
        TrafficSpec::Cbr(_) | TrafficSpec::OnOff(_) | TrafficSpec::MbsProbe(_) | TrafficSpec::SpAttack(_) => {
            return add_raw(sim, k, t, seed, end);
        }
    };
    let (params, cc_name) = tcp.resolve_over(defaults, &format!("{path}.tcp"))?;
    sim.tcp_configs.push((path.clone(), tcp_config_line(&params, &cc_name)));
    let size_of = |bytes: Option<u64>, pkts: Option<u64>| -> Result<u64, String> {
        match (bytes, pkts) {
            (Some(b), None) if b > 0 => Ok(b),
            (None, Some(p)) if p > 0 => p
                .checked_mul(params.mss as u64)
                .filter(|&b| b < UNLIMITED)
                .ok_or_else(|| format!("{path}.size_pkts: too large")),
            (Some(_), Some(_)) => Err(format!("{path}: give size_bytes or size_pkts, not both")),
            (None, None) => Err(format!("{path}: size_bytes or size_pkts is required")),
            (Some(_), None) => Err(format!("{path}.size_bytes: must be at least 1 (got 0)")),
            _ => Err(format!("{path}.size_pkts: must be at least 1 (got 0)")),
        }
    };
    for i in 0..count {
        let src = node_of(sim, &from.replace("{i}", &i.to_string()), &format!("{path}.from"))?;
        let dst = node_of(sim, &to.replace("{i}", &i.to_string()), &format!("{path}.to"))?;
        if src == dst {
            return Err(format!("{path}: from and to are the same node"));
        }
        let mut rng = Rng::stream(seed, STREAM_TRAFFIC + ((k as u64) << 12) + i as u64);
        let cc = cc_name.build();
        match t {
            TrafficSpec::Bulk(BulkSpec { start, start_jitter, start_interval, .. }) => {
                let jitter = SimTime((rng.uniform() * start_jitter.0.ns() as f64) as u64);
                let st = staggered(start.0, start_interval.0, i, jitter);
                sim.add_flow(src, dst, params, cc, UNLIMITED, st).map_err(|e| format!("{path}: {e}"))?;
            }
            TrafficSpec::Flow(FlowSpecToml { size_bytes, size_pkts, start, start_jitter, start_interval, .. }) => {
                let size = size_of(*size_bytes, *size_pkts)?;
                let jitter = SimTime((rng.uniform() * start_jitter.0.ns() as f64) as u64);
                let st = staggered(start.0, start_interval.0, i, jitter);
                sim.add_flow(src, dst, params, cc, size, st).map_err(|e| format!("{path}: {e}"))?;
            }
            TrafficSpec::Poisson(PoissonSpec { rate_per_s, size_bytes, size_pkts, start, stop, .. }) => {
                if rate_per_s.is_nan() || *rate_per_s <= 0.0 || !rate_per_s.is_finite() {
                    return Err(format!("{path}.rate_per_s: must be > 0"));
                }
                let size = size_of(*size_bytes, *size_pkts)?;
                sim.route_id(src, dst).map_err(|e| format!("{path}: {e}"))?;
                sim.route_id(dst, src).map_err(|e| format!("{path}: {e}"))?;
                let flow = FlowSpec { src, dst, params, cc: cc_name.clone(), size };
                let stop = stop.map_or(end, |s| s.0);
                sim.add_generator(Generator {
                    kind: GenKind::Poisson { rate_per_s: *rate_per_s, start: start.0, stop, flow },
                    rng,
                });
            }
            TrafficSpec::BackToBack(_) | TrafficSpec::Web(_) => unreachable!("routed to riops above"),
            TrafficSpec::Workload(_) | TrafficSpec::Incast(_) => unreachable!("routed to workload above"),
            TrafficSpec::Cbr(_) | TrafficSpec::OnOff(_) | TrafficSpec::MbsProbe(_) | TrafficSpec::SpAttack(_) => {
                unreachable!("routed to add_raw above")
            }
        }
    }
    Ok(())
}

/// Adds the non-TCP sources of traffic entry `k` (cbr, onoff, mbs_probe).
pub(crate) fn add_raw(sim: &mut Sim, k: usize, t: &TrafficSpec, seed: u64, end: SimTime) -> Result<(), String> {
    let path = format!("traffic[{k}]");
    let check_bytes = |b: u32, field: &str| -> Result<u32, String> {
        if !(28..=65_535).contains(&b) {
            return Err(format!("{path}.{field}: must be 28..65535 wire bytes (got {b})"));
        }
        Ok(b)
    };
    let (from, to, count) = match t {
        TrafficSpec::Cbr(c) => (&c.from, &c.to, c.count),
        TrafficSpec::OnOff(c) => (&c.from, &c.to, c.count),
        TrafficSpec::MbsProbe(c) => (&c.from, &c.to, 1),
        TrafficSpec::SpAttack(c) => (&c.from, &c.to, 1),
        _ => unreachable!("add_raw is for raw kinds"),
    };
    for i in 0..count {
        let src = node_of(sim, &from.replace("{i}", &i.to_string()), &format!("{path}.from"))?;
        let dst = node_of(sim, &to.replace("{i}", &i.to_string()), &format!("{path}.to"))?;
        if src == dst {
            return Err(format!("{path}: from and to are the same node"));
        }
        // in a fabric, ECMP over the source's UDP 5-tuple (one path per source, as a flow)
        let fwd = sim.source_route(src, dst, true).map_err(|e| format!("{path}: {e}"))?;
        let rev = sim.source_route(dst, src, false).map_err(|e| format!("{path}: {e}"))?;
        let rng = Rng::stream(seed, STREAM_TRAFFIC + ((k as u64) << 12) + i as u64);
        let stop_of = |s: &Option<Dur>| s.map_or(end, |d| d.0.min(end));
        // a stream's rate (at most MAX_SOURCE_PPS packets a second, as an attacker's) and
        // its period (stop after start), as workload and incast check theirs
        let check_stream = |rate: Rate, b: u32, start: Dur, stop: Option<Dur>| -> Result<(), String> {
            let pps = rate.0 .0 as f64 / (8.0 * b as f64);
            if pps > MAX_SOURCE_PPS {
                return Err(format!(
                    "{path}.rate: at most {MAX_SOURCE_PPS:e} packets/s of packet_bytes {b} (got {pps:.3e}); \
                     use larger packets or a lower rate"
                ));
            }
            if let Some(stop) = stop.filter(|s| s.0 <= start.0) {
                return Err(format!(
                    "{path}.stop: must be after start ({} <= {})",
                    crate::core::schema::format_duration(stop.0),
                    crate::core::schema::format_duration(start.0)
                ));
            }
            Ok(())
        };
        let kind = match t {
            TrafficSpec::Cbr(c) => {
                let b = check_bytes(c.packet_bytes, "packet_bytes")?;
                check_stream(c.rate, b, c.start, c.stop)?;
                RawKind::Stream(Stream::new(c.rate.0 .0 as f64, b, None, c.start.0, stop_of(&c.stop)))
            }
            TrafficSpec::OnOff(c) => {
                let b = check_bytes(c.packet_bytes, "packet_bytes")?;
                check_stream(c.rate, b, c.start, c.stop)?;
                if c.on_time.0 == SimTime::ZERO {
                    return Err(format!("{path}.on_time: must be > 0"));
                }
                let how = match c.distribution {
                    PeriodsSpec::Exponential => Periods::Exponential,
                    PeriodsSpec::Fixed => Periods::Fixed,
                };
                let p = Some((c.on_time.0, c.off_time.0, how));
                RawKind::Stream(Stream::new(c.rate.0 .0 as f64, b, p, c.start.0, stop_of(&c.stop)))
            }
            TrafficSpec::MbsProbe(c) => {
                let d = ProbeParams::default();
                let p = ProbeParams {
                    pkt_bytes: check_bytes(c.packet_bytes.unwrap_or(d.pkt_bytes), "packet_bytes")?,
                    trials: c.trials.unwrap_or(d.trials),
                    max_train: c.max_train.unwrap_or(d.max_train),
                    resolution: c.resolution.unwrap_or(d.resolution),
                    fac_train: c.fac_train.unwrap_or(d.fac_train),
                    fac_epsilon: c.fac_epsilon.unwrap_or(d.fac_epsilon),
                    fac_rounds: c.fac_rounds.unwrap_or(d.fac_rounds),
                    init_timeout: c.init_timeout.map_or(d.init_timeout, |x| x.0),
                    start: c.start.0,
                };
                if p.trials == 0 || p.trials > 100 {
                    return Err(format!("{path}.trials: must be 1..100 (got {})", p.trials));
                }
                if !(2..=1_000_000).contains(&p.max_train) {
                    return Err(format!("{path}.max_train: must be 2..1000000 packets (got {})", p.max_train));
                }
                if !(0.0..0.5).contains(&p.resolution) {
                    return Err(format!("{path}.resolution: must be in [0, 0.5) (got {})", p.resolution));
                }
                if p.fac_train < 2 {
                    return Err(format!("{path}.fac_train: must be >= 2 packets (got {})", p.fac_train));
                }
                if !(p.fac_epsilon > 0.0 && p.fac_epsilon < 1.0) {
                    return Err(format!("{path}.fac_epsilon: must be in (0, 1) (got {})", p.fac_epsilon));
                }
                if p.fac_rounds == 0 || p.fac_rounds > 1000 {
                    return Err(format!("{path}.fac_rounds: must be 1..1000 (got {})", p.fac_rounds));
                }
                if p.init_timeout == SimTime::ZERO {
                    return Err(format!("{path}.init_timeout: must be > 0"));
                }
                let first = sim.route(fwd)[0];
                let line = sim.net.links[first as usize].rate.0 as f64;
                RawKind::Probe(Box::new(MbsProbe::new(p, line)))
            }
            TrafficSpec::SpAttack(c) => {
                let mode = match c.attack.as_str() {
                    "spoof_flood" => AttackMode::SpoofFlood,
                    "bloom_pollution" => AttackMode::BloomPollution,
                    "outstanding_drain" => AttackMode::OutstandingDrain,
                    "epoch_sync" => AttackMode::EpochSync,
                    other => {
                        return Err(format!(
                            "{path}.attack: unknown attack {other:?} (spoof_flood, bloom_pollution, outstanding_drain, epoch_sync)"
                        ))
                    }
                };
                if !(c.rate_pps.is_finite() && c.rate_pps > 0.0 && c.rate_pps <= MAX_SOURCE_PPS) {
                    return Err(format!("{path}.rate_pps: must be in (0, 1e8] packets/s (got {})", c.rate_pps));
                }
                let b = check_bytes(c.packet_bytes, "packet_bytes")?;
                if c.len == 0 {
                    return Err(format!("{path}.len: must be >= 1 packet"));
                }
                if c.epoch.0 == SimTime::ZERO {
                    return Err(format!("{path}.epoch: must be > 0"));
                }
                if c.aim_slots != 0 && !(c.aim_slots.is_power_of_two() && c.aim_slots <= 1 << 26) {
                    return Err(format!(
                        "{path}.aim_slots: must be 0 or a power of two up to 2^26 (got {})",
                        c.aim_slots
                    ));
                }
                if !(1..=4096).contains(&c.aim_per_victim) {
                    return Err(format!("{path}.aim_per_victim: must be 1..4096 (got {})", c.aim_per_victim));
                }
                let mut victims = Vec::new();
                for (j, v) in c.victims.iter().enumerate() {
                    victims.push(node_of(sim, v, &format!("{path}.victims[{j}]"))?);
                }
                if victims.is_empty() && (mode == AttackMode::OutstandingDrain || c.aim_slots > 0) {
                    return Err(format!("{path}.victims: {} needs at least one victim node", mode.name()));
                }
                let first = sim.route(fwd)[0];
                let line = sim.net.links[first as usize].rate.0 as f64;
                let mut a = Attacker::new(
                    mode,
                    c.rate_pps,
                    b,
                    c.len,
                    c.start.0,
                    stop_of(&c.stop),
                    src,
                    dst,
                    victims,
                    c.epoch.0,
                    line,
                );
                if c.aim_slots > 0 {
                    a.aim(c.aim_slots, c.aim_per_victim as usize);
                }
                RawKind::Attack(Box::new(a))
            }
            _ => unreachable!(),
        };
        sim.add_source(RawSource {
            traffic: path.clone(),
            src,
            dst,
            fwd,
            rev,
            kind,
            rng,
            stats: Default::default(),
            wake_at: None,
        });
    }
    Ok(())
}

impl TrafficSpec {
    /// The entry's TCP settings as (where they are written, the table over `defaults`):
    /// its `tcp` table, and a workload's `short_tcp` over that. Non-TCP sources have none.
    pub(crate) fn tcp_tables(&self, defaults: &TcpSpec) -> Vec<(&'static str, TcpSpec)> {
        let own = match self {
            TrafficSpec::Bulk(b) => &b.tcp,
            TrafficSpec::Flow(f) => &f.tcp,
            TrafficSpec::Poisson(p) => &p.tcp,
            TrafficSpec::BackToBack(b) => &b.tcp,
            TrafficSpec::Web(w) => &w.tcp,
            TrafficSpec::Workload(w) => &w.tcp,
            TrafficSpec::Incast(c) => &c.tcp,
            TrafficSpec::Cbr(_) | TrafficSpec::OnOff(_) | TrafficSpec::MbsProbe(_) | TrafficSpec::SpAttack(_) => {
                return Vec::new()
            }
        };
        let tcp = own.over(defaults);
        let mut v = Vec::new();
        if let TrafficSpec::Workload(WorkloadSpec { short_tcp: Some(s), .. }) = self {
            v.push((".short_tcp", s.tcp.over(&tcp)));
        }
        v.insert(0, ("", tcp));
        v
    }
}
