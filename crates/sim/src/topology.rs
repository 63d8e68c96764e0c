//! Topologies: nodes, full-duplex links (two directed `Link`s), and shortest-path
//! source routes (Dijkstra on propagation delay, ties on hop count, then on node and
//! link insertion order, so routes are deterministic). Builders for the usual shapes
//! live in scenario.rs; this file is the graph.

use std::collections::{BinaryHeap, HashMap};

use crate::link::Link;
use crate::packet::{LinkId, NodeId};

#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
}

#[derive(Default)]
pub struct Network {
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    by_name: HashMap<String, NodeId>,
    /// Outgoing links per node, in insertion order.
    adj: Vec<Vec<LinkId>>,
    /// Edge classifiers (classifier.rs), referenced by `Link::classifier`; one may be
    /// shared by several links (an edge router's table).
    pub classifiers: Vec<crate::classifier::Classifier>,
}

impl Network {
    pub fn add_node(&mut self, name: &str) -> Result<NodeId, String> {
        if self.by_name.contains_key(name) {
            return Err(format!("duplicate node name {name:?}"));
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
        self.adj[link.from as usize].push(id);
        self.links.push(link);
        id
    }

    pub fn link_by_name(&self, name: &str) -> Option<LinkId> {
        self.links.iter().position(|l| l.name == name).map(|i| i as LinkId)
    }

    /// Shortest path from `src` to `dst` as a list of links.
    pub fn route(&self, src: NodeId, dst: NodeId) -> Option<Vec<LinkId>> {
        if src == dst {
            return None;
        }
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
            if u == dst {
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
        via[dst as usize]?;
        let mut path = Vec::new();
        let mut cur = dst;
        while cur != src {
            let l = via[cur as usize]?;
            path.push(l);
            if path.len() > n {
                return None; // not a tree (cannot happen with strict relaxation): no route
            }
            cur = self.links[l as usize].from;
        }
        path.reverse();
        Some(path)
    }
}
