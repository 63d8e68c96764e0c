"""`superpacket validate`: the simulator against independent references, case by case.

    superpacket validate [--quick] [--only NAME] [--out DIR]
    superpacket.validation.validate(quick=False, only=None, out=None) -> polars.DataFrame

Each case (cases.py) is a scenario, an independent reference derived in the case's own
text, the quantity compared and a band with the reason for its width. The suite prints a
table (case, check, reference, ours, error, band, verdict); with `out` it writes
`results.parquet` and `results.json` (one row per check), `report.md` with the
derivations, and one figure per case that has one (ours as points over the reference's
curve). The documentation's Validation page is generated from the stored full-scale
results (validation/results.json in the repository: `superpacket validate --out
validation`, then scripts/gen_docs.py).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from superpacket.validation.cases import CASES, Case, Check

__all__ = ["CASES", "Case", "Check", "ValidationError", "docs_page", "draw_figures", "page_markdown", "validate"]

#: The columns of a validation result, one row per check.
COLUMNS = ("case", "check", "unit", "reference", "ours", "error", "rel_error", "band", "holds", "x")


class ValidationError(ValueError):
    """Bad input to the suite (an unknown case name); one line."""


def _select(only: str | None) -> list[Case]:
    if only is None:
        return list(CASES)
    names = [n.strip() for n in only.split(",") if n.strip()]
    known = {c.name: c for c in CASES}
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise ValidationError(f"--only {only}: no such case ({', '.join(bad) or 'none given'}); "
                              f"cases: {', '.join(known)}")
    return [known[n] for n in names]


def _row(case: Case, c: Check) -> dict[str, Any]:
    return {"case": case.name, "check": c.label, "unit": c.unit, "reference": float(c.reference),
            "ours": float(c.ours), "error": float(c.error), "rel_error": float(c.rel_error), "band": float(c.band),
            "holds": c.holds, "x": None if c.x is None else float(c.x)}


def validate(quick: bool = False, only: str | None = None, out: str | Path | None = None,
             progress: bool | None = None) -> Any:
    """Runs the cases (all, or the comma-separated names in `only`) and returns one row per
    check as a polars DataFrame (COLUMNS). `quick`: the shorter runs of each case (wider
    bands where a band is statistical). `out`: also write the results, the report and the
    figures there."""
    import polars as pl

    from superpacket.progress import Progress

    cases = _select(only)
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    with Progress(len(cases), "validate", progress=progress) as bar:
        for case in cases:
            for c in case.run(quick):
                rows.append(_row(case, c))
            bar.update(1, case.name)
    df = pl.DataFrame(rows, schema={"case": pl.String, "check": pl.String, "unit": pl.String,
                                    "reference": pl.Float64, "ours": pl.Float64, "error": pl.Float64,
                                    "rel_error": pl.Float64, "band": pl.Float64, "holds": pl.Boolean,
                                    "x": pl.Float64})
    if out is not None:
        write(df, Path(out), quick=quick, wall_s=time.perf_counter() - t0)
    return df


def _num(x: float) -> str:
    if x == 0:
        return "0"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:,.1f}"
    return f"{x:.4g}"


def table_rows(df: Any) -> list[list[str]]:
    """The table's rows: case, check, reference, ours, error (%), band, verdict."""
    out = []
    for r in df.iter_rows(named=True):
        err = "exact" if r["error"] == 0 else f"{100 * r['rel_error']:+.2f} %"
        band = f"±{_num(r['band'])} {r['unit']}" if r["band"] else "exact"
        if r["holds"] is None:
            band, verdict = "-", "beside, not judged"
        else:
            verdict = "holds" if r["holds"] else "DOES NOT HOLD"
        out.append([r["case"], r["check"], f"{_num(r['reference'])} {r['unit']}", f"{_num(r['ours'])} {r['unit']}",
                    err, band, verdict])
    return out


HEAD = ["case", "check", "reference", "ours", "error", "band", "verdict"]


def print_table(df: Any) -> None:
    rows = [HEAD, *table_rows(df)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEAD))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    judged = df.filter(df["holds"].is_not_null())
    n, bad = judged.height, judged.filter(~judged["holds"]).height
    print(f"{n - bad} of {n} judged checks within their band" + (f"; {bad} not" if bad else ""))


def _figure(case: Case, rows: list[dict[str, Any]], path: Path) -> bool:
    if case.figure is None or not any(r["x"] is not None for r in rows):
        return False
    import numpy as np

    from superpacket.reports.figures import OURS, PAPER, plt

    f = case.figure
    lo, hi = f.x_range
    xs = np.geomspace(lo, hi, 200) if f.log_x else np.linspace(lo, hi, 200)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(xs, [f.curve(float(x)) for x in xs], color=PAPER, lw=1.5, label="reference")
    pts = [r for r in rows if r["x"] is not None]
    ax.errorbar([r["x"] for r in pts], [r["ours"] for r in pts], yerr=[r["band"] for r in pts], fmt="o",
                color=OURS, capsize=4, label="ours (bar: the band)")
    ax.set_xlabel(f.x_label)
    ax.set_ylabel(f.y_label)
    if f.log_x:
        ax.set_xscale("log")
    if f.log_y:
        ax.set_yscale("log")
    ax.set_title(case.title, fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def write(df: Any, out: Path, quick: bool, wall_s: float) -> None:
    """results.parquet, results.json, report.md and the figures into `out`."""
    from superpacket import __version__

    out.mkdir(parents=True, exist_ok=True)
    df.write_parquet(out / "results.parquet")
    meta = {"version": __version__, "quick": quick, "wall_s": round(wall_s, 1),
            "date": time.strftime("%Y-%m-%d", time.gmtime()), "checks": df.to_dicts()}
    (out / "results.json").write_text(json.dumps(meta, indent=2) + "\n")
    figs = draw_figures(meta, out)
    (out / "report.md").write_text(page_markdown(meta, figures=figs, command=_command(quick)) + "\n")


def _command(quick: bool) -> str:
    return "superpacket validate" + (" --quick" if quick else "") + " --out DIR"


def page_markdown(meta: dict[str, Any], figures: dict[str, str] | None = None, command: str | None = None) -> str:
    """The results as a Markdown page: the verdicts first, then each case with its
    reference, derivation, band and figure."""
    checks = meta["checks"]
    cmd = command or _command(bool(meta.get("quick")))
    scale = "quick scale (shorter runs, wider statistical bands)" if meta.get("quick") else "full scale"
    checks_judged = [c for c in checks if c["holds"] is not None]
    n = len(checks_judged)
    bad = [c for c in checks_judged if not c["holds"]]
    lines = [f"*Recorded {meta['date']}* with superpacket {meta['version']}: `{cmd}` ({scale}, "
             f"{meta['wall_s']:g} s wall). {n - len(bad)} of {n} judged checks within their band"
             + (f"; {len(bad)} not: " + "; ".join(f"{c['case']}: {c['check']}" for c in bad) if bad else "") + ".", ""]
    import polars as pl

    df = pl.DataFrame(checks) if checks else None
    if df is not None:
        lines += ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
        lines += ["| " + " | ".join(r) + " |" for r in table_rows(df)]
        lines.append("")
    for case in CASES:
        rows = [c for c in checks if c["case"] == case.name]
        if not rows:
            continue
        lines += [f"## {case.title}", "", f"`{case.name}`. **Reference:** {case.reference}.", "",
                  f"**Derivation.** {case.derivation}", "", f"**Band.** {case.band_reason}", ""]
        if figures and case.name in figures:
            lines += [f"![{case.title}]({figures[case.name]})", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


#: Where the documentation's figures of the stored results go, relative to docs/.
DOCS_FIGURES = "figures/validation"


def draw_figures(meta: dict[str, Any], folder: Path) -> dict[str, str]:
    """One figure per case that has one, from stored results; case -> file name."""
    folder.mkdir(parents=True, exist_ok=True)
    figs = {}
    for case in CASES:
        rows = [r for r in meta["checks"] if r["case"] == case.name]
        if rows and _figure(case, rows, folder / f"{case.name}.png"):
            figs[case.name] = f"{case.name}.png"
    return figs


def docs_page(meta: dict[str, Any]) -> str:
    """docs/validation.md from the stored full-scale results (validation/results.json)."""
    figs = {c.name: f"{DOCS_FIGURES}/{c.name}.png" for c in CASES
            if c.figure is not None and any(r["case"] == c.name and r["x"] is not None for r in meta["checks"])}
    head = ["# Validation", "",
            "Where the simulator's results stand against independent references. Each case below is a",
            "scenario, a reference derived in the case's own text (theory, never the simulator's own",
            "formulas), the quantity compared and a band with the reason for its width; a check holds",
            "when |ours - reference| is within its band. Run the suite yourself:", "",
            "```", "superpacket validate [--quick] [--only NAME,...] [--out DIR]", "```", "",
            "It prints the table below and, with `--out`, writes `results.parquet` and `results.json`",
            "(one row per check: case, check, unit, reference, ours, error, rel_error, band, holds, x),",
            "`report.md` and the figures. `make test` runs the `--quick` suite and fails on any check",
            "outside its band. The ns-3 cases compare against figures stored with the package,",
            "from programs in validation/ns3/ built against the ns-3 wheel from PyPI (`make",
            "validate-ns3` re-runs them). This page is generated from the stored full-scale results",
            "(`validation/results.json`, written by `superpacket validate --out validation`) by",
            "`python scripts/gen_docs.py`, and a test checks that it is current.", ""]
    return "\n".join(head) + "\n" + page_markdown(meta, figures=figs, command="superpacket validate --out validation")
