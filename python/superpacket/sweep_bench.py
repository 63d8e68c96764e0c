"""`superpacket bench --sweep`: the same sweep (one scenario over N seeds, every run's
Parquet files written) one run after another in this process, then as `superpacket
sweep` runs it on a local Dask cluster of N workers (while the workers start up, the
main process runs the first runs itself); wall times, their ratio, and each worker's
peak RSS.

A benchmark, not a test: the figures depend on the machine and on what else runs on it.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

from superpacket import sweeps
from superpacket.cluster import DEFAULT_MEMORY_LIMIT

TARGET_RATIO = 0.60


def _cpu_s() -> float:
    import psutil

    t = psutil.Process().cpu_times()
    return float(t.user + t.system)


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

        t0, c0 = time.perf_counter(), _cpu_s()
        r = sweeps.sweep(scenario, None, seeds, dask_dir, workers=workers, progress=False)
        sweep_s, main_cpu = time.perf_counter() - t0, _cpu_s() - c0
        identical = _same(serial_dir, dask_dir)
    ws = list(r.workers.values())
    return {
        "scenario": str(scenario),
        "runs": runs,
        "workers": workers,
        "failed": len(r.failed),
        "serial_s": serial_s,
        "sweep_s": sweep_s,
        "cluster_startup_s": r.cluster_startup_s,
        "runs_in_main_process_during_startup": r.ran_here_during_startup,
        "ratio": sweep_s / serial_s,
        "target_ratio": TARGET_RATIO,
        "serial_cpu_s": serial_cpu,
        "main_cpu_s": main_cpu,
        "workers_cpu_s": sum(w["cpu_s"] for w in ws),
        "worker_peak_rss_bytes": sorted(w["peak_rss_bytes"] for w in ws),
        "worker_memory_limit": DEFAULT_MEMORY_LIMIT,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg()[0],
        "identical_results": identical,
    }


def print_report(r: dict[str, Any]) -> None:
    mib = 2**20
    print(f"sweep benchmark: {r['scenario']}, {r['runs']} runs (seeds 1..{r['runs']}), every run's Parquet "
          f"files written")
    print(f"  one after another, in-process   {r['serial_s']:8.2f} s   ({r['serial_s'] / r['runs'] * 1e3:.1f} ms/run)")
    print(f"  superpacket sweep, {r['workers']} workers    {r['sweep_s']:8.2f} s   (cluster start-up "
          f"{r['cluster_startup_s']:.2f} s, meanwhile {r['runs_in_main_process_during_startup']} runs in this process)")
    verdict = "met" if r["ratio"] < r["target_ratio"] else "NOT met"
    print(f"  sweep / serial                  {r['ratio']:8.2f}     (target < {r['target_ratio']:.2f}: {verdict})")
    print("  worker peak RSS                 " + ", ".join(f"{b / mib:.0f} MiB" for b in r["worker_peak_rss_bytes"])
          + f"   (limit {r['worker_memory_limit']} each)")
    print(f"  CPU time                        serial {r['serial_cpu_s']:.2f} s; sweep: this process "
          f"{r['main_cpu_s']:.2f} s + workers {r['workers_cpu_s']:.2f} s (with their start-up)")
    print(f"  load average                    {r['load_average_before']:.2f} before, {r['load_average_after']:.2f} "
          "after (other work on the machine slows both)")
    print(f"  identical results               {'yes' if r['identical_results'] else 'NO'}"
          + (f"   ({r['failed']} runs failed)" if r["failed"] else ""))
