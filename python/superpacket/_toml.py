"""TOML for scenario dicts. `loads(text)` reads with the simulator's own parser (the Rust
`toml` crate behind `superpacket run`), so that a sweep accepts exactly the files a run
does (TOML 1.1: multi-line inline tables, trailing commas), not the older TOML of the
standard library's tomllib. `dumps(d)` is a small writer: top-level tables become
`[sections]`, arrays of tables `[[sections]]`, deeper tables inline tables, the style of
examples/*.toml; it parses back to `d`; values TOML cannot hold (None, non-string keys)
raise ValueError or TypeError naming the key.

`check_values(d)` checks a scenario dict before it goes to the Rust schema as JSON: the
dotted path of the first value a TOML file cannot hold (NaN, an infinity, None, ...).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k: Any, where: str) -> str:
    if not isinstance(k, str):
        raise TypeError(f"{where}: TOML keys must be strings, got {k!r}")
    return k if _BARE_KEY.match(k) else json.dumps(k, ensure_ascii=False)


def _value(v: Any, where: str) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        # a JSON string is a valid TOML basic string (\", \\, \n, \uXXXX escapes)
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x, f"{where}[{i}]") for i, x in enumerate(v)) + "]"
    if isinstance(v, dict):
        if not v:
            return "{}"
        items = ", ".join(f"{_key(k, where)} = {_value(x, f'{where}.{k}')}" for k, x in v.items())
        return "{ " + items + " }"
    raise TypeError(f"{where}: TOML cannot hold {type(v).__name__} value {v!r}")


def loads(text: str) -> dict[str, Any]:
    """A TOML document as a dict, by the parser `run` uses; ScenarioError (one line, with
    the line and column, or the field holding NaN or an infinity) if it is not valid."""
    from superpacket import _core

    out: dict[str, Any] = json.loads(_core.toml_to_json(text))
    return out


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and len(v) > 0 and all(isinstance(x, dict) for x in v)


def _body(d: dict[str, Any], where: str) -> list[str]:
    return [f"{_key(k, where)} = {_value(v, f'{where}.{k}' if where else k)}" for k, v in d.items()]


def dumps(d: dict[str, Any]) -> str:
    """A TOML document for a dict of scenario fields."""
    scalars = {k: v for k, v in d.items() if not isinstance(v, dict) and not _is_table_array(v)}
    lines = _body(scalars, "")
    for k, v in d.items():
        if isinstance(v, dict):
            lines += ["", f"[{_key(k, k)}]", *_body(v, k)]
        elif _is_table_array(v):
            for i, t in enumerate(v):
                lines += ["", f"[[{_key(k, k)}]]", *_body(t, f"{k}[{i}]")]
    return "\n".join(lines).lstrip("\n") + "\n"


_MAX_DEPTH = 64  # tables and arrays nested deeper than any scenario needs


def check_values(d: Any, where: str = "") -> None:
    """Raises ScenarioError naming the field (`tcp.init_cwnd`, `traffic[0].size_pkts`) of
    the first value of a scenario dict that a TOML file cannot hold: NaN or an infinity
    (JSON has neither), None (TOML has no null: leave the field out), a non-string key, or
    a value that is not a table, array, string, integer, float or boolean."""
    from superpacket._core import ScenarioError

    stack: list[tuple[str, Any, int]] = [(where, d, 0)]
    while stack:
        path, v, depth = stack.pop()
        name = path or "scenario"
        if isinstance(v, float) and not math.isfinite(v):
            raise ScenarioError(f"{name}: must be a finite number (got {v})")
        if isinstance(v, int) and not isinstance(v, bool) and not -(2**63) <= v <= 2**64 - 1:
            # JSON would carry it, the schema's parser not ("number out of range" at a column)
            raise ScenarioError(f"{name}: must be an integer in {-(2**63)}..{2**64 - 1}, a scenario's integers "
                                f"are 64-bit (got one of {v.bit_length()} bits)")
        if isinstance(v, str):
            _check_text(v, name)
            continue
        if isinstance(v, (bool, int, float)):
            continue
        if v is None:
            raise ScenarioError(f"{name}: must be a value, not None (TOML has no null: leave the field out)")
        if depth >= _MAX_DEPTH and isinstance(v, (dict, list, tuple)):
            raise ScenarioError(f"{name}: nested deeper than {_MAX_DEPTH} tables or arrays")
        if isinstance(v, dict):
            for k in reversed(list(v)):
                if not isinstance(k, str):
                    raise ScenarioError(f"{name}: keys must be strings, got {k!r}")
                _check_text(k, f"{name}: key {k!r:.40}")
                stack.append((f"{path}.{k}" if path else k, v[k], depth + 1))
        elif isinstance(v, (list, tuple)):
            stack.extend((f"{path}[{i}]", x, depth + 1) for i, x in reversed(list(enumerate(v))))
        else:
            raise ScenarioError(f"{name}: a scenario holds tables, arrays, strings, numbers and booleans, "
                                f"not {type(v).__name__}")


def _check_text(text: str, name: str) -> None:
    """A string must be Unicode text a file can hold: Python lets a str hold a lone
    surrogate (U+D800..U+DFFF, e.g. from undecodable bytes), which UTF-8 and the schema
    cannot (its JSON parser said "lone leading surrogate in hex escape" at a column)."""
    from superpacket._core import ScenarioError

    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ScenarioError(f"{name}: not valid Unicode text (a lone surrogate U+{ord(text[e.start]):04X} at "
                            f"character {e.start})") from None


def scenario_json(d: dict[str, Any]) -> str:
    """A scenario dict as JSON for the Rust schema, after `check_values`."""
    check_values(d)
    return json.dumps(d, allow_nan=False)


MAX_SCENARIO_BYTES = 16 * 2**20  # a scenario file is a few kB; /dev/zero is not one


def read_scenario_file(path: str | Path) -> str:
    """The text of a scenario file (FileNotFoundError, ScenarioError past 16 MiB,
    UnicodeDecodeError)."""
    from superpacket._core import ScenarioError

    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"scenario file not found: {p}")
    if p.is_fifo() or p.is_socket():  # open() would wait for a writer, without end
        raise ScenarioError(f"a {'named pipe' if p.is_fifo() else 'socket'}, not a scenario file")
    with p.open("rb") as f:
        data = f.read(MAX_SCENARIO_BYTES + 1)
    if len(data) > MAX_SCENARIO_BYTES:
        raise ScenarioError(f"larger than {MAX_SCENARIO_BYTES // 2**20} MiB: not a scenario file")
    return data.decode()
