"""Report figures of the burstiness-control experiments (Wei, Hegde and Low (PFLDnet 2005)): `fast-burstiness` and
`datatag`. The slides' plots redrawn from a reproduce folder's summary.json: the queue
length over time (slides 3, 6-7, 28: the router queue and the sender's NIC queue),
packets lost at the router against those lost at the sender over time (slide 4), where
the loss happened and the throughput per variant, and the 1 ms queue beside the queue the
windows alone predict (slides 15 and 22: the burstiness the window control does not
explain).
"""

from __future__ import annotations

import math
from typing import Any

from superpacket.reports.figure_kit import ExpFigure, _ebar, _err, _grid, _legend_below, _nan
from superpacket.reports.figures import OURS, PAPER, _f

ROUTER = "#d62728"
SENDER = "#ff7f0e"
NIC = "#ff7f0e"
PRED = "#2ca02c"
BC_STYLE = {False: ("-", "without burstiness control"), True: ("--", "with burstiness control")}


def _parse(v: str) -> tuple[str, bool, str, str]:
    """`fast-bc/txq100/no-reverse` -> ("fast", True, "txq100", "/no-reverse")."""
    head, _, rest = v.partition("/")
    txq, _, tail = rest.partition("/")
    return head.removesuffix("-bc"), head.endswith("-bc"), txq, f"/{tail}" if tail else ""


def _main(variants: list[str]) -> list[str]:
    """The variants without the NewReno-recovery point."""
    return [v for v in variants if not v.endswith("/newreno-recovery")]


def _order(s: dict[str, Any], names: list[str]) -> list[str]:
    from superpacket.reports.figure_kit import variant_order

    return variant_order(str(s.get("experiment")), names)


def _buffer(s: dict[str, Any]) -> float:
    txt = str((s.get("params") or {}).get("bottleneck", {}).get("value", ""))
    for tok in txt.split(","):
        tok = tok.strip()
        if tok.startswith("DropTail "):
            return float(tok.split()[1])
    return math.nan


def _queue_over_time(s: dict[str, Any], series: dict[str, Any]) -> ExpFigure:
    order = _main(_order(s, list(series)))
    fig, axes = _grid(len(order), 2, 5.6, 3.0)
    buf = _buffer(s)
    data: dict[str, Any] = {}
    for ax, v in zip(axes, order, strict=True):
        x = series[v]
        t = _nan(x["t_s"])
        q = _nan(x["queue_pkts"])
        mq = _nan(x.get("max_queue_pkts") or [])
        if mq:
            ax.fill_between(t, 0, mq, color=OURS, alpha=0.25, lw=0, label="router queue: largest in each bin "
                            "(1 ms monitor)")
        ax.plot(t, q, color=OURS, lw=0.8, label="router queue R1->R2 at each bin's end")
        pred = _nan(x.get("predicted_pkts") or [])
        if pred:
            ax.plot(t, pred, color=PRED, lw=1.0, label="queue the windows predict (bin mean)")
        if math.isfinite(buf):
            ax.axhline(buf, color=ROUTER, lw=0.8, ls=":", label="router buffer")
            ax.set_ylim(0.0, 1.5 * buf)  # a prediction beyond the buffer is clipped
        else:
            ax.set_ylim(bottom=0.0)
        ax.set_ylabel("router queue (packets)")
        ax2 = ax.twinx()
        nic = _nan(x.get("txq_pkts") or [])
        ax2.plot(t, nic, color=NIC, lw=0.8, alpha=0.9)
        ax2.plot([], [], color=NIC, lw=0.8, label="sender NIC queue at each bin's end (right axis)")
        ax2.set_ylim(bottom=0.0)
        ax2.set_ylabel("NIC queue (packets)", color=NIC, fontsize=8)
        ax2.grid(False)
        for h, lab in zip(*ax2.get_legend_handles_labels(), strict=True):
            ax.plot([], [], color=h.get_color(), lw=0.8, label=lab)
        ax.set_title(v, fontsize=10)
        ax.set_xlabel("time (s)")
        data[v] = {"t_s": t, "queue_pkts": q, "max_queue_pkts": mq, "txq_pkts": nic, "predicted_pkts": pred}
    fig.suptitle("Queue length over time, seed 1 (slides 3, 6-7, 28)", fontsize=11)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    _legend_below(fig, axes, ncol=3)
    return ExpFigure(f"{s['experiment']}_queue_over_time", "The router queue R1->R2 (its value at the end of each "
                     "bin, and shaded its largest value within the bin from the 1 ms monitor), the queue the windows "
                     "alone predict (clipped at 1.5 x the buffer), and the sender's NIC queue (right axis), per variant, seed 1",
                     fig, data)


def _losses_over_time(s: dict[str, Any], series: dict[str, Any]) -> ExpFigure:
    """One panel per (scheme, txqueuelen, reverse) with and without the gate."""
    groups: dict[str, dict[bool, str]] = {}
    for v in _main(_order(s, list(series))):
        scheme, bc, txq, tail = _parse(v)
        groups.setdefault(f"{scheme}/{txq}{tail}", {})[bc] = v
    fig, axes = _grid(len(groups), 3, 4.6, 3.2)
    data: dict[str, Any] = {}
    for ax, (g, pair) in zip(axes, groups.items(), strict=True):
        for bc, v in sorted(pair.items()):
            ls, lab = BC_STYLE[bc]
            t = _nan(series[v]["t_s"])
            r, snd = _nan(series[v]["router_drops"]), _nan(series[v]["sender_drops"])
            ax.plot(t, r, color=ROUTER, ls=ls, lw=1.3, label=f"at the router, {lab}")
            ax.plot(t, snd, color=SENDER, ls=ls, lw=1.3, label=f"at the sender, {lab}")
            data[v] = {"t_s": t, "router_drops": r, "sender_drops": snd}
        ax.set_title(g, fontsize=10)
        ax.set_xlabel("time (s)")
        ax.set_ylim(bottom=0.0)
    axes[0].set_ylabel("packets lost (cumulative)")
    share = _f(s.get("paper_router_share"))
    note = (f"; slide 4: the router dropped {100 * share:.0f} % of the loss" if math.isfinite(share) else "")
    fig.suptitle(f"Packets lost at the router vs at the sender over time, seed 1{note}", fontsize=11)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    _legend_below(fig, axes, ncol=2)
    return ExpFigure(f"{s['experiment']}_losses_over_time", "Cumulative data packets dropped at the router (R1->R2, "
                     "red) and at the sender's own NIC queue (orange), without (solid) and with (dashed) burstiness "
                     "control, per scheme and txqueuelen, seed 1 (slide 4)", fig, data)


def _per_variant(s: dict[str, Any]) -> ExpFigure:
    variants: dict[str, Any] = s["variants"]
    order = _order(s, list(variants))
    fig, axes = _grid(3, 3, 0.55 * len(order) + 2.5, 4.2)
    xs = list(range(len(order)))
    data: dict[str, Any] = {"variants": order}
    ax = axes[0]
    w = 0.38
    for k, (metric, color, lab) in enumerate((("router_drops", ROUTER, "at the router"),
                                              ("sender_drops", SENDER, "at the sender's NIC"))):
        ms = [_err(variants[v], metric) for v in order]
        pos = [x + (k - 0.5) * w for x in xs]
        ax.bar(pos, [0.0 if math.isnan(m) else m for m, _, _ in ms], width=w, color=color, label=lab)
        for p, (m, lo, hi) in zip(pos, ms, strict=True):
            _ebar(ax, p, m, lo, hi)
        data[metric] = [m for m, _, _ in ms]
    ax.set_yscale("symlog", linthresh=10.0)
    ax.set_ylim(bottom=0.0)
    ax.set_title("data packets lost (mean over seeds with its interval)", fontsize=10)
    ax.legend(fontsize=8)
    for ax, metric, scale, title in ((axes[1], "throughput_bps", 1e-6, "throughput (Mbit/s)"),
                                     (axes[2], "max_queue_pkts", 1.0, "largest router queue (packets)")):
        ms = [_err(variants[v], metric) for v in order]
        ax.bar(xs, [0.0 if math.isnan(m) else m * scale for m, _, _ in ms], width=0.6, color=OURS)
        for x, (m, lo, hi) in zip(xs, ms, strict=True):
            _ebar(ax, x, m * scale, lo * scale, hi * scale)
        data[metric] = [m for m, _, _ in ms]
        ax.set_title(f"{title} (mean over seeds with its interval)", fontsize=10)
    buf = _buffer(s)
    if math.isfinite(buf):
        axes[2].axhline(buf, color=PAPER, ls="--", lw=1.0, label="router buffer")
        axes[2].legend(fontsize=8)
    for ax in axes:
        ax.set_xticks(xs, order, rotation=60, ha="right", fontsize=7)
    fig.suptitle(f"Where the packets were lost, throughput and the router queue per variant ({s.get('seeds')} "
                 "seed(s))", fontsize=11)
    fig.tight_layout()
    return ExpFigure(f"{s['experiment']}_drops_throughput", "Per variant, means over seeds with their interval: data "
                     "packets dropped at the router and at the sender's NIC queue (symlog), the flows' throughput "
                     "and the largest router queue", fig, data)


def _zoom(s: dict[str, Any], zoom: dict[str, Any]) -> ExpFigure:
    order = _main(_order(s, list(zoom)))
    fig, axes = _grid(len(order), 2, 5.6, 3.0)
    data: dict[str, Any] = {}
    for ax, v in zip(axes, order, strict=True):
        z = zoom[v]
        t, q, mq, p = (_nan(z[k]) for k in ("t_s", "queue_pkts", "max_queue_pkts", "predicted_pkts"))
        ax.fill_between(t, 0, mq, color=OURS, alpha=0.25, lw=0, step="pre", label="largest queue in each ms")
        ax.plot(t, q, color=OURS, lw=0.8, label="queue (every 1 ms)")
        ax.plot(t, p, color=PRED, lw=1.3, label="window prediction: max(0, sum of windows - BDP)")
        ax.set_ylim(bottom=0.0)
        ax.set_title(v, fontsize=10)
        ax.set_xlabel("time (s)")
        data[v] = {"t_s": t, "queue_pkts": q, "max_queue_pkts": mq, "predicted_pkts": p}
    axes[0].set_ylabel("router queue (packets)")
    fig.suptitle("The queue beside what the windows predict, 1 ms monitor, the second around the largest excess "
                 "after the first tenth of the run (seed 1; slides 15, 22)", fontsize=11)
    fig.tight_layout(rect=(0, 0.04, 1, 0.97))
    _legend_below(fig, axes, ncol=3)
    return ExpFigure(f"{s['experiment']}_queue_vs_prediction", "The bottleneck queue sampled every 1 ms (and its "
                     "largest value within each ms) beside the queue the flows' windows alone predict (the fluid "
                     "model of slides 32-34), over the second around the largest excess after the first tenth of the run, "
                     "per variant, seed 1: the "
                     "excess is the burstiness (slide 35: the queue is bounded by the window prediction plus the "
                     "burstiness)", fig, data)


def bc_figures(s: dict[str, Any]) -> list[ExpFigure]:
    out: list[ExpFigure] = []
    series = {v: x for v, x in (s.get("series") or {}).items() if x and x.get("t_s")}
    if series:
        out.append(_queue_over_time(s, series))
        out.append(_losses_over_time(s, series))
    if s.get("variants"):
        out.append(_per_variant(s))
    zoom = {v: z for v, z in (s.get("zoom") or {}).items() if z and z.get("t_s")}
    if zoom:
        out.append(_zoom(s, zoom))
    return out
