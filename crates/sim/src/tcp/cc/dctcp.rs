//! DCTCP, Data Center TCP: M. Alizadeh, A. Greenberg, D. A. Maltz, J. Padhye, P. Patel,
//! B. Prabhakar, S. Sengupta and M. Sridharan, "Data Center TCP (DCTCP)", ACM SIGCOMM
//! 2010, section 3.1 ("Controller at the Sender"); RFC 8257 sections 3.3-3.5.
//!
//! The sender estimates the fraction of its bytes that met a queue above the switch's
//! marking threshold K (queue/droptail.rs `ecn_threshold`), from the receiver's exact
//! ECE echo (RFC 8257 section 3.2, tcp/receiver.rs `EceEcho::Accurate`), and scales its
//! window reduction by it. Per ACK of new data (RFC 8257 section 3.3, steps 1-8):
//!
//! ```text
//! BytesAcked  += SEG.ACK - SND.UNA
//! BytesMarked += SEG.ACK - SND.UNA           if the ACK carries ECE
//! if SEG.ACK > WindowEnd:                    (one observation window, about one RTT)
//!     F         = BytesMarked / BytesAcked
//!     alpha     = (1 - g) alpha + g F        (paper eq. 1; 0 <= alpha <= 1)
//!     WindowEnd = SND.NXT
//!     BytesAcked = BytesMarked = 0
//! ```
//!
//! and on ECE, at most once per window of data as RFC 3168 (the sender's `on_ece`,
//! which also sets CWR; RFC 8257 section 3.3 step 9 and the paper's eq. 2):
//!
//! ```text
//! cwnd = ssthresh = max(cwnd (1 - alpha / 2), 2)
//! ```
//!
//! This controller supplies that reduction as its ssthresh for `CongestionEvent::Ecn`;
//! the sender applies it in place of RFC 3168's halving, never both. Growth is NewReno's
//! (RFC 8257 section 3.4: slow start and congestion avoidance as RFC 5681), and the
//! reaction to loss is standard TCP's (section 3.5: fast retransmit and timeouts halve,
//! the trait's default ssthresh). The sender still follows RFC 3168 for the rest (no
//! growth on an ECE ACK, no reduction in loss recovery).
//!
//! Choices where RFC 8257 leaves one:
//! - alpha starts at 1, as Linux (`dctcp_alpha_on_init` = DCTCP_MAX_ALPHA): the first
//!   ECE halves the window, as RFC 3168 would, until the estimate has learned.
//! - WindowEnd starts below every sequence number (SND.UNA at the start of the
//!   connection), so the first ACK of data closes a first, one-ACK window.
//! - A window ends with the first ACK above WindowEnd, as RFC 8257's step 4 reads ("less
//!   than or equal to DCTCP.WindowEnd, stop processing"); Linux ends it one ACK earlier,
//!   at the ACK that reaches it (`!before(snd_una, next_seq)`). Either way one window is
//!   one round trip of data; the window here also counts that one ACK's bytes.
//! - SND.NXT is the highest sequence sent + 1 (the sender's snd_max: snd_nxt goes back
//!   after a timeout); SACKed bytes are not counted (RFC 8257 step 1 ignores SACK).
//! - alpha is a real number (Linux keeps it in 10-bit fixed point).
//!
//! | field | meaning                         | range  | default           |
//! |-------|---------------------------------|--------|-------------------|
//! | `g`   | EWMA gain of the alpha estimate | (0, 1] | 1/16 (RFC 8257, paper) |
//!
//! The paper's guideline (section 3.3) for g is g < 1.386 / sqrt(2 (C x RTT + K)).

use super::control::{CcState, CongestionControl, CongestionEvent, EcnAck};
use super::newreno::NewReno;
use crate::core::time::SimTime;
use schemars::JsonSchema;
use serde::Deserialize;

/// `[tcp.cc] kind = "dctcp"` parameters.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Weight of a new observation window in alpha (RFC 8257 section 3.3: 1/16), in (0, 1].
    pub g: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params { g: 1.0 / 16.0 }
    }
}

impl Params {
    pub fn validate(&self, path: &str) -> Result<(), String> {
        if !(self.g.is_finite() && self.g > 0.0 && self.g <= 1.0) {
            return Err(format!("{path}.g: must be in (0, 1] (got {})", self.g));
        }
        Ok(())
    }

    pub fn build(&self) -> Dctcp {
        Dctcp { g: self.g, alpha: 1.0, window_end: 0, bytes_acked: 0, bytes_marked: 0 }
    }
}

/// Per-flow DCTCP state (RFC 8257 section 3.3's DCTCP.* variables).
pub struct Dctcp {
    pub g: f64,
    /// DCTCP.Alpha, the estimated fraction of marked bytes.
    alpha: f64,
    /// DCTCP.WindowEnd: the observation window ends with the first ACK above it.
    window_end: u64,
    /// DCTCP.BytesAcked and DCTCP.BytesMarked of the current window.
    bytes_acked: u64,
    bytes_marked: u64,
}

impl Dctcp {
    /// The current estimate alpha.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Where the current observation window ends (sequence number).
    pub fn window_end(&self) -> u64 {
        self.window_end
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    #[inline]
    fn on_ack(&mut self, s: &mut CcState, acked: f64, rtt: Option<SimTime>, now: SimTime) {
        NewReno.on_ack(s, acked, rtt, now); // RFC 8257 section 3.4
    }

    fn handles_ece(&self) -> bool {
        true
    }

    #[inline]
    fn on_ecn_ack(&mut self, _s: &mut CcState, a: &EcnAck, _now: SimTime) {
        self.bytes_acked += a.acked_bytes; // steps 1-2
        if a.ece {
            self.bytes_marked += a.acked_bytes; // step 3
        }
        if a.ack <= self.window_end || self.bytes_acked == 0 {
            return; // step 4: the window goes on
        }
        let f = self.bytes_marked as f64 / self.bytes_acked as f64; // step 5
        self.alpha = (1.0 - self.g) * self.alpha + self.g * f; // step 6
        self.window_end = a.snd_nxt; // step 7
        self.bytes_acked = 0; // step 8
        self.bytes_marked = 0;
    }

    fn ssthresh(&mut self, s: &CcState, flight: f64, ev: CongestionEvent, _now: SimTime) -> f64 {
        match ev {
            // step 9: cwnd x (1 - alpha / 2) instead of RFC 3168's halving
            CongestionEvent::Ecn => (s.cwnd * (1.0 - self.alpha / 2.0)).max(2.0),
            // section 3.5: loss as standard TCP (RFC 5681 eq. 4)
            CongestionEvent::FastRetransmit | CongestionEvent::Timeout => (flight / 2.0).max(2.0),
        }
    }
}
