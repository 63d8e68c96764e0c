"""Pieces shared by the TCP-DCR experiments (Bhandarkar and Reddy (PFLDnet 2007), our specification "TCP-DCR and
high-speed TCP under reordering"): the protocol and response names, the TCP table of a
variant, input checks, Jain's index and the claim helpers.

A variant's protocol is `<cc>[-dcr|-ncr]`: the congestion control by its simulator name
(tcp/cc/) and the response to reordering (`[tcp] reordering`: none, TCP-DCR of the
draft-bhandarkar-tcp-dcr-00 slides, TCP-NCR of RFC 4653; draft-bhandarkar-tcp-dcr-00, RFC 4653).
Loss recovery is SACK (RFC 6675), as our specification fixes for the high-speed experiments
("as on the Linux and FreeBSD stacks those papers measured"), on Linux's host
(`[tcp] host = "linux"`: SACK recovery with PRR, the scoreboard kept across a timeout,
Linux's RTO, a segment the NIC refuses held unsent, TCP Small Queues); one point per
experiment is also run with NewReno recovery (RFC 6582).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

# The host the high-speed experiments run: Linux's (RFC 6675 recovery as Linux does it,
# PRR included). With the ns-2 agent's bare RFC 6675 the first slow start's overshoot
# (cwnd ~20,000 on a path holding ~12,500) ends in timeouts and repeated overshoots under
# reordering, which held one flow below 90 % past 10 s (docs: the dcr page, 2026-11-27).
HIGH_SPEED_HOST = "linux"

# the slides' four protocols, in the slides' order; `newreno` is offered as a baseline
# (the draft's 8 Mb/s table compares TCP-SACK, i.e. NewReno congestion control, with DCR)
PROTOCOLS = ("ltcp", "highspeed", "bic", "htcp")
ALLOWED_PROTOCOLS = (*PROTOCOLS, "newreno")
# variant suffix -> [tcp] reordering
RESPONSES = {"": "none", "-dcr": "dcr", "-ncr": "ncr"}
RESPONSE_LABEL = {"": "no DCR", "-dcr": "TCP-DCR", "-ncr": "TCP-NCR (RFC 4653)"}

MSS = 1460
PKT_BYTES = 1500  # our common defaults: MSS 1460 + 40 B headers
REORDER_MEAN_MS = 25.0  # the slides' model: N(25 ms, 8 ms), redrawn when negative
REORDER_SD_MS = 8.0
NEWRENO_SUFFIX = "/newreno"  # a variant run with NewReno loss recovery instead of SACK


class DcrInputError(ValueError):
    """Bad experiment input; the message is one line naming the field."""


def check_protocols(protocols: Iterable[str] | str | None) -> tuple[str, ...]:
    """The protocols to run, in the given order; an unknown name is an error that lists
    the allowed ones."""
    if protocols is None:
        return PROTOCOLS
    if isinstance(protocols, str):
        protocols = [p for p in protocols.split(",")]
    out: list[str] = []
    for p in protocols:
        name = str(p).strip().lower()
        if name not in ALLOWED_PROTOCOLS:
            raise DcrInputError(f"protocols: unknown protocol {p!r}; allowed: {', '.join(ALLOWED_PROTOCOLS)}")
        if name not in out:
            out.append(name)
    if not out:
        raise DcrInputError(f"protocols: none given; allowed: {', '.join(ALLOWED_PROTOCOLS)}")
    return tuple(out)


def check_q(qs: Iterable[Any] | str | None, default: tuple[float, ...], field: str = "q") -> tuple[float, ...]:
    """Reordering probabilities, each a number in [0, 1] (NaN, negatives and values above
    1 are errors naming `field`), sorted, without repeats."""
    if qs is None:
        return default
    if isinstance(qs, str):
        qs = [x for x in qs.split(",")]
    vals: list[float] = []
    for x in qs:
        try:
            v = float(x)
        except (TypeError, ValueError):
            raise DcrInputError(f"{field}: not a number: {x!r}") from None
        if math.isnan(v) or not 0.0 <= v <= 1.0:
            raise DcrInputError(f"{field}: must be a probability in [0, 1] (got {x!r})")
        vals.append(v)
    if not vals:
        raise DcrInputError(f"{field}: none given")
    return tuple(sorted(set(vals)))


def check_positive(value: float, field: str) -> float:
    v = float(value)
    if math.isnan(v) or v <= 0:
        raise DcrInputError(f"{field}: must be > 0 (got {value!r})")
    return v


def split_protocol(name: str) -> tuple[str, str]:
    """"bic-dcr" -> ("bic", "-dcr"); "bic" -> ("bic", "")."""
    for suffix in ("-dcr", "-ncr"):
        if name.endswith(suffix):
            return name[: -len(suffix)], suffix
    return name, ""


def tcp_table(cc: str, suffix: str, recovery: str = "sack") -> dict[str, Any]:
    return {"host": HIGH_SPEED_HOST, "cc": cc, "recovery": recovery, "reordering": RESPONSES[suffix]}


def qname(q: float) -> str:
    """0.01 -> "q0.01", 0 -> "q0"."""
    return f"q{q:g}"


def bdp_pkts(rate_bps: float, rtt_s: float) -> int:
    """Bandwidth-delay product in full 1500 B packets, rounded up (1 Gbps x 50 ms: 4167)."""
    return max(1, math.ceil(rate_bps * rtt_s / (8.0 * PKT_BYTES) - 1e-9))


def jain(xs: list[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2); 1 for one flow; NaN when all are 0."""
    if not xs:
        return math.nan
    s2 = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * s2) if s2 > 0 else math.nan


def rel_change(a: float, b: float) -> float:
    """|b - a| / a (NaN when a is 0 or NaN)."""
    if a == 0 or math.isnan(a) or math.isnan(b):
        return math.nan
    return abs(b - a) / abs(a)


def link_metrics(res: Any, link: str) -> tuple[float, float, int, int]:
    """(utilization, drop rate = drops / arrivals, drops, arrivals) of a directed link."""
    rows = res.links.filter(res.links["name"] == link).to_dicts()
    if not rows:
        raise KeyError(f"no link {link!r} in the run")
    r = rows[0]
    arr, drops = int(r["arrivals"]), int(r["drops"])
    return float(r["utilization"]), (drops / arr if arr else 0.0), drops, arr


def window_metrics(res: Any, link: str, rate_bps: float, t0: float,
                   flow_ids: list[int] | None = None) -> tuple[float, float, float]:
    """(utilisation, drop rate, Jain index) of directed link `link` and the flows
    `flow_ids` (default all) from the sample nearest `t0` to the run's end, from the
    sampled cumulative counters (`sample_queues` on the link, `sample_flows`):
    utilisation = bytes the link delivered x 8 / (rate x time), drop rate = drops /
    arrivals, Jain's index of the bytes each flow received."""
    qs = res.queue_series.filter(res.queue_series["link"] == link).sort("t_s")
    t = qs["t_s"].to_list()
    if len(t) < 2:
        raise ValueError(f"{link}: fewer than two samples to measure a window from")
    i, j = min(range(len(t)), key=lambda k: abs(t[k] - t0)), len(t) - 1
    dt = t[j] - t[i]
    d_bytes = qs["bytes_delivered"][j] - qs["bytes_delivered"][i]
    d_arr, d_drops = qs["arrivals"][j] - qs["arrivals"][i], qs["drops"][j] - qs["drops"][i]
    got = window_flow_bytes(res, t0)
    per_flow = [got.get(f, 0.0) for f in sorted(got if flow_ids is None else flow_ids)]
    util = d_bytes * 8.0 / (rate_bps * dt) if dt > 0 else float("nan")
    return min(util, 1.0), (d_drops / d_arr if d_arr else 0.0), jain(per_flow)


def window_flow_bytes(res: Any, t0: float) -> dict[int, float]:
    """Bytes each flow received from the `sample_flows` sample nearest `t0` to the last."""
    fs = res.flow_series
    ft = sorted(set(fs["t_s"].to_list()))
    fm, fe = min(ft, key=lambda x: abs(x - t0)), ft[-1]
    at = {(tt, f): b for tt, f, b in zip(fs["t_s"].to_list(), fs["flow_id"].to_list(),
                                         fs["bytes_received"].to_list(), strict=True) if tt in (fm, fe)}
    return {f: float(at.get((fe, f), 0) - at.get((fm, f), 0)) for f in sorted({f for _, f in at})}


def cwnd_series(res: Any) -> dict[str, Any]:
    """Each flow's sampled cwnd (packets) over time, from `output.sample_flows`."""
    fs = res.flow_series.sort(["flow_id", "t_s"])
    out: dict[str, Any] = {"t_s": [], "cwnd_pkts": {}, "ssthresh_pkts": {}}
    for fid in sorted(set(fs["flow_id"].to_list())):
        g = fs.filter(fs["flow_id"] == fid)
        if not out["t_s"]:
            out["t_s"] = g["t_s"].to_list()
        out["cwnd_pkts"][str(fid)] = g["cwnd_pkts"].to_list()
        out["ssthresh_pkts"][str(fid)] = g["ssthresh_pkts"].to_list()
    return out


def ci(variants: dict[str, dict[str, Any]], v: str, m: str) -> list[float]:
    return list(variants[v][f"{m}_ci95"])
