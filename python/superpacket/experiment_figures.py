"""Experiment-specific report figures: the paper's own plots, redrawn from a reproduce
folder's summary.json (never from literals). Each builder is registered under the
experiment's name (`superpacket reproduce NAME`); `build(summary)` returns the figures of
that experiment (none for an experiment without a builder), and `superpacket report`
saves each as PNG and SVG and puts it into report.md / report.html.

Every builder returns `ExpFigure`s that carry, beside the matplotlib Figure, the arrays
it plotted (`data`), so a test can compare them with the summary.
"""

from __future__ import annotations

import math
from typing import Any

from superpacket.experiments.common import interval_kind
from superpacket.reports.figure_kit import (  # noqa: F401 (the kit's names, as builders and tests read them here)
    CLASS_COLORS,
    REGISTRY,
    SCHEME_COLORS,
    Builder,
    ExpFigure,
    _ebar,
    _err,
    _grid,
    _legend_below,
    _nan,
    register,
)
from superpacket.reports.figures import OURS, PAPER, _f, plt


def build(summary: dict[str, Any]) -> list[ExpFigure]:
    """The experiment-specific figures of a summary (an empty list if none are registered)."""
    fn = REGISTRY.get(str(summary.get("experiment")))
    return fn(summary) if fn is not None else []


# ---- jumbo: Fig. 6a-b -------------------------------------------------------------------

JUMBO_FIG = {"jumbo": "Fig. 6a", "sp": "Fig. 6b"}


@register("jumbo")
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


@register("loss-sensitivity")
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


# ---- riops-goodput: the goodput table and link utilisation ------------------------------

GOODPUT_CLASSES = ("all", "short", "long")


def _split_rate(v: str) -> tuple[str, str]:
    kind, _, rate = v.rpartition("-")
    return kind, rate


@register("riops-goodput")
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


@register("riops-web")
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


@register("dcr")
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

@register("dcr-multihop")
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


# the packet-drop-avoidance experiments (mbs, lion), incast-map, datacenter and the
# burstiness-control experiments (fast-burstiness, datatag) register their figures from their own modules
# (this one is past 600 lines)
from superpacket import (  # noqa: F401
    experiment_figures_attacks,
    experiment_figures_bc,
    experiment_figures_dc,
    experiment_figures_incast,
    experiment_figures_pda,
)
