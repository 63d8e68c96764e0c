"""Parameter sweeps: one scenario, a grid of parameter values, many seeds; every run an
independent task on Dask; results as one hive-partitioned Parquet dataset.

    superpacket.sweep("examples/incast.toml",
                      params={"topology.receiver_link.queue.limit": [20, 50]},
                      seeds=range(1, 11), out="sweeps/incast")
    data = superpacket.load_sweep("sweeps/incast")      # data.flows, data.links, data.summary

A parameter is a path into the scenario: dotted table keys and array indices
(`traffic[0].count`). A value is a TOML scalar or a whole table, which REPLACES the table
at the path (no merge with the fields there before):

    superpacket.sweep("examples/dumbbell.toml", params={"topology.bottleneck.queue": [
        {"kind": "red", "min_th": 5, "max_th": 15}, {"kind": "droptail", "limit": 100}]})
    # command line: --param 'topology.bottleneck.queue={kind="red", min_th=5, max_th=15},{kind="droptail", limit=100}'

A table's keys are sorted (at every level); its folder holds a short readable form
(`kind=red;max_th=15;min_th=5`, percent-encoded, cut and given a hash of the value when
long) and its loaded column is a String of its canonical JSON (sweep_load.py). Every
parameter point is validated by the Rust schema before any run starts (`ScenarioError`
naming the field -> `SweepError` naming the parameter).

Layout of OUT (each run is written atomically: into a sibling `.OUT.partial/` folder,
then renamed into place, so a run folder exists whole or not at all; a restarted sweep
skips the runs whose folder exists):

    OUT/sweep.json                          the base scenario, parameters and seeds
    OUT/failures.jsonl                      runs that failed (parameters, seed, error)
    OUT/<path>=<value>/.../seed=<n>/        one run: flows, links, queue_series,
                                            queue_counters, flow_series and summary as
                                            .parquet, summary.json, and the scenario.toml
                                            it ran (flow_series has rows only when the
                                            scenario sets `[output] sample_flows`)

Read a table with `polars.read_parquet(OUT/"**/flows.parquet", hive_partitioning=True)`
(one table per glob: the tables have different columns) or with `load_sweep(OUT)`. A
folder name may hold brackets (`traffic[0].count=10`): read one file of it with
`glob=False`.
"""

from __future__ import annotations

import copy
import gc
import io
import itertools
import json
import math
import os
import re
import shutil
import socket
import sys
import time
import traceback
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from superpacket import _toml, limits
from superpacket.seeds import SeedError
from superpacket.seeds import parse_seeds as _parse_seeds
from superpacket.sweep_load import (  # TABLES .. read_meta re-exported
    TABLES,
    SweepData,
    canonical,
    dir_value,
    load_sweep,
    load_table,
    read_meta,
    value_label,
)

RunFiles = dict[str, bytes]
Runner = Callable[[str, int], RunFiles]

_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[\d+\])*(\.[A-Za-z_][A-Za-z0-9_]*(\[\d+\])*)*$")
_TOKEN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


class SweepError(ValueError):
    """Bad sweep input (a parameter path or value, seeds, an output folder), found before
    any run starts. The message is one line naming the parameter."""


# ---- parameters ------------------------------------------------------------------------

def parse_path(path: str) -> list[str | int]:
    """`traffic[0].tcp.init_cwnd` -> ["traffic", 0, "tcp", "init_cwnd"]."""
    if not _PATH.match(path):
        raise SweepError(f"--param {path}: not a field path (use dotted names and [index], "
                         f"e.g. topology.receiver_link.queue.limit or traffic[0].count)")
    return [m.group(1) if m.group(1) is not None else int(m.group(2)) for m in _TOKEN.finditer(path)]


def _split_commas(text: str) -> list[str]:
    """Splits on commas outside quotes ("..." with backslash escapes, '...' literal),
    braces and brackets, so that `{kind="red", limit=100},{kind="droptail"}` is two values."""
    parts, cur, quote, depth, escaped = [], "", "", 0, False
    for ch in text:
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += ch
    parts.append(cur)
    return [p.strip() for p in parts]


_NON_FINITE = {"nan", "+nan", "-nan", "inf", "+inf", "-inf"}


def parse_value(text: str, path: str = "") -> Any:
    """A TOML scalar (20, 0.5, true, "10Gbps") or inline table (`{kind = "red", limit = 100}`),
    by the parser `run` uses; a bare word that is not TOML is a string (nan and inf come
    back as floats, for `_check_value` to refuse). Text that opens a table and is not a
    valid TOML inline table (or holds NaN or an infinity) raises SweepError naming `path`."""
    from superpacket._core import ScenarioError

    try:  # undecodable bytes on the command line arrive as lone surrogates
        _toml.check_values(text, path)
    except ScenarioError as e:
        raise SweepError(f"--param {_one_line(e)}") from None
    if text.strip() in _NON_FINITE:
        return float(text)
    if text.lstrip().startswith("{"):
        try:
            return _toml.loads(f"v = {text}")["v"]
        except ScenarioError as e:
            msg = _one_line(e)
            # the parser's position and field are those of `v = TEXT`: give them in TEXT
            msg = re.sub(r"at line 1, column (\d+)", lambda m: f"at column {max(1, int(m.group(1)) - 4)}", msg)
            msg = re.sub(r"^v(?=[.\[:])", lambda _: path, msg)  # v.min_th -> PATH.min_th
            raise SweepError(f"--param {path}={_cut(' '.join(text.split()))}: {msg}") from None  # one line
    if "\n" in text or "\r" in text:
        return text
    try:
        return _toml.loads(f"v = {text}")["v"]
    except ScenarioError:
        if _NUMBER.fullmatch(text.strip()):  # a number TOML cannot hold: not a string "1e400"
            raise SweepError(f"--param {path}={_cut(text.strip())}: a number out of range (integers are "
                             "64-bit, floats finite)") from None
        return text


_NUMBER = re.compile(r"[+-]?(\d[\d_]*)(\.\d[\d_]*)?([eE][+-]?\d+)?")


def _split_param(arg: str) -> tuple[str, list[str]]:
    """`path=v1,v2,...` -> (path, ["v1", "v2", ...]): the texts of the values, not parsed."""
    path, eq, values = arg.partition("=")
    path = path.strip()
    if not eq or not values.strip():
        raise SweepError(f"--param {arg}: expected PATH=VALUE[,VALUE...]")
    parse_path(path)
    texts = _split_commas(values)
    if not all(texts):
        raise SweepError(f"--param {arg}: empty value")
    return path, texts


def parse_param(arg: str) -> tuple[str, list[Any]]:
    """`path=v1,v2,...` -> (path, [values]); a value may be an inline table `{k = v, ...}`."""
    path, texts = _split_param(arg)
    return path, [parse_value(v, path) for v in texts]


def parse_seeds(text: str, limit: int = limits.MAX_RUNS, what: str = "sweep") -> list[int]:
    """`sweep --seeds` text: `10` -> 1..10; `1..10` (inclusive); `1,4,9`; `3..5,9`. At most
    `limit` seeds, each in 0..2^64-1 written in ASCII digits, counted before any list is
    made: superpacket.seeds.parse_seeds, the parser of every seed."""
    return normalize_seeds(text, "--seeds", limit, what)


def _check_value(path: str, v: Any) -> Any:
    """A scalar as it is; a table (a dict) checked as a scenario's values are (NaN, an
    infinity, None, a non-string key refused by name) and copied."""
    from superpacket._core import ScenarioError

    if isinstance(v, float) and not math.isfinite(v):
        raise SweepError(f"--param {path}={v!r}: must be a finite number")
    if isinstance(v, (bool, int, float, str)):
        try:  # a 64-bit integer, a string without lone surrogates (its folder name is UTF-8)
            _toml.check_values(v, path)
        except ScenarioError as e:
            raise SweepError(f"--param {_one_line(e)}") from None
        return v
    if isinstance(v, Mapping):
        v = dict(v)
        try:
            _toml.check_values(v, path)
        except ScenarioError as e:
            raise SweepError(f"--param {path}: {_one_line(e)}") from None
        # keys sorted at every level: the same table given in another order is the same
        # value, with the same folder and the same scenario.toml bytes
        return json.loads(canonical(v))
    raise SweepError(f"--param {path}={v!r}: a parameter value must be a TOML scalar (string, integer, "
                     f"float or boolean) or a table (an inline table {{...}}, a dict from Python)")


def _value_count(vals: Any) -> int:
    """How many values a parameter lists, without making them: len() of a list, tuple or
    range (a range too long for len() counts as more than any bound)."""
    try:
        return len(vals)
    except OverflowError:  # range(10**30)
        return sys.maxsize


def normalize_params(params: Mapping[str, Any] | Iterable[str] | None,
                     max_points: int = limits.MAX_RUNS,
                     linked: Mapping[str, Iterable[str]] | None = None) -> dict[str, list[Any]]:
    """A dict path -> values (a list, a range, one value or table, or a "v1,v2" string
    parsed like the command line), or an iterable of "path=v1,v2" strings. Duplicates
    (by canonical JSON: 1, 1.0 and true differ, key order does not) are dropped, except
    in a path of a `linked` group (name -> paths, `parse_links`), whose values pair up
    by position with the other paths of its group.

    The grid is bounded before any value is parsed, checked or copied: the product of the
    lists' lengths as given (duplicates counted; a linked group counted once, by its
    longest list) may not pass `max_points` (a sweep's runs over its seeds), so
    range(10**8) is refused at once, not after 10^8 values."""
    if params is None:
        return {}
    group_of = {p: g for g, paths in (linked or {}).items() for p in paths}
    raw: list[tuple[str, Any, bool]] = []  # (path, values, values are texts to parse)
    if isinstance(params, Mapping):
        for path, vals in params.items():
            if not isinstance(path, str):
                raise SweepError(f"--param {path!r:.60}: a parameter path is a string")
            parse_path(path)
            if isinstance(vals, str):
                if vals.count(",") >= max_points:  # an upper bound of the values, before splitting
                    raise SweepError(f"--param {path}: more than {max_points} values ({_too_many()})")
                raw.append((path, _split_commas(vals), True))
            elif isinstance(vals, (list, tuple, range)):
                raw.append((path, vals, False))
            else:
                raw.append((path, [vals], False))  # one value, a table (dict) too
    else:
        raw = [(*_split_param(a), True) for a in params]
    points = 1
    group_len: dict[str, int] = {}
    for path, vals, _ in raw:
        if path == "seed":
            raise SweepError("--param seed: sweep seeds with --seeds (seeds=...)")
        n = _value_count(vals)
        if (g := group_of.get(path)) is not None:  # a group multiplies the grid once
            if n <= group_len.get(g, 0):
                continue
            points //= max(group_len.get(g, 1), 1)
            group_len[g] = n
        points *= max(n, 1)
        if points > max_points:
            given = f"{n} values" if n < sys.maxsize else "too many values"
            raise SweepError(f"--param {path}: {given}: more than {max_points} parameter points in the grid "
                             f"({_too_many()})")
    out: dict[str, list[Any]] = {}
    for path, vals, texts in raw:
        uniq: list[Any] = []
        seen: set[str] = set()
        for v in vals:
            v = _check_value(path, parse_value(v, path) if texts else v)
            if path in group_of:  # paired by position with the group's other paths
                uniq.append(v)
            elif (key := canonical(v)) not in seen:  # 1, 1.0 and true are distinct values
                seen.add(key)
                uniq.append(v)
        if not uniq:
            raise SweepError(f"--param {path}: no values")
        if path in out:
            raise SweepError(f"--param {path}: given twice")
        out[path] = uniq
    return out


_GROUP_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
#: Characters of a point label at most (its folder name is `<group>=<label>`).
MAX_LABEL = 64


@dataclass(frozen=True)
class Linked:
    """Parameters that vary together: point i sets every path to its i-th value; the
    group's folder and column hold `labels[i]`."""

    paths: tuple[str, ...]
    labels: tuple[str, ...]


def _named_lists(spec: Mapping[str, Any] | Iterable[str] | None, flag: str) -> dict[str, list[str]]:
    """`{"name": ["a", "b"]}` or command-line texts `name=a,b` -> {name: [a, b]}."""
    if spec is None:
        return {}
    out: dict[str, list[str]] = {}
    items: list[tuple[Any, Any]]
    if isinstance(spec, Mapping):
        items = list(spec.items())
    else:
        items = []
        for arg in spec:
            if not isinstance(arg, str):
                raise SweepError(f"{flag} {arg!r:.60}: expected NAME=A,B,...")
            name, eq, rest = arg.partition("=")
            if not eq or not rest.strip():
                raise SweepError(f"{flag} {_cut(arg)}: expected NAME=A,B,...")
            items.append((name.strip(), _split_commas(rest)))
    for name, vals in items:
        if not isinstance(name, str) or not _GROUP_NAME.match(name):
            raise SweepError(f"{flag} {_cut(str(name))}: a group name is a letter or _ then letters, digits, _ "
                             "or - (at most 64), e.g. buffer")
        if isinstance(vals, str) or not isinstance(vals, (list, tuple)):
            raise SweepError(f"{flag} {name}: give a list of strings")
        if not all(isinstance(v, str) for v in vals):
            raise SweepError(f"{flag} {name}: every entry must be a string")
        if name in out:
            raise SweepError(f"{flag} {name}: given twice")
        out[name] = [v.strip() for v in vals]
    return out


def parse_links(links: Mapping[str, Any] | Iterable[str] | None) -> dict[str, list[str]]:
    """Linked groups as given (`{"buffer": ["a.b", "c.d"]}` or `buffer=a.b,c.d`): name ->
    paths, each path checked; a path may belong to one group only."""
    out = _named_lists(links, "--link")
    owner: dict[str, str] = {}
    for name, paths in out.items():
        if not paths or not all(paths):
            raise SweepError(f"--link {name}: list the --param paths that vary together")
        for p in paths:
            parse_path(p)
            if p in owner:
                raise SweepError(f"--link {name}: {p} is already linked in {owner[p]}")
            owner[p] = name
    return out


def _default_label(paths: tuple[str, ...], values: tuple[Any, ...]) -> str:
    """`limit=100;min_th=25`: each path's last field and its value."""
    return ";".join(f"{p.rsplit('.', 1)[-1]}={value_label(v)}" for p, v in zip(paths, values, strict=True))


def normalize_links(links: Mapping[str, Iterable[str]], labels: Mapping[str, Any] | Iterable[str] | None,
                    params: dict[str, list[Any]]) -> dict[str, Linked]:
    """The linked groups (`parse_links`' result) against the parameters: every path a
    --param, the same number of values in each, no point twice; labels (one per point,
    unique, at most MAX_LABEL characters; by default `field=value;...`)."""
    lab = _named_lists(labels, "--label")
    for name in lab:
        if name not in links:
            raise SweepError(f"--label {name}: not a linked group (name one with --link {name}=PATH,...)")
    groups: dict[str, Linked] = {}
    for name, paths in links.items():
        if name in params or name == "seed":
            raise SweepError(f"--link {name}: the group's name is a parameter's path; give it a name of its own")
        for p in paths:
            if p not in params:
                raise SweepError(f"--link {name}: {p} is not a --param of this sweep")
        counts = {p: len(params[p]) for p in paths}
        if len(set(counts.values())) > 1:
            listed = ", ".join(f"{p} {n}" for p, n in counts.items())
            raise SweepError(f"--link {name}: linked parameters take one value each per point; they have "
                             f"{listed} values")
        points = list(zip(*(params[p] for p in paths), strict=True))
        seen: dict[str, int] = {}
        for i, pt in enumerate(points):
            key = canonical(list(pt))
            if key in seen:
                raise SweepError(f"--link {name}: points {seen[key] + 1} and {i + 1} set the same values")
            seen[key] = i
        tp = tuple(paths)
        if name in lab:
            given = lab[name]
            if len(given) != len(points):
                raise SweepError(f"--label {name}: {len(given)} labels for {len(points)} points")
            for lb in given:
                if not lb or len(lb) > MAX_LABEL or any(ord(c) < 32 for c in lb):
                    raise SweepError(f"--label {name}: {_cut(lb)!r}: a label is 1 to {MAX_LABEL} printable "
                                     "characters")
                _check_value(f"--label {name}", lb)
            if len(set(given)) != len(given):
                raise SweepError(f"--label {name}: labels must differ from each other")
            names = given
        else:
            names = [_default_label(tp, pt) for pt in points]
            if len(set(names)) != len(names) or any(len(n) > MAX_LABEL for n in names):
                names = [str(i + 1) for i in range(len(points))]  # the point's number
        groups[name] = Linked(tp, tuple(names))
    return groups


def _too_many() -> str:
    return f"at most {limits.MAX_RUNS} runs in one sweep: parameter points x seeds"


def normalize_seeds(seeds: int | str | Iterable[int], name: str = "seeds", limit: int = limits.MAX_RUNS,
                    what: str = "sweep") -> list[int]:
    """A sweep's seeds, sorted (a run's folder is named by its seed; their order is not
    kept): N (1..N), text (`1..10`, `3..5,9`) or a list of integers without repeats, as
    superpacket.seeds.parse_seeds takes them; a refusal is a SweepError."""
    try:
        return sorted(_parse_seeds(seeds, name, limit, what))
    except SeedError as e:
        raise SweepError(str(e)) from None


# ---- parameter points ------------------------------------------------------------------

def load_base(scenario: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    """The base scenario as a dict: from a TOML file, a TOML string or a dict."""
    if isinstance(scenario, Mapping):
        return copy.deepcopy(dict(scenario))
    if isinstance(scenario, Path) or "\n" not in scenario:
        text = _toml.read_scenario_file(scenario)
    else:
        text = str(scenario)
    return _toml.loads(text)


def set_path(d: dict[str, Any], path: str, value: Any) -> None:
    """Sets d[path] = value, creating missing tables (the schema decides if they may
    exist); an array index must address an existing element. A table value replaces the
    table at `path` whole (a copy of it; no merge with the fields there before)."""
    tokens = parse_path(path)
    cur: Any = d
    for i, tok in enumerate(tokens):
        last = i == len(tokens) - 1
        where = _fmt_path(tokens[: i + 1])
        if isinstance(tok, int):
            if not isinstance(cur, list):
                raise SweepError(f"--param {path}: {_fmt_path(tokens[:i])} is not an array")
            if tok >= len(cur):
                raise SweepError(f"--param {path}: {where} is out of range "
                                 f"(the scenario has {len(cur)} element(s))")
        elif not isinstance(cur, dict):
            raise SweepError(f"--param {path}: {_fmt_path(tokens[:i])} is not a table")
        if last:
            cur[tok] = copy.deepcopy(value)
        else:
            if isinstance(tok, str) and tok not in cur:
                cur[tok] = {}
            cur = cur[tok]


def _fmt_path(tokens: list[str | int]) -> str:
    s = ""
    for t in tokens:
        s += f"[{t}]" if isinstance(t, int) else (f".{t}" if s else t)
    return s


@dataclass(frozen=True)
class Point:
    """One combination of parameter values and its scenario."""

    values: tuple[tuple[str, Any], ...]
    #: The base scenario, shared by every point: a point's scenario is made when it runs,
    #: so a grid of a million points holds a million small tuples, not a million scenarios.
    base: dict[str, Any] = field(compare=False, hash=False, repr=False)
    #: A linked group's (name, label) for each group, in the folder's order among the
    #: parameters (`axes`); empty in a grid of plain parameters.
    labels: tuple[tuple[str, str], ...] = ()
    #: The folder's keys in order: a plain parameter's path or a group's name.
    axes: tuple[str, ...] = ()

    @property
    def scenario(self) -> dict[str, Any]:
        """The base scenario with this point's values set."""
        sc = copy.deepcopy(self.base)
        for p, v in self.values:
            set_path(sc, p, v)
        return sc

    def _parts(self) -> list[tuple[str, str, str]]:
        """(key, folder text, label) per folder level: a plain parameter's path and value,
        or a linked group's name and label."""
        vals, labs = dict(self.values), dict(self.labels)
        keys = self.axes or tuple(p for p, _ in self.values)
        return [(k, urllib.parse.quote(labs[k], safe=""), labs[k]) if k in labs
                else (k, dir_value(k, vals[k]), value_label(vals[k])) for k in keys]

    @property
    def dir(self) -> str:
        """Hive-style relative folder, e.g. `topology.receiver_link.queue.limit=20`,
        `topology.bottleneck.queue=kind%3Dred%3Blimit%3D100%3B...` (`dir_value`) or a
        linked group's `buffer=small`."""
        return "/".join(f"{k}={d}" for k, d, _ in self._parts())

    def label(self) -> str:
        return " ".join(f"{k}={lb}" for k, _, lb in self._parts()) or "(base scenario)"

    def run_toml(self, seed: int) -> str:
        """The exact scenario file of this point's run with `seed`."""
        return _toml.dumps({**self.scenario, "seed": seed})


def axes_of(params: Mapping[str, Any], groups: Mapping[str, Linked]) -> list[str]:
    """The folder levels in order: each plain parameter's path, each linked group's name
    where its first path stands among the parameters."""
    group_of = {p: g for g, lk in groups.items() for p in lk.paths}
    axes: list[str] = []
    for p in params:
        k = group_of.get(p, p)
        if k not in axes:
            axes.append(k)
    return axes


def build_points(base: dict[str, Any], params: dict[str, list[Any]],
                 groups: Mapping[str, Linked] | None = None) -> list[Point]:
    """Every combination of parameter values (a linked group's points counted as one
    parameter's values), each validated by the Rust schema."""
    from superpacket import _core

    groups = dict(groups or {})
    try:
        _core.validate(_toml.scenario_json(base), "json")
    except _core.ScenarioError as e:
        raise SweepError(f"scenario: {_one_line(e)}") from None
    grouped = {p for lk in groups.values() for p in lk.paths}
    check_dir_names({p: v for p, v in params.items() if p not in grouped})
    axes = axes_of(params, groups)
    # each level's choices: [(values set, label or None)]
    choices: list[list[tuple[tuple[tuple[str, Any], ...], str | None]]] = []
    for k in axes:
        if k in groups:
            lk = groups[k]
            choices.append([(tuple(zip(lk.paths, (params[p][i] for p in lk.paths), strict=True)), lk.labels[i])
                            for i in range(len(lk.labels))])
        else:
            choices.append([(((k, v),), None) for v in params[k]])
    points = []
    base = copy.deepcopy(base)  # the points' shared base: the caller's dict may change later
    for combo in itertools.product(*choices):
        values = tuple(pv for vals, _ in combo for pv in vals)
        labels = tuple((k, lb) for k, (_, lb) in zip(axes, combo, strict=True) if lb is not None)
        sc = copy.deepcopy(base)
        for p, v in values:
            set_path(sc, p, v)
        try:
            _core.validate(_toml.scenario_json(sc), "json")
        except _core.ScenarioError as e:
            # name the parameter(s) the error points into, else the whole point
            bad = [f"{p}={_show(v)}" for p, v in values if _touches(p, str(e))]
            who = ", ".join(bad) or " ".join(f"{p}={_show(v)}" for p, v in values)
            raise SweepError(f"--param {who}: {_one_line(e)}") from None
        try:
            text = _toml.dumps(sc)
        except (TypeError, ValueError) as e:
            raise SweepError(f"scenario: cannot be written as TOML: {e}") from None
        if _toml.loads(text) != sc:  # pragma: no cover - a bug in _toml
            raise SweepError(f"point {values}: the scenario does not survive TOML round-trip")
        points.append(Point(values, base, labels, tuple(axes) if groups else ()))
        del sc
    return points


def _show(v: Any) -> str:
    """A value in an error message: scalars as before (repr: '10Gbs'), tables in short form;
    at most 80 characters (a 20,000-character value is not echoed whole)."""
    return _cut(value_label(v) if isinstance(v, dict) else repr(v))


def _cut(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


def check_dir_names(params: dict[str, list[Any]]) -> None:
    """Each value of a parameter must get a folder name of its own, within the file
    system's limit (two values that differ only in, say, a string "5" against a number
    5 inside a table do: `_short` quotes such strings)."""
    for p, vals in params.items():
        names: dict[str, Any] = {}
        for v in vals:
            name = f"{p}={dir_value(p, v)}"
            if len(name.encode()) > 255:
                raise SweepError(f"--param {p}: the path is too long for a folder name "
                                 f"({len(name.encode())} bytes with its value; at most 255)")
            if name in names:
                raise SweepError(f"--param {p}: values {_show(names[name])} and {_show(v)} "
                                 f"would share the folder {name}")
            names[name] = v


def _touches(path: str, msg: str) -> bool:
    """Whether a schema error message (which starts with the field path) concerns `path`."""
    field_path = msg.split(":", 1)[0].strip()
    return field_path.startswith(path) or path.startswith(field_path)


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())


# ---- running -----------------------------------------------------------------------------

def _summary_frame(summary: dict[str, Any]) -> Any:
    """One row with stable column types: None -> Float64 null, nested values -> JSON; the
    seed UInt64 (the simulator's seed is a u64: 2^63 and above do not fit Int64), as the
    loader's `seed` column (sweep_load.load_table)."""
    import polars as pl

    cols: dict[str, pl.Series] = {}
    for k in sorted(summary):
        v = summary[k]
        if k == "seed" and isinstance(v, int) and not isinstance(v, bool):
            cols[k] = pl.Series(k, [v], dtype=pl.UInt64)
        elif v is None:
            cols[k] = pl.Series(k, [None], dtype=pl.Float64)
        elif isinstance(v, bool):
            cols[k] = pl.Series(k, [v], dtype=pl.Boolean)
        elif isinstance(v, int):
            cols[k] = pl.Series(k, [v], dtype=pl.Int64)
        elif isinstance(v, float):
            cols[k] = pl.Series(k, [v], dtype=pl.Float64)
        elif isinstance(v, str):
            cols[k] = pl.Series(k, [v], dtype=pl.String)
        else:
            cols[k] = pl.Series(k, [json.dumps(v, sort_keys=True)], dtype=pl.String)
    return pl.DataFrame(list(cols.values()))


def run_to_files(toml_text: str, seed: int) -> RunFiles:
    """Runs one scenario and returns its files (Parquet tables and summary.json) as bytes,
    so that a worker on another machine needs no access to OUT."""
    from superpacket import api

    res = api.run(toml_text, seed=seed, progress=False)
    files: RunFiles = {}
    # flow_series: rows only when the scenario sets `[output] sample_flows`, else an empty
    # table with the same columns, so that every run folder holds the same files
    frames = {"flows": res.flows, "links": res.links, "queue_series": res.queue_series,
              "queue_counters": res.queue_counters, "flow_series": res.flow_series,
              "summary": _summary_frame(res.summary)}
    for name, df in frames.items():
        buf = io.BytesIO()
        df.write_parquet(buf)
        files[f"{name}.parquet"] = buf.getvalue()
    # summary.json as a run's (readable TCP configurations, rates); summary.parquet keeps res.summary
    files["summary.json"] = (json.dumps(res.summary_json(), indent=2, sort_keys=True) + "\n").encode()
    return files


_commits = itertools.count()


def commit_run(out: Path, rel: str, files: RunFiles, scenario_text: str) -> None:
    """Writes one run's files into OUT/rel atomically: into `.OUT.partial/`, then one
    rename, so the folder exists whole or not at all."""
    tmp = out.parent / f".{out.name}.partial" / f"{socket.gethostname()}-{os.getpid()}-{next(_commits)}"
    tmp.mkdir(parents=True)
    for name, data in files.items():
        (tmp / name).write_bytes(data)
    (tmp / "scenario.toml").write_text(scenario_text)
    final = out / rel
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(tmp, final)
    except OSError:
        if not final.is_dir():
            raise
        shutil.rmtree(tmp)  # written meanwhile by another sweep: keep theirs


RunResult = RunFiles | str | None


def run_chunk(items: list[tuple[str, int, str]], runner: Runner = run_to_files,
              out: str | None = None) -> list[RunResult]:
    """A Dask task: several runs (scenario text, seed, run folder). Each result is the
    error's traceback if the run failed; else, with `out` (a worker that shares OUT's
    file system), None once the worker has committed the run itself, or the files."""
    results: list[RunResult] = []
    for text, seed, rel in items:
        try:
            files = runner(text, seed)
        except Exception:  # noqa: BLE001 - a failed run is reported, the others go on
            results.append(traceback.format_exc())
            gc.collect()  # free the failed run's simulator on this thread (it is not Send)
            continue
        if out is None:
            results.append(files)
        else:
            commit_run(Path(out), rel, files, text)
            results.append(None)
    return results


@dataclass
class SweepOutcome:
    """What a sweep did: `runs` in all, `skipped` already on disk, `ran` now, `failed`."""

    out: Path
    runs: int
    skipped: int
    ran: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)
    wall_s: float = 0.0
    cluster_startup_s: float | None = None
    ran_here_during_startup: int = 0
    start_method: str | None = None  # how the local workers started ("fork", "forkserver")
    workers: dict[str, dict[str, float]] = field(default_factory=dict)  # address -> worker_stats()
    worker_memory_limits: list[int] = field(default_factory=list)  # bytes, local cluster only


class _Writer:
    """Commits runs into OUT atomically and records failures."""

    def __init__(self, out: Path, outcome: SweepOutcome, bar: Any) -> None:
        self.out = out
        self.outcome = outcome
        self.bar = bar

    def commit(self, point: Point, seed: int, text: str, result: RunResult) -> None:
        if isinstance(result, str):
            self.fail(point, seed, result)
        else:
            if result is not None:  # else the worker has written it
                commit_run(self.out, _rel(point, seed), result, text)
            self.outcome.ran += 1
        self.bar.update(1, f"{point.label()} seed={seed}")

    def fail(self, point: Point, seed: int, tb: str) -> None:
        err = tb.strip().splitlines()[-1] if tb.strip() else "unknown error"
        rec = {"params": dict(point.values), **({"labels": dict(point.labels)} if point.labels else {}),
               "seed": seed, "dir": _rel(point, seed),
               "error": err, "traceback": tb}
        self.outcome.failed.append(rec)
        with open(self.out / "failures.jsonl", "a") as f:
            f.write(json.dumps(rec, sort_keys=True) + "\n")
        self.bar.write(f"superpacket: run failed: {point.label()} seed={seed}: {err}")


def _rel(point: Point, seed: int) -> str:
    return f"{point.dir}/seed={seed}".lstrip("/")


def _meta(out: Path, base: dict[str, Any], params: dict[str, list[Any]], seeds: list[int],
          groups: Mapping[str, Linked] | None = None) -> dict[str, Any]:
    """sweep.json: new, or merged with the one in OUT (same scenario, parameter names and
    linked groups: the sweep resumes, or grows by new values of plain parameters and new
    seeds; anything else is refused). `linked` (group -> paths and labels) is written
    only when the sweep has linked groups."""
    linked = {g: {"paths": list(lk.paths), "labels": list(lk.labels)} for g, lk in (groups or {}).items()}
    meta: dict[str, Any] = {"format": 1, "scenario": base, "params": params, "seeds": seeds}
    if linked:
        meta["linked"] = linked
    f = out / "sweep.json"
    if not f.exists():
        return meta
    old = json.loads(f.read_text())
    if old.get("scenario") != json.loads(json.dumps(base)):
        raise SweepError(f"--out {out}: holds a sweep of another scenario; choose another folder")
    if list(old.get("params", {})) != list(params):
        raise SweepError(f"--out {out}: holds a sweep over parameters {list(old.get('params', {}))}, "
                         f"not {list(params)}; choose another folder")
    grouped = {p for lk in linked.values() for p in lk["paths"]}
    if old.get("linked", {}) != linked or any(
            canonical(old["params"][p]) != canonical(params[p]) for p in grouped):
        raise SweepError(f"--out {out}: holds a sweep with other linked groups or their values; "
                         "choose another folder")
    merged = {p: list(old["params"][p]) for p in params}
    for p, vals in params.items():
        if p in grouped:
            continue
        seen = {canonical(u) for u in merged[p]}
        merged[p] += [v for v in vals if canonical(v) not in seen]
    check_dir_names({p: v for p, v in merged.items() if p not in grouped})
    meta = {"format": 1, "scenario": base, "params": merged, "seeds": sorted(set(old["seeds"]) | set(seeds))}
    if linked:
        meta["linked"] = linked
    return meta


def _chunk_size(todo: int, workers: int) -> int:
    """Runs per task: about four tasks per worker, so that Dask's cost per task (a few ms
    on the client and on the worker, as much as a short run) is paid rarely while the
    load stays balanced; at most 32, so that a task's results stay small."""
    return max(1, min(32, math.ceil(todo / (4 * workers))))


def sweep(
    scenario: str | Path | Mapping[str, Any],
    params: Mapping[str, Any] | Iterable[str] | None = None,
    seeds: int | str | Iterable[int] = 10,
    out: str | Path = "sweep",
    scheduler: str | None = None,
    *,
    workers: int | None = None,
    client: Any = None,
    progress: bool | None = None,
    chunk: int | None = None,
    shared_fs: bool | None = None,
    links: Mapping[str, Any] | Iterable[str] | None = None,
    labels: Mapping[str, Any] | Iterable[str] | None = None,
    _runner: Runner = run_to_files,
) -> SweepOutcome:
    """Runs `scenario` for every combination of `params` and every seed, into `out`.

    `links` makes parameters vary together instead of across each other: `{"buffer":
    ["topology.bottleneck.queue.limit", "topology.bottleneck.queue.max_th"]}` pairs the
    i-th value of each path into the group's i-th point; `labels` names those points
    (`{"buffer": ["small", "large"]}`; by default `limit=100;max_th=75`), and the folders
    and the loaded tables' `buffer` column hold the labels beside each path's own typed
    column.

    `scheduler`: a Dask scheduler address (else a local cluster of `workers` processes,
    default one per core); `client`: an existing `distributed.Client` to use instead;
    `workers=0`: run one after another in this process, without Dask. `shared_fs`: the
    workers see `out` and write their runs themselves (default: only the workers of the
    local cluster made here; else the files travel back to this process). Runs already in
    `out` are skipped. `params` maps a path to its values: a list, a range, one value, a
    table (dict) or a list of tables (each replaces the table at the path), or a string
    parsed as the command line's `--param` values. Raises SweepError (naming the
    parameter) before any run when a parameter point is invalid; a run that fails is
    recorded in out/failures.jsonl.
    """
    t0 = time.perf_counter()
    if chunk is not None and chunk < 1:
        raise SweepError(f"--chunk {chunk}: must be >= 1")
    if bad := limits.workers(workers):
        raise SweepError(bad)
    # an option that would have no effect is refused, not silently ignored
    if client is not None and scheduler is not None:
        raise SweepError("--scheduler: give a scheduler address or a client, not both")
    if workers is not None and (scheduler is not None or client is not None):
        raise SweepError(f"--workers {workers}: applies to a local cluster; with "
                         f"{'--scheduler' if scheduler is not None else 'a client'} the cluster's own workers run")
    if workers == 0 and (chunk is not None or shared_fs is not None):
        raise SweepError(f"--{'chunk' if chunk is not None else 'shared_fs'}: applies to runs on Dask; "
                         "--workers 0 runs them one after another in this process")
    base = load_base(scenario)
    seed_list = normalize_seeds(seeds)
    link_paths = parse_links(links)
    # the grid bounded by the runs left for each seed before any value is expanded
    pv = normalize_params(params, max_points=max(1, limits.MAX_RUNS // len(seed_list)), linked=link_paths)
    groups = normalize_links(link_paths, labels, pv)
    grouped = {p for lk in groups.values() for p in lk.paths}
    n_points = math.prod(len(v) for p, v in pv.items() if p not in grouped) * math.prod(
        len(lk.labels) for lk in groups.values())
    n_runs = n_points * len(seed_list)
    if n_runs > limits.MAX_RUNS:
        raise SweepError(f"{n_runs} runs ({n_points} parameter points x {len(seed_list)} seeds): "
                         f"at most {limits.MAX_RUNS} in one sweep")
    points = build_points(base, pv, groups)
    outp = Path(out)
    if outp.exists() and not outp.is_dir():
        raise SweepError(f"--out {outp}: not a folder")
    meta = _meta(outp, base, pv, seed_list, groups)
    outp.mkdir(parents=True, exist_ok=True)
    (outp / "sweep.json").write_text(json.dumps(meta, indent=2) + "\n")
    partial = outp.parent / f".{outp.name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    (outp / "failures.jsonl").unlink(missing_ok=True)

    runs = [(p, s) for p in points for s in seed_list]
    todo = [(p, s) for p, s in runs if not (outp / p.dir / f"seed={s}").is_dir()]
    outcome = SweepOutcome(out=outp, runs=len(runs), skipped=len(runs) - len(todo))
    # decided before the progress bar starts its monitor thread
    method = None
    if todo and client is None and scheduler is None and workers != 0:
        from superpacket.forking import start_method

        method = start_method()
    outcome.start_method = method
    from superpacket.progress import Progress

    try:
        with Progress(len(runs), "sweep", initial=outcome.skipped, progress=progress, smoothing=0.1) as bar:
            w = _Writer(outp, outcome, bar)
            if todo and client is None and scheduler is None and workers == 0:
                for p, s in todo:
                    text = p.run_toml(s)
                    w.commit(p, s, text, run_chunk([(text, s, _rel(p, s))], _runner)[0])
            elif todo and client is not None:
                _run_dask(client, todo, w, chunk, _runner, str(outp.resolve()) if shared_fs else None)
            elif todo:
                own = shared_fs if shared_fs is not None else scheduler is None
                # workers of our own local cluster write their runs themselves
                _run_own_cluster(scheduler, workers, todo, w, chunk, _runner,
                                 str(outp.resolve()) if own else None, outcome, method)
    finally:  # also on Ctrl-C: finished runs are in place, half-written ones go
        shutil.rmtree(partial, ignore_errors=True)
    outcome.wall_s = time.perf_counter() - t0
    return outcome


def _run_own_cluster(scheduler: str | None, workers: int | None, todo: list[tuple[Point, int]], w: _Writer,
                     chunk: int | None, runner: Runner, out: str | None, outcome: SweepOutcome,
                     method: str | None) -> None:
    """Connects to `scheduler`, or starts a local cluster of `method` workers. Forked
    workers are up in a fraction of a second, and this process must not start polars'
    thread pools until they are, so it waits; workers from a forkserver take most of a
    second, and meanwhile this process runs the first runs itself."""
    from concurrent.futures import ThreadPoolExecutor

    from superpacket.cluster import open_client

    t1 = time.perf_counter()
    interrupted = False
    if method == "fork":
        client, close = open_client(scheduler, workers, method=method)
        try:
            outcome.cluster_startup_s = time.perf_counter() - t1
            _run_dask(client, todo, w, chunk, runner, out)
            from superpacket.cluster import worker_memory_limits, worker_stats

            outcome.workers = client.run(worker_stats)
            outcome.worker_memory_limits = worker_memory_limits(client)
        except KeyboardInterrupt:
            interrupted = True
            raise
        finally:
            close(now=interrupted)  # on Ctrl-C at once: runs finished so far are in place
        return
    with ThreadPoolExecutor(1, thread_name_prefix="superpacket-cluster") as ex:
        starting = ex.submit(open_client, scheduler, workers, method=method)
        try:
            i = 0
            while scheduler is None and not starting.done() and i < len(todo) - 1:
                p, s = todo[i]
                text = p.run_toml(s)
                w.commit(p, s, text, run_chunk([(text, s, _rel(p, s))], runner)[0])
                i += 1
            client, _ = starting.result()
            outcome.cluster_startup_s = time.perf_counter() - t1
            outcome.ran_here_during_startup = i
            _run_dask(client, todo[i:], w, chunk, runner, out)
            if scheduler is None:
                from superpacket.cluster import worker_memory_limits, worker_stats

                outcome.workers = client.run(worker_stats)
                outcome.worker_memory_limits = worker_memory_limits(client)
        except KeyboardInterrupt:
            interrupted = True
            raise
        finally:  # also on Ctrl-C while the cluster starts: wait for it, then close it
            if starting.exception() is None:
                starting.result()[1](now=interrupted)


def _run_dask(client: Any, todo: list[tuple[Point, int]], w: _Writer, chunk: int | None, runner: Runner,
              out: str | None) -> None:
    from distributed import as_completed

    from superpacket.cluster import worker_count

    k = chunk or _chunk_size(len(todo), worker_count(client))
    pending = {}
    for i in range(0, len(todo), k):
        part = [(p, s, p.run_toml(s)) for p, s in todo[i : i + k]]
        fut = client.submit(run_chunk, [(t, s, _rel(p, s)) for p, s, t in part], runner, out, pure=False)
        pending[fut] = part
    for fut in as_completed(list(pending)):
        part = pending.pop(fut)
        try:
            results: list[RunResult] = fut.result()
        except Exception:  # noqa: BLE001 - the task failed (e.g. its worker died): all its runs
            tb = traceback.format_exc()
            results = [tb] * len(part)
        for (p, s, text), r in zip(part, results, strict=True):
            w.commit(p, s, text, r)
        fut.release()


__all__ = ["TABLES", "Point", "SweepData", "SweepError", "SweepOutcome", "build_points", "load_sweep",
           "load_table", "parse_param", "parse_path", "parse_seeds", "read_meta", "run_to_files", "sweep"]
