"""The report figures (matplotlib, Agg backend): each function returns a Figure, `save`
writes it as PNG and SVG. Means over seeds carry their interval as error bars (a 95 %
confidence interval clipped to the metric's range from 3 seeds, the min-max below:
experiments.common.mean_ci95), named in the legend with the number of seeds; the paper's value, where there is one, is drawn beside ours as a red diamond or a dashed
line.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

plt.rcParams.update({"svg.hashsalt": "superpacket", "figure.dpi": 100, "axes.grid": True,
                     "grid.alpha": 0.3, "axes.spines.top": False, "axes.spines.right": False})

OURS = "#1f77b4"
PAPER = "#d62728"
SEED = "#555555"


def unit_label(metric: str) -> str:
    """The unit a metric name carries (`mean_fct_s`, `goodput_bps`, `special_kBps`)."""
    for suffix, unit in (("_kBps", "kB/s"), ("_bps", "bit/s"), ("_s", "s"), ("_pct", "%"), ("_pkts", "packets"),
                         ("_bytes", "B")):
        if metric.endswith(suffix):
            return f"{metric} ({unit})"
    return metric


def save(fig: Figure, folder: Path, name: str) -> tuple[Path, Path]:
    """Writes folder/name.png and folder/name.svg (no timestamps, fixed ids) and closes fig."""
    folder.mkdir(parents=True, exist_ok=True)
    png, svg = folder / f"{name}.png", folder / f"{name}.svg"
    fig.savefig(png, dpi=110, bbox_inches="tight", metadata={"Software": None})
    fig.savefig(svg, bbox_inches="tight", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return png, svg


def _finite(xs: list[Any]) -> list[float]:
    return [float(x) for x in xs if x is not None and math.isfinite(float(x))]


def _f(x: Any) -> float:
    """A float, NaN for None or an infinity (nothing to draw)."""
    return float(x) if x is not None and math.isfinite(float(x)) else math.nan


def interval_label(n: int) -> str:
    """The error bars' name for means over `n` seeds: "95 % CI, n = 10", "min-max, n = 2"."""
    from superpacket.experiments.common import interval_kind

    return f"{interval_kind(n)}, n = {n}"


def _yerr(mean: float, lo: float, hi: float) -> list[list[float]]:
    if any(math.isnan(v) for v in (mean, lo, hi)):
        return [[0.0], [0.0]]
    return [[mean - lo], [hi - mean]]


def bars_vs_paper(metric: str, variants: dict[str, dict[str, Any]], paper: dict[str, dict[str, Any]],
                  seeds: int) -> Figure:
    """One bar per variant: our mean over seeds with its interval, the per-seed values as
    dots, the paper's value as a red diamond where the paper gives one."""
    names = list(variants)
    fig, ax = plt.subplots(figsize=(max(4.5, 1.4 * len(names) + 1.5), 3.8))
    has_paper = False
    for i, v in enumerate(names):
        ms = variants[v]
        m = _f(ms.get(metric))
        lo, hi = (_f(x) for x in ms.get(f"{metric}_ci95", [None, None]))
        ax.bar(i, 0.0 if math.isnan(m) else m, width=0.6, color=OURS, alpha=0.75,
               label=f"ours: mean, {interval_label(seeds)}" if i == 0 else None)
        ax.errorbar(i, m, yerr=_yerr(m, lo, hi), fmt="none", ecolor="black", capsize=6, lw=1.3)
        pts = _finite(ms.get(f"{metric}_per_seed", []))
        if pts:
            k = len(pts)
            xs = [i - 0.18 + 0.36 * j / max(1, k - 1) for j in range(k)]
            ax.scatter(xs, pts, s=9, color=SEED, alpha=0.6, zorder=3, label="ours: per seed" if i == 0 else None)
        p = paper.get(v, {}).get(metric)
        if p is not None and math.isfinite(p):
            ax.scatter([i + 0.38], [p], marker="D", s=50, color=PAPER, zorder=4,
                       label=None if has_paper else "paper")
            has_paper = True
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel(unit_label(metric))
    ax.set_title(f"{metric}: ours ({seeds} seeds) vs paper" if has_paper else f"{metric} ({seeds} seeds)")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return fig


def per_flow_fct(per_flow: dict[str, list[dict[str, Any]]], paper: dict[str, dict[str, Any]],
                 variants: dict[str, dict[str, Any]]) -> Figure:
    """Incast, as in the paper's Fig. 4a-c: one panel per variant, flow index on x, FCT on
    y: the mean over seeds with its 95 % CI, every seed's value as a grey dot (left of the
    mean), our mean FCT as a blue line and the paper's as a red dashed line."""
    from superpacket.experiments.common import mean_ci95

    names = list(per_flow)
    n_seeds = len(next(iter(per_flow.values()), []))
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.9), sharey=True, squeeze=False)
    for ax, v in zip(axes[0], names, strict=True):
        runs = per_flow[v]
        n_flows = max((len(r["fct_s"]) for r in runs), default=0)
        for s, r in enumerate(runs):
            ys = [math.nan if y is None else y for y in r["fct_s"]]
            ax.scatter([i - 0.25 for i in range(len(ys))], ys, s=10, color=SEED, alpha=0.5,
                       label="each seed" if s == 0 else None)
        for f in range(n_flows):
            m, lo, hi = mean_ci95(_finite([r["fct_s"][f] for r in runs if f < len(r["fct_s"])]), "fct_s")
            ax.errorbar(f, m, yerr=_yerr(m, lo, hi), fmt="o", color=OURS, ecolor="black", capsize=3, ms=5,
                        label=f"mean over seeds, {interval_label(len(runs))}" if f == 0 else None)
        title = v
        ours = variants.get(v, {}).get("mean_fct_s")
        if ours is not None and not math.isnan(ours):
            ax.axhline(ours, color=OURS, lw=1, alpha=0.7, label="our mean FCT")
            title += f": ours {ours:.3f} s"
        p = paper.get(v, {}).get("mean_fct_s")
        if p is not None:
            ax.axhline(p, color=PAPER, ls="--", lw=1.3, label="paper's mean FCT")
            title += f", paper {p:.3f} s"
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("flow index")
        ax.set_xticks(range(n_flows))
    axes[0][0].set_ylim(bottom=0.0)  # an FCT is >= 0
    axes[0][0].set_ylabel("FCT (s)")
    handles: dict[str, Any] = {}
    for ax in axes[0]:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
    fig.suptitle(f"Per-flow completion time, {n_seeds} seeds (the paper's Fig. 4a-c)")
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=len(handles), fontsize=8,
               frameon=False)
    return fig


def sweep_metric(metric: str, xparam: str, series: dict[str, list[tuple[Any, float, float, float, int]]]) -> Figure:
    """A metric against the first parameter: one line per combination of the others,
    each point the mean over seeds with its interval (mean_ci95). `series`: label -> [(x, mean, lo,
    hi, n)]."""
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    xs_all = [x for pts in series.values() for x, *_ in pts]
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs_all)
    cats = list(dict.fromkeys(str(x) for x in xs_all))
    for label, pts in series.items():
        xs = [x if numeric else cats.index(str(x)) for x, *_ in pts]
        ms = [m for _, m, _, _, _ in pts]
        err = [[m - lo if not math.isnan(lo) else 0.0 for _, m, lo, _, _ in pts],
               [hi - m if not math.isnan(hi) else 0.0 for _, m, _, hi, _ in pts]]
        ax.errorbar(xs, ms, yerr=err, marker="o", capsize=4, label=label or "mean")
    if not numeric:
        ax.set_xticks(range(len(cats)), cats)
    n = max((p[4] for pts in series.values() for p in pts), default=0)
    ax.set_xlabel(xparam)
    ax.set_ylabel(unit_label(metric))
    lo_n = min((p[4] for pts in series.values() for p in pts), default=0)
    ax.set_title(f"{metric}: mean over seeds, {interval_label(n)}" if lo_n == n else
                 f"{metric}: mean over {lo_n}..{n} seeds (95 % CI from 3 seeds, min-max below)")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return fig


def run_flows(flow_ids: list[int], values: list[float | None], timeouts: list[int], metric: str) -> Figure:
    """One run: a bar per flow, flows that hit a retransmission timeout in red."""
    fig, ax = plt.subplots(figsize=(max(5.0, 0.25 * len(flow_ids) + 2), 3.6))
    ys = [math.nan if v is None else v for v in values]
    colors = [PAPER if t > 0 else OURS for t in timeouts]
    ax.bar(range(len(ys)), [0.0 if math.isnan(y) else y for y in ys], color=colors)
    if len(flow_ids) <= 40:
        ax.set_xticks(range(len(flow_ids)), [str(f) for f in flow_ids])
    ax.set_xlabel("flow id")
    ax.set_ylabel(unit_label(metric))
    ax.set_title(f"{metric} per flow (red: at least one timeout)")
    fig.tight_layout()
    return fig


def run_flows_cdf(values: list[float | None], timeouts: list[int], metric: str) -> Figure:
    """One run with many flows: the distribution of `metric` over the completed flows (an
    empirical CDF, log x), and the same over the flows that hit a retransmission timeout."""
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    pairs = [(v, t) for v, t in zip(values, timeouts, strict=True) if v is not None and not math.isnan(v)]
    for label, xs, color in (("all completed flows", [v for v, _ in pairs], OURS),
                             ("flows with a timeout", [v for v, t in pairs if t > 0], PAPER)):
        if not xs:
            continue
        xs = sorted(xs)
        ys = [(i + 1) / len(xs) for i in range(len(xs))]
        ax.step(xs, ys, where="post", color=color, label=f"{label} ({len(xs)})")
    if pairs and min(v for v, _ in pairs) > 0:
        ax.set_xscale("log")
    ax.set_xlabel(unit_label(metric))
    ax.set_ylabel("fraction of flows")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(f"{metric}: distribution over flows")
    fig.tight_layout()
    return fig


def queue_series(series: dict[str, tuple[list[float], list[float]]]) -> Figure:
    """Sampled queue length (packets) against time, one line per link."""
    fig, ax = plt.subplots(figsize=(7.0, 3.6))
    for link, (t, pkts) in series.items():
        ax.plot(t, pkts, lw=0.8, label=link)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    ax.set_title("Queue length")
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig
