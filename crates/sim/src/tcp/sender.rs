//! The TCP sender: handshake (RFC 793), the send loop, the RTT estimator and the
//! retransmission timer (RFC 6298), and the ECN sender reaction (RFC 3168 section
//! 6.1.2; its size is the congestion control's, which for DCTCP also sees every ACK's
//! ECE: RFC 8257 section 3.3). What to do about duplicate and partial ACKs is the
//! loss-recovery piece's (recovery/: NewReno RFC 6582 or SACK RFC 6675), how the window
//! grows the congestion control's (cc/), when a segment may leave the scheduler's
//! (sched.rs), and super-packet marking a behaviour of its own (spmark.rs). Each rule is
//! tested on its own in crates/sim/tests/tcp/ (a scripted flow, tcp/script.rs).

use super::cc::{CongestionEvent, EcnAck};
use super::recovery::{in_order_segment, AckInfo, Decision, LossRecovery, Recovery, SendState};
use super::sack::SackBlock;
use super::sched::{GateView, Pacing};
use super::spmark::{SpGate, SpTimeout};
use super::timers::TimerKind;
use super::{Flow, RtoBackoffReset, SenderState, TcpOut};
use crate::core::packet::{flags, Packet};
use crate::core::time::SimTime;

impl Flow {
    /// The flow starts: send the SYN (with ECE|CWR when ECN is wanted, RFC 3168 6.1.1).
    pub fn open(&mut self, now: SimTime, out: &mut TcpOut) {
        self.state = SenderState::SynSent;
        self.send_syn(now, out);
    }

    fn send_syn(&mut self, now: SimTime, out: &mut TcpOut) {
        let mut f = flags::SYN;
        if self.p.ecn {
            f |= flags::ECE | flags::CWR;
        }
        let mut p = self.make_pkt(self.fwd, f, 0, 0, now);
        p.size = self.p.header;
        out.pkts.push(p);
        self.timers.set(TimerKind::Rto, now + self.rto);
    }

    /// FlightSize in segments (RFC 5681: data sent and not cumulatively acknowledged).
    #[inline]
    pub fn flight(&self) -> f64 {
        (self.snd_max - self.snd_una) as f64 / self.p.mss as f64
    }

    /// FlightSize for a congestion response (ssthresh): the current one, or the smaller
    /// one a recovery wrapper has fixed (TCP-NCR's FlightSizePrev, RFC 4653 section 3.4).
    #[inline]
    pub fn response_flight(&self) -> f64 {
        let f = self.flight();
        self.rec.response_flight().map_or(f, |r| r.min(f))
    }

    /// The sender as loss recovery reads it.
    #[inline]
    pub fn send_state(&self) -> SendState {
        SendState {
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            snd_max: self.snd_max,
            end_seq: self.end_seq(),
            mss: self.p.mss as u64,
            dupthresh: self.p.dupack_threshold,
            limited_transmit: self.p.limited_transmit,
            cwnd: self.cc_state.cwnd,
            ssthresh: self.cc_state.ssthresh,
            srtt: self.srtt(),
            rto: self.rto,
            response_flight: None,
        }
    }

    /// Applies loss recovery's decisions, in order: the sequence space, the window, the
    /// timers and the counters change here only.
    #[inline]
    pub(crate) fn apply_decisions(&mut self, now: SimTime, out: &mut TcpOut) {
        if !self.decisions.is_empty() {
            self.apply_pending(now, out);
        }
    }

    fn apply_pending(&mut self, now: SimTime, out: &mut TcpOut) {
        // by index: an applied decision never pushes another
        for i in 0..self.decisions.len() {
            match self.decisions[i] {
                Decision::Respond { flight } => {
                    self.stats.fast_retransmits += 1;
                    self.cc_state.ssthresh = self.reduced_ssthresh(flight, CongestionEvent::FastRetransmit, now);
                    self.on_loss_reduction();
                }
                Decision::WindowFromSsthresh { plus } => self.cc_state.cwnd = (self.cc_state.ssthresh + plus).max(1.0),
                Decision::Retransmit { seq, len } => {
                    if out.room == 0 {
                        // the NIC queue refused it: sent first when it has room
                        self.held_retx.push((seq, len));
                        self.on_nic_full(now);
                        continue;
                    }
                    out.room -= 1;
                    self.send_segment(seq, len as u32, now, out)
                }
                Decision::SendNew { len } => {
                    if out.room == 0 {
                        // limited transmit's segment stays unsent (snd_nxt unchanged)
                        self.on_nic_full(now);
                        continue;
                    }
                    out.room -= 1;
                    self.send_segment(self.snd_nxt, len as u32, now, out);
                    self.snd_nxt += len;
                    self.snd_max = self.snd_max.max(self.snd_nxt);
                }
                Decision::SetCwnd(w) => self.cc_state.cwnd = w,
                Decision::SetSsthresh(v) => self.cc_state.ssthresh = v,
                Decision::PrrWindow(a) => self.cc_state.cwnd = a.cwnd(self.cc_state.ssthresh).max(1.0),
                Decision::RecoveryExit => self.cc.on_recovery_exit(&mut self.cc_state, now),
                Decision::Grow { acked } => self.grow_cwnd(acked, None, now),
                Decision::ArmTimer(t) => self.timers.set(TimerKind::Recovery, t),
                Decision::DisarmTimer => self.timers.cancel(TimerKind::Recovery),
                Decision::RestartRto => self.timers.set(TimerKind::Rto, now + self.rto),
            }
        }
        self.decisions.clear();
    }

    /// ssthresh for a congestion response to `flight` (segments, RFC 5681's FlightSize)
    /// that never raises the window: the FlightSize used is at most cwnd, and the result
    /// at most cwnd (or the 2-segment floor of RFC 5681 eq. 4). snd_max - snd_una exceeds
    /// cwnd after a timeout (go-back-N resends what was in flight), after a reduction
    /// (the old window still drains) and inside a SACK recovery (SACKed data above the
    /// holes); taken whole there, a "reduction" set ssthresh above the window it reduced
    /// (one CUBIC flow reached 451,731 segments on a path holding 13,000). RFC 6675's
    /// pipe and Linux's ssthresh from cwnd (tcp_reno_ssthresh, tcp_cubic's
    /// bictcp_recalc_ssthresh) both keep it at most cwnd.
    #[inline]
    pub(super) fn reduced_ssthresh(&mut self, flight: f64, ev: CongestionEvent, now: SimTime) -> f64 {
        let cwnd = self.cc_state.cwnd;
        let ss = self.cc.ssthresh(&self.cc_state, flight.min(cwnd), ev, now);
        ss.min(cwnd.max(2.0))
    }

    /// The pacing rate in force, bits/s.
    #[inline]
    fn pacing_rate(&self) -> Option<f64> {
        match self.sched.pacing {
            Pacing::Off => None,
            Pacing::Rate(r) => Some(r),
            Pacing::Cc => self.cc.pacing_rate(&self.cc_state, self.srtt()),
        }
    }

    /// Sends what the window, loss recovery and the scheduler allow.
    pub(crate) fn try_send(&mut self, now: SimTime, out: &mut TcpOut) {
        if self.state != SenderState::Established {
            return;
        }
        self.nic_full = false;
        if !self.held_retx.is_empty() && !self.send_held(now, out) {
            return;
        }
        let mss = self.p.mss as u64;
        // whole segments: the cast truncates, which is floor for a window >= 1 (and
        // saturates at +inf), without a libm call on baseline x86-64
        let wnd_segs = self.cc_state.cwnd.min(self.cc_state.max_cwnd).max(1.0) as u64;
        let wnd = wnd_segs * mss;
        let end = self.end_seq();
        // NewReno (P1's path): the in-order rule without a dispatch per segment
        let in_order = matches!(self.rec, Recovery::NewReno(_));
        // TCP Small Queues: wire bytes this call has sent (not yet recorded by the link)
        let mut below = 0u64;
        loop {
            let next = if in_order {
                in_order_segment(self.snd_una, self.snd_nxt, end, mss, wnd)
            } else {
                self.rec.next_segment(&self.send_state(), wnd)
            };
            let Some((seq, len)) = next else {
                self.gate_limited = false; // the window (or the data) is used up
                break;
            };
            let advances = seq >= self.snd_nxt;
            if advances && self.sp.gate(seq, self.snd_una, self.snd_max, end, mss, wnd) == SpGate::Wait {
                break;
            }
            if self.tsq.is_some() && self.tsq_blocks(seq, len, below, now) {
                break; // woken by the first TX completion (sim.rs `emit`)
            }
            if out.room == 0 {
                // Linux tcp_write_xmit: the queue refused; the segment stays unsent
                self.on_nic_full(now);
                break;
            }
            if !self.sched.is_window_limited() {
                let v = self.gate_view(seq, len);
                let rate = self.pacing_rate();
                if let Some(t) = self.sched.release_at(&v, rate, now) {
                    self.timers.set(TimerKind::Send, t.max(now));
                    self.gate_limited = self.sched.gate.as_ref().is_some_and(|g| g.holds_window());
                    break;
                }
                self.sched.on_sent(&v, rate, now);
            }
            if !in_order {
                self.rec.on_sent(self.snd_max, seq, len);
            }
            out.room -= 1;
            below += len + self.p.header as u64;
            self.send_segment(seq, len as u32, now, out);
            if advances {
                self.snd_nxt = seq + len;
                if self.snd_nxt > self.snd_max {
                    self.snd_max = self.snd_nxt;
                }
            }
        }
    }

    fn gate_view(&self, seq: u64, len: u64) -> GateView {
        GateView {
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            snd_max: self.snd_max,
            cwnd: self.cc_state.cwnd,
            srtt: self.srtt(),
            bytes: len as u32 + self.p.header,
            seq,
            len,
            sacked: self.rec.sacked_bytes(),
            ssthresh: self.cc_state.ssthresh,
        }
    }

    /// Puts one data segment on the wire (new data or a retransmission: seq < snd_max).
    #[inline]
    pub(crate) fn send_segment(&mut self, seq: u64, len: u32, now: SimTime, out: &mut TcpOut) {
        let mut f = flags::DATA | flags::ACK;
        let retx = seq < self.snd_max;
        if retx {
            f |= flags::RETX;
            self.stats.retransmits += 1;
        }
        if seq + len as u64 == self.end_seq() {
            f |= flags::FIN;
        }
        // RFC 3168 6.1.5: retransmissions are not ECT; 6.1.2: CWR goes on the first new
        // data packet after a window reduction
        if self.ecn_ok && !retx {
            f |= flags::ECT;
            if self.cwr_pending {
                f |= flags::CWR;
                self.cwr_pending = false;
            }
        }
        let mut p = self.make_pkt(self.fwd, f, seq, len, now);
        let end = self.end_seq();
        p.sp = self.sp.header(seq, len as u64, self.snd_max, end, self.p.mss as u64);
        if p.sp.is_some_and(|h| h.first) {
            self.stats.sp_sent += 1;
        }
        out.pkts.push(p);
        self.stats.data_pkts_sent += 1;
        if self.cc_hooks {
            self.cc.on_packet_sent(&mut self.cc_state, seq, len, retx, now);
        }
        // RFC 6298 (5.1): start the timer when a segment is sent and it is not running.
        self.timers.set_if_idle(TimerKind::Rto, now + self.rto);
    }

    /// A loss-driven window reduction happened (fast retransmit): RFC 3168 6.1.2, the
    /// next new data carries CWR and ECE does not reduce again in this window.
    pub(crate) fn on_loss_reduction(&mut self) {
        self.ecn_recover = self.snd_max;
        self.cwr_pending = self.ecn_ok;
    }

    /// RFC 6298 section 2: SRTT/RTTVAR with alpha = 1/8, beta = 1/4, K = 4.
    #[inline]
    fn rtt_sample(&mut self, r: SimTime, now: SimTime) {
        let tick = self.p.rtt_tick.ns();
        // ns-2's tcpTick_: a sample is a whole number of ticks, at least one
        let r = match (r.ns() + tick / 2).checked_div(tick) {
            Some(n) => (n * tick).max(tick),
            None => r.ns(),
        };
        self.stats.rtt_samples += 1;
        self.stats.rtt_sum_ns += r as u128;
        match self.srtt_ns {
            None => {
                self.srtt_ns = Some(r); // (2.2) SRTT <- R, RTTVAR <- R/2
                self.rttvar_ns = r / 2;
            }
            Some(srtt) => {
                // (2.3) RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|; SRTT <- 7/8 SRTT + 1/8 R'
                self.rttvar_ns = (3 * self.rttvar_ns + srtt.abs_diff(r)) / 4;
                self.srtt_ns = Some((7 * srtt + r) / 8);
            }
        }
        self.rto = self.estimated_rto();
        if self.cc_hooks {
            self.cc.on_rtt_sample(&mut self.cc_state, SimTime(r), now);
        }
    }

    /// RTO = SRTT + max(G, 4 RTTVAR) (RFC 6298 2.2-2.3), rounded up to whole ticks when
    /// ticks are on (G is then at least a tick), within [min_rto, max_rto] (2.4, 2.5).
    ///
    /// `RtoFormula::Linux` (net/ipv4/tcp_input.c tcp_set_rto and tcp_rtt_estimator): the
    /// variance term is at least min_rto, so RTO >= SRTT + min_rto, not only >= min_rto:
    /// on a path whose RTT exceeds min_rto, RFC 6298's RTO is barely above SRTT once
    /// RTTVAR has settled, and a window delayed in a queue times out spuriously.
    fn estimated_rto(&self) -> SimTime {
        let Some(srtt) = self.srtt_ns else { return self.rto };
        let tick = self.p.rtt_tick.ns();
        let mut var = self.p.granularity.ns().max(tick).max(4 * self.rttvar_ns);
        if self.p.rto_formula == super::RtoFormula::Linux {
            var = var.max(self.p.min_rto.ns());
        }
        let mut rto = srtt + var;
        if tick > 0 {
            rto = rto.div_ceil(tick) * tick;
        }
        SimTime(rto).max(self.p.min_rto).min(self.p.max_rto)
    }

    /// Retransmission timeout (RFC 6298 section 5.4-5.6, RFC 5681 eq. 4 and 3.1).
    pub(crate) fn on_rto(&mut self, now: SimTime, out: &mut TcpOut) {
        match self.state {
            SenderState::SynSent => {
                self.syn_retx = true;
                self.rto = SimTime(self.rto.ns() * 2).min(self.p.max_rto); // (5.5)
                self.stats.timeouts += 1;
                self.stats.retransmits += 1;
                self.send_syn(now, out);
            }
            SenderState::Established if self.snd_una < self.end_seq() => {
                self.stats.timeouts += 1;
                let sp = self.sp.on_rto(
                    self.snd_una,
                    self.p.sp_on_denial,
                    &mut self.stats.sp_denied,
                    &mut self.stats.sp_fell_back,
                );
                if sp == SpTimeout::Resend {
                    // ideal scheme: the whole super-packet again, with the initial window
                    self.cc_state.cwnd = self.p.init_cwnd;
                } else {
                    // RFC 5681 3.1 (after eq. 4): a segment already retransmitted by the
                    // timer times out again: ssthresh is held constant. A timeout inside
                    // fast recovery keeps the ssthresh the recovery set, as Linux's
                    // tcp_enter_loss does (high_seq above snd_una): that recovery already
                    // responded to this window's loss, and its inflated window is no base
                    if self.rto_una != self.snd_una && !self.rec.in_recovery() {
                        let flight = self.response_flight();
                        self.cc_state.ssthresh = self.reduced_ssthresh(flight, CongestionEvent::Timeout, now);
                    }
                    self.rto_una = self.snd_una;
                    self.cc_state.cwnd = 1.0; // loss window LW = 1 segment
                                              // RFC 3168 6.1.2: the timeout reduced the window: CWR on the next new
                                              // data, and no second reduction for ECE in this window
                    self.cwr_pending = self.ecn_ok;
                    self.ecn_recover = self.snd_max;
                    self.cc.on_rto(&mut self.cc_state, now);
                    if let Some(h) = self.slow_start.as_deref_mut() {
                        h.on_rto();
                    }
                }
                self.held_retx.clear(); // go-back-N resends from snd_una
                let s = self.send_state();
                self.rec.on_rto(&s, now, &mut self.decisions);
                self.apply_decisions(now, out);
                self.snd_nxt = self.snd_una; // go back N
                self.rto = SimTime(self.rto.ns() * 2).min(self.p.max_rto); // (5.5) back off
                self.try_send(now, out); // (5.4) retransmit the earliest unacknowledged
                self.timers.set_if_idle(TimerKind::Rto, now + self.rto); // (5.6)
            }
            _ => {}
        }
    }

    /// An ACK (or SYN-ACK) reached the sender, with the SACK blocks it carries.
    #[inline(always)]
    pub fn on_ack(&mut self, pkt: &Packet, sack: &[SackBlock], now: SimTime, out: &mut TcpOut) {
        if pkt.has(flags::SYN) {
            if self.state == SenderState::SynSent {
                self.state = SenderState::Established;
                if pkt.has(flags::TSV) && !self.syn_retx {
                    self.rtt_sample(now - pkt.ts_echo, now);
                }
                // RFC 5681 section 3.1: after a lost SYN the initial window is 1 segment.
                self.cc_state.cwnd = if self.syn_retx { 1.0 } else { self.p.init_cwnd };
                self.ecn_ok = self.p.ecn && pkt.has(flags::ECE); // RFC 3168 6.1.1
                if self.syn_retx && self.p.init_rto < SimTime::from_secs(3) {
                    // RFC 6298 5.7: after a SYN timeout, data starts with RTO = 3 s
                    self.rto = SimTime::from_secs(3).max(self.p.min_rto).min(self.p.max_rto);
                }
                self.timers.cancel(TimerKind::Rto);
                self.try_send(now, out);
            }
            return;
        }
        if self.state != SenderState::Established {
            return;
        }
        let ack = pkt.ack;
        if ack > self.snd_una {
            let newly = ack - self.snd_una;
            self.snd_una = ack;
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            let ece = self.ecn_ok && pkt.has(flags::ECE);
            let rtt = if pkt.has(flags::TSV) { Some(now - pkt.ts_echo) } else { None };
            if let Some(r) = rtt {
                self.rtt_sample(r, now);
            } else if self.p.rto_backoff_reset == RtoBackoffReset::NewAck {
                self.rto = self.estimated_rto(); // ns-3: the back-off ends with any new ACK
            }
            if self.cc_ece {
                // RFC 8257 section 3.3 steps 1-8, before the ECE response below (step 9)
                let a = EcnAck { acked_bytes: newly, ece, ack, snd_nxt: self.snd_max };
                self.cc.on_ecn_ack(&mut self.cc_state, &a, now);
            }
            let info = AckInfo { ack, newly, dup: false, sack };
            let (v, in_recovery) = match self.rec.on_ack_fast(&info) {
                Some(v) => (v, self.rec.in_recovery()),
                None => {
                    let s = self.send_state();
                    let v = self.rec.on_ack(&s, &info, now, &mut self.decisions);
                    self.apply_decisions(now, out);
                    (v, self.rec.in_recovery())
                }
            };
            if v.grow {
                if let Some(h) = self.slow_start.as_deref_mut() {
                    let (w, ss) = (self.cc_state.cwnd, self.cc_state.ssthresh);
                    if let Some(ss) = h.on_ack(ack, self.snd_max, rtt, now, w, ss) {
                        self.cc_state.ssthresh = ss; // slow start ends here (slow_start.rs)
                    }
                }
            }
            if v.grow && !ece {
                // RFC 3168 6.1.2: no window increase in response to an ECE ACK
                self.grow_cwnd(newly as f64 / self.p.mss as f64, rtt, now);
            }
            if ece {
                self.on_ece(in_recovery, now);
            }
            if self.snd_una >= self.end_seq() {
                self.state = SenderState::Done;
                self.stats.sender_done = Some(now);
                self.timers.cancel(TimerKind::Rto);
                return;
            }
            // RFC 6298 (5.3): restart the timer when new data is acknowledged.
            if v.restart_rto {
                self.timers.set(TimerKind::Rto, now + self.rto);
            }
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            let dup = pkt.payload == 0;
            let s = self.send_state();
            self.rec.on_ack(&s, &AckInfo { ack, newly: 0, dup, sack }, now, &mut self.decisions);
            self.apply_decisions(now, out);
        }
        if self.sched.gate.is_some() {
            let v = self.gate_view(self.snd_nxt, 0);
            self.sched.on_ack(&v, now);
        }
        self.try_send(now, out);
    }

    /// The congestion control grows the window for `acked` segments; max_cwnd bounds the
    /// growth (ns-2's maxcwnd_ in opencwnd; in recovery it bounds only the usable window,
    /// try_send).
    ///
    /// While a send gate, not the window, limits sending, the window does not grow (it
    /// may shrink): Linux grows cwnd only when tcp_is_cwnd_limited, RFC 7661 section 4.3
    /// not in its non-validated phase. Without it a delay-based window (FAST sees no
    /// queue while the gate paces) grows without bound and leaves as a burst once the
    /// gate opens.
    #[inline(always)]
    pub(crate) fn grow_cwnd(&mut self, acked: f64, rtt: Option<SimTime>, now: SimTime) {
        let before = self.cc_state.cwnd;
        self.cc.on_ack(&mut self.cc_state, acked, rtt, now);
        if self.gate_limited && self.cc_state.cwnd > before {
            self.cc_state.cwnd = before;
        }
        if self.slow_start.is_some() {
            self.shape_slow_start(before);
        }
        if self.cc_state.cwnd > self.cc_state.max_cwnd {
            self.cc_state.cwnd = self.cc_state.max_cwnd;
        }
    }

    /// The slow-start option's shape of the congestion control's increase from `before`
    /// (limited slow start, HyStart++'s CSS; slow_start.rs).
    #[cold]
    #[inline(never)]
    fn shape_slow_start(&mut self, before: f64) {
        if let Some(m) = self.slow_start.as_deref() {
            if before < self.cc_state.ssthresh {
                self.cc_state.cwnd = m.shape(before, self.cc_state.cwnd);
            }
        }
    }

    /// RFC 3168 section 6.1.2: react to ECE at most once per window of data, like a
    /// loss but without retransmitting; set CWR on the next new data packet. The size of
    /// the reduction is the congestion control's ssthresh for an ECN event: RFC 3168's
    /// halving by default, DCTCP's cwnd x (1 - alpha / 2) (cc/dctcp.rs).
    fn on_ece(&mut self, in_recovery: bool, now: SimTime) {
        if in_recovery || self.snd_una <= self.ecn_recover {
            return;
        }
        self.stats.ecn_reductions += 1;
        let flight = self.flight();
        let ss = self.reduced_ssthresh(flight, CongestionEvent::Ecn, now);
        self.cc_state.ssthresh = ss;
        // a reduction never raises the window
        self.cc_state.cwnd = ss.max(1.0).min(self.cc_state.cwnd);
        self.ecn_recover = self.snd_max;
        self.cwr_pending = true;
    }
}
