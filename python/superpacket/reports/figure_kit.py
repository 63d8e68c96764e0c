"""What the experiment-specific report figures share: the figure record, the colours, the
error-bar and layout helpers, the experiment's own order of variants, and `build`, which
draws an experiment's figures through its record. The builders
(superpacket.experiments.figures) import this; it imports none of them (the record names
its builder, loaded when drawn), so none imports another back.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from superpacket.reports.figures import OURS, _f, plt


@dataclass
class ExpFigure:
    name: str
    caption: str
    fig: Any
    data: dict[str, Any] = field(default_factory=dict)


Builder = Callable[[dict[str, Any]], list[ExpFigure]]

SCHEME_COLORS = {"droptail": "#7f7f7f", "red": "#ff7f0e", "riops": "#2ca02c", "superpacket": "#1f77b4"}
CLASS_COLORS = {"special": OURS, "regular": "#ff7f0e", "short": "#2ca02c", "long": "#9467bd", "total": "#555555"}


def _nan(xs: list[Any]) -> list[float]:
    return [_f(x) for x in xs]


def _err(ms: dict[str, Any], metric: str) -> tuple[float, float, float]:
    """(mean, minus, plus) of a metric of a variant; no error bar when the CI is unknown."""
    m = _f(ms.get(metric))
    lo, hi = (_f(x) for x in (ms.get(f"{metric}_ci95") or [None, None]))
    if any(math.isnan(v) for v in (m, lo, hi)):
        return m, 0.0, 0.0
    return m, m - lo, hi - m


def _ebar(ax: Any, x: float, m: float, lo: float, hi: float) -> None:
    """An error bar from lo to hi (the interval of mean_ci95), none where it is unknown."""
    if lo > 0 or hi > 0:
        ax.errorbar(x, m, yerr=[[lo], [hi]], fmt="none", ecolor="black", capsize=2, lw=0.8)


def _grid(n: int, ncols: int, w: float, h: float, **kw: Any) -> tuple[Any, list[Any]]:
    ncols = max(1, min(ncols, n))
    nrows = max(1, math.ceil(n / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(w * ncols, h * nrows), squeeze=False, **kw)
    flat = [a for row in axes for a in row]
    for a in flat[n:]:
        a.set_visible(False)
    return fig, flat[:n]


def _legend_below(fig: Any, axes: list[Any], ncol: int | None = None) -> None:
    handles: dict[str, Any] = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
    if handles:
        fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=ncol or min(4, len(handles)),
                   fontsize=8, frameon=False)


def variant_order(experiment: str, names: list[str]) -> list[str]:
    """The experiment's own order of variants (summary.json's keys are sorted)."""
    from superpacket.experiments import EXPERIMENTS

    exp = EXPERIMENTS.get(experiment)
    known = list(exp.variants) if exp is not None else []
    return [v for v in known if v in names] + sorted(v for v in names if v not in known)


def build(summary: dict[str, Any]) -> list[ExpFigure]:
    """The experiment-specific figures of a summary: its experiment's builder (the record's
    `figures`), or none for an experiment without one (or unknown)."""
    from superpacket.experiments import EXPERIMENTS

    exp = EXPERIMENTS.get(str(summary.get("experiment")))
    builder = exp.figure_builder() if exp is not None else None
    return builder(summary) if builder is not None else []
