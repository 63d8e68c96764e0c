//! Check 5: RED (Floyd and Jacobson 1993, Fig. 2; gentle: Floyd 2000) through the queue
//! discipline `RedDisc` and its ECN marking (RFC 3168 section 7), then end to end.

use crate::common::{build, finish, link, run_checked};
use sim::core::packet::{flags, Packet};
use sim::core::rng::Rng;
use sim::net::queue::red::RedParams;
use sim::net::queue::red_disc::RedDisc;
use sim::net::queue::{DropReason, QueueDisc, QueueState, Unit, Verdict};
use sim::SimTime;

/// min_th 5, max_th 15, p_max 0.1, w_q 0.002 (packets), gentle.
fn params(gentle: bool, wait: bool) -> RedParams {
    RedParams {
        min_th: 5.0,
        max_th: 15.0,
        p_max: 0.1,
        w_q: 0.002,
        gentle,
        wait,
        byte_mode: false,
        mean_pkt_size: 1500,
        idle_pkt_time_ns: 120_000,
    }
}

fn pkt(ect: bool) -> Packet {
    let f = flags::DATA | flags::ACK | if ect { flags::ECT } else { 0 };
    Packet { size: 1500, payload: 1460, flags: f, ..Packet::default() }
}

/// Mean and variance of the gap G (arrivals from one early mark to the next, the second
/// included) at a constant p_b, straight from Fig. 2: after a mark count = 0, the n-th
/// arrival after it sees count = n and is marked with
///   p_a = p_b / (1 - n p_b), or 1 once n p_b >= 1;
///   with ns-2's `wait`: 0 while n p_b < 1, p_b / (2 - n p_b) while < 2, else 1.
/// So P(G > n) = prod_{k=1..n} (1 - p_a(k)), E[G] = sum_{n>=0} P(G > n) and
/// E[G^2] = sum_{n>=0} (2n + 1) P(G > n). The long-run fraction of arrivals marked is
/// 1 / E[G] (renewal theorem); for integer L = 1/p_b without wait G is uniform on
/// {1 .. L-1}, E[G] = L/2, so the measured mark rate is 2 p_b, not p_b.
fn gap_law(p_b: f64, wait: bool) -> (f64, f64) {
    let (mut surv, mut m1, mut m2, mut n) = (1.0f64, 0.0, 0.0, 0u32);
    while surv > 0.0 {
        m1 += surv;
        m2 += f64::from(2 * n + 1) * surv;
        n += 1;
        let cp = f64::from(n) * p_b;
        let p_a = match (wait, cp) {
            (false, cp) if cp < 1.0 => p_b / (1.0 - cp),
            (true, cp) if cp < 1.0 => 0.0,
            (true, cp) if cp < 2.0 => p_b / (2.0 - cp),
            _ => 1.0,
        };
        surv *= 1.0 - p_a.min(1.0);
    }
    (m1, m2 - m1 * m1)
}

#[derive(Default, Debug)]
struct Tally {
    enqueue: u64,
    mark: u64,
    early: u64,
    forced: u64,
    overflow: u64,
}

/// Feeds `n` arrivals to `disc` with the queue held at `q` packets (a controlled arrival
/// process: the queue state every arrival sees is constant) and counts the verdicts.
fn drive(disc: &mut RedDisc, q: u32, ect: bool, n: u64) -> Tally {
    let st = QueueState { pkts: q, bytes: 1500 * u64::from(q) };
    let p = pkt(ect);
    let mut t = Tally::default();
    for _ in 0..n {
        match disc.enqueue(&p, st, SimTime::ZERO) {
            Verdict::Enqueue => t.enqueue += 1,
            Verdict::Mark => t.mark += 1,
            Verdict::Drop(DropReason::RedEarly) => t.early += 1,
            Verdict::Drop(DropReason::RedForced) => t.forced += 1,
            Verdict::Drop(DropReason::Overflow) => t.overflow += 1,
            Verdict::Drop(r) => panic!("unexpected drop reason {r:?}"),
        }
    }
    t
}

/// A disc warmed up at constant queue `q`: 20,000 arrivals bring the EWMA to
/// q (1 - (1 - 0.002)^20000) = q (1 - 4e-18), i.e. q.
fn warmed(p: RedParams, limit: u64, ecn: bool, q: u32, seed: u64) -> RedDisc {
    let mut d = RedDisc::new(p, limit, Unit::Packets, ecn, Rng::new(seed));
    drive(&mut d, q, ecn, 20_000);
    assert!((d.vars.avg - f64::from(q)).abs() < 1e-9, "avg {} vs {q}", d.vars.avg);
    d
}

#[test]
fn red_disc_ewma_follows_closed_form() {
    // avg_k = q (1 - (1 - w_q)^k) from avg_0 = 0 at a constant queue q (Fig. 2 EWMA).
    let mut d = RedDisc::new(params(true, false), 1000, Unit::Packets, false, Rng::new(3));
    drive(&mut d, 4, false, 500); // below min_th: nothing is dropped meanwhile
    let want = 4.0 * (1.0 - 0.998f64.powi(500));
    assert!((d.vars.avg - want).abs() < 1e-12, "{} vs {want}", d.vars.avg);
}

/// The measured early-drop (no ECN) and mark (ECN) rates at constant avg follow the RED
/// formula in every region, and ECN turns exactly the early drops into marks.
///
/// p_b by hand (min_th 5, max_th 15, p_max 0.1, gentle above max_th up to 2 max_th = 30):
///   q = 3:  below min_th, p_b = 0                 -> no early drop at all
///   q = 10: 0.1 (10 - 5) / 10 = 0.05, L = 20      -> rate 2 p_b = 0.1
///   q = 12: 0.1 (12 - 5) / 10 = 0.07              -> rate 1 / E[G] (gap_law)
///   q = 15: 0.1 (gentle, avg = max_th), L = 10    -> rate 0.2
///   q = 20: 0.1 + 0.9 (20 - 15) / 15 = 0.4        -> P(G > 1) = 1 - 0.4/0.6 = 1/3,
///           P(G > 2) = 0 (p_a(2) = 0.4/0.2 >= 1): E[G] = 4/3, rate 0.75
///   q = 25: 0.1 + 0.9 x 10 / 15 = 0.7             -> p_a(1) = 0.7/0.3 >= 1: rate 1
///   q = 35: >= 2 max_th                            -> every arrival a forced drop
///   q = 12 with `wait`: no mark for n < ceil(1/0.07) = 15; rate 1 / E[G] (gap_law).
///   (Not q = 10 with `wait`: at an integer 1/p_b = 20 the first eligible arrival,
///   n p_b >= 1, flips between n = 20 and n = 21 with the last bit of avg.)
/// Sampling error of a renewal count over N arrivals: sd = sqrt(N Var[G] / E[G]^3).
#[test]
fn red_disc_rates_follow_formula_with_ecn() {
    const N: u64 = 200_000;
    let cases: [(u32, f64, bool); 8] = [
        (3, 0.0, false),
        (10, 0.05, false),
        (12, 0.07, false),
        (15, 0.1, false),
        (20, 0.4, false),
        (25, 0.7, false),
        (35, 1.0, false),
        (12, 0.07, true),
    ];
    for (q, p_b, wait) in cases {
        let p = params(true, wait);
        // Same seed in both discs: the random draws line up one for one.
        let mut plain = warmed(p.clone(), 1000, false, q, 11);
        let mut ecn = warmed(p, 1000, true, q, 11);
        let a = drive(&mut plain, q, false, N);
        let b = drive(&mut ecn, q, true, N);
        // ECN: ECT packets get Mark where the plain queue early-drops; forced stays a drop.
        assert_eq!((a.mark, b.early), (0, 0), "q={q}: {a:?} {b:?}");
        assert_eq!((b.mark, b.forced, b.enqueue), (a.early, a.forced, a.enqueue), "q={q}");
        assert_eq!(a.overflow + b.overflow, 0);
        let measured = a.early as f64 / N as f64;
        let (want, sd) = if q >= 30 {
            assert_eq!(a.forced, N, "q={q}: every arrival is a forced drop");
            (0.0, 0.0)
        } else if p_b == 0.0 {
            (0.0, 0.0)
        } else {
            let (mean, var) = gap_law(p_b, wait);
            (1.0 / mean, (N as f64 * var / mean.powi(3)).sqrt() / N as f64)
        };
        eprintln!(
            "RED q={q} wait={wait} p_b={p_b}: early-drop rate {measured:.5}, formula {want:.5} \
             (+-{sd:.5}), forced {}, ECN marks {}",
            a.forced, b.mark
        );
        assert!((measured - want).abs() <= 4.0 * sd + 1e-12, "q={q}: {measured} vs {want}");
        let c = ecn.counters();
        let get = |k: &str| c.iter().find(|(n, _)| *n == k).map(|&(_, v)| v);
        assert_eq!(get("red_early_drops"), Some(0.0));
        assert!(get("red_early_marks").unwrap() >= b.mark as f64);
    }
    // Closed forms quoted above.
    let (m, _) = gap_law(0.05, false);
    assert!((m - 10.0).abs() < 1e-9);
    let (m, _) = gap_law(0.4, false);
    assert!((m - 4.0 / 3.0).abs() < 1e-12);
    // wait at integer L = 20: G uniform on {L .. 2L-1}, E[G] = (3L - 1) / 2 = 29.5.
    let (m, _) = gap_law(0.05, true);
    assert!((m - 29.5).abs() < 1e-9);
}

/// The average keeps decaying while the queue stays empty, also across dropped arrivals
/// (Fig. 2: avg <- (1 - w_q)^m avg with m = idle time / transmission time of a small
/// packet, here 120 us). Warm up at q = 35 (avg 35, above 2 max_th = 30), drain the queue
/// at t0 = 1 s, then let one packet arrive every 12 ms = 100 packet times to the empty
/// queue. Each arrival decays avg by 0.998^100 for the idle time since the previous one
/// and by 0.998 for its own EWMA step with q = 0, whatever the verdict (an accepted packet
/// goes straight to the idle serialiser and leaves the queue empty again): after n
/// arrivals avg = 35 x 0.998^(101 n). n = 1: 28.59 (below 30: no longer forced).
#[test]
fn red_disc_idle_decay_continues_after_drops() {
    let mut d = warmed(params(true, false), 1000, false, 35, 9);
    let p = pkt(false);
    let empty = QueueState::default();
    let t0 = SimTime::from_secs(1);
    d.on_dequeue(&p, empty, t0);
    let mut drops = 0;
    for n in 1..=10i32 {
        let now = t0 + SimTime::from_ms(12 * n as u64);
        match d.enqueue(&p, empty, now) {
            Verdict::Drop(_) => drops += 1,
            _ => d.on_dequeue(&p, empty, now),
        }
        let want = 35.0 * 0.998f64.powi(101 * n);
        assert!((d.vars.avg - want).abs() < 1e-9 * want, "n={n}: avg {} vs {want}", d.vars.avg);
    }
    assert!(drops > 0, "the test must cover drops at an empty queue");
}

/// Non-gentle RED: avg >= max_th is a forced drop even for ECT packets; ECN on the queue
/// does not mark packets that are not ECN-capable; a mark that does not fit under the
/// hard limit is an overflow drop.
#[test]
fn red_disc_forced_and_non_ect() {
    const N: u64 = 10_000;
    let mut d = warmed(params(false, false), 1000, true, 16, 5);
    let t = drive(&mut d, 16, true, N);
    assert_eq!(t.forced, N, "{t:?}");
    // ECN queue, non-ECT arrivals at q = 10: early drops, no marks.
    let mut d = warmed(params(true, false), 1000, true, 10, 5);
    let t = drive(&mut d, 10, false, N);
    assert!(t.early > 0 && t.mark == 0, "{t:?}");
    // Limit 10, queue at 12 (ECT packets): nothing fits; an early decision that would
    // mark becomes an overflow drop, like every other arrival.
    let mut d = warmed(params(true, false), 10, true, 12, 5);
    let t = drive(&mut d, 12, true, N);
    assert_eq!((t.enqueue, t.mark, t.early, t.forced), (0, 0, 0, 0), "{t:?}");
    assert_eq!(t.overflow, N);
}

/// 8 long flows through a RED bottleneck; `ecn` on both the queue and the senders.
fn red_dumbbell(ecn: bool) -> String {
    format!(
        r#"
        duration = "40s"
        [topology]
        kind = "dumbbell"
        pairs = 8
        access = {{ rate = "100Mbps", delay = "1ms" }}
        [topology.bottleneck]
        rate = "10Mbps"
        delay = "20ms"
        queue = {{ kind = "red", limit = 100, min_th = 5, max_th = 15, p_max = 0.1, w_q = 0.002, gentle = true, ecn = {ecn} }}
        [tcp]
        ecn = {ecn}
        [[traffic]]
        kind = "bulk"
        from = "s{{i}}"
        to = "d{{i}}"
        count = 8
        start_jitter = "10ms"
        "#
    )
}

/// End to end: 8 long flows, 10 Mbps / 20 ms bottleneck (BDP 37 packets), RED 5/15.
/// RED holds the time-averaged queue between min_th = 5 and max_th = 15 (the operating
/// point is where p_b gives each flow its Mathis window: W = (37 + q) / 8 ~ 5.5,
/// p ~ 1.5 / W^2 ~ 0.05, mark rate 2 p_b -> p_b ~ 0.025 -> avg ~ 5 + 10 x 0.25 = 7.5).
/// Without ECN the early decisions are drops; with ECN on they are marks and no
/// ECN-capable packet is early-dropped: the only packets RED may early-drop are those
/// that are not ECT, SYNs (which all pass at t < 10 ms while avg is still 0) and
/// retransmissions (RFC 3168 6.1.5), so early drops <= retransmissions. Conservation is
/// checked every 100 ms.
#[test]
fn red_end_to_end_queue_band_and_ecn() {
    for ecn in [false, true] {
        let (_, mut sim) = build(&red_dumbbell(ecn), 1);
        let step = SimTime::from_ms(100);
        run_checked(&mut sim, SimTime::from_secs(10), step);
        let occ0 = link(&sim, "R1->R2").stats.occ_integral;
        run_checked(&mut sim, SimTime::from_secs(40), step);
        finish(&sim);
        let l = link(&sim, "R1->R2");
        let steady = (l.stats.occ_integral - occ0) as f64 / 30e9;
        let r = sim::output::results::collect(&sim, "red");
        let row = |c: &str| -> f64 {
            let id = sim.net.link_by_name("R1->R2").unwrap() as usize;
            match r.links.get(c).unwrap() {
                sim::output::results::Column::F64(v) => v[id],
                sim::output::results::Column::U64(v) => v[id] as f64,
                _ => panic!("{c}"),
            }
        };
        let (mean_pkts, util) = (row("mean_pkts"), row("utilization"));
        let (marks, early, forced, overflow) =
            (row("marks"), row("drops_red_early"), row("drops_red_forced"), row("drops_overflow"));
        let reductions: u64 = sim.flows.records().map(|f| f.stats.ecn_reductions).sum();
        eprintln!(
            "RED end to end, ecn={ecn}: mean queue {mean_pkts:.2} pkts (whole run), \
             {steady:.2} pkts (10-40 s), utilisation {:.1} %, marks {marks}, early drops \
             {early}, forced {forced}, overflow {overflow}, ECN reductions {reductions}",
            100.0 * util
        );
        assert!((5.0..=15.0).contains(&steady), "steady mean queue {steady}");
        assert!((4.0..=15.0).contains(&mean_pkts), "mean queue {mean_pkts}");
        assert!(util > 0.9, "utilisation {util}");
        if ecn {
            assert!(marks > 0.0 && reductions > 0, "no marks with ECN on");
            let retx: u64 = sim.flows.records().map(|f| f.stats.retransmits).sum();
            assert!(early <= retx as f64, "ECN-capable packets were early-dropped: {early} > {retx} retransmissions");
        } else {
            assert!(early > 0.0);
            assert_eq!((marks, reductions), (0.0, 0));
        }
    }
}
