"""Report figures of `datacenter` (our datacenter specification), drawn from a reproduce folder's
summary.json only: (1) the overview, a grid of workloads (rows) by metric (columns: small-
flow p99 and mean slowdown, large-flow mean slowdown), load on x, one line per scheme, log
y; (2) the slowdown against flow size at the figure load, p50 (solid) and p99 (dashed)
per scheme in the size bins of at least MIN_BIN_FLOWS flows, log-log, one panel per workload;
(3) the queue over time at the two sampled ports (host-facing, leaf uplink), the first
seed at the figure load, one line per scheme, workloads in rows and ports in columns,
with the port buffer and the DCTCP marking threshold K as reference lines.
"""

from __future__ import annotations

from typing import Any

from superpacket.experiments.common import interval_kind
from superpacket.reports.figure_kit import ExpFigure, _err
from superpacket.reports.figures import _f, plt

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
                 f"seed(s), {interval_kind(s.get('seeds'))})", fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 0.96))
    out = [ExpFigure("datacenter_overview", "FCT slowdown at a glance: rows are workloads (incast = web search plus "
                     "a 16-to-1 query every 2 ms), columns the small-flow p99 and mean and the large-flow mean "
                     "slowdown, load on x, one line per scheme (log y; mean over seeds with its interval)", fig, data)]
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
    q = queue_figure(s, workloads, schemes, load)
    if q is not None:
        out.append(q)
    return out


def queue_figure(s: dict[str, Any], workloads: list[str], schemes: list[str], load: float) -> ExpFigure | None:
    """Queue length (packets) over time at each sampled port (columns) per workload at the
    figure load (rows), one line per scheme (legend: its p99 over the measured window, the
    summary's metric for that seed), the buffer and K dotted, the window [W, T) shaded."""
    qs: dict[str, Any] = s.get("queue_series") or {}
    series: dict[str, dict[str, list[float]]] = qs.get("variants") or {}
    ports: dict[str, dict[str, Any]] = qs.get("ports") or {}
    wl = [w for w in workloads if any(f"{w}/{load:g}/{sc}" in series for sc in schemes)]
    if not wl or not ports:
        return None
    w0, w1 = qs.get("window_s", [None, None])
    fig, axes = plt.subplots(len(wl), len(ports), figsize=(5.6 * len(ports), 2.9 * len(wl) + 0.6), squeeze=False,
                             sharex=True)
    data: dict[str, Any] = {}
    for i, w in enumerate(wl):
        for j, (port, info) in enumerate(ports.items()):
            ax = axes[i][j]
            if w0 is not None:
                ax.axvspan(w0 * 1e3, w1 * 1e3, color="#f2f2f2", zorder=0)
            for sc in schemes:
                x = series.get(f"{w}/{load:g}/{sc}")
                if not x or port not in x:
                    continue
                t = [tt * 1e3 for tt in x["t_s"]]
                p99 = _window_p99(x["t_s"], x[port], w0, w1)
                ax.plot(t, x[port], "-", color=COLORS.get(sc), lw=0.8, alpha=0.85, label=f"{sc} (p99 {p99:.0f})")
                data[f"{w}/{port}/{sc}"] = {"t_s": x["t_s"], "pkts": x[port], "p99_window": p99}
            b, k = info.get("buffer_pkts"), info.get("dctcp_k_pkts")
            if b is not None:
                ax.axhline(b, color="black", ls=":", lw=1.0)
                ax.annotate(f"buffer {b}", (1.0, b), xycoords=("axes fraction", "data"), ha="right", va="bottom",
                            fontsize=7)
            if k is not None:
                ax.axhline(k, color=COLORS["dctcp"], ls=":", lw=1.0)
                ax.annotate(f"DCTCP K {k}", (1.0, k), xycoords=("axes fraction", "data"), ha="right", va="bottom",
                            fontsize=7, color=COLORS["dctcp"])
            ax.set_ylim(0, 1.4 * max(b or 0, 1))  # room for the legend above the buffer line
            ax.legend(loc="upper left", fontsize=6, frameon=False, ncol=2)
            if i == 0:
                ax.set_title(f"{port}: {info.get('role', '')}", fontsize=9)
            if j == 0:
                ax.set_ylabel(f"{w}, load {load:g}\nqueue (packets)", fontsize=9)
            if i == len(wl) - 1:
                ax.set_xlabel("time (ms)", fontsize=8)
    iv = qs.get("interval_s")
    fig.suptitle(f"Queue length over time at the sampled ports, seed {qs.get('seed', 1)}, sampled every "
                 f"{iv * 1e6:g} us" if iv else "Queue length over time at the sampled ports", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    win = f" (shaded: the measured window {w0 * 1e3:g}-{w1 * 1e3:g} ms)" if w0 is not None else ""
    return ExpFigure("datacenter_queues", "Queue length in packets over time at the two sampled switch ports "
                     f"(columns: the host-facing port to the incast client and a leaf uplink), at load {load:g}, "
                     "one line per scheme, instantaneous samples of the first seed run; dotted lines: the 500-packet "
                     "port buffer (black) and the DCTCP marking threshold K (red), above which DCTCP's switches "
                     "CE-mark. The legend gives each scheme's p99 over the samples in the measured window"
                     f"{win}. A queue far above K adds its length x 1.2 us (10 Gbps) to every packet through the "
                     "port: 500 packets are 600 us, 40 times a one-packet flow's ideal FCT of 15 us", fig, data)


def _window_p99(t: list[float], y: list[float], w0: float | None, w1: float | None) -> float:
    from superpacket.experiments.datacenter import quantile

    xs = [v for tt, v in zip(t, y, strict=True) if (w0 is None or w0 <= tt) and (w1 is None or tt < w1)]
    return quantile(xs, 0.99)
