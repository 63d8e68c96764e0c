//! SACK-based loss recovery, RFC 6675 (conservative loss recovery with SACK), on the
//! RFC 2018 blocks the receiver reports (tcp/sack.rs holds the scoreboard, IsLost() and
//! SetPipe()). Rules as ../shared/ALGORITHMS.md section 0 states them:
//! - section 2: a duplicate ACK is one whose SACK blocks newly SACK data, even if it also
//!   advances the cumulative ACK; a cumulative ACK first resets DupAcks to 0;
//! - section 5: recovery starts when DupAcks reaches DupThresh or IsLost(HighACK + 1);
//!   not before HighACK reaches the RecoveryPoint of an earlier recovery or timeout;
//! - step 4: RecoveryPoint = HighData, ssthresh = cwnd = the congestion control's
//!   ssthresh from FlightSize, retransmit the first unacknowledged segment;
//! - (A) a cumulative ACK at or past RecoveryPoint ends recovery; (B) Update, SetPipe;
//!   (C) while cwnd - pipe >= SMSS send NextSeg(): rule 1 (the first lost hole above
//!   HighRxt), rule 2 (new data), rule 3 (a hole not yet lost, below the highest SACKed
//!   octet), rule 4 (one rescue retransmission per recovery of the highest un-SACKed
//!   octet once HighACK passes RescueRxt; RescueRxt = RecoveryPoint, HighRxt unchanged);
//! - section 5.1: an RTO ends recovery and sets RecoveryPoint = HighData; it clears the
//!   SACKed marks (RFC 2018 section 5) or, with `sack_after_rto = "keep"`, keeps them as
//!   Linux does (tcp_timeout_mark_lost), so go-back-N skips what the receiver holds,
//!   unless the receiver reneged (data SACKed at snd_una: Linux's
//!   tcp_check_sack_reneging, RFC 6675 section 5.1's caution).
//!
//! Limited transmit (section 5 (3), a MAY; with the flow's `limited_transmit`): before
//! recovery, new data leaves while cwnd - pipe >= SMSS, pipe from SetPipe() with HighRxt
//! = HighACK, so SACKed data no longer counts as in flight. This is what Linux does on
//! every ACK: tcp_packets_in_flight() excludes sacked_out, and tcp_cwnd_test() lets a
//! segment go while it is below cwnd. Without it a flow whose window is a few segments
//! sees one or two duplicate ACKs for a loss and waits for its retransmission timer.
//!
//! Lost retransmissions (RFC 6675 has no rule; without one a lost retransmission always
//! ends in an RTO): as Linux's tcp_mark_lost_retrans (net/ipv4/tcp_input.c, 2.6.25-4.x,
//! before RACK) a retransmission is lost again when data sent after it, above the
//! snd_max of its sending by DupThresh segments or more, is SACKed while it is not.
//! It is then resent first (before NextSeg() rule 1) and no longer counted in pipe.

use std::collections::VecDeque;

use super::piece::{next_in_order, AckInfo, AckVerdict, Decision, Decisions, LossRecovery, SendState};
use super::prr::{Prr, PrrAck};
use crate::core::time::SimTime;
use crate::tcp::sack::Scoreboard;

/// The options of SACK recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecoveryConfig {
    /// Proportional Rate Reduction sets the window in recovery (prr.rs; NewReno too).
    pub prr: bool,
    /// The SACKed marks survive a retransmission timeout (Linux) instead of being
    /// cleared (RFC 2018 section 5); SACK only.
    pub keep_after_rto: bool,
}

#[derive(Default)]
pub struct SackRecovery {
    sb: Scoreboard,
    in_recovery: bool,
    /// RecoveryPoint: snd_max when recovery began or the timer fired (recovery ends,
    /// and no new one starts, before snd_una reaches it).
    recovery_point: u64,
    /// One past the highest octet retransmitted in this recovery (HighRxt + 1).
    high_rxt: u64,
    /// SACKed octets in [snd_una, high_rxt): SetPipe() from running totals.
    sacked_below_rxt: u64,
    /// RescueRxt + 1 (rule 4): set at entry to the end of the first retransmission.
    rescue_rxt: u64,
    /// The segment `next_segment` chose last is a rule-4 rescue (read by `on_sent`).
    rescue_next: std::cell::Cell<bool>,
    dupacks: u32,
    /// Retransmissions of this recovery in flight, in send order: (seq, end, snd_max
    /// when sent).
    rxts: VecDeque<(u64, u64, u64)>,
    /// Retransmissions found lost, to resend first, and their bytes (out of pipe).
    resend: VecDeque<(u64, u64)>,
    resend_bytes: u64,
    /// Proportional Rate Reduction sets the window in recovery (prr.rs), and its counters.
    prr_on: bool,
    prr: Prr,
    /// DeliveredData of the ACK that is entering recovery (PRR counts it).
    prr_entry_delivered: u64,
    /// The scoreboard survives a retransmission timeout (Linux; `SackAfterRto::Keep`).
    keep_after_rto: bool,
}

impl SackRecovery {
    pub fn new(c: RecoveryConfig) -> SackRecovery {
        SackRecovery { prr_on: c.prr, keep_after_rto: c.keep_after_rto, ..SackRecovery::default() }
    }

    /// The PRR window for an ACK that delivered `delivered` bytes (pipe as it stands).
    fn prr_window(&self, s: &SendState, delivered: u64, safe: bool) -> Decision {
        Decision::PrrWindow(PrrAck { prr: self.prr, pipe: self.set_pipe(s), delivered, safe, mss: s.mss, uncounted: 0 })
    }

    /// Lost retransmissions: the oldest retransmissions whose range is still not SACKed
    /// while data at or above the snd_max of their sending + DupThresh segments is.
    fn mark_lost_retransmits(&mut self, s: &SendState) {
        let thr = s.dupthresh as u64 * s.mss;
        let high = self.sb.high_sacked();
        while let Some(&(seq, end, sent_max)) = self.rxts.front() {
            if end <= s.snd_una || self.sb.sacked_in(seq, end) == end - seq {
                self.rxts.pop_front(); // arrived
                continue;
            }
            if high < sent_max + thr {
                break; // later ones were sent later still
            }
            self.rxts.pop_front();
            self.resend.push_back((seq, end));
            self.resend_bytes += end - seq;
        }
        // resends no longer needed: acknowledged or SACKed meanwhile
        let (sb, una) = (&self.sb, s.snd_una);
        let mut gone = 0;
        self.resend.retain(|&(seq, end)| {
            let from = seq.max(una);
            let keep = end > una && sb.sacked_in(from, end) < end - from;
            if !keep {
                gone += end - seq;
            }
            keep
        });
        self.resend_bytes -= gone;
    }

    fn clear_retransmits(&mut self) {
        self.rxts.clear();
        self.resend.clear();
        self.resend_bytes = 0;
    }
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.sb
    }

    /// RFC 6675 SetPipe(), in bytes, from running totals (O(DupThresh)).
    pub fn set_pipe(&self, s: &SendState) -> u64 {
        let pipe = self.sb.pipe_fast(s.snd_una, s.snd_max, self.high_rxt, self.sacked_below_rxt, s.dupthresh, s.mss);
        pipe.saturating_sub(self.resend_bytes)
    }

    /// SetPipe() by scanning the scoreboard, the reference for `set_pipe`.
    pub fn set_pipe_by_scan(&self, s: &SendState) -> u64 {
        self.sb.pipe(s.snd_una, s.snd_max, self.high_rxt, s.dupthresh, s.mss)
    }
}

impl LossRecovery for SackRecovery {
    fn name(&self) -> &'static str {
        "sack"
    }

    fn on_ack(&mut self, s: &SendState, a: &AckInfo, now: SimTime, out: &mut Decisions) -> AckVerdict {
        let mut forgotten = 0;
        if a.newly > 0 {
            forgotten = self.sb.advance(s.snd_una);
            if self.high_rxt <= s.snd_una {
                self.high_rxt = s.snd_una;
                self.sacked_below_rxt = 0;
            } else {
                self.sacked_below_rxt -= forgotten; // all of it lay below snd_una < high_rxt
            }
            self.dupacks = 0;
        }
        let mut newly_sacked = 0;
        for &b in a.sack {
            let (n, below) = self.sb.add_split(b, s.snd_una, self.high_rxt);
            newly_sacked += n;
            self.sacked_below_rxt += below;
        }
        // section 2; a plain RFC 5681 duplicate (a receiver without SACK) counts too
        if newly_sacked > 0 || (a.dup && a.sack.is_empty()) {
            self.dupacks += 1;
        }
        // DeliveredData (RFC 6937): the change in snd_una plus the change in SACKed bytes
        let delivered = (a.newly + newly_sacked).saturating_sub(forgotten);
        if self.in_recovery {
            if s.snd_una >= self.recovery_point {
                // (A): recovery ends; cwnd stays at ssthresh, where step 4 set it (with
                // PRR: is set to it, Linux's tcp_end_cwnd_reduction)
                self.in_recovery = false;
                self.clear_retransmits();
                let w = if self.prr_on { s.ssthresh } else { s.cwnd.min(s.ssthresh) };
                out.push(Decision::SetCwnd(w));
                out.push(Decision::RecoveryExit);
                return AckVerdict { grow: false, restart_rto: true };
            }
            // (B) done above; (C) is the send loop's (next_segment)
            self.mark_lost_retransmits(s);
            if self.prr_on && delivered > 0 {
                self.prr.delivered += delivered;
                out.push(self.prr_window(s, delivered, a.newly > 0));
            }
            return AckVerdict { grow: false, restart_rto: a.newly > 0 };
        }
        let may_start = s.snd_una >= self.recovery_point && s.snd_max > s.snd_una;
        let lost_first = self.sb.lost_below(s.dupthresh, s.mss) > s.snd_una;
        if may_start && (self.dupacks >= s.dupthresh || (newly_sacked > 0 && lost_first)) {
            if self.prr_on {
                // the entering ACK's delivery counts (Linux's tcp_cwnd_reduction runs on it)
                self.prr_entry_delivered = delivered;
            }
            self.enter_recovery(s, now, out);
            return AckVerdict { grow: false, restart_rto: a.newly > 0 };
        }
        AckVerdict { grow: a.newly > 0, restart_rto: a.newly > 0 }
    }

    fn enter_recovery(&mut self, s: &SendState, _now: SimTime, out: &mut Decisions) {
        self.recovery_point = s.snd_max;
        self.in_recovery = true;
        // step 4: ssthresh = cwnd = the congestion control's ssthresh (with PRR: cwnd =
        // pipe + sndcnt for the entering ACK, at least the fast retransmit)
        out.push(Decision::Respond { flight: s.response_flight() });
        let len = s.mss.min(self.sb.hole_end(s.snd_una, s.end_seq) - s.snd_una);
        if self.prr_on {
            self.prr = Prr::start(s.cwnd, s.mss);
            self.prr.delivered = std::mem::take(&mut self.prr_entry_delivered);
            self.high_rxt = s.snd_una; // pipe before the retransmission
            self.sacked_below_rxt = 0;
            out.push(self.prr_window(s, self.prr.delivered, false));
            self.prr.out = len;
        } else {
            out.push(Decision::WindowFromSsthresh { plus: 0.0 });
        }
        out.push(Decision::Retransmit { seq: s.snd_una, len });
        self.high_rxt = s.snd_una + len;
        self.clear_retransmits();
        self.rxts.push_back((s.snd_una, s.snd_una + len, s.snd_max));
        self.rescue_rxt = self.high_rxt;
        self.sacked_below_rxt = 0; // [snd_una, snd_una + len) is a hole
    }

    fn on_rto(&mut self, s: &SendState, _now: SimTime, _out: &mut Decisions) {
        // RFC 2018 section 5 clears the SACKed marks ("clear"); Linux keeps them
        // (tcp_timeout_mark_lost) unless the receiver reneged: data SACKed at snd_una
        // yet not acknowledged cumulatively (tcp_check_sack_reneging)
        if !self.keep_after_rto || self.sb.ranges().first().is_some_and(|&(a, _)| a <= s.snd_una) {
            self.sb.clear();
        }
        self.in_recovery = false;
        self.dupacks = 0;
        self.recovery_point = s.snd_max;
        self.high_rxt = s.snd_una;
        self.sacked_below_rxt = 0;
        self.clear_retransmits();
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn dupacks(&self) -> u32 {
        self.dupacks
    }

    fn recovery_point(&self) -> u64 {
        self.recovery_point
    }

    fn next_segment(&self, s: &SendState, wnd: u64) -> Option<(u64, u64)> {
        self.rescue_next.set(false);
        if !self.in_recovery {
            // after a timeout, go-back-N skips what the receiver has SACKed since
            let seq = self.sb.next_hole(s.snd_nxt);
            if seq > s.snd_nxt {
                let len = (s.mss).min(s.end_seq.saturating_sub(seq));
                return (len > 0 && seq + len - s.snd_una <= wnd).then_some((seq, len));
            }
            if s.limited_transmit && s.snd_nxt == s.snd_max && self.sb.sacked_bytes() > 0 {
                // section 5 (3): cwnd - pipe >= SMSS (HighRxt = HighACK outside recovery)
                if s.snd_nxt >= s.end_seq {
                    return None;
                }
                let len = s.mss.min(s.end_seq - s.snd_nxt);
                return (self.set_pipe(s) + len <= wnd).then_some((s.snd_nxt, len));
            }
            return next_in_order(s, wnd);
        }
        let mss = s.mss;
        // (C): cwnd - pipe >= SMSS
        if wnd < self.set_pipe(s) + mss {
            return None;
        }
        // a retransmission found lost goes again first
        if let Some(&(seq, end)) = self.resend.front() {
            let seq = self.sb.next_hole(seq.max(s.snd_una));
            if seq < end {
                return Some((seq, mss.min(self.sb.hole_end(seq, end) - seq)));
            }
        }
        let high_sacked = self.sb.high_sacked();
        let hole = self.sb.next_hole(self.high_rxt.max(s.snd_una));
        // rule 1: the first lost hole above HighRxt
        if hole < high_sacked && hole < self.sb.lost_below(s.dupthresh, mss) {
            return Some((hole, mss.min(self.sb.hole_end(hole, s.snd_max) - hole)));
        }
        // rule 2: new data
        if s.snd_max < s.end_seq {
            return Some((s.snd_max, mss.min(s.end_seq - s.snd_max)));
        }
        // rule 3: a hole not (yet) deemed lost, below the highest SACKed octet
        if hole < high_sacked {
            return Some((hole, mss.min(self.sb.hole_end(hole, s.snd_max) - hole)));
        }
        // rule 4: one rescue retransmission of the highest outstanding un-SACKed octet
        if s.snd_max - s.snd_una > self.sb.sacked_bytes() && s.snd_una > self.rescue_rxt {
            let top = match self.sb.ranges().last() {
                Some(&(a, b)) if b == s.snd_max => a, // the top is SACKed: below its range
                _ => s.snd_max,
            };
            let seq = s.snd_una.max(top.saturating_sub(mss));
            self.rescue_next.set(true);
            return Some((seq, top - seq));
        }
        None
    }

    fn pipe(&self, s: &SendState) -> Option<u64> {
        Some(self.set_pipe(s))
    }

    fn sacked_above(&self, s: &SendState) -> bool {
        self.sb.high_sacked() > s.snd_una
    }

    fn sacked_bytes(&self) -> u64 {
        self.sb.sacked_bytes()
    }

    fn on_sent(&mut self, snd_max: u64, seq: u64, len: u64) {
        if self.in_recovery {
            self.prr.out += len; // prr_out (unused without PRR)
        }
        if self.in_recovery && seq < snd_max {
            if let Some(&(rs, re)) = self.resend.front() {
                if seq >= rs && seq < re {
                    // the lost retransmission goes again: in flight once more
                    self.resend.pop_front();
                    self.resend_bytes -= re - rs;
                    if seq + len < re {
                        self.resend.push_front((seq + len, re));
                        self.resend_bytes += re - seq - len;
                    }
                    self.rxts.push_back((seq, seq + len, snd_max));
                    return;
                }
            }
            if !self.rescue_next.get() {
                self.rxts.push_back((seq, seq + len, snd_max));
            }
        }
        if self.rescue_next.take() {
            self.rescue_rxt = self.recovery_point; // at most one rescue per recovery
            return;
        }
        if self.in_recovery && seq < snd_max && seq + len > self.high_rxt {
            // ranges skipped between the old HighRxt and this segment now lie below it
            self.sacked_below_rxt += self.sb.sacked_in(self.high_rxt, seq + len);
            self.high_rxt = seq + len;
        }
    }
}
