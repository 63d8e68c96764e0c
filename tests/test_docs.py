"""The documentation: its generated pages are current, and no user-facing text names a
file outside the repository or an issue number.

User-facing text is: README.md, every page under docs/ (and the tutorial notebook), the
example scenarios (their comments show in `superpacket list` and in reports), every
string constant in python/superpacket (command-line help, experiment and paper texts,
report headings, the `source` of each reported parameter, docstrings that become the API
reference), every subcommand's `--help`, the output of `superpacket list`, and a report
generated from a real run. Each must cite papers by authors, title and venue and say in
its own words what the project chose; files such as the project's planning notes are not
part of the repository and mean nothing to a reader.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import gen_docs

OUTSIDE = re.compile(
    r"seeds/\d|\bSCENARIOS\b|\bALGORITHMS\b|DESIGN\.md|\bWORKLOADS\b|STYLE\.md|shared/"
    r"|\b[Ii]ssues? #?\d+")

#: Pages generated from the Rust crate's doc comments (`make schema`): their text is
#: fixed in crates/sim/src/scenario.rs, not here.
RUST_GENERATED = ("docs/schema.md", "docs/scenario.schema.json")


def hits(text: str) -> list[str]:
    return [text[max(0, m.start() - 50):m.end() + 30].replace("\n", " ") for m in OUTSIDE.finditer(text)]


def test_the_pattern_finds_what_it_must_and_only_that() -> None:
    for bad in ("see seeds/000 section 4", "SCENARIOS.md \"attacks\"", "ALGORITHMS.md section 12",
                "(issue 16 section 4)", "Issue 9", "issues 3 and 4", "../shared/DESIGN.md", "WORKLOADS.md",
                "STYLE.md"):
        assert hits(bad), bad
    for good in ("Li, \"Benefits and Practicality of Super-Packets\", UCB/EECS-2013-83, section 4.2",
                 "RFC 6298 section 5.7", "seed=1", "--seeds 1..10", "our specification", "no issue here",
                 "docs/schema.md", "scenarios/dcr-4flows.toml", "tissue 5"):
        assert not hits(good), good


def _docs_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "docs").rglob("*.ipynb")),
             *sorted((ROOT / "examples").glob("*.toml")), *sorted((ROOT / "scenarios").glob("*.toml"))]
    return [f for f in files if str(f.relative_to(ROOT)) not in RUST_GENERATED]


@pytest.mark.parametrize("path", _docs_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_cite_no_outside_file_or_issue(path: Path) -> None:
    assert not hits(path.read_text()), hits(path.read_text())


@pytest.mark.parametrize("rel", RUST_GENERATED)
def test_rust_generated_references_cite_no_outside_file(rel: str) -> None:
    text = (ROOT / rel).read_text()
    assert not hits(text), hits(text)


def _python_strings() -> list[tuple[str, int, str]]:
    out = []
    for p in sorted((ROOT / "python/superpacket").rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.append((str(p.relative_to(ROOT)), node.lineno, node.value))
    return out


def test_package_strings_cite_no_outside_file_or_issue() -> None:
    strings = _python_strings()
    assert len(strings) > 1000  # the walk reached the package
    bad = [f"{f}:{line}: {h}" for f, line, s in strings for h in hits(s)]
    assert not bad, "\n".join(bad)


def test_cli_help_and_list_cite_no_outside_file_or_issue() -> None:
    text = gen_docs.render_cli()
    assert "superpacket reproduce" in text
    listing = subprocess.run([sys.executable, "-m", "superpacket.cli", "list"], capture_output=True, text=True,
                             check=True, cwd=ROOT).stdout
    assert "built-in experiments" in listing
    assert not hits(text), hits(text)
    assert not hits(listing), hits(listing)


def test_a_generated_report_cites_no_outside_file_or_issue(tmp_path: Path) -> None:
    """A reproduce run's summary (its parameters' sources) and report, and a single run's report."""
    cli = [sys.executable, "-m", "superpacket.cli"]
    rep = tmp_path / "incast"
    subprocess.run([*cli, "reproduce", "incast", "--seeds", "1", "--out", str(rep)], check=True,
                   capture_output=True, cwd=ROOT)
    subprocess.run([*cli, "report", str(rep)], check=True, capture_output=True, cwd=ROOT)
    run = tmp_path / "run"
    subprocess.run([*cli, "run", "examples/incast.toml", "--out", str(run)], check=True, capture_output=True,
                   cwd=ROOT)
    subprocess.run([*cli, "report", str(run)], check=True, capture_output=True, cwd=ROOT)
    texts = {p: p.read_text() for d in (rep, run) for p in (d / "report.md", d / "report.html", d / "summary.json")}
    assert '"source"' in texts[rep / "summary.json"]  # the parameters and their sources are there
    bad = [f"{p.name}: {h}" for p, t in texts.items() for h in hits(t)]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name", sorted(gen_docs.PAGES))
def test_generated_reference_pages_are_current(name: str) -> None:
    assert gen_docs.PAGES[name].read_text() == gen_docs.render(name), "run: python scripts/gen_docs.py"


def test_every_built_in_experiment_has_a_page() -> None:
    from superpacket.experiments import EXPERIMENTS

    pages = {p.stem for p in (ROOT / "docs/experiments").glob("*.md")} - {"index"}
    assert len(EXPERIMENTS) >= 16
    assert set(EXPERIMENTS) <= pages, f"experiments without a page in docs/experiments: {sorted(set(EXPERIMENTS) - pages)}"
    index = (ROOT / "docs/experiments/index.md").read_text()
    assert all(f"({n}.md)" in index for n in EXPERIMENTS)


def _scenario_blocks() -> list[tuple[str, str]]:
    """Every complete scenario (a TOML block with a name and a topology) in the README and docs."""
    out = []
    for f in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for i, m in enumerate(re.finditer(r"```toml\n(.*?)```", f.read_text(), re.DOTALL)):
            if re.search(r"^name = ", m.group(1), re.MULTILINE) and "[topology]" in m.group(1):
                out.append((f"{f.relative_to(ROOT)}#{i}", m.group(1)))
    return out


@pytest.mark.parametrize("where,text", _scenario_blocks(), ids=[w for w, _ in _scenario_blocks()])
def test_scenarios_in_the_docs_are_valid(where: str, text: str) -> None:
    from superpacket import _core

    _core.Simulation(text, "toml", 1)  # the schema's checks; raises ScenarioError naming the field


def test_the_docs_hold_scenarios_to_check() -> None:
    assert len(_scenario_blocks()) >= 3


def test_every_command_line_argument_has_help():
    """Every argument of every subcommand says what it is in `--help` (and so in the
    command-line reference generated from it); `--help` itself aside."""
    import argparse

    p = gen_docs.cli_parser()
    bare = [f"{name} {'/'.join(a.option_strings) or a.dest}"
            for name, sp in gen_docs._subcommands(p).items() for a in sp._actions
            if not isinstance(a, argparse._HelpAction) and not (a.help or "").strip()]
    assert not bare, f"arguments without help: {bare}"
