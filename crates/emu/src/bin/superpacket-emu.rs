//! superpacket-emu CONFIG.json          forward until SIGINT/SIGTERM, then write the counters
//! superpacket-emu offloads-off IF...   turn TSO, GSO, GRO, SG and tx checksum offload off
//! superpacket-emu blast IF DST_MAC SRC_MAC SRC_IP DST_IP PAYLOAD SECONDS
//!                                      send one UDP frame as fast as it goes (blast.rs);
//!                                      prints "sent N refused M"
//!
//! `superpacket emulate` starts it inside the router's network namespace; it prints
//! `ready` on stdout once every port's socket is bound. SIGUSR1 starts the counters'
//! window afresh (when the traffic starts).

use emu::config::Config;
use emu::router::Router;
use emu::sys;
use std::io::Write;
use std::process::ExitCode;

fn fail(msg: String) -> ExitCode {
    eprintln!("superpacket-emu: {msg}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("offloads-off") if args.len() > 1 => {
            for name in &args[1..] {
                if let Err(e) = sys::offloads_off(name) {
                    return fail(e.to_string());
                }
            }
            ExitCode::SUCCESS
        }
        Some("blast") if args.len() == 8 => blast(&args[1..]),
        Some("--version") => {
            println!("superpacket-emu {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Some(path) if args.len() == 1 && !path.starts_with('-') => run(path),
        _ => fail(
            "usage: superpacket-emu CONFIG.json | offloads-off IFNAME... | blast IF DST_MAC SRC_MAC SRC_IP DST_IP PAYLOAD SECONDS"
                .into(),
        ),
    }
}

fn blast(a: &[String]) -> ExitCode {
    use emu::config::parse_mac;
    use std::net::Ipv4Addr;
    let parsed = (|| -> Result<_, String> {
        let ip = |s: &String| s.parse::<Ipv4Addr>().map_err(|e| format!("{s}: {e}"));
        let num = |s: &String| s.parse::<f64>().map_err(|e| format!("{s}: {e}"));
        // a UDP payload that fits a 1500-byte frame (IPv4 20 + UDP 8), for at most an hour
        let payload = match a[5].parse::<usize>() {
            Ok(p) if p <= 1472 => p,
            _ => return Err(format!("PAYLOAD: a whole number of bytes in 0..1472 (got {:?})", a[5])),
        };
        let seconds = num(&a[6])?;
        if !(seconds.is_finite() && (0.0..=3600.0).contains(&seconds)) {
            return Err(format!("SECONDS: a number in 0..3600 (got {:?})", a[6]));
        }
        Ok((parse_mac(&a[1])?, parse_mac(&a[2])?, ip(&a[3])?, ip(&a[4])?, payload, seconds))
    })();
    let (dst_mac, src_mac, src, dst, payload, seconds) = match parsed {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let frame = emu::blast::udp_frame(dst_mac, src_mac, src, dst, payload);
    match emu::blast::blast(&a[0], &frame, seconds) {
        Ok((sent, refused)) => {
            println!("sent {sent} refused {refused}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(e.to_string()),
    }
}

fn run(path: &str) -> ExitCode {
    // read, parse and check everything before the process changes anything about itself
    let cfg = match Config::read(path) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let stats_path = cfg.stats_path.clone();
    if cfg.rt_priority > 0 {
        if let Err(e) = sys::realtime(cfg.rt_priority) {
            eprintln!("superpacket-emu: warning: {e}: timing will suffer under load");
        }
    }
    sys::install_signal_handlers();
    sys::tight_timers();
    let mut r = match Router::new(cfg) {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    println!("ready");
    let _ = std::io::stdout().flush();
    let res = r.run();
    let tmp = format!("{stats_path}.partial");
    if let Err(e) = std::fs::write(&tmp, r.stats_json() + "\n").and_then(|_| std::fs::rename(&tmp, &stats_path)) {
        return fail(format!("{stats_path}: {e}"));
    }
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("superpacket-emu: {e}");
            ExitCode::from(1)
        }
    }
}
