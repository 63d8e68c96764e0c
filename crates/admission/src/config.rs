//! Parameters of the super-packet router (the `Params` of Linux red.h's split).
//!
//! Source: Li 2013 Appendix A1 (buffSize, t), A2 (EPOCH), A3 and section 2.2 (the
//! moving hash table and Bloom filter), section 3.1 (keyed hashing, bounded state),
//! section 4.1 (SYN always admitted in the experiments), SCENARIOS.md "Super-packets"
//! (Bloom default 2^16 bits, 4 hashes).

use core::fmt;

use crate::moving_bloom::{MAX_HASHES, MIN_BITS};
use crate::moving_table::MAX_PAIRS_LIMIT;

/// Router configuration, validated once by [`Config::validate`].
///
/// Units: `buff_size`, `threshold` and the `pkt_cnt` passed to `on_arrival` are
/// packets (A1). A byte-counted queue may pass bytes for all three (section 2.4:
/// "t will simply be an actual size limit"); the tests stay `pkt_cnt < limit`, so
/// such a caller still checks that the packet itself fits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// A1 `buffSize` (packets): capacity of the queue behind the admission.
    pub buff_size: u32,
    /// A1 `t` (packets), 0..=buff_size: normal packets and new super-packets are
    /// refused once the queue holds t packets. A1 asks for buffSize - t to exceed
    /// the largest expected super-packet so an admitted one fits whole.
    pub threshold: u32,
    /// A2 `EPOCH` (ns), > 0: a super-packet's state lives between one and two epochs
    /// (section 3.1); section 4.2 uses 80 ms.
    pub epoch_ns: u64,
    /// Bloom bits per generation (m): a power of two, >= 64. Default 2^16.
    pub bloom_bits: u32,
    /// Bloom hash functions (k), 1..=32. Default 4.
    pub bloom_hashes: u32,
    /// Hash-table entries per generation, 1..=2^24: the memory bound of section 3.1.
    /// A first packet that would need entry max_pairs + 1 is denied (TableFull).
    pub max_pairs: u32,
    /// Largest `len` accepted in a super-packet header (packets), >= 1.
    pub max_len: u16,
    /// Per-router secret SipHash key (section 3.1). The all-zero key is public:
    /// use it only where nobody adversarial picks addresses.
    pub key: [u64; 2],
    /// Admit SYN packets whenever pktCnt < buffSize, bypassing `t` (section 4.3:
    /// "instruct the router to always accept a SYN packet"; SCENARIOS.md: "SYN
    /// packets are always admitted where a scenario says so").
    pub admit_syn: bool,
}

impl Default for Config {
    /// The incast router of section 4.2 (buffer 50, t = 5, EPOCH 0.08 s) with the
    /// SCENARIOS.md Bloom filter (2^16 bits, 4 hashes), room for 4096 (src, dst)
    /// pairs per generation, super-packets up to 64 packets, the zero key.
    fn default() -> Self {
        Config {
            buff_size: 50,
            threshold: 5,
            epoch_ns: 80_000_000,
            bloom_bits: 1 << 16,
            bloom_hashes: 4,
            max_pairs: 4096,
            max_len: 64,
            key: [0, 0],
            admit_syn: false,
        }
    }
}

/// A configuration field out of range; `Display` names the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigError {
    /// `buff_size` is 0.
    BuffSizeZero,
    /// `threshold` above `buff_size`.
    ThresholdAboveBuffSize {
        /// Configured t.
        threshold: u32,
        /// Configured buffSize.
        buff_size: u32,
    },
    /// `epoch_ns` is 0.
    EpochZero,
    /// `bloom_bits` not a power of two or below 64.
    BloomBits(u32),
    /// `bloom_hashes` outside 1..=32.
    BloomHashes(u32),
    /// `max_pairs` outside 1..=2^24.
    MaxPairs(u32),
    /// `max_len` is 0.
    MaxLenZero,
}

impl ConfigError {
    /// The name of the offending `Config` field.
    pub fn field(&self) -> &'static str {
        match self {
            ConfigError::BuffSizeZero => "buff_size",
            ConfigError::ThresholdAboveBuffSize { .. } => "threshold",
            ConfigError::EpochZero => "epoch_ns",
            ConfigError::BloomBits(_) => "bloom_bits",
            ConfigError::BloomHashes(_) => "bloom_hashes",
            ConfigError::MaxPairs(_) => "max_pairs",
            ConfigError::MaxLenZero => "max_len",
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "admission config `{}`: ", self.field())?;
        match *self {
            ConfigError::BuffSizeZero => write!(f, "must be at least 1 packet"),
            ConfigError::ThresholdAboveBuffSize { threshold, buff_size } => {
                write!(f, "{threshold} exceeds buff_size {buff_size} (A1 needs t <= buffSize)")
            }
            ConfigError::EpochZero => write!(f, "must be greater than 0 ns"),
            ConfigError::BloomBits(b) => {
                write!(f, "{b} is not a power of two >= {MIN_BITS}")
            }
            ConfigError::BloomHashes(k) => write!(f, "{k} is outside 1..={MAX_HASHES}"),
            ConfigError::MaxPairs(n) => write!(f, "{n} is outside 1..={MAX_PAIRS_LIMIT}"),
            ConfigError::MaxLenZero => write!(f, "must be at least 1 packet"),
        }
    }
}

impl std::error::Error for ConfigError {}

/// The section 3.1 defences that are switches rather than sizes (SCENARIOS.md
/// "attacks": each on or off). Kept apart from [`Config`] so that existing
/// `Config { .. }` literals stay valid; [`Admission::new`](crate::Admission::new)
/// uses [`Defences::default`] (the behaviour before these switches existed).
/// Keyed hashing is `Config::key` (a secret per router, or the public zero key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Defences {
    /// Bounded table: each generation holds at most `max_pairs` entries and probes at
    /// most `PROBE_LIMIT` slots; a new pair beyond that is refused (`TableFull`), live
    /// state is never evicted. Off: a generation doubles when it reaches half load
    /// (and probes without limit), the unbounded table of section 3.1's attack.
    pub bounded_table: bool,
    /// Per-source cap: at most this many packets reserved (section 2.2's
    /// #_of_total_packets_reserved) by one (src, dst) entry of h2, the router's unit
    /// of "source"; a first packet that would exceed it is refused (`SourceCap`).
    /// 0: no cap.
    pub max_reserved_per_pair: u32,
    /// Phase of the epoch grid (ns), below `epoch_ns`: epochs end at phase + k x EPOCH,
    /// not at k x EPOCH, so a sender cannot align with a public grid (section 3.1,
    /// "synchronize with the moving hash table"). A router draws it at random.
    pub epoch_phase_ns: u64,
    /// Per-ingress-port quota: at most this many (src, dst) entries of one generation
    /// installed by first packets that arrived on one port (SCENARIOS.md "attacks",
    /// source validation: a flood from one port cannot take the table the other ports'
    /// senders need). The port is the caller's ([`Admission::on_arrival_port`]); a new
    /// pair past the quota is refused (`PortQuota`). 0: no quota.
    ///
    /// [`Admission::on_arrival_port`]: crate::Admission::on_arrival_port
    pub max_pairs_per_port: u32,
}

impl Default for Defences {
    /// Bounded table, no per-source cap, phase 0, no port quota.
    fn default() -> Self {
        Defences { bounded_table: true, max_reserved_per_pair: 0, epoch_phase_ns: 0, max_pairs_per_port: 0 }
    }
}

impl Defences {
    /// `epoch_phase_ns` must lie in 0..epoch_ns; the message names the field.
    pub fn validate(&self, cfg: &Config) -> Result<(), String> {
        if self.epoch_phase_ns >= cfg.epoch_ns {
            return Err(format!(
                "admission defences `epoch_phase_ns`: {} is not below epoch_ns {}",
                self.epoch_phase_ns, cfg.epoch_ns
            ));
        }
        Ok(())
    }
}

impl Config {
    /// Check every field; the first field out of range is reported.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.buff_size == 0 {
            return Err(ConfigError::BuffSizeZero);
        }
        if self.threshold > self.buff_size {
            return Err(ConfigError::ThresholdAboveBuffSize { threshold: self.threshold, buff_size: self.buff_size });
        }
        if self.epoch_ns == 0 {
            return Err(ConfigError::EpochZero);
        }
        if self.bloom_bits < MIN_BITS || !self.bloom_bits.is_power_of_two() {
            return Err(ConfigError::BloomBits(self.bloom_bits));
        }
        if !(1..=MAX_HASHES).contains(&self.bloom_hashes) {
            return Err(ConfigError::BloomHashes(self.bloom_hashes));
        }
        if !(1..=MAX_PAIRS_LIMIT).contains(&self.max_pairs) {
            return Err(ConfigError::MaxPairs(self.max_pairs));
        }
        if self.max_len == 0 {
            return Err(ConfigError::MaxLenZero);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid() {
        assert_eq!(Config::default().validate(), Ok(()));
    }

    #[test]
    fn each_field_is_named() {
        let d = Config::default;
        let cases = [
            (Config { buff_size: 0, threshold: 0, ..d() }, "buff_size"),
            (Config { threshold: 51, ..d() }, "threshold"),
            (Config { epoch_ns: 0, ..d() }, "epoch_ns"),
            (Config { bloom_bits: 1000, ..d() }, "bloom_bits"),
            (Config { bloom_bits: 32, ..d() }, "bloom_bits"),
            (Config { bloom_hashes: 0, ..d() }, "bloom_hashes"),
            (Config { bloom_hashes: 33, ..d() }, "bloom_hashes"),
            (Config { max_pairs: 0, ..d() }, "max_pairs"),
            (Config { max_pairs: (1 << 24) + 1, ..d() }, "max_pairs"),
            (Config { max_len: 0, ..d() }, "max_len"),
        ];
        for (cfg, field) in cases {
            let err = cfg.validate().unwrap_err();
            assert_eq!(err.field(), field);
            assert!(err.to_string().contains(field), "{err}");
        }
        let ph = Defences { epoch_phase_ns: 80_000_000, ..Defences::default() };
        assert!(ph.validate(&d()).unwrap_err().contains("epoch_phase_ns"));
        assert_eq!(Defences { epoch_phase_ns: 79_999_999, ..ph }.validate(&d()), Ok(()));
        let msg = Config { threshold: 60, ..d() }.validate().unwrap_err().to_string();
        assert_eq!(msg, "admission config `threshold`: 60 exceeds buff_size 50 (A1 needs t <= buffSize)");
    }
}
