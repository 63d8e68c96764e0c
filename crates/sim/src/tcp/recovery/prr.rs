//! Proportional Rate Reduction for SACK recovery: M. Mathis, N. Dukkipati, Y. Cheng,
//! RFC 6937 section 3 (PRR with the slow-start reduction bound, PRR-SSRB), as Linux has
//! it since 3.2 (net/ipv4/tcp_input.c, tcp_init_cwnd_reduction and tcp_cwnd_reduction).
//!
//! During recovery the window follows what the network delivers: while pipe is above
//! ssthresh, data leaves in proportion to data delivered (ssthresh / RecoverFS of it),
//! so the flight falls smoothly to ssthresh instead of RFC 6675's pause then burst;
//! below ssthresh, slow start at most one segment beyond what is delivered brings it
//! back up. Per ACK, in segments (Linux counts packets; byte counts round up):
//!
//! ```text
//! prr_delivered += DeliveredData              (cumulatively ACKed + newly SACKed)
//! pipe > ssthresh:  sndcnt = ceil(prr_delivered x ssthresh / RecoverFS) - prr_out
//! otherwise:        sndcnt = min(ssthresh - pipe,
//!                                max(prr_delivered - prr_out, DeliveredData) + MSS)
//! sndcnt = max(sndcnt, 0), and at least one MSS while nothing was sent (the fast
//!          retransmit itself, as Linux forces it)
//! cwnd = pipe + sndcnt                       (prr_out += every byte sent in recovery)
//! ```
//!
//! Choices, as Linux: RecoverFS is cwnd at the start of recovery (Linux's prior_cwnd;
//! RFC 6937 says FlightSize, which after a timeout or a reduction can exceed cwnd); the
//! extra MSS of the SSRB bound is given only on an ACK that advances snd_una (RFC 9937's
//! "safe ACK"; Linux since 4.x); an ACK that delivers nothing leaves the window as it
//! is. At the end of recovery cwnd = ssthresh (Linux's tcp_end_cwnd_reduction).
//!
//! Without SACK (newreno.rs, RFC 6937 section 3's estimate, as Linux's Reno emulates
//! SACK in tcp_add_reno_sack / tcp_remove_reno_sacks): each duplicate ACK delivered one
//! segment; a partial or full ACK delivered the segments it acknowledges less those its
//! duplicate ACKs already counted (at least one); pipe is FlightSize less the segments
//! counted delivered, less the lost head while it is not yet resent.

/// PRR's counters over one recovery, bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// prr_delivered: data delivered to the receiver since recovery began.
    pub delivered: u64,
    /// prr_out: data sent since recovery began (the fast retransmit included).
    pub out: u64,
    /// RecoverFS: cwnd at the start of recovery, bytes.
    pub recover_fs: u64,
}

/// One ACK's inputs to the window, and the window they give for an ssthresh the
/// congestion control has set (the sender applies it, `Decision::PrrWindow`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrrAck {
    pub prr: Prr,
    /// RFC 6675 pipe after this ACK, bytes.
    pub pipe: u64,
    /// DeliveredData of this ACK, bytes.
    pub delivered: u64,
    /// The ACK advanced snd_una (the SSRB bound's extra MSS).
    pub safe: bool,
    pub mss: u64,
    /// Bytes between snd_una and snd_max that are not in pipe yet count against a window
    /// compared with snd_nxt - snd_una (NewReno's send rule: the segments its duplicate
    /// ACKs report delivered); 0 with SACK, whose send rule compares pipe.
    pub uncounted: u64,
}

impl Prr {
    /// The counters at the start of a recovery entered with window `cwnd` (segments).
    pub fn start(cwnd: f64, mss: u64) -> Prr {
        Prr { delivered: 0, out: 0, recover_fs: ((cwnd * mss as f64) as u64).max(mss) }
    }
}

impl PrrAck {
    /// cwnd in segments: pipe + sndcnt (RFC 6937 section 3) for `ssthresh` segments,
    /// counted in whole segments as Linux counts packets (a byte count rounds up to
    /// segments; ssthresh and RecoverFS round down as Linux's integer windows).
    pub fn cwnd(&self, ssthresh: f64) -> f64 {
        let (p, mss) = (&self.prr, self.mss.max(1));
        let pk = |b: u64| b.div_ceil(mss) as i128;
        let ss = ssthresh.max(0.0).min(u32::MAX as f64) as i128;
        let pipe = pk(self.pipe);
        let (delivered, out) = (pk(p.delivered), pk(p.out));
        let mut sndcnt = if pipe > ss {
            // proportional: ceil(prr_delivered x ssthresh / RecoverFS) - prr_out
            let fs = (p.recover_fs / mss).max(1) as i128;
            (delivered * ss + fs - 1) / fs - out
        } else {
            let bonus = self.safe as i128;
            (ss - pipe).min((delivered - out).max(pk(self.delivered)) + bonus)
        };
        if p.out == 0 {
            sndcnt = sndcnt.max(1);
        }
        (pipe + sndcnt.max(0) + pk(self.uncounted)) as f64
    }
}
