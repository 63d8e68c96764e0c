//! Check 8: bad scenario files give an error naming the field, never a panic.

use sim::core::rng::Rng;
use sim::Scenario;

const VALID: &str = r#"
name = "valid"
duration = "2s"
seed = 3

[topology]
kind = "dumbbell"
pairs = 2
access = { rate = "100Mbps", delay = "1ms" }
bottleneck = { rate = "10Mbps", delay = "20ms", loss = 0.001, queue = { kind = "red", limit = 100, min_th = 5, max_th = 15, p_max = 0.1, ecn = true } }

[tcp]
init_cwnd = 10
min_rto = "200ms"

[[traffic]]
kind = "bulk"
from = "s{i}"
to = "d{i}"
count = 2
start_jitter = "100ms"

[[traffic]]
kind = "poisson"
from = "s0"
to = "d1"
rate_per_s = 5.0
size_pkts = 10
stop = "1s"
tcp = { ecn = true, init_cwnd = 4 }

[output]
sample_queues = ["R1->R2"]
sample_interval = "10ms"
"#;

/// Parse then build, as a front end does; the error of whichever step fails.
fn load(s: &str) -> Result<(), String> {
    Scenario::from_toml_str(s)?.build(Some(1)).map(|_| ())
}

/// `VALID` with `from` replaced by `to` (exactly once).
fn mutate(from: &str, to: &str) -> String {
    assert_eq!(VALID.matches(from).count(), 1, "{from:?} must occur once");
    VALID.replacen(from, to, 1)
}

#[test]
fn bad_input_names_the_field() {
    assert_eq!(load(VALID), Ok(()));
    // (file, words the error must contain)
    let cases: Vec<(String, Vec<&str>)> = vec![
        // unknown field, top level and nested
        (mutate("seed = 3", "seed = 3\ncolour = \"red\""), vec!["colour"]),
        (mutate("min_rto = \"200ms\"", "min_rto = \"200ms\"\nmin_rtt = \"1ms\""), vec!["min_rtt"]),
        (mutate("start_jitter = \"100ms\"", "start_jiter = \"100ms\""), vec!["start_jiter"]),
        (mutate("access = { rate", "access = { speed = 1, rate"), vec!["speed"]),
        // wrong type
        (mutate("duration = \"2s\"", "duration = 2"), vec!["duration"]),
        (mutate("pairs = 2", "pairs = \"two\""), vec!["pairs"]),
        (mutate("init_cwnd = 10", "init_cwnd = \"ten\""), vec!["init_cwnd"]),
        // bad units
        (mutate("\"10Mbps\"", "\"10Gbs\""), vec!["rate", "10Gbs"]),
        (mutate("delay = \"20ms\"", "delay = \"20 fortnights\""), vec!["delay"]),
        (mutate("\"10Mbps\"", "\"-10Mbps\""), vec!["rate"]),
        // bad queue kind and parameters
        (mutate("kind = \"red\"", "kind = \"fifo\""), vec!["fifo"]),
        (mutate("max_th = 15", "max_th = 2"), vec!["max_th"]),
        (mutate("p_max = 0.1", "p_max = 1.5"), vec!["p_max"]),
        // loss out of range
        (mutate("loss = 0.001", "loss = -0.1"), vec!["loss"]),
        (mutate("loss = 0.001", "loss = 1.5"), vec!["loss"]),
        // unknown node in traffic, unknown link in output
        (mutate("to = \"d1\"", "to = \"d9\""), vec!["traffic[1].to", "d9"]),
        (mutate("from = \"s{i}\"", "from = \"x{i}\""), vec!["traffic[0].from", "x0"]),
        (mutate("[\"R1->R2\"]", "[\"R1->R9\"]"), vec!["sample_queues", "R1->R9"]),
        // other semantic errors
        (mutate("rate_per_s = 5.0", "rate_per_s = -5.0"), vec!["rate_per_s"]),
        (mutate("init_cwnd = 4", "init_cwnd = 0"), vec!["init_cwnd"]),
        (mutate("min_rto = \"200ms\"", "cc = \"westwood\""), vec!["tcp.cc", "westwood"]),
        (mutate("kind = \"bulk\"", "kind = \"bulky\""), vec!["bulky"]),
        (mutate("duration = \"2s\"", "duration = \"0s\""), vec!["duration"]),
        (mutate("duration = \"2s\"\n", ""), vec!["duration"]),
        (mutate("pairs = 2", "pairs = 0"), vec!["pairs"]),
        (mutate("size_pkts = 10", ""), vec!["size"]),
        // burstiness control, ACK batching, the monitor (issue 11)
        (mutate("min_rto = \"200ms\"", "gate = { kind = \"burstiness\", threshold = -1 }"), vec!["tcp.gate.threshold"]),
        (
            mutate("min_rto = \"200ms\"", "gate = { kind = \"burstiness\", estimator = \"psychic\" }"),
            vec!["tcp.gate.estimator", "psychic"],
        ),
        (mutate("min_rto = \"200ms\"", "gate = { kind = \"burstiness\", gain = 2.0 }"), vec!["tcp.gate.gain"]),
        (mutate("min_rto = \"200ms\"", "gate = { kind = \"burstiness\", treshold = 5 }"), vec!["treshold"]),
        (mutate("min_rto = \"200ms\"", "ack_batch = { pkts = 0, timeout = \"1ms\" }"), vec!["tcp.ack_batch.pkts"]),
        (mutate("min_rto = \"200ms\"", "ack_batch = { pkts = 8, timeout = \"0s\" }"), vec!["tcp.ack_batch.timeout"]),
        (mutate("min_rto = \"200ms\"", "ack_batch = { pkts = 8 }"), vec!["timeout"]),
        (
            mutate("sample_interval = \"10ms\"", "monitor = { link = \"R9->R2\", interval = \"1ms\" }"),
            vec!["output.monitor.link", "R9->R2"],
        ),
        (
            mutate("sample_interval = \"10ms\"", "monitor = { link = \"R1->R2\", interval = \"0s\" }"),
            vec!["output.monitor.interval"],
        ),
        (
            mutate("sample_interval = \"10ms\"", "monitor = { link = \"R1->R2\", interval = \"1ns\" }"),
            vec!["output.monitor.interval"],
        ),
        // durations past the limit (10^7 s): once an endless route search (1e300 s), a
        // silently shortened run (1e12 s) or a wrapped start
        (mutate("delay = \"20ms\"", "delay = \"1e300s\""), vec!["delay", "limit"]),
        (mutate("delay = \"20ms\"", "delay = \"18446744073s\""), vec!["delay", "limit"]),
        (mutate("duration = \"2s\"", "duration = \"1e12s\""), vec!["duration", "limit"]),
        (mutate("start_jitter = \"100ms\"", "start_jitter = \"1e300s\""), vec!["start_jitter", "limit"]),
        // sizes past their limits (once: allocation until abort)
        (mutate("pairs = 2", "pairs = 100000000"), vec!["topology.pairs", "100000"]),
        (mutate("sample_interval = \"10ms\"", "sample_interval = \"1ns\""), vec!["output.sample_interval", "rows"]),
        (
            mutate("sample_interval = \"10ms\"", "sample_interval = \"10ms\"\nsample_flows = \"1ns\""),
            vec!["output.sample_flows"],
        ),
        // not TOML at all
        (mutate("[output]", "[output"), vec!["TOML"]),
    ];
    for (file, words) in cases {
        let err = match load(&file) {
            Ok(()) => panic!("accepted a bad file (expected an error naming {words:?}):\n{file}"),
            Err(e) => e,
        };
        for w in &words {
            assert!(err.contains(w), "error {err:?} does not name {w:?}");
        }
        eprintln!("bad input -> {err}");
    }
}

/// A rate that rounds to 0 bit/s must be refused: every serialisation time divides by it.
#[test]
fn sub_bit_rate_is_refused() {
    let file = mutate("\"10Mbps\"", "\"0.1bps\"");
    let r = std::panic::catch_unwind(|| load(&file));
    match r {
        Ok(Err(e)) => assert!(e.contains("rate"), "{e}"),
        Ok(Ok(())) => panic!("0.1bps accepted"),
        Err(_) => panic!("0.1bps panicked"),
    }
}

/// Whether building `text` stays small (a mutation can turn `pairs = 2` into 2222222):
/// node and flow counts read from the raw TOML, independent of the schema types.
fn modest(text: &str) -> bool {
    let Ok(v) = toml::from_str::<serde_json::Value>(text) else {
        return true; // not TOML: from_toml_str refuses it before building
    };
    let small = |x: Option<&serde_json::Value>| x.and_then(|x| x.as_u64()).is_none_or(|n| n <= 1000);
    let topo = &v["topology"];
    let nodes = topo.get("nodes").and_then(|n| n.as_array()).map_or(0, Vec::len);
    ["pairs", "senders", "routers"].iter().all(|k| small(topo.get(k)))
        && nodes <= 1000
        && v["traffic"].as_array().is_none_or(|t| t.iter().all(|t| small(t.get("count"))))
}

/// Random mutations of a valid file: parse and build return Ok or Err, never panic.
/// Mutations: delete, insert or replace a character; replace a number by an odd one
/// (negative, zero, huge, NaN, inf, fractional); delete, duplicate or swap lines.
#[test]
fn random_mutations_never_panic() {
    const ODD: [&str; 12] =
        ["-1", "0", "1e400", "nan", "inf", "-inf", "0.5", "9223372036854775807", "\"\"", "[]", "{}", "true"];
    const CHARS: &[u8] = b"=\"{}[],.#0123456789-_ \nabcdefgkmsuxyzGMbp";
    let mut rng = Rng::new(2024);
    let (mut ok, mut err) = (0, 0);
    for i in 0..400 {
        let mut s: Vec<u8> = VALID.as_bytes().to_vec();
        for _ in 0..1 + (i % 3) {
            let pos = rng.range_u64(0, s.len() as u64 - 1) as usize;
            match rng.range_u64(0, 5) {
                0 => {
                    s.remove(pos);
                }
                1 => s.insert(pos, CHARS[rng.range_u64(0, CHARS.len() as u64 - 1) as usize]),
                2 => s[pos] = CHARS[rng.range_u64(0, CHARS.len() as u64 - 1) as usize],
                3 => {
                    // replace the number (run of digits) at or after pos
                    if let Some(st) = s[pos..].iter().position(u8::is_ascii_digit) {
                        let st = pos + st;
                        let en = st + s[st..].iter().take_while(|c| c.is_ascii_digit() || **c == b'.').count();
                        let odd = ODD[rng.range_u64(0, ODD.len() as u64 - 1) as usize];
                        s.splice(st..en, odd.bytes());
                    }
                }
                _ => {
                    let text = String::from_utf8_lossy(&s).into_owned();
                    let mut lines: Vec<&str> = text.lines().collect();
                    let a = rng.range_u64(0, lines.len() as u64 - 1) as usize;
                    let b = rng.range_u64(0, lines.len() as u64 - 1) as usize;
                    match rng.range_u64(0, 2) {
                        0 => {
                            lines.remove(a);
                        }
                        1 => lines.insert(a, lines[b]),
                        _ => lines.swap(a, b),
                    }
                    s = lines.join("\n").into_bytes();
                }
            }
        }
        let text = String::from_utf8_lossy(&s).into_owned();
        let r = std::panic::catch_unwind(|| {
            let sc = Scenario::from_toml_str(&text)?;
            if modest(&text) {
                sc.build(Some(1)).map(|_| ())
            } else {
                Ok(())
            }
        });
        match r {
            Ok(Ok(())) => ok += 1,
            Ok(Err(_)) => err += 1,
            Err(_) => panic!("mutation {i} panicked on:\n{text}"),
        }
    }
    eprintln!("random mutations: {ok} accepted, {err} refused, 0 panics");
    assert!(err > 0 && ok > 0);
}
