//! HyStart++, RFC 9406 (Balasubramanian, Huang and Olson, 2023), section 4: a slow-start
//! exit on RTT increase with Conservative Slow Start (CSS) after it.
//! - Rounds: a round ends when an ACK reaches `window_end`, snd_nxt (here snd_max) when
//!   it began; then lastRoundMinRTT = currentRoundMinRTT, and the new round's minimum and
//!   sample count start afresh.
//! - In slow start, once the round has N_RTT_SAMPLE (8) samples and both minima are
//!   known: RttThresh = max(4 ms, min(lastRoundMinRTT / 8, 16 ms)); when
//!   currentRoundMinRTT is at least lastRoundMinRTT + RttThresh the flow enters CSS with
//!   cssBaselineMinRtt = currentRoundMinRTT.
//! - In CSS the window grows by a quarter of slow start's (CSS_GROWTH_DIVISOR 4); a
//!   round with 8 samples whose minimum falls below the baseline was a spurious exit and
//!   returns to slow start; after CSS_ROUNDS (5) rounds, ssthresh = cwnd (congestion
//!   avoidance).
//! - The increase per ACK is at most L = 8 segments without pacing (section 4.2).
//! - Only the initial slow start (ssthresh still unset, RFC 9406 section 4.3's
//!   recommendation); a loss ends it as it ends slow start.

use crate::core::time::SimTime;

const MIN_RTT_THRESH: SimTime = SimTime::from_ms(4);
const MAX_RTT_THRESH: SimTime = SimTime::from_ms(16);
const MIN_RTT_DIVISOR: u64 = 8;
const N_RTT_SAMPLE: u32 = 8;
/// CSS_GROWTH_DIVISOR: CSS grows the window by a quarter of slow start's.
pub const CSS_GROWTH_DIVISOR: f64 = 4.0;
const CSS_ROUNDS: u32 = 5;
/// L without pacing: at most 8 segments of increase per ACK.
pub const L: f64 = 8.0;

#[derive(Clone, Copy, Debug, Default)]
pub struct HyStartPp {
    last_round_min: Option<SimTime>,
    current_round_min: Option<SimTime>,
    samples: u32,
    window_end: u64,
    /// cssBaselineMinRtt while in CSS.
    css_baseline: Option<SimTime>,
    /// Rounds begun in CSS.
    css_rounds: u32,
    /// Congestion avoidance reached (by CSS or a loss): HyStart++ is done.
    pub done: bool,
}

impl HyStartPp {
    /// Whether the window grows as CSS (a quarter of slow start).
    pub fn in_css(&self) -> bool {
        self.css_baseline.is_some()
    }

    /// An ACK of new data up to `ack` (snd_max `snd_max`) with its RTT sample if valid:
    /// the new ssthresh when CSS ends.
    pub fn on_ack(&mut self, ack: u64, snd_max: u64, rtt: Option<SimTime>, cwnd: f64, ssthresh: f64) -> Option<f64> {
        if self.done || ssthresh.is_finite() {
            // a loss set ssthresh: the initial slow start is over (section 4.3)
            self.done = true;
            self.css_baseline = None;
            return None;
        }
        if ack >= self.window_end {
            self.last_round_min = self.current_round_min;
            self.current_round_min = None;
            self.samples = 0;
            self.window_end = snd_max;
            if self.in_css() {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    self.done = true;
                    self.css_baseline = None;
                    return Some(cwnd);
                }
            }
        }
        if let Some(r) = rtt {
            self.current_round_min = Some(self.current_round_min.map_or(r, |c| c.min(r)));
            self.samples += 1;
        }
        if self.samples < N_RTT_SAMPLE {
            return None;
        }
        let cur = self.current_round_min?;
        match self.css_baseline {
            None => {
                let last = self.last_round_min?;
                let thresh = SimTime(last.ns() / MIN_RTT_DIVISOR).min(MAX_RTT_THRESH).max(MIN_RTT_THRESH);
                if cur >= last + thresh {
                    self.css_baseline = Some(cur);
                    self.css_rounds = 0;
                }
            }
            Some(base) if cur < base => {
                self.css_baseline = None; // a spurious exit: back to slow start
            }
            Some(_) => {}
        }
        None
    }

    /// The window after the congestion control's slow-start increase `before` -> `after`.
    pub fn shape(&self, before: f64, after: f64) -> f64 {
        if self.done || after <= before {
            return after;
        }
        let inc = (after - before).min(L);
        before + if self.in_css() { inc / CSS_GROWTH_DIVISOR } else { inc }
    }
}
