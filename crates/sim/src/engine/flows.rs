//! The simulator's flows, by `FlowId`: live flows boxed, finished flows as compact rows.
//!
//! A flow is retired when nothing can happen to it any more: the sender saw every byte
//! acknowledged (`SenderState::Done`), the receiver holds every byte, no packet of it is in
//! the network (sent = delivered + dropped, the identity `Sim::check_conservation` checks)
//! and no timer of it is pending. Its row of the flows table then moves to a `DoneFlow` of
//! 80 bytes and its `Flow` (the boxed congestion control, recovery, scheduler, receiver
//! buffers) is freed, so an open-loop workload (web sessions, Poisson arrivals) holds
//! memory for its open flows plus one small row per finished flow, not a whole `Flow`
//! each (issue "Hostile input, bounded resources", section 3). A flow whose counters do
//! not fit the row's narrow fields stays live; nothing about it changes but its memory.
//!
//! Retirement changes no result: a retired flow is never reached by a packet (none is
//! left), a stale timer event of it finds nothing due (as `Flow::on_timer` would), and
//! `record` rebuilds exactly the values the live flow would report.

use crate::core::packet::{FlowId, NodeId};
use crate::core::time::SimTime;
use crate::tcp::{Flow, FlowStats, SenderState, UNLIMITED};

/// One flow's row of the flows table, by value: from the live flow or the compact row.
#[derive(Clone, Copy, Debug)]
pub struct FlowRecord {
    pub id: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// The congestion control's name.
    pub cc: &'static str,
    /// Payload bytes to transfer (`UNLIMITED` for a long-lived flow).
    pub size: u64,
    pub start: SimTime,
    /// cwnd (segments) at the end of the run, or when the flow was retired.
    pub cwnd: f64,
    pub stats: FlowStats,
}

impl FlowRecord {
    pub fn of(f: &Flow) -> FlowRecord {
        FlowRecord {
            id: f.id,
            src: f.src,
            dst: f.dst,
            cc: f.cc_name(),
            size: f.size,
            start: f.start,
            cwnd: f.cc_state.cwnd,
            stats: f.stats,
        }
    }

    pub fn is_bulk(&self) -> bool {
        self.size >= UNLIMITED
    }

    /// Flow completion time (`Flow::fct`).
    pub fn fct(&self) -> Option<SimTime> {
        self.stats.end.map(|e| e - self.start)
    }
}

/// A retired flow's row (80 bytes): times in ns, counters narrowed to what a finished
/// flow of a few thousand packets needs (`DoneFlow::of` refuses a flow that does not fit).
/// Derived on the way back: pkts_sent = delivered + dropped (none left in the network),
/// bytes_received = size (the receiver holds every byte).
#[derive(Clone, Copy, Debug)]
struct DoneFlow {
    start_ns: u64,
    end_ns: u64,
    rtt_sum_ns: u64,
    cwnd: f64,
    size: u32,
    src: NodeId,
    dst: NodeId,
    /// sender_done - end (ns): the last ACK's way back.
    done_after_end_ns: u32,
    pkts_delivered: u16,
    pkts_dropped: u16,
    /// `sender_drops` or, with `HOLDS` set, `nic_refusals` (a flow that has both stays
    /// live: a flow keeps its refused segments or loses them, nearly never both).
    nic: u16,
    data_pkts_sent: u16,
    retransmits: u16,
    timeouts: u16,
    fast_retransmits: u16,
    ecn_reductions: u16,
    local_cwr: u16,
    sp_sent: u16,
    sp_denied: u16,
    ooo_arrivals: u16,
    rtt_samples: u16,
    /// The ideal FCT (`Sim::ideal_fct`), ns.
    ideal_fct_ns: u32,
    /// Index into `Flows::cc_names` (below 64), with the `FELL_BACK` and `HOLDS` bits.
    bits: u8,
}

/// `DoneFlow::bits`: the flow fell back from super-packets.
const FELL_BACK: u8 = 0x40;
/// `DoneFlow::bits`: `nic` counts refusals (held), not drops.
const HOLDS: u8 = 0x80;

impl DoneFlow {
    /// The compact row of a finished flow, or None if a value does not fit it.
    fn of(f: &Flow, cc: u8) -> Option<DoneFlow> {
        let s = &f.stats;
        let n = |x: u64| u16::try_from(x).ok();
        let (end, done) = (s.end?, s.sender_done?);
        if s.bytes_received != f.size || s.pkts_sent != s.pkts_delivered + s.pkts_dropped || done < end {
            return None;
        }
        Some(DoneFlow {
            start_ns: f.start.ns(),
            end_ns: end.ns(),
            rtt_sum_ns: u64::try_from(s.rtt_sum_ns).ok()?,
            cwnd: f.cc_state.cwnd,
            size: u32::try_from(f.size).ok()?,
            src: f.src,
            dst: f.dst,
            done_after_end_ns: u32::try_from(done.ns() - end.ns()).ok()?,
            pkts_delivered: n(s.pkts_delivered)?,
            pkts_dropped: n(s.pkts_dropped)?,
            nic: match (s.sender_drops, s.nic_refusals) {
                (d, 0) => n(d)?,
                (0, r) => n(r)?,
                _ => return None,
            },
            data_pkts_sent: n(s.data_pkts_sent)?,
            retransmits: n(s.retransmits)?,
            timeouts: n(s.timeouts)?,
            fast_retransmits: n(s.fast_retransmits)?,
            ecn_reductions: n(s.ecn_reductions)?,
            local_cwr: n(s.local_cwr)?,
            sp_sent: n(s.sp_sent)?,
            sp_denied: n(s.sp_denied)?,
            ooo_arrivals: n(s.ooo_arrivals)?,
            rtt_samples: n(s.rtt_samples)?,
            ideal_fct_ns: u32::try_from(s.ideal_fct?.ns()).ok()?,
            bits: (cc < FELL_BACK).then_some(cc)?
                | if s.sp_fell_back { FELL_BACK } else { 0 }
                | if s.nic_refusals > 0 { HOLDS } else { 0 },
        })
    }

    fn record(&self, id: FlowId, cc: &'static str) -> FlowRecord {
        let (delivered, dropped) = (self.pkts_delivered as u64, self.pkts_dropped as u64);
        let end = SimTime(self.end_ns);
        FlowRecord {
            id,
            src: self.src,
            dst: self.dst,
            cc,
            size: self.size as u64,
            start: SimTime(self.start_ns),
            cwnd: self.cwnd,
            stats: FlowStats {
                pkts_sent: delivered + dropped,
                pkts_delivered: delivered,
                pkts_dropped: dropped,
                sender_drops: if self.bits & HOLDS == 0 { self.nic as u64 } else { 0 },
                data_pkts_sent: self.data_pkts_sent as u64,
                retransmits: self.retransmits as u64,
                timeouts: self.timeouts as u64,
                fast_retransmits: self.fast_retransmits as u64,
                ecn_reductions: self.ecn_reductions as u64,
                local_cwr: self.local_cwr as u64,
                nic_refusals: if self.bits & HOLDS != 0 { self.nic as u64 } else { 0 },
                sp_sent: self.sp_sent as u64,
                sp_denied: self.sp_denied as u64,
                sp_fell_back: self.bits & FELL_BACK != 0,
                ooo_arrivals: self.ooo_arrivals as u64,
                bytes_received: self.size as u64,
                end: Some(end),
                sender_done: Some(end + SimTime(self.done_after_end_ns as u64)),
                rtt_samples: self.rtt_samples as u64,
                rtt_sum_ns: self.rtt_sum_ns as u128,
                ideal_fct: Some(SimTime(self.ideal_fct_ns as u64)),
            },
        }
    }
}

/// Every flow of a run by `FlowId`: live ones boxed (one pointer per flow in the hot
/// path's array), retired ones as a `DoneFlow` at the same index of `done`.
#[derive(Default)]
pub struct Flows {
    live: Vec<Option<Box<Flow>>>,
    /// Rows of retired flows, by FlowId; placeholders (never read) while a flow is live.
    done: Vec<DoneFlow>,
    cc_names: Vec<&'static str>,
    n_live: usize,
    /// Retirement off: every flow stays live (per-flow series sample every flow).
    keep: bool,
}

const PLACEHOLDER: DoneFlow = DoneFlow {
    start_ns: 0,
    end_ns: 0,
    rtt_sum_ns: 0,
    cwnd: 0.0,
    size: 0,
    src: 0,
    dst: 0,
    done_after_end_ns: 0,
    pkts_delivered: 0,
    pkts_dropped: 0,
    nic: 0,
    data_pkts_sent: 0,
    retransmits: 0,
    timeouts: 0,
    fast_retransmits: 0,
    ecn_reductions: 0,
    local_cwr: 0,
    sp_sent: 0,
    sp_denied: 0,
    ooo_arrivals: 0,
    rtt_samples: 0,
    ideal_fct_ns: 0,
    bits: 0,
};

impl Flows {
    /// Flows added so far, live and retired.
    pub fn len(&self) -> usize {
        self.live.len()
    }

    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    /// Flows holding a whole `Flow` (not retired).
    pub fn live_count(&self) -> usize {
        self.n_live
    }

    /// Bytes of the retired rows and of the per-flow slots, as allocated.
    pub fn table_bytes(&self) -> usize {
        self.done.capacity() * std::mem::size_of::<DoneFlow>()
            + self.live.capacity() * std::mem::size_of::<Option<Box<Flow>>>()
    }

    pub(crate) fn push(&mut self, f: Flow) {
        self.live.push(Some(Box::new(f)));
        self.done.push(PLACEHOLDER);
        self.n_live += 1;
    }

    /// Keeps every flow live from now on (`Sim::sample_flows`: the series sample every
    /// flow at every interval, finished or not).
    pub fn keep_all(&mut self) {
        assert_eq!(self.n_live, self.live.len(), "flow sampling turned on after flows were retired");
        self.keep = true;
    }

    /// The live flow `id`, None once retired.
    #[inline(always)]
    pub fn get(&self, id: FlowId) -> Option<&Flow> {
        self.live[id as usize].as_deref()
    }

    #[inline(always)]
    pub fn get_mut(&mut self, id: FlowId) -> Option<&mut Flow> {
        self.live[id as usize].as_deref_mut()
    }

    /// The live flow `id` of a packet, an emission or a timer: a retired flow has none.
    #[inline(always)]
    pub(crate) fn live_mut(&mut self, id: FlowId) -> &mut Flow {
        match self.live[id as usize].as_deref_mut() {
            Some(f) => f,
            None => retired(id),
        }
    }

    /// The live flows, in id order.
    pub fn live(&self) -> impl Iterator<Item = &Flow> {
        self.live.iter().flatten().map(|b| &**b)
    }

    /// Flow `id`'s row, live or retired.
    pub fn record(&self, id: FlowId) -> FlowRecord {
        match &self.live[id as usize] {
            Some(f) => FlowRecord::of(f),
            None => {
                let d = &self.done[id as usize];
                d.record(id, self.cc_names[(d.bits & (FELL_BACK - 1)) as usize])
            }
        }
    }

    /// Every flow's row, in id order.
    pub fn records(&self) -> impl Iterator<Item = FlowRecord> + '_ {
        (0..self.live.len() as FlowId).map(|id| self.record(id))
    }

    /// Retires flow `id` if it is finished (module doc); true if it did. Out of line: the
    /// callers are on the per-packet path.
    #[inline(never)]
    pub(crate) fn retire_if_done(&mut self, id: FlowId) -> bool {
        let Some(f) = self.live[id as usize].as_deref() else { return false };
        if self.keep
            || f.state != SenderState::Done
            || f.stats.end.is_none()
            || f.stats.pkts_sent != f.stats.pkts_delivered + f.stats.pkts_dropped
            || f.next_deadline().is_some()
        {
            return false;
        }
        let name = f.cc_name();
        let cc = match self.cc_names.iter().position(|&n| n == name) {
            Some(k) => k,
            None => {
                self.cc_names.push(name);
                self.cc_names.len() - 1
            }
        };
        let Some(row) = u8::try_from(cc).ok().and_then(|cc| DoneFlow::of(f, cc)) else { return false };
        self.done[id as usize] = row;
        self.live[id as usize] = None;
        self.n_live -= 1;
        true
    }
}

#[cold]
#[inline(never)]
fn retired(id: FlowId) -> ! {
    panic!("flow {id} was retired with a packet in the network")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// riops-web for 60 s (bench.rs, ~25,000 web connections): the flows holding a whole
    /// `Flow` stay as few as the flows still open, at every tenth of the run, while the
    /// finished ones pile up as rows; the results (every table and summary figure) equal
    /// those of the same run with every flow kept whole. Memory, not time: no clock read.
    #[test]
    #[cfg(feature = "bench")]
    fn finished_flows_retire_and_the_results_do_not_change() {
        use crate::output::results::collect;
        use crate::scenario::Scenario;
        let sc = Scenario::from_toml_str(&crate::bench::riops_web_toml(60.0)).expect("scenario");
        let mut sim = sc.build(Some(3)).expect("build");
        let mut kept = sc.build(Some(3)).expect("build");
        kept.flows.keep_all();
        let mut max_live = 0;
        for k in 1..=10 {
            let t = SimTime::from_secs(6 * k);
            sim.run_until(t);
            kept.run_until(t);
            max_live = max_live.max(sim.flows.live_count());
            // each live flow is still open: sending, a packet in the network, a timer pending
            let open = sim
                .flows
                .live()
                .filter(|f| {
                    f.state != SenderState::Done
                        || f.stats.end.is_none()
                        || f.stats.pkts_sent != f.stats.pkts_delivered + f.stats.pkts_dropped
                        || f.next_deadline().is_some()
                })
                .count();
            assert_eq!(open, sim.flows.live_count(), "at {t:?}: finished flows kept whole");
            assert_eq!(kept.flows.live_count(), kept.flows.len());
        }
        let n = sim.flows.len();
        assert!(n > 20_000 && max_live < 1_000, "{n} flows, up to {max_live} live");
        // the rows' heap: a slot and a row per flow, at most doubled by Vec growth
        let per_flow = std::mem::size_of::<DoneFlow>() + std::mem::size_of::<Option<Box<Flow>>>();
        assert!(sim.flows.table_bytes() <= 2 * per_flow * n, "{} bytes", sim.flows.table_bytes());
        sim.check_conservation().expect("conservation");
        let (a, b) = (collect(&sim, "web"), collect(&kept, "web"));
        assert_eq!(a.flows.to_json(), b.flows.to_json());
        assert_eq!(a.links.to_json(), b.links.to_json());
        assert_eq!(serde_json::Value::from(a.summary), serde_json::Value::from(b.summary));
    }

    #[test]
    fn done_row_is_small() {
        assert!(std::mem::size_of::<DoneFlow>() <= 80, "{}", std::mem::size_of::<DoneFlow>());
        assert_eq!(std::mem::size_of::<Option<Box<Flow>>>(), 8);
    }
}
