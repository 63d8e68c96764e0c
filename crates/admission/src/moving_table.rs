//! The moving hash table: (src, dst) -> (reserved, outstanding) in two generations.
//!
//! Source: Li 2013 section 2.2 and Appendix A2 ("h1 = h2; h2 = new HashTable()" on
//! each epoch shift), Appendix A3 (h2.update on installation, h1/h2.update((0,-1))
//! on each subsequent packet). Section 3.1 names the attack this layout answers:
//! spoofed first packets with random src would grow a chained or resizing table
//! without bound and make lookups O(n).
//!
//! Defences, all fixed by configuration and never by traffic:
//! - each generation is one open-addressing array allocated once in [`MovingTable::new`]:
//!   `slots = next_pow2(2 * max_pairs)` (load factor <= 1/2), never resized;
//! - at most `max_pairs` live entries per generation; an install beyond that, or one
//!   whose probe run exceeds [`PROBE_LIMIT`], is refused ([`InstallError`]): the
//!   admission denies that super-packet (`DropReason::TableFull`) and counts it;
//! - linear probing bounded by [`PROBE_LIMIT`] slots: every lookup is O(1) worst case;
//! - slot positions come from keyed SipHash-1-3 ([`crate::siphash`]), so an outsider
//!   cannot aim keys at one probe run.
//!
//! Entries are never deleted inside a generation (A3 only adds), so linear probing
//! needs no tombstones. "h2 = new HashTable()" is O(1): every slot carries the stamp
//! of the generation that wrote it, and clearing a generation bumps its stamp (a
//! full wipe happens only when the u32 stamp wraps, once per 2^32 clears).

use crate::siphash::{PairPrefix, SipKey};

/// Longest probe run, in slots. With load <= 1/2 and keyed hashing, a run this
/// long is vanishingly rare for honest traffic; it bounds per-packet work.
pub const PROBE_LIMIT: usize = 32;

/// Per-port counter rows allocated per generation under a port quota (a router's
/// ports; more are added as they appear, and counted in `memory_bytes`).
pub const PORT_ROWS: usize = 64;

/// Largest `max_pairs` accepted: 2^24 pairs = 2^25 slots of 24 B per generation.
pub const MAX_PAIRS_LIMIT: u32 = 1 << 24;

/// Which generation of the moving structures (Appendix A2 names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gen {
    /// The previous epoch's generation (read-only until it is dropped).
    H1,
    /// The current epoch's generation (receives installs).
    H2,
}

/// The value of one (src, dst) entry (section 2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Entry {
    /// #_of_total_packets_reserved: sum of `len` over installed super-packets.
    pub reserved: u32,
    /// #_of_outstanding_packets: subsequent packets still expected.
    pub outstanding: u32,
}

/// Why an install was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstallError {
    /// The generation already holds `max_pairs` entries.
    Full,
    /// No free slot within [`PROBE_LIMIT`] of the home slot.
    ProbeLimit,
    /// The entry would reserve more than the per-source cap.
    Cap,
    /// The generation holds the quota of pairs installed from this ingress port.
    PortQuota,
}

/// A hashed (src, dst) key: compute once per packet, use in both generations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairKey {
    word: u64,
    hash: u64,
}

/// A live entry found by [`MovingTable::find`]; valid until the next shift or clear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryRef {
    table: usize,
    slot: usize,
}

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    word: u64,
    entry: Entry,
    stamp: u32,
}

#[derive(Debug)]
struct Generation {
    slots: Box<[Slot]>,
    stamp: u32,
    len: u32,
    outstanding: u64,
    /// Pairs installed per ingress port in this generation, (port, pairs), only under a
    /// port quota: one row per port that installed a pair, so at most the router's
    /// ports (never more than `max_pairs` rows: each row holds a pair).
    per_port: Vec<(u32, u32)>,
}

impl Generation {
    fn new(n_slots: usize) -> Self {
        Generation {
            slots: vec![Slot::default(); n_slots].into_boxed_slice(),
            stamp: 1,
            len: 0,
            outstanding: 0,
            per_port: Vec::new(),
        }
    }

    /// "new HashTable()" (A2) in O(1): slots with an older stamp read as empty.
    fn clear(&mut self) {
        if self.stamp == u32::MAX {
            self.slots.fill(Slot::default());
            self.stamp = 1;
        } else {
            self.stamp += 1;
        }
        self.len = 0;
        self.outstanding = 0;
        self.per_port.clear();
    }

    /// Probe for `key`: `Ok(slot)` if live, `Err(Some(slot))` for the first free slot
    /// of the run, `Err(None)` if the run is longer than [`PROBE_LIMIT`].
    /// [`probe`](Self::probe) with a run limit, and the slots examined.
    #[inline]
    fn probe_n(&self, key: &PairKey, limit: usize) -> (Result<usize, Option<usize>>, u32) {
        let mask = self.slots.len() - 1;
        let home = key.hash as usize & mask;
        for i in 0..limit.min(self.slots.len()) {
            let idx = (home + i) & mask;
            let slot = &self.slots[idx];
            if slot.stamp != self.stamp {
                return (Err(Some(idx)), i as u32 + 1);
            }
            if slot.word == key.word {
                return (Ok(idx), i as u32 + 1);
            }
        }
        (Err(None), limit.min(self.slots.len()) as u32)
    }

    /// Double the slots and re-insert the live entries (unbounded table only); the
    /// home slot is rehashed from the stored pair word with the table's key.
    fn grow(&mut self, key: SipKey) {
        let n = self.slots.len() * 2;
        let old = core::mem::replace(&mut self.slots, vec![Slot::default(); n].into_boxed_slice());
        let stamp = self.stamp;
        let mask = n - 1;
        for s in old.iter().filter(|s| s.stamp == stamp) {
            let pre = PairPrefix::new(key, s.word as u32, (s.word >> 32) as u32);
            let mut idx = pre.pair_hash() as usize & mask;
            while self.slots[idx].stamp == stamp {
                idx = (idx + 1) & mask;
            }
            self.slots[idx] = *s;
        }
    }
}

/// Two generations h1 (previous epoch) and h2 (current epoch), Appendix A2.
#[derive(Debug)]
pub struct MovingTable {
    gens: [Generation; 2],
    /// Index in `gens` of h2; h1 is the other one.
    cur: usize,
    max_pairs: u32,
    key: SipKey,
    /// Refuse past `max_pairs` / `PROBE_LIMIT` (true) or grow (false).
    bounded: bool,
    /// Per-entry cap on reserved packets, 0 = none.
    cap: u32,
    /// Pairs one ingress port may install per generation, 0 = no quota.
    port_quota: u32,
    /// Slots examined by the last [`install`](Self::install).
    last_install_probes: u32,
    /// Reserved packets of the entry the last successful install wrote.
    last_install_reserved: u32,
    /// Generations doubled so far.
    grows: u64,
}

impl MovingTable {
    /// Allocate both generations once. `max_pairs` is clamped to 1..=[`MAX_PAIRS_LIMIT`].
    pub fn new(max_pairs: u32, key: SipKey) -> Self {
        let max_pairs = max_pairs.clamp(1, MAX_PAIRS_LIMIT);
        let n_slots = (2 * max_pairs as usize).next_power_of_two();
        MovingTable {
            gens: [Generation::new(n_slots), Generation::new(n_slots)],
            cur: 0,
            max_pairs,
            key,
            bounded: true,
            cap: 0,
            port_quota: 0,
            last_install_probes: 0,
            last_install_reserved: 0,
            grows: 0,
        }
    }

    /// Section 3.1 switches: `bounded` false lets a generation grow past `max_pairs`
    /// (doubling at half load, probing without limit); `cap` > 0 refuses an install
    /// that would take an entry's reserved packets past `cap`.
    pub fn set_defences(&mut self, bounded: bool, cap: u32) {
        self.bounded = bounded;
        self.cap = cap;
    }

    /// The per-ingress-port quota: a new pair from a port that already installed
    /// `quota` pairs in h2 is refused (`InstallError::PortQuota`); 0: none.
    pub fn set_port_quota(&mut self, quota: u32) {
        self.port_quota = quota;
        if quota > 0 {
            // allocated once, like the slots: a router with more ports than this grows
            // the rows (and `memory_bytes` says so)
            for g in &mut self.gens {
                g.per_port.reserve_exact(PORT_ROWS.saturating_sub(g.per_port.capacity()));
            }
        }
    }

    /// Like [`find`](Self::find), adding the slots examined to `probes`.
    #[inline]
    pub fn find_counting(&self, gen: Gen, key: &PairKey, probes: &mut u32) -> Option<EntryRef> {
        let table = self.index(gen);
        let g = &self.gens[table];
        let limit = if self.bounded { PROBE_LIMIT } else { g.slots.len() };
        let (r, n) = g.probe_n(key, limit);
        *probes += n;
        r.ok().map(|slot| EntryRef { table, slot })
    }

    /// Slots examined by the last [`install`](Self::install).
    pub fn last_install_probes(&self) -> u32 {
        self.last_install_probes
    }

    /// Times a generation doubled (unbounded table only).
    pub fn grows(&self) -> u64 {
        self.grows
    }

    /// Hash (src, dst) with the router's key (section 3.1).
    #[inline]
    pub fn pair_key(&self, src: u32, dst: u32) -> PairKey {
        Self::pair_key_from(&PairPrefix::new(self.key, src, dst))
    }

    /// The same from a prefix computed with this table's key.
    #[inline]
    pub fn pair_key_from(pre: &PairPrefix) -> PairKey {
        PairKey { word: pre.word(), hash: pre.pair_hash() }
    }

    #[inline]
    fn index(&self, gen: Gen) -> usize {
        match gen {
            Gen::H2 => self.cur,
            Gen::H1 => self.cur ^ 1,
        }
    }

    /// Epoch shift (A2): "h1 = h2; h2 = new HashTable();".
    pub fn shift(&mut self) {
        self.cur ^= 1;
        self.gens[self.cur].clear();
    }

    /// Drop both generations (two or more epochs passed without an arrival).
    pub fn clear_all(&mut self) {
        self.gens[0].clear();
        self.gens[1].clear();
    }

    /// The live entry for `key` in `gen`, if any ("h.contains((src,dst))").
    #[inline]
    pub fn find(&self, gen: Gen, key: &PairKey) -> Option<EntryRef> {
        let mut n = 0;
        self.find_counting(gen, key, &mut n)
    }

    /// The value behind an [`EntryRef`] ("h.get((src,dst))").
    #[inline]
    pub fn entry(&self, e: EntryRef) -> Entry {
        self.gens[e.table].slots[e.slot].entry
    }

    /// A3 "On state installation": h2.update((src,dst), (len, len - 1)), adding to an
    /// existing entry or creating one. `len >= 1` (checked by header validation).
    pub fn install(&mut self, key: &PairKey, len: u16) -> Result<(), InstallError> {
        self.install_from(key, len, 0)
    }

    /// [`install`](Self::install) of a first packet that arrived on ingress `port`: a new
    /// pair counts against that port's quota (an existing pair's entry just grows).
    pub fn install_from(&mut self, key: &PairKey, len: u16, port: u32) -> Result<(), InstallError> {
        let (max_pairs, cap, bounded, tkey, quota) =
            (self.max_pairs, self.cap, self.bounded, self.key, self.port_quota);
        let g = &mut self.gens[self.cur];
        if !bounded && (g.len as usize + 1) * 2 > g.slots.len() {
            // Unbounded table: keep the load at most 1/2 by doubling (section 3.1's
            // "resizing might become very computationally expensive").
            g.grow(tkey);
            self.grows += 1;
        }
        let limit = if bounded { PROBE_LIMIT } else { g.slots.len() };
        let (found, n) = g.probe_n(key, limit);
        self.last_install_probes = n;
        let have = match found {
            Ok(idx) => g.slots[idx].entry.reserved,
            Err(_) => 0,
        };
        if cap > 0 && have.saturating_add(len as u32) > cap {
            return Err(InstallError::Cap);
        }
        let idx = match found {
            Ok(idx) => idx,
            Err(_) if bounded && g.len >= max_pairs => return Err(InstallError::Full),
            Err(None) => return Err(InstallError::ProbeLimit),
            Err(Some(idx)) => {
                if quota > 0 {
                    match g.per_port.iter_mut().find(|(p, _)| *p == port) {
                        Some((_, n)) if *n >= quota => return Err(InstallError::PortQuota),
                        Some((_, n)) => *n += 1,
                        None => g.per_port.push((port, 1)),
                    }
                }
                g.slots[idx] = Slot { word: key.word, entry: Entry::default(), stamp: g.stamp };
                g.len += 1;
                idx
            }
        };
        let e = &mut g.slots[idx].entry;
        e.reserved = e.reserved.saturating_add(len as u32);
        let before = e.outstanding;
        e.outstanding = before.saturating_add((len as u32).saturating_sub(1));
        g.outstanding += (e.outstanding - before) as u64;
        self.last_install_reserved = e.reserved;
        Ok(())
    }

    /// A3 "h.update((src,dst), (0,-1))": one outstanding packet consumed. Returns
    /// false (and changes nothing) if the count is already 0: it never goes below 0.
    #[inline]
    pub fn consume(&mut self, e: EntryRef) -> bool {
        let g = &mut self.gens[e.table];
        let entry = &mut g.slots[e.slot].entry;
        if entry.outstanding == 0 {
            return false;
        }
        entry.outstanding -= 1;
        g.outstanding -= 1;
        true
    }

    /// Live entries in `gen`.
    pub fn len(&self, gen: Gen) -> u32 {
        self.gens[self.index(gen)].len
    }

    /// True if neither generation holds an entry.
    pub fn is_empty(&self) -> bool {
        self.gens[0].len == 0 && self.gens[1].len == 0
    }

    /// Sum of outstanding packets over both generations, maintained in O(1)
    /// (the sum Omega_i of section 6.1's dynamic threshold).
    pub fn total_outstanding(&self) -> u64 {
        self.gens[0].outstanding + self.gens[1].outstanding
    }

    /// The configured entry limit per generation.
    pub fn max_pairs(&self) -> u32 {
        self.max_pairs
    }

    /// Slots per generation (a power of two, at least `2 * max_pairs`).
    pub fn slots(&self) -> usize {
        self.gens[0].slots.len()
    }

    /// Heap bytes `new(max_pairs, _)` allocates: both generations of
    /// `(2 max_pairs).next_power_of_two()` slots (for a memory estimate before building).
    pub fn bytes_for(max_pairs: u32) -> usize {
        let n_slots = (2 * max_pairs.clamp(1, MAX_PAIRS_LIMIT) as usize).next_power_of_two();
        2 * n_slots * core::mem::size_of::<Slot>()
    }

    /// Heap bytes of both generations (with the unbounded table, as grown so far).
    pub fn memory_bytes(&self) -> usize {
        let rows = self.gens[0].per_port.capacity() + self.gens[1].per_port.capacity();
        (self.gens[0].slots.len() + self.gens[1].slots.len()) * core::mem::size_of::<Slot>()
            + rows * core::mem::size_of::<(u32, u32)>()
    }

    /// #_of_total_packets_reserved of the entry the last successful install wrote.
    pub fn last_install_reserved(&self) -> u32 {
        self.last_install_reserved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(max_pairs: u32) -> MovingTable {
        MovingTable::new(max_pairs, SipKey::new([42, 43]))
    }

    #[test]
    fn install_adds_len_and_len_minus_one() {
        let mut t = table(8);
        let k = t.pair_key(1, 2);
        t.install(&k, 10).unwrap();
        t.install(&k, 3).unwrap();
        let e = t.entry(t.find(Gen::H2, &k).unwrap());
        assert_eq!(e, Entry { reserved: 13, outstanding: 11 });
        assert_eq!(t.len(Gen::H2), 1);
        assert_eq!(t.total_outstanding(), 11);
        assert!(t.find(Gen::H1, &k).is_none());
    }

    #[test]
    fn consume_stops_at_zero() {
        let mut t = table(8);
        let k = t.pair_key(1, 2);
        t.install(&k, 2).unwrap();
        let e = t.find(Gen::H2, &k).unwrap();
        assert!(t.consume(e));
        assert!(!t.consume(e));
        assert_eq!(t.entry(e).outstanding, 0);
        assert_eq!(t.total_outstanding(), 0);
    }

    #[test]
    fn shift_moves_h2_to_h1_then_drops_it() {
        let mut t = table(8);
        let k = t.pair_key(5, 6);
        t.install(&k, 4).unwrap();
        t.shift();
        assert!(t.find(Gen::H2, &k).is_none());
        assert_eq!(t.entry(t.find(Gen::H1, &k).unwrap()).outstanding, 3);
        assert_eq!(t.total_outstanding(), 3);
        t.shift();
        assert!(t.find(Gen::H1, &k).is_none());
        assert!(t.is_empty());
        assert_eq!(t.total_outstanding(), 0);
    }

    #[test]
    fn full_generation_refuses_and_never_grows() {
        let mut t = table(4);
        let slots = t.slots();
        for src in 0..4 {
            t.install(&t.pair_key(src, 0), 2).unwrap();
        }
        assert_eq!(t.install(&t.pair_key(99, 0), 2), Err(InstallError::Full));
        // An existing pair can still add to its entry.
        t.install(&t.pair_key(0, 0), 2).unwrap();
        assert_eq!(t.slots(), slots);
        t.shift();
        t.install(&t.pair_key(99, 0), 2).unwrap();
    }

    #[test]
    fn stamp_wrap_wipes_stale_slots() {
        let mut t = table(2);
        let k = t.pair_key(1, 1);
        t.install(&k, 5).unwrap();
        t.gens[t.cur].stamp = u32::MAX;
        t.gens[t.cur].slots.iter_mut().for_each(|s| {
            if s.word == k.word {
                s.stamp = u32::MAX;
            }
        });
        assert!(t.find(Gen::H2, &k).is_some());
        t.gens[t.cur].clear();
        assert!(t.find(Gen::H2, &k).is_none());
        assert_eq!(t.gens[t.cur].stamp, 1);
    }
}
