"""Reading a sweep folder back: every table of every finished run as one polars
DataFrame, with one column per parameter and `seed` (hive partitions, typed from
sweep.json), sorted by them.

A linked group (`sweep --link buffer=PATH,PATH --label buffer=small,large`) is one folder
level, `buffer=small`: its column `buffer` holds the point's label (String) and each of
its paths has its own column, typed from its values as any parameter's; its rows sort in
the order the points were given.

A parameter whose value is a table (`queue = {kind = "red", ...}`) is a String column
holding the value's canonical JSON (keys sorted, no spaces): `{"kind":"red",...}`. Its
folder name is a shorter readable form (`kind=red;limit=100;...`, percent-encoded), made
here too (`dir_value`), so that the loader maps each folder back to its value."""

from __future__ import annotations

import hashlib
import json
import re
import urllib.parse
from dataclasses import dataclass, field
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
    #: Each linked group's paths (its column `name` holds the labels); `params` lists the
    #: group's name where the folder level stands.
    linked: dict[str, list[str]] = field(default_factory=dict)


#: Bytes of one folder name `<path>=<value>` at most; a longer value is cut and gets a
#: hash of its canonical JSON (file systems allow 255 bytes per name).
MAX_DIR_NAME = 200
_BARE = re.compile(r"^[A-Za-z0-9_.+-]+$")
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def canonical(v: Any) -> str:
    """A value's canonical JSON: keys sorted, no spaces; 1, 1.0 and true stay distinct."""
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def column_value(v: Any) -> Any:
    """A parameter value as its column holds it: a scalar as itself, a table (or an
    array) as its canonical JSON string."""
    return canonical(v) if isinstance(v, (dict, list, tuple)) else v


def _is_number_text(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def _short(v: Any, top: bool = False) -> str:
    """Readable and unambiguous text of a value: `kind=red;limit=100;min_th=5.0` for a table
    (keys sorted; `{...}` when nested), `[1,2]` for an array, a string bare when it is a
    plain word that reads as no number or boolean ("red", "10Gbps"), else JSON-quoted."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        bare = _BARE.match(v) and v not in ("true", "false") and not _is_number_text(v)
        return v if bare else json.dumps(v, ensure_ascii=False)
    if isinstance(v, dict):
        body = ";".join(f"{k if _BARE_KEY.match(k) else json.dumps(k, ensure_ascii=False)}={_short(v[k])}"
                        for k in sorted(v))
        return body if top and body else "{" + body + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_short(x) for x in v) + "]"
    raise TypeError(f"not a TOML value: {v!r}")  # pragma: no cover - refused before


def scalar_dir_value(v: Any) -> str:
    """The folder text of a scalar, as sweeps have always written it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return urllib.parse.quote(str(v), safe="")


def dir_value(path: str, v: Any) -> str:
    """The value part of the folder name `<path>=<value>`, percent-encoded (hive style):
    a scalar as before (`20`, `0.5`, `true`, `R-%3Ed`), a table in its `_short` form
    (`kind%3Dred%3Blimit%3D100`). When `<path>=<value>` would pass MAX_DIR_NAME bytes,
    the value is cut and `~` and 16 hex digits of the SHA-256 of its canonical JSON
    follow, so that the name stays unique and within the file system's limit."""
    enc = scalar_dir_value(v) if not isinstance(v, (dict, list, tuple, str)) else \
        urllib.parse.quote(v if isinstance(v, str) else _short(v, top=True), safe="")
    budget = MAX_DIR_NAME - len(path.encode()) - 1
    if len(enc) <= budget:
        return enc
    text = v if isinstance(v, str) else _short(v, top=True)
    digest = "~" + hashlib.sha256(canonical(v).encode()).hexdigest()[:16]
    lo, hi = 0, len(text)  # the longest prefix whose encoding fits beside the digest
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(urllib.parse.quote(text[:mid], safe="")) + len(digest) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return urllib.parse.quote(text[:lo], safe="") + digest


def value_label(v: Any) -> str:
    """A value for messages and progress lines: scalars as given, tables in `_short` form."""
    return _short(v) if isinstance(v, (dict, list, tuple)) else str(v)


def _hive_type(values: list[Any]) -> Any:
    import polars as pl

    if all(isinstance(v, bool) for v in values):
        return pl.Boolean
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        if all(-(2**63) <= v < 2**63 for v in values):
            return pl.Int64
        return pl.UInt64 if all(0 <= v < 2**64 for v in values) else pl.String
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return pl.Float64
    return pl.String


def axis_values(meta: dict[str, Any]) -> dict[str, list[Any]]:
    """Each folder level of a sweep and its values in order: a plain parameter's values,
    a linked group's labels."""
    linked = meta.get("linked", {})
    group_of = {p: g for g, lk in linked.items() for p in lk["paths"]}
    out: dict[str, list[Any]] = {}
    for p, vals in meta["params"].items():
        g = group_of.get(p)
        if g is None:
            out[p] = vals
        elif g not in out:
            out[g] = list(linked[g]["labels"])
    return out


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
    linked = meta.get("linked", {})
    axes = axis_values(meta)
    params = list(axes)
    # the seed is a u64 (seeds from 2^63 up do not fit Int64)
    schema = {p: (pl.String if p in linked else _hive_type(v)) for p, v in axes.items()} | {"seed": pl.UInt64}
    files = sorted(f for f in outp.glob(f"**/{table}.parquet")
                   if not any(part.startswith(".") for part in f.relative_to(outp).parts))
    if not files:
        empty = dict(schema)
        for lk in linked.values():
            empty |= {path: _hive_type(meta["params"][path]) for path in lk["paths"]}
        return pl.DataFrame(schema=empty)
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
    # folder text -> column value where they differ (tables, cut long strings)
    for p, vals in axes.items():
        if schema[p] == pl.String and p not in linked:
            back = {urllib.parse.unquote(dir_value(p, v)): column_value(v) for v in vals}
            back = {k: c for k, c in back.items() if k != c}
            if back:
                df = df.with_columns(pl.col(p).replace(back))
    # a linked group's paths: each its own typed column, from the point's label
    keys: list[str] = []
    order: list[str] = []
    for p in params:
        keys.append(p)
        if p not in linked:
            order.append(p)
            continue
        labels = linked[p]["labels"]
        for path in linked[p]["paths"]:
            vals = meta["params"][path]
            df = df.with_columns(pl.col(p).replace_strict(
                {lb: column_value(v) for lb, v in zip(labels, vals, strict=True)},
                return_dtype=_hive_type(vals)).alias(path))
            keys.append(path)
        rank = f"__rank_{p}"
        df = df.with_columns(pl.col(p).replace_strict({lb: i for i, lb in enumerate(labels)},
                                                      return_dtype=pl.Int64).alias(rank))
        order.append(rank)
    keys.append("seed")
    df = df.sort([*order, "seed"], maintain_order=True)
    return df.select([*keys, *(c for c in df.columns if c not in keys and not c.startswith("__rank_"))])


def load_sweep(out: str | Path) -> SweepData:
    """Every table of a sweep folder as polars DataFrames (parameters and seed as columns)."""
    outp = Path(out)
    meta = read_meta(outp)
    f = outp / "failures.jsonl"
    failures = [json.loads(ln) for ln in f.read_text().splitlines() if ln.strip()] if f.exists() else []
    t = {name: load_table(outp, name) for name in TABLES}
    linked = {g: list(lk["paths"]) for g, lk in meta.get("linked", {}).items()}
    return SweepData(params=list(axis_values(meta)), failures=failures, linked=linked, **t)
