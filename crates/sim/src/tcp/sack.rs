//! Selective acknowledgements: the blocks an ACK carries (RFC 2018) and the sender's
//! scoreboard with the RFC 6675 section 4 routines IsLost() and SetPipe().
//!
//! Blocks are byte ranges [left, right) of sequence space (RFC 2018 section 3: the left
//! edge is the first octet, the right edge the octet after the last). An ACK carries at
//! most `MAX_BLOCKS` = 3 (40 option bytes with timestamps, RFC 2018 section 3). They
//! travel beside the packet (the simulator's SACK side table), not in it, so packets
//! of flows without SACK stay small.
//!
//! Cost: the scoreboard is a sorted list of disjoint SACKed ranges above snd_una. Its
//! length is the number of holes, not the window: at a 20,000-packet window and 1 %
//! loss about 200. IsLost() looks at the top three ranges at most, SetPipe() is O(1)
//! from running totals plus one scan of the ranges below HighRxt.

/// Most SACK blocks one ACK carries (RFC 2018 section 3, with timestamps).
pub const MAX_BLOCKS: usize = 3;

/// One SACK block, [left, right) in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub left: u64,
    pub right: u64,
}

/// The blocks of one ACK (`n` of them used).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    pub n: u8,
    pub b: [SackBlock; MAX_BLOCKS],
}

impl SackBlocks {
    pub fn as_slice(&self) -> &[SackBlock] {
        &self.b[..self.n as usize]
    }

    pub fn push(&mut self, blk: SackBlock) {
        if (self.n as usize) < MAX_BLOCKS {
            self.b[self.n as usize] = blk;
            self.n += 1;
        }
    }
}

/// The sender's record of SACKed data above HighACK (RFC 6675 section 3, Update()).
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// Disjoint, sorted, non-adjacent SACKed ranges, all above snd_una.
    ranges: Vec<(u64, u64)>,
    /// Sum of the ranges' lengths.
    sacked: u64,
}

impl Scoreboard {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// SACKed bytes above snd_una.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked
    }

    /// The highest SACKed octet + 1 (0 when nothing is SACKed).
    pub fn high_sacked(&self) -> u64 {
        self.ranges.last().map_or(0, |r| r.1)
    }

    /// RFC 2018 section 8 / RFC 6675 Update(): record a block; returns the number of
    /// octets it newly SACKed (an ACK that newly SACKs data is a duplicate ACK in the
    /// sense of RFC 6675 section 2). Parts at or below `snd_una` are ignored.
    pub fn add(&mut self, blk: SackBlock, snd_una: u64) -> u64 {
        self.add_split(blk, snd_una, 0).0
    }

    /// As `add`; also returns how many of the newly SACKed octets lie below `bound`.
    pub fn add_split(&mut self, blk: SackBlock, snd_una: u64, bound: u64) -> (u64, u64) {
        let (l, r) = (blk.left.max(snd_una), blk.right);
        if l >= r {
            return (0, 0);
        }
        let below = |a: u64, b: u64| b.min(bound).saturating_sub(a);
        // first range that ends at or after l (touching ranges merge)
        let i = self.ranges.partition_point(|x| x.1 < l);
        let mut j = i;
        let (mut nl, mut nr) = (l, r);
        let mut covered = 0;
        let mut covered_below = 0;
        while j < self.ranges.len() && self.ranges[j].0 <= r {
            let (a, b) = self.ranges[j];
            covered += b.min(r).saturating_sub(a.max(l));
            covered_below += below(a.max(l), b.min(r).max(a.max(l)));
            nl = nl.min(a);
            nr = nr.max(b);
            self.sacked -= b - a;
            j += 1;
        }
        let new = (r - l) - covered;
        self.ranges.splice(i..j, std::iter::once((nl, nr)));
        self.sacked += nr - nl;
        (new, below(l, r) - covered_below)
    }

    /// The cumulative ACK moved to `snd_una`: forget what lies below it; returns the
    /// SACKed octets forgotten.
    pub fn advance(&mut self, snd_una: u64) -> u64 {
        let before = self.sacked;
        let k = self.ranges.partition_point(|x| x.1 <= snd_una);
        for &(a, b) in &self.ranges[..k] {
            self.sacked -= b - a;
        }
        self.ranges.drain(..k);
        if let Some(first) = self.ranges.first_mut() {
            if first.0 < snd_una {
                self.sacked -= snd_una - first.0;
                first.0 = snd_una;
            }
        }
        before - self.sacked
    }

    /// RFC 2018 section 5 / RFC 6675 section 5.1: after an RTO the SACKed marks are
    /// turned off.
    pub fn clear(&mut self) {
        self.ranges.clear();
        self.sacked = 0;
    }

    /// The loss boundary: every un-SACKed octet below it is lost in the sense of RFC 6675
    /// IsLost(): "DupThresh discontiguous SACKed sequences" above it, or more than
    /// (DupThresh - 1) SMSS octets SACKed above it. Un-SACKed octets lie in holes, so the
    /// ranges above such an octet are whole: walk down from the top range until either
    /// condition holds; the boundary is the start of that range. 0 when no octet is lost.
    pub fn lost_below(&self, dupthresh: u32, mss: u64) -> u64 {
        self.lost_boundary(dupthresh, mss).0
    }

    /// `lost_below` and the SACKed octets above it (walked to find it: at most
    /// DupThresh ranges).
    pub fn lost_boundary(&self, dupthresh: u32, mss: u64) -> (u64, u64) {
        let mut bytes = 0;
        for (k, &(a, b)) in self.ranges.iter().rev().enumerate() {
            bytes += b - a;
            if k as u32 + 1 >= dupthresh || bytes > (dupthresh as u64 - 1) * mss {
                return (a, bytes);
            }
        }
        (0, bytes)
    }

    /// SACKed octets in [from, to).
    pub fn sacked_in(&self, from: u64, to: u64) -> u64 {
        let mut s = 0;
        let i = self.ranges.partition_point(|x| x.1 <= from);
        for &(a, b) in &self.ranges[i..] {
            if a >= to {
                break;
            }
            s += b.min(to) - a.max(from);
        }
        s
    }

    /// The first un-SACKed octet at or above `seq`.
    pub fn next_hole(&self, seq: u64) -> u64 {
        let i = self.ranges.partition_point(|x| x.1 <= seq);
        match self.ranges.get(i) {
            Some(&(a, b)) if a <= seq => b,
            _ => seq,
        }
    }

    /// End of the hole that starts at `seq` (the next SACKed range's start, or `limit`).
    pub fn hole_end(&self, seq: u64, limit: u64) -> u64 {
        let i = self.ranges.partition_point(|x| x.1 <= seq);
        self.ranges.get(i).map_or(limit, |r| r.0.min(limit))
    }

    /// RFC 6675 SetPipe() from running totals: `sacked_below_rxt` is the SACKed octets
    /// in [snd_una, high_rxt), kept by the caller as blocks arrive and HighRxt moves.
    /// O(DupThresh): the per-ACK work does not grow with the window or the holes.
    pub fn pipe_fast(
        &self,
        snd_una: u64,
        snd_max: u64,
        high_rxt: u64,
        sacked_below_rxt: u64,
        dupthresh: u32,
        mss: u64,
    ) -> u64 {
        let unsacked = (snd_max - snd_una) - self.sacked;
        let (bound, above) = self.lost_boundary(dupthresh, mss);
        let lost = if bound > snd_una { (bound - snd_una) - (self.sacked - above) } else { 0 };
        let rxt = high_rxt.clamp(snd_una, snd_max) - snd_una - sacked_below_rxt;
        unsacked - lost + rxt
    }

    /// RFC 6675 SetPipe(): for each un-SACKed octet in [snd_una, snd_max): +1 unless
    /// IsLost, +1 more if it is at or below HighRxt (`high_rxt` is one past the highest
    /// retransmitted octet). In bytes. By scanning the ranges: the reference `pipe_fast`
    /// is tested against.
    pub fn pipe(&self, snd_una: u64, snd_max: u64, high_rxt: u64, dupthresh: u32, mss: u64) -> u64 {
        let unsacked = (snd_max - snd_una) - self.sacked;
        let lost_to = self.lost_below(dupthresh, mss).clamp(snd_una, snd_max);
        let lost = (lost_to - snd_una) - self.sacked_in(snd_una, lost_to);
        let rxt_to = high_rxt.clamp(snd_una, snd_max);
        let rxt = (rxt_to - snd_una) - self.sacked_in(snd_una, rxt_to);
        unsacked - lost + rxt
    }
}

/// The receiver's side (RFC 2018 section 4): which blocks the next ACK reports. The
/// first block holds the segment that triggered the ACK (unless it advanced the
/// cumulative ACK); the others repeat the most recently reported blocks, newest first,
/// that are not already included.
#[derive(Clone, Debug, Default)]
pub struct SackReporter {
    /// Left edges of recently reported blocks, newest first (looked up in the
    /// receiver's out-of-order list, whose ranges grow by merging).
    recent: [u64; MAX_BLOCKS],
    n: usize,
}

impl SackReporter {
    /// Blocks for an ACK: `ooo` is the receiver's sorted, disjoint out-of-order list
    /// (all above rcv_nxt); `trigger` the octet range of the segment that triggered the
    /// ACK when it did not advance the cumulative ACK.
    pub fn blocks(&mut self, ooo: &[(u64, u64)], trigger: Option<(u64, u64)>) -> SackBlocks {
        let mut out = SackBlocks::default();
        let find = |seq: u64| -> Option<(u64, u64)> {
            let i = ooo.partition_point(|r| r.1 <= seq);
            ooo.get(i).copied().filter(|r| r.0 <= seq)
        };
        let push = |out: &mut SackBlocks, r: (u64, u64)| {
            if !out.as_slice().iter().any(|b| b.left == r.0) {
                out.push(SackBlock { left: r.0, right: r.1 });
            }
        };
        if let Some(r) = trigger.and_then(|(s, _)| find(s)) {
            push(&mut out, r);
        }
        for k in 0..self.n {
            if let Some(r) = find(self.recent[k]) {
                push(&mut out, r);
            }
        }
        self.n = out.n as usize;
        for (k, b) in out.as_slice().iter().enumerate() {
            self.recent[k] = b.left;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 1000;

    fn blk(l: u64, r: u64) -> SackBlock {
        SackBlock { left: l, right: r }
    }

    /// Segments of 1000 B from seq 1; segment k is [1 + kM, 1 + (k+1)M).
    fn seg(k: u64) -> (u64, u64) {
        (1 + k * M, 1 + (k + 1) * M)
    }

    #[test]
    fn add_merges_and_counts_new_octets() {
        let mut sb = Scoreboard::default();
        let (a, b) = seg(2);
        assert_eq!(sb.add(blk(a, b), 1), M);
        assert_eq!(sb.add(blk(a, b), 1), 0); // the same block again: nothing new
        let (c, d) = seg(4);
        assert_eq!(sb.add(blk(c, d), 1), M);
        // segments 2..4 as one block: segment 3 is new, the rest known
        assert_eq!(sb.add(blk(a, d), 1), M);
        assert_eq!(sb.ranges(), &[(a, d)]);
        assert_eq!(sb.sacked_bytes(), 3 * M);
        sb.advance(seg(3).0); // cumulative ACK up to segment 3
        assert_eq!(sb.ranges(), &[(seg(3).0, d)]);
        assert_eq!(sb.sacked_bytes(), 2 * M);
    }

    /// RFC 6675 IsLost with DupThresh 3 and SMSS M: segment 0 is lost once three
    /// discontiguous ranges lie above it, or more than 2M octets.
    #[test]
    fn is_lost() {
        let mut sb = Scoreboard::default();
        sb.add(blk(seg(1).0, seg(1).1), 1);
        sb.add(blk(seg(3).0, seg(3).1), 1);
        assert_eq!(sb.lost_below(3, M), 0); // 2 ranges, 2M bytes: not lost
        sb.add(blk(seg(5).0, seg(5).1), 1);
        assert_eq!(sb.lost_below(3, M), seg(1).0); // 3 ranges: segment 0 lost
        let mut sb = Scoreboard::default();
        sb.add(blk(seg(1).0, seg(4).1), 1); // 4M contiguous octets above segment 0
        assert_eq!(sb.lost_below(3, M), seg(1).0);
    }

    /// RFC 6675 SetPipe: 10 segments out (0..9), 1..4 SACKed (4M > 2M: 0 is lost).
    /// Un-SACKed: 0, 5..9 = 6 segments; 0 is lost: pipe = 5M. After 0 is retransmitted
    /// (HighRxt past segment 0), it counts once more: 6M.
    #[test]
    fn pipe() {
        let mut sb = Scoreboard::default();
        sb.add(blk(seg(1).0, seg(4).1), 1);
        assert_eq!(sb.pipe(1, seg(9).1, 1, 3, M), 5 * M);
        assert_eq!(sb.pipe(1, seg(9).1, seg(0).1, 3, M), 6 * M);
    }

    /// RFC 2018 section 4: the first block holds the triggering segment; the others are
    /// the most recent blocks, newest first. Receiver holds 2 and 4; 6 arrives, then 8.
    #[test]
    fn receiver_blocks_newest_first() {
        let mut r = SackReporter::default();
        let ooo = [seg(2)];
        assert_eq!(r.blocks(&ooo, Some(seg(2))).as_slice(), &[blk(seg(2).0, seg(2).1)]);
        let ooo = [seg(2), seg(4)];
        let b = r.blocks(&ooo, Some(seg(4)));
        assert_eq!(b.as_slice(), &[blk(seg(4).0, seg(4).1), blk(seg(2).0, seg(2).1)]);
        let ooo = [seg(2), seg(4), seg(6), seg(8)];
        r.blocks(&ooo, Some(seg(6)));
        let b = r.blocks(&ooo, Some(seg(8)));
        // 8 first, then 6 and 4 (most recent); 2 drops out (only 3 blocks fit)
        let lefts: Vec<u64> = b.as_slice().iter().map(|x| x.left).collect();
        assert_eq!(lefts, vec![seg(8).0, seg(6).0, seg(4).0]);
        // segment 3 arrives and joins 2..4: the merged block is reported first
        let ooo = [(seg(2).0, seg(4).1), seg(6), seg(8)];
        let b = r.blocks(&ooo, Some(seg(3)));
        assert_eq!(b.b[0], blk(seg(2).0, seg(4).1));
    }
}
