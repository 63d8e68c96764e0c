//! The named choices of the `[tcp]` table's fields (`host`, `rto_formula`,
//! `slow_start_exit`, ...) and its `ack_batch` table, as a scenario writes them; tcp.rs
//! resolves them into the simulator's own types.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::Dur;

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AckBatchSpec {
    /// ACK after this many data packets, 1..=100000.
    pub pkts: u32,
    /// ... or after this long since the first unacknowledged one; above 0, at most 10s.
    pub timeout: Dur,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HostSpec {
    Linux,
    Ns2,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RtoFormulaSpec {
    Rfc6298,
    Linux,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SlowStartIncrementSpec {
    Rfc5681,
    Linux,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SlowStartExitSpec {
    None,
    Hystart,
    #[serde(rename = "hystart++")]
    HystartPp,
    Limited,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SackAfterRtoSpec {
    Clear,
    Keep,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LocalDropSpec {
    Ignore,
    Cwr,
    Hold,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RtoBackoffResetSpec {
    RttSample,
    NewAck,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpModeSpec {
    Off,
    Flow,
    Runs,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpDenialSpec {
    Fallback,
    Retry,
}
