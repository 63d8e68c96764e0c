"""`superpacket reproduce dcr` and `dcr-multihop` (seeds/004, SCENARIOS.md "TCP-DCR and
high-speed TCP under reordering") at a small scale: 100 Mbps instead of 1 Gbps, runs of
10-20 s instead of 100 s, LTCP and HighSpeed, q in {0, 0.01}. What is checked:

- the claims' directions at this scale: without DCR utilisation collapses with
  reordering, with DCR it holds up, and without reordering DCR leaves utilisation
  unchanged (the multihop chain: the R3 links collapse without DCR and recover with it);
- the summary's shape (DESIGN.md): variant names, metric names with `_ci95` and
  `_per_seed`, the CIs recomputed from the per-seed values, claims with `holds`;
- the metrics against their definitions (drop rate = drops / arrivals, Jain's index by
  hand, `both/q0` = `congestion/q0`), the paper's multihop table under our names;
- bad input: an unknown protocol lists the allowed ones, a negative or NaN q is refused
  in one line naming the field (module and command line);
- the report folder: its figures written, referenced, and drawn from the summary.
"""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from record_check import assert_claims_declared
from superpacket import _core, api, reports
from superpacket.experiments import EXPERIMENTS, dcr, dcr_multihop
from superpacket.experiments.dcr_common import DcrInputError, jain
from superpacket.reports import figure_kit

EXE = str(Path(sys.executable).parent / "superpacket")
SMALL = {"rate_bps": 100e6, "duration_s": 10.0}
PROTOS = ("ltcp", "highspeed")


@pytest.fixture(scope="module")
def small() -> dict:
    s = dcr.run(seeds=2, protocols=",".join(PROTOS), qs="0.01", progress=False, **SMALL)
    return json.loads(json.dumps(s))  # as summary.json holds it


@pytest.fixture(scope="module")
def small_mh() -> dict:
    s = dcr_multihop.run(seeds=1, protocols=",".join(PROTOS), rate_bps=100e6, duration_s=20.0, progress=False)
    return json.loads(json.dumps(s))


def claim(s: dict, variant: str, text: str) -> dict:
    found = [c for c in s["claims"] if c["variant"] == variant and text in c["claim"]]
    assert len(found) == 1, (variant, text, [c["claim"] for c in s["claims"] if c["variant"] == variant])
    return found[0]


# ---- the claims' directions at the small scale -----------------------------------------

def test_without_dcr_utilisation_collapses(small):
    v = small["variants"]
    for cc in PROTOS:
        for part in ("reorder", "both"):
            u0, u1 = v[f"{cc}/{part}/q0"]["utilisation"], v[f"{cc}/{part}/q0.01"]["utilisation"]
            assert u0 > 0.9, (cc, part, u0)  # the link is full without reordering
            assert u1 < 0.5 * u0, (cc, part, u0, u1)
            c = claim(small, f"{cc}/{part}", "collapses")
            assert c["holds"] is True and c["must_hold"] is True
            # judged over the measurement window, the whole run beside
            w0, w1 = v[f"{cc}/{part}/q0"]["utilisation_window"], v[f"{cc}/{part}/q0.01"]["utilisation_window"]
            assert c["ratio"] == pytest.approx(w1 / w0)
            assert c["utilisation_whole_run_by_q"] == {"q0": u0, "q0.01": u1}


def test_with_dcr_utilisation_holds_up(small):
    v = small["variants"]
    for cc in PROTOS:
        for part in ("reorder", "both"):
            for q in ("q0", "q0.01"):
                assert v[f"{cc}-dcr/{part}/{q}"]["utilisation"] > 0.9, (cc, part, q)
            # DCR, not chance: the same reordering collapses the plain flow(s)
            assert v[f"{cc}-dcr/{part}/q0.01"]["utilisation"] > 2 * v[f"{cc}/{part}/q0.01"]["utilisation"]
            c = claim(small, f"{cc}-dcr/{part}", "stays above 90%")
            assert c["holds"] is True
            # judged over the measurement window (the run's last 90 %), the whole run beside
            assert c["min_utilisation"] == pytest.approx(min(v[f"{cc}-dcr/{part}/{q}"]["utilisation_window"]
                                                             for q in ("q0", "q0.01")))
            assert c["min_utilisation_whole_run"] == pytest.approx(min(v[f"{cc}-dcr/{part}/{q}"]["utilisation"]
                                                                       for q in ("q0", "q0.01")))


def test_without_reordering_dcr_changes_little(small):
    v = small["variants"]
    for cc in PROTOS:
        for part in ("reorder", "congestion"):
            a, b = v[f"{cc}/{part}/q0"]["utilisation"], v[f"{cc}-dcr/{part}/q0"]["utilisation"]
            assert abs(b - a) / a < 0.05, (cc, part, a, b)
        # judged on the congestion-only part over the measurement window
        c = claim(small, f"{cc}-dcr", "congestion only")
        w = "utilisation_window"
        assert c["utilisation_4flows_change"] == pytest.approx(
            abs(v[f"{cc}-dcr/congestion/q0"][w] - v[f"{cc}/congestion/q0"][w]) / v[f"{cc}/congestion/q0"][w])
        assert c["jain_4flows_change"] == pytest.approx(
            abs(v[f"{cc}-dcr/congestion/q0"]["jain_window"] - v[f"{cc}/congestion/q0"]["jain_window"])
            / v[f"{cc}/congestion/q0"]["jain_window"])
        assert c["holds"] == (c["max_change"] < 0.05)


def test_without_reordering_dcr_keeps_fairness(small):
    # our specification's must-hold: judged on the congestion-only part over the window.
    # It failed at this scale (LTCP 0.918 -> 0.857, two timeouts with DCR in one seed's
    # 10 s run) until data SACKed above a hole stopped counting against the window during
    # tau (recovery/dcr.rs); it was a strict xfail until then
    v = small["variants"]
    for cc in PROTOS:
        a, b = v[f"{cc}/congestion/q0"]["jain_window"], v[f"{cc}-dcr/congestion/q0"]["jain_window"]
        assert abs(b - a) / a < 0.05, (cc, a, b)


def test_multihop_r3_links_collapse_without_dcr_and_recover_with_it(small_mh):
    v = small_mh["variants"]
    for cc in PROTOS:
        for link in ("r3-r2", "r3-r4"):
            plain, with_dcr = v[cc][f"utilisation_{link}"], v[f"{cc}-dcr"][f"utilisation_{link}"]
            assert plain < 0.3, (cc, link, plain)  # the slides: 5-13 %
            assert with_dcr > 0.7 and with_dcr > 3 * plain, (cc, link, plain, with_dcr)
        for link in ("r1-r2", "r5-r4"):  # flows there are not reordered: full either way
            assert v[cc][f"utilisation_{link}"] > 0.85 and v[f"{cc}-dcr"][f"utilisation_{link}"] > 0.85
        c = claim(small_mh, cc, "collapses")
        assert c["holds"] is True
        assert c["reordered_links_max"] == max(v[cc]["utilisation_r3-r2_window"], v[cc]["utilisation_r3-r4_window"])


# ---- the summary's shape and the metrics' definitions ----------------------------------

def test_claims_are_the_records(small, small_mh):
    assert_claims_declared(small)
    assert_claims_declared(small_mh)


def test_dcr_summary_shape(small):
    s = small
    assert s["experiment"] == "dcr" and s["seeds"] == 2
    names = set()
    for cc in PROTOS:
        for r in ("", "-dcr", "-ncr"):
            names |= {f"{cc}{r}/reorder/q0", f"{cc}{r}/reorder/q0.01", f"{cc}{r}/congestion/q0",
                      f"{cc}{r}/both/q0", f"{cc}{r}/both/q0.01"}
    names |= {"ltcp/both/q0.01/newreno", "ltcp-dcr/both/q0.01/newreno"}  # one point, the first protocol
    assert set(s["variants"]) == names
    for v, ms in s["variants"].items():
        for m in ("utilisation", "drop_rate", "jain", "goodput_bps", "retransmits", "timeouts",
                  "utilisation_window", "drop_rate_window", "jain_window"):
            xs = ms[f"{m}_per_seed"]
            assert len(xs) == 2, (v, m)
            # 2 seeds: the mean and the min-max of the two values (no t interval below 3 seeds)
            assert ms[m] == pytest.approx((xs[0] + xs[1]) / 2) and ms[f"{m}_ci95"] == [min(xs), max(xs)], (v, m)
        assert 0.0 <= ms["utilisation"] <= 1.0 and 0.0 <= ms["drop_rate"] <= 1.0
    for p in s["params"].values():
        assert set(p) == {"value", "source"} and p["source"]
    assert "10" in s["params"]["seeds"]["source"]  # says SCENARIOS.md's 10 seeds were reduced
    assert s["params"]["buffer_pkts"]["value"] == 417  # BDP of 100 Mbps x 50 ms in 1500 B packets
    assert s["paper"] == {} and "without numbers" in s["paper_note"]
    assert s["paper_draft_8mbps"]["dcr_mbps"][0] == 7.352
    for c in s["claims"]:
        assert isinstance(c["holds"], bool) and isinstance(c["must_hold"], bool) and c["claim"]
    must = [c for c in s["claims"] if c["must_hold"]]
    assert len(must) == 2 * len(PROTOS) * 2 + len(PROTOS)  # collapse and DCR floor per part, no-change
    # the NewReno-recovery point, beside SACK's
    rows = {r["protocol"]: r for r in s["newreno_recovery"]}
    assert set(rows) == {"ltcp", "ltcp-dcr"}
    assert rows["ltcp-dcr"]["utilisation_newreno"] == s["variants"]["ltcp-dcr/both/q0.01/newreno"]["utilisation"]
    assert rows["ltcp-dcr"]["utilisation_sack"] == s["variants"]["ltcp-dcr/both/q0.01"]["utilisation"]


def test_dcr_metrics_by_definition(small):
    v = small["variants"]
    for name, runs in small["per_run"].items():
        for i, r in enumerate(runs):
            assert r["conservation"] == "ok", name
            rate = r["drops"] / r["arrivals"] if r["arrivals"] else 0.0
            assert v[name]["drop_rate_per_seed"][i] == pytest.approx(rate), name
    # the q = 0 point of `both` is the `congestion` run itself
    for cc in PROTOS:
        for r in ("", "-dcr", "-ncr"):
            assert v[f"{cc}{r}/both/q0"] == v[f"{cc}{r}/congestion/q0"]
    # one flow: Jain's index is 1
    assert all(x == 1.0 for k, ms in v.items() if "/reorder/" in k for x in ms["jain_per_seed"] + ms["jain_window_per_seed"])
    # the window, from bytes delivered: a link kept full throughout reads the same as its
    # busy time over the run; a collapsed flow leaves it nearly idle in both
    for cc in PROTOS:
        for name in (f"{cc}/congestion/q0", f"{cc}-dcr/congestion/q0", f"{cc}/reorder/q0.01"):
            assert v[name]["utilisation_window"] == pytest.approx(v[name]["utilisation"], abs=0.05), name
    for ms in v.values():
        assert all(0.0 <= x <= 1.0 for x in ms["utilisation_window_per_seed"] + ms["drop_rate_window_per_seed"])
    assert jain([3.0, 1.0]) == pytest.approx(16 / (2 * 10)) and jain([2.0, 2.0, 2.0]) == 1.0
    assert math.isnan(jain([0.0, 0.0]))


def test_dcr_scenario_at_full_scale():
    sc = dcr.scenario("highspeed", "-dcr", 4, 0.05)
    topo = sc["topology"]
    assert topo["bottleneck"]["rate"] == "1000000000bps" and sc["duration"] == "100s"
    assert topo["bottleneck"]["queue"] == {"kind": "droptail", "limit": 4167}  # 1 Gbps x 50 ms / 1500 B
    one_way_ms = 2 * float(topo["access"]["delay"][:-2]) + float(topo["bottleneck"]["delay"][:-2])
    assert 2 * one_way_ms == 50.0
    assert sc["tcp"] == {"host": "linux", "cc": "highspeed", "recovery": "sack", "reordering": "dcr"}
    assert sc["reorder"] == [{"links": ["R1->R2"], "q": 0.05, "delay_mean": "25ms", "delay_sd": "8ms"}]
    assert "reorder" not in dcr.scenario("bic", "", 1, 0.0)
    assert dcr.scenario("htcp", "-ncr", 1, 0.1, recovery="newreno")["tcp"]["reordering"] == "ncr"
    assert dcr_multihop.buffer_pkts() == 10000  # 1 Gbps x 120 ms (R1 -> R5) / 1500 B
    # every protocol's full-scale scenarios are valid for the simulator (built, not run)
    for cc in dcr.PROTOCOLS:
        for r in ("", "-dcr", "-ncr"):
            for sc in (dcr.scenario(cc, r, 4, 0.01), dcr_multihop.scenario(cc, r)):
                try:
                    _core.Simulation(*api.load_scenario(sc), 1)
                except _core.ScenarioError as e:
                    if "unknown congestion control" in str(e):
                        pytest.skip(f"{cc} is not in this build yet: {e}")
                    raise


def test_same_seed_same_numbers():
    runs, _ = dcr.plan(("ltcp",), (0.0, 0.01))
    a = dcr.run_point("ltcp-dcr/both/q0.01", 3, runs, rate_bps=50e6, duration_s=3.0)
    b = dcr.run_point("ltcp-dcr/both/q0.01", 3, runs, rate_bps=50e6, duration_s=3.0)
    c = dcr.run_point("ltcp-dcr/both/q0.01", 4, runs, rate_bps=50e6, duration_s=3.0)
    assert a == b and a != c


def test_multihop_summary_shape_and_paper(small_mh):
    s = small_mh
    assert s["experiment"] == "dcr-multihop"
    names = {f"{cc}{r}" for cc in PROTOS for r in ("", "-dcr", "-ncr")} | {"ltcp/newreno", "ltcp-dcr/newreno"}
    assert set(s["variants"]) == names
    links = ("r1-r2", "r3-r2", "r3-r4", "r5-r4")
    paths = ("r1-r5", "r1-r2", "r3-r2", "r3-r4", "r5-r4", "r5-r1")
    metrics = ([f"utilisation_{x}" for x in links] + [f"drop_rate_{x}" for x in links]
               + [f"jain_{p}" for p in paths] + [f"goodput_{p}_bps" for p in paths]
               + [f"utilisation_{x}_window" for x in links] + [f"drop_rate_{x}_window" for x in links]
               + [f"jain_{p}_window" for p in paths])
    for v, ms in s["variants"].items():
        for m in metrics:
            assert f"{m}_ci95" in ms and len(ms[f"{m}_per_seed"]) == 1, (v, m)
    # the slides' table under our names (utilisation as a fraction)
    assert set(s["paper"]) == {"ltcp", "ltcp-dcr", "highspeed", "highspeed-dcr"}
    assert s["paper"]["ltcp"]["utilisation_r3-r2"] == pytest.approx(0.1329)
    assert s["paper"]["highspeed-dcr"]["utilisation_r3-r2"] == pytest.approx(0.9624)
    assert s["paper"]["ltcp-dcr"]["drop_rate_r1-r2"] == pytest.approx(2.57e-3)
    assert s["paper"]["highspeed"]["jain_r5-r4"] == pytest.approx(0.977)
    row = next(r for r in s["table"] if r["link"] == "R3->R2" and r["protocol"] == "ltcp")
    assert row["paper_pct"] == pytest.approx(13.29) and row["paper-dcr_pct"] == pytest.approx(96.65)
    assert row["ours-dcr_pct"] == pytest.approx(100 * s["variants"]["ltcp-dcr"]["utilisation_r3-r2_window"])
    assert row["whole-dcr_pct"] == pytest.approx(100 * s["variants"]["ltcp-dcr"]["utilisation_r3-r2"])
    jrow = next(r for r in s["jain_table"] if r["path"] == "R1->R5" and r["protocol"] == "ltcp")
    assert jrow["paper"] == pytest.approx(0.983) and jrow["paper-dcr"] == pytest.approx(0.936)
    assert jrow["paper_change"] == pytest.approx((0.983 - 0.936) / 0.983)
    assert all(isinstance(c["holds"], bool) for c in s["claims"])
    assert s["params"]["host_links"]["source"].startswith("ours")
    for runs in s["per_run"].values():
        assert all(r["conservation"] == "ok" for r in runs)


# ---- bad input -------------------------------------------------------------------------

def test_bad_input_in_python():
    with pytest.raises(DcrInputError, match=r"protocols: unknown protocol 'cubicx'; allowed: ltcp, highspeed, bic, htcp"):
        dcr.run(protocols="ltcp,cubicx")
    for bad in ([-0.1], [float("nan")], ["x"], [1.5]):
        with pytest.raises(DcrInputError, match=r"^q: "):
            dcr.run(qs=bad)
    with pytest.raises(DcrInputError, match=r"^rate_bps: must be > 0"):
        dcr.run(rate_bps=-1.0)
    with pytest.raises(DcrInputError, match=r"^q: dcr-multihop takes one"):
        dcr_multihop.run(qs=[0.01, 0.02])
    with pytest.raises(DcrInputError, match=r"^host_delay_ms: must be > 0"):
        dcr_multihop.run(host_delay_ms=float("nan"))


@pytest.mark.parametrize("args,needle", [
    (["dcr", "--protocols", "ltcp,cubicx"], "protocols: unknown protocol 'cubicx'; allowed: ltcp, highspeed, bic, htcp"),
    (["dcr", "--q=-0.1"], "q: must be a probability in [0, 1]"),
    (["dcr", "--q", "nan"], "q: must be a probability in [0, 1]"),
    (["dcr-multihop", "--protocols", "reno"], "protocols: unknown protocol 'reno'"),
    (["incast", "--protocols", "ltcp"], "--protocols applies to dcr and dcr-multihop only"),
])
def test_bad_input_on_the_command_line(args, needle):
    r = subprocess.run([EXE, "reproduce", *args, "--json"], capture_output=True, text=True, check=False)
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr


def test_registered():
    assert EXPERIMENTS["dcr"] is dcr.EXPERIMENT and EXPERIMENTS["dcr-multihop"] is dcr_multihop.EXPERIMENT
    assert dcr.PROTOCOLS == ("ltcp", "highspeed", "bic", "htcp")
    assert dcr.QS == (0.0, 0.001, 0.01, 0.05, 0.1)


# ---- the report ------------------------------------------------------------------------

DCR_FIGURES = ["dcr_utilisation_vs_q", "dcr_drop_rate_vs_q", "dcr_jain_vs_q", "dcr_congestion_only",
               "dcr_cwnd_series", "dcr_newreno_recovery"]
MH_FIGURES = ["dcr_multihop_utilisation", "dcr_multihop_drop_rate", "dcr_multihop_jain"]


@pytest.mark.parametrize("which", ["dcr", "dcr-multihop"])
def test_report_folder_has_its_figures(which, small, small_mh, tmp_path):
    s = small if which == "dcr" else small_mh
    expected = DCR_FIGURES if which == "dcr" else MH_FIGURES
    (tmp_path / "summary.json").write_text(json.dumps(s, indent=2, sort_keys=True) + "\n")
    reports.report(tmp_path)
    md = (tmp_path / "report.md").read_text()
    page = (tmp_path / "report.html").read_text()
    for n in expected:
        assert (tmp_path / "figures" / f"{n}.png").stat().st_size > 5000, n
        assert (tmp_path / "figures" / f"{n}.svg").exists(), n
        assert f"](figures/{n}.png)" in md and f'href="figures/{n}.svg"' in page, n
    # many variants: no bar chart per generic metric
    assert not list((tmp_path / "figures").glob("metric_*.png"))
    assert "Claims" in md and "numbers it was judged on" in md
    if which == "dcr-multihop":
        assert "13.29" in md  # the slides' table beside ours


def test_figures_plot_the_summary(small, small_mh):
    figs = {f.name: f for f in figure_kit.build(small)}
    assert sorted(figs) == sorted(DCR_FIGURES)
    u = figs["dcr_utilisation_vs_q"].data
    for cc in PROTOS:
        for r in ("", "-dcr", "-ncr"):
            for part in ("reorder", "both"):
                d = u[f"{cc}{r}/{part}"]
                assert d["q"] == [0.0, 0.01]
                assert d["y"] == [small["variants"][f"{cc}{r}/{part}/q{q:g}"]["utilisation_window"] for q in d["q"]]
    assert u["draft_dcr_mbps"]["y"] == pytest.approx([7.352 / 8, 7.339 / 8])  # q = 0, 0.01 of the draft table
    cw = figs["dcr_cwnd_series"].data
    for v, x in small["series"].items():
        assert cw[f"{v}#0"]["cwnd_pkts"] == pytest.approx(x["cwnd_pkts"]["0"]), v
    assert set(small["series"]) == {f"{cc}{r}/reorder/q0.01" for cc in PROTOS for r in ("", "-dcr", "-ncr")}
    m = {f.name: f for f in figure_kit.build(small_mh)}
    d = m["dcr_multihop_utilisation"].data["utilisation_r3-r2-dcr"]
    assert d["ours"]["ltcp"] == small_mh["variants"]["ltcp-dcr"]["utilisation_r3-r2_window"]
    assert d["paper"]["ltcp"] == pytest.approx(0.9665)
    for f in list(figs.values()) + list(m.values()):
        figure_kit.plt.close(f.fig)


def test_the_newreno_point_brings_its_sack_counterpart_when_q_leaves_it_out():
    """The NewReno-recovery table compares one point, both/q0.01, under NewReno and SACK
    recovery: a --q grid without 0.01 (`--q 0.1`) must still run that point with SACK, or the
    table has nothing to compare with (it ended in a KeyError); a grid with it adds nothing."""
    part, q = dcr.NEWRENO_POINT
    runs, _ = dcr.plan(("ltcp",), (0.0, 0.1))
    for s in ("", "-dcr"):
        assert runs[dcr.variant_name(f"ltcp{s}", part, q)][-1] == "sack"
        assert runs[dcr.variant_name(f"ltcp{s}", part, q, newreno=True)][-1] == "newreno"
    with_it, _ = dcr.plan(("ltcp",), (0.0, q, 0.1))
    # 3 responses x (reorder at 3 q + congestion + both at 2 q > 0) + 2 NewReno runs
    assert len(with_it) == 3 * (3 + 1 + 2) + 2
    assert len(runs) == 3 * (2 + 1 + 1) + 2 + 2
