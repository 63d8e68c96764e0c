//! A full-duplex link's table and the builder that adds nodes and links to the network,
//! charging each to the run's memory estimate.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::core::check::Validate;
use crate::core::memory::MemoryEstimate;
use crate::core::rng::Rng;
use crate::core::time::SimTime;
use crate::net::link::Link;
use crate::net::topology::Network;

use super::common::{Dur, Rate, STREAM_LINK_LOSS, STREAM_QUEUE};
use super::queue::{d_queue_json, QueueSpec};
use super::riops::ClassifierSpec;
use super::{costs, riops};

/// A full-duplex link: the same rate and delay both ways, a queue at each end.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Line rate of each direction.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Dur,
    /// Egress queue of each direction (default DropTail of 1000 packets).
    #[serde(default)]
    #[schemars(default = "d_queue_json")]
    pub queue: QueueSpec,
    /// Queue of the reverse direction (b -> a) when it differs.
    #[serde(default)]
    pub reverse_queue: Option<QueueSpec>,
    /// Independent random loss probability per packet, both directions, in [0, 1)
    /// (validation).
    #[serde(default)]
    pub loss: f64,
    /// Edge classifier on the a -> b direction, its own table (on a dumbbell's `access`:
    /// the sender links s{i} -> R1 only).
    #[serde(default)]
    pub classifier: Option<ClassifierSpec>,
}

/// The loss, then the queues (the reverse one's errors, like its warnings, at `queue`).
impl Validate for LinkSpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        if !(0.0..1.0).contains(&self.loss) {
            return Err(format!("{path}.loss: must be in [0, 1) (got {})", self.loss));
        }
        let qpath = format!("{path}.queue");
        self.queue.validate(&qpath)?;
        self.reverse_queue.validate(&qpath)
    }
}

pub(crate) struct Builder<'a> {
    pub(crate) net: &'a mut Network,
    pub(crate) seed: u64,
    /// The run's memory, charged before each table is allocated (memory.rs).
    pub(crate) mem: &'a mut MemoryEstimate,
    /// The run's duration (what a link's pipe may come to hold).
    pub(crate) duration: SimTime,
    /// Warnings about the links' settings, each once (`QueueSpec::warnings`).
    pub(crate) warnings: Vec<String>,
}

impl Builder<'_> {
    pub(crate) fn node(&mut self, name: &str) -> Result<u32, String> {
        self.net.add_node(name)
    }

    pub(crate) fn duplex(&mut self, a: &str, b: &str, spec: &LinkSpec, path: &str) -> Result<(), String> {
        // the ends are node names: checked against the built nodes
        let na = self.net.node(a).ok_or_else(|| format!("{path}.a: unknown node {a:?}"))?;
        let nb = self.net.node(b).ok_or_else(|| format!("{path}.b: unknown node {b:?}"))?;
        debug_assert_eq!(spec.validate(path), Ok(()));
        let qpath = format!("{path}.queue");
        for (x, y, q) in [(na, nb, &spec.queue), (nb, na, spec.reverse_queue.as_ref().unwrap_or(&spec.queue))] {
            self.mem.charge_at(&qpath, ".bloom_bits", q.prealloc_bytes())?;
            self.mem.charge_at(path, ".delay", costs::pipe_bytes(spec.rate.0, spec.delay.0, self.duration))?;
            if let (true, Some(c)) = (x == na, &spec.classifier) {
                self.mem.charge_at(path, ".classifier.max_flows", costs::classifier_bytes(c))?;
            }
            let id = self.net.links.len() as u64;
            let disc = q.build(spec.rate.0, Rng::stream(self.seed, STREAM_QUEUE + id), &qpath)?;
            for w in q.warnings(&qpath) {
                if !self.warnings.contains(&w) {
                    self.warnings.push(w);
                }
            }
            let name = format!("{}->{}", self.net.nodes[x as usize].name, self.net.nodes[y as usize].name);
            let mut link = Link::new(
                name,
                x,
                y,
                spec.rate.0,
                spec.delay.0,
                disc,
                spec.loss,
                Rng::stream(self.seed, STREAM_LINK_LOSS + id),
            );
            if let (true, Some(c)) = (x == na, &spec.classifier) {
                riops::own_classifier(self.net, &mut link, c, self.seed, path)?;
            }
            self.net.add_link(link);
        }
        Ok(())
    }
}
