//! TCP-NCR, Non-Congestion Robustness: RFC 4653 (Experimental, Aug 2006), section 3,
//! checked against draft-ietf-tcpm-tcp-dcr-07 (the same algorithm and section layout)
//! as ../shared/ALGORITHMS.md section 10 states it. The seed's slides (seeds/004) cite
//! RFC 4653; SCENARIOS.md reports it beside TCP-DCR.
//!
//! A wrapper of SACK recovery (RFC 6675; NCR requires SACK): Extended Limited Transmit
//! (ELT) keeps the ACK clock going for about one RTT before a loss is declared.
//! - (I) The first SACK-bearing duplicate ACK (not in recovery) enters ELT:
//!   FlightSizePrev = FlightSize, Skipped = 0, DupThresh = max(LT_F x FlightSize/SMSS, 3).
//! - (E) Per SACK-bearing ACK: SetPipe() with the current DupThresh; while
//!   pipe + Skipped <= FlightSizePrev - SMSS send one new segment (pipe += SMSS; Careful:
//!   Skipped += SMSS); then DupThresh = max(LT_F x FlightSize/SMSS, 3) with the ELT sends
//!   in FlightSize.
//! - (T) An ACK that advances the cumulative point ends ELT: cwnd = min(FlightSize +
//!   SMSS, FlightSizePrev), ssthresh = FlightSizePrev; if it carries SACK blocks ELT
//!   restarts (I.2, I.3, not I.1).
//! - Section 3.4: when RFC 6675 declares a loss (DupAcks >= DupThresh or IsLost()) ELT
//!   ends and the response is relative to FlightSizePrev (ssthresh = cwnd =
//!   FlightSizePrev / 2 with the NewReno window law); DupThresh stays frozen until
//!   recovery ends.
//!
//! Choices where the RFC is silent (ALGORITHMS.md 10, 15.9), each [X]:
//! - DupThresh is rounded up, so the count trigger and the IsLost() trigger agree;
//! - the loss test of an ACK uses the DupThresh of the previous ACK's step E.6 (RFC 6675
//!   decides loss when the duplicate ACK arrives), then the E steps run;
//! - an RTO during ELT ends it; ssthresh comes from min(FlightSize, FlightSizePrev) and
//!   DupThresh returns to 3;
//! - the Careful variant is the default (LT_F = 2/3: one new segment per two SACKed,
//!   halving the rate at once); `variant = "aggressive"` is LT_F = 1/2, one per SACKed.

use super::piece::{AckInfo, AckVerdict, Decision, Decisions, LossRecovery, SendState};
use crate::core::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NcrVariant {
    /// Careful Limited Transmit, LT_F = 2/3.
    Careful,
    /// Aggressive Limited Transmit, LT_F = 1/2.
    Aggressive,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NcrConfig {
    pub variant: NcrVariant,
}

impl Default for NcrConfig {
    fn default() -> Self {
        NcrConfig { variant: NcrVariant::Careful }
    }
}

pub struct Ncr {
    /// The built-in piece wrapped (NewReno or SACK).
    inner: Box<dyn LossRecovery>,
    cfg: NcrConfig,
    /// In Extended Limited Transmit.
    elt: bool,
    /// FlightSizePrev, bytes.
    fs_prev: u64,
    /// Skipped, bytes (Careful only).
    skipped: u64,
    /// snd_una as of the last ACK (FlightSize of step E.6 after that ACK's sends).
    last_una: u64,
    /// The DupThresh in force (0: the flow's own).
    thresh: u32,
    /// FlightSizePrev in segments while ELT runs: the response's FlightSize (3.4).
    response: Option<f64>,
}

impl Ncr {
    pub fn new(inner: Box<dyn LossRecovery>, cfg: NcrConfig) -> Ncr {
        Ncr { inner, cfg, elt: false, fs_prev: 0, skipped: 0, last_una: 0, thresh: 0, response: None }
    }

    /// max(LT_F x FlightSize / SMSS, 3), rounded up (3: the flow's DupThresh).
    fn dupthresh(&self, flight: u64, s: &SendState) -> u32 {
        let t = match self.cfg.variant {
            NcrVariant::Careful => (2 * flight).div_ceil(3 * s.mss),
            NcrVariant::Aggressive => flight.div_ceil(2 * s.mss),
        };
        (t as u32).max(s.dupthresh)
    }

    /// The sender as the inner piece sees it: this DupThresh and FlightSizePrev.
    fn inner_view(&self, s: &SendState) -> SendState {
        let dupthresh = if self.thresh == 0 { s.dupthresh } else { self.thresh };
        SendState { dupthresh, response_flight: self.response, ..*s }
    }

    /// (I.2) and (I.3); I.1 (FlightSizePrev) only when `fresh`.
    fn begin(&mut self, s: &SendState, fresh: bool) {
        if fresh {
            self.fs_prev = s.snd_max - s.snd_una;
        }
        self.elt = true;
        self.skipped = 0;
        self.thresh = self.dupthresh(s.snd_max - s.snd_una, s);
        self.response = Some(self.fs_prev as f64 / s.mss as f64);
    }

    fn end(&mut self) {
        self.elt = false;
        self.response = None;
        self.thresh = 0;
    }
}

impl LossRecovery for Ncr {
    fn name(&self) -> &'static str {
        "ncr"
    }

    fn on_ack(&mut self, s: &SendState, a: &AckInfo, now: SimTime, out: &mut Decisions) -> AckVerdict {
        let mss = s.mss;
        if self.inner.in_recovery() {
            let v = self.inner.on_ack(&self.inner_view(s), a, now, out);
            if !self.inner.in_recovery() {
                self.thresh = 0; // frozen until recovery ends (3.4)
            }
            self.last_una = s.snd_una;
            return v;
        }
        let ended = self.elt && a.newly > 0;
        let mut s = *s;
        if self.elt {
            if a.newly > 0 {
                // (T) the hole filled: reordering. T.1, T.2 (segments)
                let flight = (s.snd_max - s.snd_una) as f64 / mss as f64;
                let prev = self.fs_prev as f64 / mss as f64;
                for d in [Decision::SetCwnd((flight + 1.0).min(prev)), Decision::SetSsthresh(prev)] {
                    s.note(&d);
                    out.push(d);
                }
                self.end();
                if !a.sack.is_empty() && s.snd_max > s.snd_una {
                    self.begin(&s, false); // T.4: I.2 and I.3, not I.1
                }
            } else {
                // E.6 of the previous ACK, with that ACK's sends in FlightSize
                self.thresh = self.dupthresh(s.snd_max - self.last_una, &s);
            }
        } else if !a.sack.is_empty() && s.snd_max > s.snd_una && s.snd_una >= self.inner.recovery_point() {
            self.begin(&s, true); // (I)
        }
        let v = self.inner.on_ack(&self.inner_view(&s), a, now, out);
        self.last_una = s.snd_una;
        if self.inner.in_recovery() {
            // section 3.4: a loss; the response used FlightSizePrev (response_flight)
            self.elt = false;
            self.response = None;
            return v;
        }
        if self.elt || a.newly > 0 && ended {
            // no growth in ELT; T.1 has set cwnd on the ACK that ended it
            return AckVerdict { grow: false, restart_rto: v.restart_rto };
        }
        v
    }

    fn enter_recovery(&mut self, s: &SendState, now: SimTime, out: &mut Decisions) {
        self.inner.enter_recovery(&self.inner_view(s), now, out);
        self.elt = false;
        self.response = None;
    }

    fn on_rto(&mut self, s: &SendState, now: SimTime, out: &mut Decisions) {
        self.end();
        self.inner.on_rto(&self.inner_view(s), now, out);
    }

    fn on_timer(&mut self, s: &SendState, now: SimTime, out: &mut Decisions) {
        self.inner.on_timer(&self.inner_view(s), now, out)
    }

    fn in_recovery(&self) -> bool {
        self.inner.in_recovery()
    }

    fn dupacks(&self) -> u32 {
        self.inner.dupacks()
    }

    fn recovery_point(&self) -> u64 {
        self.inner.recovery_point()
    }

    fn next_segment(&self, s: &SendState, wnd: u64) -> Option<(u64, u64)> {
        let v = self.inner_view(s);
        if !self.elt {
            return self.inner.next_segment(&v, wnd);
        }
        // (E.2): while pipe + Skipped <= FlightSizePrev - SMSS, one new segment
        let mss = s.mss;
        let pipe = self.inner.pipe(&v).unwrap_or(s.snd_max - s.snd_una);
        if s.snd_max >= s.end_seq || pipe + self.skipped + mss > self.fs_prev {
            return None;
        }
        Some((s.snd_max, mss.min(s.end_seq - s.snd_max)))
    }

    fn on_sent(&mut self, snd_max: u64, seq: u64, len: u64) {
        if self.elt && self.cfg.variant == NcrVariant::Careful {
            self.skipped += len; // (E.4)
        }
        self.inner.on_sent(snd_max, seq, len)
    }

    fn pipe(&self, s: &SendState) -> Option<u64> {
        self.inner.pipe(&self.inner_view(s))
    }

    fn sacked_above(&self, s: &SendState) -> bool {
        self.inner.sacked_above(&self.inner_view(s))
    }

    fn sacked_bytes(&self) -> u64 {
        self.inner.sacked_bytes()
    }

    fn response_flight(&self) -> Option<f64> {
        self.response
    }
}
