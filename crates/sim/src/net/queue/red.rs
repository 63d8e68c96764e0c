//! RED, Random Early Detection: the decision alone; the queue applies the verdict.
//!
//! Source: S. Floyd and V. Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1(4), 1993. Implemented: Fig. 2 (the
//! detailed algorithm), with the options of ns-2 `queue/red.cc` (`gentle_`,
//! `wait_`, `bytes_`) and the params / vars / action split of Linux
//! `include/net/red.h`. Per arrival, the caller runs [`red_update_avg`] with the
//! queue length seen by the arriving packet, then [`red_action`]:
//!
//! ```text
//! avg <- (1 - w_q) avg + w_q q                                    (Fig. 2)
//!   after an idle period (ns-2 enque/estimator): first avg <- (1 - w_q)^m avg,
//!   m = floor(idle time / idle_pkt_time), the small packets that could have
//!   been sent ("m <- f(time - q_time)", Fig. 2)
//! hard = max_th, or 2 max_th with gentle
//! avg < min_th:        DontMark, count <- -1
//! avg >= hard:         HardMark, count <- 0
//! otherwise:           count <- count + 1
//!   p_b = p_max (avg - min_th) / (max_th - min_th)            avg < max_th
//!   p_b = p_max + (1 - p_max) (avg - max_th) / max_th         gentle, avg >= max_th
//!         (Floyd, "Recommendation on using the gentle_ variant of RED", 2000)
//!   p_a = p_b / (1 - count p_b), 1 once count p_b >= 1        (Fig. 2)
//!   wait: p_a = 0 if count p_b < 1, p_b / (2 - count p_b) if < 2, else 1
//!         (ns-2 REDQueue::modify_p)
//!   byte_mode: p_a <- min(1, p_a size / mean_pkt_size) when p_a < 1 (ns-2
//!         modify_p; the paper scales by size / maximum packet size)
//!   with probability p_a: ProbMark, count <- 0 (mark if ECN-capable, else drop)
//! ```
//!
//! Spacing of marks at constant avg (paper, "Calculating the packet-marking
//! probability"). Let G be the arrivals from one mark to the next, inclusive.
//! Fig. 2 increments count before computing p_a, so the k-th arrival after a
//! mark sees count = k, and the product telescopes:
//! `P(G > n) = prod_{k=1..n} (1 - p_b / (1 - k p_b)) = max(0, 1 - (n+1) p_b) / (1 - p_b)`.
//! So G is uniform on {1 .. ceil(1/p_b) - 1} (the last value gets the rest)
//! and never exceeds 1/p_b; for integer L = 1/p_b, E[G] = L/2 and the mark
//! rate is 2 p_b. (The paper's analysis starts at count = 0, giving {1..L}
//! and 2 p_b / (1 + p_b); Fig. 2 and ns-2 both increment first, as here.)
//! With wait: `P(G > n) = 1` for n < k0 = ceil(1/p_b), then
//! `max(0, 2 - (n+1) p_b) / (2 - k0 p_b)`: G lies in [1/p_b, 2/p_b), uniform
//! on {L .. 2L-1} for integer L. Differences from ns-2, kept on purpose: the
//! arrival that enters [min_th, hard) is tested with count = 0 (ns-2 sets
//! count = 1 and never marks it), there is no `qlen > 1` guard, and byte mode
//! counts packets, not bytes / mean_pkt_size.
//!
//! | field              | unit                                   | range                     |
//! |--------------------|----------------------------------------|---------------------------|
//! | `min_th`, `max_th` | packets, or bytes if the queue counts bytes | 0 <= min_th < max_th |
//! | `p_max`            | p_b at avg = max_th (ns-2 `1/linterm_`)| (0, 1]; paper 1/50       |
//! | `w_q`              | EWMA weight per arrival                | (0, 1]; paper 0.002       |
//! | `mean_pkt_size`    | bytes, scales p_a in byte mode         | > 0                       |
//! | `idle_pkt_time_ns` | ns to send a small packet on the link  | > 0                       |

use crate::core::check::Validate;
use crate::core::rng::Rng;
use crate::core::time::SimTime;

/// Configuration, validated once by [`RedParams::validate`].
#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Lower threshold on avg (packets, or bytes with a byte-counted queue).
    pub min_th: f64,
    /// Upper threshold on avg (same unit as `min_th`).
    pub max_th: f64,
    /// Marking probability p_b reached at avg = max_th.
    pub p_max: f64,
    /// EWMA weight of the average queue size.
    pub w_q: f64,
    /// p_b rises from p_max to 1 over [max_th, 2 max_th) instead of jumping.
    pub gentle: bool,
    /// ns-2 `wait_`: no mark until count p_b >= 1 (marks spaced >= 1/p_b).
    pub wait: bool,
    /// Scale p_a by pkt_size / mean_pkt_size.
    pub byte_mode: bool,
    /// Mean packet size (bytes).
    pub mean_pkt_size: u32,
    /// Transmission time of a small packet (ns), the unit of idle decay.
    pub idle_pkt_time_ns: u64,
}

/// Checks every field; the error names the field and its allowed range after the table's
/// path: "{path}: red.{field}: ...".
impl Validate for RedParams {
    fn validate(&self, path: &str) -> Result<(), String> {
        let unit = |name: &str, x: f64| {
            if x.is_finite() && x > 0.0 && x <= 1.0 {
                Ok(())
            } else {
                Err(format!("{path}: red.{name}: must be in (0, 1] (got {x})"))
            }
        };
        if !(self.min_th.is_finite() && self.min_th >= 0.0) {
            let got = self.min_th;
            return Err(format!("{path}: red.min_th: must be finite and >= 0 (got {got})"));
        }
        if !(self.max_th.is_finite() && self.max_th > self.min_th) {
            return Err(format!("{path}: red.max_th: must be > min_th (got {} <= {})", self.max_th, self.min_th));
        }
        unit("p_max", self.p_max)?;
        unit("w_q", self.w_q)?;
        if self.mean_pkt_size == 0 {
            return Err(format!("{path}: red.mean_pkt_size: must be > 0 bytes (got 0)"));
        }
        if self.idle_pkt_time_ns == 0 {
            return Err(format!("{path}: red.idle_pkt_time_ns: must be > 0 ns (got 0)"));
        }
        Ok(())
    }
}

/// Per-queue state (Fig. 2: avg, count, q_time).
#[derive(Clone, Debug, PartialEq)]
pub struct RedVars {
    /// Average queue size (unit of the thresholds).
    pub avg: f64,
    /// Arrivals since the last mark; -1 while avg < min_th.
    pub count: i64,
    /// Start of the current idle period (queue empty), if any.
    pub idle_since: Option<SimTime>,
}

impl RedVars {
    /// Fig. 2 initialisation: avg = 0, count = -1, not idle.
    pub fn new() -> RedVars {
        RedVars { avg: 0.0, count: -1, idle_since: None }
    }
}

impl Default for RedVars {
    fn default() -> RedVars {
        RedVars::new()
    }
}

/// Verdict for one arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedAction {
    /// Enqueue unmarked.
    DontMark,
    /// Early, probabilistic: ECN-mark if the packet is ECN-capable, else drop.
    ProbMark,
    /// Forced, avg >= max_th (2 max_th with gentle): drop.
    HardMark,
}

/// Counters per cause (packets).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RedStats {
    /// ProbMark on a packet that is not ECN-capable.
    pub early_drops: u64,
    /// ProbMark on an ECN-capable packet (CE set, enqueued).
    pub early_marks: u64,
    /// HardMark.
    pub forced_drops: u64,
}

impl RedStats {
    /// Counts one verdict as the queue applied it.
    pub fn record(&mut self, action: RedAction, ecn_capable: bool) {
        match action {
            RedAction::DontMark => {}
            RedAction::ProbMark if ecn_capable => self.early_marks += 1,
            RedAction::ProbMark => self.early_drops += 1,
            RedAction::HardMark => self.forced_drops += 1,
        }
    }
}

/// avg <- (1 - w_q)^m avg, m = floor(idle_ns / idle_pkt_time_ns) (Fig. 2, ns-2).
fn red_idle_decay(p: &RedParams, avg: f64, idle_ns: u64) -> f64 {
    let m = idle_ns / p.idle_pkt_time_ns;
    avg * (1.0 - p.w_q).powf(m as f64)
}

/// Updates avg on an arrival: idle decay if the queue was idle, then the EWMA
/// avg <- (1 - w_q) avg + w_q qlen. `qlen` is the queue the arrival finds, in
/// the unit of the thresholds.
pub fn red_update_avg(p: &RedParams, v: &mut RedVars, qlen: f64, now: SimTime) {
    if let Some(since) = v.idle_since.take() {
        v.avg = red_idle_decay(p, v.avg, now.0.saturating_sub(since.0));
    }
    v.avg = (1.0 - p.w_q) * v.avg + p.w_q * qlen;
}

/// Records the start of an idle period; call when a dequeue empties the queue.
pub fn red_start_idle(v: &mut RedVars, now: SimTime) {
    v.idle_since = Some(now);
}

/// p_b: 0 below min_th, linear to p_max at max_th, then (gentle) linear to 1
/// at 2 max_th, else 1 at and above max_th (ns-2 calculate_p_new).
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

/// p_a from p_b and count: uniform spacing of marks (Fig. 2, ns-2 modify_p).
fn red_spaced_prob(p_b: f64, count: i64, wait: bool) -> f64 {
    let cp = count as f64 * p_b;
    match (wait, cp) {
        (false, cp) if cp < 1.0 => p_b / (1.0 - cp),
        (true, cp) if cp < 1.0 => 0.0,
        (true, cp) if cp < 2.0 => p_b / (2.0 - cp),
        _ => 1.0,
    }
}

/// Decides for one arriving packet of `pkt_size` bytes, using `v.avg` (run
/// [`red_update_avg`] first) and updating `v.count` as in Fig. 2.
pub fn red_action(p: &RedParams, v: &mut RedVars, pkt_size: u32, rng: &mut Rng) -> RedAction {
    let hard_th = if p.gentle { 2.0 * p.max_th } else { p.max_th };
    if v.avg < p.min_th {
        v.count = -1;
        return RedAction::DontMark;
    }
    if v.avg >= hard_th {
        v.count = 0;
        return RedAction::HardMark;
    }
    v.count += 1;
    let mut p_a = red_spaced_prob(red_prob(p, v.avg), v.count, p.wait).min(1.0);
    if p.byte_mode && p_a < 1.0 {
        p_a = (p_a * f64::from(pkt_size) / f64::from(p.mean_pkt_size)).min(1.0);
    }
    if p_a > 0.0 && rng.uniform() < p_a {
        v.count = 0;
        RedAction::ProbMark
    } else {
        RedAction::DontMark
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(gentle: bool, wait: bool) -> RedParams {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            p_max: 0.1,
            w_q: 0.002,
            gentle,
            wait,
            byte_mode: false,
            mean_pkt_size: 1000,
            idle_pkt_time_ns: 8_000,
        }
    }

    fn vars(avg: f64, count: i64) -> RedVars {
        RedVars { avg, count, idle_since: None }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn prob_matches_formula_in_each_region() {
        let g = params(true, false);
        // p_b by hand: 0.1 (avg - 5) / 10 below 15, then 0.1 + 0.9 (avg - 15) / 15.
        let avgs = [0.0, 4.99, 5.0, 10.0, 12.5, 15.0, 22.5, 27.0, 30.0, 45.0];
        let wants = [0.0, 0.0, 0.0, 0.05, 0.075, 0.1, 0.55, 0.82, 1.0, 1.0];
        for (avg, want) in avgs.into_iter().zip(wants) {
            assert!(close(red_prob(&g, avg), want), "gentle avg={avg}");
        }
        let ng = params(false, false);
        for (avg, want) in [(4.0, 0.0), (12.5, 0.075), (15.0, 1.0), (22.5, 1.0)] {
            assert!(close(red_prob(&ng, avg), want), "non-gentle avg={avg}");
        }
        let mut rng = Rng::new(1);
        let hard = |p: &RedParams, avg: f64, rng: &mut Rng| {
            let mut v = vars(avg, 7);
            let a = red_action(p, &mut v, 1000, rng);
            (a, v.count)
        };
        assert_eq!(hard(&ng, 15.0, &mut rng), (RedAction::HardMark, 0));
        assert_eq!(hard(&ng, 22.5, &mut rng), (RedAction::HardMark, 0));
        assert_eq!(hard(&g, 30.0, &mut rng), (RedAction::HardMark, 0));
        assert_eq!(hard(&g, 4.0, &mut rng), (RedAction::DontMark, -1));
        assert_ne!(hard(&g, 29.9, &mut rng).0, RedAction::HardMark);
    }

    /// P(G > n) for the gap G between marks at constant p_b (header derivation).
    fn survival(p_b: f64, wait: bool, n: u64) -> f64 {
        let n1 = (n + 1) as f64;
        if !wait {
            return ((1.0 - n1 * p_b) / (1.0 - p_b)).max(0.0);
        }
        let k0 = (1.0 / p_b).ceil();
        if (n as f64) < k0 {
            1.0
        } else {
            ((2.0 - n1 * p_b) / (2.0 - k0 * p_b)).max(0.0)
        }
    }

    /// Mean, variance, shortest and longest possible gap.
    fn gap_law(p_b: f64, wait: bool) -> (f64, f64, u64, u64) {
        let (mut mean, mut second, mut n) = (0.0, 0.0, 0u64);
        let mut min_gap = 0;
        while survival(p_b, wait, n) > 0.0 {
            let s = survival(p_b, wait, n);
            if min_gap == 0 && s < 1.0 {
                min_gap = n;
            }
            mean += s;
            second += (2 * n + 1) as f64 * s;
            n += 1;
        }
        (mean, second - mean * mean, min_gap.max(1), n)
    }

    #[test]
    fn measured_mark_rate_follows_red_formula() {
        const N: u64 = 200_000;
        // avg 12 -> p_b = 0.07 (linear), avg 21 -> p_b = 0.46 (gentle).
        for (avg, p_b) in [(12.0, 0.07), (21.0, 0.46)] {
            for wait in [false, true] {
                let p = params(true, wait);
                let mut v = RedVars::new();
                // avg driven by the EWMA with a constant queue, not set directly.
                for _ in 0..20_000 {
                    red_update_avg(&p, &mut v, avg, SimTime(0));
                }
                assert!((v.avg - avg).abs() < 1e-9 * avg);
                assert!((red_prob(&p, v.avg) - p_b).abs() < 1e-9);
                let mut rng = Rng::new(42);
                let (mut marks, mut last, mut gaps) = (0u64, None, Vec::new());
                for i in 0..N {
                    red_update_avg(&p, &mut v, avg, SimTime(0));
                    if red_action(&p, &mut v, 1000, &mut rng) == RedAction::ProbMark {
                        marks += 1;
                        if let Some(l) = last {
                            gaps.push(i - l);
                        }
                        last = Some(i);
                    }
                }
                let (mean, var, min_gap, max_gap) = gap_law(p_b, wait);
                let rate = marks as f64 / N as f64;
                // Renewal process: Var(marks) ~ N var / mean^3.
                let se = (var / (N as f64 * mean.powi(3))).sqrt();
                let ctx = format!("avg={avg} wait={wait} rate={rate} want={}", 1.0 / mean);
                assert!((rate - 1.0 / mean).abs() < 4.0 * se, "{ctx} se={se}");
                let (lo, hi) = (*gaps.iter().min().unwrap(), *gaps.iter().max().unwrap());
                assert_eq!((lo, hi), (min_gap, max_gap), "{ctx}");
                if wait {
                    assert!(lo as f64 >= 1.0 / p_b && (hi as f64) < 2.0 / p_b, "{ctx}");
                } else {
                    assert!(hi as f64 <= 1.0 / p_b, "{ctx}");
                }
            }
        }
        // Integer 1/p_b = L: uniform on {1..L-1}, rate 2 p_b; wait: {L..2L-1}.
        let (mean, _, lo, hi) = gap_law(0.125, false);
        assert!(close(mean, 4.0) && (lo, hi) == (1, 7));
        let (mean, _, lo, hi) = gap_law(0.125, true);
        assert!(close(mean, 11.5) && (lo, hi) == (8, 15));
    }

    #[test]
    fn ewma_matches_closed_form() {
        for (w_q, q, k) in [(0.002, 10.0, 1000), (0.02, 15_000.0, 300), (1.0, 3.0, 5)] {
            let mut p = params(true, false);
            p.w_q = w_q;
            let mut v = RedVars::new();
            for _ in 0..k {
                red_update_avg(&p, &mut v, q, SimTime(5));
            }
            let want = q * (1.0 - (1.0 - w_q).powi(k));
            assert!((v.avg - want).abs() <= 1e-9 * want, "{} vs {want}", v.avg);
        }
    }

    #[test]
    fn idle_decay_is_geometric_in_idle_packet_times() {
        let p = params(true, false);
        let (avg0, t0) = (12.0, 1_000_000u64);
        for m in [0u64, 1, 10, 250, 5000] {
            let t = m * p.idle_pkt_time_ns;
            let want = avg0 * (1.0 - p.w_q).powf(t as f64 / p.idle_pkt_time_ns as f64);
            assert!((red_idle_decay(&p, avg0, t) - want).abs() <= 1e-12 * avg0);
            // Through the public path: decay, then the arrival's EWMA step (q = 0).
            let mut v = vars(avg0, 3);
            red_start_idle(&mut v, SimTime(t0));
            red_update_avg(&p, &mut v, 0.0, SimTime(t0 + t + p.idle_pkt_time_ns / 2));
            assert!((v.avg - want * (1.0 - p.w_q)).abs() <= 1e-12 * avg0);
            assert_eq!(v.idle_since, None);
        }
    }

    #[test]
    fn byte_mode_scales_probability_by_size() {
        const N: u32 = 200_000;
        let mut p = params(true, false);
        p.byte_mode = true;
        let p_b = 0.075; // avg 12.5
        for (size, want) in [(500, p_b / 2.0), (1000, p_b), (250, p_b / 4.0)] {
            let mut rng = Rng::new(7 + u64::from(size));
            let mut marks = 0;
            for _ in 0..N {
                // count -1 -> 0 on arrival, so p_a = p_b exactly before scaling.
                let mut v = vars(12.5, -1);
                if red_action(&p, &mut v, size, &mut rng) == RedAction::ProbMark {
                    marks += 1;
                }
            }
            let frac = f64::from(marks) / f64::from(N);
            let se = (want * (1.0 - want) / f64::from(N)).sqrt();
            assert!((frac - want).abs() < 4.0 * se, "size={size}: {frac}");
        }
    }

    #[test]
    fn validate_names_bad_field() {
        assert_eq!(params(true, true).validate("q"), Ok(()));
        let bad = |f: &dyn Fn(&mut RedParams), field: &str| {
            let mut p = params(true, false);
            f(&mut p);
            let e = p.validate("q").unwrap_err();
            assert!(e.starts_with(&format!("q: red.{field}:")), "{e}");
        };
        bad(&|p| p.max_th = 5.0, "max_th");
        bad(&|p| p.min_th = 20.0, "max_th");
        bad(&|p| p.min_th = -1.0, "min_th");
        bad(&|p| p.p_max = 0.0, "p_max");
        bad(&|p| p.p_max = 1.5, "p_max");
        bad(&|p| p.w_q = 0.0, "w_q");
        bad(&|p| p.w_q = 1.01, "w_q");
        bad(&|p| p.w_q = f64::NAN, "w_q");
        bad(&|p| p.mean_pkt_size = 0, "mean_pkt_size");
        bad(&|p| p.idle_pkt_time_ns = 0, "idle_pkt_time_ns");
        let mut p = params(true, false);
        p.min_th = 15.0;
        p.max_th = 5.0;
        assert_eq!(p.validate("q").unwrap_err(), "q: red.max_th: must be > min_th (got 5 <= 15)");
        p.max_th = 15.0;
        assert!(p.validate("q").unwrap_err().contains("15 <= 15"));
        (p.max_th, p.p_max, p.w_q) = (16.0, 1.0, 1.0);
        assert_eq!(p.validate("q"), Ok(()));
    }
}
