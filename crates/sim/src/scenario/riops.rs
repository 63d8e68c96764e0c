//! Scenario schema of the RIO-PS edge classifier (seeds/001): `classifier` on a link,
//! `edge_classifier` on a dumbbell. The `rio` and `riops` queue kinds' table is in
//! net/queue/rio.rs; the `back_to_back` and `web` traffic kinds are in
//! scenario/traffic/.
//!
//! ```toml
//! bottleneck = { rate = "8Mbps", delay = "48ms", queue = { kind = "riops", limit = 500, ecn = true,
//!     short = { min_th = 75, max_th = 175, p_max = 0.05 }, long = { min_th = 75, max_th = 250, p_max = 0.1 } } }
//! edge_classifier = { lt = 20, slr = 3, tc = "10s", tu = "1s", max_flows = 4096 }
//! ```

use schemars::JsonSchema;
use serde::Deserialize;

use super::common::Dur;
use crate::core::packet::LinkId;
use crate::core::rng::Rng;
use crate::core::time::SimTime;
use crate::net::classifier::{Classifier, ClassifierConfig};
use crate::net::link::Link;
use crate::net::topology::Network;

/// Random streams of this module (rng.rs), apart from scenario.rs's.
const STREAM_CLASSIFIER: u64 = 1 << 40;

fn d_lt() -> u32 {
    20
}
fn d_tc() -> Dur {
    Dur(SimTime::from_secs(10))
}
fn d_tu() -> Dur {
    Dur(SimTime::from_secs(1))
}
fn d_cls_max_flows() -> u32 {
    4096
}
fn d_lt_max() -> u32 {
    10_000
}

/// The edge classifier (classifier.rs): per-flow packet counts, In while count <= L_t.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassifierSpec {
    /// Initial L_t (packets), in [lt_min, lt_max].
    #[serde(default = "d_lt")]
    pub lt: u32,
    /// Target short-to-long ratio of active flows, above 0; absent: L_t stays fixed.
    #[serde(default)]
    pub slr: Option<f64>,
    /// Adjustment period T_c; above 0.
    #[serde(default = "d_tc")]
    pub tc: Dur,
    /// Idle time T_u after which a flow's entry is removed; above 0.
    #[serde(default = "d_tu")]
    pub tu: Dur,
    /// Flow-table capacity, 1..=2^28; when full, packets of new flows are tagged Out.
    /// Each table (~48 bytes per entry, allocated at once, one per link that has it) is
    /// charged to the run's memory estimate (scenario/costs.rs `classifier_bytes`).
    #[serde(default = "d_cls_max_flows")]
    pub max_flows: u32,
    /// Smallest L_t the adjustment may set, packets; 1..=lt_max.
    #[serde(default = "super::queue::d_one_u32")]
    pub lt_min: u32,
    /// Largest L_t the adjustment may set, packets; at most 2^20.
    #[serde(default = "d_lt_max")]
    pub lt_max: u32,
}

impl ClassifierSpec {
    /// Builds a classifier named `name` into `net` and returns its index.
    pub(super) fn add_to(&self, net: &mut Network, name: String, seed: u64, path: &str) -> Result<u32, String> {
        let id = net.classifiers.len() as u64;
        let mut rng = Rng::stream(seed, STREAM_CLASSIFIER + id);
        let cfg = ClassifierConfig {
            lt: self.lt,
            slr: self.slr,
            tc: self.tc.0,
            tu: self.tu.0,
            max_flows: self.max_flows,
            lt_min: self.lt_min,
            lt_max: self.lt_max,
            // a per-classifier secret, drawn from the run's seed
            key: [rng.next_u64(), rng.next_u64()],
        };
        let c = Classifier::new(name, cfg).map_err(|e| format!("{path}.{e}"))?;
        net.classifiers.push(c);
        Ok(id as u32)
    }
}

/// Sets classifier `c` on the links `ids` (one table shared by all: an edge router).
pub(super) fn attach(net: &mut Network, c: u32, ids: &[LinkId]) {
    for &l in ids {
        net.links[l as usize].classifier = Some(c);
    }
}

/// Gives link `link` (direction a -> b of a duplex link) its own classifier.
pub(super) fn own_classifier(
    net: &mut Network,
    link: &mut Link,
    spec: &ClassifierSpec,
    seed: u64,
    path: &str,
) -> Result<(), String> {
    let c = spec.add_to(net, format!("classifier@{}", link.name), seed, &format!("{path}.classifier"))?;
    link.classifier = Some(c);
    Ok(())
}
