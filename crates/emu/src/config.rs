//! The router's configuration: JSON written by `superpacket emulate`
//! (python/superpacket/emulate/), read once at start. Unknown fields are errors, and
//! so is every value past the bounds below: the file is input like any other, and the
//! router's arithmetic (u64 ns of CLOCK_MONOTONIC) must not wrap on it.

use serde::Deserialize;
use std::io::Read;
use std::net::Ipv4Addr;

/// The largest configuration file read (a real one is a few kB; /dev/zero is not one).
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;
/// The longest delay, sampling interval or any other duration: the simulator's limit on
/// one duration (10^7 s; crates/sim core/time.rs MAX_DURATION_NS). The monotonic clock
/// plus it stays far below u64::MAX ns.
pub const MAX_DURATION_NS: u64 = 10_000_000 * 1_000_000_000;
/// The longest busy-wait before a deadline.
pub const MAX_SPIN_NS: u64 = 1_000_000_000;

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
    /// Reads, parses and checks the file at `path`: at most MAX_CONFIG_BYTES are read.
    pub fn read(path: &str) -> Result<Config, String> {
        use std::os::unix::fs::FileTypeExt;
        // open(2) of a named pipe waits for a writer, without end
        let kind = std::fs::metadata(path).map_err(|e| format!("{path}: {e}"))?.file_type();
        if kind.is_fifo() || kind.is_socket() {
            return Err(format!("{path}: a named pipe or socket, not a router configuration"));
        }
        let f = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
        let mut bytes = Vec::new();
        f.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes).map_err(|e| format!("{path}: {e}"))?;
        if bytes.len() as u64 > MAX_CONFIG_BYTES {
            return Err(format!("{path}: larger than {} MiB: not a router configuration", MAX_CONFIG_BYTES >> 20));
        }
        let cfg: Config = serde_json::from_slice(&bytes).map_err(|e| format!("{path}: {e}"))?;
        cfg.check().map_err(|e| format!("{path}: {e}"))?;
        Ok(cfg)
    }

    /// Checks indices and values; one line naming the problem.
    pub fn check(&self) -> Result<(), String> {
        if self.ports.is_empty() {
            return Err("ports: at least one".into());
        }
        for (i, p) in self.ports.iter().enumerate() {
            parse_mac(&p.mac)?;
            parse_mac(&p.peer_mac)?;
            if p.ifname.is_empty() || p.ifname.len() >= libc::IFNAMSIZ || p.ifname.contains(['\0', '/']) {
                return Err(format!("ports[{i}].ifname: an interface name of 1 to {} bytes", libc::IFNAMSIZ - 1));
            }
        }
        for (i, l) in self.links.iter().enumerate() {
            if l.rate_bps == 0 {
                return Err(format!("links[{i}].rate_bps: above 0"));
            }
            if l.delay_ns > MAX_DURATION_NS {
                return Err(format!("links[{i}].delay_ns: at most {MAX_DURATION_NS} (10^7 s)"));
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
        let mut seen = vec![false; self.links.len()];
        for &l in &self.sample_links {
            if std::mem::replace(&mut seen[l], true) {
                return Err(format!("sample_links: link {l} twice"));
            }
        }
        if self.sample_interval_ns == 0 || self.sample_interval_ns > MAX_DURATION_NS {
            return Err(format!("sample_interval_ns: 1 to {MAX_DURATION_NS} (10^7 s)"));
        }
        if self.spin_ns > MAX_SPIN_NS {
            return Err(format!("spin_ns: at most {MAX_SPIN_NS} (1 s)"));
        }
        if !(0..=99).contains(&self.rt_priority) {
            return Err("rt_priority: 0 (the normal scheduler) to 99".into());
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

    const GOOD: &str = r#"{"ports":[{"ifname":"a","mac":"02:00:00:00:00:01","peer_mac":"02:00:00:00:00:02"}],
        "links":[{"name":"a->b","rate_bps":1,"delay_ns":0,"limit_pkts":1}],
        "routes":[{"in_port":0,"dst":"10.0.0.1","links":[0],"out_port":0}],
        "stats_path":"/dev/null","sample_links":[0]}"#;

    /// GOOD with `key` (a JSON path of object keys and array indices) set to `value`.
    fn with(key: &[&str], value: serde_json::Value) -> Result<(), String> {
        let mut v: serde_json::Value = serde_json::from_str(GOOD).unwrap();
        let mut at = &mut v;
        for k in &key[..key.len() - 1] {
            at = match k.parse::<usize>() {
                Ok(i) => &mut at[i],
                Err(_) => &mut at[*k],
            };
        }
        at[key[key.len() - 1]] = value;
        let c: Config = serde_json::from_value(v).map_err(|e| e.to_string())?;
        c.check()
    }

    #[test]
    fn values_past_the_bounds_are_refused_in_one_line() {
        use serde_json::json;
        assert_eq!(with(&["seed"], json!(7)), Ok(()));
        // each of these made the router's u64 ns arithmetic wrap (a delay or an interval
        // near u64::MAX), spin forever, or was silently ignored (rt_priority 1000)
        for (key, value, field) in [
            (&["links", "0", "delay_ns"][..], json!(u64::MAX), "links[0].delay_ns"),
            (&["links", "0", "delay_ns"], json!(MAX_DURATION_NS + 1), "links[0].delay_ns"),
            (&["links", "0", "rate_bps"], json!(0), "links[0].rate_bps"),
            (&["sample_interval_ns"], json!(u64::MAX), "sample_interval_ns"),
            (&["sample_interval_ns"], json!(0), "sample_interval_ns"),
            (&["spin_ns"], json!(u64::MAX), "spin_ns"),
            (&["rt_priority"], json!(1000), "rt_priority"),
            (&["rt_priority"], json!(-1), "rt_priority"),
            (&["sample_links"], json!([0, 0]), "sample_links"),
            (&["sample_links"], json!([1]), "sample_links"),
            (&["ports", "0", "ifname"], json!("a".repeat(16)), "ports[0].ifname"),
            (&["ports", "0", "ifname"], json!(""), "ports[0].ifname"),
            (&["ports", "0", "ifname"], json!("a\0b"), "ports[0].ifname"),
        ] {
            let e = with(key, value.clone()).unwrap_err();
            assert!(e.starts_with(field) && !e.contains('\n'), "{key:?} = {value}: {e}");
        }
        // types and signs are serde's: an error, never a panic
        assert!(with(&["links", "0", "delay_ns"], json!(-1)).is_err());
        assert!(with(&["links", "0", "rate_bps"], json!(1e30)).is_err());
    }

    #[test]
    fn reads_are_bounded() {
        // /dev/zero never ends: the read stops past the bound and says so
        let e = Config::read("/dev/zero").unwrap_err();
        assert!(e.contains("larger than 16 MiB"), "{e}");
        assert!(Config::read("/nonexistent/router.json").unwrap_err().starts_with("/nonexistent/router.json: "));
        let dir = std::env::temp_dir();
        assert!(Config::read(dir.to_str().unwrap()).is_err());
        // a named pipe: open(2) waited for a writer forever
        let fifo = dir.join(format!("superpacket-emu-test-{}.fifo", std::process::id()));
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: c is a valid C string
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = Config::read(fifo.to_str().unwrap());
        let _ = std::fs::remove_file(&fifo);
        assert!(e.unwrap_err().contains("named pipe"));
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
