//! Routes: every route's links in one array, the route of a host pair (cached), and
//! under ECMP the path a flow's or a source's 5-tuple hashes onto (net/topology.rs), with
//! the equal-cost set a sprayed packet draws from.

use super::{Sim, SPRAY_MAX_PATHS};
use crate::core::packet::{FlowId, LinkId, NodeId, RouteId};
use crate::net::topology::{FiveTuple, Multipath};

impl Sim {
    /// The precomputed route from `src` to `dst` (cached per pair).
    pub fn route_id(&mut self, src: NodeId, dst: NodeId) -> Result<RouteId, String> {
        if let Some(&r) = self.route_cache.get(&(src, dst)) {
            return Ok(r);
        }
        let path = self.net.route(src, dst).ok_or_else(|| {
            format!("no route from {:?} to {:?}", self.net.nodes[src as usize].name, self.net.nodes[dst as usize].name)
        })?;
        let id = self.routes.len() as RouteId;
        self.routes.push(&path);
        self.route_cache.insert((src, dst), id);
        Ok(id)
    }

    /// A path as a route id, interned: flows on the same path share it.
    pub(super) fn intern_path(&mut self, path: Vec<LinkId>) -> RouteId {
        let path = path.into_boxed_slice();
        if let Some(&r) = self.path_ids.get(&path) {
            return r;
        }
        let id = self.routes.len() as RouteId;
        self.routes.push(&path);
        self.path_ids.insert(path, id);
        id
    }

    /// The route of one direction of flow `f` under the network's multipath rule
    /// (topology.rs): the pair's shortest path, or the path ECMP hashes its 5-tuple onto
    /// (with spraying, that path is the flow's own and each packet draws among the pair's
    /// equal-cost paths, `spray_sets`).
    pub(super) fn flow_route(&mut self, f: FlowId, src: NodeId, dst: NodeId, forward: bool) -> Result<RouteId, String> {
        if self.net.multipath == Multipath::Single {
            return self.route_id(src, dst);
        }
        let (sport, dport) = (crate::net::trace::src_port(f), crate::net::trace::DST_PORT);
        let (sport, dport) = if forward { (sport, dport) } else { (dport, sport) };
        self.multipath_route(FiveTuple { src, dst, sport, dport, proto: 6 })
    }

    /// The route of one direction of the next non-TCP source (`add_source`) under the
    /// multipath rule: its UDP 5-tuple as the pcap traces write it (trace/mod.rs: the
    /// source's port to the discard port 9, reports back) hashed like a TCP flow's.
    pub fn source_route(&mut self, src: NodeId, dst: NodeId, forward: bool) -> Result<RouteId, String> {
        if self.net.multipath == Multipath::Single {
            return self.route_id(src, dst);
        }
        let (sport, dport) = (crate::net::trace::udp_port(self.sources.len() as u32), crate::net::trace::UDP_SINK_PORT);
        let (sport, dport) = if forward { (sport, dport) } else { (dport, sport) };
        self.multipath_route(FiveTuple { src, dst, sport, dport, proto: 17 })
    }

    pub(super) fn multipath_route(&mut self, t: FiveTuple) -> Result<RouteId, String> {
        let (src, dst) = (t.src, t.dst);
        let path = self.net.ecmp_route(&t, self.seed).ok_or_else(|| {
            format!("no route from {:?} to {:?}", self.net.nodes[src as usize].name, self.net.nodes[dst as usize].name)
        })?;
        let r = self.intern_path(path);
        if self.net.multipath == Multipath::Spray && !self.spray_sets.contains_key(&r) {
            let set: Vec<RouteId> =
                self.net.equal_cost_paths(src, dst, SPRAY_MAX_PATHS).into_iter().map(|p| self.intern_path(p)).collect();
            for &q in &set {
                self.spray_sets.insert(q, set.clone().into_boxed_slice());
            }
            self.spray_sets.entry(r).or_insert_with(|| set.into_boxed_slice());
        }
        Ok(r)
    }

    pub fn route(&self, r: RouteId) -> &[LinkId] {
        &self.routes[r as usize]
    }
}
