//! `superpacket-sim FILE.toml [SEED] [--out DIR]`: runs a scenario and prints the JSON
//! summary and flow table. The Python CLI (`superpacket`) is the full front end; this
//! binary is for Rust-only use, profiling and the training runs of the profile-guided
//! build (scripts/pgo-build.sh). A scenario whose `[output] pcap` traces links needs
//! `--out DIR`: the pcap files are written there (trace/mod.rs).
//! `superpacket-sim --p1 SECONDS`: benchmark scenario P1 (bench.rs), its JSON figures.
//! `superpacket-sim --window PACKETS newreno|sack SECONDS`: one flow at a large window
//! with 1 % loss (bench.rs `run_window`), the per-packet cost of loss recovery.
//! `superpacket-sim --fast-burstiness SECONDS TXQUEUELEN on|off`: the 622 Mb/s x 360 ms
//! FAST setting of seeds/003 (bench.rs `run_fast_burstiness`), burstiness control on or
//! off: wall time and memory over simulated time.
//! `superpacket-sim --datacenter HOSTS SECONDS WARMUP`: the datacenter benchmark (bench.rs
//! `run_datacenter`: web search at 50 % load, DCTCP, on a fabric of HOSTS hosts).
//! `superpacket-sim --riops-web SECONDS`: riops-web Exp1 with RIO-PS (bench.rs
//! `run_riops_web`): peak RSS and flows finished, memory over simulated time.
//! `superpacket-sim --schema-md` / `--schema-json`: the scenario schema reference
//! (docs/schema.md) or its JSON Schema (docs/scenario.schema.json), generated from the
//! scenario types (schema.rs); `make schema` writes both.

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str =
    "usage: superpacket-sim FILE.toml [SEED] [--out DIR] | --p1 SECONDS | --window PACKETS newreno|sack SECONDS | --fast-burstiness SECONDS TXQUEUELEN on|off | --riops-web SECONDS | --datacenter HOSTS SECONDS WARMUP | --schema-md | --schema-json";

fn fail(msg: &str) -> ExitCode {
    eprintln!("superpacket-sim: {msg}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut path = None;
    let mut seed = None;
    let mut out: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--schema-md" {
            println!("{}", sim::scenario::schema::markdown());
            return ExitCode::SUCCESS;
        }
        if a == "--schema-json" {
            print!("{}", sim::scenario::schema::json_text());
            return ExitCode::SUCCESS;
        }
        if a == "--window" {
            // --window PACKETS RECOVERY SECONDS: bench::run_window
            let w = args.next().and_then(|x| x.parse::<u32>().ok());
            let r = args.next();
            let secs = args.next().and_then(|d| d.parse::<f64>().ok());
            let (Some(w), Some(r), Some(secs)) = (w, r, secs) else {
                return fail("--window needs PACKETS newreno|sack SECONDS");
            };
            return match sim::bench::run_window(w, &r, secs) {
                Ok(v) => {
                    println!("{}", serde_json::to_string_pretty(&v).expect("json"));
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&format!("--window: {e}")),
            };
        }
        if a == "--fast-burstiness" {
            let secs = args.next().and_then(|d| d.parse::<f64>().ok());
            let txq = args.next().and_then(|x| x.parse::<u32>().ok()).filter(|&q| q > 0);
            let gate = match args.next().as_deref() {
                Some("on") => Some(true),
                Some("off") => Some(false),
                _ => None,
            };
            let (Some(secs), Some(txq), Some(gate)) = (secs, txq, gate) else {
                return fail("--fast-burstiness needs SECONDS TXQUEUELEN (>= 1) on|off");
            };
            return match sim::bench::run_fast_burstiness(secs, txq, gate) {
                Ok(v) => {
                    println!("{}", serde_json::to_string_pretty(&v).expect("json"));
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&format!("--fast-burstiness: {e}")),
            };
        }
        if a == "--datacenter" {
            let hosts = args.next().and_then(|x| x.parse::<u32>().ok());
            let secs = args.next().and_then(|d| d.parse::<f64>().ok());
            let warm = args.next().and_then(|d| d.parse::<f64>().ok());
            let (Some(hosts), Some(secs), Some(warm)) = (hosts, secs, warm) else {
                return fail("--datacenter needs HOSTS (16, 128, 144, 1024) SECONDS WARMUP_SECONDS");
            };
            return match sim::bench::run_datacenter(hosts, secs, warm) {
                Ok(v) => {
                    println!("{}", serde_json::to_string_pretty(&v).expect("json"));
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&format!("--datacenter: {e}")),
            };
        }
        if a == "--riops-web" {
            let Some(secs) = args.next().and_then(|d| d.parse::<f64>().ok()) else {
                return fail("--riops-web needs the simulated seconds");
            };
            return match sim::bench::run_riops_web(secs) {
                Ok(v) => {
                    println!("{}", serde_json::to_string_pretty(&v).expect("json"));
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&format!("--riops-web: {e}")),
            };
        }
        if a == "--p1" {
            let secs = args.next().and_then(|d| d.parse::<f64>().ok());
            let Some(secs) = secs else { return fail("--p1 needs the simulated seconds") };
            return match sim::bench::run_p1(secs) {
                Ok(v) => {
                    println!("{}", serde_json::to_string_pretty(&v).expect("json"));
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&format!("--p1: {e}")),
            };
        } else if a == "--out" {
            match args.next() {
                Some(d) => out = Some(PathBuf::from(d)),
                None => return fail("--out needs a folder"),
            }
        } else if path.is_none() {
            path = Some(a);
        } else if seed.is_none() {
            match a.parse::<u64>() {
                Ok(s) => seed = Some(s),
                Err(_) => return fail(&format!("SEED must be a non-negative integer, not {a:?}")),
            }
        } else {
            return fail(&format!("unexpected argument {a:?}; {USAGE}"));
        }
    }
    let Some(path) = path else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => return fail(&format!("{path}: {e}")),
    };
    let (sc, mut s) = match sim::Scenario::from_toml_str(&text).and_then(|sc| sc.build(seed).map(|s| (sc, s))) {
        Ok(x) => x,
        Err(e) => return fail(&format!("{path}: {e}")),
    };
    let traced = !s.traced_links().is_empty();
    if traced && out.is_none() {
        return fail(&format!("{path}: output.pcap traces links; give --out DIR for the pcap files"));
    }
    s.run_until(sc.duration.0);
    let r = sim::output::results::collect(&s, &sc.name);
    let mut json = serde_json::json!({ "summary": r.summary, "flows": r.flows.to_json(), "links": r.links.to_json() });
    if !r.flow_series.columns.is_empty() && r.flow_series.get("t_s").is_some_and(|c| !c.is_empty()) {
        json["flow_series"] = r.flow_series.to_json();
    }
    if r.sources.get("source_id").is_some_and(|c| !c.is_empty()) {
        json["sources"] = r.sources.to_json();
        json["probe_trains"] = r.probe_trains.to_json();
    }
    if r.monitor.get("t_s").is_some_and(|c| !c.is_empty()) {
        json["monitor"] = r.monitor.to_json();
    }
    if let (true, Some(dir)) = (traced, out.as_deref()) {
        match s.write_pcaps(dir) {
            Ok(files) => {
                json["pcap"] = files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().into();
            }
            Err(e) => return fail(&format!("--out {}: {e}", dir.display())),
        }
    }
    println!("{}", serde_json::to_string_pretty(&json).expect("json"));
    ExitCode::SUCCESS
}
