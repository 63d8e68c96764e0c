//! What the datacenter kinds share (workload, incast; WORKLOADS.md): hosts selected by
//! node-name patterns, their reachability, an entry's time window and its flow bound.
//!
//! Host patterns select nodes by name only (in node insertion order), so they work on
//! any topology: `h*` every host of a leaf-spine or fat tree, `h3_*` a rack, `s*` a
//! dumbbell's senders.

use super::kind::TrafficCtx;
use crate::core::packet::NodeId;
use crate::core::time::SimTime;
use crate::scenario::common::Dur;

/// Flows one `workload` or `incast` entry may be expected to open over the run (the sum
/// over its hosts of rate x (stop - start), or rounds x servers): every flow stays in the
/// results' flow table, about 1 kB each, so 10^7 flows is ~10 GB.
pub const MAX_EXPECTED_FLOWS: f64 = 1e7;

/// Whether `name` matches `pat`, where `*` matches any run of characters (also none).
pub fn glob(pat: &str, name: &str) -> bool {
    let (p, n) = (pat.as_bytes(), name.as_bytes());
    let (mut i, mut j) = (0, 0);
    // the latest `*` seen and the name position it was tried at
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && p[i] == b'*' {
            star = Some((i, j));
            i += 1;
        } else if i < p.len() && p[i] == n[j] {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star {
            // let the star take one more character
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == b'*')
}

/// The nodes matching any of `patterns`, in node insertion order.
pub fn select(ctx: &TrafficCtx, patterns: &[String], path: &str) -> Result<Vec<NodeId>, String> {
    let net = ctx.net();
    if patterns.is_empty() {
        return Err(format!("{path}: give at least one node-name pattern (e.g. [\"h*\"])"));
    }
    for (j, pat) in patterns.iter().enumerate() {
        if !net.node_names().any(|n| glob(pat, n)) {
            let names: Vec<&str> = net.node_names().take(8).collect();
            return Err(format!(
                "{path}[{j}]: {pat:?} matches no node (nodes: {}{})",
                names.join(", "),
                if net.nodes.len() > 8 { ", ..." } else { "" }
            ));
        }
    }
    Ok((0..net.nodes.len() as NodeId)
        .filter(|&i| patterns.iter().any(|p| glob(p, &net.nodes[i as usize].name)))
        .collect())
}

/// Checks that every host reaches every other: links are full-duplex (scenario.rs builds
/// them in pairs), so hosts reached from the first reach each other both ways. One search
/// over the links, O(nodes + links), where a route per pair would cost a shortest-path
/// search each (the routes of the pairs used are computed when their first flow opens).
pub fn connected(ctx: &TrafficCtx, hosts: &[NodeId], path: &str) -> Result<(), String> {
    let net = ctx.net();
    let n = net.nodes.len();
    let mut next: Vec<Vec<NodeId>> = vec![Vec::new(); n];
    for l in &net.links {
        next[l.from as usize].push(l.to);
    }
    let mut seen = vec![false; n];
    let mut stack = vec![hosts[0]];
    seen[hosts[0] as usize] = true;
    while let Some(u) = stack.pop() {
        for &v in &next[u as usize] {
            if !seen[v as usize] {
                seen[v as usize] = true;
                stack.push(v);
            }
        }
    }
    match hosts.iter().find(|&&h| !seen[h as usize]) {
        None => Ok(()),
        Some(&h) => Err(format!(
            "{path}: no route from {:?} to {:?}",
            net.nodes[hosts[0] as usize].name, net.nodes[h as usize].name
        )),
    }
}

/// The window [start, stop) of an entry, checked; stop defaults to and is capped at the
/// end of the run.
pub fn window(start: Dur, stop: Option<Dur>, end: SimTime, path: &str) -> Result<(SimTime, SimTime), String> {
    let stop = stop.map_or(end, |s| s.0.min(end));
    if start.0 >= stop {
        return Err(format!(
            "{path}.start: must be before stop (or the end of the run) (got {}s, stop {}s)",
            start.0.as_secs_f64(),
            stop.as_secs_f64()
        ));
    }
    Ok((start.0, stop))
}
