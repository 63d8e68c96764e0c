"""Report figure of `attacks`: the victims' mean FCT relative to the same seed without
the attack, against the attack rate, one line per attack: defences off (dashed), the
paper's four without source validation (dash-dot) and all on (solid), with the 2x line our specification's must-hold draws. Drawn from a
reproduce folder's summary.json only.
"""

from __future__ import annotations

from typing import Any

from superpacket.experiments.common import interval_kind
from superpacket.reports.figure_kit import ExpFigure
from superpacket.reports.figures import _f, plt

COLORS = {"spoof-flood": "#d62728", "spoof-flood-aimed": "#8c564b", "bloom-pollution": "#ff7f0e", "outstanding-drain": "#9467bd",
          "epoch-sync": "#1f77b4"}


def attacks(s: dict[str, Any]) -> list[ExpFigure]:
    rows: list[dict[str, Any]] = [r for r in (s.get("table") or []) if r["attack"] != "none"]
    if not rows:
        return []
    variants = s.get("variants") or {}
    panels = [d for d in ("off", "no-validation", "on") if any(r["defences"] == d for r in rows)]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.2), sharey=True, squeeze=False)
    axes = axes[0]
    data: dict[str, Any] = {}
    titles = {"off": "defences off", "no-validation": "four defences, no source validation",
              "on": "all defences (source validation included)"}
    styles = {"off": "--", "no-validation": "-.", "on": "-"}
    for ax, d in zip(axes, panels, strict=True):
        for attack in dict.fromkeys(r["attack"] for r in rows):
            pts = sorted((r["rate_pps"], r) for r in rows if r["attack"] == attack and r["defences"] == d)
            xs = [p[0] for p in pts]
            ys = [_f(p[1]["victim_fct_rel"]) for p in pts]
            ci = [variants.get(f"{attack}/{x}/{d}", {}).get("victim_fct_rel_ci95") or [None, None] for x in xs]
            lo = [max(y - _f(c[0]), 0.0) if c[0] is not None else 0.0 for y, c in zip(ys, ci, strict=True)]
            hi = [max(_f(c[1]) - y, 0.0) if c[1] is not None else 0.0 for y, c in zip(ys, ci, strict=True)]
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, color=COLORS.get(attack, "#333333"),
                        ls=styles[d], label=attack)
            data[f"{attack}/{d}"] = {"rate_pps": xs, "victim_fct_rel": ys}
        ax.axhline(2.0, color="black", lw=0.8, ls=":")
        ax.text(xs[0] if rows else 1e4, 2.1, "2x (must hold with defences on)", fontsize=7.5)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("attack rate (packets/s)")
        ax.set_title(titles[d], fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("victims' mean FCT / without attack")
    axes[-1].legend(fontsize=8, loc="upper left")
    fig.suptitle(f"Attacks on the super-packet router's state ({s.get('seeds')} seed(s), mean and {interval_kind(s.get('seeds'))})")
    fig.tight_layout()
    return [ExpFigure("attacks_victim_fct", "Victims' mean FCT relative to the same seed without the attack, "
                      "against the attack rate: defences off (dashed), the paper's four without source "
                      "validation (dash-dot), all on (solid)", fig, data)]
