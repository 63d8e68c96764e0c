"""A small TOML writer for scenario dicts (the standard library reads TOML, it does not
write it). Top-level tables become `[sections]`, arrays of tables `[[sections]]`, deeper
tables inline tables, the style of examples/*.toml. `dumps(d)` parses back to `d` with
tomllib; values TOML cannot hold (None, non-string keys) raise ValueError or TypeError
naming the key.
"""

from __future__ import annotations

import json
import math
import re
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
