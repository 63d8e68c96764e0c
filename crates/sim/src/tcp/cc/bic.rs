//! BIC-TCP: L. Xu, K. Harfoush, I. Rhee, "Binary Increase Congestion Control (BIC) for
//! Fast Long-Distance Networks", IEEE INFOCOM 2004; as implemented in Linux
//! net/ipv4/tcp_bic.c (`torvalds/linux` commit 018da8f, the 2.6.13-era file
//! ALGORITHMS.md section 3 reads), the de-facto reference.
//!
//! Above `low_window` the window grows by a binary search towards W_max, the window
//! at the last loss: per RTT it moves 1/B of the distance, at most S_max = `max_increment`
//! segments ("additive increase") and at least B/`smooth_part` segments near W_max; past
//! W_max it probes for a new maximum ("max probing", slow-start-like, again capped by
//! S_max). Linux expresses this as `cnt`, the ACKs per +1 segment, recomputed from the
//! integer window (`bictcp_update`):
//! - cwnd <= low_window: cnt = cwnd (Reno);
//! - cwnd < W_max, dist = (W_max - cwnd)/B: dist > S_max: cnt = cwnd/S_max; dist <= 1:
//!   cnt = cwnd smooth_part/B; else cnt = cwnd/dist;
//! - cwnd >= W_max: cwnd < W_max + B: cnt = cwnd smooth_part/B; cwnd < W_max + S_max (B-1):
//!   cnt = cwnd (B-1)/(cwnd - W_max); else cnt = cwnd/S_max;
//! - no loss yet (W_max = 0): cnt <= 20 (at least +5 % per RTT);
//! - then cnt <- cnt 16/delayed_ack (at least 1), all divisions integer.
//!
//! On a loss (and an ECN echo, and a timeout: Linux calls `ssthresh` on entering Recovery,
//! CWR and Loss) W_max <- cwnd, or cwnd (1 + beta)/2 when cwnd < W_max ("fast
//! convergence"); ssthresh = max(cwnd/2, 2) at cwnd <= low_window, else max(cwnd beta, 2).
//! A retransmission timeout (entering CA_Loss) resets every BIC variable (W_max = 0,
//! delayed_ack = 32). A timeout during fast recovery keeps the recovery's ssthresh and
//! W_max (Linux tcp_enter_loss reduces ssthresh only if it was not reduced in this window;
//! the cwnd the sender passes then is NewReno's, inflated by the duplicate ACKs).
//!
//! Presets (`preset = "linux" | "paper" | "ns3"`; every constant below may be overridden
//! on its own):
//! - `linux` (default, ALGORITHMS.md section 15 item 4): B = 4, S_max = `max_increment` =
//!   16, beta = 819/1024 (the window kept on loss), `smooth_part` = 20 (+0.2 per RTT near
//!   W_max), `low_window` = 14, fast convergence on, `delayed_ack` on. Linux's other rules
//!   as well: slow start while cwnd < ssthresh (NewReno's, one segment per ACK), `cnt`
//!   recomputed at most once per HZ/32 while the integer window is unchanged (here 1/32 s
//!   = 31.25 ms, whatever HZ), the per-ACK window counter counts ACKs (the 2.6.13 file;
//!   `cnt` is then in ACKs thanks to the delayed-ACK ratio), the ratio is Linux's integer
//!   EWMA `delayed_ack += acked - delayed_ack/16` (x16, initially 2 x 16), updated at every
//!   `on_ack` (outside fast recovery; Linux updates it in Open only, so not during an ECN or
//!   timeout response either).
//! - `paper` (INFOCOM 2004): B = 2, S_max = 32, S_min = 0.01 (as `smooth_part` = B/S_min =
//!   200), paper beta = 0.125 (the fraction cut: window kept 0.875), fast convergence W_max =
//!   cwnd (2 - 0.125)/2, no delayed-ACK ratio (counts segments); the Linux rules otherwise.
//! - `ns3` (ns-3 TcpBic): `smooth_part` = 5 (+0.8 per RTT near W_max), fast convergence
//!   W_max = beta cwnd = 0.8 cwnd, no delayed-ACK ratio (counts segments), no rate limit,
//!   cwnd < low_window (strict) for Reno mode, the counter must exceed cnt (so the effective
//!   cnt is cnt + 1), ssthresh = max(0.8 cwnd, 2) above low_window (real-valued) and
//!   max(FlightSize/2, 2) below, no state reset on a timeout.
//!
//! Windows here are real-valued (the sender's); `cnt` and W_max are computed from the
//! integer window as Linux does. A window within 1e-7 of the next integer counts as that
//! integer (floating-point sums of 1/cnt land just below it).
//!
//! Note on the Linux default: the integer EWMA `delayed_ack += 1 - delayed_ack/16` starting
//! at 32 stops at 31 when every ACK covers one segment (31/16 = 1), so without delayed ACKs
//! Linux BIC divides cnt by 31/16 and grows about twice as fast as the 16 segments per RTT
//! the constants suggest (with a delayed ACK per two segments the ratio stays at 32 = 2 x 16
//! and the ACK-counted cnt means what it says). `delayed_ack = false` counts segments
//! instead: cwnd += acked/cnt per ACK, the idealised per-RTT law cwnd += cwnd/cnt.

use super::control::{CcState, CongestionControl, CongestionEvent};
use crate::core::time::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// HZ/32 of Linux's `bictcp_update`: the longest a stale cnt is kept while the window
/// is unchanged.
pub const RECOMPUTE_INTERVAL: SimTime = SimTime(31_250_000);

/// The delayed-ACK ratio's initial value (2 segments per ACK, x16).
const DELAYED_ACK_INIT: u32 = 2 << 4;

/// Which set of constants and rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// Linux tcp_bic.c (default).
    #[default]
    Linux,
    /// The INFOCOM 2004 paper's constants.
    Paper,
    /// ns-3 TcpBic.
    Ns3,
}

/// `[tcp.cc] kind = "bic"`: a preset and any constant overridden.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The constants' source: "linux" (tcp_bic.c, default), "paper" (INFOCOM 2004) or "ns3"
    /// (TcpBic); each constant below overrides its preset value.
    pub preset: Preset,
    /// B: the binary search moves 1/B of the distance to W_max per RTT (Linux 4, paper 2);
    /// at least 2.
    pub b: Option<u32>,
    /// S_max, segments per RTT (Linux 16, paper 32); at least 1.
    pub max_increment: Option<u32>,
    /// cnt = cwnd smooth_part/B within B of W_max: +B/smooth_part per RTT (Linux 20,
    /// ns-3 5, paper B/S_min = 200); at least 1.
    pub smooth_part: Option<u32>,
    /// At or below this window (segments) BIC is Reno (14).
    pub low_window: Option<u32>,
    /// The window kept on a loss (Linux 819/1024, ns-3 0.8, paper 1 - 0.125 = 0.875), in
    /// (0, 1).
    pub beta: Option<f64>,
    /// Fast convergence (on).
    pub fast_convergence: Option<bool>,
    /// Linux's delayed-ACK ratio (cnt in ACKs); false counts segments (paper, ns-3).
    pub delayed_ack: Option<bool>,
}

/// The resolved constants of a controller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Consts {
    pub b: u32,
    pub max_increment: u32,
    pub smooth_part: u32,
    pub low_window: u32,
    pub beta: f64,
    pub fast_convergence: bool,
    /// W_max = cwnd fc_factor on fast convergence: (1 + beta)/2 (Linux, paper) or beta (ns-3).
    pub fc_factor: f64,
    pub delayed_ack: bool,
    /// ns-3's rules (see the module documentation).
    pub ns3: bool,
}

impl Params {
    pub fn consts(&self) -> Consts {
        let (b, max_increment, smooth_part, beta, delayed_ack) = match self.preset {
            Preset::Linux => (4, 16, 20, 819.0 / 1024.0, true),
            Preset::Paper => (2, 32, 200, 0.875, false),
            Preset::Ns3 => (4, 16, 5, 0.8, false),
        };
        let ns3 = self.preset == Preset::Ns3;
        let beta = self.beta.unwrap_or(beta);
        Consts {
            b: self.b.unwrap_or(b),
            max_increment: self.max_increment.unwrap_or(max_increment),
            smooth_part: self.smooth_part.unwrap_or(smooth_part),
            low_window: self.low_window.unwrap_or(14),
            beta,
            fast_convergence: self.fast_convergence.unwrap_or(true),
            fc_factor: if ns3 { beta } else { (1.0 + beta) / 2.0 },
            delayed_ack: self.delayed_ack.unwrap_or(delayed_ack),
            ns3,
        }
    }

    pub fn validate(&self, path: &str) -> Result<(), String> {
        if let Some(b) = self.b {
            if b < 2 {
                return Err(format!("{path}.b: must be an integer >= 2 (got {b})"));
            }
        }
        if self.max_increment == Some(0) {
            return Err(format!("{path}.max_increment: must be an integer >= 1 (got 0)"));
        }
        if self.smooth_part == Some(0) {
            return Err(format!("{path}.smooth_part: must be an integer >= 1 (got 0)"));
        }
        if let Some(beta) = self.beta {
            if !(beta > 0.0 && beta < 1.0) {
                return Err(format!("{path}.beta: the window kept on loss, must be in (0, 1) (got {beta})"));
            }
        }
        Ok(())
    }

    pub fn build(&self) -> Bic {
        Bic::new(self.consts())
    }
}

/// The integer window Linux would hold for the real-valued `cwnd`.
#[inline]
fn wnd(cwnd: f64) -> u32 {
    (cwnd + 1e-7) as u32
}

pub struct Bic {
    k: Consts,
    /// ACKs (segments without the delayed-ACK ratio) per +1 segment, as last computed.
    cnt: f64,
    /// W_max (Linux last_max_cwnd), segments; 0 before the first loss.
    w_max: u32,
    /// The integer window and the time `cnt` was last computed at.
    last_cwnd: u32,
    last_time: SimTime,
    /// Segments per ACK x16 (Linux's integer EWMA).
    delayed_ack: u32,
    /// Between a fast-retransmit event and the end of its recovery.
    in_recovery: bool,
}

impl Bic {
    pub fn new(k: Consts) -> Bic {
        Bic {
            k,
            cnt: 1.0,
            w_max: 0,
            last_cwnd: 0,
            last_time: SimTime::ZERO,
            delayed_ack: DELAYED_ACK_INIT,
            in_recovery: false,
        }
    }

    pub fn consts(&self) -> &Consts {
        &self.k
    }

    /// W_max, segments (0 before the first loss and after a timeout).
    pub fn w_max(&self) -> u32 {
        self.w_max
    }

    /// The delayed-ACK ratio, segments per ACK x16.
    pub fn delayed_ack_ratio(&self) -> u32 {
        self.delayed_ack
    }

    /// `cnt` for the integer window `cwnd` under the current W_max, before the
    /// delayed-ACK scaling (Linux's bictcp_update up to the W_max = 0 clamp).
    pub fn raw_cnt(&self, cwnd: u32) -> u64 {
        let k = &self.k;
        let reno = if k.ns3 { cwnd < k.low_window } else { cwnd <= k.low_window };
        if reno {
            return cwnd.max(1) as u64;
        }
        let (b, smax, wmax, smooth) = (k.b as u64, k.max_increment as u64, self.w_max as u64, k.smooth_part as u64);
        let cwnd = cwnd as u64;
        let mut cnt = if cwnd < wmax {
            let dist = (wmax - cwnd) / b;
            if dist > smax {
                cwnd / smax // additive increase
            } else if dist <= 1 {
                cwnd * smooth / b // binary search, close to W_max
            } else {
                cwnd / dist // binary search
            }
        } else if cwnd < wmax + b {
            cwnd * smooth / b // max probing, slow at first
        } else if cwnd < wmax + smax * (b - 1) {
            cwnd * (b - 1) / (cwnd - wmax) // max probing, slow-start-like
        } else {
            cwnd / smax
        };
        if wmax == 0 && cnt > 20 {
            cnt = 20; // no loss yet: at least 5 % per RTT
        }
        cnt.max(1)
    }

    /// The effective ACKs (or segments) per +1 segment for the integer window `w`:
    /// Linux's bictcp_update, including its rate limit (not under ns-3's rules).
    fn update(&mut self, w: u32, now: SimTime) {
        if !self.k.ns3 && w == self.last_cwnd && now.saturating_sub(self.last_time) <= RECOMPUTE_INTERVAL {
            return;
        }
        self.last_cwnd = w;
        self.last_time = now;
        let cnt = self.raw_cnt(w);
        self.cnt = if self.k.delayed_ack {
            ((cnt << 4) / self.delayed_ack.max(1) as u64).max(1) as f64
        } else if self.k.ns3 {
            cnt as f64 + 1.0 // ns-3 increments when the counter exceeds cnt
        } else {
            cnt as f64
        };
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    #[inline]
    fn on_ack(&mut self, s: &mut CcState, acked: f64, _rtt: Option<SimTime>, now: SimTime) {
        if self.k.delayed_ack {
            // bictcp_acked (Open state only, which is when the sender calls on_ack):
            // delayed_ack += pkts_acked - delayed_ack/16, a partial segment a packet
            let pkts = (acked - 1e-9).ceil().max(0.0) as u32;
            self.delayed_ack = self.delayed_ack + pkts - (self.delayed_ack >> 4);
        }
        if s.cwnd < s.ssthresh {
            s.slow_start(acked); // slow start (RFC 5681 eq. 2; Linux: RFC 3465)
            return;
        }
        self.update(wnd(s.cwnd), now);
        // +1 segment per cnt ACKs (Linux 2.6.13) or per cnt segments acknowledged
        let unit = if self.k.delayed_ack { 1.0 } else { acked };
        s.cwnd += unit / self.cnt;
    }

    fn ssthresh(&mut self, s: &CcState, flight: f64, ev: CongestionEvent, _now: SimTime) -> f64 {
        if ev == CongestionEvent::Timeout && self.in_recovery {
            // Linux tcp_enter_loss: ssthresh was already reduced in this window (and
            // NewReno's cwnd is inflated by the duplicate ACKs): keep it
            return s.ssthresh;
        }
        self.in_recovery = ev == CongestionEvent::FastRetransmit;
        let k = &self.k;
        let w = wnd(s.cwnd);
        // W_max and fast convergence (bictcp_recalc_ssthresh)
        self.w_max = if k.fast_convergence && w < self.w_max { (w as f64 * k.fc_factor) as u32 } else { w };
        if k.ns3 {
            if w < k.low_window {
                (flight / 2.0).max(2.0)
            } else {
                (w as f64 * k.beta).max(2.0)
            }
        } else if w <= k.low_window {
            (w / 2).max(2) as f64
        } else {
            ((w as f64 * k.beta) as u32).max(2) as f64
        }
    }

    fn on_rto(&mut self, _s: &mut CcState, _now: SimTime) {
        self.in_recovery = false;
        if !self.k.ns3 {
            // bictcp_state(TCP_CA_Loss): bictcp_reset
            *self = Bic::new(self.k);
        }
    }

    fn on_recovery_exit(&mut self, _s: &mut CcState, _now: SimTime) {
        self.in_recovery = false;
    }
}
