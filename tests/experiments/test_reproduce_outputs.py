"""Every output of `superpacket reproduce NAME --out DIR` and `superpacket report DIR`
is defined in `superpacket.outputs` (the source of docs/reference/outputs.md): the
summary.json keys, the entries of its variants, claims and scale, and the columns of
per_seed.parquet and per_flow.parquet, read from what real runs wrote (incast, which
has per-flow data and two regimes, and short-long), and every top-level key any
experiment's `run` can return, read from the experiments' code.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import polars as pl
import pytest
from superpacket import cli, outputs

ROOT = Path(__file__).resolve().parents[2]


def names(rows: tuple[outputs.Output, ...]) -> set[str]:
    """A row may define several keys together ("a, b, c")."""
    return {n for o in rows for n in o.name.split(", ")}


SUMMARY_KEYS = names(outputs.EXPERIMENT_SUMMARY)


@pytest.fixture(scope="module", params=[["incast", "--seeds", "4..6"], ["short-long", "--seeds", "2..3"]],
                ids=lambda a: a[0])
def folder(request, tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp(request.param[0]) / "out"
    assert cli.main(["reproduce", *request.param, "--out", str(d)]) == 0
    assert cli.main(["report", str(d)]) == 0
    return d


def test_every_file_written_is_defined(folder: Path) -> None:
    defined = names(outputs.REPRODUCE_FILES)
    written = {p.name + ("/" if p.is_dir() else "") for p in folder.iterdir()}
    assert written <= defined, written - defined
    assert {"summary.json", "per_seed.parquet", "report.md"} <= written


def test_every_summary_key_written_is_defined(folder: Path) -> None:
    s = json.loads((folder / "summary.json").read_text())
    assert set(s) <= SUMMARY_KEYS, set(s) - SUMMARY_KEYS
    assert set(s["scale"]) == names(outputs.EXPERIMENT_SCALE_KEYS)
    for block in [s, *s.get("regimes", {}).values()]:
        assert set(block) <= SUMMARY_KEYS, set(block) - SUMMARY_KEYS
        for v, ms in block["variants"].items():
            metrics = {k for k in ms if f"{k}_ci95" in ms}
            assert metrics, v
            # every key of a variant is METRIC, METRIC_ci95 or METRIC_per_seed of a metric
            assert set(ms) == {f"{m}{suffix}" for m in metrics for suffix in ("", "_ci95", "_per_seed")}, v
            for m in metrics:
                assert len(ms[f"{m}_per_seed"]) == s["seeds"]
    for c in s["claims"]:
        assert isinstance(c["claim"], str) and isinstance(c["holds"], bool)


def test_every_table_column_written_is_defined(folder: Path) -> None:
    s = json.loads((folder / "summary.json").read_text())
    for t in outputs.EXPERIMENT_TABLES:
        path = folder / f"{t.name}.parquet"
        if not path.exists():
            assert t.name == "per_flow" and "per_flow" not in s
            continue
        assert pl.read_parquet(path).columns == [c.name for c in t.columns], t.name
    # per_seed.parquet holds the per-seed values of summary.json's variants, row for row
    # with its seed: the i-th per-seed value belongs to the i-th seed of seed_list
    per_seed = pl.read_parquet(folder / "per_seed.parquet")
    expect = sorted((v, m, seed, x) for v, ms in s["variants"].items() for m in ms if f"{m}_ci95" in ms
                    for seed, x in zip(s["seed_list"], ms[f"{m}_per_seed"], strict=True))
    assert sorted(per_seed.select("variant", "metric", "seed", "value").iter_rows()) == expect
    if (folder / "per_flow.parquet").exists():
        per_flow = pl.read_parquet(folder / "per_flow.parquet")
        assert set(per_flow["seed"]) == set(s["seed_list"])


def _returned_keys() -> set[str]:
    """The string keys of every dict an experiment's `run` (or incast's regime block)
    returns."""
    keys: set[str] = set()
    for p in sorted((ROOT / "python/superpacket/experiments").glob("*.py")):
        for fn in ast.walk(ast.parse(p.read_text())):
            if not isinstance(fn, ast.FunctionDef) or fn.name not in ("run", "regime_block"):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Dict):
                    ks = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                    if "experiment" in ks or (fn.name == "regime_block" and "variants" in ks):
                        keys |= ks
    return keys


def test_every_key_an_experiment_returns_is_defined() -> None:
    keys = _returned_keys()
    assert {"experiment", "variants", "claims", "per_flow", "regimes"} <= keys  # the scan finds them
    undefined = keys - SUMMARY_KEYS
    assert not undefined, f"summary keys without a definition in superpacket.outputs: {sorted(undefined)}"
