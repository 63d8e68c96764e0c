//! `[topology]`: the built-in shapes (dumbbell, star, chain, graph; the fabrics in
//! fabric.rs) and the node names each one makes.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::core::check::Validate;

use super::common::{tagged, Dur, Rate, MAX_HOSTS};
use super::links::{Builder, LinkSpec};
use super::queue::{d_queue_json, QueueSpec};
use super::riops::ClassifierSpec;
use super::{costs, fabric, riops};

/// The network. `kind` selects the shape; node names follow from it.
#[derive(Clone, Debug)]
pub enum TopologySpec {
    Dumbbell(DumbbellSpec),
    Star(StarSpec),
    Chain(ChainSpec),
    Graph(GraphSpec),
    /// A two-tier Clos fabric (scenario/fabric.rs).
    LeafSpine(Box<fabric::LeafSpineSpec>),
    /// A k-ary three-tier fat tree (scenario/fabric.rs).
    FatTree(Box<fabric::FatTreeSpec>),
}

/// Senders s0..s{pairs-1} -> R1 -> R2 -> receivers d0..d{pairs-1}.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    /// Sender-receiver pairs, 1..=100000 (MAX_HOSTS).
    pub pairs: u32,
    /// Every host link (s{i} <-> R1 and R2 <-> d{i}); its `classifier` goes on the sender
    /// links s{i} -> R1 only.
    pub access: LinkSpec,
    /// The R1 <-> R2 link.
    pub bottleneck: LinkSpec,
    /// One edge classifier (an edge router's table) on every sender link s{i} -> R1.
    #[serde(default)]
    pub edge_classifier: Option<ClassifierSpec>,
}

/// Senders s0..s{senders-1} -> R -> d (incast).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StarSpec {
    /// Senders, 1..=100000 (MAX_HOSTS).
    pub senders: u32,
    /// Each s{i} <-> R link.
    pub sender_link: LinkSpec,
    /// The R <-> d link (its R -> d queue is the incast bottleneck).
    pub receiver_link: LinkSpec,
}

/// Parking lot: routers R1..R{routers} in a line; with `host_link`, a host H{i} on each
/// router R{i}.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChainSpec {
    /// Routers in the line, 2..=100000 (MAX_HOSTS).
    pub routers: u32,
    /// Each R{i} <-> R{i+1} link.
    pub link: LinkSpec,
    /// With it, a host H{i} on each router R{i} over this link; absent: no hosts.
    #[serde(default)]
    pub host_link: Option<LinkSpec>,
}

/// Any graph: named nodes and full-duplex links between them.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    /// Node names, each unique; a name may not hold "->" (links are named "a->b").
    pub nodes: Vec<String>,
    /// Full-duplex links between named nodes.
    pub links: Vec<GraphLink>,
}

tagged!(TopologySpec, "topology kind", {
    "dumbbell" => Dumbbell(DumbbellSpec),
    "star" => Star(StarSpec),
    "chain" => Chain(ChainSpec),
    "graph" => Graph(GraphSpec),
    "leaf_spine" => LeafSpine(fabric::LeafSpineSpec),
    "fat_tree" => FatTree(fabric::FatTreeSpec),
});

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphLink {
    /// One end: a name of `nodes`.
    pub a: String,
    /// The other end: a name of `nodes`.
    pub b: String,
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
    /// Edge classifier on the a -> b direction, its own table.
    #[serde(default)]
    pub classifier: Option<ClassifierSpec>,
}

impl GraphLink {
    /// The link as a duplex link's table.
    fn spec(&self) -> LinkSpec {
        let l = self;
        LinkSpec {
            rate: l.rate,
            delay: l.delay,
            queue: l.queue.clone(),
            reverse_queue: l.reverse_queue.clone(),
            loss: l.loss,
            classifier: l.classifier.clone(),
        }
    }
}

/// The counts and every link's table, at `topology` (node names and the links' ends need
/// the nodes built: checked as they are added).
impl Validate for TopologySpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        match self {
            TopologySpec::Dumbbell(DumbbellSpec { pairs, access, bottleneck, .. }) => {
                if *pairs == 0 || *pairs > MAX_HOSTS {
                    return Err(format!("{path}.pairs: must be 1..{MAX_HOSTS} (got {pairs})"));
                }
                access.validate(&format!("{path}.access"))?;
                bottleneck.validate(&format!("{path}.bottleneck"))
            }
            TopologySpec::Star(StarSpec { senders, sender_link, receiver_link }) => {
                if *senders == 0 || *senders > MAX_HOSTS {
                    return Err(format!("{path}.senders: must be 1..{MAX_HOSTS} (got {senders})"));
                }
                sender_link.validate(&format!("{path}.sender_link"))?;
                receiver_link.validate(&format!("{path}.receiver_link"))
            }
            TopologySpec::Chain(ChainSpec { routers, link, host_link }) => {
                if *routers < 2 || *routers > MAX_HOSTS {
                    return Err(format!("{path}.routers: must be 2..{MAX_HOSTS} (got {routers})"));
                }
                link.validate(&format!("{path}.link"))?;
                host_link.validate(&format!("{path}.host_link"))
            }
            TopologySpec::Graph(GraphSpec { links, .. }) => {
                for (i, l) in links.iter().enumerate() {
                    l.spec().validate(&format!("{path}.links[{i}]"))?;
                }
                Ok(())
            }
            TopologySpec::LeafSpine(ls) => ls.validate(path),
            TopologySpec::FatTree(ft) => ft.validate(path),
        }
    }
}

impl TopologySpec {
    /// The topology phase: the nodes and links of the shape, each named, into `b`'s
    /// network (an edge classifier charged to the estimate first).
    pub(crate) fn build(&self, b: &mut Builder) -> Result<(), String> {
        let seed = b.seed;
        match self {
            TopologySpec::Dumbbell(DumbbellSpec { pairs, access, bottleneck, edge_classifier }) => {
                b.node("R1")?;
                b.node("R2")?;
                for i in 0..*pairs {
                    b.node(&format!("s{i}"))?;
                    b.node(&format!("d{i}"))?;
                }
                for i in 0..*pairs {
                    b.duplex(&format!("s{i}"), "R1", access, "topology.access")?;
                }
                b.duplex("R1", "R2", bottleneck, "topology.bottleneck")?;
                let rx_access = LinkSpec { classifier: None, ..access.clone() };
                for i in 0..*pairs {
                    b.duplex("R2", &format!("d{i}"), &rx_access, "topology.access")?;
                }
                if let Some(ec) = edge_classifier {
                    let path = "topology.edge_classifier";
                    b.mem.charge(&format!("{path}.max_flows"), costs::classifier_bytes(ec))?;
                    let c = ec.add_to(b.net, "edge@R1".into(), seed, path)?;
                    let ids: Vec<u32> = (0..*pairs).filter_map(|i| b.net.link_by_name(&format!("s{i}->R1"))).collect();
                    riops::attach(b.net, c, &ids);
                }
            }
            TopologySpec::Star(StarSpec { senders, sender_link, receiver_link }) => {
                b.node("R")?;
                b.node("d")?;
                for i in 0..*senders {
                    b.node(&format!("s{i}"))?;
                    b.duplex(&format!("s{i}"), "R", sender_link, "topology.sender_link")?;
                }
                b.duplex("R", "d", receiver_link, "topology.receiver_link")?;
            }
            TopologySpec::Chain(ChainSpec { routers, link, host_link }) => {
                for i in 1..=*routers {
                    b.node(&format!("R{i}"))?;
                }
                for i in 1..*routers {
                    b.duplex(&format!("R{i}"), &format!("R{}", i + 1), link, "topology.link")?;
                }
                if let Some(hl) = host_link {
                    for i in 1..=*routers {
                        b.node(&format!("H{i}"))?;
                        b.duplex(&format!("H{i}"), &format!("R{i}"), hl, "topology.host_link")?;
                    }
                }
            }
            TopologySpec::Graph(GraphSpec { nodes, links }) => {
                for (i, n) in nodes.iter().enumerate() {
                    // a name already taken: checked as the nodes are added
                    b.node(n).map_err(|e| format!("topology.nodes[{i}]: {e}"))?;
                }
                for (i, l) in links.iter().enumerate() {
                    b.duplex(&l.a, &l.b, &l.spec(), &format!("topology.links[{i}]"))?;
                }
            }
            TopologySpec::LeafSpine(ls) => fabric::build_leaf_spine(b, ls)?,
            TopologySpec::FatTree(ft) => fabric::build_fat_tree(b, ft)?,
        }
        Ok(())
    }
}
