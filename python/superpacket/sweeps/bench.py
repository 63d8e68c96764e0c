"""`superpacket bench --sweep`: the same sweep (one scenario over N seeds, every run's
Parquet files written) one run after another, then as `superpacket sweep` runs it on a
local Dask cluster of N workers that it starts, then on a local cluster of N workers
that is already running; wall times, their ratios, and each worker's peak RSS.

Each leg runs in a fresh Python process, as `superpacket sweep` would, and times only its
`sweep()` call (not the interpreter's start or its imports, which both legs pay alike): a
process that has already used polars may no longer fork its workers (see
superpacket.cluster), so measuring the second leg in the process that ran the first would
measure another start-up than a user gets.

A benchmark, not a test: the figures depend on the machine and on what else runs on it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from superpacket import sweeps
from superpacket.cluster import DEFAULT_MEMORY_LIMIT

TARGET_RATIO = 0.60

_LEG = """
import json, sys, time
import psutil
from superpacket import sweeps
scenario, out, runs, workers = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def cpu():
    t = psutil.Process().cpu_times()
    return t.user + t.system
t0, c0 = time.perf_counter(), cpu()
r = sweeps.sweep(scenario, None, range(1, runs + 1), out, workers=workers, progress=False)
wall, c = time.perf_counter() - t0, cpu() - c0
print(json.dumps({"wall_s": wall, "cpu_s": c, "failed": len(r.failed), "ran": r.ran,
                  "start_method": r.start_method, "cluster_startup_s": r.cluster_startup_s,
                  "ran_here_during_startup": r.ran_here_during_startup,
                  "workers": list(r.workers.values()), "memory_limits": r.worker_memory_limits}))
"""


# The same sweep on a local cluster that is already running (a notebook's client, or
# `superpacket sweep --scheduler` at a local cluster): started first, not timed; then
# one sweep on it, timed like the others.
_WARM_LEG = """
import json, sys, time
from superpacket import sweeps
from superpacket.cluster import open_client
scenario, out, runs, workers = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
client, close = open_client(None, workers)
try:
    t0 = time.perf_counter()
    r = sweeps.sweep(scenario, None, range(1, runs + 1), out, client=client, shared_fs=True, progress=False)
    wall = time.perf_counter() - t0
    print(json.dumps({"wall_s": wall, "failed": len(r.failed), "ran": r.ran}))
finally:
    close()
"""


def _leg(scenario: str | Path, out: Path, runs: int, workers: int, code: str = _LEG) -> dict[str, Any]:
    p = subprocess.run([sys.executable, "-c", code, str(scenario), str(out), str(runs), str(workers)],
                       capture_output=True, text=True, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"benchmark leg (workers={workers}) failed:\n{p.stderr.strip()}")
    return dict(json.loads(p.stdout.strip().splitlines()[-1]))


def _same(a: Path, b: Path) -> bool:
    da, db = sweeps.load_sweep(a), sweeps.load_sweep(b)
    return all(getattr(da, t).equals(getattr(db, t)) for t in sweeps.TABLES)


def bench(scenario: str | Path, runs: int = 200, workers: int = 2) -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="superpacket-bench-") as tmp:
        serial_dir, dask_dir = Path(tmp) / "serial", Path(tmp) / "dask"
        serial = _leg(scenario, serial_dir, runs, 0)
        par = _leg(scenario, dask_dir, runs, workers)
        warm = _leg(scenario, Path(tmp) / "warm", runs, workers, _WARM_LEG)
        identical = _same(serial_dir, dask_dir) and _same(serial_dir, Path(tmp) / "warm")
    ws = par["workers"]
    return {
        "scenario": str(scenario),
        "runs": runs,
        "workers": workers,
        "failed": serial["failed"] + par["failed"] + warm["failed"],
        "serial_s": serial["wall_s"],
        "sweep_s": par["wall_s"],
        "start_method": par["start_method"],
        "cluster_startup_s": par["cluster_startup_s"],
        "runs_in_main_process_during_startup": par["ran_here_during_startup"],
        "ratio": par["wall_s"] / serial["wall_s"],
        "warm_sweep_s": warm["wall_s"],
        "warm_ratio": warm["wall_s"] / serial["wall_s"],
        "target_ratio": TARGET_RATIO,
        "serial_cpu_s": serial["cpu_s"],
        "main_cpu_s": par["cpu_s"],
        "workers_cpu_s": sum(w["cpu_s"] for w in ws),
        "worker_peak_rss_bytes": sorted(w["peak_rss_bytes"] for w in ws),
        "worker_memory_limit": DEFAULT_MEMORY_LIMIT,
        "worker_memory_limit_bytes": par["memory_limits"],
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
          f"{r['cluster_startup_s']:.2f} s, workers by {r['start_method']}, meanwhile "
          f"{r['runs_in_main_process_during_startup']} runs in the main process)")
    verdict = "met" if r["ratio"] < r["target_ratio"] else "NOT met"
    print(f"  sweep / serial                  {r['ratio']:8.2f}     (target < {r['target_ratio']:.2f}: {verdict})")
    warm = "met" if r["warm_ratio"] < r["target_ratio"] else "NOT met"
    print(f"  the same on a running cluster   {r['warm_sweep_s']:8.2f} s   (its start-up not timed: a notebook's "
          f"client, or --scheduler)")
    print(f"  sweep / serial, running cluster {r['warm_ratio']:8.2f}     (target < {r['target_ratio']:.2f}: {warm})")
    print("  worker peak RSS                 " + ", ".join(f"{b / mib:.0f} MiB" for b in r["worker_peak_rss_bytes"])
          + "   (limits " + ", ".join(f"{b / 2**30:.1f} GiB" for b in r["worker_memory_limit_bytes"])
          + f": {r['worker_memory_limit']})")
    print(f"  CPU time                        serial {r['serial_cpu_s']:.2f} s; sweep: main process "
          f"{r['main_cpu_s']:.2f} s + workers {r['workers_cpu_s']:.2f} s (with their start-up)")
    print(f"  load average                    {r['load_average_before']:.2f} before, {r['load_average_after']:.2f} "
          "after (other work on the machine slows both)")
    print(f"  identical results               {'yes' if r['identical_results'] else 'NO'}"
          + (f"   ({r['failed']} runs failed)" if r["failed"] else ""))
