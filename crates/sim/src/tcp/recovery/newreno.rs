//! NewReno loss recovery: RFC 5681 section 3.2 (fast retransmit and fast recovery,
//! steps 1-6) with RFC 6582 section 3.2 (`recover`, full and partial ACKs, the
//! "impatient" timer), and RFC 3042 limited transmit when the flow asks for it. O(1) per
//! ACK: NewReno keeps no scoreboard.

use super::{next_in_order, AckInfo, AckVerdict, LossRecovery};
use crate::core::time::SimTime;
use crate::tcp::cc::CongestionEvent;
use crate::tcp::{Flow, TcpOut};

#[derive(Default)]
pub struct NewRenoRecovery {
    in_recovery: bool,
    /// RFC 6582 `recover`: the highest sequence number sent when recovery began.
    recover: u64,
    partial_seen: bool,
    dupacks: u32,
    /// Segments sent by limited transmit since the last ACK that advanced snd_una.
    lt_sent: u32,
}

impl NewRenoRecovery {
    /// RFC 3042: on the first and second duplicate ACK send one new segment, if there is
    /// unsent data and FlightSize stays within cwnd + 2 segments; cwnd is not changed.
    fn limited_transmit(&mut self, f: &mut Flow, now: SimTime, out: &mut TcpOut) {
        let mss = f.p.mss as u64;
        if f.snd_nxt != f.snd_max || f.snd_nxt >= f.end_seq() {
            return;
        }
        let len = mss.min(f.end_seq() - f.snd_nxt);
        let limit = ((f.cc_state.cwnd + 2.0) * mss as f64) as u64;
        if f.snd_nxt + len - f.snd_una > limit {
            return;
        }
        f.send_segment(f.snd_nxt, len as u32, now, out);
        f.snd_nxt += len;
        f.snd_max = f.snd_nxt;
        self.lt_sent += 1;
    }
}

impl LossRecovery for NewRenoRecovery {
    fn name(&self) -> &'static str {
        "newreno"
    }

    #[inline]
    fn on_ack_fast(&mut self, a: &AckInfo) -> Option<AckVerdict> {
        if a.newly > 0 && !self.in_recovery {
            self.dupacks = 0;
            self.lt_sent = 0;
            return Some(AckVerdict { grow: true, restart_rto: true });
        }
        None
    }

    #[inline]
    fn on_ack(&mut self, f: &mut Flow, a: &AckInfo, now: SimTime, out: &mut TcpOut) -> AckVerdict {
        if a.newly > 0 {
            // RFC 5681 section 2: duplicates are counted since the last ACK that advanced
            // snd_una (also when it ends a recovery)
            self.dupacks = 0;
            self.lt_sent = 0;
            if !self.in_recovery {
                return AckVerdict { grow: true, restart_rto: true };
            }
            if a.ack > self.recover {
                // RFC 6582 3.2 step 3 (full ACK), option 1: cwnd = min(ssthresh, FlightSize + SMSS).
                self.in_recovery = false;
                f.cc_state.cwnd = f.cc_state.ssthresh.min(f.flight().max(1.0) + 1.0);
                f.cc.on_recovery_exit(&mut f.cc_state, now);
                return AckVerdict { grow: false, restart_rto: true };
            }
            // RFC 6582 3.2 step 4 (partial ACK): retransmit the first unacknowledged
            // segment, deflate by the amount acknowledged, add back one SMSS if at least
            // one SMSS was acknowledged.
            let mss = f.p.mss as u64;
            let len = mss.min(f.end_seq() - f.snd_una) as u32;
            f.send_segment(f.snd_una, len, now, out);
            let add_back = if a.newly >= mss { 1.0 } else { 0.0 };
            f.cc_state.cwnd = (f.cc_state.cwnd - a.newly as f64 / mss as f64 + add_back).max(1.0);
            // the timer is reset on the first partial ACK only ("impatient")
            let first = !self.partial_seen;
            self.partial_seen = true;
            return AckVerdict { grow: false, restart_rto: first };
        }
        if a.dup {
            self.dupacks += 1;
            if self.in_recovery {
                f.cc_state.cwnd += 1.0; // RFC 5681 3.2 step 4: inflate
            } else if self.dupacks < f.p.dupack_threshold {
                if f.p.limited_transmit {
                    self.limited_transmit(f, now, out);
                }
            } else if self.dupacks == f.p.dupack_threshold && a.ack > self.recover {
                // RFC 6582 3.2 step 2: fast retransmit only if the ACK covers more than recover.
                self.enter_recovery(f, now, out);
            }
        }
        AckVerdict { grow: false, restart_rto: false }
    }

    fn enter_recovery(&mut self, f: &mut Flow, now: SimTime, out: &mut TcpOut) {
        f.stats.fast_retransmits += 1;
        // RFC 5681 3.2 step 2: data sent by limited transmit is not in FlightSize
        let flight = f.response_flight() - self.lt_sent as f64;
        f.cc_state.ssthresh = f.cc.ssthresh(&f.cc_state, flight, CongestionEvent::FastRetransmit, now);
        self.recover = f.snd_max - 1;
        self.in_recovery = true;
        self.partial_seen = false;
        let len = (f.p.mss as u64).min(f.end_seq() - f.snd_una) as u32;
        f.send_segment(f.snd_una, len, now, out);
        f.cc_state.cwnd = f.cc_state.ssthresh + f.p.dupack_threshold as f64;
        f.on_loss_reduction();
    }

    fn on_rto(&mut self, f: &mut Flow, _now: SimTime) {
        self.in_recovery = false;
        self.dupacks = 0;
        // RFC 6582 section 3.2 step 6 / 4.1: recover <- highest sequence sent.
        self.recover = f.snd_max - 1;
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn dupacks(&self) -> u32 {
        self.dupacks
    }

    fn recovery_point(&self) -> u64 {
        self.recover
    }

    #[inline]
    fn next_segment(&self, f: &Flow, wnd: u64) -> Option<(u64, u64)> {
        next_in_order(f, wnd)
    }
}
