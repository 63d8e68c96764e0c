//! The forwarding loop: frames read from the ports (AF_PACKET, packet(7)) cross the
//! links of their static route (link.rs: queue, serialiser, delay) and leave by the
//! route's port with their Ethernet addresses rewritten, at the time the last link
//! delivers them.
//!
//! One thread. It sleeps in ppoll(2) until a frame arrives or until `spin_ns` before
//! the next delivery, then busy-waits on CLOCK_MONOTONIC (sleep wake-ups are late by
//! tens of microseconds; the delay must hold to a few). Deliveries are handled in time
//! order across links, so a packet enters its next link at the exact time the previous
//! one delivered it; only the final send can be late, and that lateness is measured
//! (`lateness_ns` in the counters).

use crate::config::{parse_mac, Config, QueueCfg};
use crate::link::{ser_ns, Disc, Link, Ns};
use crate::red::{Red, RedParams};
use crate::sys::{self, PacketSocket};
use serde::Serialize;
use std::collections::HashMap;
use std::io;
use std::sync::atomic::Ordering;

const ETH_HLEN: usize = 14;
const ETHERTYPE_IPV4: [u8; 2] = [0x08, 0x00];
const MAX_FRAME: usize = 2048;
/// The most frames the router holds at once, waiting and on the links' delay lines
/// together: with frames of at most MAX_FRAME bytes and a slot each, under 600 MB at
/// worst. The kernel's send buffers bound what TCP can have in flight, but 256 flows of
/// 4 MB each could otherwise take a gigabyte; a frame past this bound is dropped on
/// arrival and counted (`router_full`). At 1 Gb/s it is 3 s of full-size frames, far
/// above any queue plus bandwidth-delay product the emulator is meant for.
pub const MAX_HELD_FRAMES: usize = 1 << 18;

/// A frame on its way: the route it follows and the link it is on.
#[derive(Debug)]
pub struct Pkt {
    frame: Vec<u8>,
    route: u32,
    hop: u32,
}

#[derive(Default, Serialize, Clone)]
struct PortStats {
    ifname: String,
    rx: u64,
    rx_bytes: u64,
    tx: u64,
    tx_bytes: u64,
    /// Frames the kernel refused to send.
    tx_errors: u64,
    /// Frames that are not IPv4 (ARP, IPv6 ...): not forwarded.
    not_ipv4: u64,
    /// IPv4 frames for an address the routes do not name.
    no_route: u64,
    /// Frames longer than MAX_FRAME (offloads left on): dropped.
    oversize: u64,
    /// Frames dropped on arrival because the router held MAX_HELD_FRAMES already.
    router_full: u64,
}

/// How late the final sends were against their delivery times.
#[derive(Default, Serialize)]
struct Lateness {
    count: u64,
    mean_ns: f64,
    max_ns: u64,
    /// Bounds (ns) and the count at or below each; the last counts the rest.
    hist_le_ns: Vec<u64>,
    hist: Vec<u64>,
    #[serde(skip)]
    sum: u128,
}

const HIST_LE: [u64; 8] = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 1_000_000];

impl Lateness {
    fn new() -> Lateness {
        Lateness { hist_le_ns: HIST_LE.to_vec(), hist: vec![0; HIST_LE.len() + 1], ..Default::default() }
    }
    fn add(&mut self, late: u64) {
        self.count += 1;
        self.sum += late as u128;
        self.max_ns = self.max_ns.max(late);
        let i = HIST_LE.iter().position(|&b| late <= b).unwrap_or(HIST_LE.len());
        self.hist[i] += 1;
    }
}

#[derive(Serialize)]
struct LinkOut {
    name: String,
    rate_bps: u64,
    delay_ns: u64,
    limit_pkts: u64,
    arrivals: u64,
    arrival_bytes: u64,
    drops: u64,
    drops_overflow: u64,
    drops_red_early: u64,
    drops_red_forced: u64,
    /// RED's average queue at the end (null for DropTail).
    red_avg: Option<f64>,
    departures: u64,
    departure_bytes: u64,
    max_pkts: u64,
    mean_pkts: f64,
    mean_bytes: f64,
    utilization: f64,
    queued_pkts: u64,
}

#[derive(Serialize)]
struct StatsOut {
    /// CLOCK_MONOTONIC ns at which the counters' window started (start, or SIGUSR1).
    window_start_ns: u64,
    window_s: f64,
    links: Vec<LinkOut>,
    ports: Vec<PortStats>,
    lateness_ns: Lateness,
    rx_wait_ns: Lateness,
    /// Waiting packets of the sampled links: time (s from window start), link name, packets.
    series_t_s: Vec<f64>,
    series_link: Vec<String>,
    series_pkts: Vec<u64>,
}

pub struct Router {
    cfg: Config,
    socks: Vec<PacketSocket>,
    macs: Vec<([u8; 6], [u8; 6])>,
    links: Vec<Link<Pkt>>,
    routes: HashMap<(usize, [u8; 4]), u32>,
    ports: Vec<PortStats>,
    late: Lateness,
    /// How long frames waited in the kernel before this thread read them (the kernel's
    /// receive stamp to the read): the time the arrival stamps take out of the delay.
    rx_wait: Lateness,
    next_sample: Ns,
    series: (Vec<f64>, Vec<String>, Vec<u64>),
}

impl Router {
    pub fn new(cfg: Config) -> io::Result<Router> {
        cfg.check().map_err(io::Error::other)?;
        let socks = cfg.ports.iter().map(|p| PacketSocket::open(&p.ifname)).collect::<io::Result<Vec<_>>>()?;
        let macs = cfg
            .ports
            .iter()
            .map(|p| Ok((parse_mac(&p.mac)?, parse_mac(&p.peer_mac)?)))
            .collect::<Result<Vec<_>, String>>()
            .map_err(io::Error::other)?;
        let now = sys::now_ns();
        let links = cfg
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let disc = match l.queue {
                    QueueCfg::DropTail => Disc::DropTail,
                    QueueCfg::Red { min_th, max_th, p_max, w_q, gentle, wait, mean_pkt_size } => {
                        let p = RedParams {
                            min_th,
                            max_th,
                            p_max,
                            w_q,
                            gentle,
                            wait,
                            idle_pkt_time_ns: ser_ns(mean_pkt_size, l.rate_bps).max(1),
                        };
                        Disc::Red(Box::new(Red::new(p, cfg.seed.wrapping_add(i as u64))))
                    }
                };
                Link::with_disc(l.rate_bps, l.delay_ns, l.limit_pkts, disc, now)
            })
            .collect();
        let routes = cfg.routes.iter().enumerate().map(|(i, r)| ((r.in_port, r.dst.octets()), i as u32)).collect();
        let ports = cfg.ports.iter().map(|p| PortStats { ifname: p.ifname.clone(), ..Default::default() }).collect();
        Ok(Router {
            next_sample: now,
            cfg,
            socks,
            macs,
            links,
            routes,
            ports,
            late: Lateness::new(),
            rx_wait: Lateness::new(),
            series: Default::default(),
        })
    }

    /// The route of an IPv4 frame that came in by `port`.
    fn classify(&mut self, port: usize, frame: &[u8]) -> Option<u32> {
        let st = &mut self.ports[port];
        if frame.len() < ETH_HLEN + 20 || frame[12..14] != ETHERTYPE_IPV4 {
            st.not_ipv4 += 1;
            return None;
        }
        let dst: [u8; 4] = frame[ETH_HLEN + 16..ETH_HLEN + 20].try_into().ok()?;
        let r = self.routes.get(&(port, dst)).copied();
        if r.is_none() {
            st.no_route += 1;
        }
        r
    }

    /// A packet enters link `hop` of its route at `t`; if the route has no links left
    /// it leaves now.
    fn forward(&mut self, pkt: Pkt, t: Ns) {
        let route = &self.cfg.routes[pkt.route as usize];
        match route.links.get(pkt.hop as usize) {
            Some(&l) => {
                let len = (pkt.frame.len() - ETH_HLEN) as u32; // IPv4 bytes, as the simulator counts
                self.links[l].enqueue(pkt, len, t);
            }
            None => self.send(pkt, t),
        }
    }

    fn send(&mut self, mut pkt: Pkt, due: Ns) {
        let out = self.cfg.routes[pkt.route as usize].out_port;
        let (mac, peer) = self.macs[out];
        pkt.frame[0..6].copy_from_slice(&peer);
        pkt.frame[6..12].copy_from_slice(&mac);
        // how late the send starts (the send itself runs the receiving host's stack
        // on this thread: veth_xmit -> netif_rx -> softirq on return)
        self.late.add(sys::now_ns().saturating_sub(due));
        let ok = self.socks[out].send(&pkt.frame);
        let st = &mut self.ports[out];
        if ok {
            st.tx += 1;
            st.tx_bytes += pkt.frame.len() as u64;
        } else {
            st.tx_errors += 1;
        }
    }

    fn receive_all(&mut self, buf: &mut [u8]) -> io::Result<()> {
        for p in 0..self.socks.len() {
            while let Some((n, stamp)) = self.socks[p].recv(buf)? {
                let now = stamp.map_or_else(sys::now_ns, sys::mono_of_realtime);
                self.rx_wait.add(sys::now_ns().saturating_sub(now));
                self.ports[p].rx += 1;
                self.ports[p].rx_bytes += n as u64;
                if n > buf.len() {
                    self.ports[p].oversize += 1;
                    continue;
                }
                if let Some(route) = self.classify(p, &buf[..n]) {
                    if self.links.iter().map(|l| l.on_link()).sum::<usize>() >= MAX_HELD_FRAMES {
                        self.ports[p].router_full += 1;
                        continue;
                    }
                    self.forward(Pkt { frame: buf[..n].to_vec(), route, hop: 0 }, now);
                }
            }
        }
        Ok(())
    }

    /// Every delivery due by `now`, in time order across links.
    fn deliver_due(&mut self, now: Ns) {
        loop {
            let next = self.links.iter().enumerate().filter_map(|(i, l)| l.next_deliver().map(|t| (t, i))).min();
            match next {
                Some((t, i)) if t <= now => {
                    let mut s = self.links[i].take(now).expect("due");
                    s.pkt.hop += 1;
                    self.forward(s.pkt, s.deliver.max(t));
                }
                _ => return,
            }
        }
    }

    fn sample(&mut self, now: Ns) {
        let iv = self.cfg.sample_interval_ns;
        while self.next_sample <= now {
            let t = self.next_sample;
            let w0 = self.links.first().map_or(t, |l| l.window_start());
            for &l in &self.cfg.sample_links {
                self.series.0.push((t - w0) as f64 / 1e9);
                self.series.1.push(self.cfg.links[l].name.clone());
                self.series.2.push(self.links[l].waiting(t));
            }
            self.next_sample = self.next_sample.saturating_add(iv);
        }
    }

    fn reset(&mut self, now: Ns) {
        for l in &mut self.links {
            l.reset(now);
        }
        for p in &mut self.ports {
            *p = PortStats { ifname: p.ifname.clone(), ..Default::default() };
        }
        self.late = Lateness::new();
        self.rx_wait = Lateness::new();
        self.series = Default::default();
        self.next_sample = now;
    }

    /// Runs until SIGINT or SIGTERM.
    pub fn run(&mut self) -> io::Result<()> {
        let mut buf = vec![0u8; MAX_FRAME];
        let mut fds: Vec<libc::pollfd> =
            self.socks.iter().map(|s| libc::pollfd { fd: s.fd, events: libc::POLLIN, revents: 0 }).collect();
        while !sys::STOP.load(Ordering::SeqCst) {
            if sys::RESET.swap(false, Ordering::SeqCst) {
                self.reset(sys::now_ns());
            }
            let now = sys::now_ns();
            self.deliver_due(now);
            self.receive_all(&mut buf)?;
            self.sample(now);
            let next = self.links.iter().filter_map(|l| l.next_deliver()).min();
            let until = next.map_or(self.next_sample, |n| n.min(self.next_sample));
            let now = sys::now_ns();
            if until > now.saturating_add(self.cfg.spin_ns) {
                sys::wait_readable(&mut fds, Some(until - now - self.cfg.spin_ns));
            } else {
                std::hint::spin_loop();
            }
        }
        Ok(())
    }

    /// The counters as JSON (written at exit).
    pub fn stats_json(&self) -> String {
        let now = sys::now_ns();
        let w0 = self.links.first().map_or(now, |l| l.window_start());
        let window = (now - w0) as f64;
        let links = self
            .links
            .iter()
            .zip(&self.cfg.links)
            .map(|(l, c)| {
                let s = l.stats_at(now);
                LinkOut {
                    name: c.name.clone(),
                    rate_bps: c.rate_bps,
                    delay_ns: c.delay_ns,
                    limit_pkts: c.limit_pkts,
                    arrivals: s.arrivals,
                    arrival_bytes: s.arrival_bytes,
                    drops: s.drops,
                    drops_overflow: s.drops_overflow,
                    drops_red_early: s.drops_red_early,
                    drops_red_forced: s.drops_red_forced,
                    red_avg: match &l.disc {
                        Disc::Red(r) => Some(r.avg),
                        Disc::DropTail => None,
                    },
                    departures: s.departures,
                    departure_bytes: s.departure_bytes,
                    max_pkts: s.max_pkts,
                    mean_pkts: s.wait_pkt_ns as f64 / window.max(1.0),
                    mean_bytes: s.wait_byte_ns as f64 / window.max(1.0),
                    utilization: s.busy_ns as f64 / window.max(1.0),
                    queued_pkts: l.waiting(now),
                }
            })
            .collect();
        let summary = |l: &Lateness| Lateness {
            count: l.count,
            mean_ns: if l.count > 0 { l.sum as f64 / l.count as f64 } else { 0.0 },
            max_ns: l.max_ns,
            hist_le_ns: l.hist_le_ns.clone(),
            hist: l.hist.clone(),
            sum: l.sum,
        };
        let out = StatsOut {
            window_start_ns: w0,
            window_s: window / 1e9,
            links,
            ports: self.ports.clone(),
            lateness_ns: summary(&self.late),
            rx_wait_ns: summary(&self.rx_wait),
            series_t_s: self.series.0.clone(),
            series_link: self.series.1.clone(),
            series_pkts: self.series.2.clone(),
        };
        serde_json::to_string(&out).expect("plain data")
    }
}
