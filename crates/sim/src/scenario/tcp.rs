//! `[tcp]` and a traffic entry's `tcp` table: every field optional, resolved over the
//! scenario's table and then the defaults into `TcpParams`.

use crate::core::check::int_range;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::core::time::SimTime;
use crate::tcp::cc;
use crate::tcp::gate::{GateConfig, GateSpec};
use crate::tcp::recovery::{RecoveryKind, Reordering};
use crate::tcp::sched::Pacing;
use crate::tcp::{HostProfile, RtoBackoffReset, SpDenial, SpMode, TcpParams};

use super::common::{Dur, MAX_INIT_CWND};
use super::recovery::{RecoverySpec, ReorderingSpec};
pub use super::tcp_choices::*;

/// TCP settings; every field optional, filled from the scenario's `[tcp]` table and
/// then from the defaults of the host profile (`host`: Linux's unless set;
/// `TcpParams::for_host`).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Whose TCP the unset fields below follow: "linux" (the default: SACK recovery with
    /// PRR, the SACK scoreboard kept across a timeout, Linux's RTO formula, a segment the
    /// host's NIC refuses held unsent, HyStart for "cubic"; as net/ipv4/tcp_*.c) or "ns2"
    /// (the ns-2 agents the reproduced papers ran: NewReno recovery, RFC 6298's RTO, the
    /// scoreboard cleared at a timeout, no slow-start exit, a refused segment lost). A
    /// field set in the scenario always wins over the profile.
    #[schemars(default = "tcp_default::host")]
    pub host: Option<HostSpec>,
    /// Congestion control: a name of cc::NAMES ("newreno") or a `[tcp.cc]` table with
    /// `kind` and the algorithm's parameters (tcp/cc/mod.rs, `CcConfig`). "dctcp"
    /// (`cc = { kind = "dctcp", g = 0.0625 }`, g in (0, 1], RFC 8257) turns ECN on and
    /// makes the receiver echo CE exactly (RFC 8257 section 3.2, `TcpParams::ece_echo`);
    /// pair it with a marking queue (droptail `ecn_threshold`).
    #[schemars(default = "tcp_default::cc")]
    pub cc: Option<cc::CcSpec>,
    /// Payload bytes per full segment, 1..=65495.
    #[schemars(default = "tcp_default::mss")]
    pub mss: Option<u32>,
    /// IP + TCP header bytes per packet.
    #[schemars(default = "tcp_default::header_bytes")]
    pub header_bytes: Option<u32>,
    /// Initial window, segments; at least 1, at most 1,000,000 (`MAX_INIT_CWND`: the
    /// first flight is built at once).
    #[schemars(default = "tcp_default::init_cwnd")]
    pub init_cwnd: Option<f64>,
    /// Maximum window, segments; at least 1. Default unlimited.
    #[schemars(default = "tcp_default::max_cwnd")]
    pub max_cwnd: Option<f64>,
    /// Lower bound of the retransmission timeout (RFC 6298 (2.4)); at most `max_rto`.
    #[schemars(default = "tcp_default::min_rto")]
    pub min_rto: Option<Dur>,
    /// Upper bound of the retransmission timeout, backoff included; at least `min_rto`.
    #[schemars(default = "tcp_default::max_rto")]
    pub max_rto: Option<Dur>,
    /// Retransmission timeout before the first RTT sample (RFC 6298 (2.1)); above 0.
    #[schemars(default = "tcp_default::init_rto")]
    pub init_rto: Option<Dur>,
    /// RFC 6298 clock granularity G.
    #[schemars(default = "tcp_default::granularity")]
    pub granularity: Option<Dur>,
    /// Duplicate ACKs that trigger a fast retransmit (RFC 5681); at least 1.
    #[schemars(default = "tcp_default::dupack_threshold")]
    pub dupack_threshold: Option<u32>,
    /// The receiver ACKs every second full segment or after `delack_timeout` (RFC 5681
    /// section 4.2); false: every segment.
    #[schemars(default = "tcp_default::delayed_ack")]
    pub delayed_ack: Option<bool>,
    /// The delayed-ACK timer (with `delayed_ack`).
    #[schemars(default = "tcp_default::delack_timeout")]
    pub delack_timeout: Option<Dur>,
    /// Negotiate ECN (RFC 3168). Default false; true with cc kind "dctcp", which
    /// rejects false.
    #[schemars(default = "tcp_default::ecn")]
    pub ecn: Option<bool>,
    /// Send as super-packets (Li, UCB/EECS-2013-83, section 2.3): "off", "flow" (the whole flow is
    /// one super-packet) or "runs" (every `sp_len` consecutive packets).
    #[schemars(default = "tcp_default::superpacket")]
    pub superpacket: Option<SpModeSpec>,
    /// Packets per super-packet in "runs" mode; at least 1.
    #[schemars(default = "tcp_default::sp_len")]
    pub sp_len: Option<u16>,
    /// On a denied super-packet: "fallback" (the paper's implementation: time out, then
    /// plain NewReno) or "retry" (the ideal: resend as a new super-packet).
    #[schemars(default = "tcp_default::sp_on_denial")]
    pub sp_on_denial: Option<SpDenialSpec>,
    /// Super-packet sends in all under "retry" before falling back; at least 1.
    #[schemars(default = "tcp_default::sp_attempts")]
    pub sp_attempts: Option<u8>,
    /// Limited transmit: new data on the duplicate ACKs before a fast retransmit. With
    /// NewReno recovery RFC 3042 (one segment on each of the first two, within cwnd + 2);
    /// with SACK recovery RFC 6675 section 5 (3) (while cwnd - pipe >= SMSS, SACKed data
    /// out of pipe), which is what Linux's tcp_packets_in_flight does on every ACK.
    /// Default: true under host "linux", false under "ns2" (the papers' ns-2 agents have
    /// none).
    #[schemars(default = "tcp_default::limited_transmit")]
    pub limited_transmit: Option<bool>,
    /// Quantise RTT samples and RTO to ticks of this length, as ns-2's tcpTick_ ("100ms"
    /// in the RIO-PS papers); "0s" (default) for none.
    #[schemars(default = "tcp_default::rtt_tick")]
    pub rtt_tick: Option<Dur>,
    /// When a backed-off RTO ends: "rtt_sample" (RFC 6298 with Karn: at the next valid RTT
    /// sample; default) or "new_ack" (ns-3: at the next ACK of new data).
    #[schemars(default = "tcp_default::rto_backoff_reset")]
    pub rto_backoff_reset: Option<RtoBackoffResetSpec>,
    /// Loss recovery: "newreno" (RFC 6582; host "ns2") or "sack" (RFC 2018 blocks, RFC
    /// 6675; host "linux", as net.ipv4.tcp_sack = 1).
    #[schemars(default = "tcp_default::recovery")]
    pub recovery: Option<RecoverySpec>,
    /// Proportional Rate Reduction (RFC 6937, PRR-SSRB as Linux since 3.2) sets the window
    /// during recovery: data leaves in proportion to data delivered while the flight is
    /// above ssthresh, by slow start below it. false: RFC 6675's cwnd = ssthresh at once
    /// (SACK), RFC 5681's inflation and RFC 6582's deflation (NewReno). With NewReno each
    /// duplicate ACK counts one segment delivered (RFC 6937 section 3; Linux's Reno).
    /// Default: true with SACK recovery under host "linux", false otherwise.
    #[schemars(default = "tcp_default::prr")]
    pub prr: Option<bool>,
    /// What a retransmission timeout does to the SACK scoreboard: "clear" (RFC 2018
    /// section 5: resend everything from snd_una; host "ns2") or "keep" (Linux's
    /// tcp_timeout_mark_lost: go-back-N skips what the receiver holds, unless it reneged;
    /// host "linux"). Setting it needs recovery = "sack".
    #[schemars(default = "tcp_default::sack_after_rto")]
    pub sack_after_rto: Option<SackAfterRtoSpec>,
    /// How the retransmission timeout follows SRTT and RTTVAR: "rfc6298" (RTO =
    /// max(min_rto, SRTT + max(G, 4 RTTVAR)); host "ns2") or "linux" (host "linux";
    /// tcp_set_rto: RTO =
    /// SRTT + max(G, 4 RTTVAR, min_rto), so at least min_rto above SRTT: on a path whose
    /// RTT exceeds min_rto RFC 6298's RTO is barely above SRTT once RTTVAR settles).
    #[schemars(default = "tcp_default::rto_formula")]
    pub rto_formula: Option<RtoFormulaSpec>,
    /// How slow start may end before the first loss, for any congestion control: "none"
    /// (at ssthresh or a loss, RFC 5681), "hystart" (Ha and Rhee 2011: ACK-train and
    /// delay-increase detectors above 16 segments set ssthresh = cwnd; tcp/hystart.rs),
    /// "hystart++" (RFC 9406: an RTT increase of max(4 ms, min(RTT / 8, 16 ms)) enters
    /// Conservative Slow Start, a quarter of slow start's growth, which ends slow start
    /// after 5 rounds; initial slow start only; tcp/hystart_pp.rs) or "limited" (RFC 3742:
    /// above `max_ssthresh` segments at most max_ssthresh / 2 more per round trip;
    /// tcp/limited_ss.rs). Default: "hystart" for cc "cubic" under host "linux"
    /// (tcp_cubic.c, hystart = 1), "none" otherwise.
    pub slow_start_exit: Option<SlowStartExitSpec>,
    /// What one ACK adds to cwnd in slow start: "rfc5681" (RFC 5681 eq. 2: at most one
    /// segment, cwnd += min(N, SMSS); host "ns2") or "linux" (Linux's tcp_slow_start:
    /// every segment the ACK acknowledges, up to ssthresh, RFC 3465 without its limit L;
    /// host "linux"). They differ when an ACK covers more than one segment: delayed ACKs,
    /// and the cumulative ACKs that jump past data the receiver held after a loss.
    #[schemars(default = "tcp_default::slow_start_increment")]
    pub slow_start_increment: Option<SlowStartIncrementSpec>,
    /// RFC 3742's max_ssthresh, segments, with slow_start_exit = "limited"; at least 1.
    #[schemars(default = "tcp_default::max_ssthresh")]
    pub max_ssthresh: Option<u32>,
    /// The response to reordering around loss recovery: "none" (default), "dcr"
    /// (TCP-DCR: wait one SRTT after the first duplicate ACK), "ncr" (RFC 4653, needs
    /// recovery = "sack"), or a table with `kind` and the options of
    /// tcp/recovery/dcr.rs (`tau_srtt`, `tau`, `base` = "first_dupack" | "expiry",
    /// `grow_during_tau`, `rearm_rto`) or ncr.rs (`variant` = "careful" | "aggressive").
    #[schemars(default = "tcp_default::reordering")]
    pub reordering: Option<ReorderingSpec>,
    /// The send scheduler: "off" (window-limited, default), "cc" (the congestion
    /// control's pacing rate, for an algorithm that gives one: none built in does) or a
    /// rate ("10Mbps"): one packet per size x 8 / rate.
    #[schemars(default = "tcp_default::pacing")]
    pub pacing: Option<String>,
    /// A per-packet send rule (tcp/gate/): a table with `kind` = "bursts" (`burst_pkts`,
    /// `rate`), "pda" (the options of tcp/gate/pda.rs, all optional) or "burstiness"
    /// (`threshold`, `strict`, `measure`, `estimator`, `gain`, `filter_rtts`, `headroom`,
    /// `ss_headroom`: tcp/gate/burstiness.rs).
    pub gate: Option<GateSpec>,
    /// What happens to a data segment the host's own NIC queue refuses: "ignore" (host
    /// "ns2"; lost, and found as any loss, as by ns-2's agents), "cwr" (lost, and the
    /// window reduced once, as Linux 2.6) or "hold" (host "linux"; as Linux's
    /// tcp_write_xmit: the segment stays unsent, the window is reduced once, and the flow
    /// sends again when the queue has room; nothing is lost; tcp/mod.rs `LocalDrop`).
    #[schemars(default = "tcp_default::local_drop")]
    pub local_drop: Option<LocalDropSpec>,
    /// TCP Small Queues (Linux tcp_small_queue_check, tcp/tsq.rs): the flow keeps at
    /// most max(2 packets, about 1 ms at its pacing rate), capped by
    /// `tsq_limit_output_bytes`, in its host's NIC queue and serialiser, and sends again
    /// as they leave; not a congestion signal. Default: true under host "linux", false
    /// under "ns2".
    #[schemars(default = "tcp_default::tsq")]
    pub tsq: Option<bool>,
    /// TCP Small Queues' cap, bytes (net.ipv4.tcp_limit_output_bytes); at least 1.
    #[schemars(default = "tcp_default::tsq_limit_output_bytes")]
    pub tsq_limit_output_bytes: Option<u64>,
    /// Receiver ACK batching (interrupt coalescing, tcp/mod.rs `AckBatch`):
    /// `{ pkts = 8, timeout = "1ms" }`; off by default.
    pub ack_batch: Option<AckBatchSpec>,
}

/// The values `TcpSpec::resolve` fills in for absent fields under the default host
/// (`TcpParams::for_host(D_HOST)` and the constants below), as the schema's defaults.
pub(crate) mod tcp_default {
    use super::*;
    use crate::tcp::LocalDrop;

    fn d() -> TcpParams {
        TcpParams::for_host(D_HOST)
    }
    pub fn host() -> Option<HostSpec> {
        Some(match D_HOST {
            HostProfile::Linux => HostSpec::Linux,
            HostProfile::Ns2 => HostSpec::Ns2,
        })
    }
    fn dur(t: SimTime) -> Option<Dur> {
        Some(Dur(t))
    }
    pub fn cc() -> Option<&'static str> {
        Some(cc::CcConfig::default().name())
    }
    pub fn mss() -> Option<u32> {
        Some(d().mss)
    }
    pub fn header_bytes() -> Option<u32> {
        Some(d().header)
    }
    pub fn init_cwnd() -> Option<f64> {
        Some(d().init_cwnd)
    }
    /// Infinite: JSON null, "unset".
    pub fn max_cwnd() -> Option<f64> {
        Some(d().max_cwnd).filter(|w| w.is_finite())
    }
    pub fn min_rto() -> Option<Dur> {
        dur(d().min_rto)
    }
    pub fn max_rto() -> Option<Dur> {
        dur(d().max_rto)
    }
    pub fn init_rto() -> Option<Dur> {
        dur(d().init_rto)
    }
    pub fn granularity() -> Option<Dur> {
        dur(d().granularity)
    }
    pub fn dupack_threshold() -> Option<u32> {
        Some(d().dupack_threshold)
    }
    pub fn delayed_ack() -> Option<bool> {
        Some(d().delayed_ack)
    }
    pub fn delack_timeout() -> Option<Dur> {
        dur(d().delack_timeout)
    }
    /// Without cc kind "dctcp".
    pub fn ecn() -> Option<bool> {
        Some(d().ecn)
    }
    pub fn superpacket() -> Option<SpModeSpec> {
        Some(D_SP_MODE)
    }
    pub fn sp_len() -> Option<u16> {
        Some(D_SP_LEN)
    }
    pub fn sp_on_denial() -> Option<SpDenialSpec> {
        Some(D_SP_DENIAL)
    }
    pub fn sp_attempts() -> Option<u8> {
        Some(D_SP_ATTEMPTS)
    }
    pub fn limited_transmit() -> Option<bool> {
        Some(d().limited_transmit)
    }
    pub fn rtt_tick() -> Option<Dur> {
        dur(d().rtt_tick)
    }
    pub fn rto_backoff_reset() -> Option<RtoBackoffResetSpec> {
        Some(match d().rto_backoff_reset {
            RtoBackoffReset::RttSample => RtoBackoffResetSpec::RttSample,
            RtoBackoffReset::NewAck => RtoBackoffResetSpec::NewAck,
        })
    }
    pub fn recovery() -> Option<RecoverySpec> {
        Some(match d().recovery {
            RecoveryKind::NewReno => RecoverySpec::Newreno,
            RecoveryKind::Sack => RecoverySpec::Sack,
        })
    }
    pub fn prr() -> Option<bool> {
        Some(d().prr)
    }
    pub fn rto_formula() -> Option<RtoFormulaSpec> {
        Some(match d().rto_formula {
            crate::tcp::RtoFormula::Rfc6298 => RtoFormulaSpec::Rfc6298,
            crate::tcp::RtoFormula::Linux => RtoFormulaSpec::Linux,
        })
    }
    pub fn slow_start_increment() -> Option<SlowStartIncrementSpec> {
        Some(if d().abc_limit > 1.0 { SlowStartIncrementSpec::Linux } else { SlowStartIncrementSpec::Rfc5681 })
    }
    pub fn sack_after_rto() -> Option<SackAfterRtoSpec> {
        Some(match d().sack_after_rto {
            crate::tcp::SackAfterRto::Clear => SackAfterRtoSpec::Clear,
            crate::tcp::SackAfterRto::Keep => SackAfterRtoSpec::Keep,
        })
    }
    pub fn reordering() -> Option<&'static str> {
        matches!(d().reordering, Reordering::None).then_some("none")
    }
    pub fn pacing() -> Option<&'static str> {
        matches!(d().pacing, Pacing::Off).then_some("off")
    }
    pub fn max_ssthresh() -> Option<u32> {
        Some(crate::tcp::limited_ss::MAX_SSTHRESH)
    }
    pub fn tsq() -> Option<bool> {
        Some(d().tsq.is_some())
    }
    pub fn tsq_limit_output_bytes() -> Option<u64> {
        Some(crate::tcp::tsq::LIMIT_OUTPUT_BYTES)
    }
    pub fn local_drop() -> Option<LocalDropSpec> {
        Some(match d().local_drop {
            LocalDrop::Ignore => LocalDropSpec::Ignore,
            LocalDrop::Cwr => LocalDropSpec::Cwr,
            LocalDrop::Hold => LocalDropSpec::Hold,
        })
    }
}

/// The host profile when `host` is absent.
pub(crate) const D_HOST: HostProfile = HostProfile::Linux;

/// `superpacket`, `sp_len`, `sp_on_denial` and `sp_attempts` when absent.
pub(crate) const D_SP_MODE: SpModeSpec = SpModeSpec::Off;
pub(crate) const D_SP_LEN: u16 = 10;
pub(crate) const D_SP_DENIAL: SpDenialSpec = SpDenialSpec::Fallback;
pub(crate) const D_SP_ATTEMPTS: u8 = 3;

impl TcpSpec {
    /// This spec's fields over `base`'s.
    pub(crate) fn over(&self, base: &TcpSpec) -> TcpSpec {
        macro_rules! pick {
            ($f:ident) => {
                self.$f.clone().or_else(|| base.$f.clone())
            };
        }
        TcpSpec {
            host: pick!(host),
            cc: pick!(cc),
            mss: pick!(mss),
            header_bytes: pick!(header_bytes),
            init_cwnd: pick!(init_cwnd),
            max_cwnd: pick!(max_cwnd),
            min_rto: pick!(min_rto),
            max_rto: pick!(max_rto),
            init_rto: pick!(init_rto),
            granularity: pick!(granularity),
            dupack_threshold: pick!(dupack_threshold),
            delayed_ack: pick!(delayed_ack),
            delack_timeout: pick!(delack_timeout),
            ecn: pick!(ecn),
            superpacket: pick!(superpacket),
            sp_len: pick!(sp_len),
            sp_on_denial: pick!(sp_on_denial),
            sp_attempts: pick!(sp_attempts),
            limited_transmit: pick!(limited_transmit),
            rtt_tick: pick!(rtt_tick),
            rto_backoff_reset: pick!(rto_backoff_reset),
            recovery: pick!(recovery),
            prr: pick!(prr),
            sack_after_rto: pick!(sack_after_rto),
            rto_formula: pick!(rto_formula),
            slow_start_exit: pick!(slow_start_exit),
            slow_start_increment: pick!(slow_start_increment),
            max_ssthresh: pick!(max_ssthresh),
            reordering: pick!(reordering),
            pacing: pick!(pacing),
            gate: pick!(gate),
            local_drop: pick!(local_drop),
            tsq: pick!(tsq),
            tsq_limit_output_bytes: pick!(tsq_limit_output_bytes),
            ack_batch: pick!(ack_batch),
        }
    }

    /// This entry's table over the scenario's `[tcp]` table, resolved. An error the `[tcp]`
    /// table makes by itself (the same check failing on it alone) is reported under `tcp`,
    /// where it was written, not under every traffic entry that inherits it.
    pub(crate) fn resolve_over(&self, base: &TcpSpec, path: &str) -> Result<(TcpParams, cc::CcConfig), String> {
        self.over(base).resolve(path).map_err(|e| match base.resolve("tcp") {
            Err(b) if b.strip_prefix("tcp").map(|rest| format!("{path}{rest}")).as_deref() == Some(e.as_str()) => b,
            _ => e,
        })
    }

    pub(crate) fn resolve(&self, path: &str) -> Result<(TcpParams, cc::CcConfig), String> {
        let host = match self.host {
            None => D_HOST,
            Some(HostSpec::Linux) => HostProfile::Linux,
            Some(HostSpec::Ns2) => HostProfile::Ns2,
        };
        let d = TcpParams::for_host(host);
        let cc_cfg = self.cc.clone().map(|c| c.0).unwrap_or_default();
        let recovery = match self.recovery {
            None => d.recovery,
            Some(RecoverySpec::Newreno) => RecoveryKind::NewReno,
            Some(RecoverySpec::Sack) => RecoveryKind::Sack,
        };
        cc_cfg.validate(&format!("{path}.cc"))?;
        // DCTCP works on ECE (RFC 8257 section 3): ECN is on unless refused, and refusing
        // it is an error rather than a silent NewReno
        if cc_cfg.needs_ecn() && self.ecn == Some(false) {
            return Err(format!("{path}.ecn: cc kind {:?} needs ECN; leave ecn unset or true", cc_cfg.name()));
        }
        let p = TcpParams {
            mss: self.mss.unwrap_or(d.mss),
            header: self.header_bytes.unwrap_or(d.header),
            init_cwnd: self.init_cwnd.unwrap_or(d.init_cwnd),
            max_cwnd: self.max_cwnd.unwrap_or(d.max_cwnd),
            min_rto: self.min_rto.map_or(d.min_rto, |x| x.0),
            max_rto: self.max_rto.map_or(d.max_rto, |x| x.0),
            init_rto: self.init_rto.map_or(d.init_rto, |x| x.0),
            granularity: self.granularity.map_or(d.granularity, |x| x.0),
            dupack_threshold: self.dupack_threshold.unwrap_or(d.dupack_threshold),
            delayed_ack: self.delayed_ack.unwrap_or(d.delayed_ack),
            delack_timeout: self.delack_timeout.map_or(d.delack_timeout, |x| x.0),
            ecn: self.ecn.unwrap_or(d.ecn || cc_cfg.needs_ecn()),
            ece_echo: cc_cfg.ece_echo(),
            sp: match self.superpacket.unwrap_or(D_SP_MODE) {
                SpModeSpec::Off => SpMode::Off,
                SpModeSpec::Flow => SpMode::Flow,
                SpModeSpec::Runs => SpMode::Runs(self.sp_len.unwrap_or(D_SP_LEN)),
            },
            sp_on_denial: match self.sp_on_denial.unwrap_or(D_SP_DENIAL) {
                SpDenialSpec::Fallback => SpDenial::Fallback,
                SpDenialSpec::Retry => SpDenial::Retry { attempts: self.sp_attempts.unwrap_or(D_SP_ATTEMPTS) },
            },
            limited_transmit: self.limited_transmit.unwrap_or(d.limited_transmit),
            rtt_tick: self.rtt_tick.map_or(d.rtt_tick, |x| x.0),
            rto_backoff_reset: match self.rto_backoff_reset {
                None => d.rto_backoff_reset,
                Some(RtoBackoffResetSpec::RttSample) => RtoBackoffReset::RttSample,
                Some(RtoBackoffResetSpec::NewAck) => RtoBackoffReset::NewAck,
            },
            recovery,
            // the profile's PRR is SACK recovery's: a user who picks NewReno under host
            // "linux" gets NewReno as RFC 6582 has it, not an error
            prr: self.prr.unwrap_or(d.prr && recovery == RecoveryKind::Sack),
            slow_start_exit: match self.slow_start_exit {
                // HyStart is part of Linux's CUBIC module (tcp_cubic.c), not of its TCP
                None if host == HostProfile::Linux && cc_cfg.name() == "cubic" => crate::tcp::SlowStartExit::HyStart,
                None => d.slow_start_exit,
                Some(SlowStartExitSpec::None) => crate::tcp::SlowStartExit::None,
                Some(SlowStartExitSpec::Hystart) => crate::tcp::SlowStartExit::HyStart,
                Some(SlowStartExitSpec::HystartPp) => crate::tcp::SlowStartExit::HyStartPp,
                Some(SlowStartExitSpec::Limited) => match self.max_ssthresh {
                    Some(0) => return Err(format!("{path}.max_ssthresh: must be at least 1 (got 0)")),
                    m => crate::tcp::SlowStartExit::Limited {
                        max_ssthresh: m.unwrap_or(crate::tcp::limited_ss::MAX_SSTHRESH),
                    },
                },
            },
            rto_formula: match self.rto_formula {
                None => d.rto_formula,
                Some(RtoFormulaSpec::Rfc6298) => crate::tcp::RtoFormula::Rfc6298,
                Some(RtoFormulaSpec::Linux) => crate::tcp::RtoFormula::Linux,
            },
            abc_limit: match self.slow_start_increment {
                None => d.abc_limit,
                Some(SlowStartIncrementSpec::Rfc5681) => 1.0,
                Some(SlowStartIncrementSpec::Linux) => f64::INFINITY,
            },
            sack_after_rto: match self.sack_after_rto {
                None => d.sack_after_rto,
                Some(SackAfterRtoSpec::Clear) => crate::tcp::SackAfterRto::Clear,
                Some(SackAfterRtoSpec::Keep) => crate::tcp::SackAfterRto::Keep,
            },
            reordering: match &self.reordering {
                None => Reordering::None,
                Some(r) => r.resolve(&format!("{path}.reordering"))?,
            },
            pacing: match self.pacing.as_deref() {
                None | Some("off") => Pacing::Off,
                Some("cc") => Pacing::Cc,
                Some(r) => match crate::core::time::parse_rate(r) {
                    Ok(b) if b.0 > 0 => Pacing::Rate(b.0 as f64),
                    _ => {
                        return Err(format!("{path}.pacing: \"off\", \"cc\" or a rate such as \"10Mbps\" (got {r:?})"))
                    }
                },
            },
            gate: match &self.gate {
                None => GateConfig::None,
                Some(g) => g.resolve(&format!("{path}.gate"))?,
            },
            local_drop: match self.local_drop {
                None => d.local_drop,
                Some(LocalDropSpec::Ignore) => crate::tcp::LocalDrop::Ignore,
                Some(LocalDropSpec::Cwr) => crate::tcp::LocalDrop::Cwr,
                Some(LocalDropSpec::Hold) => crate::tcp::LocalDrop::Hold,
            },
            tsq: match (self.tsq.unwrap_or(d.tsq.is_some()), self.tsq_limit_output_bytes) {
                (false, _) => None,
                (true, Some(0)) => return Err(format!("{path}.tsq_limit_output_bytes: must be at least 1 (got 0)")),
                (true, l) => Some(l.unwrap_or(crate::tcp::tsq::LIMIT_OUTPUT_BYTES)),
            },
            ack_batch: match self.ack_batch {
                None => None,
                Some(b) => {
                    int_range(&format!("{path}.ack_batch"), "pkts", b.pkts.into(), 1, 100_000)?;
                    if b.timeout.0 == SimTime::ZERO || b.timeout.0 > SimTime::from_secs(10) {
                        return Err(format!(
                            "{path}.ack_batch.timeout: must be above 0 and at most 10s (got {}s)",
                            b.timeout.0.as_secs_f64()
                        ));
                    }
                    Some(crate::tcp::AckBatch { pkts: b.pkts, timeout: b.timeout.0 })
                }
            },
        };
        if self.sp_len == Some(0) {
            return Err(format!("{path}.sp_len: must be >= 1"));
        }
        if self.sp_attempts == Some(0) {
            return Err(format!("{path}.sp_attempts: must be >= 1"));
        }
        if matches!(p.reordering, Reordering::Ncr(_)) && p.recovery != RecoveryKind::Sack {
            return Err(format!("{path}.reordering: \"ncr\" needs recovery = \"sack\" (RFC 4653 builds on SACK)"));
        }
        if self.max_ssthresh.is_some() && !matches!(p.slow_start_exit, crate::tcp::SlowStartExit::Limited { .. }) {
            return Err(format!(
                "{path}.max_ssthresh: applies with slow_start_exit = \"limited\" only; leave it unset"
            ));
        }
        if self.tsq_limit_output_bytes.is_some() && p.tsq.is_none() {
            return Err(format!("{path}.tsq_limit_output_bytes: applies with tsq = true only; leave it unset"));
        }
        if self.sack_after_rto.is_some() && p.recovery != RecoveryKind::Sack {
            return Err(format!(
                "{path}.sack_after_rto: applies to SACK recovery only; set recovery = \"sack\" or leave it unset"
            ));
        }
        if p.pacing == Pacing::Cc {
            // asked of the algorithm itself: a controller that never gives a rate would
            // make "cc" the same as "off"
            let state = cc::CcState {
                cwnd: p.init_cwnd,
                ssthresh: f64::INFINITY,
                max_cwnd: p.max_cwnd,
                abc_limit: p.abc_limit,
            };
            if cc_cfg.build().pacing_rate(&state, Some(SimTime::from_ms(100))).is_none() {
                return Err(format!(
                    "{path}.pacing: \"cc\" needs a congestion control that gives a pacing rate, and {:?} gives \
                     none; use \"off\" or a rate such as \"10Mbps\"",
                    cc_cfg.name()
                ));
            }
        }
        if p.mss == 0 || p.mss > 65_495 {
            return Err(format!("{path}.mss: must be in 1..=65495 (got {})", p.mss));
        }
        if p.init_cwnd.is_nan() || p.init_cwnd < 1.0 {
            return Err(format!("{path}.init_cwnd: must be >= 1 (got {})", p.init_cwnd));
        }
        if p.init_cwnd > MAX_INIT_CWND {
            return Err(format!("{path}.init_cwnd: must be at most {MAX_INIT_CWND} (got {})", p.init_cwnd));
        }
        if p.max_cwnd.is_nan() || p.max_cwnd < 1.0 {
            return Err(format!("{path}.max_cwnd: must be >= 1 (got {})", p.max_cwnd));
        }
        if p.dupack_threshold == 0 {
            return Err(format!("{path}.dupack_threshold: must be >= 1"));
        }
        if p.min_rto > p.max_rto || p.init_rto == SimTime::ZERO {
            return Err(format!("{path}: need 0 < init_rto and min_rto <= max_rto"));
        }
        Ok((p, cc_cfg))
    }
}

/// The resolved congestion control, recovery, reordering response and gate of a traffic
/// entry, as the results' `tcp_configs` record them.
/// The host's parts (the `host` profile resolved with the fields a scenario set) follow,
/// by the names a scenario gives them.
pub(crate) fn tcp_config_line(params: &TcpParams, cc: &cc::CcConfig) -> String {
    use crate::tcp::{LocalDrop, RtoFormula, SackAfterRto, SlowStartExit};
    let sack_after_rto = match params.sack_after_rto {
        SackAfterRto::Clear => "clear",
        SackAfterRto::Keep => "keep",
    };
    let rto = match params.rto_formula {
        RtoFormula::Rfc6298 => "rfc6298",
        RtoFormula::Linux => "linux",
    };
    let local_drop = match params.local_drop {
        LocalDrop::Ignore => "ignore",
        LocalDrop::Cwr => "cwr",
        LocalDrop::Hold => "hold",
    };
    let slow_start = match params.slow_start_exit {
        SlowStartExit::None => "\"none\"".to_string(),
        SlowStartExit::HyStart => "\"hystart\"".to_string(),
        SlowStartExit::HyStartPp => "\"hystart++\"".to_string(),
        SlowStartExit::Limited { max_ssthresh } => format!("Limited {{ max_ssthresh: {max_ssthresh} }}"),
    };
    let increment = if params.abc_limit > 1.0 { "linux" } else { "rfc5681" };
    format!(
        "cc: {cc:?}; recovery: {:?}; reordering: {:?}; gate: {:?}; prr: {}; limited_transmit: {}; \
         sack_after_rto: \"{sack_after_rto}\"; rto_formula: \"{rto}\"; local_drop: \"{local_drop}\"; \
         tsq_limit_bytes: {:?}; slow_start_exit: {slow_start}; slow_start_increment: \"{increment}\"",
        params.recovery, params.reordering, params.gate, params.prr, params.limited_transmit, params.tsq
    )
}
