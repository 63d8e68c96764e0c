"""A run that does not fit in the process's memory: one line naming the run's memory
estimate and the process's limit, instead of a MemoryError traceback.

The simulator estimates a run's memory while it builds the scenario
(`Simulation.memory_estimate`: about 1.8 kB per flow open at once, and the other sizes
that add up over a run) and refuses a scenario whose estimate passes its budget (8 GB by
default) before it allocates. A process limit (`ulimit -v`, RLIMIT_AS) can be far lower
than that budget: `build_within_limit` lowers the budget to what the process has left, so such
a run is refused before it starts (a failed allocation inside the simulator cannot be
recovered from), and a MemoryError later (the results as Python objects, `--json` text)
becomes `OutOfMemory` with the estimate and the limit.

Not covered: a run whose estimate fits but whose real use does not (packets queued are
not charged to the estimate, and the libraries' overhead varies); an allocation that
fails inside the simulator or polars still ends the process.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def human(b: float) -> str:
    """"1.8 GB": decimal units, one decimal, as the simulator's own messages."""
    if not math.isfinite(b):
        return "an unbounded amount"
    units = ("B", "kB", "MB", "GB", "TB", "PB", "EB")
    i = 0
    while b >= 1000.0 and i + 1 < len(units):
        b /= 1000.0
        i += 1
    return f"{b:.0f} B" if i == 0 else f"{b:.1f} {units[i]}"


def address_space() -> tuple[int | None, int | None]:
    """(the process's address-space limit in bytes, the address space it uses now); None
    where there is no limit or the platform does not say."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return None, None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    limit = None if soft == resource.RLIM_INFINITY else int(soft)
    used = None
    try:
        with open("/proc/self/statm") as f:  # Linux: sizes in pages
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        pass
    return limit, used


class OutOfMemory(MemoryError):
    """A run that does not fit in memory: the one line that says so (`str`), with the
    run's memory estimate and the process's limit where known."""

    def __init__(self, message: str, estimate_bytes: float | None = None, limit_bytes: int | None = None) -> None:
        super().__init__(message)
        self.estimate_bytes = estimate_bytes
        self.limit_bytes = limit_bytes


#: Address space a run takes beyond the simulator's estimate: the threads and allocator
#: arenas of the libraries that build its tables (numpy's BLAS, polars), reserved even
#: when they hold little. Measured under RLIMIT_AS set in a child process past its
#: start-up (1 dumbbell, N one-packet flows, `superpacket run`): N = 20 000 (estimate
#: 36 MB) failed with 0.3 GB left and ran with 0.5 GB; N = 200 000 (estimate 360 MB)
#: failed with 0.8 GB and ran with 0.9 GB.
OVERHEAD_BYTES = 500_000_000
#: The simulator's budget when neither the environment nor the scenario sets one.
DEFAULT_BUDGET = 8_000_000_000
BUDGET_ENV = "SUPERPACKET_MEMORY_BUDGET"

_UNITS = {"": 1.0, "B": 1.0, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "KiB": 2.0**10,
          "MiB": 2.0**20, "GiB": 2.0**30, "TiB": 2.0**40}


def parse_bytes(text: str) -> int | None:
    """"16GB", "512 MiB", "1.5e9" in bytes, as the simulator reads `memory_budget`; None
    if it does not read it (the simulator then says why)."""
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([A-Za-z]*)\s*", text)
    if m is None or m[2] not in _UNITS:
        return None
    try:
        b = float(m[1]) * _UNITS[m[2]]
    except ValueError:
        return None
    return int(b) if math.isfinite(b) and 1 <= b < 2.0**64 else None


def _scenario_budget(text: str, fmt: str) -> int | None:
    """The budget the simulator would apply to this scenario without the environment's."""
    try:
        if fmt == "toml":
            from superpacket import _toml

            d = _toml.loads(text)
        else:
            d = json.loads(text)
    except (ValueError, TypeError):  # ScenarioError, bad JSON: the build says what is wrong with it
        return None
    out = d.get("output") if isinstance(d, dict) else None
    # an `output` that is not a table is the build's to refuse, with its one line
    own = out.get("memory_budget") if isinstance(out, dict) else None
    if own is None:
        return DEFAULT_BUDGET
    return parse_bytes(own) if isinstance(own, str) else None


#: The units of the simulator's own messages ("180.0 GB", "6.0 PB"): to read an amount back.
_MESSAGE_UNITS = {"B": 1.0, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15, "EB": 1e18}


def _amount(text: str) -> float | None:
    """"180.0 GB" (as `human` writes it) in bytes; inf for "an unbounded amount"."""
    if text == "an unbounded amount":
        return math.inf
    num, _, unit = text.partition(" ")
    try:
        return float(num) * _MESSAGE_UNITS[unit]
    except (ValueError, KeyError):
        return None


_OWN_BUDGET_CHILD = """
import sys
from superpacket import _core
try:
    _core.validate(sys.stdin.read(), sys.argv[1])
except _core.ScenarioError as e:
    print(e)
    sys.exit(3)
"""


def _own_refusal(text: str, fmt: str) -> str | None:
    """The simulator's refusal of the scenario under its own budget, or None if it builds
    (or the build fails otherwise). Asked of a child process that imports only the
    simulator: a build that is not refused allocates all it charged, which here, under the
    limit, could end this process."""
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k != BUDGET_ENV}
    here = str(Path(__file__).resolve().parent.parent)  # the folder holding this package
    env["PYTHONPATH"] = os.pathsep.join([here, *filter(None, [env.get("PYTHONPATH")])])
    try:
        r = subprocess.run([sys.executable, "-c", _OWN_BUDGET_CHILD, fmt], input=text, capture_output=True,
                           text=True, env=env, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (r.stdout.strip() or None) if r.returncode == 3 else None


def build_within_limit(build: Callable[[], T], text: str, fmt: str) -> T:
    """`build()` (a simulator built from `text`) under a memory budget no larger than the
    address space the process has left under its limit (RLIMIT_AS, `ulimit -v`), less
    OVERHEAD_BYTES: a run that would not fit is refused by the simulator's own estimate
    before it allocates (a failed allocation inside the simulator or polars ends the
    process and cannot be caught), as OutOfMemory naming the estimate and the limit.

    A scenario its own budget refuses as well keeps the simulator's refusal (bad input,
    whatever the limit): when the amount at which the lowered budget refused it already
    passes its own budget, it is built again under its own budget, which refuses it at the
    same charge or an earlier one, before allocating anything more. Without a limit, or
    with SUPERPACKET_MEMORY_BUDGET set by the user, the budget is left as it is."""
    limit, used = address_space()
    if limit is None or used is None or os.environ.get(BUDGET_ENV, "").strip():
        return build()
    available = limit - used
    cap = max(int(available - OVERHEAD_BYTES), 1)
    budget = _scenario_budget(text, fmt)
    if budget is None or cap >= budget:
        return build()
    os.environ[BUDGET_ENV] = str(cap)
    try:
        return build()
    except ValueError as e:  # ScenarioError: the estimate passed the budget set here
        m = re.match(r"(.*?): the run would hold about (.+?) \(budget", str(e))
        if m is None:
            raise
        held = _amount(m[2])
        if held is not None and held > budget * 1.02:  # past its own budget too (beyond rounding)
            del os.environ[BUDGET_ENV]
            return build()  # raises the simulator's own refusal
        del os.environ[BUDGET_ENV]
        own = _own_refusal(text, fmt)
        if own is not None:
            from superpacket._core import ScenarioError

            raise ScenarioError(own) from None
        raise OutOfMemory(
            f"{m[1]}: the run would hold about {m[2]} (the simulator's estimate; the tables' libraries take "
            f"about {human(OVERHEAD_BYTES)} more), more than the {human(max(available, 0))} this process has "
            f"left of its address-space limit (ulimit -v) of {human(limit)}; nothing ran: raise the limit or "
            "shrink the scenario (fewer flows, a shorter duration)", limit_bytes=limit) from None
    finally:
        os.environ.pop(BUDGET_ENV, None)


def out_of_memory(estimate_bytes: float | None, after_run: bool = False) -> OutOfMemory:
    """The OutOfMemory of a MemoryError in Python, with the run's estimate if known."""
    limit = address_space()[0]
    est = "not known" if estimate_bytes is None else f"about {human(estimate_bytes)}"
    where = ("no address-space limit is set for this process (ulimit -v): the machine's memory ran out"
             if limit is None else f"this process's address-space limit (ulimit -v) is {human(limit)}")
    return OutOfMemory(f"out of memory{' after the run, with its results' if after_run else ''}: the run's "
                       f"estimate was {est} and {where}; raise the limit or shrink the scenario (fewer flows, a "
                       "shorter duration)", estimate_bytes, limit)


def explain(e: MemoryError, estimate_bytes: float | None = None) -> str:
    """The one line for a MemoryError: an OutOfMemory's own, or one built from
    `estimate_bytes` (the run's, when the error came after it) and the limit."""
    if isinstance(e, OutOfMemory):
        return str(e)
    return str(out_of_memory(estimate_bytes, after_run=estimate_bytes is not None))
