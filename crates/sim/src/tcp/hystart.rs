//! HyStart, a slow-start exit: S. Ha and I. Rhee, "Taming the elephants: New TCP slow
//! start", Computer Networks 55(9), 2011, as Linux's CUBIC has it (net/ipv4/tcp_cubic.c,
//! bictcp_hystart_reset and hystart_update, 2.6.29-5.6; on by default there). Slow start
//! ends (ssthresh = cwnd) before the first loss when either detector fires, in a round
//! that began when an ACK passed the snd_nxt of the round before:
//! - ACK train: ACKs arriving closely spaced (each within 2 ms of the last) for longer
//!   than half the minimum RTT: the window already fills the path;
//! - delay increase: the smallest RTT of the round's first 8 samples exceeds the minimum
//!   RTT by clamp(minimum / 8, 4 ms, 16 ms): a queue is building.
//!
//! Neither runs below a window of 16 segments (Linux's hystart_low_window). Here it is a
//! sender option for every congestion control (`[tcp] slow_start_exit = "hystart"`), not
//! CUBIC's alone: it only sets ssthresh, which every algorithm's slow start obeys.

use crate::core::time::SimTime;

/// Linux's hystart_low_window: no detection below this window (segments).
const LOW_WINDOW: f64 = 16.0;
/// Linux's hystart_ack_delta (2 ms): ACKs at most this far apart form a train.
const ACK_DELTA: SimTime = SimTime::from_ms(2);
/// Linux's HYSTART_MIN_SAMPLES: RTT samples per round for the delay detector.
const MIN_SAMPLES: u32 = 8;
/// Linux's HYSTART_DELAY_MIN and HYSTART_DELAY_MAX: the delay threshold's bounds.
const DELAY_MIN: SimTime = SimTime::from_ms(4);
const DELAY_MAX: SimTime = SimTime::from_ms(16);

/// Which detector ended slow start (for tests and counters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    AckTrain,
    DelayIncrease,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct HyStart {
    /// Slow start has been ended by a detector (until the next timeout).
    pub found: Option<Found>,
    round_start: SimTime,
    last_ack: SimTime,
    /// The round ends when an ACK passes this sequence (snd_nxt at its start).
    end_seq: u64,
    curr_rtt: Option<SimTime>,
    samples: u32,
    delay_min: Option<SimTime>,
}

impl HyStart {
    /// An ACK of new data up to `ack` while the sender's highest sequence sent is
    /// `snd_max`, with its RTT sample if valid: the new ssthresh if slow start ends now.
    pub fn on_ack(
        &mut self,
        ack: u64,
        snd_max: u64,
        rtt: Option<SimTime>,
        now: SimTime,
        cwnd: f64,
        ssthresh: f64,
    ) -> Option<f64> {
        if let Some(r) = rtt {
            self.delay_min = Some(self.delay_min.map_or(r, |d| d.min(r)));
        }
        if cwnd >= ssthresh || self.found.is_some() {
            return None;
        }
        if ack > self.end_seq {
            // a new round (bictcp_hystart_reset)
            self.round_start = now;
            self.last_ack = now;
            self.end_seq = snd_max;
            self.curr_rtt = None;
            self.samples = 0;
        }
        if cwnd < LOW_WINDOW {
            return None;
        }
        let dmin = self.delay_min?;
        if now - self.last_ack <= ACK_DELTA {
            self.last_ack = now;
            if now - self.round_start > SimTime(dmin.ns() / 2) {
                self.found = Some(Found::AckTrain);
                return Some(cwnd);
            }
        }
        if let Some(r) = rtt {
            if self.samples < MIN_SAMPLES {
                self.curr_rtt = Some(self.curr_rtt.map_or(r, |c| c.min(r)));
                self.samples += 1;
            } else if let Some(c) = self.curr_rtt {
                let thresh = SimTime(dmin.ns() / 8).max(DELAY_MIN).min(DELAY_MAX);
                if c > dmin + thresh {
                    self.found = Some(Found::DelayIncrease);
                    return Some(cwnd);
                }
            }
        }
        None
    }

    /// A retransmission timeout: slow start may be ended again (Linux resets HyStart
    /// when the congestion state is reset, bictcp_state / bictcp_init).
    pub fn on_rto(&mut self) {
        self.found = None;
        self.end_seq = 0;
    }
}
