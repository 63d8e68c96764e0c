//! A fixed window: cwnd stays at `window` segments whatever happens (no growth, no
//! reduction on loss, ECN or timeout). Not a congestion control: the constant-window
//! sender of validation runs and of the loss-recovery benchmark (a 20,000-packet window
//! under 1 % loss, which any AIMD law would shrink to about 1.22/sqrt(0.01) = 12 packets,
//! Mathis et al. 1997).

use super::control::{CcState, CongestionControl, CongestionEvent};
use crate::core::time::SimTime;

pub struct Fixed {
    pub window: f64,
}

impl CongestionControl for Fixed {
    fn name(&self) -> &'static str {
        "fixed"
    }

    fn on_ack(&mut self, s: &mut CcState, _acked: f64, _rtt: Option<SimTime>, _now: SimTime) {
        s.cwnd = self.window;
    }

    fn ssthresh(&mut self, _s: &CcState, _flight: f64, _ev: CongestionEvent, _now: SimTime) -> f64 {
        self.window
    }

    fn on_rto(&mut self, s: &mut CcState, _now: SimTime) {
        s.cwnd = self.window; // the loss window does not apply
    }

    fn on_recovery_exit(&mut self, s: &mut CcState, _now: SimTime) {
        s.cwnd = self.window;
    }
}
