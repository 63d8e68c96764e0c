//! `kind = "cbr"`: constant-bit-rate packets with no transport (traffic/raw.rs `Stream`;
//! ns-2's Application/Traffic/CBR).

use schemars::JsonSchema;
use serde::Deserialize;

use super::kind::{TrafficCtx, TrafficKind};
use super::raw::{add_sources, check_bytes, check_stream, d_pkt_bytes, stop_of};
use crate::scenario::common::{Dur, Rate};
use crate::scenario::tcp::TcpSpec;
use crate::traffic::raw::Stream;

/// A constant-bit-rate source: `rate` in packets of `packet_bytes` wire bytes.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CbrSpec {
    /// Source node name; "{i}" is replaced by 0..count-1, one source per value.
    pub from: String,
    /// Destination node name, "{i}" as in `from`; never the source itself.
    pub to: String,
    /// Sources made from this entry (values of {i}); 0 makes none (e.g. a sweep's point
    /// without this traffic).
    #[serde(default = "crate::scenario::queue::d_one")]
    pub count: u32,
    /// Sending rate, in packets of `packet_bytes`; at most 1e8 packets a second.
    pub rate: Rate,
    /// Wire bytes per packet, 28..=65535.
    #[serde(default = "d_pkt_bytes")]
    pub packet_bytes: u32,
    /// Time the first packet leaves.
    #[serde(default)]
    pub start: Dur,
    /// No packet leaves at or after this time, after `start` (default: the end of the
    /// run).
    #[serde(default)]
    pub stop: Option<Dur>,
}

impl TrafficKind for CbrSpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        // no source (count = 0): nothing of the table is used, and nothing was ever refused
        if self.count == 0 {
            return Ok(());
        }
        let b = check_bytes(path, self.packet_bytes, "packet_bytes")?;
        check_stream(path, self.rate, b, self.start, self.stop)
    }

    fn tcp(&self) -> Option<&TcpSpec> {
        None
    }

    fn build(&self, ctx: &mut TrafficCtx) -> Result<(), String> {
        add_sources(ctx, &self.from, &self.to, self.count, |ctx, _, _, _| {
            let stop = stop_of(self.stop, ctx.end);
            Ok(Box::new(Stream::new(self.rate.0 .0 as f64, self.packet_bytes, None, self.start.0, stop)))
        })
    }
}
