"""A report as blocks (headings, paragraphs, tables, figures), rendered to report.md and
to a self-contained report.html; the numbers' and intervals' wording the reports share."""

from __future__ import annotations

import base64
import html
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from superpacket.experiments.common import MIN_SEEDS_FOR_CI, interval_kind


@dataclass
class Doc:
    """A report as blocks, rendered to Markdown and to HTML."""

    title: str
    folder: Path
    blocks: list[tuple[Any, ...]] = field(default_factory=list)

    def h(self, text: str) -> None:
        self.blocks.append(("h2", text))

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def table(self, head: list[str], rows: list[list[Any]], title: str | None = None, id: str | None = None,
              fold: bool = True) -> None:
        """A table; over FOLD_ROWS rows it is folded (<details>) under `title` (or a
        count of its rows) unless `fold` is False (the claims: the verdict stays in
        view); in HTML it scrolls inside its own box when wider than the page."""
        rows_ = [[str(c) for c in r] for r in rows]
        self.blocks.append(("table", head, rows_, title, id, fold and len(rows_) > FOLD_ROWS))

    def pre(self, text: str) -> None:
        self.blocks.append(("pre", text))

    def figure(self, fig: Any, name: str, caption: str) -> None:
        from superpacket.reports import figures

        figures.save(fig, self.folder / "figures", name)
        self.blocks.append(("figure", name, caption))

    def markdown(self) -> str:
        out = [f"# {self.title}", ""]
        for b in self.blocks:
            if b[0] == "h2":
                out += [f"## {b[1]}", ""]
            elif b[0] == "p":
                out += [b[1], ""]
            elif b[0] == "pre":
                out += ["```", b[1].rstrip("\n"), "```", ""]
            elif b[0] == "table":
                esc = [[c.replace("|", "\\|") for c in r] for r in [b[1], *b[2]]]
                fold = b[5]
                if fold:
                    out += [f"<details><summary>{html.escape(_fold_title(b))}</summary>", ""]
                out += ["| " + " | ".join(esc[0]) + " |", "|" + "---|" * len(esc[0])]
                out += ["| " + " | ".join(r) + " |" for r in esc[1:]] + [""]
                if fold:
                    out += ["</details>", ""]
            elif b[0] == "figure":
                out += [f"![{b[2]}](figures/{b[1]}.png)", "", f"*{b[2]}* ([SVG](figures/{b[1]}.svg))", ""]
        return "\n".join(out)

    def html(self) -> str:
        e = html.escape
        body = [f"<h1>{e(self.title)}</h1>"]
        for b in self.blocks:
            if b[0] == "h2":
                body.append(f"<h2>{e(b[1])}</h2>")
            elif b[0] == "p":
                body.append(f"<p>{_inline_code(e(b[1]))}</p>")
            elif b[0] == "pre":
                body.append(f"<pre>{e(b[1])}</pre>")
            elif b[0] == "table":
                head = "".join(f"<th>{e(c)}</th>" for c in b[1])
                rows = "".join("<tr>" + "".join(f"<td{_verdict_class(c)}>{e(c)}</td>" for c in r) + "</tr>"
                               for r in b[2])
                ident = f' id="{e(b[4])}"' if b[4] else ""
                t = (f'<div class="table-box"><table{ident}><thead><tr>{head}</tr></thead><tbody>{rows}</tbody>'
                     "</table></div>")
                if b[5]:
                    t = f"<details><summary>{e(_fold_title(b))}</summary>{t}</details>"
                body.append(t)
            elif b[0] == "figure":
                data = base64.b64encode((self.folder / "figures" / f"{b[1]}.png").read_bytes()).decode()
                body.append(f'<figure><img alt="{e(b[2])}" src="data:image/png;base64,{data}">'
                            f'<figcaption>{e(b[2])} (<a href="figures/{e(b[1])}.svg">SVG</a>)</figcaption></figure>')
        return _PAGE.format(title=e(self.title), body="\n".join(body))

    def write(self) -> Path:
        md = self.folder / "report.md"
        md.write_text(self.markdown())
        md.with_suffix(".html").write_text(self.html())
        return md


#: Tables longer than this are folded (<details>): the report's verdict and figures stay
#: near the top, the tables one click away.
FOLD_ROWS = 15


def _fold_title(b: tuple[Any, ...]) -> str:
    return f"{b[3] or 'Table'} ({len(b[2])} rows)"


def _verdict_class(cell: str) -> str:
    """A claims table's verdict cell ("holds", "fails (indicative)") coloured by its class."""
    word = cell.split(" ", 1)[0]
    return f' class="{word}"' if word in ("holds", "fails") and cell in (word, f"{word} (indicative)") else ""


def _inline_code(s: str) -> str:
    parts = s.split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }}
p, figcaption, li {{ overflow-wrap: anywhere; }}
.table-box {{ max-width: 100%; overflow-x: auto; margin: 1em 0; }}
table {{ border-collapse: collapse; font-size: 0.9em; }}
details {{ margin: 1em 0; }} summary {{ cursor: pointer; color: #333; }}
.holds {{ color: #176f2c; font-weight: 600; }} .fails {{ color: #a11; font-weight: 600; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }}
th {{ background: #f3f3f3; }}
figure {{ margin: 1.5em 0; }} img {{ max-width: 100%; height: auto; }}
figcaption {{ font-size: 0.9em; color: #555; }}
pre {{ background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.85em; max-width: 100%; }}
</style></head>
<body>
{body}
<script>
window.addEventListener("load", function () {{
  var imgs = document.images, ok = 0;
  for (var i = 0; i < imgs.length; i++) {{ if (imgs[i].complete && imgs[i].naturalWidth > 0) ok++; }}
  document.body.setAttribute("data-images", String(imgs.length));
  document.body.setAttribute("data-images-ok", String(ok));
}});
</script>
</body></html>
"""


def num(x: Any) -> str:
    """A number for a table: integers as such, 4 significant digits, thousands for big ones."""
    if x is None:
        return "-"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    if isinstance(x, float) and math.isnan(x):
        return "nan"
    if float(x).is_integer() and abs(x) < 1e6:
        return str(int(x))
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def ci_text(m: float, lo: float, hi: float, n: int) -> str:
    """A mean and its interval over `n` seeds, the number of seeds beside it and, below 3
    seeds, the word min-max (experiments.common.mean_ci95): "1.874 [1.2, 2.5] n=2 min-max"."""
    return f"{num(m)} [{num(lo)}, {num(hi)}] n={n}" + ("" if n >= MIN_SEEDS_FOR_CI else " min-max")


def interval_note(n: int) -> str:
    """What the intervals of a report over `n` seeds are, in one sentence."""
    if n >= MIN_SEEDS_FOR_CI:
        return (f"Each value is the mean over n = {n} seeds with its 95 % confidence interval (Student t), "
                "clipped to the metric's range (no FCT, count or rate below 0, no fraction above 1).")
    return (f"Each value is the mean over n = {n} seed(s) with the {interval_kind(n)} of the per-seed "
            f"values: fewer than {MIN_SEEDS_FOR_CI} seeds give no meaningful confidence interval.")
