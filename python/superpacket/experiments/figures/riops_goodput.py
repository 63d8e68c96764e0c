"""Report figures of `riops-goodput` (Guo and Matta, ICNP 2001): the goodput table and link
utilisation."""

from __future__ import annotations

import math
from typing import Any

from superpacket.experiments.common import interval_kind
from superpacket.reports.figure_kit import (
    CLASS_COLORS,
    SCHEME_COLORS,
    ExpFigure,
    _ebar,
    _err,
    _grid,
    _legend_below,
    _nan,
)
from superpacket.reports.figures import OURS, _f

# ---- riops-goodput: the goodput table and link utilisation ------------------------------

GOODPUT_CLASSES = ("all", "short", "long")


def _split_rate(v: str) -> tuple[str, str]:
    kind, _, rate = v.rpartition("-")
    return kind, rate


def riops_goodput(s: dict[str, Any]) -> list[ExpFigure]:
    out = []
    variants: dict[str, dict[str, Any]] = s.get("variants", {})
    paper: dict[str, dict[str, Any]] = s.get("paper", {})
    rates = sorted({_split_rate(v)[1] for v in variants}, key=float)
    schemes = [k for k in SCHEME_COLORS if any(_split_rate(v)[0] == k for v in variants)]
    schemes += sorted({_split_rate(v)[0] for v in variants} - set(schemes))
    fig, axes = _grid(len(rates), 2, 5.6, 3.8, sharey=True)
    data: dict[str, Any] = {}
    width = 0.8 / max(1, 2 * len(schemes))
    for ax, rate in zip(axes, rates, strict=True):
        for j, k in enumerate(schemes):
            v = f"{k}-{rate}"
            if v not in variants:
                continue
            ours, pap = [], []
            for i, c in enumerate(GOODPUT_CLASSES):
                metric = f"goodput_{c}_pkts"
                m, lo, hi = _err(variants[v], metric)
                x0 = i - 0.4 + (2 * j + 0.5) * width
                ax.bar(x0, m, width=width, color=SCHEME_COLORS.get(k, OURS), label=f"{k} (ours)" if i == 0 else None)
                _ebar(ax, x0, m, lo, hi)
                p = _f(paper.get(v, {}).get(metric))
                if not math.isnan(p):
                    ax.bar(x0 + width, p, width=width, color=SCHEME_COLORS.get(k, OURS), alpha=0.35, hatch="//",
                           edgecolor=SCHEME_COLORS.get(k, OURS), label=f"{k} (paper)" if i == 0 else None)
                ours.append(m)
                pap.append(p)
            data[v] = {"ours": ours, "paper": pap}
        ax.set_xticks(range(len(GOODPUT_CLASSES)), [f"{c} flows" for c in GOODPUT_CLASSES])
        ax.set_title(f"bottleneck {rate} Mbps", fontsize=10)
    axes[0].set_ylabel("goodput (packets delivered)")
    fig.suptitle(f"Network goodput per flow class: ours ({s.get('seeds')} seed(s), {interval_kind(s.get('seeds'))}) vs the paper (hatched)")
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    _legend_below(fig, axes, ncol=len(schemes))
    out.append(ExpFigure("riops_goodput_bars", "Goodput (packets delivered) of all, short and long flows per "
                         "scheme at each bottleneck rate: ours (solid, mean with its interval) beside the paper's "
                         "table (hatched)", fig, data))
    series = {v: x for v, x in (s.get("series") or {}).items() if x}
    if series:
        order = [f"{k}-{r}" for r in rates for k in schemes if f"{k}-{r}" in series]
        fig, axes = _grid(len(order), len(schemes) or 3, 4.2, 2.9, sharey=True)
        sdata: dict[str, Any] = {}
        for ax, v in zip(axes, order, strict=True):
            x = series[v]
            t, us, ul = _nan(x["t_s"]), _nan(x["util_short"]), _nan(x["util_long"])
            tot = [a + b for a, b in zip(us, ul, strict=True)]
            ax.plot(t, us, color=CLASS_COLORS["short"], lw=1.1, label="short flows")
            ax.plot(t, ul, color=CLASS_COLORS["long"], lw=1.1, label="long flows")
            ax.plot(t, tot, color=CLASS_COLORS["total"], lw=0.8, ls=":", label="all flows")
            sdata[v] = {"t_s": t, "util_short": us, "util_long": ul}
            ax.set_title(v, fontsize=10)
            ax.set_xlabel("time (s)")
        for ax in axes[:: max(1, len(schemes))]:
            ax.set_ylabel("bottleneck utilisation")
        fig.suptitle("Link utilisation over time per flow class, seed 1")
        fig.tight_layout(rect=(0, 0.06, 1, 1))
        _legend_below(fig, axes)
        out.append(ExpFigure("riops_goodput_utilization", "Bottleneck utilisation over time of short and long "
                             "flows (and their sum), one panel per scheme and rate, seed 1 (the slides' "
                             "'Link Utilization')", fig, sdata))
    return out
