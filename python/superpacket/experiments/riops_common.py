"""Pieces shared by the RIO-PS experiments (seeds/001, SCENARIOS.md "RIO-PS, mice and
elephants"): the TCP settings, the dumbbell, the three queues sized from the BDP, the
edge classifier, and the statistics the slides use (Jain's index, CoV)."""

from __future__ import annotations

import math
from typing import Any

MSS = 460
HEADER = 40
PKT = MSS + HEADER  # 500 B on the wire

# SCENARIOS.md "RIO-PS": 500 B packets, max window 128, timer granularity 100 ms, ITO 3 s
TCP: dict[str, Any] = {"mss": MSS, "header_bytes": HEADER, "max_cwnd": 128, "granularity": "100ms",
                       "init_rto": "3s"}

TCP_PARAMS = {
    "packet_bytes": (PKT, "paper (500 B), SCENARIOS.md: mss 460 + 40 B headers"),
    "max_cwnd_pkts": (128, "paper"),
    "tcp_granularity_s": (0.1, "paper"),
    "init_rto_s": (3.0, "paper (ITO)"),
    "min_rto_s": (0.2, "SCENARIOS.md common defaults"),
    "init_cwnd_pkts": (10, "SCENARIOS.md common defaults (simulator default)"),
    "tcp": ("NewReno, SACK off, delayed ACK off", "paper (NewReno), SCENARIOS.md"),
}

W_Q = 1.0 / 512.0
# the slides' queue parameters, as fractions of the buffer B: (min_th, max_th, p_max)
RED_SET = (0.15, 0.5, 0.1)
SHORT_SET = (0.15, 0.35, 1.0 / 20.0)
LONG_SET = (0.15, 0.5, 0.1)

# the edge router of the slides: SLR 3, T_c 10 s, T_u 1 s; initial L_t and table size ours
CLASSIFIER: dict[str, Any] = {"lt": 20, "slr": 3.0, "tc": "10s", "tu": "1s", "max_flows": 4096}

QUEUE_PARAMS = {
    "droptail_buffer": ("1.5 x BDP", "paper"),
    "red_buffer": ("2.5 x BDP (RED, RIO-PS)", "paper"),
    "red": ("(0.15 B, 0.5 B, 1/10, 1/512), gentle, wait", "paper"),
    "riops_short": ("(0.15 B, 0.35 B, 1/20, 1/512)", "paper"),
    "riops_long": ("(0.15 B, 0.5 B, 1/10, 1/512)", "paper"),
    "classifier": ("SLR 3, T_c 10 s, T_u 1 s", "paper"),
    "classifier_initial_lt_pkts": (20, "ours (adjusted every T_c)"),
    "classifier_max_flows": (4096, "ours"),
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
        return {"kind": "droptail", "limit": max(1, round(1.5 * bdp))}
    b = max(1, round(2.5 * bdp))

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


def params_with_sources(*tables: dict[str, tuple[Any, str]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for t in tables:
        out.update({k: {"value": v, "source": s} for k, (v, s) in t.items()})
    return out


def counters(res: Any, name: str) -> dict[str, float]:
    """Named counters of one link's queue or one classifier (queue_counters table)."""
    return {c: v for ln, c, v in res.queue_counters.iter_rows() if ln == name}
