"""The TCP configuration each traffic entry ran with, as a table a person (and JSON) reads.

The simulator records it per traffic entry as one line of Rust Debug text (the results'
`tcp_configs`, written by `tcp_config_line` in the simulator's scenario code), e.g.

    cc: Cubic(Params { c: 0.4, beta: 0.7, ssthresh_from: Flight }); recovery: NewReno;
    reordering: None; gate: None

`readable` turns it into

    {"cc": {"kind": "cubic", "c": 0.4, "beta": 0.7, "ssthresh_from": "flight"},
     "recovery": "newreno", "reordering": "none", "gate": "none"}

kinds in lower case as a scenario names them (`newreno`, `sack`, `dcr`), other enum
values in snake case (`first_dupack`), an unset optional parameter (the preset's value
applies) as null. Text it cannot read is kept as it is.
"""

from __future__ import annotations

import math
import re
from typing import Any

_TOKEN = re.compile(r"\s*(?:(?P<str>\"(?:[^\"\\]|\\.)*\")|(?P<num>[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|(?:inf|NaN)\b))"
                    r"|(?P<id>[A-Za-z_][A-Za-z0-9_]*)|(?P<p>[(){}\[\],:]))")


class _Unreadable(ValueError):
    pass


def _tokens(text: str) -> list[tuple[str, str]]:
    out, i = [], 0
    while i < len(text):
        if text[i:].strip() == "":
            break
        m = _TOKEN.match(text, i)
        if not m:
            raise _Unreadable(text[i:i + 20])
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
        i = m.end()
    return out


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


class _Parser:
    def __init__(self, text: str):
        self.toks = _tokens(text)
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        t = self.peek()
        if t is None or (value is not None and t[1] != value):
            raise _Unreadable(f"expected {value!r} at token {self.i}")
        self.i += 1
        return t

    def value(self) -> Any:
        kind, text = self.take()
        if kind == "num":
            if any(c in text for c in ".eEinfNa"):
                x = float(text)
                return x if math.isfinite(x) else text.lstrip("+")  # JSON has no inf: "inf", "-inf", "NaN"
            return int(text)
        if kind == "str":
            return text[1:-1].encode().decode("unicode_escape")
        if kind == "p" and text in "[(":
            return self.seq("]" if text == "[" else ")")
        if kind != "id":
            raise _Unreadable(text)
        if text in ("true", "false"):
            return text == "true"
        if text == "None":
            return None
        nxt = self.peek()
        if nxt == ("p", "{"):  # Name { fields }
            return {"kind": text.lower(), **self.fields()}
        if nxt == ("p", "("):  # Name(inner): Some(x) is x; Kind(Params { .. }) the params
            self.take("(")
            inner = self.value()
            self.take(")")
            if text == "Some":
                return inner
            if isinstance(inner, dict) and "kind" in inner:
                return {"kind": text.lower(), **{k: v for k, v in inner.items() if k != "kind"}}
            return {"kind": text.lower(), "value": inner}
        return _snake(text)  # a unit variant: Flight, LinuxTable

    def seq(self, close: str) -> list[Any]:
        out = []
        while self.peek() != ("p", close):
            out.append(self.value())
            if self.peek() == ("p", ","):
                self.take(",")
        self.take(close)
        return out

    def fields(self) -> dict[str, Any]:
        self.take("{")
        out: dict[str, Any] = {}
        while self.peek() != ("p", "}"):
            name = self.take()[1]
            self.take(":")
            out[name] = self.value()
            if self.peek() == ("p", ","):
                self.take(",")
        self.take("}")
        return out


def _parts(line: str) -> list[tuple[str, str]]:
    """"cc: X; recovery: Y" -> [("cc", "X"), ("recovery", "Y")], split at the top level."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(line):
        depth += ch in "({[" and 1 or 0
        depth -= ch in ")}]" and 1 or 0
        if ch == ";" and depth == 0:
            parts.append(line[start:i])
            start = i + 1
    parts.append(line[start:])
    out = []
    for p in parts:
        key, sep, rest = p.strip().partition(": ")
        if not sep or not re.fullmatch(r"[a-z_]+", key):
            raise _Unreadable(p)
        out.append((key, rest))
    return out


def readable(line: str) -> dict[str, Any] | str:
    """One traffic entry's configuration line as a dict (see the module's text); the line
    itself if it cannot be read."""
    try:
        out: dict[str, Any] = {}
        for key, text in _parts(line):
            p = _Parser(text)
            v = p.value()
            if p.peek() is not None:
                raise _Unreadable(text)
            if key == "cc" and isinstance(v, str):
                v = {"kind": v.replace("_", "")}  # Newreno: a kind without parameters
            elif isinstance(v, str):
                v = v.replace("_", "")  # NewReno -> newreno, as a scenario names it
            elif v is None:
                v = "none"
            out[key] = v
        return out
    except (_Unreadable, ValueError, UnicodeDecodeError):
        return line


def readable_all(configs: dict[str, str]) -> dict[str, Any]:
    """The summary's `tcp_configs` (traffic entry -> line) with each line `readable`."""
    return {k: readable(v) if isinstance(v, str) else v for k, v in configs.items()}


#: The host's parts of a configuration line, in the simulator's order.
HOST_PARTS = ("prr", "limited_transmit", "sack_after_rto", "rto_formula", "local_drop", "tsq_limit_bytes",
              "slow_start_exit", "slow_start_increment")

#: The simulator's clock ticks in ns: a time it reports is a whole number of them.
CLOCK_RESOLUTION_DIGITS = 9


def readable_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """A run's summary as summary.json (and `run --json`) write it: `tcp_configs` as
    tables (`readable_all`), `sim_time_s` rounded to the clock's 1 ns (the float sum
    30.000000000000004 is 30.0). The summary in memory and summary.parquet keep the
    simulator's values."""
    out = dict(summary)
    if isinstance(out.get("tcp_configs"), dict):
        out["tcp_configs"] = readable_all(out["tcp_configs"])
    if isinstance(out.get("sim_time_s"), float):
        out["sim_time_s"] = round(out["sim_time_s"], CLOCK_RESOLUTION_DIGITS)
    return out


def tcp_text(cfg: Any) -> str:
    """A traffic entry's readable TCP configuration in one line: "cubic (c 0.4, beta 0.7),
    recovery sack, reordering none, gate none"."""
    if not isinstance(cfg, dict):
        return str(cfg)

    def one(v: Any) -> str:
        if not isinstance(v, dict):
            return str(v)
        params = ", ".join(f"{k} {'-' if x is None else x}" for k, x in v.items() if k != "kind")
        return f"{v.get('kind')}" + (f" ({params})" if params else "")

    first = ("cc", "recovery", "reordering", "gate", *HOST_PARTS)
    order = [k for k in first if k in cfg] + [k for k in cfg if k not in first]  # summary.json sorts its keys
    return ", ".join(one(cfg[k]) if k == "cc" else f"{k} {one(cfg[k])}" for k in order)
