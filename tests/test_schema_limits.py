"""The schema reference's limits against the validation code.

docs/schema.md is generated from the Rust types' doc comments, but a field's limits
(`1..=100000`, `at most 2^26`, `in (0, 1]`, `above 0`, `at most 10s`) are prose there,
while Scenario::build and friends enforce them separately: the two can drift. Every
numeric limit stated in a table row's description (and in LowP's, a number without a
table) is parsed here and checked at its boundary against the real validator
(`_core.validate`): the value at the limit is not refused for the limit (the memory
estimate may refuse it), one step past it is refused with one line naming the field.
The whole file takes about 7 s (the 100,000-host topologies and a super-packet table of
2^24 pairs, allocated at build, are the costly ones).

A limit needs a hand-written entry in SCENARIOS (the scenario that places a value in
that field); a documented limit without one fails `test_every_documented_limit_is_mapped`.
Limits relative to other fields (`1..=limit`, "at most `max_rto`") are not checked
here but listed in FIELD_RELATIVE, so a new one is noticed too.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from superpacket import ScenarioError, _core, _toml

SCHEMA_MD = Path(__file__).resolve().parent.parent / "docs" / "schema.md"

# ---- parsing the reference ------------------------------------------------------------

# 100000, 1,000,000, 0.5, 1e15, 1e-7, 2^20, 2^32-1; a duration has a unit (10s)
NUM = r"\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?(?:e-?\d+)?(?:\^\d+(?:-\d+)?)?"
UNIT = r"(?:ns|us|ms|s)\b"
TOK = rf"(?:(?:{NUM})(?:{UNIT})?|`?[A-Za-z_][A-Za-z0-9_]*`?)"
ROW = re.compile(r"^\| `([^`]+)` \| (.*?) \| (.*?) \| (.*) \|$")
HEADING = re.compile(r'^##+ (\w+)(?:: `kind = "(\w+)"`)?')
NS_PER = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


@dataclass(frozen=True)
class Limit:
    typ: str  # "TcpSpec", "QueueSpec[superpacket]"
    field: str
    ftype: str  # "int", "number" or "duration"
    upper: bool  # an upper bound (else a lower one)
    value: float | int  # in the field's unit (ns for a duration)
    inclusive: bool  # the bound itself is allowed
    text: str  # as the reference writes it
    bound: str  # the limit's own token ("2^32-1", "10s")
    expr: str = ""  # a bound on an expression of several fields ("leaves x spines")

    @property
    def key(self) -> tuple[str, ...]:
        return (self.typ, self.field, self.expr) if self.expr else (self.typ, self.field)

    @property
    def id(self) -> str:
        op = ("<=" if self.inclusive else "<") if self.upper else (">=" if self.inclusive else ">")
        return f"{self.typ}.{self.field}{f' [{self.expr}]' if self.expr else ''} {op}{self.bound}"


def number(tok: str, ftype: str) -> float | int | None:
    """The value of a limit token, None when it names a field or is prose."""
    m = re.fullmatch(rf"({NUM})({UNIT})?", tok)
    if not m:
        return None
    s, unit = m.group(1).replace(",", ""), m.group(2)
    if "^" in s:
        base, _, rest = s.partition("^")
        exp, _, minus = rest.partition("-")
        v: float | int = int(base) ** int(exp) - (int(minus) if minus else 0)
    elif re.fullmatch(r"\d+", s):
        v = int(s)
    else:
        v = float(s)
        if ftype == "int" and v == int(v):
            v = int(v)
    if ftype == "duration":
        assert unit or v == 0, f"a duration limit without a unit: {tok}"
        v = int(v * NS_PER[unit or "ns"])
    return v


def is_field_ref(tok: str) -> bool:
    """`limit`, lt_max, duration: a limit relative to another field (not prose)."""
    return tok.startswith("`") or "_" in tok or tok in ("limit", "duration")


def field_type(t: str) -> str | None:
    if t.startswith("integer"):
        return "int"
    if t in ("number", "duration"):
        return t
    return None


def scan(desc: str, ftype: str) -> list[tuple[bool, str, bool, str, str]]:
    """The bounds a description states: (upper, token, inclusive, text, expr)."""
    found: list[tuple[bool, str, bool, str, str]] = []
    for mm in re.finditer(rf"({NUM})\.\.=({TOK})", desc):
        found += [(False, mm.group(1), True, mm.group(0), ""), (True, mm.group(2), True, mm.group(0), "")]
    for mm in re.finditer(rf"(?i)\b(at most|at least|above|below)\s+({TOK})", desc):
        # "leaves x spines (the fabric links) at most 100000": a bound on a product
        clause = re.split(r"[;,.]", desc[: mm.start()])[-1]
        expr = re.sub(r"\s*\([^)]*\)|^\s*with\s+", "", clause).strip() if " x " in clause else ""
        kind = mm.group(1).lower()
        upper, inclusive = kind in ("at most", "below"), kind in ("at most", "at least")
        found.append((upper, mm.group(2), inclusive, mm.group(0), expr))
    for mm in re.finditer(rf">=\s*({TOK})", desc):
        found.append((False, mm.group(1), True, mm.group(0), ""))
    # "in (0, 1]", ", (0, 1] (0.5)"; not "uniform[0, jitter)" (a draw, not a limit)
    for mm in re.finditer(rf"(?<![\w\[(])([\[(])\s*({TOK})\s*,\s*({TOK})\s*([\])])", desc):
        lo, hi = mm.group(2), mm.group(3)
        if number(lo.strip("`"), ftype) is None and not is_field_ref(lo):
            continue  # prose in parentheses: "(src, dst)"
        found += [
            (False, lo, mm.group(1) == "[", mm.group(0), ""),
            (True, hi, mm.group(4) == "]", mm.group(0), ""),
        ]
    return found


def parse(text: str) -> tuple[list[Limit], list[str]]:
    """The numeric limits of every table row (and of a number-valued type without a table,
    LowP, stated in its description), and the field-relative ones as text."""
    limits: list[Limit] = []
    relative: list[str] = []
    typ = used_in = None
    prose: list[str] = []
    for line in text.splitlines():
        if m := HEADING.match(line):
            typ = m.group(1) + (f"[{m.group(2)}]" if m.group(2) else "")
            used_in, prose = None, []
            continue
        if m := re.match(r"^Used in: `[^`]*\.(\w+)`", line):
            used_in = m.group(1)
            continue
        if m := ROW.match(line):
            field, ftype, desc = m.group(1), field_type(m.group(2)), m.group(4)
        elif line == "- a value: number" and used_in:
            field, ftype, desc = used_in, "number", " ".join(prose)  # LowP: its users' field
        else:
            if line and not line.startswith(("|", "-", "<", "`")):
                prose.append(line)
            continue
        if ftype is None or typ is None:
            continue
        for upper, tok, inclusive, said, expr in scan(desc, ftype):
            kind = "int" if expr else ftype  # a bound on a product counts things
            v = number(tok.strip("`"), kind)
            if v is not None:
                limits.append(Limit(typ, field, kind, upper, v, inclusive, said, tok, expr))
            elif is_field_ref(tok):
                relative.append(f"{typ}.{field}: {said}")
    return limits, sorted(set(relative))


LIMITS, RELATIVE = parse(SCHEMA_MD.read_text())

# ---- where each limited field lives: value -> a minimal scenario ------------------------

LINK = {"rate": "100Mbps", "delay": "1ms"}
Scen = dict[str, Any]
Place = Callable[[Any], Scen]


def dumbbell(**top: Any) -> Scen:
    """Two pairs s0, s1 -> R1 -> R2 -> d0, d1 and one long-lived flow, plus `top`."""
    d: Scen = {
        "duration": "1s",
        "topology": {"kind": "dumbbell", "pairs": 2, "access": dict(LINK), "bottleneck": dict(LINK)},
        "traffic": [{"kind": "bulk", "from": "s0", "to": "d0"}],
    }
    d.update(copy.deepcopy(top))
    return d


def topology(kind: str, **fields: Any) -> Place:
    def place(field: str) -> Place:
        return lambda v: {"duration": "1s", "topology": {"kind": kind, **fields, field: v}}

    return place  # type: ignore[return-value]


def tcp(field: str, **table: Any) -> Place:
    """A field of the scenario's [tcp] table, or of a table in it (`table`: {name: {..}})."""
    if table:
        ((name, t),) = table.items()
        return lambda v: dumbbell(tcp={name: {**t, field: v}})
    return lambda v: dumbbell(tcp={field: v})


def traffic(entry: dict[str, Any], field: str, drop: str = "", **top: Any) -> Place:
    def place(v: Any) -> Scen:
        e = {k: x for k, x in entry.items() if k != drop}
        return dumbbell(traffic=[{**e, field: v}], **top)

    return place


def queue(q: dict[str, Any], field: str) -> Place:
    """The bottleneck's R1 -> R2 queue (one direction: a super-packet table of 2^24
    pairs is allocated at build, about 1.5 GB and 1.4 s)."""

    def place(v: Any) -> Scen:
        d = dumbbell()
        d["topology"]["bottleneck"]["queue"] = {**copy.deepcopy(q), field: v}
        d["topology"]["bottleneck"]["reverse_queue"] = {"kind": "droptail"}
        return d

    return place


def rio_class(field: str) -> Place:
    def place(v: Any) -> Scen:
        d = dumbbell()
        d["topology"]["bottleneck"]["queue"] = {
            "kind": "rio",
            "in": {**RIO_IN, field: v},
            "out": dict(RIO_OUT),
        }
        return d

    return place


def classifier(field: str) -> Place:
    def place(v: Any) -> Scen:
        d = dumbbell()
        d["topology"]["access"]["classifier"] = {field: v}
        return d

    return place


def factors(n: int, most: int = 100_000) -> tuple[int, int]:
    """n = a x b with 1 < a, both at most `most` (each alone within its own limit)."""
    a = next(a for a in range(2, n) if n % a == 0 and n // a <= most)
    return a, n // a


RIO_IN = {"min_th": 5.0, "max_th": 15.0}
RIO_OUT = {"min_th": 2.0, "max_th": 8.0}
LS = {"leaves": 1, "spines": 1, "hosts_per_leaf": 1, "fabric_link": LINK, "host_link": LINK}
FLOW = {"kind": "flow", "from": "s0", "to": "d0", "size_pkts": 10}
POISSON = {"kind": "poisson", "from": "s0", "to": "d0", "rate_per_s": 10.0, "size_pkts": 10}
B2B = {"kind": "back_to_back", "from": "s{i}", "to": "d{i}", "size_pkts": 10}
WEB = {"kind": "web", "clients": "d{i}", "servers": "s{i}", "sessions": 1}
CBR = {"kind": "cbr", "from": "s0", "to": "d0", "rate": "1Mbps"}
ONOFF = {"kind": "onoff", "from": "s0", "to": "d0", "rate": "1Mbps", "on_time": "10ms", "off_time": "10ms"}
MBS = {"kind": "mbs_probe", "from": "s0", "to": "d0"}
ATTACK = {
    "kind": "sp_attack",
    "attack": "spoof_flood",
    "from": "s0",
    "to": "d0",
    "rate_pps": 1000.0,
    "victims": ["s1"],
}
WORKLOAD = {"kind": "workload", "hosts": ["s*", "d*"], "cdf": "web_search", "load": 0.5}
SPQ = {"kind": "superpacket", "limit": 100, "threshold": 50}


def incast(field: str) -> Place:
    def place(v: Any) -> Scen:
        e = {"kind": "incast", "client": "d", "servers": ["s*"], "bytes": 1000, "period": "100ms", field: v}
        return {
            "duration": "1s",
            "topology": {"kind": "star", "senders": 2, "sender_link": LINK, "receiver_link": LINK},
            "traffic": [e],
        }

    return place


def sp_limit(v: int) -> Scen:
    """A superpacket queue's `limit`, its threshold kept within it."""
    return queue({**SPQ, "threshold": min(50, v)}, "limit")(v)


def pda_max_burst(v: int) -> Scen:
    """max_burst is also at most the NIC queue + 1: the NIC queue made large enough."""
    d = tcp("max_burst", gate={"kind": "pda"})(v)
    d["topology"]["access"]["queue"] = {"kind": "droptail", "limit": max(v, 1)}
    return d


def sample_rows(n: int) -> Scen:
    """duration / interval x links = n rows: one link, a 1us interval, n us."""
    return dumbbell(duration=f"{n}us", output={"sample_queues": ["R1->R2"], "sample_interval": "1us"})


@dataclass(frozen=True)
class Case:
    place: Place
    outside: Any = None  # the value past the limit when one step is refused for another reason
    place_outside: Place | None = None  # the scenario of the value past the limit, if other


C = Case
SCENARIOS: dict[tuple[str, ...], Case] = {
    ("Scenario", "duration"): C(lambda v: dumbbell(duration=v)),
    ("TopologySpec[dumbbell]", "pairs"): C(topology("dumbbell", access=LINK, bottleneck=LINK)("pairs")),
    ("TopologySpec[star]", "senders"): C(topology("star", sender_link=LINK, receiver_link=LINK)("senders")),
    ("TopologySpec[chain]", "routers"): C(topology("chain", link=LINK)("routers")),
    ("TopologySpec[leaf_spine]", "hosts_per_leaf"): C(topology("leaf_spine", **LS)("hosts_per_leaf")),
    ("TopologySpec[leaf_spine]", "leaves"): C(topology("leaf_spine", **LS)("leaves")),
    ("TopologySpec[leaf_spine]", "spines"): C(topology("leaf_spine", **LS)("spines")),
    ("TopologySpec[leaf_spine]", "hosts_per_leaf", "leaves x hosts_per_leaf"): C(
        lambda n: topology("leaf_spine", **{**LS, "leaves": factors(n)[0]})("hosts_per_leaf")(factors(n)[1])
    ),
    ("TopologySpec[leaf_spine]", "spines", "leaves x spines"): C(
        lambda n: topology("leaf_spine", **{**LS, "leaves": factors(n)[0]})("spines")(factors(n)[1])
    ),
    ("TopologySpec[fat_tree]", "k"): C(topology("fat_tree", fabric_link=LINK, host_link=LINK)("k")),
    # 20ms: 1ns is within the series' at most 20000000 rows (the other limit of these)
    ("OutputSpec", "sample_flows"): C(lambda v: dumbbell(duration="20ms", output={"sample_flows": v})),
    ("OutputSpec", "sample_interval"): C(
        lambda v: dumbbell(duration="20ms", output={"sample_queues": ["R1->R2"], "sample_interval": v})
    ),
    ("OutputSpec", "sample_interval", "duration / interval x links"): C(sample_rows),
    ("ReorderSpec", "q"): C(lambda v: dumbbell(reorder=[{"q": v, "links": ["R1->R2"]}])),
    ("TcpSpec", "dupack_threshold"): C(tcp("dupack_threshold")),
    ("TcpSpec", "init_cwnd"): C(tcp("init_cwnd")),
    ("TcpSpec", "init_rto"): C(tcp("init_rto")),
    ("TcpSpec", "max_cwnd"): C(tcp("max_cwnd")),
    ("TcpSpec", "mss"): C(tcp("mss")),
    ("TcpSpec", "sp_attempts"): C(tcp("sp_attempts")),
    ("TcpSpec", "sp_len"): C(tcp("sp_len")),
    ("TcpSpec", "tsq_limit_output_bytes"): C(tcp("tsq_limit_output_bytes")),
    ("TcpSpec", "max_ssthresh"): C(lambda v: dumbbell(tcp={"slow_start_exit": "limited", "max_ssthresh": v})),
    ("TrafficSpec[flow]", "size_bytes"): C(traffic(FLOW, "size_bytes", drop="size_pkts")),
    ("TrafficSpec[flow]", "size_pkts"): C(traffic(FLOW, "size_pkts")),
    ("TrafficSpec[poisson]", "rate_per_s"): C(traffic(POISSON, "rate_per_s")),
    ("TrafficSpec[poisson]", "size_bytes"): C(traffic(POISSON, "size_bytes", drop="size_pkts")),
    ("TrafficSpec[poisson]", "size_pkts"): C(traffic(POISSON, "size_pkts")),
    ("TrafficSpec[back_to_back]", "count"): C(traffic(B2B, "count")),
    ("TrafficSpec[back_to_back]", "max_flows"): C(traffic(B2B, "max_flows")),
    ("TrafficSpec[back_to_back]", "size_bytes"): C(traffic(B2B, "size_bytes", drop="size_pkts")),
    ("TrafficSpec[back_to_back]", "size_pkts"): C(traffic(B2B, "size_pkts")),
    ("TrafficSpec[web]", "sessions"): C(traffic(WEB, "sessions")),
    ("TrafficSpec[web]", "client_count"): C(traffic(WEB, "client_count")),
    ("TrafficSpec[web]", "inter_object"): C(traffic(WEB, "inter_object")),
    ("TrafficSpec[web]", "inter_page"): C(traffic(WEB, "inter_page")),
    ("TrafficSpec[web]", "objects_max"): C(traffic(WEB, "objects_max")),
    ("TrafficSpec[web]", "objects_min"): C(traffic(WEB, "objects_min")),
    ("TrafficSpec[web]", "server_count"): C(traffic(WEB, "server_count")),
    ("TrafficSpec[web]", "shape"): C(traffic(WEB, "shape")),
    ("TrafficSpec[web]", "size_min_bytes"): C(traffic(WEB, "size_min_bytes")),
    ("TrafficSpec[cbr]", "packet_bytes"): C(traffic(CBR, "packet_bytes")),
    ("TrafficSpec[onoff]", "on_time"): C(traffic(ONOFF, "on_time")),
    ("TrafficSpec[onoff]", "packet_bytes"): C(traffic(ONOFF, "packet_bytes")),
    ("TrafficSpec[mbs_probe]", "fac_epsilon"): C(traffic(MBS, "fac_epsilon")),
    ("TrafficSpec[mbs_probe]", "fac_rounds"): C(traffic(MBS, "fac_rounds")),
    ("TrafficSpec[mbs_probe]", "fac_train"): C(traffic(MBS, "fac_train")),
    ("TrafficSpec[mbs_probe]", "init_timeout"): C(traffic(MBS, "init_timeout")),
    ("TrafficSpec[mbs_probe]", "max_train"): C(traffic({**MBS, "fac_train": 2}, "max_train")),
    ("TrafficSpec[mbs_probe]", "packet_bytes"): C(traffic(MBS, "packet_bytes")),
    ("TrafficSpec[mbs_probe]", "resolution"): C(traffic(MBS, "resolution")),
    ("TrafficSpec[mbs_probe]", "trials"): C(traffic(MBS, "trials")),
    ("TrafficSpec[sp_attack]", "rate_pps"): C(traffic(ATTACK, "rate_pps")),
    ("TrafficSpec[sp_attack]", "aim_per_victim"): C(traffic({**ATTACK, "aim_slots": 1024}, "aim_per_victim")),
    # 2^26 + 1 is refused as no power of two: one power of two past the limit instead
    ("TrafficSpec[sp_attack]", "aim_slots"): C(traffic(ATTACK, "aim_slots"), outside=2**27),
    ("TrafficSpec[sp_attack]", "epoch"): C(traffic({**ATTACK, "attack": "epoch_sync"}, "epoch")),
    ("TrafficSpec[sp_attack]", "len"): C(traffic(ATTACK, "len")),
    ("TrafficSpec[sp_attack]", "packet_bytes"): C(traffic(ATTACK, "packet_bytes")),
    ("TrafficSpec[workload]", "load"): C(traffic(WORKLOAD, "load")),
    ("TrafficSpec[incast]", "bytes"): C(incast("bytes")),
    ("LinkSpec", "loss"): C(
        lambda v: dumbbell(topology={**dumbbell()["topology"], "bottleneck": {**LINK, "loss": v}})
    ),
    ("GraphLink", "loss"): C(
        lambda v: {
            "duration": "1s",
            "topology": {
                "kind": "graph",
                "nodes": ["a", "b"],
                "links": [{"a": "a", "b": "b", **LINK, "loss": v}],
            },
        }
    ),
    ("ClassifierSpec", "lt_max"): C(classifier("lt_max")),
    ("ClassifierSpec", "lt_min"): C(classifier("lt_min")),
    # 2^28 entries (about 14 GB a table) are refused by the memory estimate, as they may be;
    # past the limit, a budget large enough that the range is what refuses it
    ("ClassifierSpec", "max_flows"): C(
        classifier("max_flows"),
        place_outside=lambda v: {**classifier("max_flows")(v), "output": {"memory_budget": "1TB"}},
    ),
    ("ClassifierSpec", "slr"): C(classifier("slr")),
    ("ClassifierSpec", "tc"): C(classifier("tc")),
    ("ClassifierSpec", "tu"): C(classifier("tu")),
    ("MonitorSpec", "interval"): C(
        lambda v: dumbbell(duration="20ms", output={"monitor": {"link": "R1->R2", "interval": v}})
    ),
    ("AckBatchSpec", "pkts"): C(tcp("pkts", ack_batch={"pkts": 1, "timeout": "1ms"})),
    ("AckBatchSpec", "timeout"): C(tcp("timeout", ack_batch={"pkts": 1, "timeout": "1ms"})),
    ("GateSpec[bursts]", "burst_pkts"): C(
        tcp("burst_pkts", gate={"kind": "bursts", "burst_pkts": 1, "rate": "1Mbps"})
    ),
    **{
        ("GateSpec[pda]", f): C(tcp(f, gate={"kind": "pda"}))
        for f in ("balance_step", "detect", "gain", "hold_rtts", "init_burst", "mbs_fraction", "min_share")
    },
    ("GateSpec[pda]", "max_burst"): C(pda_max_burst),
    **{
        ("GateSpec[burstiness]", f): C(tcp(f, gate={"kind": "burstiness"}))
        for f in ("filter_rtts", "gain", "headroom", "ss_headroom", "threshold")
    },
    ("QueueSpec[droptail]", "ecn_threshold"): C(queue({"kind": "droptail"}, "ecn_threshold")),
    ("QueueSpec[droptail]", "limit"): C(queue({"kind": "droptail"}, "limit")),
    **{
        ("QueueSpec[red]", f): C(queue({"kind": "red", **RIO_IN}, f))
        for f in ("min_th", "limit", "mean_pkt_size", "p_max", "w_q")
    },
    ("QueueSpec[superpacket]", "limit"): C(sp_limit),
    # 63 is refused as no power of two: one power of two below the limit instead
    ("QueueSpec[superpacket]", "bloom_bits"): C(queue(SPQ, "bloom_bits"), outside=32),
    **{
        ("QueueSpec[superpacket]", f): C(queue(SPQ, f))
        for f in ("bloom_hashes", "epoch", "max_len", "max_pairs")
    },
    ("QueueSpec[superpacket]", "rule_weight"): C(queue({**SPQ, "rule": "ewma"}, "rule_weight")),
    ("QueueSpec[superpacket]", "port_share"): C(queue(SPQ, "port_share")),
    **{
        (f"QueueSpec[{k}]", f): C(queue({"kind": k, "in": RIO_IN, "out": RIO_OUT}, f))
        for k in ("rio", "riops")
        for f in ("limit", "mean_pkt_size", "w_q")
    },
    ("CcConfig[fixed]", "window"): C(tcp("window", cc={"kind": "fixed", "window": 10.0})),
    **{
        (f"CcConfig[{k}]", f): C(tcp(f, cc={"kind": k}))
        for k, fs in {
            "scalable": ("ai", "b", "legacy_window"),
            "ltcp": ("beta", "w_t"),
            "bic": ("b", "beta", "max_increment", "smooth_part"),
            "cubic": ("beta", "c"),
            "htcp": ("delta_l", "quad_coeff"),
            "vegas": ("alpha", "gamma"),
            "fast": ("alpha", "gamma", "mi_threshold"),
        }.items()
        for f in fs
    },
    # DCTCP is refused where no queue marks: its bottleneck marks above 20 packets
    ("CcConfig[dctcp]", "g"): C(lambda v: dumbbell(
        tcp={"cc": {"kind": "dctcp", "g": v}},
        topology={"kind": "dumbbell", "pairs": 2, "access": dict(LINK),
                  "bottleneck": {**LINK, "queue": {"kind": "droptail", "limit": 100, "ecn_threshold": 20}}})),
    ("CcConfig[vegas]", "beta"): C(tcp("beta", cc={"kind": "vegas", "alpha": 0.0})),  # alpha <= beta
    ("LowP", "low_p"): C(tcp("low_p", cc={"kind": "highspeed", "mode": "continuous"})),
    ("ReorderingTable[dcr]", "tau_srtt"): C(tcp("tau_srtt", reordering={"kind": "dcr"})),
    **{("RioClassSpec", f): C(rio_class(f)) for f in ("min_th", "p_max", "w_q")},
}

# Limits relative to other fields: not checked here (no number to put at the boundary);
# a new one in the reference fails test_field_relative_limits_are_listed.
FIELD_RELATIVE = {
    "OutputSpec.sample_flows: at least duration",
    "TcpSpec.max_rto: at least `min_rto`",
    "TcpSpec.min_rto: at most `max_rto`",
    "TrafficSpec[web].objects_min: 1..=objects_max",
    "TrafficSpec[web].size_max_bytes: above `size_min_bytes`",
    "TrafficSpec[web].size_min_bytes: below `size_max_bytes`",
    "ClassifierSpec.lt: [lt_min, lt_max]",
    "ClassifierSpec.lt_min: 1..=lt_max",
    "MonitorSpec.interval: at least duration",
    "GateSpec[pda].init_burst: 2..=max_burst",
    "QueueSpec[droptail].ecn_threshold: 1..=limit",
    "QueueSpec[red].max_th: above `min_th`",
    "QueueSpec[superpacket].threshold: at most `limit`",
    "QueueSpec[superpacket].t_min: at most `limit`",
    "CcConfig[vegas].alpha: at most `beta`",
    "RioClassSpec.max_th: above `min_th`",
}

# Drifts between the reference and the code, each reported (the doc comment to fix in
# crates/sim/src, then `make schema`, or the validation's message): the case is expected
# to fail until then. The 17 this test found when written are fixed: `count = 0` is
# documented ("0 makes none"), and every refusal names its own field.
DRIFTS: dict[str, str] = {}


# ---- the checks -----------------------------------------------------------------------


def boundary(lim: Limit, case: Case) -> tuple[Any, Any]:
    """(the value at the limit, allowed; the value one step past it, refused)."""
    v = lim.value
    if lim.ftype == "number":
        step: float = max(abs(v) * 1e-9, 1e-9)
        v = float(v)
    else:
        step = 1
    sign = 1 if lim.upper else -1
    inside = v if lim.inclusive else v - sign * step
    outside = v + sign * step if lim.inclusive else v
    if case.outside is not None:
        outside = case.outside
    if lim.ftype == "duration":
        return f"{inside}ns", f"{outside}ns"
    return inside, outside


def validate(d: Scen) -> str | None:
    """The validator's refusal of a scenario, None when it builds."""
    try:
        _core.validate(_toml.dumps(d), "toml")
    except ScenarioError as e:
        return str(e)
    return None


def names(msg: str, field: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(field)}(?![\w])", msg) is not None


MEMORY = "the run would hold about"


def test_the_reference_states_limits():
    """The parser reads the reference (a format change must not leave nothing checked)."""
    assert len(LIMITS) > 150, len(LIMITS)
    ids = {lim.id for lim in LIMITS}
    for expected in (
        "TopologySpec[dumbbell].pairs <=100000",
        "TcpSpec.init_cwnd <=1,000,000",
        "QueueSpec[superpacket].limit <=2^32-1",
        "TrafficSpec[incast].bytes <=1e15",
        "AckBatchSpec.timeout <=10s",
        "TrafficSpec[sp_attack].rate_pps <=1e8",
    ):
        assert expected in ids, expected
    assert len(ids) == len(LIMITS), "two limits with one id"


def test_every_documented_limit_is_mapped():
    missing = sorted({" / ".join(lim.key) for lim in LIMITS if lim.key not in SCENARIOS})
    assert not missing, f"documented limits with no scenario in SCENARIOS: {missing}"
    stale = sorted(" / ".join(k) for k in set(SCENARIOS) - {lim.key for lim in LIMITS})
    assert not stale, f"SCENARIOS entries for limits the reference no longer states: {stale}"


def test_field_relative_limits_are_listed():
    assert set(RELATIVE) == FIELD_RELATIVE, (
        f"new: {sorted(set(RELATIVE) - FIELD_RELATIVE)}; gone: {sorted(FIELD_RELATIVE - set(RELATIVE))}"
    )


def param(lim: Limit) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=DRIFTS[lim.id])] if lim.id in DRIFTS else []
    return pytest.param(lim, id=lim.id, marks=marks)


@pytest.mark.parametrize("lim", [param(lim) for lim in LIMITS])
def test_limit_matches_the_validator(lim: Limit):
    case = SCENARIOS.get(lim.key)
    if case is None:
        pytest.fail(f"no scenario for {lim.key} in SCENARIOS")
    inside, outside = boundary(lim, case)
    err = validate(case.place(inside))
    assert err is None or MEMORY in err or not names(err, lim.field), (
        f"{lim.field} = {inside!r} (the reference: {lim.text!r}) is refused: {err}"
    )
    err = validate((case.place_outside or case.place)(outside))
    assert err is not None, f"{lim.field} = {outside!r} is accepted (the reference: {lim.text!r})"
    assert "\n" not in err and names(err, lim.field) and MEMORY not in err, (
        f"{lim.field} = {outside!r}: the refusal does not name the field on one line: {err}"
    )


def test_a_count_of_zero_makes_no_sources():
    """The reference says `count = 0` makes none (a sweep's point without that traffic)."""
    import superpacket

    sc = {"name": "zero", "duration": "10ms",
          "topology": {"kind": "dumbbell", "pairs": 1, "access": {"rate": "1Gbps", "delay": "1us"},
                       "bottleneck": {"rate": "1Gbps", "delay": "1us"}},
          "traffic": [{"kind": "bulk", "from": "s0", "to": "d0", "count": 0},
                      {"kind": "cbr", "from": "s0", "to": "d0", "count": 0, "rate": "1Mbps"}]}
    r = superpacket.run(sc)
    assert r.flows.height == 0 and r.sources.height == 0 and r.summary["conservation"] == "ok"
