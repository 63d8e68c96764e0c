//! Incast (partition/aggregate queries): in each round every server of a fixed set opens a
//! flow of `bytes` to one client at the same instant (plus an optional jitter each).
//!
//! Source: the query traffic of DCTCP (Alizadeh et al., SIGCOMM 2010, section 2.3: an
//! aggregator requests responses from its workers, which answer at once) and the
//! synchronised-read incast of Vasudevan et al. (SIGCOMM 2009); /work/shared/WORKLOADS.md
//! for mixing it with the background workload (workload.rs).
//!
//! Rounds start at `start` and then every `period` (round r at start + r x period, no
//! accumulated rounding), or, with a rate, at Poisson times (exponential gaps); a round
//! is held if it starts before `stop`. Each server is its own generator: all of them
//! draw the round times from copies of one stream (`rounds_rng`, the same seed), so
//! their rounds coincide, and their jitter (uniform in [0, jitter)) from their own
//! stream. Should a jitter carry a flow past the next round's start, that round's flow
//! opens right after it (never earlier than the previous one).

use super::spec::{FlowSource, FlowSpec};
use crate::core::rng::Rng;
use crate::core::time::SimTime;

/// When the rounds start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rounds {
    /// One round every period, the first at `start`.
    Periodic(SimTime),
    /// Poisson rounds (rounds per second), the first an exponential gap after `start`.
    Poisson(f64),
}

/// One server of an incast entry.
#[derive(Clone, Debug)]
pub struct IncastServer {
    /// The response: server -> client, `size` bytes.
    pub flow: FlowSpec,
    pub rounds: Rounds,
    pub start: SimTime,
    pub stop: SimTime,
    pub jitter: SimTime,
    /// Round times; identical copies in every server of the entry.
    rounds_rng: Rng,
    /// Rounds begun so far; the start of the latest.
    pub round: u64,
    round_at: SimTime,
    last_open: SimTime,
}

impl IncastServer {
    pub fn new(
        flow: FlowSpec,
        rounds: Rounds,
        start: SimTime,
        stop: SimTime,
        jitter: SimTime,
        rounds_rng: Rng,
    ) -> IncastServer {
        IncastServer { flow, rounds, start, stop, jitter, rounds_rng, round: 0, round_at: start, last_open: start }
    }

    /// The start of round `self.round` (the next one), or None past `stop`.
    fn next_round(&mut self) -> Option<SimTime> {
        self.round_at = match self.rounds {
            Rounds::Periodic(p) => SimTime(self.start.ns().saturating_add(self.round.saturating_mul(p.ns()))),
            Rounds::Poisson(rate) => {
                let from = if self.round == 0 { self.start } else { self.round_at };
                let gap = SimTime::from_secs_f64(self.rounds_rng.exponential(1.0 / rate));
                SimTime(from.ns().saturating_add(gap.ns()))
            }
        };
        (self.round_at < self.stop).then_some(self.round_at)
    }

    /// The round's start plus this server's jitter, never before its previous flow.
    fn open_time(&mut self, round_at: SimTime, rng: &mut Rng) -> SimTime {
        let j = if self.jitter > SimTime::ZERO {
            SimTime((rng.uniform() * self.jitter.ns() as f64) as u64)
        } else {
            SimTime::ZERO
        };
        SimTime(round_at.ns().saturating_add(j.ns())).max(self.last_open)
    }
}

impl FlowSource for IncastServer {
    fn first_arrival(&mut self, rng: &mut Rng) -> Option<SimTime> {
        let r = self.next_round()?;
        let t = self.open_time(r, rng);
        self.last_open = t;
        Some(t)
    }

    /// This server's response of the current round, at `now`, and the next one's time.
    fn fire(&mut self, _now: SimTime, rng: &mut Rng) -> (Option<FlowSpec>, Option<SimTime>) {
        self.round += 1;
        let next = self.next_round().map(|r| self.open_time(r, rng));
        if let Some(t) = next {
            self.last_open = t;
        }
        (Some(self.flow.clone()), next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::CcConfig;
    use crate::tcp::TcpParams;

    fn server(src: u32, rounds: Rounds, jitter: SimTime) -> IncastServer {
        let flow = FlowSpec { src, dst: 0, params: TcpParams::default(), cc: CcConfig::default(), size: 20_000 };
        IncastServer::new(flow, rounds, SimTime::from_ms(10), SimTime::from_ms(100), jitter, Rng::new(9))
    }

    /// Every (time, src, dst, size) the servers open, in time order.
    fn rounds(servers: &mut [IncastServer]) -> Vec<(SimTime, u32, u32, u64)> {
        let mut out = Vec::new();
        for (i, s) in servers.iter_mut().enumerate() {
            let mut rng = Rng::new(100 + i as u64);
            let mut t = s.first_arrival(&mut rng);
            while let Some(now) = t {
                let (f, next) = s.fire(now, &mut rng);
                let f = f.unwrap();
                out.push((now, f.src, f.dst, f.size));
                assert!(next.is_none_or(|n| n >= now));
                t = next;
            }
        }
        out.sort();
        out
    }

    #[test]
    fn periodic_rounds_open_one_flow_per_server_at_the_same_instant() {
        // start 10 ms, period 20 ms, stop 100 ms: rounds at 10, 30, 50, 70, 90 ms
        let mut s: Vec<_> = (1..=4).map(|i| server(i, Rounds::Periodic(SimTime::from_ms(20)), SimTime::ZERO)).collect();
        let flows = rounds(&mut s);
        assert_eq!(flows.len(), 5 * 4);
        for (r, chunk) in flows.chunks(4).enumerate() {
            let t = SimTime::from_ms(10 + 20 * r as u64);
            let srcs: Vec<u32> = chunk.iter().map(|f| f.1).collect();
            assert_eq!(srcs, [1, 2, 3, 4]);
            assert!(chunk.iter().all(|f| f.0 == t && f.2 == 0 && f.3 == 20_000), "{chunk:?}");
        }
    }

    #[test]
    fn jitter_spreads_a_round_within_its_window() {
        let jitter = SimTime::from_ms(1);
        let mut s: Vec<_> = (1..=8).map(|i| server(i, Rounds::Periodic(SimTime::from_ms(20)), jitter)).collect();
        let flows = rounds(&mut s);
        assert_eq!(flows.len(), 5 * 8);
        for (r, chunk) in flows.chunks(8).enumerate() {
            let t = SimTime::from_ms(10 + 20 * r as u64);
            assert!(chunk.iter().all(|f| f.0 >= t && f.0 < t + jitter), "{chunk:?}");
            // 8 independent uniforms: not all the same
            assert!(chunk.iter().any(|f| f.0 != chunk[0].0));
        }
    }

    #[test]
    fn poisson_rounds_coincide_across_servers() {
        // rate 500/s over 90 ms: 45 rounds expected (sd 6.7)
        let mut s: Vec<_> = (1..=3).map(|i| server(i, Rounds::Poisson(500.0), SimTime::ZERO)).collect();
        let flows = rounds(&mut s);
        assert_eq!(flows.len() % 3, 0);
        let n = flows.len() / 3;
        assert!((n as f64 - 45.0).abs() < 5.0 * 6.7, "{n} rounds");
        for chunk in flows.chunks(3) {
            assert!(chunk.iter().all(|f| f.0 == chunk[0].0), "{chunk:?}");
            assert!(chunk[0].0 > SimTime::from_ms(10) && chunk[0].0 < SimTime::from_ms(100));
        }
    }
}
