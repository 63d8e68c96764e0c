"""`superpacket reproduce dcr-multihop`: (Bhandarkar and Reddy, PFLDnet 2007,
slides "More Complex Scenarios": multiple bottlenecks, traffic both ways, router R3
"misconfigured" reordering 1 % of the packets through it); parameters from our specification
"TCP-DCR and high-speed TCP under reordering", `dcr-multihop`.

Chain R1-R2-R3-R4-R5 of 1 Gbps, 10 ms links; a host H{i} on each router R{i} (10 Gbps,
10 ms: ours, see `PARAMS`); two long-lived flows on each of the paths R1->R5, R1->R2,
R3->R2, R3->R4, R5->R4, R5->R1 (from H{a} to H{b}). R3 delays each data packet it
forwards with probability 0.01 by an extra N(25 ms, 8 ms) (`[[reorder]] router = "R3"`:
every link leaving R3). Each of the four links R1->R2, R3->R2, R3->R4, R5->R4 carries
four flows (the slides' table); all flows through R3->R2 and R3->R4 are reordered.
Variants `<protocol>[-dcr|-ncr]` (LTCP, HighSpeed, BIC, H-TCP; SACK recovery) and the
NewReno-recovery point `<first protocol>[-dcr]/newreno`. Metrics, judged over the
measurement window [10 s, 100 s] (the first 10 % of the run left out as start-up, our
specification): `utilisation_<link>_window` (bytes delivered over what the link could
carry), `drop_rate_<link>_window` (drops / arrivals) for links r1-r2, r3-r2, r3-r4, r5-r4
(directed), `jain_<path>_window` (Jain's index of the bytes the path's two flows
received); the whole-run figures always beside: `utilisation_<link>` (busy fraction),
`drop_rate_<link>`, `jain_<path>` (of the goodput) and `goodput_<path>_bps` (their sum).
"""

from __future__ import annotations

import functools
import sys
from typing import Any

from superpacket import api
from superpacket.experiments.common import Sc, ms, params_from, run_seeds, same, seconds, seed_list, summarize
from superpacket.experiments.dcr_common import (
    NEWRENO_SUFFIX,
    PKT_BYTES,
    REORDER_MEAN_MS,
    REORDER_SD_MS,
    RESPONSES,
    DcrInputError,
    bdp_pkts,
    check_positive,
    check_protocols,
    check_q,
    jain,
    link_metrics,
    rel_change,
    split_protocol,
    tcp_table,
    window_flow_bytes,
    window_metrics,
)
from superpacket.experiments.record import BHANDARKAR_REDDY_2007, Claim, Experiment, Number, Quick

DEFAULT_SEEDS = 3
REPORT_TABLES = {"table": (("Utilisation (%) of the four loaded links over the measurement window: ours (mean over "
                           "seeds) beside the slides' table, without DCR (ours, paper), with DCR (ours-dcr, "
                           "paper-dcr) and with NCR (ours only); the whole run beside (whole)."),
                          ["link", "protocol", "ours_pct", "paper_pct", "ours-dcr_pct", "paper-dcr_pct",
                           "ours-ncr_pct", "whole_pct", "whole-dcr_pct"]),
                 "jain_table": (("Jain's index per path over the measurement window, ours beside the slides' "
                                 "table, without and with DCR, with the change DCR makes in each (not a must-hold: "
                                 "the slides' own index moves by up to 9.5 % with DCR)."),
                                ["path", "protocol", "ours", "paper", "ours-dcr", "paper-dcr", "ours_change",
                                 "paper_change"])}

LINKS = ("R1->R2", "R3->R2", "R3->R4", "R5->R4")  # the slides' rows, directed as the flows load them
PATHS = (("1", "5"), ("1", "2"), ("3", "2"), ("3", "4"), ("5", "4"), ("5", "1"))
REORDERED_LINKS = ("R3->R2", "R3->R4")  # every flow on them passes R3's reordering
CLEAN_LINKS = ("R1->R2", "R5->R4")
CLEAN_PATHS = ("r1-r2", "r5-r4")  # paths that do not pass R3
FLOWS_PER_PATH = 2
ROUTERS = 5
RATE_BPS = 1e9
LINK_DELAY_MS = 10.0
HOST_RATE = "10Gbps"
HOST_DELAY_MS = 10.0
HOST_QUEUE_PKTS = 100_000
Q = 0.01
DURATION_S = 100.0
START_JITTER_S = 0.1
UTIL_FLOOR = 0.9
COLLAPSE_RATIO = 0.5
NO_REORDER_CHANGE = 0.05  # points of utilisation: R1-R2, R5-R4 with DCR within 5 of without
QUICK = Quick("20 s runs (100 s at full scale)", {"duration_s": 20.0})
#: The claims, per protocol ({protocol}); judged over the measurement window, the whole
#: run beside; TCP-NCR's reported beside DCR's.
COLLAPSE = Claim("collapse-without-dcr", "{protocol}: without DCR utilisation collapses on the links whose flows R3 "
                 "reorders (ours, fixed before the first full run: R3->R2 and R3->R4 below "
                 f"{COLLAPSE_RATIO:g} x the mean of the links without reordered flows R1->R2, R5->R4; over the "
                 "measurement window; paper: 5-13 % vs 94-97 %)",
                 "the most utilisation of the reordered links against the mean of the others (over the measurement "
                 "window, means over seeds)", number=Number(("ratio",), "ratio {:.2f}"))


def _with(suffix: str, label: str) -> str:
    return (f"{{protocol}}{suffix}: {label} R3->R2 and R3->R4 utilisation above {UTIL_FLOOR:.0%}, and R1->R2, R5->R4 "
            f"within {100 * NO_REORDER_CHANGE:g} points of the run without it (over the measurement window, means "
            "over seeds; paper with DCR: 94.4-97.2 % on all four)")


WITH = {
    "-dcr": Claim("dcr-utilisation", _with("-dcr", "with DCR"),
                  "each link's utilisation (means over seeds): the reordered links' against the floor, the others' "
                  "change in points against the run without the response"),
    "-ncr": Claim("ncr-utilisation", _with("-ncr", "with TCP-NCR (RFC 4653, beside DCR; not a must-hold)"),
                  "each link's utilisation (means over seeds): the reordered links' against the floor, the others' "
                  "change in points against the run without the response", must_hold=False),
}
JAIN = Claim("dcr-jain-per-path", "{protocol}-dcr: the per-path Jain index with DCR beside the slides' (reported, not "
             "a must-hold: the slides' own table moves by up to 9.5 % with DCR, BIC R1-R5 0.999 -> 0.904); holds when "
             "our largest change over the window is no larger than the slides' largest for this protocol (or 9.5 %)",
             "the largest relative change of a path's Jain index with DCR, ours against the slides'", must_hold=False)
WINDOW_START = 0.1  # our specification: judged over [10 s, 100 s] of the 100 s run


def link_key(link: str) -> str:
    """"R3->R2" -> "r3-r2"."""
    return link.replace("->", "-").lower()


def path_key(a: str, b: str) -> str:
    return f"r{a}-r{b}"


def longest_rtt_s(link_delay_ms: float = LINK_DELAY_MS, host_delay_ms: float = HOST_DELAY_MS) -> float:
    """R1 -> R5: four chain links and two host links each way."""
    return 2 * ((ROUTERS - 1) * link_delay_ms + 2 * host_delay_ms) / 1e3


def buffer_pkts(rate_bps: float = RATE_BPS, host_delay_ms: float = HOST_DELAY_MS) -> int:
    return bdp_pkts(rate_bps, longest_rtt_s(LINK_DELAY_MS, host_delay_ms))


KEYS = tuple([f"utilisation_{link_key(x)}_window" for x in LINKS] + [f"drop_rate_{link_key(x)}_window" for x in LINKS]
             + [f"jain_{path_key(a, b)}_window" for a, b in PATHS]
             + [f"utilisation_{link_key(x)}" for x in LINKS] + [f"drop_rate_{link_key(x)}" for x in LINKS]
             + [f"jain_{path_key(a, b)}" for a, b in PATHS] + [f"goodput_{path_key(a, b)}_bps" for a, b in PATHS])

# The slides' tables ("More Complex Scenarios"): utilisation in %, here as fractions
_U = {"ltcp": (96.87, 13.29, 11.01, 94.65), "highspeed": (94.2558, 8.72681, 8.83559, 94.0697),
      "bic": (96.4142, 5.41026, 9.5864, 96.5316), "htcp": (94.2525, 7.9631, 8.96401, 93.9085),
      "ltcp-dcr": (96.52, 96.65, 95.19, 95.56), "highspeed-dcr": (96.74, 96.24, 97.23, 94.40),
      "bic-dcr": (97.19, 95.47, 95.37, 94.99), "htcp-dcr": (94.70, 95.74, 95.75, 96.05)}
_D = {"ltcp": (1.89e-03, 0.0, 0.0, 1.66e-03), "highspeed": (5.79e-04, 0.0, 0.0, 6.01e-04),
      "bic": (7.37e-04, 0.0, 0.0, 7.23e-04), "htcp": (5.20e-04, 0.0, 0.0, 4.30e-04),
      "ltcp-dcr": (2.57e-03, 2.83e-04, 2.51e-04, 2.41e-03), "highspeed-dcr": (1.07e-03, 1.16e-04, 1.06e-04, 7.44e-04),
      "bic-dcr": (8.96e-04, 1.06e-04, 9.20e-05, 6.59e-04), "htcp-dcr": (8.52e-04, 1.32e-04, 1.10e-04, 1.15e-03)}
# paths in the slides' order: R1-R5, R1-R2, R3-R2, R3-R4, R5-R4, R5-R1
_J = {"ltcp": (0.983, 0.959, 0.999, 0.999, 0.975, 0.990), "highspeed": (0.995, 0.982, 0.999, 0.999, 0.977, 0.996),
      "bic": (0.999, 0.967, 0.999, 0.999, 0.967, 0.995), "htcp": (0.997, 0.952, 0.999, 0.999, 0.932, 0.999),
      "ltcp-dcr": (0.936, 0.988, 0.996, 0.994, 0.985, 0.961),
      "highspeed-dcr": (0.959, 0.972, 0.991, 0.990, 0.978, 0.951),
      "bic-dcr": (0.904, 0.976, 0.987, 0.989, 0.961, 0.914), "htcp-dcr": (0.963, 0.950, 0.994, 0.988, 0.926, 0.971)}
PAPER: dict[str, dict[str, float]] = {
    v: {**{f"utilisation_{link_key(x)}": u / 100.0 for x, u in zip(LINKS, _U[v], strict=True)},
        **{f"drop_rate_{link_key(x)}": d for x, d in zip(LINKS, _D[v], strict=True)},
        **{f"jain_{path_key(a, b)}": j for (a, b), j in zip(PATHS, _J[v], strict=True)}}
    for v in _U
}


def check_options(protocols: Any = None, qs: Any = None) -> tuple[tuple[str, ...], float]:
    """(protocols, q); DcrInputError (one line naming the field) on bad input."""
    protos = check_protocols(protocols)
    q_list = check_q(qs, (Q,))
    if len(q_list) != 1:
        raise DcrInputError(f"q: dcr-multihop takes one reordering probability at R3 (got {len(q_list)})")
    return protos, q_list[0]


def scenario(cc: str, suffix: str, q: float = Q, rate_bps: float = RATE_BPS, duration_s: float = DURATION_S,
             recovery: str = "sack", host_delay_ms: float = HOST_DELAY_MS) -> dict[str, Any]:
    sc: dict[str, Any] = {
        "name": f"dcr-multihop-{cc}{suffix}-{recovery}",
        "duration": f"{duration_s:g}s",
        "topology": {
            "kind": "chain",
            "routers": ROUTERS,
            "link": {"rate": f"{rate_bps:.0f}bps", "delay": f"{LINK_DELAY_MS:g}ms",
                     "queue": {"kind": "droptail", "limit": buffer_pkts(rate_bps, host_delay_ms)}},
            "host_link": {"rate": HOST_RATE, "delay": f"{host_delay_ms:g}ms",
                          "queue": {"kind": "droptail", "limit": HOST_QUEUE_PKTS}},
        },
        "tcp": tcp_table(cc, suffix, recovery),
        "traffic": [{"kind": "bulk", "from": f"H{a}", "to": f"H{b}", "count": FLOWS_PER_PATH,
                     "start_jitter": f"{START_JITTER_S:g}s"} for a, b in PATHS],
    }
    if q > 0:
        sc["reorder"] = [{"router": "R3", "q": q, "delay_mean": f"{REORDER_MEAN_MS:g}ms",
                          "delay_sd": f"{REORDER_SD_MS:g}ms"}]
    # cumulative link counters and per-flow bytes at every tenth of the run (the window
    # starts at the first)
    tenth = f"{duration_s * WINDOW_START:g}s"
    sc["output"] = {"sample_queues": list(LINKS), "sample_interval": tenth, "sample_flows": tenth}
    return sc


def variant_scenario(variant: str, q: float = Q, rate_bps: float = RATE_BPS, duration_s: float = DURATION_S,
                     host_delay_ms: float = HOST_DELAY_MS) -> dict[str, Any]:
    """The scenario of `<protocol>[/newreno]`."""
    name, newreno = (variant[: -len(NEWRENO_SUFFIX)], True) if variant.endswith(NEWRENO_SUFFIX) else (variant, False)
    cc, suffix = split_protocol(name)
    return scenario(cc, suffix, q, rate_bps, duration_s, "newreno" if newreno else "sack", host_delay_ms)


def run_point(variant: str, seed: int, q: float = Q, rate_bps: float = RATE_BPS, duration_s: float = DURATION_S,
              host_delay_ms: float = HOST_DELAY_MS, scs: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """One run; its scenario is `scs[variant]` (the dicts the report reads) or built."""
    sc = scs[variant] if scs else variant_scenario(variant, q, rate_bps, duration_s, host_delay_ms)
    res = api.run(sc, seed=seed, progress=False)
    out: dict[str, Any] = {"conservation": res.summary["conservation"]}
    t0 = WINDOW_START * duration_s
    fl = res.flows
    by_path: dict[str, list[float]] = {}
    ids_by_path: dict[str, list[int]] = {}
    for fid, src, dst, g in zip(fl["flow_id"].to_list(), fl["src"].to_list(), fl["dst"].to_list(),
                                fl["goodput_bps"].to_list(), strict=True):
        by_path.setdefault(path_key(src[1:], dst[1:]), []).append(float(g))
        ids_by_path.setdefault(path_key(src[1:], dst[1:]), []).append(int(fid))
    for x in LINKS:
        util, rate, drops, _arrivals = link_metrics(res, x)
        out[f"utilisation_{link_key(x)}"] = util
        out[f"drop_rate_{link_key(x)}"] = rate
        out[f"drops_{link_key(x)}"] = drops
        util_w, rate_w, _ = window_metrics(res, x, rate_bps, t0)
        out[f"utilisation_{link_key(x)}_window"] = util_w
        out[f"drop_rate_{link_key(x)}_window"] = rate_w
    got = window_flow_bytes(res, t0)
    for a, b in PATHS:
        pk = path_key(a, b)
        xs = by_path.get(pk, [])
        out[f"jain_{pk}"] = jain(xs)
        out[f"goodput_{pk}_bps"] = sum(xs)
        # Jain's index of the bytes each of the path's flows received in the window
        out[f"jain_{pk}_window"] = jain([got.get(f, 0.0) for f in sorted(ids_by_path.get(pk, []))])
    out["timeouts"] = int(fl["timeouts"].sum())
    out["fast_retransmits"] = int(fl["fast_retransmits"].sum())
    return out


def run(seeds: Any = DEFAULT_SEEDS, protocols: Any = None, qs: Any = None, rate_bps: float = RATE_BPS,
        duration_s: float = DURATION_S, host_delay_ms: float = HOST_DELAY_MS, quick: bool = False,
        client: Any = None, progress: bool | None = None, **_: Any) -> dict[str, Any]:
    """`protocols`: names or a comma list (default the slides' four); `qs`: one reordering
    probability at R3 (default 0.01); `rate_bps`, `duration_s`: the scale
    (tests); `host_delay_ms`: the host links' delay; `quick`: 20 s runs."""
    protos, q = check_options(protocols, qs)
    rate_bps = check_positive(rate_bps, "rate_bps")
    duration_s = check_positive(duration_s, "duration_s")
    host_delay_ms = check_positive(host_delay_ms, "host_delay_ms")
    seeds = seed_list(seeds)  # N: 1..N, or the list given
    if quick:
        duration_s = min(duration_s, QUICK.values["duration_s"])
    names = [f"{cc}{s}" for cc in protos for s in RESPONSES]
    newreno = [f"{protos[0]}{s}{NEWRENO_SUFFIX}" for s in ("", "-dcr")]
    order = [v for v in names + newreno if split_protocol(v.removesuffix(NEWRENO_SUFFIX))[1] == "-dcr"]
    order += [v for v in names + newreno if v not in order]  # the long (DCR) runs first
    scs = {v: variant_scenario(v, q, rate_bps, duration_s, host_delay_ms) for v in names + newreno}
    run_one = functools.partial(run_point, q=q, rate_bps=rate_bps, duration_s=duration_s, host_delay_ms=host_delay_ms,
                                scs=scs)
    per_seed_raw, detail_raw = run_seeds(order, seeds, KEYS, run_one, client, progress)
    per_seed = {v: per_seed_raw[v] for v in names + newreno}
    variants = summarize(per_seed)
    return {
        "experiment": "dcr-multihop",
        "seeds": len(seeds),
        "seed_list": seeds,
        "params": _params(protos, scs, len(seeds), quick),
        "variants": variants,
        "paper": {v: p for v, p in PAPER.items() if v in variants},
        "paper_note": "The slides' three tables ('More Complex Scenarios': link utilisation %, bottleneck link "
                      "buffer drop rate, Jain fairness index per path), without and with DCR; utilisation here as "
                      "a fraction. The slides give no NCR or NewReno-recovery figures.",
        "claims": _claims(variants, protos),
        "table": _table(variants, protos),
        "jain_table": _jain_table(variants, protos),
        "per_run": {v: [{k: d[k] for k in ("conservation", "timeouts", "fast_retransmits")} for d in ds]
                    for v, ds in detail_raw.items()},
    }


def _table(variants: dict[str, dict[str, Any]], protos: tuple[str, ...]) -> list[dict[str, Any]]:
    """Utilisation per link and protocol, ours beside the slides' (percent), without and
    with DCR (and NCR, ours only)."""
    rows = []
    for x in LINKS:
        m = f"utilisation_{link_key(x)}"
        for cc in protos:
            row: dict[str, Any] = {"link": x, "protocol": cc}
            for s in RESPONSES:
                v = f"{cc}{s}"
                row[f"ours{s}_pct"] = 100.0 * variants[v][f"{m}_window"]
                row[f"whole{s}_pct"] = 100.0 * variants[v][m]
                p = PAPER.get(v, {}).get(m)
                if p is not None:
                    row[f"paper{s}_pct"] = 100.0 * p
            rows.append(row)
    return rows


def _jain_table(variants: dict[str, dict[str, Any]], protos: tuple[str, ...]) -> list[dict[str, Any]]:
    """Jain's index per path over the window, ours beside the slides', without and with
    DCR, and the relative change DCR makes in each."""
    rows = []
    for a, b in PATHS:
        m = f"jain_{path_key(a, b)}"
        for cc in protos:
            ours, ours_dcr = variants[cc][f"{m}_window"], variants[f"{cc}-dcr"][f"{m}_window"]
            row: dict[str, Any] = {"path": f"R{a}->R{b}", "protocol": cc, "ours": ours, "ours-dcr": ours_dcr,
                                   "ours_change": rel_change(ours, ours_dcr)}
            paper, paper_dcr = PAPER.get(cc, {}).get(m), PAPER.get(f"{cc}-dcr", {}).get(m)
            if paper is not None and paper_dcr is not None:
                row.update({"paper": paper, "paper-dcr": paper_dcr, "paper_change": rel_change(paper, paper_dcr)})
            rows.append(row)
    return rows


def _claims(variants: dict[str, dict[str, Any]], protos: tuple[str, ...]) -> list[dict[str, Any]]:
    """Judged over the measurement window (`*_window`), the whole run beside."""
    claims: list[dict[str, Any]] = []

    def util(v: dict[str, Any], x: str, window: bool = True) -> float:
        return float(v[f"utilisation_{link_key(x)}" + ("_window" if window else "")])

    for cc in protos:
        v = variants[cc]
        clean = sum(util(v, x) for x in CLEAN_LINKS) / len(CLEAN_LINKS)
        nums = {f"utilisation_{link_key(x)}": util(v, x) for x in LINKS}
        worst = max(util(v, x) for x in REORDERED_LINKS)
        claims.append(COLLAPSE.result(
            {"protocol": cc},
            variant=cc,
            **nums,
            whole_run={f"utilisation_{link_key(x)}": util(v, x, False) for x in LINKS},
            clean_links_mean=clean,
            reordered_links_max=worst,
            ratio=worst / clean if clean > 0 else float("nan"),
            holds=bool(clean > 0 and worst < COLLAPSE_RATIO * clean),
        ))
    for suffix in ("-dcr", "-ncr"):
        for cc in protos:
            p = f"{cc}{suffix}"
            v, plain = variants[p], variants[cc]
            nums = {f"utilisation_{link_key(x)}": util(v, x) for x in LINKS}
            lo = {f"utilisation_{link_key(x)}_ci95_low": v[f"utilisation_{link_key(x)}_window_ci95"][0]
                  for x in LINKS}
            # R1->R2 and R5->R4 carry no reordered flow: with the response as without it
            points = {f"utilisation_{link_key(x)}_change_points": 100.0 * (util(v, x) - util(plain, x))
                      for x in CLEAN_LINKS}
            reordered_ok = all(util(v, x) > UTIL_FLOOR for x in REORDERED_LINKS)
            clean_ok = all(abs(d) <= 100.0 * NO_REORDER_CHANGE for d in points.values())
            claims.append(WITH[suffix].result(
                {"protocol": cc},
                variant=p,
                **nums,
                **lo,
                **points,
                whole_run={f"utilisation_{link_key(x)}": util(v, x, False) for x in LINKS},
                min_utilisation_reordered_links=min(util(v, x) for x in REORDERED_LINKS),
                holds=bool(reordered_ok and clean_ok),
            ))
    for cc in protos:
        p = f"{cc}-dcr"
        a, b = variants[cc], variants[p]
        ours = {f"jain_{path_key(x, y)}_change": rel_change(a[f"jain_{path_key(x, y)}_window"],
                                                           b[f"jain_{path_key(x, y)}_window"]) for x, y in PATHS}
        paper = {k: rel_change(PAPER[cc][k.removesuffix("_change")], PAPER[p][k.removesuffix("_change")])
                 for k in ours if cc in PAPER and p in PAPER}
        claims.append(JAIN.result(
            {"protocol": cc},
            variant=p,
            ours_change_by_path=ours,
            paper_change_by_path=paper,
            max_change_ours=max(ours.values()),
            max_change_paper=max(paper.values()) if paper else float("nan"),
            holds=bool(max(ours.values()) <= max(max(paper.values()) if paper else 0.095, 0.095)),
        ))
    return claims


def _params(protos: tuple[str, ...], scs: dict[str, dict[str, Any]], seeds: int,
            quick: bool) -> dict[str, dict[str, Any]]:
    """The summary's `params`: the scenario's numbers read from the runs' scenarios `scs`
    (variant -> the scenario that ran), the rest as written here."""
    names = list(scs)
    first = names[0]
    topo = [scs[v]["topology"] for v in names]
    link, host = same(*(t["link"] for t in topo)), same(*(t["host_link"] for t in topo))
    routers = same(*(t["routers"] for t in topo))
    rate = float(link["rate"].removesuffix("bps"))
    dur = seconds(same(*(scs[v]["duration"] for v in names)))
    full = rate == RATE_BPS and dur == DURATION_S
    host_delay_ms = ms(host["delay"])
    rtt_short = 2 * (ms(link["delay"]) + 2 * host_delay_ms)
    reorder = [scs[v]["reorder"][0] for v in names if "reorder" in scs[v]]

    def topology(*traffic: list[dict[str, Any]]) -> str:
        t = same(*traffic)
        n = same(*(x["count"] for x in t))
        paths = ", ".join(f"R{x['from'][1:]}->R{x['to'][1:]}" for x in t)
        return (f"chain {'-'.join(f'R{i}' for i in range(1, routers + 1))}, host H{{i}} on R{{i}}; {n} flows "
                f"H{{a}} -> H{{b}} on each path {paths}")

    def model(r: dict[str, Any]) -> str:
        return (f"every link leaving {r['router']}, data packets, probability q, extra N({ms(r['delay_mean']):g} ms, "
                f"{ms(r['delay_sd']):g} ms) redrawn when negative, after the wire")

    p: dict[str, tuple[Any, str]] = {
        "topology": (Sc(*(f"{v}:traffic" for v in names), fmt=topology), "our specification (paper's slides)"),
        "chain_links": (f"{rate / 1e6:g} Mbps, {ms(link['delay']):g} ms", "our specification" if rate == RATE_BPS
                        else "ours (small scale)"),
        "host_links": ((f"{host['rate']}, {host_delay_ms:g} ms, "
                        f"{'DropTail' if host['queue']['kind'] == 'droptail' else host['queue']['kind']} "
                        f"{host['queue']['limit']} packets"), (
            f"ours: our specification gives the chain only. Hosts are as far from their router as the chain's hops "
            f"(10 ms), so a one-hop path has RTT {rtt_short:g} ms; with hosts at 0 ms it would be 20 ms, below the "
            f"25 ms mean extra delay, and DCR's one-RTT wait could not cover the reordering (the slides: "
            f"'reordering of more than 1 RTT can still cause performance degradation'); `host_delay_ms` changes it")),
        # R1 -> R5: the chain's links and two host links, each way
        "rtt_longest_ms": (float(2 * ((routers - 1) * ms(link["delay"]) + 2 * host_delay_ms)), "follows (R1->R5)"),
        "buffer_pkts": (link["queue"]["limit"], "ours: BDP of the longest path (R1->R5) on every chain link, 1500 B packets"),
        "q_R3": (same(*(r["q"] for r in reorder)) if reorder else 0.0, "our specification (paper: 1 %)"),
        "reorder_model": (same(*(model(r) for r in reorder)) if reorder else model(
            {"router": "R3", "delay_mean": f"{REORDER_MEAN_MS:g}ms", "delay_sd": f"{REORDER_SD_MS:g}ms"}),
                          "paper (slides), our reordering model"),
        "duration_s": (dur, "ours (our specification gives 100 s for dcr, none here; the same)" if full
                       else "ours (--quick or small scale)"),
        "start_jitter_s": (Sc(*(f"{v}:traffic[{i}].start_jitter" for v in names for i in range(len(scs[first]["traffic"]))),
                              fmt=lambda *j: seconds(same(*j))), "ours"),
        "protocols": (Sc(*(f"{v}:tcp.cc" for v in names), fmt=lambda *c: list(dict.fromkeys(c))),
                      "paper (LTCP, HighSpeed, BIC, H-TCP)"),
        "recovery": ("SACK (RFC 2018 + RFC 6675)", "our common defaults (high-speed experiments)"),
        "newreno_point": ((f"{protos[0]} and {protos[0]}-dcr with NewReno recovery (RFC 6582), variants "
                          f"...{NEWRENO_SUFFIX}"), "our specification (one point); the point ours"),
        "dcr": ("tau = 1 SRTT from the first dupack; response from the flight size at the first dupack",
                "paper (slides), draft-bhandarkar-tcp-dcr-00 defaults"),
        "ncr": ("Careful Limited Transmit (LT_F 2/3)", "RFC 4653"),
        "host": (("Linux's (`[tcp] host = \"linux\"`): SACK recovery with PRR (RFC 6937), scoreboard kept "
                  "across a timeout, Linux's RTO formula, NIC refusals held unsent, TCP Small Queues"),
                 ("our specification (SACK 'as on the Linux and FreeBSD stacks those papers measured'); "
                  "ns-2's bare agent before 2026-11-27")),
        "tcp": ("MSS 1460 B, initial cwnd 10, min RTO 200 ms, delayed ACK off, no rwnd limit",
                "our common defaults"),
        "utilisation": ("busy fraction of the directed link over the whole run", "ours"),
        "drop_rate": ("drops / arrivals of the directed link", "ours (the slides' 'Bottleneck Link Buffer Drop Rate')"),
        "jain": ("Jain's index of the goodput of the path's two flows", "paper (the slides' per-path table)"),
        "packet_bytes": (PKT_BYTES, "our common defaults"),
    }
    out = params_from(p, scs)
    out["seeds"] = {"value": seeds, "source": (
        f"ours: 10 is our usual count; default {DEFAULT_SEEDS} (14 runs of 100 s per seed, 10-35 s each on "
        f"this machine); `--seeds N` for more" if not quick else "ours (--quick)")}
    return out


EXPERIMENT = Experiment(
    name="dcr-multihop", paper=BHANDARKAR_REDDY_2007,
    part='the slides "More Complex Topology"',
    module=sys.modules[__name__],
    run=run,
    default_seeds=DEFAULT_SEEDS,
    check_options=check_options,
    variants=tuple(PAPER),
    report_tables=REPORT_TABLES,
    options=("protocols", "qs", "quick"),  # the command line's --protocols, --q and --quick
    quick=QUICK,
    claims=(COLLAPSE, *WITH.values(), JAIN),
    parallel_by_default=True,
    generic_bars=False,  # the report draws the slides' three tables as grouped bars instead
    figures="superpacket.experiments.figures.dcr:dcr_multihop",
)
