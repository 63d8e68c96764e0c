//! Every route's links in one array, each route a (start, end) span of it.

use crate::core::packet::LinkId;

/// Every route's links in one array, each route a (start, end) span of it: a hop's
/// lookup (`forward`) reads an 8-byte span and the links beside other routes' links,
/// not a pointer to an allocation of its own (a cache miss more per hop on a large fabric).
#[derive(Default)]
pub(crate) struct Routes {
    links: Vec<LinkId>,
    spans: Vec<(u32, u32)>,
}

impl Routes {
    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    pub(crate) fn push(&mut self, path: &[LinkId]) {
        let start = u32::try_from(self.links.len()).expect("over 2^32 route links");
        let end = u32::try_from(self.links.len() + path.len()).expect("over 2^32 route links");
        self.links.extend_from_slice(path);
        self.spans.push((start, end));
    }
}

impl std::ops::Index<usize> for Routes {
    type Output = [LinkId];
    #[inline(always)]
    fn index(&self, r: usize) -> &[LinkId] {
        let (start, end) = self.spans[r];
        // SAFETY: spans are only made by `push`, each the range of links it appended, and
        // `links` only grows
        unsafe { self.links.get_unchecked(start as usize..end as usize) }
    }
}

#[cfg(test)]
mod tests {
    use super::Routes;

    /// Each route reads back as pushed, empty ones included, against a Vec of Vecs.
    #[test]
    fn routes_read_back_as_pushed() {
        let mut rng = crate::core::rng::Rng::new(7);
        let mut routes = Routes::default();
        let mut reference: Vec<Vec<u32>> = Vec::new();
        for _ in 0..1000 {
            let path: Vec<u32> = (0..rng.range_u64(0, 6)).map(|_| rng.range_u64(0, 5000) as u32).collect();
            routes.push(&path);
            reference.push(path);
            assert_eq!(routes.len(), reference.len());
        }
        for (r, path) in reference.iter().enumerate() {
            assert_eq!(&routes[r], path.as_slice());
        }
    }
}
