"""Checks of command-line values shared by `run`, `sweep`, `reproduce` and `bench`, made
before anything runs: each returns None when the value is fine, else the one line to
print (the command then exits with code 2). Bounds keep a typo from asking for a billion
runs, a million worker processes or a run that never ends."""

from __future__ import annotations

import math
import os
from pathlib import Path

U64_MAX = 2**64 - 1
MAX_SNAPLEN = 2**32 - 1  # the pcap header's field (api.MAX_SNAPLEN)
#: The simulated clock counts nanoseconds in a u64: about 584 years.
MAX_SIM_S = U64_MAX / 1e9
#: Runs of one sweep (grid points times seeds) and seeds of one `reproduce`.
MAX_RUNS = 1_000_000
MAX_EXPERIMENT_SEEDS = 1000  # as the experiments' own check_seeds


def max_workers() -> int:
    """Local worker processes at most: four per core this process may use (at least 8)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(8, 4 * cores)


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


def seed(value: int, flag: str = "--seed") -> str | None:
    if not 0 <= value <= U64_MAX:
        return f"{flag} must be an integer in 0..{U64_MAX} (got {value})"
    return None


def duration_s(value: float, flag: str = "--duration") -> str | None:
    if not (math.isfinite(value) and value > 0):
        return f"{flag} must be a finite number of seconds > 0 (got {value:g})"
    if value > MAX_SIM_S:
        return f"{flag} must be at most {MAX_SIM_S:.4g} s, the simulated clock's range (got {value:g})"
    return None


def workers(value: int | None, flag: str = "--workers", least: int = 0) -> str | None:
    hi = max_workers()
    if value is not None and not least <= value <= hi:
        return f"{flag} must be an integer in {least}..{hi} (four per core) (got {value})"
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
