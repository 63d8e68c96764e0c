"""`superpacket reproduce datacenter` (issue 16 sections 4-5) at quick scale: the ideal FCT
on the fabric derived by hand, the bucket and size-bin statistics against hand-made data,
variant naming, the claims' logic on synthetic inputs, the --quick run's JSON layout
(DESIGN.md) through the command line, and its report.

Units of the derivations: a full data packet is 1500 B on the wire, a SYN, SYN-ACK or ACK
40 B; host links 10 Gbps (1500 B in 1.2 us, 40 B in 32 ns), fabric links 40 Gbps (0.3 us,
8 ns), 1 us per link; h0_0 -> h1_0 crosses 4 links (host, leaf uplink, spine downlink,
host-facing)."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from superpacket import api, experiment_figures, reports
from superpacket.experiments import EXPERIMENTS, datacenter
from superpacket.experiments.datacenter import QUICK

EXE = str(Path(sys.executable).parent / "superpacket")
US = 1e-6
HOP_SYN = {"host": 40 * 8 / 10e9, "fabric": 40 * 8 / 40e9}
HOP_DATA = {"host": 1500 * 8 / 10e9, "fabric": 1500 * 8 / 40e9}


def path_time(per_hop: dict[str, float]) -> float:
    """Store-and-forward over host, fabric, fabric, host links, 1 us each."""
    return 2 * per_hop["host"] + 2 * per_hop["fabric"] + 4 * US


@pytest.mark.parametrize("pkts", [1, 2, 10])
def test_ideal_fct_on_the_fabric_by_hand(pkts):
    # alone on the empty fabric: SYN over 4 links, SYN-ACK back, then the first data packet
    # stored and forwarded over the 4 links, the others one 10 Gbps packet time apart:
    # 1 packet: 2 x 4.08 + 7.0 = 15.16 us
    hand = 2 * path_time(HOP_SYN) + path_time(HOP_DATA) + (pkts - 1) * HOP_DATA["host"]
    sc = {"name": "one", "duration": "10ms", "topology": datacenter.topology(QUICK, "droptail-newreno"),
          "tcp": datacenter.tcp_spec("droptail-newreno"),
          "traffic": [{"kind": "flow", "from": "h0_0", "to": "h1_0", "size_pkts": pkts}]}
    f = api.run(sc, seed=1, progress=False).flows.to_dicts()[0]
    assert f["size_bytes"] == pkts * datacenter.MSS
    assert f["ideal_fct_s"] == pytest.approx(hand, abs=2e-9)
    assert f["fct_s"] == pytest.approx(hand, abs=2e-9)  # alone: the ideal is reached
    assert f["slowdown"] == pytest.approx(1.0, abs=1e-4)


def test_variant_names():
    assert datacenter.variant_name("web_search", 0.5, "dctcp") == "web_search/0.5/dctcp"
    assert datacenter.parse_variant("incast/0.7/sp-newreno") == ("incast", 0.7, "sp-newreno")
    for v in datacenter.FULL.variants():
        assert datacenter.variant_name(*datacenter.parse_variant(v)) == v
    assert len(datacenter.FULL.variants()) == 3 * 3 * len(datacenter.SCHEMES)
    for bad in ("web_search/0.5", "web/0.5/dctcp", "web_search/x/dctcp", "web_search/0.5/reno", "a/0.5/dctcp/x"):
        with pytest.raises(datacenter.DatacenterInputError):
            datacenter.parse_variant(bad)


def test_scenarios_have_the_scheme_queues():
    # DCTCP: K = 65 at the 10 Gbps switch ports, 260 at the 40 Gbps ones, 65 at the NICs
    sc = datacenter.scenario("web_search/0.5/dctcp", QUICK)
    q = {e["ports"]: e["queue"] for e in sc["topology"]["queues"]}
    assert q["host_facing"]["ecn_threshold"] == 65
    assert q["leaf_uplinks"]["ecn_threshold"] == q["spine_downlinks"]["ecn_threshold"] == 260
    assert q["host_nics"] == {"kind": "droptail", "limit": 500, "ecn_threshold": 65}
    assert sc["tcp"]["cc"] == "dctcp"
    # super-packets: flows of at most 64 packets as one super-packet, the incast answers too
    sp = datacenter.scenario("incast/0.5/sp-newreno", QUICK)
    assert sp["traffic"][0]["short_tcp"] == {"max_bytes": 64 * 1460, "tcp": datacenter.SP_TCP}
    assert sp["traffic"][1]["kind"] == "incast" and sp["traffic"][1]["tcp"] == datacenter.SP_TCP
    assert sp["topology"]["host_link"]["queue"]["kind"] == "superpacket"
    # every scheme's scenario is accepted by the simulator's schema
    from superpacket import _core

    for s in datacenter.SCHEMES:
        _core.Simulation(json.dumps(datacenter.scenario(f"incast/0.3/{s}", QUICK)), "json", 1)


def test_quantile_and_buckets_by_hand():
    # type-7 quantiles: of 1..5, the median is 3, p99 = 4 + 0.96 x (5 - 4) = 4.96
    assert datacenter.quantile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5) == 3.0
    assert datacenter.quantile([5.0, 1.0, 3.0, 2.0, 4.0], 0.99) == pytest.approx(4.96)
    assert math.isnan(datacenter.quantile([], 0.5))
    sizes = [1_000, 50_000, 99_999, 100_000, 999_999, 1_000_000, 20_000_000, 10_000_000]
    slow = [2.0, 4.0, 6.0, 10.0, 20.0, 1.5, 1.2, 1.1]
    rows = {r["bucket"]: r for r in datacenter.bucket_summary(sizes, slow)}
    assert [r for r in rows] == ["0-100KB", "100KB-1MB", "1-10MB", ">10MB"]
    assert rows["0-100KB"] == {"bucket": "0-100KB", "count": 3, "mean": 4.0, "median": 4.0,
                               "p99": pytest.approx(4.0 + 0.98 * 2.0)}
    assert rows["100KB-1MB"]["count"] == 2 and rows["100KB-1MB"]["mean"] == 15.0
    assert rows["1-10MB"]["count"] == 1 and rows["1-10MB"]["p99"] == 1.5
    # exactly 10 MB is no longer "1-10MB" (lower bounds included); > 10 MB gets both
    assert rows[">10MB"]["count"] == 2 and rows[">10MB"]["mean"] == pytest.approx(1.15)


def test_size_bins_by_hand():
    # 4 bins a decade: 1,000 B and 1,500 B share [10^3, 10^3.25); 2,000 B is in [10^3.25, 10^3.5)
    b = datacenter.size_bins([1_000, 1_500, 2_000], [1.0, 3.0, 7.0])
    assert b["count"] == [2, 1]
    assert b["size_bytes"] == pytest.approx([10**3.125, 10**3.375])
    assert b["p50"] == [2.0, 7.0]
    assert b["p99"] == pytest.approx([1.0 + 0.99 * 2.0, 7.0])


def _v(p99, mean=10.0, large=2.0, drop=0.01):
    return {"small_p99_slowdown": p99, "small_mean_slowdown": mean, "large_mean_slowdown": large,
            "sp_denied_pct": 1.0, "small_timeout_pct": 2.0, "drop_rate": drop}


def test_claims_logic():
    variants = {"web_search/0.5/droptail-newreno": _v(100.0), "web_search/0.5/dctcp": _v(20.0),
                "web_search/0.7/droptail-newreno": _v(100.0), "web_search/0.7/dctcp": _v(150.0),
                "web_search/0.5/sp-newreno": _v(120.0, mean=5.0, drop=0.03)}
    cs = datacenter.claims(variants, (0.5, 0.7), {"web_search/0.5/sp-newreno": "because"})
    must = [c for c in cs if c["must_hold"]]
    assert [c["holds"] for c in must] == [True, False]
    assert must[0]["ratio"] == pytest.approx(0.2)
    sp = [c for c in cs if not c["must_hold"]]
    # better mean but a worse p99: not "below DropTail's"; the explanation travels with it
    assert len(sp) == 1 and sp[0]["holds"] is False and sp[0]["why"] == "because"
    # shown where they lose: small flows here, and the drop rate (3 % against 1 %)
    assert sp[0]["lose_on"] == ["small flows", "drop rate (3.000 % vs 1.000 %)"]
    assert sp[0]["claim"].endswith("they lose on small flows, drop rate (3.000 % vs 1.000 %), why: because")
    # only the loads run are judged (--quick: 0.5)
    assert len([c for c in datacenter.claims(variants, (0.5,)) if c["must_hold"]]) == 1


def test_tiers():
    links = [{"from": "h0_0", "to": "leaf0", "utilization": 0.5, "arrivals": 10, "marks": 1, "drops": 2,
              "drops_overflow": 2, "drops_red_early": 0},
             {"from": "leaf0", "to": "h0_0", "utilization": 0.2, "arrivals": 5, "marks": 0, "drops": 0},
             {"from": "leaf0", "to": "spine1", "utilization": 0.1, "arrivals": 4, "marks": 0, "drops": 0},
             {"from": "spine1", "to": "leaf0", "utilization": 0.3, "arrivals": 4, "marks": 0, "drops": 3,
              "drops_sp_threshold": 3},
             {"from": "h0_1", "to": "leaf0", "utilization": 0.1, "arrivals": 10, "marks": 0, "drops": 0}]
    t = datacenter.tier_stats(links)
    assert t["host_nic"]["links"] == 2 and t["host_nic"]["mean_utilization"] == pytest.approx(0.3)
    assert t["host_nic"]["max_utilization"] == 0.5 and t["host_nic"]["drops_overflow"] == 2
    assert "drops_red_early" not in t["host_nic"]  # causes that never happened are left out
    assert t["spine_down"]["drops_sp_threshold"] == 3 and set(t) == set(datacenter.TIERS)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """The command line's --quick run, one seed, one process: (JSON, its folder)."""
    out = tmp_path_factory.mktemp("dc")
    r = subprocess.run([EXE, "reproduce", "datacenter", "--quick", "--workers", "0", "--seeds", "1", "--json",
                        "--out", str(out)], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(r.stdout), out


def test_quick_json_layout(quick):
    s, _ = quick
    assert "datacenter" in EXPERIMENTS
    assert s["experiment"] == "datacenter" and s["seeds"] == 1 and s["quick"] is True
    assert list(s["variants"]) == sorted(QUICK.variants())
    for v, ms in s["variants"].items():
        for m in ("small_p99_slowdown", "small_mean_slowdown", "large_mean_slowdown", "drop_rate"):
            assert math.isfinite(ms[m]), (v, m)
            assert len(ms[f"{m}_per_seed"]) == 1 and ms[f"{m}_ci95"] == [ms[m], ms[m]]
        # an independent bound: no flow beats its ideal, so the means and p99 are >= 1
        assert ms["small_mean_slowdown"] >= 1.0 and ms["large_mean_slowdown"] >= 1.0
        assert ms["small_p99_slowdown"] >= ms["small_mean_slowdown"] * 0.5
        assert 0.0 <= ms["drop_rate"] < 1.0
    assert all(p["source"] for p in s["params"].values())
    must = [c for c in s["claims"] if c["must_hold"]]
    assert len(must) == 1 and "holds" in must[0]  # quick runs 0.5 only
    assert must[0]["dctcp_small_p99_slowdown"] == s["variants"]["web_search/0.5/dctcp"]["small_p99_slowdown"]
    sp = [c for c in s["claims"] if not c["must_hold"]]
    assert len(sp) == 1 and "refused" in sp[0]["why"]
    # every run conserved its packets
    assert all(r["conservation"] == "ok" for runs in s["per_run"].values() for r in runs)
    # the bucket rows count the flows the size bins count
    for v in QUICK.variants():
        assert sum(r["count"] for r in s["buckets"][v]) == sum(s["size_bins"][v]["count"])


def test_quick_flows_never_beat_their_ideal():
    r = api.run(datacenter.scenario("web_search/0.5/droptail-newreno", QUICK), seed=2, progress=False)
    fl = r.flows.filter(r.flows["completed"])
    assert fl.height > 100
    # FCT >= ideal FCT, up to the ideal's rounding to whole ns (rows keep it as u32 ns)
    assert (fl["fct_s"] - fl["ideal_fct_s"]).min() >= -1e-8


def test_quick_report(quick):
    s, out = quick
    figs = experiment_figures.build(s)
    assert [f.name for f in figs] == ["datacenter_overview", "datacenter_slowdown_vs_size"]
    # the overview plots the summary's means
    d = figs[0].data["web_search/small_p99_slowdown/dctcp"]
    assert d["mean"] == [s["variants"]["web_search/0.5/dctcp"]["small_p99_slowdown"]]
    reports.report(out)
    md = (out / "report.md").read_text()
    assert "datacenter_overview.png" in md and "datacenter_slowdown_vs_size.png" in md
    assert "0-100KB" in md and "spine_down" in md
