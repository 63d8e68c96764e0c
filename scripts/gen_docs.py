#!/usr/bin/env python3
"""Writes the generated documentation pages: docs/reference/cli.md (from the command
line's argparse parser), docs/reference/outputs.md (from superpacket.outputs),
docs/reference/claims.md (from the built-in experiments' records) and
docs/validation.md with its figures (from the stored results of `superpacket validate
--out validation`).

    python scripts/gen_docs.py           # write them
    python scripts/gen_docs.py --check   # exit 1 if a checked-in page is stale

tests/test_docs.py fails when a checked-in page differs from what this writes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = {"cli": ROOT / "docs/reference/cli.md", "outputs": ROOT / "docs/reference/outputs.md",
         "claims": ROOT / "docs/reference/claims.md", "validation": ROOT / "docs/validation.md"}
#: The stored full-scale validation results (`superpacket validate --out validation`).
VALIDATION_RESULTS = ROOT / "validation/results.json"


class _Captured(Exception):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser


def cli_parser() -> argparse.ArgumentParser:
    """The parser `superpacket.cli.main` builds, caught at its parse_args call (nothing runs)."""
    from superpacket import cli

    original = argparse.ArgumentParser.parse_args

    def grab(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        raise _Captured(self)

    argparse.ArgumentParser.parse_args = grab  # type: ignore[assignment]
    try:
        cli.main(["--help"])
    except _Captured as c:
        return c.parser
    finally:
        argparse.ArgumentParser.parse_args = original  # type: ignore[assignment]
    raise RuntimeError("superpacket.cli.main did not call parse_args")


def _subcommands(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    return {}


def render_cli() -> str:
    """docs/reference/cli.md: every subcommand's help, as `superpacket CMD --help` prints it."""
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal width: fixed here
    p = cli_parser()
    subs = _subcommands(p)
    out = ["# Command line", "",
           "Generated from the command line's parser (`python scripts/gen_docs.py`); each section is",
           "what `superpacket CMD --help` prints.", "",
           "```", p.format_help().rstrip(), "```", ""]
    for name, sp in subs.items():
        out += [f"## superpacket {name}", "", "```", sp.format_help().rstrip(), "```", ""]
    return "\n".join(out)


def render_outputs() -> str:
    from superpacket import outputs

    return outputs.render_markdown()


def _cell_text(text: str) -> str:
    return text.replace("|", "\\|")


def render_claims() -> str:
    """docs/reference/claims.md: each built-in experiment's claims and small scale, as its
    record declares them."""
    from superpacket.experiments import EXPERIMENTS

    out = ["# Claims of the built-in experiments", "",
           "Generated from the experiments' records (`python scripts/gen_docs.py`); `superpacket list",
           "--claims` prints the same. Each claim is given in its own words; a `{name}` in it stands for",
           "a value the run fills in (a protocol, a load, a variant), and such a claim is judged once per",
           "value the run covers. In `summary.json` (and `--json`) each judgement under `claims` carries",
           "its claim's `id`, its text as judged, `must_hold`, `holds` and the numbers it was judged on",
           "([outputs](outputs.md)). A claim that is not a must-hold is shown beside the others: the",
           "paper's where our specification sets its own, or a finding.", ""]
    for name, exp in EXPERIMENTS.items():
        out += [f"## {name}", "", f"[The experiment's page](../experiments/{name}.md). `--quick`: "
                + (f"{exp.quick.text}." if exp.quick is not None else "none (the experiment has no small scale)."),
                "", "| id | must hold | claim | judged on |", "|---|---|---|---|"]
        out += [f"| `{c.id}` | {'yes' if c.must_hold else 'no'} | {_cell_text(c.shown())} | {_cell_text(c.judges)} |"
                for c in exp.claims]
        out.append("")
    return "\n".join(out)


def render_validation() -> str:
    """docs/validation.md: the stored validation results, cases and derivations, and the
    ns-3 comparisons left out."""
    from superpacket import validation

    page = validation.docs_page(json.loads(VALIDATION_RESULTS.read_text()))
    return page + render_left_out(json.loads(NS3_LEFT_OUT.read_text()))


#: The ns-3 comparisons left out of the suite, with both sides' figures and the diagnostic
#: runs (`python scripts/ns3_left_out.py` writes it).
NS3_LEFT_OUT = ROOT / "python/superpacket/validation/ns3_left_out.json"
_METRICS = (("utilization", "utilisation", "{:.4f}"), ("mean_queue_pkts", "mean packets waiting", "{:.2f}"),
            ("drops", "drops", "{:.1f}"), ("goodput_bps", "goodput (Mb/s)", "{:.3f}"))


def _cell(m: str, fmt: str, v: float) -> str:
    return fmt.format(v / 1e6 if m == "goodput_bps" else v)


def render_left_out(data: dict) -> str:
    """The validation page's section on the ns-3 comparisons that do not agree."""
    seeds = data["seeds"]
    lines = ["", "## What does not agree, and why", "",
             ("ns-3 comparisons tried and left out of the suite because they do not agree within the 10 % "
             "the ns-3 cases ask; no band was widened to admit them. Each is the dumbbell of the NewReno case "
             "(8 flows, 10 Mb/s / 20 ms bottleneck, 40 packets, 60 s measured over [10 s, 60 s]) with the "
             f"arguments shown; figures are means over seeds {seeds[0]}-{seeds[-1]} on each side, ns-3 "
             f"{data['ns3']} running validation/ns3/dumbbell.cc, ours the scenario of "
             "`superpacket.validation.ns3.dumbbell_scenario` with the TCP fields shown. They come from "
             f"`{data['command']}` (it needs the ns-3 wheel, as `make validate-ns3`), which stores them with "
             "the package."), ""]
    for c in data["comparisons"]:
        changed = {k: v for k, v in c["ns3_args"].items() if k not in _dumbbell() or _dumbbell()[k] != v}
        args = " ".join(f"--{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in changed.items())
        tcp = ", ".join(f"`{k} = {json.dumps(v)}`" for k, v in c["ours_tcp"].items())
        lines += [f"### {c['title']}", "", (f"ns-3: `dumbbell {args}`. Ours: `[tcp]` {tcp}; bottleneck "
                  f"queue `{json.dumps(c['ours_queue'])}`."), "",
                  "| | " + " | ".join(label for _, label, _ in _METRICS) + " |", "|---" * (len(_METRICS) + 1) + "|"]
        # (ours, reference) of each row's parenthesis: ours against ns-3, or against an ns-3 run
        rows = [("ns-3", c["ns3"], None), ("ours", c["ours"], (c["ours"], c["ns3"], "ours vs ns-3"))]
        for r in c["runs"]:
            if "ns3" in r:
                rows.append((r["label"], r["ns3"], (c["ours"], r["ns3"], "ours vs this")))
            else:
                rows.append((r["label"], r["ours"], (r["ours"], c["ns3"], "vs ns-3")))
        for label, v, rel in rows:
            cells = []
            for m, _, fmt in _METRICS:
                cell = _cell(m, fmt, v[m])
                if rel and rel[1][m]:
                    cell += f" ({(rel[0][m] - rel[1][m]) / rel[1][m]:+.1%} {rel[2]})"
                cells.append(cell)
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        if "red_early_drops" in c["ns3"]:
            t, o = c["ns3"], c["ours"]
            lines += ["", ("Over the whole run (0-60 s, the first slow start included), means, ns-3 / ours: RED's "
                      f"early drops {t['red_early_drops']:.1f} / {o['red_early_drops']:.1f}, forced drops (the "
                      f"average above 2 max_th) {t['red_forced_drops']:.1f} / {o['red_forced_drops']:.1f}, drops "
                      f"of a full buffer {t['overflow_drops']:.1f} / {o['overflow_drops']:.1f}, arrivals "
                      f"{t['arrivals']:.0f} / {o['arrivals']:.0f}.")]
        lines += ["", f"**Cause.** {c['cause']}", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _dumbbell() -> dict:
    from superpacket.validation import ns3

    return ns3.DUMBBELL


def render(name: str) -> str:
    return {"cli": render_cli, "outputs": render_outputs, "claims": render_claims,
            "validation": render_validation}[name]()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a checked-in page is stale")
    a = ap.parse_args(argv)
    stale = []
    for name, path in PAGES.items():
        text = render(name)
        if a.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if not a.check:  # the validation page's figures, drawn from the same stored results
        import json

        from superpacket import validation

        validation.draw_figures(json.loads(VALIDATION_RESULTS.read_text()), ROOT / "docs" / validation.DOCS_FIGURES)
    if stale:
        print("stale (run python scripts/gen_docs.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "python"))
    sys.exit(main())
