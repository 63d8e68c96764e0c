//! NewReno window growth: RFC 5681 section 3.1. Slow start adds one segment per
//! segment acknowledged (at most one SMSS per ACK, eq. 2); congestion avoidance adds
//! acked/cwnd per ACK, about one segment per RTT (eq. 3, the per-ACK form of ns-2's
//! "cwnd += 1/cwnd"). Loss response is the trait's default (eq. 4); fast recovery is
//! RFC 6582, in the sender.

use super::control::{CcState, CongestionControl};
use crate::core::time::SimTime;

pub struct NewReno;

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    #[inline]
    fn on_ack(&mut self, s: &mut CcState, acked: f64, _rtt: Option<SimTime>, _now: SimTime) {
        if s.cwnd < s.ssthresh {
            s.slow_start(acked); // RFC 5681 eq. 2: cwnd += min(N, SMSS) (Linux: RFC 3465)
        } else {
            s.cwnd += acked / s.cwnd; // RFC 5681 eq. 3
        }
    }
}
