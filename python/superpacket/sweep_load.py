"""Reading a sweep folder back: every table of every finished run as one polars
DataFrame, with one column per parameter and `seed` (hive partitions, typed from
sweep.json), sorted by them."""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The Parquet tables of each run. flow_series (`[output] sample_flows`) is empty, with
#: its columns, in runs that do not sample flows, and absent from sweeps written before it
#: was added (then `load_sweep` gives an empty frame of the parameters and seed).
TABLES = ("flows", "links", "queue_series", "queue_counters", "flow_series", "summary")


@dataclass
class SweepData:
    """A sweep's tables, each with one column per parameter and `seed` in front."""

    params: list[str]
    flows: Any
    links: Any
    summary: Any
    queue_series: Any
    queue_counters: Any
    flow_series: Any
    failures: list[dict[str, Any]]


def _hive_type(values: list[Any]) -> Any:
    import polars as pl

    if all(isinstance(v, bool) for v in values):
        return pl.Boolean
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return pl.Int64
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return pl.Float64
    return pl.String


def read_meta(out: str | Path) -> dict[str, Any]:
    f = Path(out) / "sweep.json"
    if not f.exists():
        raise FileNotFoundError(f"not a sweep folder (no sweep.json): {out}")
    meta: dict[str, Any] = json.loads(f.read_text())
    return meta


def load_table(out: str | Path, table: str) -> Any:
    """One table of every finished run, with the parameters and seed as columns, sorted
    by them (a run's rows keep their order)."""
    import polars as pl

    outp = Path(out)
    meta = read_meta(outp)
    params = list(meta["params"])
    schema = {p: _hive_type(v) for p, v in meta["params"].items()} | {"seed": pl.Int64}
    files = sorted(f for f in outp.glob(f"**/{table}.parquet")
                   if not any(part.startswith(".") for part in f.relative_to(outp).parts))
    if not files:
        return pl.DataFrame(schema=schema)
    try:
        df = pl.read_parquet(str(outp / "**" / f"{table}.parquet"), hive_partitioning=True, hive_schema=schema)
    except pl.exceptions.PolarsError:  # tables of different column types (an all-null column)
        frames = []
        for f in files:
            part = pl.read_parquet(f, hive_partitioning=False, glob=False)
            if part.height == 0:
                continue
            kv = dict(seg.split("=", 1) for seg in f.relative_to(outp).parent.parts)
            part = part.with_columns(pl.lit(urllib.parse.unquote(kv[k])).cast(t).alias(k) for k, t in schema.items())
            frames.append(part)
        df = pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame(schema=schema)
    keys = [*params, "seed"]
    df = df.select([*keys, *(c for c in df.columns if c not in keys)])
    return df.sort(keys, maintain_order=True)


def load_sweep(out: str | Path) -> SweepData:
    """Every table of a sweep folder as polars DataFrames (parameters and seed as columns)."""
    outp = Path(out)
    meta = read_meta(outp)
    f = outp / "failures.jsonl"
    failures = [json.loads(ln) for ln in f.read_text().splitlines() if ln.strip()] if f.exists() else []
    t = {name: load_table(outp, name) for name in TABLES}
    return SweepData(params=list(meta["params"]), failures=failures, **t)
