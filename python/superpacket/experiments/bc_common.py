"""Pieces shared by the burstiness-control experiments `fast-burstiness` and `datatag`
(D. X. Wei, S. Hegde, S. H. Low, "Burstiness Control for High Speed Long
Distance TCP", PFLDnet 2005, slides; our specification "Burstiness control and FAST TCP";
FAST: Jin, Wei and Low (INFOCOM 2004); the burstiness measure B and its gate: our reconstruction of the slides' rule).

The network (graph topology, node names ours):

    S0..S{n-1} --(host NIC queue = txqueuelen)--> R1 ==bottleneck==> R2 --> D0..D{n-1}
                                      Y <-- R1 <== reverse path ==== R2 <-- X

Each sender host S_i has its own line-rate link to R1 whose egress queue is the host's
NIC queue (txqueuelen, DropTail in packets): data dropped there is a *sender drop*
(`flows.sender_drops`), data dropped at a router queue is a *router drop*. The
host behaves as Linux's tcp_write_xmit (`[tcp] local_drop = "hold"`): a segment the NIC
queue refuses is not lost, it stays unsent, the flow enters CWR once (tcp_enter_cwr)
and sends it when the queue has room. Linux's qdisc counts each refusal as a drop, and
so do the slides: a sender drop here is a refusal (`flows.nic_refusals`) or a segment
the NIC lost (`flows.sender_drops`, none with "hold" but for a SYN). The retransmission
timer is Linux's too (`rto_formula = "linux"`: the variance term at least min RTO). R1 -> R2 is the bottleneck with the router buffer
(the same buffer on R2 -> R1, the reverse path of the same router). ACK compression:
a host X behind R2 sends on-off traffic to Y behind R1 at an on-rate above the reverse
link's rate, 20 % of that link on average (our specification), so the ACKs queue behind its
bursts at R2 -> R1 and leave together once a burst has drained: one compressed batch of
ACKs releases a burst of data at the host's line rate. The `no-reverse` variants leave
X silent (the sanity check: with a large txqueuelen the host then drops nothing).

Variant names: `<scheme>[-bc]/txq<N>[/no-reverse][/newreno-recovery]`, e.g.
`fast/txq100`, `fast-bc/txq100`, `reno/txq10000`: scheme `fast` (FAST TCP) or `reno`
(NewReno congestion control), `-bc` with the burstiness-control gate (`[tcp] gate =
{ kind = "burstiness" }`), N the senders' txqueuelen; SACK loss recovery (our specification's
high-speed experiments) except the `/newreno-recovery` point.

Metrics per run (and so per variant, means over seeds):
- `router_drops`: the flows' data packets dropped at router queues (R1 -> R2, R2 -> D_i);
- `sender_drops`: the flows' data segments their own host's NIC queue refused (kept
  unsent, `nic_refusals`) or dropped (`sender_drops`);
- `ack_drops`: the flows' ACKs dropped (at R2 -> R1, behind the reverse traffic);
- `throughput_bps`: the flows' goodput summed (bytes received x 8 over the run from each
  flow's start);
- `max_queue_pkts`, `mean_queue_pkts`: the bottleneck queue R1 -> R2;
- `max_txq_pkts`: the largest NIC queue of any sender;
- `retransmits`, `timeouts`, `local_cwr` (window reductions for sender drops), summed.
The first seed run (1 by default) also keeps the series the slides plot: the bottleneck
queue over time (its value every bin and its largest value within the bin, from the
high-frequency monitor sampling every 1 ms), the NIC queue, cumulative router and sender
drops, and a one-second 1 ms zoom of the queue beside the queue the windows alone predict (slide 22).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
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
    summarize,
)
from superpacket.experiments.pda_common import (
    PKT_BYTES,
    PdaInputError,
    bps,
    check_positive,
    check_seeds,
    mbps,
)
from superpacket.experiments.record import Claim, Number, Quick

BcInputError = PdaInputError  # one line naming the field

BIG_QUEUE_PKTS = 100_000  # ours: queues that never drop (receiver side, reverse hosts, ACKs to the sender)
HOST_DELAY_MS = 1.0  # ours: each host's link
START_JITTER_S = 0.01  # ours: flows start at uniform [0, 10 ms), so seeds differ
REVERSE_LOAD = 0.2  # our specification: 20 % reverse-path traffic (mean load of the reverse bottleneck)
# Burstiness control (our reconstruction of the slides' rule defaults: B_th = 10 packets without an MBS
# estimate; the delivery-rate estimate of the available bandwidth)
BC_THRESHOLD_PKTS = 10
BC_ESTIMATOR = "delivery"
MONITOR_INTERVAL_S = 0.001  # the high-frequency monitor (slide 8: "event rates 100 per ms")
SERIES_BINS = 1000  # the over-time series of the first seed: the run in this many bins
ZOOM_S = 1.0  # the 1 ms zoom of the first seed: this long, around the largest excess over the prediction
ZOOM_AFTER = 0.1  # ... found after this share of the run
NR_SUFFIX = "/newreno-recovery"
NO_REVERSE = "/no-reverse"
SCHEMES = ("fast", "reno")

# The report's loss table: one row per variant, these columns (both experiments).
LOSS_COLUMNS = ["variant", "router_drops", "sender_drops", "router_share_pct", "ack_drops", "throughput_mbps",
                "max_queue_pkts", "max_txq_pkts", "timeouts"]

METRICS = ("router_drops", "sender_drops", "ack_drops", "throughput_bps", "max_queue_pkts", "mean_queue_pkts",
           "max_txq_pkts", "retransmits", "timeouts", "local_cwr")


@dataclass(frozen=True)
class Setup:
    """One experiment's network and runs (values: our specification unless `sources` says ours)."""

    experiment: str
    flows: int
    bottleneck_bps: float
    rtt_ms: float
    buffer_pkts: int
    host_bps: float
    txqs: tuple[int, ...]
    schemes: tuple[str, ...]
    fast_alpha: float
    max_cwnd: float | None
    duration_s: float
    #: What `--quick` makes of it (its `duration_s`).
    quick: Quick = field(hash=False)
    reverse_on_bps: float
    reverse_on_ms: float
    sources: dict[str, str] = field(default_factory=dict, hash=False, compare=False)

    @property
    def bottleneck_delay_ms(self) -> float:
        return self.rtt_ms / 2 - 2 * HOST_DELAY_MS

    @property
    def bdp_pkts(self) -> float:
        return self.bottleneck_bps * self.rtt_ms / 1e3 / (8.0 * PKT_BYTES)

    @property
    def reverse_off_ms(self) -> float:
        """Off periods so that the mean load is REVERSE_LOAD of the reverse link:
        on / (on + off) x on-rate = 0.2 C."""
        duty = REVERSE_LOAD * self.bottleneck_bps / self.reverse_on_bps
        return self.reverse_on_ms * (1.0 / duty - 1.0)

    def variants(self) -> list[str]:
        """Main variants (scheme x bc x txqueuelen, with reverse traffic), then the
        no-reverse sanity variants at the largest txqueuelen, then the NewReno-recovery
        point (the first scheme at the smallest txqueuelen, with and without bc)."""
        out = [variant_name(s, bc, q) for s in self.schemes for q in self.txqs for bc in (False, True)]
        big = max(self.txqs)
        out += [variant_name(s, bc, big, reverse=False) for s in self.schemes for bc in (False, True)]
        out += [variant_name(self.schemes[0], bc, min(self.txqs), recovery="newreno") for bc in (False, True)]
        return out


def variant_name(scheme: str, bc: bool, txq: int, reverse: bool = True, recovery: str = "sack") -> str:
    name = f"{scheme}{'-bc' if bc else ''}/txq{txq}"
    if not reverse:
        name += NO_REVERSE
    if recovery == "newreno":
        name += NR_SUFFIX
    return name


@dataclass(frozen=True)
class Variant:
    scheme: str
    bc: bool
    txq: int
    reverse: bool
    recovery: str


def parse_variant(name: str) -> Variant:
    """`fast-bc/txq100/no-reverse` -> Variant("fast", True, 100, False, "sack")."""
    parts = name.split("/")
    head = parts[0]
    bc = head.endswith("-bc")
    scheme = head.removesuffix("-bc")
    if scheme not in SCHEMES or len(parts) < 2 or not parts[1].startswith("txq") or not parts[1][3:].isdigit():
        raise BcInputError(f"variant: unknown {name!r} (<scheme>[-bc]/txq<N>[/no-reverse][/newreno-recovery])")
    rest = set(parts[2:])
    if not rest <= {"no-reverse", "newreno-recovery"}:
        raise BcInputError(f"variant: unknown {name!r} (<scheme>[-bc]/txq<N>[/no-reverse][/newreno-recovery])")
    return Variant(scheme, bc, int(parts[1][3:]), "no-reverse" not in rest,
                   "newreno" if "newreno-recovery" in rest else "sack")


@functools.cache
def supports(feature: str) -> bool:
    """Whether the built simulator has `feature`: "gate" (the burstiness-control gate,
    crates/sim/src/tcp/gate/burstiness.rs) or "monitor" (`[output] monitor`,
    crates/sim/src/monitor.rs); a build without them rejects the field."""
    import json

    from superpacket import _core

    sc: dict[str, Any] = {"duration": "1ms", "topology": {"kind": "dumbbell", "pairs": 1,
                                                          "access": {"rate": "1Gbps", "delay": "1ms"},
                                                          "bottleneck": {"rate": "1Gbps", "delay": "1ms"}},
                          "traffic": [{"kind": "bulk", "from": "s0", "to": "d0"}]}
    if feature == "gate":
        sc["tcp"] = {"gate": {"kind": "burstiness", "threshold": BC_THRESHOLD_PKTS, "estimator": BC_ESTIMATOR}}
    elif feature == "monitor":
        sc["output"] = {"monitor": {"link": "R1->R2", "interval": "1ms"}}
    else:
        raise ValueError(f"feature: unknown {feature!r}")
    try:
        _core.Simulation(json.dumps(sc), "json", 1)
    except _core.ScenarioError:
        return False
    return True


def check_features(variants: list[str]) -> None:
    """One line naming what this build lacks, before any run."""
    if any(parse_variant(v).bc for v in variants) and not supports("gate"):
        raise BcInputError("burstiness control: this build of the simulator has no [tcp] gate kind \"burstiness\" "
                           "(crates/sim/src/tcp/gate/burstiness.rs); rebuild the extension with maturin develop")


def tcp_spec(setup: Setup, v: Variant) -> dict[str, Any]:
    cc: Any = {"kind": "fast", "alpha": setup.fast_alpha} if v.scheme == "fast" else "newreno"
    # the testbed's Linux hosts: tcp_write_xmit keeps what the NIC refuses, and tcp_set_rto
    # bounds the RTO's variance term by min_rto (on this 360 ms path RFC 6298's RTO is
    # barely above SRTT and a window waiting in the NIC queue times out spuriously)
    t: dict[str, Any] = {"host": PAPER_HOST, "cc": cc, "recovery": v.recovery, "local_drop": "hold",
                         "rto_formula": "linux"}
    if setup.max_cwnd is not None:
        t["max_cwnd"] = setup.max_cwnd
    if v.bc:
        t["gate"] = {"kind": "burstiness", "threshold": BC_THRESHOLD_PKTS, "estimator": BC_ESTIMATOR}
    return t


def _ms(x: float) -> str:
    return f"{x:.6f}".rstrip("0").rstrip(".") + "ms"


def scenario(setup: Setup, variant: str, duration_s: float | None = None, series: bool = False) -> dict[str, Any]:
    """The scenario of one variant. `series`: add the monitor (1 ms) on the bottleneck and
    the queue samples of the NIC queues and the bottleneck, one per bin."""
    v = parse_variant(variant)
    dur = setup.duration_s if duration_s is None else duration_s
    n = setup.flows
    senders = [f"S{i}" for i in range(n)]
    receivers = [f"D{i}" for i in range(n)]
    big = {"kind": "droptail", "limit": BIG_QUEUE_PKTS}
    host = {"rate": bps(setup.host_bps), "delay": _ms(HOST_DELAY_MS)}
    links: list[dict[str, Any]] = [
        {"a": s, "b": "R1", **host, "queue": {"kind": "droptail", "limit": v.txq}, "reverse_queue": big}
        for s in senders]
    links.append({"a": "R1", "b": "R2", "rate": bps(setup.bottleneck_bps), "delay": _ms(setup.bottleneck_delay_ms),
                  "queue": {"kind": "droptail", "limit": setup.buffer_pkts}})
    links += [{"a": "R2", "b": d, **host, "queue": big} for d in receivers]
    nodes = [*senders, "R1", "R2", *receivers]
    traffic: list[dict[str, Any]] = [
        {"kind": "bulk", "from": s, "to": d, "start_jitter": f"{START_JITTER_S:g}s"}
        for s, d in zip(senders, receivers, strict=True)]
    if v.reverse:
        nodes += ["X", "Y"]
        rev = {"rate": bps(setup.reverse_on_bps), "delay": _ms(HOST_DELAY_MS), "queue": big}
        links += [{"a": "X", "b": "R2", **rev}, {"a": "R1", "b": "Y", **rev}]
        traffic.append({"kind": "onoff", "from": "X", "to": "Y", "rate": bps(setup.reverse_on_bps),
                        "on_time": _ms(setup.reverse_on_ms), "off_time": _ms(setup.reverse_off_ms),
                        "distribution": "exponential"})
    sc: dict[str, Any] = {
        "name": f"{setup.experiment}-{variant.replace('/', '-')}",
        "duration": f"{dur:g}s",
        "topology": {"kind": "graph", "nodes": nodes, "links": links},
        "tcp": tcp_spec(setup, v),
        "traffic": traffic,
    }
    if series:
        sc["output"] = {"sample_queues": [f"{s}->R1" for s in senders] + ["R1->R2"],
                        "sample_interval": f"{bin_s(dur):g}s"}
        if supports("monitor"):  # else the series go without the largest queue per bin and the zoom
            sc["output"]["monitor"] = {"link": "R1->R2", "interval": f"{MONITOR_INTERVAL_S:g}s"}
    return sc


def bin_s(duration_s: float) -> float:
    """The over-time series' bin: the run in SERIES_BINS bins, a whole number of ms."""
    return max(MONITOR_INTERVAL_S, round(duration_s / SERIES_BINS, 3))


def run_point(variant: str, seed: int, setup: Setup, duration_s: float,
              series_seed: int = 1, scs: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """One run: the metrics of METRICS plus per-run detail (and, for `series_seed`, the
    first seed run, the series). Its scenario is `scs[variant]` (the dicts the report
    reads, with the series output, which the other seeds' runs drop) or built."""
    series = seed == series_seed
    sc = scs[variant] if scs else scenario(setup, variant, duration_s, series=True)
    if not series:
        sc = {k: v for k, v in sc.items() if k != "output"}
    res = api.run(sc, seed=seed, progress=False)
    links = {r["name"]: r for r in res.links.to_dicts()}
    flows = res.flows.to_dicts()
    n = setup.flows
    forward_router = ["R1->R2", *(f"R2->D{i}" for i in range(n))]
    router = sum(int(links[name]["drops"]) for name in forward_router)
    lost_at_nic = sum(int(f["sender_drops"]) for f in flows)
    sender = lost_at_nic + sum(int(f.get("nic_refusals", 0)) for f in flows)
    dropped = sum(int(f["pkts_dropped"]) for f in flows)
    out: dict[str, Any] = {
        "router_drops": float(router),
        "sender_drops": float(sender),
        "ack_drops": float(dropped - lost_at_nic - router),
        "throughput_bps": sum(float(f["goodput_bps"]) for f in flows),
        "max_queue_pkts": float(links["R1->R2"]["max_pkts"]),
        "mean_queue_pkts": float(links["R1->R2"]["mean_pkts"]),
        "max_txq_pkts": float(max(int(links[f"S{i}->R1"]["max_pkts"]) for i in range(n))),
        "retransmits": float(sum(int(f["retransmits"]) for f in flows)),
        "timeouts": float(sum(int(f["timeouts"]) for f in flows)),
        "local_cwr": float(sum(int(f["local_cwr"]) for f in flows)),
        # detail (per_run)
        "conservation": res.summary["conservation"],
        "nic_drops": [int(links[f"S{i}->R1"]["drops"]) + int(links[f"S{i}->R1"].get("refusals", 0))
                      for i in range(n)],
        "flow_throughput_bps": [float(f["goodput_bps"]) for f in flows],
        "flow_cc": [f["cc"] for f in flows],
        "pkts_dropped": dropped,
        "nic_lost": lost_at_nic,
        "nic_refusals": sender - lost_at_nic,
        "reverse_link_drops": int(links["R2->R1"]["drops"]),
        "utilisation": float(links["R1->R2"]["utilization"]),
    }
    src = res.sources.to_dicts() if res.sources.width else []
    out["reverse_bps"] = float(src[0]["throughput_bps"]) if src else 0.0
    out["reverse_sent_bps"] = float(src[0]["bytes_sent"]) * 8 / duration_s if src else 0.0
    out["reverse_drops"] = int(src[0]["pkts_dropped"]) if src else 0
    if series:
        out["series"] = _series(res, n, duration_s)
        out["zoom"] = _zoom(res, duration_s)
    return out


def _series(res: api.Results, n: int, duration_s: float) -> dict[str, list[Any]]:
    """Seed 1 over time, one row per bin: the bottleneck queue at the bin's end and its
    largest value within the bin (monitor), the NIC queue at the bin's end (the largest
    over the senders), cumulative router and sender drops."""
    import polars as pl

    b = bin_s(duration_s)
    qs = res.queue_series
    bott = qs.filter(pl.col("link") == "R1->R2").sort("t_s")
    nic = (qs.filter(pl.col("link").str.ends_with("->R1") & pl.col("link").str.starts_with("S"))
           .group_by("t_s").agg(pl.col("pkts").max().alias("txq_pkts"),
                                (pl.col("drops") + pl.col("refusals")).sum().alias("sender_drops"))
           .sort("t_s"))
    out: dict[str, list[Any]] = {"t_s": bott["t_s"].to_list(), "queue_pkts": bott["pkts"].to_list(),
                                 "router_drops": bott["drops"].to_list()}
    nic_at = dict(zip(nic["t_s"].to_list(), zip(nic["txq_pkts"].to_list(), nic["sender_drops"].to_list(),
                                                strict=True), strict=True))
    out["txq_pkts"] = [nic_at.get(t, (None, None))[0] for t in out["t_s"]]
    out["sender_drops"] = [nic_at.get(t, (None, None))[1] for t in out["t_s"]]
    m = getattr(res, "monitor", None)  # an api without the monitor has no such table
    if m is not None and m.height:
        # the monitor's rows (t, t + 1 ms, ...) binned to the queue samples: a row at t
        # belongs to the bin ending at the first sample time >= t
        binned = (m.with_columns((pl.col("t_s") / b - 1e-9).ceil().mul(b).round(6).alias("bin"))
                  .group_by("bin").agg(pl.col("max_queue_pkts").max(), pl.col("predicted_pkts").mean(),
                                       pl.col("window_pkts").mean()).sort("bin"))
        at = {round(t, 6): (q, p, w) for t, q, p, w in binned.iter_rows()}
        rows = [at.get(round(t, 6)) for t in out["t_s"]]
        out["max_queue_pkts"] = [r[0] if r else None for r in rows]
        out["predicted_pkts"] = [r[1] if r else None for r in rows]
        out["window_pkts"] = [r[2] if r else None for r in rows]
    return out


def _zoom(res: api.Results, duration_s: float) -> dict[str, list[Any]]:
    """ZOOM_S of the 1 ms monitor rows around the row where the queue most exceeds what
    the windows predict (the burstiness of slides 15 and 22), after the first ZOOM_AFTER
    of the run (past slow start: slide 7, "not only in slow start"); empty without a
    monitor."""
    import polars as pl

    m = getattr(res, "monitor", None)
    if m is None or not m.height:
        return {}
    excess = (m["max_queue_pkts"].cast(pl.Float64) - m["predicted_pkts"]).to_list()
    t = m["t_s"].to_list()
    late = [k for k in range(len(t)) if t[k] >= ZOOM_AFTER * duration_s] or list(range(len(t)))
    i = max(late, key=lambda k: (excess[k], -k))
    t0 = max(0.0, float(m["t_s"][i]) - ZOOM_S / 2)
    z = m.filter((pl.col("t_s") >= t0 - 1e-9) & (pl.col("t_s") < t0 + ZOOM_S - 1e-9))
    return {c: z[c].to_list() for c in ("t_s", "queue_pkts", "max_queue_pkts", "window_pkts", "predicted_pkts")}


def check_duration(duration_s: Any) -> float:
    return check_positive(duration_s, "duration_s")


def run(setup: Setup, seeds: Any, quick: bool = False, duration_s: float | None = None, client: Any = None,
        progress: bool | None = None) -> dict[str, Any]:
    seeds = check_seeds(seeds)
    if duration_s is not None:
        duration_s = check_duration(duration_s)
    dur = duration_s if duration_s is not None else (setup.quick.values["duration_s"] if quick else setup.duration_s)
    variants = setup.variants()
    check_features(variants)
    scs = {v: scenario(setup, v, dur, series=True) for v in variants}
    run_one = functools.partial(run_point, setup=setup, duration_s=dur, series_seed=seeds[0], scs=scs)
    per_seed, detail = run_seeds(variants, seeds, METRICS, run_one, client, progress)
    summary_variants = summarize(per_seed)
    detail_keys = ("conservation", "nic_drops", "flow_throughput_bps", "flow_cc", "pkts_dropped", "nic_lost",
                   "nic_refusals", "reverse_link_drops", "reverse_bps", "reverse_sent_bps", "reverse_drops", "utilisation")
    return {
        "experiment": setup.experiment,
        "seeds": len(seeds),
        "seed_list": seeds,
        "params": params(setup, scs, len(seeds), quick),
        "variants": summary_variants,
        "claims": claims(setup, summary_variants),
        "loss_table": loss_table(setup, summary_variants),
        "series": {v: detail[v][0]["series"] for v in variants if "series" in detail[v][0]},
        "zoom": {v: detail[v][0]["zoom"] for v in variants if detail[v][0].get("zoom")},
        "per_run": {v: [{k: d[k] for k in detail_keys} for d in ds] for v, ds in detail.items()},
    }


#: The claims of both experiments: burstiness control against none, per scheme and
#: txqueuelen with the reverse traffic; the hosts' drops with the largest txqueuelen and none.
CUTS_LOSS = Claim("cuts-router-loss", "burstiness control cuts router loss at the same or higher throughput ({scheme}, "
                  "txqueuelen {txqueuelen}, 20 % reverse traffic; means over seeds)",
                  "router drops and throughput (means over seeds), with burstiness control against without",
                  number=Number(("ratio",), "ratio {:.2f}"))
NO_HOST_DROPS = Claim("no-host-drops", "with txqueuelen {txqueuelen} and no reverse traffic the host drops nothing "
                      "({scheme}, burstiness control {gate}; sanity check against theory; every seed)",
                      "the most packets a host dropped in any seed, with and without burstiness control")
CLAIMS = (CUTS_LOSS, NO_HOST_DROPS)


def claims(setup: Setup, variants: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """our specification: "burstiness control cuts router loss at the same or higher
    throughput", per scheme and txqueuelen with the reverse traffic (means over seeds:
    fewer router drops, and throughput at least the gate-less flow's); and the sanity
    check against theory: with the largest txqueuelen and no reverse traffic the hosts
    drop nothing (every seed)."""
    out: list[dict[str, Any]] = []
    for s in setup.schemes:
        for q in setup.txqs:
            base, bc = variant_name(s, False, q), variant_name(s, True, q)
            if base not in variants or bc not in variants:
                continue
            b, c = variants[base], variants[bc]
            fewer = c["router_drops"] < b["router_drops"]
            tp = c["throughput_bps"] >= b["throughput_bps"]
            out.append(CUTS_LOSS.result(
                {"scheme": s, "txqueuelen": q},
                variant=f"{bc} vs {base}",
                router_drops_bc=c["router_drops"],
                router_drops_without=b["router_drops"],
                throughput_bc_bps=c["throughput_bps"],
                throughput_without_bps=b["throughput_bps"],
                ratio=c["throughput_bps"] / b["throughput_bps"] if b["throughput_bps"] > 0 else math.nan,
                sender_drops_bc=c["sender_drops"],
                sender_drops_without=b["sender_drops"],
                fewer_router_drops=bool(fewer),
                throughput_at_least=bool(tp),
                holds=bool(fewer and tp),
            ))
            if b["router_drops"] == 0:  # said in the claim's text, so the report and the command line show it
                out[-1]["claim"] += ("; nothing to cut: without burstiness control no data packet was dropped at "
                                     "the router")
    big = max(setup.txqs)
    for s in setup.schemes:
        for with_bc in (False, True):
            v = variant_name(s, with_bc, big, reverse=False)
            if v not in variants:
                continue
            per = variants[v]["sender_drops_per_seed"]
            out.append(NO_HOST_DROPS.result(
                {"txqueuelen": big, "scheme": s, "gate": "on" if with_bc else "off"},
                variant=v,
                sender_drops_max=max(per),
                max_txq_pkts=max(variants[v]["max_txq_pkts_per_seed"]),
                txqueuelen=big,
                holds=bool(max(per) == 0),
            ))
    return out


def loss_table(setup: Setup, variants: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Where the packets were lost, per variant (means over seeds)."""
    rows = []
    for v, m in variants.items():
        lost = m["router_drops"] + m["sender_drops"]
        rows.append({"variant": v, "router_drops": m["router_drops"], "sender_drops": m["sender_drops"],
                     "router_share_pct": 100 * m["router_drops"] / lost if lost > 0 else None,
                     "ack_drops": m["ack_drops"], "throughput_mbps": m["throughput_bps"] / 1e6,
                     "max_queue_pkts": m["max_queue_pkts"], "max_txq_pkts": m["max_txq_pkts"],
                     "timeouts": m["timeouts"]})
    return rows


def _txq_names(scs: dict[str, dict[str, Any]]) -> list[str]:
    return [v for v in scs if parse_variant(v).reverse and parse_variant(v).recovery == "sack"]


def params(setup: Setup, scs: dict[str, dict[str, Any]], seeds: int, quick: bool) -> dict[str, dict[str, Any]]:
    """The summary's `params`: the scenario's numbers read from the variants' scenarios
    `scs` (the ones that ran, with the first seed's series output), the rest as written
    here. Links are found by their ends (R1->R2 is the bottleneck)."""
    src = setup.sources
    names = list(scs)
    first = names[0]
    rev = next(v for v in names if parse_variant(v).reverse)
    fast = [v for v in names if parse_variant(v).scheme == "fast"]
    bc = [v for v in names if parse_variant(v).bc]

    def link(v: str, a: str, b: str) -> str:
        i = next(i for i, x in enumerate(scs[v]["topology"]["links"]) if (x["a"], x["b"]) == (a, b))
        return f"{v}:topology.links[{i}]"

    def onoff(v: str) -> str:
        i = next(i for i, t in enumerate(scs[v]["traffic"]) if t["kind"] == "onoff")
        return f"{v}:traffic[{i}]"

    def rtt(*d: str) -> float:
        # 2 x (host + bottleneck + host), every variant's links alike
        k = len(names)
        return float(2 * (2 * ms(same(*d[:k])) + ms(same(*d[k:]))))

    host_d = [f"{link(v, 'S0', 'R1')}.delay" for v in names]
    bn_d = [f"{link(v, 'R1', 'R2')}.delay" for v in names]
    bn = link(first, "R1", "R2")

    def topology(nodes: list[str], rev_nodes: list[str]) -> str:
        s = [x for x in nodes if x.startswith("S")]
        d = [x for x in nodes if x.startswith("D")]
        text = f"graph: {s[0]}..{s[-1]} -> R1 -> R2 -> {d[0]}..{d[-1]}"
        return text + ("; reverse traffic X -> R2 -> R1 -> Y" if {"X", "Y"} <= set(rev_nodes) else "")

    def bottleneck(rate: str, delay: str, limit: int, *d: str) -> str:
        bdp = _bps(rate) * rtt(*d) / 1e3 / (8.0 * PKT_BYTES)
        return (f"R1->R2 {mbps(_bps(rate))}, {ms(delay):g} ms, DropTail {limit} packets both ways "
                f"(BDP {bdp:.0f} packets)")

    def reverse(t: dict[str, Any], bn_rate: str) -> str:
        on, off = ms(t["on_time"]), seconds(t["off_time"]) * 1e3
        mean = _bps(t["rate"]) * on / (on + off)
        return (f"on-off X -> Y at {mbps(_bps(t['rate']))} while on, on {on:g} ms / off {off:.2f} ms mean, "
                f"{t['distribution']}: mean {mbps(mean)} = {100 * mean / _bps(bn_rate):g} % of R2->R1")

    def gate(*g: dict[str, Any]) -> str:
        x = same(*g)
        return (f"[tcp] gate = {{ kind = \"{x['kind']}\", threshold = {x['threshold']}, estimator = "
                f"\"{x['estimator']}\" }}: packet n leaves only while B <= {x['threshold']}, B = (n - m) - c (t - s_m) "
                "largest over the packets m sent (the gate's default measure \"queue\": the flow's own queue at a "
                "bottleneck of rate c; the slides' form counts from u, the first unacknowledged)")

    def monitor(*out: dict[str, Any]) -> str:
        m = [o.get("monitor") for o in out]
        if not any(m):
            return "none (this build of the simulator has no [output] monitor)"
        x = same(*m)
        return (f"{x['link']} every {ms(x['interval']):g} ms (first seed): queue, its largest value since the "
                "previous row, the windows' sum and the queue they alone predict")

    dur = seconds(same(*(scs[v]["duration"] for v in names)))
    p: dict[str, tuple[Any, str]] = {
        "topology": (Sc(f"{first}:topology.nodes", f"{rev}:topology.nodes", fmt=topology),
                     "our specification (a bottleneck, the senders' NIC queues, reverse-path traffic); node names ours"),
        "flows": (Sc(*(f"{v}:traffic" for v in names),
                     fmt=lambda *t: same(*(sum(1 for x in ts if x["kind"] == "bulk") for ts in t))), "our specification"),
        "bottleneck": (Sc(f"{bn}.rate", f"{bn}.delay", f"{bn}.queue.limit", *host_d, *bn_d, fmt=bottleneck),
                       src.get("bottleneck", "our specification")),
        "rtt_ms": (Sc(*host_d, *bn_d, fmt=rtt), (f"our specification; = 2 x ({HOST_DELAY_MS:g} + {setup.bottleneck_delay_ms:g} + "
                                                  f"{HOST_DELAY_MS:g}) ms, the host delays ours")),
        "host_links": (Sc(f"{link(first, 'S0', 'R1')}.rate", f"{link(first, 'S0', 'R1')}.delay",
                          fmt=lambda r, d: f"{mbps(_bps(r))}, {ms(d):g} ms"), src.get("host_links", "ours")),
        "txqueuelen": (Sc(*(f"{link(v, 'S0', 'R1')}.queue.limit" for v in _txq_names(scs)),
                          fmt=lambda *q: list(dict.fromkeys(q))),
                       "our specification (the senders' NIC queue, DropTail in packets)"),
        "schemes": (list(setup.schemes), src.get("schemes", "our specification")),
        "fast_alpha_pkts": (Sc(*(f"{v}:tcp.cc.alpha" for v in fast)) if fast else setup.fast_alpha,
                            src.get("fast_alpha_pkts", "our specification")),
        "fast": ("gamma 0.5, update every other RTT, 2w cap, MI phase below 0.75 ms of queueing (defaults)",
                 "Jin, Wei and Low (INFOCOM 2004) (crates/sim/src/tcp/cc/fast.rs)"),
        "max_cwnd_pkts": (Sc(*(f"{v}:tcp" for v in names), fmt=lambda *t: same(*(x.get("max_cwnd") for x in t))),
                          "our specification" if setup.max_cwnd is not None else "none"),
        "burstiness_control": (Sc(*(f"{v}:tcp.gate" for v in bc), fmt=gate),
                               ("our reconstruction of the slides' rule (B_th and the "
                                "estimator its defaults)")),
        "reverse_traffic": (Sc(onoff(rev), f"{bn}.rate", fmt=reverse),
                            "our specification (20 % reverse-path traffic); rate and periods ours "
                            + src.get("reverse_traffic", "")),
        "local_drop": (Sc(*(f"{v}:tcp.local_drop" for v in names), fmt=lambda *d: (
            f"[tcp] local_drop = \"{same(*d)}\": a segment the NIC queue refuses stays unsent (Linux's "
            "tcp_write_xmit), the flow enters CWR once per window (tcp_enter_cwr: ssthresh from cwnd, the window "
            "down to it at once) and sends it when the queue has room; each refusal is a sender drop, as Linux's "
            "qdisc counts it")), "our specification (the host behaves as Linux)"),
        "recovery": (f"SACK (RFC 2018 + RFC 6675); the {NR_SUFFIX} point NewReno (RFC 6582)",
                     "our common defaults (high-speed experiments: SACK, one NewReno point)"),
        "duration_s": (dur, src.get("duration_s", "our specification") if dur == setup.duration_s else "ours (a shorter run)"),
        "start": (Sc(*(f"{v}:traffic[0].start_jitter" for v in names),
                     fmt=lambda *j: f"each flow at uniform [0, {ms(same(*j)):g} ms)"), "ours (seeds differ)"),
        "other_queues": (Sc(*(f"{link(v, 'R2', 'D0')}.queue" for v in names),
                            *(f"{link(v, 'S0', 'R1')}.reverse_queue" for v in names),
                            fmt=lambda *q: f"DropTail {same(*(x['limit'] for x in q if x['kind'] == 'droptail'))} "
                                           "packets (never full)"), "ours"),
        "tcp": ("MSS 1460 B, initial cwnd 10, min RTO 200 ms, delayed ACK off, no rwnd limit",
                "our common defaults"),
        "rto": (Sc(*(f"{v}:tcp.rto_formula" for v in names),
                   fmt=lambda *r: f"[tcp] rto_formula = \"{same(*r)}\": RTO = SRTT + max(G, 4 RTTVAR, min RTO), as "
                                  "Linux's tcp_set_rto bounds the variance term"),
                "our specification (the host behaves as Linux)"),
        "monitor": (Sc(*(f"{v}:output" for v in names), fmt=monitor),
                    "Wei, Hegde and Low (PFLDnet 2005) slides 8, 15, 22 (the high-frequency monitor)"),
        "series_bin_s": (Sc(*(f"{v}:output.sample_interval" for v in names), fmt=lambda *i: seconds(same(*i))),
                         f"ours (the run in {SERIES_BINS} bins)"),
        "throughput": ("the flows' bytes received x 8 / (end of run - each flow's start), summed", "ours"),
        "packet_bytes": (PKT_BYTES, "our common defaults"),
    }
    out = params_from(p, scs)
    out["seeds"] = {"value": seeds, "source": "our specification (10)" if seeds == 10 and not quick else "ours"}
    return out


def _bps(text: str) -> float:
    """The scenario's exact rate strings ("1000000000bps", pda_common.bps) in bit/s."""
    if not text.endswith("bps") or not text.removesuffix("bps").isdigit():
        raise ValueError(f"{text!r}: the burstiness experiments write rates as whole bit/s")
    return float(text.removesuffix("bps"))
