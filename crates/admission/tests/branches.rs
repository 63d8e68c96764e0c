//! One test per branch of Li 2013 Appendix A1 (admission), A2 (epoch shift) and A3
//! (state installation and update), including A3's false-positive branches, built
//! on a one-word Bloom filter where false positives are easy to find.

mod common;

use admission::{Admission, Config, DropReason, Entry, Verdict};
use common::{cfg, tiny_bloom_cfg, Router, EPOCH};
use DropReason::*;

const A: u32 = 0x0a00_0001;
const D: u32 = 0x0a00_00ff;

// ---------- A1 ----------

#[test]
fn a1_regular_below_t_is_enqueued() {
    let mut r = Router::new(cfg());
    assert_eq!(r.normal(A, D, 4), Verdict::Admit);
    assert_eq!(r.adm.stats().admitted_normal, 1);
}

#[test]
fn a1_regular_at_or_above_t_is_dropped() {
    let mut r = Router::new(cfg());
    assert_eq!(r.normal(A, D, 5), Verdict::Drop(Threshold));
    assert_eq!(r.normal(A, D, 49), Verdict::Drop(Threshold));
    assert_eq!(r.adm.stats().dropped(Threshold), 2);
}

#[test]
fn a1_first_below_t_installs_state() {
    let mut r = Router::new(cfg());
    assert_eq!(r.first(A, D, 83, 10, 4), Verdict::Admit);
    let l = r.lookup(A, D, 83);
    assert!(l.inb2 && !l.inb1);
    assert_eq!(l.h2, Some(Entry { reserved: 10, outstanding: 9 }));
    assert_eq!(r.adm.total_outstanding(), 9);
    assert_eq!(r.adm.stats().sp_admitted, 1);
    assert_eq!(r.adm.stats().pairs_h2, 1);
}

#[test]
fn a1_first_at_t_is_denied_and_installs_nothing() {
    let mut r = Router::new(cfg());
    assert_eq!(r.first(A, D, 83, 10, 5), Verdict::Drop(Threshold));
    let l = r.lookup(A, D, 83);
    assert!(!l.inb1 && !l.inb2 && l.h1.is_none() && l.h2.is_none());
    assert_eq!(r.adm.stats().sp_denied, 1);
    // All-or-nothing: every subsequent packet of the denied super-packet is lost.
    for _ in 0..9 {
        assert_eq!(r.next(A, D, 83, 10, 0), Verdict::Drop(NotAdmitted));
    }
}

#[test]
fn a1_accepted_subsequent_below_buffsize_is_enqueued_even_above_t() {
    let mut r = Router::new(cfg());
    r.first(A, D, 1, 3, 0);
    assert_eq!(r.next(A, D, 1, 3, 30), Verdict::Admit);
    assert_eq!(r.next(A, D, 1, 3, 49), Verdict::Admit);
    assert_eq!(r.adm.outstanding(A, D), 0);
    assert_eq!(r.adm.stats().admitted_subsequent, 2);
}

#[test]
fn a1_accepted_subsequent_at_buffsize_is_dropped_without_update() {
    let mut r = Router::new(cfg());
    r.first(A, D, 1, 3, 0);
    assert_eq!(r.next(A, D, 1, 3, 50), Verdict::Drop(BufferFull));
    // "update state" is skipped: the outstanding count is kept.
    assert_eq!(r.adm.outstanding(A, D), 2);
    assert_eq!(r.next(A, D, 1, 3, 10), Verdict::Admit);
}

#[test]
fn a1_syn_rule() {
    let mut on = Router::new(Config { admit_syn: true, ..cfg() });
    assert_eq!(on.syn(A, D, 5), Verdict::Admit);
    assert_eq!(on.syn(A, D, 49), Verdict::Admit);
    assert_eq!(on.syn(A, D, 50), Verdict::Drop(BufferFull));
    assert_eq!(on.normal(A, D, 5), Verdict::Drop(Threshold));
    assert_eq!(on.adm.stats().admitted_syn, 2);
    let mut off = Router::new(cfg());
    assert_eq!(off.syn(A, D, 5), Verdict::Drop(Threshold));
    assert_eq!(off.syn(A, D, 4), Verdict::Admit);
    assert_eq!(off.adm.stats().admitted_normal, 1);
}

// ---------- A3 installation, section 3.1 bounds, bad headers ----------

#[test]
fn full_table_denies_new_pairs_and_never_grows() {
    let mut r = Router::new(Config { max_pairs: 4, ..cfg() });
    let mem = r.adm.memory_bytes();
    for src in 0..4 {
        assert_eq!(r.first(src, D, 1, 2, 0), Verdict::Admit);
    }
    for src in 4..1000 {
        assert_eq!(r.first(src, D, 1, 2, 0), Verdict::Drop(TableFull));
    }
    assert_eq!(r.adm.memory_bytes(), mem);
    assert_eq!(r.adm.stats().dropped(TableFull), 996);
    assert_eq!(r.adm.stats().sp_denied, 996);
    // The denied super-packet left no Bloom bit behind: its packets stay out.
    assert!(!r.lookup(4, D, 1).inb2);
    assert_eq!(r.next(4, D, 1, 2, 0), Verdict::Drop(NotAdmitted));
    // A pair already in h2 may still install more super-packets.
    assert_eq!(r.first(0, D, 2, 5, 0), Verdict::Admit);
    assert_eq!(r.adm.outstanding(0, D), 5);
    // The next epoch has room again.
    r.next_epoch();
    assert_eq!(r.first(500, D, 1, 2, 0), Verdict::Admit);
}

#[test]
fn bad_headers_are_dropped_and_counted() {
    let mut r = Router::new(Config { max_len: 10, ..cfg() });
    assert_eq!(r.first(A, D, 1, 0, 0), Verdict::Drop(BadHeader));
    assert_eq!(r.first(A, D, 1, 11, 0), Verdict::Drop(BadHeader));
    assert_eq!(r.next(A, D, 1, 0, 0), Verdict::Drop(BadHeader));
    assert_eq!(r.adm.stats().dropped(BadHeader), 3);
    assert_eq!(r.adm.stats().sp_denied, 0);
    assert!(r.adm.lookup(A, D, 1).h2.is_none());
    // Raw options: truncated, malformed, and a valid one.
    let v = r.adm.on_arrival_options(0, A, D, false, &[0x1E, 0x09, 0, 0], 0);
    assert_eq!(v, Verdict::Drop(BadHeader));
    let v = r.adm.on_arrival_options(0, A, D, false, &[0x94, 0x01], 0);
    assert_eq!(v, Verdict::Drop(BadHeader));
    let ok = [0x1E, 0x09, 0, 0, 0, 7, 0, 3, 0x80, 0, 0, 0];
    assert_eq!(r.adm.on_arrival_options(0, A, D, false, &ok, 0), Verdict::Admit);
    assert_eq!(r.adm.outstanding(A, D), 2);
    assert_eq!(r.adm.on_arrival_options(0, A, D, false, &[0, 0, 0, 0], 9), Verdict::Drop(Threshold));
    assert_eq!(r.adm.stats().dropped(BadHeader), 5);
    assert!(r.adm.stats().is_consistent());
}

// ---------- A3 state update ----------

#[test]
fn a3_in_neither_bloom_is_dropped() {
    // first = 0 for a sid the router never saw.
    let mut r = Router::new(cfg());
    r.first(A, D, 1, 5, 0);
    assert_eq!(r.next(A, D, 2, 5, 0), Verdict::Drop(NotAdmitted));
    assert_eq!(r.next(A + 1, D, 1, 5, 0), Verdict::Drop(NotAdmitted));
    assert_eq!(r.adm.outstanding(A, D), 4);
}

#[test]
fn a3_b1_only_without_h1_entry_is_a_false_positive() {
    let mut r = Router::new(tiny_bloom_cfg());
    r.first(A, D, 1, 5, 0);
    r.next_epoch();
    let (src, sid) = r.find_triple(D, |l| l.inb1 && !l.inb2 && l.h1.is_none() && l.h2.is_none());
    assert_eq!(r.next(src, D, sid, 5, 0), Verdict::Drop(BloomFalsePositive));
    assert_eq!(r.adm.stats().false_positives_detected(), 1);
}

#[test]
fn a3_b1_only_with_zero_outstanding_is_dropped() {
    let mut r = Router::new(cfg());
    r.first(A, D, 1, 1, 0); // len 1: (1, 0)
    r.next_epoch();
    assert_eq!(r.lookup(A, D, 1).h1, Some(Entry { reserved: 1, outstanding: 0 }));
    assert_eq!(r.next(A, D, 1, 1, 0), Verdict::Drop(OutstandingExhausted));
}

#[test]
fn a3_b1_only_decrements_h1() {
    let mut r = Router::new(cfg());
    r.first(A, D, 1, 4, 0);
    r.next_epoch();
    assert_eq!(r.next(A, D, 1, 4, 0), Verdict::Admit);
    assert_eq!(r.lookup(A, D, 1).h1, Some(Entry { reserved: 4, outstanding: 2 }));
    assert_eq!(r.adm.total_outstanding(), 2);
}

#[test]
fn a3_b2_only_without_h2_entry_is_a_false_positive() {
    let mut r = Router::new(tiny_bloom_cfg());
    r.first(A, D, 1, 5, 0);
    let (src, sid) = r.find_triple(D, |l| !l.inb1 && l.inb2 && l.h1.is_none() && l.h2.is_none());
    assert_eq!(r.next(src, D, sid, 5, 0), Verdict::Drop(BloomFalsePositive));
    // The victim's count is untouched (section 3.1 drain attack fails here).
    assert_eq!(r.adm.outstanding(A, D), 4);
}

#[test]
fn a3_b2_only_with_zero_outstanding_is_dropped() {
    let mut r = Router::new(cfg());
    r.first(A, D, 1, 2, 0);
    assert_eq!(r.next(A, D, 1, 2, 0), Verdict::Admit);
    // A sender sending more than len packets: the extra one is refused.
    assert_eq!(r.next(A, D, 1, 2, 0), Verdict::Drop(OutstandingExhausted));
    assert_eq!(r.adm.outstanding(A, D), 0);
}

#[test]
fn a3_b2_only_decrements_h2() {
    let mut r = Router::new(cfg());
    r.first(A, D, 1, 3, 0);
    assert_eq!(r.next(A, D, 1, 3, 0), Verdict::Admit);
    assert_eq!(r.lookup(A, D, 1).h2, Some(Entry { reserved: 3, outstanding: 1 }));
}

#[test]
fn a3_both_blooms_without_entries_is_a_false_positive() {
    let mut r = Router::new(tiny_bloom_cfg());
    r.first(A, D, 1, 5, 0);
    r.next_epoch();
    r.first(A, D, 1, 5, 0);
    let (src, sid) = r.find_triple(D, |l| l.inb1 && l.inb2 && l.h1.is_none() && l.h2.is_none());
    assert_eq!(r.next(src, D, sid, 5, 0), Verdict::Drop(BloomFalsePositive));
}

#[test]
fn a3_both_blooms_prefers_h1_with_outstanding() {
    let mut r = Router::new(cfg());
    r.first(A, D, 1, 3, 0); // h1 after the shift: (3, 2)
    r.next_epoch();
    r.first(A, D, 1, 4, 0); // h2: (4, 3)
    let l = r.lookup(A, D, 1);
    assert!(l.inb1 && l.inb2);
    assert_eq!(r.next(A, D, 1, 4, 0), Verdict::Admit);
    let l = r.lookup(A, D, 1);
    assert_eq!(l.h1.unwrap().outstanding, 1);
    assert_eq!(l.h2.unwrap().outstanding, 3);
}

#[test]
fn a3_both_blooms_falls_back_to_h2() {
    let mut r = Router::new(cfg());
    r.first(A, D, 1, 1, 0); // h1: (1, 0)
    r.next_epoch();
    r.first(A, D, 1, 3, 0); // h2: (3, 2)
    assert_eq!(r.next(A, D, 1, 3, 0), Verdict::Admit);
    let l = r.lookup(A, D, 1);
    assert_eq!(l.h1.unwrap().outstanding, 0);
    assert_eq!(l.h2.unwrap().outstanding, 1);
}

#[test]
fn a3_both_blooms_h2_only_entry_with_outstanding() {
    // inb1 by a false positive (b1 holds another pair's bit), no h1 entry, h2 pays.
    let mut r = Router::new(tiny_bloom_cfg());
    r.first(A + 1, D, 9, 2, 0);
    r.next_epoch();
    let sid = (0..10_000).find(|&s| r.lookup(A, D, s).inb1).expect("a colliding sid");
    r.first(A, D, sid, 3, 0);
    let l = r.lookup(A, D, sid);
    assert!(l.inb1 && l.inb2 && l.h1.is_none());
    assert_eq!(r.next(A, D, sid, 3, 0), Verdict::Admit);
    assert_eq!(r.lookup(A, D, sid).h2.unwrap().outstanding, 1);
}

#[test]
fn a3_both_blooms_all_zero_is_dropped() {
    let mut r = Router::new(cfg());
    r.first(A, D, 1, 1, 0);
    r.next_epoch();
    r.first(A, D, 1, 1, 0);
    assert!(r.lookup(A, D, 1).inb1);
    assert_eq!(r.next(A, D, 1, 1, 0), Verdict::Drop(OutstandingExhausted));
}

// ---------- A2 ----------

#[test]
fn a2_state_moves_to_h1_then_expires() {
    let mut r = Router::new(cfg());
    r.first(A, D, 1, 10, 0);
    r.advance(EPOCH); // still epoch 0: now - prev == EPOCH is not > EPOCH
    assert_eq!(r.next(A, D, 1, 10, 0), Verdict::Admit);
    assert_eq!(r.adm.stats().epoch_shifts, 0);
    r.advance(1); // epoch 1: h1 = h2
    assert_eq!(r.next(A, D, 1, 10, 0), Verdict::Admit);
    assert_eq!(r.adm.stats().epoch_shifts, 1);
    assert_eq!(r.adm.stats().pairs_h1, 1);
    r.advance(EPOCH); // epoch 2: the old h1 is dropped
    assert_eq!(r.next(A, D, 1, 10, 0), Verdict::Drop(NotAdmitted));
    assert_eq!(r.adm.total_outstanding(), 0);
    assert_eq!(r.adm.stats().pairs_h1, 0);
}

#[test]
fn a2_long_gap_clears_both_generations() {
    let mut r = Router::new(cfg());
    r.first(A, D, 1, 10, 0);
    r.advance(2 * EPOCH + 1);
    assert_eq!(r.next(A, D, 1, 10, 0), Verdict::Drop(NotAdmitted));
    assert_eq!(r.adm.stats().double_shifts, 1);
    assert_eq!(r.adm.stats().epoch_shifts, 2);
    assert_eq!(r.adm.epoch_start(), 2 * EPOCH);
}

#[test]
fn a2_boundaries_are_exact() {
    // Installed at prev = 0: usable up to now = 2 EPOCH (one shift), gone after.
    let mut r = Router::new(cfg());
    r.first(A, D, 1, 10, 0);
    r.advance(2 * EPOCH);
    assert_eq!(r.next(A, D, 1, 10, 0), Verdict::Admit);
    assert_eq!(r.adm.stats().double_shifts, 0);
    assert_eq!(r.adm.epoch_start(), EPOCH);
    r.advance(1);
    assert_eq!(r.next(A, D, 1, 10, 0), Verdict::Drop(NotAdmitted));
    assert_eq!(r.adm.epoch_start(), 2 * EPOCH);
}

#[test]
fn a2_time_going_backwards_does_not_shift() {
    let mut r = Router::new(cfg());
    r.now = 5 * EPOCH;
    r.first(A, D, 1, 3, 0);
    r.now = 0;
    assert_eq!(r.next(A, D, 1, 3, 0), Verdict::Admit);
    assert_eq!(r.adm.epoch_start(), 4 * EPOCH);
}

// ---------- section 6.1 dynamic threshold ----------

#[test]
fn dynamic_threshold_from_total_outstanding() {
    let mut r = Router::new(cfg());
    r.first(1, D, 1, 10, 0);
    r.first(2, D, 1, 10, 0);
    assert_eq!(r.adm.total_outstanding(), 18);
    // t = df x sum of outstanding packets, df = 1 - r_out / r_in = 0.5
    let t = (0.5 * r.adm.total_outstanding() as f64) as u32;
    r.adm.set_threshold(t);
    assert_eq!(r.adm.threshold(), 9);
    assert_eq!(r.normal(A, D, 8), Verdict::Admit);
    assert_eq!(r.normal(A, D, 9), Verdict::Drop(Threshold));
    r.adm.set_threshold(1_000);
    assert_eq!(r.adm.threshold(), 50);
}

#[test]
fn new_rejects_invalid_config() {
    let err = Admission::new(Config { epoch_ns: 0, ..cfg() }).unwrap_err();
    assert_eq!(err.field(), "epoch_ns");
}
