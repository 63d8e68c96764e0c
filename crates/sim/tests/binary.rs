//! The Rust-only binary: exit codes and the pcap files of `[output] pcap`.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_superpacket-sim");

const SCENARIO: &str = r#"
name = "two-hosts"
duration = "50ms"
[topology]
kind = "dumbbell"
pairs = 1
access = { rate = "100Mbps", delay = "1ms" }
bottleneck = { rate = "10Mbps", delay = "5ms" }
[[traffic]]
kind = "flow"
from = "s0"
to = "d0"
size_pkts = 10
start = "0s"
[output]
pcap = ["all"]
"#;

fn scenario(dir: &std::path::Path) -> std::path::PathBuf {
    let f = dir.join("s.toml");
    std::fs::write(&f, SCENARIO).unwrap();
    f
}

#[test]
fn pcap_scenario_needs_out_and_writes_one_file_per_link() {
    let tmp = std::env::temp_dir().join(format!("superpacket-bin-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let f = scenario(&tmp);

    let no_out = Command::new(BIN).arg(&f).output().unwrap();
    assert_eq!(no_out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&no_out.stderr);
    assert!(err.contains("--out") && err.lines().count() == 1, "{err}");

    let out = tmp.join("traces");
    let ok = Command::new(BIN).arg(&f).arg("7").arg("--out").arg(&out).output().unwrap();
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let v: serde_json::Value = serde_json::from_slice(&ok.stdout).unwrap();
    let files: Vec<String> = v["pcap"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect();
    assert_eq!(files.len(), 6, "{files:?}"); // 3 links each way
    for p in &files {
        let b = std::fs::read(p).unwrap();
        // pcap global header: nanosecond magic, little-endian (trace/pcap_writer.rs)
        assert_eq!(&b[..4], &0xa1b2_3c4du32.to_le_bytes(), "{p}");
        assert!(b.len() > 24, "{p}: no packet");
    }
    std::fs::remove_dir_all(&tmp).ok();
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    for args in [vec!["a.toml", "x"], vec!["a.toml", "1", "2"], vec!["a.toml", "--out"], vec!["/nonexistent.toml"]] {
        let r = Command::new(BIN).args(&args).output().unwrap();
        assert_eq!(r.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&r.stderr).lines().count(), 1, "{args:?}");
    }
}
