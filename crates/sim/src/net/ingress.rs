//! Source validation at a router (ingress filtering): a packet whose source address does
//! not belong to the port it came in by is dropped and counted.
//!
//! Sources: P. Ferguson and D. Senie, "Network Ingress Filtering", BCP 38 (RFC 2827),
//! section 3; F. Baker and P. Savola, "Ingress Filtering for Multihomed Networks",
//! BCP 84 (RFC 3704), section 2.2 (strict reverse-path forwarding) and 2.3 (feasible
//! paths). Li, "Benefits and Practicality of Super-Packets" (UCB/EECS-2013-83),
//! section 3.1, asks for the "trusted environment" that makes super-packet state safe
//! from spoofed sources; this is the filter that makes it concrete.
//!
//! The rule (feasible-path reverse-path forwarding): source S is valid on the port
//! that joins neighbour x to node n when the link x -> n lies on a shortest path from
//! S to n, that is dist(S, x) + (delay, 1) = dist(S, n) in the (delay, hops) metric the
//! routes are chosen by (net/topology.rs). Every route this simulator builds is a
//! shortest path, so no packet of an honest sender is ever refused, with one route per
//! pair or with ECMP (any equal-cost predecessor is accepted); strict uRPF, which
//! accepts only the port of the router's own route back to S, would refuse honest
//! packets on fabrics with asymmetric tie-breaks. A source that is no node of the
//! network (a spoofed address) has no route and is refused everywhere.
//!
//! Cost: the sets are worked out when the scenario is built (one bit per node and
//! incoming port of each validating node); per packet, one bit test on the links that
//! leave a validating node (`Link::ingress_hook`), nothing elsewhere.

use std::collections::HashMap;

use crate::core::packet::{LinkId, NodeId};
use crate::net::topology::Network;

/// The valid sources of every port of the validating nodes: a bit per node, per link
/// into such a node.
#[derive(Clone, Debug, Default)]
pub struct SourceFilter {
    valid: HashMap<LinkId, Box<[u64]>>,
}

impl SourceFilter {
    /// Adds every port of `node`: each link into it gets the set of sources that may
    /// arrive by it; each link out of it gets its ingress hook.
    pub fn add_node(&mut self, net: &mut Network, node: NodeId) {
        let n_nodes = net.nodes.len();
        let into: Vec<LinkId> =
            net.links.iter().enumerate().filter(|(_, l)| l.to == node).map(|(i, _)| i as LinkId).collect();
        let to_n = net.distances_to(node);
        for lin in into {
            let x = net.links[lin as usize].from;
            let step = (net.links[lin as usize].delay.ns(), 1u32);
            let to_x = net.distances_to(x);
            let mut bits = vec![0u64; n_nodes.div_ceil(64)].into_boxed_slice();
            for s in 0..n_nodes {
                let (dx, dn) = (to_x[s], to_n[s]);
                if dx.0 != u64::MAX && dn.0 != u64::MAX && (dx.0.saturating_add(step.0), dx.1 + step.1) == dn {
                    bits[s / 64] |= 1 << (s % 64);
                }
            }
            self.valid.insert(lin, bits);
        }
        for l in net.links.iter_mut().filter(|l| l.from == node) {
            l.ingress_hook = true;
        }
    }

    /// Whether a packet from `src` that came in by link `lin` passes: true for a port of
    /// a node that does not validate, false for a source that is no node.
    #[inline]
    pub fn accepts(&self, lin: LinkId, src: NodeId) -> bool {
        match self.valid.get(&lin) {
            None => true,
            Some(bits) => {
                let s = src as usize;
                s / 64 < bits.len() && bits[s / 64] >> (s % 64) & 1 == 1
            }
        }
    }

    /// Whether any node validates sources.
    pub fn is_empty(&self) -> bool {
        self.valid.is_empty()
    }
}
