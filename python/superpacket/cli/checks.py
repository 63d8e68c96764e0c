"""Checks of command-line values shared by `run`, `sweep`, `reproduce` and `bench`, made
before anything runs: each returns None when the value is fine, else the one line to
print (the command then exits with code 2). Bounds keep a typo from asking for a billion
runs, a million worker processes or a run that never ends."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

# the bounds and the seed parser are the library's (limits, seeds), shared with sweeps and
# the experiments; the commands read them here
from superpacket import seeds as _seeds
from superpacket.limits import (
    MAX_EXPERIMENT_SEEDS,
    MAX_RUNS,
    MAX_SIM_S,
    MAX_SNAPLEN,
    MIN_SIM_S,
    U64_MAX,
    max_workers,
    workers,
)
from superpacket.seeds import SeedError

__all__ = ["EXIT_BAD_INPUT", "MAX_EXPERIMENT_SEEDS", "MAX_RUNS", "MAX_SIM_S", "MAX_SNAPLEN", "MIN_SIM_S", "U64_MAX", "SeedError",
           "duration_s", "fail", "join", "max_workers", "out_dir", "parse_seed", "parse_seeds", "scheduler", "workers"]

#: Bad input (an invalid scenario or value, a missing file): one line on stderr, exit 2.
EXIT_BAD_INPUT = 2


def fail(msg: str) -> int:
    """Prints `superpacket: msg` on stderr; the exit code of bad input."""
    print(f"superpacket: {msg}", file=sys.stderr)
    return EXIT_BAD_INPUT


def join(names: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`: names in a message."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def out_dir(path: str, flag: str = "--out") -> str | None:
    """Whether `path` can become the output folder, checked before a run that may take
    hours: not a file, not under a file, and writable (itself or the folder that will
    hold it)."""
    p = Path(path)
    if p.is_symlink() and not p.exists():
        return f"{flag} {path}: a broken symbolic link"
    if p.exists() and not p.is_dir():
        return f"{flag} {path}: not a folder"
    q = p.absolute()
    while not q.exists():  # the nearest folder that exists: the run creates the rest
        q = q.parent
    if not q.is_dir():
        return f"{flag} {path}: {q} is not a folder"
    if not os.access(q, os.W_OK | os.X_OK):
        return f"{flag} {path}: not writable ({q})"
    return None


def parse_seed(text: str, flag: str = "--seed") -> int:
    """A seed written on the command line (`run --seed`): superpacket.seeds.parse_seed."""
    return _seeds.parse_seed(text, flag)


def parse_seeds(text: str, flag: str = "--seeds", limit: int = MAX_RUNS, what: str = "sweep") -> list[int]:
    """Seeds written on the command line (`sweep --seeds`, `reproduce --seeds`): N, A..B or
    a list such as 3..5,9, by superpacket.seeds.parse_seeds; the message names `flag`."""
    return _seeds.parse_seeds(text, flag, limit, what)


def duration_s(value: float, flag: str = "--duration") -> str | None:
    if not (math.isfinite(value) and value > 0):
        return f"{flag} must be a finite number of seconds > 0 (got {value:g})"
    if value < MIN_SIM_S:
        return f"{flag} must be at least 1e-09 s, one step of the simulated clock (got {value:g})"
    if value > MAX_SIM_S:
        return f"{flag} must be at most {MAX_SIM_S:.4g} s, the simulated clock's range (got {value:g})"
    return None


def scheduler(address: str | None) -> str | None:
    """A Dask scheduler address (tcp://HOST:PORT, HOST:PORT, tls://..., inproc://...)."""
    if address is None:
        return None
    from distributed.comm.addressing import get_address_host_port, normalize_address, parse_address
    from distributed.comm.registry import get_backend

    try:
        addr = normalize_address(address)
        scheme, _ = parse_address(addr)
        get_backend(scheme)
        if scheme in ("tcp", "tls", "ws", "wss"):
            host, port = get_address_host_port(addr)
            if not host or not 0 < port < 65536:
                raise ValueError("expected HOST:PORT with a port in 1..65535")
    except (ValueError, TypeError) as e:
        msg = " ".join(str(e).split())
        return f"--scheduler {address}: not a scheduler address such as tcp://HOST:8786 ({msg})"
    return None
