"""The short-long (section 4.3) and jumbo (section 4.4) experiments of SCENARIOS.md at
small scale: the reproduce JSON layout, conservation in every run, and the jumbo claim
where it holds."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import superpacket
from superpacket.experiments import EXPERIMENTS, jumbo, short_long

EXE = str(Path(sys.executable).parent / "superpacket")


def check_layout(r, name, variants, metrics):
    assert r["experiment"] == name
    assert set(r) >= {"experiment", "seeds", "params", "variants", "paper", "claims"}
    assert all(set(p) == {"value", "source"} for p in r["params"].values())
    assert set(r["variants"]) == set(variants)
    for v in variants:
        ms = r["variants"][v]
        for m in metrics:
            lo, hi = ms[f"{m}_ci95"]
            assert lo <= ms[m] <= hi
            assert len(ms[f"{m}_per_seed"]) == r["seeds"]
    for c in r["claims"]:
        assert isinstance(c["holds"], bool) and c["claim"]
    json.dumps(r)


def test_registered():
    assert EXPERIMENTS["short-long"] is short_long
    assert EXPERIMENTS["jumbo"] is jumbo


def test_short_long_layout_and_both_variants():
    r = short_long.run(seeds=2, duration_s=5.0, jitter_us=20.0, admit_syn=False)
    check_layout(r, "short-long", ["droptail", "superpacket"],
                 ["mean_fct_s", "long_goodput_bps", "short_not_completed"])
    assert r["paper"]["droptail"]["mean_fct_s"] == 0.0264
    assert r["paper"]["superpacket"]["mean_fct_s"] == 0.0186
    for v in ("droptail", "superpacket"):
        ms = r["variants"][v]
        assert ms["mean_fct_s"] > 0
        # the long flows fill most of the 110 Mbps bottleneck
        assert ms["long_goodput_bps"] > 50e6
    assert r["variants"]["superpacket"]["sp_admitted"] > 0
    assert r["variants"]["droptail"]["sp_admitted"] == 0
    (c,) = r["claims"]
    assert {"improvement_pct", "improvement_pct_ci95", "holds"} <= set(c)
    for runs in r["per_run"].values():
        assert all(x["conservation"] == "ok" for x in runs)


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
