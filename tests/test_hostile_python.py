"""Hostile input on the Python side (issue 30): the command lines of run, sweep, reproduce
and bench, the Python API and sweeps. Each refusal is exit 2 (or an exception from the
API) with one line naming the option or field, before anything runs or is written."""

import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from superpacket import ScenarioError, api, sweeps
from superpacket.cli import checks as cli_checks

EXE = str(Path(sys.executable).parent / "superpacket")
U64_MAX = 2**64 - 1


def main_rc(capsys, *args: str) -> tuple[int, str]:
    """The command line run in this process: its exit code and stderr (an exception
    would fail the test: no traceback)."""
    from superpacket import cli

    rc = cli.main(list(args))
    return rc, capsys.readouterr().err


def one_line(err: str, *names: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for n in names:
        assert n in lines[0], (n, lines[0])
    assert "Traceback" not in err
    return lines[0]


# ---- class 7: one strict seed parser for run, sweep and reproduce ---------------------

#: Spellings Python's int() takes that are not a seed written in ASCII digits: each ran
#: another seed than the user meant (`1_0` ran seed 10, `+3` only seed 3) or a seed
#: written in another script's digits.
NOT_ASCII_DIGITS = ["1_0", "+3", "-3", "\u0663", "\u0661\u0660", "1 0", "\u20033", "3\u00a0", "0x10", "3.0",
                    "1e3", "\uff13", "", " ", "1,+2", "1..1_0", "\u0663..5", "2..+4", "1,,2", "1..", "..3"]


@pytest.mark.parametrize("text", NOT_ASCII_DIGITS)
def test_run_sweep_reproduce_refuse_the_same_seed_spellings(capsys, tmp_path, monkeypatch, examples, text):
    monkeypatch.chdir(tmp_path)
    e = str(examples / "incast.toml")
    for args, flag in ((["run", e, "--seed", text, "--out", "o"], "--seed"),
                       (["sweep", e, "--seeds", text, "--workers", "0", "--out", "o"], "--seeds"),
                       (["reproduce", "jumbo", "--seeds", text, "--out", "o"], "--seeds")):
        if flag == "--seed" and ("," in text or ".." in text):
            continue  # a list is not one seed: refused all the same, tested below
        rc, err = main_rc(capsys, *args)
        assert rc == 2, (args, err)
        one_line(err, flag)
        assert list(tmp_path.iterdir()) == [], args  # refused before anything was written


def test_run_seed_list_is_refused(capsys, examples):
    rc, err = main_rc(capsys, "run", str(examples / "incast.toml"), "--seed", "1,2")
    assert rc == 2
    one_line(err, "--seed 1,2", "ASCII digits")


def test_the_seed_parser_takes_ascii_digits_and_bounds_before_int():
    assert cli_checks.parse_seed("0") == 0 and cli_checks.parse_seed("007") == 7
    assert cli_checks.parse_seed(" 3\n") == 3  # ASCII blanks around it, as the shell may leave them
    assert cli_checks.parse_seed(str(U64_MAX)) == U64_MAX
    assert cli_checks.parse_seed("0" * 100 + "5") == 5  # leading zeros are not digits of the value
    with pytest.raises(cli_checks.SeedError, match=f"at most {U64_MAX}"):
        cli_checks.parse_seed(str(U64_MAX + 1))
    t0 = time.perf_counter()
    with pytest.raises(cli_checks.SeedError, match="at most"):  # int() of it would hit the 4300-digit limit
        cli_checks.parse_seeds("9" * 10**6)
    assert time.perf_counter() - t0 < 1.0
    assert cli_checks.parse_seeds("3") == [1, 2, 3]
    assert cli_checks.parse_seeds("5, 1..2,5") == [1, 2, 5]
    with pytest.raises(cli_checks.SeedError, match="1001 seeds; at most 1000 in one experiment"):
        cli_checks.parse_seeds("1..1001", limit=1000, what="experiment")
    # the sweep's and reproduce's parsers are this one
    with pytest.raises(sweeps.SweepError, match="ASCII digits"):
        sweeps.parse_seeds("1_0")


def test_python_sweep_seeds_must_be_integers(examples, tmp_path):
    """seeds=[2.7] ran seed 2 and seeds=["1_0"] seed 10 (int() of each); True ran seed 1."""
    with pytest.raises(sweeps.SweepError, match="must be an integer N >= 1 or a list"):
        sweeps.sweep(examples / "incast.toml", seeds=True, out=tmp_path / "s", workers=0)
    for bad in ([2.7], ["1_0"], [True], [1, None]):
        with pytest.raises(sweeps.SweepError, match="each seed must be an integer"):
            sweeps.sweep(examples / "incast.toml", seeds=bad, out=tmp_path / "s", workers=0)
    with pytest.raises(sweeps.SweepError, match="ASCII digits"):
        sweeps.sweep(examples / "incast.toml", seeds="+3", out=tmp_path / "s", workers=0)
    with pytest.raises(ValueError, match="^seed: must be"):
        api.run(examples / "incast.toml", seed=True)
    assert not (tmp_path / "s").exists()


# ---- class 6: seeds from 2^63 up in a sweep, as in run ---------------------------------

def test_sweep_runs_seeds_past_int64_as_run_does(examples, tmp_path):
    """The summary frame held the seed as Int64: seeds >= 2^63 failed in a sweep while
    `run` took them. Now a UInt64 column, in the run's file and in the loaded tables."""
    seeds = [1, 2**63 - 1, 2**63, U64_MAX]
    r = sweeps.sweep(examples / "incast.toml", seeds=seeds, out=tmp_path / "s", workers=0, progress=False)
    assert not r.failed, r.failed
    data = sweeps.load_sweep(tmp_path / "s")
    assert data.summary["seed"].to_list() == seeds
    assert sorted(data.flows["seed"].unique().to_list()) == seeds
    for s in (2**63, U64_MAX):
        assert api.run(examples / "incast.toml", seed=s).summary["seed"] == s
    # the command line the same way
    r2 = subprocess.run([EXE, "sweep", str(examples / "incast.toml"), "--seeds", f"{U64_MAX}", "--workers", "0",
                         "--quiet", "--out", str(tmp_path / "c")], capture_output=True, text=True, check=False)
    assert r2.returncode == 2, r2.stderr  # N means 1..N: 2^64-1 seeds, over the limit
    one_line(r2.stderr, "--seeds", "at most")
    r3 = subprocess.run([EXE, "sweep", str(examples / "incast.toml"), "--seeds", f"{U64_MAX}..{U64_MAX}",
                         "--workers", "0", "--quiet", "--out", str(tmp_path / "c")],
                        capture_output=True, text=True, check=False)
    assert r3.returncode == 0, r3.stderr
    assert sweeps.load_sweep(tmp_path / "c").summary["seed"].to_list() == [U64_MAX]
    base = tomllib.loads((examples / "incast.toml").read_text())
    assert base  # the base is unchanged by the sweep


# ---- class 4: a sweep's grid bounded before any value is expanded ----------------------

@pytest.mark.parametrize("params,seeds,named", [
    ({"traffic[0].count": range(10**8)}, 1, "traffic[0].count: 100000000 values"),
    ({"traffic[0].count": range(10**30)}, 1, "traffic[0].count: too many values"),  # len() overflows
    ({"traffic[0].count": range(600), "tcp.init_cwnd": range(1, 2000)}, 1, "tcp.init_cwnd: 1999 values"),
    ({"tcp.init_cwnd": list(range(1, 400_000))}, 3, "tcp.init_cwnd: 399999 values"),  # x 3 seeds
    ({"tcp.init_cwnd": ",".join(["1"] * 2_000_000)}, 1, "tcp.init_cwnd: more than 1000000 values"),
])
def test_python_sweep_grid_is_bounded_before_values_are_normalised(examples, tmp_path, params, seeds, named):
    """range(10**7) took 35 s and 1.3 GB before the million-run limit refused it: every
    value was parsed, checked and copied first. Now the lengths' product is checked first."""
    t0 = time.perf_counter()
    with pytest.raises(sweeps.SweepError) as e:
        sweeps.sweep(examples / "incast.toml", params=params, seeds=seeds, out=tmp_path / "s", workers=0)
    assert time.perf_counter() - t0 < 2.0  # values are not normalised one by one
    assert named in str(e.value) and "at most 1000000 runs" in str(e.value), str(e.value)
    assert "\n" not in str(e.value)
    assert not (tmp_path / "s").exists()


def test_cli_sweep_grid_is_bounded_before_values_are_parsed(capsys, examples, tmp_path):
    many = ",".join(map(str, range(1, 30_000)))
    t0 = time.perf_counter()
    rc, err = main_rc(capsys, "sweep", str(examples / "incast.toml"), "--param", f"tcp.init_cwnd={many}",
                      "--param", f"tcp.mss={many}", "--seeds", "1", "--out", str(tmp_path / "s"))
    assert rc == 2 and time.perf_counter() - t0 < 2.0
    one_line(err, "--param tcp.mss: 29999 values", "at most 1000000 runs")


def test_points_share_the_base_scenario(examples):
    """A point holds its values, not a copy of the scenario: a grid within the limit keeps
    its memory (1.6 kB per point before, 1.6 GB for a million points)."""
    base = sweeps.load_base(examples / "incast.toml")
    pts = sweeps.build_points(base, sweeps.normalize_params({"tcp.init_cwnd": [2, 3]}))
    assert pts[0].base is pts[1].base and pts[0].base is not base
    assert pts[1].scenario["tcp"]["init_cwnd"] == 3 and base["tcp"]["init_cwnd"] == 10
    assert 'init_cwnd = 3' in pts[1].run_toml(7) and "seed = 7" in pts[1].run_toml(7)


# ---- class 5 and 7: bench refuses with one line, never a traceback or the wrong benchmark ----

BENCH_REFUSED = [
    # class 5: a duration under one nanosecond is no run (0 ns): a None rate, the child's ValueError
    (["--duration", "1e-300"], "--duration", "1e-09"),
    (["--fast-burstiness", "--duration", "1e-300"], "--duration", "1e-09"),
    (["--scenario", "datacenter", "--duration", "1e-12", "--warmup", "0"], "--duration", "1e-09"),
    (["--scenario", "riops-web", "--duration", "1e-300"], "--duration", "1e-09"),
    (["--scenario", "datacenter", "--warmup", "1e-300"], "--warmup", "1e-09"),
    # class 5: the sweep's scenario is checked here, not by two child interpreters
    (["--sweep", "--scenario", "no-such.toml"], "--scenario no-such.toml", "not found"),
    (["--sweep", "--scenario", "/dev/zero"], "--scenario /dev/zero", "MiB"),
    # class 7: a misspelt benchmark ran P1
    (["--scenario", "datacentre"], "--scenario datacentre", "not a benchmark"),
    (["--scenario", "examples/incast.toml"], "--scenario examples/incast.toml", "--sweep"),
    # class 7: an option of another benchmark was ignored and P1 (or another) ran
    (["--gate", "on"], "--gate applies to --fast-burstiness only", ""),
    (["--gate", "off"], "--gate applies to --fast-burstiness only", ""),
    (["--txqueuelen", "100"], "--txqueuelen applies to --fast-burstiness only", ""),
    (["--hosts", "16"], "--hosts applies to --scenario datacenter only", ""),
    (["--warmup", "0.1"], "--warmup applies to --scenario datacenter only", ""),
    (["--runs", "3"], "--runs applies to --sweep only", ""),
    (["--workers", "1"], "--workers applies to --sweep only", ""),
    (["--scenario", "riops-web", "--hosts", "16"], "--hosts applies to --scenario datacenter only", ""),
    (["--scenario", "datacenter", "--gate", "on"], "--gate applies to --fast-burstiness only", ""),
    (["--sweep", "--duration", "1"], "--duration applies to", "only"),
    (["--fast-burstiness", "--hosts", "16"], "--hosts applies to --scenario datacenter only", ""),
    # two benchmarks at once: the first ran, the other was ignored
    (["--fast-burstiness", "--sweep"], "--fast-burstiness and --sweep", "give one"),
    (["--fast-burstiness", "--scenario", "datacenter"], "--fast-burstiness and --scenario datacenter", "give one"),
    (["--sweep", "--scenario", "datacenter"], "--scenario datacenter", "not found"),  # --sweep takes a file
]


@pytest.mark.parametrize("args,name,why", BENCH_REFUSED, ids=[" ".join(c[0]) for c in BENCH_REFUSED])
def test_bench_refuses_with_one_line_before_running(capsys, monkeypatch, args, name, why):
    from superpacket.cli import bench
    from superpacket.sweeps import bench as sweep_bench

    def never(*a, **k):  # the refusal comes before any benchmark starts
        raise AssertionError("a benchmark ran")

    for f in ("bench_p1", "bench_fast_burstiness", "bench_datacenter", "bench_riops_web"):
        monkeypatch.setattr(bench, f, never)
    monkeypatch.setattr(sweep_bench, "bench", never)
    rc, err = main_rc(capsys, "bench", *args)
    assert rc == 2, err
    one_line(err, name, why)


def test_bench_prints_a_dash_where_a_run_has_no_figure(capsys, monkeypatch):
    """1 ns of P1 or of the fabric: rates over no CPU time are None in the JSON; the text
    shows `-` (a TypeError formatting None before)."""
    from superpacket import cli
    from superpacket.cli import bench

    p1 = {k: None for k in ("wall_s", "events_per_s", "bottleneck_pkts_per_s", "bottleneck_utilization",
                            "peak_rss_bytes")} | {"events": 0, "bottleneck_pkts": 0, "peak_live_packets": 0}
    monkeypatch.setattr(bench, "bench_p1", lambda d: p1)
    rc = cli.main(["bench", "--duration", "1e-9"])
    out = capsys.readouterr().out
    assert rc == 0 and "- M pkts/s" in out, out
    dc = {k: None for k in ("wall_s", "cpu_s", "packet_hops_per_cpu_s", "cpu_ns_per_packet_hop", "events_per_s",
                            "peak_rss_bytes")} | {"nodes": 36, "links": 96, "packet_hops": 0, "events": 0,
                                                  "flows_finished": 0}
    monkeypatch.setattr(bench, "bench_datacenter", lambda *a: dc)
    rc = cli.main(["bench", "--scenario", "datacenter", "--hosts", "16", "--duration", "1e-9"])
    out = capsys.readouterr().out
    assert rc == 0 and "- M hops per CPU s" in out, out


def test_bench_child_errors_are_one_line(capsys, monkeypatch):
    """The fresh interpreter's traceback was wrapped in an uncaught RuntimeError; now its
    last line, exit 2 when it is bad input (ValueError, ScenarioError), else 1."""
    from superpacket.cli import bench

    monkeypatch.setattr(bench, "_BENCH_CHILD", "raise ValueError('duration: must be > 0')")
    rc, err = main_rc(capsys, "bench", "--duration", "0.001")
    assert rc == 2
    assert one_line(err) == "superpacket: bench P1: ValueError: duration: must be > 0"
    monkeypatch.setattr(bench, "_BENCH_CHILD", "import os; os.abort()")
    rc, err = main_rc(capsys, "bench", "--duration", "0.001")
    assert rc == 1
    one_line(err, "bench P1")


# ---- class 8: a dict's value the schema's JSON cannot carry is named by its field ----------

def _incast(examples):
    return tomllib.loads((examples / "incast.toml").read_text())


@pytest.mark.parametrize("path,value,needle", [
    # 10**400 reached the schema as JSON: "number out of range at line 1 column 693"
    ("tcp.init_cwnd", 10**400, "tcp.init_cwnd: must be an integer in"),
    ("tcp.init_cwnd", 10**5000, "tcp.init_cwnd: must be an integer in"),  # json.dumps: a ValueError, no field
    ("tcp.init_cwnd", -(2**63) - 1, "tcp.init_cwnd: must be an integer in"),
    # a lone surrogate: "lone leading surrogate in hex escape at line 1 column 17"
    ("name", "\ud800x", "name: not valid Unicode text"),
    ("traffic[0].from", "s\udcff", "traffic[0].from: not valid Unicode text"),
    ("topology.sender_link", {"rate": "1Gbps", "delay": "25us", "\udcff": 1}, "topology.sender_link: key"),
], ids=["1e400", "1e5000", "below-i64", "surrogate-name", "surrogate-node", "surrogate-key"])
def test_dict_values_json_cannot_carry_are_named(examples, tmp_path, path, value, needle):
    d = _incast(examples)
    sweeps.set_path(d, path, value)
    with pytest.raises(ScenarioError) as e:
        api.run(d)
    assert str(e.value).startswith(needle) and "\n" not in str(e.value), str(e.value)
    # the same value through a sweep: as a parameter, and in the base
    with pytest.raises(sweeps.SweepError) as e2:
        sweeps.sweep(_incast(examples), {path: [value]}, seeds=1, out=tmp_path / "a", workers=0)
    assert str(e2.value).startswith(f"--param {path}") and needle in str(e2.value), str(e2.value)
    with pytest.raises(sweeps.SweepError, match=needle.replace("[", r"\[").replace(".", r"\.")):
        sweeps.sweep(d, seeds=1, out=tmp_path / "b", workers=0)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_undecodable_command_line_text_is_named(tmp_path, examples):
    """Bytes that are not UTF-8 arrive as lone surrogates: a --param value was blamed on
    the scenario file ("'utf-8' codec can't encode"), a --pcap name gave a traceback."""
    for args, needle in ((["sweep", str(examples / "incast.toml"), "--param", b"name=a\xff", "--seeds", "1",
                           "--workers", "0", "--out", str(tmp_path / "s")], "--param name: not valid Unicode"),
                         (["sweep", str(examples / "incast.toml"), "--param", b'name={a="\xff"}', "--seeds", "1",
                           "--workers", "0", "--out", str(tmp_path / "s")], "--param name: not valid Unicode"),
                         (["run", str(examples / "incast.toml"), "--pcap", b"R->\xff", "--out", str(tmp_path / "r")],
                          "pcap")):
        r = subprocess.run([EXE, *args], capture_output=True, text=True, errors="replace", check=False)
        assert r.returncode == 2, r.stderr
        one_line(r.stderr, needle)
    assert list(tmp_path.iterdir()) == []


# ---- argparse's own refusals: one line too ------------------------------------------------

@pytest.mark.parametrize("args,name", [
    (["bench", "--gate", "maybe"], "--gate"), (["bench", "--hosts", "x"], "--hosts"),
    (["run"], "FILE|EXAMPLE"), (["nosuch"], "nosuch"), (["run", "x.toml", "--seed"], "--seed"),
    (["reproduce", "jumbo", "--workers", "1.5"], "--workers"), (["sweep", "x.toml", "--chunk", "x"], "--chunk"),
])
def test_usage_errors_are_one_line_exit_2(capsys, args, name):
    """argparse printed its usage (five lines) before the error: a refusal of many lines."""
    from superpacket import cli

    with pytest.raises(SystemExit) as e:
        cli.main(args)
    assert e.value.code == 2
    one_line(capsys.readouterr().err, name, "error:")


# ---- options a combination would ignore --------------------------------------------------

@pytest.mark.parametrize("args,name", [
    # --chunk sizes Dask tasks: with --workers 0 there are none
    (["sweep", "{e}", "--seeds", "1", "--workers", "0", "--chunk", "4", "--out", "o"], "--chunk"),
    # with --scheduler the cluster's workers run: --workers was dropped
    (["sweep", "{e}", "--seeds", "1", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1", "--out", "o"],
     "--workers 2"),
    (["reproduce", "jumbo", "--seeds", "1", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1", "--out", "o"],
     "--workers 2"),
])
def test_options_a_combination_ignores_are_refused(capsys, tmp_path, monkeypatch, examples, args, name):
    monkeypatch.chdir(tmp_path)
    rc, err = main_rc(capsys, *[a.format(e=examples / "incast.toml") for a in args])
    assert rc == 2
    one_line(err, name)
    assert list(tmp_path.iterdir()) == []


def test_python_sweep_refuses_options_it_would_ignore(examples, tmp_path):
    for kw, name in (({"workers": 0, "chunk": 2}, "--chunk"), ({"workers": 0, "shared_fs": True}, "shared_fs"),
                     ({"workers": 2, "scheduler": "tcp://127.0.0.1:1"}, "--workers"),
                     ({"workers": 2, "client": object()}, "--workers"),
                     ({"client": object(), "scheduler": "tcp://127.0.0.1:1"}, "--scheduler")):
        with pytest.raises(sweeps.SweepError, match=name):
            sweeps.sweep(examples / "incast.toml", seeds=1, out=tmp_path / "s", **kw)
    assert not (tmp_path / "s").exists()


def test_param_numbers_toml_cannot_hold_are_named_as_numbers(capsys, examples, tmp_path):
    """`--param tcp.init_cwnd=1e400` became the string "1e400" ("invalid type: string,
    expected f64"): now a number out of range. A 20,000-character value is not echoed whole."""
    e = str(examples / "incast.toml")
    for value in ("1e400", "99999999999999999999999", "-1e999"):
        rc, err = main_rc(capsys, "sweep", e, "--param", f"tcp.init_cwnd={value}", "--out", str(tmp_path / "s"))
        assert rc == 2
        one_line(err, f"--param tcp.init_cwnd={value}: a number out of range")
    rc, err = main_rc(capsys, "sweep", e, "--param", "x=" + "{" * 20000, "--out", str(tmp_path / "s"))
    assert rc == 2 and len(one_line(err, "--param x={{{")) < 300, err
    assert not (tmp_path / "s").exists()
