"""Report figures of `jumbo` (Li, UCB/EECS-2013-83, Fig. 6a-b): throughput over time of the special flow and
of the mean regular flow."""

from __future__ import annotations

from typing import Any

from superpacket.reports.figure_kit import (
    CLASS_COLORS,
    ExpFigure,
    _grid,
    _legend_below,
    _nan,
)

# ---- jumbo: Fig. 6a-b -------------------------------------------------------------------

JUMBO_FIG = {"jumbo": "Fig. 6a", "sp": "Fig. 6b"}


def jumbo(s: dict[str, Any]) -> list[ExpFigure]:
    series: dict[str, dict[str, list[float]]] = {v: x for v, x in (s.get("series") or {}).items() if x}
    if not series:
        return []
    order = [v for v in ("jumbo", "sp") if v in series] + sorted(v for v in series if v not in ("jumbo", "sp"))
    paper = s.get("paper", {})
    fig, axes = _grid(len(order), 2, 5.0, 3.3, sharey=True)
    data: dict[str, Any] = {}
    for ax, v in zip(axes, order, strict=True):
        x = series[v]
        t, sp_, reg = _nan(x["t_s"]), _nan(x["special_kBps"]), _nan(x["regular_mean_kBps"])
        ax.plot(t, sp_, color=CLASS_COLORS["special"], lw=1.3, label="special flow (ours)")
        ax.plot(t, reg, color=CLASS_COLORS["regular"], lw=1.3, label="mean regular flow (ours)")
        p = paper.get(v, {})
        d: dict[str, Any] = {"t_s": t, "special_kBps": sp_, "regular_mean_kBps": reg}
        for key, cls, lab in (("special_kBps", "special", "special"), ("regular_mean_kBps", "regular", "regular")):
            pv = p.get(key)
            if pv is not None:
                ax.axhline(pv, color=CLASS_COLORS[cls], ls="--", lw=1.1, label=f"paper: {lab} average")
                d[f"paper_{key}"] = float(pv)
        data[v] = d
        fig_no = JUMBO_FIG.get(v) or JUMBO_FIG.get(v.partition("-")[0], "")
        extra = ", byte-counted buffer" if v.endswith("-bytes") else ""
        ax.set_title(f"{v}: {fig_no}{extra}", fontsize=10)
        ax.set_xlabel("time (s)")
    for ax in axes[::2]:
        ax.set_ylabel("throughput (kB/s)")
    fig.suptitle(f"Throughput over time, seed 1 (the paper's Fig. 6a-b); interval "
                 f"{_interval(series[order[0]]['t_s'])} s")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    _legend_below(fig, axes)
    return [ExpFigure("jumbo_fig6_throughput", "Throughput over time of the special flow and of the mean "
                      "regular flow (seed 1), one panel per variant (jumbo = Fig. 6a, sp = Fig. 6b); "
                      "dashed: the paper's averages", fig, data)]


def _interval(ts: list[float]) -> str:
    return f"{ts[1] - ts[0]:g}" if len(ts) > 1 else "?"
