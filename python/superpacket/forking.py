"""Whether this process may fork its Dask workers (cluster.py), decided without
importing distributed.

Forking is safe only while no native thread pool runs here: polars starts its rayon and
tokio threads on first use, and a child forked after that waits forever for threads it
does not have (`fork_is_safe`).
"""

from __future__ import annotations

import os
import re
import threading

# Native thread pools that a forked child would miss and then wait for: polars' rayon
# pool ("polars-0", ...), tokio's runtime, any other rayon pool. polars starts them on first
# use, not on import. Other native threads are fork-safe: jemalloc's background threads
# and OpenBLAS's pool (numpy; its threads are nameless) re-initialise in the child through
# pthread_atfork, and polars' out-of-core cleaner only sleeps.
_FORK_UNSAFE_THREADS = re.compile(r"^(polars-\d|tokio-|rayon)")


def fork_is_safe() -> bool:
    """True when this process runs no thread that a forked child would miss: Linux, no
    Python thread besides the calling one, and no native pool of `_FORK_UNSAFE_THREADS`."""
    if threading.active_count() > 1:
        return False
    try:
        me = str(threading.get_native_id())
        for t in os.listdir("/proc/self/task"):
            if t == me:
                continue
            with open(f"/proc/self/task/{t}/comm") as f:
                if _FORK_UNSAFE_THREADS.match(f.read().strip()):
                    return False
    except OSError:  # not Linux (or /proc hidden): do not guess
        return False
    return True


def start_method() -> str:
    """How local workers start: "fork" when `fork_is_safe()`, else "forkserver"."""
    return "fork" if fork_is_safe() else "forkserver"
