"""`import superpacket`: `dir()` lists the public API (`__all__`) and `__version__`, every
name it lists resolves, listing loads nothing heavy, and the Python API reference page
documents exactly these names, each the object `superpacket.NAME` gives."""

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import superpacket

ROOT = Path(__file__).resolve().parent.parent
API_PAGE = ROOT / "docs" / "reference" / "python.md"


def test_dir_lists_the_api_and_every_name_resolves():
    names = dir(superpacket)
    assert set(superpacket.__all__) | {"__version__"} <= set(names)
    public = {n for n in names if not n.startswith("_")}
    assert public == set(superpacket.__all__), public ^ set(superpacket.__all__)
    for n in names:
        assert getattr(superpacket, n) is not None or n == "__builtins__", n
    assert names == sorted(names)


def test_api_names_are_what_their_modules_define():
    from superpacket import _core, api, reports, sweeps

    assert superpacket.run is api.run and superpacket.Results is api.Results
    assert superpacket.load_scenario is api.load_scenario
    assert superpacket.sweep is sweeps.sweep and superpacket.load_sweep is sweeps.load_sweep
    assert superpacket.report is reports.report
    assert superpacket.ScenarioError is _core.ScenarioError and superpacket.SimulationError is _core.SimulationError
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", superpacket.__version__)


def test_listing_loads_nothing_and_an_unknown_name_is_an_attribute_error():
    """In a fresh interpreter: dir() does not import polars or the API modules (the names
    load on first use); a name outside the API raises AttributeError (hasattr is False)."""
    code = ("import sys, json, superpacket; d = dir(superpacket); "
            "print(json.dumps([d, sorted(m for m in ('polars', 'superpacket.api', 'superpacket.sweeps', "
            "'superpacket.reports') if m in sys.modules), hasattr(superpacket, 'Any'), "
            "hasattr(superpacket, 'no_such_name')]))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    d, loaded, has_any, has_other = json.loads(r.stdout)
    assert "run" in d and "__version__" in d
    assert loaded == [] and not has_any and not has_other


def documented() -> tuple[set[str], list[str]]:
    """Top-level names the Python API page documents (`::: superpacket.MODULE.NAME` blocks
    and `superpacket.NAME` in its text) and the modules it documents whole (`::: superpacket.MODULE`)."""
    text = API_PAGE.read_text()
    names: set[str] = set()
    modules: list[str] = []
    for target in re.findall(r"^::: (superpacket(?:\.\w+)+)\s*$", text, flags=re.MULTILINE):
        mod, _, name = target.rpartition(".")
        try:
            importlib.import_module(target)
            modules.append(target)
        except ModuleNotFoundError:
            assert getattr(importlib.import_module(mod), name) is getattr(superpacket, name), target
            names.add(name)
    names |= {m for m in re.findall(r"`superpacket\.(\w+)`", text) if not m.startswith("_core")}
    return names, modules


def test_the_reference_page_documents_exactly_the_api():
    names, modules = documented()
    assert names == set(superpacket.__all__) | {"__version__"}, names ^ (set(superpacket.__all__) | {"__version__"})
    assert modules == ["superpacket.outputs"]  # the outputs' definitions, a module of its own
