//! The `sp_attack` traffic kind (traffic/attack.rs) against the super-packet router,
//! with the router's section 3.1 counters checked against values derived by hand.

use sim::{Scenario, Sim};

fn scenario(queue_extra: &str, attack: &str) -> String {
    format!(
        r#"
name = "attack"
duration = "1s"
[topology]
kind = "star"
senders = 2
sender_link = {{ rate = "100Mbps", delay = "1ms" }}
receiver_link = {{ rate = "100Mbps", delay = "1ms", queue = {{ kind = "superpacket", limit = 20, threshold = 10, max_pairs = 64{queue_extra} }} }}
[[traffic]]
kind = "sp_attack"
from = "s1"
to = "d"
{attack}
"#
    )
}

fn load(s: &str) -> Result<Sim, String> {
    let sc = Scenario::from_toml_str(s)?;
    let mut sim = sc.build(Some(1))?;
    sim.run_until(sc.duration.0);
    sim.check_conservation()?;
    Ok(sim)
}

fn counter(sim: &Sim, name: &str) -> f64 {
    let id = sim.net.link_by_name("R->d").unwrap();
    sim.net.links[id as usize].disc_counters().into_iter().find(|(k, _)| *k == name).map(|(_, v)| v).unwrap()
}

#[test]
fn bad_attack_fields_are_named() {
    let ok = "attack = \"spoof_flood\"\nrate_pps = 1000";
    assert!(load(&scenario("", ok)).is_ok());
    let cases = [
        ("attack = \"smurf\"\nrate_pps = 1000", "traffic[0].attack: unknown attack"),
        ("attack = \"spoof_flood\"\nrate_pps = 0", "traffic[0].rate_pps: must be in (0, 1e8]"),
        ("attack = \"spoof_flood\"\nrate_pps = 1e9", "traffic[0].rate_pps"),
        ("attack = \"spoof_flood\"\nrate_pps = 10\nlen = 0", "traffic[0].len: must be >= 1"),
        ("attack = \"spoof_flood\"\nrate_pps = 10\npacket_bytes = 10", "traffic[0].packet_bytes"),
        ("attack = \"outstanding_drain\"\nrate_pps = 10", "traffic[0].victims: outstanding_drain needs"),
        ("attack = \"spoof_flood\"\nrate_pps = 10\nvictims = [\"s0\"]\naim_slots = 1000", "traffic[0].aim_slots"),
        ("attack = \"spoof_flood\"\nrate_pps = 10\nvictims = [\"zz\"]", "traffic[0].victims[0]"),
        ("attack = \"epoch_sync\"\nrate_pps = 10\nepoch = \"0s\"", "traffic[0].epoch: must be > 0"),
        ("attack = \"spoof_flood\"\nrate_pps = 10\ncolour = 1", "colour"),
    ];
    for (a, want) in cases {
        let err = load(&scenario("", a)).err().unwrap_or_else(|| panic!("{a:?} accepted"));
        assert!(err.contains(want), "{a:?}: {err}");
        assert!(!err.contains('\n'), "one line: {err}");
    }
}

/// 10^4 first packets/s for 1 s, each from a new spoofed pair, into a table of 64
/// pairs per generation (128 slots). They reach R 1 ms + 3.2 us after leaving, 100 us
/// apart: epoch [0, 80 ms] holds 790 arrivals, each later one 800, the 13th
/// (960, 1000] ms about 400: every epoch admits its
/// first 64 and refuses the rest (40 B at 100 Mbps leave in 3.2 us: the queue is
/// empty at each arrival), so 13 x 64 = 832 admitted. Packets sent after
/// 1 s - 1 ms - 3.2 us (the last 10) are still on s1's link at the end, so 9,990
/// reach R and 9,990 - 832 = 9,158 are refused; memory is what it was without the
/// attack.
#[test]
fn spoof_flood_meets_a_bounded_table() {
    let sim = load(&scenario("", "attack = \"spoof_flood\"\nrate_pps = 10000")).unwrap();
    assert_eq!(counter(&sim, "sp_admitted"), 832.0);
    assert_eq!(counter(&sim, "sp_table_refusals"), 9158.0);
    assert_eq!(counter(&sim, "sp_table_pairs_peak"), 64.0);
    assert_eq!(counter(&sim, "sp_table_grows"), 0.0);
    let quiet = load(&scenario("", "attack = \"spoof_flood\"\nrate_pps = 1\nstart = \"2s\"")).unwrap();
    assert_eq!(counter(&sim, "sp_memory_bytes"), counter(&quiet, "sp_memory_bytes"));
    assert!(counter(&sim, "sp_probes_max") <= 32.0);

    // Bounded table off: a generation doubles at half load, 128 -> 2048 slots to hold
    // 800 pairs (4 doublings each for both generations: 8), 24 B a slot, so the table
    // holds 2 x 2048 x 24 = 98,304 B instead of 2 x 128 x 24 = 6,144 B.
    let sim = load(&scenario(", bounded_table = false", "attack = \"spoof_flood\"\nrate_pps = 10000")).unwrap();
    assert_eq!(counter(&sim, "sp_admitted"), 9_990.0);
    assert_eq!(counter(&sim, "sp_table_pairs_peak"), 800.0);
    assert_eq!(counter(&sim, "sp_table_grows"), 8.0);
    assert_eq!(counter(&sim, "sp_memory_bytes") - counter(&quiet, "sp_memory_bytes"), 98_304.0 - 6_144.0);
}

/// outstanding_drain: every other packet a spoofed subsequent packet of (s0, d) with a
/// random sid, 5,000 in 1 s, 4,995 of them at R by the end (the last 10 packets are
/// on s1's link), none of them ever admitted: all are false-positive queries. With a one-word, one-hash Bloom filter the attacker's own pollution
/// (5,000 first packets) fills it within the first epoch: nearly every query hits.
/// With the default filter and the per-source cap of 20 (two pollution packets of
/// len 10 per epoch) the fill stays at most 2 x 4 / 65,536 bits and none hits.
#[test]
fn outstanding_drain_measures_false_positives() {
    let drain = "attack = \"outstanding_drain\"\nrate_pps = 10000\nvictims = [\"s0\"]";
    let sim = load(&scenario(", bloom_bits = 64, bloom_hashes = 1", drain)).unwrap();
    assert_eq!(counter(&sim, "sp_fp_queries"), 4995.0);
    assert!(counter(&sim, "sp_fp_rate_measured") > 0.9, "{}", counter(&sim, "sp_fp_rate_measured"));
    assert_eq!(counter(&sim, "sp_bloom_fill_peak"), 1.0);

    let sim = load(&scenario(", max_reserved_per_pair = 20", drain)).unwrap();
    assert_eq!(counter(&sim, "sp_fp_queries"), 4995.0);
    assert_eq!(counter(&sim, "sp_fp_hits"), 0.0);
    assert_eq!(counter(&sim, "sp_reserved_peak"), 20.0);
    // 13 epochs x 2 admitted; the other 4,995 - 26 pollution packets at R capped
    assert_eq!(counter(&sim, "sp_admitted"), 26.0);
    assert_eq!(counter(&sim, "sp_source_cap_refusals"), 4995.0 - 26.0);
    assert!(counter(&sim, "sp_bloom_fill_peak") <= 8.0 / 65536.0);
}

fn link_drops(sim: &Sim, link: &str, reason: &str) -> u64 {
    let id = sim.net.link_by_name(link).unwrap() as usize;
    let r = sim::net::queue::DropReason::ALL.into_iter().find(|r| r.name() == reason).unwrap();
    sim.net.links[id].stats.drops[r as usize]
}

/// Source validation at R (ingress filtering): the spoof flood's sources are no node of
/// the network, so every one of the 9,990 packets that reach R in the second (the last
/// 10 are still on s1's link, as above) is dropped there, before the admission sees it:
/// nothing admitted, nothing refused by the table. outstanding_drain alternates s1's own
/// pollution packets (valid on s1's port: 4,995 reach R) with packets that claim s0's
/// address (valid only on s0's port): those 4,995 are dropped, so no false-positive
/// query ever reaches the table.
#[test]
fn source_validation_drops_spoofed_sources_at_the_first_router() {
    let with = |s: String| s.replacen("[topology]", "source_validation = [\"R\"]\n[topology]", 1);
    let sim = load(&with(scenario("", "attack = \"spoof_flood\"\nrate_pps = 10000"))).unwrap();
    assert_eq!(link_drops(&sim, "R->d", "source_invalid"), 9_990);
    assert_eq!(counter(&sim, "sp_admitted") + counter(&sim, "sp_table_refusals"), 0.0);
    assert_eq!(sim.net.links[sim.net.link_by_name("R->d").unwrap() as usize].stats.arrivals, 9_990);

    let drain = "attack = \"outstanding_drain\"\nrate_pps = 10000\nvictims = [\"s0\"]";
    let sim = load(&with(scenario("", drain))).unwrap();
    assert_eq!(link_drops(&sim, "R->d", "source_invalid"), 4_995);
    assert_eq!(counter(&sim, "sp_fp_queries"), 0.0);
    assert_eq!(counter(&sim, "sp_admitted"), 4_995.0, "s1's own first packets pass");

    let err = load(&scenario("", "attack = \"spoof_flood\"\nrate_pps = 10").replacen(
        "[topology]",
        "source_validation = [\"Q\"]\n[topology]",
        1,
    ))
    .err()
    .unwrap();
    assert!(err.starts_with("source_validation[0]: no node named \"Q\""), "{err}");
}

/// Port quota without source validation: port_share 0.25 of 64 pairs = 16 new pairs per
/// generation from s1's port. The flood's 13 epochs (as in the bounded-table test) admit
/// 13 x 16 = 208 and refuse the other 9,990 - 208 = 9,782 by the quota, so the table
/// never holds more than 16 of the attacker's pairs and 48 stay for the other port.
#[test]
fn port_quota_keeps_one_port_to_its_share_of_the_table() {
    let sim = load(&scenario(", port_share = 0.25", "attack = \"spoof_flood\"\nrate_pps = 10000")).unwrap();
    assert_eq!(counter(&sim, "sp_admitted"), 208.0);
    assert_eq!(counter(&sim, "sp_port_quota_refusals"), 9_782.0);
    assert_eq!(counter(&sim, "sp_table_pairs_peak"), 16.0);
    assert_eq!(link_drops(&sim, "R->d", "sp_port_quota"), 9_782);
    for bad in ["0.0", "1.5", "-1"] {
        let err =
            load(&scenario(&format!(", port_share = {bad}"), "attack = \"spoof_flood\"\nrate_pps = 10")).err().unwrap();
        assert!(err.contains("port_share: must be in (0, 1]"), "{bad}: {err}");
    }
}
