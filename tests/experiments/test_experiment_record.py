"""The `Experiment` record each built-in experiment exports (superpacket.experiments.record):
one per experiment module, named as `superpacket reproduce` names it, citing the paper as
its documentation page does, and the only place the command line and the reports read an
experiment's options, seeds and report settings from."""

import inspect
import pkgutil
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest
import superpacket.experiments as pkg
from superpacket.experiments import EXPERIMENTS
from superpacket.experiments.record import Experiment

ROOT = Path(__file__).resolve().parents[2]
#: What the record holds now; a module constant of these names would be a second source.
MOVED = ("OPTIONS", "PARALLEL_BY_DEFAULT", "GENERIC_BARS")


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


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_the_record_cites_the_paper_as_its_page_does(name):
    page = (ROOT / "docs" / "experiments" / f"{name}.md").read_text()
    line = next(x for x in page.splitlines() if x.startswith("**Paper:** "))
    assert line == f"**Paper:** {EXPERIMENTS[name].citation()}"


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
