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

pub struct EventList<E> {
    slots: Vec<Vec<(u64, E)>>,
    /// Bit s set when slot s is non-empty.
    occupied: [u64; WORDS],
    /// The slot being consumed, sorted by time, read from `head`.
    cur: Vec<(u64, E)>,
    head: usize,
    /// Absolute slot number (time >> SLOT_BITS) of `cur`.
    cur_slot: u64,
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
            in_wheel: 0,
            far: RadixHeap::new(),
            last: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.cur.len() - self.head + self.in_wheel + self.far.len()
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
            // into the slot being consumed: after every pending event with time <= key
            let pos = self.head + self.cur[self.head..].partition_point(|&(k, _)| k <= key);
            self.cur.insert(pos, (key, e));
        } else {
            self.far.push(key, e);
        }
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

    /// Moves `cur` to the next non-empty slot not past `limit`'s slot; false if none.
    fn advance(&mut self, limit: u64) -> bool {
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
        if self.cur.len() > 1 {
            self.cur.sort_by_key(|&(k, _)| k); // stable: ties keep insertion order
        }
        self.migrate();
        true
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
                let pos = self.head + self.cur[self.head..].partition_point(|&(x, _)| x <= k);
                self.cur.insert(pos, (k, e));
            } else {
                self.put(s, k, e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
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
                let got = q.pop_until(limit);
                let want = match refq.peek() {
                    Some(std::cmp::Reverse((k, _))) if *k <= limit => refq.pop().map(|std::cmp::Reverse(x)| x),
                    _ => None,
                };
                assert_eq!(got, want, "seed {seed} step {step}");
                if let Some((k, _)) = got {
                    now = k;
                } else if limit != u64::MAX {
                    now = limit.max(now);
                }
                assert_eq!(q.len(), refq.len());
            }
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
