//! Super-packet admission: Appendix A1 (the decision), A2 (epoch shift) and A3
//! (state installation and update) of Li 2013, "Benefits and Practicality of
//! Super-Packets", UCB/EECS-2013-83.
//!
//! ```text
//! A1  regular(pkt):  pktCnt < t        -> enqueue            else drop (Threshold)
//!     isFirst(pkt):  pktCnt < t        -> install state, enqueue
//!                                                            else drop (Threshold)
//!     otherwise:     accepted(pkt) &&
//!                    pktCnt < buffSize -> update state, enqueue
//!                    accepted, full    -> drop (BufferFull)
//!                    !accepted         -> drop (A3 reason)
//! A2  time - prev > EPOCH -> h1 = h2; h2 = new; b1 = b2; b2 = new
//! A3  install: b2.add((src,dst,sid)); h2.update((src,dst), (len, len-1))
//!     update:  inb1/inb2 pick h1 or h2; decrement its outstanding count, or drop.
//! ```
//! The library never reads a clock (timestamps come in, smoltcp style) and never
//! touches a queue: the caller passes its pktCnt and enqueues on `Admit`.
//!
//! Departure from A2's "prev = time()": epochs sit on a fixed grid of width EPOCH
//! (prev advances by whole epochs) and an arrival that finds two or more epochs
//! elapsed drops both generations. This makes section 3.1's statement exact: a
//! super-packet's state lives at least one and at most two EPOCHs, whatever the
//! spacing of arrivals (with "prev = time()" a quiet router would keep state for
//! up to three epochs, or indefinitely with no arrivals at all).

use crate::config::{Config, ConfigError, Defences};
use crate::header::{find_in_options, SpHeaderRepr};
use crate::moving_bloom::MovingBloom;
use crate::moving_table::{Entry, EntryRef, Gen, InstallError, MovingTable};
use crate::siphash::{PairPrefix, SipKey};
use crate::stats::{DropReason, PacketKind, Stats, Verdict};

/// What the admission needs to know about an arriving packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketMeta {
    /// IPv4 source address.
    pub src: u32,
    /// IPv4 destination address.
    pub dst: u32,
    /// The super-packet header, `None` for a normal packet.
    pub sp: Option<SpHeaderRepr>,
    /// TCP SYN set. Used only for a normal packet (`sp == None`) under
    /// `Config::admit_syn`; a SYN carrying a super-packet header follows A1 as usual.
    pub syn: bool,
}

/// What the router holds about (src, dst, sid): for tests, debugging and the
/// dynamic threshold. Taken as of the last arrival (no epoch shift is applied).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lookup {
    /// b1.test((src,dst,sid)).
    pub inb1: bool,
    /// b2.test((src,dst,sid)).
    pub inb2: bool,
    /// h1.get((src,dst)), if present.
    pub h1: Option<Entry>,
    /// h2.get((src,dst)), if present.
    pub h2: Option<Entry>,
}

/// Variables that change at run time (the `Vars` of red.h's split).
#[derive(Debug, Clone, Copy)]
struct Vars {
    /// A2 `prev`: start of the current epoch (ns), on the grid k * EPOCH.
    prev: u64,
    /// A1 `t` in force (static, or set by the section 6.1 dynamic rule).
    threshold: u32,
}

/// The super-packet admission of one output queue.
#[derive(Debug)]
pub struct Admission {
    params: Config,
    vars: Vars,
    key: SipKey,
    table: MovingTable,
    bloom: MovingBloom,
    stats: Stats,
    defences: Defences,
    /// (EPOCH - phase) mod EPOCH: added to arrival times so that the grid k x EPOCH
    /// of the shifted clock falls at phase + k x EPOCH of the real one.
    phase_offset: u64,
}

impl Admission {
    /// Validate `cfg` and allocate all state (the only allocation).
    pub fn new(cfg: Config) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let key = SipKey::new(cfg.key);
        Ok(Admission {
            vars: Vars { prev: 0, threshold: cfg.threshold },
            key,
            table: MovingTable::new(cfg.max_pairs, key),
            bloom: MovingBloom::new(cfg.bloom_bits, cfg.bloom_hashes, key),
            stats: Stats::default(),
            params: cfg,
            defences: Defences::default(),
            phase_offset: 0,
        })
    }

    /// [`new`](Self::new) with the section 3.1 switches of [`Defences`]; the error
    /// names the field.
    pub fn with_defences(cfg: Config, defences: Defences) -> Result<Self, String> {
        let mut adm = Admission::new(cfg).map_err(|e| e.to_string())?;
        defences.validate(&adm.params)?;
        adm.table.set_defences(defences.bounded_table, defences.max_reserved_per_pair);
        adm.table.set_port_quota(defences.max_pairs_per_port);
        let epoch = adm.params.epoch_ns;
        adm.phase_offset = (epoch - defences.epoch_phase_ns) % epoch;
        adm.defences = defences;
        Ok(adm)
    }

    /// The section 3.1 switches in force.
    pub fn defences(&self) -> &Defences {
        &self.defences
    }

    /// A1 "On packet arrival". `pkt_cnt` = packets in the buffer now; on `Admit` the
    /// caller enqueues and increments its count. O(1) per packet, except an epoch
    /// shift, which zeroes one Bloom generation (O(bloom_bits / 64)).
    pub fn on_arrival(&mut self, now_ns: u64, pkt: &PacketMeta, pkt_cnt: u32) -> Verdict {
        self.on_arrival_port(now_ns, pkt, pkt_cnt, 0)
    }

    /// [`on_arrival`](Self::on_arrival) of a packet that came in on ingress `port` (any
    /// number naming the router's input port): what `Defences::max_pairs_per_port`
    /// counts a new pair against. Without a port quota the port changes nothing.
    pub fn on_arrival_port(&mut self, now_ns: u64, pkt: &PacketMeta, pkt_cnt: u32, port: u32) -> Verdict {
        self.maybe_shift(now_ns);
        let (kind, verdict) = match pkt.sp {
            // A1: regular(pkt)
            None => self.regular(pkt.syn, pkt_cnt),
            Some(sp) if sp.validate(self.params.max_len).is_err() => {
                (PacketKind::Bad, Verdict::Drop(DropReason::BadHeader))
            }
            // A1: isFirst(pkt)
            Some(sp) if sp.first => (PacketKind::First, self.first(pkt, sp, pkt_cnt, port)),
            // A1: a subsequent packet of a super-packet
            Some(sp) => (PacketKind::Subsequent, self.subsequent(pkt, sp, pkt_cnt)),
        };
        self.stats.record(kind, verdict);
        verdict
    }

    /// [`on_arrival`](Self::on_arrival) from the raw IPv4 options area (bytes after
    /// the 20-byte fixed header). A malformed list or super-packet option is dropped
    /// as `BadHeader`; no super-packet option means a normal packet.
    pub fn on_arrival_options(
        &mut self,
        now_ns: u64,
        src: u32,
        dst: u32,
        syn: bool,
        options: &[u8],
        pkt_cnt: u32,
    ) -> Verdict {
        match find_in_options(options, self.params.max_len) {
            Ok(sp) => self.on_arrival(now_ns, &PacketMeta { src, dst, sp, syn }, pkt_cnt),
            Err(_) => {
                self.maybe_shift(now_ns);
                let verdict = Verdict::Drop(DropReason::BadHeader);
                self.stats.record(PacketKind::Bad, verdict);
                verdict
            }
        }
    }

    /// A2 "On packet arrival: if (time() - prev > EPOCH) perform epoch shift".
    fn maybe_shift(&mut self, now: u64) {
        let now = now.saturating_add(self.phase_offset);
        let epoch = self.params.epoch_ns;
        let elapsed = now.saturating_sub(self.vars.prev);
        if elapsed <= epoch {
            return;
        }
        // Whole epochs completed: prev + k*EPOCH < now <= prev + (k+1)*EPOCH.
        let k = (elapsed - 1) / epoch;
        self.vars.prev += k * epoch;
        // b2 at the end of its epoch: the fill an attacker reached (section 3.1).
        let set = self.bloom.bits_set(Gen::H2);
        self.stats.bloom_bits_set_peak = self.stats.bloom_bits_set_peak.max(set);
        self.stats.bloom_items_peak = self.stats.bloom_items_peak.max(self.bloom.items(Gen::H2));
        if k == 1 {
            // A2 "On epoch shift": h1 = h2; h2 = new HashTable(); b1 = b2; b2 = new BloomFilter();
            self.table.shift();
            self.bloom.shift();
        } else {
            // Two shifts or more: both generations are older than two epochs.
            self.table.clear_all();
            self.bloom.clear_all();
            self.stats.double_shifts += 1;
        }
        self.stats.epoch_shifts = self.stats.epoch_shifts.saturating_add(k);
        self.stats.pairs_h1 = self.table.len(Gen::H1);
        self.stats.pairs_h2 = self.table.len(Gen::H2);
    }

    /// A1, `regular(pkt)` branch (and the SYN rule of section 4.3).
    fn regular(&self, syn: bool, pkt_cnt: u32) -> (PacketKind, Verdict) {
        if syn && self.params.admit_syn {
            // Section 4.3 / SCENARIOS.md: a SYN is always admitted while the buffer
            // has room (pktCnt < buffSize), whatever t.
            let v =
                if pkt_cnt < self.params.buff_size { Verdict::Admit } else { Verdict::Drop(DropReason::BufferFull) };
            return (PacketKind::Syn, v);
        }
        // A1: if (pktCnt < t) { enqueue pkt; } else { drop pkt; }
        let v = if pkt_cnt < self.vars.threshold { Verdict::Admit } else { Verdict::Drop(DropReason::Threshold) };
        (PacketKind::Normal, v)
    }

    /// A1, `isFirst(pkt)` branch.
    fn first(&mut self, pkt: &PacketMeta, sp: SpHeaderRepr, pkt_cnt: u32, port: u32) -> Verdict {
        // A1: if (pktCnt < t) { install state; enqueue pkt; } else { drop pkt; }
        if pkt_cnt >= self.vars.threshold {
            return Verdict::Drop(DropReason::Threshold);
        }
        // A3 "On state installation": h2.update((src,dst), (len,len - 1)) ...
        let pre = PairPrefix::new(self.key, pkt.src, pkt.dst);
        let installed = self.table.install_from(&MovingTable::pair_key_from(&pre), sp.len, port);
        self.stats.record_probes(self.table.last_install_probes());
        self.stats.table_grows = self.table.grows();
        match installed {
            // Section 3.1 defence: the per-source cap on reserved packets.
            Err(InstallError::Cap) => return Verdict::Drop(DropReason::SourceCap),
            // Source validation's quota: this ingress port has its share of h2.
            Err(InstallError::PortQuota) => return Verdict::Drop(DropReason::PortQuota),
            // Section 3.1 defence: h2 is full; deny the super-packet rather than grow.
            Err(_) => return Verdict::Drop(DropReason::TableFull),
            Ok(()) => {}
        }
        self.stats.reserved_peak = self.stats.reserved_peak.max(self.table.last_install_reserved());
        // ... and b2.add((src,dst,sid)). Added only after h2 accepted the pair: a
        // Bloom bit without its table entry would turn a denial into a later admit.
        self.bloom.add(&MovingBloom::key_from(&pre, sp.sid));
        let h2 = self.table.len(Gen::H2);
        self.stats.pairs_h2 = h2;
        self.stats.pairs_peak = self.stats.pairs_peak.max(h2);
        Verdict::Admit
    }

    /// A1, subsequent-packet branch: `accepted(pkt)` is A3's state check.
    fn subsequent(&mut self, pkt: &PacketMeta, sp: SpHeaderRepr, pkt_cnt: u32) -> Verdict {
        let mut probes = 0;
        let accepted = self.accepted(pkt.src, pkt.dst, sp.sid, &mut probes);
        if probes > 0 {
            self.stats.record_probes(probes);
        }
        let entry = match accepted {
            Ok(e) => e,
            // A1: else { drop pkt; } (not accepted)
            Err(reason) => return Verdict::Drop(reason),
        };
        // A1: if (pktCnt < buffSize) { update state; enqueue pkt; } else { drop pkt; }
        if pkt_cnt < self.params.buff_size {
            // A3: h.update((src,dst), (0,-1)); `accepted` saw outstanding > 0.
            self.table.consume(entry);
            Verdict::Admit
        } else {
            Verdict::Drop(DropReason::BufferFull)
        }
    }

    /// A3 "On state update", up to the decrement: which entry pays for this packet,
    /// or why the packet is dropped.
    fn accepted(&self, src: u32, dst: u32, sid: u32, probes: &mut u32) -> Result<EntryRef, DropReason> {
        let pre = PairPrefix::new(self.key, src, dst);
        // A3: bool inb1 = b1.test((src,dst,sid)); bool inb2 = b2.test((src,dst,sid));
        let (inb1, inb2) = self.bloom.test_both(&MovingBloom::key_from(&pre, sid));
        // A3: if (!inb1 && !inb2) { drop pkt; exit; }
        if !inb1 && !inb2 {
            return Err(DropReason::NotAdmitted);
        }
        let pk = MovingTable::pair_key_from(&pre);
        let live = |e: &EntryRef| self.table.entry(*e).outstanding > 0;
        match (inb1, inb2) {
            // A3: else if (inb1 && !inb2) { ... }  /  else if (!inb1 && inb2) { ... }
            (true, false) | (false, true) => {
                let gen = if inb1 { Gen::H1 } else { Gen::H2 };
                match self.table.find_counting(gen, &pk, probes) {
                    // A3: if (!inh1) / if (!inh2) { //false positive  drop pkt; exit; }
                    None => Err(DropReason::BloomFalsePositive),
                    // A3: else if (h.get((src,dst))[1] <= 0) { //#_of_outstanding_packets is 0  drop }
                    Some(e) if !live(&e) => Err(DropReason::OutstandingExhausted),
                    // A3: else { h.update((src,dst), (0,-1)); }
                    Some(e) => Ok(e),
                }
            }
            // A3: else { //false positive (in both b1 and b2) ... }
            _ => {
                let e1 = self.table.find_counting(Gen::H1, &pk, probes);
                let e2 = self.table.find_counting(Gen::H2, &pk, probes);
                match (e1, e2) {
                    // A3: if (!inh1 && !inh2) { drop pkt; exit; }
                    (None, None) => Err(DropReason::BloomFalsePositive),
                    // A3: else if (inh1 && h1.get((src,dst))[1] > 0) { h1.update((src,dst), (0,-1)); }
                    (Some(e), _) if live(&e) => Ok(e),
                    // A3: else if (inh2 && h2.get((src,dst))[1] > 0) { h2.update((src,dst), (0,-1)); }
                    (_, Some(e)) if live(&e) => Ok(e),
                    // A3: else { drop pkt; exit; }  (entries present, none outstanding)
                    _ => Err(DropReason::OutstandingExhausted),
                }
            }
        }
    }

    /// Set `t` (section 6.1 dynamic threshold), clamped to buffSize.
    pub fn set_threshold(&mut self, t: u32) {
        self.vars.threshold = t.min(self.params.buff_size);
    }

    /// The `t` in force.
    pub fn threshold(&self) -> u32 {
        self.vars.threshold
    }

    /// Counters.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The validated configuration.
    pub fn config(&self) -> &Config {
        &self.params
    }

    /// Start of the current epoch (A2 `prev`, ns; with a phase, 0 until the first
    /// boundary at the phase).
    pub fn epoch_start(&self) -> u64 {
        self.vars.prev.saturating_sub(self.phase_offset)
    }

    /// Fraction of b2's bits set now (O(bloom_bits / 64)).
    pub fn bloom_fill(&self) -> f64 {
        self.bloom.bits_set(Gen::H2) as f64 / self.bloom.bits() as f64
    }

    /// Largest fill of b2 at the end of an epoch so far, and of b2 now.
    pub fn bloom_fill_peak(&self) -> f64 {
        let set = self.stats.bloom_bits_set_peak.max(self.bloom.bits_set(Gen::H2));
        set as f64 / self.bloom.bits() as f64
    }

    /// (src, dst) entries in h2 now, and the configured bound per generation.
    pub fn table_occupancy(&self) -> (u32, u32) {
        (self.table.len(Gen::H2), self.table.max_pairs())
    }

    /// Sum of outstanding packets over all pairs and both generations, O(1): the
    /// sum of Omega_i in section 6.1 (t = df x sum).
    pub fn total_outstanding(&self) -> u64 {
        self.table.total_outstanding()
    }

    /// Outstanding packets of (src, dst), h1 + h2, as of the last arrival.
    pub fn outstanding(&self, src: u32, dst: u32) -> u32 {
        let pk = self.table.pair_key(src, dst);
        [Gen::H1, Gen::H2]
            .into_iter()
            .filter_map(|g| self.table.find(g, &pk))
            .fold(0u32, |acc, e| acc.saturating_add(self.table.entry(e).outstanding))
    }

    /// What the router holds about (src, dst, sid), as of the last arrival.
    pub fn lookup(&self, src: u32, dst: u32, sid: u32) -> Lookup {
        let bk = self.bloom.key(src, dst, sid);
        let pk = self.table.pair_key(src, dst);
        let get = |g| self.table.find(g, &pk).map(|e| self.table.entry(e));
        Lookup {
            inb1: self.bloom.test(Gen::H1, &bk),
            inb2: self.bloom.test(Gen::H2, &bk),
            h1: get(Gen::H1),
            h2: get(Gen::H2),
        }
    }

    /// Estimated Bloom false-positive rate of b2 (current epoch) and b1.
    pub fn estimated_fp_rate(&self) -> (f64, f64) {
        (self.bloom.estimated_fp_rate(Gen::H2), self.bloom.estimated_fp_rate(Gen::H1))
    }

    /// Bytes of router state: this struct plus the two table and two Bloom
    /// generations. Fixed at construction, independent of traffic.
    pub fn memory_bytes(&self) -> usize {
        core::mem::size_of::<Self>() + self.table.memory_bytes() + self.bloom.memory_bytes()
    }
}
