//! `[output]`: the series, traces and monitor a run records besides its tables.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::core::time::SimTime;

use super::common::Dur;

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
