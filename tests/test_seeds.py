"""The one parser of seeds (superpacket.seeds): what it takes and what it refuses, and that
the command line, the Python API, sweeps and the experiments all answer through it (the
same message for the same mistake, the argument named)."""

import itertools
import time

import numpy as np
import pytest
from superpacket import api, seeds, sweeps
from superpacket.cli import checks as cli_checks
from superpacket.experiments import EXPERIMENTS, jumbo
from superpacket.experiments.common import seed_list
from superpacket.limits import MAX_EXPERIMENT_SEEDS, MAX_RUNS, U64_MAX
from superpacket.seeds import SeedError, check_seed, parse_seed, parse_seeds

# ---- acceptances ---------------------------------------------------------------------------------


@pytest.mark.parametrize("given,expected", [
    (1, [1]),
    (4, [1, 2, 3, 4]),
    (MAX_EXPERIMENT_SEEDS, list(range(1, MAX_EXPERIMENT_SEEDS + 1))),  # the cap itself
    (np.int64(3), [1, 2, 3]),  # numpy's integers are integers
    ("3", [1, 2, 3]),  # text N is 1..N, as `--seeds 3`
    ("2..4", [2, 3, 4]),
    ("5, 1..2,5", [1, 2, 5]),  # text names a set: sorted, a repeat dropped
    (" 9\n", [1, 2, 3, 4, 5, 6, 7, 8, 9]),  # ASCII blanks around it, as a shell may leave them
    (f"{U64_MAX}..{U64_MAX}", [U64_MAX]),
    ([9, 3, 0], [9, 3, 0]),  # a list in its order; 0 is a valid simulator seed
    ((U64_MAX,), [U64_MAX]),
    (range(3, 6), [3, 4, 5]),
    (np.array([5, 2], dtype=np.uint64), [5, 2]),
    ((s for s in (7, 8)), [7, 8]),  # any iterable, counted as it is walked
])
def test_parse_seeds_takes(given, expected):
    out = parse_seeds(given)
    assert out == expected
    assert all(type(s) is int for s in out)  # Python ints, whatever was given


def test_one_seed_as_text_and_as_a_value():
    assert parse_seed("0") == 0 and parse_seed("007") == 7 and parse_seed(str(U64_MAX)) == U64_MAX
    assert check_seed(0) == 0 and check_seed(U64_MAX) == U64_MAX
    assert check_seed(np.uint64(U64_MAX)) == U64_MAX and type(check_seed(np.int32(5))) is int


# ---- refusals ------------------------------------------------------------------------------------

NOT_A_COUNT = "seeds: must be an integer N >= 1 or a list of seeds, or text such as 1..10 or 1,3,5 (got "


@pytest.mark.parametrize("given,message", [
    (True, NOT_A_COUNT + "True)"),  # True is not "1 seed"
    (False, NOT_A_COUNT + "False)"),
    (2.0, NOT_A_COUNT + "2.0)"),  # a whole float too
    (np.float64(3.0), NOT_A_COUNT + "np.float64(3.0))"),
    (None, NOT_A_COUNT + "None)"),
    (b"3", NOT_A_COUNT + "b'3')"),
    ({1: 1}, NOT_A_COUNT + "{1: 1})"),
    (0, "seeds: must be an integer in 1..1000 (got 0)"),
    (-3, "seeds: must be an integer in 1..1000 (got -3)"),
    (1001, "seeds: must be an integer in 1..1000 (got 1001)"),
    ([], "seeds: must hold 1..1000 seeds (got 0)"),
    (range(1001), "seeds: must hold 1..1000 seeds (got 1001)"),
    (range(10**30), "seeds: must hold 1..1000 seeds (got more than 1000)"),  # len() overflows
    (itertools.count(), "seeds: must hold 1..1000 seeds (got more than 1000)"),  # stops at the cap
    ([1, True], f"seeds: each seed must be an integer in 0..{U64_MAX} (got True)"),
    ([1, 2.0], f"seeds: each seed must be an integer in 0..{U64_MAX} (got 2.0)"),
    ([1, "2"], f"seeds: each seed must be an integer in 0..{U64_MAX} (got '2')"),
    ([1, -1], f"seeds: each seed must be an integer in 0..{U64_MAX} (got -1)"),
    ([2**64], f"seeds: each seed must be an integer in 0..{U64_MAX} (got {2**64})"),
    ([3, 1, 3], "seeds: seed 3 is given more than once"),
    ("0", "seeds 0: no seeds (N means seeds 1..N, N >= 1; A..B needs A <= B)"),
    ("5..3", "seeds 5..3: no seeds (N means seeds 1..N, N >= 1; A..B needs A <= B)"),
    ("1001", "seeds 1001: 1001 seeds; at most 1000 in one experiment"),
    ("1..x", "seeds 1..x: expected N, A..B or a list such as 1,3,5 (ASCII digits 0-9 only)"),
    ("-3", "seeds -3: expected N, A..B or a list such as 1,3,5 (ASCII digits 0-9 only)"),
    ("2.0", "seeds 2.0: expected N, A..B or a list such as 1,3,5 (ASCII digits 0-9 only)"),
    ("1_0", "seeds 1_0: expected N, A..B or a list such as 1,3,5 (ASCII digits 0-9 only)"),
    ("\u0663", "seeds \u0663: expected N, A..B or a list such as 1,3,5 (ASCII digits 0-9 only)"),
    (f"1..{2**64}", f"seeds {2**64}: a seed must be at most {U64_MAX}"),  # the number at fault
])
def test_parse_seeds_refuses_with_one_line_naming_the_argument(given, message):
    with pytest.raises(SeedError) as e:
        parse_seeds(given)
    assert str(e.value) == message
    assert isinstance(e.value, ValueError)  # what callers of the experiments catch


def test_the_name_limit_and_what_are_the_callers():
    with pytest.raises(SeedError, match=r"^--seeds 1\.\.11: 11 seeds; at most 10 in one sweep$"):
        parse_seeds("1..11", "--seeds", limit=10, what="sweep")
    with pytest.raises(SeedError, match=r"^my_seeds: must be an integer in 1\.\.10 \(got 11\)$"):
        parse_seeds(11, "my_seeds", limit=10)


def test_an_integer_too_long_to_print_is_refused_by_its_size():
    # repr() of a 5000-digit int raises ValueError (Python's int-to-text limit): not here
    with pytest.raises(SeedError, match=r"^seeds: must be an integer in 1\.\.1000 \(got an integer of 16610 bits\)$"):
        parse_seeds(10**5000)
    with pytest.raises(SeedError, match=r"^seed: must be an integer in 0\.\.\d+ \(got an integer of 16610 bits\)$"):
        check_seed(10**5000)


def test_text_is_bounded_before_int():
    t0 = time.perf_counter()
    with pytest.raises(SeedError, match="at most"):
        parse_seeds("9" * 10**6)
    with pytest.raises(SeedError, match="at most"):
        parse_seeds(f"1..{'9' * 10**6}")
    assert time.perf_counter() - t0 < 1.0


@pytest.mark.parametrize("value", [True, 2.0, -1, 2**64, "3", None, np.float32(1.0)])
def test_check_seed_refuses(value):
    with pytest.raises(SeedError, match=r"^seed: must be an integer in 0\.\.18446744073709551615 \(got "):
        check_seed(value)


# ---- every caller answers through the one parser -------------------------------------------------

@pytest.mark.parametrize("bad", [2.0, True, [1, 1], [1, -1], "1..x", [], None])
def test_sweep_and_experiments_give_the_same_message(bad, examples, tmp_path):
    """The same mistake, the same one line: sweep (limit MAX_RUNS) and an experiment
    (limit 1000) differ only in the limit they name; sweep's is a SweepError."""
    with pytest.raises(ValueError) as exp:
        jumbo.run(seeds=bad)
    with pytest.raises(sweeps.SweepError) as swp:
        sweeps.sweep(examples / "incast.toml", seeds=bad, out=tmp_path / "s", workers=0)
    assert str(swp.value) == str(exp.value).replace(f"1..{MAX_EXPERIMENT_SEEDS}", f"1..{MAX_RUNS}")
    assert not (tmp_path / "s").exists()  # refused before anything was written


def test_whole_floats_are_refused_by_every_experiment():
    """pda_common's check accepted seeds=2.0 as 2 seeds while the others refused it."""
    for name, mod in sorted(EXPERIMENTS.items()):
        with pytest.raises(ValueError, match=r"^seeds: must be an integer N >= 1 or a list"):
            mod.run(seeds=2.0)
        with pytest.raises(ValueError, match=r"^seeds: each seed must be an integer"):
            mod.run(seeds=[1, 2.0])


def test_sweep_sorts_a_list_and_experiments_keep_its_order():
    assert sweeps.normalize_seeds([9, 3]) == [3, 9]  # a sweep's runs are folders by seed
    assert seed_list([9, 3]) == [9, 3]  # an experiment's per-seed lists follow the order given
    assert sweeps.parse_seeds("3") == [1, 2, 3]


def test_the_command_line_and_the_api_use_the_library_parser(examples):
    assert cli_checks.SeedError is seeds.SeedError
    assert cli_checks.parse_seeds("1..3") == parse_seeds("1..3", "--seeds", MAX_RUNS, "sweep")
    with pytest.raises(SeedError, match=r"^--seeds 1\.\.1001: 1001 seeds; at most 1000 in one experiment$"):
        cli_checks.parse_seeds("1..1001", limit=MAX_EXPERIMENT_SEEDS, what="experiment")
    with pytest.raises(SeedError, match=r"^--seed \+3: a seed is written in ASCII digits"):
        cli_checks.parse_seed("+3")
    with pytest.raises(SeedError, match=r"^seed: must be an integer in 0\.\.\d+ \(got 2\.0\)$"):
        api.run(examples / "incast.toml", seed=2.0)
    # numpy's integer seeds run (the scenario's seed is the value given)
    assert api.run(examples / "incast.toml", seed=np.uint64(3)).summary["seed"] == 3
