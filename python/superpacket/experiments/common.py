"""Shared pieces of the built-in experiments: seeds, means with their intervals (a 95 %
confidence interval, Student t, clipped to the metric's range, from 3 seeds; the range
min-max below), the summary JSON layout."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from superpacket.limits import MAX_EXPERIMENT_SEEDS as MAX_SEEDS
from superpacket.seeds import parse_seeds

# two-sided 95 % Student t quantiles by degrees of freedom (1..30), then the normal value
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042]


#: `[tcp] host` of every built-in experiment's scenarios: "ns2", the host of ns-2's agents
#: that the reproduced papers ran (NewReno recovery, RFC 6298's RTO, no slow-start exit, a
#: segment the host's NIC refuses lost unless the experiment says otherwise), written out
#: so that a reproduction does not move with the scenario default (Linux's host).
PAPER_HOST = "ns2"

#: Fewer seeds than this: the interval reported is the range (min-max) of the values, not
#: a 95 % CI (with 2 seeds, t = 12.706 makes the CI 18 times the spread of the values).
MIN_SEEDS_FOR_CI = 3

_FRACTION = re.compile(r"utili[sz]ation|(^|_)(drop|mark|loss|admission|fp)_rate|jain|fairness|share|fill")
_SIGNED = re.compile(r"(^|_)(cut|improvement)(_|$)")


def metric_range(name: str | None) -> tuple[float, float]:
    """The values a metric can take, by its name: every metric the experiments report is
    a time, rate, size, count, ratio or fraction, hence >= 0; fractions (utilisation,
    drop/mark/loss/admission rates, Jain's index, shares, fill) lie in [0, 1]; `*_pct`
    (a percentage of flows) in [0, 100]; a cut or improvement in % (how far one mean lies
    below another) has either sign. No name: no bounds."""
    if name is None or _SIGNED.search(name):
        return (-math.inf, math.inf)
    if _FRACTION.search(name):
        return (0.0, 1.0)
    if name.endswith("_pct"):
        return (0.0, 100.0)
    return (0.0, math.inf)


def interval_kind(n: int | None) -> str:
    """What the interval of `n` values is: "95 % CI" (n >= 3), "min-max" (n = 2), "one
    value" (n = 1) or "no values"."""
    n = int(n or 0)
    if n >= MIN_SEEDS_FOR_CI:
        return "95 % CI"
    return {2: "min-max", 1: "one value"}.get(n, "no values")


def mean_ci95(xs: Sequence[float], metric: str | None = None) -> tuple[float, float, float]:
    """(mean, low, high) of per-seed values: with n >= 3 values the 95 % confidence
    interval of the mean (Student t, `_T95`), clipped to the metric's range
    (`metric_range(metric)`: a mean FCT's interval never goes below 0); with 2 values
    their min and max (no CI: see MIN_SEEDS_FOR_CI); with 1 value the value itself."""
    n = len(xs)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = sum(xs) / n
    if n < MIN_SEEDS_FOR_CI:
        return (m, min(xs), max(xs))
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    t = _T95[n - 2] if n - 1 <= len(_T95) else 1.96
    h = t * sd / math.sqrt(n)
    lo_bound, hi_bound = metric_range(metric)
    return (m, max(m - h, lo_bound), min(m + h, hi_bound))


def seed_list(seeds: Any) -> list[int]:
    """The seeds an experiment runs, in order: an int N means 1..N; text as `--seeds`
    (`1..10`, `3..5,9`); a list (tuple, range) is taken as given, each seed an int in
    0..2^64-1, no repeats (a repeated seed repeats the run and narrows the CI falsely). At
    most MAX_SEEDS seeds. Anything else: a one-line ValueError (a SeedError) naming
    `seeds`. The parser is superpacket.seeds.parse_seeds, that of every seed."""
    return parse_seeds(seeds, "seeds", MAX_SEEDS, "experiment")


def seed_text(seeds: Sequence[int]) -> str:
    """[1, ..., 10] -> "1..10"; [3, 4, 5, 9] -> "3..5, 9"; runs of consecutive seeds as A..B."""
    parts: list[str] = []
    i = 0
    while i < len(seeds):
        j = i
        while j + 1 < len(seeds) and seeds[j + 1] == seeds[j] + 1:
            j += 1
        parts.append(str(seeds[i]) if j == i else f"{seeds[i]}..{seeds[j]}")
        i = j + 1
    return ", ".join(parts)


#: Set by `emit.planned_runs` while it collects an experiment's scenarios: `run_seeds`
#: hands it the runs instead of running them.
_PLAN: Callable[[list[tuple[str, int]], Callable[[str, int], Any]], None] | None = None


def run_seeds(
    variants: tuple[str, ...] | list[str],
    seeds: int | Sequence[int],
    keys: tuple[str, ...],
    run_one: Callable[[str, int], dict[str, Any]],
    client: Any = None,
    progress: bool | None = None,
) -> tuple[dict[str, dict[str, list[float]]], dict[str, list[dict[str, Any]]]]:
    """Runs every variant for each seed of `seed_list(seeds)` (an int N: 1..N); returns
    (variant -> metric -> per-seed values for `keys`, variant -> per-seed result dicts).

    With a `distributed.Client`, the (variant, seed) runs are Dask tasks (`run_one` must
    then pickle: a module-level function or a functools.partial of one); the results are
    the same and in the same order as without. Progress (runs done of all) goes to stderr
    (superpacket.progress: a bar on a terminal or when `progress` is True; plain lines off
    a terminal under the command line; never with `progress` False)."""
    from superpacket.progress import Progress

    tasks = [(v, seed) for v in variants for seed in seed_list(seeds)]
    if _PLAN is not None:  # emit.planned_runs: the runs' scenarios, not the runs
        _PLAN(tasks, run_one)
    with Progress(len(tasks), "runs", progress=progress, leave=False) as bar:
        if client is None:
            results = []
            for v, seed in tasks:
                results.append(run_one(v, seed))
                bar.update(1, f"{v} seed {seed}")
        else:
            from distributed import as_completed

            futures = client.map(run_one, [v for v, _ in tasks], [s for _, s in tasks], pure=False)
            for _ in as_completed(futures):
                bar.update(1)
            results = client.gather(futures)
    per_seed: dict[str, dict[str, list[float]]] = {}
    detail: dict[str, list[dict[str, Any]]] = {}
    for (variant, _), r in zip(tasks, results, strict=True):
        m = per_seed.setdefault(variant, {k: [] for k in keys})
        for k in keys:
            m[k].append(float(r[k]))
        detail.setdefault(variant, []).append(r)
    return per_seed, detail


def summarize(per_seed: dict[str, dict[str, list[float]]]) -> dict[str, dict[str, Any]]:
    """variant -> metric -> per-seed values  =>  the summary's `variants` object."""
    out: dict[str, dict[str, Any]] = {}
    for variant, metrics in per_seed.items():
        v: dict[str, Any] = {}
        for name, xs in metrics.items():
            m, lo, hi = mean_ci95(xs, name)
            v[name] = m
            v[f"{name}_ci95"] = [lo, hi]
            v[f"{name}_per_seed"] = xs
        out[variant] = v
    return out


# ---- reported parameters read from the scenarios that ran ---------------------------------------
# A summary's `params` used to be partly a hand-kept copy of the numbers a scenario builder
# also wrote down, free to drift from what ran. A parameter of the scenario is instead a
# `Sc`: the field(s) it is read from, by path, in the scenario dicts the experiment built
# and ran; `params_from` turns a table of them into DESIGN.md's {"value", "source"}.


def field(scenario: Any, path: str) -> Any:
    """The value at `path` of a scenario dict, in `sweep --param`'s syntax
    (`topology.links[3].queue.limit`, `traffic[0].tcp.init_cwnd`)."""
    from superpacket.sweeps import parse_path

    cur = scenario
    for tok in parse_path(path):
        try:
            cur = cur[tok]
        except (KeyError, IndexError, TypeError):
            raise ValueError(f"{path}: no such field in scenario {scenario.get('name', '?')!r}") from None
    return cur


def same(*values: Any) -> Any:
    """The one value several fields share (three access links' rate, a buffer in every
    variant); fields that differ make the reported single value false, so they raise."""
    if any(v != values[0] for v in values[1:]):
        raise ValueError(f"fields reported as one value differ: {values!r}")
    return values[0]


_PER_S = {"ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1.0}  # divided by: 100 / 1e6 is 1e-4 exactly rounded


def seconds(text: str) -> float:
    """A scenario duration as the builders write it ("32.0s", "80ms", "100.0us") in s."""
    for unit in ("ns", "us", "ms", "s"):
        if text.endswith(unit):
            return float(text.removesuffix(unit)) / _PER_S[unit]
    raise ValueError(f"{text!r}: not a duration with a unit (ns, us, ms, s)")


def whole(x: float) -> int | float:
    """x as an int when it is one (80.0 -> 80): a reported value keeps the type it had."""
    return int(x) if float(x).is_integer() else x


def ms(text: str) -> int | float:
    """A duration in whole ms where it is one ("80ms" -> 80)."""
    return whole(round(seconds(text) * 1e3, 9))


def spaced(value: str) -> str:
    """"1Gbps" -> "1 Gbps", "80ms" -> "80 ms": a scenario value as a report's text writes it."""
    return re.sub(r"^([0-9.]+)", r"\1 ", value)


class Sc:
    """A reported parameter read from the scenarios: `paths` are `variant:path` (or
    `path` for the first scenario given to `params_from`); the value is `fmt` of the
    fields' values (default `same`: the one value they all hold)."""

    def __init__(self, *paths: str, fmt: Callable[..., Any] | None = None):
        self.paths = paths
        self.fmt = fmt or same

    def locate(self, scenarios: dict[str, Any], path: str) -> tuple[Any, str]:
        variant, sep, rest = path.partition(":")
        if not sep:
            return next(iter(scenarios.values())), path
        return scenarios[variant], rest

    def fields(self, scenarios: dict[str, Any]) -> list[Any]:
        return [field(*self.locate(scenarios, p)) for p in self.paths]

    def value(self, scenarios: dict[str, Any]) -> Any:
        return self.fmt(*self.fields(scenarios))


def params_from(table: dict[str, tuple[Any, str]], scenarios: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """{name: (Sc or a plain value, source)} -> {name: {"value", "source"}}, each Sc read
    from `scenarios` (variant -> the scenario dict that ran). Plain values are the
    parameters that are no scenario field (metric definitions, roles of hosts)."""
    return {k: {"value": w.value(scenarios) if isinstance(w, Sc) else w, "source": s} for k, (w, s) in table.items()}
