//! TCP Small Queues (Linux net/ipv4/tcp_output.c, `tcp_small_queue_check`, since 3.6;
//! Dumazet, "tcp: TCP Small Queues", 2012): a flow keeps only a little of its data below
//! the socket, in the host's qdisc and NIC, so that the queue there stays short and
//! other flows (and the flow's own ACK clock) are not stuck behind a window's worth of
//! its packets.
//!
//! Linux counts the bytes of the flow's packets not yet freed by the NIC's TX completion
//! (`sk_wmem_alloc`) and stops sending while they exceed
//! `max(2 x skb truesize, sk_pacing_rate >> sk_pacing_shift)`, the second term about 1 ms
//! at the flow's rate (pacing shift 10: rate / 1024), capped by
//! net.ipv4.tcp_limit_output_bytes for a flow not paced by fq; twice that for a
//! retransmission (`tcp_xmit_retransmit_queue` passes factor 1). The pacing rate is
//! `tcp_update_pacing_rate`'s: max(cwnd, packets out) x MSS / SRTT x 200 % in slow start
//! (cwnd < ssthresh / 2), x 120 % after. A flow with at most one segment unacknowledged
//! always sends (`tcp_rtx_queue_empty_or_single_skb`). The TX completion wakes the flow
//! (`tcp_tsq_handler`).
//!
//! Here: the bytes are the packets' wire sizes and a packet "leaves" when the host link
//! has serialised it (the link computes that time when the packet is enqueued, so the
//! flow keeps the times of its own packets and needs no hook on the link). A packet goes
//! only while the bytes below the socket stay within the limit, so at a low rate a flow
//! holds at most 2 packets there (Linux, checking before it adds the packet and counting
//! truesize, allows one more).

use std::collections::VecDeque;

use crate::core::time::SimTime;

/// Linux's net.ipv4.tcp_limit_output_bytes default (Documentation/networking/ip-sysctl:
/// 1 MiB in Linux 5.x).
pub const LIMIT_OUTPUT_BYTES: u64 = 1 << 20;

/// A flow's data below the socket.
#[derive(Debug, Default)]
pub struct SmallQueues {
    /// net.ipv4.tcp_limit_output_bytes.
    pub limit_output: u64,
    /// The flow's packets in the host link's queue or being serialised: (the time the
    /// link finishes serialising it, wire bytes), in send order.
    below: VecDeque<(SimTime, u32)>,
    bytes: u64,
    /// The last send loop stopped at the limit: the simulator arms the flow's send timer
    /// for the first TX completion once it has recorded this call's packets.
    pub throttled: bool,
}

impl SmallQueues {
    pub fn new(limit_output: u64) -> SmallQueues {
        SmallQueues { limit_output, ..SmallQueues::default() }
    }

    /// Forgets the packets the link has finished with by `now`.
    fn complete(&mut self, now: SimTime) {
        while let Some(&(t, b)) = self.below.front() {
            if t > now {
                break;
            }
            self.below.pop_front();
            self.bytes -= b as u64;
        }
    }

    /// The limit in bytes for a flow at `rate_bps` bytes per second (None: no RTT sample
    /// yet, Linux's pacing rate is then unbounded) whose full packets are `pkt` bytes.
    pub fn limit(&self, rate: Option<f64>, pkt: u64, retx: bool) -> u64 {
        let at_rate = rate.map_or(u64::MAX, |r| (r / 1024.0) as u64);
        let l = (2 * pkt).max(at_rate).min(self.limit_output);
        if retx {
            l.saturating_mul(2)
        } else {
            l
        }
    }

    /// Whether a packet of `size` bytes must wait, with `pending` bytes already sent by
    /// this call (not yet recorded) and `limit` from `limit`. Sets `throttled` when so.
    pub fn blocks(&mut self, now: SimTime, pending: u64, size: u64, limit: u64) -> bool {
        self.complete(now);
        let queued = self.bytes + pending;
        let blocked = queued > 0 && queued + size > limit;
        self.throttled |= blocked;
        blocked
    }

    /// A packet of `bytes` the host link will have serialised at `done`.
    pub fn record(&mut self, done: SimTime, bytes: u32) {
        self.below.push_back((done, bytes));
        self.bytes += bytes as u64;
    }

    /// The first TX completion still to come (the wake-up of a throttled flow).
    pub fn next_completion(&self) -> Option<SimTime> {
        self.below.front().map(|&(t, _)| t)
    }

    /// Bytes below the socket at `now`.
    pub fn queued(&mut self, now: SimTime) -> u64 {
        self.complete(now);
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The limit by hand, 1500 B packets: 2 packets = 3,000 B; at 292,000 B/s (cwnd 10
    /// in slow start, 200 %, over 100 ms: 2 x 10 x 1460 / 0.1) the 1 ms term is
    /// 292,000 / 1024 = 285 B, so 3,000; at 29.2 MB/s (cwnd 100 over 10 ms) it is
    /// 28,515 B; at 2 GB/s the cap, 1 MiB; no RTT sample: the cap; a retransmission
    /// twice the limit.
    #[test]
    fn limit_by_hand() {
        let q = SmallQueues::new(LIMIT_OUTPUT_BYTES);
        assert_eq!(q.limit(Some(292_000.0), 1500, false), 3000);
        assert_eq!(q.limit(Some(29_200_000.0), 1500, false), 28_515);
        assert_eq!(q.limit(Some(2e9), 1500, false), 1 << 20);
        assert_eq!(q.limit(None, 1500, false), 1 << 20);
        assert_eq!(q.limit(Some(292_000.0), 1500, true), 6000);
    }

    /// At a 3,000 B limit: the first packet always goes, the second fits (3,000), the
    /// third waits; after the first leaves (its completion time passes) it goes.
    #[test]
    fn blocks_until_a_completion() {
        let mut q = SmallQueues::new(LIMIT_OUTPUT_BYTES);
        let t = SimTime::from_us;
        assert!(!q.blocks(t(0), 0, 1500, 3000));
        assert!(!q.blocks(t(0), 1500, 1500, 3000));
        assert!(q.blocks(t(0), 3000, 1500, 3000) && q.throttled);
        q.record(t(1200), 1500);
        q.record(t(2400), 1500);
        assert_eq!(q.next_completion(), Some(t(1200)));
        assert!(q.blocks(t(1199), 0, 1500, 3000));
        assert!(!q.blocks(t(1200), 0, 1500, 3000));
        assert_eq!(q.queued(t(1200)), 1500);
    }
}
