"""Pieces shared by the RIO-PS experiments (Guo and Matta (ICNP 2001), our specification "RIO-PS, mice and
elephants"): the TCP settings, the dumbbell, the three queues sized from the BDP, the
edge classifier, and the statistics the slides use (Jain's index, CoV)."""

from __future__ import annotations

import math
from typing import Any

from superpacket.experiments.common import PAPER_HOST, Sc, same, seconds, spaced

MSS = 460
HEADER = 40
PKT = MSS + HEADER  # 500 B on the wire

# our specification "RIO-PS": 500 B packets, max window 128, timer granularity 100 ms, ITO 3 s;
# min RTO and initial cwnd are our specification's common defaults (the simulator's defaults,
# written out so that the report reads them from the scenario that ran)
TCP: dict[str, Any] = {"host": PAPER_HOST, "mss": MSS, "header_bytes": HEADER, "max_cwnd": 128, "granularity": "100ms",
                       "init_rto": "3s", "min_rto": "200ms", "init_cwnd": 10}


def tcp_params(names: list[str]) -> dict[str, tuple[Any, str]]:
    """The TCP parameters, read from the top-level `tcp` table of the scenarios `names`
    (given to common.params_from); each reports the one value they all ran with."""

    def sc(key: str, fmt: Any = None) -> Sc:
        return Sc(*(f"{n}:tcp.{key}" for n in names), fmt=(lambda *v: fmt(same(*v))) if fmt else None)

    return {
        "packet_bytes": (Sc(*(f"{n}:tcp.mss" for n in names), *(f"{n}:tcp.header_bytes" for n in names),
                            fmt=lambda *v: same(*v[:len(names)]) + same(*v[len(names):])),
                         "paper (500 B), our specification: mss 460 + 40 B headers"),
        "max_cwnd_pkts": (sc("max_cwnd"), "paper"),
        "tcp_granularity_s": (sc("granularity", seconds), "paper"),
        "init_rto_s": (sc("init_rto", seconds), "paper (ITO)"),
        "min_rto_s": (sc("min_rto", seconds), "our common defaults"),
        "init_cwnd_pkts": (sc("init_cwnd"), "our common defaults (simulator default)"),
        "tcp": ("NewReno, SACK off, delayed ACK off", "paper (NewReno), our specification"),
    }

W_Q = 1.0 / 512.0
# the slides' queue parameters, as fractions of the buffer B: (min_th, max_th, p_max)
RED_SET = (0.15, 0.5, 0.1)
SHORT_SET = (0.15, 0.35, 1.0 / 20.0)
LONG_SET = (0.15, 0.5, 0.1)

# the edge router of the slides: SLR 3, T_c 10 s, T_u 1 s; initial L_t and table size ours
CLASSIFIER: dict[str, Any] = {"lt": 20, "slr": 3.0, "tc": "10s", "tu": "1s", "max_flows": 4096}

DROPTAIL_BDPS = 1.5  # DropTail's buffer in BDPs (the slides)
RED_BDPS = 2.5  # RED's and RIO-PS's buffer B in BDPs


def _frac(x: float) -> str:
    """A threshold over B as the slides write it: 0.15."""
    return f"{round(x, 6):g}"


def _inv(x: float) -> str:
    """0.1 -> "1/10", 1/512 -> "1/512" (the slides' p_max and w_q)."""
    n = round(1.0 / x)
    return f"1/{n}" if math.isclose(x, 1.0 / n, rel_tol=1e-12) else f"{x:g}"


def _set_text(limit: float, c: dict[str, Any], w_q: float) -> str:
    return f"({_frac(c['min_th'] / limit)} B, {_frac(c['max_th'] / limit)} B, {_inv(c['p_max'])}, {_inv(w_q)})"


def queue_params(red: list[str], riops: list[str], q: str = "topology.bottleneck.queue",
                 classifier: str = "topology.edge_classifier") -> dict[str, tuple[Any, str]]:
    """The queue and classifier parameters, read from the RED scenarios `red` and the
    RIO-PS scenarios `riops` (given to common.params_from; `q`, `classifier`: where the
    bottleneck queue and the edge classifier sit). The buffers' BDP multiples are the
    rules `queue()` applies (DROPTAIL_BDPS, RED_BDPS)."""

    def red_text(*qs: dict[str, Any]) -> str:
        return same(*(_set_text(x["limit"], x, x["w_q"]) + "".join(f", {k}" for k in ("gentle", "wait") if x[k])
                      for x in qs))

    def riops_text(cls: str) -> Any:
        return lambda *qs: same(*(_set_text(x["limit"], x[cls], x["w_q"]) for x in qs))

    cl = [f"{n}:{classifier}" for n in riops]
    return {
        "droptail_buffer": (f"{DROPTAIL_BDPS:g} x BDP", "paper"),
        "red_buffer": (f"{RED_BDPS:g} x BDP (RED, RIO-PS)", "paper"),
        "red": (Sc(*(f"{n}:{q}" for n in red), fmt=red_text), "paper"),
        "riops_short": (Sc(*(f"{n}:{q}" for n in riops), fmt=riops_text("short")), "paper"),
        "riops_long": (Sc(*(f"{n}:{q}" for n in riops), fmt=riops_text("long")), "paper"),
        "classifier": (Sc(*cl, fmt=lambda *c: same(*(f"SLR {x['slr']:g}, T_c {spaced(x['tc'])}, T_u {spaced(x['tu'])}"
                                                     for x in c))), "paper"),
        "classifier_initial_lt_pkts": (Sc(*(f"{x}.lt" for x in cl)), "ours (adjusted every T_c)"),
        "classifier_max_flows": (Sc(*(f"{x}.max_flows" for x in cl)), "ours"),
        "classifier_rule": ("every T_c, the smallest L_t giving >= SLR short per long active flow",
                            "ours (the slides give only the goal; classifier.rs)"),
        "buffer_rounding": ("B rounded to whole packets, thresholds from the rounded B", "ours"),
    }


def bdp_pkts(rate_bps: float, rtt_s: float) -> float:
    """Bandwidth-delay product in 500 B packets."""
    return rate_bps * rtt_s / (8.0 * PKT)


def queue(kind: str, bdp: float, ecn: bool = False) -> dict[str, Any]:
    """The slides' queue of `kind` (droptail, red, riops) for a path of `bdp` packets."""
    if kind == "droptail":
        return {"kind": "droptail", "limit": max(1, round(DROPTAIL_BDPS * bdp))}
    b = max(1, round(RED_BDPS * bdp))

    def cls(s: tuple[float, float, float]) -> dict[str, Any]:
        return {"min_th": s[0] * b, "max_th": s[1] * b, "p_max": s[2]}

    if kind == "red":
        mn, mx, p = RED_SET
        return {"kind": "red", "limit": b, "min_th": mn * b, "max_th": mx * b, "p_max": p, "w_q": W_Q,
                "gentle": True, "wait": True, "ecn": ecn, "mean_pkt_size": PKT}
    if kind == "riops":
        return {"kind": "riops", "limit": b, "short": cls(SHORT_SET), "long": cls(LONG_SET), "w_q": W_Q,
                "gentle": True, "wait": True, "ecn": ecn, "mean_pkt_size": PKT}
    raise ValueError(f"unknown queue {kind!r}")


def jain(xs: list[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2) (the slides' "Fairness index")."""
    if not xs:
        return math.nan
    s2 = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * s2) if s2 > 0 else math.nan


def cov(xs: list[float]) -> float:
    """Coefficient of variation std / mean (population std, as the slides' CoV)."""
    n = len(xs)
    if n == 0:
        return math.nan
    m = sum(xs) / n
    if m == 0:
        return math.nan
    return math.sqrt(sum((x - m) ** 2 for x in xs) / n) / m


def counters(res: Any, name: str) -> dict[str, float]:
    """Named counters of one link's queue or one classifier (queue_counters table)."""
    return {c: v for ln, c, v in res.queue_counters.iter_rows() if ln == name}
