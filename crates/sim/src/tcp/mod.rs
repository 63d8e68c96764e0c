//! TCP: one `Flow` holds both ends of a connection (sender in sender.rs, receiver in
//! receiver.rs). Sequence numbers are in bytes; the SYN consumes sequence 0, data starts
//! at 1. Windows are in segments (congestion control in cc/).
//!
//! Sources: RFC 793 (handshake), RFC 5681 (congestion control), RFC 6582 (NewReno),
//! RFC 6298 (RTO), RFC 3168 (ECN), RFC 1122 4.2.3.2 (delayed ACK).
//!
//! Endpoints emit packets into a `TcpOut` and keep their timer deadlines in the flow;
//! the simulator keeps at most one pending timer event per flow (cancel-by-deadline,
//! as htsim's timer scan avoids O(n) cancels).

pub mod cc;
pub mod receiver;
pub mod script;
pub mod sender;

use crate::packet::{FlowId, NodeId, Packet, RouteId};
use crate::time::SimTime;
use cc::{CcState, CongestionControl};

/// Per-flow TCP parameters (SCENARIOS.md "Common defaults").
#[derive(Clone, Copy, Debug)]
pub struct TcpParams {
    /// Maximum segment size, bytes of payload.
    pub mss: u32,
    /// IP + TCP header bytes added to every packet (40).
    pub header: u32,
    pub init_cwnd: f64,
    pub max_cwnd: f64,
    pub min_rto: SimTime,
    pub max_rto: SimTime,
    pub init_rto: SimTime,
    /// Clock granularity G of RFC 6298 section 2.
    pub granularity: SimTime,
    pub dupack_threshold: u32,
    pub delayed_ack: bool,
    pub delack_timeout: SimTime,
    pub ecn: bool,
    /// Super-packet sending (seeds/000 section 2.3).
    pub sp: SpMode,
    /// What a super-packet sender does when its super-packet is denied.
    pub sp_on_denial: SpDenial,
    /// RFC 3042 limited transmit: one new segment on each of the first two duplicate
    /// ACKs. Off by default (SCENARIOS.md follows the papers' ns-2 NewReno, which has none).
    pub limited_transmit: bool,
    /// RTT samples rounded to whole ticks and RTO rounded up to them (ns-2's tcpTick_;
    /// the RIO-PS papers use 100 ms). ZERO: no quantisation (default).
    pub rtt_tick: SimTime,
    /// When a backed-off RTO returns to the estimator's value (section 3 of issue 9).
    pub rto_backoff_reset: RtoBackoffReset,
}

/// When the RTO doubled by timeouts (RFC 6298 5.5) is recomputed from SRTT and RTTVAR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoBackoffReset {
    /// RFC 6298 with Karn's algorithm: only a valid RTT sample (an ACK of new data,
    /// never of a retransmission) recomputes it. The default.
    RttSample,
    /// ns-3 (and Linux with timestamps, which samples retransmissions): every ACK of new
    /// data recomputes it, so the back-off is forgotten at once. In the incast fallback,
    /// where a flow retransmits every byte, this decides whether its second timeout comes
    /// one backed-off RTO (400 ms) or one plain RTO (200 ms) after the first.
    NewAck,
}

/// How a sender uses super-packets (seeds/000 section 2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpMode {
    Off,
    /// The whole flow is one super-packet (short flows, sections 4.2-4.3).
    Flow,
    /// Each run of `len` consecutive packets is one super-packet (section 4.4 `sp`).
    Runs(u16),
}

/// Reaction to a denied super-packet (section 2.3, SCENARIOS.md incast variants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpDenial {
    /// The paper's implementation: time out, then fall back to plain NewReno.
    Fallback,
    /// The paper's ideal: after the timeout resend as a new super-packet with the initial
    /// cwnd, up to `attempts` sends in all, then fall back.
    Retry { attempts: u8 },
}

impl Default for TcpParams {
    fn default() -> Self {
        TcpParams {
            mss: 1460,
            header: 40,
            init_cwnd: 10.0,
            max_cwnd: f64::INFINITY,
            min_rto: SimTime::from_ms(200),
            max_rto: SimTime::from_secs(60),
            init_rto: SimTime::from_secs(1),
            granularity: SimTime::from_ms(1),
            dupack_threshold: 3,
            delayed_ack: false,
            delack_timeout: SimTime::from_ms(200),
            ecn: false,
            sp: SpMode::Off,
            sp_on_denial: SpDenial::Fallback,
            limited_transmit: false,
            rtt_tick: SimTime::ZERO,
            rto_backoff_reset: RtoBackoffReset::RttSample,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderState {
    /// Not started yet.
    Closed,
    SynSent,
    Established,
    /// Every byte acknowledged.
    Done,
}

/// Per-flow counters; the flow table of the results.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowStats {
    /// Packets this flow put into the network, both directions (data, SYN, ACKs).
    pub pkts_sent: u64,
    /// Packets of this flow that reached their endpoint.
    pub pkts_delivered: u64,
    /// Packets of this flow dropped anywhere.
    pub pkts_dropped: u64,
    pub data_pkts_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
    /// Super-packets this flow sent (first packets of new super-packets).
    pub sp_sent: u64,
    /// Super-packets judged denied (RTO with nothing of them acknowledged).
    pub sp_denied: u64,
    /// The flow gave up on super-packets and fell back to normal packets.
    pub sp_fell_back: bool,
    /// In-order payload bytes held by the receiver.
    pub bytes_received: u64,
    /// When the receiver held every byte (FCT end).
    pub end: Option<SimTime>,
    /// When the sender saw every byte acknowledged.
    pub sender_done: Option<SimTime>,
    /// RTT samples taken and their sum (for the mean RTT column).
    pub rtt_samples: u64,
    pub rtt_sum_ns: u128,
}

/// Packets an endpoint emits during one call.
#[derive(Default)]
pub struct TcpOut {
    pub pkts: Vec<Packet>,
}

pub struct Flow {
    pub id: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    pub fwd: RouteId,
    pub rev: RouteId,
    pub p: TcpParams,
    /// Payload bytes to transfer (u64::MAX / 4 for a long-lived flow).
    pub size: u64,
    pub start: SimTime,
    pub stats: FlowStats,
    // ---- sender (sender.rs)
    pub state: SenderState,
    pub(crate) snd_una: u64,
    pub(crate) snd_nxt: u64,
    pub(crate) snd_max: u64,
    pub(crate) recover: u64,
    pub(crate) in_recovery: bool,
    pub(crate) partial_seen: bool,
    pub(crate) dupacks: u32,
    pub cc_state: CcState,
    pub(crate) cc: Box<dyn CongestionControl>,
    pub(crate) srtt_ns: Option<u64>,
    pub(crate) rttvar_ns: u64,
    pub(crate) rto: SimTime,
    pub(crate) syn_retx: bool,
    pub(crate) ecn_ok: bool,
    pub(crate) ecn_recover: u64,
    pub(crate) cwr_pending: bool,
    pub(crate) rto_deadline: Option<SimTime>,
    /// snd_una when the retransmission timer last fired (0: never): a second timeout of
    /// the same segment keeps ssthresh (RFC 5681 3.1, after eq. 4).
    pub(crate) rto_una: u64,
    /// Segments sent by limited transmit since the last ACK that advanced snd_una.
    pub(crate) lt_sent: u32,
    /// Still sending super-packets (cleared by a fallback).
    pub(crate) sp_active: bool,
    /// Current super-packet id (Flow mode) / id of run 0 (Runs mode).
    pub(crate) sp_sid: u32,
    /// First sequence number of the current super-packet (Flow mode).
    pub(crate) sp_start: u64,
    /// Super-packet sends so far (Flow mode).
    pub(crate) sp_attempts: u8,
    /// Runs mode: the run being sent as a super-packet (None: runs go as normal packets).
    pub(crate) sp_run: Option<u64>,
    /// Flow mode: sequence numbers from here on have not been sent in this attempt yet
    /// (a second send of the same bytes in one attempt is a stripped retransmission).
    pub(crate) sp_mark_from: u64,
    // ---- receiver (receiver.rs)
    pub(crate) rcv_nxt: u64,
    pub(crate) ooo: Vec<(u64, u64)>,
    pub(crate) ece_pending: bool,
    pub(crate) delack_pending: u32,
    pub(crate) delack_ts: Option<SimTime>,
    pub(crate) delack_deadline: Option<SimTime>,
    // ---- timer plumbing (sim.rs)
    pub(crate) timer_at: Option<SimTime>,
    /// The generator that opened this flow (sim.rs tells it when the flow completes).
    pub(crate) owner: Option<u32>,
}

/// Long-lived ("bulk") flows never run out of data.
pub const UNLIMITED: u64 = u64::MAX / 4;

impl Flow {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: FlowId,
        src: NodeId,
        dst: NodeId,
        fwd: RouteId,
        rev: RouteId,
        p: TcpParams,
        cc: Box<dyn CongestionControl>,
        size: u64,
        start: SimTime,
    ) -> Flow {
        Flow {
            id,
            src,
            dst,
            fwd,
            rev,
            p,
            size,
            start,
            stats: FlowStats::default(),
            state: SenderState::Closed,
            snd_una: 1,
            snd_nxt: 1,
            snd_max: 1,
            recover: 0,
            in_recovery: false,
            partial_seen: false,
            dupacks: 0,
            cc_state: CcState { cwnd: p.init_cwnd, ssthresh: f64::INFINITY, max_cwnd: p.max_cwnd },
            cc,
            srtt_ns: None,
            rttvar_ns: 0,
            rto: p.init_rto,
            syn_retx: false,
            ecn_ok: false,
            ecn_recover: 0,
            cwr_pending: false,
            rto_deadline: None,
            rto_una: 0,
            lt_sent: 0,
            sp_active: p.sp != SpMode::Off,
            // unique per (src, dst): the flow id in the high bits
            sp_sid: id.wrapping_mul(1 << 16),
            sp_start: 1,
            sp_attempts: 1,
            sp_run: None,
            sp_mark_from: 1,
            rcv_nxt: 1,
            ooo: Vec::new(),
            ece_pending: false,
            delack_pending: 0,
            delack_ts: None,
            delack_deadline: None,
            timer_at: None,
            owner: None,
        }
    }

    /// One past the last data byte.
    #[inline]
    pub fn end_seq(&self) -> u64 {
        1 + self.size
    }

    pub fn is_bulk(&self) -> bool {
        self.size >= UNLIMITED
    }

    /// Earliest pending timer deadline of either end.
    #[inline]
    pub fn next_deadline(&self) -> Option<SimTime> {
        match (self.rto_deadline, self.delack_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, None) => a,
            (None, b) => b,
        }
    }

    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }

    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt_ns.map(SimTime)
    }

    pub fn rto(&self) -> SimTime {
        self.rto
    }

    /// Flow completion time (SCENARIOS.md: SYN sent until the receiver holds every byte).
    pub fn fct(&self) -> Option<SimTime> {
        self.stats.end.map(|e| e - self.start)
    }

    /// Fires the timers that are due at `now`.
    pub fn on_timer(&mut self, now: SimTime, out: &mut TcpOut) {
        if self.delack_deadline.is_some_and(|d| d <= now) {
            self.delack_deadline = None;
            self.send_ack(now, out);
        }
        if self.rto_deadline.is_some_and(|d| d <= now) {
            self.rto_deadline = None;
            self.on_rto(now, out);
        }
    }

    pub(crate) fn make_pkt(&self, route: RouteId, flags: u16, seq: u64, payload: u32, now: SimTime) -> Packet {
        Packet {
            seq,
            ack: 0,
            ts: now,
            ts_echo: SimTime::ZERO,
            flow: self.id,
            route,
            size: payload + self.p.header,
            payload,
            flags,
            hop: 0,
            sp: None,
            src: self.src,
            dst: self.dst,
        }
    }
}
