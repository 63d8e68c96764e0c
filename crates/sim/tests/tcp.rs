//! TCP rule by rule: each test drives one scripted flow (sim::tcp::script, no network)
//! through the situation an RFC rule speaks of and checks the sender's or receiver's
//! state against values derived by hand in the test's comment.
//!
//! Common setting unless a test says otherwise (SCENARIOS.md common defaults): MSS 1460 B,
//! initial window 10 segments, min RTO 200 ms, initial RTO 1 s, clock granularity
//! G = 1 ms, DupThresh 3, no delayed ACK, NewReno. The SYN-ACK arrives 100 ms after the
//! SYN, so the first RTT sample is R = 100 ms (RFC 6298 2.2: SRTT = 100 ms,
//! RTTVAR = 50 ms, RTO = 100 + max(1, 4 x 50) = 300 ms).
//!
//! Run: `cargo test --release -p superpacket-sim --test tcp`.

#[path = "tcp/cc_bic.rs"]
mod cc_bic;
#[path = "tcp/cc_cubic.rs"]
mod cc_cubic;
#[path = "tcp/cc_highspeed.rs"]
mod cc_highspeed;
#[path = "tcp/cc_htcp.rs"]
mod cc_htcp;
#[path = "tcp/cc_ltcp.rs"]
mod cc_ltcp;
#[path = "tcp/cc_scalable.rs"]
mod cc_scalable;
#[path = "tcp/cc_vegas.rs"]
mod cc_vegas;
#[path = "tcp/common.rs"]
mod common;
#[path = "tcp/composable.rs"]
mod composable;
#[path = "tcp/dcr_ncr.rs"]
mod dcr_ncr;
#[path = "tcp/dctcp.rs"]
mod dctcp;
#[path = "tcp/defects.rs"]
mod defects;
#[path = "tcp/hystart.rs"]
mod hystart;
#[path = "tcp/options.rs"]
mod options;
#[path = "tcp/rfc1122_receiver.rs"]
mod rfc1122_receiver;
#[path = "tcp/rfc3168.rs"]
mod rfc3168;
#[path = "tcp/rfc5681.rs"]
mod rfc5681;
#[path = "tcp/rfc6298.rs"]
mod rfc6298;
#[path = "tcp/rfc6582.rs"]
mod rfc6582;
#[path = "tcp/rfc6675.rs"]
mod rfc6675;
