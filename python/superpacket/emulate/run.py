"""One emulation: the testbed built, the router and the generators started, the traffic
run for the scenario's duration in real time, the tables made from the router's
counters and the senders' TCP_INFO, and everything removed again.

The run's clock is CLOCK_MONOTONIC (time.monotonic()), shared by the namespaces and the
router. t = 0 is when the router's counters start (SIGUSR1) and the first flow may
start; the scenario's start times count from there.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import polars as pl

from superpacket.emulate.plan import Plan, Refused
from superpacket.emulate.testbed import Testbed, TestbedError, host_ip

#: Time from starting the senders to t = 0 (plus 0.1 s per host): they must be running
#: and waiting by then. A Python start takes about 0.3 s with the load average at 10 on 2 cores.
SETUP_MARGIN_S = 1.0
PORT = 5001
GEN = Path(__file__).with_name("gen.py")


class Interrupted(Exception):
    """SIGTERM or SIGHUP during a run (Ctrl-C raises KeyboardInterrupt)."""


@contextmanager
def _signals_raise() -> Iterator[None]:
    """SIGTERM and SIGHUP raise, so the testbed is removed as on Ctrl-C."""
    def handler(signum: int, frame: FrameType | None) -> None:
        raise Interrupted(signal.Signals(signum).name)

    old = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@dataclass
class EmulationResults:
    """The tables of one emulation (superpacket.outputs, "An emulation's files")."""

    flows: pl.DataFrame
    links: pl.DataFrame
    queue_series: pl.DataFrame
    flow_series: pl.DataFrame
    summary: dict[str, Any]
    router: dict[str, Any] = field(default_factory=dict)
    scenario_text: str = ""

    def write(self, out: str | Path) -> Path:
        """Parquet tables, summary.json, router.json and scenario.toml into `out`, whole
        or not at all (a hidden folder beside it, then renames)."""
        d = Path(out)
        d.parent.mkdir(parents=True, exist_ok=True)
        tmp = d.parent / f".{d.name}.partial-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            tmp.mkdir()
            for name in ("flows", "links", "queue_series", "flow_series"):
                getattr(self, name).write_parquet(tmp / f"{name}.parquet")
            (tmp / "summary.json").write_text(json.dumps(self.summary, indent=2, sort_keys=True) + "\n")
            (tmp / "router.json").write_text(json.dumps(self.router, indent=1) + "\n")
            if self.scenario_text:
                (tmp / "scenario.toml").write_text(self.scenario_text)
            try:
                os.rename(tmp, d)
            except OSError:
                d.mkdir(parents=True, exist_ok=True)
                for f in sorted(tmp.iterdir()):
                    os.replace(f, d / f.name)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return d


#: Environment variables that tune the router, with their bounds (the router refuses
#: the same, config.rs): the busy-wait before a deadline (at most 1 s) and the
#: SCHED_FIFO priority (0: the normal scheduler).
ROUTER_ENV = {"SUPERPACKET_EMU_SPIN_NS": ("spin_ns", 0, 1_000_000_000),
              "SUPERPACKET_EMU_RT_PRIORITY": ("rt_priority", 0, 99)}


def router_env() -> dict[str, int]:
    """The router's settings from the environment, or Refused naming the variable; read
    before anything is created."""
    out = {}
    for var, (key, lo, hi) in ROUTER_ENV.items():
        text = os.environ.get(var)
        if text is None:
            continue
        digits = text.strip()
        v = int(digits) if digits.isascii() and digits.isdigit() and len(digits) <= 12 else None
        if v is None or not lo <= v <= hi:
            raise Refused(f"{var}: a whole number in {lo}..{hi} (got {text[:40]!r})")
        out[key] = v
    return out


def _router_config(plan: Plan, tb: Testbed, stats_path: Path, env: dict[str, int] | None = None) -> dict[str, Any]:
    ports = [{"ifname": tb.router_if(n), "mac": f"02:53:50:01:{n >> 8 & 0xff:02x}:{n & 0xff:02x}",
              "peer_mac": f"02:53:50:00:{n >> 8 & 0xff:02x}:{n & 0xff:02x}"} for n in range(len(plan.hosts))]
    num = {h: n for n, h in enumerate(plan.hosts)}
    routes = [{"in_port": num[a], "dst": host_ip(num[b]), "links": path, "out_port": num[b]}
              for (a, b), path in plan.routes.items()]
    links = [{"name": lk.name, "rate_bps": lk.rate_bps, "delay_ns": lk.delay_ns,
              "limit_pkts": lk.limit_pkts, "queue": lk.queue} for lk in plan.links]
    return {"ports": ports, "links": links, "routes": routes, "stats_path": str(stats_path),
            "sample_links": [plan.link_index(q) for q in plan.sample_queues],
            "sample_interval_ns": round(plan.sample_interval_s * 1e9), "seed": plan.seed,
            **(router_env() if env is None else env)}


def _wait_ready(pr: Any, what: str, timeout: float = 10.0) -> None:
    """Waits for the process's `ready` line."""
    import select

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pr.poll() is not None:
            err = pr.stderr.read().decode(errors="replace").strip().splitlines()
            raise TestbedError(f"{what} exited ({pr.returncode}): {err[-1] if err else 'no message'}")
        r, _, _ = select.select([pr.stdout], [], [], 0.1)
        if r and pr.stdout.readline().strip() == b"ready":
            return
    raise TestbedError(f"{what} did not start within {timeout:g} s")


def emulate(plan: Plan, binary: Path, scenario_text: str = "", progress: bool = False) -> EmulationResults:
    """Runs the plan on a fresh testbed; the testbed is removed before this returns or
    raises (Ctrl-C, SIGTERM and SIGHUP included). Refused (before anything is created)
    for a bad router setting in the environment; TestbedError, one line, for a run that
    fails."""
    env = router_env()
    tb = Testbed(plan)
    if progress:  # the tag names the run's namespaces (sp-TAG-...) and its work folder
        print(f"emulating {plan.duration_s:g} s (testbed {tb.tag})", file=sys.stderr, flush=True)
    work = Path(tempfile.mkdtemp(prefix=f"superpacket-emulate-{tb.tag}-"))
    try:
        with _signals_raise():
            tb.build(binary)
            cfg_path = work / "router-config.json"
            cfg_path.write_text(json.dumps(_router_config(plan, tb, work / "router.json", env)))
            router = tb.spawn(tb.router_ns, [str(binary), str(cfg_path)])
            _wait_ready(router, "the router")
            # the receivers first (they need no start time: they read until told to stop),
            # then the senders, whose start times count from t0
            servers, clients = {}, {}
            for h in sorted({f.dst for f in plan.flows}):
                spec = work / f"server-{h}.json"
                spec.write_text(json.dumps({"port": PORT, "end": time.monotonic() + plan.duration_s + 60.0,
                                            "out": str(work / f"got-{h}.json")}))
                servers[h] = tb.spawn(tb.host_ns(h), [sys.executable, str(GEN), "server", str(spec)])
            for h, pr in servers.items():
                _wait_ready(pr, f"the generator on {h}")
            t0 = time.monotonic() + SETUP_MARGIN_S + 0.1 * len(plan.hosts)
            end = t0 + plan.duration_s
            for h in sorted({f.src for f in plan.flows}):
                flows = [{"flow_id": f.flow_id, "dst_ip": host_ip(plan.hosts.index(f.dst)), "port": PORT,
                          "cc": f.tcp.cc, "start": t0 + f.start_s, "size": f.size_bytes}
                         for f in plan.flows if f.src == h]
                spec = work / f"client-{h}.json"
                spec.write_text(json.dumps({"flows": flows, "end": end, "t0": t0, "sample_s": plan.sample_flows_s,
                                            "out": str(work / f"sent-{h}.json")}))
                clients[h] = tb.spawn(tb.host_ns(h), [sys.executable, str(GEN), "client", str(spec)])
            for h, pr in clients.items():
                _wait_ready(pr, f"the generator on {h}")
            if time.monotonic() > t0:
                raise TestbedError("the generators took longer to start than the set-up margin")
            time.sleep(max(0.0, t0 - time.monotonic()))
            router.send_signal(signal.SIGUSR1)
            while time.monotonic() < end:
                time.sleep(min(0.2, max(0.0, end - time.monotonic())))
            # the router's window is the run: it stops at the end, then the senders
            # (they stop by themselves at `end`) and the receivers
            router.send_signal(signal.SIGTERM)
            try:
                router.wait(timeout=5.0)
                for pr in clients.values():
                    pr.wait(timeout=15.0)
                for pr in servers.values():
                    pr.send_signal(signal.SIGTERM)
                    pr.wait(timeout=5.0)
            except subprocess.TimeoutExpired as e:
                raise TestbedError(f"{' '.join(map(str, e.cmd[3:5]))} did not stop within {e.timeout:g} s") from None
            # a process that died leaves no results (or half of them): one line, not a traceback
            try:
                stats = json.loads((work / "router.json").read_text())
                sent = {h: json.loads((work / f"sent-{h}.json").read_text()) for h in clients}
                got = {h: json.loads((work / f"got-{h}.json").read_text()) for h in servers}
                return tables(plan, stats, sent, got, t0, scenario_text)
            except (OSError, ValueError, KeyError, TypeError) as e:
                why = router.stderr.read().decode(errors="replace").strip().splitlines() if router.stderr else []
                raise TestbedError(f"the run's results could not be read ({type(e).__name__}: {e})"
                                   + (f"; the router said: {why[-1]}" if why else "")) from None
    finally:
        left = tb.close()
        shutil.rmtree(work, ignore_errors=True)
        if left:
            print(f"superpacket: warning: the testbed left behind: {', '.join(left)}", file=sys.stderr)


def tables(plan: Plan, stats: dict[str, Any], sent: dict[str, Any], got: dict[str, Any], t0: float,
           scenario_text: str = "") -> EmulationResults:
    """The run's tables from the router's counters and the generators' results."""
    by_local = {peer: g for h in got.values() for peer, g in h["peers"].items()}
    flows_rows = []
    series_rows: list[dict[str, Any]] = []
    plans = {f.flow_id: f for f in plan.flows}
    for s in sent.values():
        for r in s["flows"]:
            f = plans[r["flow_id"]]
            g = by_local.get(r.get("local", ""), {})
            info = r.get("info") or {}
            start = r.get("start_s")
            end_s = r.get("end_s")
            received = int(g.get("bytes", 0))
            done = f.size_bytes is not None and received == f.size_bytes and "eof_s" in g
            if f.size_bytes is not None:  # a sized flow ends when the receiver holds every byte
                end_s = g["last_s"] if done else None
            span = (end_s - start) if start is not None and end_s is not None else \
                (t0 + plan.duration_s - start) if start is not None else None
            flows_rows.append({
                "flow_id": f.flow_id, "src": f.src, "dst": f.dst, "cc": f.scenario_cc, "kernel_cc": f.tcp.cc,
                "size_bytes": f.size_bytes,
                "start_s": None if start is None else start - t0,
                "end_s": None if end_s is None else end_s - t0,
                "fct_s": (end_s - start) if done and start is not None and end_s is not None else None,
                "bytes_received": received,
                "goodput_bps": received * 8 / span if span else 0.0,
                "retransmits": info.get("total_retrans"),
                "timeouts": info.get("total_rto"),
                "final_cwnd_pkts": info.get("snd_cwnd"),
                "srtt_s": None if info.get("rtt_us") is None else info["rtt_us"] / 1e6,
                "min_rtt_s": None if info.get("min_rtt_us") is None else info["min_rtt_us"] / 1e6,
                "error": r.get("error"),
            })
        cols = s["series_columns"]
        series_rows += [dict(zip(cols, row, strict=True)) for row in s["series"]]
    flow_schema = {"flow_id": pl.Int64, "src": pl.Utf8, "dst": pl.Utf8, "cc": pl.Utf8, "kernel_cc": pl.Utf8,
                   "size_bytes": pl.Int64, "start_s": pl.Float64, "end_s": pl.Float64, "fct_s": pl.Float64,
                   "bytes_received": pl.Int64,
                   "goodput_bps": pl.Float64, "retransmits": pl.Int64, "timeouts": pl.Int64,
                   "final_cwnd_pkts": pl.Int64, "srtt_s": pl.Float64, "min_rtt_s": pl.Float64, "error": pl.Utf8}
    flows = pl.DataFrame(flows_rows, schema=flow_schema).sort("flow_id")
    fs_schema = {"flow_id": pl.Int64, "t_s": pl.Float64, "cwnd_pkts": pl.Int64, "rtt_s": pl.Float64,
                 "ssthresh_pkts": pl.Int64, "bytes_acked": pl.Int64, "retransmits": pl.Int64}
    flow_series = pl.DataFrame([{**{k: v for k, v in r.items() if k != "rtt_us"}, "rtt_s": r["rtt_us"] / 1e6}
                                for r in series_rows], schema=fs_schema).sort("flow_id", "t_s")
    link_rows = []
    for i, (lk, st) in enumerate(zip(plan.links, stats["links"], strict=True)):
        link_rows.append({"link_id": i, "name": lk.name, "from": lk.src, "to": lk.dst, "queue": lk.queue["kind"],
                          "limit": lk.limit_pkts, "rate_bps": lk.rate_bps, "delay_s": lk.delay_s,
                          "arrivals": st["arrivals"], "departures": st["departures"], "drops": st["drops"],
                          "drops_overflow": st["drops_overflow"], "drops_red_early": st["drops_red_early"],
                          "drops_red_forced": st["drops_red_forced"], "red_avg": st["red_avg"],
                          "bytes": st["departure_bytes"], "max_pkts": st["max_pkts"], "mean_pkts": st["mean_pkts"],
                          "mean_bytes": st["mean_bytes"], "utilization": st["utilization"],
                          "queued_pkts": st["queued_pkts"]})
    links = pl.DataFrame(link_rows, schema_overrides={"red_avg": pl.Float64})
    queue_series = pl.DataFrame({"t_s": stats["series_t_s"], "link": stats["series_link"],
                                 "pkts": stats["series_pkts"]},
                                schema={"t_s": pl.Float64, "link": pl.Utf8, "pkts": pl.Int64})
    late = stats["lateness_ns"]
    ports = stats["ports"]
    summary = {
        "name": plan.name,
        "duration_s": plan.duration_s,
        "window_s": stats["window_s"],
        "flows": flows.height,
        "flows_with_error": int(flows["error"].is_not_null().sum()),
        "tcp_goodput_bps": float(flows["bytes_received"].sum()) * 8 / plan.duration_s if flows.height else 0.0,
        "completed_flows": int(flows["fct_s"].is_not_null().sum()),
        "mean_fct_s": flows["fct_s"].mean() if flows["fct_s"].is_not_null().any() else None,
        "send_lateness_mean_s": late["mean_ns"] / 1e9,
        "send_lateness_max_s": late["max_ns"] / 1e9,
        "frames_not_forwarded": sum(p["not_ipv4"] + p["no_route"] + p["oversize"] + p["tx_errors"]
                                    + p["router_full"] for p in ports),
        "oversize_frames": sum(p["oversize"] for p in ports),
        "router_full_frames": sum(p["router_full"] for p in ports),
    }
    return EmulationResults(flows, links, queue_series, flow_series, summary, stats, scenario_text)
