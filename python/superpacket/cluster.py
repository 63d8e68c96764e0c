"""Dask clients for sweeps and `reproduce`: an in-process local cluster sized to the
machine, or an existing cluster given by its scheduler address.

Local workers are processes with one thread each (the simulator is single-threaded and
holds no shared state), a modest memory limit, no dashboard, no statistical profiler, and
polars limited to one thread so that N workers use N cores. Workers of an existing
cluster should run with DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False for the same
reason (see dask_client).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
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


@contextmanager
def dask_client(
    scheduler: str | None = None,
    workers: int | None = None,
    memory_limit: str = DEFAULT_MEMORY_LIMIT,
) -> Iterator[Any]:
    """Yields a `distributed.Client`: connected to `scheduler` (an address such as
    tcp://127.0.0.1:8786) when given, else to a new local cluster of `workers` processes
    (default: one per core), closed on exit."""
    from distributed import Client, LocalCluster

    if scheduler:
        client = Client(scheduler, timeout="30s")
        try:
            yield client
        finally:
            client.close()
        return
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
        with Client(cluster) as client:
            client.register_plugin(_IgnoreSigint(), name="superpacket-ignore-sigint")
            yield client
    finally:
        cluster.close()


class _IgnoreSigint(WorkerPlugin):  # type: ignore[misc]
    """A worker plugin: Ctrl-C in a terminal reaches the whole process group; the local
    workers leave it to the main process, which closes the cluster (no tracebacks)."""

    def setup(self, worker: Any) -> None:
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def worker_count(client: Any) -> int:
    """Threads across the cluster's workers (at least 1)."""
    return max(1, sum(client.nthreads().values()))
