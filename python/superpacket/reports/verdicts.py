"""How a built-in experiment's result is told, in the terminal and in its report: the
scale it ran at (full or quick, seeds beside the experiment's default, durations, wall
time), each claim's verdict (indicative at a reduced scale) and the number it was judged
on (the one its record declares: `Claim.number`), worded so that its sign agrees with
the words ("796.8 % above droptail's", never "-796.8 %")."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from superpacket.experiments.record import Experiment, Number

def default_seeds(exp: Experiment | None) -> int | None:
    """The seeds an experiment runs at full scale (its record's default_seeds); None for
    no experiment (a summary of an experiment this version does not know)."""
    return None if exp is None else exp.default_seeds


def scale(summary: dict[str, Any], exp: Experiment | None = None, quick: bool | None = None,
          wall_s: float | None = None) -> dict[str, Any]:
    """The scale of a result: {"quick", "seeds", "default_seeds", "indicative", "durations",
    "wall_s"}. Indicative: run with `--quick` or with fewer seeds than the experiment's
    default (its verdicts may change at full scale). A summary that already holds "scale"
    (written by `superpacket reproduce`) keeps it."""
    if isinstance(summary.get("scale"), dict):
        return summary["scale"]
    q = bool(summary.get("quick", False) if quick is None else quick)
    n = int(summary.get("seeds") or len(summary.get("seed_list") or []))
    full = default_seeds(exp)
    durations = {k: p.get("value") for k, p in (summary.get("params") or {}).items()
                 if "duration" in k and isinstance(p, dict)}
    return {"quick": q, "seeds": n, "default_seeds": full,
            "indicative": bool(q or (full is not None and n < full)),
            "durations": durations, "wall_s": wall_s}


def scale_text(sc: dict[str, Any]) -> str:
    """One line: "quick scale (indicative): 2 seeds of the default 10; duration_s 20; took 41.2 s"."""
    kind = "quick scale" if sc.get("quick") else "full scale"
    full = sc.get("default_seeds")
    if not sc.get("quick") and full is not None and sc.get("seeds", 0) < full:
        kind = "reduced scale"
    parts = [f"{kind}{' (verdicts indicative)' if sc.get('indicative') else ''}: {sc.get('seeds')} seed(s)"
             + (f" of the default {full}" if full is not None else "")]
    durs = sc.get("durations") or {}
    if durs:
        parts.append(", ".join(f"{k} {_g(v)}" for k, v in durs.items()))
    if sc.get("wall_s") is not None:
        parts.append(f"took {_duration(float(sc['wall_s']))}")
    return "; ".join(parts)


def _g(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _duration(s: float) -> str:
    return f"{s:.1f} s" if s < 120 else f"{s / 60:.1f} min"


def verdict(c: dict[str, Any], indicative: bool) -> str:
    """"holds" / "fails", with "(indicative)" at a reduced scale."""
    return ("holds" if c.get("holds") else "fails") + (" (indicative)" if indicative else "")


def _pct(x: float, ref: str) -> str:
    """A cut in % (how far ours lies below `ref`) in words whose sign is the number's."""
    if not isinstance(x, (int, float)) or math.isnan(x):
        return "nan"
    return f"{abs(x):.1f} % {'below' if x >= 0 else 'above'} {ref}"


def number(exp: Experiment | None, c: dict[str, Any]) -> Number | None:
    """What the record of `exp` declares a judgement `c` is shown beside (its claim's
    `number`); None for no experiment, a judgement without an id (an older summary) or a
    claim the record does not declare."""
    if exp is None or "id" not in c:
        return None
    try:
        return exp.claim(c["id"]).number
    except KeyError:
        return None


def judged(c: dict[str, Any], n: Number | None) -> str:
    """The number a claim was judged on, as its record declares it (`n`, see `number`),
    in words that agree with it in sign ("" if it declares none)."""
    if n is None:
        return ""
    values = [c[k] for k in n.keys]
    if n.against is not None:
        return _pct(values[0], n.against)
    return n.words.format(*(100 * v for v in values) if n.percent else values)
def paper_side(c: dict[str, Any], n: Number | None = None) -> str:
    """The paper's number for a claim: its `paper_*` keys (a paper's cut read against what
    `n` declares ours is cut against), else what its text gives as "(paper: ...)"; "" if
    neither."""
    ref = n.against if n is not None and n.against is not None else "the baseline's"
    out = []
    for k, v in c.items():
        if not k.startswith("paper_") or v is None:
            continue
        if k == "paper_improvement_pct" and isinstance(v, (int, float)):
            out.append(_pct(v, ref))
        elif isinstance(v, (list, tuple)) and k == "paper_improvement_pct":
            out.append(f"{v[0]:g} to {v[-1]:g} % below {ref}")
        else:
            out.append(f"{k.removeprefix('paper_')} {_g(v)}")
    if not out:  # the paper's number written into the claim's text: "(paper: 33.8 %)"
        out = [m.strip() for m in re.findall(r"paper(?: with [^:()]*)?: ([^()]*?)\)", str(c.get("claim", "")))]
    return "; ".join(out)
