//! A FIFO ring of `Copy` values with power-of-two capacity: index arithmetic is a mask,
//! which the link's hot path (one push, one pop and a few reads per packet) wants.

#[derive(Clone, Debug)]
pub struct Ring<T> {
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy + Default> Default for Ring<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + Default> Ring<T> {
    pub fn new() -> Self {
        Ring { buf: vec![T::default(); 16], head: 0, len: 0 }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn mask(&self) -> usize {
        self.buf.len() - 1
    }

    #[inline]
    pub fn push_back(&mut self, x: T) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let i = (self.head + self.len) & self.mask();
        // SAFETY: `buf.len()` is a power of two >= 16 (new, grow), so `i & mask < buf.len()`
        unsafe { *self.buf.get_unchecked_mut(i) = x };
        self.len += 1;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        // SAFETY: `head` is always masked, and `buf.len()` a power of two >= 16
        let x = unsafe { *self.buf.get_unchecked(self.head) };
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(x)
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        self.get(0)
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        if i < self.len {
            // SAFETY: a masked index into a buffer whose length is a power of two >= 16
            Some(unsafe { self.buf.get_unchecked((self.head + i) & self.mask()) })
        } else {
            None
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len).map(move |i| &self.buf[(self.head + i) & self.mask()])
    }

    #[cold]
    fn grow(&mut self) {
        let mut nb = vec![T::default(); self.buf.len() * 2];
        for (k, x) in self.iter().enumerate() {
            nb[k] = *x;
        }
        self.buf = nb;
        self.head = 0;
    }

    /// Bytes held, for memory accounting.
    pub fn memory_bytes(&self) -> usize {
        self.buf.capacity() * std::mem::size_of::<T>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn behaves_like_vecdeque() {
        let mut r = Ring::new();
        let mut v = VecDeque::new();
        let mut x = 0u64;
        for step in 0..10_000u64 {
            if step % 3 != 2 || step % 1000 < 400 {
                r.push_back(x);
                v.push_back(x);
                x += 1;
            } else {
                assert_eq!(r.pop_front(), v.pop_front());
            }
            assert_eq!(r.len(), v.len());
            assert_eq!(r.front(), v.front());
            assert_eq!(r.get(r.len() / 2), v.get(v.len() / 2));
        }
        assert!(r.iter().eq(v.iter()));
    }
}
