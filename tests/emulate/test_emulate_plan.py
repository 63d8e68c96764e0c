"""superpacket.emulate.plan: what the emulator builds from a scenario, and what it
refuses (one line naming the field), without root and without creating anything."""

import pytest
from superpacket.emulate.plan import Refused, make_plan, parse_duration_s, parse_rate_bps


def scenario(**over):
    sc = {
        "name": "t", "duration": "2s",
        "topology": {"kind": "dumbbell", "pairs": 2, "access": {"rate": "1Gbps", "delay": "1ms"},
                     "bottleneck": {"rate": "100Mbps", "delay": "20ms",
                                    "queue": {"kind": "droptail", "limit": 367}}},
        "tcp": {"delayed_ack": True, "mss": 1448, "header_bytes": 52},
        "traffic": [{"kind": "bulk", "from": "s{i}", "to": "d{i}", "count": 2}],
    }
    for path, v in over.items():
        d = sc
        keys = path.split("__")
        for k in keys[:-1]:
            d = d[int(k)] if isinstance(d, list) else d[k]
        d[keys[-1]] = v
    return sc


def test_units_as_the_simulator_reads_them():
    assert parse_rate_bps("100Mbps", "x") == 100_000_000
    assert parse_rate_bps("1.5gbps", "x") == 1_500_000_000
    assert parse_duration_s("20ms", "x") == pytest.approx(0.020)
    assert parse_duration_s("25US", "x") == pytest.approx(25e-6)


def test_dumbbell_links_and_routes():
    p = make_plan(scenario())
    # 2 bottleneck directions + 2 per host x 4 hosts
    assert len(p.links) == 2 + 2 * 4
    names = [lk.name for lk in p.links]
    path = [names[i] for i in p.routes[("s1", "d1")]]
    assert path == ["s1->R1", "R1->R2", "R2->d1"]
    assert [names[i] for i in p.routes[("d0", "s0")]] == ["d0->R2", "R2->R1", "R1->s0"]
    assert [names[i] for i in p.routes[("s0", "s1")]] == ["s0->R1", "R1->s1"]
    b = p.links[p.link_index("R1->R2")]
    assert (b.rate_bps, b.delay_s, b.limit_pkts) == (100_000_000, pytest.approx(0.020), 367)
    # the default queue of a link without one: DropTail of 1000 (as the simulator's)
    assert p.links[p.link_index("s0->R1")].limit_pkts == 1000
    assert [(f.src, f.dst, f.tcp.cc) for f in p.flows] == [("s0", "d0", "reno"), ("s1", "d1", "reno")]


def test_red_takes_the_simulators_defaults():
    p = make_plan(scenario(topology__bottleneck__queue={"kind": "red", "min_th": 5, "max_th": 15, "limit": 100}))
    b = p.links[p.link_index("R1->R2")]
    assert b.limit_pkts == 100
    assert b.queue == {"kind": "red", "min_th": 5.0, "max_th": 15.0, "p_max": 0.1, "w_q": 0.002, "gentle": True,
                       "wait": True, "mean_pkt_size": 1500}
    assert p.links[p.link_index("s0->R1")].queue == {"kind": "droptail"}


def test_kernel_settings_from_the_scenario():
    p = make_plan(scenario(tcp={"cc": "cubic", "recovery": "newreno", "init_cwnd": 4, "min_rto": "1s",
                                "delayed_ack": True, "mss": 1448, "header_bytes": 52}))
    t = p.host_tcp["s0"]
    assert (t.cc, t.sack, t.init_cwnd, t.min_rto_ms) == ("cubic", False, 4, 1000)


@pytest.mark.parametrize(("over", "field"), [
    # each scenario is valid for the simulator, which checks it first: these are the
    # emulator's own refusals
    ({"topology": {"kind": "star", "senders": 2, "sender_link": {"rate": "1Gbps", "delay": "1ms"},
                   "receiver_link": {"rate": "100Mbps", "delay": "1ms"}},
      "traffic": [{"kind": "bulk", "from": "s0", "to": "d"}]}, "topology.kind"),
    ({"topology__pairs": 99}, "topology.pairs"),
    ({"topology__bottleneck__queue": {"kind": "rio", "in": {"min_th": 5, "max_th": 15, "p_max": 0.02},
                                      "out": {"min_th": 2, "max_th": 6, "p_max": 0.5}}},
     "topology.bottleneck.queue.kind"),
    ({"topology__bottleneck__queue": {"kind": "red", "min_th": 5, "max_th": 15, "ecn": True}},
     "topology.bottleneck.queue.ecn"),
    ({"topology__bottleneck__loss": 0.01}, "topology.bottleneck.loss"),
    ({"topology__access__rate": "10Gbps"}, "topology.access.rate"),
    ({"traffic": [{"kind": "cbr", "from": "s0", "to": "d0", "rate": "1Mbps"}]}, "traffic[0].kind"),
    ({"tcp__cc": "vegas"}, "tcp.cc"),
    ({"tcp__delayed_ack": False}, "tcp.delayed_ack"),
    ({"tcp__mss": 1460}, "tcp.mss"),
    ({"tcp__min_rto": "1500us"}, "tcp.min_rto"),
    ({"tcp__ecn": True}, "tcp.ecn"),
    ({"reorder": [{"links": ["R1->R2"], "q": 0.01, "delay_mean": "1ms"}]}, "reorder"),
    ({"output": {"pcap": ["all"]}}, "output.pcap"),
])
def test_refusals_name_the_field_in_one_line(over, field):
    with pytest.raises(Refused) as e:
        make_plan(scenario(**over))
    msg = str(e.value)
    assert msg.startswith(field + ":") and "\n" not in msg, msg


def test_per_host_settings_that_differ_are_refused():
    sc = scenario()
    sc["traffic"] = [{"kind": "bulk", "from": "s0", "to": "d0"},
                     {"kind": "bulk", "from": "s0", "to": "d1", "tcp": {"recovery": "newreno"}}]
    with pytest.raises(Refused, match=r"^traffic\[1\]\.tcp: .*s0"):
        make_plan(sc)
