"""`superpacket reproduce datacenter`: our datacenter specification, the datacenter-transport
comparison the DCTCP paper (M. Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010)
and its successors (pFabric, HPCC) draw: FCT slowdown by flow size on a leaf-spine fabric
under empirical workloads, for DropTail, DCTCP, RED/ECN, RIO-PS and super-packets.

The fabric (our datacenter specification): 9 leaves x 16 hosts = 144 hosts, 4 spines, host links
10 Gbps and fabric links 40 Gbps (no oversubscription: 16 x 10 = 4 x 40), 1 us per link,
per-flow ECMP, 500-packet port buffers at every switch port (no shared buffer). Workloads
(the workload tables' sources): `web_search` (DCTCP paper; the HPCC table, mean 1,711,250 B) and
`data_mining` (VL2; opera-sim's table, mean 5,036,535 B), all-to-all, Poisson arrivals per
host at 30, 50 and 70 % of the host link rate; `incast`: web search at that load plus a
query every 2 ms from one client (h0_0) to the 16 hosts of rack 1, each answering 20 KB.

Schemes (the variant's last part; NewReno loss recovery throughout):
- `droptail-newreno`, `droptail-cubic`: DropTail 500 at every switch port.
- `dctcp`: DCTCP hosts (g = 1/16, RFC 8257) over DropTail 500 marking CE above K.
- `red-ecn-newreno`: NewReno with ECN over RED with ECN marking at every switch port.
- `riops-newreno`: RIO-PS at the leaves' ports (host-facing and uplinks; the spines stay
  DropTail 500), ECN on, an edge classifier on every host NIC.
- `sp-newreno`: the super-packet router at every switch port; flows small enough are sent
  as one super-packet, the rest as normal NewReno flows.

Decisions (source in brackets; `params` in the summary says the same):
- Small flows: size < 100 KB; large: > 10 MB (our datacenter specification's buckets 0-100 KB,
  100 KB-1 MB, 1-10 MB, > 10 MB; the DCTCP paper's "query"/"short message" and
  "background" split is of the same order) [ours].
- DCTCP K = 65 packets at the 10 Gbps ports (host-facing) [DCTCP paper section 3.4 /
  4.1: K = 65 at 10 Gbps]; K scales with C x RTT, so 4 x 65 = 260 at the 40 Gbps fabric
  ports (leaf uplinks, spine downlinks) [ours, from the paper's K > C x RTT / 7 rule].
- RED/ECN (and RIO-PS's two classes): the RIO-PS slides' sets relative to the buffer
  B = 500: RED (0.15 B, 0.5 B, p_max 1/10), RIO-PS short (0.15 B, 0.35 B, 1/20) and long
  (0.15 B, 0.5 B, 1/10), w_q 1/512, gentle [Guo and Matta (ICNP 2001) via riops_common.py]; the same at
  10 and 40 Gbps ports [ours].
- Host NICs: the same 500-packet buffer as every port [ours: "500-packet port
  buffers"], marking at K = 65 under DCTCP (a Linux DCTCP host's qdisc marks so too:
  fq_codel's ce_threshold), DropTail otherwise; a drop at the sender's own NIC makes it
  enter CWR (`[tcp] local_drop = "cwr"`, Linux's tcp_enter_cwr) [ours]. A 10,000-packet
  FIFO NIC instead (tried first) let one host's long flows queue up to 6,700 packets
  (8 ms) in front of its own short flows, a sender-side delay that swamped every switch
  scheme's difference; the NIC drops that remain are reported apart (tier `host_nic`).
- RIO-PS classifier: L_t fixed at 69 packets (the first 69 x 1460 B ~ 100 KB of a flow
  are "short": the small-flow bound), no SLR adaptation (T_c 10 s is longer than the run),
  T_u 1 s, 4096 flows [Guo and Matta (ICNP 2001)'s classifier, L_t ours].
- Super-packets: flows of at most 64 packets (93,440 B, the router's largest super-packet
  `max_len` = 64) are sent as one super-packet (`[tcp] superpacket = "flow"`, the paper's
  fallback to NewReno on a denial), larger flows as normal packets; the incast responses
  (20 KB) too. Router: buffSize 500, t = 250 (B / 2, as riops-web's super-packet router),
  EPOCH 80 ms, Bloom filter 2^16 x 4, SYNs admitted (a SYN is a normal packet and would be
  refused once the queue holds t, leaving even long flows to wait an initial RTO) [Li (UCB/EECS-2013-83),
  our specification; t and admit_syn ours].
- TCP: MSS 1460, initial cwnd 10, delayed ACK off, NewReno recovery [our common
  defaults]; min RTO 10 ms [DCTCP paper section 4: RTO_min 10 ms for TCP and DCTCP];
  initial RTO 10 ms [ours: a 1 s SYN timeout would outlast the run].
- Arrivals over [0, T); flows are measured if they start in [W, T) (W: warm-up, the fabric
  filling from empty) and the run goes on to T + drain so they finish; those that do not
  are counted (`unfinished_flows`) and left out of the slowdowns. Full scale: T = 100 ms,
  W = 20 ms, drain 60 ms (a run of one variant: 12-30 s of wall time at 50-70 % web
  search; measured: docs/experiments/datacenter.md) [ours].
- Incast: 16 servers (rack 1) answer client h0_0 with 20 KB each every 2 ms, start jitter
  20 us [ours; the DCTCP paper's query traffic is of this form (section 4.3: partition/
  aggregate answers of a few KB from every worker); sizes and period ours].
- Seeds: 3 by default (each variant's small-flow p99 pools thousands of flows) [ours].

Metrics per run (means over seeds in `variants`): `small_p99_slowdown`,
`small_mean_slowdown`, `large_mean_slowdown`, `drop_rate` (packets dropped at any queue /
packets the hosts sent), plus `mid_mean_slowdown` (100 KB-10 MB), `unfinished_flows`,
`small_timeout_pct` (small flows with a retransmission timeout, %), `sp_denied_pct`
(small flows whose super-packet was refused, %), `mark_rate` (CE marks / packets sent).
Beside them: per-bucket statistics (count, mean, median, p99 of the slowdown) pooled over
seeds, the slowdown-against-size curve (p50 and p99 in log-spaced size bins), and per-tier
link utilisation and drops by cause.

Queue series at two chosen ports (our datacenter specification): every run samples the queues of
`queue_ports()` every QUEUE_INTERVAL = 100 us (`[output] sample_queues` and
`sample_interval`): the host-facing port leaf0->h0_0 (the incast client's port, so the
busiest leaf's; under all-to-all traffic every host-facing port is alike, and this one is
kept for every workload so the workloads compare) and the leaf uplink leaf0->spine0.
100 us is 83 packet times at 10 Gbps: 1,601 rows a port at full scale (160 ms; 1,001 at
--quick), far below the 2 x 10^7 row limit, and a summary small enough for the JSON.
Metrics of every run (so in `variants` with `_ci95` and `_per_seed`): `queue_p99_pkts`
and `queue_mean_pkts` at the host-facing port and `uplink_queue_p99_pkts`, over the
samples in the measured window [W, T). The first seed's series of the figure-load
variants go to the summary (`queue_series`) for the report's queue figure.
Under data mining a fixed port can sit idle (seed 1 at full scale: leaf0->h0_0 at 2.3 %
utilisation, the load on the few hosts receiving the largest flows; docs/experiments/datacenter.md).

Slowdown is the simulator's: FCT over the FCT of the same flow alone on the empty fabric
with an unlimited window (handshake, the first packet stored and forwarded, the rest at
the path's bottleneck rate), so >= 1 for every completed flow.
"""

from __future__ import annotations

import functools
import math
import sys
from dataclasses import dataclass
from typing import Any

from superpacket import api
from superpacket.experiments.common import (
    PAPER_HOST,
    Sc,
    ms,
    params_from,
    run_seeds,
    same,
    seconds,
    seed_list,
    spaced,
    summarize,
)
from superpacket.experiments.record import ALIZADEH_2010, Claim, Experiment, Number, Quick

DEFAULT_SEEDS = 3

MSS = 1460
HEADER = 40
SMALL_MAX_BYTES = 100_000  # small: size < 100 KB
LARGE_MIN_BYTES = 10_000_000  # large: size > 10 MB
BUCKETS = (("0-100KB", 0, 100_000), ("100KB-1MB", 100_000, 1_000_000), ("1-10MB", 1_000_000, 10_000_000),
           (">10MB", 10_000_000, math.inf))
BUFFER_PKTS = 500
NIC_PKTS = 500
K_10G = 65
K_40G = 4 * K_10G
SP_MAX_PKTS = 64
SP_THRESHOLD = BUFFER_PKTS // 2
RIOPS_LT_PKTS = 69
W_Q = 1.0 / 512.0
RED_SET = (0.15, 0.5, 0.1)  # (min_th, max_th, p_max), min/max as fractions of the buffer
RIO_SHORT = (0.15, 0.35, 1.0 / 20.0)
RIO_LONG = (0.15, 0.5, 0.1)
MIN_RTO = "10ms"
INIT_RTO = "10ms"
INCAST: dict[str, Any] = {"client": "h0_0", "servers": ["h1_*"], "bytes": 20_000, "period": "2ms", "jitter": "20us"}
SIZE_BINS_PER_DECADE = 4
QUEUE_INTERVAL = "100us"  # the queue series' interval (module doc)

SCHEMES = ("droptail-newreno", "droptail-cubic", "dctcp", "red-ecn-newreno", "riops-newreno", "sp-newreno")
WORKLOADS = ("web_search", "data_mining", "incast")
LOADS = (0.3, 0.5, 0.7)
FIGURE_LOAD = 0.5  # the slowdown-against-size plot, the bucket and tier tables
KEYS = ("small_p99_slowdown", "small_mean_slowdown", "large_mean_slowdown", "drop_rate", "mid_mean_slowdown",
        "unfinished_flows", "small_timeout_pct", "sp_denied_pct", "mark_rate", "queue_p99_pkts", "queue_mean_pkts",
        "uplink_queue_p99_pkts")
TIERS = ("host_nic", "leaf_down", "leaf_up", "spine_down")


class DatacenterInputError(ValueError):
    """Bad experiment input; the message is one line naming the field."""


@dataclass(frozen=True)
class Scale:
    leaves: int
    spines: int
    hosts_per_leaf: int
    arrivals_s: float  # T: flows arrive over [0, T)
    warmup_s: float  # W: measured flows start in [W, T)
    drain_s: float  # the run ends at T + drain
    workloads: tuple[str, ...]
    loads: tuple[float, ...]
    schemes: tuple[str, ...]

    @property
    def duration_s(self) -> float:
        return self.arrivals_s + self.drain_s

    def variants(self) -> list[str]:
        return [variant_name(w, x, s) for w in self.workloads for x in self.loads for s in self.schemes]


FULL = Scale(leaves=9, spines=4, hosts_per_leaf=16, arrivals_s=0.1, warmup_s=0.02, drain_s=0.06,
             workloads=WORKLOADS, loads=LOADS, schemes=SCHEMES)
# --quick: 3 racks of 8 hosts, 2 spines (80 Gbps of fabric per leaf for 80 Gbps of hosts),
# web search at 50 %, DropTail, DCTCP and super-packets: a few seconds in all
QUICK_SCALE = Scale(leaves=3, spines=2, hosts_per_leaf=8, arrivals_s=0.06, warmup_s=0.01, drain_s=0.04,
                    workloads=("web_search",), loads=(0.5,), schemes=("droptail-newreno", "dctcp", "sp-newreno"))
QUICK = Quick("3 racks of 8 hosts, 2 spines; web search at 50 % load; DropTail, DCTCP and super-packets (9 racks "
              "of 16 hosts, 4 spines, every workload, load and scheme at full scale)", {"scale": QUICK_SCALE})


def variant_name(workload: str, load: float, scheme: str) -> str:
    """("web_search", 0.5, "dctcp") -> "web_search/0.5/dctcp"."""
    return f"{workload}/{load:g}/{scheme}"


def parse_variant(name: str) -> tuple[str, float, str]:
    """The inverse of variant_name; a name outside the experiment's space is refused."""
    parts = name.split("/")
    try:
        w, load, s = parts[0], float(parts[1]), parts[2]
    except (IndexError, ValueError):
        raise DatacenterInputError(f"variant: {name!r} is not <workload>/<load>/<scheme>") from None
    if len(parts) != 3 or w not in WORKLOADS or s not in SCHEMES or not 0 < load <= 1:
        raise DatacenterInputError(f"variant: unknown {name!r} (workloads {', '.join(WORKLOADS)}; loads in (0, 1]; "
                                   f"schemes {', '.join(SCHEMES)})")
    return w, load, s


# ---- the scenario ---------------------------------------------------------------------

def _red(limit: int, s: tuple[float, float, float]) -> dict[str, Any]:
    return {"min_th": s[0] * limit, "max_th": s[1] * limit, "p_max": s[2]}


def port_queues(scheme: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the switch ports' queue, `[[topology.queues]]` entries over it) of a scheme."""
    dt = {"kind": "droptail", "limit": BUFFER_PKTS}
    if scheme.startswith("droptail"):
        return dt, []
    if scheme == "dctcp":
        return dt, [{"ports": "host_facing", "queue": {**dt, "ecn_threshold": K_10G}},
                    {"ports": "leaf_uplinks", "queue": {**dt, "ecn_threshold": K_40G}},
                    {"ports": "spine_downlinks", "queue": {**dt, "ecn_threshold": K_40G}}]
    if scheme == "red-ecn-newreno":
        red = {"kind": "red", "limit": BUFFER_PKTS, **_red(BUFFER_PKTS, RED_SET), "w_q": W_Q, "gentle": True,
               "wait": True, "ecn": True, "mean_pkt_size": MSS + HEADER}
        return red, []
    if scheme == "riops-newreno":
        rio = {"kind": "riops", "limit": BUFFER_PKTS, "short": _red(BUFFER_PKTS, RIO_SHORT),
               "long": _red(BUFFER_PKTS, RIO_LONG), "w_q": W_Q, "gentle": True, "wait": True, "ecn": True,
               "mean_pkt_size": MSS + HEADER}
        return dt, [{"ports": "host_facing", "queue": rio}, {"ports": "leaf_uplinks", "queue": rio}]
    if scheme == "sp-newreno":
        return {"kind": "superpacket", "limit": BUFFER_PKTS, "threshold": SP_THRESHOLD, "epoch": "80ms",
                "admit_syn": True}, []
    raise DatacenterInputError(f"scheme: unknown {scheme!r}")


def tcp_spec(scheme: str) -> dict[str, Any]:
    cc = "cubic" if scheme.endswith("cubic") else "dctcp" if scheme == "dctcp" else "newreno"
    t: dict[str, Any] = {"host": PAPER_HOST, "cc": cc, "mss": MSS, "init_cwnd": 10, "min_rto": MIN_RTO, "init_rto": INIT_RTO,
                         "delayed_ack": False, "recovery": "newreno", "local_drop": "cwr"}
    if scheme in ("red-ecn-newreno", "riops-newreno"):
        t["ecn"] = True
    return t


SP_TCP = {"superpacket": "flow", "sp_on_denial": "fallback"}


def topology(scale: Scale, scheme: str) -> dict[str, Any]:
    switch_q, entries = port_queues(scheme)
    host_link: dict[str, Any] = {"rate": "10Gbps", "delay": "1us", "queue": switch_q}
    if scheme == "riops-newreno":
        host_link["classifier"] = {"lt": RIOPS_LT_PKTS, "tu": "1s", "max_flows": 4096}
    return {
        "kind": "leaf_spine", "leaves": scale.leaves, "spines": scale.spines, "hosts_per_leaf": scale.hosts_per_leaf,
        "host_link": host_link,
        "fabric_link": {"rate": "40Gbps", "delay": "1us", "queue": switch_q},
        "routing": "ecmp",
        # later entries win: the scheme's ports, then the hosts' own NICs
        "queues": [*entries, {"ports": "host_nics", "queue": nic_queue(scheme)}],
    }


def nic_queue(scheme: str) -> dict[str, Any]:
    """The hosts' own NIC queues: the 500-packet port buffer, marking at K for DCTCP (as a
    Linux DCTCP host's qdisc does with fq_codel's ce_threshold), DropTail otherwise (RED,
    RIO-PS and the super-packet router are switch mechanisms); a NIC drop makes the
    sender enter CWR, as Linux's tcp_enter_cwr (`[tcp] local_drop = "cwr"`)."""
    q: dict[str, Any] = {"kind": "droptail", "limit": NIC_PKTS}
    if scheme == "dctcp":
        q["ecn_threshold"] = K_10G
    return q


def queue_ports() -> list[str]:
    """The sampled ports: the host-facing port of the incast client (leaf0->h0_0) and its
    leaf's first uplink (leaf0->spine0); hosts are h{leaf}_{i}."""
    client = INCAST["client"]
    leaf = f"leaf{client[1:].split('_')[0]}"
    return [f"{leaf}->{client}", f"{leaf}->spine0"]


def scenario(variant: str, scale: Scale = FULL) -> dict[str, Any]:
    workload, load, scheme = parse_variant(variant)
    stop = f"{scale.arrivals_s * 1e3:g}ms"
    wl: dict[str, Any] = {"kind": "workload", "hosts": ["h*"], "cdf": "data_mining" if workload == "data_mining"
                          else "web_search", "load": load, "pattern": "all_to_all", "stop": stop}
    if scheme == "sp-newreno":
        wl["short_tcp"] = {"max_bytes": SP_MAX_PKTS * MSS, "tcp": dict(SP_TCP)}
    traffic = [wl]
    if workload == "incast":
        inc: dict[str, Any] = {"kind": "incast", **INCAST, "start": "1ms", "stop": stop}
        if scheme == "sp-newreno":
            inc["tcp"] = dict(SP_TCP)
        traffic.append(inc)
    return {
        "name": f"datacenter-{variant.replace('/', '-')}",
        "duration": f"{scale.duration_s * 1e3:g}ms",
        "topology": topology(scale, scheme),
        "tcp": tcp_spec(scheme),
        "traffic": traffic,
        "output": {"sample_queues": queue_ports(), "sample_interval": QUEUE_INTERVAL},
    }


# ---- statistics -----------------------------------------------------------------------

def quantile(xs: list[float], q: float) -> float:
    """The q-quantile with linear interpolation between order statistics (numpy's default,
    Hyndman-Fan type 7); NaN for no values."""
    if not xs:
        return math.nan
    s = sorted(xs)
    h = (len(s) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[hi] - s[lo])


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else math.nan


def bucket_of(size_bytes: float) -> str:
    for name, lo, hi in BUCKETS:
        if lo <= size_bytes < hi:
            return name
    return BUCKETS[-1][0]


def bucket_summary(sizes: list[float], slowdowns: list[float]) -> list[dict[str, Any]]:
    """Per size bucket (0-100 KB, 100 KB-1 MB, 1-10 MB, > 10 MB; lower bound included):
    count, mean, median and p99 of the slowdowns."""
    by: dict[str, list[float]] = {b[0]: [] for b in BUCKETS}
    for z, s in zip(sizes, slowdowns, strict=True):
        by[bucket_of(z)].append(s)
    return [{"bucket": b, "count": len(xs), "mean": _mean(xs), "median": quantile(xs, 0.5),
             "p99": quantile(xs, 0.99)} for b, xs in by.items()]


def size_bins(sizes: list[float], slowdowns: list[float], per_decade: int = SIZE_BINS_PER_DECADE) -> dict[str, list[float]]:
    """The slowdown against flow size: log-spaced bins (`per_decade` a decade, edges at
    10^(k / per_decade) bytes); per non-empty bin its geometric centre, count, p50, p99."""
    by: dict[int, list[float]] = {}
    for z, s in zip(sizes, slowdowns, strict=True):
        k = math.floor(math.log10(max(z, 1.0)) * per_decade + 1e-9)
        by.setdefault(k, []).append(s)
    out: dict[str, list[float]] = {"size_bytes": [], "count": [], "p50": [], "p99": []}
    for k in sorted(by):
        xs = by[k]
        out["size_bytes"].append(10 ** ((k + 0.5) / per_decade))
        out["count"].append(len(xs))
        out["p50"].append(quantile(xs, 0.5))
        out["p99"].append(quantile(xs, 0.99))
    return out


def tier_of(src: str, dst: str) -> str:
    if src.startswith("h"):
        return "host_nic"
    if src.startswith("leaf"):
        return "leaf_down" if dst.startswith("h") else "leaf_up"
    return "spine_down"


def tier_stats(links: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per tier: links, mean and max utilisation, arrivals, marks and drops by cause."""
    out: dict[str, dict[str, float]] = {}
    for r in links:
        t = tier_of(str(r["from"]), str(r["to"]))
        d = out.setdefault(t, {"links": 0.0, "util_sum": 0.0, "max_utilization": 0.0, "arrivals": 0.0,
                               "marks": 0.0, "drops": 0.0})
        d["links"] += 1
        d["util_sum"] += float(r["utilization"])
        d["max_utilization"] = max(d["max_utilization"], float(r["utilization"]))
        for k in ("arrivals", "marks", "drops"):
            d[k] += float(r[k])
        for k, v in r.items():
            if k.startswith("drops_") and v:
                d[k] = d.get(k, 0.0) + float(v)
    for d in out.values():
        d["mean_utilization"] = d.pop("util_sum") / d["links"]
    return out


def queue_stats(res: api.Results, ports: list[str], scale: Scale) -> dict[str, dict[str, Any]]:
    """Per sampled port: its series (t_s, pkts, sorted by time) and the p99 and mean of the
    samples taken in the measured window [W, T)."""
    qs = res.queue_series
    out: dict[str, dict[str, Any]] = {}
    for p in ports:
        x = qs.filter(qs["link"] == p).sort("t_s")
        t, n = x["t_s"].to_list(), [float(v) for v in x["pkts"].to_list()]
        win = [v for tt, v in zip(t, n, strict=True) if scale.warmup_s <= tt < scale.arrivals_s]
        out[p] = {"t_s": t, "pkts": n, "p99": quantile(win, 0.99), "mean": _mean(win)}
    return out


def measure(res: api.Results, scale: Scale, ports: list[str] | None = None,
            keep_series: bool = False) -> dict[str, Any]:
    """One run's metrics (KEYS) and detail: the measured flows' sizes and slowdowns, the
    tiers, counters of the super-packet and timeout explanation; the queue statistics of
    the sampled `ports` (host-facing, uplink), and with `keep_series` their series."""
    fl = res.flows.to_dicts()
    measured = [f for f in fl if scale.warmup_s <= float(f["start_s"]) < scale.arrivals_s]
    done = [f for f in measured if f["completed"]]
    sizes = [float(f["size_bytes"]) for f in done]
    slow = [float(f["slowdown"]) for f in done]
    small = [f for f in done if f["size_bytes"] < SMALL_MAX_BYTES]
    small_all = [f for f in measured if f["size_bytes"] < SMALL_MAX_BYTES]
    large = [float(f["slowdown"]) for f in done if f["size_bytes"] > LARGE_MIN_BYTES]
    mid = [float(f["slowdown"]) for f in done if SMALL_MAX_BYTES <= f["size_bytes"] <= LARGE_MIN_BYTES]
    links = res.links.to_dicts()
    sent = sum(float(r["arrivals"]) for r in links if str(r["from"]).startswith("h"))
    drops = sum(float(r["drops"]) for r in links)
    marks = sum(float(r["marks"]) for r in links)
    ss = [float(f["slowdown"]) for f in small]
    sp = [f for f in small_all if f["sp_sent"]]
    denied = [f for f in sp if f["sp_denied"]]
    n_small = len(small_all)
    out: dict[str, Any] = {
        "small_p99_slowdown": quantile(ss, 0.99),
        "small_mean_slowdown": _mean(ss),
        "large_mean_slowdown": _mean(large),
        "drop_rate": drops / sent if sent else math.nan,
        "mid_mean_slowdown": _mean(mid),
        "unfinished_flows": float(len(measured) - len(done)),
        "small_timeout_pct": 100.0 * sum(1 for f in small_all if f["timeouts"]) / n_small if n_small else math.nan,
        "sp_denied_pct": 100.0 * len(denied) / n_small if n_small else 0.0,
        "mark_rate": marks / sent if sent else math.nan,
        # detail
        "sizes": sizes,
        "slowdowns": slow,
        "flows": len(fl),
        "measured": len(measured),
        "small_flows": n_small,
        "large_flows": len(large),
        "tiers": tier_stats(links),
        "sp_flows": len(sp),
        "sp_denied_flows": len(denied),
        "sp_fell_back": sum(1 for f in sp if f["sp_fell_back"]),
        "denied_timeouts": sum(int(f["timeouts"]) for f in denied),
        "small_timeouts": sum(int(f["timeouts"]) for f in small_all),
        "small_slowdown_denied": [float(f["slowdown"]) for f in denied if f["completed"]],
        "conservation": res.summary["conservation"],
        "wall_s": res.wall_s,
    }
    ports = ports or queue_ports()
    q = queue_stats(res, ports, scale)
    out["queue_p99_pkts"] = q[ports[0]]["p99"]
    out["queue_mean_pkts"] = q[ports[0]]["mean"]
    out["uplink_queue_p99_pkts"] = q[ports[1]]["p99"]
    if keep_series:
        out["queue_series"] = {"t_s": q[ports[0]]["t_s"], **{p: q[p]["pkts"] for p in ports}}
    return out


def run_point(variant: str, seed: int, scale: Scale = FULL, scs: dict[str, dict[str, Any]] | None = None,
              series: frozenset[str] = frozenset(), series_seed: int = 1) -> dict[str, Any]:
    """One run: the scenario `scs[variant]` (the dicts the report reads) or built. The
    `series` variants' run of `series_seed` (the first seed run) keeps the queue series."""
    sc = scs[variant] if scs else scenario(variant, scale)
    res = api.run(sc, seed=seed, progress=False)
    return measure(res, scale, list(sc["output"]["sample_queues"]), seed == series_seed and variant in series)


# ---- the summary ----------------------------------------------------------------------

#: Our datacenter specification's must-hold, per load run of 50 % and 70 % ({load}).
DCTCP_P99 = Claim("dctcp-small-p99", "DCTCP's small-flow (< 100 KB) p99 slowdown below DropTail's (NewReno) at {load:g} "
                  "web-search load (the DCTCP paper's headline)",
                  "the small flows' p99 slowdown, DCTCP's against DropTail's (NewReno hosts; means over seeds)",
                  number=Number(("ratio",), "ratio {:.2f}"))
DCTCP_QUEUE = Claim("dctcp-queue-p99", "(finding, not a must-hold) DCTCP keeps the incast client's host-facing port's "
                    "p99 queue below DropTail's (NewReno) at {load:g} web-search load (the DCTCP paper: a short queue "
                    "near K instead of a full buffer)",
                    "the p99 queue of the incast client's host-facing port, DCTCP's against DropTail's",
                    must_hold=False)
#: The super-packet finding against DropTail, per workload and load run.
SP_FINDING = Claim("sp-small-slowdown", "(finding, not a must-hold) {workload} at {load:g}: super-packets' small-flow "
                   "p99 and mean slowdown below DropTail's",
                   "the small flows' p99 and mean slowdown, super-packets' against DropTail's (NewReno hosts); where "
                   "they lose, why, from the counters", must_hold=False)


def claims(variants: dict[str, dict[str, Any]], loads: tuple[float, ...] = LOADS,
           explain: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Our datacenter specification's must-hold (DCTCP's small-flow p99 slowdown below DropTail's, NewReno
    hosts, at 50 % and 70 % web-search load; judged at whichever of them were run) and
    the super-packet finding against DropTail per workload and load (not a must-hold; the
    explanation from the counters where super-packets lose)."""
    out: list[dict[str, Any]] = []
    for load in (x for x in (0.5, 0.7) if x in loads):
        dt, dc = variant_name("web_search", load, "droptail-newreno"), variant_name("web_search", load, "dctcp")
        if dt not in variants or dc not in variants:
            continue
        a, b = variants[dt]["small_p99_slowdown"], variants[dc]["small_p99_slowdown"]
        out.append(DCTCP_P99.result(
            {"load": load},
            variant=f"{dc} vs {dt}",
            dctcp_small_p99_slowdown=b,
            droptail_small_p99_slowdown=a,
            ratio=b / a if a else math.nan,
            holds=bool(b < a),
        ))
        if "queue_p99_pkts" in variants[dt] and "queue_p99_pkts" in variants[dc]:
            qa, qb = variants[dt]["queue_p99_pkts"], variants[dc]["queue_p99_pkts"]
            out.append(DCTCP_QUEUE.result(
                {"load": load},
                variant=f"{dc} vs {dt}",
                dctcp_queue_p99_pkts=qb,
                droptail_queue_p99_pkts=qa,
                holds=bool(qb < qa),
            ))
    for v, m in variants.items():
        w, load, s = parse_variant(v)
        if s != "sp-newreno":
            continue
        base = variants.get(variant_name(w, load, "droptail-newreno"))
        if base is None:
            continue
        p99, mean = m["small_p99_slowdown"], m["small_mean_slowdown"]
        c = SP_FINDING.result(
            {"workload": w, "load": load},
            variant=f"{v} vs {variant_name(w, load, 'droptail-newreno')}",
            sp_small_p99_slowdown=p99,
            droptail_small_p99_slowdown=base["small_p99_slowdown"],
            sp_small_mean_slowdown=mean,
            droptail_small_mean_slowdown=base["small_mean_slowdown"],
            sp_large_mean_slowdown=m["large_mean_slowdown"],
            droptail_large_mean_slowdown=base["large_mean_slowdown"],
            sp_denied_pct=m["sp_denied_pct"],
            sp_small_timeout_pct=m["small_timeout_pct"],
            droptail_small_timeout_pct=base["small_timeout_pct"],
            sp_drop_rate=m["drop_rate"],
            droptail_drop_rate=base["drop_rate"],
            holds=bool(p99 < base["small_p99_slowdown"] and mean < base["small_mean_slowdown"]),
        )
        # where they lose: small flows, or the large flows' mean slowdown or the drop rate
        lost = [] if c["holds"] else ["small flows"]
        if m["large_mean_slowdown"] > base["large_mean_slowdown"]:
            lost.append(f"large flows (mean slowdown {m['large_mean_slowdown']:.2f} vs "
                        f"{base['large_mean_slowdown']:.2f})")
        if m["drop_rate"] > base["drop_rate"]:
            lost.append(f"drop rate ({100 * m['drop_rate']:.3f} % vs {100 * base['drop_rate']:.3f} %)")
        c["lose_on"] = lost
        if explain and v in explain:
            c["why"] = explain[v]
            if lost:  # in the claim's text, so the report and the command line show it
                c["claim"] += f"; they lose on {', '.join(lost)}, why: {explain[v]}"
        out.append(c)
    return out


def explanation(variant: str, runs: list[dict[str, Any]], base_runs: list[dict[str, Any]]) -> str:
    """Why super-packets came out as they did at one point, from the counters over seeds."""
    n_small = sum(r["small_flows"] for r in runs)
    n_sp = sum(r["sp_flows"] for r in runs)
    n_den = sum(r["sp_denied_flows"] for r in runs)
    fell = sum(r["sp_fell_back"] for r in runs)
    rto_den = sum(r["denied_timeouts"] for r in runs)
    den_slow = [x for r in runs for x in r["small_slowdown_denied"]]
    sp_rto = sum(r["small_timeouts"] for r in runs) / n_small if n_small else math.nan
    b_small = sum(r["small_flows"] for r in base_runs)
    dt_rto = sum(r["small_timeouts"] for r in base_runs) / b_small if b_small else math.nan
    causes: dict[str, float] = {}
    for r in runs:
        for t in r["tiers"].values():
            for k, x in t.items():
                if k.startswith("drops_sp_") or k == "drops_overflow":
                    causes[k] = causes.get(k, 0.0) + x
    top = ", ".join(f"{k.removeprefix('drops_')} {x:,.0f}" for k, x in sorted(causes.items(), key=lambda kv: -kv[1])
                    if x > 0) or "none"
    return (f"{variant}: {n_sp} of {n_small} small flows went as super-packets (up to {SP_MAX_PKTS} packets), "
            f"{n_den} were refused ({100 * n_den / n_sp if n_sp else 0:.2f} %), {fell} fell back to NewReno; the "
            f"refused flows took {rto_den} timeouts in all (each at least the {MIN_RTO} min RTO, hundreds of times a "
            f"small flow's ideal FCT of tens of us), median slowdown of a refused flow "
            f"{quantile(den_slow, 0.5):.1f}. Timeouts per small flow: {sp_rto:.4f} with super-packets, {dt_rto:.4f} "
            f"with DropTail. Drops by cause over the seeds: {top}; normal packets (every flow above "
            f"{SP_MAX_PKTS} packets, and retransmissions after a fall-back) are refused once a queue holds "
            f"t = {SP_THRESHOLD}, half the DropTail buffer.")


def check_seeds(seeds: Any) -> list[int]:
    """The seeds to run (common.seed_list: N means 1..N, or a list)."""
    try:
        return seed_list(seeds)
    except ValueError as e:
        raise DatacenterInputError(str(e)) from None


def run(seeds: Any = DEFAULT_SEEDS, quick: bool = False, client: Any = None, progress: bool | None = None,
        scale: Scale | None = None, **_: Any) -> dict[str, Any]:
    """Every variant of the scale (FULL, or QUICK's with `quick`) over the seeds (N: 1..N, or a list).
    `client`: a `distributed.Client` (same results)."""
    seeds = check_seeds(seeds)
    sc = scale or (QUICK.values["scale"] if quick else FULL)
    variants = sc.variants()
    scs = {v: scenario(v, sc) for v in variants}
    fig_load = FIGURE_LOAD if FIGURE_LOAD in sc.loads else sc.loads[0]
    series = frozenset(v for v in variants if parse_variant(v)[1] == fig_load)
    per_seed, detail = run_seeds(variants, seeds, KEYS, functools.partial(run_point, scale=sc, scs=scs,
                                                                          series=series, series_seed=seeds[0]),
                                 client, progress)
    summary_variants = summarize(per_seed)
    explain = {}
    for v in variants:
        w, load, s = parse_variant(v)
        b = variant_name(w, load, "droptail-newreno")
        if s == "sp-newreno" and b in detail:
            explain[v] = explanation(v, detail[v], detail[b])
    pooled = {v: ([z for r in ds for z in r["sizes"]], [x for r in ds for x in r["slowdowns"]])
              for v, ds in detail.items()}
    bucket_rows, tier_rows = [], []
    for v in variants:
        w, load, s = parse_variant(v)
        if load != fig_load:
            continue
        for r in bucket_summary(*pooled[v]):
            bucket_rows.append({"variant": v, **r})
        for t in TIERS:
            rows = [d["tiers"].get(t, {}) for d in detail[v]]
            keys = sorted({k for r in rows for k in r})
            tier_rows.append({"variant": v, "tier": t, **{k: _mean([r.get(k, 0.0) for r in rows]) for k in keys}})
    return {
        "experiment": "datacenter",
        "seeds": len(seeds),
        "seed_list": seeds,
        "quick": bool(quick),
        "params": params(sc, len(seeds), quick, scs),
        "variants": summary_variants,
        "paper": {},
        "claims": claims(summary_variants, sc.loads, explain),
        "sp_explanation": explain,
        "figure_load": fig_load,
        "bucket_table": bucket_rows,
        "tier_table": tier_rows,
        "buckets": {v: bucket_summary(*pooled[v]) for v in variants},
        "size_bins": {v: size_bins(*pooled[v]) for v in variants},
        "queue_series": queue_series_summary(sc, scs, {v: detail[v][0]["queue_series"] for v in variants
                                                       if "queue_series" in detail[v][0]}, seeds[0]),
        "per_run": {v: [{k: d[k] for k in ("flows", "measured", "small_flows", "large_flows", "sp_flows",
                                            "sp_denied_flows", "sp_fell_back", "denied_timeouts", "small_timeouts",
                                            "conservation", "wall_s")} for d in ds] for v, ds in detail.items()},
    }


def queue_series_summary(sc: Scale, scs: dict[str, dict[str, Any]], series: dict[str, dict[str, list[float]]],
                         seed: int) -> dict[str, Any]:
    """The summary's `queue_series`: per sampled port its role, buffer and DCTCP marking
    threshold K (read from the scenarios that ran: a DCTCP one where it ran, else built for
    reading), the interval, the measured window, and the first seed's series of the
    figure-load variants (t_s and the queue in packets at each port)."""
    any_sc = next(iter(scs.values()))
    ports = list(any_sc["output"]["sample_queues"])
    dv = next((v for v in scs if parse_variant(v)[2] == "dctcp"), None)
    dsc = scs[dv] if dv else scenario(variant_name(sc.workloads[0], sc.loads[0], "dctcp"), sc)
    k = {e["ports"]: e["queue"].get("ecn_threshold") for e in dsc["topology"]["queues"]}
    topo = any_sc["topology"]
    return {
        "interval_s": seconds(same(*(x["output"]["sample_interval"] for x in scs.values()))),
        "window_s": [sc.warmup_s, sc.arrivals_s],
        "seed": seed,
        "ports": {ports[0]: {"role": "host-facing (leaf -> the incast client)",
                             "buffer_pkts": topo["host_link"]["queue"]["limit"], "dctcp_k_pkts": k["host_facing"]},
                  ports[1]: {"role": "leaf uplink (leaf -> spine)",
                             "buffer_pkts": topo["fabric_link"]["queue"]["limit"], "dctcp_k_pkts": k["leaf_uplinks"]}},
        "variants": series,
    }


REPORT_TABLES = {
    "bucket_table": (("Slowdown by flow-size bucket at the figure load (our datacenter specification), flows of every seed "
                     "pooled: count, mean, median, p99."), ["variant", "bucket", "count", "mean", "median", "p99"]),
    "tier_table": (("Per-tier link utilisation and drops by cause at the figure load (means over seeds; tiers: host "
                   "NICs, leaf -> host, leaf -> spine, spine -> leaf)."),
                   ["variant", "tier", "links", "mean_utilization", "max_utilization", "arrivals", "marks", "drops"]),
}


def params(sc: Scale, seeds: int, quick: bool,
           scs: dict[str, dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    """The summary's `params`: the scenario's numbers read from the variants' scenarios
    `scs` (the ones that ran; built here when not given), the rest as written here. One
    scenario of each scheme and of the incast workload is read: the incast's at the first
    load is built for reading when the scale runs no incast (--quick)."""
    scs = dict(scs) if scs is not None else {v: scenario(v, sc) for v in sc.variants()}
    ran = list(scs)
    # one scenario per scheme and one of the incast, built at this scale for reading where
    # the scale runs none (--quick runs three schemes of web search)
    per_scheme = {}
    for s in SCHEMES:
        per_scheme[s] = next((v for v in ran if parse_variant(v)[2] == s),
                             variant_name(sc.workloads[0], sc.loads[0], s))
    inc = next((v for v in ran if parse_variant(v)[0] == "incast"),
               variant_name("incast", sc.loads[0], SCHEMES[0]))
    for v in [*per_scheme.values(), inc]:
        if v not in scs:
            scs[v] = scenario(v, sc)
    any_v = ran[0]
    topo = f"{any_v}:topology"
    dt = per_scheme["droptail-newreno"]

    def entry(v: str, ports: str) -> int:
        # the index of the [[topology.queues]] entry of `ports` in variant v's scenario
        return next(i for i, e in enumerate(scs[v]["topology"]["queues"]) if e["ports"] == ports)

    def gbps(rate: str) -> str:
        return spaced(rate)

    t: dict[str, tuple[Any, str]] = {
        "topology": (Sc(f"{topo}.kind", f"{topo}.leaves", f"{topo}.hosts_per_leaf", f"{topo}.spines",
                        f"{topo}.routing",
                        fmt=lambda k, leaves, hpl, spines, r: (
                            f"{k.replace('_', '-')}, {leaves} leaves x {hpl} hosts = {leaves * hpl} hosts, {spines} "
                            f"spines, per-flow {r.upper()}")),
                     "our datacenter specification" if not quick else "ours (--quick)"),
        "links": (Sc(f"{topo}.host_link.rate", f"{topo}.fabric_link.rate", f"{topo}.host_link.delay",
                     f"{topo}.fabric_link.delay",
                     fmt=lambda h, f, dh, df: f"hosts {gbps(h)}, fabric {gbps(f)}, {spaced(same(dh, df))} each"),
                  "our datacenter specification"),
        "switch_buffers_pkts": (Sc(*(f"{v}:topology.{k}.queue.limit" for v in scs
                                     for k in ("host_link", "fabric_link"))),
                                "our datacenter specification (every switch port; no shared buffer)"),
        "workloads": (list(sc.workloads), "our datacenter specification; the workload tables (DCTCP's web search as HPCC publishes it, VL2's data mining as opera-sim publishes it)"),
        "loads": (Sc(*(f"{v}:traffic[0].load" for v in ran),
                     fmt=lambda *x: list(dict.fromkeys(x))), "our datacenter specification" if not quick else "ours (--quick)"),
        "schemes": (list(sc.schemes), "our datacenter specification; names ours"),
        "small_flow": (f"size < {SMALL_MAX_BYTES:,} B", "our datacenter specification buckets"),
        "large_flow": (f"size > {LARGE_MIN_BYTES:,} B", "our datacenter specification buckets"),
        "tcp": (Sc(f"{dt}:tcp.mss", f"{dt}:tcp.init_cwnd", f"{dt}:tcp.delayed_ack", f"{dt}:tcp.recovery",
                   f"{dt}:tcp.min_rto", f"{dt}:tcp.init_rto",
                   fmt=lambda m, c, d, r, lo, i: (f"MSS {m}, initial cwnd {c}, delayed ACK {'on' if d else 'off'}, "
                                                  f"{'NewReno' if r == 'newreno' else r} recovery, min RTO {lo}, "
                                                  f"initial RTO {i}")),
                "our common defaults; min RTO 10 ms: DCTCP paper; initial RTO ours"),
        "arrivals_s": (Sc(*(f"{v}:traffic[0].stop" for v in scs), fmt=lambda *s: seconds(same(*s))),
                       "ours (flows arrive over [0, T))"),
        "warmup_s": (sc.warmup_s, "ours (measured flows start in [W, T))"),
        "drain_s": (Sc(*(f"{v}:duration" for v in scs), *(f"{v}:traffic[0].stop" for v in scs),
                       fmt=lambda *f: (ms(same(*f[:len(scs)])) - ms(same(*f[len(scs):]))) / 1e3),
                    "ours (the run ends at T + drain; unfinished flows counted)"),
        "incast": (Sc(f"{inc}:traffic[1]", f"{inc}:topology.hosts_per_leaf",
                      fmt=lambda x, hpl: (f"client {x['client']}, servers {x['servers']} ({hpl} hosts, another rack), "
                                          f"{x['bytes']:,} B each, every {x['period']}, jitter {x['jitter']}, over web "
                                          "search at the load")),
                   "ours (the DCTCP paper's partition/aggregate query traffic in form)"),
        "drop_rate": ("packets dropped at any queue / packets the hosts sent (data, SYNs, ACKs)", "ours"),
        "slowdown": ("FCT / ideal FCT (alone on the empty fabric, unlimited window)", "ours; the workload tables of the DCTCP paper and VL2"),
        "size_bins": (f"{SIZE_BINS_PER_DECADE} log-spaced bins per decade of size", "ours"),
        "queue_ports": (Sc(*(f"{v}:output.sample_queues" for v in scs),
                           fmt=lambda *p: (f"{same(*p)[0]} (host-facing, the incast client's port), {same(*p)[1]} "
                                           "(leaf uplink)")),
                        "our datacenter specification (queue series at chosen ports); the ports ours"),
        "queue_interval": (Sc(*(f"{v}:output.sample_interval" for v in scs),
                              fmt=lambda *i: (f"{spaced(same(*i))}; queue_p99_pkts, queue_mean_pkts (host-facing) and "
                                              "uplink_queue_p99_pkts over the samples in [W, T); series of the first "
                                              "seed at the figure load")),
                           "ours (83 packet times at 10 Gbps; 1,601 rows a port at full scale)"),
    }
    v = per_scheme["dctcp"]
    nic, host, up = entry(v, "host_nics"), entry(v, "host_facing"), entry(v, "leaf_uplinks")
    t["host_nic"] = (Sc(f"{v}:topology.queues[{nic}].queue.kind", f"{v}:topology.queues[{nic}].queue.limit",
                        f"{v}:topology.queues[{nic}].queue.ecn_threshold", f"{v}:tcp.local_drop",
                        *(f"{x}:topology.queues[{entry(x, 'host_nics')}].queue.limit" for x in scs),
                        fmt=lambda k, n, kk, ld, *limits: (
                            f"{'DropTail' if k == 'droptail' else k} {same(n, *limits)} (DCTCP: marking at K = "
                            f"{kk}); a NIC drop -> CWR (local_drop = {ld})")),
                     "ours (module doc: a 10,000-packet NIC queue put ms of sender-side delay before short flows)")
    t["dctcp_k_pkts"] = (Sc(f"{v}:topology.queues[{host}].queue.ecn_threshold", f"{topo}.host_link.rate",
                            f"{v}:topology.queues[{up}].queue.ecn_threshold", f"{topo}.fabric_link.rate",
                            fmt=lambda k1, r1, k2, r2: f"{k1} at {gbps(r1)} ports, {k2} at {gbps(r2)} ports; g = 1/16"),
                         "DCTCP paper (K = 65 at 10 Gbps, g = 1/16); x4 at 40 Gbps ours (K scales with C x RTT)")
    t["red_ecn"] = (Sc(f"{per_scheme['red-ecn-newreno']}:topology.host_link.queue",
                       fmt=lambda q: (f"min_th {q['min_th']:g}, max_th {q['max_th']:g}, p_max {q['p_max']:g}, "
                                      f"w_q {_inv(q['w_q'])}{', gentle' if q['gentle'] else ''}"
                                      f"{', ECN marking' if q['ecn'] else ''}")),
                    "Guo and Matta (ICNP 2001) slides' RED set (0.15 B, 0.5 B)")
    v = per_scheme["riops-newreno"]
    t["riops"] = (Sc(f"{v}:topology.queues[{entry(v, 'host_facing')}].queue",
                     f"{v}:topology.queues[{entry(v, 'leaf_uplinks')}].queue", f"{v}:topology.fabric_link.queue",
                     f"{v}:topology.host_link.classifier",
                     fmt=lambda q, q2, spine, c: (
                         f"leaves' ports: short ({q['short']['min_th']:g}, {q['short']['max_th']:g}, "
                         f"{_inv(q['short']['p_max'])}), long ({q['long']['min_th']:g}, {q['long']['max_th']:g}, "
                         f"{_inv(q['long']['p_max'])}){', ECN' if same(q, q2)['ecn'] else ''}; spines "
                         f"{'DropTail' if spine['kind'] == 'droptail' else spine['kind']} {spine['limit']}; "
                         f"classifier on every host NIC, L_t {c['lt']} packets fixed, T_u {spaced(c['tu'])}")),
                  "Guo and Matta (ICNP 2001) (sets, classifier); L_t = 100 KB and leaves-only placement ours")
    v = per_scheme["sp-newreno"]
    t["superpacket"] = (Sc(f"{v}:traffic[0].short_tcp", f"{v}:tcp.mss", f"{v}:topology.host_link.queue",
                           f"{v}:topology.fabric_link.queue",
                           fmt=lambda st, mss, q, q2: (
                               f"flows <= {st['max_bytes'] // mss} packets ({st['max_bytes']:,} B) as one "
                               f"super-packet, fallback to NewReno on a denial; router buffSize {same(q, q2)['limit']}, "
                               f"t = {q['threshold']}, EPOCH {spaced(q['epoch'])}, Bloom 2^16 x 4"
                               f"{', SYNs admitted' if q['admit_syn'] else ''}, at every switch port")),
                        ("Li (UCB/EECS-2013-83), our specification (EPOCH, Bloom, fallback); max_len 64 the router's; t = B/2 and "
                         "admit_syn ours"))
    out = params_from(t, scs)
    out["seeds"] = {"value": seeds, "source": "ours (3 by default: thousands of small flows per run)"}
    return out


def _inv(x: float) -> str:
    """1/512 -> "1/512", 0.05 -> "1/20" (the sets as the slides write them)."""
    n = round(1.0 / x)
    return f"1/{n}" if math.isclose(x, 1.0 / n, rel_tol=1e-12) else f"{x:g}"


EXPERIMENT = Experiment(
    name="datacenter", paper=ALIZADEH_2010,
    part="the comparison it and its successors draw (small-flow tail slowdown against load)",
    module=sys.modules[__name__],
    run=run,
    default_seeds=DEFAULT_SEEDS,
    report_tables=REPORT_TABLES,
    options=("quick",),  # the command line's --quick
    quick=QUICK,
    claims=(DCTCP_P99, DCTCP_QUEUE, SP_FINDING),
    parallel_by_default=True,  # 162 runs per seed at full scale: a local Dask cluster unless --workers 0
    generic_bars=False,  # the report draws its own figures (figures/datacenter.py)
    figures="superpacket.experiments.figures.datacenter:datacenter",
)
