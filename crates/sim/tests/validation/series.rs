//! The per-flow time series (`output.sample_flows`): the sender's cwnd, ssthresh and
//! smoothed RTT beside the bytes received, checked against hand arithmetic.

use crate::common::*;
use sim::output::results::{collect, Column};

fn f64s(c: Option<&Column>) -> Vec<f64> {
    match c {
        Some(Column::F64(v)) => v.clone(),
        other => panic!("not an f64 column: {other:?}"),
    }
}

fn opt(c: Option<&Column>) -> Vec<Option<f64>> {
    match c {
        Some(Column::OptF64(v)) => v.clone(),
        other => panic!("not an optional f64 column: {other:?}"),
    }
}

/// One packet in flight at a time (initial and fixed window 1) over an idle dumbbell.
/// The SYN-ACK's sample (40 B both ways): 2 x (0.32 us + 1 ms, 32 us + 10 ms, 0.32 us and
/// 1 ms) = 24,065,280 ns. Every data sample, 1500 B out (12 us + 1 ms at 1 Gbps, 1.2 ms
/// and 10 ms at 10 Mbps, 12 us + 1 ms) and a 40 B ACK back (0.32 us + 1 ms, 32 us + 10 ms,
/// 0.32 us + 1 ms): R = 25,256,640 ns. RFC 6298 2.3 moves SRTT 1/8 of the way to R per
/// sample, so SRTT rises monotonically from 24.07 ms towards R; after the ~78 samples of
/// 2 s the gap is 1,191,360 ns x (7/8)^78, about 35 ns, plus at most 8 ns of integer
/// rounding: within 100 ns. cwnd stays 1 and ssthresh is never set (null).
#[test]
fn series_srtt_cwnd_ssthresh() {
    let toml = r#"
duration = "2s"
[tcp]
cc = { kind = "fixed", window = 1 }
init_cwnd = 1
[topology]
kind = "dumbbell"
pairs = 1
access = { rate = "1Gbps", delay = "1ms" }
bottleneck = { rate = "10Mbps", delay = "10ms" }
[[traffic]]
kind = "bulk"
from = "s0"
to = "d0"
[output]
sample_flows = "100ms"
"#;
    let sim = run(toml, 1);
    let r = collect(&sim, "x");
    let fs = &r.flow_series;
    let t = f64s(fs.get("t_s"));
    assert_eq!(t.len(), 21); // 0, 0.1, ..., 2.0 s
    let srtt: Vec<Option<f64>> = opt(fs.get("srtt_s"));
    assert_eq!(srtt[0], None); // before the SYN-ACK
    let s: Vec<f64> = srtt[1..].iter().map(|x| x.unwrap()).collect();
    assert!(s[0] > 0.024_065_280 && s.windows(2).all(|w| w[0] <= w[1]), "{s:?}");
    assert!((s[s.len() - 1] - 0.025_256_640).abs() < 100e-9, "{s:?}");
    assert!(f64s(fs.get("cwnd_pkts")).iter().all(|&c| c == 1.0));
    assert!(opt(fs.get("ssthresh_pkts")).iter().all(|s| s.is_none()));
}

/// A NewReno flow into a 20-packet buffer: once it has lost, the series shows ssthresh
/// (>= 2, RFC 5681 eq. 4) and samples in recovery. In the sawtooth that follows, a loss
/// comes when the window passes the pipe, BDP + buffer = 10 Mbps x 25.26 ms / 1500 B =
/// 21.05 + 20 = 41 packets, so ssthresh = FlightSize / 2 is about 20.5: the last one
/// lies in [15, 25].
#[test]
fn series_shows_the_reduction() {
    let toml = r#"
duration = "20s"
[topology]
kind = "dumbbell"
pairs = 1
access = { rate = "1Gbps", delay = "1ms" }
bottleneck = { rate = "10Mbps", delay = "10ms", queue = { kind = "droptail", limit = 20 } }
[[traffic]]
kind = "bulk"
from = "s0"
to = "d0"
[output]
sample_flows = "10ms"
"#;
    let sim = run(toml, 1);
    assert!(sim.flows.record(0).stats.fast_retransmits > 0);
    let r = collect(&sim, "x");
    let ss = opt(r.flow_series.get("ssthresh_pkts"));
    let first = ss.iter().position(|s| s.is_some()).expect("a reduction shows");
    assert!(ss[first..].iter().all(|s| s.is_some_and(|v| v >= 2.0)));
    let last = ss.last().unwrap().unwrap();
    assert!((15.0..=25.0).contains(&last), "last ssthresh {last}");
    match r.flow_series.get("in_recovery") {
        Some(Column::Bool(v)) => assert!(v.iter().any(|&b| b)),
        other => panic!("{other:?}"),
    }
}
