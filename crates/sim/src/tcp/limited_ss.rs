//! Limited slow start, RFC 3742 (Floyd, 2004), section 3: above `max_ssthresh` segments
//! slow start adds at most 1/K segment per ACK, K = int(cwnd / (0.5 max_ssthresh)), so
//! the window grows by at most max_ssthresh / 2 segments per round trip instead of
//! doubling; at or below it, slow start as RFC 5681. Any slow start (cwnd < ssthresh),
//! the initial one or after a timeout. The RFC suggests max_ssthresh = 100 segments.

/// RFC 3742's suggested max_ssthresh, segments.
pub const MAX_SSTHRESH: u32 = 100;

/// The window after the congestion control's slow-start increase `before` -> `after`
/// on one ACK.
pub fn shape(max_ssthresh: u32, before: f64, after: f64) -> f64 {
    let m = max_ssthresh as f64;
    if before <= m || after <= before {
        return after;
    }
    let k = (before / (0.5 * m)).floor();
    before + (after - before).min(1.0 / k)
}
