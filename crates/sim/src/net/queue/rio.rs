//! RIO (RED with In and Out) and RIO-PS (RIO with Preferential treatment to Short flows):
//! one FIFO, two RED parameter sets, the RED algorithm of red.rs reused unchanged.
//!
//! Sources: D. Clark and W. Fang, "Explicit Allocation of Best-Effort Packet Delivery
//! Service", IEEE/ACM ToN 6(4), 1998, section III.B and Fig. 3 (RIO); L. Guo and I. Matta,
//! "The War between Mice and Elephants", ICNP 2001 (seeds/001, slides "Core Router -
//! RIO-PS", "Features of RIO-PS"): In = packets the edge classifier tagged short
//! (`flags::IN`), Out = long. The split of algorithm and plumbing follows Linux
//! sch_gred.c in GRED_RIO_MODE (one queue, a RED state per drop precedence, the averages
//! of the higher-precedence classes counted in the lower one's).
//!
//! Per arrival (Clark and Fang Fig. 3), with q_in the waiting In packets and q the
//! waiting packets of both classes (the packet in service has left the queue):
//!
//! ```text
//! In arrival:   avg_in  <- EWMA(avg_in,  q_in)   (In parameters: w_q, idle decay)
//! every arrival: avg_tot <- EWMA(avg_tot, q)      (Out parameters)
//! In packet:    red_action(In params,  avg_in,  count_in)
//! Out packet:   red_action(Out params, avg_tot, count_out)
//! ProbMark: ECN mark if ECN-capable and ecn = true, else drop (RFC 3168 section 7)
//! HardMark: drop; a packet that does not fit under `limit` is dropped (Overflow)
//! ```
//!
//! Each class has its own RED `count` (arrivals of that class since its last mark) and
//! its own idle period: avg_in decays while no In packet waits (Linux gred_dequeue starts
//! a virtual queue's idle period when its backlog reaches 0), avg_tot while the queue is
//! empty. So an In packet's probability comes from the In backlog only and an Out
//! packet's from the whole backlog (slides: "Q_short" and "Q_total"); In packets are
//! never reordered with Out packets (one FIFO).
//!
//! RIO-PS parameters in the paper (B = buffer): short (0.15 B, 0.35 B, 1/20, 1/512),
//! long (0.15 B, 0.5 B, 1/10, 1/512), gentle, wait, ECN. `kind = "rio"` and
//! `kind = "riops"` build this same discipline; only the name in results differs.

use super::disc::{max_th_warning, QueueKind};
use super::disc::{DropReason, QueueDisc, QueueState, Unit, Verdict};
use super::red::{red_action, red_start_idle, red_update_avg, RedAction, RedParams, RedVars};
use crate::core::check::{positive, Validate};
use crate::core::packet::{flags, Packet};
use crate::core::rng::Rng;
use crate::core::time::BitsPerSec;
use crate::core::time::SimTime;
use crate::core::units::UnitSpec;
use schemars::JsonSchema;
use serde::Deserialize;

/// Counters of one class (packets).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RioClassStats {
    pub arrivals: u64,
    pub enqueued: u64,
    pub early_drops: u64,
    pub early_marks: u64,
    pub forced_drops: u64,
    pub overflow_drops: u64,
}

pub struct RioDisc {
    name: &'static str,
    /// RED parameters of In (short) packets, applied to the In average.
    pub p_in: RedParams,
    /// RED parameters of Out (long) packets, applied to the total average.
    pub p_out: RedParams,
    pub v_in: RedVars,
    pub v_tot: RedVars,
    pub limit: u64,
    pub unit: Unit,
    pub ecn: bool,
    rng: Rng,
    /// Waiting In packets and their bytes.
    in_pkts: u32,
    in_bytes: u64,
    pub stats_in: RioClassStats,
    pub stats_out: RioClassStats,
}

impl RioDisc {
    /// `name` is "rio" or "riops". Both parameter sets must be validated.
    pub fn new(
        name: &'static str,
        p_in: RedParams,
        p_out: RedParams,
        limit: u64,
        unit: Unit,
        ecn: bool,
        rng: Rng,
    ) -> RioDisc {
        let idle = || RedVars { avg: 0.0, count: -1, idle_since: Some(SimTime::ZERO) };
        RioDisc {
            name,
            p_in,
            p_out,
            v_in: idle(),
            v_tot: idle(),
            limit,
            unit,
            ecn,
            rng,
            in_pkts: 0,
            in_bytes: 0,
            stats_in: RioClassStats::default(),
            stats_out: RioClassStats::default(),
        }
    }

    /// Waiting In packets (packets, bytes).
    pub fn in_backlog(&self) -> (u32, u64) {
        (self.in_pkts, self.in_bytes)
    }

    fn qlen(&self, pkts: u32, bytes: u64) -> f64 {
        match self.unit {
            Unit::Packets => f64::from(pkts),
            Unit::Bytes => bytes as f64,
        }
    }

    fn fits(&self, pkt: &Packet, q: QueueState) -> bool {
        match self.unit {
            Unit::Packets => u64::from(q.pkts) < self.limit,
            Unit::Bytes => q.bytes + u64::from(pkt.size) <= self.limit,
        }
    }

    /// Clark and Fang Fig. 3 for one arrival.
    fn decide(&mut self, pkt: &Packet, q: QueueState, now: SimTime) -> Verdict {
        let is_in = pkt.has(flags::IN);
        let q_tot = self.qlen(q.pkts, q.bytes);
        red_update_avg(&self.p_out, &mut self.v_tot, q_tot, now);
        let action = if is_in {
            let q_in = self.qlen(self.in_pkts, self.in_bytes);
            red_update_avg(&self.p_in, &mut self.v_in, q_in, now);
            red_action(&self.p_in, &mut self.v_in, pkt.size, &mut self.rng)
        } else {
            red_action(&self.p_out, &mut self.v_tot, pkt.size, &mut self.rng)
        };
        let fits = self.fits(pkt, q);
        let ecn = self.ecn && pkt.has(flags::ECT);
        let st = if is_in { &mut self.stats_in } else { &mut self.stats_out };
        st.arrivals += 1;
        let v = match action {
            RedAction::DontMark if fits => Verdict::Enqueue,
            RedAction::ProbMark if ecn && fits => {
                st.early_marks += 1;
                Verdict::Mark
            }
            RedAction::ProbMark if !ecn => {
                st.early_drops += 1;
                Verdict::Drop(DropReason::RedEarly)
            }
            RedAction::HardMark => {
                st.forced_drops += 1;
                Verdict::Drop(DropReason::RedForced)
            }
            // DontMark, or an ECN mark, on a full buffer
            _ => {
                if action == RedAction::ProbMark {
                    st.early_marks += 1;
                }
                st.overflow_drops += 1;
                Verdict::Drop(DropReason::Overflow)
            }
        };
        if !matches!(v, Verdict::Drop(_)) {
            st.enqueued += 1;
        }
        v
    }
}

impl QueueDisc for RioDisc {
    fn limit(&self) -> Option<(u64, Unit)> {
        Some((self.limit, self.unit))
    }
    fn marks_ecn(&self) -> bool {
        self.ecn
    }
    fn name(&self) -> &'static str {
        self.name
    }

    fn enqueue(&mut self, pkt: &Packet, q: QueueState, now: SimTime) -> Verdict {
        let v = self.decide(pkt, q, now);
        let is_in = pkt.has(flags::IN);
        if let Verdict::Drop(_) = v {
            // As red_disc.rs: a dropped arrival to an empty (class) queue keeps the idle
            // period going, else red_update_avg has consumed its start.
            if q.pkts == 0 {
                red_start_idle(&mut self.v_tot, now);
            }
            if is_in && self.in_pkts == 0 {
                red_start_idle(&mut self.v_in, now);
            }
        } else if is_in {
            self.in_pkts += 1;
            self.in_bytes += u64::from(pkt.size);
        }
        v
    }

    fn on_dequeue(&mut self, pkt: &Packet, q: QueueState, now: SimTime) {
        if pkt.has(flags::IN) {
            debug_assert!(self.in_pkts > 0, "In packet left a queue holding none");
            self.in_pkts = self.in_pkts.saturating_sub(1);
            self.in_bytes = self.in_bytes.saturating_sub(u64::from(pkt.size));
            if self.in_pkts == 0 {
                red_start_idle(&mut self.v_in, now);
            }
        }
        if q.pkts == 0 {
            red_start_idle(&mut self.v_tot, now);
        }
    }

    fn counters(&self) -> Vec<(&'static str, f64)> {
        let (i, o) = (&self.stats_in, &self.stats_out);
        vec![
            ("rio_avg_in", self.v_in.avg),
            ("rio_avg_total", self.v_tot.avg),
            ("rio_in_waiting", f64::from(self.in_pkts)),
            ("rio_in_arrivals", i.arrivals as f64),
            ("rio_in_enqueued", i.enqueued as f64),
            ("rio_in_early_drops", i.early_drops as f64),
            ("rio_in_early_marks", i.early_marks as f64),
            ("rio_in_forced_drops", i.forced_drops as f64),
            ("rio_in_overflow_drops", i.overflow_drops as f64),
            ("rio_out_arrivals", o.arrivals as f64),
            ("rio_out_enqueued", o.enqueued as f64),
            ("rio_out_early_drops", o.early_drops as f64),
            ("rio_out_early_marks", o.early_marks as f64),
            ("rio_out_forced_drops", o.forced_drops as f64),
            ("rio_out_overflow_drops", o.overflow_drops as f64),
        ]
    }
}

/// One class of a RIO queue: RED thresholds in the queue's unit.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RioClassSpec {
    /// Lower threshold on this class's average queue, in the queue's unit; finite, >= 0.
    pub min_th: f64,
    /// Upper threshold, in the queue's unit; above `min_th`.
    pub max_th: f64,
    /// Marking probability at average = `max_th`, in (0, 1].
    #[serde(default = "super::disc::d_p_max")]
    pub p_max: f64,
    /// EWMA weight of this class's average, in (0, 1] (default: the queue's `w_q`).
    #[serde(default)]
    pub w_q: Option<f64>,
}

/// RIO / RIO-PS (queue/rio.rs): `in` (alias `short`) and `out` (alias `long`) classes.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = rio_aliases)]
pub struct RioSpec {
    /// Capacity (packets, or bytes with unit = "bytes"); at least 1.
    #[serde(default = "super::disc::d_limit")]
    pub limit: u64,
    /// Unit of `limit` and the classes' thresholds.
    #[serde(default)]
    pub unit: UnitSpec,
    /// RED parameters of In packets (short flows under RIO-PS); alias `short`.
    #[serde(rename = "in", alias = "short")]
    pub in_class: RioClassSpec,
    /// RED parameters of Out packets (long flows under RIO-PS); alias `long`.
    #[serde(rename = "out", alias = "long")]
    pub out_class: RioClassSpec,
    /// EWMA weight of the averages, per arrival, in (0, 1] (a class's own `w_q` overrides
    /// it).
    #[serde(default = "super::disc::d_w_q")]
    pub w_q: f64,
    /// Gentle RED in both classes.
    #[serde(default = "super::disc::d_true")]
    pub gentle: bool,
    /// ns-2 `wait_` in both classes: marks spaced at least 1/p_b arrivals.
    #[serde(default = "super::disc::d_true")]
    pub wait: bool,
    /// Mark ECN-capable packets instead of dropping them early.
    #[serde(default)]
    pub ecn: bool,
    /// Mean packet size (bytes) for byte mode and the idle-time decay; at least 1.
    #[serde(default = "super::disc::d_mean_pkt")]
    pub mean_pkt_size: u32,
}

/// `short` and `long`, serde's aliases of `in` and `out`, in the schema.
fn rio_aliases(s: &mut schemars::Schema) {
    crate::core::schema::add_aliases(s, &[("in", "short"), ("out", "long")]);
}

impl RioSpec {
    /// Class `c`'s RED parameters, a small packet taking `idle_pkt_time_ns` on the wire.
    fn class(&self, c: &RioClassSpec, idle_pkt_time_ns: u64) -> RedParams {
        RedParams {
            min_th: c.min_th,
            max_th: c.max_th,
            p_max: c.p_max,
            w_q: c.w_q.unwrap_or(self.w_q),
            gentle: self.gentle,
            wait: self.wait,
            byte_mode: self.unit == UnitSpec::Bytes,
            mean_pkt_size: self.mean_pkt_size,
            idle_pkt_time_ns,
        }
    }
}

/// The limit, then each class's parameters (the idle time comes from the link's rate
/// when built, at least 1 ns).
impl Validate for RioSpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        positive(path, "limit", self.limit)?;
        self.class(&self.in_class, 1).validate(&format!("{path}.in"))?;
        self.class(&self.out_class, 1).validate(&format!("{path}.out"))
    }
}

impl QueueKind for RioSpec {
    fn build(&self, name: &'static str, rate: BitsPerSec, rng: Rng, path: &str) -> Result<Box<dyn QueueDisc>, String> {
        debug_assert_eq!(self.validate(path), Ok(()));
        let idle = rate.tx_time(self.mean_pkt_size).ns().max(1);
        let p_in = self.class(&self.in_class, idle);
        let p_out = self.class(&self.out_class, idle);
        Ok(Box::new(RioDisc::new(name, p_in, p_out, self.limit, self.unit.into(), self.ecn, rng)))
    }

    fn warnings(&self, path: &str) -> Vec<String> {
        [("in", &self.in_class), ("out", &self.out_class)]
            .into_iter()
            .filter_map(|(c, k)| max_th_warning(format!("{path}.{c}.max_th"), k.max_th, self.limit))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::red::red_prob;

    /// The slides' RIO-PS sets for B = 100 packets: short (15, 35, 1/20), long (15, 50, 1/10).
    fn params(min_th: f64, max_th: f64, p_max: f64) -> RedParams {
        RedParams {
            min_th,
            max_th,
            p_max,
            w_q: 1.0 / 512.0,
            gentle: true,
            wait: false,
            byte_mode: false,
            mean_pkt_size: 500,
            idle_pkt_time_ns: 40_000,
        }
    }

    fn disc(ecn: bool) -> RioDisc {
        RioDisc::new("riops", params(15.0, 35.0, 0.05), params(15.0, 50.0, 0.1), 100, Unit::Packets, ecn, Rng::new(9))
    }

    fn pkt(is_in: bool, ect: bool) -> Packet {
        let mut f = flags::DATA | flags::ACK;
        if is_in {
            f |= flags::IN;
        }
        if ect {
            f |= flags::ECT;
        }
        Packet { size: 500, payload: 460, flags: f, ..Packet::default() }
    }

    fn qs(pkts: u32) -> QueueState {
        QueueState { pkts, bytes: 500 * u64::from(pkts) }
    }

    /// Holds the In backlog at `k_in` and the total at `k_tot` by letting every accepted
    /// arrival leave at once (the queue every arrival sees is constant), and returns the
    /// fraction of `n` arrivals of class `is_in` that were early-dropped.
    fn early_rate(d: &mut RioDisc, k_in: u32, k_tot: u32, is_in: bool, n: u64) -> f64 {
        let t = SimTime::from_ms(1);
        // fill the In backlog with avg below min_th (all accepted)
        while d.in_backlog().0 < k_in {
            assert_ne!(d.enqueue(&pkt(true, false), qs(k_tot), t), Verdict::Drop(DropReason::RedEarly));
        }
        let p = pkt(is_in, false);
        let mut early = 0;
        for i in 0..n + 20_000 {
            match d.enqueue(&p, qs(k_tot), t) {
                // the first 20,000 arrivals let the averages converge (w_q = 1/512)
                Verdict::Drop(DropReason::RedEarly) => early += u64::from(i >= 20_000),
                Verdict::Drop(r) => panic!("unexpected {r:?}"),
                _ => d.on_dequeue(&p, qs(k_tot), t),
            }
        }
        early as f64 / n as f64
    }

    /// Long-run early-drop fraction of RED at a constant p_b without wait: the gap
    /// between drops is uniform on {1 .. ceil(1/p_b) - 1} with the remainder on the
    /// last value (red.rs header), so the rate is 1 / E[gap].
    fn red_rate(p_b: f64) -> f64 {
        let (mut surv, mut mean, mut n) = (1.0f64, 0.0, 0u32);
        while surv > 0.0 {
            mean += surv;
            n += 1;
            let cp = f64::from(n) * p_b;
            surv *= 1.0 - if cp < 1.0 { p_b / (1.0 - cp) } else { 1.0 };
        }
        1.0 / mean
    }

    #[test]
    fn in_probability_uses_in_backlog_only() {
        const N: u64 = 200_000;
        // 25 In packets waiting in a queue of 45: In p_b = 0.05 (25 - 15) / 20 = 0.025,
        // whereas the total average (45) would give the In set 0.05 + 0.95 (45 - 35) / 35.
        let mut d = disc(false);
        let rate = early_rate(&mut d, 25, 45, true, N);
        assert!((d.v_in.avg - 25.0).abs() < 0.05, "avg_in {}", d.v_in.avg);
        assert!((d.v_tot.avg - 45.0).abs() < 0.05, "avg_tot {}", d.v_tot.avg);
        let p_b = red_prob(&d.p_in, 25.0);
        assert!((p_b - 0.025).abs() < 1e-12);
        let want = red_rate(0.05 * (d.v_in.avg - 15.0) / 20.0);
        let se = (want * (1.0 - want) / N as f64).sqrt();
        assert!((rate - want).abs() < 5.0 * se, "In rate {rate} want {want}");
        assert_eq!(d.stats_out.arrivals, 0);
    }

    #[test]
    fn out_probability_uses_total_backlog() {
        const N: u64 = 200_000;
        // 40 waiting, 30 of them In: Out p_b = 0.1 (40 - 15) / 35 from the total.
        let mut d = disc(false);
        let rate = early_rate(&mut d, 30, 40, false, N);
        assert!((d.v_tot.avg - 40.0).abs() < 0.05);
        let want = red_rate(0.1 * (d.v_tot.avg - 15.0) / 35.0);
        let se = (want * (1.0 - want) / N as f64).sqrt();
        assert!((rate - want).abs() < 5.0 * se, "Out rate {rate} want {want}");
        // Out arrivals do not move the In average
        let before = d.v_in.avg;
        early_rate(&mut d, 30, 40, false, 1000);
        assert_eq!(d.v_in.avg, before);
    }

    #[test]
    fn in_packets_pass_where_out_packets_are_forced() {
        // Total average 80, in (max_out, 2 max_out) = (50, 100): Out p_b = 0.1 + 0.9 30 / 50
        // (gentle). In backlog 5 < min_in: In packets are never dropped early.
        let mut d = disc(false);
        let rate_in = early_rate(&mut d, 5, 80, true, 50_000);
        assert_eq!(rate_in, 0.0);
        let rate_out = early_rate(&mut d, 5, 80, false, 50_000);
        let p_b = red_prob(&d.p_out, d.v_tot.avg);
        assert!(p_b > 0.5, "{p_b}");
        assert!(rate_out > 0.5, "{rate_out}");
    }

    #[test]
    fn ecn_marks_instead_of_early_drops_and_overflow_drops() {
        let mut d = disc(true);
        let t = SimTime::from_ms(1);
        d.v_tot.avg = 40.0;
        d.v_tot.idle_since = None;
        let mut marks = 0;
        for _ in 0..10_000 {
            match d.enqueue(&pkt(false, true), qs(40), t) {
                Verdict::Mark => marks += 1,
                Verdict::Enqueue => {}
                v => panic!("{v:?}"),
            }
        }
        assert!(marks > 0);
        assert_eq!(d.stats_out.early_marks, marks);
        assert_eq!(d.stats_out.early_drops, 0);
        // full buffer: DontMark still drops
        let mut d = disc(true);
        assert_eq!(d.enqueue(&pkt(true, true), qs(100), t), Verdict::Drop(DropReason::Overflow));
        assert_eq!(d.stats_in.overflow_drops, 1);
        assert_eq!(d.in_backlog(), (0, 0));
    }

    #[test]
    fn in_backlog_follows_enqueue_and_dequeue_and_idles() {
        let mut d = disc(false);
        let t = SimTime::from_ms(1);
        let (pi, po) = (pkt(true, false), pkt(false, false));
        assert_eq!(d.enqueue(&pi, qs(0), t), Verdict::Enqueue);
        assert_eq!(d.enqueue(&po, qs(1), t), Verdict::Enqueue);
        assert_eq!(d.enqueue(&pi, qs(2), t), Verdict::Enqueue);
        assert_eq!(d.in_backlog(), (2, 1000));
        d.on_dequeue(&pi, qs(2), t);
        d.on_dequeue(&po, qs(1), t);
        assert_eq!(d.in_backlog(), (1, 500));
        assert_eq!(d.v_in.idle_since, None);
        d.on_dequeue(&pi, qs(0), SimTime::from_ms(2));
        assert_eq!(d.in_backlog(), (0, 0));
        assert_eq!(d.v_in.idle_since, Some(SimTime::from_ms(2)));
        assert_eq!(d.v_tot.idle_since, Some(SimTime::from_ms(2)));
    }
}
