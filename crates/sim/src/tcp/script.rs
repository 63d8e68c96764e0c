//! A scripted TCP flow for tests, in the spirit of quiche's
//! recovery/congestion/test_sender.rs: drive one flow's sender (and, apart, its
//! receiver) without a network: send, acknowledge up to a segment, duplicate ACKs,
//! lose, advance time, expire a timer; then look at the window, the timers and the
//! packets the flow emitted.
//!
//! Segments are numbered from 0: segment k holds bytes [1 + k MSS, 1 + (k+1) MSS)
//! (the SYN takes sequence 0). ACKs echo the timestamp of the segment that triggered
//! them unless it was a retransmission, as the receiver does (Karn's rule, RFC 6298
//! section 3).

use super::cc::{self, CongestionControl};
use super::recovery::LossRecovery;
use super::sack::SackBlock;
use super::timers::TimerKind;
use super::{Flow, TcpOut, TcpParams};
use crate::core::packet::{flags, Packet};
use crate::core::time::SimTime;
use std::collections::HashMap;

/// Route ids of the scripted flow (no routes exist: only their values matter).
const FWD: u32 = 0;
const REV: u32 = 1;

pub struct Script {
    pub flow: Flow,
    pub now: SimTime,
    /// Every packet the sender emitted, in order.
    pub sent: Vec<Packet>,
    /// Send time and retransmission flag of the latest send of each segment, by seq.
    last_send: HashMap<u64, (SimTime, bool)>,
}

impl Script {
    /// A NewReno flow of `size` payload bytes, not yet open.
    pub fn new(p: TcpParams, size: u64) -> Script {
        Script::with_cc(p, cc::by_name("newreno").expect("built-in"), size)
    }

    pub fn with_cc(p: TcpParams, cc: Box<dyn CongestionControl>, size: u64) -> Script {
        Script {
            flow: Flow::new(0, 0, 1, FWD, REV, p, cc, size, SimTime::ZERO),
            now: SimTime::ZERO,
            sent: Vec::new(),
            last_send: HashMap::new(),
        }
    }

    /// Opens the flow, lets `rtt` pass, delivers the SYN-ACK (with ECE when `ecn_ok`)
    /// and returns the first flight of data.
    pub fn established(p: TcpParams, size: u64, rtt: SimTime) -> (Script, Vec<Packet>) {
        let mut s = Script::new(p, size);
        s.open();
        s.advance(rtt);
        let first = s.syn_ack(p.ecn);
        (s, first)
    }

    /// Sequence number of segment `k`.
    pub fn seq(&self, k: u64) -> u64 {
        1 + k * self.flow.p.mss as u64
    }

    /// Segment index of sequence number `seq`.
    pub fn seg(&self, seq: u64) -> u64 {
        (seq - 1) / self.flow.p.mss as u64
    }

    fn record(&mut self, out: TcpOut) -> Vec<Packet> {
        for p in &out.pkts {
            if p.has(flags::DATA) {
                self.last_send.insert(p.seq, (p.ts, p.has(flags::RETX)));
            }
        }
        self.sent.extend_from_slice(&out.pkts);
        out.pkts
    }

    /// The flow starts: returns the SYN.
    pub fn open(&mut self) -> Vec<Packet> {
        let mut out = TcpOut::default();
        self.flow.open(self.now, &mut out);
        self.record(out)
    }

    pub fn advance(&mut self, dt: SimTime) {
        self.now = self.now + dt;
    }

    /// Advances time by `dt`, firing every timer that falls due on the way (as the
    /// simulator would); returns what they sent.
    pub fn advance_firing(&mut self, dt: SimTime) -> Vec<Packet> {
        let until = self.now + dt;
        let mut sent = Vec::new();
        while let Some(d) = self.flow.next_deadline().filter(|&d| d <= until) {
            self.now = self.now.max(d);
            let mut out = TcpOut::default();
            self.flow.on_timer(self.now, &mut out);
            sent.extend(self.record(out));
        }
        self.now = until;
        sent
    }

    /// Delivers the SYN-ACK (echoing the latest SYN's timestamp; ECE when `ece`).
    pub fn syn_ack(&mut self, ece: bool) -> Vec<Packet> {
        let syn_ts = self.sent.iter().rev().find(|p| p.has(flags::SYN)).map_or(SimTime::ZERO, |p| p.ts);
        let mut a = self.flow.make_pkt(REV, flags::SYN | flags::ACK | flags::TSV, 0, 0, self.now);
        a.ack = 1;
        a.ts_echo = syn_ts;
        if ece {
            a.flags |= flags::ECE;
        }
        self.deliver_ack(&a)
    }

    /// A cumulative ACK for everything below `ack` (bytes), built as the receiver would
    /// build it for the segment just below `ack`; `extra` flags (ECE) are added.
    pub fn ack_bytes(&mut self, ack: u64, extra: u16) -> Vec<Packet> {
        let mut a = self.flow.make_pkt(REV, flags::ACK | extra, 0, 0, self.now);
        a.ack = ack;
        let mss = self.flow.p.mss as u64;
        // the segment that triggered this ACK: the one ending at `ack`
        let trigger = if ack > 1 { 1 + (ack - 2) / mss * mss } else { 0 };
        if let Some(&(ts, retx)) = self.last_send.get(&trigger) {
            if !retx {
                a.ts_echo = ts;
                a.flags |= flags::TSV;
            }
        }
        self.deliver_ack(&a)
    }

    /// A cumulative ACK of segments 0..n (every byte below segment n).
    pub fn ack_segs(&mut self, n: u64) -> Vec<Packet> {
        let ack = self.seq(n).min(self.flow.end_seq());
        self.ack_bytes(ack, 0)
    }

    /// `n` duplicate ACKs of the current snd_una (no timestamp: a dupack is triggered by
    /// an out-of-order segment, whose echo the sender never uses for new data).
    pub fn dupacks(&mut self, n: u32) -> Vec<Packet> {
        let mut all = Vec::new();
        for _ in 0..n {
            let mut a = self.flow.make_pkt(REV, flags::ACK, 0, 0, self.now);
            a.ack = self.flow.snd_una;
            all.extend(self.deliver_ack(&a));
        }
        all
    }

    /// Delivers any ACK packet to the sender; returns what it sent in response.
    pub fn deliver_ack(&mut self, a: &Packet) -> Vec<Packet> {
        self.deliver_ack_sack(a, &[])
    }

    /// Delivers an ACK with SACK blocks.
    pub fn deliver_ack_sack(&mut self, a: &Packet, sack: &[SackBlock]) -> Vec<Packet> {
        let mut out = TcpOut::default();
        self.flow.on_ack(a, sack, self.now, &mut out);
        self.record(out)
    }

    /// An ACK of everything below segment `cum` that SACKs the segment ranges `blocks`
    /// ([first, last) segment indices), as the receiver holding them would send it
    /// (timestamp of the segment that triggered it: the last block's last segment).
    pub fn ack_sack(&mut self, cum: u64, blocks: &[(u64, u64)]) -> Vec<Packet> {
        let mut a = self.flow.make_pkt(REV, flags::ACK, 0, 0, self.now);
        a.ack = self.seq(cum).min(self.flow.end_seq());
        let end = self.flow.end_seq();
        let sack: Vec<SackBlock> = blocks
            .iter()
            .map(|&(l, r)| SackBlock { left: self.seq(l).min(end), right: self.seq(r).min(end) })
            .collect();
        self.deliver_ack_sack(&a, &sack)
    }

    /// Moves time to the earliest pending timer and fires it; returns what was sent.
    pub fn expire_timer(&mut self) -> Vec<Packet> {
        let d = self.flow.next_deadline().expect("a timer is pending");
        assert!(d >= self.now, "timer deadline {d} in the past of {}", self.now);
        self.now = d;
        let mut out = TcpOut::default();
        self.flow.on_timer(self.now, &mut out);
        self.record(out)
    }

    /// Delivers a data (or SYN) packet to the receiver; returns the ACKs it sent.
    pub fn deliver_data(&mut self, p: &Packet) -> Vec<Packet> {
        self.deliver_data_sack(p).0
    }

    /// Delivers a data packet; returns the ACKs with the SACK blocks of each (empty when
    /// an ACK carries none).
    pub fn deliver_data_sack(&mut self, p: &Packet) -> (Vec<Packet>, Vec<Vec<SackBlock>>) {
        let mut out = TcpOut::default();
        self.flow.on_data(p, self.now, &mut out);
        let blocks = out
            .pkts
            .iter()
            .map(|a| if a.sack == 0 { Vec::new() } else { out.sacks[a.sack as usize - 1].as_slice().to_vec() })
            .collect();
        (out.pkts, blocks)
    }

    /// Fires the receiver's delayed-ACK timer if it is due by `now`.
    pub fn receiver_timer(&mut self) -> Vec<Packet> {
        let mut out = TcpOut::default();
        if self.flow.timers.get(TimerKind::DelAck).is_some_and(|d| d <= self.now) {
            self.flow.on_timer(self.now, &mut out);
        }
        out.pkts
    }

    // ---- the sender's state
    pub fn cwnd(&self) -> f64 {
        self.flow.cc_state.cwnd
    }
    pub fn ssthresh(&self) -> f64 {
        self.flow.cc_state.ssthresh
    }
    pub fn set_cwnd(&mut self, cwnd: f64, ssthresh: f64) {
        self.flow.cc_state.cwnd = cwnd;
        self.flow.cc_state.ssthresh = ssthresh;
    }
    pub fn snd_una(&self) -> u64 {
        self.flow.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.flow.snd_nxt
    }
    pub fn snd_max(&self) -> u64 {
        self.flow.snd_max
    }
    pub fn recover(&self) -> u64 {
        self.flow.recovery().recovery_point()
    }
    pub fn in_recovery(&self) -> bool {
        self.flow.recovery().in_recovery()
    }
    pub fn dupack_count(&self) -> u32 {
        self.flow.recovery().dupacks()
    }
    pub fn srtt(&self) -> Option<SimTime> {
        self.flow.srtt()
    }
    pub fn rttvar(&self) -> SimTime {
        SimTime(self.flow.rttvar_ns)
    }
    pub fn rto(&self) -> SimTime {
        self.flow.rto
    }
    /// The retransmission timer's deadline (None: not running).
    pub fn rto_deadline(&self) -> Option<SimTime> {
        self.flow.timers.get(TimerKind::Rto)
    }
    /// The loss-recovery piece's own timer (TCP-DCR's tau).
    pub fn recovery_deadline(&self) -> Option<SimTime> {
        self.flow.timers.get(TimerKind::Recovery)
    }
    pub fn delack_deadline(&self) -> Option<SimTime> {
        self.flow.timers.get(TimerKind::DelAck)
    }
    /// RFC 6675 pipe in segments (SACK recovery only).
    pub fn pipe_segs(&self) -> Option<f64> {
        self.flow.recovery().pipe(&self.flow.send_state()).map(|b| b as f64 / self.flow.p.mss as f64)
    }
}

/// Segment indices of the data packets in `pkts`.
pub fn segs(s: &Script, pkts: &[Packet]) -> Vec<u64> {
    pkts.iter().filter(|p| p.has(flags::DATA)).map(|p| s.seg(p.seq)).collect()
}
