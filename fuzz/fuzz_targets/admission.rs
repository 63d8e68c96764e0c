//! The router admission entry point (`Admission::on_arrival`, `on_arrival_options`,
//! `set_threshold`; crates/admission/src/admission.rs) under arbitrary sequences of
//! packets and clock advances, against a reference model kept here.
//!
//! The input is a router configuration and up to `MAX_OPS` = 512 operations (at most
//! `MAX_FIRSTS` = 128 of them carrying a first packet): advance the clock (by a few
//! ns, by whole EPOCHs, or by a jump up to u64::MAX), drain or set the queue length
//! the caller passes as pktCnt, change t, send a normal packet, and two kinds of
//! super-packet traffic on disjoint (src, dst) pairs:
//! - well-formed super-packets: a first packet (or none, as if lost upstream) then
//!   its len - 1 subsequent packets, one sid per super-packet (a counter, unique per
//!   pair), several open at once on one pair, interleaved with everything else, as a
//!   struct or as IPv4 option bytes (after NOPs and another option);
//! - anything else: arbitrary (sid, len, first, syn) headers and arbitrary option
//!   bytes, from addresses with the top bit set.
//!
//! Invariants, after every operation:
//! - no panic (overflow checks are on in fuzz builds);
//! - outstanding never below zero and never invented: an admitted first packet adds
//!   exactly len - 1 to `total_outstanding`, an admitted subsequent one takes exactly
//!   1, anything else adds nothing (a shift may only remove); the total is the sum of
//!   the per-pair counts; for each well-formed pair the count lies between what the
//!   model knows must still be held and what may still be held;
//! - memory never above its configured size: `Admission::new` allocates exactly
//!   `memory_bytes()` minus the struct (two Bloom generations of `bloom_bits` / 8
//!   bytes, two table generations), nothing is allocated or freed afterwards, the
//!   table never holds more than `max_pairs` pairs per generation;
//! - A1: a normal packet is admitted iff pktCnt < t (a SYN under admit_syn iff
//!   pktCnt < buffSize), a first packet at pktCnt >= t is refused, nothing is
//!   admitted at pktCnt >= buffSize, BadHeader exactly for a malformed header;
//! - all-or-nothing without false positives, against a shadow map of decisions per
//!   super-packet (not the code's formula): a super-packet whose first packet was
//!   refused (or never arrived) has none of its packets admitted; one whose first was
//!   admitted has every packet admitted (or dropped as BufferFull at pktCnt >=
//!   buffSize, a full buffer, not an admission decision) while its state is young
//!   enough to be held (section 3.1: state lives at least one EPOCH), none admitted
//!   once older than two EPOCHs, and none admitted after one was refused.
//!
//! Before each well-formed packet the target looks its triple up: b2 must hold it
//! iff its first packet was admitted in the epoch `epoch_start()` names now, b1 iff
//! in the one before, and a missing member (a Bloom false negative) is a failure.
//! Two Bloom regimes: "strict" (2^16 bits, 8 hashes, at most `MAX_FIRSTS` = 128
//! items: a false positive has probability below 1e-14 per test) where any Bloom
//! false positive is itself a failure, and "loose" (any size down to 64 bits, 1 to 32 hashes) where a
//! false positive seen on a pair stops the judging of that pair's all-or-nothing
//! property and its outstanding bounds (a false positive may spend another
//! super-packet's outstanding count, as A3 allows); every other invariant still
//! holds there.
#![no_main]

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

use admission::header::{IPOPT_NOP, PADDED_LEN};
use admission::{find_in_options, Admission, Config, DropReason, PacketMeta, SpHeaderRepr, Verdict};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

// ------------------------------------------------------------ allocation counting

/// Counts every allocator call and the live heap bytes of the Rust side.
struct Counting;

static CALLS: AtomicU64 = AtomicU64::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        CALLS.fetch_add(1, Relaxed);
        LIVE.fetch_add(l.size(), Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        CALLS.fetch_add(1, Relaxed);
        LIVE.fetch_add(l.size(), Relaxed);
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        CALLS.fetch_add(1, Relaxed);
        LIVE.fetch_sub(l.size(), Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        CALLS.fetch_add(1, Relaxed);
        LIVE.fetch_add(new, Relaxed);
        LIVE.fetch_sub(l.size(), Relaxed);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// `SP_FUZZ_TRACE=1 cargo fuzz run admission ARTIFACT` prints every step.
fn trace() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("SP_FUZZ_TRACE").is_some())
}

/// Run `f` and fail if it touched the heap.
fn no_alloc<R>(what: &str, f: impl FnOnce() -> R) -> R {
    let before = CALLS.load(Relaxed);
    let r = f();
    assert_eq!(CALLS.load(Relaxed), before, "{what} allocated or freed");
    r
}

// ------------------------------------------------------------------------ input

const MAX_OPS: usize = 512;
/// Operations that carry a first packet (Bloom items), at most; later ones are skipped.
const MAX_FIRSTS: u32 = 128;
/// `Check` operations (O(pairs) each), at most.
const MAX_CHECKS: u32 = 8;
/// The strict regime's Bloom filter: with at most 128 items per generation,
/// (1 - e^(-8 * 128 / 2^16))^8 = 3.3e-15 per test.
const STRICT_BITS: u32 = 1 << 16;
const STRICT_HASHES: u32 = 8;

#[derive(Arbitrary, Debug)]
struct Setup {
    buff: u8,
    t: u8,
    epoch: u16,
    loose_bloom: bool,
    bloom_log: u8,
    hashes: u8,
    pairs: u8,
    max_len: u8,
    admit_syn: bool,
    key: [u64; 2],
    sid_base: u32,
    start: u64,
    /// A raw configuration, only validated (constructing it could need gigabytes).
    raw: Option<RawConfig>,
}

#[derive(Arbitrary, Debug)]
struct RawConfig {
    buff_size: u32,
    threshold: u32,
    epoch_ns: u64,
    bloom_bits: u32,
    bloom_hashes: u32,
    max_pairs: u32,
    max_len: u16,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Enc {
    Struct,
    Bytes { nops: u8, other: bool },
}

#[derive(Arbitrary, Debug)]
enum Op {
    /// now += d ns.
    Advance(u16),
    /// now += n * EPOCH + d, d in {-1, 0, 1}: epoch boundaries exactly.
    Epochs(u8, i8),
    /// now = now + j, saturating at u64::MAX.
    Jump(u64),
    /// The queue sends n packets.
    Dequeue(u8),
    /// The caller passes this pktCnt from now on (may exceed buffSize).
    SetQueue(u8),
    /// Section 6.1: set t (clamped to buffSize).
    SetThreshold(u32),
    /// Start a well-formed super-packet on pair `pair` and send its first packet
    /// (unless `lose_first`).
    Start { pair: u8, len: u8, lose_first: bool, syn: bool, enc: Enc },
    /// Send the next packet of open super-packet number `which`.
    Next { which: u8, syn: bool, enc: Enc },
    /// A normal packet.
    Normal { pair: u8, syn: bool, adversary: bool },
    /// An arbitrary super-packet header from an adversarial pair.
    Raw { src: u8, dst: u8, sid: u32, len: u16, first: bool, syn: bool },
    /// Arbitrary IPv4 option bytes from an adversarial pair.
    RawOptions { src: u8, dst: u8, syn: bool, bytes: Vec<u8> },
    /// Full consistency check of the outstanding counts.
    Check,
}

#[derive(Arbitrary, Debug)]
struct Input {
    setup: Setup,
    ops: Vec<Op>,
}

// ------------------------------------------------------------------------ model

type Pair = (u32, u32);

fn wf_pair(p: u8) -> Pair {
    (0x0A00_0000 | (p as u32 >> 2 & 3), 0x0A00_0100 | (p as u32 & 3))
}

fn adv_pair(src: u8, dst: u8) -> Pair {
    (0x8000_0000 | src as u32, 0xC000_0000 | dst as u32)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FirstFate {
    Lost,
    Refused,
    /// Admitted at `at`, in the epoch that `epoch_start()` gave right after.
    Admitted {
        at: u64,
        epoch: u64,
    },
}

/// The shadow record of one well-formed super-packet.
#[derive(Debug)]
struct Sp {
    pair: Pair,
    sid: u32,
    len: u16,
    /// Packets sent so far, the first included (even if lost).
    sent: u16,
    fate: FirstFate,
    /// Subsequent packets admitted.
    admitted: u16,
    /// A subsequent packet was refused by the admission (not BufferFull).
    refused: bool,
}

impl Sp {
    fn remaining(&self) -> u64 {
        (self.len - 1 - self.admitted) as u64
    }
}

struct World {
    adm: Admission,
    cfg: Config,
    strict: bool,
    now: u64,
    /// Time of the last arrival: the accessors answer as of then.
    last_arrival: u64,
    queue: u32,
    threshold: u32,
    sps: Vec<Sp>,
    /// Indices into `sps` of super-packets with packets left to send.
    open: Vec<usize>,
    next_sid: HashMap<Pair, u32>,
    sid_base: u32,
    /// Pairs whose all-or-nothing is no longer judged (a Bloom false positive seen).
    tainted: HashSet<Pair>,
    /// Every admitted first packet (pair, time, len): bounds on the table.
    installs: Vec<(Pair, u64, u16)>,
    /// The pairs of `installs`.
    installed_pairs: HashSet<Pair>,
    /// Admitted first packets of the last two EPOCHs (time, len - 1) and their sum.
    recent: VecDeque<(u64, u64)>,
    recent_sum: u64,
    firsts: u32,
    checks: u32,
    arrivals: u64,
    admitted: u64,
    drops: [u64; DropReason::COUNT],
    memory: usize,
}

fn encode(sp: SpHeaderRepr, enc: Enc) -> Vec<u8> {
    let mut v = Vec::new();
    if let Enc::Bytes { nops, other } = enc {
        v.extend(std::iter::repeat_n(IPOPT_NOP, (nops % 8) as usize));
        if other {
            v.extend_from_slice(&[0x94, 0x04, 0x00, 0x00]); // Router Alert (RFC 2113)
        }
    }
    let at = v.len();
    v.resize(at + PADDED_LEN, 0);
    sp.emit_padded(&mut v[at..]);
    v
}

impl World {
    fn epoch(&self) -> u64 {
        self.cfg.epoch_ns
    }

    /// Deliver one packet, check A1, the accounting and the memory; return the verdict.
    fn arrive(&mut self, pair: Pair, sp: Option<SpHeaderRepr>, syn: bool, bytes: Option<&[u8]>) -> Verdict {
        let q = self.queue;
        let before_total = self.adm.total_outstanding();
        let before_epoch = self.adm.epoch_start();
        let meta = PacketMeta { src: pair.0, dst: pair.1, sp, syn };
        let now = self.now;
        let v = no_alloc("on_arrival", || match bytes {
            None => self.adm.on_arrival(now, &meta, q),
            Some(b) => self.adm.on_arrival_options(now, pair.0, pair.1, syn, b, q),
        });
        self.last_arrival = now;
        self.arrivals += 1;
        if trace() {
            eprintln!("  {pair:x?} {sp:?} syn {syn} pktCnt {q} -> {v:?}");
        }
        match v {
            Verdict::Admit => {
                self.admitted += 1;
                // Nothing enters a full buffer (A1: every admit needs pktCnt < buffSize).
                assert!(q < self.cfg.buff_size, "admitted at pktCnt {q} >= buffSize {}", self.cfg.buff_size);
                self.queue += 1;
            }
            Verdict::Drop(r) => self.drops[r.index()] += 1,
        }

        // A1 against the header the packet carries.
        let t = self.threshold;
        match sp {
            None => {
                let want = if syn && self.cfg.admit_syn {
                    if q < self.cfg.buff_size {
                        Verdict::Admit
                    } else {
                        Verdict::Drop(DropReason::BufferFull)
                    }
                } else if q < t {
                    Verdict::Admit
                } else {
                    Verdict::Drop(DropReason::Threshold)
                };
                assert_eq!(v, want, "normal packet, syn {syn}, pktCnt {q}, t {t}");
            }
            Some(h) if h.len == 0 || h.len > self.cfg.max_len => {
                assert_eq!(v, Verdict::Drop(DropReason::BadHeader), "{h:?}");
            }
            Some(h) if h.first => match v {
                Verdict::Admit => assert!(q < t, "first packet admitted at pktCnt {q} >= t {t}"),
                Verdict::Drop(DropReason::Threshold) => assert!(q >= t, "first packet refused at pktCnt {q} < t {t}"),
                Verdict::Drop(DropReason::TableFull) => {
                    assert!(q < t);
                    self.check_table_full();
                }
                other => panic!("first packet {h:?} at pktCnt {q}: {other:?}"),
            },
            Some(h) => match v {
                Verdict::Admit => {}
                Verdict::Drop(DropReason::BufferFull) => assert!(q >= self.cfg.buff_size),
                Verdict::Drop(
                    DropReason::NotAdmitted | DropReason::BloomFalsePositive | DropReason::OutstandingExhausted,
                ) => {}
                other => panic!("subsequent packet {h:?} at pktCnt {q}: {other:?}"),
            },
        }

        // Outstanding: exact change unless an epoch shift happened at this arrival.
        let after_total = self.adm.total_outstanding();
        let added = match (sp, v) {
            (Some(h), Verdict::Admit) if h.first => {
                self.installs.push((pair, now, h.len));
                self.installed_pairs.insert(pair);
                self.recent.push_back((now, h.len as u64 - 1));
                self.recent_sum += h.len as u64 - 1;
                h.len as u64 - 1
            }
            _ => 0,
        };
        if self.adm.epoch_start() == before_epoch {
            let want = match (sp, v) {
                (Some(h), Verdict::Admit) if !h.first => {
                    before_total.checked_sub(1).expect("admitted with 0 outstanding")
                }
                _ => before_total + added,
            };
            assert_eq!(after_total, want, "total outstanding after {sp:?} -> {v:?}");
        } else {
            assert!(after_total <= before_total + added, "a shift added outstanding packets");
        }
        // Never more than the admitted first packets of the last two EPOCHs promised.
        while let Some(&(at, n)) = self.recent.front() {
            if now - at <= 2 * self.epoch() {
                break;
            }
            self.recent.pop_front();
            self.recent_sum -= n;
        }
        let promised = self.recent_sum;
        assert!(after_total <= promised, "outstanding {after_total} > promised {promised}");

        self.check_counters();
        v
    }

    /// TableFull: with max_pairs <= 16 a probe run cannot be exhausted (at most half
    /// of at most 32 slots are live), so h2 must hold max_pairs pairs, all installed
    /// in the current epoch, which began at most one EPOCH ago.
    fn check_table_full(&self) {
        let max = self.cfg.max_pairs;
        let h2 = self.adm.stats().pairs_h2;
        assert!(h2 <= max);
        if max <= 16 {
            assert_eq!(h2, max, "TableFull with h2 holding {h2} of {max}");
            let since = self.now.saturating_sub(self.epoch());
            let recent: HashSet<Pair> =
                self.installs.iter().filter(|(_, at, _)| *at >= since).map(|(p, _, _)| *p).collect();
            assert!(recent.len() as u32 >= max, "TableFull with {} pairs installed in the last EPOCH", recent.len());
        }
    }

    fn check_counters(&self) {
        let st = no_alloc("stats", || self.adm.stats().clone());
        assert!(st.is_consistent());
        assert_eq!(st.arrivals, self.arrivals);
        assert_eq!(st.admitted(), self.admitted);
        assert_eq!(st.dropped, self.drops);
        let max = self.cfg.max_pairs;
        assert!(st.pairs_h1 <= max && st.pairs_h2 <= max && st.pairs_peak <= max, "{st:?}");
        assert_eq!(self.adm.memory_bytes(), self.memory);
        assert!(self.adm.threshold() <= self.cfg.buff_size);
    }

    /// Before a well-formed packet: does the Bloom filter answer yes where it must
    /// not? Looked up as of the last arrival: b2 must hold the triple iff it was
    /// installed in the epoch `epoch_start()` names now, b1 iff in the one before,
    /// and nothing else (unique sids: a triple is added once, if ever). A Bloom
    /// filter has no false negatives, so a missing member is a failure in any
    /// regime. This arrival sees no more than that (a shift only empties or moves
    /// b2 to b1), so every false positive it could act on is caught here.
    fn bloom_false_positive(&self, i: usize) -> bool {
        let sp = &self.sps[i];
        let l = no_alloc("lookup", || self.adm.lookup(sp.pair.0, sp.pair.1, sp.sid));
        let p = self.adm.epoch_start();
        let (want1, want2) = match sp.fate {
            FirstFate::Lost | FirstFate::Refused => (false, false),
            FirstFate::Admitted { epoch, .. } => (epoch.checked_add(self.epoch()) == Some(p), epoch == p),
        };
        assert!(l.inb1 || !want1, "b1 lost {:?} sid {}: {l:?}", sp.pair, sp.sid);
        assert!(l.inb2 || !want2, "b2 lost {:?} sid {}: {l:?}", sp.pair, sp.sid);
        (l.inb1, l.inb2) != (want1, want2)
    }

    /// The shadow map's judgement of a subsequent packet of super-packet `i`.
    fn judge_subsequent(&mut self, i: usize, q: u32, v: Verdict) {
        let e = self.epoch();
        let buff = self.cfg.buff_size;
        let now = self.now;
        let sp = &mut self.sps[i];
        if self.tainted.contains(&sp.pair) {
            if v == Verdict::Admit {
                sp.admitted = (sp.admitted + 1).min(sp.len - 1);
            }
            return;
        }
        let (pair, sid, len, fate) = (sp.pair, sp.sid, sp.len, sp.fate);
        let ctx = || format!("sp {pair:?} sid {sid} len {len} fate {fate:?} now {now} pktCnt {q}");
        match sp.fate {
            // Nothing of a super-packet whose first packet was refused or lost.
            FirstFate::Lost | FirstFate::Refused => {
                assert_eq!(v, Verdict::Drop(DropReason::NotAdmitted), "false positive: {}", ctx())
            }
            FirstFate::Admitted { at, .. } => {
                let age = now - at;
                let held = if q < buff { Verdict::Admit } else { Verdict::Drop(DropReason::BufferFull) };
                if sp.refused {
                    assert_eq!(v, Verdict::Drop(DropReason::NotAdmitted), "admitted after a refusal: {}", ctx());
                } else if age <= e {
                    assert_eq!(v, held, "all-or-nothing broken within one EPOCH: {}", ctx());
                } else if age > 2 * e {
                    assert_eq!(v, Verdict::Drop(DropReason::NotAdmitted), "state older than two EPOCHs: {}", ctx());
                } else {
                    assert!(v == held || v == Verdict::Drop(DropReason::NotAdmitted), "{v:?}: {}", ctx());
                }
                match v {
                    Verdict::Admit => sp.admitted += 1,
                    Verdict::Drop(DropReason::NotAdmitted) => sp.refused = true,
                    _ => {}
                }
            }
        }
    }

    fn send_wf(&mut self, i: usize, syn: bool, enc: Enc) {
        let (pair, sid, len, first) = {
            let sp = &self.sps[i];
            (sp.pair, sp.sid, sp.len, sp.sent == 0)
        };
        if !self.strict && !self.tainted.contains(&pair) && self.bloom_false_positive(i) {
            if trace() {
                eprintln!("  Bloom false positive on {pair:x?} sid {sid}: pair no longer judged");
            }
            self.tainted.insert(pair);
        } else if self.strict {
            assert!(!self.bloom_false_positive(i), "Bloom false positive in the strict regime");
        }
        let h = SpHeaderRepr { sid, len, first };
        let bytes = matches!(enc, Enc::Bytes { .. }).then(|| encode(h, enc));
        let q = self.queue;
        let v = self.arrive(pair, Some(h), syn, bytes.as_deref());
        self.sps[i].sent += 1;
        if first {
            self.sps[i].fate = if v == Verdict::Admit {
                FirstFate::Admitted { at: self.now, epoch: self.adm.epoch_start() }
            } else {
                FirstFate::Refused
            };
        } else {
            self.judge_subsequent(i, q, v);
        }
        if self.sps[i].sent == len {
            self.open.retain(|&j| j != i);
        }
    }

    /// total_outstanding is the sum of the per-pair counts; each well-formed pair's
    /// count lies between what must and what may still be held.
    fn check_outstanding(&self) {
        let pairs = &self.installed_pairs;
        let sum: u64 = pairs.iter().map(|p| no_alloc("outstanding", || self.adm.outstanding(p.0, p.1)) as u64).sum();
        assert_eq!(sum, self.adm.total_outstanding(), "total vs per-pair outstanding");
        let e = self.epoch();
        let l = self.last_arrival;
        let mut must: HashMap<Pair, u64> = HashMap::new();
        let mut may: HashMap<Pair, u64> = HashMap::new();
        for sp in &self.sps {
            if let FirstFate::Admitted { at, .. } = sp.fate {
                if l - at <= e {
                    *must.entry(sp.pair).or_default() += sp.remaining();
                }
                if l - at <= 2 * e {
                    *may.entry(sp.pair).or_default() += sp.remaining();
                }
            }
        }
        for p in pairs.iter().filter(|p| p.0 < 0x8000_0000 && !self.tainted.contains(p)) {
            let got = self.adm.outstanding(p.0, p.1) as u64;
            let (lo, hi) = (must.get(p).copied().unwrap_or(0), may.get(p).copied().unwrap_or(0));
            assert!(lo <= got && got <= hi, "pair {p:?}: outstanding {got} outside [{lo}, {hi}]");
        }
    }

    fn step(&mut self, op: &Op) {
        let carries_first = match op {
            Op::Start { lose_first, .. } => !lose_first,
            Op::Raw { first, .. } => *first,
            Op::RawOptions { bytes, .. } => {
                matches!(find_in_options(&bytes[..bytes.len().min(40)], u16::MAX), Ok(Some(h)) if h.first)
            }
            _ => false,
        };
        if carries_first {
            if self.firsts == MAX_FIRSTS {
                return;
            }
            self.firsts += 1;
        }
        if let Op::Check = op {
            if self.checks == MAX_CHECKS {
                return;
            }
            self.checks += 1;
        }
        if trace() {
            eprintln!("t={} q={} total={} op {op:?}", self.now, self.queue, self.adm.total_outstanding());
        }
        match *op {
            Op::Advance(d) => self.now = self.now.saturating_add(d as u64),
            Op::Epochs(n, d) => {
                let jump = (n % 4) as u64 * self.epoch();
                // Time never runs backwards (n = 0, d = -1 stays put).
                let to = self.now.saturating_add(jump).saturating_add_signed(d.signum() as i64);
                self.now = self.now.max(to);
            }
            Op::Jump(j) => self.now = self.now.saturating_add(j),
            Op::Dequeue(n) => self.queue = self.queue.saturating_sub(n as u32),
            Op::SetQueue(n) => self.queue = n as u32,
            Op::SetThreshold(t) => {
                no_alloc("set_threshold", || self.adm.set_threshold(t));
                self.threshold = t.min(self.cfg.buff_size);
                assert_eq!(self.adm.threshold(), self.threshold);
            }
            Op::Start { pair, len, lose_first, syn, enc } => {
                let pair = wf_pair(pair);
                let len = 1 + (len as u16 % self.cfg.max_len);
                let n = self.next_sid.entry(pair).or_insert(0);
                let sid = self.sid_base.wrapping_add(*n);
                *n += 1;
                let i = self.sps.len();
                self.sps.push(Sp { pair, sid, len, sent: 0, fate: FirstFate::Lost, admitted: 0, refused: false });
                if lose_first {
                    self.sps[i].sent = 1;
                    if len > 1 {
                        self.open.push(i);
                    }
                } else {
                    self.open.push(i);
                    self.send_wf(i, syn, enc);
                }
            }
            Op::Next { which, syn, enc } => {
                if !self.open.is_empty() {
                    let i = self.open[which as usize % self.open.len()];
                    self.send_wf(i, syn, enc);
                }
            }
            Op::Normal { pair, syn, adversary } => {
                let p = if adversary { adv_pair(pair, pair.rotate_left(3)) } else { wf_pair(pair) };
                self.arrive(p, None, syn, None);
            }
            Op::Raw { src, dst, sid, len, first, syn } => {
                self.arrive(adv_pair(src, dst), Some(SpHeaderRepr { sid, len, first }), syn, None);
            }
            Op::RawOptions { src, dst, syn, ref bytes } => {
                let bytes = &bytes[..bytes.len().min(40)];
                let pair = adv_pair(src, dst);
                match find_in_options(bytes, self.cfg.max_len) {
                    // A malformed list: BadHeader, nothing else happens.
                    Err(_) => {
                        let before = self.adm.total_outstanding();
                        let q = self.queue;
                        let now = self.now;
                        let v = no_alloc("on_arrival_options", || {
                            self.adm.on_arrival_options(now, pair.0, pair.1, syn, bytes, q)
                        });
                        assert_eq!(v, Verdict::Drop(DropReason::BadHeader));
                        assert!(self.adm.total_outstanding() <= before);
                        self.last_arrival = now;
                        self.arrivals += 1;
                        self.drops[DropReason::BadHeader.index()] += 1;
                        self.check_counters();
                    }
                    Ok(sp) => {
                        self.arrive(pair, sp, syn, Some(bytes));
                    }
                }
            }
            Op::Check => self.check_outstanding(),
        }
    }
}

/// `Config::validate` against the rules its documentation states.
fn check_raw_config(r: &RawConfig) {
    let cfg = Config {
        buff_size: r.buff_size,
        threshold: r.threshold,
        epoch_ns: r.epoch_ns,
        bloom_bits: r.bloom_bits,
        bloom_hashes: r.bloom_hashes,
        max_pairs: r.max_pairs,
        max_len: r.max_len,
        ..Config::default()
    };
    let valid = r.buff_size >= 1
        && r.threshold <= r.buff_size
        && r.epoch_ns > 0
        && r.bloom_bits >= 64
        && r.bloom_bits.count_ones() == 1
        && (1..=32).contains(&r.bloom_hashes)
        && (1..=1 << 24).contains(&r.max_pairs)
        && r.max_len >= 1;
    assert_eq!(cfg.validate().is_ok(), valid, "{cfg:?}");
}

fuzz_target!(|input: Input| {
    let s = &input.setup;
    if let Some(raw) = &s.raw {
        check_raw_config(raw);
    }
    let buff_size = 1 + s.buff as u32 % 64;
    let strict = !s.loose_bloom;
    let (bloom_bits, bloom_hashes) =
        if strict { (STRICT_BITS, STRICT_HASHES) } else { (64u32 << (s.bloom_log % 11), 1 + s.hashes as u32 % 32) };
    let cfg = Config {
        buff_size,
        threshold: s.t as u32 % (buff_size + 1),
        epoch_ns: 1 + s.epoch as u64,
        bloom_bits,
        bloom_hashes,
        max_pairs: if s.pairs >= 0xF0 { 4096 } else { 1 + s.pairs as u32 % 32 },
        max_len: 1 + s.max_len as u16 % 64,
        key: s.key,
        admit_syn: s.admit_syn,
    };

    // Memory: what `new` allocates is what `memory_bytes` reports, all of it.
    let live = LIVE.load(Relaxed);
    let adm = Admission::new(cfg.clone()).expect("valid by construction");
    let heap = LIVE.load(Relaxed) - live;
    let memory = adm.memory_bytes();
    assert_eq!(heap, memory - std::mem::size_of::<Admission>(), "memory_bytes vs the heap allocated by new");
    let bloom_bytes = 2 * bloom_bits as usize / 8;
    let slots = 2 * (2 * cfg.max_pairs as usize).next_power_of_two();
    let table_bytes = heap - bloom_bytes;
    assert!(
        table_bytes.is_multiple_of(slots) && table_bytes / slots <= 32,
        "table of {table_bytes} B for {slots} slots"
    );

    let start = s.start % (1 << 40);
    let mut w = World {
        adm,
        strict,
        now: start,
        last_arrival: 0,
        queue: 0,
        threshold: cfg.threshold,
        sps: Vec::new(),
        open: Vec::new(),
        next_sid: HashMap::new(),
        sid_base: s.sid_base,
        tainted: HashSet::new(),
        installs: Vec::new(),
        installed_pairs: HashSet::new(),
        recent: VecDeque::new(),
        recent_sum: 0,
        firsts: 0,
        checks: 0,
        arrivals: 0,
        admitted: 0,
        drops: [0; DropReason::COUNT],
        memory,
        cfg,
    };
    for op in input.ops.iter().take(MAX_OPS) {
        w.step(op);
    }
    w.check_outstanding();
    w.check_counters();
    // Dropping the router (and the model) gives back everything.
    drop(w);
    assert_eq!(LIVE.load(Relaxed), live, "heap bytes not freed");
});
