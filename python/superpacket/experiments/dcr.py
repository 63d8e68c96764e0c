"""`superpacket reproduce dcr`: (Bhandarkar and Reddy, PFLDnet 2007, slides
"Packet Reordering in Highspeed Networks", "Impact of Packet Reordering When DCR is
Used", "With Congestion Only", "With Congestion & Reordering"); parameters from
our specification "TCP-DCR and high-speed TCP under reordering", `dcr`.

Dumbbell s{i} -> R1 -> R2 -> d{i}: access links 10 Gbps / 5 ms, bottleneck R1 -> R2
1 Gbps / 15 ms (RTT 50 ms, the slides'), bottleneck buffer = BDP (4167 packets of
1500 B), runs of 100 s. Protocols LTCP, HighSpeed TCP, BIC, H-TCP, each plain, with
TCP-DCR (`-dcr`) and with TCP-NCR (RFC 4653, `-ncr`), SACK loss recovery. Three parts:
`reorder` (1 flow; each data packet on R1 -> R2 delayed with probability q by an extra
N(25 ms, 8 ms), q in {0, 0.001, 0.01, 0.05, 0.1}), `congestion` (4 flows, q = 0),
`both` (4 flows, q as above; its q = 0 point is the `congestion` run itself, the same
scenario and seeds, so it is run once and listed under both names). Variants
`<protocol>[-dcr|-ncr]/<part>/q<rate>`, e.g. `bic-dcr/both/q0.01`; the NewReno-recovery
point of our specification's common defaults is `<first protocol>[-dcr]/both/q0.01/newreno`.

Metrics per run, judged over the measurement window [10 s, 100 s] (the first 10 % of
the run is the start-up transient, where a slow-start overshoot of a window of thousands
of packets can keep the buffer overflowing for seconds; the slides' claims are about
reordering, and RFC 5166 section 2 likewise separates start-up from steady state):
`utilisation_window` (bytes R1 -> R2 delivered over what it could carry), `drop_rate_window`
(R1 -> R2 drops / arrivals) and `jain_window` (Jain's index of the flows' bytes received;
1 for one flow). The whole-run figures are always beside them: `utilisation` (busy
fraction of R1 -> R2), `drop_rate`, `jain` (of the flows' goodput), with `goodput_bps`
(all flows), `retransmits` and `timeouts`.
"""

from __future__ import annotations

import functools
import itertools
import sys
from typing import Any

from superpacket import api
from superpacket.experiments.common import Sc, ms, params_from, run_seeds, same, seconds, seed_list, summarize
from superpacket.experiments.dcr_common import (
    NEWRENO_SUFFIX,
    PKT_BYTES,
    PROTOCOLS,  # noqa: F401 - re-exported: the slides' four, the default
    REORDER_MEAN_MS,
    REORDER_SD_MS,
    RESPONSES,
    bdp_pkts,
    check_positive,
    check_protocols,
    check_q,
    cwnd_series,
    jain,
    link_metrics,
    qname,
    rel_change,
    tcp_table,
    window_metrics,
)
from superpacket.experiments.record import BHANDARKAR_REDDY_2007, Claim, Experiment, Number, Quick

# Seeds: 10 is our usual count; the default is reduced so that `superpacket reproduce
# dcr` (122 runs per seed, on a local cluster of one worker per core) fits in
# 10 minutes on a 2-core machine; `--seeds N` for more.
DEFAULT_SEEDS = 2
REPORT_TABLES = {"newreno_recovery": (("our specification's NewReno-recovery figure for one point: SACK (RFC 6675) "
                                      "beside NewReno (RFC 6582) loss recovery, means over seeds."),
                                      ["protocol", "point", "utilisation_sack", "utilisation_newreno", "drop_rate_sack",
                                       "drop_rate_newreno", "jain_sack", "jain_newreno", "timeouts_sack",
                                       "timeouts_newreno"])}

QS = (0.0, 0.001, 0.01, 0.05, 0.1)
PARTS = ("reorder", "congestion", "both")
FLOWS = {"reorder": 1, "congestion": 4, "both": 4}
NEWRENO_POINT = ("both", 0.01)
SERIES_Q = 0.01  # the cwnd-over-time figure: the reorder part at this q (the first seed)
SERIES_INTERVAL_S = 0.1
RATE_BPS = 1e9
DURATION_S = 100.0
ACCESS_RATE = "10Gbps"
ACCESS_DELAY_MS = 5.0
BOTTLENECK_DELAY_MS = 15.0
RTT_S = 2 * (2 * ACCESS_DELAY_MS + BOTTLENECK_DELAY_MS) / 1e3
HOST_QUEUE_PKTS = 100_000
START_JITTER_S = 0.1
UTIL_FLOOR = 0.9  # our specification: with DCR utilisation stays above 90 %
COLLAPSE_RATIO = 0.5  # ours: "collapses" = below half of the q = 0 utilisation
MONOTONE_SLACK = 0.02  # ours: a rise of more than 2 points between q steps is no collapse "as q grows"
NO_REORDER_CHANGE = 0.05  # our specification: DCR changes utilisation and fairness by under 5 %
QUICK = Quick("20 s runs (100 s at full scale)", {"duration_s": 20.0})
#: The numbers the claims' verdicts are shown beside: the least utilisation over q and
#: the q it falls to; the largest relative change without reordering.
LEAST = Number(("min_utilisation", "at"), "min utilisation {:.3f} at {}")
LARGEST_CHANGE = Number(("max_change",), "largest change {:.1f} %", percent=True)
#: The claims, per protocol ({protocol}), part of the dumbbell ({part}: reorder, 1 flow;
#: both, 4 flows) and the largest q run ({qmax}); TCP-NCR's reported beside DCR's.
COLLAPSE = Claim("collapse-without-dcr", "{protocol}/{part}: without DCR utilisation collapses as q grows (ours, fixed "
                 f"before the first full run: utilisation at q = {{qmax:g}} below {COLLAPSE_RATIO:g} x that at q = 0, "
                 f"and no rise of more than {MONOTONE_SLACK:g} between q steps; over the measurement window, means "
                 "over seeds; the whole run beside)",
                 "utilisation over the measurement window at each q (means over seeds), at the largest q against q = 0",
                 number=Number(("ratio",), "ratio {:.2f}"))


def _floor(suffix: str, label: str) -> str:
    return (f"{{protocol}}{suffix}/{{part}}: {label} utilisation stays above {UTIL_FLOOR:.0%} up to q = {{qmax:g}} "
            "(every q; over the measurement window, judged on the mean over seeds, CI lower bounds and the whole run "
            "beside)")


def _no_change(suffix: str, what: str) -> str:
    return (f"{{protocol}}{suffix}: with congestion only (4 flows, q = 0) {what} changes utilisation and the Jain "
            f"index by under {NO_REORDER_CHANGE:.0%} (relative to {{protocol}}; over the measurement window, means "
            "over seeds; the whole run and the 1-flow point beside)")


FLOORS = {
    "-dcr": Claim("dcr-utilisation-floor", _floor("-dcr", "with DCR"),
                  "the least utilisation over the measurement window over q (means over seeds)",
                  number=LEAST),
    "-ncr": Claim("ncr-utilisation-floor",
                  _floor("-ncr", "with TCP-NCR (RFC 4653, reported beside DCR; not a must-hold)"),
                  "the least utilisation over the measurement window over q (means over seeds)", must_hold=False,
                  number=LEAST),
}
NO_CHANGES = {
    "-dcr": Claim("dcr-congestion-only", _no_change("-dcr", "DCR"),
                  "the relative change of utilisation and Jain index with 4 flows and q = 0, with the response against "
                  "without (means over seeds)", number=LARGEST_CHANGE),
    "-ncr": Claim("ncr-congestion-only", _no_change("-ncr", "TCP-NCR (beside DCR; not a must-hold)"),
                  "the relative change of utilisation and Jain index with 4 flows and q = 0, with the response against "
                  "without (means over seeds)", must_hold=False, number=LARGEST_CHANGE),
}

# our specification: the claims are judged over [WINDOW_START x duration, duration]
# ([10 s, 100 s] at full scale), the whole run reported beside
WINDOW_START = 0.1

KEYS = ("utilisation_window", "drop_rate_window", "jain_window", "utilisation", "drop_rate", "jain", "goodput_bps",
        "retransmits", "timeouts")

# The slides' dumbbell results are plots without numbers. The DCR draft
# (draft-bhandarkar-tcp-dcr-00 section 5.1) gives a table for one TCP-SACK flow
# at 8 Mb/s, RTT 104 ms, the same N(25 ms, 8 ms) model: throughput in Mb/s.
PAPER_DRAFT_8MBPS = {
    "source": "draft-bhandarkar-tcp-dcr-00 section 5.1: one flow, 8 Mb/s, RTT 104 ms, "
              "TCP-SACK (NewReno congestion control) vs TCP-DCR; not our setup (1 Gbps, 50 ms, high-speed TCPs)",
    "rate_mbps": 8.0,
    "q": [0.0, 0.01, 0.05, 0.1, 0.3],
    "sack_mbps": [7.325, 1.043, 0.571, 0.476, 0.404],
    "dcr_mbps": [7.352, 7.339, 7.185, 7.061, 7.006],
}
PAPER_NOTE = ("The slides (Bhandarkar and Reddy (PFLDnet 2007)) show the dumbbell results (utilisation against reordering rate, with "
              "congestion only, with congestion and reordering: utilisation, drop rate, Jain index) as plots "
              "without numbers, so no variant has a paper value; `paper_draft_8mbps` is the DCR draft's table "
              "(a different setup), drawn dashed as utilisation of 8 Mb/s in the report for the shape only.")


def check_options(protocols: Any = None, qs: Any = None) -> None:
    """Raises DcrInputError (one line naming the field) on a bad protocol or q."""
    check_protocols(protocols)
    check_q(qs, QS)


def variant_name(protocol: str, part: str, q: float, newreno: bool = False) -> str:
    return f"{protocol}/{part}/{qname(q)}" + (NEWRENO_SUFFIX if newreno else "")


def plan(protocols: tuple[str, ...], qs: tuple[float, ...]) -> tuple[dict[str, tuple[Any, ...]], dict[str, str]]:
    """(variant -> (cc, suffix, flows, q, recovery) of the runs, alias -> variant): the
    `both` part's q = 0 point is the `congestion` run."""
    runs: dict[str, tuple[Any, ...]] = {}
    aliases: dict[str, str] = {}
    for cc in protocols:
        for suffix in RESPONSES:
            p = f"{cc}{suffix}"
            for q in qs:
                runs[variant_name(p, "reorder", q)] = (cc, suffix, FLOWS["reorder"], q, "sack")
            runs[variant_name(p, "congestion", 0.0)] = (cc, suffix, FLOWS["congestion"], 0.0, "sack")
            for q in qs:
                if q == 0.0:
                    aliases[variant_name(p, "both", q)] = variant_name(p, "congestion", 0.0)
                else:
                    runs[variant_name(p, "both", q)] = (cc, suffix, FLOWS["both"], q, "sack")
    part, q = NEWRENO_POINT
    cc = protocols[0]  # one point, as our specification asks
    for suffix in ("", "-dcr"):  # NCR needs SACK (RFC 4653)
        runs[variant_name(f"{cc}{suffix}", part, q, newreno=True)] = (cc, suffix, FLOWS[part], q, "newreno")
        # its SACK counterpart, when --q leaves that point out of the grid
        runs.setdefault(variant_name(f"{cc}{suffix}", part, q), (cc, suffix, FLOWS[part], q, "sack"))
    return runs, aliases


def _cost(spec: tuple[Any, ...]) -> float:
    """A rough relative run time, to start the long runs first (measured: a collapsed
    flow without DCR runs in a fraction of a second, a full 1 Gbps run in 3-6 s)."""
    _cc, suffix, flows, q, _ = spec
    if q > 0 and suffix != "-dcr":
        return 0.1 * flows
    return (1.5 if q > 0 else 1.0) * (1.2 if flows > 1 else 1.0)


def scenario(cc: str, suffix: str, flows: int, q: float, rate_bps: float = RATE_BPS,
             duration_s: float = DURATION_S, recovery: str = "sack", series: bool = False) -> dict[str, Any]:
    buffer = bdp_pkts(rate_bps, RTT_S)
    sc: dict[str, Any] = {
        "name": f"dcr-{cc}{suffix}-{flows}flows-q{q:g}-{recovery}",
        "duration": f"{duration_s:g}s",
        "topology": {
            "kind": "dumbbell",
            "pairs": flows,
            "access": {"rate": ACCESS_RATE, "delay": f"{ACCESS_DELAY_MS:g}ms",
                       "queue": {"kind": "droptail", "limit": HOST_QUEUE_PKTS}},
            "bottleneck": {"rate": f"{rate_bps:.0f}bps", "delay": f"{BOTTLENECK_DELAY_MS:g}ms",
                           "queue": {"kind": "droptail", "limit": buffer}},
        },
        "tcp": tcp_table(cc, suffix, recovery),
        "traffic": [{"kind": "bulk", "from": "s{i}", "to": "d{i}", "count": flows,
                     "start_jitter": f"{START_JITTER_S:g}s"}],
    }
    if q > 0:
        sc["reorder"] = [{"links": ["R1->R2"], "q": q, "delay_mean": f"{REORDER_MEAN_MS:g}ms",
                          "delay_sd": f"{REORDER_SD_MS:g}ms"}]
    # cumulative link counters and per-flow bytes at every tenth of the run (the window
    # starts at the first); every SERIES_INTERVAL_S for the cwnd figure's runs
    tenth = f"{duration_s * WINDOW_START:g}s"
    sc["output"] = {"sample_queues": ["R1->R2"], "sample_interval": tenth,
                    "sample_flows": f"{SERIES_INTERVAL_S:g}s" if series else tenth}
    return sc


def run_point(variant: str, seed: int, runs: dict[str, tuple[Any, ...]], rate_bps: float = RATE_BPS,
              duration_s: float = DURATION_S, series: frozenset[str] = frozenset(),
              series_seed: int = 1, scs: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """One run; its scenario is `scs[variant]` (the dicts the report reads) or built. The
    `series` variants' run of `series_seed` (the first seed run) keeps the cwnd series: the
    same scenario with the flows sampled every SERIES_INTERVAL_S."""
    cc, suffix, flows, q, recovery = runs[variant]
    want_series = seed == series_seed and variant in series
    if scs and not want_series:
        sc = scs[variant]
    else:
        sc = scenario(cc, suffix, flows, q, rate_bps, duration_s, recovery, want_series)
    res = api.run(sc, seed=seed, progress=False)
    util, drop_rate, drops, arrivals = link_metrics(res, "R1->R2")
    util_w, drop_w, jain_w = window_metrics(res, "R1->R2", rate_bps, WINDOW_START * duration_s)
    fl = res.flows
    goodputs = [float(x) for x in fl["goodput_bps"].to_list()]
    out: dict[str, Any] = {
        "utilisation": util,
        "drop_rate": drop_rate,
        "jain": jain(goodputs),
        "goodput_bps": sum(goodputs),
        "retransmits": float(fl["retransmits"].sum()),
        "timeouts": float(fl["timeouts"].sum()),
        "utilisation_window": util_w,
        "drop_rate_window": drop_w,
        "jain_window": jain_w,
        "drops": drops,
        "arrivals": arrivals,
        "fast_retransmits": int(fl["fast_retransmits"].sum()),
        "conservation": res.summary["conservation"],
    }
    if want_series:
        out["series"] = cwnd_series(res)
    return out


def _series_variants(protocols: tuple[str, ...], qs: tuple[float, ...]) -> frozenset[str]:
    q = SERIES_Q if SERIES_Q in qs else max(qs)
    return frozenset(variant_name(f"{cc}{s}", "reorder", q) for cc in protocols for s in RESPONSES)


def run(seeds: Any = DEFAULT_SEEDS, protocols: Any = None, qs: Any = None, rate_bps: float = RATE_BPS,
        duration_s: float = DURATION_S, quick: bool = False, client: Any = None, progress: bool | None = None,
        **_: Any) -> dict[str, Any]:
    """`protocols`: names or a comma list (default the slides' four); `qs`: reordering
    rates added to the q = 0 baseline (default: ours); `rate_bps`, `duration_s`:
    the scale (tests); `quick`: 20 s runs. `client`: a `distributed.Client` (same
    results). `jitter_us`/`admit_syn` of the command line do not apply."""
    protos = check_protocols(protocols)
    q_all = tuple(sorted({0.0, *check_q(qs, QS)}))
    rate_bps = check_positive(rate_bps, "rate_bps")
    duration_s = check_positive(duration_s, "duration_s")
    seeds = seed_list(seeds)  # N: 1..N, or the list given
    if quick:
        duration_s = min(duration_s, QUICK.values["duration_s"])
    runs, aliases = plan(protos, q_all)
    series = _series_variants(protos, q_all)
    order = sorted(runs, key=lambda v: -_cost(runs[v]))  # longest first: two workers stay busy
    scs = {v: scenario(cc, suffix, flows, q, rate_bps, duration_s, recovery)
           for v, (cc, suffix, flows, q, recovery) in runs.items()}
    run_one = functools.partial(run_point, runs=runs, rate_bps=rate_bps, duration_s=duration_s, series=series,
                                series_seed=seeds[0], scs=scs)
    per_seed_raw, detail_raw = run_seeds(order, seeds, KEYS, run_one, client, progress)
    names = _canonical_order(protos, q_all)
    per_seed = {v: per_seed_raw[aliases.get(v, v)] for v in names}
    detail = {v: detail_raw[aliases.get(v, v)] for v in names}
    variants = summarize(per_seed)
    claims = _claims(variants, protos, q_all)
    return {
        "experiment": "dcr",
        "seeds": len(seeds),
        "seed_list": seeds,
        "params": _params(protos, scs, len(seeds), quick),
        "variants": variants,
        "paper": {},
        "paper_note": PAPER_NOTE,
        "paper_draft_8mbps": PAPER_DRAFT_8MBPS,
        "claims": claims,
        "newreno_recovery": _newreno_table(variants, protos),
        "aliases": aliases,
        "series": {v: detail[v][0]["series"] for v in sorted(series) if "series" in detail[v][0]},
        "per_run": {v: [{k: d[k] for k in ("conservation", "drops", "arrivals", "fast_retransmits")} for d in ds]
                    for v, ds in detail.items() if v not in aliases},
    }


def _canonical_order(protos: tuple[str, ...], qs: tuple[float, ...]) -> list[str]:
    out = []
    for cc in protos:
        for s in RESPONSES:
            p = f"{cc}{s}"
            out += [variant_name(p, "reorder", q) for q in qs]
            out.append(variant_name(p, "congestion", 0.0))
            out += [variant_name(p, "both", q) for q in qs]
    part, q = NEWRENO_POINT
    out += [v for s in ("", "-dcr") if (v := variant_name(f"{protos[0]}{s}", part, q)) not in out]
    out += [variant_name(f"{protos[0]}{s}", part, q, newreno=True) for s in ("", "-dcr")]
    return out


def _by_q(variants: dict[str, dict[str, Any]], p: str, part: str, qs: tuple[float, ...],
          metric: str = "utilisation") -> dict[str, float]:
    return {qname(q): variants[variant_name(p, part, q)][metric] for q in qs}


def _claims(variants: dict[str, dict[str, Any]], protos: tuple[str, ...], qs: tuple[float, ...]) -> list[dict[str, Any]]:
    claims: list[dict[str, Any]] = []
    qmax = max(qs)
    for cc in protos:
        for part in ("reorder", "both"):
            u = _by_q(variants, cc, part, qs, "utilisation_window")
            u0, umax = u[qname(0.0)], u[qname(qmax)]
            vals = list(u.values())
            rises = [b - a for a, b in itertools.pairwise(vals) if b - a > MONOTONE_SLACK]
            ratio = umax / u0 if u0 > 0 else float("nan")
            claims.append(COLLAPSE.result(
                {"protocol": cc, "part": part, "qmax": qmax},
                variant=f"{cc}/{part}",
                utilisation_q0=u0,
                **{f"utilisation_q{qmax:g}": umax},
                ratio=ratio,
                utilisation_by_q=u,
                utilisation_q0_ci95=variants[variant_name(cc, part, 0.0)]["utilisation_window_ci95"],
                **{f"utilisation_q{qmax:g}_ci95": variants[variant_name(cc, part, qmax)]["utilisation_window_ci95"]},
                utilisation_whole_run_by_q=_by_q(variants, cc, part, qs),
                holds=bool(ratio < COLLAPSE_RATIO and not rises),
            ))
    for suffix in ("-dcr", "-ncr"):
        for cc in protos:
            for part in ("reorder", "both"):
                p = f"{cc}{suffix}"
                u = _by_q(variants, p, part, qs, "utilisation_window")
                whole = _by_q(variants, p, part, qs)
                worst_q = min(u, key=lambda k: u[k])
                lo = {k: variants[variant_name(p, part, float(k[1:]))]["utilisation_window_ci95"][0] for k in u}
                claims.append(FLOORS[suffix].result(
                    {"protocol": cc, "part": part, "qmax": qmax},
                    variant=f"{p}/{part}",
                    min_utilisation=u[worst_q],
                    at=worst_q,
                    utilisation_by_q=u,
                    utilisation_ci95_low_by_q=lo,
                    # not judged: the whole run, start-up included
                    min_utilisation_whole_run=min(whole.values()),
                    utilisation_whole_run_by_q=whole,
                    holds=bool(all(x > UTIL_FLOOR for x in u.values())),
                ))
    for cc in protos:
        for suffix in ("-dcr", "-ncr"):
            p = f"{cc}{suffix}"
            r_plain, r_dcr = variants[variant_name(cc, "reorder", 0.0)], variants[variant_name(p, "reorder", 0.0)]
            c_plain, c_dcr = (variants[variant_name(cc, "congestion", 0.0)],
                              variants[variant_name(p, "congestion", 0.0)])
            # judged: the congestion-only part (4 flows, q = 0), the slides' "With Congestion
            # Only" plots, over the measurement window
            ch = {
                "utilisation_4flows_change": rel_change(c_plain["utilisation_window"], c_dcr["utilisation_window"]),
                "jain_4flows_change": rel_change(c_plain["jain_window"], c_dcr["jain_window"]),
            }
            x = suffix[1:]
            claims.append(NO_CHANGES[suffix].result(
                {"protocol": cc},
                variant=p,
                utilisation_4flows=c_plain["utilisation_window"],
                **{f"utilisation_4flows_{x}": c_dcr["utilisation_window"]},
                jain_4flows=c_plain["jain_window"],
                **{f"jain_4flows_{x}": c_dcr["jain_window"]},
                drop_rate_4flows=c_plain["drop_rate_window"],
                **{f"drop_rate_4flows_{x}": c_dcr["drop_rate_window"]},
                **ch,
                max_change=max(ch.values()),
                # not judged: the whole run, and one flow without reordering
                utilisation_4flows_whole_run=c_plain["utilisation"],
                **{f"utilisation_4flows_whole_run_{x}": c_dcr["utilisation"]},
                jain_4flows_whole_run=c_plain["jain"],
                **{f"jain_4flows_whole_run_{x}": c_dcr["jain"]},
                jain_4flows_whole_run_change=rel_change(c_plain["jain"], c_dcr["jain"]),
                utilisation_1flow=r_plain["utilisation_window"],
                **{f"utilisation_1flow_{x}": r_dcr["utilisation_window"]},
                utilisation_1flow_change=rel_change(r_plain["utilisation_window"], r_dcr["utilisation_window"]),
                holds=bool(all(c < NO_REORDER_CHANGE for c in ch.values())),
            ))
    return claims


def _newreno_table(variants: dict[str, dict[str, Any]], protos: tuple[str, ...]) -> list[dict[str, Any]]:
    """our common defaults: the NewReno-recovery figure for one point beside SACK's."""
    part, q = NEWRENO_POINT
    rows = []
    for cc in protos[:1]:
        for s in ("", "-dcr"):
            sack = variants[variant_name(f"{cc}{s}", part, q)]
            nr = variants[variant_name(f"{cc}{s}", part, q, newreno=True)]
            rows.append({"protocol": f"{cc}{s}", "point": f"{part}/{qname(q)}",
                         **{f"{m}_sack": sack[m] for m in ("utilisation", "drop_rate", "jain", "timeouts")},
                         **{f"{m}_newreno": nr[m] for m in ("utilisation", "drop_rate", "jain", "timeouts")}})
    return rows


def _bps(text: str) -> float:
    """The bottleneck's exact rate string ("1000000000bps") in bit/s."""
    if not text.endswith("bps") or not text.removesuffix("bps").isdigit():
        raise ValueError(f"{text!r}: dcr writes the bottleneck rate as whole bit/s")
    return float(text.removesuffix("bps"))


def _params(protos: tuple[str, ...], scs: dict[str, dict[str, Any]], seeds: int,
            quick: bool) -> dict[str, dict[str, Any]]:
    """The summary's `params`: the scenario's numbers read from the runs' scenarios `scs`
    (variant -> the scenario that ran; the cwnd-figure runs of the first seed sample the
    flows more often, nothing reported here), the rest as written here."""
    names = list(scs)
    first = names[0]
    rate = _bps(same(*(scs[v]["topology"]["bottleneck"]["rate"] for v in names)))
    dur = seconds(same(*(scs[v]["duration"] for v in names)))
    full_rate, full_dur = rate == RATE_BPS, dur == DURATION_S
    bn, acc = "topology.bottleneck", "topology.access"
    reorder = [v for v in names if "reorder" in scs[v]]

    def rtt_ms(*d: str) -> float:
        k = len(names)
        return float(2 * (2 * ms(same(*d[:k])) + ms(same(*d[k:]))))

    def q_of(v: str) -> float:
        r = scs[v].get("reorder")
        return float(r[0]["q"]) if r else 0.0

    def flows() -> dict[str, int]:
        out: dict[str, list[int]] = {}
        for v in names:
            out.setdefault(v.split("/")[1], []).append(scs[v]["topology"]["pairs"])
        return {part: same(*pairs) for part, pairs in out.items()}

    delays = [f"{v}:{acc}.delay" for v in names] + [f"{v}:{bn}.delay" for v in names]
    p: dict[str, tuple[Any, str]] = {
        "topology": (Sc(f"{first}:topology.kind", f"{first}:traffic[0].from", f"{first}:traffic[0].to",
                        fmt=lambda k, a, b: f"{k} {a} -> R1 -> R2 -> {b}"), "our specification"),
        "rtt_ms": (Sc(*delays, fmt=rtt_ms), "paper (slides: RTT of the flow 50 ms)"),
        "bottleneck": (Sc(*(f"{v}:{bn}.delay" for v in names),
                          fmt=lambda *d: f"R1->R2 {rate / 1e6:g} Mbps, {ms(same(*d)):g} ms"),
                       "our specification (1 Gbps); delay ours (RTT 50 ms = 2 x (5 + 15 + 5) ms)" if full_rate
                       else "ours (small scale); delay ours"),
        "access_links": (Sc(*(f"{v}:{acc}" for v in names),
                            fmt=lambda *a: same(*(f"{x['rate']}, {ms(x['delay']):g} ms, "
                                                  f"{'DropTail' if x['queue']['kind'] == 'droptail' else x['queue']['kind']} "
                                                  f"{x['queue']['limit']} packets" for x in a))),
                         "ours (fast, never the bottleneck; no loss before R1)"),
        "buffer_pkts": (Sc(*(f"{v}:{bn}.queue.limit" for v in names)), "our specification (buffer = BDP, 1500 B packets)"),
        "duration_s": (dur, "our specification" if full_dur else "ours (--quick or small scale)"),
        "protocols": (Sc(*(f"{v}:tcp.cc" for v in names), fmt=lambda *c: list(dict.fromkeys(c))),
                      "paper (LTCP, HighSpeed, BIC, H-TCP)"),
        "responses": ("plain, -dcr (TCP-DCR), -ncr (TCP-NCR, RFC 4653)", "our specification"),
        "q": (sorted({q_of(v) for v in names if v.split("/")[1] == "reorder"}), "our specification (the slides' plot)"),
        "flows": (flows(), "our specification"),
        "start_jitter_s": (Sc(*(f"{v}:traffic[0].start_jitter" for v in names), fmt=lambda *j: seconds(same(*j))),
                           "ours (flows start uniform in [0, 0.1) s so seeds differ without reordering)"),
        "reorder_model": (Sc(*(f"{v}:reorder[0]" for v in reorder), fmt=lambda *r: same(*(
            f"each data packet on {' '.join(x['links'])} with probability q gets an extra delay from "
            f"N({ms(x['delay_mean']):g} ms, {ms(x['delay_sd']):g} ms), redrawn when negative, after the wire "
            f"(later packets overtake it); ACKs not reordered" for x in r))) if reorder else (
            f"each data packet on R1->R2 with probability q gets an extra delay from N({REORDER_MEAN_MS:g} ms, "
            f"{REORDER_SD_MS:g} ms), redrawn when negative, after the wire (later packets overtake it); ACKs not "
            "reordered"), "paper (slides: uniform choice, N(25 ms, 8 ms)); placement our reordering model"),
        "recovery": ("SACK (RFC 2018 + RFC 6675)", "our common defaults (high-speed experiments)"),
        "newreno_point": ((f"{protos[0]} and {protos[0]}-dcr at {NEWRENO_POINT[0]}/{qname(NEWRENO_POINT[1])} with "
                           f"NewReno recovery (RFC 6582), variants .../newreno"),
                          "our specification (one point); the point ours"),
        "dcr": (("tau = 1 SRTT from the first dupack; response from the flight size at the first dupack; one new "
                "segment per dupack during tau"), "paper (slides: tau one RTT); draft-bhandarkar-tcp-dcr-00 defaults"),
        "ncr": ("Careful Limited Transmit (LT_F 2/3), DupThresh rounded up", "RFC 4653"),
        "congestion_controls": ("simulator defaults (tcp/cc/)", "each algorithm's published source"),
        "host": (("Linux's (`[tcp] host = \"linux\"`): SACK recovery with PRR (RFC 6937), scoreboard kept "
                  "across a timeout, Linux's RTO formula, NIC refusals held unsent, TCP Small Queues"),
                 ("our specification (SACK 'as on the Linux and FreeBSD stacks those papers measured'); "
                  "ns-2's bare agent before 2026-11-27")),
        "tcp": ("MSS 1460 B, initial cwnd 10, min RTO 200 ms, delayed ACK off, no rwnd limit",
                "our common defaults"),
        "measurement_window": ((f"[{WINDOW_START:g} x duration, duration] ([10 s, 100 s] at full scale): "
                                "utilisation (bytes R1->R2 delivered over what it could carry), drop rate and "
                                "Jain index of the flows' bytes received; the claims are judged over it"),
                               "our specification (the start-up transient left out, as RFC 5166 section 2)"),
        "utilisation": ("busy fraction of R1->R2 over the whole run (start-up included), always beside", "ours"),
        "drop_rate": ("R1->R2 drops / R1->R2 arrivals", "ours (the slides' 'Bottleneck Link Buffer Drop Rate')"),
        "jain": ("Jain's index of the flows' goodput over the run", "paper (the slides' Jain Fairness Index)"),
        "both_q0": ("both/q0 is the congestion/q0 run (4 flows, q = 0: the same scenario)", "ours"),
        "packet_bytes": (PKT_BYTES, "our common defaults"),
    }
    out = params_from(p, scs)
    out["seeds"] = {"value": seeds, "source": (
        f"ours: 10 is our usual count; default {DEFAULT_SEEDS} so that the default run (122 runs of 100 s per "
        f"seed on a local cluster of one worker per core) fits in 10 minutes on 2 cores; "
        f"`--seeds N` for more" if not quick else "ours (--quick)")}
    return out


EXPERIMENT = Experiment(
    name="dcr", paper=BHANDARKAR_REDDY_2007,
    part='the dumbbell slides ("Packet Reordering Only", "With Congestion & Reordering")',
    module=sys.modules[__name__],
    run=run,
    default_seeds=DEFAULT_SEEDS,
    check_options=check_options,
    report_tables=REPORT_TABLES,
    options=("protocols", "qs", "quick"),  # the command line's --protocols, --q and --quick
    quick=QUICK,
    claims=(COLLAPSE, *FLOORS.values(), *NO_CHANGES.values()),
    parallel_by_default=True,  # the CLI runs it on a local Dask cluster unless told otherwise
    generic_bars=False,  # 100+ variants: the report draws the per-protocol figures instead
    figures="superpacket.experiments.figures.dcr:dcr",
)
