"""Simulated against emulated: the same scenario through `superpacket.run` and
`emulate`, the figures both give set side by side with their differences
(`superpacket emulate --compare`)."""

from __future__ import annotations

from typing import Any

import polars as pl

#: (table, column) compared per link and per flow; links only where both carried packets.
LINK_METRICS = ("utilization", "drops", "mean_pkts", "max_pkts")
FLOW_METRICS = ("goodput_bps", "retransmits", "timeouts", "fct_s")


def _num(v: Any) -> float | None:
    return None if v is None else float(v)


def compare(sim: Any, emu: Any) -> pl.DataFrame:
    """One row per (what, name, metric): the simulated and emulated values, emulated -
    simulated, and that relative to the simulated value (null where it is 0 or missing)."""
    rows: list[dict[str, Any]] = []

    def add(what: str, name: str, metric: str, s: Any, e: Any) -> None:
        s, e = _num(s), _num(e)
        diff = None if s is None or e is None else e - s
        rel = None if diff is None or not s else diff / abs(s)
        rows.append({"what": what, "name": name, "metric": metric, "simulated": s, "emulated": e,
                     "difference": diff, "relative_difference": rel})

    sl = {r["name"]: r for r in sim.links.to_dicts()}
    for r in emu.links.to_dicts():
        s = sl.get(r["name"])
        if s is None or (s["arrivals"] == 0 and r["arrivals"] == 0):
            continue
        for m in LINK_METRICS:
            add("link", r["name"], m, s[m], r[m])
    sf = {r["flow_id"]: r for r in sim.flows.to_dicts()}
    for r in emu.flows.to_dicts():
        s = sf.get(r["flow_id"])
        if s is None:
            continue
        for m in FLOW_METRICS:
            add("flow", str(r["flow_id"]), m, s[m], r[m])
    add("run", "", "tcp_goodput_bps", sim.summary_json().get("tcp_goodput_bps"), emu.summary["tcp_goodput_bps"])
    add("run", "", "mean_fct_s", sim.summary.get("mean_fct_s"), emu.summary.get("mean_fct_s"))
    schema = {"what": pl.Utf8, "name": pl.Utf8, "metric": pl.Utf8, "simulated": pl.Float64, "emulated": pl.Float64,
              "difference": pl.Float64, "relative_difference": pl.Float64}
    return pl.DataFrame(rows, schema=schema)
