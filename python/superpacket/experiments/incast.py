"""`superpacket reproduce incast`: seeds/000 section 4.2, Fig. 4a-c; parameters from
SCENARIOS.md "Super-packets / incast".

10 senders -> R -> D (sender links 1 Gbps / 25 us, R->D 100 Mbps / 25 us, buffer 50);
each sender opens one connection at t = 0 (+ a uniform start offset of up to
`jitter_us`) and sends one 10-packet flow (14,600 B), initial cwnd 10. Variants:
`droptail`; `superpacket` (one super-packet of len 10, t = 5, EPOCH 80 ms; a denied
super-packet times out and the flow falls back to NewReno); `ideal` (after the timeout the
flow is resent as a new super-packet with cwnd 10, up to 3 sends, then falls back).
"""

from __future__ import annotations

import functools
from typing import Any

from superpacket import api
from superpacket.experiments.common import run_seeds, summarize

PAPER = {
    "droptail": {"mean_fct_s": 0.197, "flows_with_timeout": 9},
    "superpacket": {"mean_fct_s": 0.130, "flows_with_timeout": 4},
    "ideal": {"mean_fct_s": 0.0857},
}

PARAMS = {
    "senders": (10, "paper"),
    "flow_pkts": (10, "paper"),
    "init_cwnd": (10, "paper"),
    "buffer_pkts": (50, "paper"),
    "threshold_t": (5, "paper"),
    "epoch_ms": (80, "paper"),
    "sender_link": ("1Gbps, 25us", "SCENARIOS.md"),
    "receiver_link": ("100Mbps, 25us", "SCENARIOS.md"),
    "ideal_attempts": (3, "SCENARIOS.md"),
    "min_rto_ms": (200, "SCENARIOS.md"),
    "init_rto_s": (1, "SCENARIOS.md"),
}


def scenario(variant: str, jitter_us: float, admit_syn: bool) -> dict[str, Any]:
    if variant == "droptail":
        queue: dict[str, Any] = {"kind": "droptail", "limit": 50}
        tcp: dict[str, Any] = {}
    else:
        queue = {"kind": "superpacket", "limit": 50, "threshold": 5, "epoch": "80ms", "admit_syn": admit_syn}
        tcp = {"superpacket": "flow", "sp_on_denial": "retry" if variant == "ideal" else "fallback",
               "sp_attempts": 3}
    return {
        "name": f"incast-{variant}",
        "duration": "5s",
        "topology": {
            "kind": "star",
            "senders": 10,
            "sender_link": {"rate": "1Gbps", "delay": "25us"},
            "receiver_link": {"rate": "100Mbps", "delay": "25us", "queue": queue},
        },
        "tcp": {"init_cwnd": 10, **tcp},
        "traffic": [{"kind": "flow", "from": "s{i}", "to": "d", "count": 10, "size_pkts": 10,
                     "start_jitter": f"{jitter_us}us"}],
    }


def run_variant(variant: str, seed: int, jitter_us: float, admit_syn: bool) -> dict[str, Any]:
    res = api.run(scenario(variant, jitter_us, admit_syn), seed=seed, progress=False)
    fl = res.flows
    c = {cn: v for ln, cn, v in res.queue_counters.iter_rows() if ln == "R->d"}
    rounds = [c.get(f"sp_round{k}_admitted", 0.0) for k in range(1, 5)]
    return {
        "mean_fct_s": float(fl["fct_s"].mean()),  # type: ignore[arg-type]
        "flows_with_timeout": int((fl["timeouts"] > 0).sum()),
        "fct_s": fl["fct_s"].to_list(),
        "timeouts": fl["timeouts"].to_list(),
        "sp_admitted": c.get("sp_admitted", 0.0),
        "rounds": rounds,
        "conservation": res.summary["conservation"],
    }


def run(seeds: int = 10, jitter_us: float = 20.0, admit_syn: bool = False, client: Any = None) -> dict[str, Any]:
    """`client`: a `distributed.Client` to run the seeds on (same results)."""
    per_seed, detail = run_seeds(
        ("droptail", "superpacket", "ideal"), seeds, ("mean_fct_s", "flows_with_timeout", "sp_admitted"),
        functools.partial(run_variant, jitter_us=jitter_us, admit_syn=admit_syn), client,
    )
    variants = summarize(per_seed)
    dt = variants["droptail"]["mean_fct_s"]
    sp = variants["superpacket"]["mean_fct_s"]
    cut = (dt - sp) / dt * 100.0
    claims = [{
        "claim": "superpacket mean FCT at least 15 % below droptail (paper: 33.8 %)",
        "droptail_mean_fct_s": dt,
        "superpacket_mean_fct_s": sp,
        "improvement_pct": cut,
        "holds": cut >= 15.0,
    }]
    params = {k: {"value": v, "source": s} for k, (v, s) in PARAMS.items()}
    params["jitter_us"] = {"value": jitter_us, "source": "SCENARIOS.md (--jitter-us)"}
    params["admit_syn"] = {"value": admit_syn, "source": "SCENARIOS.md (SYNs admitted only where a scenario says so)"}
    return {
        "experiment": "incast",
        "seeds": seeds,
        "params": params,
        "variants": variants,
        "paper": PAPER,
        "claims": claims,
        "per_flow": {v: [{"fct_s": d["fct_s"], "timeouts": d["timeouts"], "sp_admitted_per_round": d["rounds"]}
                         for d in ds] for v, ds in detail.items()},
    }
