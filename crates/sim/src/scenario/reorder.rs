//! `[[reorder]]`: reordering stages on links (net/reorder.rs).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::core::check::Validate;
use crate::core::memory::MemoryEstimate;
use crate::core::rng::Rng;
use crate::core::time::SimTime;
use crate::net::reorder::{Negative, ReorderParams, ReorderStage};
use crate::net::topology::Network;

use super::common::{Dur, STREAM_REORDER};
use super::costs;

/// `[[reorder]]`: each packet chosen with probability `q` waits an extra delay from
/// Normal(`delay_mean`, `delay_sd`) after the wire, so later packets overtake it.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReorderSpec {
    /// Links ("R1->R2") whose far end delays packets.
    #[serde(default)]
    pub links: Vec<String>,
    /// A router whose forwarded packets are delayed: every link leaving it (dcr-multihop's
    /// R3 "reorders 1 % of the packets it forwards").
    #[serde(default)]
    pub router: Option<String>,
    /// Probability that a packet (of the kind `packets` selects) is held, in [0, 1].
    pub q: f64,
    /// Mean of the extra delay (Normal).
    #[serde(default = "d_reorder_mean")]
    pub delay_mean: Dur,
    /// Standard deviation of the extra delay.
    #[serde(default = "d_reorder_sd")]
    pub delay_sd: Dur,
    /// A negative draw is "redraw"n (default) or "clamp"ed to 0.
    #[serde(default)]
    pub negative: NegativeSpec,
    /// "data" (default: ACKs are not reordered) or "all".
    #[serde(default)]
    pub packets: ReorderPacketsSpec,
}

pub(crate) fn d_reorder_mean() -> Dur {
    Dur(SimTime::from_ms(25))
}
pub(crate) fn d_reorder_sd() -> Dur {
    Dur(SimTime::from_ms(8))
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NegativeSpec {
    #[default]
    Redraw,
    Clamp,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReorderPacketsSpec {
    #[default]
    Data,
    All,
}

/// The probability (the links and the router are names in the built network).
impl Validate for ReorderSpec {
    fn validate(&self, path: &str) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.q) {
            return Err(format!("{path}.q: must be a probability in [0, 1] (got {})", self.q));
        }
        Ok(())
    }
}

impl ReorderSpec {
    /// Puts a reordering stage on each link this entry names.
    pub(crate) fn attach(
        &self,
        net: &mut Network,
        seed: u64,
        path: &str,
        mem: &mut MemoryEstimate,
        end: SimTime,
    ) -> Result<(), String> {
        debug_assert_eq!(self.validate(path), Ok(()));
        // the names need the built network: checked here
        let mut ids = Vec::new();
        for (j, name) in self.links.iter().enumerate() {
            ids.push(net.link_by_any_name(name).ok_or_else(|| {
                format!(
                    "{path}.links[{j}]: unknown link {name:?} (links are named \"a->b\" or \"a-to-b\", e.g. {:?})",
                    net.links.first().map(|l| l.name.as_str()).unwrap_or("")
                )
            })?);
        }
        if let Some(r) = &self.router {
            let n = net.node(r).ok_or_else(|| format!("{path}.router: unknown node {r:?}"))?;
            ids.extend((0..net.links.len() as u32).filter(|&l| net.links[l as usize].from == n));
        }
        if ids.is_empty() {
            return Err(format!("{path}: name `links` or a `router`"));
        }
        let p = ReorderParams {
            q: self.q,
            mean: self.delay_mean.0,
            sd: self.delay_sd.0,
            negative: match self.negative {
                NegativeSpec::Redraw => Negative::Redraw,
                NegativeSpec::Clamp => Negative::Clamp,
            },
            data_only: self.packets == ReorderPacketsSpec::Data,
        };
        for l in ids {
            let link = &mut net.links[l as usize];
            // the stage holds q of the link's packets for about mean + 3 sd (at most the run)
            let hold = (self.delay_mean.0 + self.delay_sd.0 + self.delay_sd.0 + self.delay_sd.0).min(end);
            mem.charge(&format!("{path}.delay_mean"), costs::held_bytes(self.q, link.rate, hold, end))?;
            if link.reorder.is_some() {
                return Err(format!("{path}: link {} already has a reordering stage", link.name));
            }
            link.reorder = Some(Box::new(ReorderStage::new(p, Rng::stream(seed, STREAM_REORDER + l as u64))));
        }
        Ok(())
    }
}
