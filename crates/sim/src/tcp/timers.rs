//! A flow's timers: any number of kinds, each with at most one pending deadline
//! (cancelled by clearing it). The simulator keeps one event per flow at the earliest
//! deadline and drops stale events by comparing deadlines (sim.rs), as htsim's timer
//! scan avoids O(n) cancels.

use crate::core::time::SimTime;

/// The kinds of timer a flow runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum TimerKind {
    /// Retransmission timer (RFC 6298).
    Rto = 0,
    /// The receiver's delayed ACK (RFC 1122 4.2.3.2).
    DelAck = 1,
    /// The send scheduler's next release (pacing, gated sending).
    Send = 2,
    /// The loss-recovery piece's own timer (e.g. TCP-DCR's delayed response).
    Recovery = 3,
    /// The receiver's ACK batch (interrupt coalescing) is handed to TCP.
    RxBatch = 4,
}

pub const KINDS: usize = 5;

/// Deadlines in ns, `NONE` when a timer is not running (a sentinel keeps `next` a
/// branch-free minimum: it runs after every packet a flow handles).
#[derive(Clone, Copy, Debug)]
pub struct Timers {
    at: [u64; KINDS],
}

const NONE: u64 = u64::MAX;

impl Default for Timers {
    fn default() -> Self {
        Timers { at: [NONE; KINDS] }
    }
}

impl Timers {
    #[inline]
    pub fn get(&self, k: TimerKind) -> Option<SimTime> {
        let t = self.at[k as usize];
        (t != NONE).then_some(SimTime(t))
    }

    #[inline]
    pub fn set(&mut self, k: TimerKind, t: SimTime) {
        self.at[k as usize] = t.ns().min(NONE - 1);
    }

    /// Arms `k` unless it is already running.
    #[inline]
    pub fn set_if_idle(&mut self, k: TimerKind, t: SimTime) {
        if self.at[k as usize] == NONE {
            self.set(k, t);
        }
    }

    #[inline]
    pub fn cancel(&mut self, k: TimerKind) {
        self.at[k as usize] = NONE;
    }

    /// Whether `k` is due at `now`; if so it is cleared.
    #[inline]
    pub fn take_due(&mut self, k: TimerKind, now: SimTime) -> bool {
        if self.at[k as usize] <= now.ns() {
            self.at[k as usize] = NONE;
            true
        } else {
            false
        }
    }

    /// The earliest pending deadline.
    #[inline]
    pub fn next(&self) -> Option<SimTime> {
        let m = self.at[0].min(self.at[1]).min(self.at[2].min(self.at[3])).min(self.at[4]);
        (m != NONE).then_some(SimTime(m))
    }
}
