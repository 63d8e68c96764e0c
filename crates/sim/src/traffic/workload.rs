//! Datacenter background traffic: Poisson flow arrivals per source host at a target load,
//! flow sizes from an empirical CDF (cdf.rs), destinations all-to-all or a permutation.
//!
//! Source: the conventions of /work/shared/WORKLOADS.md ("Conventions these papers
//! share", after DCTCP, pFabric, HPCC's traffic_gen): arrivals are Poisson per source
//! host; for a target load L of the host link rate C (bits/s) the rate is
//!     lambda = L x C / (8 x E[S])   flows per second,
//! E[S] the mean flow size in payload bytes, so that the offered payload is
//! lambda x E[S] x 8 = L x C bits/s (headers come on top: 40 B per 1,460 B segment,
//! +2.7 % on the wire); destinations are uniform over the other hosts.
//!
//! At each arrival the source draws, in this order, the flow size (inverse transform of
//! the CDF), the destination, then the gap to the next arrival (exponential, mean
//! 1 / lambda): one random stream per source host. Flows up to `short.max_bytes` bytes
//! (size <= max_bytes) use the short-flow TCP settings (e.g. super-packets for mice).
//!
//! Patterns: all-to-all (each flow to a host drawn uniformly among the other selected
//! hosts) or a permutation (a random derangement fixed for the run, drawn once per
//! traffic entry: every host sends to one other host and receives from one, never from
//! itself; uniform over derangements by rejection of Fisher-Yates shuffles with a fixed
//! point, e^-1 of them accepted on average).

use std::sync::Arc;

use super::cdf::FlowSizeCdf;
use super::spec::{FlowSource, FlowSpec};
use crate::core::packet::NodeId;
use crate::core::rng::Rng;
use crate::core::time::SimTime;
use crate::tcp::cc::CcConfig;
use crate::tcp::TcpParams;

/// Flows per second of one host for `load` of a `link_bps` link with mean flow size
/// `mean_bytes` (header formula).
pub fn rate_for_load(load: f64, link_bps: f64, mean_bytes: f64) -> f64 {
    load * link_bps / (8.0 * mean_bytes)
}

/// Where a source's flows go.
#[derive(Clone, Debug)]
pub enum Dest {
    /// Uniform over `hosts` except `hosts[me]` (the source itself).
    Others { hosts: Arc<[NodeId]>, me: usize },
    /// Always the same host (a permutation).
    Fixed(NodeId),
}

impl Dest {
    fn draw(&self, rng: &mut Rng) -> NodeId {
        match self {
            Dest::Others { hosts, me } => {
                // uniform on the n - 1 others: an index in 0..n-1, shifted past `me`
                let k = rng.range_u64(0, hosts.len() as u64 - 2) as usize;
                hosts[if k >= *me { k + 1 } else { k }]
            }
            Dest::Fixed(d) => *d,
        }
    }
}

/// TCP settings for the flows of at most `max_bytes` bytes.
#[derive(Clone, Debug)]
pub struct ShortTcp {
    pub max_bytes: u64,
    pub params: TcpParams,
    pub cc: CcConfig,
}

/// One source host of a workload.
#[derive(Clone, Debug)]
pub struct WorkloadSource {
    pub src: NodeId,
    pub dest: Dest,
    pub cdf: Arc<FlowSizeCdf>,
    /// Poisson arrival rate (flows/s).
    pub rate_per_s: f64,
    /// Arrivals from `start` (the first one exponential gap after it) until `stop`.
    pub start: SimTime,
    pub stop: SimTime,
    pub params: TcpParams,
    pub cc: CcConfig,
    pub short: Option<ShortTcp>,
    /// Flows opened and their payload bytes (offered load).
    pub flows: u64,
    pub bytes: u64,
}

impl WorkloadSource {
    /// `t` plus an exponential gap of mean 1 / rate (saturating: a gap past the clock is
    /// past `stop`).
    fn after(&self, t: SimTime, rng: &mut Rng) -> SimTime {
        let gap = SimTime::from_secs_f64(rng.exponential(1.0 / self.rate_per_s));
        SimTime(t.ns().saturating_add(gap.ns()))
    }
}

impl FlowSource for WorkloadSource {
    fn first_arrival(&mut self, rng: &mut Rng) -> Option<SimTime> {
        let t = self.after(self.start, rng);
        (t < self.stop).then_some(t)
    }

    /// The arrival at `now`: the flow to open and the next arrival time.
    fn fire(&mut self, now: SimTime, rng: &mut Rng) -> (Option<FlowSpec>, Option<SimTime>) {
        let size = self.cdf.sample(rng);
        let dst = self.dest.draw(rng);
        let (params, cc) = match &self.short {
            Some(s) if size <= s.max_bytes => (s.params, s.cc.clone()),
            _ => (self.params, self.cc.clone()),
        };
        self.flows += 1;
        self.bytes += size;
        let next = self.after(now, rng);
        (Some(FlowSpec { src: self.src, dst, params, cc, size }), (next < self.stop).then_some(next))
    }
}

/// A uniformly random derangement of 0..n (n >= 2): `p[i] != i` for every i.
pub fn derangement(n: usize, rng: &mut Rng) -> Vec<usize> {
    assert!(n >= 2, "a derangement needs at least 2 elements");
    loop {
        let mut p: Vec<usize> = (0..n).collect();
        // Fisher-Yates (Knuth, TAOCP vol. 2, 3.4.2, Algorithm P)
        for i in (1..n).rev() {
            let j = rng.range_u64(0, i as u64) as usize;
            p.swap(i, j);
        }
        if p.iter().enumerate().all(|(i, &d)| i != d) {
            return p;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(dest: Dest, cdf: &str, rate: f64, stop: SimTime) -> WorkloadSource {
        WorkloadSource {
            src: 0,
            dest,
            cdf: Arc::new(FlowSizeCdf::builtin(cdf).unwrap()),
            rate_per_s: rate,
            start: SimTime::ZERO,
            stop,
            params: TcpParams::default(),
            cc: CcConfig::default(),
            short: None,
            flows: 0,
            bytes: 0,
        }
    }

    fn run(s: &mut WorkloadSource, rng: &mut Rng) -> Vec<(SimTime, FlowSpec)> {
        let mut out = Vec::new();
        let mut t = s.first_arrival(rng);
        while let Some(now) = t {
            let (f, next) = s.fire(now, rng);
            out.push((now, f.unwrap()));
            t = next;
        }
        out
    }

    #[test]
    fn all_to_all_never_picks_the_source_and_is_uniform() {
        // 5 hosts, the source is hosts[2] = node 12: destinations 10, 11, 13, 14, each
        // with probability 1/4; 40,000 flows, sd of a count sqrt(n p (1-p)) = 87
        let hosts: Arc<[NodeId]> = Arc::from(vec![10, 11, 12, 13, 14]);
        let mut s = source(Dest::Others { hosts, me: 2 }, "fb_hadoop", 400.0, SimTime::from_secs(100));
        s.src = 12;
        let flows = run(&mut s, &mut Rng::new(1));
        let n = flows.len() as f64;
        // Poisson count: mean 40,000, sd 200
        assert!((n - 40_000.0).abs() < 5.0 * 200.0, "{n}");
        let mut count = [0u64; 5];
        for (_, f) in &flows {
            assert_eq!(f.src, 12);
            assert_ne!(f.dst, 12);
            count[(f.dst - 10) as usize] += 1;
        }
        assert_eq!(count[2], 0);
        for (i, &c) in count.iter().enumerate().filter(|&(i, _)| i != 2) {
            assert!((c as f64 - n / 4.0).abs() < 5.0 * (n * 0.25 * 0.75).sqrt(), "host {i}: {c} of {n}");
        }
    }

    #[test]
    fn offered_load_of_one_host_matches_the_target() {
        // lambda = L C / (8 E[S]): L = 0.4 of 10 Gbps, web search E[S] = 1,711,250 B ->
        // 292.2 flows/s; over 2,000 s about 584,000 flows. Relative sd of the offered
        // bytes of a compound Poisson sum: sqrt(E[S^2]) / (E[S] sqrt(n)) =
        // sqrt(1 + 2.318^2) / sqrt(584,000) = 0.33 %, so 2 % is 6 sd.
        let (load, c) = (0.4, 10e9);
        let cdf = FlowSizeCdf::builtin("web_search").unwrap();
        let rate = rate_for_load(load, c, cdf.mean());
        assert!((rate - 292.18).abs() < 0.01, "{rate}");
        let t = 2_000.0;
        let mut s = source(Dest::Fixed(1), "web_search", rate, SimTime::from_secs(t as u64));
        let flows = run(&mut s, &mut Rng::new(7));
        let offered: u64 = flows.iter().map(|(_, f)| f.size).sum();
        assert_eq!((s.bytes, s.flows), (offered, flows.len() as u64));
        let got = offered as f64 * 8.0 / (t * c);
        assert!((got / load - 1.0).abs() < 0.02, "offered load {got} vs {load}");
    }

    #[test]
    fn short_flows_take_the_short_tcp_settings() {
        let mut s = source(Dest::Fixed(1), "fb_hadoop", 1000.0, SimTime::from_secs(10));
        let short = TcpParams { init_cwnd: 64.0, ..TcpParams::default() };
        s.short = Some(ShortTcp { max_bytes: 1000, params: short, cc: CcConfig::default() });
        let flows = run(&mut s, &mut Rng::new(2));
        // Facebook Hadoop: P(S <= 1,000) = 0.60 (table row)
        let n_short = flows.iter().filter(|(_, f)| f.size <= 1000).count();
        assert!(n_short > flows.len() / 2 && n_short < flows.len() * 7 / 10, "{n_short} of {}", flows.len());
        for (_, f) in &flows {
            let want = if f.size <= 1000 { 64.0 } else { TcpParams::default().init_cwnd };
            assert_eq!(f.params.init_cwnd, want, "size {}", f.size);
        }
    }

    #[test]
    fn derangements_have_no_fixed_point_and_are_uniform() {
        let mut rng = Rng::new(3);
        for n in 2..40 {
            let p = derangement(n, &mut rng);
            let mut seen = vec![false; n];
            for (i, &d) in p.iter().enumerate() {
                assert_ne!(i, d);
                assert!(!seen[d], "not a permutation");
                seen[d] = true;
            }
        }
        // n = 3 has two derangements, (1 2 0) and (2 0 1): each half of the time
        let m = 20_000;
        let first = (0..m).filter(|_| derangement(3, &mut rng) == [1, 2, 0]).count() as f64;
        assert!((first - m as f64 / 2.0).abs() < 5.0 * (m as f64 / 4.0).sqrt(), "{first}");
        assert_eq!(derangement(2, &mut rng), [1, 0]);
    }
}
