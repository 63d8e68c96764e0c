"""`superpacket reproduce threshold`: Li (UCB/EECS-2013-83) sections 2.4 and 6.1; parameters from
our specification "threshold and the dynamic t".

The incast and short-long scenarios with the super-packet router, swept over the static
threshold t in {1, 2, 5, 10, 20, 30, 40} and over the two dynamic rules of section 6.1
(queue/superpacket.rs documents our reading of each): `ewma` (t = buffSize - an EWMA of
the packets announced by super-packets per EPOCH) and `outstanding` (t = buffSize -
ceil(df x sum of outstanding packets), df = 1 - r_out / r_in measured at run time).
A t above the scenario's buffer (short-long holds 20) is not a valid router setting and
is reported as skipped. Metrics: mean FCT of the short flows (every incast flow is short)
and, for short-long, the goodput of the long flows.
"""

from __future__ import annotations

import copy
import functools
import sys
from typing import Any

from superpacket import api
from superpacket.experiments import incast, short_long
from superpacket.experiments.common import (
    Sc,
    params_from,
    run_seeds,
    same,
    seconds,
    seed_list,
    spaced,
    summarize,
    whole,
)
from superpacket.experiments.record import LI_2013, Claim, Experiment

T_VALUES = (1, 2, 5, 10, 20, 30, 40)
RULES = ("ewma", "outstanding")
RULE_WEIGHT = 0.25  # EWMA weight of both rules
T_MIN = 1  # the lowest t a rule may set
# the incast base: the regime and run length these figures were measured in (docs/experiments/threshold.md)
INCAST_REGIME = "datacenter"  # 1 Gbps senders
INCAST_JITTER_US = 20.0
INCAST_DURATION_S = 5.0
BASES = ("incast", "short-long")
CONSERVES = Claim("conservation",
                  "every run conserves packets (our specification gives no must-hold for the sweep; the paper "
                  "only says the best t depends on the workload)",
                  "each run's packet-conservation check; the best static t beside")



def param_table(names: list[str]) -> dict[str, tuple[Any, str]]:
    """The summary's parameters; an `Sc` is read from the scenarios of `names` (the
    points that ran; `<base>/<point>:<path>` in sweep --param syntax)."""
    static = [n for n in names if "/t=" in n]
    rules = [n for n in names if n.split("/")[1] in RULES]
    inc = "incast/t=1"

    def t_values(*ts: int) -> list[int]:
        return sorted(set(ts))

    def q(n: str) -> str:
        return f"{n}:{_queue_path(n.split('/')[0])}"

    return {
        # the static points that ran in either base (t above a base's buffer is skipped there)
        "t_values": (Sc(*(f"{q(n)}.threshold" for n in static), fmt=t_values), "our specification"),
        "rules": (Sc(*(f"{q(n)}.rule" for n in rules),
                     fmt=lambda *r: [x for x in RULES if x in r]), "paper section 6.1 (our reading, queue/superpacket.rs)"),
        "rule_weight": (Sc(*(f"{q(n)}.rule_weight" for n in rules)), "ours (EWMA weight of both rules)"),
        "t_min": (Sc(*(f"{q(n)}.t_min" for n in rules)), "ours (lowest t a rule may set)"),
        "incast": (Sc(f"{inc}:topology.sender_link.rate", f"{inc}:topology.sender_link.delay",
                      f"{inc}:traffic[0].start_jitter", f"{inc}:duration",
                      fmt=lambda r, d, j, t: ("the incast of our specification in its datacenter regime (sender links "
                                              f"{spaced(r)} / {spaced(d)}), variant superpacket, jitter "
                                              f"{whole(float(j.removesuffix('us')))} us, {whole(seconds(t))} s runs")),
                   "our specification"),
        "short_long": ("our specification short-long, variant superpacket", "our specification"),
    }


def _sp_queue(sc: dict[str, Any]) -> dict[str, Any]:
    """The super-packet queue dict inside a scenario built by incast or short_long."""
    topo = sc["topology"]
    if topo["kind"] == "star":
        q: dict[str, Any] = topo["receiver_link"]["queue"]
        return q
    for link in topo["links"]:
        if link.get("queue", {}).get("kind") == "superpacket":
            q = link["queue"]
            return q
    raise ValueError("no super-packet queue in the scenario")


def _queue_path(base: str) -> str:
    """Where the base scenario's super-packet queue sits (sweep --param syntax)."""
    return "topology.receiver_link.queue" if base == "incast" else "topology.links[3].queue"


def base_scenario(base: str, duration_s: float = 32.0) -> dict[str, Any]:
    """The base scenario, variant superpacket: incast in the regime and run length these
    figures were measured in (docs/experiments/threshold.md), short-long as `reproduce short-long` runs it."""
    if base == "incast":
        return copy.deepcopy(incast.scenario("superpacket", INCAST_JITTER_US, False, INCAST_REGIME,
                                             duration_s=INCAST_DURATION_S))
    return copy.deepcopy(short_long.scenario("superpacket", duration_s))


def scenario(base: str, point: str, duration_s: float = 32.0) -> dict[str, Any]:
    """`base` is "incast" or "short-long"; `point` is "t=<n>", "ewma" or "outstanding"."""
    sc = base_scenario(base, duration_s)
    q = _sp_queue(sc)
    if point.startswith("t="):
        q["threshold"] = int(point[2:])
        q["rule"] = "static"
    else:
        q["rule"] = point
        q["rule_weight"] = RULE_WEIGHT
        q["t_min"] = T_MIN
    sc["name"] = f"threshold-{base}-{point}"
    return sc


def run_point(variant: str, seed: int, duration_s: float = 32.0,
              scs: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """One run of `<base>/<point>`: its scenario in `scs` (the dicts the report reads) or built."""
    base, point = variant.split("/")
    res = api.run(scs[variant] if scs else scenario(base, point, duration_s), seed=seed, progress=False)
    fl = res.flows
    short = fl.filter(~fl["bulk"])
    done = short.filter(short["fct_s"].is_not_null())
    long = fl.filter(fl["bulk"])
    dur = float(res.summary["sim_time_s"])
    return {
        "mean_fct_s": float(done["fct_s"].mean()) if done.height else float("nan"),  # type: ignore[arg-type]
        "long_goodput_bps": float(long["bytes_received"].sum()) * 8.0 / dur,
        "flows_with_timeout": float((short["timeouts"] > 0).sum()),
        "short_not_completed": float(short.height - done.height),
        "conservation": res.summary["conservation"],
    }


def variant_names(duration_s: float = 32.0) -> tuple[list[str], list[dict[str, Any]]]:
    """The points to run and the ones skipped: a t above the base scenario's buffer (read
    from it) is no valid router setting."""
    names: list[str] = []
    skipped: list[dict[str, Any]] = []
    for base in BASES:
        buffer = _sp_queue(base_scenario(base, duration_s))["limit"]
        for t in T_VALUES:
            if t > buffer:
                skipped.append({"variant": f"{base}/t={t}", "reason": f"t > buffSize ({buffer})"})
            else:
                names.append(f"{base}/t={t}")
        names += [f"{base}/{r}" for r in RULES]
    return names, skipped


def run(seeds: Any = 10, duration_s: float = 32.0, client: Any = None, **_: Any) -> dict[str, Any]:
    seeds = seed_list(seeds)  # N: 1..N, or the list given
    names, skipped = variant_names(duration_s)
    scs: dict[str, dict[str, Any]] = {}
    for n in names:  # "<base>/<point>"
        base, point = n.split("/")
        scs[n] = scenario(base, point, duration_s)
    keys = ("mean_fct_s", "long_goodput_bps", "flows_with_timeout", "short_not_completed")
    per_seed, detail = run_seeds(names, seeds, keys, functools.partial(run_point, duration_s=duration_s, scs=scs),
                                 client)
    for v in names:
        if v.startswith("incast/"):
            del per_seed[v]["long_goodput_bps"]  # no long flows in the incast
    variants = summarize(per_seed)
    cons = {v: [d["conservation"] for d in ds] for v, ds in detail.items()}
    best = {}
    for base in ("incast", "short-long"):
        static = {v: variants[v]["mean_fct_s"] for v in names if v.startswith(f"{base}/t=")}
        best[base] = min(static, key=lambda v: static[v])
    params = params_from(param_table(names), scs)
    params["duration_s"] = {"value": seconds(same(*(scs[n]["duration"] for n in names if n.startswith("short-long/")))),
                            "source": "short-long run length (our specification + drain)"}
    return {
        "experiment": "threshold",
        "seeds": len(seeds),
        "seed_list": seeds,
        "params": params,
        "variants": variants,
        "paper": {},
        "claims": [CONSERVES.result(
            best_static_t=best,
            holds=all(c == "ok" for cs in cons.values() for c in cs),
        )],
        "skipped": skipped,
    }


EXPERIMENT = Experiment(
    name="threshold", paper=LI_2013,
    part="sections 2.4 and 6.1",
    module=sys.modules[__name__],
    run=run,
    claims=(CONSERVES,),
)
