"""Dask clients for sweeps and `reproduce`: an in-process local cluster sized to the
machine, or an existing cluster given by its scheduler address.

Local workers are processes with one thread each (the simulator is single-threaded and
holds no shared state), a modest memory limit, no dashboard, no statistical profiler, and
polars limited to one thread so that N workers use N cores. Workers of an existing
cluster should run with DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False for the same
reason (see open_client).

How local workers start (`start_method`): a fresh worker process that imports distributed,
polars and the simulator costs about 0.4 s of CPU, as much as 50 short runs. So when this
process can be forked safely, the workers are forked from it (they start in about 0.15 s
with everything imported); else they are forked from a forkserver that has imported
everything once. Forking is safe only while no native thread pool runs here: polars
starts its rayon and tokio threads on first use, and a child forked after that waits
forever for threads it does not have. `fork_is_safe` checks the threads of this process.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from superpacket.forking import fork_is_safe, start_method  # noqa: F401 - re-exported

# Dask's "auto": the machine's memory split evenly among the local workers (12 GiB each
# for 2 workers on a 24 GiB machine). A fixed 2 GiB killed every worker that ran one
# full-scale riops-web run (2.6 GB peak: 1.6 M web flows), and the task with them.
DEFAULT_MEMORY_LIMIT = "auto"

# What the forkserver imports once, so that each worker it forks has it already.
_FORKSERVER_PRELOAD = ["distributed", "polars", "superpacket.api", "superpacket.sweeps"]


def _forkserver_preload() -> None:
    """Makes the forkserver import our modules too (distributed sets its own list the
    first time it asks for the context; ours replaces it, keeping distributed)."""
    import dask
    from distributed.utils import get_mp_context

    with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}):
        ctx = get_mp_context()
    ctx.set_forkserver_preload(_FORKSERVER_PRELOAD)


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
    method: str | None = None,
) -> tuple[Any, Callable[..., None]]:
    """A `distributed.Client` and the function that closes it (and its cluster):
    connected to `scheduler` (an address such as tcp://127.0.0.1:8786) when given, else
    to a new local cluster of `workers` processes (default: one per core) started by
    `method` ("fork", "forkserver" or "spawn"; default `start_method()`). May be called
    from another thread than the one that closes it (then give `method`, decided on the
    calling thread: this thread itself rules fork out)."""
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            client = Client(scheduler, timeout="30s")
        except (ValueError, TypeError) as e:  # not an address: as an unreachable one, one line
            raise OSError(f"not a scheduler address such as tcp://HOST:8786 ({' '.join(str(e).split())})") from None
        return client, lambda now=False: client.close()
    import dask

    n = workers or default_workers()
    method = method or start_method()
    if method == "forkserver":
        _forkserver_preload()
    # No statistical profiler on our workers: it holds frames of running tasks from
    # another thread, and a simulator (not Send) freed there cannot be dropped.
    with dask.config.set({"distributed.worker.profile.enabled": False,
                          "distributed.worker.multiprocessing-method": method}):
        cluster = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            memory_limit=memory_limit,
            dashboard_address=None,
            # the scheduler's HTTP routes (health, metrics) on a free port, not 8787,
            # which another cluster on this machine may hold
            scheduler_kwargs={"dashboard_address": ":0"},
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

    def close(now: bool = False) -> None:
        """`now` (on Ctrl-C): the workers' processes are killed first, without waiting
        for their runs (a run in the simulator finishes its step only; closing would wait
        seconds); their half-written runs are in `.OUT.partial/`, which the sweep removes.
        The cluster's own loggers are silenced first: the comms the kill closes would
        otherwise log tracebacks over the one line Ctrl-C prints."""
        if now:
            import logging

            for name in ("distributed", "tornado", "asyncio"):
                logging.getLogger(name).setLevel(logging.CRITICAL + 1)
        try:
            client.close()
        finally:
            if now:
                for nanny in list(cluster.workers.values()):
                    proc = getattr(getattr(nanny, "process", None), "process", None)
                    if proc is not None and proc.is_alive():
                        proc.kill()
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
    interrupted = False
    try:
        yield client
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        close(now=interrupted)


class _IgnoreSigint(WorkerPlugin):
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


def worker_memory_limits(client: Any) -> list[int]:
    """Each worker's memory limit in bytes (0: none), as the scheduler knows it."""
    return sorted(int(w.get("memory_limit") or 0) for w in client.scheduler_info()["workers"].values())


def worker_count(client: Any) -> int:
    """Threads across the cluster's workers (at least 1)."""
    return max(1, sum(client.nthreads().values()))
