//! Seeded random streams.
//!
//! xoshiro256** (Blackman and Vigna, "Scrambled linear pseudorandom number
//! generators", ACM TOMS 2021), seeded through SplitMix64 as its authors recommend.
//! Every component gets its own stream derived from (run seed, stream id), so adding a
//! component does not shift the draws of the others.

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let s = [splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x)];
        Rng { s }
    }

    /// An independent stream for component `stream` of a run seeded with `seed`.
    pub fn stream(seed: u64, stream: u64) -> Rng {
        let mut x = seed ^ 0x5EED_0000_0000_0000;
        let a = splitmix64(&mut x);
        Rng::new(a ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03))
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }

    /// Standard normal (Box-Muller).
    pub fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        mean + sd * (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// Uniform integer in [lo, hi] inclusive.
    pub fn range_u64(&mut self, lo: u64, hi: u64) -> u64 {
        lo + (self.uniform() * (hi - lo + 1) as f64) as u64
    }

    /// Bounded Pareto on [lo, hi] with shape alpha, by inversion.
    pub fn bounded_pareto(&mut self, lo: f64, hi: f64, alpha: f64) -> f64 {
        let u = self.uniform();
        let la = lo.powf(alpha);
        let ha = hi.powf(alpha);
        (-(u * ha - u * la - ha) / (ha * la)).powf(-1.0 / alpha)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_uniform_mean() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let n = 100_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let x = a.uniform();
            assert_eq!(x.to_bits(), b.uniform().to_bits());
            assert!((0.0..1.0).contains(&x));
            sum += x;
        }
        // mean 1/2, sd of the mean sqrt(1/12/n)
        assert!((sum / n as f64 - 0.5).abs() < 4.0 * (1.0 / 12.0 / n as f64).sqrt());
    }

    #[test]
    fn exponential_mean() {
        let mut r = Rng::new(3);
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((m - 2.0).abs() < 4.0 * 2.0 / (n as f64).sqrt());
    }

    #[test]
    fn bounded_pareto_in_range() {
        let mut r = Rng::new(5);
        for _ in 0..10_000 {
            let x = r.bounded_pareto(4.0, 200_000.0, 1.2);
            assert!((4.0..=200_000.0 + 1e-6).contains(&x));
        }
    }
}
