//! Traffic that is not TCP: one-way packet sources with no transport (the "cross
//! traffic" of seeds/002, Jin 2004, Fig. 1-4: "two cross traffic streams (1Gb/s ... and
//! OC-12)" loading a router beside the measured stream), and the MBS probe
//! (mbs_probe.rs), which needs the receiver's per-packet reports.
//!
//! - Constant bit rate (ns-2's Application/Traffic/CBR): packet k of a source leaves at
//!   start + floor(k x size x 8 / rate) ns, so the long-run rate is exact whatever the
//!   rounding of one interval.
//! - On-off (ns-2's Application/Traffic/Exponential, or fixed periods): at `rate` during
//!   on periods, silent during off periods; period lengths fixed or exponential with the
//!   given means. Mean rate = rate x on / (on + off). A period starts with a packet.
//!
//! Packets carry `flags::RAW` and the source's index in `flow`; the simulator counts
//! them per link like any packet and per source here (sent = delivered + dropped + in
//! the network, checked by `Sim::check_conservation`).

use crate::core::packet::{NodeId, RouteId, SpHdr};
use crate::core::rng::Rng;
use crate::core::time::SimTime;

/// How on and off periods are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Periods {
    Fixed,
    Exponential,
}

/// A constant-rate or on-off packet stream.
#[derive(Clone, Debug)]
pub struct Stream {
    /// Bits per second while sending.
    pub rate_bps: f64,
    /// Wire bytes per packet.
    pub pkt_bytes: u32,
    /// None: constant bit rate. Some((mean on, mean off, how drawn)).
    pub on_off: Option<(SimTime, SimTime, Periods)>,
    pub start: SimTime,
    pub stop: SimTime,
    /// Start of the current on period and packets sent in it.
    period_start: SimTime,
    k: u64,
    /// End of the current on period (CBR: `stop`).
    on_until: SimTime,
}

impl Stream {
    pub fn new(
        rate_bps: f64,
        pkt_bytes: u32,
        on_off: Option<(SimTime, SimTime, Periods)>,
        start: SimTime,
        stop: SimTime,
    ) -> Stream {
        Stream { rate_bps, pkt_bytes, on_off, start, stop, period_start: start, k: 0, on_until: stop }
    }

    /// The long-run mean rate, bits/s (what the MBS fluid model counts as cross traffic).
    pub fn mean_rate_bps(&self) -> f64 {
        match self.on_off {
            None => self.rate_bps,
            Some((on, off, _)) => {
                let (on, off) = (on.ns() as f64, off.ns() as f64);
                if on + off == 0.0 {
                    0.0
                } else {
                    self.rate_bps * on / (on + off)
                }
            }
        }
    }

    fn draw(d: SimTime, how: Periods, rng: &mut Rng) -> SimTime {
        match how {
            Periods::Fixed => d,
            Periods::Exponential => SimTime::from_secs_f64(rng.exponential(d.as_secs_f64())),
        }
    }

    /// The time of packet k of the current period.
    fn at(&self, k: u64) -> SimTime {
        let ns = k as f64 * self.pkt_bytes as f64 * 8e9 / self.rate_bps;
        self.period_start + SimTime(ns as u64)
    }

    pub fn first(&mut self, rng: &mut Rng) -> Option<SimTime> {
        if let Some((on, _, how)) = self.on_off {
            self.on_until = self.start + Self::draw(on, how, rng);
        }
        (self.start < self.stop).then_some(self.start)
    }

    /// Called at a packet time: whether a packet leaves now, and the next packet time.
    pub fn fire(&mut self, now: SimTime, rng: &mut Rng) -> (bool, Option<SimTime>) {
        if now >= self.stop {
            return (false, None);
        }
        let send = now < self.on_until;
        self.k += 1;
        let mut next = self.at(self.k);
        if let Some((on, off, how)) = self.on_off {
            // the next packet would fall after the on period: the next period starts
            // with a packet after an off period (and possibly empty on periods skipped)
            while next >= self.on_until {
                self.period_start = self.on_until + Self::draw(off, how, rng);
                self.on_until = self.period_start + Self::draw(on, how, rng);
                self.k = 0;
                next = self.period_start;
                if self.period_start >= self.stop {
                    return (send, None);
                }
                if self.on_until > self.period_start {
                    break;
                }
            }
        }
        (send, (next < self.stop).then_some(next))
    }
}

/// A packet a raw source sends now: its train and index (the `ack` and `seq` fields; a
/// probe's reports name them), its wire bytes, the source address it claims (an
/// attacker's spoofed one; None: its own) and its super-packet header, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawPkt {
    pub train: u64,
    pub seq: u64,
    pub bytes: u32,
    pub claimed_src: Option<NodeId>,
    pub sp: Option<SpHdr>,
}

/// What a non-TCP source does: one implementation per behaviour (a stream here, the MBS
/// probe in mbs_probe.rs, the attacker in attack.rs). The engine (engine/sim/sources.rs)
/// calls it at the times it asks for and builds, counts and delivers its packets; `Send`,
/// as the simulation moves between threads (the Python extension releases the GIL).
pub trait PacketSource: Send {
    /// Its name in the sources table ("cbr", "onoff", "mbs_probe", "sp_attack").
    fn name(&self) -> &'static str;
    /// Long-run mean rate as cross traffic, bits/s (what the MBS fluid model counts).
    fn mean_rate_bps(&self) -> f64;
    /// The time of its first event, if any.
    fn first(&mut self, rng: &mut Rng) -> Option<SimTime>;
    /// At an event time: the packet that leaves now, if any (`sent`: the source's packets
    /// sent so far), and the time of its next event.
    fn fire(&mut self, now: SimTime, sent: u64, rng: &mut Rng) -> (Option<RawPkt>, Option<SimTime>);
    /// Whether the receiver reports each packet back to it (40 B, on the reverse route).
    fn wants_reports(&self) -> bool {
        false
    }
    /// A report came back at `now` for packet (`train`, `seq`) that reached the receiver
    /// at `arrived` and had left at `sent`; returns when the source next needs to act.
    fn on_report(&mut self, _train: u64, _arrived: SimTime, _sent: SimTime, _now: SimTime) -> Option<SimTime> {
        None
    }
    /// The source itself, for the results tables of a kind that has its own (the probe's).
    fn as_any(&self) -> &dyn std::any::Any;
}

impl PacketSource for Stream {
    fn name(&self) -> &'static str {
        if self.on_off.is_some() {
            "onoff"
        } else {
            "cbr"
        }
    }

    fn mean_rate_bps(&self) -> f64 {
        Stream::mean_rate_bps(self)
    }

    fn first(&mut self, rng: &mut Rng) -> Option<SimTime> {
        Stream::first(self, rng)
    }

    fn fire(&mut self, now: SimTime, sent: u64, rng: &mut Rng) -> (Option<RawPkt>, Option<SimTime>) {
        let (send, next) = Stream::fire(self, now, rng);
        (send.then_some(RawPkt { train: 0, seq: sent, bytes: self.pkt_bytes, claimed_src: None, sp: None }), next)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Per-source counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawStats {
    pub pkts_sent: u64,
    pub pkts_delivered: u64,
    pub pkts_dropped: u64,
    pub bytes_sent: u64,
    pub bytes_delivered: u64,
    /// Reports the receiver sent back (MBS probe), delivered and dropped.
    pub replies_sent: u64,
    pub replies_delivered: u64,
    pub replies_dropped: u64,
}

/// One non-TCP source: its endpoints, routes and behaviour.
pub struct RawSource {
    /// The traffic entry it came from ("traffic[2]").
    pub traffic: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub fwd: RouteId,
    /// The receiver's reports travel back on this route.
    pub rev: RouteId,
    pub kind: Box<dyn PacketSource>,
    pub rng: Rng,
    pub stats: RawStats,
    /// The time of the source's pending event (stale events are skipped, as flow timers).
    pub wake_at: Option<SimTime>,
}

impl RawSource {
    pub fn kind_name(&self) -> &'static str {
        self.kind.name()
    }

    /// Long-run mean rate as cross traffic (a probe counts as none).
    pub fn mean_rate_bps(&self) -> f64 {
        self.kind.mean_rate_bps()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packets the stream sends over its whole life.
    fn count(mut s: Stream, seed: u64) -> u64 {
        let mut rng = Rng::new(seed);
        let mut t = s.first(&mut rng);
        let mut n = 0;
        while let Some(now) = t {
            let (send, next) = s.fire(now, &mut rng);
            n += send as u64;
            t = next;
        }
        n
    }

    /// CBR: 1500 B at 622 Mbps is one packet per 12,000 / 622e6 s = 19,292.6 ns; over
    /// 1 s exactly floor(622e6 / 12,000) + 1 = 51,834 packets (times 0 .. 51,833 x 19,292.6
    /// ns < 1 s).
    #[test]
    fn cbr_sends_the_exact_rate() {
        let s = Stream::new(622e6, 1500, None, SimTime::ZERO, SimTime::from_secs(1));
        assert_eq!(count(s, 1), 51_834);
    }

    /// On-off, fixed 2 ms on / 8 ms off at 1 Gbps (12 us per 1500 B packet): each on
    /// period sends ceil(2 ms / 12 us) = 167 packets (times 0 .. 166 x 12 us < 2 ms), one
    /// period per 10 ms: 100 periods in 1 s, 16,700 packets.
    #[test]
    fn fixed_on_off_periods() {
        let p = Some((SimTime::from_ms(2), SimTime::from_ms(8), Periods::Fixed));
        let s = Stream::new(1e9, 1500, p, SimTime::ZERO, SimTime::from_secs(1));
        assert_eq!(count(s, 1), 16_700);
    }

    /// Exponential on/off means 2 ms / 8 ms at 1 Gbps: the mean rate is 1e9 x 2 / 10 =
    /// 200 Mbps; over 100 s (10,000 periods) the sent rate is within 3 % of it (the
    /// number of periods and their lengths vary: sd of the on-time total ~ 2 ms x
    /// sqrt(1e4) = 0.2 s of 20 s, 1 %; the off periods add as much).
    #[test]
    fn exponential_on_off_mean_rate() {
        let p = Some((SimTime::from_ms(2), SimTime::from_ms(8), Periods::Exponential));
        let s = Stream::new(1e9, 1500, p, SimTime::ZERO, SimTime::from_secs(100));
        assert!((s.mean_rate_bps() - 200e6).abs() < 1.0);
        let rate = count(s, 7) as f64 * 12_000.0 / 100.0;
        assert!((rate / 200e6 - 1.0).abs() < 0.03, "rate {rate}");
    }
}
