//! The TCP receiver: SYN-ACK, cumulative ACKs with an out-of-order list, optional
//! delayed ACK (RFC 1122 section 4.2.3.2, RFC 5681 section 4.2: every second full
//! segment or after a timeout; immediately for out-of-order data or when a hole fills),
//! and the ECN receiver in one of two modes (`TcpParams::ece_echo`):
//! - RFC 3168 section 6.1.3: ECE on every ACK from a CE until CWR;
//! - RFC 8257 section 3.2 (DCTCP): ECE echoes CE exactly. The receiver keeps one bit of
//!   state, the CE bit of the last data packet. A packet whose CE bit differs from it
//!   first makes the receiver acknowledge, at once, the packets it holds for a delayed
//!   ACK, with ECE = the old state; then the state flips. Every ACK carries
//!   ECE = the state, so with delayed ACKs each ACK covers packets of one CE state only,
//!   and without them each ACK's ECE is the CE bit of the packet it acknowledges. CWR is
//!   ignored.
//!
//! SACK (RFC 2018 section 4), when the flow uses SACK recovery: every ACK sent while
//! out-of-order data is held carries up to 3 blocks, the first holding the segment that
//! triggered it (tcp/sack.rs `SackReporter`).
//!
//! Timestamps: an ACK echoes the send time of the data packet that triggered it, unless
//! that packet was a retransmission (Karn's rule, RFC 6298 section 3).

use super::recovery::RecoveryKind;
use super::timers::TimerKind;
use super::{EceEcho, Flow, TcpOut};
use crate::core::packet::{flags, Packet};
use crate::core::time::SimTime;

impl Flow {
    /// A SYN or data packet reached the receiver.
    #[inline(always)]
    pub fn on_data(&mut self, pkt: &Packet, now: SimTime, out: &mut TcpOut) {
        if self.p.ack_batch.is_some() && !pkt.has(flags::SYN) {
            self.batch_data(pkt, now, out);
            return;
        }
        self.receive(pkt, now, out);
    }

    /// ACK batching (`TcpParams::ack_batch`): hold the packet; hand the batch to TCP when
    /// it is full (the timer does it otherwise).
    #[inline(never)]
    fn batch_data(&mut self, pkt: &Packet, now: SimTime, out: &mut TcpOut) {
        let b = self.p.ack_batch.expect("ack_batch");
        self.rcv.batch.push(*pkt);
        if self.rcv.batch.len() >= b.pkts as usize {
            self.flush_batch(now, out);
        } else if self.rcv.batch.len() == 1 {
            self.timers.set(TimerKind::RxBatch, now + b.timeout);
        }
    }

    /// Hands every held packet to TCP, in arrival order.
    pub(crate) fn flush_batch(&mut self, now: SimTime, out: &mut TcpOut) {
        self.timers.cancel(TimerKind::RxBatch);
        let mut batch = std::mem::take(&mut self.rcv.batch);
        for p in &batch {
            self.receive(p, now, out);
        }
        batch.clear();
        self.rcv.batch = batch;
    }

    #[inline(always)]
    fn receive(&mut self, pkt: &Packet, now: SimTime, out: &mut TcpOut) {
        if pkt.has(flags::SYN) {
            let mut f = flags::SYN | flags::ACK | flags::TSV;
            if self.p.ecn && pkt.has(flags::ECE) && pkt.has(flags::CWR) {
                f |= flags::ECE; // ECN-setup SYN-ACK
            }
            let mut a = self.make_pkt(self.rev, f, 0, 0, now);
            a.ack = 1;
            a.ts_echo = pkt.ts;
            if pkt.has(flags::RETX) {
                a.flags &= !flags::TSV;
            }
            out.pkts.push(a);
            return;
        }
        match self.p.ece_echo {
            EceEcho::Rfc3168 => {
                // RFC 3168 6.1.3: CWR stops ECE, a CE (in this same packet too) starts it
                // again.
                if pkt.has(flags::CWR) {
                    self.rcv.ece_pending = false;
                }
                if pkt.has(flags::CE) {
                    self.rcv.ece_pending = true;
                }
            }
            EceEcho::Accurate => self.ce_state(pkt.has(flags::CE), now, out),
        }
        let seq = pkt.seq;
        let end = seq + pkt.payload as u64;
        let immediate = if end <= self.rcv.rcv_nxt {
            true // duplicate
        } else if seq <= self.rcv.rcv_nxt {
            let had_holes = !self.rcv.ooo.is_empty();
            self.rcv.rcv_nxt = end;
            // merge buffered ranges now contiguous (the list is sorted and disjoint)
            let mut k = 0;
            while k < self.rcv.ooo.len() && self.rcv.ooo[k].0 <= self.rcv.rcv_nxt {
                self.rcv.rcv_nxt = self.rcv.rcv_nxt.max(self.rcv.ooo[k].1);
                k += 1;
            }
            self.rcv.ooo.drain(..k);
            had_holes // a hole filled: ACK at once
        } else {
            self.stats.ooo_arrivals += 1;
            self.insert_ooo(seq, end);
            self.rcv.sack_trigger = Some((seq, end));
            true // out of order
        };
        self.stats.bytes_received = self.rcv.rcv_nxt - 1;
        if self.rcv.rcv_nxt >= self.end_seq() && self.stats.end.is_none() {
            self.stats.end = Some(now);
        }
        let ts = if pkt.has(flags::RETX) { None } else { Some(pkt.ts) };
        if !self.p.delayed_ack || immediate || pkt.has(flags::FIN) {
            self.rcv.delack_ts = ts;
            self.send_ack(now, out);
            return;
        }
        if self.rcv.delack_pending == 0 {
            self.rcv.delack_ts = ts; // echo the earliest unacknowledged segment (RFC 7323 4.3)
        }
        self.rcv.delack_pending += 1;
        if self.rcv.delack_pending >= 2 {
            self.send_ack(now, out);
        } else {
            self.timers.set_if_idle(TimerKind::DelAck, now + self.p.delack_timeout);
        }
    }

    /// RFC 8257 section 3.2, the two-state machine: on a change of CE state, the packets
    /// held for a delayed ACK are acknowledged at once with the old state's ECE (so the
    /// sender counts their bytes as they were marked), then the state flips.
    #[inline]
    fn ce_state(&mut self, ce: bool, now: SimTime, out: &mut TcpOut) {
        if ce != self.rcv.ece_pending {
            if self.rcv.delack_pending > 0 {
                self.send_ack(now, out);
            }
            self.rcv.ece_pending = ce;
        }
    }

    fn insert_ooo(&mut self, seq: u64, end: u64) {
        let i = self.rcv.ooo.partition_point(|r| r.1 < seq);
        if i < self.rcv.ooo.len() && self.rcv.ooo[i].0 <= end {
            // overlaps or touches range i: extend it and swallow followers
            self.rcv.ooo[i].0 = self.rcv.ooo[i].0.min(seq);
            self.rcv.ooo[i].1 = self.rcv.ooo[i].1.max(end);
            while i + 1 < self.rcv.ooo.len() && self.rcv.ooo[i + 1].0 <= self.rcv.ooo[i].1 {
                self.rcv.ooo[i].1 = self.rcv.ooo[i].1.max(self.rcv.ooo[i + 1].1);
                self.rcv.ooo.remove(i + 1);
            }
        } else {
            self.rcv.ooo.insert(i, (seq, end));
        }
    }

    #[inline(always)]
    pub(crate) fn send_ack(&mut self, now: SimTime, out: &mut TcpOut) {
        let mut f = flags::ACK;
        if self.rcv.ece_pending {
            f |= flags::ECE;
        }
        let mut a = self.make_pkt(self.rev, f, 0, 0, now);
        a.ack = self.rcv.rcv_nxt;
        if let Some(ts) = self.rcv.delack_ts.take() {
            a.ts_echo = ts;
            a.flags |= flags::TSV;
        }
        if self.p.recovery == RecoveryKind::Sack {
            self.attach_sack(&mut a, out);
        }
        out.pkts.push(a);
        self.rcv.delack_pending = 0;
        self.timers.cancel(TimerKind::DelAck);
    }

    /// RFC 2018 section 4: the blocks of this ACK, while out-of-order data is held.
    #[inline(never)]
    fn attach_sack(&mut self, a: &mut Packet, out: &mut TcpOut) {
        let trigger = self.rcv.sack_trigger.take();
        if !self.rcv.ooo.is_empty() {
            let blocks = self.rcv.sack.blocks(&self.rcv.ooo, trigger);
            out.sacks.push(blocks);
            a.sack = out.sacks.len() as u32;
        }
    }
}
