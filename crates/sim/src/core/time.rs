//! Integer simulated time and the units of the field.
//!
//! Time is a count of nanoseconds (`SimTime(u64)`), as htsim counts picoseconds
//! (sim/config.h): no float drift, exact ties. Floats appear only at the edges
//! (scenario files, Python).

use std::fmt;

/// A point in (or span of) simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_ns(ns: u64) -> Self {
        SimTime(ns)
    }
    pub const fn from_us(us: u64) -> Self {
        SimTime(us * 1_000)
    }
    pub const fn from_ms(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * 1_000_000_000)
    }
    /// Rounds to the nearest nanosecond.
    pub fn from_secs_f64(s: f64) -> Self {
        SimTime((s * 1e9).round().max(0.0) as u64)
    }
    pub const fn ns(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    pub fn saturating_sub(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(o.0))
    }
}

impl std::ops::Add for SimTime {
    type Output = SimTime;
    fn add(self, o: SimTime) -> SimTime {
        SimTime(self.0 + o.0)
    }
}

impl std::ops::Sub for SimTime {
    type Output = SimTime;
    fn sub(self, o: SimTime) -> SimTime {
        SimTime(self.0 - o.0)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

/// A link rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct BitsPerSec(pub u64);

impl BitsPerSec {
    /// Serialisation time of `bytes` at this rate: bytes * 8 / rate, rounded to the
    /// nearest nanosecond (exact for the usual rates: 1500 B at 10 Gbps = 1200 ns).
    pub fn tx_time(self, bytes: u32) -> SimTime {
        // bytes * 8e9 fits in u64 for packets below 2 GB: 64-bit division suffices.
        let num = bytes as u64 * 8_000_000_000;
        let r = self.0;
        SimTime((num + r / 2) / r)
    }
}

/// `t` without its unit `u`, the unit matched in any case ("100mbps", "25US").
fn strip_unit<'a>(t: &'a str, u: &str) -> Option<&'a str> {
    let cut = t.len().checked_sub(u.len())?;
    (t.is_char_boundary(cut) && t[cut..].eq_ignore_ascii_case(u)).then(|| &t[..cut])
}

/// Parses "10Gbps", "1.25Mbps", "100 Mbps", "9600bps"; the unit in any case ("100mbps").
pub fn parse_rate(s: &str) -> Result<BitsPerSec, String> {
    let t = s.trim();
    let units: [(&str, f64); 4] = [("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3), ("bps", 1.0)];
    for (u, mult) in units {
        if let Some(num) = strip_unit(t, u) {
            let v: f64 = num
                .trim()
                .parse()
                .map_err(|_| format!("bad rate {s:?}: expected a number followed by Gbps, Mbps, Kbps or bps"))?;
            if v.is_nan() || v <= 0.0 || !v.is_finite() {
                return Err(format!("bad rate {s:?}: must be > 0"));
            }
            let bps = (v * mult).round();
            if bps < 1.0 {
                return Err(format!("bad rate {s:?}: must be >= 1 bps"));
            }
            return Ok(BitsPerSec(bps as u64));
        }
    }
    Err(format!("bad rate {s:?}: expected a number followed by Gbps, Mbps, Kbps or bps (e.g. \"100Mbps\")"))
}

/// Parses "25us", "1ms", "0.1s", "500ns".
/// The longest duration a scenario may give anywhere (a run, a delay, a start, a jitter):
/// 10^7 s (115 days). The clock (u64 ns) holds 1.8 x 10^10 s; the margin keeps every sum
/// of a few thousand such values (a start plus its jitter, a route's delays, a timer
/// backed off) exact instead of wrapping.
pub const MAX_DURATION_NS: u64 = 10_000_000 * 1_000_000_000;

pub fn parse_duration(s: &str) -> Result<SimTime, String> {
    let t = s.trim();
    let units: [(&str, f64); 4] = [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9)];
    for (u, mult) in units {
        if let Some(num) = strip_unit(t, u) {
            let v: f64 = num
                .trim()
                .parse()
                .map_err(|_| format!("bad duration {s:?}: expected a number followed by ns, us, ms or s"))?;
            if v.is_nan() || v < 0.0 || !v.is_finite() {
                return Err(format!("bad duration {s:?}: must be >= 0"));
            }
            let ns = (v * mult).round();
            if ns > MAX_DURATION_NS as f64 {
                return Err(format!(
                    "bad duration {s:?}: past the simulator's limit of {} s for any one duration",
                    MAX_DURATION_NS / 1_000_000_000
                ));
            }
            return Ok(SimTime(ns as u64));
        }
    }
    Err(format!("bad duration {s:?}: expected a number followed by ns, us, ms or s (e.g. \"25us\")"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialisation_arithmetic() {
        assert_eq!(BitsPerSec(10_000_000_000).tx_time(1500), SimTime(1200));
        assert_eq!(BitsPerSec(100_000_000).tx_time(1500), SimTime(120_000));
        assert_eq!(BitsPerSec(1_000_000_000).tx_time(40), SimTime(320));
        assert_eq!(BitsPerSec(1_250_000).tx_time(500), SimTime(3_200_000));
    }

    #[test]
    fn parse_units() {
        // units in any case: the parser has no byte rates, so "mbps" can only be megabits
        assert_eq!(parse_rate("100mbps").unwrap(), BitsPerSec(100_000_000));
        assert_eq!(parse_rate("10GBPS").unwrap(), BitsPerSec(10_000_000_000));
        assert_eq!(parse_duration("25US").unwrap(), SimTime(25_000));
        assert_eq!(parse_duration("200Ms").unwrap(), SimTime(200_000_000));
        assert!(parse_rate("100µbps").is_err());
        assert_eq!(parse_rate("10Gbps").unwrap(), BitsPerSec(10_000_000_000));
        assert_eq!(parse_rate("1.25Mbps").unwrap(), BitsPerSec(1_250_000));
        assert_eq!(parse_duration("25us").unwrap(), SimTime(25_000));
        assert_eq!(parse_duration("0.1s").unwrap(), SimTime(100_000_000));
        assert!(parse_rate("10 furlongs").is_err());
        assert!(parse_duration("-1ms").is_err());
        // the limit, 10^7 s: accepted at it, refused past it and past the clock (u64 ns
        // is 18,446,744,073.7 s; 1e300 s once wrapped or saturated silently)
        assert_eq!(parse_duration("10000000s").unwrap(), SimTime(10_000_000_000_000_000));
        for bad in ["10000001s", "18446744073s", "18446744073709551616ns", "1e300s", "1e12s"] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.contains("limit") && e.contains(bad), "{e}");
        }
    }
}
