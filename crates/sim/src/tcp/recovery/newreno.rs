//! NewReno loss recovery: RFC 5681 section 3.2 (fast retransmit and fast recovery,
//! steps 1-6) with RFC 6582 section 3.2 (`recover`, full and partial ACKs, the
//! "impatient" timer), and RFC 3042 limited transmit when the flow asks for it. O(1) per
//! ACK: NewReno keeps no scoreboard.
//!
//! With `prr` (RFC 6937 section 3 without SACK, as Linux's Reno: prr.rs) Proportional
//! Rate Reduction sets the window in recovery instead of RFC 5681's inflation by one
//! segment per duplicate ACK and RFC 6582's deflation on a partial ACK: each duplicate
//! ACK counts one segment delivered, a partial ACK the segments it acknowledges less
//! those already counted (at least one), and at the end of recovery cwnd = ssthresh
//! (Linux's tcp_end_cwnd_reduction). Retransmissions are RFC 6582's.

use super::piece::{next_in_order, AckInfo, AckVerdict, Decision, Decisions, LossRecovery, SendState};
use super::prr::{Prr, PrrAck};
use crate::core::time::SimTime;

#[derive(Default)]
pub struct NewRenoRecovery {
    in_recovery: bool,
    /// RFC 6582 `recover`: the highest sequence number sent when recovery began.
    recover: u64,
    partial_seen: bool,
    dupacks: u32,
    /// Segments sent by limited transmit since the last ACK that advanced snd_una.
    lt_sent: u32,
    /// Proportional Rate Reduction sets the window in recovery, and its counters.
    prr_on: bool,
    prr: Prr,
    /// Segments this recovery's duplicate ACKs reported delivered and no cumulative ACK
    /// has covered yet (Linux's sacked_out for Reno).
    dup_delivered: u64,
    /// prr_out: bytes retransmitted in this recovery, and snd_max at its start (new data
    /// sent since is snd_max beyond it).
    rtx_bytes: u64,
    entry_max: u64,
}

impl NewRenoRecovery {
    /// NewReno recovery, with Proportional Rate Reduction when `prr`.
    pub fn new(prr: bool) -> NewRenoRecovery {
        NewRenoRecovery { prr_on: prr, ..NewRenoRecovery::default() }
    }

    /// The PRR window after an ACK that delivered `delivered` segments (`safe`: it
    /// advanced snd_una; `head_lost`: the first unacknowledged segment is about to be
    /// resent, so it is out of pipe until then).
    fn prr_window(&mut self, s: &SendState, delivered: u64, safe: bool, head_lost: bool) -> Decision {
        let mss = s.mss;
        self.prr.delivered += delivered * mss;
        self.prr.out = self.rtx_bytes + s.snd_max.saturating_sub(self.entry_max);
        let flight = s.snd_max - s.snd_una;
        // Linux tcp_limit_reno_sacked: at most packets_out - 1 counted delivered
        self.dup_delivered = self.dup_delivered.min(flight.div_ceil(mss).saturating_sub(1));
        let counted = self.dup_delivered * mss;
        let head = if head_lost { mss.min(flight) } else { 0 };
        let pipe = flight.saturating_sub(counted).saturating_sub(head);
        Decision::PrrWindow(PrrAck { prr: self.prr, pipe, delivered: delivered * mss, safe, mss, uncounted: counted })
    }

    /// RFC 6582 3.2 step 4's retransmission of the first unacknowledged segment.
    fn retransmit_head(&mut self, s: &SendState, out: &mut Decisions) {
        let len = s.mss.min(s.end_seq - s.snd_una);
        out.push(Decision::Retransmit { seq: s.snd_una, len });
        self.rtx_bytes += len;
    }

    /// RFC 3042: on the first and second duplicate ACK send one new segment, if there is
    /// unsent data and FlightSize stays within cwnd + 2 segments; cwnd is not changed.
    fn limited_transmit(&mut self, s: &SendState, out: &mut Decisions) {
        if s.snd_nxt != s.snd_max || s.snd_nxt >= s.end_seq {
            return;
        }
        let len = s.mss.min(s.end_seq - s.snd_nxt);
        let limit = ((s.cwnd + 2.0) * s.mss as f64) as u64;
        if s.snd_nxt + len - s.snd_una > limit {
            return;
        }
        out.push(Decision::SendNew { len });
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
    fn on_ack(&mut self, s: &SendState, a: &AckInfo, now: SimTime, out: &mut Decisions) -> AckVerdict {
        if a.newly > 0 {
            // RFC 5681 section 2: duplicates are counted since the last ACK that advanced
            // snd_una (also when it ends a recovery)
            self.dupacks = 0;
            self.lt_sent = 0;
            if !self.in_recovery {
                return AckVerdict { grow: true, restart_rto: true };
            }
            if a.ack > self.recover {
                // RFC 6582 3.2 step 3 (full ACK), option 1: cwnd = min(ssthresh, FlightSize + SMSS);
                // with PRR cwnd = ssthresh (Linux tcp_end_cwnd_reduction)
                self.in_recovery = false;
                self.dup_delivered = 0;
                let w = if self.prr_on { s.ssthresh } else { s.ssthresh.min(s.flight().max(1.0) + 1.0) };
                out.push(Decision::SetCwnd(w));
                out.push(Decision::RecoveryExit);
                return AckVerdict { grow: false, restart_rto: true };
            }
            if self.prr_on {
                // a partial ACK delivered what it acknowledges less what the duplicate
                // ACKs counted, at least one segment (Linux tcp_remove_reno_sacks)
                let acked = a.newly.div_ceil(s.mss);
                let counted = self.dup_delivered.min(acked.saturating_sub(1));
                self.dup_delivered -= counted;
                let w = self.prr_window(s, acked - counted, true, true);
                out.push(w);
                self.retransmit_head(s, out);
                let first = !self.partial_seen;
                self.partial_seen = true;
                return AckVerdict { grow: false, restart_rto: first };
            }
            // RFC 6582 3.2 step 4 (partial ACK): retransmit the first unacknowledged
            // segment, deflate by the amount acknowledged, add back one SMSS if at least
            // one SMSS was acknowledged.
            let mss = s.mss;
            out.push(Decision::Retransmit { seq: s.snd_una, len: mss.min(s.end_seq - s.snd_una) });
            let add_back = if a.newly >= mss { 1.0 } else { 0.0 };
            out.push(Decision::SetCwnd((s.cwnd - a.newly as f64 / mss as f64 + add_back).max(1.0)));
            // the timer is reset on the first partial ACK only ("impatient")
            let first = !self.partial_seen;
            self.partial_seen = true;
            return AckVerdict { grow: false, restart_rto: first };
        }
        if a.dup {
            self.dupacks += 1;
            if self.in_recovery && self.prr_on {
                self.dup_delivered += 1;
                let w = self.prr_window(s, 1, false, false);
                out.push(w);
            } else if self.in_recovery {
                out.push(Decision::SetCwnd(s.cwnd + 1.0)); // RFC 5681 3.2 step 4: inflate
            } else if self.dupacks < s.dupthresh {
                if s.limited_transmit {
                    self.limited_transmit(s, out);
                }
            } else if self.dupacks == s.dupthresh && a.ack > self.recover {
                // RFC 6582 3.2 step 2: fast retransmit only if the ACK covers more than recover.
                self.enter_recovery(s, now, out);
            }
        }
        AckVerdict { grow: false, restart_rto: false }
    }

    fn enter_recovery(&mut self, s: &SendState, _now: SimTime, out: &mut Decisions) {
        // RFC 5681 3.2 step 2: data sent by limited transmit is not in FlightSize
        out.push(Decision::Respond { flight: s.response_flight() - self.lt_sent as f64 });
        self.recover = s.snd_max - 1;
        self.in_recovery = true;
        self.partial_seen = false;
        if self.prr_on {
            // RecoverFS = cwnd (Linux's prior_cwnd); every duplicate ACK so far counted
            // delivered, the entering one in prr_delivered (Linux tcp_cwnd_reduction
            // runs on it); the window is set before the fast retransmit leaves
            self.prr = Prr::start(s.cwnd, s.mss);
            self.rtx_bytes = 0;
            self.entry_max = s.snd_max;
            self.dup_delivered = self.dupacks.max(1) as u64;
            let w = self.prr_window(s, 1, false, true);
            out.push(w);
            self.retransmit_head(s, out);
            return;
        }
        out.push(Decision::Retransmit { seq: s.snd_una, len: s.mss.min(s.end_seq - s.snd_una) });
        // step 3: inflated by the DupThresh segments that have left the network
        out.push(Decision::WindowFromSsthresh { plus: s.dupthresh as f64 });
    }

    fn on_rto(&mut self, s: &SendState, _now: SimTime, _out: &mut Decisions) {
        self.in_recovery = false;
        self.dupacks = 0;
        self.dup_delivered = 0; // Linux tcp_enter_loss: tcp_reset_reno_sack
                                // RFC 6582 section 3.2 step 6 / 4.1: recover <- highest sequence sent.
        self.recover = s.snd_max - 1;
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
    fn next_segment(&self, s: &SendState, wnd: u64) -> Option<(u64, u64)> {
        next_in_order(s, wnd)
    }
}
