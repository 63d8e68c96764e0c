//! Topologies: nodes, full-duplex links (two directed `Link`s), and shortest-path
//! source routes (Dijkstra on propagation delay, ties on hop count, then on node and
//! link insertion order, so routes are deterministic). Builders for the usual shapes
//! live in scenario.rs and scenario_fabric.rs; this file is the graph.
//!
//! Multipath (datacenter fabrics): the equal-cost next hops of a node towards a
//! destination are its links onto a node whose (delay, hops) distance to the
//! destination is exactly one link less. ECMP (RFC 2992's hash-threshold idea, as
//! datacenter switches do it) picks among them by a seeded hash of the flow's 5-tuple at
//! every switch, each switch with its own salt so that choices at successive tiers are
//! independent; all packets of a flow hash alike and take one path. The path is worked
//! out once per flow and kept as a source route, so the per-packet cost does not depend
//! on the fabric's size.

use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use crate::core::packet::{LinkId, NodeId};
use crate::net::link::Link;

#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
}

/// How a flow's route is chosen among equal-cost paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Multipath {
    /// One shortest path per (source, destination) pair: ties on hop count, then node
    /// and link insertion order.
    #[default]
    Single,
    /// Per-flow ECMP: a seeded hash of the 5-tuple at every switch.
    Ecmp,
    /// Per-packet spraying: each packet takes one of the pair's equal-cost paths drawn
    /// uniformly at random (on the symmetric fabrics built here, the same as an
    /// independent uniform choice at every switch); a source of reordering.
    Spray,
}

/// The 5-tuple of a flow's direction, as ECMP hashes it (protocol 6 = TCP).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FiveTuple {
    pub src: NodeId,
    pub dst: NodeId,
    pub sport: u16,
    pub dport: u16,
    pub proto: u8,
}

/// splitmix64's finaliser (Steele, Lea, Flood, OOPSLA 2014): a bijective mix with full
/// avalanche, enough for spreading flows over a handful of next hops.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FiveTuple {
    /// The hash switch `node` computes over this tuple, salted by the run's seed.
    pub fn hash_at(&self, seed: u64, node: NodeId) -> u64 {
        let a = (self.src as u64) << 32 | self.dst as u64;
        let b = (self.sport as u64) << 24 | (self.dport as u64) << 8 | self.proto as u64;
        mix64(mix64(mix64(seed ^ 0x9e37_79b9_7f4a_7c15 ^ node as u64) ^ a) ^ b)
    }
}

/// Distances to one destination, (delay in ns, hops) per node; `u64::MAX` unreachable.
type DistVec = Arc<Vec<(u64, u32)>>;

#[derive(Default)]
pub struct Network {
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    by_name: HashMap<String, NodeId>,
    /// Outgoing links per node, in insertion order.
    adj: Vec<Vec<LinkId>>,
    /// Edge classifiers (classifier.rs), referenced by `Link::classifier`; one may be
    /// shared by several links (an edge router's table).
    pub classifiers: Vec<crate::net::classifier::Classifier>,
    /// Route choice among equal-cost paths (fabrics default to ECMP).
    pub multipath: Multipath,
    /// Distances to each destination asked for so far (multipath routing), and the
    /// incoming links per node they are computed over; both dropped when a link is added.
    dist_cache: HashMap<NodeId, DistVec>,
    into: Vec<Vec<LinkId>>,
    /// Whole shortest-path trees from the far ends of single-link nodes (`route`), each
    /// node's `via` link; dropped when a link is added.
    /// None where the delays could saturate a sum (the offset argument fails).
    trees: HashMap<NodeId, Option<Arc<Vec<Option<LinkId>>>>>,
}

impl Network {
    pub fn add_node(&mut self, name: &str) -> Result<NodeId, String> {
        if self.by_name.contains_key(name) {
            return Err(format!("duplicate node name {name:?}"));
        }
        if name.contains("->") {
            // a link is named "a->b": "a->b" as a node would make link names ambiguous
            return Err(format!("node name {name:?} holds \"->\", which joins node names into link names"));
        }
        let id = self.nodes.len() as NodeId;
        self.nodes.push(Node { name: name.to_string() });
        self.by_name.insert(name.to_string(), id);
        self.adj.push(Vec::new());
        Ok(id)
    }

    pub fn node(&self, name: &str) -> Option<NodeId> {
        self.by_name.get(name).copied()
    }

    pub fn node_names(&self) -> impl Iterator<Item = &str> {
        self.nodes.iter().map(|n| n.name.as_str())
    }

    /// Adds one directed link (its `from`/`to` must be existing nodes).
    pub fn add_link(&mut self, link: Link) -> LinkId {
        let id = self.links.len() as LinkId;
        self.dist_cache.clear();
        self.into.clear();
        self.trees.clear();
        self.adj[link.from as usize].push(id);
        self.links.push(link);
        id
    }

    pub fn link_by_name(&self, name: &str) -> Option<LinkId> {
        self.links.iter().position(|l| l.name == name).map(|i| i as LinkId)
    }

    /// A link by its name ("R->d") or the form its pcap file takes ("R-to-d",
    /// net/trace/), as every field that names a link accepts it.
    pub fn link_by_any_name(&self, name: &str) -> Option<LinkId> {
        self.link_by_name(name).or_else(|| {
            self.links.iter().position(|l| crate::net::trace::file_stem(&l.name) == name).map(|i| i as LinkId)
        })
    }

    /// Shortest path from `src` to `dst` as a list of links: least delay, then fewest
    /// hops, ties to the first relaxed (Dijkstra over (delay, hops, node) keys).
    ///
    /// A node with one way out (a host's NIC) takes its link, then the path from the far
    /// end `to` in the whole shortest-path tree from `to`, computed once for every such
    /// node behind it. It is the path the search from `src` finds: that search pops
    /// `src`, relaxes its one link, then runs as the search from `to` with every key
    /// offset by the same (delay, 1), so with no sum near the clock's end (checked) it
    /// pops the same nodes in the same order and sets the same `via`; `src`, reached
    /// back from `to`, relaxes only the settled `to`. A settled node's `via` never
    /// changes, so the whole tree holds what a search stopping at `dst` returns.
    pub fn route(&mut self, src: NodeId, dst: NodeId) -> Option<Vec<LinkId>> {
        if src == dst {
            return None;
        }
        if let &[first] = &self.adj[src as usize][..] {
            let to = self.links[first as usize].to;
            if to == dst {
                return Some(vec![first]);
            }
            if let Some(via) = self.tree_from(to) {
                let mut path = Vec::new();
                let mut cur = dst;
                while cur != to {
                    let l = via[cur as usize]?;
                    path.push(l);
                    if path.len() > self.nodes.len() {
                        return None; // not a tree (cannot happen with strict relaxation)
                    }
                    cur = self.links[l as usize].from;
                }
                path.push(first);
                path.reverse();
                return Some(path);
            }
        }
        self.search(src, dst, Some(dst)).1
    }

    /// Whether every link's delay summed fits the clock: then no path's delay, offset or
    /// not, saturates.
    fn delays_fit(&self) -> bool {
        self.links.iter().try_fold(0u64, |a, l| a.checked_add(l.delay.ns())).is_some()
    }

    /// The whole shortest-path tree from `root` (each node's `via` link), cached; None
    /// where the delays do not fit (`delays_fit`).
    fn tree_from(&mut self, root: NodeId) -> Option<Arc<Vec<Option<LinkId>>>> {
        if let Some(t) = self.trees.get(&root) {
            return t.clone();
        }
        let t = self.delays_fit().then(|| Arc::new(self.search(root, root, None).0));
        self.trees.insert(root, t.clone());
        t
    }

    /// Dijkstra from `src` over (delay, hops, node) keys, stopping when `stop` is settled:
    /// each node's `via` link, and the path to `stop`.
    fn search(&self, src: NodeId, dst: NodeId, stop: Option<NodeId>) -> (Vec<Option<LinkId>>, Option<Vec<LinkId>>) {
        let n = self.nodes.len();
        let mut dist = vec![(u64::MAX, u32::MAX); n];
        let mut via: Vec<Option<LinkId>> = vec![None; n];
        let mut heap = BinaryHeap::new();
        dist[src as usize] = (0, 0);
        heap.push(std::cmp::Reverse((0u64, 0u32, src)));
        while let Some(std::cmp::Reverse((d, h, u))) = heap.pop() {
            if (d, h) > dist[u as usize] {
                continue;
            }
            if Some(u) == stop {
                break;
            }
            for &l in &self.adj[u as usize] {
                let link = &self.links[l as usize];
                // saturating: a path whose delay passes the clock compares as the longest,
                // never wraps to a short one (a wrapped sum made cycles of `via`)
                let nd = (d.saturating_add(link.delay.ns()), h + 1);
                let v = link.to as usize;
                if nd < dist[v] {
                    dist[v] = nd;
                    via[v] = Some(l);
                    heap.push(std::cmp::Reverse((nd.0, nd.1, link.to)));
                }
            }
        }
        if stop.is_none() || via[dst as usize].is_none() {
            return (via, None);
        }
        let mut path = Vec::new();
        let mut cur = dst;
        while cur != src {
            let Some(l) = via[cur as usize] else { return (via, None) };
            path.push(l);
            if path.len() > n {
                return (via, None); // not a tree (cannot happen with strict relaxation): no route
            }
            cur = self.links[l as usize].from;
        }
        path.reverse();
        (via, Some(path))
    }

    /// (delay, hops) from every node to `dst`, `u64::MAX` delay where unreachable (the
    /// metric routes are chosen by).
    pub fn distances_to(&mut self, dst: NodeId) -> DistVec {
        self.dist_to(dst)
    }

    /// (delay, hops) from every node to `dst` (Dijkstra on the reversed links), cached.
    fn dist_to(&mut self, dst: NodeId) -> DistVec {
        if let Some(d) = self.dist_cache.get(&dst) {
            return d.clone();
        }
        let n = self.nodes.len();
        if self.into.len() != n {
            self.into = vec![Vec::new(); n];
            for (i, l) in self.links.iter().enumerate() {
                self.into[l.to as usize].push(i as LinkId);
            }
        }
        let into = &self.into;
        let mut dist = vec![(u64::MAX, u32::MAX); n];
        let mut heap = BinaryHeap::new();
        dist[dst as usize] = (0, 0);
        heap.push(std::cmp::Reverse((0u64, 0u32, dst)));
        while let Some(std::cmp::Reverse((d, h, v))) = heap.pop() {
            if (d, h) > dist[v as usize] {
                continue;
            }
            for &l in &into[v as usize] {
                let link = &self.links[l as usize];
                let nd = (d.saturating_add(link.delay.ns()), h + 1);
                let u = link.from as usize;
                if nd < dist[u] {
                    dist[u] = nd;
                    heap.push(std::cmp::Reverse((nd.0, nd.1, link.from)));
                }
            }
        }
        let d = Arc::new(dist);
        self.dist_cache.insert(dst, d.clone());
        d
    }

    /// The equal-cost next hops of `u` towards the destination `dist` measures: links out
    /// of `u` onto a node exactly one link nearer, in insertion order.
    fn next_hops<'a>(&'a self, u: NodeId, dist: &'a [(u64, u32)]) -> impl Iterator<Item = LinkId> + 'a {
        let du = dist[u as usize];
        self.adj[u as usize].iter().copied().filter(move |&l| {
            let link = &self.links[l as usize];
            let dv = dist[link.to as usize];
            dv.0 != u64::MAX && dv.0.saturating_add(link.delay.ns()) == du.0 && dv.1 + 1 == du.1
        })
    }

    /// The ECMP route of a flow direction: at every node, the next hop the hash of its
    /// 5-tuple picks among the equal-cost ones (hash mod their count).
    pub fn ecmp_route(&mut self, t: &FiveTuple, seed: u64) -> Option<Vec<LinkId>> {
        if t.src == t.dst {
            return None;
        }
        let dist = self.dist_to(t.dst);
        if dist[t.src as usize].0 == u64::MAX {
            return None;
        }
        let mut path = Vec::new();
        let mut u = t.src;
        while u != t.dst {
            let hops: Vec<LinkId> = self.next_hops(u, &dist).collect();
            let l = match hops.len() {
                0 => return None,
                1 => hops[0],
                n => hops[(t.hash_at(seed, u) % n as u64) as usize],
            };
            path.push(l);
            u = self.links[l as usize].to;
        }
        Some(path)
    }

    /// Every equal-cost path from `src` to `dst`, depth first in link insertion order, at
    /// most `cap` of them (spraying draws among these).
    pub fn equal_cost_paths(&mut self, src: NodeId, dst: NodeId, cap: usize) -> Vec<Vec<LinkId>> {
        let mut out = Vec::new();
        if src == dst {
            return out;
        }
        let dist = self.dist_to(dst);
        if dist[src as usize].0 == u64::MAX {
            return out;
        }
        let mut path = Vec::new();
        self.paths_from(src, dst, &dist, &mut path, &mut out, cap);
        out
    }

    fn paths_from(
        &self,
        u: NodeId,
        dst: NodeId,
        dist: &[(u64, u32)],
        path: &mut Vec<LinkId>,
        out: &mut Vec<Vec<LinkId>>,
        cap: usize,
    ) {
        if u == dst {
            out.push(path.clone());
            return;
        }
        for l in self.next_hops(u, dist).collect::<Vec<_>>() {
            if out.len() >= cap {
                return;
            }
            path.push(l);
            self.paths_from(self.links[l as usize].to, dst, dist, path, out, cap);
            path.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::rng::Rng;
    use crate::core::time::{BitsPerSec, SimTime};
    use crate::net::queue::droptail::DropTail;
    use crate::net::queue::Unit;

    fn link(net: &mut Network, a: NodeId, b: NodeId, delay_us: u64) {
        let name = format!("{a}->{b}");
        let disc = Box::new(DropTail::new(10, Unit::Packets));
        let l = Link::new(name, a, b, BitsPerSec(1_000_000_000), SimTime::from_us(delay_us), disc, 0.0, Rng::new(1));
        net.add_link(l);
    }

    /// The route of a single-link node, taken from the far end's whole tree, is the path
    /// the search from the node itself finds, on meshes with equal-delay ties, zero
    /// delays and parallel links (random, seeded): every ordered pair of nodes, hosts
    /// and routers alike.
    #[test]
    fn routes_from_trees_are_the_search_paths() {
        let mut rng = Rng::new(7);
        for _ in 0..40 {
            let mut net = Network::default();
            let routers = 2 + (rng.uniform() * 6.0) as u32;
            let hosts = 1 + (rng.uniform() * 12.0) as u32;
            for i in 0..routers + hosts {
                net.add_node(&format!("n{i}")).unwrap();
            }
            let delay = |rng: &mut Rng| [0, 1, 1, 2, 5][(rng.uniform() * 5.0) as usize];
            for a in 0..routers {
                for b in 0..routers {
                    // sometimes two links a -> b: ties between them go to the first added
                    while a != b && rng.uniform() < 0.6 {
                        let d = delay(&mut rng);
                        link(&mut net, a, b, d);
                    }
                }
            }
            for h in routers..routers + hosts {
                let r = (rng.uniform() * routers as f64) as u32;
                let (up, down) = (delay(&mut rng), delay(&mut rng));
                link(&mut net, h, r, up);
                link(&mut net, r, h, down);
            }
            let n = (routers + hosts) as NodeId;
            for src in 0..n {
                for dst in 0..n {
                    let want = if src == dst { None } else { net.search(src, dst, Some(dst)).1 };
                    assert_eq!(net.route(src, dst), want, "{src} -> {dst}");
                }
            }
        }
    }
}
