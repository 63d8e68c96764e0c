"""`superpacket bench`: the simulator's benchmarks, each run in a fresh interpreter so
its peak RSS is the simulator's own (P1, `--fast-burstiness`, `--scenario datacenter`,
`--scenario riops-web`; `--sweep` is superpacket.cli.sweep's)."""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from typing import Any

from superpacket.cli import checks

_BENCH_CHILD = "import sys; from superpacket import _core; print(_core.bench_p1(float(sys.argv[1])))"


class BenchChildError(RuntimeError):
    """A benchmark's fresh interpreter failed: its error's last line (`str`), and whether
    that is bad input (a ScenarioError or ValueError: exit 2) or a bug (exit 1)."""

    def __init__(self, stderr: str, returncode: int = 1) -> None:
        lines = stderr.strip().splitlines()
        super().__init__(lines[-1] if lines else f"the benchmark's interpreter failed (exit {returncode})")
        self.bad_input = bool(lines) and lines[-1].startswith(("ValueError", "_core.ScenarioError",
                                                               "superpacket._core.ScenarioError"))


def _bench_child(script: str, *args: Any) -> dict[str, Any]:
    """Runs a benchmark `script` in a fresh interpreter (so peak RSS is its own) with
    `args` as its argv; its stdout's JSON, or BenchChildError with its stderr."""
    r = subprocess.run([sys.executable, "-c", script, *map(str, args)], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise BenchChildError(r.stderr, r.returncode)
    out: dict[str, Any] = json.loads(r.stdout)
    return out


def _n(x: Any, scale: float = 1.0, spec: str = ".2f") -> str:
    """A benchmark's figure for the screen; `-` where the run gives none (a rate over no
    time, a CPU time too short to measure)."""
    return "-" if x is None else format(x / scale, spec)


def bench_p1(duration_s: float) -> dict[str, Any]:
    """Runs P1 in a fresh interpreter that imports only the Rust core, so peak RSS is the
    simulator's own."""
    return _bench_child(_BENCH_CHILD, duration_s)


_BENCH_FB_CHILD = ("import sys; from superpacket import _core; "
                   "print(_core.bench_fast_burstiness(float(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == 'on'))")


def bench_fast_burstiness(duration_s: float, txqueuelen: int, gate: bool) -> dict[str, Any]:
    """The 622 Mb/s x 360 ms FAST run of Wei, Hegde and Low (PFLDnet 2005) in a fresh interpreter (peak RSS is
    the simulator's own): wall time, and memory and packets alive at each tenth of the run."""
    return _bench_child(_BENCH_FB_CHILD, duration_s, txqueuelen, "on" if gate else "off")


def cmd_bench_fast_burstiness(a: argparse.Namespace) -> int:
    if bad := checks.duration_s(a.duration):
        return checks.fail(bad)
    if not 1 <= a.txqueuelen <= 10_000_000:
        return checks.fail("--txqueuelen: must be an integer in 1..10000000")
    r = bench_fast_burstiness(a.duration, a.txqueuelen, a.gate == "on")
    if a.json:
        print(json.dumps(r, indent=2, sort_keys=True))
        return 0
    print(f"fast-burstiness: one FAST flow, 622 Mb/s x 360 ms, txqueuelen {a.txqueuelen}, "
          f"burstiness control {a.gate}, {a.duration:g} simulated s")
    print(f"  wall {_n(r['wall_s'], spec='.3f')} s   events {r['events']}   {_n(r['events_per_s'], 1e6)} M events/s")
    print(f"  goodput {_n(r['goodput_bps'], 1e6, '.1f')} Mb/s   router drops {r['router_drops']}   "
          f"sender drops {r['sender_drops']}")
    rss = [s["rss_bytes"] / 2**20 for s in r["steps"] if s["rss_bytes"] is not None]
    if rss:
        print(f"  RSS over the run {rss[0]:.1f} .. {rss[-1]:.1f} MiB   peak packets live {r['peak_live_packets']}")
    return 0


_BENCH_DC_CHILD = ("import sys; from superpacket import _core; "
                   "print(_core.bench_datacenter(int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])))")
DC_HOSTS = (16, 128, 144, 1024)


def bench_datacenter(hosts: int, duration_s: float, warmup_s: float) -> dict[str, Any]:
    """Web search at 50 % load with DCTCP hosts on a fabric of `hosts` hosts (bench.rs
    `run_datacenter`), in a fresh interpreter (peak RSS is the simulator's own)."""
    return _bench_child(_BENCH_DC_CHILD, hosts, duration_s, warmup_s)


def cmd_bench_datacenter(a: argparse.Namespace) -> int:
    duration = 0.1 if a.duration is None else a.duration
    if bad := checks.duration_s(duration):
        return checks.fail(bad)
    if not (math.isfinite(a.warmup) and 0 <= a.warmup <= 10):
        return checks.fail(f"--warmup: must be a number of seconds in [0, 10] (got {a.warmup})")
    if 0 < a.warmup < checks.MIN_SIM_S:
        return checks.fail(f"--warmup: must be 0 or at least 1e-09 s, one step of the simulated clock (got {a.warmup:g})")
    if a.hosts not in DC_HOSTS:
        return checks.fail(f"--hosts: must be one of {', '.join(map(str, DC_HOSTS))} (got {a.hosts})")
    r = bench_datacenter(a.hosts, duration, a.warmup)
    if a.json:
        print(json.dumps(r, indent=2, sort_keys=True))
        return 0
    print(f"datacenter: web search at 50 % load, DCTCP, {a.hosts} hosts ({r['nodes']} nodes, {r['links']} links), "
          f"{duration:g} s after {a.warmup:g} s warm-up")
    print(f"  wall {_n(r['wall_s'], spec='.3f')} s (CPU {_n(r['cpu_s'], spec='.3f')} s)   packet-hops "
          f"{r['packet_hops']}   {_n(r['packet_hops_per_cpu_s'], 1e6)} M hops per CPU s "
          f"({_n(r['cpu_ns_per_packet_hop'], spec='.0f')} ns each)")
    print(f"  events {r['events']}   {_n(r['events_per_s'], 1e6)} M events/s (wall)   flows finished "
          f"{r['flows_finished']}   peak RSS {_n(r['peak_rss_bytes'], 2**20, '.1f')} MiB")
    return 0


_BENCH_WEB_CHILD = """
import json, resource, sys, time
from superpacket import _core, api
peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
d = float(sys.argv[1])
base = peak()
text = _core.riops_web_toml(d)
sim = _core.Simulation(text, "toml", 1)
t0 = time.perf_counter()
sim.run_until(d)
wall = time.perf_counter() - t0
run_peak = peak()
box = [sim]
del sim
res = api._results_of(box, text, "toml", wall)
print(json.dumps({"sim_s": d, "wall_s": wall, "flows": res.flows.height, "completed_flows":
                  res.summary["completed_flows"], "baseline_rss_bytes": base, "peak_rss_run_bytes": run_peak,
                  "peak_rss_bytes": peak(), "flows_frame_bytes": res.flows.estimated_size(),
                  "flows_columns": res.flows.width}))
"""


def bench_riops_web(duration_s: float) -> dict[str, Any]:
    """riops-web Exp1 with RIO-PS (bench.rs `riops_web_toml`) for `duration_s` simulated
    seconds through the Python API, in a fresh interpreter: the peak RSS after the run
    and after the results' DataFrames (memory of an open-loop workload)."""
    return _bench_child(_BENCH_WEB_CHILD, duration_s)


def cmd_bench_riops_web(a: argparse.Namespace) -> int:
    duration = 600.0 if a.duration is None else a.duration
    if bad := checks.duration_s(duration):
        return checks.fail(bad)
    r = bench_riops_web(duration)  # the child's error (e.g. the memory budget): cmd_bench
    if a.json:
        print(json.dumps(r, indent=2, sort_keys=True))
        return 0
    mb = 1e6
    print(f"riops-web: Exp1 with RIO-PS, 874 web sessions plus foreground batches, {duration:g} simulated s, "
          f"through superpacket.run's steps")
    print(f"  wall {r['wall_s']:.1f} s   flows {r['flows']} ({r['completed_flows']} finished)")
    print(f"  peak RSS: interpreter {r['baseline_rss_bytes'] / mb:.1f} MB, after the run "
          f"{r['peak_rss_run_bytes'] / mb:.1f} MB, with the results {r['peak_rss_bytes'] / mb:.1f} MB "
          f"(flows DataFrame {r['flows_frame_bytes'] / mb:.1f} MB, {r['flows_columns']} columns)")
    return 0


#: The options each benchmark uses (and the defaults of those that have one): an option
#: given to a benchmark that does not use it is refused, not silently ignored.
BENCH_OPTIONS: dict[str, dict[str, Any]] = {
    "P1 (no --fast-burstiness, --sweep or --scenario)": {"duration": 5.0},
    "--fast-burstiness": {"duration": 5.0, "txqueuelen": 10_000, "gate": "off"},
    "--scenario datacenter": {"duration": None, "hosts": 144, "warmup": 0.02, "scenario": "datacenter"},
    "--scenario riops-web": {"duration": None, "scenario": "riops-web"},
    "--sweep": {"runs": 200, "workers": 2, "scenario": "incast"},
}
_BENCH_FLAGS = ("duration", "hosts", "warmup", "txqueuelen", "gate", "runs", "workers", "scenario")


def _bench_mode(a: argparse.Namespace) -> tuple[str | None, str | None]:
    """(the benchmark the options ask for, None) or (None, the line refusing them)."""
    named = a.scenario if a.scenario in ("datacenter", "riops-web") and not a.sweep else None
    if a.scenario is not None and named is None and not a.sweep:
        return None, (f"--scenario {a.scenario}: not a benchmark (datacenter or riops-web); a scenario file is "
                      "benchmarked with --sweep")
    picked = [m for m, on in (("--fast-burstiness", a.fast_burstiness), ("--sweep", a.sweep),
                              (f"--scenario {named}", named)) if on]
    if len(picked) > 1:
        return None, f"{picked[0]} and {picked[1]} are different benchmarks: give one"
    mode = picked[0] if picked else next(iter(BENCH_OPTIONS))
    for opt in _BENCH_FLAGS:
        if getattr(a, opt) is not None and opt not in BENCH_OPTIONS[mode]:
            users = [m.split(" (")[0] for m, o in BENCH_OPTIONS.items() if opt in o]
            return None, f"--{opt} applies to {checks.join(users)} only"
    return mode, None


def cmd_bench(a: argparse.Namespace) -> int:
    mode, bad = _bench_mode(a)
    if mode is None:
        return checks.fail(str(bad))
    for opt, default in BENCH_OPTIONS[mode].items():
        if getattr(a, opt) is None:
            setattr(a, opt, default)
    try:
        if mode == "--scenario datacenter":
            return cmd_bench_datacenter(a)
        if mode == "--scenario riops-web":
            return cmd_bench_riops_web(a)
        if mode == "--fast-burstiness":
            return cmd_bench_fast_burstiness(a)
        if mode == "--sweep":
            from superpacket.cli import sweep

            return sweep.cmd_bench_sweep(a)
        return cmd_bench_p1(a)
    except BenchChildError as e:  # checked input the benchmark still refused, or a bug: one line
        print(f"superpacket: bench {mode.split(' (')[0]}: {e}", file=sys.stderr)
        return checks.EXIT_BAD_INPUT if e.bad_input else 1


def cmd_bench_p1(a: argparse.Namespace) -> int:
    if bad := checks.duration_s(a.duration):
        return checks.fail(bad)
    r = bench_p1(a.duration)
    if a.json:
        print(json.dumps(r, indent=2, sort_keys=True))
        return 0
    print(f"P1: 64 NewReno flows, 10 Gbps dumbbell, {a.duration:g} simulated s")
    print(f"  wall {_n(r['wall_s'], spec='.3f')} s   events {r['events']}   {_n(r['events_per_s'], 1e6)} M events/s")
    print(f"  bottleneck packets {r['bottleneck_pkts']}   {_n(r['bottleneck_pkts_per_s'], 1e6)} M pkts/s   "
          f"utilisation {_n(r['bottleneck_utilization'], spec='.4f')}")
    print(f"  peak RSS {_n(r['peak_rss_bytes'], 2**20, '.1f')} MiB   peak packets live {r['peak_live_packets']}")
    return 0
