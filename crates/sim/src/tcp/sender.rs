//! The TCP sender: handshake (RFC 793), window-limited transmission, NewReno loss
//! recovery (RFC 5681 section 3.2 + RFC 6582 section 3.2), RTO (RFC 6298) and the ECN
//! sender reaction (RFC 3168 section 6.1.2), limited transmit (RFC 3042, optional).
//! Per-ACK work is O(1): no per-segment scoreboard, as NewReno needs none.
//! Each rule is tested on its own in crates/sim/tests/tcp/ (a scripted flow, tcp/script.rs).

use super::cc::CongestionEvent;
use super::{Flow, RtoBackoffReset, SenderState, SpDenial, SpMode, TcpOut};
use crate::packet::{flags, Packet, SpHdr};
use crate::time::SimTime;

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
        self.rto_deadline = Some(now + self.rto);
    }

    /// FlightSize in segments.
    #[inline]
    fn flight(&self) -> f64 {
        (self.snd_max - self.snd_una) as f64 / self.p.mss as f64
    }

    /// Sends what the window allows from snd_nxt.
    pub(crate) fn try_send(&mut self, now: SimTime, out: &mut TcpOut) {
        if self.state != SenderState::Established {
            return;
        }
        let mss = self.p.mss as u64;
        // whole segments: the cast truncates, which is floor for a window >= 1 (and
        // saturates at +inf), without a libm call on baseline x86-64
        let wnd_segs = self.cc_state.cwnd.min(self.cc_state.max_cwnd).max(1.0) as u64;
        let wnd = wnd_segs * mss;
        let end = self.end_seq();
        while self.snd_nxt < end {
            let len = mss.min(end - self.snd_nxt);
            if self.snd_nxt + len - self.snd_una > wnd {
                break;
            }
            if let Some((run, run_end)) = self.sp_run_start(self.snd_nxt) {
                // Section 2.1/3.1: all packets of a super-packet must reach the router
                // within an EPOCH, so a run goes as a super-packet only when the window
                // lets the whole run out now. A window that could hold the run but is
                // busy waits for ACKs; a window smaller than the run (after a timeout)
                // sends it as normal packets.
                if run_end - self.snd_una <= wnd {
                    self.sp_run = Some(run);
                } else if run_end - self.snd_nxt <= wnd {
                    break;
                } else {
                    self.sp_run = None;
                }
            }
            self.send_segment(self.snd_nxt, len as u32, now, out);
            self.snd_nxt += len;
            if self.snd_nxt > self.snd_max {
                self.snd_max = self.snd_nxt;
            }
        }
    }

    fn send_segment(&mut self, seq: u64, len: u32, now: SimTime, out: &mut TcpOut) {
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
        p.sp = self.sp_header(seq);
        if let Some(h) = p.sp {
            self.sp_mark_from = self.sp_mark_from.max(seq + len as u64);
            if h.first {
                self.stats.sp_sent += 1;
            }
        }
        out.pkts.push(p);
        self.stats.data_pkts_sent += 1;
        if self.rto_deadline.is_none() {
            // RFC 6298 (5.1): start the timer when a segment is sent and it is not running.
            self.rto_deadline = Some(now + self.rto);
        }
    }

    /// The super-packet header of the segment at `seq` (section 2.1, 2.3): new data of an
    /// active super-packet sender is marked; a retransmission goes as a normal packet
    /// ("we simply strip the packet of its super-packet information"), except the resend
    /// of a whole denied super-packet under the ideal scheme, which is a new super-packet.
    fn sp_header(&self, seq: u64) -> Option<SpHdr> {
        if !self.sp_active {
            return None;
        }
        let mss = self.p.mss as u64;
        match self.p.sp {
            SpMode::Off => None,
            SpMode::Flow => {
                // marked on the first send of each byte in this attempt
                if seq < self.sp_mark_from {
                    return None;
                }
                let k = (seq - self.sp_start) / mss;
                let len = (self.end_seq() - self.sp_start).div_ceil(mss);
                Some(SpHdr { sid: self.sp_sid, len: len.min(u16::MAX as u64) as u16, first: k == 0 })
            }
            SpMode::Runs(len) => {
                let k = (seq - 1) / mss;
                let run = k / len as u64;
                // new data of the run that try_send let out whole; all else is normal
                if seq < self.snd_max || self.sp_run != Some(run) {
                    return None;
                }
                let run_start = run * len as u64;
                let left = (self.end_seq() - 1).div_ceil(mss) - run_start;
                Some(SpHdr {
                    sid: self.sp_sid.wrapping_add(run as u32 & 0xFFFF),
                    len: (len as u64).min(left) as u16,
                    first: k == run_start,
                })
            }
        }
    }

    /// Runs mode: when `seq` starts a new run of new data, (run index, end of the run).
    fn sp_run_start(&self, seq: u64) -> Option<(u64, u64)> {
        let SpMode::Runs(len) = self.p.sp else { return None };
        if !self.sp_active || seq < self.snd_max {
            return None;
        }
        let mss = self.p.mss as u64;
        let k = (seq - 1) / mss;
        if !k.is_multiple_of(len as u64) || !(seq - 1).is_multiple_of(mss) {
            return None;
        }
        Some((k / len as u64, (1 + (k + len as u64) * mss).min(self.end_seq())))
    }

    /// A super-packet of a Flow-mode sender timed out with nothing acknowledged: it was
    /// denied (the router drops every packet of a denied super-packet). Returns true when
    /// the flow resends it as a new super-packet (ideal scheme) instead of falling back.
    fn sp_on_rto(&mut self) -> bool {
        if !self.sp_active || self.p.sp != SpMode::Flow || self.snd_una != self.sp_start {
            return false;
        }
        self.stats.sp_denied += 1;
        match self.p.sp_on_denial {
            SpDenial::Retry { attempts } if self.sp_attempts < attempts => {
                self.sp_attempts += 1;
                self.sp_sid = self.sp_sid.wrapping_add(1);
                self.sp_mark_from = self.sp_start;
                true
            }
            _ => {
                self.sp_active = false;
                self.stats.sp_fell_back = true;
                false
            }
        }
    }

    /// RFC 6298 section 2: SRTT/RTTVAR with alpha = 1/8, beta = 1/4, K = 4,
    /// RTO = SRTT + max(G, K RTTVAR), clamped to [min_rto, max_rto] (2.4, 2.5).
    fn rtt_sample(&mut self, r: SimTime) {
        let tick = self.p.rtt_tick.ns();
        // ns-2's tcpTick_: a sample is a whole number of ticks, at least one
        let r = if tick > 0 { (r.ns() + tick / 2) / tick * tick } else { r.ns() }.max(tick);
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
    }

    /// RTO = SRTT + max(G, 4 RTTVAR) (RFC 6298 2.2-2.3), rounded up to whole ticks when
    /// ticks are on (G is then at least a tick), within [min_rto, max_rto] (2.4, 2.5).
    fn estimated_rto(&self) -> SimTime {
        let Some(srtt) = self.srtt_ns else { return self.rto };
        let tick = self.p.rtt_tick.ns();
        let mut rto = srtt + self.p.granularity.ns().max(tick).max(4 * self.rttvar_ns);
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
                if self.sp_on_rto() {
                    // ideal scheme: the whole super-packet again, with the initial window
                    self.cc_state.cwnd = self.p.init_cwnd;
                    self.in_recovery = false;
                    self.dupacks = 0;
                    self.recover = self.snd_max - 1;
                    self.snd_nxt = self.snd_una;
                    self.rto = SimTime(self.rto.ns() * 2).min(self.p.max_rto); // (5.5)
                    self.try_send(now, out);
                    if self.rto_deadline.is_none() {
                        self.rto_deadline = Some(now + self.rto);
                    }
                    return;
                }
                // RFC 5681 3.1 (after eq. 4): a segment already retransmitted by the timer
                // times out again: ssthresh is held constant
                if self.rto_una != self.snd_una {
                    let flight = self.flight();
                    self.cc_state.ssthresh = self.cc.ssthresh(&self.cc_state, flight, CongestionEvent::Timeout, now);
                }
                self.rto_una = self.snd_una;
                self.cc_state.cwnd = 1.0; // loss window LW = 1 segment
                                          // RFC 3168 6.1.2: the timeout reduced the window: CWR on the next new data,
                                          // and no second reduction for ECE in this window
                self.cwr_pending = self.ecn_ok;
                self.ecn_recover = self.snd_max;
                self.in_recovery = false;
                self.dupacks = 0;
                // RFC 6582 section 3.2 step 6 / 4.1: recover <- highest sequence sent.
                self.recover = self.snd_max - 1;
                self.snd_nxt = self.snd_una; // go back N
                self.rto = SimTime(self.rto.ns() * 2).min(self.p.max_rto); // (5.5) back off
                self.try_send(now, out); // (5.4) retransmit the earliest unacknowledged
                if self.rto_deadline.is_none() {
                    self.rto_deadline = Some(now + self.rto); // (5.6)
                }
            }
            _ => {}
        }
    }

    /// An ACK (or SYN-ACK) reached the sender.
    pub fn on_ack(&mut self, pkt: &Packet, now: SimTime, out: &mut TcpOut) {
        if pkt.has(flags::SYN) {
            if self.state == SenderState::SynSent {
                self.state = SenderState::Established;
                if pkt.has(flags::TSV) && !self.syn_retx {
                    self.rtt_sample(now - pkt.ts_echo);
                }
                // RFC 5681 section 3.1: after a lost SYN the initial window is 1 segment.
                self.cc_state.cwnd = if self.syn_retx { 1.0 } else { self.p.init_cwnd };
                self.ecn_ok = self.p.ecn && pkt.has(flags::ECE); // RFC 3168 6.1.1
                if self.syn_retx && self.p.init_rto < SimTime::from_secs(3) {
                    // RFC 6298 5.7: after a SYN timeout, data starts with RTO = 3 s
                    self.rto = SimTime::from_secs(3).max(self.p.min_rto).min(self.p.max_rto);
                }
                self.rto_deadline = None;
                self.try_send(now, out);
            }
            return;
        }
        if self.state != SenderState::Established {
            return;
        }
        let ack = pkt.ack;
        let mss = self.p.mss as f64;
        if ack > self.snd_una {
            let newly_bytes = ack - self.snd_una;
            let newly = newly_bytes as f64 / mss;
            self.snd_una = ack;
            // RFC 5681 section 2: duplicates are counted since the last ACK that advanced
            // snd_una (also when it ends a recovery)
            self.dupacks = 0;
            self.lt_sent = 0;
            let ece = self.ecn_ok && pkt.has(flags::ECE);
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            let rtt = if pkt.has(flags::TSV) { Some(now - pkt.ts_echo) } else { None };
            if let Some(r) = rtt {
                self.rtt_sample(r);
            } else if self.p.rto_backoff_reset == RtoBackoffReset::NewAck {
                self.rto = self.estimated_rto(); // ns-3: the back-off ends with any new ACK
            }
            if self.in_recovery {
                if ack > self.recover {
                    // RFC 6582 3.2 step 3 (full ACK), option 1: cwnd = min(ssthresh, FlightSize + SMSS).
                    self.in_recovery = false;
                    self.cc_state.cwnd = self.cc_state.ssthresh.min(self.flight().max(1.0) + 1.0);
                    self.cc.on_recovery_exit(&mut self.cc_state, now);
                } else {
                    // RFC 6582 3.2 step 4 (partial ACK): retransmit the first unacknowledged
                    // segment, deflate by the amount acknowledged, add back one SMSS if at
                    // least one SMSS was acknowledged.
                    let len = (self.p.mss as u64).min(self.end_seq() - self.snd_una) as u32;
                    self.send_segment(self.snd_una, len, now, out);
                    let add_back = if newly_bytes >= self.p.mss as u64 { 1.0 } else { 0.0 };
                    self.cc_state.cwnd = (self.cc_state.cwnd - newly + add_back).max(1.0);
                    if !self.partial_seen {
                        // reset the timer on the first partial ACK only ("impatient")
                        self.partial_seen = true;
                        self.rto_deadline = Some(now + self.rto);
                    }
                }
            } else if !ece {
                // RFC 3168 6.1.2: no window increase in response to an ECE ACK
                self.cc.on_ack(&mut self.cc_state, newly, rtt, now);
                // max_cwnd bounds the window's growth (ns-2's maxcwnd_ in opencwnd); in
                // recovery it bounds only the usable window (try_send)
                if self.cc_state.cwnd > self.cc_state.max_cwnd {
                    self.cc_state.cwnd = self.cc_state.max_cwnd;
                }
            }
            if ece {
                self.on_ece(now);
            }
            if self.snd_una >= self.end_seq() {
                self.state = SenderState::Done;
                self.stats.sender_done = Some(now);
                self.rto_deadline = None;
                return;
            }
            // RFC 6298 (5.3): restart the timer when new data is acknowledged.
            if !self.in_recovery || !self.partial_seen {
                self.rto_deadline = Some(now + self.rto);
            }
        } else if ack == self.snd_una && self.snd_max > self.snd_una && pkt.payload == 0 {
            self.dupacks += 1;
            if self.in_recovery {
                self.cc_state.cwnd += 1.0; // RFC 5681 3.2 step 4: inflate
            } else if self.dupacks < self.p.dupack_threshold {
                if self.p.limited_transmit {
                    self.limited_transmit(now, out);
                }
            } else if self.dupacks == self.p.dupack_threshold && ack > self.recover {
                // RFC 6582 3.2 step 2: fast retransmit only if the ACK covers more than recover.
                self.stats.fast_retransmits += 1;
                // RFC 5681 3.2 step 2: data sent by limited transmit is not in FlightSize
                let flight = self.flight() - self.lt_sent as f64;
                self.cc_state.ssthresh = self.cc.ssthresh(&self.cc_state, flight, CongestionEvent::FastRetransmit, now);
                self.recover = self.snd_max - 1;
                self.in_recovery = true;
                self.partial_seen = false;
                let len = (self.p.mss as u64).min(self.end_seq() - self.snd_una) as u32;
                self.send_segment(self.snd_una, len, now, out);
                self.cc_state.cwnd = self.cc_state.ssthresh + self.p.dupack_threshold as f64;
                self.ecn_recover = self.snd_max; // one reduction per window
                self.cwr_pending = self.ecn_ok; // RFC 3168 6.1.2
            }
        }
        self.try_send(now, out);
    }

    /// RFC 3042: on the first and second duplicate ACK send one new segment, if there is
    /// unsent data and FlightSize stays within cwnd + 2 segments; cwnd is not changed.
    fn limited_transmit(&mut self, now: SimTime, out: &mut TcpOut) {
        let mss = self.p.mss as u64;
        if self.snd_nxt != self.snd_max || self.snd_nxt >= self.end_seq() {
            return;
        }
        let len = mss.min(self.end_seq() - self.snd_nxt);
        let limit = ((self.cc_state.cwnd + 2.0) * mss as f64) as u64;
        if self.snd_nxt + len - self.snd_una > limit {
            return;
        }
        self.send_segment(self.snd_nxt, len as u32, now, out);
        self.snd_nxt += len;
        self.snd_max = self.snd_nxt;
        self.lt_sent += 1;
    }

    /// RFC 3168 section 6.1.2: react to ECE at most once per window of data, like a
    /// loss but without retransmitting; set CWR on the next new data packet.
    fn on_ece(&mut self, now: SimTime) {
        if self.in_recovery || self.snd_una <= self.ecn_recover {
            return;
        }
        self.stats.ecn_reductions += 1;
        let flight = self.flight();
        let ss = self.cc.ssthresh(&self.cc_state, flight, CongestionEvent::Ecn, now);
        self.cc_state.ssthresh = ss;
        // a reduction never raises the window
        self.cc_state.cwnd = ss.max(1.0).min(self.cc_state.cwnd);
        self.ecn_recover = self.snd_max;
        self.cwr_pending = true;
    }
}
