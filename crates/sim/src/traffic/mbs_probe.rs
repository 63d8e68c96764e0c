//! The MBS probe: measures a path's maximum burst size, then its available bandwidth,
//! inside a run, from trains of its own packets and the receiver's per-packet reports.
//!
//! Source: seeds/002 (Jin 2004) section II and Fig. 1 ("Once the MBS probe process sees
//! the potential queuing, it slows down the burst increase rate"); netest (Jin and
//! Tierney, ITRE 2003); the schedule is ALGORITHMS.md section 13's reconstruction [X]
//! (the paper's exact schedule is unknown):
//!
//! 1. A train of N packets at the sender's line rate (the rate of its first link); the
//!    receiver reports each packet it gets (a 40 B report: train, index, arrival time).
//! 2. The train is judged when every report is in, or at a timeout (2 x the largest RTT
//!    seen, `init_timeout` before any); the next train starts after SRTT + N x s / r_out
//!    from the start of the last one (r_out: the last train's output rate), so queues
//!    have drained.
//! 3. N starts at 2 and doubles until a train loses a packet; then binary search between
//!    the last loss-free and the first lossy size, down to max(1, `resolution` x N).
//! 4. Each size is tried `trials` times; it counts as loss-free only if every trial is.
//! 5. Then FAC (mbs.rs): trains of min(`fac_train`, MBS) packets, the first at line
//!    rate, the next at the output rate measured; (r_in, r_out) points above the available
//!    bandwidth fitted for C and X; the next train at the estimate A = C - X, accepted
//!    when |r_out - r_in| / r_in < `fac_epsilon`; at most `fac_rounds` trains.
//!
//! r_out = (received - 1) x s x 8 / (last arrival - first arrival), arrival times as
//! the receiver stamped them (netest's receiver-side dispersion).

use super::raw::{PacketSource, RawPkt};
use crate::core::rng::Rng;
use crate::core::time::SimTime;
use crate::net::mbs;

#[derive(Clone, Debug)]
pub struct ProbeParams {
    pub pkt_bytes: u32,
    pub trials: u32,
    pub max_train: u32,
    pub resolution: f64,
    pub fac_train: u32,
    pub fac_epsilon: f64,
    pub fac_rounds: u32,
    pub init_timeout: SimTime,
    pub start: SimTime,
}

impl Default for ProbeParams {
    fn default() -> Self {
        ProbeParams {
            pkt_bytes: 1500,
            trials: 3,
            max_train: 4096,
            resolution: 0.01,
            fac_train: 100,
            fac_epsilon: 0.02,
            fac_rounds: 8,
            init_timeout: SimTime::from_secs(1),
            start: SimTime::ZERO,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Mbs,
    Fac,
    Done,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Mbs => "mbs",
            Phase::Fac => "fac",
            Phase::Done => "done",
        }
    }
}

/// One train as judged.
#[derive(Clone, Copy, Debug)]
pub struct TrainRecord {
    pub t: SimTime,
    pub phase: Phase,
    pub n: u32,
    pub rate_in_bps: f64,
    pub received: u32,
    pub rate_out_bps: Option<f64>,
    pub lossless: bool,
}

struct Train {
    id: u32,
    n: u32,
    rate_in: f64,
    start: SimTime,
    sent: u32,
    received: u32,
    first_arr: SimTime,
    last_arr: SimTime,
}

/// What the probe found.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProbeResult {
    /// Largest loss-free train, packets (None before the search ends).
    pub mbs_pkts: Option<u32>,
    /// Every size up to `max_train` was loss-free.
    pub unbounded: bool,
    pub abw_bps: Option<f64>,
    pub capacity_bps: Option<f64>,
    pub cross_bps: Option<f64>,
}

pub struct MbsProbe {
    pub p: ProbeParams,
    /// The sender's line rate, bits/s (its first link).
    pub line_rate: f64,
    pub phase: Phase,
    n: u32,
    trial: u32,
    lo: u32,
    hi: Option<u32>,
    fac_points: Vec<(f64, f64)>,
    fac_round: u32,
    abw_est: Option<f64>,
    train: Option<Train>,
    next_id: u32,
    next_send: Option<SimTime>,
    decide_at: Option<SimTime>,
    next_train_at: Option<SimTime>,
    srtt: Option<SimTime>,
    max_rtt: SimTime,
    pub records: Vec<TrainRecord>,
    pub result: ProbeResult,
}

impl MbsProbe {
    pub fn new(p: ProbeParams, line_rate: f64) -> MbsProbe {
        let start = p.start;
        MbsProbe {
            p,
            line_rate,
            phase: Phase::Mbs,
            n: 2,
            trial: 0,
            lo: 0,
            hi: None,
            fac_points: Vec::new(),
            fac_round: 0,
            abw_est: None,
            train: None,
            next_id: 0,
            next_send: None,
            decide_at: None,
            next_train_at: Some(start),
            srtt: None,
            max_rtt: SimTime::ZERO,
            records: Vec::new(),
            result: ProbeResult::default(),
        }
    }

    /// The earliest time the probe needs to act.
    pub fn next_wake(&self) -> Option<SimTime> {
        [self.next_send, self.decide_at, self.next_train_at].into_iter().flatten().min()
    }

    /// Nanoseconds between the packets of a train sent at `rate` bits/s.
    pub fn interval(&self, rate: f64) -> f64 {
        self.p.pkt_bytes as f64 * 8e9 / rate
    }

    /// Acts at `now`; returns the (train, index) of a packet to send now, if any.
    pub fn fire(&mut self, now: SimTime) -> Option<(u32, u32)> {
        if self.decide_at.is_some_and(|t| t <= now) {
            self.decide(now);
        }
        if self.next_train_at.is_some_and(|t| t <= now) && self.phase != Phase::Done {
            self.next_train_at = None;
            let (n, rate_in) = match self.phase {
                Phase::Mbs => (self.n, self.line_rate),
                _ => (self.fac_n(), self.fac_rate_in()),
            };
            self.train = Some(Train {
                id: self.next_id,
                n,
                rate_in,
                start: now,
                sent: 0,
                received: 0,
                first_arr: SimTime::MAX,
                last_arr: SimTime::ZERO,
            });
            self.next_id += 1;
            self.next_send = Some(now);
        }
        if self.next_send.is_some_and(|t| t <= now) {
            let timeout = if self.srtt.is_some() {
                SimTime(self.max_rtt.ns() * 2) + SimTime::from_ms(1)
            } else {
                self.p.init_timeout
            };
            let iv = self.train.as_ref().map(|t| self.interval(t.rate_in)).unwrap_or(0.0);
            let tr = self.train.as_mut().expect("a send without a train");
            let k = tr.sent;
            tr.sent += 1;
            if tr.sent < tr.n {
                self.next_send = Some(tr.start + SimTime((tr.sent as f64 * iv) as u64));
            } else {
                self.next_send = None;
                self.decide_at = Some(now + timeout);
            }
            return Some((tr.id, k));
        }
        None
    }

    /// A report came back: packet `idx` of train `id` reached the receiver at `arrived`;
    /// it had left at `sent`.
    pub fn on_report(&mut self, id: u32, arrived: SimTime, sent: SimTime, now: SimTime) {
        let rtt = now.saturating_sub(sent);
        self.srtt = Some(match self.srtt {
            None => rtt,
            Some(s) => SimTime((s.ns() * 7 + rtt.ns()) / 8),
        });
        self.max_rtt = self.max_rtt.max(rtt);
        let Some(tr) = self.train.as_mut().filter(|t| t.id == id) else { return };
        tr.received += 1;
        tr.first_arr = tr.first_arr.min(arrived);
        tr.last_arr = tr.last_arr.max(arrived);
        if tr.received == tr.n && tr.sent == tr.n {
            self.decide(now);
        }
    }

    fn fac_n(&self) -> u32 {
        self.p.fac_train.min(self.lo.max(2))
    }

    fn fac_rate_in(&self) -> f64 {
        match self.fac_points.last() {
            None => self.line_rate,
            Some(_) => self.abw_est.unwrap_or(self.line_rate).min(self.line_rate),
        }
    }

    fn decide(&mut self, now: SimTime) {
        self.decide_at = None;
        let Some(tr) = self.train.take() else { return };
        let s_bits = self.p.pkt_bytes as f64 * 8.0;
        let rate_out = (tr.received >= 2 && tr.last_arr > tr.first_arr)
            .then(|| (tr.received - 1) as f64 * s_bits * 1e9 / (tr.last_arr - tr.first_arr).ns() as f64);
        let lossless = tr.received == tr.n;
        self.records.push(TrainRecord {
            t: tr.start,
            phase: self.phase,
            n: tr.n,
            rate_in_bps: tr.rate_in,
            received: tr.received,
            rate_out_bps: rate_out,
            lossless,
        });
        match self.phase {
            Phase::Mbs => self.mbs_step(lossless),
            Phase::Fac => self.fac_step(tr.rate_in, rate_out),
            Phase::Done => {}
        }
        // queues drain: SRTT + N s / r_out after the train started
        let drain = SimTime::from_secs_f64(tr.n as f64 * s_bits / rate_out.unwrap_or(self.line_rate).max(1.0));
        let gap = self.srtt.unwrap_or(self.p.init_timeout) + drain;
        if self.phase != Phase::Done {
            self.next_train_at = Some(now.max(tr.start + gap));
        }
    }

    fn mbs_step(&mut self, lossless: bool) {
        if lossless {
            self.trial += 1;
            if self.trial < self.p.trials {
                return; // the same size again
            }
            self.trial = 0;
            self.lo = self.n;
            if self.hi.is_none() {
                if self.n >= self.p.max_train {
                    self.result.mbs_pkts = Some(self.lo);
                    self.result.unbounded = true;
                    self.phase = Phase::Fac;
                    return;
                }
                self.n = (self.n * 2).min(self.p.max_train);
                return;
            }
        } else {
            self.trial = 0;
            self.hi = Some(self.n);
            if self.lo == 0 {
                self.lo = 1; // a single packet is taken to pass
            }
        }
        let hi = self.hi.expect("bisecting without a lossy size");
        let tol = ((self.p.resolution * self.lo as f64) as u32).max(1);
        if hi - self.lo <= tol {
            self.result.mbs_pkts = Some(self.lo);
            self.phase = Phase::Fac;
        } else {
            self.n = (self.lo + hi) / 2;
        }
    }

    fn fac_step(&mut self, rate_in: f64, rate_out: Option<f64>) {
        self.fac_round += 1;
        let eps = self.p.fac_epsilon;
        let Some(r_out) = rate_out else {
            if self.fac_round >= self.p.fac_rounds {
                self.finish_fac();
            }
            return;
        };
        if (r_out - rate_in).abs() / rate_in < eps {
            // the train passed at its input rate: A >= r_in
            if self.fac_points.is_empty() {
                self.result.capacity_bps = Some(r_out);
                self.result.cross_bps = Some(0.0);
            }
            self.abw_est = Some(rate_in);
            self.finish_fac();
            return;
        }
        self.fac_points.push((rate_in, r_out));
        self.abw_est = match mbs::fac_fit(&self.fac_points) {
            Some((c, x)) => {
                self.result.capacity_bps = Some(c);
                self.result.cross_bps = Some(x);
                Some((c - x).clamp(1.0, self.line_rate))
            }
            // one point: r_out is above A (fluid model), approach from there
            None => Some(r_out),
        };
        if self.fac_round >= self.p.fac_rounds {
            self.finish_fac();
        }
    }

    fn finish_fac(&mut self) {
        self.result.abw_bps = self.abw_est;
        self.phase = Phase::Done;
        self.next_train_at = None;
    }
}

/// As a non-TCP source: its packets are the trains' (train id, index), each reported back
/// by the receiver; it uses no randomness and counts as no cross traffic.
impl PacketSource for MbsProbe {
    fn name(&self) -> &'static str {
        "mbs_probe"
    }

    fn mean_rate_bps(&self) -> f64 {
        0.0
    }

    fn first(&mut self, _rng: &mut Rng) -> Option<SimTime> {
        self.next_wake()
    }

    fn fire(&mut self, now: SimTime, _sent: u64, _rng: &mut Rng) -> (Option<RawPkt>, Option<SimTime>) {
        let k = MbsProbe::fire(self, now);
        let pkt = k.map(|(train, idx)| RawPkt {
            train: train as u64,
            seq: idx as u64,
            bytes: self.p.pkt_bytes,
            claimed_src: None,
            sp: None,
        });
        (pkt, self.next_wake())
    }

    fn wants_reports(&self) -> bool {
        true
    }

    fn on_report(&mut self, train: u64, arrived: SimTime, sent: SimTime, now: SimTime) -> Option<SimTime> {
        MbsProbe::on_report(self, train as u32, arrived, sent, now);
        self.next_wake()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
