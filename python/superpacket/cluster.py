"""Dask clients for sweeps and `reproduce`: an in-process local cluster sized to the
machine, or an existing cluster given by its scheduler address.

Local workers are processes with one thread each (the simulator is single-threaded and
holds no shared state), a modest memory limit, no dashboard, no statistical profiler, and
polars limited to one thread so that N workers use N cores. Workers of an existing
cluster should run with DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False for the same
reason (see open_client).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

DEFAULT_MEMORY_LIMIT = "2GiB"


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def open_client(
    scheduler: str | None = None,
    workers: int | None = None,
    memory_limit: str = DEFAULT_MEMORY_LIMIT,
) -> tuple[Any, Callable[[], None]]:
    """A `distributed.Client` and the function that closes it (and its cluster):
    connected to `scheduler` (an address such as tcp://127.0.0.1:8786) when given, else
    to a new local cluster of `workers` processes (default: one per core). May be called
    from another thread than the one that closes it."""
    from distributed import Client, LocalCluster

    if scheduler:
        client = Client(scheduler, timeout="30s")
        return client, client.close
    import dask

    n = workers or default_workers()
    # No statistical profiler on our workers: it holds frames of running tasks from
    # another thread, and a simulator (not Send) freed there cannot be dropped.
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        cluster = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            memory_limit=memory_limit,
            dashboard_address=None,
            silence_logs=logging.ERROR,
            env={"POLARS_MAX_THREADS": "1"},
            preload=["superpacket.api", "superpacket.sweeps"],  # imported while starting up
        )
    try:
        client = Client(cluster)
        client.register_plugin(_IgnoreSigint(), name="superpacket-ignore-sigint")
    except BaseException:
        cluster.close()
        raise

    def close() -> None:
        try:
            client.close()
        finally:
            cluster.close()

    return client, close


@contextmanager
def dask_client(
    scheduler: str | None = None,
    workers: int | None = None,
    memory_limit: str = DEFAULT_MEMORY_LIMIT,
) -> Iterator[Any]:
    """`open_client` as a context manager: the client, closed on exit."""
    client, close = open_client(scheduler, workers, memory_limit)
    try:
        yield client
    finally:
        close()


class _IgnoreSigint(WorkerPlugin):  # type: ignore[misc]
    """A worker plugin: Ctrl-C in a terminal reaches the whole process group; the local
    workers leave it to the main process, which closes the cluster (no tracebacks)."""

    def setup(self, worker: Any) -> None:
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def worker_stats() -> dict[str, float]:
    """Runs on a worker (`client.run`): its peak and current resident set size (bytes)
    and the CPU time it has used since it started (s)."""
    import resource

    import psutil

    t = psutil.Process().cpu_times()
    return {"peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "rss_bytes": psutil.Process().memory_info().rss, "cpu_s": t.user + t.system}


def worker_count(client: Any) -> int:
    """Threads across the cluster's workers (at least 1)."""
    return max(1, sum(client.nthreads().values()))
