//! The host's NIC as Linux has it (`LocalDrop::Hold`, tcp_write_xmit): a segment the
//! NIC queue refuses stays unsent and its flow waits on that queue's list until a packet
//! there starts service; and TCP Small Queues' TX completions (tcp/tsq.rs).

use super::{nic_room, Ev, Sim};
use crate::core::packet::{FlowId, LinkId, Packet};

impl Sim {
    /// A data packet of a flow with TCP Small Queues: its host link computes, as it
    /// enqueues it, when it will have serialised it (the TX completion that frees it),
    /// and the flow keeps that time (tcp/tsq.rs). A packet the link dropped is not kept.
    #[cold]
    pub(super) fn inject_below_socket(&mut self, f: FlowId, p: Packet) {
        let l = self.routes[self.flows.live_mut(f).fwd as usize][0] as usize;
        let before = self.net.links[l].busy_until();
        let bytes = p.size;
        self.inject(p);
        let done = self.net.links[l].busy_until();
        if done > before {
            if let Some(t) = self.flows.live_mut(f).tsq.as_mut() {
                t.record(done, bytes);
            }
        }
    }

    /// Flow `f`'s NIC queue refused a segment: the refusals are counted on the link, and
    /// the flow goes on that queue's waiting list (once), with a wake-up due when the
    /// queue's next waiting packet starts service.
    #[cold]
    pub(super) fn on_nic_refused(&mut self, f: FlowId) {
        let flow = self.flows.live_mut(f);
        let l = self.routes[flow.fwd as usize][0];
        let new = flow.stats.nic_refusals - flow.nic_refusals_counted;
        flow.nic_refusals_counted = flow.stats.nic_refusals;
        self.net.links[l as usize].stats.refusals += new;
        if flow.nic_parked {
            return;
        }
        flow.nic_parked = true;
        let w = self.nic_waits.entry(l).or_default();
        w.flows.push(f);
        if w.wake_at.is_none() {
            // the refusal came from a full queue, so a packet waits there; were none to
            // wait, the flow would find room at once
            let t = self.net.links[l as usize].next_start().unwrap_or(self.now).max(self.now);
            w.wake_at = Some(t);
            self.events.push(t.ns(), Ev::NicWake(l));
        }
    }

    /// Link `l`'s NIC queue has room again: the flows waiting there send, in the order
    /// they were refused, while it has room; the rest keep their turn.
    #[cold]
    pub(super) fn nic_wake(&mut self, l: LinkId) {
        let now = self.now;
        let Some(w) = self.nic_waits.get_mut(&l) else { return };
        if w.wake_at != Some(now) {
            return;
        }
        w.wake_at = None;
        let mut waiting = std::mem::take(&mut w.flows);
        let mut served = 0;
        while served < waiting.len() {
            let f = waiting[served];
            // a flow retired meanwhile (everything acknowledged) waits for nothing
            let Some(flow) = self.flows.get_mut(f) else {
                served += 1;
                continue;
            };
            let room = nic_room(&mut self.net.links, &self.routes, &self.slab, flow, now);
            if room == 0 {
                break;
            }
            flow.nic_parked = false;
            let mut out = std::mem::take(&mut self.out);
            out.room = room;
            flow.on_nic_room(now, &mut out);
            self.emit(f, out); // parks it again (at the back) if the queue refused again
            served += 1;
        }
        let w = self.nic_waits.entry(l).or_default();
        if served < waiting.len() {
            let later = std::mem::take(&mut w.flows);
            waiting.drain(..served);
            waiting.extend(later);
            w.flows = waiting;
        }
        if !w.flows.is_empty() && w.wake_at.is_none() {
            let t = self.net.links[l as usize].next_start().unwrap_or(now).max(now);
            if t == now && served == 0 {
                // no room and nothing to wait for: the waiters try again on their own
                // (their next ACK or timer)
                for f in std::mem::take(&mut w.flows) {
                    if let Some(flow) = self.flows.get_mut(f) {
                        flow.nic_parked = false;
                    }
                }
                return;
            }
            w.wake_at = Some(t);
            self.events.push(t.ns(), Ev::NicWake(l));
        }
    }
}
