"""superpacket: a fast, deterministic packet-level network simulator.

    >>> import superpacket
    >>> res = superpacket.run("examples/incast.toml", seed=1)
    >>> res.flows.select("flow_id", "fct_s")

The heavy modules (polars) load on first use, so `superpacket._core` alone stays light
(the benchmark measures memory in a child process that imports only the core).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what type checkers and editors see; at run time __getattr__ loads each on first use
    from typing import Any

    from superpacket._core import ScenarioError, SimulationError
    from superpacket.api import Results, load_scenario, run
    from superpacket.reports import report
    from superpacket.sweeps import load_sweep, sweep

#: The public API (docs: reference/python.md); `__version__` besides.
__all__ = ["Results", "ScenarioError", "SimulationError", "load_scenario", "load_sweep", "report", "run", "sweep"]


def _version() -> str:
    """The package's version: its installed metadata (maturin writes pyproject.toml's
    [project] version there); from a source tree that was never installed, that
    pyproject.toml itself; "0+unknown" when neither is found."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("superpacket")
    except PackageNotFoundError:
        import tomllib
        from pathlib import Path

        pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
        try:
            v = tomllib.loads(pyproject.read_text())["project"]["version"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "0+unknown"
        return str(v)


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return _version()
    if name == "ScenarioError":
        from superpacket._core import ScenarioError

        return ScenarioError
    if name == "SimulationError":
        from superpacket._core import SimulationError

        return SimulationError
    if name in ("Results", "load_scenario", "run"):
        from superpacket import api

        return getattr(api, name)
    if name in ("sweep", "load_sweep"):
        from superpacket import sweeps

        return getattr(sweeps, name)
    if name == "report":
        from superpacket import reports

        return reports.report
    raise AttributeError(f"module 'superpacket' has no attribute {name!r}")


def __dir__() -> list[str]:
    """What `dir(superpacket)` lists: the public API, `__version__` and the module's own
    dunder attributes; the lazily loaded names included, none of them loaded by listing."""
    return sorted({*__all__, "__version__", *(n for n in globals() if n.startswith("__"))})
