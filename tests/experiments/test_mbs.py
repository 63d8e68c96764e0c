"""`superpacket reproduce mbs` and `lion` (seeds/002, SCENARIOS.md "Packet drop avoidance,
MBS pacing"). What is checked:

- the MBS fluid model of ALGORITHMS.md section 13 against its worked examples and, by
  hand, against our router (1 MB = 666 packets, 1 Gbps, cross traffic X: 666 / (X / R));
- the scenarios the experiments generate: topology, queues in bytes, cross traffic, the
  send gates, the run lengths, the contest's RTT and the PDA sender's window;
- the claims' logic on hand-made summaries (holds and fails on each side of the line);
- bad input: one line naming the field (module and command line);
- at small scale, real runs: the claims' directions, the probe against the model, the
  summary's shape (DESIGN.md), the report's figures drawn from the summary.
"""

import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from record_check import assert_claims_declared
from superpacket import reports
from superpacket.experiments import EXPERIMENTS, lion, mbs
from superpacket.experiments.pda_common import PdaInputError, mbs_fluid_pkts, rel_err
from superpacket.reports import figure_kit

EXE = str(Path(sys.executable).parent / "superpacket")


# ---- the fluid model -----------------------------------------------------------------------

def test_fluid_model_worked_examples():
    # ALGORITHMS.md section 13: Q = 100 packets, C = 1 Gb/s, R = 10 Gb/s
    q = 100 * 1500
    assert mbs_fluid_pkts(q, 1e9, 0.0, 10e9) == 111  # A/R = 0.1: 100 / 0.9 = 111.1
    assert mbs_fluid_pkts(q, 1e9, 500e6, 10e9) == 105  # A/R = 0.05: 100 / 0.95 = 105.3
    assert mbs_fluid_pkts(q, 1e9, 0.0, 1e9) == math.inf  # R = A: unbounded
    assert mbs_fluid_pkts(q, 1e9, 400e6, 500e6) == math.inf  # R < A


def test_fluid_model_of_our_router():
    # 1,000,000 B holds 666 full packets; R = C = 1 Gbps, so 1 - A/R = X / R
    assert mbs.model_mbs(200e6) == 3330  # 666 / 0.2
    assert mbs.model_mbs(400e6) == 1665  # 666 / 0.4
    assert mbs.model_mbs(600e6) == 1110  # 666 / 0.6
    # on-off: 1 Gbps and 622 Mbps, each on 2 ms of every 10 ms: mean 0.2 x 1622 = 324.4 Mbps
    assert mbs.mean_cross_bps() == pytest.approx(324.4e6)
    assert mbs.model_mbs(mbs.mean_cross_bps()) == math.floor(666 / 0.3244)  # 2053
    assert rel_err(1800.0, 2000.0) == pytest.approx(0.1)
    assert math.isnan(rel_err(math.inf, 2000.0)) and math.isnan(rel_err(5.0, 0.0))


# ---- the scenarios -------------------------------------------------------------------------

def test_mbs_topology_and_cross_traffic():
    sc = mbs.transfer_scenario("paced", 32)
    links = {(lk["a"], lk["b"]): lk for lk in sc["topology"]["links"]}
    assert sc["topology"]["kind"] == "graph" and set(sc["topology"]["nodes"]) == {"S", "X1", "X2", "R", "D"}
    assert links[("R", "D")]["queue"] == {"kind": "droptail", "limit": 1_000_000, "unit": "bytes"}
    assert links[("R", "D")]["rate"] == links[("S", "R")]["rate"] == links[("X1", "R")]["rate"] == "1000000000bps"
    assert links[("X2", "R")]["rate"] == "622000000bps"
    assert all(lk["delay"] == "1ms" for lk in links.values())
    cross = [t for t in sc["traffic"] if t["kind"] == "onoff"]
    assert [(t["from"], t["rate"]) for t in cross] == [("X1", "1000000000bps"), ("X2", "622000000bps")]
    assert all(t["on_time"] == "2ms" and t["off_time"] == "8ms" and t["distribution"] == "exponential"
               and t["to"] == "D" for t in cross)
    assert sc["tcp"] == {"host": "ns2", "recovery": "sack"}


def test_mbs_schemes_move_the_same_bytes():
    w = mbs.transfer_scenario("window", 256)["traffic"][0]
    p = mbs.transfer_scenario("paced", 256)["traffic"][0]
    assert w["size_pkts"] == p["size_pkts"] == mbs.TRANSFER_PKTS
    assert w["tcp"] == {"cc": {"kind": "fixed", "window": 256}, "init_cwnd": 256}
    assert p["tcp"]["gate"] == {"kind": "bursts", "burst_pkts": 256, "rate": "400000000bps"}
    assert p["tcp"]["cc"] == {"kind": "fixed", "window": mbs.TRANSFER_PKTS}  # never the limit
    with pytest.raises(PdaInputError, match=r"^scheme: unknown 'reno'"):
        mbs.transfer_scenario("reno", 8)


def test_mbs_run_lengths():
    # paced: 20,000 x 12,000 bit at 400 Mbps = 0.6 s; twice that, plus start and 1 s
    assert mbs.transfer_duration_s("paced", 32, 20_000) == pytest.approx(0.1 + 1.2 + 1.0)
    # window of 64 over a 4 ms round trip: 64 x 12,000 / 0.004 = 192 Mbps
    assert mbs.expected_rate_bps("window", 64) == pytest.approx(192e6)
    assert mbs.transfer_duration_s("window", 64, 20_000) == pytest.approx(0.1 + 2.0 * 1.25 + 1.0)
    # a window above the pipe sends at line rate
    assert mbs.expected_rate_bps("window", 4096) == 1e9


def test_mbs_probe_scenarios():
    sc = mbs.probe_scenario("onoff")
    probe = sc["traffic"][0]
    assert probe == {"kind": "mbs_probe", "from": "S", "to": "D", "start": "0.1s", "packet_bytes": 1500,
                     "trials": 3, "max_train": 4096, "fac_train": 100}
    assert [t["kind"] for t in sc["traffic"][1:]] == ["onoff", "onoff"]
    c = mbs.probe_scenario(400e6)["traffic"][1:]
    assert c == [{"kind": "cbr", "from": "X1", "to": "D", "rate": "400000000bps", "packet_bytes": 1500}]
    assert mbs.cbr_name(400e6) == "probe/cbr-400Mbps"


def test_lion_scenario():
    sc = lion.scenario("cubic")
    topo = sc["topology"]
    assert topo["kind"] == "dumbbell" and topo["pairs"] == 2 and sc["duration"] == "5s"
    one_way_ms = 2 * float(topo["access"]["delay"][:-2]) + float(topo["bottleneck"]["delay"][:-2])
    assert 2 * one_way_ms == 80.0
    assert topo["access"]["rate"] == topo["bottleneck"]["rate"] == "1000000000bps"
    assert topo["bottleneck"]["queue"] == {"kind": "droptail", "limit": 1_000_000, "unit": "bytes"}
    window, paced = sc["traffic"]
    assert (window["from"], window["to"], window["tcp"]) == ("s0", "d0", {"cc": "cubic"})
    assert lion.bdp_pkts() == 6667  # 1 Gbps x 80 ms / 12,000 bit, rounded up
    assert paced["from"] == "s1" and paced["tcp"] == {"cc": {"kind": "fixed", "window": 13334},
                                                      "init_cwnd": 13334, "gate": {"kind": "pda"}}
    assert window["start_jitter"] == paced["start_jitter"] == "0.01s"
    assert sc["tcp"] == {"host": "ns2", "recovery": "sack"} and sc["output"] == {"sample_flows": "0.01s"}
    assert lion.scenario("newreno", recovery="newreno")["tcp"] == {"host": "ns2", "recovery": "newreno"}
    with pytest.raises(PdaInputError, match=r"^cc: unknown 'bic'"):
        lion.scenario("bic")


# ---- the claims' logic on hand-made summaries ---------------------------------------------

def _v(**kw: float) -> dict:
    return dict(kw)


def test_mbs_claims_logic():
    probe = {mbs.cbr_name(r): _v(mbs_measured_pkts=m, mbs_model_pkts=mbs.model_mbs(r),
                                 mbs_error=rel_err(m, mbs.model_mbs(r)), abw_bps=a, abw_model_bps=1e9 - r,
                                 abw_error=rel_err(a, 1e9 - r))
             for r, m, a in ((200e6, 3100.0, 790e6), (400e6, 1665.0, 650e6), (600e6, 1000.0, 400e6))}
    variants = {"paced-small": _v(drops=3.0, drops_bottleneck=10.0),
                "paced-large": _v(drops=3.0, drops_bottleneck=50.0),
                "window": _v(drops=900.0, drops_bottleneck=2000.0), **probe}
    cs = mbs.claims(variants, mbs.CBR_RATES)
    assert len(cs) == 2 + 3 + 3 and all(c["must_hold"] for c in cs)
    assert [c["holds"] for c in cs[:2]] == [True, True]  # equal drops: "no more than" holds
    mbs_claims = [c for c in cs if "measured MBS" in c["claim"]]
    # 3100 vs 3330 is 6.9 % off; 1000 vs 1110 is 9.9 %
    assert [c["holds"] for c in mbs_claims] == [True, True, True]
    abw = [c for c in cs if "available-bandwidth" in c["claim"]]
    # 650 vs 600 Mbps is 8.3 % off
    assert [c["holds"] for c in abw] == [True, True, True]
    assert abw[1]["error"] == pytest.approx(50 / 600)
    assert all(c["variant"] and isinstance(c["holds"], bool) for c in cs)
    variants["paced-small"]["drops"] = 4.0
    variants[mbs.cbr_name(600e6)].update(mbs_measured_pkts=990.0, mbs_error=rel_err(990.0, 1110.0))
    variants[mbs.cbr_name(200e6)].update(abw_bps=900e6, abw_error=rel_err(900e6, 800e6))
    cs = mbs.claims(variants, mbs.CBR_RATES)
    assert [c["holds"] for c in cs] == [False, True, True, True, False, False, True, True]
    # an unbounded or missing measurement never holds
    variants[mbs.cbr_name(400e6)].update(mbs_measured_pkts=math.inf, mbs_error=math.nan)
    assert mbs.claims(variants, mbs.CBR_RATES)[3]["holds"] is False


def test_lion_claims_logic():
    def v(tp: float, losses: float) -> dict:
        return {"throughput_bps": tp, "losses": losses}

    variants = {"paced": v(400e6, 10.0), "newreno": v(300e6, 500.0),
                "paced-vs-cubic": v(300e6, 0.0), "cubic": v(300e6, 1.0)}
    cs = lion.claims(variants)
    assert [c["holds"] for c in cs] == [True, True]  # equal throughput is "at least"
    assert "(5 s contest," in cs[0]["claim"]  # the text says how long the contests ran
    assert "(2 s contest," in lion.claims(variants, 2.0)[1]["claim"]
    assert cs[0]["ratio"] == pytest.approx(4 / 3)
    variants["cubic"]["losses"] = 0.0  # equal losses are not "fewer"
    variants["paced"]["throughput_bps"] = 299e6
    cs = lion.claims(variants)
    assert [(c["fewer_losses"], c["throughput_at_least"], c["holds"]) for c in cs] == [
        (True, False, False), (False, True, False)]


# ---- bad input -----------------------------------------------------------------------------

@pytest.mark.parametrize("kw,needle", [
    ({"bursts": [0, 8]}, "bursts: must be an integer in 1..1000000 (got 0)"),
    ({"bursts": "8,x"}, "bursts: not a number: 'x'"),
    ({"bursts": [1.5]}, "bursts: must be an integer"),
    ({"cbr_rates": [2e9]}, "cbr_rates: a cross-traffic rate must be below the bottleneck's"),
    ({"cbr_rates": [float("nan")]}, "cbr_rates: must be a finite number > 0"),
    ({"transfer_pkts": 0}, "transfer_pkts: must be an integer in 1..10000000 (got 0)"),
    ({"small_burst": 64, "large_burst": 32}, "small_burst: must be below large_burst"),
    ({"seeds": 0}, "seeds: must be an integer in 1..1000 (got 0)"),
])
def test_mbs_bad_input(kw, needle):
    with pytest.raises(PdaInputError) as e:
        mbs.run(**kw)
    assert needle in str(e.value) and "\n" not in str(e.value)


def test_lion_bad_input():
    for bad in (-1.0, float("nan"), "x", float("inf")):
        with pytest.raises(PdaInputError, match=r"^duration_s: "):
            lion.run(duration_s=bad)
    with pytest.raises(PdaInputError, match=r"^seeds: "):
        lion.run(seeds=-2)


@pytest.mark.parametrize("args,needle", [
    (["mbs", "--protocols", "ltcp"], "--protocols applies to dcr and dcr-multihop only"),
    (["lion", "--q", "0.1"], "--q applies to dcr and dcr-multihop only"),
    (["lion", "--seeds", "0"], "--seeds 0: no seeds (N means seeds 1..N, N >= 1"),  # sweep --seeds syntax
])
def test_bad_input_on_the_command_line(args, needle):
    r = subprocess.run([EXE, "reproduce", *args, "--json"], capture_output=True, text=True, check=False)
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr


def test_registered():
    assert EXPERIMENTS["mbs"] is mbs.EXPERIMENT and EXPERIMENTS["lion"] is lion.EXPERIMENT
    r = subprocess.run([EXE, "list"], capture_output=True, text=True, check=False)
    assert r.returncode == 0 and "  mbs  " in r.stdout and "  lion  " in r.stdout
    # the non-TCP traffic kinds and the send gates are listed from the registries
    for kind in ("cbr", "onoff", "mbs_probe", "bursts", "pda", "burstiness"):
        assert f"\n  {kind} " in r.stdout, kind
    assert mbs.VARIANTS[:5] == ["window", "paced-large", "paced-small", "window/newreno-recovery",
                               "paced-large/newreno-recovery"]
    assert lion.VARIANTS[:4] == ["paced", "newreno", "paced-vs-cubic", "cubic"]
    assert lion.PAPER == {"paced": {"throughput_bps": 327e6}, "newreno": {"throughput_bps": 175e6}}



# ---- real runs at a small scale --------------------------------------------------------------
# mbs: the quick sweep (32, 256, 2048 packets) over 3 seeds, full-size transfers (~2 s);
# lion: the 5 s contests over 2 seeds (~1 s).

@pytest.fixture(scope="module")
def small_mbs() -> dict:
    s = mbs.run(seeds=3, quick=True, progress=False)
    return json.loads(json.dumps(s))  # as summary.json holds it


@pytest.fixture(scope="module")
def small_lion() -> dict:
    s = lion.run(seeds=2, progress=False)
    return json.loads(json.dumps(s))


def test_claims_are_the_records_and_quick_its_scale(small_mbs, small_lion):
    assert_claims_declared(small_mbs)
    assert_claims_declared(small_lion)
    # --quick: the record's sweep, with the paced-small / paced-large points added
    bursts = {int(v.split("/b")[1]) for v in small_mbs["variants"] if v.startswith("paced/b")}
    assert bursts == {*mbs.EXPERIMENT.quick.values["bursts"], mbs.SMALL_BURST, mbs.LARGE_BURST}


def test_mbs_claims_hold_at_small_scale(small_mbs):
    v = small_mbs["variants"]
    for c in small_mbs["claims"]:
        assert c["must_hold"] and c["holds"], c
    # the direction, not just the inequality: large paced bursts do drop, small ones drop
    # less, window bursts of the same large size (ACK-clocked at line rate) drop more
    assert v["paced-large"]["drops"] > 10 * max(1.0, v["paced-small"]["drops"])
    assert v["window"]["drops"] > v["paced-large"]["drops"]
    assert v["paced-small"]["drops"] == v["paced/b32"]["drops"]  # the alias


def test_mbs_probe_against_the_model(small_mbs):
    v = small_mbs["variants"]
    for r in mbs.CBR_RATES:
        p = v[mbs.cbr_name(r)]
        # the simulator's model is ours (computed here from the experiment's constants)
        assert p["mbs_model_pkts"] == mbs.model_mbs(r)
        assert abs(p["mbs_measured_pkts"] - p["mbs_model_pkts"]) <= 0.1 * p["mbs_model_pkts"], (r, p)
        assert p["abw_model_bps"] == pytest.approx(1e9 - r)
        assert abs(p["abw_bps"] - (1e9 - r)) <= 0.1 * (1e9 - r), (r, p)
        # constant-rate cross traffic: every seed measures the same path
        assert len(set(p["mbs_measured_pkts_per_seed"])) == 1
    on = v["probe/onoff"]
    assert on["mbs_model_pkts"] == mbs.model_mbs(mbs.mean_cross_bps()) == 2053
    assert all(2 <= x <= mbs.PROBE_MAX_TRAIN for x in on["mbs_measured_pkts_per_seed"])
    # every transfer carries the MBS measured on its path with the same seed
    for name in ("window", "paced/b256", "paced-large/newreno-recovery"):
        assert v[name]["mbs_measured_pkts_per_seed"] == on["mbs_measured_pkts_per_seed"]
        assert v[name]["mbs_model_pkts"] == 2053
    rows = {r["variant"]: r for r in small_mbs["probe_table"]}
    assert rows["probe/cbr-400Mbps"]["abw_model_mbps"] == pytest.approx(600.0)


def test_mbs_rates_by_theory(small_mbs):
    v = small_mbs["variants"]
    goodput = 1460 / 1500  # payload share of a full packet
    # paced: a burst every N x 12,000 bit / 400 Mbps, so the average is 400 Mbps whatever
    # N (small bursts: no loss, nothing resent)
    for b in (32, 256):
        assert v[f"paced/b{b}"]["throughput_bps"] == pytest.approx(400e6 * goodput, rel=0.03), b
    # window-limited below the pipe (333 packets at 1 Gbps x 4 ms): W per round trip of
    # 4 ms propagation plus one packet's serialisation at each of two hops (24 us); cross
    # traffic queueing can only lengthen the round trip
    w = v["window/b32"]["throughput_bps"]
    assert 0.9 * 32 * 12_000 * goodput / 4.024e-3 < w <= 32 * 12_000 * goodput / 4.024e-3


def test_mbs_drops_add_up(small_mbs):
    v = small_mbs["variants"]
    for name, ms in v.items():
        if name.startswith("probe/"):
            continue
        # host queues never drop: every drop is at R->D, the sender's or the cross traffic's
        for d, c, t in zip(ms["drops_per_seed"], ms["drops_cross_per_seed"], ms["drops_bottleneck_per_seed"],
                           strict=True):
            assert d + c == t, name
    for runs in small_mbs["per_run"].values():
        for r in runs:
            assert r["conservation"] == "ok"
            assert r.get("completed", True) is True


def test_mbs_summary_shape(small_mbs):
    s = small_mbs
    assert s["experiment"] == "mbs" and s["seeds"] == 3
    sweep = {f"{k}/b{b}" for k in ("window", "paced") for b in (32, 256, 2048)}
    probes = {"probe/onoff"} | {mbs.cbr_name(r) for r in mbs.CBR_RATES}
    heads = {"window", "paced-large", "paced-small", "window/newreno-recovery", "paced-large/newreno-recovery"}
    assert set(s["variants"]) == sweep | probes | heads
    assert s["aliases"]["paced-large"] == "paced/b2048" and s["aliases"]["window"] == "window/b2048"
    assert s["variants"]["window"] == s["variants"]["window/b2048"]
    for name, ms in s["variants"].items():
        keys = mbs.PROBE_KEYS if name.startswith("probe/") else mbs.TRANSFER_KEYS
        assert [k for k in ms if f"{k}_ci95" in ms] == list(keys), name
        for k in keys:
            assert len(ms[f"{k}_per_seed"]) == 3
    for p in s["params"].values():
        assert set(p) == {"value", "source"} and p["source"]
    assert s["params"]["bottleneck"]["source"].startswith("paper")
    assert s["params"]["cross_on_off"]["source"] == "ours"
    assert s["paper"] == {} and "without numbers" in s["paper_note"]
    assert [r["burst_pkts"] for r in s["sweep_table"]] == [32, 256, 2048]
    assert {r["variant"] for r in s["newreno_recovery"]} == {"window", "paced-large"}
    assert set(s["train_series"]) == probes
    t = s["train_series"]["probe/cbr-400Mbps"]
    assert t["n"][:3] == [2, 2, 2] and "fac" in t["phase"]  # 3 trials per size from 2; then FAC


def test_lion_claims_hold_at_small_scale(small_lion):
    v = small_lion["variants"]
    for c in small_lion["claims"]:
        assert c["must_hold"] and c["holds"], c
    for paced, window in (("paced", "newreno"), ("paced-vs-cubic", "cubic")):
        assert v[paced]["losses"] < v[window]["losses"]
        assert v[paced]["throughput_bps"] >= v[window]["throughput_bps"]
    # the two flows share 1 Gbps: together no more than the payload share of it
    for c in ("newreno", "cubic"):
        pair = v["paced" if c == "newreno" else "paced-vs-cubic"]["throughput_bps"] + v[c]["throughput_bps"]
        assert pair <= 1e9 * 1460 / 1500


def test_lion_summary_shape(small_lion):
    s = small_lion
    assert s["experiment"] == "lion" and s["seeds"] == 2
    assert set(s["variants"]) == set(lion.VARIANTS)
    for ms in s["variants"].values():
        assert [k for k in ms if f"{k}_ci95" in ms] == list(lion.METRICS)
    assert s["paper"]["paced"]["throughput_bps"] == 327e6
    rows = {r["flow"]: r for r in s["contest_table"]}
    assert rows["newreno"]["paper_mbps"] == 175.0 and rows["cubic"]["paper_mbps"] is None
    assert rows["paced"]["throughput_mbps"] == pytest.approx(s["variants"]["paced"]["throughput_bps"] / 1e6)
    for contest, runs in s["per_run"].items():
        for r in runs:
            assert r["conservation"] == "ok"
            assert r["paced_cc"] == "fixed"
            assert r["window_cc"] == ("cubic" if contest == "vs-cubic" else "newreno")
    # Fig. 5: bytes received every 10 ms over 5 s, never falling; the last sample gives
    # the throughput of seed 1 (bytes x 8 over the run from a start within 10 ms of 0)
    for v, x in s["series"].items():
        assert len(x["t_s"]) >= 499 and x["t_s"][-1] == pytest.approx(5.0, abs=0.011)
        b = x["bytes_received"]
        assert all(q >= p for p, q in itertools.pairwise(b)), v
        tp = s["variants"][v]["throughput_bps_per_seed"][0]
        assert b[-1] * 8 / 5.0 == pytest.approx(tp, rel=0.01), v


def test_same_seed_same_numbers():
    a = mbs.run_point("paced/b256", 3)
    b = mbs.run_point("paced/b256", 3)
    c = mbs.run_point("paced/b256", 4)
    assert a == b and a != c
    x, y = lion.run_point("vs-cubic", 2), lion.run_point("vs-cubic", 2)
    assert x == y and x != lion.run_point("vs-cubic", 3)


# ---- the reports ------------------------------------------------------------------------------

MBS_FIGURES = ["mbs_drops_vs_burst", "mbs_probe_vs_model", "mbs_probe_trains"]
LION_FIGURES = ["lion_fig5_sequence", "metric_throughput_bps", "metric_losses", "metric_retransmits"]


@pytest.mark.parametrize("which", ["mbs", "lion"])
def test_report_folder_has_its_figures(which, small_mbs, small_lion, tmp_path):
    s = small_mbs if which == "mbs" else small_lion
    (tmp_path / "summary.json").write_text(json.dumps(s, indent=2, sort_keys=True) + "\n")
    reports.report(tmp_path)
    md = (tmp_path / "report.md").read_text()
    page = (tmp_path / "report.html").read_text()
    for n in MBS_FIGURES if which == "mbs" else LION_FIGURES:
        assert (tmp_path / "figures" / f"{n}.png").stat().st_size > 5000, n
        assert (tmp_path / "figures" / f"{n}.svg").exists(), n
        assert f"](figures/{n}.png)" in md and f'href="figures/{n}.svg"' in page, n
    assert "Claims" in md and "numbers it was judged on" in md
    if which == "mbs":
        assert not list((tmp_path / "figures").glob("metric_*.png"))  # GENERIC_BARS = False
        assert "NewReno-recovery" in md and "fluid model" in md
    else:
        assert "327" in md and "175" in md  # the paper's Fig. 5 beside ours


def test_figures_plot_the_summary(small_mbs, small_lion):
    figs = {f.name: f for f in figure_kit.build(small_mbs)}
    assert sorted(figs) == sorted(MBS_FIGURES)
    d = figs["mbs_drops_vs_burst"].data
    v = small_mbs["variants"]
    assert d["drops/paced"] == {"burst_pkts": [32, 256, 2048], "y": [v[f"paced/b{b}"]["drops"] for b in (32, 256, 2048)]}
    assert d["mbs_measured_pkts"] == v["probe/onoff"]["mbs_measured_pkts"] and d["mbs_model_pkts"] == 2053
    p = figs["mbs_probe_vs_model"].data["mbs_measured_pkts"]
    assert p["variants"][0] == "probe/onoff" and p["ours"][1] == v["probe/cbr-200Mbps"]["mbs_measured_pkts"]
    t = figs["mbs_probe_trains"].data["probe/onoff"]
    assert t["n"] == small_mbs["train_series"]["probe/onoff"]["n"]
    lf = {f.name: f for f in figure_kit.build(small_lion)}
    seq = lf["lion_fig5_sequence"].data
    assert seq["paced"]["mbytes"][-1] == pytest.approx(small_lion["series"]["paced"]["bytes_received"][-1] / 1e6)
    for f in list(figs.values()) + list(lf.values()):
        figure_kit.plt.close(f.fig)


def test_command_line_json():
    r = subprocess.run([EXE, "reproduce", "lion", "--seeds", "1", "--json"], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["experiment"] == "lion" and len(d["claims"]) == 2
    r = subprocess.run([EXE, "reproduce", "mbs", "--quick", "--seeds", "1"], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0, r.stderr
    assert "claim: smaller paced bursts" in r.stdout and "probe/cbr-400Mbps" in r.stdout
