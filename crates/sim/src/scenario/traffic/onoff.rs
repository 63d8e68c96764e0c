//! `kind = "onoff"`: on-off packets with no transport (traffic/raw.rs `Stream` with
//! periods; ns-2's Application/Traffic/Exponential, or fixed periods).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::kind::{TrafficCtx, TrafficKind};
use super::raw::{add_sources, check_bytes, check_stream, d_pkt_bytes, stop_of};
use crate::core::check::positive;
use crate::scenario::common::{Dur, Rate};
use crate::scenario::tcp::TcpSpec;
use crate::traffic::raw::{Periods, Stream};

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PeriodsSpec {
    #[default]
    Exponential,
    Fixed,
}

/// An on-off source: `rate` during on periods of mean `on_time`, silent during off
/// periods of mean `off_time`; periods `exponential` (default) or `fixed`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpec {
    /// Source node name; "{i}" is replaced by 0..count-1, one source per value.
    pub from: String,
    /// Destination node name, "{i}" as in `from`; never the source itself.
    pub to: String,
    /// Sources made from this entry (values of {i}); 0 makes none (e.g. a sweep's point
    /// without this traffic).
    #[serde(default = "crate::scenario::queue::d_one")]
    pub count: u32,
    /// Sending rate during on periods, in packets of `packet_bytes`; at most 1e8 packets
    /// a second.
    pub rate: Rate,
    /// Mean (or fixed) length of an on period; above 0.
    pub on_time: Dur,
    /// Mean (or fixed) length of an off period.
    pub off_time: Dur,
    /// Period lengths: "exponential" with the given means (default) or "fixed".
    #[serde(default)]
    pub distribution: PeriodsSpec,
    /// Wire bytes per packet, 28..=65535.
    #[serde(default = "d_pkt_bytes")]
    pub packet_bytes: u32,
    /// Time the first on period starts.
    #[serde(default)]
    pub start: Dur,
    /// No packet leaves at or after this time, after `start` (default: the end of the
    /// run).
    #[serde(default)]
    pub stop: Option<Dur>,
}

impl TrafficKind for OnOffSpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        // no source (count = 0): nothing of the table is used, and nothing was ever refused
        if self.count == 0 {
            return Ok(());
        }
        let b = check_bytes(path, self.packet_bytes, "packet_bytes")?;
        check_stream(path, self.rate, b, self.start, self.stop)?;
        positive(path, "on_time", self.on_time.0)
    }

    fn tcp(&self) -> Option<&TcpSpec> {
        None
    }

    fn build(&self, ctx: &mut TrafficCtx) -> Result<(), String> {
        add_sources(ctx, &self.from, &self.to, self.count, |ctx, _, _, _| {
            let how = match self.distribution {
                PeriodsSpec::Exponential => Periods::Exponential,
                PeriodsSpec::Fixed => Periods::Fixed,
            };
            let p = Some((self.on_time.0, self.off_time.0, how));
            let stop = stop_of(self.stop, ctx.end);
            Ok(Box::new(Stream::new(self.rate.0 .0 as f64, self.packet_bytes, p, self.start.0, stop)))
        })
    }
}
