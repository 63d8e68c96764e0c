"""`superpacket reproduce lion`: (G. Jin, "Packet Drop Avoidance for High-speed
network transmission protocol", LBNL-53920, 2004), section IV and Fig. 5: the
packet-drop-avoidance sender "Lion" against a window-based TCP on the same path, a
5-second contest; parameters from our specification "Packet drop avoidance, MBS pacing",
`lion`; the PDA sender: our reading of Jin (LBNL 2004).

Dumbbell s0, s1 -> R1 -> R2 -> d0, d1: bottleneck R1 -> R2 1 Gbps, RTT 80 ms, hosts on
1 Gbps links (the paper's GigE WAN path LBNL -> PSC); the bottleneck queue 1 MB (ours:
the paper does not give it; the router queue of the `mbs` experiment). Two bulk flows
start together (within 10 ms: ours, so that seeds differ) and run 5 s (the paper): s0 ->
d0 a window-based TCP (`newreno`, or `cubic` in the second contest), s1 -> d1 the PDA
sender (`[tcp] gate = { kind = "pda" }` with its defaults: bursts of at most the MBS at
line rate, gaps from the available-bandwidth estimate, no multiplicative decrease on
loss, the yield rule; a fixed window of 2 x BDP bounds its outstanding data). SACK loss
recovery for all (our specification, high-speed experiments); the NewReno-recovery point of
the common defaults is the NewReno contest with NewReno recovery (`.../newreno-recovery`).

Variants: `paced` and `newreno` (the two flows of the first contest, the paper's Lion
and Linux TCP), `paced-vs-cubic` and `cubic` (the second contest). Metrics per flow:
`throughput_bps` (bytes received x 8 over the run from the flow's start), `losses`
(the flow's packets dropped), `retransmits`, `timeouts`, `loss_rate` (losses / packets
sent). The sequence plot of Fig. 5: bytes received against time, every 10 ms, the first seed
(1 by default).
"""

from __future__ import annotations

import functools
import math
import sys
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
from superpacket.experiments.record import JIN_2004, Claim, Experiment, Number, Quick

DEFAULT_SEEDS = 10  # our specification
REPORT_TABLES = {"contest_table": (("The two contests flow by flow: ours (mean over seeds) beside the paper's "
                                    "Fig. 5 throughput (Lion vs Linux 2.4.19 TCP; no loss counts in the paper)."),
                                   ["contest", "flow", "throughput_mbps", "paper_mbps", "losses", "retransmits",
                                    "timeouts", "loss_rate"]),
                 "newreno_recovery": (("our specification's NewReno-recovery figure for one point: the NewReno contest "
                                       "with SACK (RFC 6675) beside NewReno (RFC 6582) loss recovery, means over "
                                       "seeds."), ["flow", "point", "throughput_bps_sack", "throughput_bps_newreno",
                                                   "losses_sack", "losses_newreno", "timeouts_sack",
                                                   "timeouts_newreno"])}

RATE_BPS = 1e9  # paper: GigE WAN path
ACCESS_BPS = 1e9  # paper: GigE hosts
RTT_MS = 80.0  # paper: LBNL -> PSC, an 80 ms RTT path
ACCESS_DELAY_MS = 1.0  # ours
BOTTLENECK_DELAY_MS = RTT_MS / 2 - 2 * ACCESS_DELAY_MS
QUEUE_BYTES = 1_000_000  # ours (the paper gives none)
# ours: the hosts' NIC queues (txqueuelen) hold 1000 packets, Linux's default for Ethernet
# and the simulator's default queue (Linux 2.4.19 had 100). With the NIC as fast as the
# bottleneck a window beyond the pipe waits there: 100,000 packets would be 1.2 s of data.
HOST_QUEUE_PKTS = 1000
DURATION_S = 5.0  # paper: "this 5-second contest"
QUICK = Quick("2 s contests (5 s at full scale)", {"duration_s": 2.0})
START_JITTER_S = 0.01  # ours: "started together", within 10 ms, so that seeds differ
SERIES_INTERVAL_S = 0.01  # the Fig. 5 sequence plot
PDA_WINDOW_BDP = 2.0  # the PDA sender's fixed window, in BDPs (bounds its outstanding data)
WINDOW_CCS = ("newreno", "cubic")
CONTESTS = {f"vs-{cc}": cc for cc in WINDOW_CCS}
# flow variant -> (contest, role)
FLOWS = {"paced": ("vs-newreno", "paced"), "newreno": ("vs-newreno", "window"),
         "paced-vs-cubic": ("vs-cubic", "paced"), "cubic": ("vs-cubic", "window")}
NR_SUFFIX = "/newreno-recovery"
NR_CONTEST = "vs-newreno"
VARIANTS = [*FLOWS, *(f"{v}{NR_SUFFIX}" for v, (c, _) in FLOWS.items() if c == NR_CONTEST)]
METRICS = ("throughput_bps", "losses", "retransmits", "timeouts", "loss_rate")
ROLES = ("paced", "window")
KEYS = tuple(f"{r}_{m}" for r in ROLES for m in METRICS)

# Fig. 5: "The Lion gained about 327 Mb/s throughput while in contrast the Linux TCP only
# obtained about 175 Mb/s throughput during this 5-second contest" (Linux 2.4.19: Reno
# congestion control with SACK, so beside `newreno`); no CUBIC contest in the paper.
PAPER = {"paced": {"throughput_bps": 327e6}, "newreno": {"throughput_bps": 175e6}}
PAPER_NOTE = ("Fig. 5 (section IV): Lion (FreeBSD 4.8) about 327 Mb/s and Linux 2.4.19 TCP about 175 Mb/s over a "
              "5-second contest on an 80 ms GigE WAN path (LBNL -> PSC), two iperf clients started together; the "
              "paper gives no loss counts, no buffer size, and no CUBIC run. Lion moved a finite file and finished "
              "early; ours run the whole 5 s.")


def bdp_pkts() -> int:
    return max(1, math.ceil(RATE_BPS * RTT_MS / 1e3 / (8.0 * PKT_BYTES) - 1e-9))


def pda_tcp() -> dict[str, Any]:
    w = math.ceil(PDA_WINDOW_BDP * bdp_pkts())
    return {"cc": {"kind": "fixed", "window": w}, "init_cwnd": w, "gate": {"kind": "pda"}}


def scenario(cc: str, recovery: str = "sack", duration_s: float = DURATION_S,
             series: bool = True) -> dict[str, Any]:
    """The contest of a window-based TCP `cc` (s0 -> d0) against the PDA sender (s1 -> d1)."""
    if cc not in WINDOW_CCS:
        raise PdaInputError(f"cc: unknown {cc!r}; allowed: {', '.join(WINDOW_CCS)}")
    jitter = f"{START_JITTER_S:g}s"
    sc: dict[str, Any] = {
        "name": f"lion-{cc}-{recovery}",
        "duration": f"{duration_s:g}s",
        "topology": {
            "kind": "dumbbell",
            "pairs": 2,
            "access": {"rate": bps(ACCESS_BPS), "delay": f"{ACCESS_DELAY_MS:g}ms",
                       "queue": {"kind": "droptail", "limit": HOST_QUEUE_PKTS}},
            "bottleneck": {"rate": bps(RATE_BPS), "delay": f"{BOTTLENECK_DELAY_MS:g}ms",
                           "queue": {"kind": "droptail", "limit": QUEUE_BYTES, "unit": "bytes"}},
        },
        "tcp": {"host": PAPER_HOST, "recovery": recovery},
        "traffic": [
            {"kind": "bulk", "from": "s0", "to": "d0", "start_jitter": jitter, "tcp": {"cc": cc}},
            {"kind": "bulk", "from": "s1", "to": "d1", "start_jitter": jitter, "tcp": pda_tcp()},
        ],
    }
    if series:
        sc["output"] = {"sample_flows": f"{SERIES_INTERVAL_S:g}s"}
    return sc


def _role(src: str) -> str:
    return "window" if src == "s0" else "paced"


def contest_scenario(contest: str, duration_s: float = DURATION_S, series: bool = True) -> dict[str, Any]:
    """The scenario of a contest (`vs-newreno`, `vs-cubic`, `vs-newreno/newreno-recovery`)."""
    name, nr = (contest.removesuffix(NR_SUFFIX), True) if contest.endswith(NR_SUFFIX) else (contest, False)
    return scenario(CONTESTS[name], "newreno" if nr else "sack", duration_s, series=series)


def run_point(contest: str, seed: int, duration_s: float = DURATION_S, series_seed: int = 1,
              scs: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """One contest; its scenario is `scs[contest]` (the dicts the report reads, with the
    series output) or built. The run of `series_seed` (the first seed run) keeps the
    sequence series; the others run the same scenario without the output."""
    series = seed == series_seed
    sc = scs[contest] if scs else contest_scenario(contest, duration_s)
    if not series:
        sc = {k: v for k, v in sc.items() if k != "output"}
    res = api.run(sc, seed=seed, progress=False)
    out: dict[str, Any] = {"conservation": res.summary["conservation"]}
    ids: dict[str, int] = {}
    for f in res.flows.to_dicts():
        r = _role(f["src"])
        ids[r] = int(f["flow_id"])
        sent = float(f["data_pkts_sent"])
        out[f"{r}_throughput_bps"] = float(f["goodput_bps"])
        out[f"{r}_losses"] = float(f["pkts_dropped"])
        out[f"{r}_retransmits"] = float(f["retransmits"])
        out[f"{r}_timeouts"] = float(f["timeouts"])
        out[f"{r}_loss_rate"] = float(f["pkts_dropped"]) / sent if sent else math.nan
        out[f"{r}_cc"] = f["cc"]
    links = {r["name"]: r for r in res.links.to_dicts()}
    out["bottleneck_drops"] = int(links["R1->R2"]["drops"])
    out["bottleneck_utilisation"] = float(links["R1->R2"]["utilization"])
    out["nic_drops"] = {r: int(links[f"s{i}->R1"]["drops"]) for i, r in enumerate(("window", "paced"))}
    if seed == series_seed and res.flow_series.height:
        fs = res.flow_series.sort(["flow_id", "t_s"])
        out["series"] = {}
        for r, fid in ids.items():
            g = fs.filter(fs["flow_id"] == fid)
            out["series"][r] = {"t_s": g["t_s"].to_list(), "bytes_received": g["bytes_received"].to_list()}
    return out


def run(seeds: Any = DEFAULT_SEEDS, duration_s: float = DURATION_S, quick: bool = False, client: Any = None,
        progress: bool | None = None, **_: Any) -> dict[str, Any]:
    """`duration_s`: the contest's length (the paper's 5 s); `quick`: 2 s contests.
    `client`: a `distributed.Client` (same results)."""
    seeds = check_seeds(seeds)
    duration_s = check_positive(duration_s, "duration_s")
    if quick:
        duration_s = min(duration_s, QUICK.values["duration_s"])
    contests = [*CONTESTS, f"{NR_CONTEST}{NR_SUFFIX}"]
    scs = {c: contest_scenario(c, duration_s) for c in contests}
    run_one = functools.partial(run_point, duration_s=duration_s, series_seed=seeds[0], scs=scs)
    per_contest, detail = run_seeds(contests, seeds, KEYS, run_one, client, progress)
    per_seed: dict[str, dict[str, list[float]]] = {}
    for v in VARIANTS:
        base, nr = (v.removesuffix(NR_SUFFIX), NR_SUFFIX) if v.endswith(NR_SUFFIX) else (v, "")
        contest, role = FLOWS[base]
        per_seed[v] = {m: per_contest[f"{contest}{nr}"][f"{role}_{m}"] for m in METRICS}
    variants = summarize(per_seed)
    series = {}
    for v, (contest, role) in FLOWS.items():
        s = detail[contest][0].get("series", {}).get(role)
        if s:
            series[v] = s
    return {
        "experiment": "lion",
        "seeds": len(seeds),
        "seed_list": seeds,
        "params": _params(scs, len(seeds), quick),
        "variants": variants,
        "paper": PAPER,
        "paper_note": PAPER_NOTE,
        "claims": claims(variants, duration_s),
        "contest_table": _contest_table(variants),
        "newreno_recovery": _newreno_table(variants),
        "series": series,
        "per_run": {c: [{k: d[k] for k in ("conservation", "bottleneck_drops", "bottleneck_utilisation",
                                           "nic_drops", "paced_cc", "window_cc")} for d in ds] for c, ds in detail.items()},
    }


#: our specification, per contest (the window-based sender it meets).
CONTEST_CLAIMS = {window: Claim(
    f"paced-vs-{window}",
    f"the paced sender finishes with fewer losses and at least the throughput of {window} ({{duration:g}} s contest, "
    "means over seeds" + ("; paper, Lion vs Linux TCP: 327 vs 175 Mb/s)" if window == "newreno" else "; no paper figure)"),
    f"losses and throughput (means over seeds), the paced sender's against {window}'s in their contest",
    number=Number(("ratio",), "ratio {:.2f}"))
    for window in ("newreno", "cubic")}


def claims(variants: dict[str, dict[str, Any]], duration_s: float = DURATION_S) -> list[dict[str, Any]]:
    """our specification: the paced sender finishes with fewer losses and at least the
    throughput of the window-based sender (judged on means over seeds), per contest of
    `duration_s` (the text says how long the contests ran: 2 s at `--quick`)."""
    out = []
    for paced, window in (("paced", "newreno"), ("paced-vs-cubic", "cubic")):
        p, w = variants[paced], variants[window]
        fewer = p["losses"] < w["losses"]
        faster = p["throughput_bps"] >= w["throughput_bps"]
        out.append(CONTEST_CLAIMS[window].result(
            {"duration": duration_s},
            variant=f"{paced} vs {window}",
            losses_paced=p["losses"],
            **{f"losses_{window}": w["losses"]},
            throughput_paced_bps=p["throughput_bps"],
            **{f"throughput_{window}_bps": w["throughput_bps"]},
            ratio=p["throughput_bps"] / w["throughput_bps"] if w["throughput_bps"] > 0 else math.nan,
            fewer_losses=bool(fewer),
            throughput_at_least=bool(faster),
            holds=bool(fewer and faster),
        ))
    return out


def _contest_table(variants: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for v, (contest, role) in FLOWS.items():
        m = variants[v]
        p = PAPER.get(v, {}).get("throughput_bps")
        rows.append({"contest": contest, "flow": v, "throughput_mbps": m["throughput_bps"] / 1e6,
                     "paper_mbps": None if p is None else p / 1e6, "losses": m["losses"],
                     "retransmits": m["retransmits"], "timeouts": m["timeouts"], "loss_rate": m["loss_rate"]})
    return rows


def _newreno_table(variants: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for v in ("paced", "newreno"):
        sack, nr = variants[v], variants[f"{v}{NR_SUFFIX}"]
        rows.append({"flow": v, "point": NR_CONTEST,
                     **{f"{m}_sack": sack[m] for m in ("throughput_bps", "losses", "timeouts")},
                     **{f"{m}_newreno": nr[m] for m in ("throughput_bps", "losses", "timeouts")}})
    return rows


def _rate_bps(text: str) -> float:
    """The scenario's exact rate strings ("1000000000bps", pda_common.bps) in bit/s."""
    if not text.endswith("bps") or not text.removesuffix("bps").isdigit():
        raise ValueError(f"{text!r}: lion writes rates as whole bit/s")
    return float(text.removesuffix("bps"))


def _params(scs: dict[str, dict[str, Any]], seeds: int, quick: bool) -> dict[str, dict[str, Any]]:
    """The summary's `params`: the scenario's numbers read from the contests' scenarios
    `scs` (the ones that ran, with their series output), the rest as written here."""
    names = list(scs)
    bn, acc = "topology.bottleneck", "topology.access"
    first = names[0]
    delays = [f"{n}:{acc}.delay" for n in names] + [f"{n}:{bn}.delay" for n in names]

    def rtt_ms(*f: str) -> float:
        # 2 x (2 x access + bottleneck), every contest's links alike
        k = len(names)
        return float(2 * (2 * ms(same(*f[:k])) + ms(same(*f[k:]))))

    def hosts(kind: str, pairs: int) -> str:
        return (f"{kind} {', '.join(f's{i}' for i in range(pairs))} -> R1 -> R2 -> "
                f"{', '.join(f'd{i}' for i in range(pairs))}")

    def buffer(limit: int, unit: str, rate: str, *d: str) -> str:
        if unit != "bytes":
            raise ValueError(f"the bottleneck queue counts {unit}; the report says bytes")
        bdp = max(1, math.ceil(_rate_bps(rate) * rtt_ms(*d) / 1e3 / (8.0 * PKT_BYTES) - 1e-9))
        return f"DropTail {limit:,} bytes ({limit / PKT_BYTES:.1f} full packets; BDP {bdp} packets)"

    def paced(*tcp: dict[str, Any]) -> str:
        t = same(*tcp)
        if t["gate"] != {"kind": "pda"} or t["cc"]["kind"] != "fixed":
            raise ValueError(f"the paced flow's tcp is {t}, not pda's gate over a fixed window")
        w = t["cc"]["window"]
        return (f"bulk TCP s1 -> d1: gate pda with its defaults (crates/sim/src/tcp/gate/pda.rs), fixed "
                f"window {w} packets ({PDA_WINDOW_BDP:g} x BDP)")

    dur = seconds(same(*(scs[n]["duration"] for n in names)))
    p: dict[str, tuple[Any, str]] = {
        "topology": (Sc(f"{first}:topology.kind", f"{first}:topology.pairs", fmt=hosts), "our specification"),
        "bottleneck": (Sc(*(f"{n}:{bn}.rate" for n in names), *(f"{n}:{bn}.delay" for n in names),
                          fmt=lambda *f: (f"R1->R2 {mbps(_rate_bps(same(*f[:len(names)])))}, "
                                          f"{ms(same(*f[len(names):])):g} ms")),
                       "paper (GigE WAN path); delay ours (RTT 80 ms = 2 x (1 + 38 + 1) ms)"),
        "rtt_ms": (Sc(*delays, fmt=rtt_ms), "paper (LBNL -> PSC, an 80 ms RTT path)"),
        "access_links": (Sc(f"{first}:{acc}.rate", f"{first}:{acc}.delay", f"{first}:{acc}.queue.kind",
                            f"{first}:{acc}.queue.limit",
                            fmt=lambda r, d, k, n: (f"{mbps(_rate_bps(r))}, {ms(d):g} ms, host (NIC) queues "
                                                    f"{'DropTail' if k == 'droptail' else k} {n} packets")),
                         ("paper (GigE hosts); delay ours; NIC queue ours (Linux's default txqueuelen; drops there "
                          "count as the flow's losses)")),
        "buffer": (Sc(f"{first}:{bn}.queue.limit", f"{first}:{bn}.queue.unit", f"{first}:{bn}.rate", *delays,
                      fmt=buffer), "ours (the paper gives none; the router queue of `mbs`)"),
        "duration_s": (dur, "paper (a 5-second contest)" if dur == DURATION_S else "ours"),
        "start": (Sc(*(f"{n}:traffic[{i}].start_jitter" for n in names for i in (0, 1)),
                     fmt=lambda *j: f"both flows at uniform [0, {ms(same(*j)):g} ms)"),
                  "paper (started together); the jitter ours (seeds differ)"),
        "window_flow": ("bulk TCP s0 -> d0: NewReno (RFC 5681 + 6582 congestion control), or CUBIC (RFC 9438)",
                        "our specification (a NewReno and a CUBIC flow; paper: Linux 2.4.19 TCP)"),
        "paced_flow": (Sc(*(f"{n}:traffic[1].tcp" for n in names), fmt=paced),
                       "our reading of Jin (LBNL 2004) (PDA sender); the window bound ours"),
        "recovery": ("SACK (RFC 2018 + RFC 6675) for both flows", ("our common defaults (high-speed "
                                                                  "experiments)")),
        "newreno_point": ((f"{NR_CONTEST} with NewReno recovery (RFC 6582) for both flows, variants "
                          f"paced{NR_SUFFIX}, newreno{NR_SUFFIX}"), "our specification (one point); the point ours"),
        "tcp": ("MSS 1460 B, initial cwnd 10 (the window flow), min RTO 200 ms, delayed ACK off, no rwnd limit",
                "our common defaults"),
        "throughput": ("bytes received x 8 / (end of run - the flow's start)", ("ours (the paper's per-contest "
                                                                               "throughput)")),
        "losses": ("the flow's packets dropped, at R1->R2 or its own NIC queue (per_run: nic_drops)", "ours"),
        "series_interval_s": (Sc(*(f"{n}:output.sample_flows" for n in names), fmt=lambda *i: seconds(same(*i))),
                              "ours (Fig. 5: sequence against time)"),
        "packet_bytes": (PKT_BYTES, "our common defaults"),
    }
    out = params_from(p, scs)
    out["seeds"] = {"value": seeds, "source": "our specification (10)" if seeds == 10 and not quick else "ours"}
    return out


EXPERIMENT = Experiment(
    name="lion", paper=JIN_2004,
    part="section IV, Fig. 5",
    module=sys.modules[__name__],
    run=run,
    default_seeds=DEFAULT_SEEDS,
    variants=VARIANTS,
    report_tables=REPORT_TABLES,
    options=("quick",),  # the command line's --quick
    quick=QUICK,
    claims=tuple(CONTEST_CLAIMS.values()),
    parallel_by_default=False,  # 3 runs per seed of about 0.2 s each
    figures="superpacket.experiments.figures.pda:lion",
)
