"""Report figures of the packet-drop-avoidance experiments (Jin (LBNL 2004)): `mbs` (drops
against the burst size beside the measured MBS and the fluid model, the probe against the
model, the probe's trains as the paper's Fig. 1 curve) and `lion` (the paper's Fig. 5:
bytes received against time for both flows of each contest). Drawn from a
reproduce folder's summary.json only.
"""

from __future__ import annotations

import math
from typing import Any

from matplotlib.ticker import FuncFormatter

from superpacket.experiments.common import interval_kind
from superpacket.reports.figure_kit import ExpFigure, _ebar, _err, _grid, _legend_below, _nan
from superpacket.reports.figures import OURS, PAPER, _f

MBS_SCHEME_STYLE = {"window": ("#7f7f7f", "o", "window bursts (fixed window, ACK-clocked)"),
                    "paced": (OURS, "s", "paced bursts (bursts gate)")}


def _sweep(variants: dict[str, Any]) -> dict[str, list[int]]:
    """scheme -> burst sizes present, from the names `<scheme>/b<N>`."""
    out: dict[str, set[int]] = {}
    for v in variants:
        scheme, _, b = v.partition("/b")
        if b.isdigit() and "/" not in scheme:
            out.setdefault(scheme, set()).add(int(b))
    return {s: sorted(bs) for s, bs in out.items()}


def _vline_mbs(ax: Any, measured: float, model: float, data: dict[str, Any]) -> None:
    if math.isfinite(measured):
        ax.axvline(measured, color=PAPER, lw=1.2, label=f"measured MBS ({measured:.0f} packets, probe)")
    if math.isfinite(model):
        ax.axvline(model, color=PAPER, lw=1.2, ls="--", label=f"fluid model Q/(1-A/R) ({model:.0f} packets)")
    data["mbs_measured_pkts"], data["mbs_model_pkts"] = measured, model


def mbs(s: dict[str, Any]) -> list[ExpFigure]:
    variants: dict[str, Any] = s.get("variants", {})
    sweep = _sweep(variants)
    if not sweep:
        return []
    out = []
    onoff = variants.get("probe/onoff", {})
    measured, model = _f(onoff.get("mbs_measured_pkts")), _f(onoff.get("mbs_model_pkts"))
    panels = (("drops", "packets of the sender's flow dropped"), ("drops_bottleneck", "all drops at R->D"),
              ("throughput_bps", "the flow's throughput (Mbit/s)"))
    fig, axes = _grid(len(panels), 3, 4.6, 3.6)
    data: dict[str, Any] = {}
    for ax, (metric, label) in zip(axes, panels, strict=True):
        scale = 1e-6 if metric.endswith("_bps") else 1.0
        for scheme, sizes in sweep.items():
            color, marker, slabel = MBS_SCHEME_STYLE.get(scheme, ("#2ca02c", "^", scheme))
            pts = [_err(variants[f"{scheme}/b{b}"], metric) for b in sizes]
            ys = [m * scale for m, _, _ in pts]
            ax.errorbar(sizes, ys, yerr=[[lo * scale for _, lo, _ in pts], [hi * scale for _, _, hi in pts]],
                        color=color, marker=marker, ms=4, capsize=3, lw=1.3, label=slabel)
            data[f"{metric}/{scheme}"] = {"burst_pkts": sizes, "y": ys}
        for h, mk in (("paced-small", "v"), ("paced-large", "^"), ("window", "D")):
            hv = variants.get(h)
            alias = (s.get("aliases") or {}).get(h, "")
            if hv is not None and "/b" in alias:
                ax.scatter([int(alias.split("/b")[1])], [_f(hv.get(metric)) * scale], marker=mk, s=70,
                           facecolor="none", edgecolor="black", zorder=5, label=f"{h} ({alias})")
        d: dict[str, Any] = {}
        _vline_mbs(ax, measured, model, d)
        data.update(d)
        ax.set_xscale("log", base=2)
        ticks = sorted({b for sizes in sweep.values() for b in sizes})
        ax.set_xticks(ticks, [str(b) for b in ticks], fontsize=8)
        if metric != "throughput_bps":
            ax.set_yscale("symlog", linthresh=1.0)
            ax.set_ylim(bottom=0.0)
        ax.set_xlabel("burst size (packets, log)")
        ax.set_title(label, fontsize=10)
    fig.suptitle(f"Drops against the burst size, the same bytes per scheme ({s.get('seeds')} seed(s), {interval_kind(s.get('seeds'))}); "
                 "red: the MBS", fontsize=11)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    _legend_below(fig, axes, ncol=3)
    out.append(ExpFigure("mbs_drops_vs_burst", "Packets of the sender's flow dropped, all drops at the router's "
                         "queue R->D and the flow's throughput against the burst size (log x), window bursts and "
                         "paced bursts moving the same bytes (the paper's Fig. 2-4 as a sweep); the measured MBS "
                         "(probe/onoff, mean over seeds; solid red) beside the fluid model Q / (1 - A/R) with the "
                         "mean cross load (dashed); the headline variants circled", fig, data))
    probes = [v for v in variants if v.startswith("probe/")]
    if probes:
        probes = [v for v in probes if v == "probe/onoff"] + sorted(
            (v for v in probes if v != "probe/onoff"), key=lambda v: _f(variants[v].get("cross_bps")))
        fig, axes = _grid(2, 2, 5.4, 3.6)
        pdata: dict[str, Any] = {}
        for ax, (metric, mkey, label, scale) in zip(axes, (
                ("mbs_measured_pkts", "mbs_model_pkts", "MBS (packets)", 1.0),
                ("abw_bps", "abw_model_bps", "available bandwidth (Mbit/s)", 1e-6)), strict=True):
            ours, mods = [], []
            for i, v in enumerate(probes):
                m, lo, hi = _err(variants[v], metric)
                ax.bar(i, 0.0 if math.isnan(m) else m * scale, width=0.6, color=OURS,
                       label="measured (probe)" if i == 0 else None)
                _ebar(ax, i, m * scale, lo * scale, hi * scale)
                mv = _f(variants[v].get(mkey))
                ax.scatter([i], [mv * scale], marker="D", s=36, color=PAPER, zorder=4, edgecolor="white", lw=0.5,
                           label=("fluid model" if metric.startswith("mbs") else "capacity - cross traffic")
                           if i == 0 else None)
                ours.append(m)
                mods.append(mv)
            pdata[metric] = {"variants": probes, "ours": ours, "model": mods}
            ax.set_xticks(range(len(probes)), [v.removeprefix("probe/") for v in probes], fontsize=8)
            ax.set_title(label, fontsize=10)
            ax.legend(fontsize=8, loc="upper right")
        fig.suptitle(f"The MBS probe and FAC against the model ({s.get('seeds')} seed(s), {interval_kind(s.get('seeds'))})", fontsize=11)
        fig.tight_layout()
        out.append(ExpFigure("mbs_probe_vs_model", "The measured MBS against the fluid model Q / (1 - A/R) (left) "
                             "and the FAC available-bandwidth estimate against capacity minus cross traffic (right), "
                             "with on-off cross traffic (model: mean load) and constant-rate cross traffic at three "
                             "rates (the issue's 10 % check)", fig, pdata))
    trains = {v: x for v, x in (s.get("train_series") or {}).items() if x and x.get("t_s")}
    if trains:
        order = [v for v in trains if v == "probe/onoff"] + sorted(v for v in trains if v != "probe/onoff")
        fig, axes = _grid(len(order), 2, 5.0, 3.3)
        tdata: dict[str, Any] = {}
        for ax, v in zip(axes, order, strict=True):
            x = trains[v]
            t, n, ok = _nan(x["t_s"]), _nan(x["n"]), [bool(b) for b in x["lossless"]]
            ax.plot(t, n, color="#bbbbbb", lw=0.8, zorder=1)
            ax.scatter([a for a, k in zip(t, ok, strict=True) if k], [b for b, k in zip(n, ok, strict=True) if k],
                       s=14, color="#2ca02c", zorder=2, label="train without loss")
            ax.scatter([a for a, k in zip(t, ok, strict=True) if not k],
                       [b for b, k in zip(n, ok, strict=True) if not k], s=18, marker="x", color=PAPER, zorder=3,
                       label="train with a loss")
            m = _f(variants.get(v, {}).get("mbs_model_pkts"))
            if math.isfinite(m):
                ax.axhline(m, color=PAPER, ls="--", lw=1.0, label="fluid model")
            ax.set_yscale("log", base=2)
            ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
            ax.set_xlabel("time (s)")
            ax.set_ylabel("train (packets, log)")
            ax.set_title(v, fontsize=10)
            tdata[v] = {"t_s": t, "n": n, "lossless": ok}
        fig.suptitle("The MBS probe's trains over time, seed 1 (the paper's Fig. 1 curve)", fontsize=11)
        fig.tight_layout(rect=(0, 0.08, 1, 1))
        _legend_below(fig, axes)
        out.append(ExpFigure("mbs_probe_trains", "Every train the probe sent (seed 1): its size against time, "
                             "doubling to the first loss, then the binary search and the FAC trains; green without "
                             "loss, red crosses with one; dashed: the fluid model's MBS", fig, tdata))
    return out


LION_STYLE = {"paced": (OURS, "PDA sender (Lion)"), "window": ("#ff7f0e", "window-based TCP")}


def lion(s: dict[str, Any]) -> list[ExpFigure]:
    series: dict[str, Any] = {v: x for v, x in (s.get("series") or {}).items() if x and x.get("t_s")}
    if not series:
        return []
    contests = [("paced", "newreno"), ("paced-vs-cubic", "cubic")]
    contests = [c for c in contests if any(v in series for v in c)]
    fig, axes = _grid(len(contests), 2, 5.4, 3.7, sharey=True)
    data: dict[str, Any] = {}
    variants = s.get("variants", {})
    for ax, (paced, window) in zip(axes, contests, strict=True):
        for v, role in ((paced, "paced"), (window, "window")):
            if v not in series:
                continue
            color, label = LION_STYLE[role]
            t = _nan(series[v]["t_s"])
            mb = [x / 1e6 for x in _nan(series[v]["bytes_received"])]
            tp = _f(variants.get(v, {}).get("throughput_bps"))
            ax.plot(t, mb, color=color, lw=1.4, label=f"{label}: {v}" + (f", mean {tp / 1e6:.0f} Mb/s"
                                                                         if math.isfinite(tp) else ""))
            data[v] = {"t_s": t, "mbytes": mb}
        ax.set_title(f"{paced} vs {window}", fontsize=10)
        ax.set_xlabel("time (s)")
        ax.legend(fontsize=8, loc="upper left")
    axes[0].set_ylabel("bytes received (MB)")
    pap = s.get("paper", {})
    note = ", ".join(f"{v} {p['throughput_bps'] / 1e6:.0f} Mb/s" for v, p in pap.items() if "throughput_bps" in p)
    fig.suptitle(f"Sequence against time, seed 1 (the paper's Fig. 5; paper: {note})", fontsize=11)
    fig.tight_layout()
    dur = (s.get("params") or {}).get("duration_s", {}).get("value", 5.0)
    return [ExpFigure("lion_fig5_sequence", f"Bytes received against time for the two flows of each {dur:g} s contest "
                      "(seed 1, every 10 ms): the PDA sender against NewReno (the paper's Lion vs Linux TCP) and "
                      "against CUBIC", fig, data)]
