"""`superpacket emulate` on this machine: a short dumbbell emulation, its files against
superpacket.outputs, cleanup after a run, after Ctrl-C, SIGTERM and a failure, and bad
input refused with one line and exit 2 before anything is created.

The emulation needs root, ip(8) network namespaces and the router binary (make
install builds it); where one is missing those tests are skipped, saying which.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from superpacket import outputs
from superpacket.emulate import leftovers, router_binary, unavailable

ROOT = Path(__file__).resolve().parents[2]


def _why_not() -> str | None:
    if why := unavailable():
        return why
    probe = f"sp-probe-{os.getpid()}"
    p = subprocess.run(["ip", "netns", "add", probe], check=False, capture_output=True, text=True)
    if p.returncode != 0:
        return f"ip netns add fails here: {p.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], check=False, capture_output=True)
    if router_binary() is None:
        return "the router superpacket-emu is not built (make install)"
    return None


WHY_NOT = _why_not()
needs_netns = pytest.mark.skipif(WHY_NOT is not None, reason=f"no emulation here: {WHY_NOT}")

# 1 pair, bottleneck 100 Mb/s and 5 ms: round trip 2 x (1 + 5 + 1) = 14 ms,
# BDP 100e6 x 0.014 / 8 = 175,000 B = 117 packets of 1500 B; a 1-BDP buffer
SHORT = """
name = "emulate-test"
duration = "{duration}"
[topology]
kind = "dumbbell"
pairs = 1
access = {{ rate = "1Gbps", delay = "1ms" }}
bottleneck = {{ rate = "100Mbps", delay = "5ms", queue = {{ kind = "droptail", limit = 117 }} }}
[tcp]
delayed_ack = true
mss = 1448
header_bytes = 52
[[traffic]]
kind = "bulk"
from = "s{{i}}"
to = "d{{i}}"
[output]
sample_queues = ["R1->R2"]
sample_interval = "10ms"
sample_flows = "50ms"
"""


def cli(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "superpacket.cli", "emulate", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def scenario(tmp_path: Path, duration: str = "3s") -> Path:
    p = tmp_path / "short.toml"
    p.write_text(SHORT.format(duration=duration))
    return p


def tag_of(line: str) -> str:
    """The run's tag from its first line on stderr ("emulating 3 s (testbed spXXXXXX)")."""
    m = re.search(r"\(testbed (sp[0-9a-f]{6})\)", line)
    assert m, line
    return m.group(1)


def left_of(tag: str) -> list[str]:
    """What a run left: its namespaces and interfaces (`leftovers`) and its processes
    (the router's and the generators' command lines name the run's work folder). Only
    this run's: other runs may be going on at the same time."""
    out = subprocess.run(["pgrep", "-af", f"superpacket-emulate-{tag}-"], check=False, capture_output=True,
                         text=True).stdout
    return leftovers(tag[2:]) + [f"process {line}" for line in out.splitlines() if "pgrep" not in line]


RED = 'kind = "red", min_th = 5, max_th = 15, limit = 117'


@needs_netns
@pytest.mark.parametrize("queue", ["droptail", "red"])
def test_short_emulation_writes_the_documented_tables(tmp_path, queue):
    out = tmp_path / "out"
    sc = scenario(tmp_path)
    if queue == "red":
        sc.write_text(sc.read_text().replace('kind = "droptail", limit = 117', RED))
    p = cli(str(sc), "--out", str(out))
    _, stderr = p.communicate(timeout=60)
    assert p.returncode == 0, stderr
    tag = tag_of(stderr)
    assert left_of(tag) == []
    for t in outputs.EMULATE_TABLES:
        assert pl.read_parquet(out / f"{t.name}.parquet").columns == [c.name for c in t.columns], t.name
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary) == {o.name for o in outputs.EMULATE_SUMMARY}
    assert {"router.json", "scenario.toml"} <= {p.name for p in out.iterdir()}
    flows = pl.read_parquet(out / "flows.parquet")
    links = pl.read_parquet(out / "links.parquet").filter(pl.col("name") == "R1->R2").row(0, named=True)
    # the router's books balance: every arrival is dropped, departed or still waiting,
    # up to the one being serialised at the end
    left = links["arrivals"] - links["drops"] - links["departures"] - links["queued_pkts"]
    assert left in (0, 1), links
    assert links["max_pkts"] <= 117
    assert links["drops"] == links["drops_overflow"] + links["drops_red_early"] + links["drops_red_forced"]
    assert links["queue"] == queue
    if queue == "red":
        # a bulk flow's window passes the BDP (117 packets) within the first second, so
        # the average queue passes min_th = 5 and RED drops early; it keeps the queue far
        # below the DropTail limit, so nothing overflows
        assert links["drops_red_early"] > 0 and links["drops_overflow"] == 0, links
        assert links["red_avg"] is not None
    else:
        assert links["drops_red_early"] == links["drops_red_forced"] == 0 and links["red_avg"] is None
    # goodput at most the payload share of the bottleneck: 100 Mb/s x 1448 / 1500
    # (52 B of IP + TCP headers with timestamps) = 96.5 Mb/s, plus 1 % for the rate's
    # measurement window. At least a fifth of it: TCP alone would fill the link within
    # 0.1 s (slow start from 10 segments doubles per 14 ms round trip), but the Python
    # generators share the machine's cores, and with the load average at 5 on 2 cores
    # a run delivered 42.8 Mb/s; a path that does not forward delivers nothing
    g = flows.row(0, named=True)
    assert g["error"] is None
    assert 0.2 * 96.5e6 < g["goodput_bps"] < 1.01 * 96.5e6, g
    assert g["min_rtt_s"] >= 0.014, "the round trip cannot be shorter than its propagation delays"
    assert summary["oversize_frames"] == 0, "offloads left on: the router saw GSO frames"


@needs_netns
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_runs_leave_nothing_behind(tmp_path, sig):
    p = cli(str(scenario(tmp_path, "30s")))
    tag = tag_of(p.stderr.readline())
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not any(x.startswith("process") and "router-config" in x
                                                  for x in left_of(tag)):
        time.sleep(0.1)
    assert left_of(tag), "the router never started"
    time.sleep(0.5)
    p.send_signal(sig)
    _, stderr = p.communicate(timeout=20)
    assert p.returncode == 128 + sig, stderr
    assert "interrupted" in stderr
    assert left_of(tag) == []


@needs_netns
def test_a_failing_router_leaves_nothing_behind(tmp_path):
    p = cli(str(scenario(tmp_path)), env={**os.environ, "SUPERPACKET_EMU": "/bin/false"})
    _, stderr = p.communicate(timeout=30)
    assert p.returncode == 1, stderr
    first, second = stderr.splitlines()[:2]
    assert second.startswith("superpacket: emulate: ") and "offloads-off" in second, stderr
    assert left_of(tag_of(first)) == []


BAD = [
    ('kind = "bulk"', 'kind = "web"', "traffic[0]"),  # the simulator's own refusal (missing fields)
    ('pairs = 1', 'pairs = 1000', "topology.pairs"),
    ('delayed_ack = true', 'delayed_ack = false', "tcp.delayed_ack"),
    ('kind = "droptail", limit = 117', 'kind = "red", min_th = 5, max_th = 15, limit = 117, ecn = true',
     "topology.bottleneck.queue.ecn"),
    ('rate = "100Mbps"', 'rate = "10Gbps"', "topology.bottleneck.rate"),
]


@pytest.mark.parametrize(("old", "new", "field"), BAD, ids=[b[2] for b in BAD])
def test_bad_input_is_refused_in_one_line_before_anything_exists(tmp_path, old, new, field):
    sc = scenario(tmp_path)
    text = sc.read_text()
    assert old in text
    sc.write_text(text.replace(old, new, 1))
    p = cli(str(sc))
    stdout, stderr = p.communicate(timeout=30)
    assert p.returncode == 2, stderr
    # one line, the refusal: a run that got as far as making its testbed says so
    # first ("emulating ... (testbed spXXXXXX)"), before it creates anything
    assert stderr.count("\n") == 1 and field in stderr and "testbed" not in stderr, stderr
    assert stdout == ""


def test_out_dir_that_cannot_be_written_is_refused(tmp_path):
    f = tmp_path / "file"
    f.write_text("")
    p = cli(str(scenario(tmp_path)), "--out", str(f / "sub"))
    _, stderr = p.communicate(timeout=30)
    assert p.returncode == 2 and stderr.count("\n") == 1, stderr


@needs_netns
def test_flows_of_given_size_complete_no_faster_than_the_path_allows(tmp_path):
    # five 100,000-byte flows s0 -> d0, 0.3 s apart, each alone on the path. Lower bound
    # of each FCT, from the path alone: SYN 7 ms out (1 + 5 + 1 ms), SYN-ACK 7 ms back,
    # the data 7 ms out again, plus the bottleneck serialising at least the 100,000
    # payload bytes: 100,000 x 8 / 100 Mb/s = 8 ms; 29 ms in all. Upper bound: slow
    # start from 10 segments needs 3 round trips of 14 ms for 70 segments, ~0.07 s; 1 s
    # leaves room for a loaded machine, and is far below the 1 s initial RTO plus
    # anything a lost SYN would add.
    sc = scenario(tmp_path, "2s")
    text = sc.read_text().replace('kind = "bulk"\nfrom = "s{i}"\nto = "d{i}"',
                                  'kind = "flow"\nfrom = "s0"\nto = "d0"\ncount = 5\nstart_interval = "0.3s"\n'
                                  'size_bytes = 100000')
    assert 'kind = "flow"' in text
    sc.write_text(text)
    out = tmp_path / "out"
    p = cli(str(sc), "--out", str(out))
    _, stderr = p.communicate(timeout=60)
    assert p.returncode == 0, stderr
    assert left_of(tag_of(stderr)) == []
    flows = pl.read_parquet(out / "flows.parquet")
    assert flows["size_bytes"].to_list() == [100_000] * 5
    assert flows["bytes_received"].to_list() == [100_000] * 5
    fct = flows["fct_s"].to_list()
    assert all(f is not None and 0.029 <= f < 1.0 for f in fct), fct
    # the start times follow start_interval (the generator starts each on time, within 50 ms)
    starts = flows["start_s"].to_list()
    assert all(abs(s - 0.3 * i) < 0.05 for i, s in enumerate(starts)), starts
    summary = json.loads((out / "summary.json").read_text())
    assert summary["completed_flows"] == 5
    assert summary["mean_fct_s"] == pytest.approx(sum(fct) / 5)


@needs_netns
def test_compare_sets_the_two_runs_side_by_side(tmp_path):
    sc = scenario(tmp_path, "2s")
    out = tmp_path / "out"
    p = cli(str(sc), "--out", str(out), "--compare")
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 0, stderr
    assert "simulated against emulated" in stdout
    table = pl.read_parquet(out / "compare.parquet")
    assert table.columns == [c.name for c in outputs.EMULATE_COMPARE.columns]
    sim_links = pl.read_parquet(out / "simulated" / "links.parquet")
    emu_links = pl.read_parquet(out / "links.parquet")
    row = table.filter((pl.col("name") == "R1->R2") & (pl.col("metric") == "mean_pkts")).row(0, named=True)
    assert row["simulated"] == sim_links.filter(pl.col("name") == "R1->R2")["mean_pkts"][0]
    assert row["emulated"] == emu_links.filter(pl.col("name") == "R1->R2")["mean_pkts"][0]
    assert row["difference"] == pytest.approx(row["emulated"] - row["simulated"])
    assert row["relative_difference"] == pytest.approx(row["difference"] / abs(row["simulated"]))
    flows = table.filter(pl.col("what") == "flow")
    assert set(flows["metric"]) == {"goodput_bps", "retransmits", "timeouts", "fct_s"}
    # a bulk flow has no FCT in either run: nothing to subtract
    fct = flows.filter(pl.col("metric") == "fct_s").row(0, named=True)
    assert fct["simulated"] is None and fct["emulated"] is None and fct["difference"] is None
