"""Bounds the library and the command line share: the simulator's ranges (its seed and
clock are u64s) and the caps that keep a typo from asking for a billion runs, a million
worker processes or a run that never ends. A library module: the command line's checks
(superpacket.cli.checks) read these, never the other way."""

from __future__ import annotations

import os

U64_MAX = 2**64 - 1
MAX_SNAPLEN = 2**32 - 1  # the pcap header's field (api.MAX_SNAPLEN)
#: The simulated clock counts nanoseconds in a u64: about 584 years.
MAX_SIM_S = U64_MAX / 1e9
#: The simulated clock's step: a shorter duration is 0 ns, a run of nothing.
MIN_SIM_S = 1e-9
#: Runs of one sweep (grid points times seeds).
MAX_RUNS = 1_000_000
#: Seeds of one experiment (`reproduce --seeds`, an experiment's `run(seeds=...)`).
MAX_EXPERIMENT_SEEDS = 1000


def max_workers() -> int:
    """Local worker processes at most: four per core this process may use (at least 8)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(8, 4 * cores)


def workers(value: int | None, flag: str = "--workers", least: int = 0) -> str | None:
    """None when `value` is a number of local workers in least..max_workers() (or None:
    the default), else the one line naming `flag`."""
    hi = max_workers()
    if value is not None and not least <= value <= hi:
        return f"{flag} must be an integer in {least}..{hi} (four per core) (got {value})"
    return None
