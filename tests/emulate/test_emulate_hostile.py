"""`superpacket emulate` against hostile input: a scenario file, a scenario dict given to
`make_plan`, the command line, the environment and the router's own configuration.

Every case ends in exit 0 or 2 (a run that fails once started: 1, as before), with one
line on stderr naming the field, never a traceback, a panic, a hang (10 s here) or more
than 1 GiB; and a refusal comes before anything exists. The latter is checked without
root: the cases run with an `ip` on PATH that only logs its calls and fails, TMPDIR in a
folder of the test's own and no router binary, so a case that got as far as building
a testbed would leave a line in the log or a folder in TMPDIR. The few real runs need
root, network namespaces and the router (make install) and are skipped otherwise.

Part 1 holds one reproducer per class of mishandled input found (the class named at
each); part 2 is a seeded property test over the emulator's scenario fields in the style
of tests/test_hostile_surface_property.py, checked by planning only, plus at most two of
its accepted cases run for real for a second.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from superpacket import _core, _toml
from superpacket.emulate import Refused, make_plan, router_binary
from superpacket.emulate.plan import (
    MAX_FLOWS,
    MAX_PAIRS,
    MAX_SERIES_ROWS,
    parse_duration_ns,
    parse_rate_bps,
)
from test_emulate_run import WHY_NOT, left_of, needs_netns, tag_of

TIMEOUT_S = 10.0
MEMORY_BYTES = 2 * 2**30  # address space per case
PEAK_RSS_BYTES = 2**30
SEED = 30
N_CLI, N_API, N_REAL = 32, 400, 2
# the limit set in a small parent of the command, which writes the command's peak
# resident set (KiB) to a file and passes on its exit status (test_hostile_surface_property)
_LIMITED = """
import resource, subprocess, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]),) * 2)
rc = subprocess.run(sys.argv[3:], check=False).returncode
open(sys.argv[2], "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(rc if rc >= 0 else 128 - rc)
"""
EMULATE = [sys.executable, "-m", "superpacket.cli", "emulate"]
RUN = [sys.executable, "-m", "superpacket.cli", "run"]
#: the message of a plan the emulator accepts, with no router given (nothing is built)
ACCEPTED = ("the router superpacket-emu is not built", "network namespaces need root")


def base() -> dict[str, Any]:
    """Two pairs, a bulk and a sized flow over a RED bottleneck: valid for both."""
    return {
        "name": "hostile", "duration": "1s", "seed": 3,
        "topology": {"kind": "dumbbell", "pairs": 2,
                     "access": {"rate": "1Gbps", "delay": "1ms"},
                     "bottleneck": {"rate": "100Mbps", "delay": "5ms",
                                    "queue": {"kind": "red", "min_th": 5, "max_th": 15, "limit": 117},
                                    "reverse_queue": {"kind": "droptail", "limit": 117}}},
        "tcp": {"cc": "cubic", "recovery": "sack", "init_cwnd": 10, "min_rto": "200ms", "delayed_ack": True,
                "mss": 1448, "header_bytes": 52},
        "traffic": [{"kind": "bulk", "from": "s{i}", "to": "d{i}", "count": 2, "start": "0s",
                     "start_interval": "10ms", "start_jitter": "1ms"},
                    {"kind": "flow", "from": "s0", "to": "d1", "size_bytes": 100000, "start": "100ms"}],
        "output": {"sample_queues": ["R1->R2"], "sample_interval": "10ms", "sample_flows": "50ms"},
    }


def sandbox(tmp: Path) -> tuple[dict[str, str], Path, Path]:
    """(environment, ip's log, TMPDIR): an `ip` that logs and fails, no router."""
    bindir = tmp / "bin"
    bindir.mkdir(exist_ok=True)
    log = tmp / "ip.log"
    ip = bindir / "ip"
    ip.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexit 1\n')
    ip.chmod(0o755)
    tmpdir = tmp / "tmpdir"
    tmpdir.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUPERPACKET_EMU")}
    env.update(PATH=f"{bindir}:{os.environ.get('PATH', '')}", TMPDIR=str(tmpdir), RUST_BACKTRACE="0",
               SUPERPACKET_EMU=str(tmp / "no-router"))
    return env, log, tmpdir


def spawn(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = TIMEOUT_S,
          peak: Path | None = None) -> subprocess.CompletedProcess | None:
    """`argv` under the memory limit; None when it outlasts `timeout` (then killed)."""
    peak = peak or cwd / ".peak"
    with subprocess.Popen([sys.executable, "-c", _LIMITED, str(MEMORY_BYTES), str(peak), *argv], cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace", env=env,
                          start_new_session=True) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.communicate()
            return None
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def problem(argv: list[str], tmp: Path, timeout: float = TIMEOUT_S, env_extra: dict[str, str] | None = None,
            ) -> tuple[str | None, subprocess.CompletedProcess | None]:
    """(what is wrong with the case, or None; its result): exit 0 or 2, one line for 2,
    no traceback, no panic, within the time and memory, nothing created."""
    tmp.mkdir(parents=True, exist_ok=True)
    env, log, tmpdir = sandbox(tmp)
    env.update(env_extra or {})
    t0 = time.perf_counter()
    r = spawn(argv, tmp, env, timeout, tmp / ".peak")
    show = " ".join(a if len(a) < 80 else a[:77] + "..." for a in argv[3:])
    if r is None:
        return f"still running after {time.perf_counter() - t0:.1f} s: {show}", None
    err = r.stderr.strip()
    lines = err.splitlines()
    if r.returncode not in (0, 2) or "Traceback" in err or "panicked" in err:
        return f"exit {r.returncode}: {err[-600:]} [{show}]", r
    if r.returncode == 2 and len(lines) != 1:
        return f"exit 2 with {len(lines)} lines: {err[-600:]} [{show}]", r
    peak = tmp / ".peak"
    rss = int(peak.read_text()) * 1024 if peak.exists() else 0
    if rss > PEAK_RSS_BYTES:
        return f"held {rss / 2**30:.2f} GiB [{show}]", r
    if log.exists():
        return f"ip was called: {log.read_text()[:300]} [{show}]", r
    if left := list(tmpdir.iterdir()):
        return f"left in TMPDIR: {left[:5]} [{show}]", r
    return None, r


def write(tmp: Path, name: str, sc: Any) -> Path:
    f = tmp / f"{name}.toml"
    f.write_text(_toml.dumps(sc) if isinstance(sc, dict) else sc)
    return f


def refused(tmp: Path, args: list[str], field: str, env_extra: dict[str, str] | None = None,
            timeout: float = TIMEOUT_S) -> str:
    """Asserts the command is refused in one line naming `field`, before anything exists."""
    bad, r = problem([*EMULATE, *args], tmp, timeout, env_extra)
    assert bad is None, bad
    assert r is not None and r.returncode == 2, r
    line = r.stderr.strip()
    assert field in line and not any(a in line for a in ACCEPTED), line
    assert r.stdout == ""
    return line


# ---- part 1: one reproducer per class found -------------------------------------------------

def _with(**over: Any) -> dict[str, Any]:
    sc = base()
    for path, v in over.items():
        d: Any = sc
        keys = path.split("__")
        for k in keys[:-1]:
            d = d[int(k)] if isinstance(d, list) else d[k]
        d[int(keys[-1]) if isinstance(d, list) else keys[-1]] = v
    return sc


#: Class 1: make_plan took a dict on trust; what the simulator refuses raised KeyError,
#: TypeError or OverflowError (a traceback from the Python API). Now the simulator's
#: check comes first and its line is the refusal.
API_REFUSED = [
    ({"topology__bottleneck__queue": {"kind": "red"}}, "topology.bottleneck.queue"),  # KeyError 'min_th'
    ({"tcp__cc": ["cubic"]}, "tcp.cc"),  # TypeError: unhashable
    ({"traffic__0__tcp": 5}, "traffic[0].tcp"),  # TypeError: not a mapping
    ({"topology__bottleneck__rate": "1e400Gbps"}, "topology.bottleneck.rate"),  # OverflowError
    ({"tcp__min_rto": "1e400s"}, "tcp.min_rto"),  # OverflowError
    ({"duration": "-1s"}, "duration"),  # was planned: a run of -1 s
    ({"topology__pairs": 0}, "topology.pairs"),  # was planned with no hosts
    ({"topology__bottleneck__queue__limit": -1}, "topology.bottleneck.queue.limit"),  # was a limit of -1
    ({"tcp__recovery": "tahoe"}, "tcp.recovery"),  # was taken for newreno, silently
    ({"traffic__1__size_bytes": 0}, "traffic[1].size_bytes"),
]


@pytest.mark.parametrize(("over", "field"), API_REFUSED, ids=[c[1] for c in API_REFUSED])
def test_the_api_refuses_what_the_simulator_refuses_with_its_line(over, field):
    sc = _with(**over)
    with pytest.raises(Refused) as e:
        make_plan(sc)
    msg = str(e.value)
    assert msg.startswith(field) and "\n" not in msg, msg
    with pytest.raises(_core.ScenarioError) as s:
        _core.validate(_toml.scenario_json(sc), "json")
    assert msg == " ".join(str(s.value).split())


@pytest.mark.parametrize("sc", [None, [], "duration = '1s'", 3, {"duration": "1s"}, {}])
def test_the_api_refuses_what_is_not_a_scenario(sc):
    with pytest.raises(Refused) as e:
        make_plan(sc)
    assert "\n" not in str(e.value)


def test_the_command_line_refuses_with_the_simulators_own_line(tmp_path):
    """Class 1 on the command line: the line names the field and the file's line, and is
    the line `superpacket run` prints for the same file."""
    f = write(tmp_path, "rate", _with(topology__bottleneck__rate="1e400Gbps"))
    line = refused(tmp_path / "e", [str(f)], "topology.bottleneck.rate")
    r = subprocess.run([*RUN, str(f)], capture_output=True, text=True, check=False, timeout=60)
    assert r.returncode == 2 and r.stderr.strip() == line, (r.stderr, line)
    assert "(line " in line


#: Class 2: the emulator's unit parsers were its own, rounding half to even where the
#: simulator rounds half away from zero: 0.5bps was 0 b/s (the router refused it after
#: the testbed was built), 2.5bps 2 b/s against the simulator's 3. Now the same numbers.
RATES = ["0.5bps", "1.5bps", "2.5bps", "3.5bps", "1.0000005Kbps", "0.0000000025Gbps", "100Mbps", "1Gbps", "1 GBPS"]
DELAYS = ["0.5ns", "1.5ns", "2.5ns", "0.0000000025s", "0.4ns", "0s", "1e-3s", "10000000s", "20 MS"]


@pytest.mark.parametrize(("rate", "delay"), list(zip(RATES, DELAYS, strict=True)))
def test_units_are_the_simulators_rounding_included(rate, delay):
    sc = _with(topology__bottleneck__rate=rate, topology__bottleneck__delay=delay)
    plan = make_plan(sc)
    sim = _core.Simulation(_toml.scenario_json(sc), "json").results()["links"]
    names, rates, delays = sim["name"][2], sim["rate_bps"][2], sim["delay_s"][2]
    b = plan.links[plan.link_index("R1->R2")]
    i = names.index("R1->R2")
    assert b.rate_bps == rates[i] >= 1, (rate, b.rate_bps, rates[i])
    assert b.delay_ns == round(delays[i] * 1e9), (delay, b.delay_ns, delays[i])
    assert parse_rate_bps(rate, "r") == rates[i]
    assert parse_duration_ns(delay, "d") == b.delay_ns


@pytest.mark.parametrize("text", ["1e5e5s", "..s", "+-1ms", "s", "nan s", "inf s", "1_0s", "\u0663s", 5, None])
def test_the_unit_parsers_refuse_in_one_line(text):
    """The parsers are public: a number the regular expression lets through but float()
    does not read ("1e5e5") raised ValueError, not Refused."""
    with pytest.raises(Refused, match=r"^x: [^\n]*$"):
        parse_duration_ns(text, "x")
    with pytest.raises(Refused, match=r"^x: [^\n]*$"):
        parse_rate_bps(text if not isinstance(text, str) else text.replace("s", "bps"), "x")


def test_a_router_as_a_flow_endpoint_is_refused(tmp_path):
    """Class 3: the simulator's dumbbell lets R1 send; the emulator's R1 is the router
    process, which runs no TCP: the run failed after the testbed was up."""
    sc = _with(traffic__0__from="R1", traffic__0__count=1)
    refused(tmp_path, [str(write(tmp_path, "r1", sc))], "traffic[0].from")
    sc = _with(traffic__1__to="R2")
    refused(tmp_path / "b", [str(write(tmp_path, "r2", sc))], "traffic[1].to")


def test_a_billion_flows_are_refused_at_once(tmp_path):
    """Class 4: the flows were expanded one by one before any bound (10^9 hung the plan),
    and with memory_budget raised the simulator's check built them all first (over 30 s,
    growing). Now the emulator's bound of MAX_FLOWS comes first."""
    sc = _with(traffic__0__from="s0", traffic__0__to="d0", traffic__0__count=10**9)
    sc["output"]["memory_budget"] = "100TB"
    t0 = time.perf_counter()
    refused(tmp_path, [str(write(tmp_path, "billion", sc))], "traffic[0].count", timeout=5.0)
    assert time.perf_counter() - t0 < 5.0
    with pytest.raises(Refused, match=r"^traffic\[0\]\.count: at most"):
        make_plan(sc)
    # the bound is on all the flows: 200 + 100 passes it at the second entry
    sc = _with(traffic__0__from="s0", traffic__0__to="d0", traffic__0__count=200, traffic__1__count=100)
    with pytest.raises(Refused, match=r"^traffic\[1\]\.count: at most 256 flows"):
        make_plan(sc)
    assert MAX_FLOWS == 256


def test_sampled_series_are_bounded_in_rows(tmp_path):
    """Class 5: the router and the generators hold every sample until the run ends; the
    simulator allows 2 x 10^7 rows (gigabytes as Python lists). Now 10^6 each."""
    sc = _with(duration="1000s")
    sc["output"] = {"sample_queues": ["all"], "sample_interval": "1ms"}  # 10 links x 10^6
    refused(tmp_path, [str(write(tmp_path, "queues", sc))], "output.sample_interval")
    sc = _with(duration="3600s", traffic__0__from="s0", traffic__0__to="d0", traffic__0__count=10)
    sc["output"]["sample_flows"] = "10ms"  # 11 flows x 360,000
    refused(tmp_path / "b", [str(write(tmp_path, "flows", sc))], "output.sample_flows")
    assert MAX_SERIES_ROWS == 10**6


def test_sample_queues_as_the_simulator_reads_them():
    """Class 10: "all" among link names was refused ("no link 'all'") though the
    simulator takes it as every link, and a link named twice was sampled twice (doubled
    rows; the router now refuses a link twice in its configuration)."""
    sc = base()
    sc["output"]["sample_queues"] = ["R1->R2", "R1->R2"]
    assert make_plan(sc).sample_queues == ["R1->R2"]
    sc["output"]["sample_queues"] = ["R1->R2", "all"]
    p = make_plan(sc)
    assert sorted(p.sample_queues) == sorted(lk.name for lk in p.links)


@pytest.mark.parametrize(("var", "value"), [("SUPERPACKET_EMU_SPIN_NS", "abc"),
                                            ("SUPERPACKET_EMU_SPIN_NS", "99999999999999999999999"),
                                            ("SUPERPACKET_EMU_RT_PRIORITY", "1_0"),
                                            ("SUPERPACKET_EMU_RT_PRIORITY", "-1"),
                                            ("SUPERPACKET_EMU_RT_PRIORITY", "\u0663")])
def test_router_settings_in_the_environment_are_read_before_anything_exists(tmp_path, var, value):
    """Class 6: int() of the variable ran after the testbed was built: ValueError, a
    traceback (the testbed removed by the finally block)."""
    refused(tmp_path, [str(write(tmp_path, "ok", base()))], var, env_extra={var: value})


@pytest.mark.parametrize("case", ["missing", "folder", "dev-zero", "syntax", "not-utf8", "empty", "out-is-a-file",
                                  "out-under-a-file", "compare-out-under-a-file", "out-in-proc",
                                  "out-holds-a-folder-named-flows.parquet", "compare-out-holds-a-file-named-simulated",
                                  "named-pipe"])
def test_files_and_folders(tmp_path, case):
    """The file classes (they held before; kept so they go on holding)."""
    ok = write(tmp_path, "ok", base())
    afile = tmp_path / "afile"
    afile.write_text("x")
    (tmp_path / "folder").mkdir()
    (tmp_path / "syntax.toml").write_text('duration = "1s\n')
    (tmp_path / "bytes.toml").write_bytes(b"\xff\xfe\x00")
    (tmp_path / "empty.toml").write_text("")
    os.mkfifo(tmp_path / "pipe.toml")
    args, field = {
        "missing": ([str(tmp_path / "nope.toml")], "not found"),
        "folder": ([str(tmp_path / "folder")], "folder"),
        "dev-zero": (["/dev/zero"], "16 MiB"),
        # open() of a named pipe waited for a writer: a hang (`superpacket run` too)
        "named-pipe": ([str(tmp_path / "pipe.toml")], "named pipe"),
        "syntax": ([str(tmp_path / "syntax.toml")], "line 1"),
        "not-utf8": ([str(tmp_path / "bytes.toml")], "bytes.toml"),
        "empty": ([str(tmp_path / "empty.toml")], "duration"),
        "out-is-a-file": ([str(ok), "--out", str(afile)], "--out"),
        "out-under-a-file": ([str(ok), "--out", str(afile / "sub")], "--out"),
        "compare-out-under-a-file": ([str(ok), "--compare", "--out", str(afile / "sub")], "--out"),
        # root may write anywhere by access(2), and /proc takes no folder: it failed
        # only after the whole run (a folder is now made and removed first)
        "out-in-proc": ([str(ok), "--out", "/proc/superpacket-out"], "--out"),
        # what the run writes into an existing --out must be free for it: found after
        # the run, a failed write lost the results
        "out-holds-a-folder-named-flows.parquet": ([str(ok), "--out", str(tmp_path / "full")], "flows.parquet"),
        "compare-out-holds-a-file-named-simulated": ([str(ok), "--compare", "--out", str(tmp_path / "full")],
                                                     "simulated"),
    }[case]
    if case.endswith(("flows.parquet", "simulated")):
        full = tmp_path / "full"
        full.mkdir()
        if "flows" in case:
            (full / "flows.parquet").mkdir()
        else:
            (full / "simulated").write_text("mine")
    refused(tmp_path / "run", args, field)
    assert afile.read_text() == "x"


def test_an_existing_out_folder_keeps_its_other_files(tmp_path):
    """A refusal touches nothing in --out."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    refused(tmp_path / "run", [str(write(tmp_path, "r1", _with(traffic__0__from="R1"))), "--out", str(out)],
            "traffic[0].from")
    assert [p.name for p in out.iterdir()] == ["mine.txt"] and (out / "mine.txt").read_text() == "keep"


_NOT_ROOT = """
import os, sys
os.geteuid = lambda: 1000
from superpacket.cli import main
sys.exit(main(["emulate", sys.argv[1]]))
"""


def test_not_root_is_one_line(tmp_path):
    bad, r = problem([sys.executable, "-c", _NOT_ROOT, str(write(tmp_path, "ok", base()))], tmp_path / "run")
    assert bad is None, bad
    assert r is not None and r.returncode == 2 and "root" in r.stderr and r.stderr.count("\n") == 1, r


@pytest.mark.skipif(router_binary() is None, reason="the router superpacket-emu is not built (make install)")
@pytest.mark.parametrize("case", ["dev-zero", "named-pipe", "delay-max", "interval-max", "spin-max", "rt-priority", "not-json",
                                  "blast-payload", "blast-seconds"])
def test_the_router_refuses_a_bad_configuration_in_one_line(tmp_path, case):
    """Class 7 (crates/emu): the configuration was read whole (/dev/zero grew without
    end) and values near u64::MAX wrapped its nanosecond arithmetic; blast cast any
    PAYLOAD to an allocation size. No root needed: all of it is refused before a socket."""
    binary = router_binary()
    good = {"ports": [{"ifname": "lo", "mac": "02:00:00:00:00:01", "peer_mac": "02:00:00:00:00:02"}],
            "links": [{"name": "a->b", "rate_bps": 1, "delay_ns": 0, "limit_pkts": 1}],
            "routes": [], "stats_path": str(tmp_path / "stats.json")}
    blast = [str(binary), "blast", "lo", "02:00:00:00:00:01", "02:00:00:00:00:02", "10.0.0.1", "10.0.0.2"]
    cfg = tmp_path / "cfg.json"
    argv, field = [str(binary), str(cfg)], ""
    if case == "dev-zero":
        argv, field = [str(binary), "/dev/zero"], "16 MiB"
    elif case == "named-pipe":
        os.mkfifo(tmp_path / "pipe.json")
        argv, field = [str(binary), str(tmp_path / "pipe.json")], "named pipe"
    elif case == "delay-max":
        good["links"][0]["delay_ns"] = 2**64 - 1
        field = "links[0].delay_ns"
    elif case == "interval-max":
        good["sample_interval_ns"], field = 2**64 - 1, "sample_interval_ns"
    elif case == "spin-max":
        good["spin_ns"], field = 2**64 - 1, "spin_ns"
    elif case == "rt-priority":
        good["rt_priority"], field = 1000, "rt_priority"
    elif case == "not-json":
        cfg.write_text("[" * 100_000)
        field = "cfg.json"
    elif case == "blast-payload":
        argv, field = [*blast, "1e18", "1"], "PAYLOAD"
    elif case == "blast-seconds":
        argv, field = [*blast, "18", "nan"], "SECONDS"
    if not cfg.exists():
        cfg.write_text(json.dumps(good))
    r = spawn(argv, tmp_path, {**os.environ, "RUST_BACKTRACE": "0"}, 5.0)
    assert r is not None, "still running after 5 s"
    assert r.returncode == 2 and "panicked" not in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1 and field in r.stderr, r.stderr
    assert not (tmp_path / "stats.json").exists()


@needs_netns
def test_a_router_that_leaves_no_results_ends_in_one_line(tmp_path):
    """Class 8: a router (or generator) that exits without its results made the reading
    of router.json raise FileNotFoundError out of the command: a traceback. Now one
    line (exit 1: the run failed once started) and nothing left behind."""
    real = router_binary()
    fake = tmp_path / "router"
    fake.write_text(f'#!/bin/sh\nif [ "$1" = offloads-off ]; then exec "{real}" "$@"; fi\necho ready\n'
                    "trap 'exit 0' TERM\nwhile :; do sleep 0.05; done\n")
    fake.chmod(0o755)
    sc = _with(traffic__1__size_bytes=1000)
    f = write(tmp_path, "ok", sc)
    p = subprocess.run([*EMULATE, str(f)], capture_output=True, text=True, check=False, timeout=60,
                       env={**os.environ, "SUPERPACKET_EMU": str(fake)})
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert len(lines) == 2 and "results could not be read" in lines[1], p.stderr
    assert left_of(tag_of(lines[0])) == []


@needs_netns
@pytest.mark.parametrize("over", [{"topology__bottleneck__delay": "10000000s"}, {"output__sample_flows": "1000s"}],
                         ids=["delay-past-the-run", "sample-flows-past-the-run"])
def test_values_past_the_run_end_with_the_run(tmp_path, over):
    """Class 9: both are valid (the simulator takes them) and honoured, but the senders'
    generator waited past the run's end: blocked in connect() for the kernel's SYN
    retries (no SYN-ACK comes back within 10^7 s), or asleep until the next TCP_INFO
    sample 1000 s away. The command waited 15 s for it, then a traceback
    (subprocess.TimeoutExpired). Now the generator stops at the end: exit 0 in seconds."""
    sc = _with(**over)
    out = tmp_path / "out"
    t0 = time.monotonic()
    p = subprocess.run([*EMULATE, str(write(tmp_path, "past", sc)), "--out", str(out)], capture_output=True,
                       text=True, check=False, timeout=60)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert time.monotonic() - t0 < 12.0
    assert left_of(tag_of(p.stderr.splitlines()[0])) == []
    import polars as pl

    flows = pl.read_parquet(out / "flows.parquet")
    if "topology__bottleneck__delay" in over:  # nothing crosses the bottleneck: no connection
        assert flows.filter(pl.col("src").str.starts_with("s") & (pl.col("bytes_received") > 0)).height == 0
    else:
        assert flows["bytes_received"].sum() > 0


@needs_netns
def test_a_router_path_with_a_space_or_semicolon(tmp_path):
    """Class 11: the router's path ($SUPERPACKET_EMU) went unquoted into the shell
    scripts that set up each namespace: a space broke the set-up (exit 1 after the
    namespaces were made), and a ";" would have run the rest of the path as a command."""
    import shutil

    d = tmp_path / "dir with; space"
    d.mkdir()
    exe = d / "superpacket-emu"
    shutil.copy(router_binary(), exe)
    p = subprocess.run([*EMULATE, str(write(tmp_path, "ok", base()))], capture_output=True, text=True, check=False,
                       timeout=60, env={**os.environ, "SUPERPACKET_EMU": str(exe)})
    assert p.returncode == 0, p.stderr[-2000:]
    assert left_of(tag_of(p.stderr.splitlines()[0])) == []


# ---- part 2: the property, over the emulator's fields -----------------------------------------

INTS = [0, 1, -1, 2, 16, 17, 117, 256, 257, 2**31 - 1, 2**32, 2**53 + 1, 2**63 - 1, 2**64 - 1, -(2**63)]
FLOATS = [0.0, -0.0, -1.0, 0.5, 1.5, 1e-300, 1e300, 1e30]
DURATIONS = ["0s", "-1s", "1ns", "0.5ns", "2.5ns", "1e-30s", "1e-300s", "100us", "99us", "1ms", "0.999ms",
             "3600s", "3601s", "10000000s", "10000001s", "1e400s", "nan s", "inf s", "1_0s", "\u0663s", "s",
             "1 s", "20 MS", "1e5e5s"]
RATES = ["0bps", "0.4bps", "0.5bps", "1bps", "2.5bps", "-1Mbps", "1Gbps", "1.0000001Gbps", "10Gbps",
         "1e400Gbps", "1e-300bps", "nanbps", "Gbps", "100 mbps"]
STRINGS = ["", "x", "\u00e9\u4e2d", "a" * 3000, "R1", "R2", "s0", "d0", "s99", "s{i}", "d{i}{i}", "\x00", "all",
           "R1->R2", "R1-to-R2", "x->y"]
#: Values by field name: a mutation of such a field takes one of them most of the time.
FIELDS: dict[str, list[Any]] = {
    "pairs": [0, 1, MAX_PAIRS, MAX_PAIRS + 1, 100000, 2**32, -1, 1.5, True, "2"],
    "rate": RATES, "delay": DURATIONS, "duration": DURATIONS,
    "limit": [0, 1, -1, 10**18, 2**64 - 1, 2**64, 1.5, "5"],
    "min_th": [0, -1, 15, 1e300, 5.5, float("nan")], "max_th": [0, 5, 4.9, 1e300, float("inf")],
    "p_max": [0, 1, 1.5, -0.1], "w_q": [0, 1, 2, 1e-300], "mean_pkt_size": [0, 1, 2**32, 1500.0],
    "gentle": [True, False, "yes", 1], "wait": [False, 0], "ecn": [True, False],
    "kind": ["droptail", "red", "rio", "riops", "superpacket", "bulk", "flow", "cbr", "web", "dumbbell", "star", ""],
    "unit": ["packets", "bytes", "pkts"],
    "count": [0, 1, 2, 16, 256, 257, 10**6, 10**9, 2**64 - 1, -1, 1.5],
    "start": DURATIONS, "start_interval": DURATIONS, "start_jitter": DURATIONS,
    "size_bytes": [0, 1, 1447, 1448, 10**15, 2**64 - 1, 2**64, 1e30, -1],
    "size_pkts": [0, 1, 10**15, 2**62, 2**64 - 1],
    "init_cwnd": [0, 1, 1.5, 10**6, 10**6 + 1, 1e300, "10", -1],
    "min_rto": ["0ms", "1ms", "1500us", "200.0000000001ms", "60s", "61s", "10000000s", "1e400s", 5],
    "cc": ["newreno", "cubic", "reno", "bbr", "vegas", {"kind": "cubic"}, {"kind": "cubic", "beta": 0.7}, ["cubic"],
           5],
    "recovery": ["sack", "newreno", "tahoe", "rack", 5],
    "host": ["linux", "ns2", "bsd"], "delayed_ack": [True, False, 1], "mss": [1448, 1460, 1448.0, 0],
    "header_bytes": [52, 40, 52.0],
    "from": STRINGS, "to": STRINGS,
    "sample_queues": [["all"], "all", [], ["R1->R2", "R1->R2"], ["R1-to-R2"], ["x->y"], [5]],
    "sample_interval": DURATIONS, "sample_flows": DURATIONS,
    "memory_budget": ["1GB", "100TB", "0B", "x", 5],
    "seed": [0, 2**64 - 1, 2**64, -1, 1.5],
    "name": ["", "x\ny", "a" * 100_000, "\u00e9"],
}
EXTRA = ["loss", "ecn_threshold", "reorder", "pcap", "gate", "pacing", "max_rto", "unknown_field", "monitor"]


def _paths(d: Any, at: tuple = ()) -> list[tuple]:
    out = []
    items = d.items() if isinstance(d, dict) else enumerate(d) if isinstance(d, list) else []
    for k, v in items:
        out.append((*at, k))
        out += _paths(v, (*at, k))
    return out


def _extreme(rng: random.Random, old: Any) -> Any:
    if isinstance(old, bool):
        return rng.choice([not old, 0, "true"])
    if isinstance(old, int):
        return rng.choice(INTS + FLOATS)
    if isinstance(old, str):
        return rng.choice([*rng.choice([DURATIONS, RATES, STRINGS]), rng.choice(INTS)])
    if isinstance(old, list):
        return rng.choice([[], old * rng.choice([2, 300]), "x", 0, [{}]])
    if isinstance(old, dict):
        return rng.choice([{}, "x", 0, [old], {**old, "unknown_field": 1}])
    return rng.choice(INTS)


def _mutate(rng: random.Random, d: dict[str, Any]) -> None:
    paths = _paths(d)
    named = [p for p in paths if p[-1] in FIELDS]
    path = rng.choice(named if named and rng.random() < 0.7 else paths)
    parent: Any = d
    for p in path[:-1]:
        parent = parent[p]
    key = path[-1]
    op = rng.random()
    if key in FIELDS and rng.random() < 0.7:
        parent[key] = copy.deepcopy(rng.choice(FIELDS[key]))
    elif op < 0.6:
        parent[key] = _extreme(rng, parent[key])
    elif op < 0.75 and isinstance(parent, dict):
        del parent[key]
    elif op < 0.9 and isinstance(parent, dict):
        extra = rng.choice([*EXTRA, *FIELDS])
        parent[extra] = copy.deepcopy(rng.choice(FIELDS.get(extra, [1, "1ms", True, {}])))
    elif isinstance(parent, list):
        parent.append(copy.deepcopy(parent[key]))
    else:
        parent[key] = _extreme(rng, parent[key])


def cases(n: int, rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for _ in range(n):
        d = base()
        if rng.random() < 0.3:  # the other queue, a bare cc name, no sampling: other branches
            d["topology"]["bottleneck"]["queue"] = {"kind": "droptail", "limit": 117}
            d["tcp"]["cc"] = rng.choice(["newreno", {"kind": "cubic"}])
            del d["output"]
        for _ in range(rng.choice([1, 1, 2, 3])):
            _mutate(rng, d)
        out.append(d)
    return out


def _text(d: dict[str, Any]) -> str:
    try:
        return _toml.dumps(d)
    except (TypeError, ValueError):
        return str(d)  # a dict TOML cannot hold: a syntax error for the file


# the API batch: every case through make_plan in one limited process; a line per case
_API_DRIVER = """
import json, pickle, sys, time, traceback
from superpacket.emulate import Refused, make_plan
from superpacket.emulate.plan import MAX_FLOWS, MAX_RATE_BPS, MAX_SERIES_ROWS
cases = pickle.load(open(sys.argv[1], "rb"))
with open(sys.argv[2], "w") as out:
    for i, sc in enumerate(cases):
        t0 = time.perf_counter()
        try:
            p = make_plan(sc)
            hosts = set(p.hosts)
            rows = len(p.sample_queues) * int(p.duration_s / p.sample_interval_s)
            sane = (len(p.flows) <= MAX_FLOWS and all(f.src in hosts and f.dst in hosts for f in p.flows)
                    and all(1 <= lk.rate_bps <= MAX_RATE_BPS and 0 <= lk.delay_ns <= 10**16 and lk.limit_pkts >= 1
                            for lk in p.links) and rows <= MAX_SERIES_ROWS + len(p.sample_queues)
                    and 0 < p.duration_s <= 3600)
            res = {"i": i, "ok": sane, "flows": len(p.flows)}
        except Refused as e:
            res = {"i": i, "refused": str(e)}
        except Exception:
            res = {"i": i, "error": traceback.format_exc()[-800:]}
        res["s"] = time.perf_counter() - t0
        out.write(json.dumps(res) + "\\n")
        out.flush()
"""


def test_generated_scenarios_planned_through_the_api(tmp_path):
    rng = random.Random(SEED)
    batch = cases(N_API, rng)
    f = tmp_path / "cases.pickle"
    f.write_bytes(pickle.dumps(batch))
    res = tmp_path / "results.jsonl"
    env, log, tmpdir = sandbox(tmp_path)
    r = spawn([sys.executable, "-c", _API_DRIVER, str(f), str(res)], tmp_path, env, 60.0)
    done = [json.loads(line) for line in res.read_text().splitlines()] if res.exists() else []
    assert r is not None, f"case {len(done)} still running: {batch[len(done)]!r:.600}"
    assert r.returncode == 0, r.stderr[-2000:]
    assert len(done) == N_API
    bad = [f"{d['i']}: {d.get('error') or d}" for d in done
           if "error" in d or d.get("ok") is False or d["s"] > TIMEOUT_S
           or ("refused" in d and ("\n" in d["refused"] or not d["refused"]))]
    assert not bad, "\n".join(bad[:10])
    peak = tmp_path / ".peak"
    assert int(peak.read_text()) * 1024 <= PEAK_RSS_BYTES
    assert not log.exists() and not list(tmpdir.iterdir())
    # the generator reaches both sides of the line
    assert 0.05 * N_API < sum("flows" in d for d in done) < 0.95 * N_API


def test_generated_scenario_files_through_the_command_line(tmp_path):
    rng = random.Random(SEED + 1)
    batch = cases(N_CLI, rng)
    argv = []
    for i, d in enumerate(batch):
        f = tmp_path / f"case{i}.toml"
        f.write_text(_text(d), errors="surrogatepass")
        extra = rng.choice([[], [], ["--compare"], ["--out", str(tmp_path / f"out{i}")]])
        argv.append([*EMULATE, str(f), *extra])

    def one(i: int) -> str | None:
        bad, _ = problem(argv[i], tmp_path / f"c{i}")
        return None if bad is None else f"case{i}: {bad}"

    t0 = time.perf_counter()
    with ThreadPoolExecutor(2) as ex:
        bad = [b for b in ex.map(one, range(N_CLI)) if b is not None]
    assert not bad, f"{len(bad)} of {N_CLI} ({time.perf_counter() - t0:.0f} s):\n" + "\n".join(bad)
    # a refused --out is never created
    assert not any((tmp_path / f"out{i}").exists() for i in range(N_CLI))


@needs_netns
def test_a_few_accepted_generated_scenarios_run_for_real(tmp_path):
    """At most N_REAL accepted cases with few flows, shortened to a second, run on the
    real testbed: exit 0 and nothing left behind."""
    rng = random.Random(SEED)
    picked = []
    for d in cases(N_API, rng):
        try:
            p = make_plan(d)
        except Refused:
            continue
        if 1 <= len(p.flows) <= 4 and p.duration_s >= 1.0:
            d["duration"] = "1s"
            try:
                make_plan(d)
            except Refused:
                continue
            picked.append(d)
        if len(picked) == N_REAL:
            break
    assert picked
    for i, d in enumerate(picked):
        f = write(tmp_path, f"real{i}", d)
        p = subprocess.run([*EMULATE, str(f)], capture_output=True, text=True, check=False, timeout=60)
        assert p.returncode == 0, p.stderr[-2000:]
        assert left_of(tag_of(p.stderr.splitlines()[0])) == []


def test_why_not_is_known():
    """The reason the root-only tests here are skipped, if they are (None: they run)."""
    assert WHY_NOT is None or isinstance(WHY_NOT, str)
