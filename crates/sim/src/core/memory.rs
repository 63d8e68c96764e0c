//! The run's memory, estimated before it is allocated (issue 14, hostile sizes).
//!
//! Sizes whose cost adds up over a run (flows per traffic entry and over time, classifier
//! tables on every link that has one, Bloom filters, traced packets) are charged here
//! while the scenario is built, each before its allocation; when the sum passes the
//! budget the build stops with one line naming the field that contributes most:
//! `traffic[0].rate_per_s: the run would hold about 37.3 GB (budget 8.0 GB; ...)`.
//! Sizes with no additive cost have a hard limit at their field instead (`init_cwnd`,
//! web `objects_max`, classifier `max_flows`, ...).
//!
//! Per-unit costs, measured as the peak RSS of `superpacket.api.run` (the simulation and
//! its result tables in Python) against the count, on this machine (x86-64, glibc):
//! - a flow open at once (bulk, flow; 10^5 flows opened in 1 ms): 1.78 KB each,
//!   `LIVE_FLOW_BYTES` + `FLOW_ROW_BYTES`;
//! - a finished flow (poisson, 10^6 and 3 x 10^6 one-packet flows in 1 s): 590 B each,
//!   the 88-byte retired row (flows.rs) and its row of each result table on the way to
//!   Python: `FLOW_ROW_BYTES`;
//! - a classifier table: its slots, entries and free list, exactly (`classifier_bytes`);
//! - a traced packet: its record, exactly (`trace::RECORD_BYTES`, `Sim::charge_traces`), at line rate in
//!   packets of 1500 bytes.
//!
//! Not charged (bounded elsewhere or not known before the run): flows open at the same
//! time in open-loop traffic (the network's own business: a rate above the capacity
//! piles them up), closed-loop (back_to_back) flows after the first of each source,
//! the workload kind (refused above 10^7 expected flows, scenario/traffic/workload.rs), queued
//! packets (each queue's `limit`).
//!
//! The budget: `SUPERPACKET_MEMORY_BUDGET` (the machine's operator knows the machine)
//! over the scenario's `[output] memory_budget` over `DEFAULT_BUDGET`. The default is a
//! fixed 8 GB rather than a share of this machine's memory so that a scenario is
//! accepted or refused alike on every machine (a sweep's Dask workers, a colleague's
//! laptop): runs are deterministic, their refusals too.

/// The budget when neither the environment nor the scenario sets one: 8 GB.
pub const DEFAULT_BUDGET: u64 = 8_000_000_000;
/// The environment variable that sets the budget ("16GB", "512MB", bytes).
pub const BUDGET_ENV: &str = "SUPERPACKET_MEMORY_BUDGET";
/// A flow's sender and receiver state while it is open (bytes; measured, see above).
pub const LIVE_FLOW_BYTES: f64 = 1200.0;
/// A flow's share of the run's tables, from its retired row to the Python frames
/// (bytes; measured, see above).
pub const FLOW_ROW_BYTES: f64 = 600.0;

/// The run's memory, summed per field as the scenario is built.
#[derive(Clone, Debug)]
pub struct MemoryEstimate {
    budget: u64,
    /// (field, bytes), one entry per field.
    parts: Vec<(String, f64)>,
}

impl Default for MemoryEstimate {
    fn default() -> Self {
        MemoryEstimate { budget: DEFAULT_BUDGET, parts: Vec::new() }
    }
}

impl MemoryEstimate {
    /// An empty estimate refused above `budget` bytes.
    pub fn new(budget: u64) -> MemoryEstimate {
        MemoryEstimate { budget, parts: Vec::new() }
    }

    /// The budget from the environment, else `scenario`'s (`[output] memory_budget`),
    /// else `DEFAULT_BUDGET`.
    pub fn budget_of(scenario: Option<&str>) -> Result<u64, String> {
        if let Ok(v) = std::env::var(BUDGET_ENV) {
            if !v.trim().is_empty() {
                return parse_bytes(&v).map_err(|e| format!("{BUDGET_ENV}: {e}"));
            }
        }
        match scenario {
            Some(s) => parse_bytes(s).map_err(|e| format!("output.memory_budget: {e}")),
            None => Ok(DEFAULT_BUDGET),
        }
    }

    pub fn budget(&self) -> u64 {
        self.budget
    }

    /// The estimate so far (bytes).
    pub fn total(&self) -> f64 {
        self.parts.iter().map(|p| p.1).sum()
    }

    /// Sets `field`'s part to `bytes` (replacing what it held): as `charge`.
    pub fn set(&mut self, field: &str, bytes: f64) -> Result<(), String> {
        self.parts.retain(|p| p.0 != field);
        self.charge(field, bytes)
    }

    /// Adds `bytes` for `field` (before allocating them): an error naming the field that
    /// contributes most once the total passes the budget.
    pub fn charge(&mut self, field: &str, bytes: f64) -> Result<(), String> {
        self.charge_at(field, "", bytes)
    }

    /// As `charge`, for the field `prefix` + `suffix` (`"topology.access"`, `".delay"`):
    /// the name is put together only the first time it is charged.
    pub fn charge_at(&mut self, prefix: &str, suffix: &str, bytes: f64) -> Result<(), String> {
        let bytes = if bytes.is_nan() { f64::INFINITY } else { bytes.max(0.0) };
        let is = |name: &str| {
            name.len() == prefix.len() + suffix.len() && name.starts_with(prefix) && name.ends_with(suffix)
        };
        match self.parts.iter_mut().find(|p| is(&p.0)) {
            Some(p) => p.1 += bytes,
            None => self.parts.push((format!("{prefix}{suffix}"), bytes)),
        }
        let total = self.total();
        if total <= self.budget as f64 {
            return Ok(());
        }
        let (top, _) = self.parts.iter().fold(("", -1.0), |m, p| if p.1 > m.1 { (p.0.as_str(), p.1) } else { m });
        Err(format!(
            "{top}: the run would hold about {} (budget {}; set {BUDGET_ENV} or [output] memory_budget)",
            human(total),
            human(self.budget as f64)
        ))
    }
}

/// "8.0 GB" (decimal units, as `parse_bytes` reads them).
pub fn human(b: f64) -> String {
    if !b.is_finite() {
        return "an unbounded amount".into();
    }
    let units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
    let mut x = b;
    let mut i = 0;
    while x >= 1000.0 && i + 1 < units.len() {
        x /= 1000.0;
        i += 1;
    }
    if i == 0 {
        format!("{x:.0} B")
    } else if x >= 1000.0 {
        format!("{x:.3e} {}", units[i])
    } else {
        format!("{x:.1} {}", units[i])
    }
}

/// Bytes from "16GB", "512 MiB", "1.5e9" (bytes), ...: a number and an optional unit
/// (B, kB, MB, GB, TB; KiB, MiB, GiB, TiB), above 0.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E').unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult: f64 = match unit.trim() {
        "" | "B" => 1.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        u => return Err(format!("unknown unit {u:?} in {s:?} (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)")),
    };
    let x: f64 = num.trim().parse().map_err(|_| format!("expected bytes such as \"16GB\" (got {s:?})"))?;
    let b = x * mult;
    if !(b.is_finite() && b >= 1.0 && b < u64::MAX as f64) {
        return Err(format!("must be at least 1 byte and finite (got {s:?})"));
    }
    Ok(b as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A field charged in two pieces is the field charged whole: one entry, one sum, and
    /// the refusal names it (budget 100 B: 60 + 50 passes it).
    #[test]
    fn a_field_in_pieces_is_the_field() {
        let mut m = MemoryEstimate::new(100);
        m.charge("topology.access.delay", 10.0).unwrap();
        m.charge_at("topology.access", ".delay", 50.0).unwrap();
        m.charge_at("topology", ".access.delay", 0.0).unwrap();
        m.charge_at("topology.acce", "ss.bloom_bits", 1.0).unwrap();
        assert_eq!(m.parts.len(), 2);
        assert_eq!(m.parts[0], ("topology.access.delay".to_string(), 60.0));
        let e = m.charge_at("topology.access", ".delay", 50.0).unwrap_err();
        assert!(e.starts_with("topology.access.delay: "), "{e}");
    }

    #[test]
    fn parses_units() {
        assert_eq!(parse_bytes("16GB").unwrap(), 16_000_000_000);
        assert_eq!(parse_bytes("1 GiB").unwrap(), 1 << 30);
        assert_eq!(parse_bytes("1e6").unwrap(), 1_000_000);
        assert_eq!(parse_bytes("2.5kB").unwrap(), 2500);
        for bad in ["", "0", "-1GB", "5XB", "GB", "nanGB", "infGB", "1e30TB"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn refuses_above_the_budget_naming_the_largest_part() {
        let mut m = MemoryEstimate::new(1_000_000);
        m.charge("a", 300_000.0).unwrap();
        m.charge("b", 200_000.0).unwrap();
        m.charge("a", 100_000.0).unwrap();
        let e = m.charge("c", 500_000.0).unwrap_err();
        assert!(e.starts_with("c: the run would hold about 1.1 MB (budget 1.0 MB;"), "{e}");
        let mut m = MemoryEstimate::new(1_000_000);
        let e = m.charge("x", f64::NAN).unwrap_err();
        assert!(e.starts_with("x: the run would hold about an unbounded amount"), "{e}");
    }
}
