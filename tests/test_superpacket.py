"""Super-packets end to end (seeds/000, SCENARIOS.md "Super-packets / incast") at small
scale: the router's all-or-nothing property, the ideal scheme against DropTail, the
counters that prove the mechanism, and the reproduce command's JSON layout."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import superpacket
from superpacket.experiments import incast

EXE = str(Path(sys.executable).parent / "superpacket")


def counters(res, link="R->d"):
    return {c: v for ln, c, v in res.queue_counters.iter_rows() if ln == link}


@pytest.mark.parametrize("variant", ["superpacket", "ideal"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_admitted_super_packets_are_delivered_whole(variant, seed):
    res = superpacket.run(incast.scenario(variant, 20.0, False), seed=seed)
    c = counters(res)
    assert res.summary["conservation"] == "ok"
    assert c["sp_admitted"] >= 1
    # all-or-nothing: no admitted super-packet lost a packet at this router unless the
    # router reports a Bloom false positive or a full buffer for it
    assert c["sp_partly"] == c["sp_partly_explained"]
    # every admitted super-packet went through whole, in one round: its flow finished
    # without a timeout in about one RTT + 10 serialisations at 100 Mbps (< 10 ms)
    fl = res.flows
    one_round = fl.filter(fl["timeouts"] == 0)
    assert one_round.height >= c["sp_round1_admitted"]
    assert (one_round["fct_s"] < 0.010).all()
    # a denied super-packet lost every packet: its flow timed out
    assert (fl.filter(fl["sp_denied"] > 0)["timeouts"] > 0).all()


def test_ideal_beats_droptail_and_droptail_times_out():
    dt = superpacket.run(incast.scenario("droptail", 20.0, False), seed=1)
    ideal = superpacket.run(incast.scenario("ideal", 20.0, False), seed=1)
    assert dt.summary["flows_with_timeout"] >= 9  # the paper: 9 of 10
    assert ideal.summary["mean_fct_s"] < dt.summary["mean_fct_s"]


def test_superpacket_headers_only_on_first_send():
    # one flow alone: one super-packet of 10 packets, admitted, nothing denied
    sc = incast.scenario("superpacket", 0.0, False)
    sc["topology"]["senders"] = 1
    sc["traffic"][0]["count"] = 1
    res = superpacket.run(sc, seed=1)
    f = res.flows.row(0, named=True)
    assert f["sp_sent"] == 1 and f["sp_denied"] == 0 and f["timeouts"] == 0
    c = counters(res)
    assert c["sp_admitted"] == 1 and c["sp_whole"] == 1


def test_bad_superpacket_queue_names_field():
    sc = incast.scenario("superpacket", 0.0, False)
    sc["topology"]["receiver_link"]["queue"]["threshold"] = 500  # t > buffSize
    with pytest.raises(superpacket.ScenarioError, match="threshold"):
        superpacket.run(sc)


def test_reproduce_incast_json_layout():
    r = subprocess.run([EXE, "reproduce", "incast", "--seeds", "2", "--json"], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["experiment"] == "incast" and d["seeds"] == 2
    for v in ("droptail", "superpacket", "ideal"):
        for m in ("mean_fct_s", "flows_with_timeout"):
            assert m in d["variants"][v]
            assert len(d["variants"][v][f"{m}_per_seed"]) == 2
            lo, hi = d["variants"][v][f"{m}_ci95"]
            assert lo <= d["variants"][v][m] <= hi
    assert d["paper"]["droptail"]["mean_fct_s"] == 0.197
    claim = d["claims"][0]
    assert set(claim) >= {"claim", "holds", "improvement_pct"}
    assert all("source" in p for p in d["params"].values())
