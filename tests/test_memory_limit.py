"""A run that does not fit in the process's memory ends with one line naming the run's
memory estimate and the process's limit (RLIMIT_AS, as `ulimit -v` sets it), not a
MemoryError traceback or an abort.

Each case runs the command line in a child process that sets its own RLIMIT_AS once its
libraries are loaded: the limit is the address space the child already uses plus a
margin, so the cases do not depend on this machine's start-up size. The expected
estimates come from the simulator's per-flow costs (1200 B while a flow is open plus
600 B for its rows: 1800 B a flow).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from superpacket import _core, memory

CHILD = """
import resource, sys
from superpacket import api, cli, memory  # the libraries loaded before the limit
limit = memory.address_space()[1] + int(float(sys.argv[1]))
resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
print(limit, flush=True)
sys.exit(cli.main(sys.argv[2:]))
"""


def scenario(flows: int) -> str:
    return f"""name = "many-flows"
duration = "2s"

[topology]
kind = "dumbbell"
pairs = 1
access = {{ rate = "10Gbps", delay = "1ms" }}
bottleneck = {{ rate = "10Gbps", delay = "1ms" }}

[[traffic]]
kind = "flow"
from = "s0"
to = "d0"
count = {flows}
size_pkts = 1
"""


def limited(tmp_path: Path, margin: float, *args: str) -> tuple[int, int, str, str]:
    """(exit code, the limit set, stdout past the limit, stderr) of `superpacket ARGS`."""
    r = subprocess.run([sys.executable, "-c", CHILD, str(margin), *args], capture_output=True, text=True,
                       cwd=tmp_path, check=False, timeout=300)
    first, _, rest = r.stdout.partition("\n")
    return r.returncode, int(first), rest, r.stderr


needs_limits = pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="Linux address-space figures")


@needs_limits
def test_a_million_flows_under_a_small_limit_are_refused_before_the_run(tmp_path: Path) -> None:
    (tmp_path / "big.toml").write_text(scenario(1_000_000))
    estimate = _core.Simulation(scenario(1_000_000), "toml", 1).memory_estimate
    # 10^6 flows x 1800 B = 1.8 GB, plus the small fixed part of the scenario
    assert 1.8e9 <= estimate < 1.801e9
    rc, limit, out, err = limited(tmp_path, 1.0e9, "run", "big.toml")
    assert rc == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("superpacket: run big.toml: traffic[0].count: the run would hold about 1.8 GB")
    assert f"address-space limit (ulimit -v) of {memory.human(limit)}" in lines[0]
    assert "nothing ran" in lines[0] and "Traceback" not in err
    assert out == ""


@needs_limits
def test_out_of_memory_after_the_run_is_one_line_with_the_estimate(tmp_path: Path) -> None:
    """200 000 flows (estimate 360 MB) fit in 1.2 GB more than the start-up, and run; their
    --json text (every flow as a dict, then as indented text) does not."""
    (tmp_path / "mid.toml").write_text(scenario(200_000))
    estimate = _core.Simulation(scenario(200_000), "toml", 1).memory_estimate
    assert 3.6e8 <= estimate < 3.61e8  # 2 x 10^5 flows x 1800 B
    rc, limit, _, err = limited(tmp_path, 1.2e9, "run", "mid.toml", "--json")
    assert rc == 1
    assert err.strip().splitlines() == [(
        f"superpacket: run mid.toml: out of memory after the run, with its results: the run's estimate was about "
        f"{memory.human(estimate)} and this process's address-space limit (ulimit -v) is {memory.human(limit)}; "
        "raise the limit or shrink the scenario (fewer flows, a shorter duration)")]


@needs_limits
def test_under_a_limit_the_scenarios_own_smaller_budget_still_rules(tmp_path: Path) -> None:
    text = scenario(20_000) + '\n[output]\nmemory_budget = "1MB"\n'
    (tmp_path / "own.toml").write_text(text)
    rc, _, _, err = limited(tmp_path, 3e9, "run", "own.toml")
    assert rc == 2  # the simulator's own refusal: bad input, as without a limit
    assert "the run would hold about 36.0 MB (budget 1.0 MB;" in err  # 20 000 flows x 1800 B


def test_without_a_limit_the_budget_is_left_alone(monkeypatch) -> None:
    monkeypatch.delenv(memory.BUDGET_ENV, raising=False)
    monkeypatch.setattr(memory, "address_space", lambda: (None, 10**9))
    import os

    seen = memory.build_within_limit(lambda: os.environ.get(memory.BUDGET_ENV), scenario(10), "toml")
    assert seen is None


def test_parse_bytes_reads_what_the_simulator_reads() -> None:
    # the simulator's own cases (its memory budget parser)
    assert memory.parse_bytes("16GB") == 16_000_000_000
    assert memory.parse_bytes("1 GiB") == 1 << 30
    assert memory.parse_bytes("1e6") == 1_000_000
    assert memory.parse_bytes("2.5kB") == 2500
    for bad in ["", "0", "-1GB", "5XB", "GB", "nanGB", "infGB", "1e30TB"]:
        assert memory.parse_bytes(bad) is None, bad


def test_human_writes_as_the_simulator_does() -> None:
    assert memory.human(8e9) == "8.0 GB"
    assert memory.human(1_800_360_000) == "1.8 GB"
    assert memory.human(999) == "999 B"
    assert memory.human(float("inf")) == "an unbounded amount"


@needs_limits
def test_a_scenario_its_own_budget_refuses_keeps_that_refusal_under_a_limit(tmp_path: Path) -> None:
    """10^8 flows: 10^8 x 1800 B = 180 GB, past the default 8 GB budget whatever the limit:
    bad input (exit 2), in the simulator's words, not an out-of-memory line."""
    text = scenario(100_000_000)
    (tmp_path / "huge.toml").write_text(text)
    rc, _, _, err = limited(tmp_path, 1.0e9, "run", "huge.toml")
    assert rc == 2
    # the simulator's error about a field of a file ends with the line that sets it
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.strip().startswith("count"))
    assert err.strip().splitlines() == [(
        "superpacket: huge.toml: traffic[0].count: the run would hold about 180.0 GB (budget 8.0 GB; set "
        f"SUPERPACKET_MEMORY_BUDGET or [output] memory_budget) (line {line})")]


@pytest.mark.parametrize("text", ['output = "x"', "output = [1, 2]", "output = 3", 'name = "no output"'])
def test_a_budget_is_read_only_from_an_output_table(text):
    # found by the generated hostile scenarios: `output = "x"` raised AttributeError in
    # the budget look-up (an uncaught traceback) before the build could refuse it
    assert memory._scenario_budget(text, "toml") == memory.DEFAULT_BUDGET
