//! The far part of the event list: a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms
//! for the shortest path problem", JACM 1990) over integer nanosecond keys.
//!
//! A discrete-event simulator only ever pops keys >= the last popped key, which is the
//! monotone condition the radix heap needs. Bucket `i` holds keys whose highest bit
//! differing from `last` is bit `i - 1`; bucket 0 holds keys equal to `last`. Push is
//! O(1); pop is amortised O(log C). Unlike a comparison heap it touches only a few small
//! contiguous vectors, so it stays in cache with 10^5-10^6 pending events.
//!
//! Events are small `Copy` values (ids), so bucket 0 is read by index.
//!
//! Ties: all items with the same key always sit in the same bucket, pushes append and
//! redistribution is stable into buckets that are empty at that moment, and bucket 0 pops
//! from the front. So equal-time events pop in insertion order: runs are deterministic.

pub struct RadixHeap<E> {
    buckets: Vec<Vec<(u64, E)>>,
    /// Read position in bucket 0 (FIFO).
    head0: usize,
    last: u64,
    len: usize,
    /// Bit i - 1 set when bucket i (1..=64) is non-empty: the next bucket in one instruction.
    nonempty: u64,
    /// A lower bound on every key held (exact after a failed `pop_until`): lets a
    /// `pop_until` below it answer None without scanning a bucket. Pops only raise the
    /// true minimum and pushes lower the bound, so it stays a bound.
    min_hint: u64,
}

#[inline]
fn bucket_of(key: u64, last: u64) -> usize {
    (64 - (key ^ last).leading_zeros()) as usize
}

impl<E: Copy> Default for RadixHeap<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> RadixHeap<E> {
    pub fn new() -> Self {
        RadixHeap {
            buckets: (0..65).map(|_| Vec::new()).collect(),
            head0: 0,
            last: 0,
            len: 0,
            nonempty: 0,
            min_hint: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A lower bound on every key held (u64::MAX when empty).
    #[inline]
    pub fn min_bound(&self) -> u64 {
        if self.len == 0 {
            u64::MAX
        } else {
            self.min_hint
        }
    }

    /// The key of the last popped event (the current time of a simulator).
    pub fn last(&self) -> u64 {
        self.last
    }

    /// Schedules `e` at `key`; `key` must not be earlier than the last popped key.
    #[inline]
    pub fn push(&mut self, key: u64, e: E) {
        debug_assert!(key >= self.last, "event in the past: {key} < {}", self.last);
        let b = bucket_of(key, self.last);
        self.buckets[b].push((key, e));
        self.min_hint = self.min_hint.min(key);
        if b > 0 {
            self.nonempty |= 1u64 << (b - 1);
        }
        self.len += 1;
    }

    /// Pops the earliest event if its key is <= `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: u64) -> Option<(u64, E)> {
        if self.head0 < self.buckets[0].len() {
            return self.pop0();
        }
        if self.len == 0 {
            return None;
        }
        if self.nonempty == 0 || limit < self.min_hint {
            return None;
        }
        let i = self.nonempty.trailing_zeros() as usize + 1;
        let min = self.buckets[i].iter().map(|(k, _)| *k).min().expect("non-empty");
        if min > limit {
            self.min_hint = min;
            return None;
        }
        self.last = min;
        self.buckets[0].clear();
        self.head0 = 0;
        let mut items = std::mem::take(&mut self.buckets[i]);
        self.nonempty &= !(1u64 << (i - 1));
        let mut moved = 0u64; // buckets below i: bit b set for bucket b (b < 64)
        for (k, e) in items.drain(..) {
            let b = bucket_of(k, min);
            debug_assert!(b < i);
            self.buckets[b].push((k, e));
            moved |= 1u64 << b;
        }
        self.nonempty |= moved >> 1; // bucket b -> bit b - 1; bucket 0 has no bit
        self.buckets[i] = items; // keep the allocation
        self.pop0()
    }

    pub fn pop(&mut self) -> Option<(u64, E)> {
        self.pop_until(u64::MAX)
    }

    #[inline]
    fn pop0(&mut self) -> Option<(u64, E)> {
        let item = self.buckets[0][self.head0];
        self.head0 += 1;
        self.len -= 1;
        if self.head0 == self.buckets[0].len() {
            self.buckets[0].clear();
            self.head0 = 0;
        }
        Some(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::rng::Rng;

    #[test]
    fn pops_in_order_with_fifo_ties() {
        let mut q = RadixHeap::new();
        let mut r = Rng::new(1);
        let mut now = 0u64;
        let mut expect: Vec<(u64, u64)> = Vec::new();
        let mut got = Vec::new();
        let mut id = 0u64;
        // interleave pushes and pops, keys >= now, many ties
        for round in 0..2000 {
            for _ in 0..(round % 7) {
                let k = now + r.range_u64(0, 50) * 1000;
                q.push(k, id);
                expect.push((k, id));
                id += 1;
            }
            if let Some((k, e)) = q.pop() {
                assert!(k >= now);
                now = k;
                got.push((k, e));
            }
        }
        while let Some((k, e)) = q.pop() {
            got.push((k, e));
        }
        // stable sort by key == insertion order for ties
        expect.sort_by_key(|&(k, _)| k);
        // the popped sequence must be sorted by key and FIFO within a key
        let mut sorted = got.clone();
        sorted.sort_by_key(|&(k, _)| k);
        assert_eq!(got, sorted);
        for w in got.windows(2) {
            if w[0].0 == w[1].0 {
                assert!(w[0].1 < w[1].1, "tie broken out of insertion order");
            }
        }
        assert_eq!(got.len(), expect.len());
    }

    #[test]
    fn pop_until_respects_limit() {
        let mut q = RadixHeap::new();
        q.push(10, 'a');
        q.push(5, 'b');
        assert_eq!(q.pop_until(4), None);
        assert_eq!(q.pop_until(7), Some((5, 'b')));
        assert_eq!(q.pop_until(7), None);
        q.push(7, 'c');
        assert_eq!(q.pop(), Some((7, 'c')));
        assert_eq!(q.pop(), Some((10, 'a')));
        assert!(q.is_empty());
    }
}
