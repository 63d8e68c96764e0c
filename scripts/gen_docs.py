#!/usr/bin/env python3
"""Writes the generated documentation pages: docs/reference/cli.md (from the command
line's argparse parser), docs/reference/outputs.md (from superpacket.outputs) and
docs/validation.md with its figures (from the stored results of `superpacket validate
--out validation`).

    python scripts/gen_docs.py           # write them
    python scripts/gen_docs.py --check   # exit 1 if a checked-in page is stale

tests/test_docs.py fails when a checked-in page differs from what this writes.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = {"cli": ROOT / "docs/reference/cli.md", "outputs": ROOT / "docs/reference/outputs.md",
         "validation": ROOT / "docs/validation.md"}
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


def render_validation() -> str:
    """docs/validation.md: the stored validation results, cases and derivations."""
    import json

    from superpacket import validation

    return validation.docs_page(json.loads(VALIDATION_RESULTS.read_text()))


def render(name: str) -> str:
    return {"cli": render_cli, "outputs": render_outputs, "validation": render_validation}[name]()


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
