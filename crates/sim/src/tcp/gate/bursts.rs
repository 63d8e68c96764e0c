//! Paced bursts: `burst_pkts` segments back to back (at the host's line rate: the NIC
//! serialises them), a new burst starting burst_pkts x size x 8 / `rate` after the
//! previous one started, so the average rate is `rate` whatever the burst size.
//!
//! Source: seeds/002 (Jin 2004) Fig. 4: "larger burst-based transmission control" (c1)
//! and "smaller burst-based transmission control" (c2), the same data as the window-based
//! sender of Fig. 4b moved as bursts with proper gaps; section II: "choosing a proper burst
//! size with a proper gap between bursts will effectively reduce packet loss".

use crate::core::check::int_range;
use crate::core::time::SimTime;
use crate::core::units::Rate;
use crate::tcp::sched::{GateView, SendGate};

use super::kind::GateKind;
use schemars::JsonSchema;
use serde::Deserialize;

/// Bursts of `burst_pkts` packets at line rate, spaced to an average `rate`
/// (tcp/gate/).
#[derive(Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BurstsParams {
    /// Packets per burst, 1..=1000000.
    pub burst_pkts: u32,
    /// The average rate the bursts are spaced at (a burst at line rate every burst_pkts
    /// x size x 8 / rate).
    pub rate: Rate,
}

/// As the summary's TCP configuration line has always written it.
impl std::fmt::Debug for BurstsParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bursts").field("burst_pkts", &self.burst_pkts).field("rate_bps", &(self.rate.0 .0 as f64)).finish()
    }
}

impl GateKind for BurstsParams {
    fn validate(&self, path: &str) -> Result<(), String> {
        int_range(path, "burst_pkts", self.burst_pkts.into(), 1, 1_000_000)
    }

    fn build(&self, _: f64, _: Option<u64>, _: u32, _: u32) -> Box<dyn SendGate> {
        Box::new(Bursts::new(self.burst_pkts, self.rate.0 .0 as f64))
    }

    /// `Bursts { burst_pkts: .., rate_bps: .. }`, as it always read.
    fn config_line(&self, _: &str) -> String {
        format!("{self:?}")
    }
}

pub struct Bursts {
    pub burst_pkts: u32,
    pub rate_bps: f64,
    /// Start of the current burst and segments sent in it.
    start: SimTime,
    sent: u32,
    /// Wire bytes of the current burst so far.
    bytes: u64,
}

impl Bursts {
    pub fn new(burst_pkts: u32, rate_bps: f64) -> Bursts {
        Bursts { burst_pkts, rate_bps, start: SimTime::ZERO, sent: burst_pkts, bytes: 0 }
    }
}

impl SendGate for Bursts {
    fn name(&self) -> &'static str {
        "bursts"
    }

    fn release_at(&mut self, _v: &GateView, now: SimTime) -> Option<SimTime> {
        if self.sent < self.burst_pkts {
            return None;
        }
        // the gap: the burst's bytes at the average rate, from the burst's start
        let next = self.start + SimTime::from_secs_f64(self.bytes as f64 * 8.0 / self.rate_bps);
        if self.bytes > 0 && now < next {
            return Some(next);
        }
        self.start = now;
        self.sent = 0;
        self.bytes = 0;
        None
    }

    fn on_sent(&mut self, v: &GateView, _now: SimTime) {
        self.sent += 1;
        self.bytes += v.bytes as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> GateView {
        GateView {
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: 1e9,
            srtt: None,
            bytes: 1500,
            seq: 0,
            len: 1460,
            sacked: 0,
            ssthresh: 0.0,
        }
    }

    /// 4-packet bursts of 1500 B at 100 Mb/s average: a burst is 48,000 bits, one per
    /// 480 us; within a burst every packet is released at once.
    #[test]
    fn bursts_and_gaps() {
        let mut g = Bursts::new(4, 100e6);
        let v = view();
        let t0 = SimTime::from_ms(1);
        for _ in 0..4 {
            assert_eq!(g.release_at(&v, t0), None);
            g.on_sent(&v, t0);
        }
        assert_eq!(g.release_at(&v, t0), Some(t0 + SimTime::from_us(480)));
        let t1 = t0 + SimTime::from_us(480);
        assert_eq!(g.release_at(&v, t1), None);
        g.on_sent(&v, t1);
        assert_eq!(g.release_at(&v, t1), None, "the next burst is under way");
    }
}
