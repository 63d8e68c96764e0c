"""`superpacket reproduce riops-goodput`: Guo and Matta (ICNP 2001), slides "Preferential treatment to
short flows", "Link Utilization" and the table "Network Goodput"; parameters from
our specification "riops-goodput".

Dumbbell s{i} -> R1 -> R2 -> d{i}, 20 pairs, access links 100 Mbps / 1 ms, R1 -> R2
1.25 Mbps (second run 1.5 Mbps) / 20 ms (RTT 44 ms). s0..s9 are short sources (flows of
100 packets back to back), s10..s19 long sources (10,000-packet flows back to back); each
source starts in [0, 1) s; the run lasts 500 s. The queue at R1 -> R2 is DropTail
(1.5 BDP), RED or RIO-PS (2.5 BDP, the slides' parameters, ECN off); RIO-PS packets are
tagged by one edge classifier on the senders' links (SLR 3, T_c 10 s, T_u 1 s).

Goodput in packets: in-order payload bytes the receivers hold at the end / 460 B, summed
per class (the paper's "packets delivered"). `fairness`: Jain's index of the 20 sources'
goodputs. Link utilisation over time per class (the slides' plot): bytes delivered on
the receivers' links R2 -> d{i} per 5 s bin over the bottleneck capacity, the first seed (1 by default).
"""

from __future__ import annotations

import functools
import sys
from typing import Any

from superpacket import api
from superpacket.experiments.common import Sc, params_from, run_seeds, same, seconds, seed_list, summarize
from superpacket.experiments.record import GUO_MATTA_2001, Claim, Experiment, Quick
from superpacket.experiments.riops_common import (
    CLASSIFIER,
    MSS,
    TCP,
    bdp_pkts,
    counters,
    jain,
    queue,
    queue_params,
    tcp_params,
)

PAPER: dict[str, dict[str, float]] = {
    "droptail-1.25": {"goodput_all_pkts": 153479, "goodput_short_pkts": 40973, "goodput_long_pkts": 112506},
    "red-1.25": {"goodput_all_pkts": 154269, "goodput_short_pkts": 49897, "goodput_long_pkts": 104372},
    "riops-1.25": {"goodput_all_pkts": 154486, "goodput_short_pkts": 49945, "goodput_long_pkts": 104541},
    "droptail-1.5": {"goodput_all_pkts": 185650, "goodput_short_pkts": 43854, "goodput_long_pkts": 141796},
    "red-1.5": {"goodput_all_pkts": 184315, "goodput_short_pkts": 49990, "goodput_long_pkts": 134325},
    "riops-1.5": {"goodput_all_pkts": 183154, "goodput_short_pkts": 49990, "goodput_long_pkts": 133164},
}
for _v in PAPER.values():
    _v["short_share"] = _v["goodput_short_pkts"] / _v["goodput_all_pkts"]

VARIANTS = ("droptail-1.25", "red-1.25", "riops-1.25", "droptail-1.5", "red-1.5", "riops-1.5")
QUICK = Quick("100 s runs (500 s at full scale)", {"duration_s": 100.0})
SHARE = Claim("short-share-1.25", "short flows' share of goodput DropTail < RED <= RIO-PS at 1.25 Mbps",
              "the short flows' share of goodput per queue at 1.25 Mbps (means over seeds)")
TOTAL = Claim("total-goodput-1.25", "(paper, not a must-hold) RIO-PS total goodput >= RED's at 1.25 Mbps "
              "(more loaded network)", "the total goodput in packets, RIO-PS's against RED's (means over seeds)",
              must_hold=False)
SHARE_15 = Claim("short-share-1.5", "(paper, not a must-hold) short share DropTail < RED <= RIO-PS at 1.5 Mbps",
                 "the short flows' share of goodput per queue at 1.5 Mbps (means over seeds)", must_hold=False)
ACCESS_DELAY_S = 0.001
BOTTLENECK_DELAY_S = 0.020
RTT_S = 2 * (2 * ACCESS_DELAY_S + BOTTLENECK_DELAY_S)
PAIRS = 20
N_SHORT = 10
UTIL_BIN_S = 5.0
ACCESS = {"rate": "100Mbps", "delay": f"{ACCESS_DELAY_S * 1e3:g}ms"}  # the delay RTT_S (the BDP) assumes
SHORT_FLOW_PKTS = 100
LONG_FLOW_PKTS = 10000
START_JITTER = "1s"


def param_table(names: list[str]) -> dict[str, tuple[Any, str]]:
    """The summary's parameters; an `Sc` is read from the variants' scenarios `names` (the
    ones that ran; `<variant>:<path>` in sweep --param syntax)."""
    aqm = [n for n in names if not n.startswith("droptail-")]
    bn = "topology.bottleneck"

    def rates(*r: str) -> str:
        return " / ".join(dict.fromkeys(r))  # in the variants' order, each once

    return {
        "pairs": (Sc(*(f"{n}:topology.pairs" for n in names)), "paper (10 long + 10 short TCP NewReno)"),
        "access_links": (Sc(*(f"{n}:topology.access.rate" for n in names),
                            *(f"{n}:topology.access.delay" for n in names),
                            fmt=lambda *f: f"{same(*f[:len(names)])}, {same(*f[len(names):])}"), "our specification"),
        "bottleneck": (Sc(*(f"{n}:{bn}.rate" for n in names), *(f"{n}:{bn}.delay" for n in names),
                          fmt=lambda *f: f"{rates(*f[:len(names)])}, {same(*f[len(names):])}"),
                       "paper (rates), our specification (delay)"),
        "long_flow_pkts": (Sc(*(f"{n}:traffic[1].size_pkts" for n in names)), "paper"),
        "short_flow_pkts": (Sc(*(f"{n}:traffic[0].size_pkts" for n in names)), "paper"),
        "back_to_back": ("the next flow opens when the previous completes", "our specification"),
        "start_jitter_s": (Sc(*(f"{n}:traffic[{i}].start_jitter" for n in names for i in (0, 1)),
                              fmt=lambda *j: seconds(same(*j))), "our specification"),
        "duration_s": (Sc(*(f"{n}:duration" for n in names), fmt=lambda *d: seconds(same(*d))), "our specification"),
        "ecn": (Sc(*(f"{n}:{bn}.queue.ecn" for n in aqm)), "our specification (not stated for this experiment)"),
        "util_bin_s": (UTIL_BIN_S, "ours"),
        **tcp_params(names),
        **queue_params([n for n in names if n.startswith("red-")], [n for n in names if n.startswith("riops-")]),
        **{f"queue_{n}": (Sc(f"{n}:{bn}.queue"), "paper (fractions of B), our specification (link)") for n in names},
    }


def scenario(variant: str, duration_s: float = 500.0, short_max_flows: int | None = None) -> dict[str, Any]:
    kind, rate = variant.split("-")
    rate_bps = float(rate) * 1e6
    bn: dict[str, Any] = {"rate": f"{rate}Mbps", "delay": f"{BOTTLENECK_DELAY_S * 1e3:g}ms",
                          "queue": queue(kind, bdp_pkts(rate_bps, RTT_S), ecn=False)}
    topo: dict[str, Any] = {"kind": "dumbbell", "pairs": PAIRS, "access": dict(ACCESS), "bottleneck": bn}
    if kind == "riops":
        topo["edge_classifier"] = dict(CLASSIFIER)
    short: dict[str, Any] = {"kind": "back_to_back", "from": "s{i}", "to": "d{i}", "count": N_SHORT,
                             "size_pkts": SHORT_FLOW_PKTS, "start_jitter": START_JITTER}
    if short_max_flows is not None:
        short["max_flows"] = short_max_flows
    long = {"kind": "back_to_back", "from": "s{i}", "to": "d{i}", "count": PAIRS - N_SHORT, "first": N_SHORT,
            "size_pkts": LONG_FLOW_PKTS, "start_jitter": START_JITTER}
    return {
        "name": f"riops-goodput-{variant}",
        "duration": f"{duration_s}s",
        "topology": topo,
        "tcp": dict(TCP),
        "traffic": [short, long],
        "output": {"sample_queues": [f"R2->d{i}" for i in range(PAIRS)] + ["R1->R2"], "sample_interval": "1s"},
    }


def _util_series(res: Any, rate_bps: float, duration_s: float) -> dict[str, list[float]]:
    """Per-class utilisation of the bottleneck per bin, from the receivers' links."""
    qs = res.queue_series
    nbins = int(duration_s // UTIL_BIN_S)
    cum = {"short": [0.0] * (nbins + 1), "long": [0.0] * (nbins + 1)}
    for t, link, b in zip(qs["t_s"].to_list(), qs["link"].to_list(), qs["bytes_delivered"].to_list(), strict=True):
        if not link.startswith("R2->d"):
            continue
        k = round(t / UTIL_BIN_S, 9)
        if k != int(k) or int(k) > nbins:
            continue
        cls = "short" if int(link[5:]) < N_SHORT else "long"
        cum[cls][int(k)] += float(b)
    cap = rate_bps / 8.0 * UTIL_BIN_S
    out: dict[str, list[float]] = {"t_s": [(k + 1) * UTIL_BIN_S for k in range(nbins)]}
    for cls, c in cum.items():
        out[f"util_{cls}"] = [(c[k + 1] - c[k]) / cap for k in range(nbins)]
    return out


def run_variant(variant: str, seed: int, duration_s: float = 500.0,
                short_max_flows: int | None = None, series_seed: int = 1,
                scs: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """One run; its scenario is `scs[variant]` (the dicts the report reads) or built; the
    run of `series_seed` (the first seed run) keeps the utilisation series."""
    res = api.run(scs[variant] if scs else scenario(variant, duration_s, short_max_flows), seed=seed, progress=False)
    fl = res.flows
    per_src: dict[str, float] = {f"s{i}": 0.0 for i in range(PAIRS)}
    for src, b in zip(fl["src"].to_list(), fl["bytes_received"].to_list(), strict=True):
        per_src[src] += b / MSS
    short = sum(per_src[f"s{i}"] for i in range(N_SHORT))
    long = sum(per_src[f"s{i}"] for i in range(N_SHORT, PAIRS))
    links = res.links.filter(res.links["name"] == "R1->R2").to_dicts()[0]
    kind, rate = variant.split("-")
    out: dict[str, Any] = {
        "goodput_all_pkts": short + long,
        "goodput_short_pkts": short,
        "goodput_long_pkts": long,
        "short_share": short / (short + long) if short + long else float("nan"),
        "fairness": jain(list(per_src.values())),
        "bottleneck_drops": float(links["drops"]),
        "bottleneck_utilization": float(links["utilization"]),
        "short_flows_completed": float(fl.filter(fl["completed"] & fl["src"].is_in(
            [f"s{i}" for i in range(N_SHORT)])).height),
        "long_flows_completed": float(fl.filter(fl["completed"] & fl["src"].is_in(
            [f"s{i}" for i in range(N_SHORT, PAIRS)])).height),
        "conservation": res.summary["conservation"],
    }
    if kind == "riops":
        c = counters(res, "edge@R1")
        q = counters(res, "R1->R2")
        out["classifier"] = {k: c[k] for k in ("cls_lt", "cls_tagged_in", "cls_tagged_out", "cls_peak_entries",
                                                "cls_table_full_pkts", "cls_adjustments")}
        out["rio"] = {k: q[k] for k in ("rio_in_arrivals", "rio_in_early_drops", "rio_in_forced_drops",
                                        "rio_out_arrivals", "rio_out_early_drops", "rio_out_forced_drops")}
    if seed == series_seed:
        out["series"] = _util_series(res, float(rate) * 1e6, duration_s)
    return out


KEYS = ("goodput_all_pkts", "goodput_short_pkts", "goodput_long_pkts", "short_share", "fairness",
        "bottleneck_drops", "short_flows_completed", "long_flows_completed")


def run(seeds: Any = 10, duration_s: float = 500.0, short_max_flows: int | None = None, quick: bool = False,
        client: Any = None, **_: Any) -> dict[str, Any]:
    """`short_max_flows`: cap the flows per short source (the paper's short totals, 49,990 ~
    10 sources x 50 flows x 100 packets, suggest a cap of 50; our specification has none).
    `quick`: 100 s runs. `jitter_us`/`admit_syn` of the command line do not apply."""
    seeds = seed_list(seeds)  # N: 1..N, or the list given
    if quick:
        duration_s = min(duration_s, QUICK.values["duration_s"])
    scs = {v: scenario(v, duration_s, short_max_flows) for v in VARIANTS}
    run_one = functools.partial(run_variant, duration_s=duration_s, short_max_flows=short_max_flows,
                                series_seed=seeds[0], scs=scs)
    per_seed, detail = run_seeds(VARIANTS, seeds, KEYS, run_one, client)
    variants = summarize(per_seed)
    share = {v: variants[v]["short_share"] for v in VARIANTS}
    claims = [SHARE.result(
        short_share_droptail=share["droptail-1.25"],
        short_share_red=share["red-1.25"],
        short_share_riops=share["riops-1.25"],
        paper_short_share=[PAPER[v]["short_share"] for v in ("droptail-1.25", "red-1.25", "riops-1.25")],
        holds=share["droptail-1.25"] < share["red-1.25"] <= share["riops-1.25"],
    ), TOTAL.result(
        red_pkts=variants["red-1.25"]["goodput_all_pkts"],
        riops_pkts=variants["riops-1.25"]["goodput_all_pkts"],
        holds=variants["riops-1.25"]["goodput_all_pkts"] >= variants["red-1.25"]["goodput_all_pkts"],
    ), SHARE_15.result(
        short_share_droptail=share["droptail-1.5"],
        short_share_red=share["red-1.5"],
        short_share_riops=share["riops-1.5"],
        holds=share["droptail-1.5"] < share["red-1.5"] <= share["riops-1.5"],
    )]
    params = params_from(param_table(list(VARIANTS)), scs)
    params["duration_s"]["source"] = "our specification" if not quick else "ours (--quick)"
    params["short_max_flows"] = {"value": short_max_flows,
                                 "source": "our specification (none)" if short_max_flows is None else "ours (option)"}
    return {
        "experiment": "riops-goodput",
        "seeds": len(seeds),
        "seed_list": seeds,
        "params": params,
        "variants": variants,
        "paper": PAPER,
        "claims": claims,
        "series": {v: ds[0].get("series") for v, ds in detail.items()},
        "per_run": {v: [{k: d[k] for k in ("conservation", "classifier", "rio") if k in d} for d in ds]
                    for v, ds in detail.items()},
    }


EXPERIMENT = Experiment(
    name="riops-goodput", paper=GUO_MATTA_2001,
    part='the table "Network Goodput"',
    module=sys.modules[__name__],
    run=run,
    variants=VARIANTS,
    options=("quick",),  # the command line's --quick
    quick=QUICK,
    claims=(SHARE, TOTAL, SHARE_15),
    figures="superpacket.experiments.figures.riops_goodput:riops_goodput",
)
