//! H-TCP: R. N. Shorten, D. J. Leith, "H-TCP: TCP for high-speed and long-distance
//! networks", PFLDnet 2004; draft-leith-tcp-htcp-06 (April 2008) section 3 eq. (1) and
//! section 5; as implemented in Linux net/ipv4/tcp_htcp.c (`torvalds/linux` commit
//! 05909cd), whose semantics are the default (ALGORITHMS.md section 5, section 15 item 5).
//!
//! The window grows by alpha segments per RTT (alpha acked/cwnd per ACK), alpha a function
//! of Delta, the time since the last congestion event:
//! - f_alpha(Delta) = 1 if Delta <= Delta_L, else 1 + 10 (Delta - Delta_L) +
//!   `quad_coeff` (Delta - Delta_L)^2; Delta_L = 1 s; quad_coeff = 0.25 (the paper, Linux,
//!   FreeBSD, ns-3: ((Delta - Delta_L)/2)^2) or 0.5 (the drafts' eq. (1));
//! - alpha = 2 (1 - beta) f_alpha (TCP-friendliness for the adaptive backoff);
//! - Delta is measured from the END of the congestion response, as Linux does (its
//!   last_cong is set on entering Recovery/CWR/Loss and again on returning to Open): from
//!   `on_recovery_exit` after fast recovery, and after an ECN reduction or a timeout from
//!   the ACK that acknowledges the FlightSize outstanding at the event (Linux's high_seq:
//!   the sender's hooks give no sequence numbers, so the segments acknowledged are counted).
//!
//! Adaptive backoff, at each congestion event (Linux htcp_param_update): beta =
//! minRTT/maxRTT clamped to [0.5, 0.8] when `modeswitch` is set and minRTT > 10 ms; 0.5 (and
//! modeswitch set) otherwise, so the first event uses 0.5. With the bandwidth switch, a
//! change of the achieved throughput maxB by more than 20 % between events (5 maxB outside
//! [4 old_maxB, 6 old_maxB]) gives beta = 0.5 and clears modeswitch. Then maxRTT fades:
//! maxRTT <- minRTT + 0.95 (maxRTT - minRTT). ssthresh = max(cwnd beta, 2). A timeout
//! during fast recovery keeps the recovery's ssthresh, beta and alpha (Linux tcp_enter_loss
//! reduces ssthresh only if it was not reduced in this window; the cwnd the sender passes
//! then is NewReno's, inflated by the duplicate ACKs); Delta restarts all the same.
//! minRTT is the minimum of all RTT samples; maxRTT takes samples outside any congestion
//! response only, and only those at most 20 ms above it. The throughput (packets per
//! second, measured once at least cwnd - alpha packets and one minRTT have passed) is
//! reset during recovery and ECN/timeout responses; within 3 minRTT of the last event
//! B = maxB = minB = the measurement, later B <- (3 B + cur)/4, maxB = max(maxB, B).
//! alpha is recomputed at each congestion event and whenever the integer window changes
//! (Linux: at each +1 segment) and at the first congestion-avoidance ACK after an event.
//!
//! RTT scaling (`rtt_scaling`): "linux" (default): f_alpha <- max(1, f_alpha K), K =
//! minRTT/100 ms clamped to [0.1, 2], also when Delta <= Delta_L (so a 200 ms flow has
//! alpha = 2 in "low-speed" mode); "draft" (section 5): the same K only when Delta > Delta_L
//! (the floor of 1 is kept); "off".
//!
//! `arithmetic`: "real" (default) computes alpha and beta in real numbers; "linux" uses the
//! kernel's fixed point (<<7, HZ = 1000: RTTs in whole milliseconds rounded up, Delta in
//! whole milliseconds, an integer f_alpha, beta in [64, 102]/128, alpha = 2 f (128 -
//! beta)/128, or 1 (ALPHA_BASE) if that is 0), giving the sheet's "Linux" column
//! (f_alpha(1.5 s) = 6, alpha(beta 0.8, Delta <= 1 s) = 52/128).
//! Other options: `delta_l` (seconds, >= 1 as the draft requires), `bandwidth_switch` (on),
//! `adaptive_backoff` (on; off: beta = 0.5 always, the drafts and FreeBSD's default).
//!
//! RTT samples come through `on_rtt_sample` (`per_packet_hooks` is true): Linux takes
//! minRTT from every sample, also those taken during recovery, when `on_ack` is not called.

use super::control::{CcState, CongestionControl, CongestionEvent};
use crate::core::time::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttScaling {
    /// Linux: K = minRTT/100 ms in [0.1, 2] always, f_alpha >= 1 after it.
    #[default]
    Linux,
    /// draft-leith-tcp-htcp section 5: only when Delta > Delta_L.
    Draft,
    Off,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Arithmetic {
    #[default]
    Real,
    /// The kernel's fixed point, HZ = 1000.
    Linux,
}

/// `[tcp.cc] kind = "htcp"`.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The quadratic coefficient of f_alpha: 0.25 (paper, Linux) or 0.5 (drafts); finite,
    /// >= 0.
    pub quad_coeff: f64,
    /// Delta_L, seconds (1); at least 1 (draft section 3).
    pub delta_l: f64,
    /// RTT scaling of the increase: "linux" (always, K = minRTT / 100 ms in [0.1, 2]),
    /// "draft" (only when Delta > Delta_L) or "off".
    pub rtt_scaling: RttScaling,
    /// A change of the achieved throughput by more than 20 % between congestion events
    /// gives beta = 0.5 (Linux's bandwidth switch).
    pub bandwidth_switch: bool,
    /// beta = minRTT / maxRTT clamped to [0.5, 0.8] (when minRTT > 10 ms); off: beta = 0.5
    /// always (the drafts' and FreeBSD's default).
    pub adaptive_backoff: bool,
    /// "real" (floating point) or "linux" (the kernel's fixed point, HZ = 1000).
    pub arithmetic: Arithmetic,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            quad_coeff: 0.25,
            delta_l: 1.0,
            rtt_scaling: RttScaling::Linux,
            bandwidth_switch: true,
            adaptive_backoff: true,
            arithmetic: Arithmetic::Real,
        }
    }
}

impl Params {
    pub fn validate(&self, path: &str) -> Result<(), String> {
        if !(self.quad_coeff.is_finite() && self.quad_coeff >= 0.0) {
            return Err(format!(
                "{path}.quad_coeff: must be a finite number >= 0 (0.25 paper/Linux, 0.5 draft; got {})",
                self.quad_coeff
            ));
        }
        if !(self.delta_l.is_finite() && self.delta_l >= 1.0) {
            return Err(format!("{path}.delta_l: seconds, must be >= 1 (draft section 3; got {})", self.delta_l));
        }
        Ok(())
    }

    pub fn build(&self) -> Htcp {
        Htcp::new(self.clone())
    }
}

const BETA_MIN: f64 = 0.5;
const BETA_MAX: f64 = 0.8;
/// Linux's BETA_MIN and BETA_MAX, <<7.
const BETA_MIN_FIX: u64 = 64;
const BETA_MAX_FIX: u64 = 102;
const MS: u64 = 1_000_000;
/// RTT_ref of the RTT scaling, 100 ms.
const RTT_REF_S: f64 = 0.1;
/// "No integer window yet": alpha is recomputed at the next congestion-avoidance ACK.
const NO_WND: u32 = u32::MAX;

/// Where the flow is with respect to its last congestion event.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// Linux's Open (and Disorder).
    Open,
    /// Fast recovery, until `on_recovery_exit`.
    Recovery,
    /// An ECN (CWR) or timeout (Loss) response: `remaining` segments of the FlightSize
    /// at the event are still to be acknowledged.
    Reducing { remaining: f64 },
}

pub struct Htcp {
    p: Params,
    /// Segments per RTT.
    alpha: f64,
    beta: f64,
    modeswitch: bool,
    /// ns (0: no sample yet); whole milliseconds under Linux arithmetic.
    min_rtt: u64,
    max_rtt: u64,
    /// End of the last congestion response (or the flow's first hook call).
    last_cong: Option<SimTime>,
    phase: Phase,
    /// FlightSize at the last congestion event.
    event_flight: f64,
    last_wnd: u32,
    // achieved throughput, packets per second
    packetcount: f64,
    lasttime: SimTime,
    bi: f64,
    max_b: f64,
    min_b: f64,
    old_max_b: f64,
}

#[inline]
fn wnd(cwnd: f64) -> u32 {
    (cwnd + 1e-7) as u32
}

impl Htcp {
    pub fn new(p: Params) -> Htcp {
        Htcp {
            p,
            alpha: 1.0,
            beta: BETA_MIN,
            modeswitch: false,
            min_rtt: 0,
            max_rtt: 0,
            last_cong: None,
            phase: Phase::Open,
            event_flight: 0.0,
            last_wnd: NO_WND,
            packetcount: 0.0,
            lasttime: SimTime::ZERO,
            bi: 0.0,
            max_b: 0.0,
            min_b: 0.0,
            old_max_b: 0.0,
        }
    }

    /// alpha, segments per RTT, as last computed.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    pub fn beta(&self) -> f64 {
        self.beta
    }

    pub fn min_rtt(&self) -> SimTime {
        SimTime(self.min_rtt)
    }

    pub fn max_rtt(&self) -> SimTime {
        SimTime(self.max_rtt)
    }

    /// The achieved-throughput maximum maxB, packets per second.
    pub fn max_b(&self) -> f64 {
        self.max_b
    }

    fn linux(&self) -> bool {
        self.p.arithmetic == Arithmetic::Linux
    }

    fn since_cong(&mut self, now: SimTime) -> SimTime {
        let lc = *self.last_cong.get_or_insert(now);
        now.saturating_sub(lc)
    }

    /// f_alpha(Delta) with the RTT scaling: alpha's factor before 2 (1 - beta).
    pub fn factor(&self, delta: SimTime) -> f64 {
        let scaled = |above: bool| match self.p.rtt_scaling {
            RttScaling::Linux => self.min_rtt > 0,
            RttScaling::Draft => self.min_rtt > 0 && above,
            RttScaling::Off => false,
        };
        if self.linux() {
            const HZ: u64 = 1000;
            let diff = delta.ns() / MS; // jiffies
            let dl = (self.p.delta_l * HZ as f64).round() as u64;
            let mut factor: u64 = 1;
            if diff > dl {
                let d = diff - dl;
                let quad = if self.p.quad_coeff == 0.25 {
                    (d / 2) * (d / 2) / HZ
                } else {
                    (self.p.quad_coeff * (d * d) as f64 / HZ as f64) as u64
                };
                factor = 1 + (10 * d + quad) / HZ;
            }
            if scaled(diff > dl) {
                let min_j = self.min_rtt / MS;
                let scale = ((HZ << 3) / (10 * min_j.max(1))).clamp(4, 80);
                factor = ((factor << 3) / scale).max(1);
            }
            factor as f64
        } else {
            let d = delta.as_secs_f64() - self.p.delta_l;
            let mut f = if d > 0.0 { 1.0 + 10.0 * d + self.p.quad_coeff * d * d } else { 1.0 };
            if scaled(d > 0.0) {
                let k = (self.min_rtt as f64 * 1e-9 / RTT_REF_S).clamp(0.1, 2.0);
                f = (f * k).max(1.0);
            }
            f
        }
    }

    fn alpha_update(&mut self, now: SimTime) {
        let delta = self.since_cong(now);
        let f = self.factor(delta);
        self.alpha = if self.linux() {
            let b = (self.beta * 128.0).round() as u64;
            let a = 2 * (f as u64) * (128 - b);
            if a == 0 {
                1.0
            } else {
                a as f64 / 128.0
            }
        } else {
            2.0 * (1.0 - self.beta) * f
        };
    }

    fn beta_update(&mut self) {
        if !self.p.adaptive_backoff {
            self.beta = BETA_MIN;
            return;
        }
        if self.p.bandwidth_switch {
            let (max_b, old) = (self.max_b, self.old_max_b);
            self.old_max_b = max_b;
            if !(4.0 * old <= 5.0 * max_b && 5.0 * max_b <= 6.0 * old) {
                self.beta = BETA_MIN;
                self.modeswitch = false;
                return;
            }
        }
        if self.modeswitch && self.min_rtt > 10 * MS && self.max_rtt > 0 {
            self.beta = if self.linux() {
                let b = ((self.min_rtt / MS) << 7) / (self.max_rtt / MS);
                b.clamp(BETA_MIN_FIX, BETA_MAX_FIX) as f64 / 128.0
            } else {
                (self.min_rtt as f64 / self.max_rtt as f64).clamp(BETA_MIN, BETA_MAX)
            };
        } else {
            self.beta = BETA_MIN;
            self.modeswitch = true;
        }
    }

    /// Linux measure_achieved_throughput (packets per second).
    fn measure_throughput(&mut self, cwnd: f64, acked: f64, now: SimTime) {
        if self.phase != Phase::Open {
            self.packetcount = 0.0;
            self.lasttime = now;
            return;
        }
        self.packetcount += acked;
        let elapsed = now.saturating_sub(self.lasttime);
        let need = wnd(cwnd) as f64 - (self.alpha.floor()).max(1.0);
        if self.min_rtt == 0 || self.packetcount < need || elapsed.ns() < self.min_rtt {
            return;
        }
        let linux = self.linux();
        let cur = if linux {
            (self.packetcount.floor() * 1000.0 / (elapsed.ns() / MS).max(1) as f64).floor()
        } else {
            self.packetcount / elapsed.as_secs_f64()
        };
        let ccount = self.since_cong(now).ns() / self.min_rtt;
        if ccount <= 3 {
            self.bi = cur;
            self.max_b = cur;
            self.min_b = cur;
        } else {
            self.bi = (3.0 * self.bi + cur) / 4.0;
            if linux {
                self.bi = self.bi.floor();
            }
            self.max_b = self.max_b.max(self.bi);
            self.min_b = self.min_b.min(self.max_b);
        }
        self.packetcount = 0.0;
        self.lasttime = now;
    }

    /// The congestion response has ended (Linux: back to Open).
    fn open(&mut self, now: SimTime) {
        self.phase = Phase::Open;
        self.last_cong = Some(now);
        self.last_wnd = NO_WND;
    }
}

impl CongestionControl for Htcp {
    fn name(&self) -> &'static str {
        "htcp"
    }

    fn per_packet_hooks(&self) -> bool {
        true
    }

    /// Linux measure_rtt: minRTT from every sample, maxRTT in Open only and only from
    /// samples at most 20 ms above it.
    fn on_rtt_sample(&mut self, _s: &mut CcState, rtt: SimTime, now: SimTime) {
        self.since_cong(now);
        let r = if self.linux() { rtt.ns().div_ceil(MS).max(1) * MS } else { rtt.ns().max(1) };
        if self.min_rtt == 0 || r < self.min_rtt {
            self.min_rtt = r;
        }
        if self.phase == Phase::Open {
            if self.max_rtt < self.min_rtt {
                self.max_rtt = self.min_rtt;
            }
            if self.max_rtt < r && r <= self.max_rtt + 20 * MS {
                self.max_rtt = r;
            }
        }
    }

    #[inline]
    fn on_ack(&mut self, s: &mut CcState, acked: f64, _rtt: Option<SimTime>, now: SimTime) {
        self.since_cong(now);
        if self.p.bandwidth_switch && self.p.adaptive_backoff {
            self.measure_throughput(s.cwnd, acked, now);
        }
        if let Phase::Reducing { remaining } = self.phase {
            let left = remaining - acked;
            if left <= 1e-9 {
                self.open(now); // the ECN/timeout response is over (Linux: CWR/Loss -> Open)
            } else {
                self.phase = Phase::Reducing { remaining: left };
            }
        }
        if s.cwnd < s.ssthresh {
            s.slow_start(acked); // slow start (RFC 5681 eq. 2; Linux: RFC 3465)
            return;
        }
        let w = wnd(s.cwnd);
        if w != self.last_wnd {
            self.last_wnd = w;
            self.alpha_update(now);
        }
        s.cwnd += self.alpha * acked / s.cwnd;
    }

    fn ssthresh(&mut self, s: &CcState, flight: f64, ev: CongestionEvent, now: SimTime) -> f64 {
        if ev == CongestionEvent::Timeout && self.phase == Phase::Recovery {
            // Linux tcp_enter_loss: ssthresh was already reduced in this window (and
            // NewReno's cwnd is inflated by the duplicate ACKs): keep it; on_rto restarts
            // Delta (htcp_state(Loss))
            self.event_flight = flight;
            self.phase = Phase::Reducing { remaining: flight };
            return s.ssthresh;
        }
        // htcp_param_update: beta, then alpha (with Delta up to now), then maxRTT fades
        self.beta_update();
        self.alpha_update(now);
        if self.min_rtt > 0 && self.max_rtt > self.min_rtt {
            let span = self.max_rtt - self.min_rtt;
            let faded = if self.linux() { span / MS * 95 / 100 * MS } else { (span as f64 * 0.95).round() as u64 };
            self.max_rtt = self.min_rtt + faded;
        }
        // htcp_reset (entering Recovery, CWR or Loss)
        self.last_cong = Some(now);
        self.last_wnd = NO_WND;
        self.event_flight = flight;
        self.phase = match ev {
            CongestionEvent::FastRetransmit => Phase::Recovery,
            CongestionEvent::Ecn | CongestionEvent::Timeout => Phase::Reducing { remaining: flight },
        };
        self.packetcount = 0.0;
        self.lasttime = now;
        if self.linux() {
            let b = (self.beta * 128.0).round() as u64;
            ((wnd(s.cwnd) as u64 * b) >> 7).max(2) as f64
        } else {
            (s.cwnd * self.beta).max(2.0)
        }
    }

    fn on_rto(&mut self, _s: &mut CcState, now: SimTime) {
        // entering Loss (again, on a repeated timeout): Delta restarts; the response ends
        // when the FlightSize at the (first) timeout has been acknowledged
        self.last_cong = Some(now);
        self.last_wnd = NO_WND;
        if !matches!(self.phase, Phase::Reducing { .. }) {
            self.phase = Phase::Reducing { remaining: self.event_flight };
        }
        self.packetcount = 0.0;
        self.lasttime = now;
    }

    fn on_recovery_exit(&mut self, _s: &mut CcState, now: SimTime) {
        self.open(now);
        self.packetcount = 0.0;
        self.lasttime = now;
    }
}
