"""`superpacket reproduce mbs`: (G. Jin, "Packet Drop Avoidance for High-speed
network transmission protocol", LBNL-53920, 2004), Fig. 1-4: the maximum burst size
(MBS) and burst pacing; parameters from our specification "Packet drop avoidance, MBS pacing",
`mbs`; the MBS fluid model, the probe and the FAC estimator: our reading of Jin (LBNL 2004).

Graph S, X1, X2 -> R -> D: a 1 Gbps router R whose queue to D holds 1 MB (DropTail in
bytes), shared by the sender S (1 Gbps line rate) and two on-off cross-traffic sources,
X1 at 1 Gbps and X2 at 622 Mbps (the paper's "1Gb/s and OC-12" streams; on 2 ms / off
8 ms, exponential: ours). Every link 1 ms (ours). The sender moves the same bytes
(20,000 full packets: ours) as a TCP flow (SACK recovery, a fixed window: no reduction
on loss, so every scheme sends the same packets) in one of two ways:

- `window/b<N>`: window-limited, a fixed window of N packets, ACK-clocked: a window at
  line rate per round trip once the pipe (333 packets at 1 Gbps x 4 ms) is not full;
- `paced/b<N>`: the `bursts` send gate: bursts of N packets at line rate, a burst every
  N x 1500 x 8 / 400 Mbps (the average rate 400 Mbps: ours).

N sweeps 16..4096 (doubling). The headline variants are aliases of sweep points:
`window` = `window/b2048`, `paced-large` = `paced/b2048`, `paced-small` = `paced/b32`
(Fig. 4: window bursts vs large and small paced bursts moving the same data).

MBS: `probe/onoff` runs the `mbs_probe` source alone from S with the on-off cross
traffic (trains at line rate, doubling then binary search, 3 trials per size; then FAC),
so every transfer variant carries the MBS measured on its path and seed
(`mbs_measured_pkts`) beside the fluid model Q / (1 - A/R) with the mean cross load
(`mbs_model_pkts`). The three-rate check `probe/cbr-<rate>` replaces the on-off sources
by one constant-rate source from X1 at 200, 400, 600 Mbps: the measured MBS against the
model, the FAC available-bandwidth estimate against capacity minus cross traffic.

Metrics per transfer run: `drops` (packets of the sender's flow dropped), `drops_cross`
(of the cross traffic), `drops_bottleneck` (all drops at R->D over the run),
`throughput_bps` (the flow's goodput: bytes over its completion time), `transfer_s`,
`retransmits`, `mbs_measured_pkts`, `mbs_model_pkts`.
"""

from __future__ import annotations

import functools
import math
import sys
from typing import Any

from superpacket import api
from superpacket.experiments.common import PAPER_HOST, ms, run_seeds, same, seconds, summarize
from superpacket.experiments.pda_common import (
    HOST_QUEUE_PKTS,
    PKT_BYTES,
    PdaInputError,
    bps,
    check_count,
    check_list,
    check_positive,
    check_seeds,
    mbps,
    mbs_fluid_pkts,
    rel_err,
)
from superpacket.experiments.record import JIN_2004, Claim, Experiment, Quick

DEFAULT_SEEDS = 10  # our specification

# ---- the network (paper where marked, else ours) ----------------------------------------
BOTTLENECK_BPS = 1e9  # paper: "a 1Gb/s router"
QUEUE_BYTES = 1_000_000  # our specification: the router queue of 1 MB
LINE_BPS = 1e9  # ours: the sender's line rate (GigE, as the hosts of the paper's Fig. 5)
X1_BPS = 1e9  # paper: a 1 Gb/s cross-traffic stream
X2_BPS = 622e6  # paper: OC-12 (our specification: 622 Mbps)
LINK_DELAY_MS = 1.0  # ours
ON_MS, OFF_MS = 2.0, 8.0  # ours: exponential on and off periods of the cross traffic
DISTRIBUTION = "exponential"
# ---- the transfer (ours) -----------------------------------------------------------------
TRANSFER_PKTS = 20_000
PACED_BPS = 400e6
START_S = 0.1  # the sender starts after the cross traffic has run 100 ms
BURSTS = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
SMALL_BURST, LARGE_BURST = 32, 2048
SCHEMES = ("window", "paced")
NR_SUFFIX = "/newreno-recovery"  # our common defaults: one point with NewReno recovery
NR_POINTS = ("window", "paced-large")
HEADLINE = {"window": ("window", LARGE_BURST), "paced-large": ("paced", LARGE_BURST),
            "paced-small": ("paced", SMALL_BURST)}
# ---- the probe (our reading of Jin (LBNL 2004) defaults) --------------------------------------
PROBE_TRIALS = 3
PROBE_MAX_TRAIN = 4096
FAC_TRAIN = 100
PROBE_DURATION_S = 3.0  # ours: the search and the FAC rounds end within 1.5 s here
CBR_RATES = (200e6, 400e6, 600e6)  # ours: three constant cross-traffic rates
WITHIN = 0.10  # ours: measured MBS and abw within 10 % of the model
QUICK = Quick("the sweep of 32, 256 and 2048-packet bursts (16 to 4096 at full scale)", {"bursts": (32, 256, 2048)})
#: The claims we judge, on means over seeds: smaller paced bursts against each larger kind,
#: then the model's MBS and FAC's estimate per cross-traffic rate ({cbr}).
SMALLER_BURSTS = {name: Claim(
    f"paced-small-vs-{name}",
    f"smaller paced bursts drop no more of the sender's packets than {name} bursts (paper Fig. 2-4: the larger the "
    "burst, the higher the chance of loss; means over seeds)",
    f"the sender's packets dropped (means over seeds), paced-small's against {name}'s; the bottleneck's drops beside")
    for name in ("paced-large", "window")}
MBS_MODEL = Claim("mbs-model", f"{{cbr}}: the measured MBS within {WITHIN:.0%} of the fluid model Q / (1 - A/R) "
                  "(constant-rate cross traffic {rate}; means over seeds)",
                  "the relative error of the measured MBS against the fluid model's")
ABW = Claim("fac-abw", f"{{cbr}}: the FAC available-bandwidth estimate within {WITHIN:.0%} of capacity minus cross "
            "traffic ({available}; means over seeds)",
            "the relative error of FAC's available-bandwidth estimate against capacity minus cross traffic")

TRANSFER_KEYS = ("drops", "drops_cross", "drops_bottleneck", "throughput_bps", "transfer_s", "retransmits",
                 "timeouts", "mbs_measured_pkts", "mbs_model_pkts")
PROBE_KEYS = ("mbs_measured_pkts", "mbs_model_pkts", "mbs_error", "abw_bps", "abw_model_bps", "abw_error",
              "cross_bps", "trains", "probe_bytes")
KEYS = tuple(dict.fromkeys(TRANSFER_KEYS + PROBE_KEYS))

REPORT_TABLES = {
    "newreno_recovery": (("our specification's NewReno-recovery figure for one point: the window and paced-large "
                          "transfers with SACK (RFC 6675) beside NewReno (RFC 6582) loss recovery, means over seeds."),
                         ["variant"] + [f"{m}_{r}" for m in ("drops", "retransmits", "timeouts", "transfer_s",
                                                             "throughput_bps") for r in ("sack", "newreno")]),
    "probe_table": (("The MBS probe against the fluid model Q / (1 - A/R) and the FAC available-bandwidth "
                    "estimate against capacity minus cross traffic (means over seeds; the on-off model uses the "
                    "mean cross load)."), ["variant", "cross", "mbs_measured_pkts", "mbs_model_pkts",
                                          "mbs_error_pct", "abw_mbps", "abw_model_mbps", "abw_error_pct"]),
    "sweep_table": (("Packets of the sender's flow dropped (mean over seeds) per burst size, window bursts vs "
                    "paced bursts; beside them all drops at R->D."), ["burst_pkts", "window_drops", "paced_drops",
                                                                    "window_drops_bottleneck",
                                                                    "paced_drops_bottleneck"]),
}
PAPER_NOTE = ("The paper's Fig. 1-4 are drawings and emulation traces without numbers (Fig. 4b: window-based "
              "transmission lost 20-25 % of its packets, 8 of the sender's packets from the 7th on overflowed; "
              "Fig. 4c2: smaller paced bursts sent 18 packets without loss), so no variant has a paper value.")


def variant_name(scheme: str, burst: int) -> str:
    return f"{scheme}/b{burst}"


def cbr_name(rate_bps: float) -> str:
    return f"probe/cbr-{mbps(rate_bps)}"


ONOFF = "probe/onoff"
VARIANTS = (list(HEADLINE) + [f"{h}{NR_SUFFIX}" for h in NR_POINTS]
            + [variant_name(s, b) for s in SCHEMES for b in BURSTS] + [ONOFF] + [cbr_name(r) for r in CBR_RATES])


def mean_cross_bps(on_ms: float = ON_MS, off_ms: float = OFF_MS) -> float:
    """The on-off sources' mean load: rate x on / (on + off), summed."""
    duty = on_ms / (on_ms + off_ms)
    return (X1_BPS + X2_BPS) * duty


def model_mbs(cross_bps: float) -> float:
    """The fluid model's MBS (packets) of our router with mean cross load `cross_bps`."""
    return mbs_fluid_pkts(QUEUE_BYTES, BOTTLENECK_BPS, cross_bps, LINE_BPS)


def rtt_s() -> float:
    """Propagation round trip S -> R -> D -> R -> S."""
    return 4 * LINK_DELAY_MS / 1e3


# ---- scenarios ---------------------------------------------------------------------------

def topology() -> dict[str, Any]:
    host_q = {"kind": "droptail", "limit": HOST_QUEUE_PKTS}
    d = f"{LINK_DELAY_MS:g}ms"
    return {
        "kind": "graph",
        "nodes": ["S", "X1", "X2", "R", "D"],
        "links": [
            {"a": "S", "b": "R", "rate": bps(LINE_BPS), "delay": d, "queue": host_q},
            {"a": "X1", "b": "R", "rate": bps(X1_BPS), "delay": d, "queue": host_q},
            {"a": "X2", "b": "R", "rate": bps(X2_BPS), "delay": d, "queue": host_q},
            {"a": "R", "b": "D", "rate": bps(BOTTLENECK_BPS), "delay": d,
             "queue": {"kind": "droptail", "limit": QUEUE_BYTES, "unit": "bytes"}, "reverse_queue": host_q},
        ],
    }


def onoff_cross() -> list[dict[str, Any]]:
    return [{"kind": "onoff", "from": x, "to": "D", "rate": bps(rate), "on_time": f"{ON_MS:g}ms",
             "off_time": f"{OFF_MS:g}ms", "distribution": DISTRIBUTION, "packet_bytes": PKT_BYTES}
            for x, rate in (("X1", X1_BPS), ("X2", X2_BPS))]


def cbr_cross(rate_bps: float) -> list[dict[str, Any]]:
    return [{"kind": "cbr", "from": "X1", "to": "D", "rate": bps(rate_bps), "packet_bytes": PKT_BYTES}]


def sender_tcp(scheme: str, burst: int, transfer_pkts: int) -> dict[str, Any]:
    """A fixed window (never reduced on loss) so both schemes send the same packets:
    `window` is limited by it (= the burst size); `paced` has it at the whole transfer
    (never binding) and sends through the bursts gate."""
    if scheme == "window":
        return {"cc": {"kind": "fixed", "window": burst}, "init_cwnd": burst}
    if scheme == "paced":
        return {"cc": {"kind": "fixed", "window": transfer_pkts}, "init_cwnd": transfer_pkts,
                "gate": {"kind": "bursts", "burst_pkts": burst, "rate": bps(PACED_BPS)}}
    raise PdaInputError(f"scheme: unknown {scheme!r}; allowed: {', '.join(SCHEMES)}")


def expected_rate_bps(scheme: str, burst: int) -> float:
    if scheme == "paced":
        return PACED_BPS
    return min(LINE_BPS, burst * PKT_BYTES * 8 / rtt_s())


def transfer_duration_s(scheme: str, burst: int, transfer_pkts: int) -> float:
    """Run length: twice the transfer at its nominal rate, plus a second for recovery."""
    return START_S + 2.0 * transfer_pkts * PKT_BYTES * 8 / expected_rate_bps(scheme, burst) + 1.0


def transfer_scenario(scheme: str, burst: int, transfer_pkts: int = TRANSFER_PKTS,
                      duration_s: float | None = None, recovery: str = "sack") -> dict[str, Any]:
    dur = duration_s if duration_s is not None else transfer_duration_s(scheme, burst, transfer_pkts)
    return {
        "name": f"mbs-{scheme}-b{burst}-{recovery}",
        "duration": f"{dur:g}s",
        "topology": topology(),
        "tcp": {"host": PAPER_HOST, "recovery": recovery},
        "traffic": [
            {"kind": "flow", "from": "S", "to": "D", "size_pkts": transfer_pkts, "start": f"{START_S:g}s",
             "tcp": sender_tcp(scheme, burst, transfer_pkts)},
            *onoff_cross(),
        ],
    }


def probe_scenario(cross: str | float, duration_s: float = PROBE_DURATION_S) -> dict[str, Any]:
    """The probe alone from S; `cross` "onoff" or a constant rate (bit/s) from X1."""
    traffic = onoff_cross() if cross == "onoff" else cbr_cross(float(cross))
    label = "onoff" if cross == "onoff" else mbps(float(cross))
    return {
        "name": f"mbs-probe-{label}",
        "duration": f"{duration_s:g}s",
        "topology": topology(),
        "tcp": {"host": PAPER_HOST},
        "traffic": [
            {"kind": "mbs_probe", "from": "S", "to": "D", "start": f"{START_S:g}s", "packet_bytes": PKT_BYTES,
             "trials": PROBE_TRIALS, "max_train": PROBE_MAX_TRAIN, "fac_train": FAC_TRAIN},
            *traffic,
        ],
    }


# ---- one run -----------------------------------------------------------------------------

def _nan_row() -> dict[str, Any]:
    return {k: math.nan for k in KEYS}


def probe_metrics(res: Any, cross_bps: float) -> dict[str, Any]:
    """The probe's summary entry (summary.probes[0]) as metrics, beside our own model."""
    p = res.summary["probes"][0]
    measured = math.inf if p.get("mbs_unbounded") else float(p["mbs_pkts"])
    model = p.get("mbs_model_pkts")
    model = math.inf if model is None else float(model)
    abw = float(p["abw_bps"]) if p.get("abw_bps") is not None else math.nan
    abw_model = BOTTLENECK_BPS - cross_bps
    return {
        "mbs_measured_pkts": measured,
        "mbs_model_pkts": model,
        "mbs_error": rel_err(measured, model),
        "abw_bps": abw,
        "abw_model_bps": abw_model,
        "abw_error": rel_err(abw, abw_model),
        "cross_bps": cross_bps,
        "trains": float(p["trains"]),
        "probe_bytes": float(p["probe_bytes"]),
        # not a metric: the simulator's own figures, and ours, for the tests and the report
        "sim_probe": p,
        "our_mbs_model_pkts": model_mbs(cross_bps),
    }


def _trains(res: Any) -> dict[str, list[Any]]:
    t = res.probe_trains
    if not t.width:
        return {}
    t = t.sort("t_s")
    return {c: t[c].to_list() for c in ("t_s", "phase", "n", "rate_in_bps", "received", "rate_out_bps", "lossless")
            if c in t.columns}


def variant_scenario(variant: str, transfer_pkts: int = TRANSFER_PKTS,
                     probe_duration_s: float = PROBE_DURATION_S) -> dict[str, Any]:
    """The scenario of a transfer `<scheme>/b<N>[/newreno-recovery]` or a probe `probe/...`."""
    if variant.startswith("probe/"):
        setting = variant.split("/", 1)[1]
        cross = "onoff" if setting == "onoff" else float(setting.removeprefix("cbr-").removesuffix("Mbps")) * 1e6
        return probe_scenario(cross, probe_duration_s)
    scheme, b, *nr = variant.split("/")
    return transfer_scenario(scheme, int(b[1:]), transfer_pkts, recovery="newreno" if nr else "sack")


def run_point(variant: str, seed: int, transfer_pkts: int = TRANSFER_PKTS,
              probe_duration_s: float = PROBE_DURATION_S, series_seed: int = 1,
              scs: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """One run of a variant: a transfer `<scheme>/b<N>[/newreno-recovery]` or a probe
    `probe/...` (the probe's run of `series_seed`, the first seed run, keeps its trains).
    Its scenario is `scs[variant]` (the dicts the report reads) or built."""
    out = _nan_row()
    sc = scs[variant] if scs else variant_scenario(variant, transfer_pkts, probe_duration_s)
    if variant.startswith("probe/"):
        setting = variant.split("/", 1)[1]
        if setting == "onoff":
            cross_bps = mean_cross_bps()
        else:
            cross_bps = float(setting.removeprefix("cbr-").removesuffix("Mbps")) * 1e6
        res = api.run(sc, seed=seed, progress=False)
        out.update(probe_metrics(res, cross_bps))
        if seed == series_seed:
            out["train_series"] = _trains(res)
    else:
        res = api.run(sc, seed=seed, progress=False)
        fl = res.flows.to_dicts()[0]
        src = res.sources
        rd = res.links.filter(res.links["name"] == "R->D").to_dicts()[0]
        done = bool(fl["completed"])
        fct = float(fl["fct_s"]) if done else math.nan
        out.update({
            "drops": float(fl["pkts_dropped"]),
            "drops_cross": float(src["pkts_dropped"].sum()) if src.width else math.nan,
            "drops_bottleneck": float(rd["drops"]),
            # bytes received over start -> completion (or -> the end of the run)
            "throughput_bps": float(fl["goodput_bps"]),
            "transfer_s": fct,
            "retransmits": float(fl["retransmits"]),
            "timeouts": float(fl["timeouts"]),
            "completed": done,
        })
    out["conservation"] = res.summary["conservation"]
    return out


# ---- the experiment ----------------------------------------------------------------------

def check_options(bursts: Any = None, cbr_rates: Any = None, transfer_pkts: Any = TRANSFER_PKTS) -> None:
    """Raises PdaInputError (one line naming the field) on bad input."""
    _bursts(bursts)
    _cbr(cbr_rates)
    check_count(transfer_pkts, "transfer_pkts", 1, 10_000_000)


def _bursts(bursts: Any) -> tuple[int, ...]:
    return check_list(bursts, BURSTS, "bursts", lambda x, f: check_count(x, f, 1, 1_000_000))


def _cbr(rates: Any) -> tuple[float, ...]:
    def one(x: Any, f: str) -> float:
        v = check_positive(x, f)
        if v >= BOTTLENECK_BPS:
            raise PdaInputError(f"{f}: a cross-traffic rate must be below the bottleneck's "
                                f"{BOTTLENECK_BPS:.0f} bit/s (got {x!r})")
        return v
    return check_list(rates, CBR_RATES, "cbr_rates", one)


def run(seeds: Any = DEFAULT_SEEDS, bursts: Any = None, cbr_rates: Any = None, transfer_pkts: int = TRANSFER_PKTS,
        small_burst: int = SMALL_BURST, large_burst: int = LARGE_BURST, probe_duration_s: float = PROBE_DURATION_S,
        quick: bool = False, client: Any = None, progress: bool | None = None, **_: Any) -> dict[str, Any]:
    """`bursts`: burst sizes of the sweep (packets; default 16..4096); `cbr_rates`: the
    constant cross-traffic rates of the MBS check (bit/s); `transfer_pkts`: packets each
    transfer moves; `small_burst`, `large_burst`: the paced-small / paced-large (and
    window) points, added to the sweep if missing; `quick`: the sweep 32, 256, 2048 only.
    `client`: a `distributed.Client` (same results)."""
    seeds = check_seeds(seeds)
    transfer_pkts = check_count(transfer_pkts, "transfer_pkts", 1, 10_000_000)
    small = check_count(small_burst, "small_burst", 1, 1_000_000)
    large = check_count(large_burst, "large_burst", 1, 1_000_000)
    if small >= large:
        raise PdaInputError(f"small_burst: must be below large_burst ({small} >= {large})")
    probe_duration_s = check_positive(probe_duration_s, "probe_duration_s")
    sizes = _bursts(bursts)
    rates = _cbr(cbr_rates)
    if quick:
        sizes = tuple(QUICK.values["bursts"]) if bursts is None else sizes
    sizes = tuple(sorted({*sizes, small, large}))
    headline = {"window": ("window", large), "paced-large": ("paced", large), "paced-small": ("paced", small)}
    sweep = [variant_name(s, b) for s in SCHEMES for b in sizes]
    probes = [ONOFF] + [cbr_name(r) for r in rates]
    newreno = {f"{h}{NR_SUFFIX}": variant_name(*headline[h]) + NR_SUFFIX for h in NR_POINTS}
    # the slow runs first (small windows move the bytes slowly), so workers stay busy
    order = probes + sorted(sweep, key=lambda v: -transfer_duration_s(v.split("/")[0], int(v.split("/b")[1]),
                                                                        transfer_pkts)) + list(newreno.values())
    scs = {v: variant_scenario(v, transfer_pkts, probe_duration_s) for v in order}
    run_one = functools.partial(run_point, transfer_pkts=transfer_pkts, probe_duration_s=probe_duration_s,
                                series_seed=seeds[0], scs=scs)
    per_seed_raw, detail = run_seeds(order, seeds, KEYS, run_one, client, progress)
    # every transfer carries the MBS measured on its path with the same seed
    onoff = per_seed_raw[ONOFF]
    per_seed: dict[str, dict[str, list[float]]] = {}
    for v in sweep + list(newreno.values()):
        m = {k: per_seed_raw[v][k] for k in TRANSFER_KEYS}
        m["mbs_measured_pkts"] = list(onoff["mbs_measured_pkts"])
        m["mbs_model_pkts"] = list(onoff["mbs_model_pkts"])
        per_seed[v] = m
    for v in probes:
        per_seed[v] = {k: per_seed_raw[v][k] for k in PROBE_KEYS}
    variants_sweep = summarize(per_seed)
    variants = {h: variants_sweep[variant_name(*sb)] for h, sb in headline.items()}
    variants.update({v: variants_sweep[v] for v in sweep + probes})
    variants.update({v: variants_sweep[run] for v, run in newreno.items()})
    aliases = {h: variant_name(*sb) for h, sb in headline.items()}
    return {
        "experiment": "mbs",
        "seeds": len(seeds),
        "seed_list": seeds,
        "params": _params(scs, small, large, len(seeds), quick),
        "variants": variants,
        "paper": {},
        "paper_note": PAPER_NOTE,
        "claims": claims(variants, rates),
        "aliases": {**aliases, **newreno},
        "newreno_recovery": _newreno_table(variants),
        "probe_table": _probe_table(variants, probes),
        "sweep_table": _sweep_table(variants, sizes),
        "train_series": {v: detail[v][0]["train_series"] for v in probes if detail[v][0].get("train_series")},
        "sim_probes": {v: [d["sim_probe"] for d in detail[v]] for v in probes},
        "our_mbs_model_pkts": {v: detail[v][0]["our_mbs_model_pkts"] for v in probes},
        "per_run": {v: [{k: d[k] for k in ("conservation", "completed", "timeouts") if k in d} for d in ds]
                    for v, ds in detail.items()},
    }


def claims(variants: dict[str, dict[str, Any]], rates: tuple[float, ...]) -> list[dict[str, Any]]:
    """The claims we judge, on means over seeds."""
    out: list[dict[str, Any]] = []
    small, large, window = variants["paced-small"], variants["paced-large"], variants["window"]
    for other, name in ((large, "paced-large"), (window, "window")):
        out.append(SMALLER_BURSTS[name].result(
            variant=f"paced-small vs {name}",
            drops_paced_small=small["drops"],
            **{f"drops_{name.replace('-', '_')}": other["drops"]},
            drops_bottleneck_paced_small=small["drops_bottleneck"],
            **{f"drops_bottleneck_{name.replace('-', '_')}": other["drops_bottleneck"]},
            holds=bool(small["drops"] <= other["drops"]),
        ))
    for r in rates:
        v = variants[cbr_name(r)]
        out.append(MBS_MODEL.result(
            {"cbr": cbr_name(r), "rate": mbps(r)},
            variant=cbr_name(r),
            mbs_measured_pkts=v["mbs_measured_pkts"],
            mbs_model_pkts=v["mbs_model_pkts"],
            error=v["mbs_error"],
            holds=bool(v["mbs_error"] <= WITHIN),
        ))
    for r in rates:
        v = variants[cbr_name(r)]
        out.append(ABW.result(
            {"cbr": cbr_name(r), "available": mbps(BOTTLENECK_BPS - r)},
            variant=cbr_name(r),
            abw_bps=v["abw_bps"],
            abw_model_bps=v["abw_model_bps"],
            error=v["abw_error"],
            holds=bool(v["abw_error"] <= WITHIN),
        ))
    return out


def _newreno_table(variants: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """our common defaults: the NewReno-recovery figure for one point beside SACK's."""
    rows = []
    for h in NR_POINTS:
        sack, nr = variants[h], variants[f"{h}{NR_SUFFIX}"]
        ms = ("drops", "retransmits", "timeouts", "transfer_s", "throughput_bps")
        rows.append({"variant": h, **{f"{m}_sack": sack[m] for m in ms}, **{f"{m}_newreno": nr[m] for m in ms}})
    return rows


def _probe_table(variants: dict[str, dict[str, Any]], probes: list[str]) -> list[dict[str, Any]]:
    rows = []
    for p in probes:
        v = variants[p]
        rows.append({
            "variant": p,
            "cross": (f"on-off X1 {mbps(X1_BPS)} + X2 {mbps(X2_BPS)}, mean {mbps(v['cross_bps'])}" if p == ONOFF
                      else f"constant {mbps(v['cross_bps'])}"),
            "mbs_measured_pkts": v["mbs_measured_pkts"],
            "mbs_model_pkts": v["mbs_model_pkts"],
            "mbs_error_pct": 100.0 * v["mbs_error"],
            "abw_mbps": v["abw_bps"] / 1e6,
            "abw_model_mbps": v["abw_model_bps"] / 1e6,
            "abw_error_pct": 100.0 * v["abw_error"],
        })
    return rows


def _sweep_table(variants: dict[str, dict[str, Any]], sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    rows = []
    for b in sizes:
        row: dict[str, Any] = {"burst_pkts": b}
        for s in SCHEMES:
            v = variants[variant_name(s, b)]
            row[f"{s}_drops"] = v["drops"]
            row[f"{s}_drops_bottleneck"] = v["drops_bottleneck"]
        rows.append(row)
    return rows


def _rate(text: str) -> float:
    """The scenario's exact rate strings ("622000000bps", pda_common.bps) in bit/s."""
    if not text.endswith("bps") or not text.removesuffix("bps").isdigit():
        raise ValueError(f"{text!r}: mbs writes rates as whole bit/s")
    return float(text.removesuffix("bps"))


def _params(scs: dict[str, dict[str, Any]], small: int, large: int, seeds: int,
            quick: bool) -> dict[str, dict[str, Any]]:
    """The summary's `params`: the scenario's numbers read from the runs' scenarios `scs`
    (variant -> the scenario that ran: the transfers and the probes), the rest as written
    here. Links are found by their ends, cross traffic by its kind."""
    names = list(scs)
    probes = [v for v in names if v.startswith("probe/")]
    transfers = [v for v in names if not v.startswith("probe/")]
    cbrs = [v for v in probes if v != ONOFF]
    t0 = transfers[0]

    def link(v: str, a: str, b: str) -> dict[str, Any]:
        return next(x for x in scs[v]["topology"]["links"] if (x["a"], x["b"]) == (a, b))

    def onoff(v: str) -> list[dict[str, Any]]:
        return [t for t in scs[v]["traffic"] if t["kind"] == "onoff"]

    def mean_load(cross: list[dict[str, Any]]) -> float:
        return sum(_rate(x["rate"]) * ms(x["on_time"]) / (ms(x["on_time"]) + ms(x["off_time"])) for x in cross)

    def burst(v: str) -> int:
        t = scs[v]["traffic"][0]["tcp"]
        return t["gate"]["burst_pkts"] if "gate" in t else t["cc"]["window"]

    rd = same(*(link(v, "R", "D") for v in names))
    q = rd["queue"]
    if q.get("unit") != "bytes":
        raise ValueError("the R->D queue is reported in bytes")
    sr, x1, x2 = (same(*(link(v, h, "R") for v in names)) for h in ("S", "X1", "X2"))
    cross = same(*(onoff(v) for v in [*transfers, ONOFF] if v in scs))
    on_off = same(*((x["on_time"], x["off_time"], x["distribution"]) for x in cross))
    host_q = same(sr["queue"], x1["queue"], x2["queue"], rd["reverse_queue"])
    nodes = same(*(scs[v]["topology"]["nodes"] for v in names))
    flow = same(*({k: scs[v]["traffic"][0][k] for k in ("size_pkts", "start")} for v in transfers))
    paced = same(*(scs[v]["traffic"][0]["tcp"]["gate"]["rate"] for v in transfers if v.startswith("paced/")))
    probe = same(*({k: scs[v]["traffic"][0][k] for k in ("trials", "max_train", "fac_train")} for v in probes))
    p: dict[str, tuple[Any, str]] = {
        "topology": (f"{scs[t0]['topology']['kind']}: {', '.join(n for n in nodes if n not in ('R', 'D'))} -> R -> D",
                     ("paper (Fig. 3: a sender and two cross-traffic streams into one router); node names ours")),
        "bottleneck": ((f"R->D {mbps(_rate(rd['rate']))}, DropTail {q['limit']:,} bytes "
                        f"({q['limit'] / PKT_BYTES:.1f} full packets)"), "paper (1 Gb/s router); our specification (1 MB)"),
        "sender_line_rate": (mbps(_rate(sr["rate"])), "ours (GigE, as the paper's hosts in Fig. 5)"),
        "cross_traffic": (", ".join(f"{x['from']} on-off {mbps(_rate(x['rate']))}" for x in cross) + ", to D",
                          "paper (Fig. 3: 1 Gb/s and OC-12); our specification (622 Mbps)"),
        "cross_on_off": ((f"on {ms(on_off[0]):g} ms / off {ms(on_off[1]):g} ms mean, {on_off[2]}; mean load "
                          f"{mbps(mean_load(cross))}"), "ours"),
        "link_delay_ms": (float(ms(same(*(x["delay"] for v in names for x in scs[v]["topology"]["links"])))),
                          "ours (every link; RTT S-D 4 ms)"),
        "access_links": ((f"S-R {mbps(_rate(sr['rate']))}, X1-R {mbps(_rate(x1['rate']))}, X2-R "
                          f"{mbps(_rate(x2['rate']))}; host queues DropTail {host_q['limit']} packets"),
                         "ours (no loss before R)"),
        "transfer_pkts": (flow["size_pkts"], "ours (the same bytes for every scheme; full 1500 B packets)"),
        "sender_start_s": (seconds(flow["start"]), "ours (after the cross traffic has run)"),
        "schemes": (("window/b<N>: fixed window N, ACK-clocked; paced/b<N>: bursts of N at line rate, average "
                     f"{mbps(_rate(paced))}"), "our specification (window bursts, large and small paced bursts); rates ours"),
        "burst_sizes": (sorted({burst(v) for v in transfers if not v.endswith(NR_SUFFIX)}),
                        "ours" if not quick else "ours (--quick)"),
        "headline": (f"window = window/b{large}, paced-large = paced/b{large}, paced-small = paced/b{small}", "ours"),
        "transfer_tcp": (("SACK recovery (RFC 6675), fixed window (no reduction on loss), MSS 1460 B, "
                          "delayed ACK off"), ("our common defaults (high-speed experiments); fixed window "
                                               "ours (the schemes differ only in when they send)")),
        "newreno_point": ((f"{', '.join(NR_POINTS)} with NewReno recovery (RFC 6582), variants "
                           f"<name>{NR_SUFFIX}"), "our specification (one point); the point ours"),
        "run_length": ("start + 2 x the transfer at its nominal rate + 1 s; cross traffic until the end",
                       "ours"),
        "probe": ((f"mbs_probe from S: trains at line rate from 2 packets doubling to the first loss, then binary "
                   f"search, {probe['trials']} trials per size, max train {probe['max_train']}; FAC trains of "
                   f"{probe['fac_train']} (capped at the MBS)"), "our reading of Jin (LBNL 2004)"),
        "probe_run_s": (seconds(same(*(scs[v]["duration"] for v in probes))), "ours"),
        "mbs_model": ("floor(Q / (1 - A/R)), Q = free buffer (packets), A = capacity - mean cross load, R = line rate",
                      "our reading of Jin (LBNL 2004) (fluid model)"),
        "cbr_rates": ([mbps(_rate(same(*(t["rate"] for t in scs[v]["traffic"] if t["kind"] == "cbr")))) for v in cbrs],
                      "ours (three constant cross-traffic rates)"),
        "within": (WITHIN, "ours (10 %)"),
        "packet_bytes": (PKT_BYTES, "our common defaults"),
    }
    out = {k: {"value": v, "source": s} for k, (v, s) in p.items()}
    out["seeds"] = {"value": seeds, "source": "our specification (10)" if seeds == 10 and not quick else "ours"}
    return out


EXPERIMENT = Experiment(
    name="mbs", paper=JIN_2004,
    part="Fig. 1-4",
    module=sys.modules[__name__],
    run=run,
    default_seeds=DEFAULT_SEEDS,
    check_options=check_options,
    variants=VARIANTS,
    report_tables=REPORT_TABLES,
    options=("quick",),  # the command line's --quick
    quick=QUICK,
    claims=(*SMALLER_BURSTS.values(), MBS_MODEL, ABW),
    # 25 runs per seed of 0.02-0.1 s each: one after another (--workers N for a local cluster)
    parallel_by_default=False,
    generic_bars=False,  # 20+ variants: the report draws drops against the burst size instead
    figures="superpacket.experiments.figures.pda:mbs",
)
