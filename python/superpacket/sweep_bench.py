"""`superpacket bench --sweep`: the same sweep (one scenario over N seeds, every run's
Parquet files written) one run after another in this process, then on a local Dask
cluster; wall times, their ratio, and each worker's peak RSS.

A benchmark, not a test: the figures depend on the machine and on what else runs on it.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

from superpacket import sweeps
from superpacket.cluster import DEFAULT_MEMORY_LIMIT, dask_client

TARGET_RATIO = 0.60


def _cpu_s() -> float:
    """This process's CPU time (user + system), in seconds."""
    import psutil

    t = psutil.Process().cpu_times()
    return float(t.user + t.system)


def _worker_memory() -> dict[str, int]:
    """Runs on a worker: its peak and current resident set size, in bytes."""
    import resource

    import psutil

    return {"peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "rss_bytes": psutil.Process().memory_info().rss}


def _same(a: Path, b: Path) -> bool:
    da, db = sweeps.load_sweep(a), sweeps.load_sweep(b)
    return all(getattr(da, t).equals(getattr(db, t)) for t in sweeps.TABLES)


def bench(scenario: str | Path, runs: int = 200, workers: int = 2) -> dict[str, Any]:
    seeds = range(1, runs + 1)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="superpacket-bench-") as tmp:
        serial_dir, dask_dir = Path(tmp) / "serial", Path(tmp) / "dask"
        t0, c0 = time.perf_counter(), _cpu_s()
        sweeps.sweep(scenario, None, seeds, serial_dir, workers=0, progress=False)
        serial_s, serial_cpu = time.perf_counter() - t0, _cpu_s() - c0

        t0 = time.perf_counter()
        with dask_client(workers=workers) as client:
            startup_s = time.perf_counter() - t0
            w0, c0 = client.run(_cpu_s), _cpu_s()
            t1 = time.perf_counter()
            r = sweeps.sweep(scenario, None, seeds, dask_dir, client=client, shared_fs=True, progress=False)
            run_s = time.perf_counter() - t1
            sweep_s = time.perf_counter() - t0
            main_cpu = _cpu_s() - c0
            w1 = client.run(_cpu_s)
            mem = client.run(_worker_memory)
            info = client.scheduler_info()["workers"]
            dask_rss = {a: w.get("metrics", {}).get("memory") for a, w in info.items()}
        identical = _same(serial_dir, dask_dir)
    return {
        "scenario": str(scenario),
        "runs": runs,
        "workers": workers,
        "failed": len(r.failed),
        "serial_s": serial_s,
        "sweep_s": sweep_s,
        "cluster_startup_s": startup_s,
        "sweep_without_startup_s": run_s,
        "serial_cpu_s": serial_cpu,
        "workers_cpu_s": sum(w1[a] - w0[a] for a in w1),
        "main_cpu_s": main_cpu,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg()[0],
        "ratio": sweep_s / serial_s,
        "ratio_without_startup": run_s / serial_s,
        "target_ratio": TARGET_RATIO,
        "worker_peak_rss_bytes": sorted(m["peak_rss_bytes"] for m in mem.values()),
        "worker_rss_bytes": sorted(m["rss_bytes"] for m in mem.values()),
        "worker_rss_dask_metric_bytes": sorted(v for v in dask_rss.values() if v is not None),
        "worker_memory_limit": DEFAULT_MEMORY_LIMIT,
        "identical_results": identical,
    }


def print_report(r: dict[str, Any]) -> None:
    mib = 2**20
    print(f"sweep benchmark: {r['scenario']}, {r['runs']} runs (seeds 1..{r['runs']}), every run's Parquet "
          f"files written")
    print(f"  one after another, in-process   {r['serial_s']:8.2f} s   ({r['serial_s'] / r['runs'] * 1e3:.1f} ms/run)")
    print(f"  Dask, {r['workers']} local workers          {r['sweep_s']:8.2f} s   (cluster start-up "
          f"{r['cluster_startup_s']:.2f} s, runs {r['sweep_without_startup_s']:.2f} s)")
    verdict = "met" if r["ratio"] < r["target_ratio"] else "NOT met"
    print(f"  sweep / serial                  {r['ratio']:8.2f}     (target < {r['target_ratio']:.2f}: {verdict}; "
          f"without start-up {r['ratio_without_startup']:.2f})")
    print("  worker peak RSS                 " + ", ".join(f"{b / mib:.0f} MiB" for b in r["worker_peak_rss_bytes"])
          + "   (now " + ", ".join(f"{b / mib:.0f}" for b in r["worker_rss_dask_metric_bytes"])
          + f" MiB by Dask's metric; limit {r['worker_memory_limit']})")
    print(f"  CPU time                        serial {r['serial_cpu_s']:.2f} s; sweep: workers "
          f"{r['workers_cpu_s']:.2f} s + this process {r['main_cpu_s']:.2f} s")
    print(f"  load average                    {r['load_average_before']:.2f} before, {r['load_average_after']:.2f} after "
          "(other work on the machine slows both)")
    print(f"  identical results               {'yes' if r['identical_results'] else 'NO'}"
          + (f"   ({r['failed']} runs failed)" if r["failed"] else ""))
