"""Hostile input (issue 14): bad values anywhere give one line naming the field or option
and exit code 2 (ScenarioError from Python), never a traceback, a silent default or a
half-written output folder."""

import math
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from superpacket import ScenarioError, _core, _toml, api, sweeps

EXE = str(Path(sys.executable).parent / "superpacket")
NON_FINITE = (math.nan, math.inf, -math.inf)


def sp(*args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, *args], capture_output=True, text=True, cwd=cwd, check=False, timeout=timeout)


def assert_bad_input(r: subprocess.CompletedProcess, *names: str) -> None:
    """Exit 2, one line on stderr naming each of `names`, no traceback."""
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    for n in names:
        assert n in lines[0], (n, lines[0])


def main_rc(capsys, *args: str) -> tuple[int, str]:
    """Runs the command line in this process (no interpreter start-up per case): its exit
    code and stderr. An exception would fail the test: no traceback."""
    from superpacket import cli

    rc = cli.main(list(args))
    return rc, capsys.readouterr().err


def numeric_leaves(d: Any, path: str = "") -> list[str]:
    """The field paths of every number in a scenario dict."""
    if isinstance(d, dict):
        return [p for k, v in d.items() for p in numeric_leaves(v, f"{path}.{k}" if path else k)]
    if isinstance(d, list):
        return [p for i, v in enumerate(d) for p in numeric_leaves(v, f"{path}[{i}]")]
    return [path] if isinstance(d, (int, float)) and not isinstance(d, bool) else []


def with_value(d: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    import copy

    out = copy.deepcopy(d)
    sweeps.set_path(out, path, value)
    return out


# ---- NaN and infinities ----------------------------------------------------------------

def test_every_number_rejects_nan_and_infinities_by_name(examples):
    """Each number of each example, replaced by NaN, inf or -inf, in a dict (run(dict),
    sweeps) and in a TOML file (run FILE): ScenarioError starting with its field path."""
    checked = 0
    for f in sorted(examples.glob("*.toml")):
        base = tomllib.loads(f.read_text())
        for path in numeric_leaves(base) + ["tcp.init_cwnd", "traffic[0].tcp.max_cwnd"]:
            for bad in NON_FINITE:
                try:
                    d = with_value(base, path, bad)
                except sweeps.SweepError:  # no traffic[0].tcp table to create: skip
                    continue
                with pytest.raises(ScenarioError) as e:
                    api.load_scenario(d)
                assert str(e.value).startswith(f"{path}: must be a finite number"), str(e.value)
                with pytest.raises(ScenarioError) as e:
                    _core.validate(_toml.dumps(d))
                assert str(e.value).startswith(f"{path}: must be a finite number"), str(e.value)
                checked += 1
    assert checked > 50


@pytest.mark.parametrize("bad", [None, {1: 2}, object(), [1, [2, math.nan]]])
def test_dict_values_toml_cannot_hold_are_named(examples, bad):
    d = with_value(tomllib.loads((examples / "incast.toml").read_text()), "traffic[0].size_pkts", bad)
    with pytest.raises(ScenarioError) as e:
        api.run(d)
    assert str(e.value).startswith("traffic[0].size_pkts"), str(e.value)
    assert "\n" not in str(e.value)


def test_python_sweep_refuses_non_finite(examples, tmp_path):
    base = tomllib.loads((examples / "incast.toml").read_text())
    with pytest.raises(sweeps.SweepError, match=r"tcp\.init_cwnd"):
        sweeps.sweep(base, {"tcp.init_cwnd": [math.inf]}, seeds=1, out=tmp_path / "a", workers=0)
    with pytest.raises(sweeps.SweepError, match=r"tcp\.init_cwnd"):
        sweeps.sweep(with_value(base, "tcp.init_cwnd", math.nan), seeds=1, out=tmp_path / "b", workers=0)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_cli_run_and_sweep_refuse_non_finite(examples, tmp_path, value):
    f = tmp_path / "bad.toml"
    f.write_text((examples / "incast.toml").read_text().replace("init_cwnd = 10", f"init_cwnd = {value}"))
    assert f"init_cwnd = {value}" in f.read_text()
    assert_bad_input(sp("run", str(f), "--out", str(tmp_path / "r")), "tcp.init_cwnd", "finite")
    assert_bad_input(sp("sweep", str(f), "--seeds", "1", "--workers", "0", "--out", str(tmp_path / "s")),
                     "tcp.init_cwnd", "finite")
    assert_bad_input(sp("sweep", str(examples / "incast.toml"), "--param", f"tcp.init_cwnd={value}", "--seeds",
                        "1", "--workers", "0", "--out", str(tmp_path / "p")), "tcp.init_cwnd", "finite")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


# ---- one TOML parser for run and sweep ---------------------------------------------------

def _toml_variants(examples: Path) -> dict[str, str]:
    """incast.toml written in TOML 1.1 (multi-line inline table, trailing commas), with a
    syntax error, and with a key given twice."""
    text = (examples / "incast.toml").read_text()
    one_line = 'sender_link = { rate = "1Gbps", delay = "25us" }'
    assert one_line in text
    return {
        "toml11": text.replace(one_line, 'sender_link = {\n  rate = "1Gbps",\n  delay = "25us",\n}'),
        "syntax": text.replace(one_line, 'sender_link = { rate = "1Gbps" delay = "25us" }'),
        "duplicate": text.replace(one_line, f"{one_line}\n{one_line}"),
    }


def test_sweep_reads_toml_as_run_does(examples):
    """Whatever `run` accepts the sweep accepts (the same dict), whatever it refuses the
    sweep refuses with the same message."""
    for name, text in _toml_variants(examples).items():
        try:
            _core.validate(text)
            run_err = None
        except ScenarioError as e:
            run_err = str(e)
        try:
            base = sweeps.load_base(text)
            sweep_err = None
        except ScenarioError as e:
            sweep_err = str(e)
        assert run_err == sweep_err, name
        if name == "toml11":
            assert run_err is None
            assert base == tomllib.loads((examples / "incast.toml").read_text())
        else:
            assert run_err is not None and "\n" not in run_err, name
    # a --param value is read by the same parser: a TOML 1.1 inline table is still not a scalar
    assert sweeps.parse_value("20") == 20 and sweeps.parse_value("10Gbps") == "10Gbps"
    assert sweeps.parse_value('"a,b"') == "a,b" and sweeps.parse_value("1e3") == 1000.0


def test_cli_run_and_sweep_agree_on_toml11(examples, tmp_path):
    f = tmp_path / "toml11.toml"
    f.write_text(_toml_variants(examples)["toml11"])
    r = sp("run", str(f), "--out", str(tmp_path / "run"))
    assert r.returncode == 0, r.stderr
    s = sp("sweep", str(f), "--seeds", "1", "--workers", "0", "--quiet", "--out", str(tmp_path / "sweep"))
    assert s.returncode == 0, s.stderr
    import json

    a = json.loads((tmp_path / "run" / "summary.json").read_text())
    b = json.loads((tmp_path / "sweep" / "seed=1" / "summary.json").read_text())
    assert a["mean_fct_s"] == b["mean_fct_s"] and a["events"] == b["events"]


# ---- the command line: one line and exit 2, checked before anything runs or is written ---

def _bad_cases(e: str) -> list[tuple[list[str], str]]:
    return [
        (["run", e, "--seed", "-1"], "--seed"),
        (["run", e, "--seed", str(2**64)], "--seed"),
        (["run", e, "--out", "OUT", "--pcap", "all", "--pcap-snaplen", str(2**32)], "--pcap-snaplen"),
        (["run", e, "--out", "OUT", "--pcap", "all", "--pcap-snaplen", "-1"], "--pcap-snaplen"),
        (["run", e, "--out", "FILE"], "--out"),
        (["run", e, "--out", "FILE/sub"], "--out"),
        (["bench", "--duration", "nan"], "--duration"),
        (["bench", "--duration", "inf"], "--duration"),
        (["bench", "--duration", "1e300"], "--duration"),
        (["bench", "--fast-burstiness", "--duration", "inf"], "--duration"),
        (["bench", "--sweep", "--runs", "100000000"], "--runs"),
        (["bench", "--sweep", "--workers", "100000"], "--workers"),
        (["sweep", e, "--seeds", "1000000000", "--out", "OUT"], "--seeds"),
        (["sweep", e, "--seeds", "1..1000000000", "--out", "OUT"], "--seeds"),
        (["sweep", e, "--seeds", str(2**64), "--out", "OUT"], "--seeds"),
        (["sweep", e, "--seeds", "9" * 5000, "--out", "OUT"], "--seeds"),
        (["sweep", e, "--param", "tcp.init_cwnd=" + ",".join(map(str, range(1, 1001))),
          "--param", "tcp.mss=" + ",".join(map(str, range(500, 1500))), "--seeds", "2", "--out", "OUT"], "runs"),
        (["sweep", e, "--chunk", "-1", "--seeds", "1", "--out", "OUT"], "--chunk"),
        (["sweep", e, "--chunk", "0", "--seeds", "1", "--out", "OUT"], "--chunk"),
        (["sweep", e, "--workers", "100000", "--seeds", "1", "--out", "OUT"], "--workers"),
        (["sweep", e, "--scheduler", "not a url", "--seeds", "1", "--out", "OUT"], "--scheduler"),
        (["sweep", e, "--scheduler", "foo://host:1", "--seeds", "1", "--out", "OUT"], "--scheduler"),
        (["sweep", e, "--seeds", "1", "--out", "FILE"], "--out"),
        (["reproduce", "short-long", "--scheduler", "not a url", "--out", "OUT"], "--scheduler"),
        (["reproduce", "incast", "--jitter-us", "nan", "--out", "OUT"], "--jitter-us"),
        (["reproduce", "incast", "--jitter-us", "inf", "--out", "OUT"], "--jitter-us"),
        (["reproduce", "incast", "--jitter-us", "1e30", "--out", "OUT"], "jitter_us"),
        (["reproduce", "incast-map", "--jitter-us", "1e30", "--out", "OUT"], "jitter_us"),
        (["reproduce", "incast", "--seeds", "1000000000", "--out", "OUT"], "--seeds"),
        (["reproduce", "jumbo", "--workers", "100000", "--out", "OUT"], "--workers"),
        (["reproduce", "jumbo", "--seeds", "1", "--out", "FILE"], "--out"),
        (["reproduce", "datatag", "--duration", "1e300", "--out", "OUT"], "--duration"),
        # a duration the clock holds but the experiment's 1 ms monitor cannot sample
        (["reproduce", "datatag", "--duration", "50000", "--seeds", "1", "--workers", "0", "--out", "OUT"],
         "output.monitor"),
    ]


def test_bad_options_one_line_exit_2_nothing_written(capsys, tmp_path, examples, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "FILE").write_text("x")
    for args, name in _bad_cases(str(examples / "incast.toml")):
        rc, err = main_rc(capsys, *args)
        assert rc == 2, (args, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and name in lines[0], (args, err)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["FILE"], args
        assert (tmp_path / "FILE").read_text() == "x"


def test_read_only_out_refused_before_the_run(capsys, tmp_path, examples):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        if os.access(ro, os.W_OK):
            pytest.skip("running as root: a read-only folder is writable")
        for cmd in (["run", str(examples / "incast.toml")], ["sweep", str(examples / "incast.toml"), "--seeds", "1"],
                    ["reproduce", "jumbo", "--seeds", "1"]):
            rc, err = main_rc(capsys, *cmd, "--out", str(ro / "x"))
            assert rc == 2 and "--out" in err and len(err.strip().splitlines()) == 1, err
        assert list(ro.iterdir()) == []
    finally:
        ro.chmod(0o755)


def test_python_api_refuses_bad_seed_and_snaplen(examples, tmp_path):
    for kw in ({"seed": -1}, {"seed": 2**64}, {"seed": 1.5}, {"pcap_snaplen": -1}, {"pcap_snaplen": 2**32}):
        with pytest.raises(ValueError, match=rf"^{next(iter(kw))}: must be"):
            api.run(examples / "incast.toml", **kw)
    with pytest.raises(sweeps.SweepError, match="--chunk"):
        sweeps.sweep(examples / "incast.toml", seeds=1, out=tmp_path / "s", chunk=-1)
    with pytest.raises(sweeps.SweepError, match="seeds"):
        sweeps.sweep(examples / "incast.toml", seeds=range(10**12), out=tmp_path / "s", workers=0)
    assert not (tmp_path / "s").exists()


def test_scenario_file_size_is_bounded(tmp_path):
    big = tmp_path / "big.toml"
    big.write_bytes(b"# " + b"x" * (17 * 2**20) + b"\n")
    with pytest.raises(ScenarioError, match="MiB"):
        api.run(big)
    with pytest.raises(ScenarioError, match="MiB"):
        sweeps.load_base(big)


def test_output_closed_early_no_traceback(examples):
    """`superpacket run ... | head -1`: the reader goes away before the output is written."""
    for args in (["run", str(examples / "incast.toml"), "--json"], ["list"]):
        p = subprocess.Popen([EXE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p.stdout.close()  # before the command writes anything: its first write fails
        _, err = p.communicate(timeout=60)
        assert p.returncode == 141, (args, p.returncode, err)  # as a tool that SIGPIPE ended
        assert err == b"", err


# ---- reproduce: an option the experiment does not use is refused -------------------------

GENERIC = {"quick": ["--quick"], "jitter_us": ["--jitter-us", "50"], "admit_syn": ["--admit-syn"]}


def test_experiment_options_are_the_ones_their_run_takes():
    """An experiment declares `quick`, `jitter_us`, `admit_syn` in its record's options exactly when its
    `run` has that parameter (not only a catch-all **_ that would drop it)."""
    import inspect

    from superpacket.experiments import EXPERIMENTS

    for name, mod in EXPERIMENTS.items():
        params = inspect.signature(mod.run).parameters
        declared = {o for o in mod.options if o in GENERIC}
        assert declared == {o for o in GENERIC if o in params}, name


def test_reproduce_refuses_options_an_experiment_ignores(capsys, tmp_path, monkeypatch):
    from superpacket.experiments import EXPERIMENTS

    monkeypatch.chdir(tmp_path)
    refused = 0
    for name, mod in EXPERIMENTS.items():
        for opt, flag in GENERIC.items():
            if opt in mod.options:
                continue
            rc, err = main_rc(capsys, "reproduce", name, *flag, "--seeds", "1", "--workers", "0", "--out", "o")
            assert rc == 2, (name, flag, err)
            lines = err.strip().splitlines()
            assert len(lines) == 1 and flag[0] in lines[0], (name, flag, err)
            refused += 1
    assert refused >= 20 and list(tmp_path.iterdir()) == []


# ---- panics: an error naming the scenario, never a hang ---------------------------------

PANIC_SCENARIO = """
name = "panic-me"
duration = "1s"
[topology]
kind = "dumbbell"
pairs = 1
access = { rate = "100Mbps", delay = "1ms" }
bottleneck = { rate = "10Mbps", delay = "5ms" }
[[traffic]]
kind = "flow"
from = "s0"
to = "d0"
size_bytes = 10000
"""


def test_t_min_above_the_limit_is_refused_by_name():
    # the dynamic rules clamp t to [t_min, limit]: t_min above limit was a panic (issue 14)
    q = '{ kind = "superpacket", limit = 20, threshold = 10, rule = "ewma", t_min = 50 }'
    text = PANIC_SCENARIO.replace('bottleneck = { rate = "10Mbps", delay = "5ms" }',
                                  f'bottleneck = {{ rate = "10Mbps", delay = "5ms", queue = {q} }}')
    with pytest.raises(ScenarioError, match=r"topology\.bottleneck\.queue\.t_min: must be at most limit \(20\)"):
        _core.validate(text)


def test_a_panic_inside_a_run_is_a_simulation_error_naming_the_scenario(monkeypatch, tmp_path):
    # SUPERPACKET_TEST_PANIC = a scenario's name makes its runs panic inside the simulator
    # (the hook in crates/py/src/lib.rs): it must come back as an exception, not abort
    monkeypatch.setenv("SUPERPACKET_TEST_PANIC", "panic-me")
    with pytest.raises(_core.SimulationError, match='scenario "panic-me": internal error while running'):
        api.run(PANIC_SCENARIO)
    sim = _core.Simulation(PANIC_SCENARIO)
    with pytest.raises(_core.SimulationError):
        sim.run_until(0.5)
    with pytest.raises(_core.SimulationError):  # the state is not trusted after a panic
        sim.results()
    # another scenario runs
    assert api.run(PANIC_SCENARIO.replace("panic-me", "fine")).flows["completed"].to_list() == [True]
    # the command line: one line, exit 1 (a bug, not bad input), no traceback
    f = tmp_path / "p.toml"
    f.write_text(PANIC_SCENARIO)
    r = subprocess.run([EXE, "run", str(f)], capture_output=True, text=True, check=False, timeout=60,
                       env={**os.environ, "SUPERPACKET_TEST_PANIC": "panic-me"})
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "panic-me" in r.stderr


@pytest.mark.parametrize("workers", [0, 1])
def test_a_panicking_run_is_a_failed_run_of_the_sweep(monkeypatch, tmp_path, workers):
    # every run of this sweep panics: the sweep returns (no hang), each run is in
    # failures.jsonl with the scenario's name, on one process and on a Dask worker
    import json

    monkeypatch.setenv("SUPERPACKET_TEST_PANIC", "panic-me")  # inherited by the local workers
    f = tmp_path / "p.toml"
    f.write_text(PANIC_SCENARIO)
    out = tmp_path / "out"
    r = sweeps.sweep(f, params={"traffic[0].size_bytes": [1000, 2000]}, seeds=[1], out=out, workers=workers,
                     progress=False)
    assert r.runs == 2 and r.ran == 0 and len(r.failed) == 2
    recs = [json.loads(ln) for ln in (out / "failures.jsonl").read_text().splitlines()]
    assert len(recs) == 2 and all('scenario "panic-me": internal error' in x["error"] for x in recs)


# ---- Ctrl-C: stops within a second, one line, nothing half-written ----------------------

LONG_RUN = """name = "long"
duration = "3000s"
[topology]
kind = "dumbbell"
pairs = 8
access = { rate = "40Gbps", delay = "1ms" }
bottleneck = { rate = "10Gbps", delay = "20ms", queue = { kind = "droptail", limit = 4000 } }
[[traffic]]
kind = "bulk"
from = "s{i}"
to = "d{i}"
count = 8
"""


@pytest.mark.parametrize("after_s", [0.3, 1.5])
def test_ctrl_c_stops_a_long_run_within_a_second_writing_nothing(tmp_path, after_s):
    """SIGINT during `superpacket run --out`: exit 130 within 1.5 s of the signal, one line
    on stderr, no traceback, no output folder and no partial file beside it."""
    import signal
    import time

    f = tmp_path / "long.toml"
    f.write_text(LONG_RUN)
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "superpacket.cli", "run", str(f), "--out", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # `after_s` counts from the run's start: the simulator's extension mapped into the
    # process (on a loaded machine the interpreter alone can take longer than 0.3 s to
    # start, and a signal before Python's handler exists kills it outright)
    deadline = time.monotonic() + 60
    while "_core" not in Path(f"/proc/{p.pid}/maps").read_text():
        assert p.poll() is None, p.communicate()
        assert time.monotonic() < deadline, "the run did not start within 60 s"
        time.sleep(0.01)
    time.sleep(after_s)
    assert p.poll() is None, p.communicate()
    t0 = time.perf_counter()
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=10)
    finally:
        p.kill()
    waited = time.perf_counter() - t0
    assert p.returncode == 130, (p.returncode, err[-2000:])
    assert waited < 1.5, waited
    assert "Traceback" not in err, err
    assert err.strip().splitlines() == ["superpacket: run: interrupted"], err
    assert sorted(x.name for x in tmp_path.iterdir()) == ["long.toml"]


def test_ctrl_c_stops_a_sweep_on_its_local_cluster(tmp_path):
    """Ctrl-C in a terminal reaches the whole process group: the sweep on its own Dask
    cluster (workers busy inside the simulator) exits 130 within 1.5 s with one line,
    and leaves no half-written run (only sweep.json; no `.out.partial`)."""
    import signal
    import time

    f = tmp_path / "long.toml"
    f.write_text(LONG_RUN)
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "superpacket.cli", "sweep", str(f), "--param", "topology.pairs=8,9",
                          "--seeds", "1..2", "--workers", "2", "--out", str(out), "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(8)  # the cluster is up and its workers are running
    assert p.poll() is None, p.communicate()
    t0 = time.perf_counter()
    os.killpg(p.pid, signal.SIGINT)
    try:
        _, err = p.communicate(timeout=20)
    finally:
        p.kill()
    waited = time.perf_counter() - t0
    assert p.returncode == 130, (p.returncode, err[-2000:])
    assert waited < 1.5, waited
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert sorted(x.name for x in tmp_path.iterdir()) == ["long.toml", "out"]
    assert [x.name for x in out.iterdir()] == ["sweep.json"]


def test_results_write_is_whole_or_nothing(tmp_path, monkeypatch):
    """An error midway through `Results.write` (here: the third table) leaves no folder
    and no partial file; a second write into an existing folder replaces its files."""
    res = api.run({"name": "w", "duration": "50ms",
                   "topology": {"kind": "dumbbell", "pairs": 1, "access": {"rate": "100Mbps", "delay": "1ms"},
                                "bottleneck": {"rate": "10Mbps", "delay": "5ms"}},
                   "traffic": [{"kind": "bulk", "from": "s0", "to": "d0"}]})
    import polars as pl

    real = pl.DataFrame.write_parquet
    calls = []

    def failing(self, path, *a, **kw):
        calls.append(path)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(self, path, *a, **kw)

    monkeypatch.setattr(pl.DataFrame, "write_parquet", failing)
    with pytest.raises(KeyboardInterrupt):
        res.write(tmp_path / "out")
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(pl.DataFrame, "write_parquet", real)
    res.write(tmp_path / "out")
    res.write(tmp_path / "out")  # into an existing folder
    assert (tmp_path / "out" / "summary.json").is_file()
    assert [x.name for x in tmp_path.iterdir()] == ["out"]


# ---- unbounded sizes: a documented limit, or the run's memory estimated and refused ------

_BUDGET_HINT = "(budget 8.0 GB; set SUPERPACKET_MEMORY_BUDGET or [output] memory_budget)"
#: Address space of a refused case: an allocation of the refused size would fail the test
#: (exit 134 or a MemoryError) rather than the machine.
_REFUSAL_AS = 2 * 2**30
_LIMITED_CLI = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]),) * 2); "
                "from superpacket import cli; sys.exit(cli.main(sys.argv[2:]))")


def _small(**kw: Any) -> dict[str, Any]:
    d: dict[str, Any] = {
        "name": "h", "duration": "10s",
        "topology": {"kind": "dumbbell", "pairs": 2, "access": {"rate": "1Gbps", "delay": "1ms"},
                     "bottleneck": {"rate": "100Mbps", "delay": "10ms"}},
        "traffic": [{"kind": "bulk", "from": "s0", "to": "d0"}],
    }
    d.update(kw)
    return d


def _web(**kw: Any) -> dict[str, Any]:
    return {"kind": "web", "servers": "s{i}", "server_count": 1, "clients": "d{i}", "client_count": 1,
            "sessions": 10, **kw}


_sp_access = {"rate": "1Gbps", "delay": "1ms",
              "queue": {"kind": "superpacket", "limit": 100, "threshold": 10, "bloom_bits": 2**31}}

SIZES = [
    # (id, scenario, the line's start)
    ("flows-1e8", _small(traffic=[{"kind": "bulk", "from": "s0", "to": "d0", "count": 10**8}]),
     "traffic[0].count: the run would hold about 180.0 GB " + _BUDGET_HINT),
    ("flows-2e6-in-each-of-3-entries", _small(traffic=[{"kind": "flow", "from": "s0", "to": "d0", "count": 2 * 10**6,
                                                        "size_pkts": 1}] * 3),
     "traffic[0].count: the run would hold about 10.8 GB"),
    ("poisson-1e12-per-s", _small(traffic=[{"kind": "poisson", "from": "s0", "to": "d0", "rate_per_s": 1e12,
                                            "size_pkts": 1}]),
     "traffic[0].rate_per_s: the run would hold about 6.0 PB"),
    # an error the scenario's [tcp] table makes by itself is named there, where it was
    # written (it was named at the first entry that inherits it)
    ("init-cwnd-1e9", _small(tcp={"init_cwnd": 1e9}),
     "tcp.init_cwnd: must be at most 1000000 (got 1000000000)"),
    ("entry-init-cwnd-1e9", _small(traffic=[{"kind": "bulk", "from": "s0", "to": "d0", "tcp": {"init_cwnd": 1e9}}]),
     "traffic[0].tcp.init_cwnd: must be at most 1000000"),
    ("classifier-2^28", _small(topology={**_small()["topology"], "access": {
        "rate": "1Gbps", "delay": "1ms", "classifier": {"max_flows": 2**28}}}),
     "topology.access.classifier.max_flows: the run would hold about 14.0 GB"),
    # each filter (512 MB) is allocated after its charge: below 2 GB here with a 1 GB budget
    ("bloom-2^31-on-every-access-link", _small(topology={**_small()["topology"], "pairs": 8, "access": _sp_access},
                                               output={"memory_budget": "1GB"}),
     "topology.access.queue.bloom_bits: the run would hold about 1.1 GB (budget 1.0 GB;"),
    ("web-objects-2^32", _small(traffic=[_web(objects_max=2**32 - 1)]),
     "traffic[0].objects_max: must be at most 100000 (got 4294967295)"),
    ("web-sessions-2^20-fast-pages", _small(traffic=[_web(sessions=2**20, inter_page="1ms")]),
     "traffic[0].sessions: the run would hold about"),
    ("web-one-session-of-1ns-objects", _small(traffic=[_web(sessions=1, inter_page="1us", inter_object="1ns",
                                                            objects_max=100000)]),
     "traffic[0].inter_object: the run would hold about"),
    ("cbr-into-a-100s-pipe", _small(duration="5s", topology={**_small()["topology"], "access": {
        "rate": "100Gbps", "delay": "100s"}}, traffic=[{"kind": "cbr", "from": "s0", "to": "d0", "rate": "100Gbps"}]),
     "topology.access.delay: the run would hold about"),
    ("reorder-every-packet-for-50s", _small(duration="100s", topology={**_small()["topology"], "bottleneck": {
        "rate": "100Gbps", "delay": "1ms"}}, reorder=[{"links": ["R1->R2"], "q": 1.0, "delay_mean": "50s"}]),
     "reorder[0].delay_mean: the run would hold about"),
    ("pcap-all-links-long", _small(duration="100000s", output={"pcap": ["all"]}),
     "output.pcap: the run would hold about"),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in SIZES])
def test_sizes_are_refused_by_name_quickly_in_bounded_memory(tmp_path, case):
    """Each unbounded size of issue 14 (10^8 flows, Poisson at 10^12/s, init_cwnd 10^9, a
    classifier of 2^28 entries, web pages of 2^32 objects, ...): exit 2 and one line naming
    the field, within 10 s in 2 GB of address space (nothing of that size allocated)."""
    _, scenario, line = case
    f = tmp_path / "case.toml"
    f.write_text(_toml.dumps(scenario))
    r = subprocess.run([sys.executable, "-c", _LIMITED_CLI, str(_REFUSAL_AS), "run", str(f), "--out",
                        str(tmp_path / "out")], capture_output=True, text=True, timeout=10, check=False)
    assert_bad_input(r)
    assert r.stderr.strip().removeprefix(f"superpacket: {f}: ").startswith(line), r.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["case.toml"]


def test_the_budget_is_configurable(tmp_path, monkeypatch):
    """`[output] memory_budget`, overridden by SUPERPACKET_MEMORY_BUDGET; a bad value is
    refused by name."""
    big = _small(traffic=[{"kind": "bulk", "from": "s0", "to": "d0", "count": 10_000}])  # about 18 MB
    assert 17e6 < _core.Simulation(_toml.dumps(big), "toml", None).memory_estimate < 19e6
    monkeypatch.delenv("SUPERPACKET_MEMORY_BUDGET", raising=False)
    with pytest.raises(ScenarioError, match=r"^traffic\[0\].count: the run would hold about 18.0 MB \(budget 1.0 MB;"):
        _core.Simulation(_toml.dumps({**big, "output": {"memory_budget": "1MB"}}), "toml", None)
    with pytest.raises(ScenarioError, match=r"^output.memory_budget: unknown unit \"XB\""):
        _core.Simulation(_toml.dumps({**big, "output": {"memory_budget": "5XB"}}), "toml", None)
    monkeypatch.setenv("SUPERPACKET_MEMORY_BUDGET", "10MB")
    with pytest.raises(ScenarioError, match=r"\(budget 10.0 MB;"):
        _core.Simulation(_toml.dumps({**big, "output": {"memory_budget": "1TB"}}), "toml", None)
    monkeypatch.setenv("SUPERPACKET_MEMORY_BUDGET", "20MB")
    _core.Simulation(_toml.dumps(big), "toml", None)
    monkeypatch.setenv("SUPERPACKET_MEMORY_BUDGET", "-1")
    with pytest.raises(ScenarioError, match=r"^SUPERPACKET_MEMORY_BUDGET: must be at least 1 byte"):
        _core.Simulation(_toml.dumps(big), "toml", None)


def test_examples_and_experiments_fit_the_default_budget(examples, monkeypatch):
    """The shipped scenarios at full scale are estimated well below 8 GB."""
    from superpacket.experiments import riops_web

    monkeypatch.delenv("SUPERPACKET_MEMORY_BUDGET", raising=False)
    for f in sorted(examples.glob("*.toml")):
        assert _core.Simulation(f.read_text(), "toml", None).memory_estimate < 1e9, f
    web = _core.Simulation(_toml.dumps(riops_web.scenario("exp1-ito1", "riops", 4000.0)), "toml", None)
    assert 0.3e9 < web.memory_estimate < 3e9
