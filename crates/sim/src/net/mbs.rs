//! Maximum burst size (MBS) and available bandwidth: the fluid-model oracle and the
//! FAC regression.
//!
//! Sources: seeds/002 (G. Jin, "Packet Drop Avoidance for High-speed network
//! transmission protocol", LBNL-53920, 2004), section II: "Any burst sent into the
//! network that exceeds the MBS will potentially cause a router on the path to drop
//! packets. The MBS value is determined from the stream sending speed, cross traffic rate
//! and router queue size"; G. Jin and B. Tierney, "Netest", ITRE 2003; G. Jin, "Feedback
//! adaptive control ... algorithms for measuring network bandwidth", LBNL-53165 (FAC).
//! The formulas are ALGORITHMS.md section 13's reconstruction ([X]: derived, not read in
//! the papers, whose bodies are not available):
//!
//! - Fluid MBS at one hop: capacity C, cross traffic X, available bandwidth A = C - X,
//!   free buffer Q packets, the burst arriving at rate R. If R <= A the queue never
//!   grows: unbounded. Otherwise the queue grows by (1 - A/R) per burst packet, so
//!   MBS = floor(Q / (1 - A/R)). A path: the minimum over hops, R at each hop the
//!   slowest rate upstream of it.
//! - FAC: a FIFO hop fed a train at r_in > A gives r_out = C r_in / (r_in + X), so
//!   1/r_out = 1/C + (X/C)(1/r_in): linear in 1/r_in. A least-squares line through
//!   points (1/r_in, 1/r_out) taken above A gives C = 1/intercept and X = slope x C.

/// The fluid-model MBS at one hop, packets; None when unbounded (R <= A).
/// `q_pkts`: free buffer; rates in bits/s.
pub fn fluid_mbs(q_pkts: f64, capacity: f64, cross: f64, arrival: f64) -> Option<f64> {
    let a = (capacity - cross).max(0.0);
    if arrival <= a {
        return None;
    }
    Some((q_pkts / (1.0 - a / arrival)).floor())
}

/// One hop of a path for [`path_mbs`].
#[derive(Clone, Copy, Debug)]
pub struct Hop {
    pub capacity: f64,
    pub cross: f64,
    /// Free buffer, packets.
    pub q_pkts: f64,
}

/// The fluid-model MBS of a path for a burst leaving the sender at `line_rate`: the
/// minimum over hops, the burst reaching hop i at the slowest rate before it (the sender's
/// line rate and the capacities of hops 0..i). None: unbounded at every hop.
pub fn path_mbs(hops: &[Hop], line_rate: f64) -> Option<f64> {
    let mut r = line_rate;
    let mut best: Option<f64> = None;
    for h in hops {
        if let Some(m) = fluid_mbs(h.q_pkts, h.capacity, h.cross, r) {
            best = Some(best.map_or(m, |b: f64| b.min(m)));
        }
        r = r.min(h.capacity);
    }
    best
}

/// The available bandwidth of a path in the fluid model: min over hops of C - X.
pub fn path_abw(hops: &[Hop]) -> f64 {
    hops.iter().map(|h| (h.capacity - h.cross).max(0.0)).fold(f64::INFINITY, f64::min)
}

/// FAC regression: from (r_in, r_out) points all taken above the available bandwidth,
/// the capacity C and cross traffic X of the tight hop by least squares of 1/r_out on
/// 1/r_in. None with fewer than two distinct input rates or a non-physical fit
/// (intercept <= 0).
pub fn fac_fit(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let xs: Vec<f64> = points.iter().map(|p| 1.0 / p.0).collect();
    let ys: Vec<f64> = points.iter().map(|p| 1.0 / p.1).collect();
    let mx = xs.iter().sum::<f64>() / n;
    let my = ys.iter().sum::<f64>() / n;
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    if sxx <= 1e-12 * mx * mx {
        return None;
    }
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    if intercept <= 0.0 {
        return None;
    }
    let c = 1.0 / intercept;
    Some((c, (slope * c).max(0.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ALGORITHMS.md section 13's hand-computed cases: Q = 100, C = 1 Gb/s, R = 10 Gb/s.
    #[test]
    fn fluid_model_cases() {
        // X = 0: A/R = 0.1, 100 / 0.9 = 111.1 -> 111
        assert_eq!(fluid_mbs(100.0, 1e9, 0.0, 10e9), Some(111.0));
        // X = 500 Mb/s: A/R = 0.05, 100 / 0.95 = 105.3 -> 105
        assert_eq!(fluid_mbs(100.0, 1e9, 500e6, 10e9), Some(105.0));
        // R = A: unbounded
        assert_eq!(fluid_mbs(100.0, 1e9, 400e6, 600e6), None);
        // R = C = 1 Gb/s with X = 300 Mb/s: 100 / (1 - 0.7) = 333.3 -> 333
        assert_eq!(fluid_mbs(100.0, 1e9, 300e6, 1e9), Some(333.0));
    }

    /// A 10 Gb/s host, then a 1 Gb/s hop with 100 free packets and no cross traffic, then
    /// a 622 Mb/s hop with 50 packets: the burst reaches the second hop at 1 Gb/s, so its
    /// MBS there is 50 / (1 - 0.622) = 132.3 -> 132, above the first hop's 111: 111. With
    /// 20 packets at the second hop: 20 / 0.378 = 52.9 -> 52.
    #[test]
    fn path_minimum_uses_upstream_rate() {
        let h1 = Hop { capacity: 1e9, cross: 0.0, q_pkts: 100.0 };
        let h2 = Hop { capacity: 622e6, cross: 0.0, q_pkts: 50.0 };
        assert_eq!(path_mbs(&[h1, h2], 10e9), Some(111.0));
        let h2 = Hop { q_pkts: 20.0, ..h2 };
        assert_eq!(path_mbs(&[h1, h2], 10e9), Some(52.0));
        assert_eq!(path_abw(&[h1, h2]), 622e6);
    }

    /// ALGORITHMS.md: C = 1000 pkt/s, X = 400 pkt/s; r_in = 1000 -> r_out = 1000 x 1000 /
    /// 1400 = 714.3; r_in = 2000 -> 2000 x 1000 / 2400 = 833.3: the regression gives
    /// C = 1000, X = 400, A = 600.
    #[test]
    fn fac_two_points() {
        let (c, x) = fac_fit(&[(1000.0, 1000.0 * 1000.0 / 1400.0), (2000.0, 2000.0 * 1000.0 / 2400.0)]).unwrap();
        assert!((c - 1000.0).abs() < 1e-6 && (x - 400.0).abs() < 1e-6, "{c} {x}");
        assert!(fac_fit(&[(1000.0, 714.0)]).is_none());
        assert!(fac_fit(&[(1000.0, 714.0), (1000.0, 714.0)]).is_none());
    }
}
