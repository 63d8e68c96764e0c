"""The property of issue 14 at small scale: for generated scenarios, valid and invalid,
extreme values included, `superpacket run FILE` exits with 0 or 2 (then with one line on
stderr), never with a traceback, a panic or an abort, within a time and memory bound.

Each case is one of the example scenarios or a built-in experiment's scenario (shortened),
changed one to three times (a value replaced by an extreme of its kind or another type, a
field removed or added, an element repeated), written as TOML and in a quarter of the
cases damaged as text (cut short, a character inserted or removed, deep nesting, noise).
Cases that the simulator (Rust) cannot yet survive are listed below as strict xfails with
their cause; the generated cases run all the same.
"""

import copy
import math
import random
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from superpacket import _toml

ROOT = Path(__file__).resolve().parent.parent
EXE = str(Path(sys.executable).parent / "superpacket")
CASES = 200
TIMEOUT_S = 10.0  # a valid case runs in about a second here, an invalid one in 0.1 s
MEMORY_BYTES = 2 * 2**30  # address space per case; a normal run fits in 1 GiB
# the limit is set in the child before it becomes `superpacket` (no preexec_fn in threads)
_LIMITED = ("import os, resource, sys; resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]),) * 2); "
            "os.execv(sys.argv[2], sys.argv[2:])")

INTS = [0, 1, -1, 2, 3, 7, 64, 2**16, 2**31 - 1, 2**32, 2**53 + 1, 2**63 - 1, 2**64 - 1, -(2**63)]
FLOATS = [0.0, -0.0, -1.0, 0.5, 1e-9, 1e-300, 5e-324, 1e300, 1.7976931348623157e308, math.nan, math.inf, -math.inf]
DURATIONS = ["0s", "-1s", "1ns", "0.5ns", "1e-300s", "1e300s", "18446744073709551616ns", "18446744073s", "1.5e10s",
             "nans", "infs", "-infs", "s", "1 s", "5xs", "2ms", "100us", "1e3ms"]
RATES = ["0bps", "1bps", "-1Mbps", "1e300Gbps", "1e-300bps", "nanbps", "infbps", "10Mbps", "1Tbps",
         "18446744073709551616bps", "Gbps", "1.5Gbps"]
STRINGS = ["", "x", "é中", "a" * 5000, "s{i}", "s{i}{i}", "{", "}", "R->d", "\x00", "all", "-", "d"]
#: The sizes of issue 14 that allocated until the process aborted, by field name: a
#: mutation of such a field takes one of them half of the time.
SIZES: dict[str, list[Any]] = {
    "count": [10**7, 10**8, 2**32 - 1], "senders": [10**8], "pairs": [10**8], "sessions": [10**8],
    "rate_per_s": [1e12, 1e9], "init_cwnd": [1e9, 1e6], "max_cwnd": [1e12], "max_flows": [2**28, 2**32 - 1],
    "objects_max": [2**32 - 1, 10**6], "bloom_bits": [2**31], "sample_interval": ["1ns"], "interval": ["1ns"],
    "inter_page": ["1ns"], "inter_object": ["1ns"], "limit": [2**40], "pcap": [["all"]],
}


def _bases() -> list[dict[str, Any]]:
    from superpacket.experiments import jumbo, loss_sensitivity, mbs, riops_web, short_long

    out = [tomllib.loads(f.read_text()) for f in sorted((ROOT / "examples").glob("*.toml"))]
    for d in out:
        d["duration"] = "2s"
    return out + [short_long.scenario("superpacket", 2.0), loss_sensitivity.scenario(16, 0.01, 5),
                  riops_web.scenario("exp1-ito1", "riops", 5.0), jumbo.scenario("sp", 2.0),
                  mbs.probe_scenario(100e6, 0.5)]


def _paths(d: Any, path: tuple = ()) -> list[tuple]:
    """Every value's path (keys and indices), tables and arrays included."""
    out = [path] if path else []
    if isinstance(d, dict):
        for k, v in d.items():
            out += _paths(v, (*path, k))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            out += _paths(v, (*path, i))
    return out


def _extreme(rng: random.Random, old: Any) -> Any:
    if isinstance(old, bool):
        return rng.choice([not old, 0, "true", 1.5])
    if isinstance(old, int):
        return rng.choice(INTS) if rng.random() < 0.8 else rng.choice([*FLOATS, "10", [old]])
    if isinstance(old, float):
        return rng.choice(FLOATS) if rng.random() < 0.8 else rng.choice([*INTS, "1.0"])
    if isinstance(old, str):
        pools = [DURATIONS, RATES, STRINGS]
        if old[:1].isdigit():
            pools = [DURATIONS, RATES] if old[-1:] == "s" else [RATES, DURATIONS]
        return rng.choice([*rng.choice(pools), rng.choice(INTS), rng.choice(FLOATS)])
    if isinstance(old, list):
        return rng.choice([[], old * rng.choice([2, 50]), "x", 0, [{}]])
    if isinstance(old, dict):
        return rng.choice([{}, "x", 0, [old], {**old, "unknown_field": 1}])
    return rng.choice(INTS)


def _mutate(rng: random.Random, d: dict[str, Any]) -> None:
    path = rng.choice(_paths(d))
    parent = d
    for p in path[:-1]:
        parent = parent[p]
    key = path[-1]
    op = rng.random()
    if key in SIZES and rng.random() < 0.5:
        parent[key] = rng.choice(SIZES[key])
    elif op < 0.65:
        parent[key] = _extreme(rng, parent[key])
    elif op < 0.75 and isinstance(parent, dict):
        del parent[key]
    elif op < 0.85 and isinstance(parent, dict):
        parent[rng.choice(["unknown", "Duration", "count", "kind", "queue", "seed"])] = rng.choice(
            [*INTS, *DURATIONS, {}, []])
    elif isinstance(parent, list):
        parent.append(copy.deepcopy(parent[key]))
    else:
        parent[key] = _extreme(rng, parent[key])


def _damage(rng: random.Random, text: str) -> str:
    op = rng.randrange(7)
    i = rng.randrange(len(text) + 1)
    if op == 0:
        return text[:i]
    if op == 1:
        return text[:i] + rng.choice(['"', "[", "]", "{", "}", "=", "\n", ",", "\\", "\x00", "#", "'''"]) + text[i:]
    if op == 2:
        return text[:i] + text[i + 1:]
    if op == 3:
        n = rng.choice([10, 200, 5000, 100_000])
        return f"{text}\ndeep = {'[' * n}{']' * n}\n"
    if op == 4:
        n = rng.choice([10, 200, 5000, 100_000])
        return f"{text}\ndeep = {'{ a = ' * n}1{' }' * n}\n"
    if op == 5:
        return "".join(chr(rng.randrange(32, 0x2FF)) for _ in range(rng.randrange(1, 300)))
    lines = text.splitlines()
    j = rng.randrange(len(lines)) if lines else 0
    return "\n".join(lines[:j] + lines[j:j + 1] * 2 + lines[j + 1:]) + "\n"


def generate(seed: int, bases: list[dict[str, Any]]) -> str:
    """Case `seed`: a scenario file's text."""
    rng = random.Random(seed)
    d = copy.deepcopy(rng.choice(bases))
    if rng.random() < 0.15:  # the base itself, with an extreme seed
        d["seed"] = rng.choice([0, 1, 2**64 - 1])
    else:
        for _ in range(rng.choice([1, 1, 2, 3])):
            _mutate(rng, d)
    try:
        text = _toml.dumps(d)
    except (TypeError, ValueError):
        text = str(d)
    return _damage(rng, text) if rng.random() < 0.25 else text


def violation(f: Path, timeout: float = TIMEOUT_S) -> str | None:
    """None if `superpacket run f` keeps the property, else what it did."""
    t0 = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, "-c", _LIMITED, str(MEMORY_BYTES), EXE, "run", str(f), "--json"],
                           capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return f"{f.name}: still running after {time.perf_counter() - t0:.1f} s"
    lines = r.stderr.strip().splitlines()
    if r.returncode not in (0, 2) or "Traceback" in r.stderr or "panicked" in r.stderr:
        return f"{f.name}: exit {r.returncode}: {r.stderr.strip()[-800:]}"
    if r.returncode == 2 and len(lines) != 1:
        return f"{f.name}: exit 2 with {len(lines)} lines on stderr: {r.stderr.strip()[-800:]}"
    return None


def test_generated_scenarios_exit_0_or_2_in_bounded_time(tmp_path):
    bases = _bases()
    files = []
    for seed in range(CASES):
        f = tmp_path / f"case{seed}.toml"
        f.write_text(generate(seed, bases))
        files.append(f)
    with ThreadPoolExecutor(2) as ex:  # two at a time: most cases are start-up time
        bad = [v for v in ex.map(violation, files) if v is not None]
    assert not bad, "\n".join(bad)


def _incast(**repl: str) -> str:
    text = (ROOT / "examples" / "incast.toml").read_text()
    for old, new in repl.items():
        assert old in text
        text = text.replace(old, new)
    return text


_SENDER_LINK = 'sender_link = { rate = "1Gbps", delay = "25us" }'
_DUMBBELL_60S = 'duration = "60s"'

# Found by the generator or by hand with its values; the simulator (crates/sim) must
# refuse these with exit 2 or run them within the bounds. Strict: a fix turns them into
# failures here, to be moved back into the property.
KNOWN = [
    # fixed (e756d72): every duration past 10^7 s is refused by name
    pytest.param(_incast(**{_SENDER_LINK: 'sender_link = { rate = "1Gbps", delay = "1e300s" }'}),
                 id="link-delay-1e300s"),
    pytest.param(_incast(**{_SENDER_LINK: 'sender_link = { rate = "1Gbps", delay = "18446744073s" }'}),
                 id="link-delay-18446744073s"),
    pytest.param((ROOT / "examples" / "dumbbell.toml").read_text().replace(_DUMBBELL_60S, 'duration = "1e300s"'),
                 id="duration-past-clock"),
    # fixed: sizes and series bounded by name (topology.senders <= 100000, rows <= 2 x 10^7)
    pytest.param(_incast(**{"senders = 10": "senders = 100000000"}), id="senders-1e8"),
    pytest.param(_incast(**{'duration = "3s"': 'duration = "1000s"'})
                 + '\n[output]\nsample_queues = ["R->d"]\nsample_interval = "1ns"\n', id="sample-interval-1ns"),
    # fixed: flows, Poisson arrivals, classifier tables, web sessions charged to the run's
    # memory estimate (crates/sim/src/memory.rs); init_cwnd and web objects_max limited
    pytest.param(_incast(**{"count = 10": "count = 100000000"}), id="flows-1e8"),
    pytest.param(_incast() + '\n[[traffic]]\nkind = "poisson"\nfrom = "s0"\nto = "d"\nrate_per_s = 1e12\n'
                 'size_pkts = 1\n', id="poisson-1e12"),
    pytest.param(_incast(**{"init_cwnd = 10 ": "init_cwnd = 1e9 "}), id="init-cwnd-1e9"),
    pytest.param(_incast(**{_SENDER_LINK: 'sender_link = { rate = "1Gbps", delay = "25us", '
                                          'classifier = { max_flows = 268435456 } }'}), id="classifier-2^28"),
    pytest.param(_incast() + '\n[[traffic]]\nkind = "web"\nservers = "s{i}"\nserver_count = 2\nclients = "d"\n'
                 'client_count = 1\nsessions = 1048576\nobjects_max = 4294967295\n', id="web-objects-2^32"),
]


@pytest.mark.parametrize("text", KNOWN)
def test_known_simulator_failures(tmp_path, text):
    f = tmp_path / "case.toml"
    f.write_text(text)
    assert violation(f, timeout=5.0) is None
