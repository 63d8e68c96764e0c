//! Congestion control behind one small trait (smoltcp's congestion.rs, quinn's
//! ControllerFactory): one required method, no-op defaults for the rest. Windows are in
//! segments (the papers' unit: "cwnd of 1 is the same as 1 MSS").
//!
//! A congestion control says how the window grows on new ACKs, what ssthresh becomes
//! after a congestion event, and optionally a pacing rate; it sees every RTT sample, every
//! packet sent, timeouts and recovery exits (the hooks the algorithms of
//! ALGORITHMS.md need: Linux's cong_avoid / ssthresh / pkts_acked / set_state). Loss
//! detection and recovery are not its business (tcp/recovery/).
//!
//! Each algorithm is one file and one variant of `CcConfig`, its typed parameter table
//! in the scenario (`[tcp.cc] kind = "newreno"` plus its constants; `cc = "newreno"` is
//! the short form), validated like every other field.

pub mod bic;
pub mod control;
pub mod cubic;
pub mod dctcp;
pub mod fast;
pub mod fixed;
pub mod highspeed;
pub mod htcp;
pub mod ltcp;
pub mod newreno;
pub mod scalable;
pub mod vegas;

pub use control::{CcState, CongestionControl, CongestionEvent, EcnAck};
use schemars::JsonSchema;
use serde::Deserialize;

/// A congestion control and its parameters, as a scenario gives them.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CcConfig {
    /// RFC 5681 NewReno window growth (no parameters).
    Newreno {},
    /// A constant window of `window` segments (validation and benchmarks, fixed.rs).
    Fixed {
        /// The window, segments; finite, at least 1.
        window: f64,
    },
    /// HighSpeed TCP, RFC 3649 (highspeed.rs).
    Highspeed(highspeed::Params),
    /// Scalable TCP, Kelly 2003 (scalable.rs).
    Scalable(scalable::Params),
    /// Layered TCP, draft-bhandarkar-ltcp-01 (ltcp.rs).
    Ltcp(ltcp::Params),
    /// BIC-TCP (bic.rs): Linux tcp_bic.c, or the `paper` / `ns3` preset.
    Bic(bic::Params),
    /// CUBIC, RFC 9438 (cubic.rs).
    Cubic(cubic::Params),
    /// H-TCP (htcp.rs): Linux tcp_htcp.c semantics, draft options.
    Htcp(htcp::Params),
    /// TCP Vegas (vegas.rs).
    Vegas(vegas::Params),
    /// FAST TCP (fast.rs).
    Fast(fast::Params),
    /// DCTCP, RFC 8257 (dctcp.rs); needs ECN, which it turns on.
    Dctcp(dctcp::Params),
}

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig::Newreno {}
    }
}

impl CcConfig {
    /// The short form `cc = "name"`: the algorithm with its default parameters.
    pub fn by_name(name: &str) -> Option<CcConfig> {
        match name {
            "newreno" => Some(CcConfig::Newreno {}),
            "highspeed" => Some(CcConfig::Highspeed(Default::default())),
            "scalable" => Some(CcConfig::Scalable(Default::default())),
            "ltcp" => Some(CcConfig::Ltcp(Default::default())),
            "bic" => Some(CcConfig::Bic(Default::default())),
            "cubic" => Some(CcConfig::Cubic(Default::default())),
            "htcp" => Some(CcConfig::Htcp(Default::default())),
            "vegas" => Some(CcConfig::Vegas(Default::default())),
            "fast" => Some(CcConfig::Fast(Default::default())),
            "dctcp" => Some(CcConfig::Dctcp(Default::default())),
            _ => None,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            CcConfig::Newreno {} => "newreno",
            CcConfig::Fixed { .. } => "fixed",
            CcConfig::Highspeed(_) => "highspeed",
            CcConfig::Scalable(_) => "scalable",
            CcConfig::Ltcp(_) => "ltcp",
            CcConfig::Bic(_) => "bic",
            CcConfig::Cubic(_) => "cubic",
            CcConfig::Htcp(_) => "htcp",
            CcConfig::Vegas(_) => "vegas",
            CcConfig::Fast(_) => "fast",
            CcConfig::Dctcp(_) => "dctcp",
        }
    }

    /// Checks the parameters; the error names the field under `path`.
    pub fn validate(&self, path: &str) -> Result<(), String> {
        match self {
            CcConfig::Newreno {} => Ok(()),
            CcConfig::Fixed { window } if !(window.is_finite() && *window >= 1.0) => {
                Err(format!("{path}.window: must be a finite number >= 1 (got {window})"))
            }
            CcConfig::Fixed { .. } => Ok(()),
            CcConfig::Highspeed(p) => p.validate(path),
            CcConfig::Scalable(p) => p.validate(path),
            CcConfig::Ltcp(p) => p.validate(path),
            CcConfig::Bic(p) => p.validate(path),
            CcConfig::Cubic(p) => p.validate(path),
            CcConfig::Htcp(p) => p.validate(path),
            CcConfig::Vegas(p) => p.validate(path),
            CcConfig::Fast(p) => p.validate(path),
            CcConfig::Dctcp(p) => p.validate(path),
        }
    }

    /// A fresh per-flow controller (quinn's ControllerFactory::build).
    pub fn build(&self) -> Box<dyn CongestionControl> {
        match self {
            CcConfig::Newreno {} => Box::new(newreno::NewReno),
            CcConfig::Fixed { window } => Box::new(fixed::Fixed { window: *window }),
            CcConfig::Highspeed(p) => Box::new(p.build()),
            CcConfig::Scalable(p) => Box::new(p.build()),
            CcConfig::Ltcp(p) => Box::new(p.build()),
            CcConfig::Bic(p) => Box::new(p.build()),
            CcConfig::Cubic(p) => Box::new(p.build()),
            CcConfig::Htcp(p) => Box::new(p.build()),
            CcConfig::Vegas(p) => Box::new(p.build()),
            CcConfig::Fast(p) => Box::new(p.build()),
            CcConfig::Dctcp(p) => Box::new(p.build()),
        }
    }

    /// Whether the flow must negotiate ECN (DCTCP: RFC 8257 section 3 works on ECE).
    pub fn needs_ecn(&self) -> bool {
        matches!(self, CcConfig::Dctcp(_))
    }

    /// The receiver's ECE echo this algorithm's sender relies on: DCTCP's exact echo
    /// (RFC 8257 section 3.2), RFC 3168's for the others.
    pub fn ece_echo(&self) -> super::EceEcho {
        match self {
            CcConfig::Dctcp(_) => super::EceEcho::Accurate,
            _ => super::EceEcho::Rfc3168,
        }
    }
}

/// The built-in algorithms with default parameters, by the name used in scenario files.
pub fn by_name(name: &str) -> Option<Box<dyn CongestionControl>> {
    CcConfig::by_name(name).map(|c| c.build())
}

pub const NAMES: &[&str] =
    &["newreno", "highspeed", "scalable", "ltcp", "bic", "cubic", "htcp", "vegas", "fast", "dctcp"];

/// `cc` in a scenario: a name (`cc = "newreno"`, default parameters) or a table
/// (`[tcp.cc] kind = "newreno"` plus parameters).
#[derive(Clone, Debug, PartialEq)]
pub struct CcSpec(pub CcConfig);

/// A name of NAMES (the algorithm with its defaults) or a `kind` table (`CcConfig`).
impl JsonSchema for CcSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CcSpec".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        crate::core::schema::name_or_table(
            g.subschema_for::<CcConfig>(),
            NAMES,
            "the algorithm with its default parameters",
        )
    }
}

impl<'de> Deserialize<'de> for CcSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = CcSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a congestion control name ({}) or a table with `kind`", NAMES.join(", "))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<CcSpec, E> {
                CcConfig::by_name(s).map(CcSpec).ok_or_else(|| {
                    E::custom(format!("unknown congestion control {s:?}; allowed: {}", NAMES.join(", ")))
                })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, m: A) -> Result<CcSpec, A::Error> {
                CcConfig::deserialize(serde::de::value::MapAccessDeserializer::new(m)).map(CcSpec)
            }
        }
        d.deserialize_any(V)
    }
}
