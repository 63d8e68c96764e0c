//! Check 9: DropTail overflow in the incast of SCENARIOS.md (10 x 10-packet flows, 1 Gbps
//! senders, 100 Mbps egress with 50 packets of buffer): every flow completes, the drops
//! match a hand model of the first round, and the flows that timed out took >= min RTO.

use std::collections::VecDeque;

use crate::common::{build, finish, link, run_checked};
use sim::SimTime;

const INCAST: &str = r#"
    name = "incast-droptail"
    duration = "3s"
    [topology]
    kind = "star"
    senders = 10
    sender_link = { rate = "1Gbps", delay = "25us" }
    receiver_link = { rate = "100Mbps", delay = "25us", queue = { kind = "droptail", limit = 50 } }
    [tcp]
    init_cwnd = 10
    [[traffic]]
    kind = "flow"
    from = "s{i}"
    to = "d"
    count = 10
    size_pkts = 10
"#;

/// Drops of the first round at R->d, by an independent FIFO model.
///
/// All 10 SYNs reach R together at 320 + 25,000 = 25,320 and leave R->d one after the
/// other every 3,200 ns (40 B at 100 Mbps), in flow order; the SYN-ACKs come back spaced
/// 3,200 apart without queueing (3,200 each on d->R). So sender k's handshake ends at
/// H_k = 107,040 + 3,200 k (fct.rs derives 107,040 for k = 0) and its data packet j
/// (0..9) reaches R at H_k + 12,000 (j + 1) + 25,000 = 144,040 + 3,200 k + 12,000 j.
/// R->d serves one 1500 B packet per 120,000 ns and holds 50 waiting + 1 in service
/// (the ns-2 convention of queue/mod.rs). The model replays these 100 arrivals.
fn first_round_drops() -> (u64, Vec<u32>) {
    let mut arr: Vec<(u64, usize)> =
        (0..10u64).flat_map(|k| (0..10u64).map(move |j| (144_040 + 3_200 * k + 12_000 * j, k as usize))).collect();
    arr.sort();
    let mut done: VecDeque<u64> = VecDeque::new(); // completion times of accepted packets
    let (mut drops, mut per_flow) = (0, vec![0u32; 10]);
    for (t, k) in arr {
        while done.front().is_some_and(|&c| c <= t) {
            done.pop_front();
        }
        // waiting = in system - 1 in service; accept while fewer than 50 wait
        if done.len() <= 50 {
            let start = done.back().copied().unwrap_or(t).max(t);
            done.push_back(start + 120_000);
        } else {
            drops += 1;
            per_flow[k] += 1;
        }
    }
    (drops, per_flow)
}

/// The run: conservation checked every millisecond. The model gives 48 first-round drops
/// (92 arrivals before the first departure at +120,000, 51 accepted; one slot frees for
/// the first of the 8 later arrivals), every flow losing its tail. A flow that loses its
/// last packets gets fewer than 3 duplicate ACKs, so every losing flow needs an RTO
/// (>= min RTO 200 ms). After the RTO the flows resend <= 5 packets each in slow start
/// (1, 2, then 2), spread over the ~6 ms in which their last ACKs came back: far below
/// the 50-packet buffer, so there are no further drops.
#[test]
fn incast_droptail_overflow() {
    let (model_drops, per_flow) = first_round_drops();
    assert_eq!(model_drops, 48, "hand count of the model");
    let (_, mut sim) = build(INCAST, 1);
    run_checked(&mut sim, SimTime::from_secs(3), SimTime::from_ms(1));
    finish(&sim);
    let rd = link(&sim, "R->d");
    let drops = rd.stats.drops.iter().sum::<u64>();
    let min_rto = SimTime::from_ms(200);
    let mut fcts = Vec::new();
    for (k, f) in sim.flows.records().enumerate() {
        let fct = f.fct().expect("every flow completes");
        assert_eq!(f.stats.bytes_received, 14_600);
        assert_eq!(f.stats.pkts_dropped, u64::from(per_flow[k]), "flow {k}");
        if per_flow[k] > 0 {
            assert!(f.stats.timeouts >= 1, "flow {k} lost packets without an RTO");
        }
        if f.stats.timeouts > 0 {
            assert!(fct >= min_rto, "flow {k}: FCT {fct} < min RTO after a timeout");
        }
        fcts.push(fct.as_secs_f64());
    }
    let timed_out = sim.flows.records().filter(|f| f.stats.timeouts > 0).count();
    let mean = fcts.iter().sum::<f64>() / fcts.len() as f64;
    eprintln!(
        "incast droptail: drops {drops} (model {model_drops}, per flow {per_flow:?}), \
         {timed_out}/10 flows timed out, mean FCT {mean:.4} s, FCTs {:?}",
        fcts.iter().map(|x| format!("{x:.4}")).collect::<Vec<_>>()
    );
    assert_eq!(drops, model_drops);
    assert!(drops > 0);
    assert_eq!(rd.stats.max_pkts, 50, "the queue filled to its limit");
}
