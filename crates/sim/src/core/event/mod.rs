//! The event list: a timing wheel for the near future in front of a radix heap for the
//! far future.
//!
//! Timing wheel: Varghese and Lauck, "Hashed and hierarchical timing wheels", SOSP 1987
//! (scheme 4, one level): `SLOTS` slots of 2^`SLOT_BITS` ns cover the next ~4 ms, where
//! almost every event of a packet simulation falls (serialisation and propagation of
//! the next hop). A push there is one `Vec::push`; a slot is sorted (stable, by time)
//! once, when the wheel reaches it. Events beyond the wheel's horizon (timers) wait in a
//! radix heap (radix.rs) and move into the wheel as its horizon passes them.
//!
//! A dense slot (more than `SPLIT_AT` events when reached, as in a fabric of tens or hundreds of
//! hosts where hundreds of events share a microsecond) is not sorted whole: it is
//! distributed, in order, over `SUBS` sub-slots of 2^`SUB_BITS` ns (a second, finer wheel
//! for this slot only), and each sub-slot is sorted when reached. A push into the slot
//! being consumed then appends to its sub-slot, and only a push into the sub-slot being
//! consumed is a sorted insert, among a few events instead of hundreds.
//!
//! Ties: equal times pop in insertion order. Within a slot the sort is stable and pushes
//! append (or, into the slot being consumed, go after every equal time). An event that
//! waited in the radix heap was pushed before any event of the same time could enter the
//! wheel, and it enters the wheel (appended) the moment the horizon reaches its time,
//! before control returns to the caller: so it stays ahead of later pushes.

mod radix;

pub use radix::RadixHeap;

const SLOT_BITS: u32 = 10;
const SLOTS: u64 = 4096;
const MASK: u64 = SLOTS - 1;
const WORDS: usize = (SLOTS / 64) as usize;
/// Sub-slots of a dense slot: 2^SUB_BITS ns each, 64 of them (one bitmask word).
const SUB_BITS: u32 = 4;
const SUBS: usize = 1 << (SLOT_BITS - SUB_BITS);
const SUB_MASK: u64 = SUBS as u64 - 1;
/// A slot holding more events than this when reached is split into sub-slots (8: a
/// stable sort of more costs more than the split; 4 costs P1 +10 %).
const SPLIT_AT: usize = 8;

pub struct EventList<E> {
    slots: Vec<Vec<(u64, E)>>,
    /// Bit s set when slot s is non-empty.
    occupied: [u64; WORDS],
    /// The events being consumed, sorted by time, read from `head`: the whole current
    /// slot, or (when it is split) its current sub-slot.
    cur: Vec<(u64, E)>,
    head: usize,
    /// Absolute slot number (time >> SLOT_BITS) of `cur`.
    cur_slot: u64,
    /// The current slot is split: its sub-slots after `cur_sub` wait in `subs`.
    split: bool,
    /// Sub-slot index (0..SUBS) within the current slot that `cur` holds (when split).
    cur_sub: usize,
    subs: Vec<Vec<(u64, E)>>,
    /// Bit j set when `subs[j]` is non-empty.
    sub_occ: u64,
    /// Events in `subs`.
    in_subs: usize,
    /// Events in `slots` (not counting `cur`).
    in_wheel: usize,
    far: RadixHeap<E>,
    last: u64,
}

impl<E: Copy> Default for EventList<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventList<E> {
    pub fn new() -> Self {
        EventList {
            slots: (0..SLOTS).map(|_| Vec::new()).collect(),
            occupied: [0; WORDS],
            cur: Vec::new(),
            head: 0,
            cur_slot: 0,
            split: false,
            cur_sub: 0,
            subs: (0..SUBS).map(|_| Vec::new()).collect(),
            sub_occ: 0,
            in_subs: 0,
            in_wheel: 0,
            far: RadixHeap::new(),
            last: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.cur.len() - self.head + self.in_subs + self.in_wheel + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The key of the last popped event (the current time of a simulator).
    pub fn last(&self) -> u64 {
        self.last
    }

    /// First time past the wheel's horizon.
    #[inline]
    fn horizon(&self) -> u64 {
        (self.cur_slot + SLOTS) << SLOT_BITS
    }

    /// Schedules `e` at `key`; `key` must not be earlier than the last popped key.
    #[inline(always)]
    pub fn push(&mut self, key: u64, e: E) {
        debug_assert!(key >= self.last, "event in the past: {key} < {}", self.last);
        let s = key >> SLOT_BITS;
        if s != self.cur_slot && key < self.horizon() {
            self.put(s, key, e);
        } else {
            self.push_slow(key, e);
        }
    }

    #[inline(never)]
    fn push_slow(&mut self, key: u64, e: E) {
        if key >> SLOT_BITS == self.cur_slot {
            self.put_cur(key, e);
        } else {
            self.far.push(key, e);
        }
    }

    /// Into the slot being consumed: a later sub-slot's list (appended: it holds no event
    /// pushed later), else `cur`, after every pending event with time <= key.
    #[inline(always)]
    fn put_cur(&mut self, key: u64, e: E) {
        if self.split {
            let j = ((key >> SUB_BITS) & SUB_MASK) as usize;
            if j > self.cur_sub {
                self.subs[j].push((key, e));
                self.sub_occ |= 1u64 << j;
                self.in_subs += 1;
                return;
            }
        }
        let pos = self.head + self.cur[self.head..].partition_point(|&(k, _)| k <= key);
        self.cur.insert(pos, (key, e));
    }

    #[inline(always)]
    fn put(&mut self, s: u64, key: u64, e: E) {
        let i = (s & MASK) as usize;
        self.slots[i].push((key, e));
        self.occupied[i / 64] |= 1u64 << (i % 64);
        self.in_wheel += 1;
    }

    /// Pops the earliest event if its key is <= `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: u64) -> Option<(u64, E)> {
        loop {
            if let Some(&(k, e)) = self.cur.get(self.head) {
                if k > limit {
                    return None;
                }
                self.head += 1;
                self.last = k;
                return Some((k, e));
            }
            if !self.advance(limit) {
                return None;
            }
        }
    }

    pub fn pop(&mut self) -> Option<(u64, E)> {
        self.pop_until(u64::MAX)
    }

    /// Moves `cur` to the next non-empty sub-slot of a split slot, else to the next
    /// non-empty slot not past `limit`'s slot; false if none.
    fn advance(&mut self, limit: u64) -> bool {
        if self.split {
            if self.sub_occ != 0 {
                let j = self.sub_occ.trailing_zeros() as usize;
                if (self.cur_slot << SLOT_BITS) + ((j as u64) << SUB_BITS) > limit {
                    return false;
                }
                self.cur.clear();
                self.head = 0;
                self.cur_sub = j;
                std::mem::swap(&mut self.cur, &mut self.subs[j]);
                self.sub_occ &= !(1u64 << j);
                self.in_subs -= self.cur.len();
                if self.cur.len() > 1 {
                    self.cur.sort_by_key(|&(k, _)| k); // stable
                }
                return true;
            }
            self.split = false;
        }
        let limit_slot = limit >> SLOT_BITS;
        let next = if self.in_wheel > 0 {
            self.next_occupied()
        } else {
            // the wheel is empty: jump to the radix heap's earliest event
            match self.far.pop_until(limit) {
                None => return false,
                Some((k, e)) => {
                    // Straight into `cur` (not into a wheel slot that would be swapped in
                    // over `cur`): migrate() puts the radix heap's other events of this
                    // same slot into `cur`, and they must not be cleared afterwards (issue 4:
                    // events within 1 us of each other past the horizon were lost).
                    let s = k >> SLOT_BITS;
                    self.cur.clear();
                    self.head = 0;
                    self.cur_slot = s;
                    self.cur.push((k, e));
                    self.migrate();
                    return true;
                }
            }
        };
        if next > limit_slot {
            return false;
        }
        self.cur.clear();
        self.head = 0;
        self.cur_slot = next;
        let i = (next & MASK) as usize;
        std::mem::swap(&mut self.cur, &mut self.slots[i]);
        self.occupied[i / 64] &= !(1u64 << (i % 64));
        self.in_wheel -= self.cur.len();
        if self.cur.len() > SPLIT_AT {
            self.split_cur();
        } else if self.cur.len() > 1 {
            self.cur.sort_by_key(|&(k, _)| k); // stable: ties keep insertion order
        }
        self.migrate();
        true
    }

    /// Distributes the (unsorted) current slot over its sub-slots, in order, and takes
    /// the first non-empty one into `cur`, sorted.
    #[inline(never)]
    fn split_cur(&mut self) {
        debug_assert!(!self.split && self.head == 0 && self.sub_occ == 0);
        for &(k, e) in &self.cur {
            let j = ((k >> SUB_BITS) & SUB_MASK) as usize;
            self.subs[j].push((k, e));
            self.sub_occ |= 1u64 << j;
        }
        let n = self.cur.len();
        self.cur.clear();
        let j = self.sub_occ.trailing_zeros() as usize;
        std::mem::swap(&mut self.cur, &mut self.subs[j]);
        self.sub_occ &= !(1u64 << j);
        self.in_subs = n - self.cur.len();
        self.cur_sub = j;
        self.split = true;
        if self.cur.len() > 1 {
            self.cur.sort_by_key(|&(k, _)| k); // stable
        }
    }

    /// Absolute number of the first occupied slot after `cur_slot` (the wheel is not empty).
    fn next_occupied(&self) -> u64 {
        let start = (self.cur_slot + 1) & MASK;
        let mut i = start as usize;
        for _ in 0..=WORDS {
            let w = i / 64;
            let bits = self.occupied[w] & (!0u64 << (i % 64));
            if bits != 0 {
                let slot = (w * 64) as u64 + bits.trailing_zeros() as u64;
                let ahead = (slot.wrapping_sub(start) & MASK) + 1;
                return self.cur_slot + ahead;
            }
            i = ((w + 1) * 64) % SLOTS as usize;
        }
        unreachable!("in_wheel > 0 but no slot occupied")
    }

    /// Moves radix-heap events that the horizon has reached into the wheel.
    #[inline(always)]
    fn migrate(&mut self) {
        if self.horizon() > self.far.min_bound() {
            self.migrate_far();
        }
    }

    #[inline(never)]
    fn migrate_far(&mut self) {
        let h = self.horizon();
        while let Some((k, e)) = self.far.pop_until(h - 1) {
            let s = k >> SLOT_BITS;
            if s == self.cur_slot {
                self.put_cur(k, e);
            } else {
                self.put(s, k, e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::rng::Rng;
    use std::collections::BinaryHeap;

    /// Against a reference (time, insertion number) min-heap, with pushes at every
    /// distance (same slot, within the wheel, past the horizon), ties, and limits.
    #[test]
    fn matches_reference_heap() {
        for seed in 0..20 {
            let mut r = Rng::new(seed);
            let mut q = EventList::new();
            let mut refq = BinaryHeap::new();
            let mut now = 0u64;
            let mut id = 0u64;
            for step in 0..20_000 {
                for _ in 0..r.range_u64(0, 3) {
                    let d = match r.range_u64(0, 6) {
                        0 => 0,
                        1 => r.range_u64(0, 255),
                        2 => r.range_u64(0, 100_000),
                        3 => r.range_u64(0, 3_000_000),
                        4 => r.range_u64(0, 200_000_000),
                        // several events in one slot far past the horizon (timers of
                        // flows started together): the jump from an empty wheel
                        5 => 50_000_000 * r.range_u64(1, 2) + r.range_u64(0, 2) * 300,
                        _ => r.range_u64(0, 3) * 1000,
                    };
                    q.push(now + d, id);
                    refq.push(std::cmp::Reverse((now + d, id)));
                    id += 1;
                }
                let limit = if step % 7 == 0 { now + r.range_u64(0, 5_000) } else { u64::MAX };
                pop_checked(&mut q, &mut refq, limit, &mut now, (seed, step));
            }
        }
    }

    /// One `pop_until(limit)` of `q` against the reference heap (equal keys by id, i.e. in
    /// insertion order); `now` follows the popped key, or the limit when nothing was due.
    fn pop_checked(
        q: &mut EventList<u64>,
        refq: &mut BinaryHeap<std::cmp::Reverse<(u64, u64)>>,
        limit: u64,
        now: &mut u64,
        at: (u64, u32),
    ) {
        let got = q.pop_until(limit);
        let want = match refq.peek() {
            Some(std::cmp::Reverse((k, _))) if *k <= limit => refq.pop().map(|std::cmp::Reverse(x)| x),
            _ => None,
        };
        assert_eq!(got, want, "seed {} step {}", at.0, at.1);
        if let Some((k, _)) = got {
            *now = k;
        } else if limit != u64::MAX {
            *now = limit.max(*now);
        }
        assert_eq!(q.len(), refq.len());
    }

    /// Dense slots (hundreds of events a microsecond, so slots are split into
    /// sub-slots) against the reference heap: pushes into the sub-slot being consumed,
    /// into later sub-slots of the current slot, past it, past the horizon; ties; limits
    /// that stop inside a split slot, with pushes before the next pop.
    #[test]
    fn dense_slots_match_reference_heap() {
        for seed in 0..20 {
            let mut r = Rng::new(1000 + seed);
            let mut q = EventList::new();
            let mut refq = BinaryHeap::new();
            let mut now = 0u64;
            let mut id = 0u64;
            let mut splits = 0;
            for step in 0..30_000 {
                let n = if refq.len() < 400 { r.range_u64(0, 8) } else { r.range_u64(0, 1) };
                for _ in 0..n {
                    let d = match r.range_u64(0, 7) {
                        0 => 0,
                        1 => r.range_u64(0, 15),
                        2 => r.range_u64(0, 100),
                        3 | 4 => r.range_u64(0, 1_500),
                        5 => r.range_u64(0, 4_000),
                        6 => r.range_u64(0, 3) * 16,
                        _ => r.range_u64(4_000_000, 5_000_000),
                    };
                    q.push(now + d, id);
                    refq.push(std::cmp::Reverse((now + d, id)));
                    id += 1;
                }
                splits += q.split as u32;
                let limit = if step % 5 == 0 { now + r.range_u64(0, 200) } else { u64::MAX };
                for _ in 0..r.range_u64(1, 3) {
                    pop_checked(&mut q, &mut refq, limit, &mut now, (seed, step));
                }
            }
            assert!(splits > 300, "seed {seed}: steps in a split slot: only {splits}");
            while let Some(got) = q.pop() {
                assert_eq!(Some(got), refq.pop().map(|std::cmp::Reverse(x)| x));
            }
            assert!(refq.is_empty());
        }
    }

    #[test]
    fn pop_until_respects_limit() {
        let mut q = EventList::new();
        q.push(10, 'a');
        q.push(5, 'b');
        assert_eq!(q.pop_until(4), None);
        assert_eq!(q.pop_until(7), Some((5, 'b')));
        assert_eq!(q.pop_until(7), None);
        q.push(7, 'c');
        q.push(7_000_000_000, 'd');
        q.push(7, 'e');
        assert_eq!(q.pop(), Some((7, 'c')));
        assert_eq!(q.pop(), Some((7, 'e')));
        assert_eq!(q.pop(), Some((10, 'a')));
        assert_eq!(q.pop(), Some((7_000_000_000, 'd')));
        assert!(q.is_empty());
    }
}
