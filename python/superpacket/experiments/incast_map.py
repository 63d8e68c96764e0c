"""`superpacket reproduce incast-map`: where super-packets help incast and where they hurt
(our specification "Super-packets / incast", regime map; no paper shows it).

The incast of `superpacket reproduce incast` (10 senders, one 10-packet flow each, R->D
100 Mbps with a buffer of 50, start offsets in [0, 100 us)) over the sender links' rate
{100 Mbps, 1 Gbps, 10 Gbps} x every link's one-way delay {25 us, 250 us, 1 ms} x the
router's threshold t {2, 5, 10, 20} x variant {superpacket, ideal}, each beside DropTail
at the same rate and delay. Per point: mean FCT over the seeds relative to DropTail's
(`rel_fct`, below 1: super-packets help) and the super-packets admitted at once (round 1).
The paper regime is the point (100 Mbps, 1 ms, t = 5), the datacenter regime
(1 Gbps, 25 us, t = 5).
"""

from __future__ import annotations

import functools
import sys
from typing import Any

from superpacket import api
from superpacket.experiments import incast
from superpacket.experiments.common import (
    Sc,
    params_from,
    run_seeds,
    same,
    seconds,
    seed_list,
    spaced,
    summarize,
)
from superpacket.experiments.record import LI_2013, Claim, Experiment, Quick

DEFAULT_SEEDS = 10  # our specification
QUICK = Quick("3 seeds (10 at full scale)", seeds=3)
RATES = ("100Mbps", "1Gbps", "10Gbps")
DELAYS = ("25us", "250us", "1ms")
TS = (2, 5, 10, 20)
SP_VARIANTS = incast.SP_VARIANTS
KEYS = ("mean_fct_s", "flows_with_timeout", "sp_round1_admitted")
# ours: within 1 % of DropTail's mean FCT a point counts as neither helping nor hurting
SAME_BAND = 0.01

REPORT_TABLES = {
    "map": (("The regime map: mean FCT relative to DropTail's at the same rate and delay (below 1: super-packets "
             "help), super-packets admitted at once (round 1: mean, min, max over seeds)."),
            ["access_rate", "delay", "t", "variant", "rel_fct", "effect", "admitted_at_once", "admitted_at_once_min",
             "admitted_at_once_max", "mean_fct_s", "droptail_mean_fct_s", "flows_with_timeout"]),
    "droptail": (("DropTail alone at each rate and delay (the denominators): mean FCT and flows with a timeout, "
                  "means over seeds."), ["access_rate", "delay", "mean_fct_s", "flows_with_timeout"]),
}


def point(rate: str, delay: str, variant: str, t: int | None = None) -> str:
    """`100Mbps/1ms/droptail`, `1Gbps/25us/t=5/ideal`."""
    return f"{rate}/{delay}/droptail" if variant == "droptail" else f"{rate}/{delay}/t={t}/{variant}"


def points() -> list[str]:
    out = []
    for rate in RATES:
        for delay in DELAYS:
            out.append(point(rate, delay, "droptail"))
            out += [point(rate, delay, v, t) for t in TS for v in SP_VARIANTS]
    return out


def check_options(jitter_us: Any = None) -> None:
    """The command line's --jitter-us (one line naming it on a bad value)."""
    incast.check_jitter(jitter_us)


def point_scenario(name: str, jitter_us: float = incast.JITTER_US, admit_syn: bool = False) -> dict[str, Any]:
    """The incast scenario of point `name` (`1Gbps/25us/t=5/ideal`, `100Mbps/1ms/droptail`)."""
    rate, delay, *rest = name.split("/")
    variant = rest[-1]
    t = int(rest[0].removeprefix("t=")) if variant != "droptail" else incast.THRESHOLD_T
    return incast.scenario(variant, jitter_us, admit_syn, access_rate=rate, delay=delay, threshold=t)


def run_point(name: str, seed: int, jitter_us: float = incast.JITTER_US, admit_syn: bool = False,
              scs: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """One run of point `name`: its scenario in `scs` (the dicts the report reads) or built."""
    sc = scs[name] if scs else point_scenario(name, jitter_us, admit_syn)
    return incast.measure(api.run(sc, seed=seed, progress=False))


def param_table(names: list[str]) -> dict[str, tuple[Any, str]]:
    """The scenario parameters of the summary, read from the points' scenarios `names`
    (`<point>:<path>`, sweep --param syntax); run() adds the ones that are no field."""
    sp = [n for n in names if not n.endswith("/droptail")]
    q = "topology.receiver_link.queue"

    def listed(*v: Any) -> list[Any]:
        return list(dict.fromkeys(v))  # each once, in the points' order

    return {
        "access_rates": (Sc(*(f"{n}:topology.sender_link.rate" for n in names), fmt=listed), "our specification"),
        "delays": (Sc(*(f"{n}:topology.sender_link.delay" for n in names), fmt=listed),
                   "our specification (every link's one-way delay)"),
        "thresholds": (Sc(*(f"{n}:{q}.threshold" for n in sp), fmt=lambda *t: sorted(set(t))), "our specification"),
        "bottleneck": (Sc(*(f"{n}:topology.receiver_link.rate" for n in names), *(f"{n}:{q}.limit" for n in names),
                          *(f"{n}:{q}.epoch" for n in sp),
                          fmt=lambda *f: (f"R->D {same(*f[:len(names)])}, buffer {same(*f[len(names):2 * len(names)])}, "
                                          f"EPOCH {spaced(same(*f[2 * len(names):]))}")),
                       "paper (buffer, EPOCH); our specification (rate)"),
        "incast": (Sc(*(f"{n}:topology.senders" for n in names), *(f"{n}:traffic[0].size_pkts" for n in names),
                      *(f"{n}:tcp.init_cwnd" for n in names),
                      fmt=lambda *f: (f"{same(*f[:len(names)])} senders x one {same(*f[len(names):2 * len(names)])}"
                                      f"-packet flow, initial cwnd {same(*f[2 * len(names):])}")), "paper"),
        "jitter_us": (Sc(*(f"{n}:traffic[0].start_jitter" for n in names),
                         fmt=lambda *j: float(same(*j).removesuffix("us"))),
                      "our specification (uniform offsets in [0, 100 us); --jitter-us)"),
        "admit_syn": (Sc(*(f"{n}:{q}.admit_syn" for n in sp)),
                      "our specification (SYNs admitted only where a scenario says so)"),
        "duration_s": (Sc(*(f"{n}:duration" for n in names), fmt=lambda *d: seconds(same(*d))),
                       "ours (every flow finishes)"),
    }


def _effect(rel: float) -> str:
    if rel < 1.0 - SAME_BAND:
        return "helps"
    return "hurts" if rel > 1.0 + SAME_BAND else "same"


#: Two rules of the admission at once, from the link rates (ours, not must-holds).
AT_LINE_RATE = Claim("at-line-rate", "at access rate = bottleneck rate (100 Mbps) min(10, t + 1) super-packets are "
                     "admitted at once, in every seed (ours, by hand: the first packets arrive within one packet time)",
                     "the super-packets admitted at once in each seed, per delay and t, against min(10, t + 1)",
                     must_hold=False)
NO_RISE = Claim("no-rise-with-access-rate", "the super-packets admitted at once do not rise with the access rate, at "
                "every delay and t (ours: later packets of admitted super-packets fill the queue to t sooner)",
                "the super-packets admitted at once (means over seeds) per access rate, at each delay and t",
                must_hold=False)


def claims(table: list[dict[str, Any]], detail: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Two rules of the admission at once, from the link rates (ours, not must-holds)."""
    # Access rate = bottleneck rate: the ten first packets reach R within about one
    # packet time, before any second packet; the first goes into transmission and each
    # later one is admitted while fewer than t wait: min(10, t + 1) at once, every seed.
    at_line = {}
    for delay in DELAYS:
        for t in TS:
            got = sorted({run["sp_round1_admitted"] for v in SP_VARIANTS
                          for run in detail[point(RATES[0], delay, v, t)]})
            at_line[f"{delay}/t={t}"] = {"expected": min(incast.FLOWS, t + 1), "seen": got}
    # A faster access link brings an admitted super-packet's later packets sooner, so the
    # queue reaches t sooner and fewer first packets get in: admitted at once does not
    # rise with the access rate (means over seeds, at every delay and t).
    mean_at = {(r["access_rate"], r["delay"], r["t"]): r["admitted_at_once"] for r in table
               if r["variant"] == "superpacket"}
    falls = {f"{d}/t={t}": [mean_at[(rate, d, t)] for rate in RATES] for d in DELAYS for t in TS}
    return [AT_LINE_RATE.result(cells=at_line, holds=all(c["seen"] == [c["expected"]] for c in at_line.values())),
            NO_RISE.result(cells=falls, holds=all(a >= b >= c for a, b, c in falls.values()))]


def run(seeds: Any = None, jitter_us: float | None = None, admit_syn: bool = False, quick: bool = False,
        client: Any = None, progress: bool | None = None, **_: Any) -> dict[str, Any]:
    """`seeds`: N (1..N) or a list, run as given; default 10, with `quick` 3. `client`: a
    `distributed.Client` (same results)."""
    seeds = seed_list(seeds if seeds is not None else (QUICK.seeds if quick else DEFAULT_SEEDS))
    jitter_us = incast.check_jitter(jitter_us)
    names = points()
    scs = {n: point_scenario(n, jitter_us, admit_syn) for n in names}
    per_seed, detail = run_seeds(names, seeds, KEYS, functools.partial(run_point, jitter_us=jitter_us,
                                                                       admit_syn=admit_syn, scs=scs), client, progress)
    for n in names:
        if n.endswith("/droptail"):
            del per_seed[n]["sp_round1_admitted"]
    variants = summarize(per_seed)
    table: list[dict[str, Any]] = []
    dt_table: list[dict[str, Any]] = []
    for rate in RATES:
        for delay in DELAYS:
            dt = variants[point(rate, delay, "droptail")]
            dt_table.append({"access_rate": rate, "delay": delay, "mean_fct_s": dt["mean_fct_s"],
                             "flows_with_timeout": dt["flows_with_timeout"]})
            for t in TS:
                for v in SP_VARIANTS:
                    ms = variants[point(rate, delay, v, t)]
                    r1 = ms["sp_round1_admitted_per_seed"]
                    rel = ms["mean_fct_s"] / dt["mean_fct_s"]
                    table.append({"access_rate": rate, "delay": delay, "t": t, "variant": v, "rel_fct": rel,
                                  "effect": _effect(rel), "admitted_at_once": ms["sp_round1_admitted"],
                                  "admitted_at_once_min": min(r1), "admitted_at_once_max": max(r1),
                                  "mean_fct_s": ms["mean_fct_s"], "droptail_mean_fct_s": dt["mean_fct_s"],
                                  "flows_with_timeout": ms["flows_with_timeout"]})
    where = {r: {"point": f"{incast.REGIMES[r]['access_rate']}/{incast.REGIMES[r]['delay']}/t={incast.THRESHOLD_T}",
                 **{v: next(x["rel_fct"] for x in table
                            if (x["access_rate"], x["delay"], x["t"], x["variant"])
                            == (incast.REGIMES[r]["access_rate"], incast.REGIMES[r]["delay"], incast.THRESHOLD_T, v))
                    for v in SP_VARIANTS}} for r in incast.REGIMES}
    not_completed = sum(d["flows_not_completed"] for ds in detail.values() for d in ds)
    params = params_from({
        **param_table(names),
        "variants": (list(SP_VARIANTS), "our specification (each beside droptail)"),
        "same_band": (SAME_BAND, "ours (|rel_fct - 1| within it: effect 'same')"),
        "seeds": (len(seeds), "our specification (10)" if len(seeds) == 10 else "ours"),
    }, scs)
    return {
        "experiment": "incast-map",
        "seeds": len(seeds),
        "seed_list": seeds,
        "params": params,
        "variants": variants,
        "paper": {},
        "paper_note": "No paper shows this map; its point (100 Mbps, 1 ms, t = 5) is the paper's incast regime.",
        "claims": claims(table, detail),
        "map": table,
        "droptail": dt_table,
        "incast_points": where,
        "flows_not_completed": not_completed,
        "conservation_ok": all(d["conservation"] == "ok" for ds in detail.values() for d in ds),
    }


EXPERIMENT = Experiment(
    name="incast-map", paper=LI_2013,
    part="our extension of section 4.2 (the paper runs one setting)",
    module=sys.modules[__name__],
    run=run,
    default_seeds=DEFAULT_SEEDS,
    check_options=check_options,
    report_tables=REPORT_TABLES,
    options=("jitter_us", "admit_syn", "quick"),  # the command line's --jitter-us, --admit-syn, --quick
    quick=QUICK,
    claims=(AT_LINE_RATE, NO_RISE),
    parallel_by_default=False,  # 810 runs of a few ms each: a local cluster costs more than it saves
    generic_bars=False,  # 81 points: the report draws the heatmaps instead
    figures="superpacket.experiments.figures.incast_map:incast_map",
)
