# Types of the compiled extension superpacket._core (crates/py/src/lib.rs, PyO3).
# `make lint` and tests/test_types.py check this file against the built module with
# mypy's stubtest: every name it exports, every signature and default.

import os
from collections.abc import Sequence
from typing import Any, final

__all__ = [
    "ScenarioError",
    "Simulation",
    "SimulationError",
    "bench_datacenter",
    "bench_fast_burstiness",
    "bench_p1",
    "families",
    "riops_web_toml",
    "toml_to_json",
    "validate",
]

class ScenarioError(ValueError):
    """A scenario file or dict is invalid."""

class SimulationError(RuntimeError):
    """The simulator failed inside a run (an internal error): the message names the scenario."""

@final
class Simulation:
    """A built simulation, run in steps so Python can show progress."""

    # `fmt`: "toml" or "json"; `seed` overrides the scenario's (a u64). Raises
    # ScenarioError for an invalid scenario, SimulationError for an internal error.
    def __new__(cls, text: str, fmt: str = "toml", seed: int | None = None) -> Simulation: ...
    @property
    def duration_s(self) -> float: ...
    @property
    def now_s(self) -> float: ...
    @property
    def events(self) -> int: ...
    @property
    def memory_estimate(self) -> float: ...
    @property
    def seed(self) -> int: ...
    @property
    def traced_links(self) -> list[str]: ...
    def run_until(self, t_s: float) -> None: ...
    def trace(self, links: Sequence[str], snaplen: int | None = None) -> None: ...
    def write_pcaps(self, dir: str | os.PathLike[str]) -> list[str]: ...
    # {"flows" | "links" | "queue_series" | "queue_counters" | "flow_series" | "sources" |
    #  "probe_trains" | "monitor": {column name: column}, "summary_json": str}. A column of
    # a table under `buffers_from` rows is ("list", kind, values), kind one of "u64",
    # "f64", "optf64" (None for missing), "str", "bool"; from `buffers_from` rows on it is
    # one little-endian buffer: ("u64" | "f64" | "bool", bytes), ("optf64", values,
    # validity bytes) or ("str", distinct values, u32 codes as bytes).
    def results(self, buffers_from: int = 4096) -> dict[str, Any]: ...

def validate(text: str, fmt: str = "toml") -> None: ...
def toml_to_json(text: str) -> str: ...

# JSON: a list of {"name", "field", "members": [[name, description], ...]}, one per
# pluggable family (congestion controls, queue disciplines, topologies, traffic kinds, ...)
def families() -> str: ...

# the benchmarks (`superpacket bench`); each returns its figures as a JSON string
def bench_p1(duration_s: float) -> str: ...
def bench_fast_burstiness(duration_s: float, txqueuelen: int, gate: bool) -> str: ...
def bench_datacenter(hosts: int, duration_s: float, warmup_s: float) -> str: ...

# the scenario (TOML) of the open-loop memory benchmark for `duration_s` seconds
def riops_web_toml(duration_s: float) -> str: ...
