//! The TCP receiver: SYN-ACK, cumulative ACKs with an out-of-order list, optional
//! delayed ACK (RFC 1122 section 4.2.3.2, RFC 5681 section 4.2: every second full
//! segment or after a timeout; immediately for out-of-order data or when a hole fills),
//! and the ECN receiver (RFC 3168 section 6.1.3: ECE on every ACK from a CE until CWR).
//!
//! Timestamps: an ACK echoes the send time of the data packet that triggered it, unless
//! that packet was a retransmission (Karn's rule, RFC 6298 section 3).

use super::{Flow, TcpOut};
use crate::packet::{flags, Packet};
use crate::time::SimTime;

impl Flow {
    /// A SYN or data packet reached the receiver.
    pub fn on_data(&mut self, pkt: &Packet, now: SimTime, out: &mut TcpOut) {
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
        // RFC 3168 6.1.3: CWR stops ECE, a CE (in this same packet too) starts it again.
        if pkt.has(flags::CWR) {
            self.ece_pending = false;
        }
        if pkt.has(flags::CE) {
            self.ece_pending = true;
        }
        let seq = pkt.seq;
        let end = seq + pkt.payload as u64;
        let immediate = if end <= self.rcv_nxt {
            true // duplicate
        } else if seq <= self.rcv_nxt {
            let had_holes = !self.ooo.is_empty();
            self.rcv_nxt = end;
            // merge buffered ranges now contiguous (the list is sorted and disjoint)
            let mut k = 0;
            while k < self.ooo.len() && self.ooo[k].0 <= self.rcv_nxt {
                self.rcv_nxt = self.rcv_nxt.max(self.ooo[k].1);
                k += 1;
            }
            self.ooo.drain(..k);
            had_holes // a hole filled: ACK at once
        } else {
            self.insert_ooo(seq, end);
            true // out of order
        };
        self.stats.bytes_received = self.rcv_nxt - 1;
        if self.rcv_nxt >= self.end_seq() && self.stats.end.is_none() {
            self.stats.end = Some(now);
        }
        let ts = if pkt.has(flags::RETX) { None } else { Some(pkt.ts) };
        if !self.p.delayed_ack || immediate || pkt.has(flags::FIN) {
            self.delack_ts = ts;
            self.send_ack(now, out);
            return;
        }
        if self.delack_pending == 0 {
            self.delack_ts = ts; // echo the earliest unacknowledged segment (RFC 7323 4.3)
        }
        self.delack_pending += 1;
        if self.delack_pending >= 2 {
            self.send_ack(now, out);
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.p.delack_timeout);
        }
    }

    fn insert_ooo(&mut self, seq: u64, end: u64) {
        let i = self.ooo.partition_point(|r| r.1 < seq);
        if i < self.ooo.len() && self.ooo[i].0 <= end {
            // overlaps or touches range i: extend it and swallow followers
            self.ooo[i].0 = self.ooo[i].0.min(seq);
            self.ooo[i].1 = self.ooo[i].1.max(end);
            while i + 1 < self.ooo.len() && self.ooo[i + 1].0 <= self.ooo[i].1 {
                self.ooo[i].1 = self.ooo[i].1.max(self.ooo[i + 1].1);
                self.ooo.remove(i + 1);
            }
        } else {
            self.ooo.insert(i, (seq, end));
        }
    }

    pub(crate) fn send_ack(&mut self, now: SimTime, out: &mut TcpOut) {
        let mut f = flags::ACK;
        if self.ece_pending {
            f |= flags::ECE;
        }
        let mut a = self.make_pkt(self.rev, f, 0, 0, now);
        a.ack = self.rcv_nxt;
        if let Some(ts) = self.delack_ts.take() {
            a.ts_echo = ts;
            a.flags |= flags::TSV;
        }
        out.pkts.push(a);
        self.delack_pending = 0;
        self.delack_deadline = None;
    }
}
