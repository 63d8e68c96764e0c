//! The RIO-PS edge classifier: per-flow packet counts, In/Out tags, a threshold L_t kept
//! at a target short-to-long ratio of active flows, memory bounded by configuration.
//!
//! Source: L. Guo and I. Matta, "The War between Mice and Elephants", ICNP 2001
//! (seeds/001, slides "Edge Router - Packet classification"): "maintains a counter for
//! every flow"; a packet is tagged long once its flow's counter exceeds L_t, short before;
//! "if no packets from a flow in T_u time units, remove entry"; "L_t adjusted
//! dynamically ... every T_c adjust L_t to achieve the target SLR" (short-to-long ratio
//! of active flows). Paper values: SLR = 3, T_u = 1 s, T_c = 10 s. The tag travels in
//! the packet as `flags::IN` (a DSCP value on the wire).
//!
//! What the slides leave open, and our choices:
//! - A flow is the (source address, destination address, connection) triple; the
//!   simulator's connection id stands for the port pair. Every packet of the flow that
//!   enters the classified link is counted and tagged (SYN included: it is the flow's
//!   first packet).
//! - The count includes the current packet: the first L_t packets are In.
//! - Adjustment rule (ours; the slides give only the goal): every T_c, after removing
//!   idle entries, L_t becomes the smallest value in [lt_min, lt_max] for which the
//!   active flows with count <= L_t are at least SLR times those with count > L_t, i.e.
//!   the threshold that would have produced the target SLR among the flows active now
//!   (lt_max if none does; unchanged while no flow is active). A histogram of counts
//!   (bucket lt_max + 1 holds every larger count) makes this O(lt_max) per T_c,
//!   independent of the number of flows. The first adjustment happens at T_c.
//! - Memory: at most `max_flows` entries, allocated once. When the table is full, a
//!   packet of a flow without an entry is tagged Out and counted (`table_full_pkts`);
//!   existing entries are never evicted early, so a flood of new flows cannot reset the
//!   count of a long flow and make it look short. Full-table packets of a new flow are
//!   Out, the conservative side (the paper: long flows are the ones to push back).
//!
//! Cost per packet, O(1): one keyed hash (SipHash-1-3, per-classifier secret key, so
//! addresses chosen by an attacker do not collide on purpose), a linear-probing lookup in
//! a table of at least 2 max_flows slots (load <= 1/2: expected probes <= 2.5 for a miss,
//! 1.5 for a hit, Knuth TAOCP vol. 3, 6.4), an LRU list update, and the removal of
//! expired entries from the head of the LRU list (each entry is removed at most once per
//! insertion: amortised O(1)). Deletion is backward-shift (no tombstones), so probe
//! lengths do not degrade over time. `ops` counts probe steps and list removals so tests
//! can check the O(1) bound without timing anything.

use admission::siphash::{hash_triple, SipKey};

use crate::core::packet::{flags, ipv4_of, Packet};
use crate::core::time::SimTime;

const NONE: u32 = u32::MAX;

/// Configuration, validated once by [`ClassifierConfig::validate`].
#[derive(Clone, Debug, PartialEq)]
pub struct ClassifierConfig {
    /// Initial L_t (packets).
    pub lt: u32,
    /// Target short-to-long ratio of active flows; `None` keeps L_t fixed.
    pub slr: Option<f64>,
    /// Adjustment period T_c.
    pub tc: SimTime,
    /// Idle time T_u after which a flow's entry is removed.
    pub tu: SimTime,
    /// Flow-table capacity (entries).
    pub max_flows: u32,
    /// Bounds of the adjusted L_t.
    pub lt_min: u32,
    pub lt_max: u32,
    /// Per-classifier secret key of the flow hash.
    pub key: [u64; 2],
}

impl ClassifierConfig {
    pub fn validate(&self) -> Result<(), String> {
        if self.max_flows == 0 || self.max_flows > (1 << 28) {
            return Err(format!("max_flows: must be in 1..=2^28 (got {})", self.max_flows));
        }
        if self.lt_min == 0 || self.lt_min > self.lt_max {
            return Err(format!("lt_min: must be in 1..=lt_max = {} (got {})", self.lt_max, self.lt_min));
        }
        if self.lt_max > 1 << 20 {
            return Err(format!("lt_max: must be <= 2^20 (got {})", self.lt_max));
        }
        if self.lt < self.lt_min || self.lt > self.lt_max {
            return Err(format!(
                "lt: must be in [lt_min, lt_max] = [{}, {}] (got {})",
                self.lt_min, self.lt_max, self.lt
            ));
        }
        if let Some(s) = self.slr {
            if !(s.is_finite() && s > 0.0) {
                return Err(format!("slr: must be > 0 (got {s})"));
            }
        }
        if self.tc == SimTime::ZERO {
            return Err("tc: must be > 0".into());
        }
        if self.tu == SimTime::ZERO {
            return Err("tu: must be > 0".into());
        }
        Ok(())
    }
}

/// Counters (packets unless said otherwise).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassifierStats {
    pub pkts: u64,
    pub tagged_in: u64,
    pub tagged_out: u64,
    /// Flows that got an entry.
    pub flows_added: u64,
    /// Entries removed after T_u idle.
    pub flows_expired: u64,
    /// Packets of flows without an entry while the table was full (tagged Out).
    pub table_full_pkts: u64,
    /// L_t adjustments made (every T_c with active flows).
    pub adjustments: u64,
    /// Probe steps of the hash table plus LRU removals: the per-packet work.
    pub ops: u64,
    /// Most entries held at once.
    pub peak_entries: u32,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    src: u32,
    dst: u32,
    conn: u32,
    count: u32,
    last: SimTime,
    /// Home slot (hash & mask) and current slot in the table.
    home: u32,
    slot: u32,
    /// LRU list, oldest first.
    prev: u32,
    next: u32,
}

const EMPTY_ENTRY: Entry =
    Entry { src: 0, dst: 0, conn: 0, count: 0, last: SimTime::ZERO, home: 0, slot: 0, prev: NONE, next: NONE };

pub struct Classifier {
    pub name: String,
    cfg: ClassifierConfig,
    key: SipKey,
    /// Current threshold L_t.
    lt: u32,
    next_adjust: SimTime,
    /// Entry index per slot, NONE when empty; length a power of two >= 2 max_flows.
    slots: Box<[u32]>,
    mask: u32,
    entries: Box<[Entry]>,
    free: Vec<u32>,
    len: u32,
    lru_head: u32,
    lru_tail: u32,
    /// Active flows per count (index min(count, lt_max + 1)).
    hist: Box<[u32]>,
    pub stats: ClassifierStats,
}

impl Classifier {
    pub fn new(name: String, cfg: ClassifierConfig) -> Result<Classifier, String> {
        cfg.validate()?;
        let n = cfg.max_flows;
        let slots_len = (2 * n as usize).next_power_of_two().max(2);
        Ok(Classifier {
            name,
            key: SipKey::new(cfg.key),
            lt: cfg.lt,
            next_adjust: cfg.tc,
            slots: vec![NONE; slots_len].into_boxed_slice(),
            mask: (slots_len - 1) as u32,
            entries: vec![EMPTY_ENTRY; n as usize].into_boxed_slice(),
            free: (0..n).rev().collect(),
            len: 0,
            lru_head: NONE,
            lru_tail: NONE,
            hist: vec![0; cfg.lt_max as usize + 2].into_boxed_slice(),
            stats: ClassifierStats::default(),
            cfg,
        })
    }

    /// Current L_t.
    pub fn lt(&self) -> u32 {
        self.lt
    }

    /// Entries held (active flows).
    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn config(&self) -> &ClassifierConfig {
        &self.cfg
    }

    /// Bytes of state, all allocated at construction (constant for the classifier's life).
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.slots.len() * 4
            + self.entries.len() * std::mem::size_of::<Entry>()
            + self.free.capacity() * 4
            + self.hist.len() * 4
            + self.name.capacity()
    }

    /// Active flows with count <= L_t and > L_t.
    pub fn short_long(&self) -> (u32, u32) {
        let short: u32 = self.hist[1..=self.lt as usize].iter().sum();
        (short, self.len - short)
    }

    #[inline]
    fn bucket(&self, count: u32) -> usize {
        count.min(self.cfg.lt_max + 1) as usize
    }

    /// Counts `pkt`, sets or clears its In tag; returns true when tagged In.
    pub fn classify(&mut self, pkt: &mut Packet, now: SimTime) -> bool {
        let is_in = self.observe(ipv4_of(pkt.src), ipv4_of(pkt.dst), pkt.flow, now);
        if is_in {
            pkt.flags |= flags::IN;
        } else {
            pkt.flags &= !flags::IN;
        }
        is_in
    }

    /// One packet of flow (src, dst, conn) at `now`: returns true for In.
    pub fn observe(&mut self, src: u32, dst: u32, conn: u32, now: SimTime) -> bool {
        self.stats.pkts += 1;
        self.expire(now);
        if now >= self.next_adjust {
            self.adjust();
            let tc = self.cfg.tc.ns();
            let k = (now.ns() - self.next_adjust.ns()) / tc + 1;
            self.next_adjust = SimTime(self.next_adjust.ns() + k * tc);
        }
        let h = hash_triple(self.key, src, dst, conn);
        let home = (h as u32) & self.mask;
        let mut i = home;
        let count = loop {
            self.stats.ops += 1;
            let e = self.slots[i as usize];
            if e == NONE {
                // not found: add it if there is room
                let Some(e) = self.free.pop() else {
                    self.stats.table_full_pkts += 1;
                    self.stats.tagged_out += 1;
                    return false;
                };
                self.entries[e as usize] =
                    Entry { src, dst, conn, count: 1, last: now, home, slot: i, prev: NONE, next: NONE };
                self.slots[i as usize] = e;
                self.lru_push(e);
                self.len += 1;
                self.stats.flows_added += 1;
                self.stats.peak_entries = self.stats.peak_entries.max(self.len);
                self.hist[1] += 1;
                break 1;
            }
            let ent = &self.entries[e as usize];
            if ent.src == src && ent.dst == dst && ent.conn == conn {
                let old = self.bucket(ent.count);
                let c = ent.count.saturating_add(1);
                let new = self.bucket(c);
                self.hist[old] -= 1;
                self.hist[new] += 1;
                let ent = &mut self.entries[e as usize];
                ent.count = c;
                ent.last = now;
                self.lru_unlink(e);
                self.lru_push(e);
                break c;
            }
            i = (i + 1) & self.mask;
        };
        let is_in = count <= self.lt;
        if is_in {
            self.stats.tagged_in += 1;
        } else {
            self.stats.tagged_out += 1;
        }
        is_in
    }

    /// Removes the entries idle for T_u or more (oldest first).
    fn expire(&mut self, now: SimTime) {
        while self.lru_head != NONE {
            let e = self.lru_head;
            let ent = self.entries[e as usize];
            if now.ns() < ent.last.ns().saturating_add(self.cfg.tu.ns()) {
                break;
            }
            self.stats.ops += 1;
            self.lru_unlink(e);
            self.table_remove(ent.slot);
            let b = self.bucket(ent.count);
            self.hist[b] -= 1;
            self.free.push(e);
            self.len -= 1;
            self.stats.flows_expired += 1;
        }
    }

    /// The adjustment rule of the header: smallest L in [lt_min, lt_max] with
    /// short(L) >= SLR long(L) among the active flows.
    fn adjust(&mut self) {
        let Some(slr) = self.cfg.slr else { return };
        if self.len == 0 {
            return;
        }
        let n = f64::from(self.len);
        let mut short: u32 = self.hist[1..self.cfg.lt_min as usize].iter().sum();
        let mut lt = self.cfg.lt_max;
        for l in self.cfg.lt_min..=self.cfg.lt_max {
            short += self.hist[l as usize];
            let s = f64::from(short);
            if s >= slr * (n - s) {
                lt = l;
                break;
            }
        }
        self.lt = lt;
        self.stats.adjustments += 1;
    }

    /// Backward-shift deletion of the entry at `slot` (linear probing, no tombstones).
    fn table_remove(&mut self, slot: u32) {
        let mut hole = slot;
        self.slots[hole as usize] = NONE;
        let mut j = hole;
        loop {
            j = (j + 1) & self.mask;
            let e = self.slots[j as usize];
            if e == NONE {
                return;
            }
            self.stats.ops += 1;
            let home = self.entries[e as usize].home;
            // the entry at j may move back to the hole unless its home lies cyclically
            // in (hole, j]
            let dist_home = j.wrapping_sub(home) & self.mask;
            let dist_hole = j.wrapping_sub(hole) & self.mask;
            if dist_home >= dist_hole {
                self.slots[hole as usize] = e;
                self.entries[e as usize].slot = hole;
                self.slots[j as usize] = NONE;
                hole = j;
            }
        }
    }

    fn lru_push(&mut self, e: u32) {
        let tail = self.lru_tail;
        {
            let ent = &mut self.entries[e as usize];
            ent.prev = tail;
            ent.next = NONE;
        }
        if tail == NONE {
            self.lru_head = e;
        } else {
            self.entries[tail as usize].next = e;
        }
        self.lru_tail = e;
    }

    fn lru_unlink(&mut self, e: u32) {
        let Entry { prev, next, .. } = self.entries[e as usize];
        if prev == NONE {
            self.lru_head = next;
        } else {
            self.entries[prev as usize].next = next;
        }
        if next == NONE {
            self.lru_tail = prev;
        } else {
            self.entries[next as usize].prev = prev;
        }
    }

    /// Named counters for the results' queue_counters table.
    pub fn counters(&self) -> Vec<(&'static str, f64)> {
        let s = &self.stats;
        let (short, long) = self.short_long();
        vec![
            ("cls_lt", f64::from(self.lt)),
            ("cls_entries", f64::from(self.len)),
            ("cls_peak_entries", f64::from(s.peak_entries)),
            ("cls_max_flows", f64::from(self.cfg.max_flows)),
            ("cls_active_short", f64::from(short)),
            ("cls_active_long", f64::from(long)),
            ("cls_pkts", s.pkts as f64),
            ("cls_tagged_in", s.tagged_in as f64),
            ("cls_tagged_out", s.tagged_out as f64),
            ("cls_flows_added", s.flows_added as f64),
            ("cls_flows_expired", s.flows_expired as f64),
            ("cls_table_full_pkts", s.table_full_pkts as f64),
            ("cls_adjustments", s.adjustments as f64),
            ("cls_ops", s.ops as f64),
            ("cls_memory_bytes", self.memory_bytes() as f64),
        ]
    }

    /// Checks the internal invariants (tests): every entry reachable from its home slot,
    /// LRU list and histogram consistent with the table.
    pub fn check(&self) -> Result<(), String> {
        let mut seen = 0u32;
        let mut hist = vec![0u32; self.hist.len()];
        for (s, &e) in self.slots.iter().enumerate() {
            if e == NONE {
                continue;
            }
            seen += 1;
            let ent = &self.entries[e as usize];
            if ent.slot as usize != s {
                return Err(format!("entry {e} at slot {s} says slot {}", ent.slot));
            }
            let mut i = ent.home;
            while i as usize != s {
                if self.slots[i as usize] == NONE {
                    return Err(format!("entry {e} unreachable: empty slot {i} between home and {s}"));
                }
                i = (i + 1) & self.mask;
            }
            hist[self.bucket(ent.count)] += 1;
        }
        if seen != self.len || self.len as usize + self.free.len() != self.entries.len() {
            return Err(format!("len {} slots {} free {}", self.len, seen, self.free.len()));
        }
        if hist[..] != self.hist[..] {
            return Err("histogram out of date".into());
        }
        let (mut n, mut e, mut last) = (0u32, self.lru_head, SimTime::ZERO);
        while e != NONE {
            let ent = &self.entries[e as usize];
            if ent.last < last {
                return Err("LRU list out of order".into());
            }
            last = ent.last;
            n += 1;
            e = ent.next;
        }
        if n != self.len {
            return Err(format!("LRU list holds {n}, table {}", self.len));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::rng::Rng;

    fn cfg(max_flows: u32, lt: u32, slr: Option<f64>) -> ClassifierConfig {
        ClassifierConfig {
            lt,
            slr,
            tc: SimTime::from_secs(10),
            tu: SimTime::from_secs(1),
            max_flows,
            lt_min: 1,
            lt_max: 1000,
            key: [1, 2],
        }
    }

    #[test]
    fn first_lt_packets_are_in_then_out() {
        let mut c = Classifier::new("c".into(), cfg(16, 5, None)).unwrap();
        let t = SimTime::from_ms(1);
        let tags: Vec<bool> = (0..8).map(|_| c.observe(1, 2, 7, t)).collect();
        assert_eq!(tags, [true, true, true, true, true, false, false, false]);
        // another flow starts afresh; direction matters
        assert!(c.observe(2, 1, 7, t));
        assert_eq!(c.len(), 2);
        assert_eq!((c.stats.tagged_in, c.stats.tagged_out), (6, 3));
        c.check().unwrap();
    }

    #[test]
    fn idle_entry_removed_after_tu_and_counts_again() {
        let mut c = Classifier::new("c".into(), cfg(16, 2, None)).unwrap();
        for k in 0..3 {
            c.observe(1, 2, 3, SimTime::from_ms(k * 100));
        }
        assert!(!c.observe(1, 2, 3, SimTime::from_ms(1199)), "idle 999 ms: still counted");
        // 1 s idle (the last packet at 1199 ms): removed, the flow restarts as In
        assert!(c.observe(1, 2, 3, SimTime::from_ms(2199)));
        assert_eq!(c.stats.flows_expired, 1);
        c.check().unwrap();
    }

    #[test]
    fn table_full_tags_new_flows_out_and_keeps_old_entries() {
        let mut c = Classifier::new("c".into(), cfg(4, 3, None)).unwrap();
        let t = SimTime::from_ms(5);
        for f in 0..4 {
            assert!(c.observe(10, 20, f, t));
        }
        assert!(!c.observe(10, 20, 99, t), "table full: a new flow is Out");
        assert!(!c.observe(10, 20, 99, t));
        assert_eq!(c.stats.table_full_pkts, 2);
        assert_eq!(c.len(), 4);
        // an old flow keeps its count
        assert!(c.observe(10, 20, 0, t));
        assert!(c.observe(10, 20, 0, t));
        assert!(!c.observe(10, 20, 0, t));
        // once the old entries idle out, the new flow gets an entry
        assert!(c.observe(10, 20, 99, t + SimTime::from_secs(1)));
        assert_eq!(c.len(), 1);
        c.check().unwrap();
    }

    #[test]
    fn adjusts_lt_to_target_slr() {
        // 30 active flows; at T_c their counts are 2, 2, 3, 4, ..., 30, so short(L) = L for
        // L >= 2 and SLR 3 needs L >= 3 (30 - L): L_t = 23 (23 short, 7 long).
        let mut c = Classifier::new("c".into(), cfg(64, 5, Some(3.0))).unwrap();
        let t = SimTime::from_ms(9_500);
        for f in 0..30u32 {
            for _ in 0..=f {
                c.observe(1, 2, f, t);
            }
        }
        assert_eq!(c.lt(), 5, "no adjustment before T_c");
        c.observe(1, 2, 0, SimTime::from_secs(10) - SimTime(1));
        assert_eq!(c.lt(), 5);
        // the adjustment runs before the packet at T_c is counted
        c.observe(1, 2, 0, SimTime::from_secs(10));
        assert_eq!(c.lt(), 23);
        assert_eq!(c.short_long(), (23, 7));
        assert_eq!(c.stats.adjustments, 1);
        // SLR 1: L >= 30 - L, L_t = 15
        let mut k = cfg(64, 5, Some(1.0));
        k.tc = SimTime::from_secs(1);
        let mut c = Classifier::new("c".into(), k).unwrap();
        for f in 0..30u32 {
            for _ in 0..=f {
                c.observe(1, 2, f, SimTime::from_ms(500));
            }
        }
        c.observe(9, 9, 9, SimTime::from_secs(1));
        assert_eq!(c.lt(), 15);
        c.check().unwrap();
    }

    #[test]
    fn flood_of_random_one_packet_flows_is_bounded_and_o1() {
        // 1 M one-packet flows with random addresses at 10^5 flows/s: the table fills
        // (4096 entries of 1 s life against 10^5 new flows per s), memory never changes,
        // and the work per packet stays bounded.
        for max_flows in [1024u32, 65_536] {
            let mut c = Classifier::new("c".into(), cfg(max_flows, 20, Some(3.0))).unwrap();
            let mem0 = c.memory_bytes();
            let mut rng = Rng::new(u64::from(max_flows));
            let n = 1_000_000u64;
            for k in 0..n {
                let t = SimTime(k * 10_000);
                c.observe(rng.next_u64() as u32, rng.next_u64() as u32, rng.next_u64() as u32, t);
                assert!(c.len() <= max_flows);
            }
            assert_eq!(c.memory_bytes(), mem0);
            assert!(c.stats.peak_entries <= max_flows);
            let ops = c.stats.ops as f64 / n as f64;
            // probes at load <= 1/2 (<= 2.5 per miss on average) + <= 1 removal + shifts
            assert!(ops < 6.0, "max_flows {max_flows}: {ops} ops per packet");
            c.check().unwrap();
        }
    }

    #[test]
    fn validate_names_field() {
        let bad = |f: &dyn Fn(&mut ClassifierConfig), field: &str| {
            let mut k = cfg(8, 5, Some(3.0));
            f(&mut k);
            let e = k.validate().unwrap_err();
            assert!(e.starts_with(field), "{e}");
        };
        bad(&|k| k.max_flows = 0, "max_flows");
        bad(&|k| k.lt = 0, "lt");
        bad(&|k| k.lt_min = 0, "lt_min");
        bad(&|k| k.slr = Some(0.0), "slr");
        bad(&|k| k.tc = SimTime::ZERO, "tc");
        bad(&|k| k.tu = SimTime::ZERO, "tu");
    }
}
