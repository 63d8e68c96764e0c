"""The command line: exit codes, --json without wall-clock figures, determinism."""

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

EXE = str(Path(sys.executable).parent / "superpacket")


def sp(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, *args], capture_output=True, text=True, cwd=cwd, check=False)


def test_incast_json_has_mean_fct_and_per_flow_fcts(examples):
    r = sp("run", str(examples / "incast.toml"), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    fcts = [f["fct_s"] for f in d["flows"]]
    assert len(fcts) == 10 and all(x is not None for x in fcts)
    assert d["mean_fct_s"] == pytest.approx(sum(fcts) / len(fcts))
    assert "wall_s" not in d
    assert d["summary"]["conservation"] == "ok"
    # with DropTail (50 packets) most of the 100 packets of the incast are dropped and the
    # flows time out: mean FCT above the 200 ms minimum RTO
    assert d["mean_fct_s"] > 0.2


def test_json_output_is_byte_identical_across_runs(examples):
    a = sp("run", str(examples / "dumbbell.toml"), "--json", "--seed", "7")
    b = sp("run", str(examples / "dumbbell.toml"), "--json", "--seed", "7")
    c = sp("run", str(examples / "dumbbell.toml"), "--json", "--seed", "8")
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    assert a.stdout != c.stdout


def test_timing_adds_wall_clock(examples):
    r = sp("run", str(examples / "incast.toml"), "--json", "--timing")
    assert "wall_s" in json.loads(r.stdout)


@pytest.mark.parametrize(
    "body",
    [
        (
            'duration = "1s"\n[topology]\nkind = "star"\nsenders = 0\n'
            'sender_link = {rate="1Gbps", delay="1us"}\nreceiver_link = {rate="1Gbps", delay="1us"}\n'
        ),
        'duration = "1s"\nbogus = 3\n',
        "this is not toml",
        'duration = "1 parsec"\n[topology]\nkind="star"\n',
    ],
)
def test_bad_input_exit_2_one_line(tmp_path, body):
    f = tmp_path / "bad.toml"
    f.write_text(body)
    r = sp("run", str(f))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr


def test_missing_file_exit_2(tmp_path):
    r = sp("run", str(tmp_path / "nope.toml"))
    assert r.returncode == 2
    assert "not found" in r.stderr


def test_out_dir_written(tmp_path, examples):
    r = sp("run", str(examples / "incast.toml"), "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    for name in ("flows.parquet", "links.parquet", "summary.json", "scenario.toml"):
        assert (tmp_path / "o" / name).exists()


def test_list(root):
    r = sp("list", cwd=root)
    assert r.returncode == 0
    assert "  incast " in r.stdout


def test_list_claims(root):
    """`list --claims`: the plain listing with each experiment's small scale and claims
    under it, from the records, nothing run; `list` alone shows none of them."""
    from superpacket.experiments import EXPERIMENTS

    plain = sp("list", cwd=root).stdout
    r = sp("list", "--claims", cwd=root)
    assert r.returncode == 0, r.stderr
    assert "    claim " not in plain and "    --quick: " not in plain
    added = ("    claim ", "    --quick: ")
    assert [x for x in r.stdout.splitlines() if not x.startswith(added)] == plain.splitlines()
    for exp in EXPERIMENTS.values():
        section = r.stdout.split("\nbuilt-in experiments", 1)[1]
        # the experiment's line, wrapped: its continuation lines are indented by six
        after = list(itertools.dropwhile(lambda x: x.startswith("      "),
                                         section.split(f"\n  {exp.name}  ", 1)[1].splitlines()[1:]))
        block = "\n".join(itertools.takewhile(lambda x: x.startswith(added), after))
        for c in exp.claims:
            assert f"    claim {c.id}" in block and c.shown() in block, (exp.name, c.id)
        assert f"    --quick: {exp.quick.text if exp.quick else 'none'}" in block, exp.name


def test_reproduce_quick_help_names_the_records_small_scales(root):
    """`reproduce --help`: --quick names the experiments whose record declares a small
    scale, every one and no other, read from the records (it was hand-written and named
    two of them); what each runs is left to `list --claims`. --seeds names each default
    seeds other than 10 (the hand-written text missed datacenter's 3)."""
    from superpacket.experiments import EXPERIMENTS

    r = sp("reproduce", "--help", cwd=root)
    assert r.returncode == 0, r.stderr
    line = " ".join(r.stdout.split("  --quick ", 1)[1].split("  --scheduler", 1)[0].split())
    named = line.split("small scale, for ", 1)[1].split(" (`superpacket list --claims`", 1)[0]
    assert named.replace(" and ", ", ").split(", ") == sorted(n for n, e in EXPERIMENTS.items() if e.quick)
    # --seeds: the default, and each experiment's own where it differs (read from the records too)
    seeds = " ".join(r.stdout.split("  --seeds ", 1)[1].split("  --jitter-us", 1)[0].split())
    own = seeds.split("(default 10 seeds; ", 1)[1].split(", see their params)", 1)[0]
    assert own.replace(" and ", ", ").split(", ") == sorted(
        f"{n} {e.default_seeds}" for n, e in EXPERIMENTS.items() if e.default_seeds != 10)


def test_list_shows_every_registered_kind(root):
    """`list` shows every name the scenario schema accepts for each pluggable family
    (read here from the checked-in JSON Schema, itself generated from the scenario types
    and checked current by the Rust tests), each with its whole description: all eleven
    congestion controls (the listing showed 3 of them), every queue discipline, traffic
    kind, send gate and reordering response."""
    r = sp("list", cwd=root)
    assert r.returncode == 0, r.stderr
    defs = json.loads((root / "docs/scenario.schema.json").read_text())["$defs"]
    out = " ".join(r.stdout.split())  # descriptions are wrapped
    for d in ("CcConfig", "QueueSpec", "TrafficSpec", "GateSpec", "ReorderingTable", "TopologySpec"):
        for v in defs[d]["oneOf"]:
            kind = v["properties"]["kind"]["const"]
            assert f"\n  {kind} " in r.stdout, (d, kind)
            desc = " ".join((v.get("description") or "").split())
            assert desc in out, (d, kind, desc)
    ccs = [v["properties"]["kind"]["const"] for v in defs["CcConfig"]["oneOf"]]
    assert len(ccs) == 11 and {"cubic", "htcp", "bic", "fast", "vegas"} <= set(ccs)


def test_bench_fast_burstiness_memory_flat():
    """Issue 11: the 622 Mb/s x 360 ms FAST run keeps memory flat in simulated time with
    some 10^4 packets in flight. 60 simulated s (about 1 s of wall): the window passes
    10,000 packets (BDP 18,660 + alpha 500 at equilibrium), the resident set grows by
    less than 2 MiB from the second tenth of the run to its end (a per-packet leak of
    only 8 B would add 24 MiB over the 3.1 M packets sent), and every packet is
    accounted for."""
    r = sp("bench", "--fast-burstiness", "--duration", "60", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["conservation"] == "ok"
    assert d["peak_live_packets"] > 10_000, d["peak_live_packets"]
    rss = [s["rss_bytes"] for s in d["steps"]]
    assert len(rss) == 10 and all(x is not None for x in rss)
    assert rss[-1] - rss[1] < 2 * 2**20, rss
    assert d["sender_drops"] == 0  # txqueuelen 10,000 holds any window burst here
    for bad in (["--duration", "inf"], ["--txqueuelen", "0"], ["--gate", "maybe"]):
        e = sp("bench", "--fast-burstiness", *bad)
        assert e.returncode == 2 and "Traceback" not in e.stderr, (bad, e.stderr)


def test_bench_json_fields():
    r = sp("bench", "--duration", "0.05", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    for k in ("wall_s", "events", "events_per_s", "bottleneck_pkts", "bottleneck_pkts_per_s", "peak_rss_bytes"):
        assert k in d
    assert d["conservation"] == "ok"


def test_bench_datacenter_counts_packet_hops():
    # k = 4 fat tree, 16 hosts at 10 Gb/s, web search at 50 % load: the offered load is
    # 16 x 0.5 x 10 Gb/s = 80 Gb/s of payload; over 10 ms at most 80e9 x 0.01 / (8 x 1460)
    # = 68,493 full data packets enter the fabric, each crossing 2 to 6 links, plus ACKs
    # (at most one per data packet, as many hops): so at most 2 x 6 x 68,493 = 821,918
    # packet-hops (slow start and finishing flows keep it below). Events: one per hop
    # (PipeOut) plus timers and arrivals.
    r = sp("bench", "--scenario", "datacenter", "--hosts", "16", "--duration", "0.01", "--warmup", "0.005", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert (d["hosts"], d["nodes"], d["links"]) == (16, 36, 96)
    assert 100_000 < d["packet_hops"] < 821_918, d["packet_hops"]
    assert d["events"] >= d["packet_hops"] * 0.9
    assert d["flows_finished"] > 0 and d["conservation"] == "ok"
    for bad in (["--hosts", "17"], ["--duration", "nan"], ["--warmup", "-1"]):
        e = sp("bench", "--scenario", "datacenter", *bad)
        assert e.returncode == 2 and "Traceback" not in e.stderr and len(e.stderr.strip().splitlines()) == 1, (bad, e.stderr)


def test_bench_riops_web_reports_the_api_runs_flows():
    # The benchmark runs the scenario through the API's own steps in a fresh interpreter;
    # its flow count must be what superpacket.run gives for the same scenario and seed
    # (independent path: the public API in this process), and the peaks are ordered:
    # interpreter <= after the run <= with the results.
    import superpacket
    from superpacket import _core

    r = sp("bench", "--scenario", "riops-web", "--duration", "30", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    flows = superpacket.run(_core.riops_web_toml(30.0), seed=1).flows
    assert (d["flows"], d["completed_flows"]) == (flows.height, int(flows["completed"].sum())) and d["flows"] > 1000
    assert d["flows_columns"] == flows.width
    assert 0 < d["baseline_rss_bytes"] <= d["peak_rss_run_bytes"] <= d["peak_rss_bytes"]
    e = sp("bench", "--scenario", "riops-web", "--duration", "inf")
    assert e.returncode == 2 and len(e.stderr.strip().splitlines()) == 1, e.stderr


def test_run_shows_every_queue_limit_and_the_nic_drops(tmp_path):
    # The bottleneck's queue is never set: DropTail of 1000 packets (the default), and the
    # links table says so. The sender's NIC (the access link, 10 Mb/s, the slowest link)
    # holds 5 packets: an initial window of 40 sent at once overflows it at the host
    # itself. ns-2's host loses what overflows (summary.sender_drops counts it); Linux's,
    # the default, holds refused segments unsent (summary.nic_refusals) and loses nothing
    # there; TCP Small Queues (about 1 ms of the flow's data below the socket) make the
    # refusals fewer than without them.
    f = tmp_path / "nic.toml"
    text = """
name = "nic"
duration = "2s"
[topology]
kind = "dumbbell"
pairs = 1
access = { rate = "10Mbps", delay = "1ms", queue = { kind = "droptail", limit = 5 } }
bottleneck = { rate = "100Mbps", delay = "1ms" }
[tcp]
init_cwnd = 40
HOST
[[traffic]]
kind = "flow"
from = "s0"
to = "d0"
size_pkts = 100
"""
    f.write_text(text.replace("HOST", ""))
    r = sp("run", str(f), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["summary"]["sender_drops"] == 0
    h = tmp_path / "nic-no-tsq.toml"
    h.write_text(text.replace("HOST", "tsq = false"))
    r = sp("run", str(h), "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)["summary"]
    assert s["sender_drops"] == 0 and s["nic_refusals"] > d["summary"]["nic_refusals"]
    g = tmp_path / "nic-ns2.toml"
    g.write_text(text.replace("HOST", 'host = "ns2"'))
    r = sp("run", str(g), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["summary"]["sender_drops"] > 0
    from superpacket import api

    links = api.run(str(f)).links
    lim = dict(zip(links["name"].to_list(), links["limit"].to_list(), strict=True))
    assert lim["s0->R1"] == 5 and lim["R1->R2"] == 1000 and lim["R2->d0"] == 5
    assert set(links["limit_unit"].to_list()) == {"pkts"}
    text = sp("run", str(f))
    assert text.returncode == 0, text.stderr
    assert "of which at the senders' own NIC queues" in text.stdout and "limit" in text.stdout


def test_list_describes_each_experiment_in_whole_phrases():
    """`list` used the docstring's first line, which cut descriptions mid-phrase ("...;
    parameters from"): each description is now its first paragraph up to where it turns
    to its parameters' source, so brackets and quotes close and no line ends on a
    dangling word."""
    from superpacket.experiments import EXPERIMENTS

    for exp in EXPERIMENTS.values():
        s = exp.summary()
        assert s.count("(") == s.count(")") and s.count('"') % 2 == 0, (exp.name, s)
        assert s.split()[-1] not in ("from", "of", "and", "the", "to", "by", "in"), (exp.name, s)
        assert "parameters from" not in s, (exp.name, s)
