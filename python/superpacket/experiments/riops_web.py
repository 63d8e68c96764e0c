"""`superpacket reproduce riops-web`: Guo and Matta (ICNP 2001), slides "Simulations setup" to "Goodput"
(web traffic: response time relative to RED, fairness of foreground flows, queue size,
drop/mark rate, goodput); parameters from our specification "riops-web".

Dumbbell s{i} -> R1 -> R2 -> d{i}: access links 100 Mbps / 1 ms, bottleneck R1 -> R2
8 Mbps (Exp1) or 4.8 Mbps (Exp2) / 48 ms, so RTT 100 ms and BDP 200 or 120 packets.
Web servers s10..s19 serve web clients d10..d19 (web model of traffic/web.rs: sessions
of pages of objects, one TCP connection per object, data from server to client); the
number of sessions puts the offered load at 90 % of the bottleneck (printed). Foreground:
10 short flows (10 packets) every 25 s and 10 long flows (1000 packets) every 125 s from
s0..s9 to d0..d9. Queues at R1 -> R2: `droptail` (1.5 BDP), `red` and `riops` (2.5 BDP,
the slides' parameters, ECN on; RIO-PS packets tagged by one edge classifier on the
servers' links, SLR 3, T_c 10 s, T_u 1 s), `superpacket` (the super-packet router of
Li (UCB/EECS-2013-83) with the RED buffer, t = B / 2, EPOCH 80 ms, SYNs admitted; every flow sends
runs of 10 packets as super-packets). Runs: 4000 s with 2000 s warm-up (`--quick`: 600 s,
200 s). Experiments: `exp1-ito3`, `exp1-ito1` (initial RTO 1 s), `exp2-ito3`.

Object size: our specification gives bounded Pareto (min 4 B, max 200 KB, shape 1.2). Its mean
is 21 B, so 90 % of 8 Mbps would need ~90,000 sessions and ~43,000 connections per
second, each a 44 B packet plus a SYN (more wire bytes than the link carries): not a
simulation that can run here. The paper's ns-2 TCP sends whole 500 B packets, so an
object below one segment costs one full packet there; we take the minimum as one
segment, 460 B (E[S] = 1.94 KB, ~874 sessions, ~410 connections/s at Exp1).
`obj_min_bytes` changes it (4000 gives E[S] = 13.1 KB, 132 sessions).

Response time: FCT of the web objects that start after the warm-up and complete before
the end (SYN sent until the client holds every byte), by size bucket: short <= 10
packets (the foreground short size), medium 11-100, long > 100 (ours; the slides plot
against size). Fairness:
Jain's index of the response times of each batch of 10 foreground flows, averaged over
the batches after the warm-up; `fg_*_cov`: coefficient of variation of the foreground
transfer times after the warm-up. Goodput: payload bytes the receivers hold at the end,
all flows. Series (the first seed, 1 by default): bottleneck queue length and drop+mark rate per 10 s.
"""

from __future__ import annotations

import functools
import math
import sys
from typing import Any

from superpacket import api
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
from superpacket.experiments.record import GUO_MATTA_2001, Claim, Experiment, Number, Quick
from superpacket.experiments.riops_common import (
    CLASSIFIER,
    HEADER,
    MSS,
    TCP,
    bdp_pkts,
    counters,
    cov,
    jain,
    queue,
    queue_params,
    tcp_params,
)

EXPERIMENTS: dict[str, dict[str, Any]] = {
    "exp1-ito3": {"rate_mbps": 8.0, "init_rto": "3s"},
    "exp1-ito1": {"rate_mbps": 8.0, "init_rto": "1s"},
    "exp2-ito3": {"rate_mbps": 4.8, "init_rto": "3s"},
}
SCHEMES = ("droptail", "red", "riops", "superpacket")

PAPER: dict[str, dict[str, float]] = {
    "exp1-ito3/droptail": {"goodput_bytes": 4207841},
    "exp1-ito3/red": {"goodput_bytes": 4264890},
    "exp1-ito3/riops": {"goodput_bytes": 4255711},
    "exp1-ito1/droptail": {"goodput_bytes": 4234309},
    "exp1-ito1/red": {"goodput_bytes": 4254291},
    "exp1-ito1/riops": {"goodput_bytes": 4244158},
    "exp2-ito3/droptail": {"goodput_bytes": 4718311},
    "exp2-ito3/red": {"goodput_bytes": 4730029},
    "exp2-ito3/riops": {"goodput_bytes": 4723774},
}
# the slides' response-time cuts of RIO-PS against RED (percent, ranges)
PAPER_CUTS = {
    "exp1-ito3": {"short": (25.0, 30.0), "medium": (25.0, 30.0)},
    "exp1-ito1": {"short": (10.0, 15.0), "medium": (15.0, 25.0)},
}

DURATION_S, WARMUP_S = 4000.0, 2000.0  # the paper's
QUICK = Quick("600 s runs with 200 s warm-up (4000 s and 2000 s at full scale)",
              {"duration_s": 600.0, "warmup_s": 200.0})
#: The numbers the claims' verdicts are shown beside: RIO-PS's cut against RED's, or
#: RIO-PS's over RED's.
CUT = Number(("improvement_pct",), against="RED's")
RATIO = Number(("ratio",), "ratio {:.2f}")
#: The claims, per experiment ({exp}: exp1-ito3, ...) where RED and RIO-PS both run.
SHORT = Claim("short-response", "{exp}: RIO-PS short-flow response time below RED's",
              "the short flows' mean response time, RIO-PS's against RED's (means over seeds)", number=CUT)
LONG = Claim("long-response", "{exp}: RIO-PS long-flow response time within 10 % of RED's",
             "the long flows' mean response time, RIO-PS's over RED's (means over seeds)", number=RATIO)
GOODPUT = Claim("goodput", "{exp}: RIO-PS goodput within 2 % of RED's",
                "goodput in bytes, RIO-PS's over RED's (means over seeds)", number=RATIO)
MEDIUM = Claim("medium-response-cut", "(paper, not a must-hold) {exp}: RIO-PS cuts the medium-flow response "
               "time by {cut:g} % or more vs RED",
               "the medium flows' mean response time, RIO-PS's cut against RED's (means over seeds), where the paper "
               "gives one", must_hold=False, number=CUT)

ACCESS_DELAY_S = 0.001
BOTTLENECK_DELAY_S = 0.048
RTT_S = 2 * (2 * ACCESS_DELAY_S + BOTTLENECK_DELAY_S)
N_FG = 10
N_WEB = 10  # servers s10..s19, clients d10..d19
LOAD = 0.9
SHORT_MAX_PKTS = 10
MEDIUM_MAX_PKTS = 100
SERIES_BIN_S = 10.0

WEB = {"inter_page_s": 9.5, "inter_object_s": 0.05, "objects_min": 2, "objects_max": 7, "size_max_bytes": 200_000.0,
       "shape": 1.2}

ACCESS = {"rate": "100Mbps", "delay": f"{ACCESS_DELAY_S * 1e3:g}ms"}  # the delay RTT_S (the BDP) assumes
FG_SHORT = (10, 25)  # foreground: 10-packet flows every 25 s
FG_LONG = (1000, 125)  # and 1000-packet flows every 125 s
FG_JITTER = "1ms"
SP_LEN = 10  # super-packet senders: runs of 10


def param_table(names: list[str]) -> dict[str, tuple[Any, str]]:
    """The summary's parameters; an `Sc` is read from the runs' scenarios `names`
    (`<exp>/<scheme>`, the ones that ran; paths in sweep --param syntax)."""
    bn = "topology.bottleneck"
    web = [f"{n}:traffic[0]" for n in names]
    by_exp = {e: [n for n in names if n.startswith(f"{e}/")] for e in dict.fromkeys(n.split("/")[0] for n in names)}
    ecn = [n for n in names if n.split("/")[1] in ("red", "riops")]
    sp = [n for n in names if n.endswith("/superpacket")]

    def topology(*f: Any) -> str:
        k = len(names)
        kind, rate, delay, bdelay = (same(*f[i * k:(i + 1) * k]) for i in range(4))
        rtt = 2 * (2 * seconds(delay) + seconds(bdelay))
        return f"{kind}; access {rate} {delay}; bottleneck {bdelay} (RTT {rtt * 1e3:g} ms)"

    def rates(*f: Any) -> str:
        # one entry per experiment of another rate: "8 Mbps (Exp1, BDP 200)"
        out: dict[str, str] = {}
        for e, r in zip(by_exp, f, strict=True):
            label = f"Exp{e.split('-')[0].removeprefix('exp')}"
            bdp = bdp_pkts(float(r.removesuffix("Mbps")) * 1e6, RTT_S)
            out.setdefault(f"{spaced(r)} ({label}, BDP {bdp:g})", label)
        return ", ".join(out)

    def web_model(*f: Any) -> str:
        return same(*(f"inter-page exp {seconds(w['inter_page']):g} s, inter-object exp {seconds(w['inter_object']):g}"
                      f" s, objects/page U{{{w['objects_min']}..{w['objects_max']}}}, HTTP 1.0" for w in f))

    def superpacket(*f: Any) -> str:
        k = len(sp)
        q, red, sp_len = f[:k], f[k:2 * k], f[2 * k:]
        texts = set()
        for x, r, n in zip(q, red, sp_len, strict=True):
            if x["limit"] != r or x["threshold"] != x["limit"] // 2:
                raise ValueError(f"superpacket queue {x} is not limit = RED's B ({r}), t = B/2")
            syn = ", admit SYN" if x["admit_syn"] else ""
            texts.add(f"limit = RED's B, t = B/2, EPOCH {spaced(x['epoch'])}{syn}, senders: runs of {n}")
        return same(*texts)

    out: dict[str, tuple[Any, str]] = {
        "topology": (Sc(*(f"{n}:topology.kind" for n in names), *(f"{n}:topology.access.rate" for n in names),
                        *(f"{n}:topology.access.delay" for n in names), *(f"{n}:{bn}.delay" for n in names),
                        fmt=topology), "our specification"),
        "bottleneck_rate": (Sc(*(f"{ns[0]}:{bn}.rate" for ns in by_exp.values()), fmt=rates),
                            "paper (BDP), our specification"),
        "web_model": (Sc(*web, fmt=web_model), "paper"),
        "object_size": (Sc(*(f"{w}.size_max_bytes" for w in web), *(f"{w}.shape" for w in web),
                           fmt=lambda *f: (f"bounded Pareto, max {same(*f[:len(web)]) / 1000:g} KB, shape "
                                           f"{same(*f[len(web):]):g}")), "paper"),
        "object_size_min_bytes": (Sc(*(f"{w}.size_min_bytes" for w in web)),
                                  "ours: one segment; our specification's 4 B is infeasible (module doc)"),
        "offered_load": (LOAD, "our specification (90 % of the bottleneck, wire bytes incl. headers and SYN)"),
        "pools": (Sc(*web, fmt=lambda *w: same(*(
            f"{x['server_count']} servers s{x['server_first']}..s{x['server_first'] + x['server_count'] - 1}, "
            f"{x['client_count']} clients d{x['client_first']}..d{x['client_first'] + x['client_count'] - 1}; "
            f"foreground s0..s{x['server_first'] - 1} -> d0..d{x['client_first'] - 1}" for x in w))), "ours"),
        "foreground": ((f"{N_FG} x {FG_SHORT[0]} pkts every {FG_SHORT[1]} s, {N_FG} x {FG_LONG[0]} pkts every "
                        f"{FG_LONG[1]} s, within {spaced(FG_JITTER)}"), "paper (jitter ours)"),
        "ecn": (Sc(*(f"{n}:tcp.ecn" for n in ecn), *(f"{n}:{bn}.queue.ecn" for n in ecn),
                   fmt=lambda *e: "on for RED and RIO-PS" if all(e) else f"RED and RIO-PS: {e}"), "paper"),
        "duration_s": (Sc(*(f"{n}:duration" for n in names), fmt=lambda *d: seconds(same(*d))), "paper"),
        "warmup_s": (2000.0, "paper"),
        "size_buckets_pkts": ((f"short <= {SHORT_MAX_PKTS}, medium {SHORT_MAX_PKTS + 1}-{MEDIUM_MAX_PKTS}, "
                               f"long > {MEDIUM_MAX_PKTS}"), "ours"),
        **tcp_params(names),
        **queue_params([n for n in names if n.endswith("/red")], [n for n in names if n.endswith("/riops")]),
    }
    if sp:
        out["superpacket"] = (Sc(*(f"{n}:{bn}.queue" for n in sp), *(f"{n.split('/')[0]}/red:{bn}.queue.limit"
                                                                        for n in sp),
                                 *(f"{n}:tcp.sp_len" for n in sp), fmt=superpacket), "ours")
    # the initial RTO differs by experiment (exp1-ito1 runs with 1 s): reported per experiment
    out["init_rto_s"] = (Sc(*(f"{n}:tcp.init_rto" for ns in by_exp.values() for n in ns),
                            fmt=lambda *t: _per_exp(by_exp, t)), "paper (ITO; Exp1 also with ITO 1 s)")
    return out


def _per_exp(by_exp: dict[str, list[str]], values: tuple[str, ...]) -> dict[str, float]:
    """The runs' init_rto per experiment (each experiment's runs hold one value)."""
    out, k = {}, 0
    for e, ns in by_exp.items():
        out[e] = seconds(same(*values[k:k + len(ns)]))
        k += len(ns)
    return out


def bp_tail(y: float, lo: float, hi: float, a: float) -> float:
    """P(S > y) of the bounded Pareto on [lo, hi] with shape a."""
    if y < lo:
        return 1.0
    if y >= hi:
        return 0.0
    return (lo**a * y ** (-a) - (lo / hi) ** a) / (1.0 - (lo / hi) ** a)


def bp_mean(lo: float, hi: float, a: float) -> float:
    """E[S] (Harchol-Balter 2002; traffic/web.rs)."""
    return lo**a / (1.0 - (lo / hi) ** a) * a / (a - 1.0) * (lo ** (1.0 - a) - hi ** (1.0 - a))


def wire_bytes_per_object(lo: float, hi: float, a: float) -> float:
    """Mean bytes an object puts on the bottleneck: payload + 40 B per data packet + a SYN:
    E[S] + 40 E[ceil(S / 460)] + 40, with E[ceil(S/m)] = sum_k P(S > k m)."""
    pkts = sum(bp_tail(k * MSS, lo, hi, a) for k in range(int(hi // MSS) + 2))
    return bp_mean(lo, hi, a) + HEADER * pkts + HEADER


def sessions_for_load(rate_bps: float, lo: float, load: float = LOAD) -> tuple[int, dict[str, float]]:
    """Sessions N with N x pages/s x objects/page x wire bytes/object = load x rate / 8."""
    w = WEB
    per_obj = wire_bytes_per_object(lo, w["size_max_bytes"], w["shape"])
    objs = (w["objects_min"] + w["objects_max"]) / 2.0
    per_session = objs / w["inter_page_s"] * per_obj  # bytes/s
    n = max(1, round(load * rate_bps / 8.0 / per_session))
    return n, {"mean_object_bytes": bp_mean(lo, w["size_max_bytes"], w["shape"]), "wire_bytes_per_object": per_obj,
               "session_wire_bps": per_session * 8.0, "offered_load": n * per_session * 8.0 / rate_bps}


def scenario(exp: str, scheme: str, duration_s: float, obj_min_bytes: float = 460.0) -> dict[str, Any]:
    e = EXPERIMENTS[exp]
    rate_bps = e["rate_mbps"] * 1e6
    bdp = bdp_pkts(rate_bps, RTT_S)
    tcp: dict[str, Any] = {**TCP, "init_rto": e["init_rto"]}
    topo: dict[str, Any] = {"kind": "dumbbell", "pairs": N_FG + N_WEB, "access": dict(ACCESS)}
    if scheme == "superpacket":
        b = round(2.5 * bdp)
        q: dict[str, Any] = {"kind": "superpacket", "limit": b, "threshold": b // 2, "epoch": "80ms",
                             "admit_syn": True}
        tcp.update({"superpacket": "runs", "sp_len": SP_LEN, "sp_on_denial": "fallback"})
    else:
        q = queue(scheme, bdp, ecn=True)
        if scheme in ("red", "riops"):
            tcp["ecn"] = True
    topo["bottleneck"] = {"rate": f"{e['rate_mbps']:g}Mbps", "delay": f"{BOTTLENECK_DELAY_S * 1e3:g}ms", "queue": q}
    if scheme == "riops":
        topo["edge_classifier"] = dict(CLASSIFIER)
    n, _ = sessions_for_load(rate_bps, obj_min_bytes)
    w = WEB
    traffic: list[dict[str, Any]] = [{
        "kind": "web", "servers": "s{i}", "server_first": N_FG, "server_count": N_WEB,
        "clients": "d{i}", "client_first": N_FG, "client_count": N_WEB, "sessions": n,
        "inter_page": f"{w['inter_page_s']}s", "inter_object": f"{w['inter_object_s']}s",
        "objects_min": w["objects_min"], "objects_max": w["objects_max"], "size_min_bytes": obj_min_bytes,
        "size_max_bytes": w["size_max_bytes"], "shape": w["shape"],
    }]
    for size, every in (FG_SHORT, FG_LONG):
        for t in range(every, int(duration_s), every):
            traffic.append({"kind": "flow", "from": "s{i}", "to": "d{i}", "count": N_FG, "size_pkts": size,
                            "start": f"{t}s", "start_jitter": FG_JITTER})
    return {
        "name": f"riops-web-{exp}-{scheme}",
        "duration": f"{duration_s}s",
        "topology": topo,
        "tcp": tcp,
        "traffic": traffic,
        "output": {"sample_queues": ["R1->R2"], "sample_interval": "1s"},
    }


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else math.nan


def _series(res: Any, duration_s: float) -> dict[str, list[float]]:
    qs = res.queue_series
    t = qs["t_s"].to_list()
    pk, arr, dm = qs["pkts"].to_list(), qs["arrivals"].to_list(), [a + b for a, b in zip(
        qs["drops"].to_list(), qs["marks"].to_list(), strict=True)]
    step = int(SERIES_BIN_S)
    out: dict[str, list[float]] = {"t_s": [], "queue_pkts": [], "drop_mark_rate": []}
    for i in range(step, len(t), step):
        da = arr[i] - arr[i - step]
        out["t_s"].append(round(t[i], 6))
        out["queue_pkts"].append(float(pk[i]))
        out["drop_mark_rate"].append((dm[i] - dm[i - step]) / da if da else 0.0)
    return out


def run_variant(variant: str, seed: int, duration_s: float = 4000.0, warmup_s: float = 2000.0,
                obj_min_bytes: float = 460.0, series_seed: int = 1,
                scs: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """One run; its scenario is `scs[variant]` (the dicts the report reads) or built; the
    run of `series_seed` (the first seed run) keeps the series."""
    exp, scheme = variant.split("/")
    res = api.run(scs[variant] if scs else scenario(exp, scheme, duration_s, obj_min_bytes), seed=seed,
                  progress=False)
    fl = res.flows
    src = fl["src"].to_list()
    size = fl["size_bytes"].to_list()
    start = fl["start_s"].to_list()
    fct = fl["fct_s"].to_list()
    fg = {f"s{i}" for i in range(N_FG)}
    buckets: dict[str, list[float]] = {"short": [], "medium": [], "long": []}
    incomplete = 0
    fg_batches: dict[tuple[str, float], list[float | None]] = {}
    for s, sz, st, f in zip(src, size, start, fct, strict=True):
        if s in fg:
            kind = "short" if sz <= 10 * MSS else "long"
            fg_batches.setdefault((kind, round(st)), []).append(f)
            continue
        if st < warmup_s:
            continue
        if f is None or math.isnan(f):
            incomplete += 1
            continue
        n = math.ceil(sz / MSS)
        b = "short" if n <= SHORT_MAX_PKTS else "medium" if n <= MEDIUM_MAX_PKTS else "long"
        buckets[b].append(f)
    fair: dict[str, list[float]] = {"short": [], "long": []}
    fg_time: dict[str, list[float]] = {"short": [], "long": []}
    fg_all: dict[str, list[float]] = {"short": [], "long": []}
    for (kind, st), xs in sorted(fg_batches.items()):
        if st < warmup_s:
            continue
        done = [x for x in xs if x is not None and not math.isnan(x)]
        fg_all[kind].extend(done)
        if len(done) == len(xs) == N_FG:
            fair[kind].append(jain(done))
            fg_time[kind].append(_mean(done))
    bn = res.links.filter(res.links["name"] == "R1->R2").to_dicts()[0]
    out: dict[str, Any] = {
        "mean_response_short_s": _mean(buckets["short"]),
        "mean_response_medium_s": _mean(buckets["medium"]),
        "mean_response_long_s": _mean(buckets["long"]),
        "goodput_bytes": float(sum(fl["bytes_received"].to_list())),
        "fairness_short": _mean(fair["short"]),
        "fairness_long": _mean(fair["long"]),
        "fg_short_time_s": _mean(fg_time["short"]),
        "fg_long_time_s": _mean(fg_time["long"]),
        "fg_short_cov": cov(fg_all["short"]),
        "fg_long_cov": cov(fg_all["long"]),
        "web_flows_measured": float(sum(len(v) for v in buckets.values())),
        "web_flows_incomplete": float(incomplete),
        "bottleneck_utilization": float(bn["utilization"]),
        "bottleneck_drop_rate": float(bn["drops"]) / max(1.0, float(bn["arrivals"])),
        "bottleneck_mark_rate": float(bn["marks"]) / max(1.0, float(bn["arrivals"])),
        "bottleneck_mean_queue_pkts": float(bn["mean_pkts"]),
        "conservation": res.summary["conservation"],
        "wall_s": res.wall_s,
    }
    if scheme == "riops":
        c = counters(res, "edge@R1")
        out["classifier"] = {k: c[k] for k in ("cls_lt", "cls_tagged_in", "cls_tagged_out", "cls_peak_entries",
                                                "cls_table_full_pkts", "cls_adjustments", "cls_memory_bytes")}
    if seed == series_seed:
        out["series"] = _series(res, duration_s)
        out["fg_series"] = {"fairness_short": fair["short"], "fairness_long": fair["long"],
                            "time_short_s": fg_time["short"], "time_long_s": fg_time["long"]}
    return out


KEYS = ("mean_response_short_s", "mean_response_medium_s", "mean_response_long_s", "goodput_bytes",
        "fairness_short", "fairness_long", "fg_short_time_s", "fg_long_time_s", "fg_short_cov", "fg_long_cov",
        "web_flows_measured",
        "web_flows_incomplete", "bottleneck_utilization", "bottleneck_drop_rate", "bottleneck_mark_rate",
        "bottleneck_mean_queue_pkts")


def run(seeds: Any = 10, quick: bool = False, duration_s: float | None = None, warmup_s: float | None = None,
        obj_min_bytes: float = 460.0, experiments: tuple[str, ...] = tuple(EXPERIMENTS),
        schemes: tuple[str, ...] = SCHEMES, client: Any = None, verbose: bool = True, **_: Any) -> dict[str, Any]:
    """`quick`: 600 s runs with 200 s warm-up. `jitter_us`/`admit_syn` do not apply."""
    seeds = seed_list(seeds)  # N: 1..N, or the list given
    dur = duration_s if duration_s is not None else (QUICK.values["duration_s"] if quick else DURATION_S)
    warm = warmup_s if warmup_s is not None else (QUICK.values["warmup_s"] if quick else WARMUP_S)
    chosen = {}
    for exp in experiments:
        rate = EXPERIMENTS[exp]["rate_mbps"] * 1e6
        n, info = sessions_for_load(rate, obj_min_bytes)
        chosen[exp] = {"sessions": n, **info}
        if verbose:
            import sys

            print(f"riops-web {exp}: {n} web sessions (E[S] = {info['mean_object_bytes']:.0f} B, "
                  f"{info['wire_bytes_per_object']:.0f} wire B/object, offered load "
                  f"{info['offered_load']:.3f} of {rate / 1e6:g} Mbps)", file=sys.stderr)
    names = [f"{e}/{s}" for e in experiments for s in schemes]
    scs = {f"{e}/{s}": scenario(e, s, dur, obj_min_bytes) for e in experiments for s in schemes}
    run_one = functools.partial(run_variant, duration_s=dur, warmup_s=warm, obj_min_bytes=obj_min_bytes,
                                series_seed=seeds[0], scs=scs)
    per_seed, detail = run_seeds(names, seeds, KEYS, run_one, client)
    # per-seed response time relative to RED (same seed), the slides' "relative to RED"
    for exp in experiments:
        if "red" not in schemes:
            break
        red_runs = per_seed[f"{exp}/red"]
        for s in schemes:
            m = per_seed[f"{exp}/{s}"]
            for b in ("short", "medium", "long"):
                k = f"mean_response_{b}_s"
                m[f"response_{b}_rel_red"] = [x / r if r else math.nan for x, r in zip(m[k], red_runs[k], strict=True)]
            m["goodput_rel_red"] = [x / r for x, r in zip(m["goodput_bytes"], red_runs["goodput_bytes"], strict=True)]
    variants = summarize(per_seed)
    claims: list[dict[str, Any]] = []
    if "red" in schemes and "riops" in schemes:
        for exp in experiments:
            red, rio = variants[f"{exp}/red"], variants[f"{exp}/riops"]
            cut = {b: (1.0 - rio[f"mean_response_{b}_s"] / red[f"mean_response_{b}_s"]) * 100.0
                   for b in ("short", "medium", "long")}
            claims.append(SHORT.result(
                {"exp": exp},
                red_s=red["mean_response_short_s"], riops_s=rio["mean_response_short_s"],
                improvement_pct=cut["short"],
                paper_improvement_pct=PAPER_CUTS.get(exp, {}).get("short"),
                holds=rio["mean_response_short_s"] < red["mean_response_short_s"],
            ))
            claims.append(LONG.result(
                {"exp": exp},
                red_s=red["mean_response_long_s"], riops_s=rio["mean_response_long_s"],
                ratio=rio["mean_response_long_s"] / red["mean_response_long_s"],
                holds=rio["mean_response_long_s"] <= 1.10 * red["mean_response_long_s"],
            ))
            claims.append(GOODPUT.result(
                {"exp": exp},
                red_bytes=red["goodput_bytes"], riops_bytes=rio["goodput_bytes"],
                ratio=rio["goodput_bytes"] / red["goodput_bytes"],
                holds=abs(rio["goodput_bytes"] / red["goodput_bytes"] - 1.0) <= 0.02,
            ))
            if exp in PAPER_CUTS:
                lo = PAPER_CUTS[exp]["medium"][0]
                claims.append(MEDIUM.result(
                    {"exp": exp, "cut": lo},
                    improvement_pct=cut["medium"],
                    paper_improvement_pct=PAPER_CUTS[exp]["medium"],
                    holds=cut["medium"] >= lo,
                ))
    params = params_from(param_table(names), scs)
    params["duration_s"]["source"] = "paper" if not quick else "our specification (--quick)"
    params["warmup_s"] = {"value": warm, "source": "paper" if not quick else "our specification (--quick)"}
    params["sessions"] = {"value": chosen, "source": "ours (calibrated to the offered load)"}
    return {
        "experiment": "riops-web",
        "seeds": len(seeds),
        "seed_list": seeds,
        "params": params,
        "variants": variants,
        "paper": PAPER,
        "paper_response_cut_pct": PAPER_CUTS,
        "claims": claims,
        "series": {v: {"queue": ds[0].get("series"), "foreground": ds[0].get("fg_series")} for v, ds in detail.items()},
        "per_run": {v: [{k: d[k] for k in ("conservation", "classifier", "wall_s") if k in d} for d in ds]
                    for v, ds in detail.items()},
    }


EXPERIMENT = Experiment(
    name="riops-web", paper=GUO_MATTA_2001,
    part="the web-traffic experiments (response time, goodput, fairness)",
    module=sys.modules[__name__],
    run=run,
    variants=tuple(PAPER),
    options=("quick",),  # the command line's --quick
    quick=QUICK,
    claims=(SHORT, LONG, GOODPUT, MEDIUM),
    figures="superpacket.experiments.figures.riops_web:riops_web",
)
