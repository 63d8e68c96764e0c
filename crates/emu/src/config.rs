//! The router's configuration: JSON written by `superpacket emulate`
//! (python/superpacket/emulate/), read once at start. Unknown fields are errors.

use serde::Deserialize;
use std::net::Ipv4Addr;

/// One interface of the router: a veth end whose peer is a host's interface.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortCfg {
    pub ifname: String,
    /// The router end's MAC (the source of the frames it sends out of this port).
    pub mac: String,
    /// The host's MAC at the other end (the destination of those frames).
    pub peer_mac: String,
}

/// One direction of a link of the scenario.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkCfg {
    /// `a->b`, as the simulator names it.
    pub name: String,
    pub rate_bps: u64,
    pub delay_ns: u64,
    /// Queue capacity, packets waiting (the one being serialised not counted).
    pub limit_pkts: u64,
    #[serde(default)]
    pub queue: QueueCfg,
}

/// The queue discipline of a link (`kind`): DropTail, or RED with the simulator's
/// parameters (red.rs; packet mode, no ECN).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum QueueCfg {
    #[default]
    DropTail,
    Red {
        min_th: f64,
        max_th: f64,
        p_max: f64,
        w_q: f64,
        gentle: bool,
        wait: bool,
        mean_pkt_size: u32,
    },
}

/// A static route: IPv4 packets entering by `in_port` for `dst` cross `links` in order
/// and leave by `out_port`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteCfg {
    pub in_port: usize,
    pub dst: Ipv4Addr,
    pub links: Vec<usize>,
    pub out_port: usize,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub ports: Vec<PortCfg>,
    pub links: Vec<LinkCfg>,
    pub routes: Vec<RouteCfg>,
    /// Where the counters are written at exit (JSON).
    pub stats_path: String,
    /// Links whose waiting packets are sampled every `sample_interval_ns`.
    #[serde(default)]
    pub sample_links: Vec<usize>,
    #[serde(default = "d_interval")]
    pub sample_interval_ns: u64,
    /// Busy-wait this long before a deadline instead of sleeping (timer wake-ups are
    /// late by tens of microseconds on a loaded machine).
    #[serde(default = "d_spin")]
    pub spin_ns: u64,
    /// Seed of RED's early-drop coins (each link's stream is seeded with seed + its index).
    #[serde(default = "d_seed")]
    pub seed: u64,
    /// SCHED_FIFO priority (1..=99; 0: the normal scheduler). Default 50.
    #[serde(default = "d_rt")]
    pub rt_priority: i32,
}

fn d_seed() -> u64 {
    1
}
fn d_rt() -> i32 {
    50
}

fn d_interval() -> u64 {
    10_000_000
}
fn d_spin() -> u64 {
    10_000
}

/// Parses "02:00:00:00:00:01".
pub fn parse_mac(s: &str) -> Result<[u8; 6], String> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() != 6 {
        return Err(format!("not a MAC address: {s:?}"));
    }
    let mut m = [0u8; 6];
    for (i, p) in parts.iter().enumerate() {
        m[i] = u8::from_str_radix(p, 16).map_err(|_| format!("not a MAC address: {s:?}"))?;
    }
    Ok(m)
}

impl Config {
    /// Checks indices and values; one line naming the problem.
    pub fn check(&self) -> Result<(), String> {
        if self.ports.is_empty() {
            return Err("ports: at least one".into());
        }
        for p in &self.ports {
            parse_mac(&p.mac)?;
            parse_mac(&p.peer_mac)?;
        }
        for (i, l) in self.links.iter().enumerate() {
            if l.rate_bps == 0 {
                return Err(format!("links[{i}].rate_bps: above 0"));
            }
            if let QueueCfg::Red { min_th, max_th, p_max, w_q, mean_pkt_size, .. } = l.queue {
                let unit = |x: f64| x.is_finite() && x > 0.0 && x <= 1.0;
                if !(min_th.is_finite() && min_th >= 0.0 && max_th.is_finite() && max_th > min_th) {
                    return Err(format!("links[{i}].queue: 0 <= min_th < max_th"));
                }
                if !unit(p_max) || !unit(w_q) || mean_pkt_size == 0 {
                    return Err(format!("links[{i}].queue: p_max and w_q in (0, 1], mean_pkt_size above 0"));
                }
            }
        }
        for (i, r) in self.routes.iter().enumerate() {
            if r.in_port >= self.ports.len() || r.out_port >= self.ports.len() {
                return Err(format!("routes[{i}]: a port index beyond ports"));
            }
            if let Some(&l) = r.links.iter().find(|&&l| l >= self.links.len()) {
                return Err(format!("routes[{i}]: link {l} beyond links"));
            }
        }
        if let Some(&l) = self.sample_links.iter().find(|&&l| l >= self.links.len()) {
            return Err(format!("sample_links: link {l} beyond links"));
        }
        if self.sample_interval_ns == 0 {
            return Err("sample_interval_ns: above 0".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macs() {
        assert_eq!(parse_mac("02:00:0a:ff:00:01").unwrap(), [2, 0, 10, 255, 0, 1]);
        assert!(parse_mac("02:00:0a:ff:00").is_err());
        assert!(parse_mac("02:00:0a:ff:00:zz").is_err());
    }

    #[test]
    fn bad_indices_are_refused() {
        let j = r#"{"ports":[{"ifname":"a","mac":"02:00:00:00:00:01","peer_mac":"02:00:00:00:00:02"}],
                    "links":[{"name":"a->b","rate_bps":1,"delay_ns":0,"limit_pkts":1}],
                    "routes":[{"in_port":0,"dst":"10.0.0.1","links":[1],"out_port":0}],
                    "stats_path":"/dev/null"}"#;
        let c: Config = serde_json::from_str(j).unwrap();
        assert_eq!(c.check().unwrap_err(), "routes[0]: link 1 beyond links");
    }
}
