//! The sender's slow-start option (`[tcp] slow_start_exit`), one of: HyStart (hystart.rs,
//! Ha and Rhee 2011 as Linux's CUBIC), HyStart++ (hystart_pp.rs, RFC 9406) or limited
//! slow start (limited_ss.rs, RFC 3742). One field of the flow, so a flow without any
//! pays one test per ACK.

use super::hystart::HyStart;
use super::hystart_pp::HyStartPp;
use crate::core::time::SimTime;

/// How slow start may end before the first loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowStartExit {
    /// Only at ssthresh or a loss (RFC 5681; the default here).
    None,
    /// HyStart (Ha and Rhee 2011; Linux CUBIC's default): ACK-train and delay-increase
    /// detectors set ssthresh = cwnd (hystart.rs).
    HyStart,
    /// HyStart++ (RFC 9406): an RTT increase enters Conservative Slow Start, which ends
    /// slow start after 5 rounds (hystart_pp.rs).
    HyStartPp,
    /// Limited slow start (RFC 3742): above `max_ssthresh` segments at most
    /// max_ssthresh / 2 segments more per round trip (limited_ss.rs).
    Limited { max_ssthresh: u32 },
}

#[derive(Clone, Copy, Debug)]
pub enum SlowStartMod {
    HyStart(HyStart),
    HyStartPp(HyStartPp),
    Limited { max_ssthresh: u32 },
}

impl SlowStartMod {
    pub fn build(e: SlowStartExit) -> Option<Box<SlowStartMod>> {
        Some(Box::new(match e {
            SlowStartExit::None => return None,
            SlowStartExit::HyStart => SlowStartMod::HyStart(HyStart::default()),
            SlowStartExit::HyStartPp => SlowStartMod::HyStartPp(HyStartPp::default()),
            SlowStartExit::Limited { max_ssthresh } => SlowStartMod::Limited { max_ssthresh },
        }))
    }

    /// An ACK of new data (before the window grows): the new ssthresh if slow start ends.
    #[inline(never)]
    pub fn on_ack(
        &mut self,
        ack: u64,
        snd_max: u64,
        rtt: Option<SimTime>,
        now: SimTime,
        cwnd: f64,
        ssthresh: f64,
    ) -> Option<f64> {
        match self {
            SlowStartMod::HyStart(h) => h.on_ack(ack, snd_max, rtt, now, cwnd, ssthresh),
            SlowStartMod::HyStartPp(h) => h.on_ack(ack, snd_max, rtt, cwnd, ssthresh),
            SlowStartMod::Limited { .. } => None,
        }
    }

    /// The window after the congestion control's slow-start increase `before` -> `after`.
    #[inline(never)]
    pub fn shape(&self, before: f64, after: f64) -> f64 {
        match *self {
            SlowStartMod::HyStart(_) => after,
            SlowStartMod::HyStartPp(ref h) => h.shape(before, after),
            SlowStartMod::Limited { max_ssthresh } => super::limited_ss::shape(max_ssthresh, before, after),
        }
    }

    /// A retransmission timeout.
    pub fn on_rto(&mut self) {
        if let SlowStartMod::HyStart(h) = self {
            h.on_rto(); // HyStart++ is the initial slow start's only; RFC 3742 keeps no state
        }
    }

    /// HyStart's state (tests and counters).
    pub fn hystart(&self) -> Option<&HyStart> {
        match self {
            SlowStartMod::HyStart(h) => Some(h),
            _ => None,
        }
    }
}
