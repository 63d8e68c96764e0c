"""Shared pieces of the built-in experiments: seeds, means with 95 % confidence
intervals (Student t), the summary JSON layout of DESIGN.md."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from typing import Any

from superpacket.cli_checks import MAX_EXPERIMENT_SEEDS as MAX_SEEDS
from superpacket.cli_checks import U64_MAX  # the simulator's seed is a u64

# two-sided 95 % Student t quantiles by degrees of freedom (1..30), then the normal value
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042]


def mean_ci95(xs: list[float]) -> tuple[float, float, float]:
    """Mean and the 95 % confidence interval of the mean over seeds."""
    n = len(xs)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = sum(xs) / n
    if n == 1:
        return (m, m, m)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    t = _T95[n - 2] if n - 1 <= len(_T95) else 1.96
    h = t * sd / math.sqrt(n)
    return (m, m - h, m + h)


def seed_list(seeds: Any) -> list[int]:
    """The seeds an experiment runs, in order: an int N means 1..N (as `--seeds N`); a
    sequence (list, tuple, range) is taken as given, each seed an int in 0..2^64-1, no
    repeats (a repeated seed repeats the run and narrows the CI falsely). At most
    MAX_SEEDS seeds either way. Anything else: a one-line ValueError naming `seeds`."""
    # ValueError for a wrong type too: the one error the experiments' callers turn into a line
    wrong_type = isinstance(seeds, (bool, str, bytes)) or not isinstance(seeds, (int, Sequence))
    if wrong_type:
        raise ValueError(f"seeds: must be an integer N >= 1 or a list of seeds (got {seeds!r:.60})")
    if isinstance(seeds, int):
        if not 1 <= seeds <= MAX_SEEDS:
            raise ValueError(f"seeds: must be an integer in 1..{MAX_SEEDS} (got {seeds!r})")
        return list(range(1, seeds + 1))
    if not 1 <= len(seeds) <= MAX_SEEDS:
        raise ValueError(f"seeds: must hold 1..{MAX_SEEDS} seeds (got {len(seeds)})")
    out: list[int] = []
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= U64_MAX:
            raise ValueError(f"seeds: each seed must be an integer in 0..{U64_MAX} (got {s!r})")
        out.append(int(s))
    if len(set(out)) != len(out):
        dup = next(s for s in out if out.count(s) > 1)
        raise ValueError(f"seeds: seed {dup} is given more than once")
    return out


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
    the same and in the same order as without. A progress bar (runs done of all) goes to
    stderr when it is a terminal (`progress` None) or when `progress` is True."""
    from tqdm import tqdm

    tasks = [(v, seed) for v in variants for seed in seed_list(seeds)]
    show = sys.stderr.isatty() if progress is None else progress
    with tqdm(total=len(tasks), desc="runs", unit="run", file=sys.stderr, disable=not show, leave=False) as bar:
        if client is None:
            results = []
            for v, seed in tasks:
                bar.set_postfix_str(f"{v} seed {seed}", refresh=False)
                results.append(run_one(v, seed))
                bar.update(1)
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
    """variant -> metric -> per-seed values  =>  DESIGN.md's `variants` object."""
    out: dict[str, dict[str, Any]] = {}
    for variant, metrics in per_seed.items():
        v: dict[str, Any] = {}
        for name, xs in metrics.items():
            m, lo, hi = mean_ci95(xs)
            v[name] = m
            v[f"{name}_ci95"] = [lo, hi]
            v[f"{name}_per_seed"] = xs
        out[variant] = v
    return out

