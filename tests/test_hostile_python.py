"""Hostile input on the Python side (issue 30): the command lines of run, sweep, reproduce
and bench, the Python API and sweeps. Each refusal is exit 2 (or an exception from the
API) with one line naming the option or field, before anything runs or is written."""

import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from superpacket import ScenarioError, api, cli_checks, sweeps

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
    for bad in ([2.7], ["1_0"], [True], [1, None]):
        with pytest.raises(sweeps.SweepError, match="each seed must be an integer"):
            sweeps.sweep(examples / "incast.toml", seeds=bad, out=tmp_path / "s", workers=0)
    with pytest.raises(sweeps.SweepError, match="ASCII digits"):
        sweeps.sweep(examples / "incast.toml", seeds="+3", out=tmp_path / "s", workers=0)
    with pytest.raises(ValueError, match="^seed: must be"):
        api.run(examples / "incast.toml", seed=True)
    assert not (tmp_path / "s").exists()
