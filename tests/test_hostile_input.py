"""Hostile input (issue 14): bad values anywhere give one line naming the field or option
and exit code 2 (ScenarioError from Python), never a traceback, a silent default or a
half-written output folder."""

import math
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


# ---- reproduce: an option the experiment does not use is refused -------------------------

GENERIC = {"quick": ["--quick"], "jitter_us": ["--jitter-us", "50"], "admit_syn": ["--admit-syn"]}


def test_experiment_options_are_the_ones_their_run_takes():
    """An experiment declares `quick`, `jitter_us`, `admit_syn` in OPTIONS exactly when its
    `run` has that parameter (not only a catch-all **_ that would drop it)."""
    import inspect

    from superpacket.experiments import EXPERIMENTS

    for name, mod in EXPERIMENTS.items():
        params = inspect.signature(mod.run).parameters
        declared = {o for o in getattr(mod, "OPTIONS", ()) if o in GENERIC}
        assert declared == {o for o in GENERIC if o in params}, name


def test_reproduce_refuses_options_an_experiment_ignores(capsys, tmp_path, monkeypatch):
    from superpacket.experiments import EXPERIMENTS

    monkeypatch.chdir(tmp_path)
    refused = 0
    for name, mod in EXPERIMENTS.items():
        for opt, flag in GENERIC.items():
            if opt in getattr(mod, "OPTIONS", ()):
                continue
            rc, err = main_rc(capsys, "reproduce", name, *flag, "--seeds", "1", "--workers", "0", "--out", "o")
            assert rc == 2, (name, flag, err)
            lines = err.strip().splitlines()
            assert len(lines) == 1 and flag[0] in lines[0], (name, flag, err)
            refused += 1
    assert refused >= 20 and list(tmp_path.iterdir()) == []
