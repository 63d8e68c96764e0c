//! Datacenter fabrics: `topology.kind = "leaf_spine"` and
//! `"fat_tree"`, with ECMP or per-packet spraying over their equal-cost paths
//! (topology.rs) and queue disciplines put on classes of ports. A child module of
//! scenario.rs (it shares its private helpers); scenario.rs only routes to it.
//!
//! Leaf-spine (a two-tier Clos): every leaf is linked to every spine; hosts hang off the
//! leaves. Oversubscription at a leaf = hosts_per_leaf x host rate / (spines x fabric
//! rate). Fat tree (Al-Fares, Loukissas, Vahdat, SIGCOMM 2008, section 3.2): k pods of
//! k/2 edge and k/2 aggregation switches, (k/2)^2 core switches, k/2 hosts per edge
//! switch, k^3/4 hosts; aggregation switch a of every pod links to cores a(k/2) ..
//! a(k/2) + k/2 - 1, so there are (k/2)^2 equal-cost paths between pods.
//!
//! Names, so a traffic entry can address a rack, a pod or every host with a pattern:
//! - leaf-spine: hosts `h{leaf}_{i}`, switches `leaf{l}`, `spine{s}`;
//! - fat tree: hosts `h{pod}_{edge}_{i}`, switches `edge{pod}_{e}`, `agg{pod}_{a}`,
//!   `core{c}`.
//!
//! ```toml
//! [topology]
//! kind = "leaf_spine"
//! leaves = 9; spines = 4; hosts_per_leaf = 16
//! host_link = { rate = "10Gbps", delay = "1us", queue = { kind = "droptail", limit = 500 } }
//! fabric_link = { rate = "40Gbps", delay = "1us", queue = { kind = "droptail", limit = 500 } }
//! routing = "ecmp"                 # or "spray", or "shortest"
//! [[topology.queues]]              # later entries win
//! ports = "all_switch_ports"       # host_nics, host_facing, leaf_uplinks, spine_downlinks,
//! queue = { kind = "red", ... }    # (fat tree) agg_uplinks, core_downlinks, agg_downlinks
//! ```

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::MAX_HOSTS;
use super::links::{Builder, LinkSpec};
use super::queue::QueueSpec;
use crate::core::check::Validate;
use crate::net::topology::Multipath;

/// Route choice among equal-cost paths.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoutingSpec {
    /// Per-flow ECMP: a seeded hash of the 5-tuple at every switch.
    #[default]
    Ecmp,
    /// Per-packet spraying over the pair's equal-cost paths (reorders).
    Spray,
    /// One shortest path per host pair (the other topologies' rule).
    Shortest,
}

impl From<RoutingSpec> for Multipath {
    fn from(r: RoutingSpec) -> Multipath {
        match r {
            RoutingSpec::Ecmp => Multipath::Ecmp,
            RoutingSpec::Spray => Multipath::Spray,
            RoutingSpec::Shortest => Multipath::Single,
        }
    }
}

/// A class of ports (egress queues) a `[[topology.queues]]` entry applies to.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PortClass {
    /// Every egress port of a switch (not the hosts' NICs).
    AllSwitchPorts,
    /// Host -> first switch: the hosts' own NIC queues.
    HostNics,
    /// First switch -> host (the leaf's or edge switch's host-facing ports).
    HostFacing,
    /// Leaf (or edge) -> the tier above.
    LeafUplinks,
    /// Spine -> leaf (leaf-spine only).
    SpineDownlinks,
    /// Aggregation -> core (fat tree only).
    AggUplinks,
    /// Aggregation -> edge (fat tree only).
    AggDownlinks,
    /// Core -> aggregation (fat tree only).
    CoreDownlinks,
}

/// `[[topology.queues]]`: a queue discipline on every port of a class.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PortQueues {
    /// The class of egress ports.
    pub ports: PortClass,
    /// The queue discipline every port of the class gets.
    pub queue: QueueSpec,
}

/// A two-tier Clos: every leaf linked to every spine, hosts `h{leaf}_{i}` on the leaves.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeafSpineSpec {
    /// Leaf switches, 1..=100000 (MAX_HOSTS).
    pub leaves: u32,
    /// Spine switches, 1..=100000 (MAX_HOSTS); leaves x spines (the fabric links) at most
    /// 100000.
    pub spines: u32,
    /// Hosts on each leaf, 1..=100000, leaves x hosts_per_leaf at most 100000 (MAX_HOSTS).
    pub hosts_per_leaf: u32,
    /// Host <-> leaf links (a `classifier` on it tags at the host's NIC, the edge).
    pub host_link: LinkSpec,
    /// Leaf <-> spine links.
    pub fabric_link: LinkSpec,
    /// Route choice among equal-cost paths.
    #[serde(default)]
    pub routing: RoutingSpec,
    /// Queue disciplines by port class, applied in order over the links' own `queue`.
    #[serde(default)]
    pub queues: Vec<PortQueues>,
}

/// A k-ary fat tree (Al-Fares, Loukissas, Vahdat, SIGCOMM 2008): k pods, (k/2)^2 cores,
/// k^3/4 hosts `h{pod}_{edge}_{i}`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FatTreeSpec {
    /// Switch radix k (even, >= 2): k pods, k^3/4 hosts.
    pub k: u32,
    /// Host <-> edge switch links (a `classifier` on it tags at the host's NIC).
    pub host_link: LinkSpec,
    /// Edge <-> aggregation and aggregation <-> core links.
    pub fabric_link: LinkSpec,
    /// Aggregation <-> core links when they differ from `fabric_link`.
    #[serde(default)]
    pub core_link: Option<LinkSpec>,
    /// Route choice among equal-cost paths.
    #[serde(default)]
    pub routing: RoutingSpec,
    /// Queue disciplines by port class, applied in order over the links' own `queue`.
    #[serde(default)]
    pub queues: Vec<PortQueues>,
}

/// The queue of each direction of one duplex link: the link's own, then every matching
/// `queues` entry in order (the last wins).
fn with_queues(spec: &LinkSpec, queues: &[PortQueues], up: PortClass, down: PortClass) -> LinkSpec {
    let (mut fwd, mut rev) = (spec.queue.clone(), spec.reverse_queue.clone().unwrap_or_else(|| spec.queue.clone()));
    for q in queues {
        let switch_port = |c: PortClass| c != PortClass::HostNics;
        if q.ports == up || (q.ports == PortClass::AllSwitchPorts && switch_port(up)) {
            fwd = q.queue.clone();
        }
        if q.ports == down || (q.ports == PortClass::AllSwitchPorts && switch_port(down)) {
            rev = q.queue.clone();
        }
    }
    LinkSpec { queue: fwd, reverse_queue: Some(rev), ..spec.clone() }
}

/// Each `queues[i]` names port classes of this fabric, and its queue is valid on its own
/// (checked under its own path here: merged into the links' queues, an error would name
/// the link's `queue` instead of the entry that made it).
fn check_classes(queues: &[PortQueues], allowed: &[PortClass], kind: &str, path: &str) -> Result<(), String> {
    for (i, q) in queues.iter().enumerate() {
        if q.ports != PortClass::AllSwitchPorts && !allowed.contains(&q.ports) {
            return Err(format!("{path}.queues[{i}].ports: {:?} is not a port class of a {kind}", q.ports));
        }
        // (not a queue that allocates tables when built, the super-packet router's: its
        // errors have always named the link it is merged into, checked there)
        if q.queue.prealloc_bytes() == 0.0 {
            q.queue.validate(&format!("{path}.queues[{i}].queue"))?;
        }
    }
    Ok(())
}

/// The counts, the `queues` entries, then each link's table with its merged queues (the
/// one every link of its class is built from).
impl Validate for LeafSpineSpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        let s = self;
        for (name, v) in [("leaves", s.leaves), ("spines", s.spines), ("hosts_per_leaf", s.hosts_per_leaf)] {
            if v == 0 || v > MAX_HOSTS {
                return Err(format!("{path}.{name}: must be 1..{MAX_HOSTS} (got {v})"));
            }
        }
        let hosts = s.leaves as u64 * s.hosts_per_leaf as u64;
        if hosts > MAX_HOSTS as u64 {
            return Err(format!(
                "{path}.hosts_per_leaf: {} leaves x {} hosts = {hosts} hosts, above {MAX_HOSTS}",
                s.leaves, s.hosts_per_leaf
            ));
        }
        let fabric_links = s.leaves as u64 * s.spines as u64;
        if fabric_links > MAX_HOSTS as u64 {
            return Err(format!(
                "{path}.spines: {} leaves x {} spines = {fabric_links} fabric links, above {MAX_HOSTS}",
                s.leaves, s.spines
            ));
        }
        use PortClass::*;
        check_classes(&s.queues, &[HostNics, HostFacing, LeafUplinks, SpineDownlinks], "leaf_spine", path)?;
        with_queues(&s.host_link, &s.queues, HostNics, HostFacing).validate(&format!("{path}.host_link"))?;
        with_queues(&s.fabric_link, &s.queues, LeafUplinks, SpineDownlinks).validate(&format!("{path}.fabric_link"))
    }
}

/// The radix, the `queues` entries, then each link's table with its merged queues.
impl Validate for FatTreeSpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        let s = self;
        let k = s.k;
        // k^3 in u64 wraps for k past 2^21: checked, so a radix of millions is refused here
        let hosts = (k as u64).checked_pow(3).map(|c| c / 4);
        if k < 2 || !k.is_multiple_of(2) || hosts.is_none_or(|h| h > MAX_HOSTS as u64) {
            return Err(format!("{path}.k: must be even, at least 2, with k^3/4 <= {MAX_HOSTS} hosts (got {k})"));
        }
        use PortClass::*;
        let allowed = [HostNics, HostFacing, LeafUplinks, AggDownlinks, AggUplinks, CoreDownlinks];
        check_classes(&s.queues, &allowed, "fat_tree", path)?;
        with_queues(&s.host_link, &s.queues, HostNics, HostFacing).validate(&format!("{path}.host_link"))?;
        with_queues(&s.fabric_link, &s.queues, LeafUplinks, AggDownlinks).validate(&format!("{path}.fabric_link"))?;
        let (core, core_path) = match &s.core_link {
            Some(c) => (c, format!("{path}.core_link")),
            None => (&s.fabric_link, format!("{path}.fabric_link")),
        };
        with_queues(core, &s.queues, AggUplinks, CoreDownlinks).validate(&core_path)
    }
}

pub(super) fn build_leaf_spine(b: &mut Builder, s: &LeafSpineSpec) -> Result<(), String> {
    use PortClass::*;
    for sp in 0..s.spines {
        b.node(&format!("spine{sp}"))?;
    }
    for l in 0..s.leaves {
        b.node(&format!("leaf{l}"))?;
    }
    for l in 0..s.leaves {
        for i in 0..s.hosts_per_leaf {
            b.node(&format!("h{l}_{i}"))?;
        }
    }
    let host = with_queues(&s.host_link, &s.queues, HostNics, HostFacing);
    let fabric = with_queues(&s.fabric_link, &s.queues, LeafUplinks, SpineDownlinks);
    for l in 0..s.leaves {
        for i in 0..s.hosts_per_leaf {
            b.duplex(&format!("h{l}_{i}"), &format!("leaf{l}"), &host, "topology.host_link")?;
        }
    }
    for l in 0..s.leaves {
        for sp in 0..s.spines {
            b.duplex(&format!("leaf{l}"), &format!("spine{sp}"), &fabric, "topology.fabric_link")?;
        }
    }
    b.net.multipath = s.routing.into();
    Ok(())
}

pub(super) fn build_fat_tree(b: &mut Builder, s: &FatTreeSpec) -> Result<(), String> {
    let k = s.k;
    use PortClass::*;
    let h = k / 2;
    for c in 0..h * h {
        b.node(&format!("core{c}"))?;
    }
    for p in 0..k {
        for a in 0..h {
            b.node(&format!("agg{p}_{a}"))?;
        }
        for e in 0..h {
            b.node(&format!("edge{p}_{e}"))?;
        }
    }
    for p in 0..k {
        for e in 0..h {
            for i in 0..h {
                b.node(&format!("h{p}_{e}_{i}"))?;
            }
        }
    }
    let host = with_queues(&s.host_link, &s.queues, HostNics, HostFacing);
    let lower = with_queues(&s.fabric_link, &s.queues, LeafUplinks, AggDownlinks);
    let upper = with_queues(s.core_link.as_ref().unwrap_or(&s.fabric_link), &s.queues, AggUplinks, CoreDownlinks);
    let core_path = if s.core_link.is_some() { "topology.core_link" } else { "topology.fabric_link" };
    for p in 0..k {
        for e in 0..h {
            for i in 0..h {
                b.duplex(&format!("h{p}_{e}_{i}"), &format!("edge{p}_{e}"), &host, "topology.host_link")?;
            }
        }
    }
    for p in 0..k {
        for e in 0..h {
            for a in 0..h {
                b.duplex(&format!("edge{p}_{e}"), &format!("agg{p}_{a}"), &lower, "topology.fabric_link")?;
            }
        }
    }
    for p in 0..k {
        for a in 0..h {
            for j in 0..h {
                b.duplex(&format!("agg{p}_{a}"), &format!("core{}", a * h + j), &upper, core_path)?;
            }
        }
    }
    b.net.multipath = s.routing.into();
    Ok(())
}
