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
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= U64_MAX:
        return f"{flag} must be an integer in 0..{U64_MAX} (got {value!r:.60})"
    return None


class SeedError(ValueError):
    """A seed or seed list that `parse_seed` / `parse_seeds` refuse: one line naming the flag."""


_U64_DIGITS = len(str(U64_MAX))
_BLANKS = " \t\r\n"  # ASCII only: str.strip() would also drop other scripts' spaces


def parse_seed(text: str, flag: str = "--seed") -> int:
    """The one parser of a seed written as text (`run --seed`, each number of `sweep
    --seeds` and `reproduce --seeds`): ASCII digits only, 0..2^64-1 (the simulator's seed
    is a u64). Python's int() would also take `1_0` (10), `+3`, ` 3` and other scripts'
    digits (`٣`), each a seed the user did not write; they are refused here. The length
    is checked before int() (no 4300-digit limit, no time spent on a megabyte of 9s).
    ASCII blanks around the number are dropped (` 3` is 3), none inside it."""
    digits = text.strip(_BLANKS)
    body = digits.lstrip("0") or "0"
    if not digits.isascii() or not digits.isdigit():
        raise SeedError(f"{flag} {_show(text)}: a seed is written in ASCII digits 0-9 only "
                        f"(no sign, underscore, space or other digits)")
    if len(body) > _U64_DIGITS or int(body) > U64_MAX:
        raise SeedError(f"{flag} {_show(text)}: a seed must be at most {U64_MAX}")
    return int(body)


def _show(text: str) -> str:
    """The user's text in a message: one line, at most 60 characters."""
    one = text if text and text.isprintable() and text == text.strip() else repr(text)
    return one if len(one) <= 60 else one[:57] + "..."


def parse_seeds(text: str, flag: str = "--seeds", limit: int = MAX_RUNS, what: str = "sweep") -> list[int]:
    """`N` (seeds 1..N), `A..B` (inclusive), a list `1,4,9` or spans and seeds `3..5,9`:
    the seeds in order, without repeats; each number by `parse_seed`. At most `limit`
    seeds ("at most LIMIT in one WHAT"), counted from the spans before any list is made."""
    text = text.strip(_BLANKS)
    spans: list[tuple[int, int]] = []
    if text.isascii() and text.isdigit():
        spans = [(1, parse_seed(text, flag))]
    else:
        for part in text.split(","):
            lo, dots, hi = (x.strip(_BLANKS) for x in part.partition(".."))
            if not (lo + hi).isascii() or not all(x.isdigit() for x in ((lo, hi) if dots else (lo,))):
                raise SeedError(f"{flag} {_show(text)}: expected N, A..B or a list such as 1,3,5 "
                                f"(ASCII digits 0-9 only)")
            a = parse_seed(lo, flag)
            spans.append((a, parse_seed(hi, flag) if dots else a))
    count = sum(max(0, hi - lo + 1) for lo, hi in spans)
    if count > limit:
        raise SeedError(f"{flag} {_show(text)}: {count} seeds; at most {limit} in one {what}")
    seeds = sorted({s for lo, hi in spans for s in range(lo, hi + 1)})
    if not seeds:
        raise SeedError(f"{flag} {_show(text)}: no seeds, or a negative seed")
    return seeds


#: The simulated clock's step: a shorter duration is 0 ns, a run of nothing.
MIN_SIM_S = 1e-9


def duration_s(value: float, flag: str = "--duration") -> str | None:
    if not (math.isfinite(value) and value > 0):
        return f"{flag} must be a finite number of seconds > 0 (got {value:g})"
    if value < MIN_SIM_S:
        return f"{flag} must be at least 1e-09 s, one step of the simulated clock (got {value:g})"
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
