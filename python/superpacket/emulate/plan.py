"""From a scenario to what the emulator builds: hosts, links, routes and flows, or the one
line naming the first field it cannot honour. Pure: nothing is created here, so every
refusal comes before anything exists.

What the emulator honours (anything else is refused, naming the field):

- topology `dumbbell`: `pairs` (at most MAX_PAIRS), `access` and `bottleneck` with
  `rate` (at most MAX_RATE_BPS), `delay` and a `queue` / `reverse_queue` in packets,
  DropTail or RED (without ECN);
- traffic `bulk` and `flow`: `from`, `to`, `count`, `start`, `start_interval`,
  `start_jitter`, `tcp`, and a flow's `size_bytes` or `size_pkts` (of 1448 bytes);
- tcp: `cc` by name where the kernel has it ("newreno" is the kernel's "reno", "cubic"
  its "cubic"), `recovery` ("sack": net.ipv4.tcp_sack = 1, "newreno": 0, per host),
  `init_cwnd` (whole segments: the route's initcwnd), `min_rto` (whole milliseconds: the
  route's rto_min, per host), `host = "linux"`, `delayed_ack = true` (the kernel always
  delays ACKs), `mss = 1448` with `header_bytes = 52` (what the kernel sends on a
  1500-byte MTU with TCP timestamps);
- output: `sample_queues`, `sample_interval`, `sample_flows`, `memory_budget` (unused).

The scenario is first checked by the simulator's own parser (`_core.validate`): what the
simulator refuses, the emulator refuses with the same line, and the units (rates,
durations) are read as the simulator reads them, rounding included. Then the emulator's
own bounds: at most MAX_FLOWS flows (each is a thread and a socket of the generator) and
MAX_SERIES_ROWS rows in each sampled series (the router and the generators hold them in
memory until the run ends).
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, field
from typing import Any

#: Sender-receiver pairs at most: two namespaces and a generator process each.
MAX_PAIRS = 16
#: The fastest link the router is asked to hold (see the emulation guide's measurements).
MAX_RATE_BPS = 1_000_000_000
#: The longest run.
MAX_DURATION_S = 3600.0
#: Flows in all: each is a thread and a socket in its sender's generator.
MAX_FLOWS = 256
#: Rows of the queue series (sampled links x samples) and of the flow series (flows x
#: samples), each: the router and the generators keep them in memory until the end.
MAX_SERIES_ROWS = 1_000_000
#: The simulator's limit on any one duration (crates/sim core/time.rs MAX_DURATION_NS).
MAX_DURATION_NS = 10_000_000 * 1_000_000_000
U64_MAX = 2**64 - 1
#: The kernel's congestion controls by the scenario's names (tcp_cong.c registers reno,
#: cubic, bbr on this kernel; "newreno" is RFC 6582's name for what Linux calls reno).
KERNEL_CC = {"newreno": "reno", "cubic": "cubic"}
#: Payload of a full segment with TCP timestamps on a 1500-byte MTU: 1500 - 20 - 32.
KERNEL_MSS = 1448
KERNEL_HEADER_BYTES = 52
TCP_FIELDS = {"cc", "recovery", "init_cwnd", "min_rto", "host", "delayed_ack", "mss", "header_bytes"}


class Refused(ValueError):
    """A scenario field the emulator cannot honour; the message is one line naming it."""


#: The simulator's number before a unit (Rust's f64 grammar less inf and NaN, which it
#: refuses anyway); the unit in any case, as the simulator matches it.
_DURATION = re.compile(r"\s*([0-9.eE+-]+)\s*(ns|us|ms|s)\s*", re.IGNORECASE)
_RATE = re.compile(r"\s*([0-9.eE+-]+)\s*(gbps|mbps|kbps|bps)\s*", re.IGNORECASE)
_NS_PER = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
_BPS_PER = {"gbps": 1e9, "mbps": 1e6, "kbps": 1e3, "bps": 1.0}


def _round(x: float) -> int:
    """Rust's f64::round for x >= 0: half away from zero (Python's round() goes to even:
    2.5 bps was 2 here and 3 in the simulator). x - floor(x) is exact for a double."""
    r = math.floor(x)
    return r + 1 if x - r >= 0.5 else r


def _number(v: Any, pattern: re.Pattern[str], what: str, example: str, where: str) -> tuple[float, str]:
    m = pattern.fullmatch(v) if isinstance(v, str) else None
    if m is None:
        raise Refused(f"{where}: cannot read {what} {v!r} (a number and a unit as a string, e.g. {example!r})")
    try:
        x = float(m.group(1))
    except ValueError:
        raise Refused(f"{where}: cannot read {what} {v!r} (a number and a unit as a string, e.g. {example!r})") \
            from None
    return x, m.group(2).lower()


def parse_duration_ns(v: Any, where: str) -> int:
    """A duration as the simulator reads it (core/time.rs parse_duration): whole ns,
    rounded half away from zero, refused when negative, not finite or past 10^7 s."""
    x, unit = _number(v, _DURATION, "duration", "200ms", where)
    if not (math.isfinite(x) and x >= 0):
        raise Refused(f"{where}: bad duration {v!r}: must be >= 0")
    y = x * _NS_PER[unit]
    if y > 2 * MAX_DURATION_NS or _round(y) > MAX_DURATION_NS:
        raise Refused(f"{where}: bad duration {v!r}: past the simulator's limit of "
                      f"{MAX_DURATION_NS // 1_000_000_000} s for any one duration")
    return _round(y)


def parse_duration_s(v: Any, where: str) -> float:
    return parse_duration_ns(v, where) / 1e9


def parse_rate_bps(v: Any, where: str) -> int:
    """A rate as the simulator reads it (core/time.rs parse_rate): whole bits per second,
    rounded half away from zero, at least 1."""
    x, unit = _number(v, _RATE, "rate", "100Mbps", where)
    if not (math.isfinite(x) and x > 0):
        raise Refused(f"{where}: bad rate {v!r}: must be > 0")
    y = x * _BPS_PER[unit]
    if not math.isfinite(y):
        return U64_MAX  # the simulator's `as u64` saturates
    bps = _round(y)
    if bps < 1:
        raise Refused(f"{where}: bad rate {v!r}: must be >= 1 bps")
    return min(bps, U64_MAX)


@dataclass(frozen=True)
class LinkPlan:
    name: str
    src: str
    dst: str
    rate_bps: int
    delay_ns: int
    limit_pkts: int
    #: the router's queue config: {"kind": "droptail"} or RED's parameters
    queue: dict[str, Any] = field(default_factory=lambda: {"kind": "droptail"})

    @property
    def delay_s(self) -> float:
        return self.delay_ns / 1e9


@dataclass(frozen=True)
class TcpPlan:
    cc: str  # the kernel's name
    sack: bool
    init_cwnd: int
    min_rto_ms: int


@dataclass(frozen=True)
class FlowPlan:
    flow_id: int
    src: str
    dst: str
    start_s: float
    tcp: TcpPlan
    scenario_cc: str
    #: payload bytes of a flow of given size; None for a bulk flow
    size_bytes: int | None = None


@dataclass
class Plan:
    name: str
    duration_s: float
    hosts: list[str]
    links: list[LinkPlan]
    #: (source host, destination host): indices into links, in order
    routes: dict[tuple[str, str], list[int]]
    flows: list[FlowPlan]
    #: per host, the TCP settings of the namespace (sysctl, route)
    host_tcp: dict[str, TcpPlan]
    sample_queues: list[str]
    sample_interval_s: float
    sample_flows_s: float
    seed: int
    notes: list[str] = field(default_factory=list)

    def link_index(self, name: str) -> int:
        return [lk.name for lk in self.links].index(name)


def _only(d: dict[str, Any], allowed: set[str], where: str) -> None:
    for k in d:
        if k not in allowed:
            raise Refused(f"{where}{k}: not supported by the emulator")


#: RED's defaults, as the simulator's (docs/schema.md, QueueSpec red).
RED_DEFAULTS = {"p_max": 0.1, "w_q": 0.002, "gentle": True, "wait": True, "mean_pkt_size": 1500}


def _queue(q: Any, where: str) -> tuple[int, dict[str, Any]]:
    """(limit, the router's queue config)."""
    if q is None:
        return 1000, {"kind": "droptail"}
    kind = q.get("kind")
    if kind not in ("droptail", "red"):
        raise Refused(f"{where}.kind: {kind!r} is not supported by the emulator yet (droptail, red)")
    if kind == "droptail":
        _only(q, {"kind", "limit", "unit"}, f"{where}.")
        cfg: dict[str, Any] = {"kind": "droptail"}
    else:
        _only(q, {"kind", "limit", "unit", "min_th", "max_th", *RED_DEFAULTS, "ecn"}, f"{where}.")
        if q.get("ecn", False):
            raise Refused(f"{where}.ecn: ECN marking is not supported by the emulator yet")
        cfg = {"kind": "red", "min_th": float(q["min_th"]), "max_th": float(q["max_th"]),
               **{k: q.get(k, v) for k, v in RED_DEFAULTS.items()}}
    if q.get("unit", "packets") != "packets":
        raise Refused(f"{where}.unit: only \"packets\" is supported by the emulator")
    return int(q.get("limit", 1000)), cfg


Queue = tuple[int, dict[str, Any]]


def _link(spec: dict[str, Any], where: str) -> tuple[int, int, Queue, Queue]:
    _only(spec, {"rate", "delay", "queue", "reverse_queue"}, f"{where}.")
    rate = parse_rate_bps(spec["rate"], f"{where}.rate")
    if rate > MAX_RATE_BPS:
        raise Refused(f"{where}.rate: {spec['rate']} is above the {MAX_RATE_BPS / 1e9:g} Gb/s the emulator holds")
    delay = parse_duration_ns(spec["delay"], f"{where}.delay")
    fwd = _queue(spec.get("queue"), f"{where}.queue")
    rev = _queue(spec.get("reverse_queue"), f"{where}.reverse_queue") if "reverse_queue" in spec else fwd
    return rate, delay, fwd, rev


def _tcp(merged: dict[str, Any], where: str) -> tuple[TcpPlan, str]:
    _only(merged, TCP_FIELDS, f"{where}.")
    cc = merged.get("cc", "newreno")
    if isinstance(cc, dict):
        if set(cc) != {"kind"}:
            raise Refused(f"{where}.cc: parameters are not supported by the emulator (the kernel's defaults)")
        cc = cc["kind"]
    if cc not in KERNEL_CC:
        raise Refused(f"{where}.cc: {cc!r} has no kernel counterpart here (newreno, cubic)")
    if merged.get("host", "linux") != "linux":
        raise Refused(f"{where}.host: only \"linux\" (the kernel's TCP)")
    if merged.get("delayed_ack", True) is not True:
        raise Refused(f"{where}.delayed_ack: the kernel always delays ACKs (only true)")
    if merged.get("mss", KERNEL_MSS) != KERNEL_MSS:
        raise Refused(f"{where}.mss: the kernel sends {KERNEL_MSS} payload bytes on a 1500-byte MTU (only {KERNEL_MSS})")
    if merged.get("header_bytes", KERNEL_HEADER_BYTES) != KERNEL_HEADER_BYTES:
        raise Refused(f"{where}.header_bytes: the kernel's IP + TCP headers are {KERNEL_HEADER_BYTES} B (only that)")
    rec = merged.get("recovery", "sack")
    iw = merged.get("init_cwnd", 10)
    if float(iw) != int(iw) or int(iw) < 1:
        raise Refused(f"{where}.init_cwnd: whole segments only (the route's initcwnd)")
    rto_ns = parse_duration_ns(merged.get("min_rto", "200ms"), f"{where}.min_rto")
    if rto_ns % 1_000_000 or rto_ns < 1_000_000:
        raise Refused(f"{where}.min_rto: whole milliseconds only (the route's rto_min)")
    return TcpPlan(KERNEL_CC[cc], rec == "sack", int(iw), rto_ns // 1_000_000), cc


def _expand(pattern: str, i: int) -> str:
    return pattern.replace("{i}", str(i))


def _sizes(sc: dict[str, Any]) -> None:
    """The emulator's bounds on what makes a run large (hosts, flows), checked before the
    simulator builds the scenario to check it: with a raised `memory_budget` the
    simulator would build a billion flows first (and hold them) only to be refused here."""
    topo = sc.get("topology")
    if isinstance(topo, dict):
        if topo.get("kind") != "dumbbell" and isinstance(topo.get("kind"), str):
            raise Refused(f"topology.kind: {topo['kind']!r} is not supported by the emulator yet (dumbbell only)")
        pairs = topo.get("pairs")
        if isinstance(pairs, int) and not isinstance(pairs, bool) and pairs > MAX_PAIRS:
            raise Refused(f"topology.pairs: at most {MAX_PAIRS} in the emulator")
    traffic = sc.get("traffic")
    if isinstance(traffic, list):
        total = 0
        for n, t in enumerate(traffic):
            count = t.get("count", 1) if isinstance(t, dict) else 1
            total += count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 0
            if total > MAX_FLOWS:
                raise Refused(f"traffic[{n}].count: at most {MAX_FLOWS} flows in all in the emulator (each is a "
                              f"thread and a socket of its sender's generator)")


def _simulator_check(sc: Any, text: str | None) -> None:
    """The simulator's own parser first (one schema, one set of units): its refusal, the
    same line `superpacket run` prints, is the emulator's. `text`: the scenario's TOML,
    when it came from a file (the simulator's lines then name the file's line)."""
    from superpacket import _core, _toml

    if not isinstance(sc, dict):
        raise Refused(f"scenario: a table of fields (a dict), not {type(sc).__name__}")
    _sizes(sc)
    try:
        if text is None:
            _core.validate(_toml.scenario_json(sc), "json")
        else:
            _core.validate(text)
    except _core.ScenarioError as e:
        raise Refused(" ".join(str(e).split())) from None


def make_plan(sc: dict[str, Any], text: str | None = None) -> Plan:
    """The plan of a scenario (`text`: the TOML it was read from, if any), or Refused
    naming the first field the simulator or the emulator cannot honour; nothing is
    created here."""
    _simulator_check(sc, text)
    _only(sc, {"name", "description", "duration", "seed", "topology", "tcp", "traffic", "output"}, "")
    duration_ns = parse_duration_ns(sc["duration"], "duration")
    duration = duration_ns / 1e9
    if duration > MAX_DURATION_S:
        raise Refused(f"duration: at most {MAX_DURATION_S:g} s in the emulator (real time)")
    topo = sc["topology"]
    if topo.get("kind") != "dumbbell":
        raise Refused(f"topology.kind: {topo.get('kind')!r} is not supported by the emulator yet (dumbbell only)")
    _only(topo, {"kind", "pairs", "access", "bottleneck"}, "topology.")
    pairs = int(topo["pairs"])
    if pairs > MAX_PAIRS:
        raise Refused(f"topology.pairs: at most {MAX_PAIRS} in the emulator")
    a_rate, a_delay, a_fwd, a_rev = _link(topo["access"], "topology.access")
    b_rate, b_delay, b_fwd, b_rev = _link(topo["bottleneck"], "topology.bottleneck")
    senders = [f"s{i}" for i in range(pairs)]
    receivers = [f"d{i}" for i in range(pairs)]
    links: list[LinkPlan] = []

    def add(src: str, dst: str, rate: int, delay: int, q: Queue) -> None:
        links.append(LinkPlan(f"{src}->{dst}", src, dst, rate, delay, q[0], q[1]))

    add("R1", "R2", b_rate, b_delay, b_fwd)
    add("R2", "R1", b_rate, b_delay, b_rev)
    for s in senders:
        add(s, "R1", a_rate, a_delay, a_fwd)
        add("R1", s, a_rate, a_delay, a_rev)
    for d in receivers:
        add("R2", d, a_rate, a_delay, a_fwd)
        add(d, "R2", a_rate, a_delay, a_rev)
    idx = {lk.name: i for i, lk in enumerate(links)}
    side = {**{s: "R1" for s in senders}, **{d: "R2" for d in receivers}}
    hosts = senders + receivers
    routes: dict[tuple[str, str], list[int]] = {}
    for h in hosts:
        for g in hosts:
            if h == g:
                continue
            path = [idx[f"{h}->{side[h]}"]]
            if side[h] != side[g]:
                path.append(idx[f"{side[h]}->{side[g]}"])
            path.append(idx[f"{side[g]}->{g}"])
            routes[(h, g)] = path

    seed = int(sc.get("seed", 1))
    rng = random.Random(seed)
    base_tcp = sc.get("tcp", {})
    flows: list[FlowPlan] = []
    host_tcp: dict[str, TcpPlan] = {}
    for n, t in enumerate(sc.get("traffic", [])):
        where = f"traffic[{n}]"
        kind = t.get("kind")
        if kind not in ("bulk", "flow"):
            raise Refused(f"{where}.kind: {kind!r} is not supported by the emulator yet (bulk, flow)")
        _only(t, {"kind", "from", "to", "count", "start", "start_interval", "start_jitter", "tcp",
                  *(("size_bytes", "size_pkts") if kind == "flow" else ())}, f"{where}.")
        size = int(t["size_bytes"]) if "size_bytes" in t else \
            int(t["size_pkts"]) * KERNEL_MSS if "size_pkts" in t else None
        tcp, cc = _tcp({**base_tcp, **t.get("tcp", {})}, f"{where}.tcp" if "tcp" in t else "tcp")
        start = parse_duration_s(t.get("start", "0s"), f"{where}.start")
        every = parse_duration_s(t.get("start_interval", "0s"), f"{where}.start_interval")
        jitter = parse_duration_s(t.get("start_jitter", "0s"), f"{where}.start_jitter")
        count = int(t.get("count", 1))
        if len(flows) + count > MAX_FLOWS:  # before the loop: a count of 10^9 is refused at once
            raise Refused(f"{where}.count: at most {MAX_FLOWS} flows in all in the emulator (each is a thread "
                          f"and a socket of its sender's generator)")
        for i in range(count):
            src, dst = _expand(t["from"], i), _expand(t["to"], i)
            for key, h in (("from", src), ("to", dst)):
                if h not in side:
                    raise Refused(f"{where}.{key}: {h!r} is not a host of the emulated dumbbell (its hosts are "
                                  f"s0..s{pairs - 1} and d0..d{pairs - 1}; R1 and R2 are the router process, which "
                                  f"runs no TCP)")
            at = start + every * i + (rng.uniform(0, jitter) if jitter > 0 else 0.0)
            if at >= duration:
                continue
            for h, side_tcp in ((src, tcp), (dst, tcp)):
                seen = host_tcp.setdefault(h, side_tcp)
                if (seen.sack, seen.min_rto_ms, seen.init_cwnd) != (side_tcp.sack, side_tcp.min_rto_ms,
                                                                      side_tcp.init_cwnd):
                    raise Refused(f"{where}.tcp: recovery, min_rto and init_cwnd are per host in the kernel "
                                  f"(namespace sysctl and route), and {h} has flows that differ")
            flows.append(FlowPlan(len(flows), src, dst, at, tcp, cc, size))
    default_tcp, _ = _tcp(dict(base_tcp), "tcp")
    for h in hosts:
        host_tcp.setdefault(h, default_tcp)

    out = sc.get("output", {})
    _only(out, {"sample_queues", "sample_interval", "sample_flows", "memory_budget"}, "output.")
    sq = list(out.get("sample_queues", []))
    if "all" in sq:  # as the simulator: "all" among names is every link
        sq = [lk.name for lk in links]
    sq = list(dict.fromkeys(sq))  # a link named twice is sampled once, as by the simulator
    for q in sq:
        if q not in idx:
            raise Refused(f"output.sample_queues: no link {q!r} in the emulated dumbbell")
    interval_ns = parse_duration_ns(out.get("sample_interval", "1ms"), "output.sample_interval")
    if interval_ns < 100_000:
        raise Refused("output.sample_interval: at least 100us in the emulator")
    interval = interval_ns / 1e9
    if len(sq) * (duration_ns // interval_ns) > MAX_SERIES_ROWS:
        raise Refused(f"output.sample_interval: {len(sq)} sampled link(s) over the duration is above "
                      f"{MAX_SERIES_ROWS} rows in the emulator (a longer interval or fewer sample_queues)")
    sample_flows = parse_duration_s(out["sample_flows"], "output.sample_flows") if "sample_flows" in out else 0.1
    if sample_flows < 1e-3:
        raise Refused("output.sample_flows: at least 1ms in the emulator (TCP_INFO is read from Python)")
    if len(flows) * (duration // sample_flows) > MAX_SERIES_ROWS:
        raise Refused(f"output.sample_flows: {len(flows)} flow(s) over the duration is above {MAX_SERIES_ROWS} "
                      f"rows in the emulator (a longer interval)")
    return Plan(str(sc.get("name", "")), duration, hosts, links, routes, flows, host_tcp, sq, interval,
                sample_flows, seed)
