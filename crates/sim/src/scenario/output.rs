//! `[output]`: the series, traces and monitor a run records besides its tables.

use crate::core::schema::format_duration;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::core::check::Validate;
use crate::core::time::SimTime;
use crate::engine::sim::Sim;

use super::common::{Dur, FLOW_SAMPLE_BYTES, MONITOR_MAX_ROWS};

pub(crate) fn d_sample() -> Dur {
    Dur(SimTime::from_ms(1))
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Links whose queue length is sampled ("R1->R2"), or ["all"].
    #[serde(default)]
    pub sample_queues: Vec<String>,
    /// Interval of the `sample_queues` series; above 0, with duration / interval x links at
    /// most 20000000 rows (MONITOR_MAX_ROWS).
    #[serde(default = "d_sample")]
    pub sample_interval: Dur,
    /// Interval of the per-flow received-bytes series (throughput over time); off when
    /// absent. Above 0 and at least duration / 20000000 (MONITOR_MAX_ROWS); the same
    /// bound holds for the rows of all the flows open at the start together.
    #[serde(default)]
    pub sample_flows: Option<Dur>,
    /// Links traced to pcap files ("R->d" or "R-to-d"), or ["all"] (engine/pcap.rs).
    #[serde(default)]
    pub pcap: Vec<String>,
    /// Bytes kept of each traced frame; 0 = whole frames (zero-filled payload).
    #[serde(default)]
    pub pcap_snaplen: u32,
    /// The high-frequency monitor (engine/monitor.rs): `{ link = "R1->R2", interval = "1ms" }`.
    #[serde(default)]
    pub monitor: Option<MonitorSpec>,
    /// The memory the run may be estimated to hold before it starts ("16GB", "512MiB";
    /// default 8GB; the environment's SUPERPACKET_MEMORY_BUDGET wins): memory.rs.
    #[serde(default)]
    pub memory_budget: Option<String>,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MonitorSpec {
    /// The link monitored, "a->b".
    pub link: String,
    /// Sampling interval; above 0 and at least duration / 20000000 (MONITOR_MAX_ROWS).
    pub interval: Dur,
}

impl Default for OutputSpec {
    fn default() -> Self {
        OutputSpec {
            sample_queues: Vec::new(),
            sample_interval: d_sample(),
            sample_flows: None,
            pcap: Vec::new(),
            pcap_snaplen: 0,
            monitor: None,
            memory_budget: None,
        }
    }
}

/// The queue series' interval (the rest is bounded by the run's duration and counts of
/// the built simulation: checked when attached).
impl Validate for OutputSpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        // refused even when no queue is sampled: a 0 there is a mistake either way
        if self.sample_interval.0 == SimTime::ZERO {
            return Err(format!("{path}.sample_interval: must be above 0"));
        }
        Ok(())
    }
}

impl OutputSpec {
    /// The outputs phase: the queue and flow series, the monitor and the pcap traces of a
    /// built simulation (after its traffic: the flow series is charged per open flow).
    pub(crate) fn attach(&self, sim: &mut Sim, duration: SimTime) -> Result<(), String> {
        debug_assert_eq!(self.validate("output"), Ok(()));
        // the links, the flows and the rows they make need the built simulation: checked here
        if !self.sample_queues.is_empty() {
            let mut ids = Vec::new();
            for (i, name) in self.sample_queues.iter().enumerate() {
                if name == "all" {
                    ids.extend(0..sim.net.links.len() as u32);
                } else {
                    let id = sim.net.link_by_any_name(name).ok_or_else(|| {
                    format!(
                        "output.sample_queues[{i}]: unknown link {name:?} (links are named \"a->b\" or \"a-to-b\", e.g. {:?})",
                        sim.net.links.first().map(|l| l.name.as_str()).unwrap_or("")
                    )
                })?;
                    ids.push(id);
                }
            }
            let iv = self.sample_interval.0;
            let rows = (duration.ns() / iv.ns()).saturating_mul(ids.len() as u64);
            if rows > MONITOR_MAX_ROWS {
                return Err(format!(
                "output.sample_interval: {} over {} for {} links is {rows} rows, above {MONITOR_MAX_ROWS} (a longer interval, or fewer links)",
                format_duration(iv),
                format_duration(duration),
                ids.len()
            ));
            }
            sim.sample_queues(ids, iv);
        }
        if let Some(iv) = self.sample_flows {
            if iv.0 == SimTime::ZERO || duration.ns() / iv.0.ns().max(1) > MONITOR_MAX_ROWS {
                return Err(format!(
                    "output.sample_flows: must be above 0 and at least duration / {MONITOR_MAX_ROWS} = {} (got {})",
                    format_duration(SimTime(duration.ns().div_ceil(MONITOR_MAX_ROWS))),
                    format_duration(iv.0)
                ));
            }
            // every flow gets a row per interval: the flows opened at the start count in
            // all against the same bound as one link's series, and their rows are charged
            let rows = (duration.ns() / iv.0.ns().max(1)).saturating_mul(sim.flows.len() as u64);
            if rows > MONITOR_MAX_ROWS {
                return Err(format!(
                    "output.sample_flows: {} over {} for {} flows is {rows} rows, above {MONITOR_MAX_ROWS} \
                 (a longer interval, or fewer flows)",
                    format_duration(iv.0),
                    format_duration(duration),
                    sim.flows.len()
                ));
            }
            sim.memory.charge("output.sample_flows", rows as f64 * FLOW_SAMPLE_BYTES)?;
            sim.sample_flows(iv.0);
        }
        if let Some(m) = &self.monitor {
            let l = sim.net.link_by_any_name(&m.link).ok_or_else(|| {
                format!(
                    "output.monitor.link: unknown link {:?} (links are named \"a->b\" or \"a-to-b\", e.g. {:?})",
                    m.link,
                    sim.net.links.first().map(|l| l.name.as_str()).unwrap_or("")
                )
            })?;
            let iv = m.interval.0;
            if iv == SimTime::ZERO || duration.ns() / iv.ns() > MONITOR_MAX_ROWS {
                return Err(format!(
                    "output.monitor.interval: must be above 0 and at least duration / {MONITOR_MAX_ROWS} = {} (got {})",
                    format_duration(SimTime(duration.ns().div_ceil(MONITOR_MAX_ROWS))),
                    format_duration(iv)
                ));
            }
            sim.monitor(l, iv);
        }
        sim.trace_by_name(&self.pcap, "output.pcap", self.pcap_snaplen)?;
        sim.charge_traces("output.pcap", duration)?;
        Ok(())
    }
}
