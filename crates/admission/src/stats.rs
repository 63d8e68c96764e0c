//! Verdicts, drop reasons and counters (the `Stats` of Linux red.h's split).
//!
//! Source: Li 2013 Appendix A1 (the three drop points: normal or first packet at
//! pktCnt >= t, accepted subsequent packet at pktCnt >= buffSize, subsequent packet
//! not accepted) and Appendix A3 (the "false positive" and "#_of_outstanding_packets
//! is 0" drops). One counter per drop cause, as ns-3 and sch_red keep them.

/// What the caller does with the packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Enqueue it (the caller increments its pktCnt).
    Admit,
    /// Drop it, for this reason.
    Drop(DropReason),
}

impl Verdict {
    /// True for [`Verdict::Admit`].
    pub fn is_admit(self) -> bool {
        matches!(self, Verdict::Admit)
    }
}

/// Why a packet was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// A1: a normal packet or a new super-packet with pktCnt >= t.
    Threshold,
    /// A1: an accepted subsequent packet (or an admitted SYN) with pktCnt >= buffSize.
    BufferFull,
    /// A3: a subsequent packet whose (src, dst, sid) is in neither b1 nor b2: its
    /// super-packet was denied, expired, or never seen (first = 0 for an unknown sid).
    NotAdmitted,
    /// A3 "//false positive": a Bloom generation says yes, the hash table has no
    /// entry for (src, dst) in the generation(s) consulted.
    BloomFalsePositive,
    /// A3 "#_of_outstanding_packets is 0": the pair has no outstanding packet left.
    OutstandingExhausted,
    /// Section 3.1 defence: h2 holds max_pairs entries (or the probe run is over its
    /// bound); the super-packet is denied.
    TableFull,
    /// The super-packet header is malformed: len 0, len > max_len, truncated or
    /// malformed option list.
    BadHeader,
    /// Section 3.1 defence (`Defences::max_reserved_per_pair`): the (src, dst) entry
    /// would reserve more packets than the per-source cap; the super-packet is denied.
    SourceCap,
    /// Section 3.1 defence (`Defences::max_pairs_per_port`): the generation already
    /// holds the quota of pairs installed from this packet's ingress port.
    PortQuota,
}

impl DropReason {
    /// Number of reasons.
    pub const COUNT: usize = 9;
    /// Every reason, in counter order.
    pub const ALL: [DropReason; DropReason::COUNT] = [
        DropReason::Threshold,
        DropReason::BufferFull,
        DropReason::NotAdmitted,
        DropReason::BloomFalsePositive,
        DropReason::OutstandingExhausted,
        DropReason::TableFull,
        DropReason::BadHeader,
        DropReason::SourceCap,
        DropReason::PortQuota,
    ];

    /// Index in [`Stats::dropped`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// A short snake_case name for tables and column names.
    pub const fn name(self) -> &'static str {
        match self {
            DropReason::Threshold => "threshold",
            DropReason::BufferFull => "buffer_full",
            DropReason::NotAdmitted => "not_admitted",
            DropReason::BloomFalsePositive => "bloom_false_positive",
            DropReason::OutstandingExhausted => "outstanding_exhausted",
            DropReason::TableFull => "table_full",
            DropReason::BadHeader => "bad_header",
            DropReason::SourceCap => "source_cap",
            DropReason::PortQuota => "port_quota",
        }
    }
}

/// The kind of an arriving packet, for the per-kind admitted counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PacketKind {
    /// No super-packet header (A1 `regular(pkt)`).
    Normal,
    /// A normal packet with SYN set, under `admit_syn`.
    Syn,
    /// The first packet of a super-packet (A1 `isFirst(pkt)`).
    First,
    /// A subsequent packet of a super-packet.
    Subsequent,
    /// A packet whose header failed validation.
    Bad,
}

/// Counters (packets unless said otherwise). Identity:
/// `arrivals == admitted() + dropped_total()`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Packets seen by `on_arrival*`.
    pub arrivals: u64,
    /// Normal packets admitted (pktCnt < t).
    pub admitted_normal: u64,
    /// SYN packets admitted under `admit_syn`.
    pub admitted_syn: u64,
    /// First packets admitted = super-packets admitted (state installed).
    pub sp_admitted: u64,
    /// First packets with a valid header that were refused = super-packets denied
    /// (reason Threshold or TableFull).
    pub sp_denied: u64,
    /// Subsequent packets admitted (one outstanding packet consumed each).
    pub admitted_subsequent: u64,
    /// Drops per [`DropReason`], indexed by [`DropReason::index`].
    pub dropped: [u64; DropReason::COUNT],
    /// Epochs elapsed (A2 shifts; a gap of k >= 2 epochs counts k).
    pub epoch_shifts: u64,
    /// Arrivals that found both generations stale and cleared both (gap > 2 EPOCHs).
    pub double_shifts: u64,
    /// (src, dst) entries in h1 (previous epoch).
    pub pairs_h1: u32,
    /// (src, dst) entries in h2 (current epoch).
    pub pairs_h2: u32,
    /// Largest `pairs_h2` seen.
    pub pairs_peak: u32,
    /// Hash-table slots examined by admission decisions (installs and A3 lookups):
    /// the per-packet work of section 3.1.
    pub probes: u64,
    /// Decisions that looked in the table (first packets past t, subsequent packets
    /// with a Bloom hit).
    pub probed_decisions: u64,
    /// Most slots examined by one decision.
    pub probes_max: u32,
    /// Largest #_of_total_packets_reserved of one (src, dst) entry after an install.
    pub reserved_peak: u32,
    /// Most bits of b2 set at the end of an epoch (counted at each shift, before
    /// the generation moves to b1); the fill is this over the bits per generation.
    pub bloom_bits_set_peak: u32,
    /// Largest number of items added to b2 in one epoch.
    pub bloom_items_peak: u32,
    /// Times a generation of the unbounded table (bounded_table off) doubled.
    pub table_grows: u64,
}

impl Stats {
    /// Packets dropped for `reason`.
    pub fn dropped(&self, reason: DropReason) -> u64 {
        self.dropped[reason.index()]
    }

    /// Packets admitted, all kinds.
    pub fn admitted(&self) -> u64 {
        self.admitted_normal + self.admitted_syn + self.sp_admitted + self.admitted_subsequent
    }

    /// Packets dropped, all reasons.
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }

    /// Bloom false positives detected (A3 "//false positive" branches that dropped).
    pub fn false_positives_detected(&self) -> u64 {
        self.dropped(DropReason::BloomFalsePositive)
    }

    /// `arrivals == admitted + dropped` (the ns-3 queue-disc identity).
    pub fn is_consistent(&self) -> bool {
        self.arrivals == self.admitted() + self.dropped_total()
    }

    /// Mean table slots examined per decision that looked in the table.
    pub fn probes_per_decision(&self) -> f64 {
        if self.probed_decisions == 0 {
            0.0
        } else {
            self.probes as f64 / self.probed_decisions as f64
        }
    }

    pub(crate) fn record_probes(&mut self, n: u32) {
        self.probes += n as u64;
        self.probed_decisions += 1;
        self.probes_max = self.probes_max.max(n);
    }

    pub(crate) fn record(&mut self, kind: PacketKind, verdict: Verdict) {
        self.arrivals += 1;
        match verdict {
            Verdict::Admit => match kind {
                PacketKind::Normal => self.admitted_normal += 1,
                PacketKind::Syn => self.admitted_syn += 1,
                PacketKind::First => self.sp_admitted += 1,
                PacketKind::Subsequent => self.admitted_subsequent += 1,
                PacketKind::Bad => debug_assert!(false, "bad header admitted"),
            },
            Verdict::Drop(reason) => {
                self.dropped[reason.index()] += 1;
                if kind == PacketKind::First {
                    self.sp_denied += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_match_all() {
        for (i, r) in DropReason::ALL.iter().enumerate() {
            assert_eq!(r.index(), i);
        }
    }

    #[test]
    fn record_keeps_identity() {
        let mut s = Stats::default();
        s.record(PacketKind::First, Verdict::Admit);
        s.record(PacketKind::First, Verdict::Drop(DropReason::Threshold));
        s.record(PacketKind::Normal, Verdict::Drop(DropReason::Threshold));
        s.record(PacketKind::Subsequent, Verdict::Drop(DropReason::BloomFalsePositive));
        assert_eq!((s.sp_admitted, s.sp_denied), (1, 1));
        assert_eq!(s.dropped(DropReason::Threshold), 2);
        assert_eq!(s.false_positives_detected(), 1);
        assert!(s.is_consistent());
    }
}
