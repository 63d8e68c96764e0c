"""The short-long (section 4.3) and jumbo (section 4.4) experiments of SCENARIOS.md: the
reproduce JSON layout and conservation at small scale, and each claim of the README
("short-long: the claim holds", "jumbo: several times the mean regular flow, judged >= 3x
on the lower bound of the 95 % CI of the per-seed ratio (issue 9): holds for sp, not for
jumbo") at the README's own scale (10 seeds, full duration: about 4 s for both on a 2-core
machine), from the summary's `claims` and recomputed from the per-seed values."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import superpacket
from handstats import assert_ci_of, mean_half_width
from record_check import assert_claims_declared
from superpacket.experiments import EXPERIMENTS, jumbo, short_long

EXE = str(Path(sys.executable).parent / "superpacket")

# The FCT of one 10-packet short flow of short-long alone on the network, by hand (B -> R
# 100 Mbps, R -> D 110 Mbps, 1 ms each): SYN 40 B = 320 bit, 3.2 us + 1 ms to R, 2.909 us + 1 ms
# to D; the SYN-ACK back the same way (4.012 ms for both); then 10 x 1500 B leave B at 120 us
# each, the last reaches R at 1.2 ms + 1 ms and D 109.09 us + 1 ms later (R's 110 Mbps drains
# faster than B's 100 Mbps feeds it: no queue), 3.309 ms; 7.321309 ms in all. No short flow
# can do better, whatever the load.
SHORT_FCT_FLOOR_S = (2 * ((320 / 100e6 + 1e-3) + (320 / 110e6 + 1e-3))
                     + (10 * 12_000 / 100e6 + 1e-3) + (12_000 / 110e6 + 1e-3))

# jumbo's windows over the 80 ms round trip (4 x 20 ms of propagation, serialisation left
# out, so these are caps): the special flow 5 x 14,600 B = 50 x 1460 B = 73,000 B per RTT,
# 73,000 / 0.08 = 912,500 B/s; a regular flow 10 x 1460 B = 14,600 B per RTT, 182,500 B/s.
SPECIAL_CAP_KBPS = 912.5
REGULAR_CAP_KBPS = 182.5
CLAIM_RATIO = 3.0  # the README: "several times the mean regular flow", judged >= 3x (on the CI)


def check_layout(r, name, variants, metrics):
    assert r["experiment"] == name
    assert set(r) >= {"experiment", "seeds", "params", "variants", "paper", "claims"}
    assert all(set(p) == {"value", "source"} for p in r["params"].values())
    assert set(r["variants"]) == set(variants)
    for v in variants:
        ms = r["variants"][v]
        for m in metrics:
            assert len(ms[f"{m}_per_seed"]) == r["seeds"]
            # the reported mean and interval are those of the per-seed values (recomputed by hand:
            # min-max below 3 seeds, the 95 % CI clipped at 0 from 3)
            assert_ci_of(ms[m], ms[f"{m}_ci95"], ms[f"{m}_per_seed"])
    for c in r["claims"]:
        assert isinstance(c["holds"], bool) and c["claim"]
    json.dumps(r)


def test_registered():
    assert EXPERIMENTS["short-long"] is short_long.EXPERIMENT
    assert EXPERIMENTS["jumbo"] is jumbo.EXPERIMENT


def test_short_long_layout_and_both_variants():
    r = short_long.run(seeds=2, duration_s=5.0, jitter_us=20.0, admit_syn=False)
    check_layout(r, "short-long", ["droptail", "superpacket"],
                 ["mean_fct_s", "long_goodput_bps", "short_not_completed"])
    assert_claims_declared(r)
    assert r["paper"]["droptail"]["mean_fct_s"] == 0.0264
    assert r["paper"]["superpacket"]["mean_fct_s"] == 0.0186
    for v in ("droptail", "superpacket"):
        ms = r["variants"][v]
        assert ms["mean_fct_s"] > SHORT_FCT_FLOOR_S
        # the long flows fill most of the 110 Mbps bottleneck
        assert ms["long_goodput_bps"] > 50e6
    assert r["variants"]["superpacket"]["sp_admitted"] > 0
    assert r["variants"]["droptail"]["sp_admitted"] == 0
    (c,) = r["claims"]
    assert {"improvement_pct", "improvement_pct_ci95", "holds"} <= set(c)
    for runs in r["per_run"].values():
        assert all(x["conservation"] == "ok" for x in runs)


@pytest.mark.parametrize("variant", short_long.VARIANTS)
def test_short_long_unloaded_short_flow_fct_by_hand(variant):
    # the floor used below, checked: one short flow alone (a super-packet of 10 in the
    # superpacket variant, which the router admits into its empty queue)
    sc = short_long.scenario(variant, 2.0)
    sc["traffic"] = [{"kind": "flow", "from": "B", "to": "D", "size_pkts": 10, "tcp": sc["traffic"][1]["tcp"]}]
    res = superpacket.run(sc, seed=1)
    assert res.flows["timeouts"][0] == 0
    assert res.flows["fct_s"][0] == pytest.approx(SHORT_FCT_FLOOR_S, abs=2e-9)  # integer-ns times


@pytest.mark.parametrize("variant", short_long.VARIANTS)
def test_short_long_conservation_and_flows(variant):
    res = superpacket.run(short_long.scenario(variant, 5.0), seed=3)
    assert res.summary["conservation"] == "ok"
    fl = res.flows
    assert fl.filter(fl["bulk"]).height == 10
    assert set(fl.filter(fl["bulk"])["src"].to_list()) == {"A"}
    short = fl.filter(~fl["bulk"])
    assert set(short["src"].to_list()) == {"B", "C"}
    assert (short["start_s"] >= 1.0).all() and (short["start_s"] <= 4.0).all()
    if variant == "superpacket":
        assert (short["sp_sent"] >= 1).all()


def test_jumbo_layout():
    r = jumbo.run(seeds=2, duration_s=4.0, jitter_us=20.0, admit_syn=False)
    check_layout(r, "jumbo", jumbo.VARIANTS, ["special_kBps", "regular_mean_kBps", "ratio"])
    assert_claims_declared(r)
    assert r["paper"]["jumbo"]["special_kBps"] == 2280.0
    assert r["paper"]["sp"]["regular_mean_kBps"] == 223.0
    assert [c["variant"] for c in r["claims"]] == list(jumbo.VARIANTS)
    for runs in r["per_run"].values():
        assert all(x["conservation"] == "ok" for x in runs)


def test_jumbo_flows_and_conservation():
    for v in jumbo.VARIANTS:
        res = superpacket.run(jumbo.scenario(v, 4.0), seed=1)
        assert res.summary["conservation"] == "ok"
        fl = res.flows
        assert fl.height == 50
        special = fl.filter(fl["src"] == "s49").row(0, named=True)
        assert special["start_s"] == pytest.approx(1.0)
        regular = fl.filter(fl["src"] != "s49")
        assert (regular["start_s"] < 1.0).all()
        if v.startswith("sp"):
            assert special["sp_sent"] >= 1


def test_reproduce_cli_prints_every_metric():
    out = subprocess.run([EXE, "reproduce", "jumbo", "--seeds", "1"], capture_output=True, text=True,
                         check=True).stdout
    for m in ("special_kBps", "regular_mean_kBps", "ratio"):
        assert m in out
    assert out.count("claim:") == 4
    # 1 seed of jumbo's default 10: the scale on top, every verdict labelled indicative, and why
    lines = out.splitlines()
    assert lines[1] == "scale: reduced scale (verdicts indicative): 1 seed(s) of the default 10; " \
        f"duration_s 10; took {lines[1].rsplit('took ', 1)[1]}"
    assert all("(indicative)" in ln for ln in lines if ln.startswith("claim:"))
    assert lines[-1].startswith("verdicts are indicative: reduced scale (1 of the default 10 seeds)")
    # one seed: its interval is the value itself, n beside it
    assert "ours (mean [one value], n = 1)" in lines[2]


def test_reproduce_runs_show_progress_on_a_terminal_only(capsys):
    """`reproduce` experiments run for minutes (riops-web: 23 min): a progress bar of
    runs done on stderr when asked (default: when stderr is a terminal), never on
    stdout, and the same results either way."""
    import time

    from superpacket.experiments.common import run_seeds

    def one(v: str, seed: int) -> dict[str, float]:
        time.sleep(0.12)  # past tqdm's refresh interval
        return {"x": seed * (2 if v == "b" else 1)}

    quiet = run_seeds(("a", "b"), 2, ("x",), one, progress=False)
    assert capsys.readouterr().err == ""
    shown = run_seeds(("a", "b"), 2, ("x",), one, progress=True)
    cap = capsys.readouterr()
    assert shown == quiet and cap.out == ""
    assert "runs:" in cap.err and "/4" in cap.err


# ---- the claims, at the README's scale -------------------------------------------------------
# Both experiments run at the scale the README measured (seeds 1..10; short-long 32 s,
# jumbo 10 s): 60 runs, about 4 s here, so no smaller scale is needed; at 5 seeds the
# jumbo claims are too noisy to judge (sp's CI lower bound 2.97, jumbo's mean 2.76). The
# figures in these comments are the README's, re-run after the TCP fixes of 05fb0a3.


@pytest.fixture(scope="module")
def short_long_10():
    return short_long.run(seeds=10)


@pytest.fixture(scope="module")
def jumbo_10():
    return jumbo.run(seeds=10)


def test_short_long_claim_holds(short_long_10):
    """SCENARIOS.md's must-hold: superpacket mean short-flow FCT below droptail (README:
    0.0284 s vs 0.0148 s, -47.8 %)."""
    r = short_long_10
    (c,) = r["claims"]
    assert c["holds"], c
    dt, sp = r["variants"]["droptail"], r["variants"]["superpacket"]
    dt_s, sp_s = dt["mean_fct_s_per_seed"], sp["mean_fct_s_per_seed"]
    assert len(dt_s) == len(sp_s) == 10
    # every short flow of every run completed: each per-seed mean is over all of them, not a
    # subset that left out the slowest
    assert dt["short_not_completed_per_seed"] == sp["short_not_completed_per_seed"] == [0.0] * 10
    assert min(dt_s + sp_s) > SHORT_FCT_FLOOR_S
    # the claim from the numbers: means over seeds recomputed, superpacket below droptail
    assert_ci_of(dt["mean_fct_s"], dt["mean_fct_s_ci95"], dt_s)
    assert_ci_of(sp["mean_fct_s"], sp["mean_fct_s_ci95"], sp_s)
    m_dt, _ = mean_half_width(dt_s)
    m_sp, _ = mean_half_width(sp_s)
    assert m_sp < m_dt
    assert c["droptail_mean_fct_s"] == pytest.approx(m_dt)
    assert c["superpacket_mean_fct_s"] == pytest.approx(m_sp)
    assert c["improvement_pct"] == pytest.approx((m_dt - m_sp) / m_dt * 100.0)
    # the cut paired by seed, (droptail_i - superpacket_i) / droptail_i x 100, its mean and CI;
    # judged on the CI: all of it above 0 (summary: [43.3, 51.8] %)
    cuts = [(d - s) / d * 100.0 for d, s in zip(dt_s, sp_s, strict=True)]
    # a cut has either sign: no range to clip to
    assert_ci_of(c["improvement_pct_per_seed_mean"], c["improvement_pct_ci95"], cuts, (-math.inf, math.inf))
    m, h = mean_half_width(cuts)
    assert m - h > 0.0, (m, h, cuts)


def _jumbo_claim(r, variant):
    (c,) = [c for c in r["claims"] if c["variant"] == variant]
    return c


@pytest.mark.parametrize("variant", jumbo.VARIANTS)
def test_jumbo_claim_is_judged_on_its_confidence_interval(jumbo_10, variant):
    """Issue 9: the summary's verdict on "special flow >= 3x the mean regular flow" is that
    of the 95 % CI of the per-seed ratio special / mean regular, recomputed here by hand: it
    holds iff the CI's lower bound is >= 3 (not the mean). The claim entry still reports the
    mean and the CI, and those are the per-seed values'."""
    r = jumbo_10
    c = _jumbo_claim(r, variant)
    ms = r["variants"][variant]
    special, regular, ratios = ms["special_kBps_per_seed"], ms["regular_mean_kBps_per_seed"], ms["ratio_per_seed"]
    assert len(ratios) == 10
    assert ratios == pytest.approx([s / g for s, g in zip(special, regular, strict=True)])
    assert_ci_of(c["ratio"], c["ratio_ci95"], ratios)
    assert c["ratio_ci95_low"] == c["ratio_ci95"][0]
    assert_ci_of(c["special_kBps"], ms["special_kBps_ci95"], special)
    assert_ci_of(c["regular_mean_kBps"], ms["regular_mean_kBps_ci95"], regular)
    m, h = mean_half_width(ratios)
    assert c["holds"] is (m - h >= CLAIM_RATIO), (variant, m, h, c)
    # no verdict sits so close to the line that the table's t (3 decimals) could flip it
    assert abs(m - h - CLAIM_RATIO) > 1e-3 * h


@pytest.mark.parametrize("variant", ["jumbo", "sp"])
def test_jumbo_mean_ratio_at_least_3x(jumbo_10, variant):
    """The mean over seeds of the per-seed ratio (reported beside the CI) is >= 3 for both
    packet-counted variants (README: jumbo 3.37x, sp 3.78x), and so is the ratio of the mean
    throughputs; no run beats the window caps. The claim is not judged on this (see above)."""
    ms = jumbo_10["variants"][variant]
    special, regular, ratios = ms["special_kBps_per_seed"], ms["regular_mean_kBps_per_seed"], ms["ratio_per_seed"]
    assert max(special) <= SPECIAL_CAP_KBPS
    assert max(regular) <= REGULAR_CAP_KBPS
    m, _ = mean_half_width(ratios)
    assert m >= CLAIM_RATIO
    assert math.fsum(special) / math.fsum(regular) >= CLAIM_RATIO


@pytest.mark.parametrize("variant", [
    pytest.param("jumbo", marks=pytest.mark.xfail(strict=True, reason=(
        "judged on its 95 % CI the jumbo claim does not hold at 10 seeds (as before the TCP fixes "
        "of 05fb0a3, at this precision): ratio 3.37x, CI [2.06, 4.67]; seeds 2, 5 and 8 give 0.70x, "
        "0.85x, 0.84x (the jumbo flow has 22-23 RTOs there and gets less than a regular flow), the "
        "other seven 3.72x to 5.05x (0-5 RTOs)"))),
    "sp",
])
def test_jumbo_claim_holds_on_its_confidence_interval(jumbo_10, variant):
    """The README's claim, as the summary now judges it and recomputed by hand: the lower
    bound of the 95 % CI of the per-seed ratio must be >= 3, not only its mean (README: sp
    3.78x [3.06, 4.49])."""
    assert _jumbo_claim(jumbo_10, variant)["holds"], _jumbo_claim(jumbo_10, variant)
    ratios = jumbo_10["variants"][variant]["ratio_per_seed"]
    m, h = mean_half_width(ratios)
    assert m - h >= CLAIM_RATIO, f"{variant}: {m:.3f}x, CI [{m - h:.3f}, {m + h:.3f}], per seed {ratios}"
