"""Report figures of `dcr` and `dcr-multihop` (Bhandarkar and Reddy, PFLDnet 2007): utilisation,
drop rate and Jain's index against q, cwnd over time; the multihop slides' three tables as
bars, ours beside the paper's."""

from __future__ import annotations

import math
from typing import Any

from superpacket.experiments.common import interval_kind
from superpacket.reports.figure_kit import (
    ExpFigure,
    _ebar,
    _err,
    _grid,
    _legend_below,
    _nan,
)
from superpacket.reports.figures import OURS, PAPER, _f, plt

# ---- dcr: utilisation, drop rate and Jain index against q; cwnd over time ---------------

RESPONSE_STYLE = {"": ("#7f7f7f", "o", "no DCR"), "-dcr": ("#1f77b4", "s", "TCP-DCR"),
                  "-ncr": ("#2ca02c", "^", "TCP-NCR")}


def _dcr_layout(variants: dict[str, Any]) -> tuple[list[str], dict[str, list[float]]]:
    """Protocols present (the slides' order first) and the q values of each part, from
    the variant names `<protocol>[-dcr|-ncr]/<part>/q<rate>`."""
    from superpacket.experiments.dcr_common import ALLOWED_PROTOCOLS, split_protocol

    protos: set[str] = set()
    qs: dict[str, set[float]] = {}
    for v in variants:
        parts = v.split("/")
        if len(parts) != 3:
            continue  # the NewReno-recovery point
        protos.add(split_protocol(parts[0])[0])
        qs.setdefault(parts[1], set()).add(float(parts[2][1:]))
    order = [p for p in ALLOWED_PROTOCOLS if p in protos] + sorted(protos - set(ALLOWED_PROTOCOLS))
    return order, {k: sorted(v) for k, v in qs.items()}


def _dcr_vs_q(s: dict[str, Any], metric: str, parts: list[str], ylabel: str, title: str,
              floor: float | None = None, draft: bool = False,
              ylim: tuple[float, float] | None = None) -> tuple[Any, dict[str, Any]]:
    variants: dict[str, Any] = s.get("variants", {})
    protos, qs = _dcr_layout(variants)
    parts = [p for p in parts if p in qs]
    fig, axes2 = plt.subplots(len(parts), len(protos), figsize=(3.4 * len(protos), 2.9 * len(parts)),
                              squeeze=False, sharey=True)
    data: dict[str, Any] = {}
    for i, part in enumerate(parts):
        xs = qs[part]
        for j, cc in enumerate(protos):
            ax = axes2[i][j]
            for suffix, (color, marker, label) in RESPONSE_STYLE.items():
                names = [f"{cc}{suffix}/{part}/q{q:g}" for q in xs]
                if not all(n in variants for n in names):
                    continue
                pts = [_err(variants[n], metric) for n in names]
                ys = [m for m, _, _ in pts]
                ax.errorbar(range(len(xs)), ys, yerr=[[lo for _, lo, _ in pts], [hi for _, _, hi in pts]],
                            color=color, marker=marker, ms=4, capsize=3, lw=1.3, label=label)
                data[f"{cc}{suffix}/{part}"] = {"q": list(xs), "y": ys}
            if draft and part == "reorder":
                d = s.get("paper_draft_8mbps") or {}
                dq = [float(q) for q in d.get("q", [])]
                for key, color, label in (("sack_mbps", RESPONSE_STYLE[""][0], "draft table, TCP-SACK (8 Mb/s)"),
                                          ("dcr_mbps", RESPONSE_STYLE["-dcr"][0], "draft table, TCP-DCR (8 Mb/s)")):
                    drawn = [(xs.index(q), y / float(d["rate_mbps"])) for q, y in zip(dq, d.get(key, []), strict=False)
                             if q in xs]
                    if drawn:
                        ax.plot([x for x, _ in drawn], [y for _, y in drawn], color=color, ls="--", lw=1.0,
                                alpha=0.7, marker="x", label=label)
                        data[f"draft_{key}"] = {"q": [xs[x] for x, _ in drawn], "y": [y for _, y in drawn]}
            if floor is not None:
                ax.axhline(floor, color=PAPER, lw=0.8, ls=":", label=f"claim: {floor:.0%}")
            if ylim is not None:
                ax.set_ylim(*ylim)
            ax.set_xticks(range(len(xs)), [f"{q:g}" for q in xs])
            ax.set_title(f"{cc}, {part} ({'1 flow' if part == 'reorder' else '4 flows'})", fontsize=10)
            if i == len(parts) - 1:
                ax.set_xlabel("reordering rate q")
        axes2[i][0].set_ylabel(ylabel)
    flat = [a for row in axes2 for a in row]
    fig.suptitle(f"{title} ({s.get('seeds')} seed(s), {interval_kind(s.get('seeds'))})")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    _legend_below(fig, flat, ncol=6)
    return fig, data


def dcr(s: dict[str, Any]) -> list[ExpFigure]:
    out = []
    variants: dict[str, Any] = s.get("variants", {})
    protos, _ = _dcr_layout(variants)
    if not protos:
        return []
    fig, data = _dcr_vs_q(s, "utilisation_window", ["reorder", "both"], "bottleneck utilisation",
                          "Bottleneck R1->R2 utilisation (measurement window) against the reordering rate",
                          floor=0.9, draft=True,
                          ylim=(-0.02, 1.1))
    out.append(ExpFigure("dcr_utilisation_vs_q", "Utilisation of the bottleneck R1->R2 over the measurement window "
                         "(the run's last 90 %: [10 s, 100 s] at full scale) against the reordering rate q, one panel per protocol; top: one flow (the slides' 'Packet Reordering in Highspeed "
                         "Networks' and 'Impact of Packet Reordering When DCR is Used'), bottom: four flows (the "
                         "slides' 'With Congestion & Reordering'); dotted: the claim's 90 %; dashed: the DCR "
                         "draft's 8 Mb/s TCP-SACK / TCP-DCR table as a fraction of 8 Mb/s (another setup, for the "
                         "shape); error bars clipped to the axes", fig, data))
    fig, data = _dcr_vs_q(s, "drop_rate_window", ["reorder", "both"], "drop rate (drops / arrivals)",
                          "Bottleneck buffer drop rate (measurement window) against the reordering rate")
    out.append(ExpFigure("dcr_drop_rate_vs_q", "Drop rate (drops / arrivals) at the bottleneck buffer R1->R2 over "
                         "the measurement window against q, one panel per protocol (the slides' 'Bottleneck Link Buffer Drop Rate')",
                         fig, data))
    fig, data = _dcr_vs_q(s, "jain_window", ["both"], "Jain's fairness index",
                          "Jain's index of the four flows (measurement window) against the reordering rate",
                          ylim=(0.0, 1.05))
    out.append(ExpFigure("dcr_jain_vs_q", "Jain's fairness index of the four flows' bytes received over the "
                         "measurement window against q (the "
                         "slides' 'Jain Fairness Index'; one flow is 1 by definition)", fig, data))
    cong = [cc for cc in protos if f"{cc}/congestion/q0" in variants]
    if cong:
        fig, axes = _grid(3, 3, 4.2, 3.3)
        cdata: dict[str, Any] = {}
        width = 0.8 / len(RESPONSE_STYLE)
        for ax, (metric, label) in zip(axes, (("utilisation_window", "utilisation"), ("drop_rate_window", "drop rate"),
                                               ("jain_window", "Jain's index")), strict=True):
            for k, (suffix, (color, _, rlabel)) in enumerate(RESPONSE_STYLE.items()):
                ys = []
                for i, cc in enumerate(cong):
                    v = f"{cc}{suffix}/congestion/q0"
                    if v not in variants:
                        ys.append(math.nan)
                        continue
                    m, lo, hi = _err(variants[v], metric)
                    x0 = i - 0.4 + (k + 0.5) * width
                    ax.bar(x0, 0.0 if math.isnan(m) else m, width=width, color=color, label=rlabel if i == 0 else None)
                    _ebar(ax, x0, m, lo, hi)
                    ys.append(m)
                cdata[f"{metric}{suffix}"] = dict(zip(cong, ys, strict=True))
            ax.set_xticks(range(len(cong)), cong)
            ax.set_ylim(bottom=0.0)  # utilisation, drop rates and Jain's index are >= 0
            ax.set_title(label, fontsize=10)
        fig.suptitle(f"With congestion only: four flows, q = 0 ({s.get('seeds')} seed(s), {interval_kind(s.get('seeds'))})")
        fig.tight_layout(rect=(0, 0.08, 1, 1))
        _legend_below(fig, axes)
        out.append(ExpFigure("dcr_congestion_only", "Four flows without reordering: utilisation, drop rate and "
                             "Jain's index over the measurement window per protocol, without DCR, with DCR and with NCR (the slides' 'With "
                             "Congestion Only')", fig, cdata))
    series = {v: x for v, x in (s.get("series") or {}).items() if x and x.get("t_s")}
    if series:
        from superpacket.experiments.dcr_common import split_protocol

        sprotos = [cc for cc in protos if any(split_protocol(v.split("/")[0])[0] == cc for v in series)]
        fig, axes = _grid(len(sprotos), 2, 5.2, 3.2, sharey=True)
        sdata: dict[str, Any] = {}
        for ax, cc in zip(axes, sprotos, strict=True):
            for suffix, (color, _, label) in RESPONSE_STYLE.items():
                sv = next((sv for sv in series if sv.split("/")[0] == f"{cc}{suffix}"), None)
                if sv is None:
                    continue
                x = series[sv]
                t = _nan(x["t_s"])
                for fid, cw in x["cwnd_pkts"].items():
                    ax.plot(t, _nan(cw), color=color, lw=0.9, label=label)
                    sdata[f"{sv}#{fid}"] = {"t_s": t, "cwnd_pkts": _nan(cw)}
                ax.set_title(f"{cc}: {sv.split('/', 1)[1]}", fontsize=10)
            ax.axhline(float(s.get("params", {}).get("buffer_pkts", {}).get("value") or 0) * 2, color="black",
                       lw=0.7, ls=":", label="BDP + buffer")
            ax.set_xlabel("time (s)")
            ax.set_yscale("log")
        for ax in axes[::2]:
            ax.set_ylabel("cwnd (packets, log)")
        fig.suptitle("Congestion window over time, one flow, seed 1")
        fig.tight_layout(rect=(0, 0.07, 1, 1))
        _legend_below(fig, axes)
        out.append(ExpFigure("dcr_cwnd_series", "Congestion window of the single flow over time (seed 1), one "
                             "panel per protocol, without DCR, with DCR and with NCR, at the reordering rate named "
                             "in the title; dotted: BDP + buffer, the window that fills the path and the queue",
                             fig, sdata))
    nr = s.get("newreno_recovery") or []
    if nr:
        fig, axes = _grid(2, 2, 5.0, 3.3)
        ndata: dict[str, Any] = {}
        names = [r["protocol"] for r in nr]
        for ax, metric in zip(axes, ("utilisation", "drop_rate"), strict=True):
            for k, (rec, color) in enumerate((("sack", OURS), ("newreno", "#ff7f0e"))):
                ys = [_f(r.get(f"{metric}_{rec}")) for r in nr]
                ax.bar([i - 0.2 + 0.4 * k for i in range(len(nr))], [0.0 if math.isnan(y) else y for y in ys],
                       width=0.4, color=color, label=f"{rec.replace('sack', 'SACK').replace('newreno', 'NewReno')} "
                                                     "recovery")
                ndata[f"{metric}_{rec}"] = dict(zip(names, ys, strict=True))
            ax.set_xticks(range(len(nr)), names, rotation=30, ha="right", fontsize=8)
            ax.set_title(metric.replace("_", " "), fontsize=10)
        fig.suptitle(f"Loss recovery at one point ({nr[0]['point']}): SACK (RFC 6675) vs NewReno (RFC 6582)")
        fig.tight_layout(rect=(0, 0.08, 1, 1))
        _legend_below(fig, axes)
        out.append(ExpFigure("dcr_newreno_recovery", "our specification's NewReno-recovery figure: utilisation and drop "
                             f"rate at {nr[0]['point']} (four flows) with SACK and with NewReno loss recovery, per "
                             "protocol without and with DCR (means over seeds)", fig, ndata))
    return out


# ---- dcr-multihop: the slides' three tables as bars, ours beside the paper's ------------

def dcr_multihop(s: dict[str, Any]) -> list[ExpFigure]:
    from superpacket.experiments import dcr_multihop as mod
    from superpacket.experiments.dcr_common import ALLOWED_PROTOCOLS, split_protocol

    variants: dict[str, Any] = {v: x for v, x in s.get("variants", {}).items() if "/" not in v}
    paper: dict[str, Any] = s.get("paper", {})
    if not variants:
        return []
    present = {split_protocol(v)[0] for v in variants}
    protos = [p for p in ALLOWED_PROTOCOLS if p in present] + sorted(present - set(ALLOWED_PROTOCOLS))
    out = []
    width = 0.8 / len(RESPONSE_STYLE)
    for key, rows, label, fname, cap in (
            ("utilisation", [mod.link_key(x) for x in mod.LINKS], "utilisation", "dcr_multihop_utilisation",
             "Utilisation of the four loaded links"),
            ("drop_rate", [mod.link_key(x) for x in mod.LINKS], "drop rate", "dcr_multihop_drop_rate",
             "Buffer drop rate (drops / arrivals) of the four loaded links"),
            ("jain", [mod.path_key(a, b) for a, b in mod.PATHS], "Jain's index", "dcr_multihop_jain",
             "Jain's fairness index of each path's two flows")):
        fig, axes = _grid(len(rows), 3 if len(rows) > 4 else 2, 4.4, 3.1, sharey=True)
        data: dict[str, Any] = {}
        for ax, row in zip(axes, rows, strict=True):
            metric = f"{key}_{row}"  # the slides' name; ours over the measurement window beside it
            for k, (suffix, (color, _, rlabel)) in enumerate(RESPONSE_STYLE.items()):
                ys, ps = [], []
                for i, cc in enumerate(protos):
                    v = f"{cc}{suffix}"
                    x0 = i - 0.4 + (k + 0.5) * width
                    if v not in variants:
                        ys.append(math.nan)
                        ps.append(math.nan)
                        continue
                    m, lo, hi = _err(variants[v], f"{metric}_window")
                    ax.bar(x0, 0.0 if math.isnan(m) else m, width=width, color=color,
                           label=f"{rlabel} (ours)" if i == 0 else None)
                    _ebar(ax, x0, m, lo, hi)
                    p = _f(paper.get(v, {}).get(metric))
                    if not math.isnan(p):
                        ax.scatter([x0], [p], marker="D", s=28, color=PAPER, zorder=4, edgecolor="white", lw=0.5,
                                   label="paper (slides' table)")
                    ys.append(m)
                    ps.append(p)
                data[f"{metric}{suffix}"] = {"ours": dict(zip(protos, ys, strict=True)),
                                             "paper": dict(zip(protos, ps, strict=True))}
            ax.set_xticks(range(len(protos)), protos, fontsize=8)
            ax.set_ylim(bottom=0.0)  # utilisation, drop rates and Jain's index are >= 0
            ax.set_title(row.upper().replace("-", "->") if key != "jain" else f"path {row.upper().replace('-', '->')}",
                         fontsize=10)
        axes[0].set_ylabel(label)
        fig.suptitle(f"Multi-bottleneck chain, R3 reorders 1 %: {label}, measurement window ({s.get('seeds')} seed(s), "
                     f"{interval_kind(s.get('seeds'))}; red diamonds: the slides)")
        fig.tight_layout(rect=(0, 0.08, 1, 1))
        _legend_below(fig, axes, ncol=4)
        out.append(ExpFigure(fname, f"{cap}, per protocol without DCR, with DCR and with NCR: ours (bars, mean over "
                             "seeds with its interval) and the slides' 'More Complex Scenarios' table (red diamonds; no "
                             "NCR there)", fig, data))
    return out
