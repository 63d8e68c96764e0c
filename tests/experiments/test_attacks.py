"""`superpacket reproduce attacks` (seeds/000 section 3.1, SCENARIOS.md "attacks") at
its --quick scale (1 seed, 4 s runs, 10^4 and 10^5 packets/s): the JSON layout, the
router's counters against what each defence must do, the figure and the command line.

By hand, for the router of SCENARIOS.md (4096 pairs, 2^16-bit Bloom filter x 2
generations, 8192 slots of 24 B per table generation): the table holds
2 x 8192 x 24 = 393,216 B and the Bloom filter 2 x 2^16 / 8 = 16,384 B; with the port
quota, 2 generations x 64 (port, pairs) rows x 8 B = 1,024 B more.

The quick runs last 4 s with the attack from 2 s: a source at r packets/s sends 2r packets,
of which those sent in the last 1 ms + 0.32 us (M's link delay and a 40 B packet at
1 Gbps) are still on M's link at the end, about r / 1000."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from record_check import assert_claims_declared
from superpacket.experiments import EXPERIMENTS, attacks
from superpacket.reports import figure_kit

EXE = str(Path(sys.executable).parent / "superpacket")
TABLE_BYTES = 2 * 8192 * 24
BLOOM_BYTES = 2 * (1 << 16) // 8
PORT_ROW_BYTES = 2 * 64 * 8


@pytest.fixture(scope="module")
def result():
    return attacks.run(quick=True)


def v(result, name):
    return result["variants"][name]


def test_layout_and_registration(result):
    assert EXPERIMENTS["attacks"] is attacks.EXPERIMENT
    quick = attacks.EXPERIMENT.quick  # what --quick means, from the record
    assert result["experiment"] == "attacks" and result["seeds"] == quick.seeds == 1 and result["quick"]
    assert result["params"]["duration_s"]["value"] == quick.values["duration_s"]
    names = [f"none/0/{d}" for d in quick.values["settings"]] + [
        f"{a}/{r}/{d}" for a in attacks.ATTACKS for r in quick.values["rates"] for d in quick.values["settings"]]
    assert sorted(result["variants"]) == sorted(names)
    assert len(result["table"]) == len(names)
    for c in result["claims"]:
        assert isinstance(c["holds"], bool) and isinstance(c["must_hold"], bool)
    assert_claims_declared(result)
    json.dumps(result)  # JSON-clean


def test_memory_is_the_configured_size_with_defences_on(result):
    on = [n for n in result["variants"] if n.endswith("/on")]
    mems = {v(result, n)["sp_memory_bytes"] for n in on}
    assert len(mems) == 1
    (mem,) = mems
    # the struct itself is a few hundred bytes beside the two tables, filters and the
    # port quota's rows
    assert 0 < mem - TABLE_BYTES - BLOOM_BYTES - PORT_ROW_BYTES < 1024
    assert result["claims"][0]["holds"]


def test_work_per_packet_is_bounded_with_defences_on(result):
    for n in result["variants"]:
        if n.endswith("/on"):
            assert v(result, n)["sp_probes_max"] <= 2 * attacks.PROBE_LIMIT
    assert result["claims"][1]["holds"]


def test_each_defence_does_its_part(result):
    # no attack: the defences change nothing for the victims (same seed, same flows)
    assert v(result, "none/0/on")["victim_fct_s"] == v(result, "none/0/off")["victim_fct_s"]
    # spoof-flood at 10^5/s: 8,000 new pairs per 80 ms epoch; with the paper's four
    # defences (bounded), the table fills to its 4096 and refuses the rest; unbounded, it
    # grows past its configured size
    on, off = v(result, "spoof-flood/100000/no-validation"), v(result, "spoof-flood/100000/off")
    assert on["sp_table_pairs_peak"] == 4096 and on["sp_table_refusals"] > 0
    assert off["sp_table_pairs_peak"] > 4096 and off["sp_table_grows"] > 0
    assert off["sp_memory_bytes"] > on["sp_memory_bytes"]
    # bloom-pollution: the per-source cap (100 packets) lets 10 super-packets of M in per
    # epoch, so b2 holds at most 10 + the victims' few items; without it the fill rises
    on, off = v(result, "bloom-pollution/100000/on"), v(result, "bloom-pollution/100000/off")
    assert on["sp_source_cap_refusals"] > 0 and on["sp_reserved_peak"] <= attacks.SOURCE_CAP
    assert on["sp_bloom_fill_peak"] < 0.005 and off["sp_bloom_fill_peak"] > 0.1
    # outstanding-drain: the spoofed subsequent packets are measured as false-positive
    # queries; with the filter kept nearly empty none of them hits
    on = v(result, "outstanding-drain/100000/no-validation")
    assert on["sp_fp_queries"] > 10_000 and on["sp_fp_rate_measured"] == 0.0


def test_source_validation_drops_spoofed_packets_at_the_first_hop(result):
    # all defences on: R drops every spoofed packet before its admission sees it. The
    # spoof flood's 2 x 10^5 packets minus about 100 still on M's link; none installs a
    # pair, so the table holds the victims' two pairs (B, D) and (C, D) at most
    on = v(result, "spoof-flood/100000/on")
    assert 199_800 <= on["source_invalid_drops"] <= 200_000
    assert on["sp_table_pairs_peak"] <= 2 and on["sp_table_refusals"] == 0
    # outstanding-drain: every other packet claims B's or C's address from M's port: half
    # the 2 x 10^5 are dropped, none reaches the table. What queries are left are the
    # victims' own later packets of super-packets R denied (tens, against the more than
    # 10,000 spoofed queries without source validation above)
    on = v(result, "outstanding-drain/100000/on")
    assert 99_900 <= on["source_invalid_drops"] <= 100_000 and on["sp_fp_queries"] < 100
    assert on["sp_fp_rate_measured"] == 0.0
    # M's own address is valid: bloom-pollution is left to the per-source cap
    on = v(result, "bloom-pollution/100000/on")
    assert on["source_invalid_drops"] == 0 and on["sp_source_cap_refusals"] > 0
    # without source validation, the spoof flood fills the table and the victims lose
    # their admission (the paper's conclusion), while all defences on keep them near 1x
    c = next(c for c in result["claims"] if c["claim"].startswith("without source validation"))
    assert not c["must_hold"]
    nv, on = v(result, "spoof-flood/100000/no-validation"), v(result, "spoof-flood/100000/on")
    assert nv["victim_admission_rate"] < on["victim_admission_rate"]


def test_keyed_hashing_bounds_the_work_of_an_aimed_flood(result):
    # 256 spoofed sources per victim aimed at its home slot under the public zero key:
    # with the router's secret key they scatter (about one slot per lookup); with the
    # zero key they queue in the victims' probe runs and a decision walks them (the
    # unbounded table has no probe limit): more than 2 x 32 slots at the worst
    on, off = v(result, "spoof-flood-aimed/100000/no-validation"), v(result, "spoof-flood-aimed/100000/off")
    assert on["sp_table_pairs_peak"] == off["sp_table_pairs_peak"] == 2 * attacks.AIM_PER_VICTIM + 2
    assert on["sp_probes_per_decision"] < 1.5 and on["sp_probes_max"] <= 2 * attacks.PROBE_LIMIT
    assert off["sp_probes_per_decision"] > 50 and off["sp_probes_max"] > attacks.AIM_PER_VICTIM


def test_failing_claims_are_named(result):
    c = result["claims"][2]
    assert c["must_hold"] and c["holds"] == (not c["failing"])
    assert all(n.endswith("/on") for n in c["failing"])


def test_figure(result):
    figs = figure_kit.build(result)
    assert [f.name for f in figs] == ["attacks_victim_fct"]
    assert set(figs[0].data) == {f"{a}/{d}" for a in attacks.ATTACKS for d in attacks.DEFENCES}


def test_command_line_refuses_options_it_ignores():
    r = subprocess.run([EXE, "reproduce", "attacks", "--jitter-us", "5", "--json"], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "--jitter-us applies to" in r.stderr


def test_ablation_settings_turn_one_defence_off():
    assert attacks.settings(quick=True) == ("off", "on", "no-validation")
    assert len(attacks.variant_names(False)) == 7 + 7 * len(attacks.ATTACKS) * len(attacks.RATES)
    for name, off in (("no-key", "keyed"), ("no-bound", "bounded_table"), ("no-cap", "max_reserved_per_pair"),
                      ("no-phase", "random_epoch_phase"), ("no-validation", "source_validation")):
        sc = attacks.scenario(f"spoof-flood/10000/{name}")
        (q,) = [lk["queue"] for lk in sc["topology"]["links"] if lk.get("queue", {}).get("kind") == "superpacket"]
        sw = {k: bool(q[k]) for k in ("keyed", "bounded_table", "max_reserved_per_pair", "random_epoch_phase")}
        # source validation: R filters, and R -> D's table has the per-port quota
        sw["source_validation"] = sc.get("source_validation") == ["R"] and q.get("port_share") == 0.25
        assert [k for k, on in sw.items() if not on] == [off]
