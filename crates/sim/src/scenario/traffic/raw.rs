//! What the non-TCP kinds share (cbr, onoff, mbs_probe, sp_attack; traffic/raw.rs): a
//! source per value of "{i}" with its own routes, and the checks of packet sizes and
//! rates.

use super::kind::{each_pair, TrafficCtx};
use crate::core::packet::{NodeId, RouteId};
use crate::core::time::SimTime;
use crate::scenario::common::{Dur, Rate};
use crate::traffic::raw::{PacketSource, RawSource};

/// The fastest non-TCP source, packets a second (an attacker's `rate_pps` bound too):
/// each packet is an event, so a faster one piles events up faster than any run ends.
pub const MAX_SOURCE_PPS: f64 = 1e8;

pub(crate) fn d_pkt_bytes() -> u32 {
    1500
}

/// Adds a source per value of "{i}" in 0..count: `make(ctx, src, dst, fwd)` gives its
/// behaviour once its nodes and routes (in a fabric, ECMP over the source's UDP
/// 5-tuple: one path per source, as a flow) are known.
pub fn add_sources(
    ctx: &mut TrafficCtx,
    from: &str,
    to: &str,
    count: u32,
    mut make: impl FnMut(&mut TrafficCtx, NodeId, NodeId, RouteId) -> Result<Box<dyn PacketSource>, String>,
) -> Result<(), String> {
    each_pair(ctx, from, to, count, |ctx, i, src, dst| {
        let path = ctx.path.clone();
        let fwd = ctx.source_route(src, dst, true).map_err(|e| format!("{path}: {e}"))?;
        let rev = ctx.source_route(dst, src, false).map_err(|e| format!("{path}: {e}"))?;
        let rng = ctx.source_rng(i);
        let kind = make(ctx, src, dst, fwd)?;
        ctx.add_source(RawSource {
            traffic: path,
            src,
            dst,
            fwd,
            rev,
            kind,
            rng,
            stats: Default::default(),
            wake_at: None,
        });
        Ok(())
    })
}

/// A packet size in wire bytes, 28..=65535.
pub fn check_bytes(path: &str, b: u32, field: &str) -> Result<u32, String> {
    if !(28..=65_535).contains(&b) {
        return Err(format!("{path}.{field}: must be 28..65535 wire bytes (got {b})"));
    }
    Ok(b)
}

/// The end of a source's packets: `stop`, at most the run's `end`.
pub fn stop_of(stop: Option<Dur>, end: SimTime) -> SimTime {
    stop.map_or(end, |d| d.0.min(end))
}

/// A stream's rate (at most MAX_SOURCE_PPS packets a second, as an attacker's) and its
/// period (stop after start), as workload and incast check theirs.
pub fn check_stream(path: &str, rate: Rate, b: u32, start: Dur, stop: Option<Dur>) -> Result<(), String> {
    let pps = rate.0 .0 as f64 / (8.0 * b as f64);
    if pps > MAX_SOURCE_PPS {
        return Err(format!(
            "{path}.rate: at most {MAX_SOURCE_PPS:e} packets/s of packet_bytes {b} (got {pps:.3e}); \
             use larger packets or a lower rate"
        ));
    }
    if let Some(stop) = stop.filter(|s| s.0 <= start.0) {
        return Err(format!(
            "{path}.stop: must be after start ({} <= {})",
            crate::core::schema::format_duration(stop.0),
            crate::core::schema::format_duration(start.0)
        ));
    }
    Ok(())
}
