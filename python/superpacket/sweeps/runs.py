"""Running a sweep: each run an independent task (here, on a local Dask cluster or on a
scheduler's), its files written atomically into OUT (superpacket.sweeps)."""

from __future__ import annotations

import gc
import io
import itertools
import json
import math
import os
import shutil
import socket
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from superpacket import limits
from superpacket.sweeps.grid import (
    Linked,
    Point,
    SweepError,
    build_points,
    check_dir_names,
    load_base,
    normalize_links,
    normalize_params,
    normalize_seeds,
    parse_links,
)
from superpacket.sweeps.load import (
    canonical,
)

RunFiles = dict[str, bytes]
Runner = Callable[[str, int], RunFiles]


# ---- running -----------------------------------------------------------------------------

def _summary_frame(summary: dict[str, Any]) -> Any:
    """One row with stable column types: None -> Float64 null, nested values -> JSON; the
    seed UInt64 (the simulator's seed is a u64: 2^63 and above do not fit Int64), as the
    loader's `seed` column (superpacket.sweeps.load.load_table)."""
    import polars as pl

    cols: dict[str, pl.Series] = {}
    for k in sorted(summary):
        v = summary[k]
        if k == "seed" and isinstance(v, int) and not isinstance(v, bool):
            cols[k] = pl.Series(k, [v], dtype=pl.UInt64)
        elif v is None:
            cols[k] = pl.Series(k, [None], dtype=pl.Float64)
        elif isinstance(v, bool):
            cols[k] = pl.Series(k, [v], dtype=pl.Boolean)
        elif isinstance(v, int):
            cols[k] = pl.Series(k, [v], dtype=pl.Int64)
        elif isinstance(v, float):
            cols[k] = pl.Series(k, [v], dtype=pl.Float64)
        elif isinstance(v, str):
            cols[k] = pl.Series(k, [v], dtype=pl.String)
        else:
            cols[k] = pl.Series(k, [json.dumps(v, sort_keys=True)], dtype=pl.String)
    return pl.DataFrame(list(cols.values()))


def run_to_files(toml_text: str, seed: int) -> RunFiles:
    """Runs one scenario and returns its files (Parquet tables and summary.json) as bytes,
    so that a worker on another machine needs no access to OUT."""
    from superpacket import api

    res = api.run(toml_text, seed=seed, progress=False)
    files: RunFiles = {}
    # flow_series: rows only when the scenario sets `[output] sample_flows`, else an empty
    # table with the same columns, so that every run folder holds the same files
    frames = {"flows": res.flows, "links": res.links, "queue_series": res.queue_series,
              "queue_counters": res.queue_counters, "flow_series": res.flow_series,
              "summary": _summary_frame(res.summary)}
    for name, df in frames.items():
        buf = io.BytesIO()
        df.write_parquet(buf)
        files[f"{name}.parquet"] = buf.getvalue()
    # summary.json as a run's (readable TCP configurations, rates); summary.parquet keeps res.summary
    files["summary.json"] = (json.dumps(res.summary_json(), indent=2, sort_keys=True) + "\n").encode()
    return files


_commits = itertools.count()


def commit_run(out: Path, rel: str, files: RunFiles, scenario_text: str) -> None:
    """Writes one run's files into OUT/rel atomically: into `.OUT.partial/`, then one
    rename, so the folder exists whole or not at all."""
    tmp = out.parent / f".{out.name}.partial" / f"{socket.gethostname()}-{os.getpid()}-{next(_commits)}"
    tmp.mkdir(parents=True)
    for name, data in files.items():
        (tmp / name).write_bytes(data)
    (tmp / "scenario.toml").write_text(scenario_text)
    final = out / rel
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(tmp, final)
    except OSError:
        if not final.is_dir():
            raise
        shutil.rmtree(tmp)  # written meanwhile by another sweep: keep theirs


RunResult = RunFiles | str | None


def run_chunk(items: list[tuple[str, int, str]], runner: Runner = run_to_files,
              out: str | None = None) -> list[RunResult]:
    """A Dask task: several runs (scenario text, seed, run folder). Each result is the
    error's traceback if the run failed; else, with `out` (a worker that shares OUT's
    file system), None once the worker has committed the run itself, or the files."""
    results: list[RunResult] = []
    for text, seed, rel in items:
        try:
            files = runner(text, seed)
        except Exception:  # noqa: BLE001 - a failed run is reported, the others go on
            results.append(traceback.format_exc())
            gc.collect()  # free the failed run's simulator on this thread (it is not Send)
            continue
        if out is None:
            results.append(files)
        else:
            commit_run(Path(out), rel, files, text)
            results.append(None)
    return results


@dataclass
class SweepOutcome:
    """What a sweep did: `runs` in all, `skipped` already on disk, `ran` now, `failed`."""

    out: Path
    runs: int
    skipped: int
    ran: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)
    wall_s: float = 0.0
    cluster_startup_s: float | None = None
    ran_here_during_startup: int = 0
    start_method: str | None = None  # how the local workers started ("fork", "forkserver")
    workers: dict[str, dict[str, float]] = field(default_factory=dict)  # address -> worker_stats()
    worker_memory_limits: list[int] = field(default_factory=list)  # bytes, local cluster only


class _Writer:
    """Commits runs into OUT atomically and records failures."""

    def __init__(self, out: Path, outcome: SweepOutcome, bar: Any) -> None:
        self.out = out
        self.outcome = outcome
        self.bar = bar

    def commit(self, point: Point, seed: int, text: str, result: RunResult) -> None:
        if isinstance(result, str):
            self.fail(point, seed, result)
        else:
            if result is not None:  # else the worker has written it
                commit_run(self.out, _rel(point, seed), result, text)
            self.outcome.ran += 1
        self.bar.update(1, f"{point.label()} seed={seed}")

    def fail(self, point: Point, seed: int, tb: str) -> None:
        err = tb.strip().splitlines()[-1] if tb.strip() else "unknown error"
        rec = {"params": dict(point.values), **({"labels": dict(point.labels)} if point.labels else {}),
               "seed": seed, "dir": _rel(point, seed),
               "error": err, "traceback": tb}
        self.outcome.failed.append(rec)
        with open(self.out / "failures.jsonl", "a") as f:
            f.write(json.dumps(rec, sort_keys=True) + "\n")
        self.bar.write(f"superpacket: run failed: {point.label()} seed={seed}: {err}")


def _rel(point: Point, seed: int) -> str:
    return f"{point.dir}/seed={seed}".lstrip("/")


def _meta(out: Path, base: dict[str, Any], params: dict[str, list[Any]], seeds: list[int],
          groups: Mapping[str, Linked] | None = None) -> dict[str, Any]:
    """sweep.json: new, or merged with the one in OUT (same scenario, parameter names and
    linked groups: the sweep resumes, or grows by new values of plain parameters and new
    seeds; anything else is refused). `linked` (group -> paths and labels) is written
    only when the sweep has linked groups."""
    linked = {g: {"paths": list(lk.paths), "labels": list(lk.labels)} for g, lk in (groups or {}).items()}
    meta: dict[str, Any] = {"format": 1, "scenario": base, "params": params, "seeds": seeds}
    if linked:
        meta["linked"] = linked
    f = out / "sweep.json"
    if not f.exists():
        return meta
    old = json.loads(f.read_text())
    if old.get("scenario") != json.loads(json.dumps(base)):
        raise SweepError(f"--out {out}: holds a sweep of another scenario; choose another folder")
    if list(old.get("params", {})) != list(params):
        raise SweepError(f"--out {out}: holds a sweep over parameters {list(old.get('params', {}))}, "
                         f"not {list(params)}; choose another folder")
    grouped = {p for lk in linked.values() for p in lk["paths"]}
    if old.get("linked", {}) != linked or any(
            canonical(old["params"][p]) != canonical(params[p]) for p in grouped):
        raise SweepError(f"--out {out}: holds a sweep with other linked groups or their values; "
                         "choose another folder")
    merged = {p: list(old["params"][p]) for p in params}
    for p, vals in params.items():
        if p in grouped:
            continue
        seen = {canonical(u) for u in merged[p]}
        merged[p] += [v for v in vals if canonical(v) not in seen]
    check_dir_names({p: v for p, v in merged.items() if p not in grouped})
    meta = {"format": 1, "scenario": base, "params": merged, "seeds": sorted(set(old["seeds"]) | set(seeds))}
    if linked:
        meta["linked"] = linked
    return meta


def _chunk_size(todo: int, workers: int) -> int:
    """Runs per task: about four tasks per worker, so that Dask's cost per task (a few ms
    on the client and on the worker, as much as a short run) is paid rarely while the
    load stays balanced; at most 32, so that a task's results stay small."""
    return max(1, min(32, math.ceil(todo / (4 * workers))))


def sweep(
    scenario: str | Path | Mapping[str, Any],
    params: Mapping[str, Any] | Iterable[str] | None = None,
    seeds: int | str | Iterable[int] = 10,
    out: str | Path = "sweep",
    scheduler: str | None = None,
    *,
    workers: int | None = None,
    client: Any = None,
    progress: bool | None = None,
    chunk: int | None = None,
    shared_fs: bool | None = None,
    links: Mapping[str, Any] | Iterable[str] | None = None,
    labels: Mapping[str, Any] | Iterable[str] | None = None,
    _runner: Runner = run_to_files,
) -> SweepOutcome:
    """Runs `scenario` for every combination of `params` and every seed, into `out`.

    `links` makes parameters vary together instead of across each other: `{"buffer":
    ["topology.bottleneck.queue.limit", "topology.bottleneck.queue.max_th"]}` pairs the
    i-th value of each path into the group's i-th point; `labels` names those points
    (`{"buffer": ["small", "large"]}`; by default `limit=100;max_th=75`), and the folders
    and the loaded tables' `buffer` column hold the labels beside each path's own typed
    column.

    `scheduler`: a Dask scheduler address (else a local cluster of `workers` processes,
    default one per core); `client`: an existing `distributed.Client` to use instead;
    `workers=0`: run one after another in this process, without Dask. `shared_fs`: the
    workers see `out` and write their runs themselves (default: only the workers of the
    local cluster made here; else the files travel back to this process). Runs already in
    `out` are skipped. `params` maps a path to its values: a list, a range, one value, a
    table (dict) or a list of tables (each replaces the table at the path), or a string
    parsed as the command line's `--param` values. Raises SweepError (naming the
    parameter) before any run when a parameter point is invalid; a run that fails is
    recorded in out/failures.jsonl.
    """
    t0 = time.perf_counter()
    if chunk is not None and chunk < 1:
        raise SweepError(f"--chunk {chunk}: must be >= 1")
    if bad := limits.workers(workers):
        raise SweepError(bad)
    # an option that would have no effect is refused, not silently ignored
    if client is not None and scheduler is not None:
        raise SweepError("--scheduler: give a scheduler address or a client, not both")
    if workers is not None and (scheduler is not None or client is not None):
        raise SweepError(f"--workers {workers}: applies to a local cluster; with "
                         f"{'--scheduler' if scheduler is not None else 'a client'} the cluster's own workers run")
    if workers == 0 and (chunk is not None or shared_fs is not None):
        raise SweepError(f"--{'chunk' if chunk is not None else 'shared_fs'}: applies to runs on Dask; "
                         "--workers 0 runs them one after another in this process")
    base = load_base(scenario)
    seed_list = normalize_seeds(seeds)
    link_paths = parse_links(links)
    # the grid bounded by the runs left for each seed before any value is expanded
    pv = normalize_params(params, max_points=max(1, limits.MAX_RUNS // len(seed_list)), linked=link_paths)
    groups = normalize_links(link_paths, labels, pv)
    grouped = {p for lk in groups.values() for p in lk.paths}
    n_points = math.prod(len(v) for p, v in pv.items() if p not in grouped) * math.prod(
        len(lk.labels) for lk in groups.values())
    n_runs = n_points * len(seed_list)
    if n_runs > limits.MAX_RUNS:
        raise SweepError(f"{n_runs} runs ({n_points} parameter points x {len(seed_list)} seeds): "
                         f"at most {limits.MAX_RUNS} in one sweep")
    points = build_points(base, pv, groups)
    outp = Path(out)
    if outp.exists() and not outp.is_dir():
        raise SweepError(f"--out {outp}: not a folder")
    meta = _meta(outp, base, pv, seed_list, groups)
    outp.mkdir(parents=True, exist_ok=True)
    (outp / "sweep.json").write_text(json.dumps(meta, indent=2) + "\n")
    partial = outp.parent / f".{outp.name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    (outp / "failures.jsonl").unlink(missing_ok=True)

    runs = [(p, s) for p in points for s in seed_list]
    todo = [(p, s) for p, s in runs if not (outp / p.dir / f"seed={s}").is_dir()]
    outcome = SweepOutcome(out=outp, runs=len(runs), skipped=len(runs) - len(todo))
    # decided before the progress bar starts its monitor thread
    method = None
    if todo and client is None and scheduler is None and workers != 0:
        from superpacket.forking import start_method

        method = start_method()
    outcome.start_method = method
    from superpacket.progress import Progress

    try:
        with Progress(len(runs), "sweep", initial=outcome.skipped, progress=progress, smoothing=0.1) as bar:
            w = _Writer(outp, outcome, bar)
            if todo and client is None and scheduler is None and workers == 0:
                for p, s in todo:
                    text = p.run_toml(s)
                    w.commit(p, s, text, run_chunk([(text, s, _rel(p, s))], _runner)[0])
            elif todo and client is not None:
                _run_dask(client, todo, w, chunk, _runner, str(outp.resolve()) if shared_fs else None)
            elif todo:
                own = shared_fs if shared_fs is not None else scheduler is None
                # workers of our own local cluster write their runs themselves
                _run_own_cluster(scheduler, workers, todo, w, chunk, _runner,
                                 str(outp.resolve()) if own else None, outcome, method)
    finally:  # also on Ctrl-C: finished runs are in place, half-written ones go
        shutil.rmtree(partial, ignore_errors=True)
    outcome.wall_s = time.perf_counter() - t0
    return outcome


def _run_own_cluster(scheduler: str | None, workers: int | None, todo: list[tuple[Point, int]], w: _Writer,
                     chunk: int | None, runner: Runner, out: str | None, outcome: SweepOutcome,
                     method: str | None) -> None:
    """Connects to `scheduler`, or starts a local cluster of `method` workers. Forked
    workers are up in a fraction of a second, and this process must not start polars'
    thread pools until they are, so it waits; workers from a forkserver take most of a
    second, and meanwhile this process runs the first runs itself."""
    from concurrent.futures import ThreadPoolExecutor

    from superpacket.cluster import open_client

    t1 = time.perf_counter()
    interrupted = False
    if method == "fork":
        client, close = open_client(scheduler, workers, method=method)
        try:
            outcome.cluster_startup_s = time.perf_counter() - t1
            _run_dask(client, todo, w, chunk, runner, out)
            from superpacket.cluster import worker_memory_limits, worker_stats

            outcome.workers = client.run(worker_stats)
            outcome.worker_memory_limits = worker_memory_limits(client)
        except KeyboardInterrupt:
            interrupted = True
            raise
        finally:
            close(now=interrupted)  # on Ctrl-C at once: runs finished so far are in place
        return
    with ThreadPoolExecutor(1, thread_name_prefix="superpacket-cluster") as ex:
        starting = ex.submit(open_client, scheduler, workers, method=method)
        try:
            i = 0
            while scheduler is None and not starting.done() and i < len(todo) - 1:
                p, s = todo[i]
                text = p.run_toml(s)
                w.commit(p, s, text, run_chunk([(text, s, _rel(p, s))], runner)[0])
                i += 1
            client, _ = starting.result()
            outcome.cluster_startup_s = time.perf_counter() - t1
            outcome.ran_here_during_startup = i
            _run_dask(client, todo[i:], w, chunk, runner, out)
            if scheduler is None:
                from superpacket.cluster import worker_memory_limits, worker_stats

                outcome.workers = client.run(worker_stats)
                outcome.worker_memory_limits = worker_memory_limits(client)
        except KeyboardInterrupt:
            interrupted = True
            raise
        finally:  # also on Ctrl-C while the cluster starts: wait for it, then close it
            if starting.exception() is None:
                starting.result()[1](now=interrupted)


def _run_dask(client: Any, todo: list[tuple[Point, int]], w: _Writer, chunk: int | None, runner: Runner,
              out: str | None) -> None:
    from distributed import as_completed

    from superpacket.cluster import worker_count

    k = chunk or _chunk_size(len(todo), worker_count(client))
    pending = {}
    for i in range(0, len(todo), k):
        part = [(p, s, p.run_toml(s)) for p, s in todo[i : i + k]]
        fut = client.submit(run_chunk, [(t, s, _rel(p, s)) for p, s, t in part], runner, out, pure=False)
        pending[fut] = part
    for fut in as_completed(list(pending)):
        part = pending.pop(fut)
        try:
            results: list[RunResult] = fut.result()
        except Exception:  # noqa: BLE001 - the task failed (e.g. its worker died): all its runs
            tb = traceback.format_exc()
            results = [tb] * len(part)
        for (p, s, text), r in zip(part, results, strict=True):
            w.commit(p, s, text, r)
        fut.release()
