"""`superpacket reproduce incast` (seeds/000 section 4.2, SCENARIOS.md "Super-packets /
incast") in its two regimes, at small scale: SCENARIOS.md's must-holds in the paper
regime, the admissions and completion times derived from the link rates by hand, the
datacenter regime's finding and its cause, the JSON layout and the command line.

Units used in the derivations: every packet of a flow is 1500 B on the wire, a SYN,
SYN-ACK or pure ACK 40 B; at 100 Mbps one full packet takes T = 120 us to send and a
40 B packet 3.2 us."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from handstats import assert_ci_of
from record_check import assert_claims_declared
from superpacket.experiments import incast

EXE = str(Path(sys.executable).parent / "superpacket")
SEEDS = 3

T_MS = 1500 * 8 / 100e6 * 1e3  # 0.12 ms: one full packet at the 100 Mbps bottleneck
S_MS = 40 * 8 / 100e6 * 1e3  # 0.0032 ms: a SYN or ACK at 100 Mbps
D_MS = 1.0  # the paper regime's one-way delay, every link
JITTER_MS = 0.1  # SCENARIOS.md: start offsets uniform in [0, 100 us)
MIN_RTO_MS = 200.0


@pytest.fixture(scope="module")
def result():
    return incast.run(seeds=SEEDS)


def test_claims_are_the_records(result, regime_map):
    """The claims judged are the ones the records declare, with their texts: incast's in both
    regimes (the paper regime's judged wherever it is), incast-map's."""
    assert_claims_declared(result)
    assert_claims_declared(incast.run(seeds=1, regime="datacenter"))
    assert_claims_declared(regime_map)


def per_seed(block, variant):
    return block["per_flow"][variant]


def test_paper_regime_must_holds(result):
    # SCENARIOS.md "Must hold", judged in the paper regime: superpacket >= 25 % below
    # DropTail, ideal >= 40 % below, 5 to 7 super-packets admitted in round 1 on average
    # (paper: 0.197 / 0.130 / 0.0857 s, 6 of 10 in one round)
    v = result["variants"]
    dt = v["droptail"]["mean_fct_s"]
    assert (dt - v["superpacket"]["mean_fct_s"]) / dt >= 0.25
    assert (dt - v["ideal"]["mean_fct_s"]) / dt >= 0.40
    for sp in ("superpacket", "ideal"):
        assert 5.0 <= v[sp]["sp_round1_admitted"] <= 7.0
    # the claims in the JSON say the same, each judged on the numbers it carries
    must = [c for c in result["claims"] if c["must_hold"]]
    assert len(must) == 4 and all(c["holds"] for c in must)
    assert must[0]["improvement_pct"] == pytest.approx((dt - v["superpacket"]["mean_fct_s"]) / dt * 100)
    assert must[1]["improvement_pct"] == pytest.approx((dt - v["ideal"]["mean_fct_s"]) / dt * 100)


def test_paper_regime_admits_t_plus_one_at_once(result):
    # Every link at the bottleneck rate: a sender's super-packet reaches R one packet per
    # T, the rate R drains it. The ten first packets reach R within about one T of each
    # other (start offsets < 100 us, the same 1 ms delays on every path), before any
    # second packet: the first goes straight into transmission, each later one is
    # admitted while fewer than t = 5 wait. So t + 1 = 6 are admitted in round 1, in
    # every seed, and the four refused are the flows that time out.
    for sp in ("superpacket", "ideal"):
        for run in per_seed(result, sp):
            assert run["sp_admitted_per_round"][0] == incast.THRESHOLD_T + 1
            in_one_round = sum(1 for k in run["timeouts"] if k == 0)
            assert in_one_round == run["sp_admitted_per_round"][0]
            # a refused flow is exactly one whose super-packet the router denied
            assert [k > 0 for k in run["timeouts"]] == [d > 0 for d in run["sp_denied"]]
    # with the paper's fallback a refused flow never sends another super-packet: one
    # round only; the ideal scheme retries the four together after the same 200 ms
    # timeout into an empty queue, and 4 <= t + 1 are admitted at once (round 2)
    assert result["admitted_per_round"]["superpacket"] == [6.0, 0.0, 0.0, 0.0]
    assert result["admitted_per_round"]["ideal"] == [6.0, 4.0, 0.0, 0.0]


def test_paper_regime_completion_times_by_hand(result):
    # a flow admitted in round 1: the handshake takes at least 4 (D + S) (SYN and SYN-ACK
    # over two links each), then its ten packets leave the sender over 10 T, cross to R
    # (D), the last one is sent on R->d (T) and propagates (D):
    lo = 4 * (D_MS + S_MS) + 10 * T_MS + D_MS + T_MS + D_MS  # 7.33 ms
    # at the latest: the last flow starts at 0.1 ms, its SYN and SYN-ACK may wait behind
    # the nine others' (2 x 9 x S), the first data packet reaches R after T + D, the
    # bottleneck then sends the six admitted super-packets (60 packets) back to back,
    # and the last one propagates D
    hi = JITTER_MS + 2 * 9 * S_MS + 4 * (D_MS + S_MS) + T_MS + D_MS + 60 * T_MS + D_MS  # 13.49 ms
    # the ideal scheme's retried flows: the first send times out after the minimum RTO
    # (RFC 6298: srtt + 4 rttvar of the 4 ms handshake is 12 ms, below 200 ms), then
    # the same path as above with the four retried super-packets (40 packets)
    retry_lo = MIN_RTO_MS + lo
    retry_hi = MIN_RTO_MS + hi - 20 * T_MS
    for sp in ("superpacket", "ideal"):
        for run in per_seed(result, sp):
            for fct, k in zip(run["fct_s"], run["timeouts"], strict=True):
                if k == 0:
                    assert lo <= fct * 1e3 <= hi
                elif sp == "ideal":
                    assert k == 1 and retry_lo <= fct * 1e3 <= retry_hi
                else:  # fallback to NewReno after at least one 200 ms timeout
                    assert fct * 1e3 >= retry_lo
    # so the ideal mean FCT lies within (6 lo + 4 retry_lo) / 10 .. (6 hi + 4 retry_hi) / 10
    m = result["variants"]["ideal"]["mean_fct_s"] * 1e3
    assert (6 * lo + 4 * retry_lo) / 10 <= m <= (6 * hi + 4 * retry_hi) / 10


def test_datacenter_regime_finding_and_its_cause(result):
    b = result["regimes"]["datacenter"]
    v = b["variants"]
    # sender links ten times the bottleneck rate: an admitted super-packet's later
    # packets arrive every 12 us and put t = 5 packets in the queue 60 us after the
    # first one, before the first departure (120 us): the first packets that come later
    # are refused. Fewer than t + 1 get in, in every seed (SCENARIOS.md: 2 to 5).
    for run in b["per_flow"]["superpacket"]:
        assert 1 <= run["sp_admitted_per_round"][0] <= incast.THRESHOLD_T
    assert 2.0 <= v["superpacket"]["sp_round1_admitted"] <= 5.0
    # the refused flows fall back to NewReno against an effective buffer of t and time
    # out again and again: more timeouts per refused flow than per DropTail flow, and
    # super-packets lose to DropTail
    assert b["denied_flows_mean_timeouts"]["superpacket"] > 1.0 >= b["droptail_mean_timeouts"]
    assert v["superpacket"]["mean_fct_s"] > v["droptail"]["mean_fct_s"]
    assert b["improvement_pct"]["superpacket"] < 0
    finding = [c for c in result["claims"] if not c["must_hold"]]
    assert len(finding) == 1 and finding[0]["holds"] and "datacenter" in finding[0]["claim"]
    assert "effective buffer of t = 5" in b["explanation"]


def test_every_flow_completes_and_packets_are_conserved(result):
    for b in (result, result["regimes"]["datacenter"]):
        assert b["flows_not_completed"] == {"droptail": 0, "superpacket": 0, "ideal": 0}
        assert all(c == "ok" for cs in b["conservation"].values() for c in cs)


def test_json_layout(result):
    assert result["experiment"] == "incast" and result["seeds"] == SEEDS and result["regime"] == "paper"
    assert set(result["regimes"]) == {"datacenter"}
    for b in (result, result["regimes"]["datacenter"]):
        for v in ("droptail", "superpacket", "ideal"):
            ms = b["variants"][v]
            for m in ("mean_fct_s", "flows_with_timeout") + (("sp_round1_admitted",) if v != "droptail" else ()):
                assert len(ms[f"{m}_per_seed"]) == SEEDS
                assert_ci_of(ms[m], ms[f"{m}_ci95"], ms[f"{m}_per_seed"])
            runs = b["per_flow"][v]
            assert len(runs) == SEEDS and all(len(r["fct_s"]) == len(r["timeouts"]) == 10 for r in runs)
            # the per-seed counts are those of the per-flow RTOs and FCTs
            assert ms["flows_with_timeout_per_seed"] == [sum(1 for k in r["timeouts"] if k > 0) for r in runs]
            assert ms["mean_fct_s_per_seed"] == pytest.approx([sum(r["fct_s"]) / 10 for r in runs])
    assert result["paper"]["droptail"]["mean_fct_s"] == 0.197
    assert all("source" in p for p in result["params"].values())
    assert result["params"]["jitter_us"]["value"] == 100.0


def test_regime_option_swaps_the_blocks(result):
    # both regimes are run either way; --regime picks the one under `variants`, and the
    # claims stay judged in the paper regime
    dc = incast.run(seeds=SEEDS, regime="datacenter")
    assert dc["regime"] == "datacenter" and set(dc["regimes"]) == {"paper"}
    assert dc["variants"] == result["regimes"]["datacenter"]["variants"]
    assert dc["regimes"]["paper"]["variants"] == result["variants"]
    assert dc["claims"] == result["claims"]
    # the record names the regimes the terminal tells (reproduce prints each from it)
    assert incast.EXPERIMENT.regimes == ("paper", "datacenter") == (result["regime"], *result["regimes"])


def test_command_line(result):
    r = subprocess.run([EXE, "reproduce", "incast", "--seeds", str(SEEDS), "--json"], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == json.loads(json.dumps(result))
    r = subprocess.run([EXE, "reproduce", "incast", "--seeds", "1"], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert "regime datacenter (sender links 1Gbps, 25us" in r.stdout and "HOLDS" in r.stdout


@pytest.mark.parametrize("args,needle", [
    (["incast", "--regime", "lan"], "regime: unknown regime 'lan'; allowed: paper, datacenter"),
    (["jumbo", "--regime", "paper"], "--regime applies to incast only"),
    (["incast", "--jitter-us=-1"], "--jitter-us must be >= 0"),
])
def test_bad_input_on_the_command_line(args, needle):
    r = subprocess.run([EXE, "reproduce", *args, "--json"], capture_output=True, text=True, check=False)
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr


def test_bad_input_in_python():
    with pytest.raises(incast.IncastInputError, match=r"^regime: unknown regime"):
        incast.run(seeds=1, regime="wan")
    with pytest.raises(incast.IncastInputError, match=r"^jitter_us: must be >= 0"):
        incast.run(seeds=1, jitter_us=float("nan"))


# ---- the regime map (`superpacket reproduce incast-map`) ---------------------------------

@pytest.fixture(scope="module")
def regime_map():
    from superpacket.experiments import incast_map

    return incast_map.run(seeds=SEEDS)


def map_rows(m):
    return {(r["access_rate"], r["delay"], r["t"], r["variant"]): r for r in m["map"]}


def test_map_points_are_the_single_point_runs(result, regime_map):
    # the map's (100 Mbps, 1 ms, t = 5) and (1 Gbps, 25 us, t = 5) are `reproduce incast`'s
    # paper and datacenter regimes: the same scenarios and seeds, so the same numbers
    from superpacket.experiments import incast_map

    rows = map_rows(regime_map)
    for regime, block in (("paper", result), ("datacenter", result["regimes"]["datacenter"])):
        rate, delay = incast.REGIMES[regime]["access_rate"], incast.REGIMES[regime]["delay"]
        dt = regime_map["variants"][incast_map.point(rate, delay, "droptail")]
        assert dt["mean_fct_s_per_seed"] == block["variants"]["droptail"]["mean_fct_s_per_seed"]
        for v in ("superpacket", "ideal"):
            ms = regime_map["variants"][incast_map.point(rate, delay, v, 5)]
            for m in ("mean_fct_s", "flows_with_timeout", "sp_round1_admitted"):
                assert ms[f"{m}_per_seed"] == block["variants"][v][f"{m}_per_seed"], (regime, v, m)
            row = rows[(rate, delay, 5, v)]
            # the map's relative FCT is the single point's cut below DropTail, read back
            assert row["rel_fct"] == pytest.approx(1 - block["improvement_pct"][v] / 100)
            assert regime_map["incast_points"][regime][v] == row["rel_fct"]
    # and so the corner reproduces the paper's claims: superpacket >= 25 %, ideal >= 40 % below
    assert rows[("100Mbps", "1ms", 5, "superpacket")]["rel_fct"] <= 0.75
    assert rows[("100Mbps", "1ms", 5, "ideal")]["rel_fct"] <= 0.60


def test_map_admitted_at_once_by_hand(regime_map):
    from superpacket.experiments import incast_map

    v = regime_map["variants"]
    for t in incast_map.TS:
        for sp in ("superpacket", "ideal"):
            # access rate = bottleneck rate: min(10, t + 1) in every seed (the ten first
            # packets arrive within one packet time; t wait, one is in transmission)
            for delay in incast_map.DELAYS:
                assert v[incast_map.point("100Mbps", delay, sp, t)]["sp_round1_admitted_per_seed"] == \
                    [min(10, t + 1)] * SEEDS
            # the delay is the same on every path, so it shifts every flow's first packet
            # by the same time: the admission race, seed by seed, does not depend on it
            for rate in incast_map.RATES:
                seen = {tuple(v[incast_map.point(rate, d, sp, t)]["sp_round1_admitted_per_seed"])
                        for d in incast_map.DELAYS}
                assert len(seen) == 1, (rate, t, sp, seen)
    # faster senders: an admitted super-packet's later packets fill the queue to t
    # sooner, so fewer first packets get in before it holds t: never more at a faster
    # access rate; at 10 Gbps (a packet every 1.2 us) the first one or two admitted
    # super-packets fill the queue to t within about 25 us, well inside the 100 us over
    # which the first packets arrive, so fewer than at 100 Mbps at every t
    rows = map_rows(regime_map)
    for d in incast_map.DELAYS:
        for t in incast_map.TS:
            a = [rows[(rate, d, t, "superpacket")]["admitted_at_once"] for rate in incast_map.RATES]
            assert a[0] >= a[1] >= a[2] and a[2] < a[0], (d, t, a)
    assert all(c["holds"] for c in regime_map["claims"])


def test_map_relative_fct_and_effects(regime_map):
    from superpacket.experiments import incast_map

    v = regime_map["variants"]
    for r in regime_map["map"]:
        sp = v[incast_map.point(r["access_rate"], r["delay"], r["variant"], r["t"])]
        dt = v[incast_map.point(r["access_rate"], r["delay"], "droptail")]
        # the ratio of the two means over the seeds
        assert r["rel_fct"] == pytest.approx(sum(sp["mean_fct_s_per_seed"]) / sum(dt["mean_fct_s_per_seed"]))
        assert r["effect"] == ("helps" if r["rel_fct"] < 0.99 else "hurts" if r["rel_fct"] > 1.01 else "same")
    assert len(regime_map["map"]) == 3 * 3 * 4 * 2
    # every flow of all 810 (here 243) runs finished, and packets were conserved
    assert regime_map["flows_not_completed"] == 0 and regime_map["conservation_ok"]
    # the map shows both: super-packets help somewhere and hurt somewhere
    effects = {r["effect"] for r in regime_map["map"]}
    assert {"helps", "hurts"} <= effects


def test_map_heatmaps_plot_the_summary(regime_map, tmp_path):
    from superpacket import reports
    from superpacket.reports import figure_kit

    d = tmp_path / "map"
    d.mkdir()
    (d / "summary.json").write_text(json.dumps(regime_map, sort_keys=True))
    s = json.loads((d / "summary.json").read_text())
    (f,) = figure_kit.build(s)
    assert f.name == "incast_map_heatmaps"
    rows = map_rows(s)
    assert sorted(f.data) == sorted(f"{v}/t={t}" for v in ("superpacket", "ideal") for t in (2, 5, 10, 20))
    for key, grid in f.data.items():
        v, t = key.split("/t=")
        for y, rate in enumerate(grid["access_rates"]):
            for x, delay in enumerate(grid["delays"]):
                r = rows[(rate, delay, int(t), v)]
                assert grid["rel_fct"][y][x] == r["rel_fct"] and grid["admitted_at_once"][y][x] == r["admitted_at_once"]
    reports.report(d)
    md = (d / "report.md").read_text()
    assert "](figures/incast_map_heatmaps.png)" in md and (d / "figures" / "incast_map_heatmaps.svg").exists()
    assert "metric_mean_fct_s" not in md  # 81 points: no generic bars


def test_map_on_dask_same_results(regime_map):
    from superpacket.cluster import dask_client
    from superpacket.experiments import incast_map

    with dask_client(workers=2) as client:
        on_dask = incast_map.run(seeds=1, client=client)
    assert on_dask == incast_map.run(seeds=1)


def test_map_command_line():
    from superpacket.experiments import incast_map

    # --quick without --seeds: the record's small scale, 3 seeds
    r = subprocess.run([EXE, "reproduce", "incast-map", "--quick", "--json"], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["experiment"] == "incast-map" and d["seeds"] == incast_map.EXPERIMENT.quick.seeds == 3
    assert len(d["map"]) == 72
    r = subprocess.run([EXE, "reproduce", "incast-map", "--regime", "paper"], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 2 and r.stderr.strip() == "superpacket: --regime applies to incast only"


def test_explanation_when_no_super_packet_was_refused(result):
    # with every SYN sent at once (--jitter-us 0) no super-packet is refused: the mean of
    # timeouts per refused flow is undefined (nan) and the text must say so, not print nan
    b = dict(result["regimes"]["datacenter"])
    b["denied_flows_mean_timeouts"] = {"superpacket": math.nan, "ideal": math.nan}
    for regime in ("paper", "datacenter"):
        text = incast._explanation(regime, b)
        assert "nan" not in text and "refused" in text, text
    assert "No super-packet was refused" in incast._explanation("paper", b)
