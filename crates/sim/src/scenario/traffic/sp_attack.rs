//! `kind = "sp_attack"`: an attacker on the super-packet router's state
//! (traffic/attack.rs; the attacks of Li, UCB/EECS-2013-83, section 3.1).

use schemars::JsonSchema;
use serde::Deserialize;

use super::kind::{TrafficCtx, TrafficKind};
use super::raw::{add_sources, check_bytes, stop_of, MAX_SOURCE_PPS};
use crate::core::check::{int_range, positive};
use crate::scenario::common::Dur;
use crate::scenario::tcp::TcpSpec;
use crate::traffic::attack::{AttackMode, Attacker};

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
    #[serde(default = "crate::scenario::queue::d_epoch")]
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


impl SpAttackSpec {
    /// The attack `attack` names.
    fn mode(&self, path: &str) -> Result<AttackMode, String> {
        match self.attack.as_str() {
            "spoof_flood" => Ok(AttackMode::SpoofFlood),
            "bloom_pollution" => Ok(AttackMode::BloomPollution),
            "outstanding_drain" => Ok(AttackMode::OutstandingDrain),
            "epoch_sync" => Ok(AttackMode::EpochSync),
            other => Err(format!(
                "{path}.attack: unknown attack {other:?} (spoof_flood, bloom_pollution, outstanding_drain, epoch_sync)"
            )),
        }
    }
}

impl TrafficKind for SpAttackSpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        let c = self;
        self.mode(path)?;
        if !(c.rate_pps.is_finite() && c.rate_pps > 0.0 && c.rate_pps <= MAX_SOURCE_PPS) {
            return Err(format!("{path}.rate_pps: must be in (0, 1e8] packets/s (got {})", c.rate_pps));
        }
        check_bytes(path, c.packet_bytes, "packet_bytes")?;
        if c.len == 0 {
            return Err(format!("{path}.len: must be >= 1 packet"));
        }
        positive(path, "epoch", c.epoch.0)?;
        if c.aim_slots != 0 && !(c.aim_slots.is_power_of_two() && c.aim_slots <= 1 << 26) {
            return Err(format!("{path}.aim_slots: must be 0 or a power of two up to 2^26 (got {})", c.aim_slots));
        }
        int_range(path, "aim_per_victim", c.aim_per_victim.into(), 1, 4096)
    }

    fn tcp(&self) -> Option<&TcpSpec> {
        None
    }

    fn build(&self, ctx: &mut TrafficCtx) -> Result<(), String> {
        let c = self;
        add_sources(ctx, &c.from, &c.to, 1, |ctx, src, dst, fwd| {
            let path = &ctx.path;
            let mode = self.mode(path)?;
            let mut victims = Vec::new();
            for (j, v) in c.victims.iter().enumerate() {
                victims.push(ctx.node(v, &format!("{path}.victims[{j}]"))?);
            }
            if victims.is_empty() && (mode == AttackMode::OutstandingDrain || c.aim_slots > 0) {
                return Err(format!("{path}.victims: {} needs at least one victim node", mode.name()));
            }
            let line = ctx.first_link_rate(fwd);
            let stop = stop_of(c.stop, ctx.end);
            let (b, start, epoch) = (c.packet_bytes, c.start.0, c.epoch.0);
            let mut a = Attacker::new(mode, c.rate_pps, b, c.len, start, stop, src, dst, victims, epoch, line);
            if c.aim_slots > 0 {
                a.aim(c.aim_slots, c.aim_per_victim as usize);
            }
            Ok(Box::new(a))
        })
    }
}
