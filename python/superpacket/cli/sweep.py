"""The `sweep` and `report` commands and `bench --sweep` (registered by superpacket.cli.app).

    superpacket sweep FILE.toml --param PATH=V1,V2 [--param ...] [--link NAME=PATH,PATH
                     [--label NAME=L1,L2]] [--seeds 1..N] [--out DIR]
                     [--scheduler ADDRESS | --workers N]
    superpacket report DIR
    superpacket bench --sweep [--runs 200] [--workers 2] [--scenario FILE.toml]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from superpacket.cli import checks

EXIT_BAD_INPUT = checks.EXIT_BAD_INPUT
EXIT_RUNS_FAILED = 1
EXIT_INTERRUPTED = 130


def _fail(msg: str) -> int:
    print(f"superpacket: {' '.join(msg.split())}", file=sys.stderr)
    return EXIT_BAD_INPUT


def cmd_sweep(a: argparse.Namespace) -> int:
    from superpacket import packaged, sweeps
    from superpacket._core import ScenarioError

    a.file = packaged.resolve(a.file)  # `incast`: the packaged example
    out = a.out or f"sweep-{Path(a.file).stem}"
    if a.chunk is not None and a.chunk < 1:
        return _fail(f"--chunk must be >= 1 (got {a.chunk})")
    if bad := checks.workers(a.workers) or checks.scheduler(a.scheduler) or checks.out_dir(out):
        return _fail(bad)
    try:
        seeds = sweeps.parse_seeds(a.seeds)
        links = sweeps.parse_links(a.link)
        params = sweeps.normalize_params(a.param or [], max_points=max(1, checks.MAX_RUNS // len(seeds)),
                                         linked=links)
        base = sweeps.load_base(a.file)
    except sweeps.SweepError as e:
        return _fail(str(e))
    except (FileNotFoundError, IsADirectoryError, UnicodeDecodeError, ValueError) as e:
        return _fail(f"{a.file}: {e}")
    try:
        r = sweeps.sweep(base, params, seeds, out, a.scheduler, workers=a.workers,
                         progress=False if a.quiet else None, chunk=a.chunk, links=links, labels=a.label)
    except (sweeps.SweepError, ScenarioError) as e:
        return _fail(str(e))
    except OSError as e:  # e.g. no scheduler at --scheduler
        return _fail(f"--scheduler {a.scheduler}: {e}" if a.scheduler else str(e))
    except KeyboardInterrupt:
        print(f"superpacket: sweep interrupted; finished runs are in {out}/, "
              "run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(f"sweep {out}: {r.runs} runs, {r.skipped} already done, {r.ran} run now, {len(r.failed)} failed "
          f"({r.wall_s:.1f} s)")
    if r.failed:
        print(f"failed runs are listed in {out}/failures.jsonl", file=sys.stderr)
        return EXIT_RUNS_FAILED
    return 0


def cmd_report(a: argparse.Namespace) -> int:
    from superpacket import reports

    try:
        path = reports.report(a.dir)
    except reports.ReportError as e:
        return _fail(str(e))
    print(f"report written: {path} and {path.with_suffix('.html')}")
    return 0


def cmd_bench_sweep(a: argparse.Namespace) -> int:
    from superpacket.sweeps import bench as sweep_bench

    if not 1 <= a.runs <= checks.MAX_RUNS:
        return _fail(f"--runs must be an integer in 1..{checks.MAX_RUNS} (got {a.runs})")
    if bad := checks.workers(a.workers, least=1):
        return _fail(bad)
    from superpacket import packaged, sweeps
    from superpacket._core import ScenarioError

    a.scenario = packaged.resolve(a.scenario)  # `incast`: the packaged example
    try:  # the scenario checked here: a leg's error would be another interpreter's traceback
        sweeps.build_points(sweeps.load_base(a.scenario), {})
    except (sweeps.SweepError, ScenarioError, OSError, UnicodeDecodeError, ValueError) as e:
        return _fail(f"--scenario {a.scenario}: {e}")
    try:
        r = sweep_bench.bench(a.scenario, runs=a.runs, workers=a.workers)
    except RuntimeError as e:  # a leg failed all the same: its last line
        print(f"superpacket: bench --sweep: {str(e).strip().splitlines()[-1]}", file=sys.stderr)
        return EXIT_RUNS_FAILED
    if a.json:
        print(json.dumps(r, indent=2, sort_keys=True))
        return 0
    sweep_bench.print_report(r)
    return 0


def add_parsers(sub: Any) -> None:
    s = sub.add_parser("sweep", help="run a scenario over a grid of parameters and seeds (Dask)")
    s.add_argument("file", metavar="FILE|EXAMPLE",
                   help="the base scenario: a file, or the name of a packaged example (`superpacket list`)")
    s.add_argument("--param", action="append", metavar="PATH=V1,V2,...",
                   help="a scenario field and its values, e.g. topology.receiver_link.queue.limit=20,50 "
                        "or traffic[0].count=5,10, or whole tables that replace the one there: "
                        "'topology.bottleneck.queue={kind=\"red\", min_th=5, max_th=15},{kind=\"droptail\"}' "
                        "(repeatable: the grid is every combination)")
    s.add_argument("--link", action="append", metavar="NAME=PATH,PATH,...",
                   help="--param paths that vary together, as one parameter named NAME: the i-th value of each "
                        "makes point i, e.g. buffer=topology.bottleneck.queue.limit,topology.bottleneck.queue.max_th "
                        "(repeatable)")
    s.add_argument("--label", action="append", metavar="NAME=L1,L2,...",
                   help="names of a --link group's points, for its folders and its column "
                        "(default: field=value;... of each point)")
    s.add_argument("--seeds", default="10", help="N (1..N), A..B, or a list 1,3,5 (default 10)")
    s.add_argument("--out", default=None, help="results folder (default sweep-<scenario name>)")
    s.add_argument("--scheduler", default=None, help="address of an existing Dask scheduler")
    s.add_argument("--workers", type=int, default=None,
                   help="local cluster size (default: one per core; 0: serial, in this process)")
    s.add_argument("--chunk", type=int, default=None, help="runs per Dask task (default: automatic)")
    s.add_argument("--quiet", action="store_true", help="no progress (a bar on a terminal, else a line every few seconds)")
    s.set_defaults(fn=cmd_sweep)
    r = sub.add_parser("report", help="write report.md/.html and figures for a run, sweep or reproduce folder")
    r.add_argument("dir", help="a folder written by run --out, sweep --out or reproduce --out")
    r.set_defaults(fn=cmd_report)


def add_bench_args(b: Any) -> None:
    b.add_argument("--sweep", action="store_true",
                   help="benchmark a sweep on a local Dask cluster against the same runs one after another")
    # defaults None: cli.BENCH_OPTIONS fills them in for the benchmark that uses them
    b.add_argument("--runs", type=int, default=None, help="runs (seeds) for --sweep (default 200)")
    b.add_argument("--workers", type=int, default=None, help="local cluster workers for --sweep (default 2)")
    b.add_argument("--scenario", default=None,
                   help="scenario file for --sweep or packaged example (default incast); or 'datacenter': web search at 50 "
                        "%% load with DCTCP on a fabric; or 'riops-web': the memory of an open-loop web workload "
                        "through the Python API")
