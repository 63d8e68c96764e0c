//! The tables of the non-TCP sources of `[[traffic]]`: cbr, onoff, the MBS probe and the
//! attacker on the super-packet router (traffic/raw.rs, traffic/mbs_probe.rs,
//! traffic/attack.rs).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::traffic::mbs_probe::ProbeParams;

use super::common::{Dur, Rate};

/// The fastest non-TCP source, packets a second (an attacker's `rate_pps` bound too):
/// each packet is an event, so a faster one piles events up faster than any run ends.
pub const MAX_SOURCE_PPS: f64 = 1e8;

/// An attacker (traffic/attack.rs; the attacks of Li, UCB/EECS-2013-83, section 3.1): `attack` is
/// `spoof_flood`, `bloom_pollution`, `outstanding_drain` or `epoch_sync`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpAttackSpec {
    /// The attack: "spoof_flood", "bloom_pollution", "outstanding_drain" or "epoch_sync"
    /// (traffic/attack.rs).
    pub attack: String,
    /// The attacker's node.
    pub from: String,
    /// The node its packets are sent to.
    pub to: String,
    /// Packets per second (epoch_sync: per second on average, sent in bursts), in (0, 1e8].
    pub rate_pps: f64,
    /// Wire bytes per packet, 28..=65535.
    #[serde(default = "d_attack_bytes")]
    pub packet_bytes: u32,
    /// The `len` written in every header, at least 1.
    #[serde(default = "d_attack_len")]
    pub len: u16,
    /// Time the attack starts.
    #[serde(default)]
    pub start: Dur,
    /// Time the attack stops (default: the end of the run).
    #[serde(default)]
    pub stop: Option<Dur>,
    /// Nodes whose (node, to) pairs outstanding_drain claims, and spoof_flood aims at.
    #[serde(default)]
    pub victims: Vec<String>,
    /// spoof_flood: aim spoofed sources at the victims' home slots in a table of this
    /// many slots (a power of two, at most 2^26) under the public zero key; 0: random
    /// sources (aiming needs `victims`).
    #[serde(default)]
    pub aim_slots: u64,
    /// Spoofed sources per victim when aiming, 1..=4096.
    #[serde(default = "d_aim_per_victim")]
    pub aim_per_victim: u32,
    /// epoch_sync: the epoch grid the attacker assumes (k x epoch); above 0.
    #[serde(default = "super::queue::d_epoch")]
    pub epoch: Dur,
}

pub(crate) fn d_attack_bytes() -> u32 {
    40
}
pub(crate) fn d_attack_len() -> u16 {
    10
}
pub(crate) fn d_aim_per_victim() -> u32 {
    64
}

pub(crate) fn d_pkt_bytes() -> u32 {
    1500
}

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
    #[serde(default = "super::queue::d_one")]
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
    #[serde(default = "super::queue::d_one")]
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
