"""Super-packets end to end (seeds/000, SCENARIOS.md "Super-packets / incast") at small
scale: the router's all-or-nothing property, the ideal scheme against DropTail and the
counters that prove the mechanism, in the incast's datacenter regime (1 Gbps senders:
the harder case for the router, where round 1 refuses most super-packets); the
reproduce command itself is tested in test_incast.py."""

import pytest
import superpacket
from superpacket.experiments import incast


def counters(res, link="R->d"):
    return {c: v for ln, c, v in res.queue_counters.iter_rows() if ln == link}


@pytest.mark.parametrize("variant", ["superpacket", "ideal"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_admitted_super_packets_are_delivered_whole(variant, seed):
    res = superpacket.run(incast.scenario(variant, 20.0, False, "datacenter"), seed=seed)
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
    dt = superpacket.run(incast.scenario("droptail", 20.0, False, "datacenter"), seed=1)
    ideal = superpacket.run(incast.scenario("ideal", 20.0, False, "datacenter"), seed=1)
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


@pytest.mark.parametrize("seed", [1, 2])
def test_runs_of_a_long_flow_are_all_or_nothing(seed):
    # jumbo scenario 2 (section 4.4): the special flow cut into super-packets of len 10
    # through a router whose queue sits at t most of the time; every admitted run must
    # leave the router whole (the sender lets a run out only when its window holds it)
    from superpacket.experiments import jumbo

    res = superpacket.run(jumbo.scenario("sp", duration_s=4.0), seed=seed)
    c = counters(res)
    assert res.summary["conservation"] == "ok"
    assert c["sp_admitted"] > 10
    assert c["sp_partly"] == c["sp_partly_explained"] == 0


def test_threshold_sweep_layout_and_skips():
    from superpacket.experiments import threshold

    r = threshold.run(seeds=1, duration_s=4.0)
    v = r["variants"]
    for t in (1, 2, 5, 10, 20, 30, 40):
        assert "mean_fct_s" in v[f"incast/t={t}"]
    for rule in ("ewma", "outstanding"):
        assert "mean_fct_s" in v[f"incast/{rule}"]
        assert "long_goodput_bps" in v[f"short-long/{rule}"]
    # short-long's buffer is 20 packets: t = 30 and 40 are not router settings
    assert {s["variant"] for s in r["skipped"]} == {"short-long/t=30", "short-long/t=40"}
    assert r["claims"][0]["holds"]
    # t above the incast burst behaves as DropTail-sized admission: every flow gets in
    assert v["incast/t=40"]["mean_fct_s"] == pytest.approx(v["incast/t=30"]["mean_fct_s"])


def test_example_incast_superpacket_every_flow_completes(examples):
    # four SYNs are refused at t (all ten start at the same nanosecond): they must be
    # retransmitted after the 1 s initial RTO, a timer far past the event list's wheel
    res = superpacket.run(examples / "incast-superpacket.toml", seed=1)
    fl = res.flows
    assert fl["completed"].all()
    assert fl.filter(fl["fct_s"] > 1.0).height == 4
    assert (fl.filter(fl["fct_s"] > 1.0)["timeouts"] == 1).all()
