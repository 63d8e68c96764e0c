//! Empirical flow-size distributions: a table of (size_bytes, cumulative probability)
//! points, sampled by inverse transform with linear interpolation between points.
//!
//! Source of the convention and of the bundled tables: /work/shared/WORKLOADS.md, which
//! takes them from the public files datacenter transport papers use (HPCC's
//! traffic_gen/*_distribution.txt, opera-sim's Figure1_traffic/*.csv); each bundled file
//! in crates/sim/workloads/ opens with its source line (paper, repository, path, commit).
//!
//! The distribution. Points (x_0, F_0), ..., (x_n, F_n) with x and F non-decreasing and
//! F_n = 1 define
//! - a point mass F_0 at x_0 (nothing when the table starts at probability 0);
//! - for each segment i (F_{i-1} < F_i) a uniform density of mass F_i - F_{i-1} on
//!   [x_{i-1}, x_i]: where x_{i-1} = x_i this is a point mass (a size repeated with a
//!   jump in probability); a segment with F_{i-1} = F_i carries nothing (a jump in size).
//!
//! Sampling: u uniform in [0, 1); if u < F_0 the size is x_0; otherwise the segment is
//! the first i with F_i > u (so F_{i-1} <= u < F_i) and
//!     size = x_{i-1} + (u - F_{i-1}) / (F_i - F_{i-1}) x (x_i - x_{i-1}),
//! rounded to the nearest whole byte and at least 1 byte (a flow carries data).
//!
//! Mean (of the piecewise-linear distribution, before rounding):
//!     E[S] = F_0 x_0 + sum_i (F_i - F_{i-1}) (x_{i-1} + x_i) / 2.
//! Rounding to whole bytes moves it by under a byte (and the 1-byte floor by at most
//! P(S < 0.5 B) x 1 B).
//!
//! File format, the two columns the public files use: one point a line, `size
//! probability` separated by whitespace and/or one comma (opera-sim's .csv files);
//! `#` starts a comment; blank lines are skipped. Probabilities are percent when the
//! last one is 100 and fractions when it is 1; anything else is an error.

use crate::core::rng::Rng;

/// The tables bundled with the simulator: (name, file text).
pub const BUILTIN: [(&str, &str); 3] = [
    ("web_search", include_str!("../../workloads/web_search.txt")),
    ("data_mining", include_str!("../../workloads/data_mining.txt")),
    ("fb_hadoop", include_str!("../../workloads/fb_hadoop.txt")),
];

/// Largest flow size a table may hold (bytes): far below the transport's "unlimited"
/// marker (tcp::UNLIMITED = 2^62), far above any published table (VL2's 1 GB).
pub const MAX_SIZE_BYTES: f64 = 1e15;

/// An empirical flow-size distribution (sizes in payload bytes).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSizeCdf {
    /// (size_bytes, cumulative probability as a fraction), both non-decreasing, the
    /// last probability exactly 1.
    points: Vec<(f64, f64)>,
}

impl FlowSizeCdf {
    /// A distribution from points with probabilities as fractions (the last must be 1).
    pub fn new(points: Vec<(f64, f64)>) -> Result<FlowSizeCdf, String> {
        let Some(&(_, last)) = points.last() else {
            return Err("no points (need at least one `size probability` line)".into());
        };
        for (i, w) in points.windows(2).enumerate() {
            if w[1].0 < w[0].0 {
                return Err(format!("point {}: size {} is below the previous {}", i + 1, w[1].0, w[0].0));
            }
            if w[1].1 < w[0].1 {
                return Err(format!("point {}: probability {} is below the previous {}", i + 1, w[1].1, w[0].1));
            }
        }
        for &(x, p) in &points {
            if !(x.is_finite() && (0.0..=MAX_SIZE_BYTES).contains(&x)) {
                return Err(format!("size {x}: must be a number of bytes in 0..={MAX_SIZE_BYTES:e}"));
            }
            if !(p.is_finite() && p >= 0.0) {
                return Err(format!("probability {p}: must be >= 0"));
            }
        }
        if last != 1.0 {
            return Err(format!("the last probability must be 1 (got {last})"));
        }
        Ok(FlowSizeCdf { points })
    }

    /// A bundled table by name ([`BUILTIN`]).
    pub fn builtin(name: &str) -> Option<FlowSizeCdf> {
        let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name)?;
        Some(FlowSizeCdf::parse(text).expect("bundled tables are valid"))
    }

    /// Names of the bundled tables, comma-separated (for error messages).
    pub fn builtin_names() -> String {
        BUILTIN.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
    }

    /// Parses the two-column text format (module header); errors name the line (1-based).
    pub fn parse(text: &str) -> Result<FlowSizeCdf, String> {
        // (line number, size, probability as written)
        let mut rows: Vec<(usize, f64, f64)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> =
                line.split(|c: char| c == ',' || c.is_whitespace()).filter(|f| !f.is_empty()).collect();
            let bad = || format!("line {line_no}: expected two numbers `size_bytes probability`, got {line:?}");
            if fields.len() != 2 || line.matches(',').count() > 1 {
                return Err(bad());
            }
            let x: f64 = fields[0].parse().map_err(|_| bad())?;
            let p: f64 = fields[1].parse().map_err(|_| bad())?;
            if !(x.is_finite() && (0.0..=MAX_SIZE_BYTES).contains(&x)) {
                return Err(format!(
                    "line {line_no}: size must be a number of bytes in 0..={MAX_SIZE_BYTES:e} (got {})",
                    fields[0]
                ));
            }
            if !(p.is_finite() && p >= 0.0) {
                return Err(format!("line {line_no}: probability must be >= 0 (got {})", fields[1]));
            }
            if let Some(&(prev_no, px, pp)) = rows.last() {
                if x < px {
                    return Err(format!(
                        "line {line_no}: size {x} is below line {prev_no}'s {px} (sizes must be non-decreasing)"
                    ));
                }
                if p < pp {
                    return Err(format!(
                        "line {line_no}: probability {p} is below line {prev_no}'s {pp} (a CDF is non-decreasing)"
                    ));
                }
            }
            rows.push((line_no, x, p));
        }
        let Some(&(last_no, _, last)) = rows.last() else {
            return Err("no points (need at least one `size_bytes probability` line)".into());
        };
        let scale = if last == 100.0 {
            100.0
        } else if last == 1.0 {
            1.0
        } else {
            return Err(format!(
                "line {last_no}: the last cumulative probability must be 1 (fractions) or 100 (percent), got {last}"
            ));
        };
        let mut points: Vec<(f64, f64)> = rows.iter().map(|&(_, x, p)| (x, p / scale)).collect();
        // p / 100 of the last line is exactly 1.0; keep it so whatever the division did
        points.last_mut().expect("rows is not empty").1 = 1.0;
        FlowSizeCdf::new(points)
    }

    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// E[S] of the piecewise-linear distribution (bytes), header formula.
    pub fn mean(&self) -> f64 {
        let (x0, f0) = self.points[0];
        let mut m = x0 * f0;
        for w in self.points.windows(2) {
            let ((a, fa), (b, fb)) = (w[0], w[1]);
            m += (fb - fa) * (a + b) / 2.0;
        }
        m
    }

    /// The size at quantile `u` in [0, 1) (bytes, unrounded), header formula.
    pub fn quantile(&self, u: f64) -> f64 {
        let u = u.clamp(0.0, 1.0);
        let pts = &self.points;
        // first point with F > u; exists for u < 1 since the last F is 1
        let i = pts.partition_point(|&(_, f)| f <= u).min(pts.len() - 1);
        if i == 0 {
            return pts[0].0;
        }
        let ((a, fa), (b, fb)) = (pts[i - 1], pts[i]);
        if fb <= fa {
            return b; // a flat last segment at u = 1
        }
        a + (u - fa) / (fb - fa) * (b - a)
    }

    /// One flow size (whole bytes, at least 1).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        (self.quantile(rng.uniform()).round() as u64).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The means /work/shared/WORKLOADS.md states for each table ("Mean of the table",
    /// the mean of the piecewise-linear distribution, written there from the public
    /// files): web search 1,711,250 B; data mining 5,036,535 B; Facebook Hadoop
    /// 120,421 B.
    const WORKLOADS_MD_MEANS: [(&str, f64); 3] =
        [("web_search", 1_711_250.0), ("data_mining", 5_036_535.0), ("fb_hadoop", 120_421.0)];

    #[test]
    fn table_means_match_workloads_md() {
        for (name, want) in WORKLOADS_MD_MEANS {
            let m = FlowSizeCdf::builtin(name).unwrap().mean();
            // WORKLOADS.md rounds to whole bytes
            assert!((m - want).abs() <= 1.0, "{name}: mean() = {m}, WORKLOADS.md {want}");
        }
    }

    #[test]
    fn sampler_mean_over_a_million_draws_is_within_2_percent() {
        // The must-hold of the issue: 10^6 draws within 2 % of WORKLOADS.md's mean.
        // Standard error of the mean of 10^6 draws, sd / 1000 with sd from the table
        // (E[S^2] = F_0 x_0^2 + sum dF (a^2 + ab + b^2) / 3): web search sd 3.97 MB ->
        // 0.23 %; data mining sd 48.7 MB -> 0.97 % (its 0.5 % of flows between 250 MB
        // and 1 GB dominate: 2 % is 2.1 standard errors); Facebook Hadoop sd 0.67 MB ->
        // 0.56 %. The seed is fixed, so the test is deterministic; data mining is also
        // held at 10^7 draws within 1 % (3.2 standard errors).
        for (name, want) in WORKLOADS_MD_MEANS {
            let cdf = FlowSizeCdf::builtin(name).unwrap();
            let mut rng = Rng::new(1);
            let n = 1_000_000;
            let mean = (0..n).map(|_| cdf.sample(&mut rng) as f64).sum::<f64>() / n as f64;
            assert!((mean / want - 1.0).abs() < 0.02, "{name}: sample mean {mean} vs {want}");
            eprintln!(
                "{name}: mean of 10^6 draws {mean:.0} B, WORKLOADS.md {want} B ({:+.2} %)",
                (mean / want - 1.0) * 100.0
            );
        }
        let cdf = FlowSizeCdf::builtin("data_mining").unwrap();
        let mut rng = Rng::new(2);
        let n = 10_000_000;
        let mean = (0..n).map(|_| cdf.sample(&mut rng) as f64).sum::<f64>() / n as f64;
        assert!((mean / 5_036_535.0 - 1.0).abs() < 0.01, "data_mining at 10^7: {mean}");
        eprintln!("data_mining: mean of 10^7 draws {mean:.0} B ({:+.2} %)", (mean / 5_036_535.0 - 1.0) * 100.0);
    }

    #[test]
    fn samples_stay_in_the_table_range_and_follow_its_quantiles() {
        let cdf = FlowSizeCdf::builtin("web_search").unwrap();
        let mut rng = Rng::new(3);
        let n = 200_000;
        let xs: Vec<u64> = (0..n).map(|_| cdf.sample(&mut rng)).collect();
        assert!(xs.iter().all(|&x| (1..=30_000_000).contains(&x)));
        // P(S <= 10,000) = 0.15 and P(S <= 80,000) = 0.53 (table rows); sd of a
        // fraction sqrt(p(1-p)/n) <= 0.0012
        for (size, p) in [(10_000u64, 0.15), (80_000, 0.53), (1_000_000, 0.70)] {
            let got = xs.iter().filter(|&&x| x <= size).count() as f64 / n as f64;
            assert!((got - p).abs() < 0.006, "P(S <= {size}) = {got}, table {p}");
        }
        // inside a segment the density is uniform: half of (10,000, 20,000] below 15,000
        assert!((cdf.quantile(0.175) - 15_000.0).abs() < 1e-6);
        assert_eq!(cdf.quantile(0.0), 0.0);
        assert!(cdf.sample(&mut Rng::new(0)) >= 1);
    }

    #[test]
    fn point_masses_at_the_first_point_and_at_repeated_sizes() {
        // F_0 = 0.25 at 100 B: a quarter of the flows are 100 B; 500 B repeated with a
        // jump 0.5 -> 0.75: a quarter are exactly 500 B; the rest uniform on
        // [100, 500] and [500, 900]. Mean = 0.25*100 + 0.25*300 + 0.25*500 + 0.25*700.
        let cdf = FlowSizeCdf::new(vec![(100.0, 0.25), (500.0, 0.5), (500.0, 0.75), (900.0, 1.0)]).unwrap();
        assert_eq!(cdf.mean(), 400.0);
        assert_eq!(cdf.quantile(0.1), 100.0);
        assert_eq!(cdf.quantile(0.6), 500.0);
        assert_eq!(cdf.quantile(0.375), 300.0);
        assert_eq!(cdf.quantile(0.875), 700.0);
        let mut rng = Rng::new(4);
        let n = 100_000;
        let xs: Vec<u64> = (0..n).map(|_| cdf.sample(&mut rng)).collect();
        let at = |v: u64| xs.iter().filter(|&&x| x == v).count() as f64 / n as f64;
        // sd of each fraction sqrt(0.25 * 0.75 / n) = 0.0014
        assert!((at(100) - 0.25).abs() < 0.007, "{}", at(100));
        assert!((at(500) - 0.25).abs() < 0.007, "{}", at(500));
        // a jump in size with no probability (F flat from 1,000 to 5,000 B) is never drawn
        let gap = FlowSizeCdf::new(vec![(0.0, 0.0), (1000.0, 0.5), (5000.0, 0.5), (6000.0, 1.0)]).unwrap();
        let mut rng = Rng::new(5);
        assert!((0..100_000).map(|_| gap.sample(&mut rng)).all(|x| x <= 1000 || x >= 5000));
        // one point: every flow the same size
        let one = FlowSizeCdf::parse("1460 1").unwrap();
        assert_eq!((one.sample(&mut rng), one.mean()), (1460, 1460.0));
    }

    #[test]
    fn percent_and_fraction_forms_give_the_same_distribution() {
        let percent = "# size percent\n0 0\n10000 15\n\n20000 20   # a comment\n30000 100\n";
        let fraction = "0,0\n10000,0.15\n20000 , 0.2\n30000\t1\n";
        let a = FlowSizeCdf::parse(percent).unwrap();
        let b = FlowSizeCdf::parse(fraction).unwrap();
        assert_eq!(a, b);
        for (name, text) in BUILTIN {
            // each bundled table in the other form is the same distribution
            let cdf = FlowSizeCdf::parse(text).unwrap();
            let other: String = if text.lines().last().unwrap().ends_with("100") {
                cdf.points().iter().map(|(x, p)| format!("{x} {p}\n")).collect()
            } else {
                cdf.points().iter().map(|(x, p)| format!("{x} {}\n", p * 100.0)).collect()
            };
            let back = FlowSizeCdf::parse(&other).unwrap();
            for (p, q) in cdf.points().iter().zip(back.points()) {
                assert_eq!(p.0, q.0, "{name}");
                assert!((p.1 - q.1).abs() < 1e-12, "{name}: {p:?} vs {q:?}");
            }
        }
    }

    #[test]
    fn bad_files_name_the_line() {
        let cases = [
            ("0 0\n100 50\n50 60\n200 100\n", "line 3: size 50 is below line 2's 100"),
            ("0 0\n100 50\n# c\n200 40\n300 100\n", "line 4: probability 40 is below line 2's 50"),
            ("0 0\n100 50\n200 95\n", "line 3: the last cumulative probability must be 1 (fractions) or 100"),
            ("0 0\n100 0.5\n200 0.9\n", "line 3: the last cumulative probability must be 1"),
            ("0 0\nabc 50\n200 100\n", "line 2: expected two numbers"),
            ("0 0\n100 50 7\n200 100\n", "line 2: expected two numbers"),
            ("0 0\n100\n", "line 2: expected two numbers"),
            ("0 0\n-5 50\n200 100\n", "line 2: size must be"),
            ("0 0\nnan 50\n200 100\n", "line 2: size must be"),
            ("0 -1\n200 100\n", "line 1: probability must be >= 0"),
            ("# only a comment\n\n", "no points"),
        ];
        for (text, want) in cases {
            let e = FlowSizeCdf::parse(text).unwrap_err();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }
}
