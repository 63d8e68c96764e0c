"""Report figures of `riops-web` (Guo and Matta, ICNP 2001): response time relative to RED,
fairness, queue and drop/mark rate."""

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
from superpacket.reports.figures import OURS, PAPER, plt

# ---- riops-web: response time relative to RED, fairness, queue and drop/mark rate --------

BUCKETS = ("short", "medium", "long")


def _web_layout(variants: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The experiments and schemes present, in the experiment module's order (summary.json
    sorts its keys)."""
    from superpacket.experiments import riops_web as mod

    present_e = {v.split("/")[0] for v in variants}
    present_k = {v.split("/")[1] for v in variants}
    exps = [e for e in mod.EXPERIMENTS if e in present_e] + sorted(present_e - set(mod.EXPERIMENTS))
    schemes = [k for k in mod.SCHEMES if k in present_k] + sorted(present_k - set(mod.SCHEMES))
    return exps, schemes


def riops_web(s: dict[str, Any]) -> list[ExpFigure]:
    out = []
    variants: dict[str, dict[str, Any]] = {v: x for v, x in s.get("variants", {}).items() if "/" in v}
    if not variants:
        return []
    exps, schemes = _web_layout(variants)
    cuts = s.get("paper_response_cut_pct") or {}
    seeds = s.get("seeds")
    width = 0.8 / max(1, len(schemes))
    if any("response_short_rel_red" in x for x in variants.values()):
        fig, axes = _grid(len(exps), 3, 4.6, 3.6, sharey=True)
        data: dict[str, Any] = {}
        for ax, e in zip(axes, exps, strict=True):
            for j, k in enumerate(schemes):
                v = f"{e}/{k}"
                if v not in variants:
                    continue
                ys = []
                for i, b in enumerate(BUCKETS):
                    m, lo, hi = _err(variants[v], f"response_{b}_rel_red")
                    x0 = i - 0.4 + (j + 0.5) * width
                    ax.bar(x0, 0.0 if math.isnan(m) else m, width=width, color=SCHEME_COLORS.get(k, OURS),
                           label=k if i == 0 else None)
                    _ebar(ax, x0, m, lo, hi)
                    ys.append(m)
                    rng = cuts.get(e, {}).get(b)
                    if k == "riops" and rng:
                        rel = sorted(1.0 - c / 100.0 for c in rng)
                        ax.plot([x0, x0], rel, color=PAPER, lw=4, solid_capstyle="butt", alpha=0.8,
                                label="paper: RIO-PS range" if not data.get("_paper_drawn") else None)
                        data["_paper_drawn"] = True
                        data.setdefault("paper_rel", {})[f"{e}/{b}"] = rel
                data[v] = ys
            ax.axhline(1.0, color="black", lw=0.8, ls="--")
            ax.set_xticks(range(len(BUCKETS)), [f"{b} objects" for b in BUCKETS])
            ax.set_title(e, fontsize=10)
        data.pop("_paper_drawn", None)
        axes[0].set_ylabel("mean response time / RED's")
        fig.suptitle(f"Web response time relative to RED per object-size bucket ({seeds} seed(s), {interval_kind(seeds)})")
        fig.tight_layout(rect=(0, 0.08, 1, 1))
        _legend_below(fig, axes, ncol=len(schemes) + 1)
        out.append(ExpFigure("riops_web_response_rel_red", "Mean response time of web objects relative to RED "
                             "(same seed), per size bucket (short <= 10 packets, medium 11-100, long > 100) and "
                             "scheme, one panel per experiment; red bars: the slides' RIO-PS cut vs RED", fig, data))
    if any("fairness_short" in x for x in variants.values()):
        fig, axes = _grid(len(exps), 3, 4.6, 3.4, sharey=True)
        fdata: dict[str, Any] = {}
        cls = ("short", "long")
        w2 = 0.8 / len(cls)
        for ax, e in zip(axes, exps, strict=True):
            ks = [k for k in schemes if f"{e}/{k}" in variants]
            for i, c in enumerate(cls):
                ys = []
                for j, k in enumerate(ks):
                    m, lo, hi = _err(variants[f"{e}/{k}"], f"fairness_{c}")
                    x0 = j - 0.4 + (i + 0.5) * w2
                    ax.bar(x0, 0.0 if math.isnan(m) else m, width=w2, color=CLASS_COLORS[c],
                           label=f"{c} foreground flows" if j == 0 else None)
                    _ebar(ax, x0, m, lo, hi)
                    ys.append(m)
                fdata[f"{e}/{c}"] = dict(zip(ks, ys, strict=True))
            ax.set_xticks(range(len(ks)), ks)
            ax.set_ylim(0, 1.05)
            ax.set_title(e, fontsize=10)
        axes[0].set_ylabel("Jain's fairness index")
        fig.suptitle(f"Fairness of the foreground flows per scheme ({seeds} seed(s), {interval_kind(seeds)})")
        fig.tight_layout(rect=(0, 0.08, 1, 1))
        _legend_below(fig, axes)
        out.append(ExpFigure("riops_web_fairness", "Jain's fairness index of the response times of each batch of 10 "
                             "foreground flows (short: 10 packets, long: 1000 packets), averaged over the batches "
                             "after the warm-up, per scheme and experiment; missing bars: no complete batch",
                             fig, fdata))
    series = {v: (x or {}).get("queue") for v, x in (s.get("series") or {}).items()}
    series = {v: q for v, q in series.items() if q and q.get("t_s")}
    if series:
        sexps = [e for e in exps if any(v.startswith(f"{e}/") for v in series)]
        fig, axes2 = plt.subplots(2, len(sexps), figsize=(4.6 * len(sexps), 5.6), squeeze=False, sharex=True)
        qdata: dict[str, Any] = {}
        for col, e in enumerate(sexps):
            top, bottom = axes2[0][col], axes2[1][col]
            for k in schemes:
                q = series.get(f"{e}/{k}")
                if not q:
                    continue
                t, qp, dm = _nan(q["t_s"]), _nan(q["queue_pkts"]), _nan(q["drop_mark_rate"])
                top.plot(t, qp, color=SCHEME_COLORS.get(k, OURS), lw=1.0, label=k)
                bottom.plot(t, dm, color=SCHEME_COLORS.get(k, OURS), lw=1.0, label=k)
                qdata[f"{e}/{k}"] = {"t_s": t, "queue_pkts": qp, "drop_mark_rate": dm}
            top.set_title(e, fontsize=10)
            bottom.set_xlabel("time (s)")
        axes2[0][0].set_ylabel("queue length (packets)")
        axes2[1][0].set_ylabel("drop + mark rate")
        flat = [a for row in axes2 for a in row]
        fig.suptitle("Bottleneck queue over time, seed 1: instantaneous length and (drops + marks) / arrivals "
                     "per interval")
        fig.tight_layout(rect=(0, 0.06, 1, 1))
        _legend_below(fig, flat, ncol=len(schemes))
        out.append(ExpFigure("riops_web_queue_series", "Instantaneous queue length at the bottleneck R1->R2 and "
                             "its drop + mark rate per interval over time, one line per scheme, one column per "
                             "experiment (seed 1)", fig, qdata))
    return out
