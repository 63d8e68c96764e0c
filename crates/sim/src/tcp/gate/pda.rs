//! The packet-drop-avoidance (PDA) sender of Lion: bursts of at most the maximum burst
//! size (MBS) at line rate, gaps set from the available bandwidth, both measured from the
//! flow's own bursts; no multiplicative decrease on loss; the yield rule when new traffic
//! appears.
//!
//! Source: seeds/002 (G. Jin, "Packet Drop Avoidance for High-speed network transmission
//! protocol", LBNL-53920, 2004). Section II: "choosing a proper burst size with a proper
//! gap between bursts will effectively reduce packet loss"; section III: "The transmission
//! packets are then paced out by proper MBS ... [the protocol] does not react to random
//! loss to do multiplicative decrease", retransmission left to layer 4 (here: the flow's
//! SACK or NewReno recovery; use it with `cc = { kind = "fixed", window = W }`, W bounding
//! the outstanding data); section IV: "a very short start phase", then "after detecting
//! new traffic, yields a scaled bandwidth based on utilized bandwidth ... throughput
//! between 500Mb/s~999Mb/s yields 200 Mb/s, throughput between 150Mb/s~499Mb/s yields
//! 100 Mb/s, and so on"; when the competitor takes the yielded share and more ("the
//! competing traffic is too aggressive") Lion balances "by gradually increasing the burst
//! pacing". The paper gives no formulas: ALGORITHMS.md section 13 reconstructs the sender
//! [X]; what it leaves open is an option here, with its default:
//!
//! - Start phase: bursts at line rate R, one per round trip (the next after the previous
//!   one's ACKs are in), doubling from `init_burst` until a burst loses a packet or reaches
//!   `max_burst` (at most what the host's NIC queue holds, + 1 in service: the whole
//!   burst is handed to it at once): the MBS estimate is the last loss-free size. Each loss-free burst of 4 or
//!   more packets gives a FAC point (R, r_out); then one burst paced at the last r_out
//!   gives a second point, and the FAC fit (mbs.rs) gives capacity C and cross traffic X:
//!   A = C - X. Without a usable second point, A = the last r_out.
//! - r_out of a burst: its ACK dispersion, (acks - 1) x s x 8 / (last ACK - first ACK),
//!   one ACK per segment (delayed ACKs off); a burst is loss-free when each of its
//!   segments was acknowledged by its own ACK.
//! - Retransmissions are paced like new data in the steady phase (the paper's layer-3
//!   pacing covers all traffic) but not counted in a burst's dispersion; in the start
//!   phase they leave at once (held back for the ACKs of the burst they repair, recovery
//!   would stall).
//! - Steady phase: bursts of max(2, `mbs_fraction` x MBS) at line rate, a new burst
//!   bytes x 8 / rate after the previous started. Each loss-free burst updates A:
//!   X = R (C / r_out - 1) from r_out = C R / (R + X), A += `gain` (C - X - A). A lossy
//!   burst sets MBS to 3/4 of its size (the paper: loss means MBS must be re-measured);
//!   each loss-free one adds a packet back, up to `max_burst`.
//! - Rate, judged once per SRTT: `rate` follows A upward; when A falls below
//!   rate x (1 - `detect`) new traffic has appeared: yield (200 Mb/s from 500 Mb/s up,
//!   100 Mb/s from 150 Mb/s, the paper's rows; a third of the rate below, ours) and hold
//!   for `hold_rtts`; if A is still below after the hold, balance: rate grows by
//!   `balance_step` x C per SRTT (no decrease on loss) until A rises above it again.

use crate::core::check::unit_fraction;
use std::collections::VecDeque;

use crate::core::time::SimTime;
use crate::net::mbs;
use crate::tcp::sched::{GateView, SendGate};

use super::kind::GateKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Lion's packet-drop avoidance (tcp/gate/pda.rs; G. Jin, "Packet Drop Avoidance for
/// High-speed Network Transmission Protocol", LBNL 2004): bursts of a measured
/// maximum burst size, gaps from the measured available bandwidth.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PdaParams {
    /// First burst of the start phase, packets; 2..=max_burst.
    pub init_burst: u32,
    /// Largest burst, packets (at most what the host's NIC queue holds + 1); at most
    /// 1000000.
    pub max_burst: u32,
    /// Steady-phase bursts are max(2, mbs_fraction x MBS) packets; in (0, 1].
    pub mbs_fraction: f64,
    /// Weight of a new available-bandwidth sample in A; in (0, 1].
    pub gain: f64,
    /// New traffic is detected when A falls below rate x (1 - detect); in (0, 1].
    pub detect: f64,
    /// Round trips to hold after yielding, at most 1000.
    pub hold_rtts: u32,
    /// Rate growth per SRTT while balancing, as a share of the capacity C; in (0, 1].
    pub balance_step: f64,
    /// The rate never goes below this share of the capacity estimate; in (0, 1].
    // (ours: the paper names no floor; without one an estimate of A = 0 would stop the
    // sender for good)
    pub min_share: f64,
}

impl GateKind for PdaParams {
    fn validate(&self, path: &str) -> Result<(), String> {
        let p = self;
        if p.init_burst < 2 || p.init_burst > p.max_burst {
            return Err(format!("{path}.init_burst: must be 2..max_burst (got {})", p.init_burst));
        }
        if p.max_burst > 1_000_000 {
            return Err(format!("{path}.max_burst: must be at most 1000000 (got {})", p.max_burst));
        }
        for (name, v) in [
            ("mbs_fraction", p.mbs_fraction),
            ("gain", p.gain),
            ("detect", p.detect),
            ("balance_step", p.balance_step),
            ("min_share", p.min_share),
        ] {
            unit_fraction(path, name, v)?;
        }
        if p.hold_rtts > 1000 {
            return Err(format!("{path}.hold_rtts: must be at most 1000 (got {})", p.hold_rtts));
        }
        Ok(())
    }

    fn build(&self, line_rate: f64, nic_pkts: Option<u64>, _: u32, _: u32) -> Box<dyn SendGate> {
        let mut p = *self;
        // a burst handed to the NIC at once must fit its queue (+1 in service)
        if let Some(n) = nic_pkts {
            p.max_burst = p.max_burst.min((n + 1).min(u32::MAX as u64) as u32).max(p.init_burst);
        }
        Box::new(Pda::new(p, line_rate))
    }
}

impl Default for PdaParams {
    fn default() -> Self {
        PdaParams {
            init_burst: 2,
            max_burst: 1024,
            mbs_fraction: 0.5,
            gain: 0.25,
            detect: 0.1,
            hold_rtts: 2,
            balance_step: 0.02,
            min_share: 0.05,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Doubling bursts at line rate, one per round trip.
    Doubling,
    /// The paced burst that gives FAC its second point.
    SecondPoint,
    Steady,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Normal,
    Yielded { at: SimTime },
    Balancing,
}

/// A burst whose ACKs are awaited: its new-data segments (retransmissions in it are
/// not counted: their ACKs say nothing of its dispersion).
#[derive(Clone, Copy, Debug)]
struct Burst {
    start_seq: u64,
    end_seq: u64,
    n: u32,
    bytes: u64,
    r_in: f64,
    acks: u32,
    t_first: Option<SimTime>,
}

/// The burst being sent.
#[derive(Clone, Copy, Debug)]
struct Current {
    start: SimTime,
    n: u32,
    sent: u32,
    b: Burst,
}

pub struct Pda {
    pub p: PdaParams,
    /// The host's line rate, bits/s.
    pub line_rate: f64,
    phase: Phase,
    mode: Mode,
    cur: Option<Current>,
    inflight: VecDeque<Burst>,
    next_burst_at: SimTime,
    prev_una: u64,
    /// Start phase: the next burst size and the last loss-free one.
    n: u32,
    last_lossless: u32,
    points: Vec<(f64, f64)>,
    pub mbs_est: Option<u32>,
    pub capacity: Option<f64>,
    pub abw: Option<f64>,
    /// The pacing rate in force, bits/s.
    pub rate: f64,
    last_judge: SimTime,
    pub yields: u32,
    pub lossy_bursts: u32,
}

impl Pda {
    pub fn new(p: PdaParams, line_rate: f64) -> Pda {
        Pda {
            p,
            line_rate,
            phase: Phase::Doubling,
            mode: Mode::Normal,
            cur: None,
            inflight: VecDeque::new(),
            next_burst_at: SimTime::ZERO,
            prev_una: 0,
            n: p.init_burst.max(2),
            last_lossless: 0,
            points: Vec::new(),
            mbs_est: None,
            capacity: None,
            abw: None,
            rate: line_rate,
            last_judge: SimTime::ZERO,
            yields: 0,
            lossy_bursts: 0,
        }
    }

    /// The paper's yield: 200 Mb/s from 500 Mb/s up, 100 Mb/s from 150 Mb/s; below, a
    /// third of the rate (ours: "and so on").
    pub fn yield_of(rate: f64) -> f64 {
        if rate >= 500e6 {
            200e6
        } else if rate >= 150e6 {
            100e6
        } else {
            rate / 3.0
        }
    }

    fn burst_size(&self) -> u32 {
        let m = self.mbs_est.unwrap_or(self.p.max_burst) as f64;
        ((self.p.mbs_fraction * m) as u32).clamp(2, self.p.max_burst)
    }

    /// A burst's ACKs are all in: judge it.
    fn judge(&mut self, b: Burst, t_last: SimTime, srtt: Option<SimTime>, now: SimTime) {
        let lossless = b.acks >= b.n;
        let s_bits = b.bytes as f64 * 8.0 / b.n as f64;
        let r_out = match b.t_first {
            Some(t0) if b.acks >= 2 && t_last > t0 => {
                Some((b.acks - 1) as f64 * s_bits * 1e9 / (t_last - t0).ns() as f64)
            }
            _ => None,
        };
        if !lossless {
            self.lossy_bursts += 1;
        }
        match self.phase {
            Phase::Doubling => {
                if lossless {
                    self.last_lossless = b.n;
                    if let Some(r) = r_out.filter(|_| b.n >= 4) {
                        self.points.push((b.r_in, r.min(b.r_in)));
                    }
                }
                if !lossless || b.n >= self.p.max_burst {
                    self.mbs_est = Some(self.last_lossless.max(2));
                    self.phase = Phase::SecondPoint;
                } else {
                    self.n = (b.n * 2).min(self.p.max_burst);
                }
                self.next_burst_at = now;
            }
            Phase::SecondPoint => {
                if let Some(r) = r_out.filter(|_| lossless) {
                    self.points.push((b.r_in, r.min(b.r_in)));
                }
                // points above A only: a train that kept its input rate says A >= r_in
                let above: Vec<(f64, f64)> = self.points.iter().copied().filter(|(i, o)| *o < i * 0.98).collect();
                let last_out = self.points.last().map(|p| p.1).unwrap_or(self.line_rate);
                // C lies between the fastest output seen and the line rate (r_out <= r_in <= R)
                let max_out = self.points.iter().map(|p| p.1).fold(last_out, f64::max);
                let (c, a) = match mbs::fac_fit(&above) {
                    Some((c, x)) => (c.clamp(max_out, self.line_rate), c - x),
                    None => (max_out, last_out),
                };
                self.capacity = Some(c);
                // fluid model: a train above A leaves faster than A, so A < the last r_out
                let floor = self.p.min_share * c;
                self.abw = Some(a.clamp(floor, last_out.max(floor)));
                self.rate = self.abw.unwrap_or(self.line_rate);
                self.phase = Phase::Steady;
                self.last_judge = now;
                self.next_burst_at = now;
            }
            Phase::Steady => {
                let m = self.mbs_est.unwrap_or(2);
                if lossless {
                    self.mbs_est = Some((m + 1).min(self.p.max_burst));
                    if let (Some(r), Some(c)) = (r_out, self.capacity) {
                        let x = (b.r_in * (c / r.min(c) - 1.0)).max(0.0);
                        let sample = (c - x).max(self.p.min_share * c);
                        let a = self.abw.unwrap_or(sample);
                        self.abw = Some(a + self.p.gain * (sample - a));
                    }
                } else {
                    self.mbs_est = Some((b.n * 3 / 4).max(2));
                }
                self.adjust_rate(srtt, now);
            }
        }
    }

    /// The rate rule, once per SRTT.
    fn adjust_rate(&mut self, srtt: Option<SimTime>, now: SimTime) {
        let rtt = srtt.unwrap_or(SimTime::from_ms(100));
        if now < self.last_judge + rtt {
            return;
        }
        self.last_judge = now;
        let (Some(a), Some(c)) = (self.abw, self.capacity) else { return };
        let low = a < self.rate * (1.0 - self.p.detect);
        match self.mode {
            Mode::Normal if low => {
                self.rate = (self.rate - Self::yield_of(self.rate)).max(c * self.p.min_share);
                self.yields += 1;
                self.mode = Mode::Yielded { at: now };
            }
            Mode::Normal => self.rate = self.rate.max(a.min(c)),
            Mode::Yielded { at } => {
                if now >= at + SimTime(rtt.ns() * self.p.hold_rtts as u64) {
                    self.mode = if low { Mode::Balancing } else { Mode::Normal };
                }
            }
            Mode::Balancing => {
                if low {
                    self.rate = (self.rate + self.p.balance_step * c).min(c);
                } else {
                    self.mode = Mode::Normal;
                }
            }
        }
    }
}

impl SendGate for Pda {
    fn name(&self) -> &'static str {
        "pda"
    }

    fn release_at(&mut self, v: &GateView, now: SimTime) -> Option<SimTime> {
        if v.seq < v.snd_max && self.phase != Phase::Steady {
            // a retransmission in the start phase: never held back waiting for the ACKs
            // of the burst it repairs
            return None;
        }
        if let Some(c) = &self.cur {
            if c.sent < c.n {
                if c.b.r_in >= self.line_rate {
                    return None;
                }
                let t = c.start + SimTime::from_secs_f64(c.sent as f64 * v.bytes as f64 * 8.0 / c.b.r_in);
                return (now < t).then_some(t);
            }
        }
        // between bursts: the start phase waits for the previous burst's ACKs
        if self.phase != Phase::Steady && !self.inflight.is_empty() {
            return Some(now + v.srtt.unwrap_or(SimTime::from_ms(100)));
        }
        if now < self.next_burst_at {
            return Some(self.next_burst_at);
        }
        let (n, r_in) = match self.phase {
            Phase::Doubling => (self.n, self.line_rate),
            Phase::SecondPoint => {
                let r = self.points.last().map_or(self.line_rate, |p| p.1);
                (self.mbs_est.unwrap_or(2).clamp(4, 100), r)
            }
            Phase::Steady => (self.burst_size(), self.line_rate),
        };
        let b = Burst { start_seq: u64::MAX, end_seq: 0, n: 0, bytes: 0, r_in, acks: 0, t_first: None };
        self.cur = Some(Current { start: now, n, sent: 0, b });
        None
    }

    fn on_sent(&mut self, v: &GateView, now: SimTime) {
        if v.seq < v.snd_max && self.phase != Phase::Steady {
            return;
        }
        let Some(c) = self.cur.as_mut() else { return };
        c.sent += 1;
        if v.seq >= v.snd_max {
            // new data only: a retransmission's ACK says nothing of this burst's dispersion
            c.b.start_seq = c.b.start_seq.min(v.seq);
            c.b.end_seq = c.b.end_seq.max(v.seq + v.len);
            c.b.n += 1;
            c.b.bytes += v.bytes as u64;
        }
        if c.sent >= c.n {
            let c = self.cur.take().expect("current burst");
            // the next burst: the burst's bytes at the pacing rate, from its start
            let rate = if self.phase == Phase::Steady { self.rate } else { self.line_rate };
            let bytes = c.n as f64 * v.bytes as f64;
            self.next_burst_at = c.start + SimTime::from_secs_f64(bytes * 8.0 / rate.max(1e3));
            if self.phase == Phase::Steady {
                self.next_burst_at = self.next_burst_at.max(now);
            }
            if c.b.n > 0 {
                self.inflight.push_back(c.b);
            }
        }
    }

    fn on_ack(&mut self, v: &GateView, now: SimTime) {
        if v.snd_una <= self.prev_una {
            return;
        }
        let prev = self.prev_una;
        self.prev_una = v.snd_una;
        // every awaited burst this ACK covers part of
        let mut done = 0;
        for b in self.inflight.iter_mut() {
            if v.snd_una > b.start_seq && prev < b.end_seq {
                b.acks += 1;
                b.t_first.get_or_insert(now);
            }
            if v.snd_una >= b.end_seq {
                done += 1;
            } else {
                break;
            }
        }
        for _ in 0..done {
            let b = self.inflight.pop_front().expect("a covered burst");
            self.judge(b, now, v.srtt, now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yield_rows_of_the_paper() {
        assert_eq!(Pda::yield_of(900e6), 200e6);
        assert_eq!(Pda::yield_of(500e6), 200e6);
        assert_eq!(Pda::yield_of(499e6), 100e6);
        assert_eq!(Pda::yield_of(150e6), 100e6);
        assert_eq!(Pda::yield_of(90e6), 30e6);
    }
}
