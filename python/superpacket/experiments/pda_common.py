"""Pieces shared by the packet-drop-avoidance experiments `mbs` and `lion` (Jin (LBNL 2004):
G. Jin, "Packet Drop Avoidance for High-speed network transmission protocol", LBNL-53920,
2004; our specification "Packet drop avoidance, MBS pacing"): the maximum-burst-size fluid
model of our reading of Jin (LBNL 2004) (computed here from the experiment's own parameters,
independently of the simulator's `mbs_model_pkts`), rate strings, input checks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from superpacket.experiments.common import seed_list

PKT_BYTES = 1500  # our common defaults: a full packet is 1500 B on the wire
HOST_QUEUE_PKTS = 100_000  # ours: host (NIC) queues that never drop; loss happens at the router


class PdaInputError(ValueError):
    """Bad experiment input; the message is one line naming the field."""


def bps(rate_bps: float) -> str:
    """1e9 -> "1000000000bps" (the scenario's rate strings, exact)."""
    return f"{rate_bps:.0f}bps"


def mbps(rate_bps: float) -> str:
    """622e6 -> "622Mbps" (variant names)."""
    return f"{rate_bps / 1e6:g}Mbps"


def mbs_fluid_pkts(queue_bytes: float, capacity_bps: float, cross_bps: float, line_bps: float,
                   pkt_bytes: int = PKT_BYTES) -> float:
    """our reading of Jin (LBNL 2004), single bottleneck: free buffer Q (packets), capacity C,
    cross traffic X, available bandwidth A = C - X, a burst arriving at rate R (the
    sender's line rate). MBS = floor(Q / (1 - A/R)) packets; unbounded (inf) if R <= A.
    Q = 100, C = 1 Gb/s, R = 10 Gb/s: X = 0 gives 111, X = 500 Mb/s gives 105. Q is the
    whole packets a byte-limited queue holds (1,000,000 B: 666 of 1500 B)."""
    q = math.floor(queue_bytes / pkt_bytes)
    a = capacity_bps - cross_bps
    if line_bps <= a:
        return math.inf
    return float(math.floor(q / (1.0 - a / line_bps) + 1e-9))


def rel_err(measured: float, model: float) -> float:
    """|measured - model| / model; NaN when either is missing, not finite or the model is 0."""
    if not (math.isfinite(measured) and math.isfinite(model)) or model == 0:
        return math.nan
    return abs(measured - model) / abs(model)


def check_positive(value: Any, field: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise PdaInputError(f"{field}: not a number: {value!r}") from None
    if math.isnan(v) or v <= 0 or math.isinf(v):
        raise PdaInputError(f"{field}: must be a finite number > 0 (got {value!r})")
    return v


def check_count(value: Any, field: str, lo: int = 1, hi: int = 10_000_000) -> int:
    """An integer in [lo, hi] (a float with no fraction is accepted)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise PdaInputError(f"{field}: not a number: {value!r}") from None
    if math.isnan(v) or not v.is_integer() or not lo <= v <= hi:
        raise PdaInputError(f"{field}: must be an integer in {lo}..{hi} (got {value!r})")
    return int(v)


def check_list(values: Iterable[Any] | str | None, default: tuple[Any, ...], field: str,
               one: Any) -> tuple[Any, ...]:
    """A comma list or an iterable, each item checked by `one(item, field)`; sorted,
    without repeats; `default` when None."""
    if values is None:
        return default
    if isinstance(values, str):
        values = [x for x in values.split(",") if x.strip()]
    out = sorted({one(x, field) for x in values})
    if not out:
        raise PdaInputError(f"{field}: none given")
    return tuple(out)


def check_seeds(seeds: Any) -> list[int]:
    """The seeds to run (common.seed_list: N means 1..N, text such as 1..10, or a list);
    a float is refused, 2.0 too, as everywhere seeds are given."""
    try:
        return seed_list(seeds)
    except ValueError as e:
        raise PdaInputError(str(e)) from None
