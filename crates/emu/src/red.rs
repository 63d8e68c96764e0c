//! RED, Random Early Detection, at the router's egress: the decision alone; link.rs
//! applies it.
//!
//! Source: S. Floyd and V. Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", IEEE/ACM ToN 1(4), 1993, Fig. 2, with ns-2's `gentle_` and `wait_`
//! options, the same algorithm as the simulator's queue/red.rs (packet mode, no ECN):
//!
//! ```text
//! per arrival, q = packets waiting (the one being serialised not counted):
//!   if the queue is empty: avg <- (1 - w_q)^m avg, m = floor(idle / idle_pkt_time),
//!     idle = time since the queue went empty (the last start of a serialisation, or
//!     the last arrival dropped while it was empty), idle_pkt_time = ser(mean_pkt_size)
//!   avg <- (1 - w_q) avg + w_q q
//!   hard = 2 max_th with gentle, else max_th
//!   avg < min_th:  enqueue, count <- -1
//!   avg >= hard:   forced drop, count <- 0
//!   else count <- count + 1,
//!     p_b = p_max (avg - min_th) / (max_th - min_th)             avg < max_th
//!     p_b = p_max + (1 - p_max) (avg - max_th) / max_th          gentle, avg >= max_th
//!     p_a = p_b / (1 - count p_b) (1 once count p_b >= 1)
//!     wait: p_a = 0 while count p_b < 1, p_b / (2 - count p_b) below 2, then 1
//!     early drop with probability p_a, count <- 0
//! ```

/// SplitMix64 (Steele, Lea and Flood, "Fast Splittable Pseudorandom Number
/// Generators", OOPSLA 2014): the early drops' coin, seeded from the scenario's seed.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    pub min_th: f64,
    pub max_th: f64,
    pub p_max: f64,
    pub w_q: f64,
    pub gentle: bool,
    pub wait: bool,
    /// ns to serialise a packet of the mean size: the unit of the idle decay.
    pub idle_pkt_time_ns: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedAction {
    DontMark,
    EarlyDrop,
    ForcedDrop,
}

#[derive(Clone, Debug)]
pub struct Red {
    pub params: RedParams,
    pub avg: f64,
    pub count: i64,
    rng: SplitMix64,
}

/// p_b for `avg` (0 below min_th; 1 at and above the hard threshold).
pub fn red_prob(p: &RedParams, avg: f64) -> f64 {
    let p_b = if avg < p.min_th {
        0.0
    } else if avg < p.max_th {
        p.p_max * (avg - p.min_th) / (p.max_th - p.min_th)
    } else if p.gentle {
        p.p_max + (1.0 - p.p_max) * (avg - p.max_th) / p.max_th
    } else {
        1.0
    };
    p_b.min(1.0)
}

fn spaced(p_b: f64, count: i64, wait: bool) -> f64 {
    let cp = count as f64 * p_b;
    match (wait, cp) {
        (false, cp) if cp < 1.0 => p_b / (1.0 - cp),
        (true, cp) if cp < 1.0 => 0.0,
        (true, cp) if cp < 2.0 => p_b / (2.0 - cp),
        _ => 1.0,
    }
}

impl Red {
    pub fn new(params: RedParams, seed: u64) -> Red {
        Red { params, avg: 0.0, count: -1, rng: SplitMix64::new(seed) }
    }

    /// The EWMA for an arrival that finds `q` waiting, `idle_ns` after the queue went
    /// empty (None while it is not empty).
    pub fn update_avg(&mut self, q: u64, idle_ns: Option<u64>) {
        let p = &self.params;
        if let Some(idle) = idle_ns {
            let m = idle / p.idle_pkt_time_ns.max(1);
            self.avg *= (1.0 - p.w_q).powf(m as f64);
        }
        self.avg = (1.0 - p.w_q) * self.avg + p.w_q * q as f64;
    }

    /// Fig. 2's decision on the current avg.
    pub fn action(&mut self) -> RedAction {
        let p = &self.params;
        let hard = if p.gentle { 2.0 * p.max_th } else { p.max_th };
        if self.avg < p.min_th {
            self.count = -1;
            return RedAction::DontMark;
        }
        if self.avg >= hard {
            self.count = 0;
            return RedAction::ForcedDrop;
        }
        self.count += 1;
        let p_a = spaced(red_prob(p, self.avg), self.count, p.wait).min(1.0);
        if p_a > 0.0 && self.rng.uniform() < p_a {
            self.count = 0;
            RedAction::EarlyDrop
        } else {
            RedAction::DontMark
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(gentle: bool, wait: bool) -> RedParams {
        RedParams { min_th: 5.0, max_th: 15.0, p_max: 0.1, w_q: 0.002, gentle, wait, idle_pkt_time_ns: 120_000 }
    }

    #[test]
    fn probability_by_region() {
        // by hand: 0.1 (avg - 5) / 10 below 15; gentle: 0.1 + 0.9 (avg - 15) / 15 below 30
        let g = params(true, false);
        for (avg, want) in [(4.0, 0.0), (10.0, 0.05), (15.0, 0.1), (22.5, 0.55), (30.0, 1.0)] {
            assert!((red_prob(&g, avg) - want).abs() < 1e-12, "{avg}");
        }
        assert_eq!(red_prob(&params(false, false), 15.0), 1.0);
    }

    #[test]
    fn ewma_and_idle_decay() {
        // avg 10, an arrival finding 0 after 10 mean-packet times idle:
        // 10 x 0.998^10 = 9.80179..., then x 0.998 + 0.002 x 0
        let mut r = Red::new(params(true, false), 1);
        r.avg = 10.0;
        r.update_avg(0, Some(10 * 120_000 + 5));
        let want = 10.0 * 0.998f64.powi(10) * 0.998;
        assert!((r.avg - want).abs() < 1e-12, "{} {want}", r.avg);
        // not idle: the plain EWMA, 0.998 x avg + 0.002 x 20
        let before = r.avg;
        r.update_avg(20, None);
        assert!((r.avg - (0.998 * before + 0.04)).abs() < 1e-12);
    }

    #[test]
    fn forced_and_none() {
        let mut r = Red::new(params(true, false), 1);
        r.avg = 30.0;
        assert_eq!((r.action(), r.count), (RedAction::ForcedDrop, 0));
        r.avg = 4.9;
        assert_eq!((r.action(), r.count), (RedAction::DontMark, -1));
    }

    #[test]
    fn early_drop_rate_is_twice_p_b() {
        // Fig. 2's spacing: at constant avg the gap between drops is uniform on
        // {1 .. 1/p_b - 1} (count incremented before p_a), mean 1/(2 p_b) for integer
        // 1/p_b: at avg 10, p_b = 0.05, the drop rate is 2 x 0.05 = 0.1 per arrival
        let mut r = Red::new(params(true, false), 7);
        let n = 200_000;
        let mut drops = 0;
        for _ in 0..n {
            r.avg = 10.0;
            drops += (r.action() == RedAction::EarlyDrop) as u32;
        }
        let rate = drops as f64 / n as f64;
        // binomial-ish sd sqrt(0.1 x 0.9 / 2e5) = 0.00067 (the spacing makes it smaller)
        assert!((rate - 0.1).abs() < 0.003, "{rate}");
    }
}
