"""`superpacket reproduce jumbo`: Li (UCB/EECS-2013-83) section 4.4, Fig. 6a-b; parameters from
our specification "jumbo (section 4.4)".

50 senders s0..s49 -> R -> d (access links 100 Mbps / 20 ms, R->d 100 Mbps / 20 ms);
the queue at R->d is the super-packet router (t = 10, EPOCH 80 ms) with a buffer of
20 packets (a jumbo packet counts as one, as in ns-2) or, in the `-bytes` variants, of
30,000 B (20 x 1500 B). s0..s48 run one long flow each (initial and max cwnd 10, starts
uniform in [0, 1) s). s49 starts at 1 s: `jumbo` sends 14,600 B segments with initial
and max cwnd 5; `sp` sends normal segments cut into consecutive super-packets of len 10
with initial and max cwnd 50 (the same bytes in flight). The run ends at 10 s.

Throughput: the paper measures the special flow from its 2nd packet; we approximate
that by its start time (1 s), i.e. special_kBps = bytes_received / (duration - 1 s) / 1000.
A regular flow's throughput is bytes_received / (duration - its start) / 1000.
"""

from __future__ import annotations

import functools
import sys
from typing import Any

from superpacket import api
from superpacket.experiments.common import (
    PAPER_HOST,
    Sc,
    interval_kind,
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
    "jumbo": {"special_kBps": 2280.0, "regular_mean_kBps": 178.0, "ratio": 2280.0 / 178.0},
    "sp": {"special_kBps": 1577.0, "regular_mean_kBps": 223.0, "ratio": 1577.0 / 223.0},
}

VARIANTS = ("jumbo", "sp", "jumbo-bytes", "sp-bytes")
CLAIM_RATIO = 3.0
#: The claim, per variant: judged on the 95 % CI of the per-seed ratio special / mean
#: regular, not on its mean ({interval}: the interval's kind, which the seeds set).
RATIOS = {v: Claim(f"{v}-ratio",
                   f"{v}: special flow gets >= {CLAIM_RATIO:g}x the mean regular flow, judged on the lower bound of "
                   f"the per-seed ratio's {{interval}} (paper: {PAPER[v.partition('-')[0]]['ratio']:.1f}x)",
                   "the lower bound of the interval of the per-seed ratio of the special flow's rate to the mean "
                   "regular flow's",
                   number=Number(("ratio", "ratio_ci95"), "ratio {0:.2f}, interval [{1[0]:.2f}, {1[1]:.2f}]"))
          for v in VARIANTS}

# The scenario's numbers, each written once: the builder uses them and the report reads
# them back from the scenario that ran (PARAMS' paths), so the two cannot differ.
LINK_RATE = "100Mbps"  # access and R->d
LINK_DELAY = "20ms"
REGULAR_SENDERS = 49
BUFFER_PKTS = 20
THRESHOLD_T = 10
BUFFER_BYTES = 30000  # the byte-counted variants: 20 x 1500 B
THRESHOLD_BYTES = 15000
EPOCH = "80ms"
REGULAR_CWND = 10  # initial and max
REGULAR_START_JITTER = "1s"
SPECIAL_START_S = 1.0
JUMBO_MSS = 14600
JUMBO_CWND = 5  # initial and max
SP_LEN = 10
SP_CWND = 50  # initial and max
SERIES_INTERVAL_S = 0.25

# paths in the scenario dict (sweep --param syntax); `<variant>:` picks the variant, none the
# first (jumbo); a parameter read from several fields reports their one value
_Q = "topology.receiver_link.queue"
_PKT, _BYTE = ("jumbo", "sp"), ("jumbo-bytes", "sp-bytes")
PARAMS: dict[str, tuple[Any, str]] = {
    "regular_senders": (Sc("traffic[0].count"), "paper"),
    "links": (Sc("topology.sender_link.rate", "topology.receiver_link.rate", "topology.sender_link.delay",
                 "topology.receiver_link.delay", fmt=lambda r1, r2, d1, d2: f"{same(r1, r2)}, {same(d1, d2)} "
                 "(access and R->d)"), "our specification"),
    "buffer_pkts": (Sc(*(f"{v}:{_Q}.limit" for v in _PKT)), "paper (packet-counted, ns-2)"),
    "buffer_bytes": (Sc(*(f"{v}:{_Q}.limit" for v in _BYTE)), "our specification (byte-counted variants, 20 x 1500 B)"),
    "threshold_t": (Sc(*(f"{v}:{_Q}.threshold" for v in _PKT)), "paper"),
    "epoch_ms": (Sc(*(f"{v}:{_Q}.epoch" for v in VARIANTS), fmt=lambda *e: ms(same(*e))), "paper"),
    "regular_cwnd": (Sc("traffic[0].tcp.init_cwnd", "traffic[0].tcp.max_cwnd"), "paper (initial and max)"),
    "regular_start_jitter_s": (Sc("traffic[0].start_jitter", fmt=seconds), "our specification"),
    "special_start_s": (Sc(*(f"{v}:traffic[1].start" for v in VARIANTS), fmt=lambda *t: seconds(same(*t))),
                        "paper"),
    "jumbo_mss": (Sc("jumbo:traffic[1].tcp.mss"), "paper"),
    "jumbo_cwnd": (Sc("jumbo:traffic[1].tcp.init_cwnd", "jumbo:traffic[1].tcp.max_cwnd"), "paper (initial and max)"),
    "sp_len": (Sc("sp:traffic[1].tcp.sp_len"), "paper"),
    "sp_cwnd": (Sc("sp:traffic[1].tcp.init_cwnd", "sp:traffic[1].tcp.max_cwnd"), "paper (initial and max)"),
    "throughput_from": ("special flow's start time (paper: its 2nd packet)", "ours (approximation)"),
    "duration_s": (Sc(*(f"{v}:duration" for v in VARIANTS), fmt=lambda *d: seconds(same(*d))),
                   "paper (run ends at 10 s)"),
}


def scenario(variant: str, duration_s: float = 10.0) -> dict[str, Any]:
    kind, _, unit = variant.partition("-")
    if unit == "bytes":
        queue: dict[str, Any] = {"kind": "superpacket", "unit": "bytes", "limit": BUFFER_BYTES,
                                 "threshold": THRESHOLD_BYTES, "epoch": EPOCH}
    else:
        queue = {"kind": "superpacket", "limit": BUFFER_PKTS, "threshold": THRESHOLD_T, "epoch": EPOCH}
    if kind == "jumbo":
        special: dict[str, Any] = {"mss": JUMBO_MSS, "init_cwnd": JUMBO_CWND, "max_cwnd": JUMBO_CWND}
    else:
        special = {"superpacket": "runs", "sp_len": SP_LEN, "init_cwnd": SP_CWND, "max_cwnd": SP_CWND}
    link = {"rate": LINK_RATE, "delay": LINK_DELAY}
    return {
        "name": f"jumbo-{variant}",
        "duration": f"{duration_s}s",
        "topology": {
            "kind": "star",
            "senders": REGULAR_SENDERS + 1,
            "sender_link": link,
            "receiver_link": {**link, "queue": queue},
        },
        "tcp": {"host": PAPER_HOST},
        "traffic": [
            {"kind": "bulk", "from": "s{i}", "to": "d", "count": REGULAR_SENDERS,
             "start_jitter": REGULAR_START_JITTER, "tcp": {"init_cwnd": REGULAR_CWND, "max_cwnd": REGULAR_CWND}},
            {"kind": "bulk", "from": f"s{REGULAR_SENDERS}", "to": "d", "start": f"{SPECIAL_START_S}s",
             "tcp": special},
        ],
        "output": {"sample_flows": f"{SERIES_INTERVAL_S}s"},
    }


def scenarios(duration_s: float = 10.0) -> dict[str, dict[str, Any]]:
    """Every variant's scenario: built once per run, run and read for the report."""
    return {v: scenario(v, duration_s) for v in VARIANTS}


def params(scs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The summary's `params`, read from the scenarios that ran."""
    return params_from(PARAMS, scs)


def throughput_series(res: api.Results, special_id: int) -> dict[str, list[float]]:
    """Fig. 6: the special flow's and the mean regular flow's throughput (kB/s) in each
    sampling interval."""
    fs = res.flow_series.sort(["flow_id", "t_s"])
    ts = sorted(set(fs["t_s"].to_list()))
    by_flow: dict[int, list[int]] = {}
    for fid, b in zip(fs["flow_id"].to_list(), fs["bytes_received"].to_list(), strict=True):
        by_flow.setdefault(fid, []).append(b)
    out: dict[str, list[float]] = {"t_s": ts[1:], "special_kBps": [], "regular_mean_kBps": []}
    for k in range(1, len(ts)):
        dt = ts[k] - ts[k - 1]
        rates = {f: (b[k] - b[k - 1]) / dt / 1000.0 for f, b in by_flow.items()}
        out["special_kBps"].append(rates[special_id])
        reg = [r for f, r in rates.items() if f != special_id]
        out["regular_mean_kBps"].append(sum(reg) / len(reg))
    return out


def run_variant(variant: str, seed: int, duration_s: float = 10.0,
                scs: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """One run of `variant`: its scenario in `scs` (the dicts the report reads) or built."""
    sc = scs[variant] if scs else scenario(variant, duration_s)
    res = api.run(sc, seed=seed, progress=False)
    fl = res.flows
    special_src = sc["traffic"][1]["from"]
    sp = fl.filter(fl["src"] == special_src)
    reg = fl.filter(fl["src"] != special_src)
    duration_s, start_s = seconds(sc["duration"]), seconds(sc["traffic"][1]["start"])  # as ran
    special = float(sp["bytes_received"].sum()) / (duration_s - start_s) / 1000.0
    reg_kbps = [b / (duration_s - s) / 1000.0 for b, s in zip(reg["bytes_received"].to_list(),
                                                            reg["start_s"].to_list(), strict=True)]
    regular = sum(reg_kbps) / len(reg_kbps)
    c = {cn: v for ln, cn, v in res.queue_counters.iter_rows() if ln == "R->d"}
    return {
        "series": throughput_series(res, int(sp["flow_id"][0])),
        "special_kBps": special,
        "regular_mean_kBps": regular,
        "ratio": special / regular if regular > 0 else float("inf"),
        "special_timeouts": int(sp["timeouts"].sum()),
        "sp_admitted": c.get("sp_admitted", 0.0),
        "sp_denied": c.get("sp_denied", 0.0),
        "conservation": res.summary["conservation"],
    }


def run(seeds: Any = 10, duration_s: float = 10.0, client: Any = None, **_: Any) -> dict[str, Any]:
    """`jitter_us` and `admit_syn` of the command line do not apply here. `client`: a
    `distributed.Client` to run the seeds on (same results)."""
    seeds = seed_list(seeds)  # N: 1..N, or the list given
    keys = ("special_kBps", "regular_mean_kBps", "ratio", "special_timeouts", "sp_admitted", "sp_denied")
    scs = scenarios(duration_s)
    per_seed, detail = run_seeds(VARIANTS, seeds, keys,
                                 functools.partial(run_variant, duration_s=duration_s, scs=scs), client)
    variants = summarize(per_seed)
    claims = []
    for v in VARIANTS:
        # judged on the 95 % CI of the per-seed ratio special / mean regular, not on
        # its mean: the claim holds iff the CI's lower bound is >= CLAIM_RATIO (with fewer
        # than 3 seeds the interval is the values' min-max, so their least)
        ratio = variants[v]["ratio"]
        lo, hi = variants[v]["ratio_ci95"]
        claims.append(RATIOS[v].result(
            {"interval": interval_kind(len(seeds))},
            variant=v,
            special_kBps=variants[v]["special_kBps"],
            regular_mean_kBps=variants[v]["regular_mean_kBps"],
            ratio=ratio,
            ratio_ci95=[lo, hi],
            ratio_ci95_low=lo,
            holds=bool(lo >= CLAIM_RATIO),
        ))
    return {
        "experiment": "jumbo",
        "seeds": len(seeds),
        "seed_list": seeds,
        "params": params(scs),
        "variants": variants,
        "paper": {**PAPER, "jumbo-bytes": PAPER["jumbo"], "sp-bytes": PAPER["sp"]},
        "claims": claims,
        "per_run": {v: [{"conservation": d["conservation"]} for d in ds] for v, ds in detail.items()},
        # Fig. 6a-b redrawn from our data: throughput over time of the first seed
        "series": {v: ds[0]["series"] for v, ds in detail.items()},
    }


EXPERIMENT = Experiment(
    name="jumbo", paper=LI_2013,
    part="section 4.4, Fig. 6a-b",
    module=sys.modules[__name__],
    run=run,
    claims=tuple(RATIOS.values()),
    variants=VARIANTS,
    figures="superpacket.experiments.figures.jumbo:jumbo",
)
