//! Traffic that is not one TCP flow's own: generators that open flows as the run goes
//! (traffic/), and non-TCP sources (cbr, on-off, MBS probes, attackers) with their
//! packets' delivery.

use super::{Ev, Sim};
use crate::core::packet::{flags, Packet};
use crate::traffic::raw::{RawPkt, RawSource};
use crate::traffic::Generator;

impl Sim {
    pub fn add_generator(&mut self, mut g: Generator) {
        let first = g.first_arrival();
        let id = self.gens.len() as u32;
        self.gens.push(g);
        if let Some(t) = first {
            self.events.push(t.ns(), Ev::Gen(id));
        }
    }

    /// Adds a non-TCP source; its first event is its own (`Stream::first`, a probe's start).
    pub fn add_source(&mut self, mut s: RawSource) {
        let first = s.kind.first(&mut s.rng);
        let id = self.sources.len() as u32;
        s.wake_at = first;
        self.sources.push(s);
        if let Some(t) = first {
            self.events.push(t.max(self.now).ns(), Ev::Source(id));
        }
    }

    /// A flow generator `g` opened completed at `now`: a closed-loop source opens its
    /// next one. Out of line: a generator's call is through its trait object, and the
    /// per-ACK path that calls this (sim.rs) is the run's hottest.
    #[inline(never)]
    pub(super) fn generator_flow_done(&mut self, g: u32, now: crate::core::time::SimTime) {
        if let Some(spec) = self.gens[g as usize].on_flow_done(now) {
            self.open_generated(g, spec);
        }
    }

    #[inline(never)]
    pub(super) fn generator_fire(&mut self, g: u32) {
        let now = self.now;
        let (spec, next) = self.gens[g as usize].fire(now);
        if let Some(spec) = spec {
            self.open_generated(g, spec);
        }
        if let Some(t) = next {
            self.events.push(t.ns(), Ev::Gen(g));
        }
    }

    /// A source's event: a packet time (stream, probe train) or a probe's decision.
    #[inline(never)]
    pub(super) fn source_fire(&mut self, s: u32) {
        let now = self.now;
        let src = &mut self.sources[s as usize];
        if src.wake_at != Some(now) {
            return; // superseded
        }
        let (pkt, next) = src.kind.fire(now, src.stats.pkts_sent, &mut src.rng);
        src.wake_at = next;
        if let Some(t) = src.wake_at {
            self.events.push(t.ns(), Ev::Source(s));
        }
        if let Some(RawPkt { train, seq, bytes: size, claimed_src, sp }) = pkt {
            let src = &mut self.sources[s as usize];
            src.stats.pkts_sent += 1;
            src.stats.bytes_sent += size as u64;
            let mut p = Packet {
                seq,
                ack: train,
                ts: now,
                flow: s,
                route: src.fwd,
                src: src.src,
                dst: src.dst,
                size,
                payload: size.saturating_sub(28), // IPv4 + UDP headers
                flags: flags::RAW,
                ..Packet::default()
            };
            if let Some(a) = claimed_src {
                // an attacker claims any source address (routing uses the route)
                p.src = a;
            }
            p.sp = sp;
            self.inject(p);
        }
    }

    /// A non-TCP packet reached the end of its route: counted; a probe's packet is
    /// reported back (40 B), a report goes to its probe.
    #[inline(never)]
    pub(super) fn raw_deliver(&mut self, pkt: Packet) {
        let now = self.now;
        let s = pkt.flow;
        let src = &mut self.sources[s as usize];
        if pkt.has(flags::ACK) {
            src.stats.replies_delivered += 1;
            if src.kind.wants_reports() {
                let wake = src.kind.on_report(pkt.ack, pkt.ts, pkt.ts_echo, now);
                if let Some(w) = wake.filter(|&w| Some(w) != src.wake_at) {
                    src.wake_at = Some(w);
                    self.events.push(w.max(now).ns(), Ev::Source(s));
                }
            }
            return;
        }
        src.stats.pkts_delivered += 1;
        src.stats.bytes_delivered += pkt.size as u64;
        if src.kind.wants_reports() {
            src.stats.replies_sent += 1;
            let r = Packet {
                seq: pkt.seq,
                ack: pkt.ack,
                ts: now,
                ts_echo: pkt.ts,
                flow: s,
                route: src.rev,
                src: src.dst,
                dst: src.src,
                size: 40,
                payload: 12,
                flags: flags::RAW | flags::ACK,
                ..Packet::default()
            };
            self.inject(r);
        }
    }

    /// Opens a flow generator `g` asked for, now; the flow remembers its generator.
    pub(super) fn open_generated(&mut self, g: u32, spec: crate::traffic::FlowSpec) {
        let cc = spec.cc.build();
        // routes were validated when the generator was added
        if let Ok(f) = self.add_flow(spec.src, spec.dst, spec.params, cc, spec.size, self.now) {
            self.flows.live_mut(f).owner = Some(g);
        }
    }
}
