"""`superpacket reproduce fast-burstiness` and `datatag` (seeds/003, SCENARIOS.md
"Burstiness control and FAST TCP"). What is checked:

- the scenarios the experiments generate, against SCENARIOS.md's numbers by hand: rates,
  the RTT from the link delays, buffers, txqueuelen, alpha, max cwnd, the 20 % reverse
  load from the on-off periods, the gate, the variants' names;
- the claims' logic on hand-made summaries (holds and fails on each side of the line);
- bad input: one line naming the field (module and command line), exit code 2;
- at small scale, real runs: drops adding up (router + sender + ACK = all of a flow's
  drops; sender drops = the NIC queues' drops), throughput below the bottleneck's payload
  rate, queues within their limits, no host drop where theory rules it out, the
  monitor against the links table and the window prediction by hand, the series against
  the totals, determinism, the report's figures, the command line.
"""

import dataclasses
import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from record_check import assert_claims_declared
from superpacket import api, reports
from superpacket.experiments import EXPERIMENTS, bc_common, datatag, fast_burstiness
from superpacket.experiments.bc_common import BcInputError, parse_variant, variant_name
from superpacket.reports import figure_kit

EXE = str(Path(sys.executable).parent / "superpacket")
PAYLOAD = 1460 / 1500  # a full packet's payload share
FB, DT = fast_burstiness.SETUP, datatag.SETUP
# the real runs need the burstiness gate and the monitor in the built simulator
needs_sim = pytest.mark.skipif(not (bc_common.supports("gate") and bc_common.supports("monitor")),
                               reason="this build of the simulator has no burstiness gate or no monitor")


def _links(sc: dict) -> dict:
    return {(lk["a"], lk["b"]): lk for lk in sc["topology"]["links"]}


def _ms(s: str) -> float:
    assert s.endswith("ms"), s
    return float(s[:-2])


# ---- the scenarios -------------------------------------------------------------------------

def test_fast_burstiness_scenario():
    sc = bc_common.scenario(FB, "fast/txq100")
    links = _links(sc)
    assert sc["duration"] == "300s" and sc["topology"]["kind"] == "graph"
    assert set(sc["topology"]["nodes"]) == {"S0", "R1", "R2", "D0", "X", "Y"}
    # SCENARIOS.md: 622 Mbps, RTT 360 ms (2 x (1 + 178 + 1) ms), buffer 2000, txqueuelen 100
    assert links[("R1", "R2")]["rate"] == "622000000bps"
    one_way = _ms(links[("S0", "R1")]["delay"]) + _ms(links[("R1", "R2")]["delay"]) + _ms(links[("R2", "D0")]["delay"])
    assert 2 * one_way == pytest.approx(360.0)
    assert links[("R1", "R2")]["queue"] == {"kind": "droptail", "limit": 2000}
    assert "reverse_queue" not in links[("R1", "R2")]  # the same 2000 on R2 -> R1
    assert links[("S0", "R1")]["queue"] == {"kind": "droptail", "limit": 100}
    assert links[("S0", "R1")]["rate"] == "1000000000bps"  # GigE host above the bottleneck
    bulk, rev = sc["traffic"]
    assert (bulk["kind"], bulk["from"], bulk["to"]) == ("bulk", "S0", "D0")
    assert sc["tcp"] == {"host": "ns2", "cc": {"kind": "fast", "alpha": 500.0}, "recovery": "sack", "local_drop": "hold",
                         "rto_formula": "linux"}
    # 20 % of the 622 Mbps reverse link on average: on 10 ms at 1 Gbps, off t with
    # 1e9 x 10 / (10 + t) = 124.4e6  =>  t = 10 x (1e9 / 124.4e6 - 1) = 70.386 ms
    assert (rev["kind"], rev["from"], rev["to"], rev["rate"]) == ("onoff", "X", "Y", "1000000000bps")
    assert _ms(rev["on_time"]) == 10.0 and _ms(rev["off_time"]) == pytest.approx(70.386, abs=1e-3)
    assert 1e9 * 10 / (10 + _ms(rev["off_time"])) == pytest.approx(0.2 * 622e6, rel=1e-6)
    # X -> R2 -> R1 -> Y: the reverse traffic shares R2 -> R1 with the ACKs
    assert ("X", "R2") in links and ("R1", "Y") in links
    bc = bc_common.scenario(FB, "fast-bc/txq10000")
    assert bc["tcp"]["gate"] == {"kind": "burstiness", "threshold": 10, "estimator": "delivery"}
    assert _links(bc)[("S0", "R1")]["queue"]["limit"] == 10_000
    quiet = bc_common.scenario(FB, "fast/txq10000/no-reverse")
    assert [t["kind"] for t in quiet["traffic"]] == ["bulk"] and "X" not in quiet["topology"]["nodes"]
    assert bc_common.scenario(FB, "fast/txq100/newreno-recovery")["tcp"]["recovery"] == "newreno"


def test_datatag_scenario():
    sc = bc_common.scenario(DT, "reno-bc/txq100", duration_s=5.0)
    links = _links(sc)
    assert sc["duration"] == "5s"
    assert [t["from"] for t in sc["traffic"] if t["kind"] == "bulk"] == ["S0", "S1"]
    assert links[("R1", "R2")]["rate"] == "1000000000bps"
    # 170 packets of 12,000 bit at 1 Gbps = 2.04 ms (SCENARIOS.md: "170 packets (2 ms)")
    assert links[("R1", "R2")]["queue"]["limit"] == 170 and 170 * 12_000 / 1e9 == pytest.approx(2.04e-3)
    one_way = _ms(links[("S1", "R1")]["delay"]) + _ms(links[("R1", "R2")]["delay"]) + _ms(links[("R2", "D1")]["delay"])
    assert 2 * one_way == pytest.approx(120.0)
    assert sc["tcp"] == {"host": "ns2", "cc": "newreno", "recovery": "sack", "local_drop": "hold", "rto_formula": "linux",
                         "max_cwnd": 4000.0,
                         "gate": {"kind": "burstiness", "threshold": 10, "estimator": "delivery"}}
    assert bc_common.scenario(DT, "fast/txq100")["tcp"]["cc"] == {"kind": "fast", "alpha": 200.0}
    # max cwnd 4000 at RTT 120 ms: 4000 x 12,000 / 0.12 = 400 Mbps a flow (the slides'
    # "383 Mbps per flow" counts payload: 4000 x 1448 B), 800 Mbps for two: below 1 Gbps
    assert 2 * 4000 * 12_000 / 0.120 < 1e9
    rev = sc["traffic"][-1]
    assert rev["rate"] == "2000000000bps" and 2e9 * 1.0 / (1.0 + _ms(rev["off_time"])) == pytest.approx(0.2e9)


def test_variants():
    assert fast_burstiness.VARIANTS == [
        "fast/txq100", "fast-bc/txq100", "fast/txq10000", "fast-bc/txq10000", "fast/txq10000/no-reverse",
        "fast-bc/txq10000/no-reverse", "fast/txq100/newreno-recovery", "fast-bc/txq100/newreno-recovery"]
    assert len(datatag.VARIANTS) == 2 * 2 * 2 + 2 * 2 + 2
    assert {"fast/txq100", "fast-bc/txq100", "reno/txq10000", "reno-bc/txq10000/no-reverse"} <= set(datatag.VARIANTS)
    assert parse_variant("reno-bc/txq10000/no-reverse") == bc_common.Variant("reno", True, 10_000, False, "sack")
    assert variant_name("fast", True, 100, recovery="newreno") == "fast-bc/txq100/newreno-recovery"
    for bad in ("cubic/txq100", "fast/q100", "fast/txq100/x", "fast"):
        with pytest.raises(BcInputError, match=r"^variant: unknown"):
            parse_variant(bad)
    assert EXPERIMENTS["fast-burstiness"] is fast_burstiness.EXPERIMENT and EXPERIMENTS["datatag"] is datatag.EXPERIMENT


# ---- the claims' logic on hand-made summaries ---------------------------------------------

def _summary(setup, over: dict | None = None) -> dict:
    v = {n: {"router_drops": 100.0, "sender_drops": 50.0, "throughput_bps": 300e6, "max_txq_pkts": 10.0,
             "sender_drops_per_seed": [0.0, 0.0], "max_txq_pkts_per_seed": [10.0, 12.0]} for n in setup.variants()}
    for n, ms in (over or {}).items():
        v[n].update(ms)
    return v


def test_claims_logic():
    v = _summary(FB, {"fast-bc/txq100": {"router_drops": 99.0, "throughput_bps": 300e6},
                      "fast-bc/txq10000": {"router_drops": 0.0, "throughput_bps": 299e6}})
    cs = fast_burstiness.claims(v)
    assert len(cs) == 2 + 2 and all(c["must_hold"] for c in cs)
    # fewer router drops at equal throughput holds; fewer at lower throughput does not
    assert [(c["fewer_router_drops"], c["throughput_at_least"], c["holds"]) for c in cs[:2]] == [
        (True, True, True), (True, False, False)]
    assert cs[1]["ratio"] == pytest.approx(299 / 300)
    assert [c["holds"] for c in cs[2:]] == [True, True]  # no sender drop in any seed
    v["fast-bc/txq100"]["router_drops"] = 100.0  # equal drops are not "cuts"
    v["fast/txq10000/no-reverse"]["sender_drops_per_seed"] = [0.0, 1.0]  # one drop in one seed fails
    cs = fast_burstiness.claims(v)
    assert cs[0]["holds"] is False and cs[2]["holds"] is False and cs[2]["sender_drops_max"] == 1.0
    assert len(datatag.claims(_summary(DT))) == 4 + 4  # (fast, reno) x (100, 10000); 4 no-reverse


# ---- bad input -----------------------------------------------------------------------------

@pytest.mark.parametrize("kw,needle", [
    ({"seeds": 0}, "seeds: must be an integer in 1..1000 (got 0)"),
    ({"duration_s": -1.0}, "duration_s: must be a finite number > 0 (got -1.0)"),
    ({"duration_s": float("nan")}, "duration_s: must be a finite number > 0"),
    ({"duration_s": "x"}, "duration_s: not a number: 'x'"),
])
def test_bad_input(kw, needle):
    for mod in (fast_burstiness, datatag):
        with pytest.raises(BcInputError) as e:
            mod.run(**kw)
        assert needle in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("args,needle", [
    (["fast-burstiness", "--duration", "-1"], "--duration must be a finite number of seconds > 0 (got -1)"),
    (["datatag", "--duration", "nan"], "--duration must be a finite number of seconds > 0 (got nan)"),
    (["datatag", "--duration", "inf"], "--duration must be a finite number of seconds > 0 (got inf)"),
    (["lion", "--duration", "3"], "--duration applies to datatag and fast-burstiness only"),
    (["datatag", "--q", "0.1"], "--q applies to dcr and dcr-multihop only"),
    (["fast-burstiness", "--seeds", "0"], "--seeds 0: no seeds (N means seeds 1..N, N >= 1"),  # as sweep --seeds
])
def test_bad_input_on_the_command_line(args, needle):
    r = subprocess.run([EXE, "reproduce", *args, "--json"], capture_output=True, text=True, check=False)
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr


# ---- real runs at a small scale --------------------------------------------------------------
# fast-burstiness: 20 s runs (--quick), 2 seeds; datatag: 10 s runs (--quick), 2 seeds.

@pytest.fixture(scope="module")
def small_fb() -> dict:
    return json.loads(json.dumps(fast_burstiness.run(seeds=2, quick=True, progress=False)))


@pytest.fixture(scope="module")
def small_dt() -> dict:
    return json.loads(json.dumps(datatag.run(seeds=2, quick=True, progress=False)))


@needs_sim
def test_claims_are_the_records_and_quick_its_scale(small_fb, small_dt):
    for s, mod in ((small_fb, fast_burstiness), (small_dt, datatag)):
        assert_claims_declared(s)
        assert s["params"]["duration_s"]["value"] == mod.EXPERIMENT.quick.values["duration_s"]


@needs_sim
@pytest.mark.parametrize("which", ["fb", "dt"])
def test_drops_add_up_and_bounds(which, small_fb, small_dt):
    s, setup = (small_fb, FB) if which == "fb" else (small_dt, DT)
    for v, ms in s["variants"].items():
        txq = parse_variant(v).txq
        for i, r in enumerate(s["per_run"][v]):
            assert r["conservation"] == "ok", v
            router, sender, ack = (ms[f"{k}_per_seed"][i] for k in ("router_drops", "sender_drops", "ack_drops"))
            # every packet of a flow dropped was dropped at a router queue forward, at its
            # own NIC queue, or (an ACK) on the way back; a sender drop is a segment the NIC
            # lost or one it refused and the flow kept (local_drop = "hold": not dropped)
            assert router + r["nic_lost"] + ack == r["pkts_dropped"], v
            assert r["nic_lost"] + r["nic_refusals"] == sender, v
            assert router >= 0 and ack >= 0
            # the NIC queues hold the senders' data only: their drops are the sender drops
            assert sum(r["nic_drops"]) == sender, v
            # R2 -> R1 drops are ACKs or the reverse traffic's packets
            assert r["reverse_link_drops"] == ack + r["reverse_drops"], v
            # the bottleneck carries at most C x 1460/1500 of payload
            assert sum(r["flow_throughput_bps"]) <= setup.bottleneck_bps * PAYLOAD, v
            assert ms["throughput_bps_per_seed"][i] == pytest.approx(sum(r["flow_throughput_bps"]))
            assert ms["max_txq_pkts_per_seed"][i] <= txq and ms["max_queue_pkts_per_seed"][i] <= setup.buffer_pkts
            if not parse_variant(v).reverse:
                assert r["reverse_bps"] == 0 and ack == 0  # nothing to lose ACKs behind
        assert all(cc == ("fast" if v.startswith("fast") else "newreno") for r in s["per_run"][v]
                   for cc in r["flow_cc"])


@needs_sim
def test_no_host_drop_where_theory_rules_it_out(small_fb, small_dt):
    # fast-burstiness, txqueuelen 10,000, no reverse traffic: ACKs come back no closer
    # than the bottleneck's spacing, so the NIC queue grows only by a window's increase
    # (below 10,000 here: max_txq_pkts), and the host drops nothing
    for v in ("fast/txq10000/no-reverse", "fast-bc/txq10000/no-reverse"):
        assert small_fb["variants"][v]["sender_drops_per_seed"] == [0.0, 0.0]
        assert max(small_fb["variants"][v]["max_txq_pkts_per_seed"]) < 10_000
    # datatag: a host's NIC queue holds only its flow's packets in flight, at most max
    # cwnd = 4000 < 10,000: no host drop at txqueuelen 10,000, reverse traffic or not
    for v, ms in small_dt["variants"].items():
        if parse_variant(v).txq == 10_000:
            assert ms["sender_drops_per_seed"] == [0.0, 0.0], v
            assert max(ms["max_txq_pkts_per_seed"]) <= 4000, v
    for c in small_fb["claims"] + small_dt["claims"]:
        if "no reverse traffic" in c["claim"]:
            assert c["holds"], c


# SCENARIOS.md's claim at this scale (20 s / 10 s runs, 2 seeds; the gate of commit
# 61faf06, measure "queue", with the window held while the gate holds packets; hosts
# that keep what their NIC refuses, local_drop = "hold", and Linux's RTO): where it
# fails, the measured figures are the reason (the full-scale figures are in the README).
# A change that makes one hold shows as an unexpected pass.
def _xfail(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


@needs_sim
@pytest.mark.parametrize("which,scheme,txq", [
    pytest.param("fb", "fast", 100, marks=_xfail("nothing to cut: 0 router drops with the gate and 0 without; "
                                                  "without it the flow stays at 22.3 Mb/s (4,267 segments "
                                                  "refused at its NIC, no timeout with Linux's RTO), with it "
                                                  "240.9 Mb/s and no loss")),
    ("fb", "fast", 10_000),
    ("dt", "fast", 100),
    ("dt", "fast", 10_000),
    pytest.param("dt", "reno", 100, marks=_xfail("247 router drops with the gate against 38 without; without it "
                                                  "the flow collapses (25.7 vs 298.9 Mb/s, 3.5 segments refused "
                                                  "at its NIC)")),
    ("dt", "reno", 10_000),
])
def test_bc_claim_at_small_scale(which, scheme, txq, small_fb, small_dt):
    s = small_fb if which == "fb" else small_dt
    bc, base = variant_name(scheme, True, txq), variant_name(scheme, False, txq)
    (c,) = [c for c in s["claims"] if c["variant"] == f"{bc} vs {base}"]
    v = s["variants"]
    # the claim's numbers are the variants' means
    assert (c["router_drops_bc"], c["router_drops_without"]) == (v[bc]["router_drops"], v[base]["router_drops"])
    assert c["holds"] == (v[bc]["router_drops"] < v[base]["router_drops"]
                          and v[bc]["throughput_bps"] >= v[base]["throughput_bps"])
    assert c["holds"], c


@needs_sim
def test_reverse_traffic_load(small_fb):
    # 20 % of 622 Mbps offered (124.4 Mbps); exponential periods over 20 s (about 250
    # on-off cycles of 80 ms): the offered load per run within 25 %
    for r in small_fb["per_run"]["fast/txq10000"]:
        assert r["reverse_sent_bps"] == pytest.approx(0.2 * 622e6, rel=0.25)


@needs_sim
def test_series_against_totals(small_fb, small_dt):
    for s in (small_fb, small_dt):
        dur = s["params"]["duration_s"]["value"]
        b = s["params"]["series_bin_s"]["value"]
        for v, x in s["series"].items():
            t = x["t_s"]
            assert t[0] == 0.0 and t[-1] == pytest.approx(dur) and len(t) == round(dur / b) + 1
            for k in ("router_drops", "sender_drops"):
                assert all(q >= p for p, q in itertools.pairwise(x[k])), (v, k)  # cumulative
            # the last sample holds the run's totals (seed 1); R2 -> D never drops
            assert x["router_drops"][-1] == s["variants"][v]["router_drops_per_seed"][0], v
            assert x["sender_drops"][-1] == s["variants"][v]["sender_drops_per_seed"][0], v
            # the monitor's largest queue within each bin is at least the sample at its end,
            # and its overall largest is the links table's max_pkts of R1 -> R2
            mq = x["max_queue_pkts"]
            assert all(m >= q for m, q in zip(mq[1:], x["queue_pkts"][1:], strict=True)), v
            assert max(m for m in mq if m is not None) == s["variants"][v]["max_queue_pkts_per_seed"][0], v


@needs_sim
def test_monitor_prediction_by_hand():
    # one FAST flow (alpha 500), no reverse traffic, RTT 20 ms so that the window passes
    # the pipe within 3 s: the window prediction is max(0, w - C d / 12,000) with d the
    # propagation round trip plus one data packet's serialisation on each forward link and
    # one ACK's (40 B) on each reverse link (crates/sim/src/monitor.rs)
    short = dataclasses.replace(FB, rtt_ms=20.0)
    sc = bc_common.scenario(short, "fast/txq10000/no-reverse", duration_s=3.0, series=True)
    res = api.run(sc, seed=1, progress=False)
    d = 0.020 + 12_000 / 1e9 + 12_000 / 622e6 + 12_000 / 1e9 + 320 / 1e9 + 320 / 622e6 + 320 / 1e9
    bdp = 622e6 * d / 12_000  # 1,037.3 packets
    m = res.monitor
    assert m.height == 3001  # every 1 ms from 0 to 3 s
    pred = m["predicted_pkts"].to_list()
    for w, p in zip(m["window_pkts"].to_list(), pred, strict=True):
        assert p == pytest.approx(max(0.0, w - bdp), abs=1e-6)
    assert max(pred) > 100  # the prediction's positive side was exercised
    assert m["window_pkts"][-1] == pytest.approx(res.flows["cwnd_pkts"][0])


@needs_sim
def test_same_seed_same_numbers():
    a = bc_common.run_point("fast/txq100", 3, FB, 5.0)
    b = bc_common.run_point("fast/txq100", 3, FB, 5.0)
    c = bc_common.run_point("fast/txq100", 4, FB, 5.0)
    assert a == b and a != c
    x = bc_common.run_point("reno-bc/txq100", 2, DT, 3.0)
    assert x == bc_common.run_point("reno-bc/txq100", 2, DT, 3.0)


@needs_sim
def test_summary_shape(small_fb, small_dt):
    for s, mod in ((small_fb, fast_burstiness), (small_dt, datatag)):
        assert s["experiment"] == mod.SETUP.experiment and s["seeds"] == 2
        assert list(s["variants"]) == mod.VARIANTS
        for ms in s["variants"].values():
            assert [k for k in ms if f"{k}_ci95" in ms] == list(bc_common.METRICS)
            for k in ("router_drops", "sender_drops", "throughput_bps", "max_queue_pkts"):
                assert len(ms[f"{k}_per_seed"]) == 2
        for p in s["params"].values():
            assert set(p) == {"value", "source"} and p["source"]
        assert s["params"]["duration_s"]["source"] == "ours (a shorter run)"
        assert set(s["series"]) == set(mod.VARIANTS) and [r["variant"] for r in s["loss_table"]] == mod.VARIANTS
        assert all(isinstance(c["holds"], bool) and c["must_hold"] for c in s["claims"])
    assert small_fb["paper_router_share"] == pytest.approx(3 / 7)


# ---- the reports ------------------------------------------------------------------------------

@needs_sim
@pytest.mark.parametrize("which", ["fb", "dt"])
def test_report_folder_has_its_figures(which, small_fb, small_dt, tmp_path):
    s = small_fb if which == "fb" else small_dt
    (tmp_path / "summary.json").write_text(json.dumps(s, indent=2, sort_keys=True) + "\n")
    reports.report(tmp_path)
    md = (tmp_path / "report.md").read_text()
    names = [f"{s['experiment']}_{n}" for n in ("queue_over_time", "losses_over_time", "drops_throughput",
                                                "queue_vs_prediction")]
    for n in names:
        assert (tmp_path / "figures" / f"{n}.png").stat().st_size > 5000, n
        assert f"](figures/{n}.png)" in md, n
    assert not list((tmp_path / "figures").glob("metric_*.png"))  # GENERIC_BARS = False
    assert "Where the packets were lost" in md and "Claims" in md


@needs_sim
def test_figures_plot_the_summary(small_fb):
    figs = {f.name: f for f in figure_kit.build(small_fb)}
    d = figs["fast-burstiness_drops_throughput"].data
    assert d["variants"] == fast_burstiness.VARIANTS
    assert d["router_drops"] == [small_fb["variants"][v]["router_drops"] for v in fast_burstiness.VARIANTS]
    lo = figs["fast-burstiness_losses_over_time"].data["fast/txq100"]
    assert lo["sender_drops"] == [float(x) for x in small_fb["series"]["fast/txq100"]["sender_drops"]]
    z = figs["fast-burstiness_queue_vs_prediction"].data
    assert set(z) == {v for v in fast_burstiness.VARIANTS if not v.endswith("newreno-recovery")}
    for f in figs.values():
        figure_kit.plt.close(f.fig)


@needs_sim
def test_command_line_json():
    r = subprocess.run([EXE, "reproduce", "datatag", "--seeds", "1", "--workers", "0", "--duration", "2", "--json"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["experiment"] == "datatag" and d["params"]["duration_s"]["value"] == 2.0
    assert {"fast/txq100", "fast-bc/txq100", "reno/txq10000"} <= set(d["variants"])
    assert all(not math.isnan(d["variants"][v]["throughput_bps"]) for v in d["variants"])
