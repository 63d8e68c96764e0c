"""The scenarios a built-in experiment runs, as TOML files to start from
(`superpacket reproduce NAME --emit-scenarios DIR`).

`planned_runs(module, **options)` goes through the experiment's `run` with the same
options, but every run it would make stops before the simulator starts: what comes back
is each run's variant, seed and scenario, in the order the experiment runs them, and no
simulation has run. `write_scenarios` writes one file per variant, or one per distinct
scenario where a variant's scenario differs between seeds (the first seed's run of some
experiments also records a time series).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from superpacket.experiments import common

if TYPE_CHECKING:
    from superpacket.experiments.record import Experiment


@dataclass(frozen=True)
class PlannedRun:
    """One run of an experiment: its variant, its seed and the scenario (a dict)."""

    variant: str
    seed: int
    scenario: dict[str, Any]


class _Stop(BaseException):
    """Raised in place of a run (a BaseException, so that no handler of the experiment's
    takes it for a failed run)."""

    def __init__(self, scenario: Any, seed: int | None) -> None:
        super().__init__()
        self.scenario = scenario
        self.seed = seed


class _Planned(BaseException):
    def __init__(self, runs: list[PlannedRun]) -> None:
        super().__init__()
        self.runs = runs


def _as_dict(scenario: Any) -> dict[str, Any]:
    if isinstance(scenario, dict):
        copy: dict[str, Any] = json.loads(json.dumps(scenario))  # the file shows what ran, not a later edit
        return copy
    from superpacket import _toml, api

    text, fmt = api.load_scenario(scenario)
    return _toml.loads(text) if fmt == "toml" else dict(json.loads(text))


def _plan(tasks: Sequence[tuple[str, int]], run_one: Callable[[str, int], Any]) -> None:
    """`run_seeds` under `planned_runs`: each task's scenario, caught where it would run."""
    runs: list[PlannedRun] = []
    for variant, seed in tasks:
        try:
            run_one(variant, seed)
        except _Stop as s:
            runs.append(PlannedRun(variant, seed if s.seed is None else s.seed, _as_dict(s.scenario)))
        else:  # pragma: no cover - an experiment whose run_one does not go through api.run
            raise RuntimeError(f"variant {variant!r}: its run does not go through superpacket.api.run")
    raise _Planned(runs)


def planned_runs(exp: Experiment, **options: Any) -> list[PlannedRun]:
    """Every run `exp.run(**options)` would make, without running any (no `client`:
    the plan is made in this process)."""
    from superpacket import api

    def stop(scenario: Any, seed: int | None = None, **_: Any) -> Any:
        raise _Stop(scenario, seed)

    real = api.run
    api.run, common._PLAN = stop, _plan  # type: ignore[assignment]
    try:
        exp.run(**options)
    except _Planned as p:
        return p.runs
    finally:
        api.run, common._PLAN = real, None
    raise RuntimeError(f"{exp.name}: its run made no runs through run_seeds")  # pragma: no cover


def file_stem(variant: str) -> str:
    """A variant's name as a file name: `none/0/on` -> `none_0_on`, `incast/t=5` ->
    `incast_t=5`; letters, digits and `.=+-` are kept, anything else becomes `_`."""
    return re.sub(r"[^A-Za-z0-9.=+-]", "_", variant).strip("._") or "variant"


def _seed_text(seeds: Sequence[int]) -> str:
    return common.seed_text(sorted(seeds))


@dataclass(frozen=True)
class ScenarioFile:
    """A file `write_scenarios` wrote: its path, the variant and the seeds it stands for
    (its `seed` is the first of them)."""

    path: Path
    variant: str
    seeds: tuple[int, ...]


def group(runs: Sequence[PlannedRun]) -> list[tuple[str, dict[str, Any], list[int]]]:
    """(variant, scenario, seeds) for each distinct scenario of each variant, in the
    experiment's order; scenarios that differ only in their `seed` field are one."""
    out: dict[tuple[str, str], tuple[str, dict[str, Any], list[int]]] = {}
    for r in runs:
        body = {k: v for k, v in r.scenario.items() if k != "seed"}
        key = (r.variant, json.dumps(body, sort_keys=True))
        if key not in out:
            out[key] = (r.variant, body, [])
        if r.seed not in out[key][2]:
            out[key][2].append(r.seed)
    return list(out.values())


def write_scenarios(runs: Sequence[PlannedRun], out: Path, experiment: str, command: str) -> list[ScenarioFile]:
    """Writes one TOML file per distinct scenario of each variant into `out` (created if
    missing) and returns them. A file holds the scenario as the experiment runs it, with
    `seed` set to the first seed it stands for, under a comment naming the experiment,
    the variant and the seeds. Refuses (FileExistsError) to replace a file."""
    from superpacket import _toml

    groups = group(runs)
    per_variant: dict[str, int] = {}
    for v, _, _ in groups:
        per_variant[v] = per_variant.get(v, 0) + 1
    planned: list[tuple[Path, str, dict[str, Any], list[int]]] = []
    taken: set[str] = set()
    for variant, body, seeds in groups:
        stem = file_stem(variant)
        if per_variant[variant] > 1:
            stem += f".seed-{seeds[0]}"
        name, i = f"{stem}.toml", 2
        while name in taken:  # two variants whose names differ only in characters replaced
            name, i = f"{stem}.{i}.toml", i + 1
        taken.add(name)
        planned.append((out / name, variant, body, seeds))
    for path, *_ in planned:
        if path.exists():
            raise FileExistsError(f"{path} exists: give an empty or new folder")
    out.mkdir(parents=True, exist_ok=True)
    written: list[ScenarioFile] = []
    for path, variant, body, seeds in planned:
        others = per_variant[variant] > 1
        head = [
            f"# Built-in experiment {experiment}, variant {variant!r}: the scenario it runs for seed"
            f"{'s' if len(seeds) > 1 else ''} {_seed_text(seeds)}"
            + (" (its other seeds' scenario differs: see the variant's other files)" if others else "") + ".",
            f"# Written by: {command}",
            f"# Run it:     superpacket run {path.name} --out out/{path.stem}   (--seed N for another seed)",
            "",
        ]
        sc = {"name": body["name"], "seed": seeds[0], **body} if "name" in body else {"seed": seeds[0], **body}
        path.write_text("\n".join(head) + _toml.dumps(sc))
        written.append(ScenarioFile(path, variant, tuple(seeds)))
    return written
