//! Local congestion, the sender's side of its own host: a segment the NIC queue refuses
//! held unsent and the window reduced once (Linux tcp_write_xmit and tcp_enter_cwr), the
//! retransmissions held meanwhile, and TCP Small Queues (tsq.rs, Linux
//! tcp_small_queue_check) stopping a send loop until a TX completion.

use super::cc::CongestionEvent;
use super::recovery::LossRecovery;
use super::timers::TimerKind;
use super::{Flow, SenderState, TcpOut};
use crate::core::time::SimTime;

impl Flow {
    /// A send loop stopped at the TCP Small Queues limit: the send timer fires at the
    /// first TX completion (Linux's tcp_tsq_handler), unless it is due earlier.
    #[cold]
    pub(crate) fn tsq_wake_at_completion(&mut self) {
        let Some(t) = self.tsq.as_mut() else { return };
        t.throttled = false;
        if let Some(c) = t.next_completion() {
            if self.timers.get(TimerKind::Send).is_none_or(|s| c < s) {
                self.timers.set(TimerKind::Send, c);
            }
        }
    }

    /// TCP Small Queues (tsq.rs, Linux tcp_small_queue_check): whether the segment
    /// [seq, seq + len) must wait for the flow's data below the socket to drain, with
    /// `below` bytes sent by this call. Not congestion: the window is left alone.
    #[cold]
    pub(super) fn tsq_blocks(&mut self, seq: u64, len: u64, below: u64, now: SimTime) -> bool {
        let mss = self.p.mss as u64;
        if self.snd_max - self.snd_una <= mss {
            return false; // at most one segment unacknowledged: always sent
        }
        // tcp_update_pacing_rate: max(cwnd, packets out) x MSS / SRTT, 200 % in slow
        // start (cwnd < ssthresh / 2), 120 % after; no SRTT yet: unbounded
        let out_pkts = ((self.snd_max - self.snd_una) / mss) as f64;
        let w = self.cc_state.cwnd.max(out_pkts);
        let ratio = if self.cc_state.cwnd < self.cc_state.ssthresh / 2.0 { 2.0 } else { 1.2 };
        let rate = self.srtt_ns.filter(|&s| s > 0).map(|s| ratio * w * mss as f64 * 1e9 / s as f64);
        let pkt = mss + self.p.header as u64;
        let size = len + self.p.header as u64;
        let tsq = self.tsq.as_mut().expect("tsq on");
        let limit = tsq.limit(rate, pkt, seq < self.snd_max);
        tsq.blocks(now, below, size, limit)
    }

    /// Sends the retransmissions the NIC queue refused earlier, oldest first, those still
    /// unacknowledged; false when the queue refuses again (the rest stay held).
    #[cold]
    pub(super) fn send_held(&mut self, now: SimTime, out: &mut TcpOut) -> bool {
        let mut k = 0;
        while k < self.held_retx.len() {
            if out.room == 0 {
                self.held_retx.drain(..k);
                self.on_nic_full(now);
                return false;
            }
            let (seq, len) = self.held_retx[k];
            k += 1;
            if seq + len > self.snd_una {
                out.room -= 1;
                self.send_segment(seq, len as u32, now, out);
            }
        }
        self.held_retx.clear();
        true
    }

    /// The host's NIC queue has room again (`LocalDrop::Hold`): send what waited.
    pub fn on_nic_room(&mut self, now: SimTime, out: &mut TcpOut) {
        self.try_send(now, out);
    }

    /// Whether the NIC queue refused a segment during the last call: the flow waits for
    /// room (`LocalDrop::Hold`).
    #[inline]
    pub fn waits_for_nic(&self) -> bool {
        self.nic_full
    }

    /// One of this flow's data packets was dropped by its host's own NIC queue
    /// (`LocalDrop`).
    pub fn on_local_drop(&mut self, now: SimTime) {
        if self.p.local_drop == super::LocalDrop::Cwr {
            self.enter_cwr(now);
        }
    }

    /// The NIC queue refused a segment this flow was about to send (`LocalDrop::Hold`):
    /// counted, the window reduced once (Linux `tcp_enter_cwr`), the flow waits for room.
    #[cold]
    pub(super) fn on_nic_full(&mut self, now: SimTime) {
        self.stats.nic_refusals += 1;
        self.nic_full = true;
        self.enter_cwr(now);
    }

    /// Linux `tcp_enter_cwr` for local congestion: ssthresh from the congestion control
    /// and the window down to it, at most once per window of data, outside loss recovery.
    pub(super) fn enter_cwr(&mut self, now: SimTime) {
        if self.state != SenderState::Established {
            return;
        }
        if self.rec.in_recovery() || self.snd_una <= self.local_recover {
            return;
        }
        self.stats.local_cwr += 1;
        // Linux's tcp_enter_cwr asks the congestion control's ssthresh, from cwnd; the
        // older "cwr" reaction here took FlightSize
        let flight = if self.p.local_drop == super::LocalDrop::Hold { self.cc_state.cwnd } else { self.flight() };
        let ss = self.reduced_ssthresh(flight, CongestionEvent::Ecn, now);
        self.cc_state.ssthresh = ss;
        self.cc_state.cwnd = ss.max(1.0).min(self.cc_state.cwnd);
        self.local_recover = self.snd_max;
    }
}
