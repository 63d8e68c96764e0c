//! TCP: one `Flow` holds both ends of a connection (sender in sender.rs, receiver in
//! receiver.rs, their state apart). Sequence numbers are in bytes; the SYN consumes
//! sequence 0, data starts at 1. Windows are in segments.
//!
//! Sources: RFC 793 (handshake), RFC 5681 (congestion control), RFC 6582 (NewReno),
//! RFC 2018 and RFC 6675 (SACK), RFC 6298 (RTO), RFC 3168 (ECN), RFC 8257 (DCTCP's ECE
//! echo and window), RFC 3042 (limited transmit), RFC 1122 4.2.3.2 (delayed ACK).
//!
//! The sender is four pieces (../shared/DESIGN.md "TCP sender"), each next algorithm one
//! file in one of them:
//! - congestion control (cc/): the window law, behind `CongestionControl`;
//! - loss detection and recovery (recovery/): NewReno or SACK behind `LossRecovery`,
//!   which a delayed-response wrapper (TCP-DCR) or TCP-NCR can wrap;
//! - the send scheduler (sched.rs): window-limited, paced, or gated per packet;
//! - sender behaviours: super-packet marking (spmark.rs).
//!
//! Timers (timers.rs): one slot per kind, each at most one pending deadline; the
//! simulator keeps at most one pending event per flow (cancel-by-deadline, as htsim's
//! timer scan avoids O(n) cancels). A scripted flow (script.rs) drives all of it in tests.

pub mod cc;
pub mod gate;
pub mod hystart;
pub mod hystart_pp;
pub mod limited_ss;
pub mod local;
pub mod receiver;
pub mod recovery;
pub mod sack;
pub mod sched;
pub mod script;
pub mod sender;
pub mod slow_start;
pub use slow_start::SlowStartExit;
pub mod spmark;
pub mod timers;
pub mod tsq;

use crate::core::packet::{FlowId, NodeId, Packet, RouteId};
use crate::core::time::SimTime;
pub use cc::EceEcho;
use cc::{CcState, CongestionControl};
use recovery::{Decisions, LossRecovery, Recovery, RecoveryKind, Reordering};
use sack::{SackBlocks, SackReporter};
use sched::{Pacing, Scheduler};
use spmark::SpMarker;
pub use spmark::{SpDenial, SpMode};
use timers::{TimerKind, Timers};

/// Per-flow TCP parameters. `Default` is a scenario's `[tcp]` defaults, stated in
/// docs/schema.md (generated from it: scenario.rs `tcp_default`); they follow SCENARIOS.md
/// "Common defaults" (the experiments' source, outside this repository).
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
    /// How the receiver echoes CE in ECE: RFC 3168's "until CWR" (default) or DCTCP's
    /// exact echo (RFC 8257 section 3.2). The scenario derives it from the congestion
    /// control (`CcConfig::ece_echo`: DCTCP's sender needs the exact one).
    pub ece_echo: EceEcho,
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
    /// RFC 6298's RTO (min_rto a floor of the whole) or Linux's (a floor of its
    /// variance term).
    pub rto_formula: RtoFormula,
    /// Loss detection and recovery: NewReno (RFC 6582, default) or SACK (RFC 6675).
    pub recovery: RecoveryKind,
    /// Proportional Rate Reduction (RFC 6937, recovery/prr.rs) sets the window during
    /// SACK recovery, as Linux's (since 3.2); off: RFC 6675's cwnd = ssthresh.
    pub prr: bool,
    /// What a retransmission timeout does to the SACK scoreboard (SACK recovery).
    pub sack_after_rto: SackAfterRto,
    /// How slow start may end before the first loss (hystart.rs).
    pub slow_start_exit: SlowStartExit,
    /// The most segments one ACK adds in slow start (cc::CcState::abc_limit): 1 as
    /// RFC 5681 (ns-2), unlimited up to ssthresh as Linux's tcp_slow_start.
    pub abc_limit: f64,
    /// The response to reordering wrapped around `recovery`: none, TCP-DCR or TCP-NCR.
    pub reordering: Reordering,
    /// The send scheduler's pacing: off (window-limited, default), a fixed rate, or the
    /// congestion control's rate.
    pub pacing: Pacing,
    /// A per-packet send rule (gate/): paced bursts or the PDA sender.
    pub gate: gate::GateConfig,
    /// How the stack reacts when its own NIC queue drops one of its data packets.
    pub local_drop: LocalDrop,
    /// TCP Small Queues (tsq.rs) with this net.ipv4.tcp_limit_output_bytes; None: off.
    pub tsq: Option<u64>,
    /// Receiver ACK batching (interrupt coalescing): data is handed to TCP in batches.
    pub ack_batch: Option<AckBatch>,
}

/// The host whose TCP a scenario's defaults describe (`[tcp] host`): every field a
/// scenario leaves unset takes this profile's value (`TcpParams::for_host`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostProfile {
    /// Linux's TCP (the default for a scenario): SACK recovery (net.ipv4.tcp_sack = 1)
    /// with PRR (tcp_recovery.c, since 3.2), SACKed data out of the flight before a
    /// recovery (limited transmit: tcp_packets_in_flight), the SACK scoreboard kept
    /// across a timeout (tcp_timeout_mark_lost), Linux's RTO (tcp_set_rto), a segment the
    /// host's NIC refuses held unsent (tcp_write_xmit, `LocalDrop::Hold`), TCP Small
    /// Queues (tcp_small_queue_check, tsq.rs) and HyStart for CUBIC (tcp_cubic.c,
    /// hystart = 1).
    Linux,
    /// ns-2's one-way agents, as the reproduced papers ran them: NewReno recovery (RFC
    /// 6582), RFC 6298's RTO, the scoreboard cleared at a timeout (RFC 2018), no slow-start
    /// exit and no transmit queue of the host's own (a refused segment is lost,
    /// `LocalDrop::Ignore`). `TcpParams::default()`.
    Ns2,
}

impl TcpParams {
    /// The defaults of `host`: `TcpParams::default()` (the ns-2 agents' host) with Linux's
    /// choices over it for `HostProfile::Linux`. HyStart is CUBIC's (the scenario sets it
    /// where the congestion control is "cubic"), so it is not part of this table.
    pub fn for_host(host: HostProfile) -> TcpParams {
        match host {
            HostProfile::Ns2 => TcpParams::default(),
            HostProfile::Linux => TcpParams {
                limited_transmit: true,
                recovery: RecoveryKind::Sack,
                prr: true,
                sack_after_rto: SackAfterRto::Keep,
                rto_formula: RtoFormula::Linux,
                local_drop: LocalDrop::Hold,
                tsq: Some(tsq::LIMIT_OUTPUT_BYTES),
                abc_limit: f64::INFINITY,
                ..TcpParams::default()
            },
        }
    }
}

/// How the retransmission timeout is computed from SRTT and RTTVAR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoFormula {
    /// RFC 6298 2.2-2.4: RTO = max(min_rto, SRTT + max(G, 4 RTTVAR)) (the default here).
    Rfc6298,
    /// Linux (tcp_set_rto): RTO = SRTT + max(G, 4 RTTVAR, min_rto).
    Linux,
}

/// What a retransmission timeout does to the SACKed marks of the scoreboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackAfterRto {
    /// RFC 2018 section 5: the receiver may discard SACKed data, so the sender forgets
    /// it and resends everything from snd_una (the default here).
    Clear,
    /// Linux (tcp_timeout_mark_lost): kept, so go-back-N skips what the receiver holds,
    /// unless the receiver reneged (data SACKed at snd_una, tcp_check_sack_reneging).
    Keep,
}

/// The receiving host hands arriving data to TCP in batches, as a NIC coalescing its
/// interrupts does: a batch is processed when it holds `pkts` packets or `timeout` after
/// its first packet arrived, whichever comes first, and the ACKs it triggers leave back
/// to back (one of the two causes of ACK compression in seeds/003, slide 12: "delay ack
/// disabled, more ack sent back to the sender"; the other is reverse-path queueing).
/// The ACKs echo the data's own send times, so the RTT samples include the hold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckBatch {
    pub pkts: u32,
    pub timeout: SimTime,
}

/// What happens to a data segment the sending host's own NIC queue (txqueuelen) refuses,
/// before any router saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalDrop {
    /// Lost, and the loss is found like any other, by duplicate ACKs, SACK or the RTO
    /// (ns-2's agents, whose hosts have no transmit queue; the default).
    Ignore,
    /// Linux (net/ipv4/tcp_output.c): `tcp_transmit_skb` sees the queue's refusal,
    /// `tcp_enter_cwr` reduces the window once per window of data (as `Cwr`), and
    /// `tcp_write_xmit` stops with the segment still unsent: snd_nxt does not advance and
    /// nothing is lost. The flow sends again when its NIC queue has room (the simulator
    /// wakes it when the queue's next packet starts service). The queue is asked before
    /// the flow sends (`TcpOut::room`: its hard limit, in packets or bytes); a random
    /// early drop of a RED queue at a host stays a loss. Refusals are counted apart from
    /// drops (`FlowStats::nic_refusals`).
    Hold,
    /// Linux 2.6's tcp_transmit_skb: a local congestion return makes the sender enter CWR
    /// (tcp_enter_cwr): ssthresh from the congestion control, the window down to it, at
    /// most once per window of data, outside loss recovery. The dropped packet itself is
    /// left to loss recovery. Linux lowers cwnd gradually during CWR (tcp_cwnd_down);
    /// here at once, as the ECN response.
    Cwr,
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
            ece_echo: EceEcho::Rfc3168,
            sp: SpMode::Off,
            sp_on_denial: SpDenial::Fallback,
            limited_transmit: false,
            rtt_tick: SimTime::ZERO,
            rto_backoff_reset: RtoBackoffReset::RttSample,
            rto_formula: RtoFormula::Rfc6298,
            recovery: RecoveryKind::NewReno,
            prr: false,
            sack_after_rto: SackAfterRto::Clear,
            slow_start_exit: SlowStartExit::None,
            abc_limit: 1.0,
            reordering: Reordering::None,
            pacing: Pacing::Off,
            gate: gate::GateConfig::None,
            local_drop: LocalDrop::Ignore,
            tsq: None,
            ack_batch: None,
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
    /// Of those, data packets dropped by the sending host's own NIC queue (the first link
    /// of the route: txqueuelen), not by a router.
    pub sender_drops: u64,
    pub data_pkts_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
    /// Window reductions for drops at, or refusals by, the host's own NIC queue
    /// (`LocalDrop::Cwr`, `LocalDrop::Hold`).
    pub local_cwr: u64,
    /// Data segments the host's own NIC queue refused and the flow kept unsent, to send
    /// when the queue had room (`LocalDrop::Hold`); neither sent nor dropped.
    pub nic_refusals: u64,
    /// Super-packets this flow sent (first packets of new super-packets).
    pub sp_sent: u64,
    /// Super-packets judged denied (RTO with nothing of them acknowledged).
    pub sp_denied: u64,
    /// The flow gave up on super-packets and fell back to normal packets.
    pub sp_fell_back: bool,
    /// Data segments that reached the receiver above a hole (out of order).
    pub ooo_arrivals: u64,
    /// In-order payload bytes held by the receiver.
    pub bytes_received: u64,
    /// When the receiver held every byte (FCT end).
    pub end: Option<SimTime>,
    /// When the sender saw every byte acknowledged.
    pub sender_done: Option<SimTime>,
    /// RTT samples taken and their sum (for the mean RTT column).
    pub rtt_samples: u64,
    pub rtt_sum_ns: u128,
    /// The flow's FCT alone on the empty network (`Sim::ideal_fct`); None for bulk flows.
    pub ideal_fct: Option<SimTime>,
}

/// Packets an endpoint emits during one call, and the SACK blocks of its ACKs (a packet's
/// `sack` field is 1 + an index into `sacks`; the simulator moves them to its side table).
pub struct TcpOut {
    pub pkts: Vec<Packet>,
    pub sacks: Vec<SackBlocks>,
    /// Data segments the sending host's NIC queue accepts during this call (`LocalDrop::
    /// Hold`: the simulator asks the queue before the call); `u32::MAX`: no limit.
    pub room: u32,
}

impl Default for TcpOut {
    fn default() -> Self {
        TcpOut { pkts: Vec::new(), sacks: Vec::new(), room: u32::MAX }
    }
}

/// The receiver's state (receiver.rs), apart from the sender's.
#[derive(Default)]
pub struct Receiver {
    pub(crate) rcv_nxt: u64,
    /// Out-of-order ranges held, sorted and disjoint, all above rcv_nxt.
    pub(crate) ooo: Vec<(u64, u64)>,
    /// ECE on the next ACK: RFC 3168's "CE seen, no CWR since"; with the RFC 8257 echo,
    /// the CE state (the CE bit of the last data packet).
    pub(crate) ece_pending: bool,
    pub(crate) delack_pending: u32,
    pub(crate) delack_ts: Option<SimTime>,
    /// RFC 2018 section 4: the blocks reported last, for the next ACK.
    pub(crate) sack: SackReporter,
    /// The segment that triggered the ACK being built, if it did not advance rcv_nxt.
    pub(crate) sack_trigger: Option<(u64, u64)>,
    /// Data packets held for the next batch (`TcpParams::ack_batch`).
    pub(crate) batch: Vec<Packet>,
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
    // ---- sender (sender.rs): sequence space, window, RTT estimator, ECN
    pub state: SenderState,
    pub(crate) snd_una: u64,
    pub(crate) snd_nxt: u64,
    pub(crate) snd_max: u64,
    pub cc_state: CcState,
    pub(crate) cc: Box<dyn CongestionControl>,
    /// `cc.per_packet_hooks()`, read once.
    pub(crate) cc_hooks: bool,
    /// `cc.handles_ece()`, read once: the sender calls `cc.on_ecn_ack` per ACK.
    pub(crate) cc_ece: bool,
    /// Loss detection and recovery (recovery/): it reads a `SendState` and answers with
    /// decisions, which the sender applies (sender.rs `apply_decisions`).
    pub(crate) rec: Recovery,
    /// The decisions of the current call, empty between calls (kept for its capacity).
    pub(crate) decisions: Decisions,
    /// Between window and wire (sched.rs).
    pub(crate) sched: Scheduler,
    /// Super-packet marking (spmark.rs).
    pub(crate) sp: SpMarker,
    pub(crate) srtt_ns: Option<u64>,
    pub(crate) rttvar_ns: u64,
    pub(crate) rto: SimTime,
    pub(crate) syn_retx: bool,
    pub(crate) ecn_ok: bool,
    pub(crate) ecn_recover: u64,
    /// snd_max at the last local-drop reduction (once per window).
    pub(crate) local_recover: u64,
    /// The NIC queue refused a segment of the last call (`LocalDrop::Hold`): the flow
    /// waits for room (the simulator reads it after the call and wakes the flow).
    pub(crate) nic_full: bool,
    /// The simulator has put the flow on its NIC's waiting list (engine-owned).
    pub(crate) nic_parked: bool,
    /// `stats.nic_refusals` already credited to the NIC link's counter (engine-owned).
    pub(crate) nic_refusals_counted: u64,
    /// Retransmissions loss recovery decided on that the NIC queue refused, to send first
    /// when it has room (Linux keeps them marked lost in the write queue).
    pub(crate) held_retx: Vec<(u64, u64)>,
    /// The slow-start exit or limit, if any (slow_start.rs).
    pub(crate) slow_start: Option<Box<slow_start::SlowStartMod>>,
    /// TCP Small Queues, if on (tsq.rs).
    pub(crate) tsq: Option<Box<tsq::SmallQueues>>,
    /// The send gate, not the window, stopped the last send loop (sender.rs
    /// `grow_cwnd`: the window does not grow meanwhile).
    pub(crate) gate_limited: bool,
    pub(crate) cwr_pending: bool,
    /// snd_una when the retransmission timer last fired (0: never): a second timeout of
    /// the same segment keeps ssthresh (RFC 5681 3.1, after eq. 4).
    pub(crate) rto_una: u64,
    // ---- receiver (receiver.rs)
    pub(crate) rcv: Receiver,
    // ---- timers of both ends (timers.rs) and their plumbing (sim.rs)
    pub(crate) timers: Timers,
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
            cc_state: CcState {
                cwnd: p.init_cwnd,
                ssthresh: f64::INFINITY,
                max_cwnd: p.max_cwnd,
                abc_limit: p.abc_limit,
            },
            cc_hooks: cc.per_packet_hooks(),
            cc_ece: cc.handles_ece(),
            cc,
            rec: Recovery::build(
                p.recovery,
                p.reordering,
                recovery::RecoveryConfig { prr: p.prr, keep_after_rto: p.sack_after_rto == SackAfterRto::Keep },
            ),
            decisions: Decisions::new(),
            sched: Scheduler::new(p.pacing),
            sp: SpMarker::new(id, p.sp),
            srtt_ns: None,
            rttvar_ns: 0,
            rto: p.init_rto,
            syn_retx: false,
            ecn_ok: false,
            ecn_recover: 0,
            local_recover: 0,
            nic_full: false,
            nic_parked: false,
            nic_refusals_counted: 0,
            held_retx: Vec::new(),
            slow_start: slow_start::SlowStartMod::build(p.slow_start_exit),
            tsq: p.tsq.map(|l| Box::new(tsq::SmallQueues::new(l))),
            gate_limited: false,
            cwr_pending: false,
            rto_una: 0,
            rcv: Receiver { rcv_nxt: 1, ..Receiver::default() },
            timers: Timers::default(),
            timer_at: None,
            owner: None,
        }
    }

    /// The loss-recovery piece.
    #[inline]
    pub fn recovery(&self) -> &Recovery {
        &self.rec
    }

    /// Puts a per-packet sending rule between window and wire (sched.rs).
    pub fn set_send_gate(&mut self, g: Box<dyn sched::SendGate>) {
        self.sched.gate = Some(g);
    }

    /// Arms timer `k` (a recovery wrapper's or a send gate's own timer).
    pub fn set_timer(&mut self, k: TimerKind, t: SimTime) {
        self.timers.set(k, t);
    }

    pub fn cancel_timer(&mut self, k: TimerKind) {
        self.timers.cancel(k);
    }

    /// Replaces the loss-recovery piece (a wrapper such as TCP-DCR around a built-in).
    pub fn set_recovery(&mut self, r: Box<dyn LossRecovery>) {
        self.rec = Recovery::Custom(r);
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
        self.timers.next()
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
        if self.timers.take_due(TimerKind::RxBatch, now) {
            self.flush_batch(now, out);
        }
        if self.timers.take_due(TimerKind::DelAck, now) {
            self.send_ack(now, out);
        }
        if self.timers.take_due(TimerKind::Rto, now) {
            self.on_rto(now, out);
        }
        if self.timers.take_due(TimerKind::Recovery, now) {
            let s = self.send_state();
            self.rec.on_timer(&s, now, &mut self.decisions);
            self.apply_decisions(now, out);
            self.try_send(now, out);
        }
        if self.timers.take_due(TimerKind::Send, now) {
            self.try_send(now, out);
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
            sack: 0,
            src: self.src,
            dst: self.dst,
        }
    }
}
