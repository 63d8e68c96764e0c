//! Super-packet admission for a router output queue, without simulator types.
//!
//! Source: Yunlong Li, "Benefits and Practicality of Super-Packets", UC Berkeley
//! technical report UCB/EECS-2013-83, 2013: section 2.1 (the header), section 2.2
//! and 2.4 (router state and admission policy), section 3.1 (attacks on the state),
//! Appendix A1 (admission), A2 (moving hash table / Bloom filter), A3 (state
//! installation and update). Parameters as in `shared/SCENARIOS.md` "Super-packets".
//!
//! Layout (Linux red.h split: parameters, variables, statistics; smoltcp wire style):
//! - [`header`]: the super-packet IPv4 option, zero-copy view + validated repr;
//! - [`siphash`]: keyed SipHash-1-3 (section 3.1: no aimed collisions);
//! - [`moving_table`]: fixed-capacity two-generation (src, dst) table (A2, A3);
//! - [`moving_bloom`]: two-generation Bloom filter on (src, dst, sid) (A2, A3);
//! - [`config`], [`stats`]: `Config` (validated once), `Stats` (one counter per cause);
//! - [`admission`]: `Admission::on_arrival`, every branch of A1 and A3.
//!
//! The library never reads a clock and never allocates after [`Admission::new`].
//!
//! ```
//! use admission::{Admission, Config, PacketMeta, SpHeaderRepr, Verdict};
//! let mut adm = Admission::new(Config { key: [1, 2], ..Config::default() }).unwrap();
//! let sp = |first| Some(SpHeaderRepr { sid: 83, len: 3, first });
//! let pkt = |first| PacketMeta { src: 1, dst: 2, sp: sp(first), syn: false };
//! assert_eq!(adm.on_arrival(0, &pkt(true), 0), Verdict::Admit);
//! assert_eq!(adm.total_outstanding(), 2);
//! // Above t = 5 only subsequent packets of admitted super-packets get in.
//! assert_eq!(adm.on_arrival(10, &pkt(false), 20), Verdict::Admit);
//! assert_eq!(adm.total_outstanding(), 1);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod admission;
pub mod config;
pub mod header;
pub mod moving_bloom;
pub mod moving_table;
pub mod siphash;
pub mod stats;

pub use admission::{Admission, Lookup, PacketMeta};
pub use config::{Config, ConfigError, Defences};
pub use header::{find_in_options, HeaderError, SpHeaderRepr, SpOption};
pub use moving_table::Entry;
pub use stats::{DropReason, Stats, Verdict};
