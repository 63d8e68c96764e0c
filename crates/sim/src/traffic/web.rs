//! The web traffic model of the RIO-PS experiments: sessions of pages of objects, one
//! TCP connection per object (HTTP 1.0), from a server pool to a client pool.
//!
//! Source: seeds/001 (Guo and Matta, ICNP 2001), slide "Simulations setup", as fixed by
//! SCENARIOS.md "riops-web": inter-page time exponential, mean 9.5 s; inter-object time
//! exponential, mean 0.05 s; objects per page uniform on {2..7}; object size bounded
//! Pareto (min, max, shape 1.2); each object retrieved by its own TCP connection. The
//! structure is ns-2's PagePool/WebTraf: a session starts a page, the page's first
//! object opens at the page start and the next ones after inter-object gaps; page starts
//! are a renewal process of inter-page gaps (start to start). Each page picks a server
//! uniformly from the pool; a session's client is fixed.
//!
//! Choices of ours: a session's first page starts one inter-page gap after `start`
//! (Poisson page starts are memoryless, so the sessions are in steady state at once);
//! should a page start while objects of the previous page are still to come (rare: the
//! page lasts ~0.25 s against gaps of 9.5 s), its objects are appended and all remaining
//! objects come from the new page's server. Object sizes are rounded up to whole bytes.
//!
//! Bounded Pareto on [L, H], shape a (Harchol-Balter, "Task assignment with unknown
//! duration", JACM 2002, section 3): density a L^a x^(-a-1) / (1 - (L/H)^a), mean
//! E[S] = L^a / (1 - (L/H)^a) * a / (a - 1) * (L^(1-a) - H^(1-a))   (a != 1).

use std::sync::Arc;

use super::spec::{FlowSource, FlowSpec};
use crate::core::check::Validate;
use crate::core::packet::NodeId;
use crate::core::rng::Rng;
use crate::core::time::SimTime;
use crate::tcp::TcpParams;

/// Objects a page may have (`objects_max`): the pages of seeds/001 have 2..7; a page's
/// objects left to fetch are a counter, and a session's flows are charged to the run's
/// memory estimate (scenario_memory.rs).
pub const MAX_OBJECTS_PER_PAGE: u32 = 100_000;

/// The page/object model (times in seconds, sizes in bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WebModel {
    pub inter_page_s: f64,
    pub inter_object_s: f64,
    pub objects_min: u32,
    pub objects_max: u32,
    pub size_min: f64,
    pub size_max: f64,
    pub shape: f64,
}

/// The model's own ranges (fields named as the web entry's table names them).
impl Validate for WebModel {
    fn validate(&self, path: &str) -> Result<(), String> {
        let pos = |x: f64| x.is_finite() && x > 0.0;
        if !pos(self.inter_page_s) {
            return Err(format!("{path}.inter_page: must be > 0 (got {} s)", self.inter_page_s));
        }
        if !pos(self.inter_object_s) {
            return Err(format!("{path}.inter_object: must be > 0 (got {} s)", self.inter_object_s));
        }
        if self.objects_min == 0 || self.objects_min > self.objects_max {
            return Err(format!("{path}.objects_min: must be in 1..=objects_max (got {})", self.objects_min));
        }
        if self.objects_max > MAX_OBJECTS_PER_PAGE {
            return Err(format!(
                "{path}.objects_max: must be at most {MAX_OBJECTS_PER_PAGE} (got {})",
                self.objects_max
            ));
        }
        if !pos(self.size_min) {
            return Err(format!("{path}.size_min_bytes: must be above 0 (got {})", self.size_min));
        }
        if !(self.size_max.is_finite() && self.size_max > self.size_min) {
            return Err(format!(
                "{path}.size_max_bytes: must be above size_min_bytes (got {} .. {})",
                self.size_min, self.size_max
            ));
        }
        if !pos(self.shape) || (self.shape - 1.0).abs() < 1e-9 {
            return Err(format!("{path}.shape: must be > 0 and != 1 (got {})", self.shape));
        }
        Ok(())
    }
}

impl WebModel {
    /// E[S] of the bounded Pareto object size (bytes), header formula.
    pub fn mean_object_bytes(&self) -> f64 {
        let (l, h, a) = (self.size_min, self.size_max, self.shape);
        l.powf(a) / (1.0 - (l / h).powf(a)) * a / (a - 1.0) * (l.powf(1.0 - a) - h.powf(1.0 - a))
    }

    /// Mean objects per page.
    pub fn mean_objects(&self) -> f64 {
        (f64::from(self.objects_min) + f64::from(self.objects_max)) / 2.0
    }

    /// Offered payload per session (bytes/s): pages/s x objects/page x E[S].
    pub fn session_bytes_per_s(&self) -> f64 {
        self.mean_objects() * self.mean_object_bytes() / self.inter_page_s
    }
}

/// One web session (a client browsing).
#[derive(Clone, Debug)]
pub struct WebSession {
    pub model: WebModel,
    pub client: NodeId,
    pub servers: Arc<[NodeId]>,
    pub params: TcpParams,
    pub cc: crate::tcp::cc::CcConfig,
    pub start: SimTime,
    pub stop: SimTime,
    next_page: SimTime,
    next_obj: SimTime,
    /// Objects of the current page still to open.
    left: u32,
    server: NodeId,
    pub pages: u64,
    pub objects: u64,
}

fn secs(s: f64) -> SimTime {
    SimTime::from_secs_f64(s)
}

impl WebSession {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        model: WebModel,
        client: NodeId,
        servers: Arc<[NodeId]>,
        params: TcpParams,
        cc: crate::tcp::cc::CcConfig,
        start: SimTime,
        stop: SimTime,
    ) -> WebSession {
        let server = servers[0];
        WebSession {
            model,
            client,
            servers,
            params,
            cc,
            start,
            stop,
            next_page: start,
            next_obj: start,
            left: 0,
            server,
            pages: 0,
            objects: 0,
        }
    }

    fn object(&mut self, rng: &mut Rng) -> FlowSpec {
        let m = &self.model;
        let size = rng.bounded_pareto(m.size_min, m.size_max, m.shape).ceil().max(1.0) as u64;
        self.objects += 1;
        FlowSpec { src: self.server, dst: self.client, params: self.params, cc: self.cc.clone(), size }
    }
}

impl FlowSource for WebSession {
    fn first_arrival(&mut self, rng: &mut Rng) -> Option<SimTime> {
        self.next_page = self.start + secs(rng.exponential(self.model.inter_page_s));
        (self.next_page < self.stop).then_some(self.next_page)
    }

    /// The session's event at `now`: the object to open and the next event time.
    fn fire(&mut self, now: SimTime, rng: &mut Rng) -> (Option<FlowSpec>, Option<SimTime>) {
        let spec = if self.left > 0 && self.next_obj <= now {
            self.left -= 1;
            if self.left > 0 {
                self.next_obj = now + secs(rng.exponential(self.model.inter_object_s));
            }
            Some(self.object(rng))
        } else if self.next_page <= now {
            let m = self.model;
            let n = rng.range_u64(u64::from(m.objects_min), u64::from(m.objects_max)) as u32;
            let k = rng.range_u64(0, self.servers.len() as u64 - 1) as usize;
            self.server = self.servers[k];
            self.pages += 1;
            self.next_page = now + secs(rng.exponential(m.inter_page_s));
            if self.left == 0 && n > 1 {
                self.next_obj = now + secs(rng.exponential(m.inter_object_s));
            }
            self.left = self.left.saturating_add(n - 1);
            Some(self.object(rng))
        } else {
            None
        };
        let next = if self.left > 0 { self.next_obj.min(self.next_page) } else { self.next_page };
        (spec, (next < self.stop).then_some(next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(size_min: f64) -> WebModel {
        WebModel {
            inter_page_s: 9.5,
            inter_object_s: 0.05,
            objects_min: 2,
            objects_max: 7,
            size_min,
            size_max: 200_000.0,
            shape: 1.2,
        }
    }

    #[test]
    fn bounded_pareto_mean_matches_formula_and_samples() {
        // by hand for L = 4, H = 200000, a = 1.2: 4^1.2 = 5.278, 4^-0.2 = 0.7579,
        // 200000^-0.2 = 0.08710, (L/H)^a = 2.3e-6: E = 5.278 * 6 * 0.6708 = 21.24 B
        let m = model(4.0);
        assert!((m.mean_object_bytes() - 21.24).abs() < 0.02, "{}", m.mean_object_bytes());
        for size_min in [4.0, 4000.0] {
            let m = model(size_min);
            let mut rng = Rng::new(11);
            let n = 1_000_000;
            let xs: Vec<f64> = (0..n).map(|_| rng.bounded_pareto(m.size_min, m.size_max, m.shape)).collect();
            let mean = xs.iter().sum::<f64>() / n as f64;
            let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
            let se = (var / n as f64).sqrt();
            let want = m.mean_object_bytes();
            assert!((mean - want).abs() < 5.0 * se, "L={size_min}: {mean} vs {want} (se {se})");
        }
    }

    #[test]
    fn session_rates_follow_the_model() {
        let m = model(4000.0);
        let servers: Arc<[NodeId]> = Arc::from(vec![10, 11, 12]);
        let stop = SimTime::from_secs(200_000);
        let mut s = WebSession::new(
            m,
            5,
            servers,
            TcpParams::default(),
            crate::tcp::cc::CcConfig::default(),
            SimTime::ZERO,
            stop,
        );
        let mut rng = Rng::new(3);
        let mut t = s.first_arrival(&mut rng);
        let mut used = [0u64; 3];
        while let Some(now) = t {
            let (spec, next) = s.fire(now, &mut rng);
            if let Some(f) = spec {
                assert_eq!(f.dst, 5);
                used[(f.src - 10) as usize] += 1;
                assert!(f.size >= 4000 && f.size <= 200_000);
            }
            t = next;
        }
        // pages: Poisson with rate 1/9.5 over 200,000 s (sd of the count ~ sqrt(n))
        let want_pages = 200_000.0 / 9.5;
        assert!((s.pages as f64 - want_pages).abs() < 5.0 * want_pages.sqrt(), "{}", s.pages);
        let per_page = s.objects as f64 / s.pages as f64;
        // uniform {2..7}: mean 4.5, sd 1.71
        assert!((per_page - 4.5).abs() < 5.0 * 1.71 / (s.pages as f64).sqrt(), "{per_page}");
        assert!(used.iter().all(|&u| u > s.objects / 4), "{used:?}");
    }
}
