//! `kind = "mbs_probe"`: the MBS and available-bandwidth probe (traffic/mbs_probe.rs has
//! the procedure and the defaults), its trains reported back by the receiver.

use schemars::JsonSchema;
use serde::Deserialize;

use super::kind::{TrafficCtx, TrafficKind};
use super::raw::{add_sources, check_bytes};
use crate::core::check::{int_range, open_unit, positive};
use crate::scenario::common::Dur;
use crate::scenario::tcp::TcpSpec;
use crate::traffic::mbs_probe::{MbsProbe, ProbeParams};

/// The MBS probe (traffic/mbs_probe.rs has the procedure and the defaults).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MbsProbeSpec {
    /// The probing node.
    pub from: String,
    /// The node that reports the trains back.
    pub to: String,
    /// Time the first train leaves.
    #[serde(default)]
    pub start: Dur,
    /// Wire bytes per probe packet, 28..=65535.
    #[serde(default)]
    #[schemars(default = "probe_default::probe_packet_bytes")]
    pub packet_bytes: Option<u32>,
    /// Times each train size is tried (it is loss-free only if every trial is), 1..=100.
    #[serde(default)]
    #[schemars(default = "probe_default::probe_trials")]
    pub trials: Option<u32>,
    /// Largest train, packets, 2..=1000000.
    #[serde(default)]
    #[schemars(default = "probe_default::probe_max_train")]
    pub max_train: Option<u32>,
    /// The binary search stops at max(1, resolution x N) packets; in [0, 0.5).
    #[serde(default)]
    #[schemars(default = "probe_default::probe_resolution")]
    pub resolution: Option<f64>,
    /// Packets per FAC train (at most the MBS), at least 2.
    #[serde(default)]
    #[schemars(default = "probe_default::probe_fac_train")]
    pub fac_train: Option<u32>,
    /// A FAC estimate is accepted when |r_out - r_in| / r_in is below this; in (0, 1).
    #[serde(default)]
    #[schemars(default = "probe_default::probe_fac_epsilon")]
    pub fac_epsilon: Option<f64>,
    /// At most this many FAC trains, 1..=1000.
    #[serde(default)]
    #[schemars(default = "probe_default::probe_fac_rounds")]
    pub fac_rounds: Option<u32>,
    /// Timeout of a train before any RTT is known; above 0.
    #[serde(default)]
    #[schemars(default = "probe_default::probe_init_timeout")]
    pub init_timeout: Option<Dur>,
}

/// The schema's defaults of the `mbs_probe` table: the probe's own `Default`.
pub(crate) mod probe_default {
    use super::*;
    use crate::scenario::common::defaults;

    fn probe() -> ProbeParams {
        ProbeParams::default()
    }

    defaults! {
        probe_packet_bytes: u32 = probe().pkt_bytes;
        probe_trials: u32 = probe().trials;
        probe_max_train: u32 = probe().max_train;
        probe_resolution: f64 = probe().resolution;
        probe_fac_train: u32 = probe().fac_train;
        probe_fac_epsilon: f64 = probe().fac_epsilon;
        probe_fac_rounds: u32 = probe().fac_rounds;
        probe_init_timeout: Dur = Dur(probe().init_timeout);
    }
}

impl MbsProbeSpec {
    /// The probe's parameters, its defaults where the table leaves a field out.
    fn params(&self) -> ProbeParams {
        let (c, d) = (self, ProbeParams::default());
        ProbeParams {
            pkt_bytes: c.packet_bytes.unwrap_or(d.pkt_bytes),
            trials: c.trials.unwrap_or(d.trials),
            max_train: c.max_train.unwrap_or(d.max_train),
            resolution: c.resolution.unwrap_or(d.resolution),
            fac_train: c.fac_train.unwrap_or(d.fac_train),
            fac_epsilon: c.fac_epsilon.unwrap_or(d.fac_epsilon),
            fac_rounds: c.fac_rounds.unwrap_or(d.fac_rounds),
            init_timeout: c.init_timeout.map_or(d.init_timeout, |x| x.0),
            start: c.start.0,
        }
    }
}

impl TrafficKind for MbsProbeSpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        let p = self.params();
        check_bytes(path, p.pkt_bytes, "packet_bytes")?;
        int_range(path, "trials", p.trials.into(), 1, 100)?;
        if !(2..=1_000_000).contains(&p.max_train) {
            return Err(format!("{path}.max_train: must be 2..1000000 packets (got {})", p.max_train));
        }
        if !(0.0..0.5).contains(&p.resolution) {
            return Err(format!("{path}.resolution: must be in [0, 0.5) (got {})", p.resolution));
        }
        if p.fac_train < 2 {
            return Err(format!("{path}.fac_train: must be >= 2 packets (got {})", p.fac_train));
        }
        open_unit(path, "fac_epsilon", p.fac_epsilon)?;
        int_range(path, "fac_rounds", p.fac_rounds.into(), 1, 1000)?;
        positive(path, "init_timeout", p.init_timeout)
    }

    fn tcp(&self) -> Option<&TcpSpec> {
        None
    }

    fn build(&self, ctx: &mut TrafficCtx) -> Result<(), String> {
        add_sources(ctx, &self.from, &self.to, 1, |ctx, _, _, fwd| {
            let line = ctx.first_link_rate(fwd);
            Ok(Box::new(MbsProbe::new(self.params(), line)))
        })
    }
}
