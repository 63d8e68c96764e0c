"""`superpacket reproduce loss-sensitivity`: Guo and Matta (ICNP 2001), slides "Sensitivity of TCP flows
to loss rate" (average transmission time and coefficient of variation); parameters from
our specification "loss-sensitivity".

One TCP flow of N in {4, 16, 64, 256, 1024, 4096} packets over a path with RTT 100 ms
whose packets are dropped independently with probability p in {0.001, ..., 0.1}, both
directions, no bottleneck queueing (a 1 Gbps link, 50 ms each way, a buffer that never
fills). ITO 3 s; the slides' RTO = 4 x RTT is a minimum RTO of 400 ms (the RFC 6298 RTO
of a constant 100 ms path tends to it). The runs of a cell are independent flows, each on
its own link (one simulation per cell and seed); p = 0 cells give the no-loss baseline.

Per cell: `mean_time_s` (mean FCT: SYN sent until the receiver holds every byte) and
`cov` (std / mean of the FCTs) over the cell's runs, then mean and CI over seeds.
"""

from __future__ import annotations

import functools
import math
import sys
from typing import Any

from superpacket import api
from superpacket.experiments.common import (
    Sc,
    ms,
    params_from,
    run_seeds,
    same,
    seconds,
    seed_list,
    spaced,
    summarize,
)
from superpacket.experiments.record import GUO_MATTA_2001, Claim, Experiment, Quick
from superpacket.experiments.riops_common import TCP, cov, tcp_params

SIZES = (4, 16, 64, 256, 1024, 4096)
PROBS = (0.001, 0.005, 0.01, 0.02, 0.05, 0.1)
SHORT = (4, 16)
LONG = (1024, 4096)
RUNS = 200  # flows per cell and seed, our specification
QUICK = Quick("50 flows per cell and seed (200 at full scale)", {"runs": 50})
KNEE = Claim("knee", "short flows' (4, 16 packets) transmission time rises steeply past a loss rate "
             "(a knee: some p* with T(p*) <= 2 T(0) and T(0.1) >= 5 T(p*))",
             "the mean transmission time per size and loss rate (means over seeds), 4 and 16 packets")
CONVEX = Claim("convexity", "(ours, stricter, fixed before the first run) the same, as convexity: slope dT/dp over "
               "[0.05, 0.1] >= 5 x slope over [0.001, 0.01] for 4 and 16 packets",
               "the slopes of the mean transmission time over [0.001, 0.01] and [0.05, 0.1], 4 and 16 packets")
COV = Claim("cov", "CoV of short flows (4, 16 packets) exceeds that of long flows (1024, 4096) at high p (0.05, 0.1)",
            "the least CoV of the short flows against the largest of the long flows, at p = 0.05 and 0.1")
SENSITIVE = Claim("short-more-sensitive", "(paper, not a must-hold) short flows are more sensitive to loss: T(0.1)/T(0) "
                  "of 4-packet flows above that of 4096-packet flows",
                  "T(0.1)/T(0) per size (means over seeds), 4 packets against 4096", must_hold=False)

LINK_RATE = "1Gbps"
LINK_DELAY = "50ms"  # each way: RTT 100 ms (the paper)
LINK_QUEUE_PKTS = 100000  # no queueing loss
MIN_RTO = "400ms"  # the paper: RTO = 4 x RTT
MAX_RTO = "60s"  # our common defaults (the simulator's default, written out)
START_JITTER = "1s"  # flows start uniformly in [0, 1) s


def param_table(names: list[str]) -> dict[str, tuple[Any, str]]:
    """The summary's parameters; an `Sc` is read from the cells' scenarios `names` (the
    ones that ran; `<cell>:<path>` in sweep --param syntax). The cells' own entries come
    after riops_common's TCP ones: min_rto_s is the paper's 4 x RTT here."""
    link = [f"{n}:topology.links[0]" for n in names]
    return {
        **tcp_params(names),
        "sizes_pkts": (Sc(*(f"{n}:traffic[0].size_pkts" for n in names), fmt=lambda *x: sorted(set(x))), "paper"),
        "loss_probs": (Sc(*(f"{x}.loss" for x in link), fmt=lambda *p: sorted({q for q in p if q > 0})),
                       "our specification (paper: 0.001 .. 0.1)"),
        "rtt_s": (Sc(*(f"{x}.delay" for x in link), fmt=lambda *d: 2 * seconds(same(*d))), "paper"),
        "loss_direction": ("both directions, independent per packet", "our specification"),
        "link": (Sc(*(f"{x}.rate" for x in link), *(f"{x}.delay" for x in link), *(f"{x}.queue.kind" for x in link),
                    *(f"{x}.queue.limit" for x in link), fmt=lambda *f: _link_text(len(link), f)),
                 "ours (no bottleneck)"),
        "min_rto_s": (Sc(*(f"{n}:tcp.min_rto" for n in names), fmt=lambda *t: seconds(same(*t))),
                      "paper (RTO = 4 x RTT)"),
        "max_rto_s": (Sc(*(f"{n}:tcp.max_rto" for n in names), fmt=lambda *t: seconds(same(*t))),
                      "our common defaults"),
        "runs_per_cell": (Sc(*(f"{n}:traffic[0].count" for n in names)), "our specification (per seed here)"),
        "baseline": ("p = 0 cells (no loss)", "paper (the slides' 'No Loss' curve)"),
        "start_jitter_s": (Sc(*(f"{n}:traffic[0].start_jitter" for n in names), fmt=lambda *j: seconds(same(*j))),
                           "ours (flows start uniformly in [0, 1) s; FCTs count from each start)"),
    }


def _link_text(k: int, f: tuple[Any, ...]) -> str:
    rate, delay, kind, limit = (same(*f[i * k:(i + 1) * k]) for i in range(4))
    name = {"droptail": "DropTail"}.get(kind, kind)
    return (f"{spaced(rate)}, {ms(delay)} ms each way, {name} {limit} packets "
            "(no queueing loss)")


def variant_name(n: int, p: float) -> str:
    return f"n{n}-p{p:g}"


def scenario(n: int, p: float, runs: int) -> dict[str, Any]:
    nodes = [f"a{i}" for i in range(runs)] + [f"b{i}" for i in range(runs)]
    links = [{"a": f"a{i}", "b": f"b{i}", "rate": LINK_RATE, "delay": LINK_DELAY, "loss": p,
              "queue": {"kind": "droptail", "limit": LINK_QUEUE_PKTS}} for i in range(runs)]
    return {
        "name": f"loss-sensitivity-{variant_name(n, p)}",
        # long enough for every flow to finish; the run ends when its events do
        "duration": "100000s",
        "topology": {"kind": "graph", "nodes": nodes, "links": links},
        "tcp": {**TCP, "min_rto": MIN_RTO, "max_rto": MAX_RTO},
        # starts spread over 1 s (each FCT counts from its own flow's start)
        "traffic": [{"kind": "flow", "from": "a{i}", "to": "b{i}", "count": runs, "size_pkts": n,
                     "start_jitter": START_JITTER}],
    }


def cell_scenario(variant: str, runs: int = 200) -> dict[str, Any]:
    n_s, p_s = variant.split("-")
    return scenario(int(n_s[1:]), float(p_s[1:]), runs)


def run_cell(variant: str, seed: int, runs: int = 200, scs: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """One cell's run: its scenario in `scs` (the dicts the report reads) or built."""
    res = api.run(scs[variant] if scs else cell_scenario(variant, runs), seed=seed, progress=False)
    fct = [x for x in res.flows["fct_s"].to_list() if x is not None and not math.isnan(x)]
    return {
        "mean_time_s": sum(fct) / len(fct) if fct else math.nan,
        "cov": cov(fct),
        "not_completed": float(runs - len(fct)),
        "mean_timeouts": float(res.flows["timeouts"].mean()),  # type: ignore[arg-type]
        "conservation": res.summary["conservation"],
    }


def _slope(t: dict[float, float], a: float, b: float) -> float:
    return (t[b] - t[a]) / (b - a)


def run(seeds: Any = 10, runs: int = RUNS, quick: bool = False, client: Any = None, **_: Any) -> dict[str, Any]:
    """`runs`: flows per cell and seed. `quick`: at most QUICK's runs per cell (50)."""
    seeds = seed_list(seeds)  # N: 1..N, or the list given
    if quick:
        runs = min(runs, QUICK.values["runs"])
    names = [variant_name(n, p) for n in SIZES for p in (0.0, *PROBS)]
    keys = ("mean_time_s", "cov", "not_completed", "mean_timeouts")
    scs = {v: cell_scenario(v, runs) for v in names}
    per_seed, detail = run_seeds(names, seeds, keys, functools.partial(run_cell, runs=runs, scs=scs), client)
    variants = summarize(per_seed)
    t = {n: {p: variants[variant_name(n, p)]["mean_time_s"] for p in (0.0, *PROBS)} for n in SIZES}
    c = {n: {p: variants[variant_name(n, p)]["cov"] for p in PROBS} for n in SIZES}
    # "rises steeply past a loss rate" (a knee): some p* of the grid with T(p*) <= 2 T(0)
    # (nearly flat up to p*) and T(0.1) >= 5 T(p*) (steep after it)
    knee = {}
    for n in SHORT:
        flat = [p for p in PROBS if p < 0.1 and t[n][p] <= 2 * t[n][0.0]]
        p_star = max(flat) if flat else None
        knee[f"n{n}"] = {"p_star": p_star, "t_p0_s": t[n][0.0], "t_pstar_s": t[n][p_star] if p_star else None,
                         "t_p0.1_s": t[n][0.1],
                         "holds": p_star is not None and t[n][0.1] >= 5 * t[n][p_star]}
    knee_ok = all(v["holds"] for v in knee.values())
    # a stricter reading, fixed before our first run: convex in p, the slope dT/dp over
    # [0.05, 0.1] at least 5 x the slope over [0.001, 0.01]
    steep = {f"n{n}": {"slope_low_s": _slope(t[n], 0.001, 0.01), "slope_high_s": _slope(t[n], 0.05, 0.1)}
             for n in SHORT}
    steep_ok = all(v["slope_high_s"] >= 5 * v["slope_low_s"] for v in steep.values())
    high = (0.05, 0.1)
    cov_cmp = {f"p{p:g}": {"cov_short_min": min(c[n][p] for n in SHORT), "cov_long_max": max(c[n][p] for n in LONG)}
               for p in high}
    cov_ok = all(v["cov_short_min"] > v["cov_long_max"] for v in cov_cmp.values())
    rel = {f"n{n}": t[n][0.1] / t[n][0.0] for n in SIZES}
    claims = [KNEE.result(cells=knee, holds=knee_ok), CONVEX.result(cells=steep, holds=steep_ok),
              COV.result(cells=cov_cmp, holds=cov_ok),
              SENSITIVE.result(**{"ratio_t0.1_over_t0": rel}, holds=rel["n4"] > rel["n4096"])]
    params = params_from(param_table(names), scs)
    params["runs_per_cell"]["source"] = "our specification" if runs == RUNS else "ours (--quick)"
    return {
        "experiment": "loss-sensitivity",
        "seeds": len(seeds),
        "seed_list": seeds,
        "params": params,
        "variants": variants,
        "paper": {},
        "paper_figures": "slides 'Average Transmission Time' and 'Coefficient of Variation' give curves, no table",
        "claims": claims,
        "table_mean_time_s": {f"n{n}": {f"p{p:g}": t[n][p] for p in (0.0, *PROBS)} for n in SIZES},
        "table_cov": {f"n{n}": {f"p{p:g}": c[n][p] for p in PROBS} for n in SIZES},
        "per_run": {v: [d["conservation"] for d in ds] for v, ds in detail.items()},
    }


EXPERIMENT = Experiment(
    name="loss-sensitivity", paper=GUO_MATTA_2001,
    part='the plot "Sensitivity of TCP flows to loss rate"',
    module=sys.modules[__name__],
    run=run,
    options=("quick",),  # the command line's --quick
    quick=QUICK,
    claims=(KNEE, CONVEX, COV, SENSITIVE),
    figures="superpacket.experiments.figures.loss_sensitivity:loss_sensitivity",
)
