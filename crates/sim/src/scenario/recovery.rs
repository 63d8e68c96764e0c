//! `recovery` and `reordering` in `[tcp]`: NewReno or SACK loss recovery, and the
//! response to reordering around it (TCP-DCR, TCP-NCR).

use schemars::JsonSchema;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};

use crate::tcp::recovery::dcr::{DcrBase, DcrConfig};
use crate::tcp::recovery::ncr::{NcrConfig, NcrVariant};
use crate::tcp::recovery::Reordering;

use super::common::Dur;

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecoverySpec {
    Newreno,
    Sack,
}

/// `reordering` in `[tcp]`: a name or a table with `kind` (see `TcpSpec::reordering`).
#[derive(Clone, Debug, PartialEq)]
pub struct ReorderingSpec(ReorderingTable);

#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum ReorderingTable {
    /// No response: the standard fast retransmit.
    None {},
    /// TCP-DCR (tcp/recovery/dcr.rs): the fast retransmit waits tau after the first
    /// duplicate ACK.
    Dcr {
        /// tau as a multiple of SRTT at the first duplicate ACK (1.0: one RTT); finite, >= 0.
        #[serde(default)]
        #[schemars(default = "reordering_default::dcr_tau_srtt")]
        tau_srtt: Option<f64>,
        /// A fixed tau instead (overrides `tau_srtt`).
        #[serde(default)]
        tau: Option<Dur>,
        /// Which state the loss response after tau is based on: FlightSize and cwnd at the
        /// first duplicate ACK ("first_dupack") or when tau expires ("expiry", the draft's
        /// "standard FR/FR" literally).
        #[serde(default)]
        #[schemars(default = "reordering_default::dcr_base")]
        base: Option<DcrBaseSpec>,
        /// Additive increase continues during tau (draft section 4).
        #[serde(default)]
        #[schemars(default = "reordering_default::dcr_grow_during_tau")]
        grow_during_tau: Option<bool>,
        /// Restart the retransmission timer at the delayed fast retransmit.
        #[serde(default)]
        #[schemars(default = "reordering_default::dcr_rearm_rto")]
        rearm_rto: Option<bool>,
    },
    /// RFC 4653 TCP-NCR (tcp/recovery/ncr.rs): extended limited transmit; needs
    /// recovery = "sack".
    Ncr {
        /// RFC 4653's "careful" (Careful Limited Transmit, LT_F = 2/3) or "aggressive" variant.
        #[schemars(default = "reordering_default::ncr_variant")]
        #[serde(default)]
        variant: Option<NcrVariantSpec>,
    },
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum DcrBaseSpec {
    FirstDupack,
    Expiry,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum NcrVariantSpec {
    Careful,
    Aggressive,
}

pub(crate) const REORDERING_NAMES: &str = "none, dcr, ncr";

/// A name of REORDERING_NAMES (the response with its defaults) or a `kind` table.
impl JsonSchema for ReorderingSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ReorderingSpec".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = REORDERING_NAMES.split(", ").collect();
        crate::core::schema::name_or_table(
            g.subschema_for::<ReorderingTable>(),
            &names,
            "the response with its defaults",
        )
    }
}

impl<'de> Deserialize<'de> for ReorderingSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = ReorderingSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a reordering response ({REORDERING_NAMES}) or a table with `kind`")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<ReorderingSpec, E> {
                let t = match s {
                    "none" => ReorderingTable::None {},
                    "dcr" => ReorderingTable::Dcr {
                        tau_srtt: None,
                        tau: None,
                        base: None,
                        grow_during_tau: None,
                        rearm_rto: None,
                    },
                    "ncr" => ReorderingTable::Ncr { variant: None },
                    _ => {
                        return Err(E::custom(format!(
                            "unknown reordering response {s:?}; allowed: {REORDERING_NAMES}"
                        )))
                    }
                };
                Ok(ReorderingSpec(t))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, m: A) -> Result<ReorderingSpec, A::Error> {
                ReorderingTable::deserialize(de::value::MapAccessDeserializer::new(m)).map(ReorderingSpec)
            }
        }
        d.deserialize_any(V)
    }
}

impl ReorderingSpec {
    pub(crate) fn resolve(&self, path: &str) -> Result<Reordering, String> {
        Ok(match &self.0 {
            ReorderingTable::None {} => Reordering::None,
            ReorderingTable::Dcr { tau_srtt, tau, base, grow_during_tau, rearm_rto } => {
                let d = DcrConfig::default();
                let c = DcrConfig {
                    tau_srtt: tau_srtt.unwrap_or(d.tau_srtt),
                    tau: tau.map(|t| t.0),
                    base: match base {
                        None => d.base,
                        Some(DcrBaseSpec::FirstDupack) => DcrBase::FirstDupack,
                        Some(DcrBaseSpec::Expiry) => DcrBase::Expiry,
                    },
                    grow_during_tau: grow_during_tau.unwrap_or(d.grow_during_tau),
                    rearm_rto: rearm_rto.unwrap_or(d.rearm_rto),
                };
                c.validate(path)?;
                Reordering::Dcr(c)
            }
            ReorderingTable::Ncr { variant } => Reordering::Ncr(NcrConfig {
                variant: match variant {
                    None => NcrConfig::default().variant,
                    Some(NcrVariantSpec::Careful) => NcrVariant::Careful,
                    Some(NcrVariantSpec::Aggressive) => NcrVariant::Aggressive,
                },
            }),
        })
    }
}

/// The schema's defaults of the reordering tables: TCP-DCR's and TCP-NCR's own `Default`s.
pub(crate) mod reordering_default {
    use super::*;
    use crate::scenario::common::defaults;

    fn dcr() -> DcrConfig {
        DcrConfig::default()
    }

    defaults! {
        dcr_tau_srtt: f64 = dcr().tau_srtt;
        dcr_base: DcrBaseSpec = match dcr().base {
            DcrBase::FirstDupack => DcrBaseSpec::FirstDupack,
            DcrBase::Expiry => DcrBaseSpec::Expiry,
        };
        dcr_grow_during_tau: bool = dcr().grow_during_tau;
        dcr_rearm_rto: bool = dcr().rearm_rto;
        ncr_variant: NcrVariantSpec = match NcrConfig::default().variant {
            NcrVariant::Careful => NcrVariantSpec::Careful,
            NcrVariant::Aggressive => NcrVariantSpec::Aggressive,
        };
    }
}
