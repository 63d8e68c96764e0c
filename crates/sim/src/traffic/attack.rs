//! An attacker on the super-packet router's state (Li 2013 section 3.1; SCENARIOS.md
//! "attacks"): a non-TCP source that chooses, per packet, the source address it
//! claims (spoofed), the super-packet header (sid, len, first) and the timing.
//!
//! - `spoof_flood`: first packets (`first` = 1, `len`) from random spoofed sources,
//!   one new (src, dst) pair each: h2 grows (the paper's hash-table attack). With
//!   `aim_slots` > 0 the spoofed sources are chosen so that (src, dst) has the same
//!   home slot as a victim's pair in a table of `aim_slots` slots under the public
//!   all-zero SipHash key: an attacker who knows the router's hash aims at the
//!   victims' probe runs (harmless when the router keys its hash with a secret).
//! - `bloom_pollution`: first packets from the attacker's own address with ever new
//!   sids: every admitted one adds k bits to b2, raising its fill and its
//!   false-positive rate.
//! - `outstanding_drain`: alternately a pollution packet as above and a subsequent
//!   packet (`first` = 0) claiming a victim's (src, dst) with a random sid: a Bloom
//!   false positive on it decrements the victim's outstanding count (A3), so the
//!   victim's own later packets find none left.
//! - `epoch_sync`: whole super-packets (first, then len - 1 subsequent packets) from
//!   the attacker's own address, all sent in one burst at the start of each epoch of
//!   the public grid k x `epoch` (so that their state lives two epochs), at the
//!   line rate of the attacker's link; `rate_pps` x `epoch` packets per burst.
//!
//! Packet k of a steady attack leaves at start + k / rate_pps (CBR).

use crate::core::packet::{NodeId, SpHdr};
use crate::core::rng::Rng;
use crate::core::time::SimTime;

use super::raw::{PacketSource, RawPkt};

/// Which attack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttackMode {
    SpoofFlood,
    BloomPollution,
    OutstandingDrain,
    EpochSync,
}

impl AttackMode {
    pub fn name(self) -> &'static str {
        match self {
            AttackMode::SpoofFlood => "spoof_flood",
            AttackMode::BloomPollution => "bloom_pollution",
            AttackMode::OutstandingDrain => "outstanding_drain",
            AttackMode::EpochSync => "epoch_sync",
        }
    }
}

/// Spoofed node ids live above every real node: 10.128.0.0/9 on the wire.
pub const SPOOF_BASE: NodeId = 0x0080_0000;

/// The attacker's state.
#[derive(Clone, Debug)]
pub struct Attacker {
    pub mode: AttackMode,
    pub rate_pps: f64,
    pub pkt_bytes: u32,
    pub len: u16,
    pub start: SimTime,
    pub stop: SimTime,
    /// The attacker's own node and the destination it attacks.
    pub own: NodeId,
    pub dst: NodeId,
    /// Victim sources whose (src, dst) pairs outstanding_drain claims.
    pub victims: Vec<NodeId>,
    /// Spoofed sources aimed at the victims' home slots (spoof_flood, aim_slots > 0).
    pub aimed: Vec<NodeId>,
    /// epoch_sync: the public epoch grid and the gap between burst packets (ns).
    pub epoch: SimTime,
    pub burst_gap_ns: f64,
    /// Packets sent so far (steady modes) or in the current burst (epoch_sync).
    k: u64,
    /// epoch_sync: start of the current burst.
    burst_start: SimTime,
    next_sid: u32,
}

/// What one attack packet is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttackPkt {
    pub src: NodeId,
    pub sp: SpHdr,
}

impl Attacker {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        mode: AttackMode,
        rate_pps: f64,
        pkt_bytes: u32,
        len: u16,
        start: SimTime,
        stop: SimTime,
        own: NodeId,
        dst: NodeId,
        victims: Vec<NodeId>,
        epoch: SimTime,
        line_bps: f64,
    ) -> Attacker {
        Attacker {
            mode,
            rate_pps,
            pkt_bytes,
            len,
            start,
            stop,
            own,
            dst,
            victims,
            aimed: Vec::new(),
            epoch,
            burst_gap_ns: pkt_bytes as f64 * 8e9 / line_bps,
            k: 0,
            burst_start: start,
            next_sid: 1,
        }
    }

    /// Choose `per_victim` spoofed sources per victim whose (src, dst) pair has the
    /// victim's home slot in a table of `slots` slots under the public zero key.
    pub fn aim(&mut self, slots: u64, per_victim: usize) {
        let key = admission::siphash::SipKey::new([0, 0]);
        let d = crate::core::packet::ipv4_of(self.dst);
        let home = |s: NodeId| admission::siphash::hash_pair(key, crate::core::packet::ipv4_of(s), d) & (slots - 1);
        let mut cand = SPOOF_BASE;
        for &v in &self.victims {
            let h = home(v);
            let mut got = 0;
            while got < per_victim && cand < 0x00FF_FFFF {
                if home(cand) == h {
                    self.aimed.push(cand);
                    got += 1;
                }
                cand += 1;
            }
        }
    }

    /// Packets in one epoch_sync burst.
    fn burst_pkts(&self) -> u64 {
        let sps = (self.rate_pps * self.epoch.as_secs_f64() / self.len as f64).round().max(1.0) as u64;
        sps * self.len as u64
    }

    fn at(&self, k: u64) -> SimTime {
        match self.mode {
            AttackMode::EpochSync => self.burst_start + SimTime((k as f64 * self.burst_gap_ns) as u64),
            _ => self.start + SimTime((k as f64 * 1e9 / self.rate_pps) as u64),
        }
    }

    pub fn first(&mut self) -> Option<SimTime> {
        if self.mode == AttackMode::EpochSync {
            // the first epoch boundary at or after start
            let e = self.epoch.ns().max(1);
            self.burst_start = SimTime(self.start.ns().div_ceil(e) * e);
        }
        let t = self.at(0);
        (t < self.stop).then_some(t)
    }

    /// The packet sent now and the next packet time.
    pub fn fire(&mut self, rng: &mut Rng) -> (AttackPkt, Option<SimTime>) {
        let len = self.len;
        let k = self.k;
        let pkt = match self.mode {
            AttackMode::SpoofFlood => {
                let src = if self.aimed.is_empty() {
                    SPOOF_BASE | (rng.next_u64() as u32 & 0x007F_FFFF)
                } else {
                    self.aimed[k as usize % self.aimed.len()]
                };
                AttackPkt { src, sp: SpHdr { sid: rng.next_u64() as u32, len, first: true } }
            }
            AttackMode::BloomPollution => AttackPkt { src: self.own, sp: self.new_first() },
            AttackMode::OutstandingDrain => {
                if k.is_multiple_of(2) || self.victims.is_empty() {
                    AttackPkt { src: self.own, sp: self.new_first() }
                } else {
                    let v = self.victims[(k / 2) as usize % self.victims.len()];
                    AttackPkt { src: v, sp: SpHdr { sid: rng.next_u64() as u32, len, first: false } }
                }
            }
            AttackMode::EpochSync => {
                let first = k.is_multiple_of(len as u64);
                if first {
                    self.next_sid = self.next_sid.wrapping_add(1);
                }
                AttackPkt { src: self.own, sp: SpHdr { sid: self.next_sid, len, first } }
            }
        };
        self.k += 1;
        if self.mode == AttackMode::EpochSync && self.k >= self.burst_pkts() {
            self.burst_start = self.burst_start + self.epoch;
            self.k = 0;
        }
        let next = self.at(self.k);
        (pkt, (next < self.stop).then_some(next))
    }

    fn new_first(&mut self) -> SpHdr {
        self.next_sid = self.next_sid.wrapping_add(1);
        SpHdr { sid: self.next_sid, len: self.len, first: true }
    }
}

/// As a non-TCP source: every packet claims the source address and super-packet header
/// the attack chose; its long-run rate is `rate_pps` packets of `pkt_bytes`.
impl PacketSource for Attacker {
    fn name(&self) -> &'static str {
        "sp_attack"
    }

    fn mean_rate_bps(&self) -> f64 {
        self.rate_pps * self.pkt_bytes as f64 * 8.0
    }

    fn first(&mut self, _rng: &mut Rng) -> Option<SimTime> {
        Attacker::first(self)
    }

    fn fire(&mut self, _now: SimTime, sent: u64, rng: &mut Rng) -> (Option<RawPkt>, Option<SimTime>) {
        let (ap, next) = Attacker::fire(self, rng);
        (Some(RawPkt { train: 0, seq: sent, bytes: self.pkt_bytes, claimed_src: Some(ap.src), sp: Some(ap.sp) }), next)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn att(mode: AttackMode) -> Attacker {
        Attacker::new(
            mode,
            1e4,
            40,
            10,
            SimTime::from_secs(2),
            SimTime::from_secs(3),
            1,
            9,
            vec![3, 4],
            SimTime::from_ms(80),
            1e9,
        )
    }

    /// 10^4 packets/s from 2 s to 3 s: packets at 2 s + k x 100 us, k = 0..9,999.
    #[test]
    fn steady_rate_and_headers() {
        let mut a = att(AttackMode::OutstandingDrain);
        let mut rng = Rng::new(1);
        let mut t = a.first();
        let mut n = 0;
        let mut spoofed = 0;
        while let Some(now) = t {
            assert_eq!(now, SimTime::from_secs(2) + SimTime(n * 100_000));
            let (p, next) = a.fire(&mut rng);
            if p.sp.first {
                assert_eq!(p.src, 1);
            } else {
                assert!(p.src == 3 || p.src == 4);
                spoofed += 1;
            }
            n += 1;
            t = next;
        }
        assert_eq!((n, spoofed), (10_000, 5_000));
    }

    /// epoch_sync at 10^4 packets/s and EPOCH 80 ms: 800 packets (80 super-packets of
    /// 10) at each boundary 2.00, 2.08, ... s (2 s = 25 x 80 ms), 320 ns apart (40 B
    /// at 1 Gbps); 13 boundaries in [2 s, 3 s): 2.00 .. 2.96.
    #[test]
    fn epoch_sync_bursts_at_the_boundaries() {
        let mut a = att(AttackMode::EpochSync);
        let mut rng = Rng::new(1);
        let mut t = a.first();
        assert_eq!(t, Some(SimTime::from_ms(2000)));
        let mut n = 0u64;
        let mut firsts = 0;
        while let Some(now) = t {
            let burst = n / 800;
            let i = n % 800;
            assert_eq!(now, SimTime::from_ms(2000 + 80 * burst) + SimTime(i * 320));
            let (p, next) = a.fire(&mut rng);
            firsts += p.sp.first as u32;
            n += 1;
            t = next;
        }
        assert_eq!((n, firsts), (13 * 800, 13 * 80));
    }

    /// Aimed sources share the victim pair's home slot under the zero key.
    #[test]
    fn aimed_sources_collide_with_the_victims() {
        let mut a = att(AttackMode::SpoofFlood);
        a.aim(8192, 4);
        assert_eq!(a.aimed.len(), 8);
        let key = admission::siphash::SipKey::new([0, 0]);
        let h = |s: NodeId| {
            admission::siphash::hash_pair(key, crate::core::packet::ipv4_of(s), crate::core::packet::ipv4_of(9)) & 8191
        };
        assert!(a.aimed[..4].iter().all(|&s| h(s) == h(3) && s >= SPOOF_BASE));
        assert!(a.aimed[4..].iter().all(|&s| h(s) == h(4)));
    }
}
