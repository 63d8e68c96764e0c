//! Super-packet marking, a sender behaviour of its own (seeds/000 sections 2.1-2.3): which
//! segments carry the super-packet header, when a run may start (all its packets must
//! reach the router within an EPOCH, so a run goes only when the window lets it out
//! whole), and what a timeout of a denied super-packet means (fall back to normal
//! packets, or, under the paper's ideal scheme, resend it as a new super-packet).

use crate::core::packet::{FlowId, SpHdr};

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

#[derive(Clone, Copy, Debug)]
pub struct SpMarker {
    pub mode: SpMode,
    /// Still sending super-packets (cleared by a fallback).
    pub(crate) active: bool,
    /// Current super-packet id (Flow mode) / id of run 0 (Runs mode).
    pub(crate) sid: u32,
    /// First sequence number of the current super-packet (Flow mode).
    pub(crate) start: u64,
    /// Super-packet sends so far (Flow mode).
    pub(crate) attempts: u8,
    /// Runs mode: the run being sent as a super-packet (None: runs go as normal packets).
    pub(crate) run: Option<u64>,
    /// Flow mode: sequence numbers from here on have not been sent in this attempt yet
    /// (a second send of the same bytes in one attempt is a stripped retransmission).
    pub(crate) mark_from: u64,
}

/// What the send loop does with the next new segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpGate {
    Send,
    /// A run that the window could hold whole once ACKs arrive: wait for them.
    Wait,
}

/// A timeout's meaning for the super-packet sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpTimeout {
    /// Not a denied super-packet (or not a super-packet sender): the normal RTO.
    Normal,
    /// Denied; the flow falls back to normal packets and the normal RTO.
    FellBack,
    /// Denied; resend the whole super-packet as a new one with the initial window.
    Resend,
}

impl SpMarker {
    pub fn new(id: FlowId, mode: SpMode) -> SpMarker {
        SpMarker {
            mode,
            active: mode != SpMode::Off,
            // unique per (src, dst): the flow id in the high bits
            sid: id.wrapping_mul(1 << 16),
            start: 1,
            attempts: 1,
            run: None,
            mark_from: 1,
        }
    }

    /// Runs mode, before new data at `seq` leaves: section 2.1/3.1, all packets of a
    /// super-packet must reach the router within an EPOCH, so a run goes as a
    /// super-packet only when the window `wnd` (bytes from snd_una) lets the whole run out
    /// now. A window that could hold the run but is busy waits for ACKs; a window smaller
    /// than the run (after a timeout) sends it as normal packets.
    #[inline]
    pub fn gate(&mut self, seq: u64, snd_una: u64, snd_max: u64, end: u64, mss: u64, wnd: u64) -> SpGate {
        let SpMode::Runs(len) = self.mode else { return SpGate::Send };
        if !self.active || seq < snd_max {
            return SpGate::Send;
        }
        let k = (seq - 1) / mss;
        if !k.is_multiple_of(len as u64) || !(seq - 1).is_multiple_of(mss) {
            return SpGate::Send;
        }
        let (run, run_end) = (k / len as u64, (1 + (k + len as u64) * mss).min(end));
        if run_end - snd_una <= wnd {
            self.run = Some(run);
        } else if run_end - seq <= wnd {
            return SpGate::Wait;
        } else {
            self.run = None;
        }
        SpGate::Send
    }

    /// The header of the segment at `seq` of `len` bytes (section 2.1, 2.3): new data of
    /// an active super-packet sender is marked; a retransmission goes as a normal packet
    /// ("we simply strip the packet of its super-packet information"), except the resend
    /// of a whole denied super-packet under the ideal scheme, which is a new super-packet.
    #[inline]
    pub fn header(&mut self, seq: u64, len: u64, snd_max: u64, end: u64, mss: u64) -> Option<SpHdr> {
        if !self.active {
            return None;
        }
        let h = match self.mode {
            SpMode::Off => None,
            SpMode::Flow => {
                // marked on the first send of each byte in this attempt
                if seq < self.mark_from {
                    return None;
                }
                let k = (seq - self.start) / mss;
                let n = (end - self.start).div_ceil(mss);
                Some(SpHdr { sid: self.sid, len: n.min(u16::MAX as u64) as u16, first: k == 0 })
            }
            SpMode::Runs(rl) => {
                let k = (seq - 1) / mss;
                let run = k / rl as u64;
                // new data of the run that the gate let out whole; all else is normal
                if seq < snd_max || self.run != Some(run) {
                    return None;
                }
                let run_start = run * rl as u64;
                let left = (end - 1).div_ceil(mss) - run_start;
                Some(SpHdr {
                    sid: self.sid.wrapping_add(run as u32 & 0xFFFF),
                    len: (rl as u64).min(left) as u16,
                    first: k == run_start,
                })
            }
        };
        if h.is_some() {
            self.mark_from = self.mark_from.max(seq + len);
        }
        h
    }

    /// A timeout with snd_una at `snd_una`: a Flow-mode super-packet with nothing of it
    /// acknowledged was denied (the router drops every packet of a denied super-packet).
    pub fn on_rto(&mut self, snd_una: u64, on_denial: SpDenial, denied: &mut u64, fell_back: &mut bool) -> SpTimeout {
        if !self.active || self.mode != SpMode::Flow || snd_una != self.start {
            return SpTimeout::Normal;
        }
        *denied += 1;
        match on_denial {
            SpDenial::Retry { attempts } if self.attempts < attempts => {
                self.attempts += 1;
                self.sid = self.sid.wrapping_add(1);
                self.mark_from = self.start;
                SpTimeout::Resend
            }
            _ => {
                self.active = false;
                *fell_back = true;
                SpTimeout::FellBack
            }
        }
    }
}
