"""A sweep's grid: parameter paths and values (`--param`), linked groups (`--link`,
`--label`), seeds, and the parameter points, each a scenario validated by the Rust schema
before any run starts (superpacket.sweeps)."""

from __future__ import annotations

import copy
import itertools
import json
import math
import re
import sys
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from superpacket import _toml, limits
from superpacket.seeds import SeedError
from superpacket.seeds import parse_seeds as _parse_seeds
from superpacket.sweeps.load import (
    canonical,
    dir_value,
    value_label,
)

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
