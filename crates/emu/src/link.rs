//! One direction of an emulated link: an egress queue (DropTail, in packets), a
//! serialiser at the link's rate and a propagation delay, the same model as the
//! simulator's link (DESIGN.md: "a link is an egress queue + a serialiser (rate) + a
//! propagation delay").
//!
//! Time is integer nanoseconds of CLOCK_MONOTONIC (clock_gettime(2)); every call takes
//! `now` or the packet's arrival time and the link never reads a clock, so the
//! arithmetic is tested without sockets. The schedule is computed when a packet is
//! admitted: a FIFO whose drop decision is made at arrival fixes each packet's
//! departure then (htsim's queue.cpp `beginService` does the same one packet at a time):
//!
//! ```text
//! ser(len)  = len x 8 x 10^9 / rate                (ns, rounded to nearest)
//! start_k   = max(arrival_k, end_{k-1})            (FIFO, one serialiser)
//! end_k     = start_k + ser(len_k)
//! deliver_k = end_k + delay                        (the far end has the whole packet)
//! waiting(t) = #{k admitted : arrival_k <= t < start_k}
//! ```
//!
//! DropTail (as the simulator's queue/droptail.rs): an arrival that finds `limit`
//! packets waiting (the one being serialised not counted) is dropped. RED (red.rs)
//! decides first, on the same count, and `limit` stays its hard limit.
//!
//! The time average of the waiting packets is exact, by Little's law on the sample
//! path: the integral of waiting(t) over a window is the sum, over packets, of the part
//! of [arrival_k, start_k) inside the window.

use crate::red::{Red, RedAction};
use std::collections::VecDeque;

/// Nanoseconds.
pub type Ns = u64;

/// Serialisation time of `len` bytes at `rate_bps`, in ns rounded to the nearest.
pub fn ser_ns(len: u32, rate_bps: u64) -> Ns {
    let num = len as u128 * 8 * 1_000_000_000;
    let rate = rate_bps as u128;
    ((num + rate / 2) / rate).min(Ns::MAX as u128) as Ns
}

/// A packet on the link with its schedule.
#[derive(Debug)]
pub struct Slot<P> {
    pub pkt: P,
    pub len: u32,
    pub arrival: Ns,
    pub start: Ns,
    pub end: Ns,
    pub deliver: Ns,
}

/// Counters of one link (the simulator's links table where the names agree).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkStats {
    /// Packets offered to the queue, dropped ones included.
    pub arrivals: u64,
    pub arrival_bytes: u64,
    /// Packets dropped, every cause (the three below).
    pub drops: u64,
    /// The queue held `limit` waiting.
    pub drops_overflow: u64,
    /// RED's early (probabilistic) drops.
    pub drops_red_early: u64,
    /// RED's forced drops (avg at or above max_th, 2 max_th with gentle).
    pub drops_red_forced: u64,
    /// Packets whose serialisation has ended (by the window's end, counted at `take`).
    pub departures: u64,
    pub departure_bytes: u64,
    /// The largest number waiting an arrival left behind (itself included).
    pub max_pkts: u64,
    /// Integral of waiting(t) dt over the window, packet x ns; and bytes x ns.
    pub wait_pkt_ns: u128,
    pub wait_byte_ns: u128,
    /// Serialisation time inside the window, ns.
    pub busy_ns: u128,
}

/// The queue discipline at a link's entrance.
#[derive(Clone, Debug)]
pub enum Disc {
    DropTail,
    Red(Box<Red>),
}

/// One direction of a link: rate, delay, a queue of `limit` packets.
#[derive(Debug)]
pub struct Link<P> {
    pub rate_bps: u64,
    pub delay_ns: Ns,
    pub limit: u64,
    pub disc: Disc,
    /// Start of the last admitted packet's serialisation: the queue went empty then
    /// if nothing arrived behind it.
    last_start: Ns,
    /// The last arrival dropped while the queue was empty (RED's idle period goes on).
    idle_mark: Ns,
    /// Admitted packets not yet delivered, in arrival order (so in start, end and
    /// deliver order too).
    slots: VecDeque<Slot<P>>,
    /// End of the last admitted packet's serialisation.
    last_end: Ns,
    /// The window the counters cover starts here (`reset`).
    window_start: Ns,
    pub stats: LinkStats,
}

/// The part of [a, b) inside [lo, hi), in ns.
fn overlap(a: Ns, b: Ns, lo: Ns, hi: Ns) -> u128 {
    let s = a.max(lo);
    let e = b.min(hi);
    e.saturating_sub(s) as u128
}

impl<P> Link<P> {
    pub fn new(rate_bps: u64, delay_ns: Ns, limit: u64, now: Ns) -> Link<P> {
        Link::with_disc(rate_bps, delay_ns, limit, Disc::DropTail, now)
    }

    pub fn with_disc(rate_bps: u64, delay_ns: Ns, limit: u64, disc: Disc, now: Ns) -> Link<P> {
        assert!(rate_bps > 0, "a link's rate is above 0");
        Link {
            rate_bps,
            delay_ns,
            limit,
            disc,
            last_start: 0,
            idle_mark: 0,
            slots: VecDeque::new(),
            last_end: 0,
            window_start: now,
            stats: LinkStats::default(),
        }
    }

    /// Packets waiting at `t` (admitted, arrived by `t`, not yet started).
    pub fn waiting(&self, t: Ns) -> u64 {
        // starts are non-decreasing along the deque: the waiting ones are a suffix,
        // less those that have not arrived yet (none when t >= the last arrival)
        let first = self.slots.partition_point(|s| s.start <= t);
        self.slots.range(first..).filter(|s| s.arrival <= t).count() as u64
    }

    /// Offers a packet of `len` bytes arriving at `arrival` (not before the previous
    /// arrival). Returns false if the queue drops it.
    pub fn enqueue(&mut self, pkt: P, len: u32, arrival: Ns) -> bool {
        self.stats.arrivals += 1;
        self.stats.arrival_bytes += len as u64;
        let q = self.waiting(arrival);
        if let Disc::Red(red) = &mut self.disc {
            let idle = (q == 0).then(|| arrival.saturating_sub(self.last_start.max(self.idle_mark)));
            red.update_avg(q, idle);
            let action = red.action();
            if action != RedAction::DontMark {
                if q == 0 {
                    self.idle_mark = arrival;
                }
                self.stats.drops += 1;
                match action {
                    RedAction::EarlyDrop => self.stats.drops_red_early += 1,
                    _ => self.stats.drops_red_forced += 1,
                }
                return false;
            }
        }
        if q >= self.limit {
            self.stats.drops += 1;
            self.stats.drops_overflow += 1;
            return false;
        }
        let start = arrival.max(self.last_end);
        self.last_start = start;
        // saturating: a rate of 1 b/s with a delay of 10^7 s stays in range (config.rs
        // bounds both), but a u64 must never wrap into "delivered at once"
        let end = start.saturating_add(ser_ns(len, self.rate_bps));
        self.last_end = end;
        let wait = start > arrival;
        self.stats.max_pkts = self.stats.max_pkts.max(q + wait as u64);
        self.slots.push_back(Slot { pkt, len, arrival, start, end, deliver: end.saturating_add(self.delay_ns) });
        true
    }

    /// When the next packet reaches the far end, if any.
    pub fn next_deliver(&self) -> Option<Ns> {
        self.slots.front().map(|s| s.deliver)
    }

    /// Removes the head packet if it has reached the far end by `now`.
    pub fn take(&mut self, now: Ns) -> Option<Slot<P>> {
        if self.slots.front()?.deliver > now {
            return None;
        }
        let s = self.slots.pop_front()?;
        self.account(&s, Ns::MAX);
        Some(s)
    }

    /// Adds a packet's waiting and serialisation inside [window_start, hi) to the
    /// counters (hi = MAX: the packet is done with the link).
    fn account(&mut self, s: &Slot<P>, hi: Ns) {
        let w = overlap(s.arrival, s.start, self.window_start, hi);
        self.stats.wait_pkt_ns += w;
        self.stats.wait_byte_ns += w * s.len as u128;
        self.stats.busy_ns += overlap(s.start, s.end, self.window_start, hi);
        if s.end >= self.window_start && s.end <= hi {
            self.stats.departures += 1;
            self.stats.departure_bytes += s.len as u64;
        }
    }

    /// The counters over [window_start, now), with the packets still on the link
    /// counted up to `now`.
    pub fn stats_at(&self, now: Ns) -> LinkStats {
        let mut st = self.stats.clone();
        for s in &self.slots {
            let w = overlap(s.arrival, s.start, self.window_start, now);
            st.wait_pkt_ns += w;
            st.wait_byte_ns += w * s.len as u128;
            st.busy_ns += overlap(s.start, s.end, self.window_start, now);
            if s.end >= self.window_start && s.end <= now {
                st.departures += 1;
                st.departure_bytes += s.len as u64;
            }
        }
        st
    }

    /// Starts a new counting window at `now` (the packets on the link stay): the
    /// window of the measurement begins when the traffic does.
    pub fn reset(&mut self, now: Ns) {
        self.stats = LinkStats::default();
        self.window_start = now;
    }

    pub fn window_start(&self) -> Ns {
        self.window_start
    }

    /// Packets admitted and not yet delivered (waiting, in serialisation or propagating).
    pub fn on_link(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MBPS100: u64 = 100_000_000;

    #[test]
    fn serialisation_by_hand() {
        // 1500 B x 8 = 12000 bit; at 100 Mb/s 12000 / 1e8 s = 120 us
        assert_eq!(ser_ns(1500, MBPS100), 120_000);
        // at 1 Gb/s: 12 us; 40 B at 1 Gb/s: 320 ns
        assert_eq!(ser_ns(1500, 1_000_000_000), 12_000);
        assert_eq!(ser_ns(40, 1_000_000_000), 320);
        // 1 B at 3 b/s: 8/3 s = 2.666...e9 ns, rounded to 2_666_666_667
        assert_eq!(ser_ns(1, 3), 2_666_666_667);
    }

    #[test]
    fn idle_link_delivers_after_serialisation_and_delay() {
        let mut l: Link<u32> = Link::new(MBPS100, 20_000_000, 10, 0);
        assert!(l.enqueue(7, 1500, 1_000));
        // start 1000, end 1000 + 120000, deliver + 20 ms
        assert_eq!(l.next_deliver(), Some(1_000 + 120_000 + 20_000_000));
        assert!(l.take(20_120_999).is_none());
        let s = l.take(20_121_000).unwrap();
        assert_eq!((s.pkt, s.start, s.end), (7, 1_000, 121_000));
        assert_eq!(l.stats.wait_pkt_ns, 0);
        assert_eq!(l.stats.busy_ns, 120_000);
    }

    #[test]
    fn back_to_back_packets_queue_behind_each_other() {
        // three 1500 B packets at t = 0 on 100 Mb/s, no delay: ends 120, 240, 360 us;
        // the second waits 120 us, the third 240 us: integral 360 us x packet
        let mut l: Link<u32> = Link::new(MBPS100, 0, 10, 0);
        for i in 0..3 {
            assert!(l.enqueue(i, 1500, 0));
        }
        assert_eq!(l.waiting(0), 2);
        assert_eq!(l.waiting(120_000), 1);
        assert_eq!(l.waiting(240_000), 0);
        let ends: Vec<Ns> = std::iter::from_fn(|| l.take(u64::MAX)).map(|s| s.end).collect();
        assert_eq!(ends, vec![120_000, 240_000, 360_000]);
        assert_eq!(l.stats.wait_pkt_ns, 360_000);
        assert_eq!(l.stats.max_pkts, 2);
        // over [0, 360 us): busy the whole time, mean queue 360/360 = 1 packet
        assert_eq!(l.stats.busy_ns, 360_000);
    }

    #[test]
    fn droptail_refuses_the_arrival_finding_limit_waiting() {
        // limit 2: at t = 0 the first packet goes into service, two wait, the fourth
        // finds 2 waiting and is dropped; at t = 120 us one has started: room again
        let mut l: Link<u32> = Link::new(MBPS100, 0, 2, 0);
        assert!(l.enqueue(0, 1500, 0));
        assert!(l.enqueue(1, 1500, 0));
        assert!(l.enqueue(2, 1500, 0));
        assert!(!l.enqueue(3, 1500, 0));
        assert!(l.enqueue(4, 1500, 120_000));
        assert_eq!(l.stats.arrivals, 5);
        assert_eq!(l.stats.drops, 1);
        // the one admitted at 120 us starts when the three ahead of it are done: 3 x 120 us
        let last = std::iter::from_fn(|| l.take(u64::MAX)).last().unwrap();
        assert_eq!((last.pkt, last.start), (4, 360_000));
    }

    #[test]
    fn mean_queue_window_is_clipped() {
        // two packets at t = 0 on 100 Mb/s: the second waits [0, 120 us). A window
        // reset at 60 us sees half of it: 60 us x 1 packet; stats at 100 us see 40 us
        let mut l: Link<u32> = Link::new(MBPS100, 0, 10, 0);
        l.enqueue(0, 1500, 0);
        l.enqueue(1, 1500, 0);
        l.reset(60_000);
        let st = l.stats_at(100_000);
        assert_eq!(st.wait_pkt_ns, 40_000);
        // busy: the first packet's [0, 120) clipped to [60, 100): 40 us
        assert_eq!(st.busy_ns, 40_000);
        while l.take(u64::MAX).is_some() {}
        assert_eq!(l.stats.wait_pkt_ns, 60_000);
        assert_eq!(l.stats.departures, 2);
    }

    #[test]
    fn red_sees_the_waiting_queue_and_decays_over_idle_time() {
        use crate::red::RedParams;
        // w_q = 0.5 so each step shows: three packets at t = 0 on 100 Mb/s find 0, 0 and
        // 1 waiting (the first goes straight into service, the second waits behind it):
        // avg 0 -> 0 -> 0 -> 0.5. min_th 1, max_th 2, gentle: hard at 4; p_max 1e-9, so
        // no early drop here. The queue empties when the third starts, at 240 us; an
        // arrival at 600 us finds it empty for 360 us = 3 idle packet times (ser(1500 B) =
        // 120 us): avg 0.5 x 0.5^3 = 0.0625, then x 0.5 + 0.5 x 0 = 0.03125.
        let p = RedParams {
            min_th: 1.0,
            max_th: 2.0,
            p_max: 1e-9,
            w_q: 0.5,
            gentle: true,
            wait: false,
            idle_pkt_time_ns: 120_000,
        };
        let mut l: Link<u32> = Link::with_disc(MBPS100, 0, 10, Disc::Red(Box::new(Red::new(p, 1))), 0);
        let avg = |l: &Link<u32>| match &l.disc {
            Disc::Red(r) => r.avg,
            Disc::DropTail => unreachable!(),
        };
        for i in 0..3 {
            assert!(l.enqueue(i, 1500, 0));
        }
        assert_eq!(avg(&l), 0.5);
        assert!(l.enqueue(3, 1500, 600_000));
        assert_eq!(avg(&l), 0.03125);
        // forced: with avg set to 10, an arrival finding 0 waiting (the fourth is in
        // service) makes avg 0.5 x 10 + 0 = 5 >= 2 max_th = 4: dropped, counted as forced
        if let Disc::Red(r) = &mut l.disc {
            r.avg = 10.0;
        }
        assert!(!l.enqueue(4, 1500, 600_000));
        assert_eq!(avg(&l), 5.0);
        assert_eq!((l.stats.drops, l.stats.drops_red_forced, l.stats.drops_red_early), (1, 1, 0));
    }

    #[test]
    fn schedules_saturate_instead_of_wrapping() {
        // a delay near u64::MAX ns (config.rs refuses it; the link must not depend on
        // that): the deliver time wrapped past zero, "delivered at once" (a panic in a
        // debug build); now it saturates: never delivered
        let mut l: Link<u32> = Link::new(1, u64::MAX - 5, 10, 0);
        assert!(l.enqueue(0, 1500, 1_000));
        assert_eq!(l.next_deliver(), Some(u64::MAX));
        assert!(l.take(u64::MAX - 1).is_none());
        // the longest serialisation, 2^32 - 1 bytes at 1 b/s, is past u64 ns: saturated
        assert_eq!(ser_ns(u32::MAX, 1), u64::MAX);
    }

    #[test]
    fn rate_holds_over_many_packets() {
        // 10_000 packets of 1500 B offered at once at 100 Mb/s end at 10_000 x 120 us = 1.2 s
        // exactly (no drift: each ser() is exact here)
        let mut l: Link<u32> = Link::new(MBPS100, 0, u64::MAX, 0);
        for i in 0..10_000 {
            l.enqueue(i, 1500, 0);
        }
        let last = std::iter::from_fn(|| l.take(u64::MAX)).last().unwrap();
        assert_eq!(last.end, 1_200_000_000);
    }
}
