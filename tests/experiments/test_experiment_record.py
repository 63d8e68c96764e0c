"""The `Experiment` record each built-in experiment exports (superpacket.experiments.record):
one per experiment module, named as `superpacket reproduce` names it, citing the paper as
its documentation page does, and the only place the command line and the reports read an
experiment's options, seeds and report settings from. Its page (docs/experiments/NAME.md)
is checked against it: the paper, the command line, every must-hold claim and the small
scale."""

import inspect
import pkgutil
import re
import subprocess
import sys
from importlib import import_module
from pathlib import Path
from string import Formatter

import pytest
import superpacket.experiments as pkg
from superpacket.experiments import EXPERIMENTS
from superpacket.experiments.record import Experiment

ROOT = Path(__file__).resolve().parents[2]
#: What the record holds now; a module constant of these names would be a second source.
MOVED = ("OPTIONS", "PARALLEL_BY_DEFAULT", "GENERIC_BARS", "QUICK_SEEDS", "QUICK_RATES", "QUICK_DURATION_S")


def experiment_modules() -> list:
    mods = [import_module(f"superpacket.experiments.{m.name}") for m in pkgutil.iter_modules(pkg.__path__)]
    return [m for m in mods if hasattr(m, "EXPERIMENT")]


def test_every_experiment_module_exports_its_record():
    mods = experiment_modules()
    assert len(mods) == len(EXPERIMENTS) >= 16
    for m in mods:
        exp = m.EXPERIMENT
        assert isinstance(exp, Experiment)
        assert EXPERIMENTS[exp.name] is exp and exp.module is m and exp.run is m.run, exp.name
        assert not [c for c in MOVED if hasattr(m, c)], exp.name
        assert exp.summary().startswith(f"`superpacket reproduce {exp.name}`"), exp.name


def _page(name: str) -> str:
    path = ROOT / "docs" / "experiments" / f"{name}.md"
    assert path.is_file(), f"{name}: no page {path.relative_to(ROOT)}"
    return path.read_text()


#: Pages expected to fail a check, as strict xfails naming why (a page that comes to pass
#: must lose its mark); none now.
HELD: dict[str, dict[str, str]] = {"claims": {}, "quick": {}}


def _names(check: str) -> list:
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=HELD[check][n])) if n in HELD[check] else n
            for n in sorted(EXPERIMENTS)]


def _command(page: str) -> str:
    """The page's reproduce command line: the first line of its first code block."""
    m = re.search(r"^```[a-z]*\n(.*)$", page, re.MULTILINE)
    assert m, "no code block"
    return m.group(1)


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_the_record_cites_the_paper_as_its_page_does(name):
    """The page docs/experiments/NAME.md exists; its **Paper:** line is the record's
    citation (authors, title, venue; the part reproduced); its command line (the first
    line of its first code block) runs this experiment and offers `--quick` exactly where
    the record declares a small scale."""
    page = _page(name)
    line = next(x for x in page.splitlines() if x.startswith("**Paper:** "))
    assert line == f"**Paper:** {EXPERIMENTS[name].citation()}"
    cmd = _command(page)
    assert re.fullmatch(rf"superpacket reproduce {re.escape(name)}( .*)?", cmd), (name, cmd)
    if EXPERIMENTS[name].quick is None:
        assert "--quick" not in cmd, (name, cmd)


def _flat(text: str) -> str:
    """Text as the test compares it: whitespace collapsed, backticks and backslash escapes
    dropped (a page wraps its lines and escapes the asterisks the record writes plain)."""
    return " ".join(text.replace("`", "").replace("\\", "").split())


def appears(claim, page: str) -> bool:
    """Whether a claim appears on a page: the page names its id in backticks (`knee`),
    the stable part, kept when its text is reworded; or the page quotes its text, the
    record's words between its `{name}` fields in their order, each field standing for
    1 to 80 characters (the value the run fills in, or the `{name}` itself), compared as
    `_flat` text."""
    if f"`{claim.id}`" in page:
        return True
    parts = [re.escape(_flat(lit)) for lit, _, _, _ in Formatter().parse(claim.text)]
    gaps = [f is not None for _, f, _, _ in Formatter().parse(claim.text)]
    pattern = "".join(p + (".{1,80}?" if g else "") for p, g in zip(parts, gaps, strict=True))
    return re.search(pattern, _flat(page)) is not None


def test_appears():
    from superpacket.experiments.record import Claim

    c = Claim("x-floor", "{protocol}: above {floor:.0%} (paper: 5 %)", "the least utilisation")
    assert appears(c, "the claim `x-floor` holds")
    assert appears(c, "- bic: above\n  90% (paper: 5 %)") and appears(c, "{protocol}: above {floor} (paper: 5 %)")
    assert not appears(c, "x-floor: bic above 90%") and not appears(c, "bic: above 90% (paper: 6 %)")


@pytest.mark.parametrize("name", _names("claims"))
def test_the_page_states_every_must_hold_claim(name):
    """Every must-hold claim of the record appears on the experiment's page (`appears`)."""
    page = _page(name)
    missing = [c.id for c in EXPERIMENTS[name].claims if c.must_hold and not appears(c, page)]
    assert not missing, f"docs/experiments/{name}.md misses the claims {missing}"


@pytest.mark.parametrize("name", _names("quick"))
def test_the_page_tells_the_quick_scale(name):
    """An experiment with a small scale: its page says `--quick` or gives the scale's text
    (the record's `quick.text`, as `_flat` text)."""
    exp = EXPERIMENTS[name]
    if exp.quick is None:
        return
    page = _page(name)
    assert "--quick" in page or _flat(exp.quick.text) in _flat(page), name


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_options_are_run_parameters(name):
    """Every option the command line may pass is a parameter of run, and check_options
    takes only options the record names."""
    exp = EXPERIMENTS[name]
    params = inspect.signature(exp.run).parameters
    assert all(o in params for o in exp.options), name
    if exp.check_options is not None:
        checked = set(inspect.signature(exp.check_options).parameters)
        assert checked & set(exp.options) or checked <= set(params), name
    assert list(exp.variants) == list(dict.fromkeys(exp.variants)), name  # an order, no repeats


def _format_fields(words: str) -> int:
    """How many of its arguments a str.format template reads ("{}" or "{0}", "{1[0]}")."""
    auto = 0
    used: set[int] = set()
    for _, f, _, _ in Formatter().parse(words):
        if f is None:
            continue
        head = f.split("[")[0].split(".")[0]
        if head == "":
            used.add(auto)
            auto += 1
        else:
            used.add(int(head))
    return len(used)


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_claims_and_quick_scale_are_declared(name):
    """Every experiment declares the claims it judges, each with an id of its own, its
    text and what it is judged on (and the number its verdict is shown beside, if any, a
    template reading each of the keys it names); a claim whose text says it is not a
    must-hold is not one. `--quick` is an option exactly where the record says what it means. (That each
    run's claims are these is checked on the runs the experiments' tests make:
    tests/record_check.py.)"""
    exp = EXPERIMENTS[name]
    assert exp.claims, name
    ids = [c.id for c in exp.claims]
    assert len(ids) == len(set(ids)), name
    for c in exp.claims:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9.]+)*", c.id), (name, c.id)
        assert c.text and c.judges, (name, c.id)
        if "not a must-hold" in c.text:
            assert not c.must_hold, (name, c.id)
        if c.number is not None:  # the number its verdict is shown beside: keys and words agree
            n = c.number
            assert n.keys and len(set(n.keys)) == len(n.keys), (name, c.id)
            if n.against is not None:
                assert len(n.keys) == 1 and n.words == "{}" and not n.percent, (name, c.id)
            else:
                assert _format_fields(n.words) == len(n.keys), (name, c.id)
    assert ("quick" in exp.options) == (exp.quick is not None), name
    assert bool(exp.regimes) == ("regime" in exp.options), name  # incast only
    if exp.quick is not None:
        assert exp.quick.text and (exp.quick.values or exp.quick.seeds), name


def test_claim_text_and_judgement():
    from superpacket.experiments.record import Claim

    c = Claim("x-floor", "{protocol}: above {floor:.0%} (paper: 5 %)", "the least utilisation", must_hold=False)
    assert c.fields() == ("protocol", "floor")
    assert c.shown() == "{protocol}: above {floor} (paper: 5 %)"
    r = c.result({"protocol": "bic", "floor": 0.9}, ratio=0.5, holds=True)
    assert r == {"id": "x-floor", "claim": "bic: above 90% (paper: 5 %)", "must_hold": False, "ratio": 0.5,
                 "holds": True}
    assert list(r)[3:] == ["ratio", "holds"]  # the numbers in the order given (the report's order)


def test_figures_are_named_by_the_record_and_load_only_when_drawn():
    """Each builder the records name exists in superpacket.experiments.figures; importing
    the experiments (as `reproduce` and the Dask workers do) loads none of them, nor
    matplotlib: nothing registers itself as a side effect of an import."""
    named = {n: e.figures for n, e in EXPERIMENTS.items() if e.figures}
    assert len(named) >= 13
    for name, ref in named.items():
        assert ref.startswith("superpacket.experiments.figures."), name
        assert callable(EXPERIMENTS[name].figure_builder()), name
    code = ("import sys, superpacket.experiments; "
            "print(sorted(m for m in sys.modules if m.startswith(('matplotlib', 'superpacket.experiments.figures', "
            "'superpacket.reports'))))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]", r.stdout
