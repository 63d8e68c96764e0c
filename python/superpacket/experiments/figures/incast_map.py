"""Report figures of `incast-map`: one heatmap per variant and threshold t, access rate
against one-way delay, coloured by the mean FCT relative to DropTail's (blue: super-packets
help, red: they hurt, white: the same) and annotated with that ratio and the super-packets
admitted at once. Drawn from a reproduce folder's summary.json only.
"""

from __future__ import annotations

import math
from typing import Any

from matplotlib.colors import LogNorm
from matplotlib.patches import Rectangle

from superpacket.reports.figure_kit import ExpFigure
from superpacket.reports.figures import _f, plt

REL_RANGE = 4.0  # the colour scale runs from 1/4 to 4 x DropTail (log), saturated beyond
POINT_STYLE = {"paper": ("#000000", "-"), "datacenter": ("#000000", "--")}


def _axis(table: list[dict[str, Any]], key: str) -> list[Any]:
    return list(dict.fromkeys(r[key] for r in table))


def incast_map(s: dict[str, Any]) -> list[ExpFigure]:
    table: list[dict[str, Any]] = s.get("map") or []
    if not table:
        return []
    rates, delays = _axis(table, "access_rate"), _axis(table, "delay")
    ts, variants = sorted(_axis(table, "t")), _axis(table, "variant")
    cell = {(r["variant"], r["t"], r["access_rate"], r["delay"]): r for r in table}
    marks = {}
    for name, p in (s.get("incast_points") or {}).items():
        rate, delay, t = p["point"].split("/")
        marks[(int(t.removeprefix("t=")), rate, delay)] = name
    norm = LogNorm(vmin=1 / REL_RANGE, vmax=REL_RANGE)
    cmap = plt.get_cmap("RdBu_r")
    fig, axes = plt.subplots(len(variants), len(ts), figsize=(2.9 * len(ts) + 1.0, 2.7 * len(variants) + 1.0),
                             squeeze=False, sharex=True, sharey=True)
    data: dict[str, Any] = {}
    image = None
    for i, v in enumerate(variants):
        for j, t in enumerate(ts):
            ax = axes[i][j]
            rel = [[_f(cell.get((v, t, rate, d), {}).get("rel_fct")) for d in delays] for rate in rates]
            adm = [[_f(cell.get((v, t, rate, d), {}).get("admitted_at_once")) for d in delays] for rate in rates]
            image = ax.imshow([[x if math.isfinite(x) else math.nan for x in row] for row in rel], cmap=cmap,
                              norm=norm, origin="lower", aspect="auto")
            for y, rate in enumerate(rates):
                for x, _ in enumerate(delays):
                    r, a = rel[y][x], adm[y][x]
                    dark = math.isfinite(r) and abs(math.log(max(r, 1e-9))) > math.log(REL_RANGE) * 0.55
                    ax.text(x, y, f"{r:.2f}\n{a:.1f} in", ha="center", va="center", fontsize=7.5,
                            color="white" if dark else "black")
                    name = marks.get((t, rate, delays[x]))
                    if name:
                        color, ls = POINT_STYLE.get(name, ("#000000", ":"))
                        ax.add_patch(Rectangle((x - 0.47, y - 0.47), 0.94, 0.94, fill=False, lw=1.8, ls=ls,
                                               edgecolor=color))
            ax.grid(False)
            ax.set_xticks(range(len(delays)), delays, fontsize=8)
            ax.set_yticks(range(len(rates)), rates, fontsize=8)
            ax.set_title(f"{v}, t = {t}", fontsize=10)
            if i == len(variants) - 1:
                ax.set_xlabel("one-way delay (every link)", fontsize=8)
            if j == 0:
                ax.set_ylabel("sender link rate", fontsize=8)
            data[f"{v}/t={t}"] = {"access_rates": rates, "delays": delays, "rel_fct": rel, "admitted_at_once": adm}
    fig.suptitle(f"Incast regime map: mean FCT / DropTail's (blue: super-packets help, red: they hurt) and "
                 f"super-packets admitted at once,\n{s.get('seeds')} seed(s); solid box: the paper regime, dashed: "
                 "the datacenter regime", fontsize=10)
    fig.tight_layout(rect=(0, 0, 0.9, 0.94))
    if image is not None:
        cax = fig.add_axes((0.92, 0.12, 0.018, 0.72))
        cb = fig.colorbar(image, cax=cax, extend="both")
        ticks = [2.0**k for k in range(-2, 3)]
        cb.set_ticks(ticks, labels=[f"{x:g}" for x in ticks])
        cb.minorticks_off()
        cb.set_label("mean FCT relative to DropTail (log)", fontsize=8)
    return [ExpFigure("incast_map_heatmaps", "Where super-packets help incast and where they hurt: one heatmap per "
                      "variant (rows) and threshold t (columns), sender link rate against one-way delay; each cell "
                      "the mean FCT over seeds relative to DropTail's at the same rate and delay (colour, log scale) "
                      "and the super-packets admitted at once (round 1, mean over seeds); boxes: the paper regime "
                      "(solid) and the datacenter regime (dashed) of `superpacket reproduce incast`", fig, data)]
