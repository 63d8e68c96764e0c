"""Ordinary dumbbells: what any sound TCP stack satisfies on the scenarios a user writes
first.

`draw(seed, n)` draws dumbbells of that kind: a bottleneck of 10 Mb/s to 1 Gb/s, a one-way
path delay of 1 to 50 ms, a DropTail buffer of 0.5 to 2 bandwidth-delay products or RED
(limit of 1 or 2 BDP, min_th a tenth of it, max_th three times min_th), 1 to 8 bulk flows
of NewReno, CUBIC, HighSpeed, BIC, H-TCP or Scalable (one for all, or a mix), with SACK
four times in five and RFC 6582 NewReno recovery otherwise, started in the first second.
Everything else is the default host's (Linux's). `judge(case)` runs one and checks four
invariants of a sound stack:

- **busy**: where the buffer holds at least one BDP (DropTail), the bottleneck carries at
  least 90 % of its rate after start-up (goodput in wire bytes, x 1500 / 1460);
- **window**: no flow's congestion window, outside loss recovery, above twice what the
  path holds, H (its pipe, the rate x the unloaded round trip, plus the buffer), plus the
  one segment slow start adds by its own rule: the first packet lost is the one that
  finds the path full, sent with a window of H + 1, and each of the H segments ahead of
  it acknowledged before the loss is detected adds one (RFC 5681 slow start), so a slow
  start that no exit ends reaches 2 H + 1 exactly. Sampled every millisecond or an
  eighth of the round trip, whichever is shorter;
- **timeouts**: at most one retransmission timeout per flow per 10 s after start-up;
- **host NIC**: no segment lost at the host's own NIC queue (`flows.sender_drops`).

Start-up is the first `STARTUP_S` seconds; the run lasts `DURATION_S`. The counts after
start-up come from a second run of the same scenario that stops at start-up: a run is
deterministic, so its first seconds are the longer run's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

RATES_MBPS = (10, 20, 50, 100, 200, 500, 1000)
CCS = ("newreno", "cubic", "highspeed", "bic", "htcp", "scalable")
ACCESS_DELAY_MS = 0.25
PKT_BYTES = 1500
ACK_BYTES = 40
MSS = 1460
DURATION_S = 40.0
STARTUP_S = 10.0


@dataclass(frozen=True)
class Dumbbell:
    """One drawn scenario and what the judge needs to know about its path."""

    index: int
    rate_mbps: int
    delay_ms: float
    flows: int
    queue: str
    limit: int
    ccs: tuple[str, ...]
    sack: bool
    #: Packets the path holds without a queue: the rate x the unloaded round trip
    #: (propagation both ways and one data and one ACK serialisation per link).
    pipe: float
    #: Whether the busy-link check applies (DropTail of at least one BDP).
    judged_busy: bool
    toml: str

    @property
    def holds(self) -> float:
        """What the path holds: its pipe plus the buffer, in packets."""
        return self.pipe + self.limit


def draw(seed: int, n: int) -> list[Dumbbell]:
    """`n` dumbbells drawn from `seed` (the same seed, the same scenarios)."""
    rng = random.Random(seed)
    return [_draw_one(rng, i) for i in range(n)]


def _draw_one(rng: random.Random, i: int) -> Dumbbell:
    rate = rng.choice(RATES_MBPS)
    d = rng.uniform(1, 50)
    n = rng.randint(1, 8)
    bdp = rate * 1e6 * 2 * d / 1000 / (PKT_BYTES * 8)
    if rng.random() < 0.3:
        kind = "red"
        limit = max(10, round(rng.choice((1.0, 2.0)) * bdp))
        min_th = max(2, round(limit * 0.1))
        queue = f'{{ kind = "red", min_th = {min_th}, max_th = {3 * min_th}, limit = {limit} }}'
        busy = False
    else:
        kind = "droptail"
        f = rng.choice((0.5, 1.0, 1.5, 2.0))
        limit = max(4, round(f * bdp))
        queue = f'{{ kind = "droptail", limit = {limit} }}'
        busy = f >= 1.0
    ccs = (rng.choice(CCS),) * n if rng.random() < 0.5 else tuple(rng.choice(CCS) for _ in range(n))
    sack = rng.random() < 0.8
    access = min(10 * rate, 10_000)
    a_bps, r_bps = access * 1e6, rate * 1e6
    rtt0 = 2 * d / 1000 + (PKT_BYTES + ACK_BYTES) * 8 * (2 / a_bps + 1 / r_bps)
    pipe = r_bps * rtt0 / (PKT_BYTES * 8)
    sample_ms = min(1.0, 2 * d / 8)
    lines = [
        f'name = "ordinary-{i}"',
        f'duration = "{DURATION_S:g}s"',
        "[topology]",
        'kind = "dumbbell"',
        f"pairs = {n}",
        f'access = {{ rate = "{access}Mbps", delay = "{ACCESS_DELAY_MS}ms" }}',
        f'bottleneck = {{ rate = "{rate}Mbps", delay = "{d - 2 * ACCESS_DELAY_MS:.3f}ms", queue = {queue} }}',
        "[output]",
        f'sample_flows = "{sample_ms * 1000:.0f}us"',
    ]
    for k, cc in enumerate(ccs):
        rec = "" if sack else ', recovery = "newreno"'
        lines += ["[[traffic]]", 'kind = "bulk"', f'from = "s{k}"', f'to = "d{k}"',
                  f'start = "{rng.uniform(0, 1):.4f}s"', f'tcp = {{ cc = "{cc}"{rec} }}']
    return Dumbbell(i, rate, d, n, kind, limit, ccs, sack, pipe, busy, "\n".join(lines) + "\n")


def judge(c: Dumbbell) -> dict[str, Any]:
    """Runs `c` and returns its figures and the invariants it breaks (`fails`, empty when
    it satisfies all four)."""
    import polars as pl

    import superpacket as sp

    full = sp.run(c.toml)
    start = sp.run(c.toml.replace(f'duration = "{DURATION_S:g}s"', f'duration = "{STARTUP_S:g}s"'))
    span = DURATION_S - STARTUP_S
    got = int(full.flows["bytes_received"].sum()) - int(start.flows["bytes_received"].sum())
    busy = got * 8 * PKT_BYTES / MSS / (c.rate_mbps * 1e6 * span)
    open_state = full.flow_series.filter(~pl.col("in_recovery"))
    max_w = float(open_state["cwnd_pkts"].cast(pl.Float64).fill_null(0.0).max() or 0.0)  # type: ignore[arg-type]
    after = [int(a - b) for a, b in zip(full.flows["timeouts"], start.flows["timeouts"], strict=True)]
    nic = int(full.flows["sender_drops"].sum())
    bott = full.links.filter(pl.col("name") == "R1->R2")
    fails = []
    if c.judged_busy and busy < 0.90:
        fails.append(f"busy {busy:.3f} < 0.90")
    if max_w > 2 * c.holds + 1:
        fails.append(f"window {max_w:.0f} > 2 x {c.holds:.0f} + 1")
    if max(after) > span / 10:
        fails.append(f"timeouts per flow after start-up {after} > {span / 10:g}")
    if nic:
        fails.append(f"{nic} lost at the host NIC")
    return {"busy": busy, "max_window": max_w, "window_ratio": max_w / c.holds, "timeouts_after": sum(after),
            "max_timeouts_per_flow": max(after), "nic_losses": nic, "bottleneck_drops": int(bott["drops"][0]),
            "fails": fails}
