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
//! The registry: each algorithm is one file (its `Params`, the scenario's typed
//! parameter table with `validate` and `build`, and the controller) and one line of
//! `registry!` below, which declares the module and makes the `CcConfig` variant
//! (`[tcp.cc] kind = "name"` plus its constants; `cc = "name"` is the short form), the
//! name lookups, the validation and the builder, and the list `superpacket list` and
//! the schema reference show (the line's doc comment is the description).

pub mod control;
pub mod fixed;
pub mod newreno;

pub use control::{CcState, CongestionControl, CongestionEvent, EceEcho, EcnAck};
use schemars::JsonSchema;
use serde::Deserialize;

/// The registry of congestion controls with parameters. A line reads
/// `/// description` then `module: Variant,` (or `module: Variant, ecn` for an algorithm
/// that works on ECN and turns it on): the module holds `Params` (Default, Deserialize,
/// JsonSchema, `validate(&self, path)`, `build(&self)`), the kind name is the module's.
/// NewReno (no parameters) and the fixed window (validation only) are written out.
macro_rules! registry {
    ($($(#[doc = $doc:literal])* $module:ident: $variant:ident $(, $ecn:ident)?;)*) => {
        $(pub mod $module;)*

        /// A congestion control and its parameters, as a scenario gives them.
        #[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
        #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
        pub enum CcConfig {
            /// RFC 5681 NewReno window growth (no parameters).
            Newreno {},
            /// A constant window of `window` segments (validation and benchmarks, fixed.rs).
            Fixed {
                /// The window, segments; finite, 1..=1000000.
                window: f64,
            },
            $($(#[doc = $doc])* $variant($module::Params),)*
        }

        /// The names `cc = "name"` takes (each with its default parameters), in the
        /// registry's order.
        pub const NAMES: &[&str] = &["newreno", $(stringify!($module)),*];

        /// (name, description) of every algorithm, the table form's `fixed` included.
        pub const DESCRIPTIONS: &[(&str, &str)] = &[
            ("newreno", "RFC 5681 NewReno window growth (no parameters)."),
            ("fixed", "A constant window of `window` segments (validation and benchmarks, fixed.rs)."),
            $((stringify!($module), concat!($($doc),*)),)*
        ];

        impl CcConfig {
            /// The short form `cc = "name"`: the algorithm with its default parameters.
            pub fn by_name(name: &str) -> Option<CcConfig> {
                match name {
                    "newreno" => Some(CcConfig::Newreno {}),
                    $(stringify!($module) => Some(CcConfig::$variant(Default::default())),)*
                    _ => None,
                }
            }

            pub fn name(&self) -> &'static str {
                match self {
                    CcConfig::Newreno {} => "newreno",
                    CcConfig::Fixed { .. } => "fixed",
                    $(CcConfig::$variant(_) => stringify!($module),)*
                }
            }

            /// Checks the parameters; the error names the field under `path`.
            pub fn validate(&self, path: &str) -> Result<(), String> {
                match self {
                    CcConfig::Newreno {} => Ok(()),
                    // at most 10^6 segments, as init_cwnd: the sender builds the window's
                    // flight at once
                    CcConfig::Fixed { window } if !(window.is_finite() && (1.0..=1e6).contains(window)) => {
                        Err(format!("{path}.window: must be a finite number in 1..1000000 (got {window})"))
                    }
                    CcConfig::Fixed { .. } => Ok(()),
                    $(CcConfig::$variant(p) => p.validate(path),)*
                }
            }

            /// A fresh per-flow controller (quinn's ControllerFactory::build).
            pub fn build(&self) -> Box<dyn CongestionControl> {
                match self {
                    CcConfig::Newreno {} => Box::new(newreno::NewReno),
                    CcConfig::Fixed { window } => Box::new(fixed::Fixed { window: *window }),
                    $(CcConfig::$variant(p) => Box::new(p.build()),)*
                }
            }

            /// Whether the flow must negotiate ECN (DCTCP: RFC 8257 section 3 works on ECE).
            pub fn needs_ecn(&self) -> bool {
                match self {
                    $($(CcConfig::$variant(_) => registry!(@flag $ecn),)?)*
                    _ => false,
                }
            }
        }
    };
    (@flag ecn) => {
        true
    };
}

registry! {
    /// HighSpeed TCP, RFC 3649 (highspeed.rs).
    highspeed: Highspeed;
    /// Scalable TCP, Kelly 2003 (scalable.rs).
    scalable: Scalable;
    /// Layered TCP, draft-bhandarkar-ltcp-01 (ltcp.rs).
    ltcp: Ltcp;
    /// BIC-TCP (bic.rs): Linux tcp_bic.c, or the `paper` / `ns3` preset.
    bic: Bic;
    /// CUBIC, RFC 9438 (cubic.rs).
    cubic: Cubic;
    /// H-TCP (htcp.rs): Linux tcp_htcp.c semantics, draft options.
    htcp: Htcp;
    /// TCP Vegas (vegas.rs).
    vegas: Vegas;
    /// FAST TCP (fast.rs).
    fast: Fast;
    /// DCTCP, RFC 8257 (dctcp.rs); needs ECN, which it turns on, and a queue that marks
    /// (a scenario with none is refused).
    dctcp: Dctcp, ecn;
}

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig::Newreno {}
    }
}

impl CcConfig {
    /// The receiver's ECE echo this algorithm's sender relies on: DCTCP's exact echo
    /// (RFC 8257 section 3.2) for an algorithm that measures ECN itself, RFC 3168's for
    /// the others.
    pub fn ece_echo(&self) -> EceEcho {
        if self.needs_ecn() {
            EceEcho::Accurate
        } else {
            EceEcho::Rfc3168
        }
    }
}

/// The built-in algorithms with default parameters, by the name used in scenario files.
pub fn by_name(name: &str) -> Option<Box<dyn CongestionControl>> {
    CcConfig::by_name(name).map(|c| c.build())
}

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
