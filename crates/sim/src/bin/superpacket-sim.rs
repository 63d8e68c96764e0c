//! `superpacket-sim FILE.toml [SEED]`: runs a scenario and prints the JSON summary and
//! flow table. The Python CLI (`superpacket`) is the full front end; this binary is for
//! Rust-only use and profiling.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: superpacket-sim FILE.toml [SEED]");
        return ExitCode::from(2);
    };
    let seed = args.get(2).and_then(|s| s.parse().ok());
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("superpacket-sim: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let sc = match sim::Scenario::from_toml_str(&text).and_then(|sc| sc.build(seed).map(|s| (sc, s))) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("superpacket-sim: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let (sc, mut s) = sc;
    s.run_until(sc.duration.0);
    let r = sim::results::collect(&s, &sc.name);
    let out = serde_json::json!({ "summary": r.summary, "flows": r.flows.to_json() });
    println!("{}", serde_json::to_string_pretty(&out).expect("json"));
    ExitCode::SUCCESS
}
