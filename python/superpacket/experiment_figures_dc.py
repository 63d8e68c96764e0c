"""Report figures of `datacenter` (issue 16 sections 4-5), drawn from a reproduce folder's
summary.json only: (1) the overview, a grid of workloads (rows) by metric (columns: small-
flow p99 and mean slowdown, large-flow mean slowdown), load on x, one line per scheme, log
y; (2) the slowdown against flow size at the figure load, p50 (solid) and p99 (dashed)
per scheme in the size bins of at least MIN_BIN_FLOWS flows, log-log, one panel per workload. Registered in experiment_figures' registry.
"""

from __future__ import annotations

from typing import Any

from superpacket.experiment_figures import ExpFigure, _err, register
from superpacket.figures import _f, plt

METRICS = (("small_p99_slowdown", "small flows (< 100 KB): p99 slowdown"),
           ("small_mean_slowdown", "small flows: mean slowdown"),
           ("large_mean_slowdown", "large flows (> 10 MB): mean slowdown"))
MIN_BIN_FLOWS = 30  # a size bin with fewer flows (pooled over seeds) is left out of the plot: no p99 in it
COLORS = {"droptail-newreno": "#7f7f7f", "droptail-cubic": "#8c564b", "dctcp": "#d62728",
          "red-ecn-newreno": "#ff7f0e", "riops-newreno": "#2ca02c", "sp-newreno": "#1f77b4"}


def _split(v: str) -> tuple[str, float, str]:
    w, load, s = v.split("/")
    return w, float(load), s


def _order(items: list[str], known: tuple[str, ...]) -> list[str]:
    return [x for x in known if x in items] + sorted(x for x in items if x not in known)


@register("datacenter")
def datacenter(s: dict[str, Any]) -> list[ExpFigure]:
    from superpacket.experiments.datacenter import SCHEMES, WORKLOADS

    variants: dict[str, dict[str, Any]] = s.get("variants") or {}
    if not variants:
        return []
    keys = [_split(v) for v in variants]
    workloads = _order(list(dict.fromkeys(k[0] for k in keys)), WORKLOADS)
    schemes = _order(list(dict.fromkeys(k[2] for k in keys)), SCHEMES)
    loads = sorted({k[1] for k in keys})
    fig, axes = plt.subplots(len(workloads), len(METRICS), figsize=(4.2 * len(METRICS), 3.0 * len(workloads) + 0.8),
                             squeeze=False, sharex=True)
    data: dict[str, Any] = {}
    for i, w in enumerate(workloads):
        for j, (m, title) in enumerate(METRICS):
            ax = axes[i][j]
            for sc in schemes:
                pts = [(x, *_err(variants[f"{w}/{x:g}/{sc}"], m)) for x in loads if f"{w}/{x:g}/{sc}" in variants]
                if not pts:
                    continue
                xs, ys = [p[0] for p in pts], [p[1] for p in pts]
                ax.errorbar(xs, ys, yerr=[[p[2] for p in pts], [p[3] for p in pts]], marker="o", ms=4, capsize=2,
                            lw=1.4, color=COLORS.get(sc), label=sc)
                data[f"{w}/{m}/{sc}"] = {"load": xs, "mean": ys}
            ax.set_yscale("log")
            if i == 0:
                ax.set_title(title, fontsize=9)
            if j == 0:
                ax.set_ylabel(f"{w}\nslowdown (log)", fontsize=9)
            if i == len(workloads) - 1:
                ax.set_xlabel("load (fraction of the host link rate)", fontsize=8)
            ax.set_xticks(loads)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(6, len(labels)), fontsize=8, frameon=False)
    fig.suptitle(f"Leaf-spine fabric: FCT slowdown per scheme, load and workload (means over {s.get('seeds')} "
                 "seed(s), 95 % CI)", fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 0.96))
    out = [ExpFigure("datacenter_overview", "FCT slowdown at a glance: rows are workloads (incast = web search plus "
                     "a 16-to-1 query every 2 ms), columns the small-flow p99 and mean and the large-flow mean "
                     "slowdown, load on x, one line per scheme (log y; mean over seeds with 95 % CI)", fig, data)]
    bins: dict[str, dict[str, list[Any]]] = s.get("size_bins") or {}
    load = s.get("figure_load", loads[0])
    wl = [w for w in workloads if any(f"{w}/{load:g}/{sc}" in bins for sc in schemes)]
    if wl:
        fig2, axes2 = plt.subplots(1, len(wl), figsize=(5.0 * len(wl), 3.8), squeeze=False, sharey=True)
        data2: dict[str, Any] = {}
        for j, w in enumerate(wl):
            ax = axes2[0][j]
            for sc in schemes:
                b = bins.get(f"{w}/{load:g}/{sc}")
                if not b or not b["size_bytes"]:
                    continue
                keep = [k for k, n in enumerate(b["count"]) if n >= MIN_BIN_FLOWS]
                x = [b["size_bytes"][k] for k in keep]
                p50, p99 = [_f(b["p50"][k]) for k in keep], [_f(b["p99"][k]) for k in keep]
                ax.plot(x, p50, "-", color=COLORS.get(sc), lw=1.4, label=f"{sc} p50")
                ax.plot(x, p99, "--", color=COLORS.get(sc), lw=1.0, label=f"{sc} p99")
                data2[f"{w}/{sc}"] = {"size_bytes": x, "p50": p50, "p99": p99}
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"{w}, load {load:g}", fontsize=9)
            ax.set_xlabel("flow size (bytes, log)", fontsize=8)
            if j == 0:
                ax.set_ylabel("slowdown (log)", fontsize=9)
        h2, l2 = axes2[0][0].get_legend_handles_labels()
        fig2.legend(h2, l2, loc="center right", fontsize=7, frameon=False)
        fig2.tight_layout(rect=(0, 0, 0.84, 1))
        out.append(ExpFigure("datacenter_slowdown_vs_size", f"Slowdown against flow size at load {load:g}: p50 "
                             f"(solid) and p99 (dashed) in log-spaced size bins (4 a decade) holding at least "
                             f"{MIN_BIN_FLOWS} flows, flows of every seed pooled, log-log", fig2, data2))
    return out
