"""Report figures of `loss-sensitivity` (Guo and Matta, ICNP 2001): the slides' transmission time
and coefficient of variation against the loss rate."""

from __future__ import annotations

from typing import Any

from superpacket.experiments.common import interval_kind
from superpacket.reports.figure_kit import (
    ExpFigure,
    _err,
)
from superpacket.reports.figures import _f, plt

# ---- loss-sensitivity: the slides' transmission time and CoV ----------------------------

def _cells(table: dict[str, dict[str, Any]]) -> dict[int, tuple[list[float], list[float]]]:
    """{"n4": {"p0.001": x}} -> {4: ([0.001, ...], [x, ...])}, sizes and loss rates sorted."""
    out = {}
    for nk, row in table.items():
        n = int(nk.lstrip("n"))
        pts = sorted((float(pk.lstrip("p")), _f(val)) for pk, val in row.items())
        out[n] = ([p for p, _ in pts], [y for _, y in pts])
    return dict(sorted(out.items()))


def _loss_panel(ax: Any, cells: dict[int, tuple[list[float], list[float]]], variants: dict[str, Any],
                metric: str) -> dict[str, Any]:
    cmap = plt.get_cmap("viridis")
    data = {}
    for i, (n, (ps, ys)) in enumerate(cells.items()):
        err = [[0.0] * len(ps), [0.0] * len(ps)]
        for j, p in enumerate(ps):
            _, lo, hi = _err(variants.get(f"n{n}-p{p:g}", {}), metric)
            err[0][j], err[1][j] = lo, hi
        ax.errorbar(ps, ys, yerr=err, marker="o", ms=4, capsize=3, lw=1.2,
                    color=cmap(i / max(1, len(cells) - 1)), label=f"{n} packets")
        data[f"n{n}"] = {"p": ps, "y": ys}
    ax.set_xlabel("loss rate p (each direction)")
    return data


def loss_sensitivity(s: dict[str, Any]) -> list[ExpFigure]:
    out = []
    variants = s.get("variants", {})
    seeds = s.get("seeds")
    if s.get("table_mean_time_s"):
        cells = _cells(s["table_mean_time_s"])
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        data = _loss_panel(ax, cells, variants, "mean_time_s")
        ax.set_yscale("log")
        ax.set_ylabel("mean transmission time (s, log)")
        ax.set_title(f"Average transmission time vs loss rate ({seeds} seed(s), {interval_kind(seeds)})")
        ax.legend(fontsize=8, title="flow size", title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
        fig.tight_layout()
        out.append(ExpFigure("loss_mean_time", "Mean transmission time against the loss rate, one line per flow "
                             "size (log y; p = 0 is the no-loss baseline), mean over seeds with its interval "
                             "(the slides' 'Average Transmission Time')", fig, data))
    if s.get("table_cov"):
        cells = _cells(s["table_cov"])
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        data = _loss_panel(ax, cells, variants, "cov")
        ax.set_ylabel("coefficient of variation of the FCT")
        ax.set_title(f"CoV of the transmission time vs loss rate ({seeds} seed(s), {interval_kind(seeds)})")
        ax.legend(fontsize=8, title="flow size", title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
        fig.tight_layout()
        out.append(ExpFigure("loss_cov", "Coefficient of variation (std / mean) of the transmission time against "
                             "the loss rate, one line per flow size, mean over seeds with its interval (the slides' "
                             "'Coefficient of Variation')", fig, data))
    return out
