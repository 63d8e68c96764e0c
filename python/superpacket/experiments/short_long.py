"""`superpacket reproduce short-long`: Li (UCB/EECS-2013-83) section 4.3; parameters from our specification
"short-long (section 4.3)".

Hosts A, B, C -> R (100 Mbps, 1 ms each) -> D (110 Mbps, 1 ms); A's NIC queue 1000 packets,
R->D buffer 20 packets. A runs 10 long-lived flows (initial and max cwnd 26, starts uniform
in [0, 0.1) s); B and C each open short flows of 10 packets (initial cwnd 10) as Poisson
arrivals at 20 flows/s from 1 s to 31 s. Variants: `droptail` at R->D; `superpacket`
(t = 10, EPOCH 80 ms, SYNs always admitted; each short flow is one super-packet of len 10,
a denied super-packet times out and the flow falls back to NewReno). The run lasts one
second past the last short-flow arrival so that they can finish; means are over the short
flows that completed, and the number that did not is reported.
"""

from __future__ import annotations

import functools
import sys
from typing import Any

from superpacket import api
from superpacket.experiments.common import (
    PAPER_HOST,
    Sc,
    ms,
    params_from,
    run_seeds,
    same,
    seconds,
    seed_list,
    summarize,
)
from superpacket.experiments.record import LI_2013, Claim, Experiment, Number

PAPER = {
    "droptail": {"mean_fct_s": 0.0264},
    "superpacket": {"mean_fct_s": 0.0186},
}

VARIANTS = ("droptail", "superpacket")
SHORT_FCT = Claim("short-fct-below-droptail", "superpacket mean short-flow FCT below droptail (paper: 29.8 % below)",
                  "the mean short-flow FCT over seeds, superpacket's against droptail's; the per-seed cut beside",
                  number=Number(("improvement_pct",), against="droptail's"))

# The scenario's numbers, each written once: the builder uses them and the report reads
# them back from the scenario that ran (PARAMS' paths), so the two cannot differ.
ACCESS_RATE = "100Mbps"  # A/B/C -> R
ACCESS_DELAY = "1ms"
BOTTLENECK_RATE = "110Mbps"  # R -> D
BOTTLENECK_DELAY = "1ms"
NIC_QUEUE_PKTS = 1000  # A's NIC queue (and R -> D's reverse queue)
BUFFER_PKTS = 20  # R -> D
THRESHOLD_T = 10
EPOCH = "80ms"
LONG_FLOWS = 10
LONG_CWND = 26  # initial and max cwnd
LONG_START_JITTER = "100ms"
SHORT_FLOW_PKTS = 10
SHORT_INIT_CWND = 10
SHORT_RATE_PER_S = 20.0  # per short host
SHORT_START_S = 1.0
DRAIN_S = 1.0  # the run lasts this long past the last short-flow arrival

# paths in the scenario dict (sweep --param syntax); `droptail:` / `superpacket:` pick the
# variant, none the first; a parameter read from several fields reports their one value
_ACCESS = [f"topology.links[{i}]" for i in range(3)]
_BN = "topology.links[3]"
PARAMS: dict[str, tuple[Any, str]] = {
    "access_links": (Sc(*(f"{a}.rate" for a in _ACCESS), *(f"{a}.delay" for a in _ACCESS),
                        fmt=lambda *x: f"A/B/C -> R {same(*x[:3])}, {same(*x[3:])}"), "our specification"),
    "bottleneck": (Sc(f"{_BN}.rate", f"{_BN}.delay", fmt=lambda r, d: f"R -> D {r}, {d}"), "our specification"),
    "nic_queue_a_pkts": (Sc("topology.links[0].queue.limit"), "our specification"),
    "buffer_pkts": (Sc(*(f"{v}:{_BN}.queue.limit" for v in ("droptail", "superpacket"))), "our specification"),
    "threshold_t": (Sc(f"superpacket:{_BN}.queue.threshold"), "our specification"),
    "epoch_ms": (Sc(f"superpacket:{_BN}.queue.epoch", fmt=ms), "our specification"),
    "admit_syn": (Sc(f"superpacket:{_BN}.queue.admit_syn"), "our specification (SYNs always admitted)"),
    "long_flows": (Sc("traffic[0].count"), "paper"),
    "long_cwnd": (Sc("traffic[0].tcp.init_cwnd", "traffic[0].tcp.max_cwnd"), "paper (initial and max cwnd)"),
    "long_start_jitter_s": (Sc("traffic[0].start_jitter", fmt=seconds),
                            "our specification"),
    "short_flow_pkts": (Sc("traffic[1].size_pkts", "traffic[2].size_pkts"), "paper"),
    "short_init_cwnd": (Sc(*(f"{v}:traffic[{i}].tcp.init_cwnd" for v in VARIANTS for i in (1, 2))), "paper"),
    "short_rate_per_host_per_s": (Sc("traffic[1].rate_per_s", "traffic[2].rate_per_s", fmt=lambda *r: int(same(*r))),
                                  "paper"),
    "short_hosts": (Sc("traffic[1].from", "traffic[2].from", fmt=lambda a, b: f"{a}, {b}"), "paper"),
    "drain_s": (Sc("duration", "traffic[1].stop", "traffic[2].stop", fmt=lambda d, *s: seconds(d) - seconds(same(*s))),
                "ours: the run lasts this long past the last short-flow arrival"),
    "duration_s": (Sc(*(f"{v}:duration" for v in VARIANTS), fmt=lambda *d: seconds(same(*d))),
                   "our specification (short flows to 31 s) + drain_s"),
}



def scenario(variant: str, duration_s: float = 32.0) -> dict[str, Any]:
    """`duration_s` is the whole run; short flows arrive from 1 s to duration_s - 1 s."""
    bn_queue = {"kind": "droptail", "limit": BUFFER_PKTS}
    if variant == "droptail":
        queue: dict[str, Any] = bn_queue
        short_tcp: dict[str, Any] = {"init_cwnd": SHORT_INIT_CWND}
    else:
        queue = {**bn_queue, "kind": "superpacket", "threshold": THRESHOLD_T, "epoch": EPOCH, "admit_syn": True}
        short_tcp = {"init_cwnd": SHORT_INIT_CWND, "superpacket": "flow", "sp_on_denial": "fallback"}
    access = {"rate": ACCESS_RATE, "delay": ACCESS_DELAY}
    stop = duration_s - DRAIN_S
    shorts = [{"kind": "poisson", "from": h, "to": "D", "rate_per_s": SHORT_RATE_PER_S, "size_pkts": SHORT_FLOW_PKTS,
               "start": f"{SHORT_START_S:g}s", "stop": f"{stop}s", "tcp": short_tcp} for h in ("B", "C")]
    return {
        "name": f"short-long-{variant}",
        "duration": f"{duration_s}s",
        "topology": {
            "kind": "graph",
            "nodes": ["A", "B", "C", "R", "D"],
            "links": [
                {"a": "A", "b": "R", **access, "queue": {"kind": "droptail", "limit": NIC_QUEUE_PKTS}},
                {"a": "B", "b": "R", **access},
                {"a": "C", "b": "R", **access},
                {"a": "R", "b": "D", "rate": BOTTLENECK_RATE, "delay": BOTTLENECK_DELAY, "queue": queue,
                 "reverse_queue": {"kind": "droptail", "limit": NIC_QUEUE_PKTS}},
            ],
        },
        "tcp": {"host": PAPER_HOST},
        "traffic": [
            {"kind": "bulk", "from": "A", "to": "D", "count": LONG_FLOWS, "start_jitter": LONG_START_JITTER,
             "tcp": {"init_cwnd": LONG_CWND, "max_cwnd": LONG_CWND}},
            *shorts,
        ],
    }


def scenarios(duration_s: float = 32.0) -> dict[str, dict[str, Any]]:
    """Every variant's scenario: built once per run, run and read for the report."""
    return {v: scenario(v, duration_s) for v in VARIANTS}


def params(scs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The summary's `params`, read from the scenarios that ran."""
    return params_from(PARAMS, scs)


def run_variant(variant: str, seed: int, duration_s: float = 32.0,
                scs: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """One run of `variant`: its scenario in `scs` (the dicts the report reads) or built."""
    res = api.run(scs[variant] if scs else scenario(variant, duration_s), seed=seed, progress=False)
    fl = res.flows
    long = fl.filter(fl["bulk"])
    short = fl.filter(~fl["bulk"])
    done = short.filter(short["fct_s"].is_not_null() & short["fct_s"].is_not_nan())
    c = {cn: v for ln, cn, v in res.queue_counters.iter_rows() if ln == "R->D"}
    return {
        "mean_fct_s": float(done["fct_s"].mean()) if done.height else float("nan"),  # type: ignore[arg-type]
        "short_flows": short.height,
        "short_not_completed": short.height - done.height,
        "short_with_timeout": int((short["timeouts"] > 0).sum()),
        "long_goodput_bps": float(long["bytes_received"].sum()) * 8.0 / duration_s,
        "sp_admitted": c.get("sp_admitted", 0.0),
        "sp_denied": c.get("sp_denied", 0.0),
        "drops_r_d": float(res.links.filter(res.links["name"] == "R->D")["drops"].sum()),
        "conservation": res.summary["conservation"],
    }


def run(seeds: Any = 10, duration_s: float = 32.0, client: Any = None, **_: Any) -> dict[str, Any]:
    """`jitter_us` and `admit_syn` of the command line do not apply (SYNs are always
    admitted here, as the scenario says). `client`: a `distributed.Client` to run the
    seeds on (same results)."""
    seeds = seed_list(seeds)  # N: 1..N, or the list given
    keys = ("mean_fct_s", "long_goodput_bps", "short_not_completed", "short_with_timeout", "sp_admitted")
    scs = scenarios(duration_s)
    per_seed, detail = run_seeds(VARIANTS, seeds, keys,
                                 functools.partial(run_variant, duration_s=duration_s, scs=scs), client)
    variants = summarize(per_seed)
    dt_s = per_seed["droptail"]["mean_fct_s"]
    sp_s = per_seed["superpacket"]["mean_fct_s"]
    # per-seed improvement (same seed, paired) and its CI
    cuts = [(d - s) / d * 100.0 for d, s in zip(dt_s, sp_s, strict=True)]
    ci = summarize({"x": {"cut": cuts}})["x"]
    dt = variants["droptail"]["mean_fct_s"]
    sp = variants["superpacket"]["mean_fct_s"]
    claims = [SHORT_FCT.result(
        droptail_mean_fct_s=dt,
        superpacket_mean_fct_s=sp,
        improvement_pct=(dt - sp) / dt * 100.0,
        improvement_pct_per_seed_mean=ci["cut"],
        improvement_pct_ci95=ci["cut_ci95"],
        holds=sp < dt,
    )]
    return {
        "experiment": "short-long",
        "seeds": len(seeds),
        "seed_list": seeds,
        "params": params(scs),
        "variants": variants,
        "paper": PAPER,
        "claims": claims,
        "per_run": {v: [{k: d[k] for k in ("short_flows", "short_not_completed", "drops_r_d", "sp_denied",
                                           "conservation")} for d in ds] for v, ds in detail.items()},
    }


EXPERIMENT = Experiment(
    name="short-long", paper=LI_2013,
    part="section 4.3",
    module=sys.modules[__name__],
    run=run,
    claims=(SHORT_FCT,),
    variants=VARIANTS,
)
