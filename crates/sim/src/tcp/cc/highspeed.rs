//! HighSpeed TCP (HSTCP): RFC 3649 (S. Floyd, Dec 2003; text as draft-floyd-tcp-highspeed-03),
//! ALGORITHMS.md section 1.
//!
//! Control law (RFC 3649 section 7): per ACK in congestion avoidance w <- w + a(w)/w; per
//! congestion event w <- (1 - b(w)) w. For w <= Low_Window = 38, a = 1 and b = 0.5 (Reno).
//! Above it b(w) falls linearly in log w from 0.5 at Low_Window to High_Decrease = 0.1 at
//! High_Window = 83000,
//!
//!   b(w) = (High_Decrease - 0.5) (log w - log Low_Window) / (log High_Window - log Low_Window) + 0.5,
//!
//! and a(w) = w^2 p(w) 2 b(w) / (2 - b(w)) makes the AIMD sawtooth follow the response function
//! of section 5, W = Low_Window (p / Low_P)^S, S = (log High_Window - log Low_Window) /
//! (log High_P - log Low_P), High_P = 1e-7 (about W = 0.12 / p^0.835, eq. 1).
//!
//! Three ways to get a(w) and b(w) (`mode`), all evaluated at w = floor(cwnd), the integer
//! window Linux keeps in snd_cwnd:
//! - `linux-table` (default, ALGORITHMS.md section 15 item 1): Linux net/ipv4/tcp_highspeed.c
//!   (torvalds/linux commit 03fba04): the 72 rows (w_i, md_i) of [`TABLE`] up to 89053, the
//!   "ceiling" lookup w_{i-1} < w <= w_i, a = i + 1 (0-based i), and
//!   ssthresh = max(w - floor(w md_i / 256), 2). Above 89053 the last row (a = 72, md = 24).
//!   ns-3's TcpHighSpeed uses the same rows and convention (plus a 94717 row, a typo 53667).
//! - `rfc-floor`: RFC 3649 Appendix B (Table 12) read as printed: for w_i <= w < w_{i+1},
//!   a = a_i and b = b_i (two decimals), 73 rows up to (94717, 73, 0.09);
//!   ssthresh = (1 - b_i) cwnd.
//! - `continuous`: the formulas themselves, as ns-2.35 tcp/tcp.cc (windowOption_ 8,
//!   increase_param/decrease_param) computes them: log p interpolated linearly in log w between
//!   (Low_Window, Low_P) and (High_Window, High_P). `low_p` is 1e-3 by default (RFC 3649
//!   section 5); `low_p = "ns2"` is ns-2's 1.5 / Low_Window^2 = 1.0388e-3 (then a(38) = 1
//!   exactly). a(w) is floored at 1, as RFC 3649 Appendix C's program does (with Low_P = 1e-3
//!   the formula gives a < 1 for 38 < w <= 40). ssthresh = (1 - b(w)) cwnd. ns-2's other habit,
//!   b = 0.5 for the first decrease, in slow start and after a timeout, is not copied: every
//!   decrease uses b(w), as the RFC says.
//!
//! Counting: by default the increase is per acknowledged segment, w += a(w) acked / w (RFC
//! intent, ns-3; section 15 item 2). `per_ack = true` counts arriving ACKs instead,
//! w += a(w) / w per ACK, as Linux's snd_cwnd_cnt += ai + 1 does (with delayed ACKs it grows
//! about a(w)/2 per RTT). The window is an f64 and grows by a/w per ACK, not through Linux's
//! integer counter (same mean growth). Slow start (cwnd < ssthresh) is RFC 5681's, as in
//! newreno.rs; no limited slow start (Linux has none either).
//!
//! Events: the same ssthresh on fast retransmit, ECN and RTO (Linux and ns-3 call ssthresh()
//! on RTO too; ns-2 would halve). b is looked up at the cwnd of the event, not at FlightSize
//! (Linux; ns-3 uses bytes in flight). Linux computes md from the index its last
//! congestion-avoidance ACK left (index 0, b = 0.5, when the loss comes straight out of slow
//! start); here the index always follows cwnd, which is what ALGORITHMS.md's test values
//! assume.
//!
//! Per-ACK cost: a cached table index moved up or down a row at a time (Linux's ca->ai); the
//! continuous mode recomputes a(w) (two logs, one exp) only when floor(cwnd) changes.
//!
//! [`TABLE`] was generated, not copied: the RFC's Table 13 Perl program (w = 38, 39, ...;
//! print a row when a(w) = w^2 2 b(w) / ((2 - b(w)) w^1.2 12.8) exceeds the last printed
//! a(w), untruncated, by more than 1) re-run in f64 for w < 100000, with md_i = floor(256 b(w_i))
//! from the exact b(w) and b_i = b(w_i) rounded to two decimals. Checked: all 73 w_i and b_i
//! equal RFC 3649 Table 12, and the first 72 (w_i, md_i) equal Linux's hstcp_aimd_vals at
//! 03fba04. The test `highspeed_table_regenerated` re-runs the program against this literal.

use super::control::{CcState, CongestionControl, CongestionEvent};
use crate::core::time::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// RFC 3649 section 5 constants.
pub const LOW_WINDOW: f64 = 38.0;
pub const HIGH_WINDOW: f64 = 83000.0;
pub const HIGH_P: f64 = 1e-7;
pub const HIGH_DECREASE: f64 = 0.1;
/// Low_P of RFC 3649 section 5 (Standard TCP's drop rate at W = 38).
pub const LOW_P_RFC: f64 = 1e-3;

/// Rows (w_i, md_i, b_i in hundredths): a_i = i + 1 for the 0-based row i. md_i = floor(256 b(w_i))
/// is Linux's fixed-point decrease, b_i the two-decimal b(w) of RFC 3649 Table 12. Linux has
/// the first 72 rows; the RFC all 73. How it was generated and checked: see the module doc.
#[rustfmt::skip]
pub const TABLE: [(u32, u32, u32); 73] = [
    (38, 128, 50), (118, 112, 44), (221, 104, 41), (347, 98, 38), (495, 93, 37), (663, 89, 35),
    (851, 86, 34), (1058, 83, 33), (1284, 81, 32), (1529, 78, 31), (1793, 76, 30), (2076, 74, 29),
    (2378, 72, 28), (2699, 71, 28), (3039, 69, 27), (3399, 68, 27), (3778, 66, 26), (4177, 65, 26),
    (4596, 64, 25), (5036, 62, 25), (5497, 61, 24), (5979, 60, 24), (6483, 59, 23), (7009, 58, 23),
    (7558, 57, 22), (8130, 56, 22), (8726, 55, 22), (9346, 54, 21), (9991, 53, 21),
    (10661, 52, 21), (11358, 52, 20), (12082, 51, 20), (12834, 50, 20), (13614, 49, 19),
    (14424, 48, 19), (15265, 48, 19), (16137, 47, 19), (17042, 46, 18), (17981, 45, 18),
    (18955, 45, 18), (19965, 44, 17), (21013, 43, 17), (22101, 43, 17), (23230, 42, 17),
    (24402, 41, 16), (25618, 41, 16), (26881, 40, 16), (28193, 39, 16), (29557, 39, 15),
    (30975, 38, 15), (32450, 38, 15), (33986, 37, 15), (35586, 36, 14), (37253, 36, 14),
    (38992, 35, 14), (40808, 35, 14), (42707, 34, 13), (44694, 33, 13), (46776, 33, 13),
    (48961, 32, 13), (51258, 32, 13), (53677, 31, 12), (56230, 30, 12), (58932, 30, 12),
    (61799, 29, 12), (64851, 28, 11), (68113, 28, 11), (71617, 27, 11), (75401, 26, 10),
    (79517, 26, 10), (84035, 25, 10), (89053, 24, 10), (94717, 23, 9),
];

/// Rows Linux's tcp_highspeed.c has (it stops at 89053).
pub const LINUX_ROWS: usize = 72;

/// How a(w) and b(w) are obtained.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Linux tcp_highspeed.c: 72 rows, ceiling lookup, md/256 (default).
    #[default]
    LinuxTable,
    /// RFC 3649 Appendix B as printed: floor lookup, 73 rows, two-decimal b.
    RfcFloor,
    /// The RFC 3649 formulas (ns-2 windowOption_ 8), no table.
    Continuous,
}

/// Low_P of the continuous mode: a number, or `"ns2"` for 1.5 / Low_Window^2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LowP {
    Value(f64),
    Ns2,
}

impl LowP {
    pub fn value(self) -> f64 {
        match self {
            LowP::Value(v) => v,
            LowP::Ns2 => 1.5 / (LOW_WINDOW * LOW_WINDOW),
        }
    }
}

/// What the parser accepts: a number or "ns2".
impl JsonSchema for LowP {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LowP".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A drop rate in (1e-7, 1), or \"ns2\" for 1.5 / Low_Window^2.",
            "anyOf": [{ "type": "number" }, { "const": "ns2" }]
        })
    }
}

impl Serialize for LowP {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            LowP::Value(v) => s.serialize_f64(*v),
            LowP::Ns2 => s.serialize_str("ns2"),
        }
    }
}

impl<'de> Deserialize<'de> for LowP {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = LowP;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a drop rate (e.g. 1e-3) or \"ns2\"")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<LowP, E> {
                Ok(LowP::Value(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<LowP, E> {
                Ok(LowP::Value(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<LowP, E> {
                Ok(LowP::Value(v as f64))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<LowP, E> {
                match s {
                    "ns2" => Ok(LowP::Ns2),
                    _ => Err(E::custom(format!("unknown low_p {s:?}; allowed: a number in (1e-7, 1), \"ns2\""))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// `[tcp.cc] kind = "highspeed"` parameters.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// `linux-table` (default), `rfc-floor` or `continuous`.
    pub mode: Mode,
    /// Count arriving ACKs (Linux) instead of acknowledged segments (default false).
    pub per_ack: bool,
    /// Low_P of the continuous mode (default 1e-3, RFC 3649 section 5; "ns2": 1.5/38^2).
    /// Only allowed with `mode = "continuous"`.
    pub low_p: Option<LowP>,
}

impl Params {
    pub fn validate(&self, path: &str) -> Result<(), String> {
        if let Some(lp) = self.low_p {
            if self.mode != Mode::Continuous {
                return Err(format!("{path}.low_p: only used with mode = \"continuous\""));
            }
            let v = lp.value();
            if !(v.is_finite() && v > HIGH_P && v < 1.0) {
                return Err(format!("{path}.low_p: must be a drop rate above High_P = 1e-7 and below 1 (got {v})"));
            }
        }
        Ok(())
    }

    pub fn build(&self) -> HighSpeed {
        HighSpeed::new(self.clone())
    }
}

/// b(w) of RFC 3649 section 7 (w > Low_Window).
fn b_of(w: f64) -> f64 {
    (HIGH_DECREASE - 0.5) * (w.ln() - LOW_WINDOW.ln()) / (HIGH_WINDOW.ln() - LOW_WINDOW.ln()) + 0.5
}

pub struct HighSpeed {
    mode: Mode,
    per_ack: bool,
    low_p: f64,
    /// Table row of the cached window (Linux's ca->ai).
    idx: usize,
    /// floor(cwnd) for which `a`, `b`, `md` hold (NaN: none yet).
    w: f64,
    a: f64,
    b: f64,
    md: u32,
}

impl HighSpeed {
    pub fn new(p: Params) -> HighSpeed {
        HighSpeed {
            mode: p.mode,
            per_ack: p.per_ack,
            low_p: p.low_p.map_or(LOW_P_RFC, LowP::value),
            idx: 0,
            w: f64::NAN,
            a: 1.0,
            b: 0.5,
            md: 128,
        }
    }

    /// (a(w), b(w)) this controller uses at window `w` (segments; floored like cwnd). For
    /// `linux-table`, b is md/256.
    pub fn aimd_at(&self, w: f64) -> (f64, f64) {
        let mut probe = HighSpeed { w: f64::NAN, idx: 0, ..*self };
        probe.update(w.floor());
        (probe.a, probe.b)
    }

    /// Brings a, b, md up to date for the integer window `w`.
    #[inline]
    fn update(&mut self, w: f64) {
        if w == self.w {
            return;
        }
        self.w = w;
        match self.mode {
            Mode::LinuxTable => {
                // ceiling: TABLE[idx-1].w < w <= TABLE[idx].w (hstcp_cong_avoid)
                let last = LINUX_ROWS - 1;
                while self.idx < last && w > TABLE[self.idx].0 as f64 {
                    self.idx += 1;
                }
                while self.idx > 0 && w <= TABLE[self.idx - 1].0 as f64 {
                    self.idx -= 1;
                }
                self.a = (self.idx + 1) as f64;
                self.md = TABLE[self.idx].1;
                self.b = self.md as f64 / 256.0;
            }
            Mode::RfcFloor => {
                // floor: TABLE[idx].w <= w < TABLE[idx+1].w; below 38 row 0 (a = 1, b = 0.5)
                let last = TABLE.len() - 1;
                while self.idx < last && w >= TABLE[self.idx + 1].0 as f64 {
                    self.idx += 1;
                }
                while self.idx > 0 && w < TABLE[self.idx].0 as f64 {
                    self.idx -= 1;
                }
                self.a = (self.idx + 1) as f64;
                self.b = TABLE[self.idx].2 as f64 / 100.0;
            }
            Mode::Continuous => {
                if w <= LOW_WINDOW {
                    self.a = 1.0;
                    self.b = 0.5;
                } else {
                    let b = b_of(w);
                    // log p linear in log w through (Low_Window, Low_P), (High_Window, High_P)
                    let x = (w.ln() - LOW_WINDOW.ln()) / (HIGH_WINDOW.ln() - LOW_WINDOW.ln());
                    let p = (self.low_p.ln() + x * (HIGH_P.ln() - self.low_p.ln())).exp();
                    self.a = (w * w * p * 2.0 * b / (2.0 - b)).max(1.0);
                    self.b = b;
                }
            }
        }
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    #[inline]
    fn on_ack(&mut self, s: &mut CcState, acked: f64, _rtt: Option<SimTime>, _now: SimTime) {
        if s.cwnd < s.ssthresh {
            s.slow_start(acked); // RFC 5681 eq. 2
            return;
        }
        self.update(s.cwnd.floor());
        let n = if self.per_ack { 1.0 } else { acked };
        s.cwnd += self.a * n / s.cwnd; // RFC 3649 section 7: w += a(w)/w
    }

    fn ssthresh(&mut self, s: &CcState, _flight: f64, _ev: CongestionEvent, _now: SimTime) -> f64 {
        let w = s.cwnd;
        self.update(w.floor());
        let ss = match self.mode {
            // hstcp_ssthresh: snd_cwnd - ((snd_cwnd * md) >> 8)
            Mode::LinuxTable => w - (w * self.md as f64 / 256.0).floor(),
            // (1 - b_i) w with b_i in hundredths, exact for integer w
            Mode::RfcFloor => w * (100 - TABLE[self.idx].2) as f64 / 100.0,
            Mode::Continuous => (1.0 - self.b) * w,
        };
        ss.max(2.0)
    }
}
