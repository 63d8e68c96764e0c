"""Each converted experiment's reported `params` come from the scenario dicts it built and
ran (issue 14 section 2), not from a hand-kept copy of the builder's numbers.

For each one: build its scenarios the way run() does (no simulation), compute the params
from them, and check every scenario parameter against the field at its path, with paths
written here independently of the module's own table (a table that pointed at the wrong
field, e.g. the reverse queue's limit, fails here). Then change a builder constant with
monkeypatch and see the reported value follow: a copied value would not. Finally one real
run (short-long, 2 s) checks that the summary of run() is this derivation."""

import pytest
from superpacket.experiments import (
    attacks,
    bc_common,
    datacenter,
    datatag,
    dcr,
    dcr_multihop,
    incast,
    incast_map,
    jumbo,
    lion,
    loss_sensitivity,
    mbs,
    riops_common,
    riops_goodput,
    riops_web,
    short_long,
    threshold,
)
from superpacket.experiments.common import Sc, field, ms, params_from, same, seconds, whole

# ---- how each experiment builds its scenarios and params (as its run() does) -----------------

def short_long_params(duration_s=32.0):
    scs = short_long.scenarios(duration_s)
    return scs, short_long.params(scs)


def jumbo_params(duration_s=10.0):
    scs = jumbo.scenarios(duration_s)
    return scs, jumbo.params(scs)


def attacks_params(quick=False):
    names = attacks.variant_names(quick)
    dur = attacks.QUICK.values["duration_s"] if quick else attacks.DURATION_S
    scs = {n: attacks.scenario(n, dur) for n in names}
    return scs, params_from(attacks.param_table(names), scs)


def incast_params(jitter_us=100.0, admit_syn=False):
    scs = incast.scenarios(jitter_us, admit_syn)
    return scs, incast._params(scs, "paper")


def threshold_params(duration_s=32.0):
    names, _ = threshold.variant_names(duration_s)
    scs = {n: threshold.scenario(*n.split("/"), duration_s) for n in names}
    return scs, params_from(threshold.param_table(names), scs)


def loss_params(runs=3):
    names = [loss_sensitivity.variant_name(n, p) for n in loss_sensitivity.SIZES
             for p in (0.0, *loss_sensitivity.PROBS)]
    scs = {v: loss_sensitivity.cell_scenario(v, runs) for v in names}
    return scs, params_from(loss_sensitivity.param_table(names), scs)


def goodput_params(duration_s=500.0):
    scs = {v: riops_goodput.scenario(v, duration_s) for v in riops_goodput.VARIANTS}
    return scs, params_from(riops_goodput.param_table(list(riops_goodput.VARIANTS)), scs)


def web_params(duration_s=600.0):
    names = [f"{e}/{s}" for e in riops_web.EXPERIMENTS for s in riops_web.SCHEMES]
    scs = {n: riops_web.scenario(*n.split("/"), duration_s) for n in names}
    return scs, params_from(riops_web.param_table(names), scs)


def incast_map_params(jitter_us=100.0, admit_syn=False):
    names = incast_map.points()
    scs = {n: incast_map.point_scenario(n, jitter_us, admit_syn) for n in names}
    return scs, params_from(incast_map.param_table(names), scs)


def lion_params(duration_s=5.0):
    contests = [*lion.CONTESTS, f"{lion.NR_CONTEST}{lion.NR_SUFFIX}"]
    scs = {c: lion.contest_scenario(c, duration_s) for c in contests}
    return scs, lion._params(scs, 1, False)


def datacenter_params(quick=True):
    sc = datacenter.QUICK.values["scale"] if quick else datacenter.FULL
    scs = {v: datacenter.scenario(v, sc) for v in sc.variants()}
    return scs, datacenter.params(sc, 3, quick, scs)


def datatag_params(duration_s=60.0):
    setup = datatag.SETUP
    scs = {v: bc_common.scenario(setup, v, duration_s, series=True) for v in setup.variants()}
    return scs, bc_common.params(setup, scs, 10, False)


def dcr_params(rate_bps=1e9, duration_s=100.0):
    protos = dcr.check_protocols(None)
    runs, _ = dcr.plan(protos, tuple(sorted({0.0, *dcr.QS})))
    scs = {v: dcr.scenario(*runs[v][:4], rate_bps, duration_s, runs[v][4]) for v in runs}
    return scs, dcr._params(protos, scs, 2, False)


def dcr_multihop_params(q=0.01):
    protos = dcr_multihop.check_protocols(None)
    names = [f"{cc}{s}" for cc in protos for s in ("", "-dcr", "-ncr")]
    names += [f"{protos[0]}{s}{dcr_multihop.NEWRENO_SUFFIX}" for s in ("", "-dcr")]
    scs = {v: dcr_multihop.variant_scenario(v, q) for v in names}
    return scs, dcr_multihop._params(protos, scs, 3, False)


def mbs_params(probe_duration_s=3.0, transfer_pkts=10_000):
    sizes = tuple(sorted({*mbs.BURSTS, mbs.SMALL_BURST, mbs.LARGE_BURST}))
    names = [mbs.ONOFF, *(mbs.cbr_name(r) for r in mbs.CBR_RATES)]
    names += [mbs.variant_name(s, b) for s in mbs.SCHEMES for b in sizes]
    scs = {v: mbs.variant_scenario(v, transfer_pkts, probe_duration_s) for v in names}
    return scs, mbs._params(scs, mbs.SMALL_BURST, mbs.LARGE_BURST, 10, False)


def value(p, name):
    return p[name]["value"]


# ---- every reported scenario parameter equals its field ----------------------------------------
# (param, variant, path, how the report writes the field). `seconds`/`ms` turn "80ms" into
# the s / ms the report uses; `int` the Poisson rate the report writes as 20.

SHORT_LONG = [
    ("nic_queue_a_pkts", "droptail", "topology.links[0].queue.limit", None),
    ("buffer_pkts", "droptail", "topology.links[3].queue.limit", None),
    ("buffer_pkts", "superpacket", "topology.links[3].queue.limit", None),
    ("threshold_t", "superpacket", "topology.links[3].queue.threshold", None),
    ("epoch_ms", "superpacket", "topology.links[3].queue.epoch", ms),
    ("admit_syn", "superpacket", "topology.links[3].queue.admit_syn", None),
    ("long_flows", "droptail", "traffic[0].count", None),
    ("long_cwnd", "superpacket", "traffic[0].tcp.init_cwnd", None),
    ("long_cwnd", "droptail", "traffic[0].tcp.max_cwnd", None),
    ("long_start_jitter_s", "droptail", "traffic[0].start_jitter", seconds),
    ("short_flow_pkts", "superpacket", "traffic[2].size_pkts", None),
    ("short_init_cwnd", "superpacket", "traffic[1].tcp.init_cwnd", None),
    ("short_init_cwnd", "droptail", "traffic[2].tcp.init_cwnd", None),
    ("short_rate_per_host_per_s", "droptail", "traffic[1].rate_per_s", int),
    ("duration_s", "superpacket", "duration", seconds),
]

JUMBO = [
    ("regular_senders", "sp", "traffic[0].count", None),
    ("buffer_pkts", "jumbo", "topology.receiver_link.queue.limit", None),
    ("buffer_bytes", "sp-bytes", "topology.receiver_link.queue.limit", None),
    ("threshold_t", "sp", "topology.receiver_link.queue.threshold", None),
    ("epoch_ms", "jumbo-bytes", "topology.receiver_link.queue.epoch", ms),
    ("regular_cwnd", "jumbo", "traffic[0].tcp.max_cwnd", None),
    ("regular_start_jitter_s", "sp", "traffic[0].start_jitter", seconds),
    ("special_start_s", "sp-bytes", "traffic[1].start", seconds),
    ("jumbo_mss", "jumbo-bytes", "traffic[1].tcp.mss", None),
    ("jumbo_cwnd", "jumbo", "traffic[1].tcp.init_cwnd", None),
    ("sp_len", "sp-bytes", "traffic[1].tcp.sp_len", None),
    ("sp_cwnd", "sp", "traffic[1].tcp.max_cwnd", None),
    ("duration_s", "jumbo", "duration", seconds),
]

ATTACKS = [
    ("attack_start_s", "epoch-sync/100000/on", "traffic[3].start", seconds),
    ("attack_packet_bytes", "spoof-flood/10000/off", "traffic[3].packet_bytes", None),
    ("attack_len", "bloom-pollution/1000000/on", "traffic[3].len", None),
    ("source_cap_pkts", "spoof-flood/10000/on", "topology.links[3].queue.max_reserved_per_pair", None),
    ("duration_s", "none/0/on", "duration", seconds),
]

INCAST = [
    ("senders", "paper/droptail", "topology.senders", None),
    ("flow_pkts", "datacenter/ideal", "traffic[0].size_pkts", None),
    ("init_cwnd", "paper/superpacket", "tcp.init_cwnd", None),
    ("buffer_pkts", "paper/droptail", "topology.receiver_link.queue.limit", None),
    ("threshold_t", "datacenter/superpacket", "topology.receiver_link.queue.threshold", None),
    ("epoch_ms", "paper/ideal", "topology.receiver_link.queue.epoch", ms),
    ("ideal_attempts", "paper/ideal", "tcp.sp_attempts", None),
    ("min_rto_ms", "datacenter/droptail", "tcp.min_rto", ms),
    ("init_rto_s", "paper/ideal", "tcp.init_rto", lambda t: whole(seconds(t))),
    ("duration_s", "paper/droptail", "duration", seconds),
    ("jitter_us", "paper/ideal", "traffic[0].start_jitter", lambda j: float(j.removesuffix("us"))),
    ("admit_syn", "paper/superpacket", "topology.receiver_link.queue.admit_syn", None),
]

THRESHOLD = [
    ("rule_weight", "incast/ewma", "topology.receiver_link.queue.rule_weight", None),
    ("rule_weight", "short-long/outstanding", "topology.links[3].queue.rule_weight", None),
    ("t_min", "short-long/ewma", "topology.links[3].queue.t_min", None),
]

LOSS = [
    ("min_rto_s", "n4-p0.01", "tcp.min_rto", seconds),
    ("max_rto_s", "n4096-p0.1", "tcp.max_rto", seconds),
    ("init_rto_s", "n16-p0", "tcp.init_rto", seconds),
    ("max_cwnd_pkts", "n64-p0.05", "tcp.max_cwnd", None),
    ("tcp_granularity_s", "n4-p0", "tcp.granularity", seconds),
    ("init_cwnd_pkts", "n256-p0.02", "tcp.init_cwnd", None),
    ("runs_per_cell", "n4-p0.1", "traffic[0].count", None),
    ("start_jitter_s", "n1024-p0.001", "traffic[0].start_jitter", seconds),
    ("rtt_s", "n4-p0.01", "topology.links[2].delay", lambda d: 2 * seconds(d)),
]

GOODPUT = [
    ("pairs", "red-1.5", "topology.pairs", None),
    ("long_flow_pkts", "riops-1.25", "traffic[1].size_pkts", None),
    ("short_flow_pkts", "droptail-1.5", "traffic[0].size_pkts", None),
    ("start_jitter_s", "red-1.25", "traffic[1].start_jitter", seconds),
    ("duration_s", "riops-1.5", "duration", seconds),
    ("ecn", "red-1.5", "topology.bottleneck.queue.ecn", None),
    ("max_cwnd_pkts", "droptail-1.25", "tcp.max_cwnd", None),
    ("min_rto_s", "riops-1.25", "tcp.min_rto", seconds),
    ("init_rto_s", "red-1.25", "tcp.init_rto", seconds),
    ("classifier_initial_lt_pkts", "riops-1.5", "topology.edge_classifier.lt", None),
    ("classifier_max_flows", "riops-1.25", "topology.edge_classifier.max_flows", None),
    ("queue_red-1.25", "red-1.25", "topology.bottleneck.queue", None),
    ("queue_droptail-1.5", "droptail-1.5", "topology.bottleneck.queue", None),
]

WEB = [
    ("object_size_min_bytes", "exp2-ito3/riops", "traffic[0].size_min_bytes", None),
    ("duration_s", "exp1-ito1/red", "duration", seconds),
    ("max_cwnd_pkts", "exp1-ito3/superpacket", "tcp.max_cwnd", None),
    ("classifier_max_flows", "exp2-ito3/riops", "topology.edge_classifier.max_flows", None),
]


INCAST_MAP = [
    ("jitter_us", "1Gbps/25us/t=5/ideal", "traffic[0].start_jitter", lambda j: float(j.removesuffix("us"))),
    ("admit_syn", "100Mbps/1ms/t=2/superpacket", "topology.receiver_link.queue.admit_syn", None),
    ("duration_s", "10Gbps/1ms/droptail", "duration", seconds),
]

LION = [
    ("duration_s", "vs-cubic", "duration", seconds),
    ("series_interval_s", "vs-newreno", "output.sample_flows", seconds),
    # RTT = 2 x (2 x access 1 ms + bottleneck 38 ms) = 80 ms
    ("rtt_ms", "vs-newreno/newreno-recovery", "topology.bottleneck.delay", lambda d: 2.0 * (2 * 1 + ms(d))),
]


DATACENTER = [
    ("switch_buffers_pkts", "web_search/0.5/dctcp", "topology.fabric_link.queue.limit", None),
    ("switch_buffers_pkts", "web_search/0.5/sp-newreno", "topology.host_link.queue.limit", None),
    ("arrivals_s", "web_search/0.5/droptail-newreno", "traffic[0].stop", seconds),
    # drain = duration - T: 100 ms - 60 ms at the quick scale
    ("drain_s", "web_search/0.5/dctcp", "duration", lambda d: round(seconds(d) - 0.06, 9)),
]


DATATAG = [
    # links: S0->R1, S1->R1, R1->R2 (index 2), R2->D0, R2->D1, X->R2, R1->Y
    ("flows", "fast/txq100", "topology.nodes", lambda n: sum(1 for x in n if x.startswith("S"))),
    ("txqueuelen", "reno/txq100", "topology.links[0].queue.limit", lambda q: [q, 10_000]),
    ("fast_alpha_pkts", "fast-bc/txq10000", "tcp.cc.alpha", None),
    ("max_cwnd_pkts", "reno-bc/txq100", "tcp.max_cwnd", None),
    ("duration_s", "fast/txq10000/no-reverse", "duration", seconds),
    ("series_bin_s", "fast/txq100", "output.sample_interval", seconds),
    # RTT 2 x (1 + 58 + 1) ms = 120 ms
    ("rtt_ms", "reno/txq10000", "topology.links[2].delay", lambda d: 2.0 * (2 * 1 + ms(d))),
]


DCR = [
    ("buffer_pkts", "bic-dcr/both/q0.05", "topology.bottleneck.queue.limit", None),
    ("start_jitter_s", "ltcp/reorder/q0.1", "traffic[0].start_jitter", seconds),
    # RTT 2 x (2 x 5 ms + 15 ms) = 50 ms
    ("rtt_ms", "htcp-ncr/congestion/q0", "topology.access.delay", lambda d: 2.0 * (2 * ms(d) + 15)),
    ("duration_s", "highspeed/reorder/q0", "duration", seconds),
]


DCR_MULTIHOP = [
    ("buffer_pkts", "bic-ncr", "topology.link.queue.limit", None),
    ("q_R3", "htcp-dcr", "reorder[0].q", None),
    ("start_jitter_s", "ltcp/newreno", "traffic[3].start_jitter", seconds),
    ("duration_s", "highspeed", "duration", seconds),
    # R1 -> R5: 4 chain links of 10 ms and 2 host links of 10 ms, each way: 120 ms
    ("rtt_longest_ms", "bic", "topology.link.delay", lambda d: 2.0 * (4 * ms(d) + 2 * 10)),
]


MBS = [
    # links: S-R, X1-R, X2-R, R-D (index 3)
    ("transfer_pkts", "window/b64", "traffic[0].size_pkts", None),
    ("sender_start_s", "paced/b1024", "traffic[0].start", seconds),
    ("probe_run_s", "probe/onoff", "duration", seconds),
    ("link_delay_ms", "paced/b16", "topology.links[3].delay", lambda d: float(ms(d))),
]


@pytest.mark.parametrize("build,table", [
    (short_long_params, SHORT_LONG), (jumbo_params, JUMBO), (attacks_params, ATTACKS), (incast_params, INCAST),
    (threshold_params, THRESHOLD), (loss_params, LOSS), (goodput_params, GOODPUT), (web_params, WEB),
    (incast_map_params, INCAST_MAP), (lion_params, LION), (datacenter_params, DATACENTER), (datatag_params, DATATAG),
    (dcr_params, DCR), (dcr_multihop_params, DCR_MULTIHOP), (mbs_params, MBS),
], ids=["short-long", "jumbo", "attacks", "incast", "threshold", "loss-sensitivity", "riops-goodput", "riops-web",
        "incast-map", "lion", "datacenter", "datatag", "dcr", "dcr-multihop", "mbs"])
def test_reported_parameter_is_the_scenario_field(build, table):
    scs, p = build()
    for name, variant, path, conv in table:
        got = field(scs[variant], path)
        assert value(p, name) == (conv(got) if conv else got), (name, variant, path)
    assert all(set(x) == {"value", "source"} and x["source"] for x in p.values())


def test_text_parameters_carry_the_fields_they_name():
    # the texts hold the scenario's numbers: A/B/C -> R rate and delay, R -> D's
    scs, p = short_long_params()
    sl = scs["superpacket"]["topology"]["links"]
    assert value(p, "access_links") == f"A/B/C -> R {sl[0]['rate']}, {sl[1]['delay']}"
    assert value(p, "bottleneck") == f"R -> D {sl[3]['rate']}, {sl[3]['delay']}"
    # attacks' router text: buffer, t, EPOCH, Bloom bits (2^16) and hashes, pairs of R -> D's queue
    scs, p = attacks_params()
    q = scs["spoof-flood/10000/on"]["topology"]["links"][3]["queue"]
    assert value(p, "router") == (f"buffer {q['limit']}, t = {q['threshold']}, EPOCH 80 ms, Bloom "
                                  f"2^16 bits x {q['bloom_hashes']}, {q['max_pairs']} pairs")
    assert q["bloom_bits"] == 2**16
    # riops-goodput's rates: the variants' bottleneck rates, each once, in the variants' order
    scs, p = goodput_params()
    assert value(p, "bottleneck") == "1.25Mbps / 1.5Mbps, 20ms"
    # the RED set as fractions of B from the queue that ran: 0.15 B, 0.5 B, p_max 1/10, w_q 1/512
    red = scs["red-1.5"]["topology"]["bottleneck"]["queue"]
    assert red["min_th"] == pytest.approx(0.15 * red["limit"]) and red["w_q"] == 1 / 512
    assert value(p, "red") == "(0.15 B, 0.5 B, 1/10, 1/512), gentle, wait"
    # incast-map: every point's scenario has the rate and delay its name says, and the
    # reported lists are those of the points, each once
    scs, p = incast_map_params()
    for n, sc in scs.items():
        rate, delay = n.split("/")[:2]
        assert (sc["topology"]["sender_link"]["rate"], sc["topology"]["sender_link"]["delay"]) == (rate, delay)
    assert value(p, "access_rates") == list(dict.fromkeys(n.split("/")[0] for n in scs))
    assert value(p, "delays") == list(dict.fromkeys(n.split("/")[1] for n in scs))
    assert value(p, "thresholds") == sorted({int(n.split("/")[2][2:]) for n in scs if "/t=" in n})
    q = scs["1Gbps/25us/t=5/ideal"]["topology"]["receiver_link"]
    assert value(p, "bottleneck") == f"R->D {q['rate']}, buffer {q['queue']['limit']}, EPOCH 80 ms"
    # lion: the buffer in bytes and packets of 1500 B, the BDP 1 Gbps x 80 ms / 12,000 bit = 6667
    scs, p = lion_params()
    qb = scs["vs-cubic"]["topology"]["bottleneck"]["queue"]["limit"]
    assert value(p, "buffer") == f"DropTail {qb:,} bytes ({qb / 1500:.1f} full packets; BDP 6667 packets)"
    w = scs["vs-newreno"]["traffic"][1]["tcp"]["cc"]["window"]
    assert f"fixed window {w} packets (2 x BDP)" in value(p, "paced_flow") and w == 2 * 6667
    # datacenter (quick: 3 leaves x 8 hosts, 2 spines): the topology and links as built
    scs, p = datacenter_params()
    topo = scs["web_search/0.5/dctcp"]["topology"]
    assert value(p, "topology") == "leaf-spine, 3 leaves x 8 hosts = 24 hosts, 2 spines, per-flow ECMP"
    assert (topo["leaves"], topo["hosts_per_leaf"], topo["spines"]) == (3, 8, 2)
    assert value(p, "links") == "hosts 10 Gbps, fabric 40 Gbps, 1 us each"
    assert (topo["host_link"]["rate"], topo["fabric_link"]["rate"], topo["host_link"]["delay"]) == (
        "10Gbps", "40Gbps", "1us")
    # DCTCP's K where the queues entries put it: host-facing ports 65, leaf uplinks 4 x 65 = 260
    ks = {e["ports"]: e["queue"].get("ecn_threshold") for e in topo["queues"]}
    assert value(p, "dctcp_k_pkts") == (f"{ks['host_facing']} at 10 Gbps ports, {ks['leaf_uplinks']} at 40 Gbps "
                                        "ports; g = 1/16") and (ks["host_facing"], ks["leaf_uplinks"]) == (65, 260)
    # the incast's servers are the hosts of leaf 1: hosts_per_leaf of them (8 at this
    # scale; the copy said 16, the full scale's, at every scale)
    assert "(8 hosts, another rack)" in value(p, "incast")
    assert "(16 hosts, another rack)" in value(datacenter_params(quick=False)[1], "incast")
    # the schemes --quick does not run are still described, from scenarios built at its scale
    assert value(p, "red_ecn") == "min_th 75, max_th 250, p_max 0.1, w_q 1/512, gentle, ECN marking"
    # datatag: R1->R2 1 Gbps, 58 ms, 170 packets; BDP 1e9 x 0.12 / 12,000 = 10,000 packets
    scs, p = datatag_params()
    bn = scs["fast/txq100"]["topology"]["links"][2]
    assert (bn["a"], bn["b"], bn["queue"]["limit"]) == ("R1", "R2", 170)
    assert value(p, "bottleneck") == "R1->R2 1000Mbps, 58 ms, DropTail 170 packets both ways (BDP 10000 packets)"
    # the reverse on-off source: 2 Gbps while on, 1 ms on / 9 ms off: mean 2e9 x 1 / 10 =
    # 200 Mbps, 20 % of the bottleneck
    rev = next(t for t in scs["fast/txq100"]["traffic"] if t["kind"] == "onoff")
    assert (rev["rate"], rev["on_time"], rev["off_time"]) == ("2000000000bps", "1ms", "9ms")
    assert "mean 200Mbps = 20 % of R2->R1" in value(p, "reverse_traffic")
    # dcr: the q of the reorder runs (0 where no [[reorder]]), flows per part from the pairs,
    # the buffer = BDP of 1 Gbps x 50 ms in 1500 B packets, rounded up: 4167
    scs, p = dcr_params()
    assert value(p, "q") == [0.0, 0.001, 0.01, 0.05, 0.1]
    assert scs["bic/reorder/q0.01"]["reorder"][0]["q"] == 0.01 and "reorder" not in scs["bic/reorder/q0"]
    assert value(p, "flows") == {"reorder": 1, "congestion": 4, "both": 4}
    assert scs["ltcp/both/q0.1"]["topology"]["pairs"] == 4 and value(p, "buffer_pkts") == 4167
    assert value(p, "bottleneck") == "R1->R2 1000 Mbps, 15 ms"
    # riops-web: the RTT is 2 x (2 x access 1 ms + bottleneck 48 ms) = 100 ms
    scs, p = web_params()
    assert value(p, "topology") == "dumbbell; access 100Mbps 1ms; bottleneck 48ms (RTT 100 ms)"
    # BDP = rate x RTT / (8 x 500 B): 8e6 x 0.1 / 4000 = 200; 4.8e6 x 0.1 / 4000 = 120
    assert value(p, "bottleneck_rate") == "8 Mbps (Exp1, BDP 200), 4.8 Mbps (Exp2, BDP 120)"


# ---- the values that were wrong before (the copy differed from what ran) ------------------------

def test_loss_sensitivity_reports_the_min_rto_it_ran():
    # it ran with min RTO 400 ms (the paper's 4 x RTT) but reported riops_common's 0.2 s
    # (its TCP_PARAMS overrode the experiment's own 0.4 in the merged table)
    scs, p = loss_params()
    assert {s["tcp"]["min_rto"] for s in scs.values()} == {"400ms"}
    assert p["min_rto_s"] == {"value": 0.4, "source": "paper (RTO = 4 x RTT)"}


def test_attacks_quick_reports_the_rates_it_ran():
    # --quick runs 10^4 and 10^5 pps only; the copy listed 10^6 too
    _, p = attacks_params(quick=True)
    assert value(p, "rates_pps") == [10_000, 100_000]
    _, p = attacks_params(quick=False)
    assert value(p, "rates_pps") == [10_000, 100_000, 1_000_000]


def test_riops_web_reports_each_experiments_initial_rto():
    # exp1-ito1 runs with ITO 1 s; the copy reported 3 s for every run
    scs, p = web_params()
    assert {n: s["tcp"]["init_rto"] for n, s in scs.items() if n.endswith("/red")} == {
        "exp1-ito3/red": "3s", "exp1-ito1/red": "1s", "exp2-ito3/red": "3s"}
    assert value(p, "init_rto_s") == {"exp1-ito3": 3.0, "exp1-ito1": 1.0, "exp2-ito3": 3.0}


def test_mbs_reports_the_probe_run_it_ran():
    # run(probe_duration_s=...) ran the probes that long but the report said the default 3 s
    scs, p = mbs_params(probe_duration_s=1.5)
    assert scs["probe/onoff"]["duration"] == "1.5s" and value(p, "probe_run_s") == 1.5


def test_mbs_texts_carry_the_fields():
    scs, p = mbs_params()
    links = {(x["a"], x["b"]): x for x in scs["window/b64"]["topology"]["links"]}
    assert links[("R", "D")]["queue"] == {"kind": "droptail", "limit": 1_000_000, "unit": "bytes"}
    assert value(p, "bottleneck") == "R->D 1000Mbps, DropTail 1,000,000 bytes (666.7 full packets)"
    # on-off X1 1 Gbps and X2 622 Mbps, 2 ms on / 8 ms off: mean (1000 + 622) x 0.2 = 324.4 Mbps
    assert value(p, "cross_on_off") == "on 2 ms / off 8 ms mean, exponential; mean load 324.4Mbps"
    assert value(p, "cbr_rates") == [f"{r / 1e6:g}Mbps" for r in mbs.CBR_RATES]


# ---- a changed builder constant shows up in the report ------------------------------------------
# Each change reaches the report only through the scenario: a hand-kept copy would still
# say the old value.

@pytest.mark.parametrize("build,module,const,new,param,expect", [
    (short_long_params, short_long, "BUFFER_PKTS", 33, "buffer_pkts", 33),
    (short_long_params, short_long, "EPOCH", "40ms", "epoch_ms", 40),
    (jumbo_params, jumbo, "SP_CWND", 40, "sp_cwnd", 40),
    (jumbo_params, jumbo, "LINK_DELAY", "5ms", "links", "100Mbps, 5ms (access and R->d)"),
    (attacks_params, attacks, "ATTACK_LEN", 7, "attack_len", 7),
    (incast_params, incast, "MIN_RTO", "300ms", "min_rto_ms", 300),
    (incast_params, incast, "BUFFER_PKTS", 64, "buffer_pkts", 64),
    (threshold_params, threshold, "RULE_WEIGHT", 0.5, "rule_weight", 0.5),
    (threshold_params, threshold, "INCAST_DURATION_S", 8.0, "incast",
     ("the incast of our specification in its datacenter regime (sender links 1 Gbps / 25 us), variant superpacket, "
      "jitter 20 us, 8 s runs")),
    (loss_params, loss_sensitivity, "MIN_RTO", "300ms", "min_rto_s", 0.3),
    (incast_map_params, incast, "EPOCH", "40ms", "bottleneck", "R->D 100Mbps, buffer 50, EPOCH 40 ms"),
    (incast_map_params, incast, "INIT_CWND", 4, "incast", "10 senders x one 10-packet flow, initial cwnd 4"),
    # 500,000 B = 333.3 packets of 1500 B; the BDP (1 Gbps x 80 ms / 12,000 bit) stays 6667
    (lion_params, lion, "QUEUE_BYTES", 500_000, "buffer",
     "DropTail 500,000 bytes (333.3 full packets; BDP 6667 packets)"),
    (lion_params, lion, "START_JITTER_S", 0.02, "start", "both flows at uniform [0, 20 ms)"),
    (datacenter_params, datacenter, "INIT_RTO", "20ms", "tcp",
     "MSS 1460, initial cwnd 10, delayed ACK off, NewReno recovery, min RTO 10ms, initial RTO 20ms"),
    (datacenter_params, datacenter, "NIC_PKTS", 250, "host_nic",
     "DropTail 250 (DCTCP: marking at K = 65); a NIC drop -> CWR (local_drop = cwr)"),
    (datacenter_params, datacenter, "SP_THRESHOLD", 100, "superpacket",
     ("flows <= 64 packets (93,440 B) as one super-packet, fallback to NewReno on a denial; router buffSize 500, "
      "t = 100, EPOCH 80 ms, Bloom 2^16 x 4, SYNs admitted, at every switch port")),
    (datacenter_params, datacenter, "QUEUE_INTERVAL", "50us", "queue_interval",
     ("50 us; queue_p99_pkts, queue_mean_pkts (host-facing) and uplink_queue_p99_pkts over the samples in [W, T); "
      "series of the first seed at the figure load")),
    # the host-facing sampled port follows the incast client (h{leaf}_{i}: h2_3 is on leaf2)
    (datacenter_params, datacenter, "INCAST", {**datacenter.INCAST, "client": "h2_3"}, "queue_ports",
     "leaf2->h2_3 (host-facing, the incast client's port), leaf2->spine0 (leaf uplink)"),
    (datatag_params, bc_common, "BIG_QUEUE_PKTS", 5000, "other_queues", "DropTail 5000 packets (never full)"),
    (datatag_params, bc_common, "START_JITTER_S", 0.05, "start", "each flow at uniform [0, 50 ms)"),
    (dcr_params, dcr, "HOST_QUEUE_PKTS", 5000, "access_links", "10Gbps, 5 ms, DropTail 5000 packets"),
    (dcr_params, dcr, "REORDER_SD_MS", 4.0, "reorder_model",
     ("each data packet on R1->R2 with probability q gets an extra delay from N(25 ms, 4 ms), redrawn when "
      "negative, after the wire (later packets overtake it); ACKs not reordered")),
    (dcr_multihop_params, dcr_multihop, "HOST_RATE", "40Gbps", "host_links",
     "40Gbps, 10 ms, DropTail 100000 packets"),
    # 5 ms chain links: R1 -> R5 is 2 x (4 x 5 + 2 x 10) = 80 ms
    (dcr_multihop_params, dcr_multihop, "LINK_DELAY_MS", 5.0, "rtt_longest_ms", 80.0),
    (mbs_params, mbs, "HOST_QUEUE_PKTS", 500, "access_links",
     "S-R 1000Mbps, X1-R 1000Mbps, X2-R 622Mbps; host queues DropTail 500 packets"),
    (mbs_params, mbs, "PROBE_TRIALS", 5, "probe",
     ("mbs_probe from S: trains at line rate from 2 packets doubling to the first loss, then binary search, "
      "5 trials per size, max train 4096; FAC trains of 100 (capped at the MBS)")),
    (web_params, riops_web, "SP_LEN", 5, "superpacket",
     "limit = RED's B, t = B/2, EPOCH 80 ms, admit SYN, senders: runs of 5"),
])
def test_a_changed_builder_constant_is_reported(monkeypatch, build, module, const, new, param, expect):
    _, before = build()
    assert value(before, param) != expect  # the change is a change
    monkeypatch.setattr(module, const, new)
    _, after = build()
    assert value(after, param) == expect


def test_a_changed_shared_tcp_setting_is_reported(monkeypatch):
    # riops_common.TCP feeds riops-goodput, riops-web and loss-sensitivity alike
    monkeypatch.setitem(riops_common.TCP, "max_cwnd", 64)
    for build in (goodput_params, web_params, loss_params):
        assert value(build()[1], "max_cwnd_pkts") == 64


def test_threshold_skips_from_the_buffer_the_scenario_has(monkeypatch):
    # t above the base's buffer is skipped; the buffer is read from the built scenario
    # (short-long's 20 now, 30 after the change), no longer from a copy in threshold.py
    assert {s["variant"] for s in threshold.variant_names()[1]} == {"short-long/t=30", "short-long/t=40"}
    monkeypatch.setattr(short_long, "BUFFER_PKTS", 30)
    assert {s["variant"] for s in threshold.variant_names()[1]} == {"short-long/t=40"}


def test_run_reports_what_it_ran(monkeypatch):
    """The summary of a real run (short-long, 2 s, one seed) says buffer 33 after the
    builder's constant changed, and its params are exactly those derived from the
    scenarios built the same way (run() runs the very dicts it reads)."""
    monkeypatch.setattr(short_long, "BUFFER_PKTS", 33)
    r = short_long.run(seeds=1, duration_s=2.0)
    assert r["params"]["buffer_pkts"]["value"] == 33
    _, p = short_long_params(2.0)
    assert r["params"] == p


# ---- the helpers ---------------------------------------------------------------------------------

def test_field_same_and_units():
    sc = {"name": "x", "topology": {"links": [{"rate": "1Gbps"}, {"queue": {"limit": 5}}]}}
    assert field(sc, "topology.links[1].queue.limit") == 5
    with pytest.raises(ValueError, match=r"^topology.links\[2\].rate: no such field in scenario 'x'$"):
        field(sc, "topology.links[2].rate")
    assert same(3, 3, 3) == 3
    with pytest.raises(ValueError, match="differ"):  # a single reported value over fields that differ
        same(20, 20, 30)
    assert seconds("80ms") == 0.08 and seconds("32.0s") == 32.0 and seconds("100us") == 1e-4
    assert ms("80ms") == 80 and isinstance(ms("80ms"), int) and ms("0.5ms") == 0.5
    scs = {"a": {"q": 1}, "b": {"q": 2}}
    assert Sc("q").value(scs) == 1  # no variant: the first scenario
    assert Sc("a:q", "b:q", fmt=lambda x, y: x + y).value(scs) == 3
    with pytest.raises(ValueError, match="differ"):
        Sc("a:q", "b:q").value(scs)
