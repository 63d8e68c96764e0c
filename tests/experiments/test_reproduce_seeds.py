"""`reproduce --seeds` in the syntax of `sweep --seeds` (issue 14 section 2): N (1..N), A..B,
lists such as 1,3,5 or 3..5,9; experiments' `run(seeds=...)` take N, such text or a list, normalised by
experiments.common.seed_list, and run exactly those seeds; the summary's `seed_list` names
them in the order of the `_per_seed` lists."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from superpacket.experiments import EXPERIMENTS, jumbo
from superpacket.experiments.common import seed_list, seed_text

EXE = str(Path(sys.executable).parent / "superpacket")


def reproduce(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, "reproduce", *args], capture_output=True, text=True, check=False)


# ---- the helper ---------------------------------------------------------------------------------

def test_seed_list_n_means_1_to_n_and_a_list_is_kept_in_order():
    assert seed_list(1) == [1]
    assert seed_list(4) == [1, 2, 3, 4]
    assert seed_list(1000) == list(range(1, 1001))  # the cap itself is allowed
    assert seed_list([9, 3, 0]) == [9, 3, 0]  # as given: 0 is a valid simulator seed, as in sweep
    assert seed_list(range(3, 6)) == [3, 4, 5]
    assert seed_list((2**64 - 1,)) == [2**64 - 1]  # the largest u64 seed
    assert seed_list("3..5,9") == [3, 4, 5, 9]  # text as `--seeds`: the one parser of seeds


@pytest.mark.parametrize("bad,needle", [
    (0, "must be an integer in 1..1000 (got 0)"),
    (-3, "must be an integer in 1..1000 (got -3)"),
    (1001, "must be an integer in 1..1000 (got 1001)"),
    (True, "must be an integer N >= 1 or a list"),  # a bool is not a count
    (2.5, "must be an integer N >= 1 or a list"),
    (2.0, "must be an integer N >= 1 or a list"),  # a whole float too: a count is not a measurement
    (None, "must be an integer N >= 1 or a list"),
    ([], "must hold 1..1000 seeds (got 0)"),
    (list(range(1001)), "must hold 1..1000 seeds (got 1001)"),
    ([1, -1], "each seed must be an integer in 0..18446744073709551615 (got -1)"),
    ([1, 2**64], "each seed must be an integer in 0..18446744073709551615"),
    ([1, 2.0], "each seed must be an integer"),
    ([3, 1, 3], "seed 3 is given more than once"),  # a repeat would narrow the CI with no new data
])
def test_seed_list_refuses_with_one_line_naming_seeds(bad, needle):
    with pytest.raises(ValueError) as e:
        seed_list(bad)
    msg = str(e.value)
    assert msg.startswith("seeds: ") and needle in msg and "\n" not in msg


def test_seed_text_folds_runs():
    assert seed_text([1]) == "1"
    assert seed_text(list(range(1, 11))) == "1..10"
    assert seed_text([3, 4, 5, 9]) == "3..5, 9"
    assert seed_text([9, 3, 4]) == "9, 3..4"  # order kept: a list given out of order stays so


# ---- every experiment runs exactly the seeds given ---------------------------------------------

# experiments whose runs keep an over-time series for one seed (the figures' data)
# datacenter keeps the queue series of its first seed (the queue figure) since dcq
KEEP_SERIES = {"datacenter", "datatag", "fast-burstiness", "dcr", "lion", "mbs", "riops-goodput", "riops-web"}


class _Stop(Exception):
    pass


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_every_experiment_hands_the_given_seeds_to_run_seeds(name, monkeypatch):
    """Each experiment's run() passes seed_list(seeds) to run_seeds (which runs exactly
    those, see the next tests) and the series seed, where it keeps one, is the first of
    them (seed 5 here: with `seed == 1` no run of [5, 2] would keep a series). run_seeds
    is replaced in the experiment's module (it is imported by name there) by a recorder
    that stops the run, so nothing is simulated."""
    mod = EXPERIMENTS[name]
    seen = {}

    def record(variants, seeds, keys, run_one, *a, **k):
        seen["seeds"] = seed_list(seeds)
        seen["series_seed"] = getattr(run_one, "keywords", {}).get("series_seed")
        raise _Stop

    owner = mod.module
    if not hasattr(owner, "run_seeds"):  # datatag, fast-burstiness: through bc_common
        from superpacket.experiments import bc_common as owner
    monkeypatch.setattr(owner, "run_seeds", record)
    with pytest.raises(_Stop):
        mod.run(seeds=[5, 2])
    assert seen["seeds"] == [5, 2]
    assert seen["series_seed"] == (5 if name in KEEP_SERIES else None)


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_every_experiment_refuses_bad_seeds_before_running(name):
    # the same one-line ValueError (or the experiment's subclass of it) everywhere
    with pytest.raises(ValueError, match=r"^seeds: seed 2 is given more than once$"):
        EXPERIMENTS[name].run(seeds=[2, 2])
    with pytest.raises(ValueError, match=r"^seeds: must be an integer in 1..1000 \(got 0\)$"):
        EXPERIMENTS[name].run(seeds=0)


def test_a_list_runs_those_seeds_in_its_order():
    """Determinism is the independent truth: the same seed gives the same run, so the
    values of seeds [3, 1] are those of seeds 3 and 1 within a 1..3 run, in the list's
    order. jumbo, 2 s runs: a fraction of a second each."""
    three = jumbo.run(seeds=3, duration_s=2.0)
    picked = jumbo.run(seeds=[3, 1], duration_s=2.0)
    assert three["seeds"] == 3 and three["seed_list"] == [1, 2, 3]
    assert picked["seeds"] == 2 and picked["seed_list"] == [3, 1]
    for v, ms in picked["variants"].items():
        for k, xs in ms.items():
            if k.endswith("_per_seed"):
                full = three["variants"][v][k]
                assert xs == [full[2], full[0]], (v, k)
    # seeds 3 and 1 differ somewhere (else the comparison above could not tell them apart)
    assert any(ms[k][0] != ms[k][1] for ms in picked["variants"].values() for k in ms if k.endswith("_per_seed"))


# ---- the command line ---------------------------------------------------------------------------

def test_cli_range_gives_the_values_of_those_seeds(tmp_path):
    """`--seeds 2..3` runs seeds 2 and 3: its per-seed values equal the 2nd and 3rd of a
    `--seeds 3` run (same seed, same run); the summary keeps `seeds` as the count and
    gains `seed_list`; the printed line names the seeds."""
    r3 = reproduce("jumbo", "--seeds", "3", "--json")
    assert r3.returncode == 0, r3.stderr
    full = json.loads(r3.stdout)
    r23 = reproduce("jumbo", "--seeds", "2..3", "--out", str(tmp_path))
    assert r23.returncode == 0, r23.stderr
    assert r23.stdout.splitlines()[0] == "experiment jumbo  seeds 2..3"
    part = json.loads((tmp_path / "summary.json").read_text())
    assert part["seeds"] == 2 and part["seed_list"] == [2, 3] and full["seed_list"] == [1, 2, 3]
    n = 0
    for v, ms in part["variants"].items():
        for k, xs in ms.items():
            if k.endswith("_per_seed"):
                assert xs == full["variants"][v][k][1:3], (v, k)
                n += 1
    assert n >= 12  # 2 variants x 6 metrics: the loop compared something


def test_cli_list_syntax_and_the_printed_seeds():
    # the sweep syntax: spans and single seeds; parse_seeds sorts and de-duplicates
    r = reproduce("jumbo", "--seeds", "5,1..2,5", "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["seed_list"] == [1, 2, 5] and s["seeds"] == 3
    assert all(len(ms[k]) == 3 for ms in s["variants"].values() for k in ms if k.endswith("_per_seed"))
    r = reproduce("jumbo", "--seeds", "3..4,9")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "experiment jumbo  seeds 3..4, 9"


@pytest.mark.parametrize("text,needle", [
    ("1..x", "--seeds 1..x: expected N, A..B or a list such as 1,3,5"),
    ("two", "--seeds two: expected N, A..B or a list such as 1,3,5"),
    ("0", "--seeds 0: no seeds (N means seeds 1..N, N >= 1"),
    ("5..3", "--seeds 5..3: no seeds (N means seeds 1..N, N >= 1; A..B needs A <= B)"),
    # the cap: 1001 seeds however they are written; the message is reproduce's, not sweep's
    ("1001", "--seeds 1001: 1001 seeds; at most 1000 in one experiment"),
    ("1..1000,2000", "--seeds 1..1000,2000: 1001 seeds; at most 1000 in one experiment"),
    ("1000000000", "at most 1000 in one experiment"),
    (str(2**64), "a seed must be at most 18446744073709551615"),
])
def test_cli_bad_seeds_exit_2_with_one_line(text, needle, tmp_path):
    r = subprocess.run([EXE, "reproduce", "jumbo", "--seeds", text, "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert not (tmp_path / "o").exists()  # refused before anything ran
