"""`superpacket reproduce incast`: Li (UCB/EECS-2013-83) section 4.2, Fig. 4a-c; parameters from
our specification "Super-packets / incast".

10 senders -> R -> D, R->D 100 Mbps with a buffer of 50; each sender opens one
connection at a uniform random offset in [0, `jitter_us`) (our specification: 100 us) and
sends one 10-packet flow (14,600 B), initial cwnd 10. Variants: `droptail`;
`superpacket` (one super-packet of len 10, t = 5, EPOCH 80 ms; a denied super-packet
times out and the flow falls back to NewReno); `ideal` (after the timeout the flow is
resent as a new super-packet with cwnd 10, up to 3 sends, then falls back).

Two regimes, both run every time (`regime` picks the one under `variants`, the other
goes under `regimes.<name>`; the claims are judged in the paper regime wherever it is):

- `paper` (the default): every link 100 Mbps / 1 ms. Each super-packet reaches R at the
  rate R drains it, so the ten first packets, which arrive within one packet time, meet
  a queue that holds only the first packets admitted before them: t waiting + 1 in
  transmission = 6 admitted at once, as in the paper.
- `datacenter`: sender links 1 Gbps / 25 us, R->D 100 Mbps / 25 us (a 10:1 fan-in; our
  first setting). An admitted super-packet's later packets arrive ten per packet time R
  drains, fill the queue to t before the later first packets arrive, so only 2 to 5 are
  admitted; the refused flows fall back to NewReno against an effective buffer of t for
  normal packets and time out again: super-packets lose to DropTail.
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
    mean_ci95,
    ms,
    params_from,
    run_seeds,
    same,
    seconds,
    seed_list,
    summarize,
    whole,
)
from superpacket.experiments.record import LI_2013, Claim, Experiment, Number

THRESHOLD_T = 5
FLOWS = 10
FLOW_PKTS = 10
BUFFER_PKTS = 50
BOTTLENECK_RATE = "100Mbps"
JITTER_US = 100.0  # our specification: offsets uniform in [0, 100 us)
# Long enough for every flow to finish (a run ends when its events do): the regime map's
# worst cells need up to 7 backed-off timeouts (0.2 x (2^7 - 1) = 25.4 s).
DURATION_S = 300.0
VARIANTS = ("droptail", "superpacket", "ideal")
SP_VARIANTS = ("superpacket", "ideal")
KEYS = ("mean_fct_s", "flows_with_timeout", "sp_admitted", "sp_round1_admitted")
ROUNDS = 4  # admission rounds counted by the router (queue/superpacket.rs)

REGIMES: dict[str, dict[str, str]] = {
    "paper": {"access_rate": "100Mbps", "delay": "1ms"},
    "datacenter": {"access_rate": "1Gbps", "delay": "25us"},
}
REGIME_SOURCES = {
    "paper": "our specification (the paper gives no rates; access links at the bottleneck rate, 1 ms one-way)",
    "datacenter": "our specification second regime, --regime datacenter (ours: a 10:1 fan-in)",
}

# our specification "Must hold", judged in the paper regime
SP_CUT_PCT = 25.0
IDEAL_CUT_PCT = 40.0
ROUND1_RANGE = (5.0, 7.0)
DATACENTER_ROUND1_RANGE = (2.0, 5.0)  # our specification's finding for the second regime
#: The claims: our specification's must-holds, judged on the paper regime's block; the
#: datacenter regime's finding beside them (not a must-hold).
FCT_CUTS = {name: Claim(f"{name}-fct-cut",
                        f"paper regime: {name} mean FCT at least {floor:g} % below droptail (paper: {p:g} %)",
                        f"the paper regime's mean FCT over seeds, {name}'s against droptail's",
                        number=Number(("improvement_pct",), against="droptail's"))
            for name, floor, p in (("superpacket", SP_CUT_PCT, 33.8), ("ideal", IDEAL_CUT_PCT, 56.0))}
ROUND1 = Claim("round1-admitted",
               f"paper regime: on average {ROUND1_RANGE[0]:g} to {ROUND1_RANGE[1]:g} super-packets admitted in round 1 "
               "(paper: 6)",
               "super-packets admitted in round 1 (mean over seeds), superpacket and ideal",
               number=Number(tuple(f"{n}_round1_admitted" for n in SP_VARIANTS),
                             ", ".join(f"{n} {{:.1f}}" for n in SP_VARIANTS) + " admitted in round 1"))
SHAPE = Claim("fig4-shape",
              "paper regime, the shape of Fig. 4a-c: most droptail flows time out (paper 9 of 10); most "
              "superpacket and ideal flows finish in one round (paper 6 of 10); no ideal flow needs more than "
              "one timeout",
              "flows with a timeout (droptail), flows finished in one round (superpacket, ideal; means over seeds), "
              "the most timeouts of an ideal flow")
DATACENTER = Claim("datacenter-regime",
                   f"datacenter regime (our specification's finding, not a must-hold): {DATACENTER_ROUND1_RANGE[0]:g} "
                   f"to {DATACENTER_ROUND1_RANGE[1]:g} super-packets admitted in round 1 and superpacket mean FCT "
                   "above droptail",
                   "the datacenter regime's super-packets admitted in round 1 and mean FCT, superpacket's against "
                   "droptail's", must_hold=False, number=Number(("improvement_pct",), against="droptail's"))

PAPER = {
    "droptail": {"mean_fct_s": 0.197, "flows_with_timeout": 9},
    "superpacket": {"mean_fct_s": 0.130, "flows_with_timeout": 4, "sp_round1_admitted": 6},
    "ideal": {"mean_fct_s": 0.0857},
}

INIT_CWND = 10
EPOCH = "80ms"
IDEAL_ATTEMPTS = 3  # sends of the ideal scheme's super-packet before it falls back
MIN_RTO = "200ms"  # our common defaults (the simulator's defaults too, written out so
INIT_RTO = "1s"  # that the report reads them from the scenario that ran)

# The reported parameters: an `Sc` is read from the scenarios that ran (`<regime>/<variant>:`
# picks one, a parameter read from several fields reports their one value; paths in sweep
# --param syntax). `_params` adds the regimes and the options.
_ALL = [f"{r}/{v}" for r in REGIMES for v in VARIANTS]
_SP = [f"{r}/{v}" for r in REGIMES for v in SP_VARIANTS]
_Q = "topology.receiver_link.queue"
PARAMS: dict[str, tuple[Any, str]] = {
    "senders": (Sc(*(f"{n}:topology.senders" for n in _ALL)), "paper"),
    "flow_pkts": (Sc(*(f"{n}:traffic[0].size_pkts" for n in _ALL)), "paper"),
    "init_cwnd": (Sc(*(f"{n}:tcp.init_cwnd" for n in _ALL)), "paper"),
    "buffer_pkts": (Sc(*(f"{n}:{_Q}.limit" for n in _ALL)), "paper"),
    "threshold_t": (Sc(*(f"{n}:{_Q}.threshold" for n in _SP)), "paper"),
    "epoch_ms": (Sc(*(f"{n}:{_Q}.epoch" for n in _SP), fmt=lambda *e: ms(same(*e))), "paper"),
    "ideal_attempts": (Sc(*(f"{r}/ideal:tcp.sp_attempts" for r in REGIMES)), "our specification"),
    "min_rto_ms": (Sc(*(f"{n}:tcp.min_rto" for n in _ALL), fmt=lambda *t: ms(same(*t))), "our specification"),
    "init_rto_s": (Sc(*(f"{n}:tcp.init_rto" for n in _ALL), fmt=lambda *t: whole(seconds(same(*t)))),
                   "our specification"),
    "duration_s": (Sc(*(f"{n}:duration" for n in _ALL), fmt=lambda *d: seconds(same(*d))),
                   "ours (every flow finishes; the run ends when its events do)"),
}


class IncastInputError(ValueError):
    """Bad experiment input; the message is one line naming the field."""


def check_regime(regime: Any) -> str:
    if regime is None:
        return "paper"
    if regime not in REGIMES:
        raise IncastInputError(f"regime: unknown regime {regime!r}; allowed: {', '.join(REGIMES)}")
    return str(regime)


def check_options(regime: Any = None, jitter_us: Any = None) -> None:
    """The command line's --regime and --jitter-us (one line naming it on a bad value)."""
    check_regime(regime)
    check_jitter(jitter_us)


def check_jitter(jitter_us: Any) -> float:
    """Start offsets within the run (every flow must start before it ends)."""
    j = JITTER_US if jitter_us is None else float(jitter_us)
    if not (math.isfinite(j) and 0 <= j < DURATION_S * 1e6):
        raise IncastInputError(f"jitter_us: must be >= 0 and below {DURATION_S * 1e6:.0f} us, the run's "
                               f"{DURATION_S:g} s (got {jitter_us!r})")
    return j


def scenario(variant: str, jitter_us: float = JITTER_US, admit_syn: bool = False, regime: str = "paper", *,
             access_rate: str | None = None, delay: str | None = None, threshold: int = THRESHOLD_T,
             duration_s: float = DURATION_S) -> dict[str, Any]:
    """One incast run. `regime` sets the sender links' rate and every link's one-way
    delay; `access_rate` / `delay` override them (the regime map)."""
    rate = access_rate or REGIMES[regime]["access_rate"]
    d = delay or REGIMES[regime]["delay"]
    if variant == "droptail":
        queue: dict[str, Any] = {"kind": "droptail", "limit": BUFFER_PKTS}
        tcp: dict[str, Any] = {}
    else:
        queue = {"kind": "superpacket", "limit": BUFFER_PKTS, "threshold": threshold, "epoch": EPOCH,
                 "admit_syn": admit_syn}
        tcp = {"superpacket": "flow", "sp_on_denial": "retry" if variant == "ideal" else "fallback",
               "sp_attempts": IDEAL_ATTEMPTS}
    return {
        "name": f"incast-{variant}",
        "duration": f"{duration_s:g}s",
        "topology": {
            "kind": "star",
            "senders": FLOWS,
            "sender_link": {"rate": rate, "delay": d},
            "receiver_link": {"rate": BOTTLENECK_RATE, "delay": d, "queue": queue},
        },
        "tcp": {"host": PAPER_HOST, "init_cwnd": INIT_CWND, "min_rto": MIN_RTO, "init_rto": INIT_RTO, **tcp},
        "traffic": [{"kind": "flow", "from": "s{i}", "to": "d", "count": FLOWS, "size_pkts": FLOW_PKTS,
                     "start_jitter": f"{jitter_us}us"}],
    }


def measure(res: api.Results) -> dict[str, Any]:
    """One run's figures: mean FCT, flows with a timeout, super-packets admitted (in all
    and per admission round), per-flow FCTs and RTOs."""
    fl = res.flows
    c = {cn: v for ln, cn, v in res.queue_counters.iter_rows() if ln == "R->d"}
    rounds = [c.get(f"sp_round{k}_admitted", 0.0) for k in range(1, ROUNDS + 1)]
    denied = fl.filter(fl["sp_denied"] > 0)
    return {
        "mean_fct_s": float(fl["fct_s"].mean()),  # type: ignore[arg-type]
        "flows_with_timeout": int((fl["timeouts"] > 0).sum()),
        "flows_not_completed": int((~fl["completed"]).sum()),
        "fct_s": fl["fct_s"].to_list(),
        "timeouts": fl["timeouts"].to_list(),
        "sp_denied": fl["sp_denied"].to_list(),
        "sp_admitted": c.get("sp_admitted", 0.0),
        "sp_round1_admitted": rounds[0],
        "rounds": rounds,
        "denied_flows": denied.height,
        "denied_flows_timeouts": float(denied["timeouts"].sum()),
        "conservation": res.summary["conservation"],
    }


def run_one(variant: str, seed: int, jitter_us: float = JITTER_US, admit_syn: bool = False, regime: str = "paper",
            **kw: Any) -> dict[str, Any]:
    return measure(api.run(scenario(variant, jitter_us, admit_syn, regime, **kw), seed=seed, progress=False))


def scenarios(jitter_us: float = JITTER_US, admit_syn: bool = False) -> dict[str, dict[str, Any]]:
    """Every `<regime>/<variant>`'s scenario: built once per run, run and read for the report."""
    return {n: scenario(n.split("/")[1], jitter_us, admit_syn, n.split("/")[0]) for n in _ALL}


def run_point(name: str, seed: int, jitter_us: float = JITTER_US, admit_syn: bool = False,
              scs: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """`name` is `<regime>/<variant>`, e.g. `paper/ideal`; its scenario is `scs[name]`
    (the dict the report reads) or built."""
    if scs:
        return measure(api.run(scs[name], seed=seed, progress=False))
    regime, variant = name.split("/")
    return run_one(variant, seed, jitter_us, admit_syn, regime)


def improvement_pct(variants: dict[str, dict[str, Any]], v: str) -> float:
    """How far `v`'s mean FCT (over seeds) lies below DropTail's, in %."""
    dt = variants["droptail"]["mean_fct_s"]
    return (dt - variants[v]["mean_fct_s"]) / dt * 100.0


def _per(x: float) -> str:
    """A mean per refused flow, or what stands in for it when no flow was refused."""
    return "no (none refused)" if math.isnan(x) else f"{x:.2f}"


def _explanation(regime: str, b: dict[str, Any]) -> str:
    r1 = b["variants"]["superpacket"]["sp_round1_admitted"]
    rto = b["denied_flows_mean_timeouts"]["superpacket"]
    rto_ideal = b["denied_flows_mean_timeouts"]["ideal"]
    dt_rto = b["droptail_mean_timeouts"]
    if regime == "paper":
        return (f"Every link at the bottleneck rate: each super-packet reaches R at the rate R drains it, and the "
                f"ten first packets arrive within one packet time (120 us at 100 Mbps), so each meets a queue "
                f"holding only the first packets admitted before it: t = {THRESHOLD_T} waiting + 1 in "
                f"transmission, {THRESHOLD_T + 1} admitted at once (measured {r1:.1f}). "
                + (f"The refused flows need {_per(rto)} timeouts each on average with the paper's fallback to "
                   f"NewReno and {_per(rto_ideal)} with the ideal retry (their retried batch fits under t + 1), "
                   f"against {dt_rto:.2f} per DropTail flow." if not (math.isnan(rto) and math.isnan(rto_ideal)) else
                   "No super-packet was refused in these runs, so there is no mean of timeouts per refused flow "
                   "(a flow that timed out lost its SYN or a normal packet); "
                   f"{dt_rto:.2f} timeouts per DropTail flow."))
    return (f"Sender links ten times the bottleneck rate: an admitted super-packet's later packets reach R ten per "
            f"packet time R drains and fill the queue to t = {THRESHOLD_T} before the later first packets "
            f"arrive, so only {r1:.1f} of {FLOWS} are admitted at once (our specification: 2 to 5). The refused flows "
            f"fall back to NewReno against an effective buffer of t = {THRESHOLD_T} for normal packets (A1 refuses "
            f"normal packets once the queue holds t), retry in step after the same timeout and time out again: "
            + f"{_per(rto)} timeouts per refused flow"
            + f", against {dt_rto:.2f} per DropTail flow. Super-packets lose "
            f"to DropTail here; a finding, not a bug to tune away.")


def regime_block(regime: str, per_seed: dict[str, dict[str, list[float]]],
                 detail: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """A regime's results: the variants (means over seeds with 95 % CIs), how far each
    super-packet variant lies below DropTail, the mean admissions per round, the timeouts
    of the flows the router refused, per-flow FCTs and RTOs, and why."""
    mine = {v: dict(per_seed[f"{regime}/{v}"]) for v in VARIANTS}
    for k in ("sp_admitted", "sp_round1_admitted"):
        del mine["droptail"][k]  # no super-packets
    variants = summarize(mine)
    runs = {v: detail[f"{regime}/{v}"] for v in VARIANTS}
    denied_rto = {}
    for v in SP_VARIANTS:
        n = sum(d["denied_flows"] for d in runs[v])
        denied_rto[v] = sum(d["denied_flows_timeouts"] for d in runs[v]) / n if n else math.nan
    b: dict[str, Any] = {
        "access_link": f"{REGIMES[regime]['access_rate']}, {REGIMES[regime]['delay']}",
        "bottleneck_link": f"{BOTTLENECK_RATE}, {REGIMES[regime]['delay']}, buffer {BUFFER_PKTS}",
        "variants": variants,
        "improvement_pct": {v: improvement_pct(variants, v) for v in SP_VARIANTS},
        "admitted_per_round": {v: [mean_ci95([d["rounds"][k] for d in runs[v]])[0] for k in range(ROUNDS)]
                               for v in SP_VARIANTS},
        "denied_flows_mean_timeouts": denied_rto,
        "droptail_mean_timeouts": sum(sum(d["timeouts"]) for d in runs["droptail"])
        / sum(len(d["timeouts"]) for d in runs["droptail"]),
        "flows_not_completed": {v: sum(d["flows_not_completed"] for d in runs[v]) for v in VARIANTS},
        "conservation": {v: [d["conservation"] for d in runs[v]] for v in VARIANTS},
        "per_flow": {v: [{"fct_s": d["fct_s"], "timeouts": d["timeouts"], "sp_denied": d["sp_denied"],
                          "sp_admitted_per_round": d["rounds"]} for d in ds] for v, ds in runs.items()},
    }
    b["explanation"] = _explanation(regime, b)
    return b


def claims(paper: dict[str, Any], datacenter: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """our specification's must-holds, judged on the paper regime's block; the datacenter
    regime's finding beside them (not a must-hold)."""
    v = paper["variants"]
    dt = v["droptail"]["mean_fct_s"]
    out: list[dict[str, Any]] = []
    for name, floor in (("superpacket", SP_CUT_PCT), ("ideal", IDEAL_CUT_PCT)):
        cut = paper["improvement_pct"][name]
        out.append(FCT_CUTS[name].result(
            droptail_mean_fct_s=dt,
            **{f"{name}_mean_fct_s": v[name]["mean_fct_s"]},
            improvement_pct=cut,
            holds=bool(cut >= floor),
        ))
    lo, hi = ROUND1_RANGE
    r1 = {n: v[n]["sp_round1_admitted"] for n in SP_VARIANTS}
    out.append(ROUND1.result(
        **{f"{n}_round1_admitted": x for n, x in r1.items()},
        holds=bool(all(lo <= x <= hi for x in r1.values())),
    ))
    # Fig. 4a-c: most DropTail flows time out (paper 9 of 10); with super-packets most
    # finish in one round (paper 6 of 10); the ideal scheme's refused flows get through
    # on their one retry (a retried batch of 10 - 6 = 4 fits under t + 1)
    dt_to = v["droptail"]["flows_with_timeout"]
    one_round = {n: FLOWS - v[n]["flows_with_timeout"] for n in SP_VARIANTS}
    ideal_max_rto = max(max(r["timeouts"]) for r in paper["per_flow"]["ideal"])
    out.append(SHAPE.result(
        droptail_flows_with_timeout=dt_to,
        **{f"{n}_flows_in_one_round": x for n, x in one_round.items()},
        ideal_max_timeouts=ideal_max_rto,
        holds=bool(dt_to > FLOWS / 2 and all(x > FLOWS / 2 for x in one_round.values()) and ideal_max_rto <= 1),
    ))
    if datacenter is not None:
        dv = datacenter["variants"]
        lo, hi = DATACENTER_ROUND1_RANGE
        r1d = dv["superpacket"]["sp_round1_admitted"]
        cut = datacenter["improvement_pct"]["superpacket"]
        out.append(DATACENTER.result(
            superpacket_round1_admitted=r1d,
            droptail_mean_fct_s=dv["droptail"]["mean_fct_s"],
            superpacket_mean_fct_s=dv["superpacket"]["mean_fct_s"],
            improvement_pct=cut,
            holds=bool(lo <= r1d <= hi and cut < 0),
        ))
    return out


def _us(text: str) -> float:
    """"100.0us" -> 100.0, the start jitter as the builder writes it."""
    if not text.endswith("us"):
        raise ValueError(f"{text!r}: the incast's start jitter is written in us")
    return float(text.removesuffix("us"))


def _params(scs: dict[str, dict[str, Any]], regime: str) -> dict[str, dict[str, Any]]:
    """The summary's `params`, read from the scenarios that ran (`scenarios()`)."""
    table = dict(PARAMS)
    for name in REGIMES:
        n = [f"{name}/{v}" for v in VARIANTS]
        table[f"{name}_regime"] = (Sc(*(f"{x}:topology.sender_link.rate" for x in n),
                                      *(f"{x}:topology.sender_link.delay" for x in n),
                                      *(f"{x}:topology.receiver_link.rate" for x in n),
                                      *(f"{x}:topology.receiver_link.delay" for x in n),
                                      fmt=lambda *f: (f"sender links {same(*f[:3])}, {same(*f[3:6])}; R->D "
                                                      f"{same(*f[6:9])}, {same(*f[9:])}")), REGIME_SOURCES[name])
    table["regime"] = (regime, "--regime (the one under `variants`; default: paper)")
    table["jitter_us"] = (Sc(*(f"{x}:traffic[0].start_jitter" for x in _ALL), fmt=lambda *j: _us(same(*j))),
                          "our specification (uniform offsets in [0, 100 us); --jitter-us)")
    table["admit_syn"] = (Sc(*(f"{x}:{_Q}.admit_syn" for x in _SP)),
                          "our specification (SYNs admitted only where a scenario says so)")
    return params_from(table, scs)


def run(seeds: Any = 10, jitter_us: float | None = None, admit_syn: bool = False, regime: str | None = None,
        client: Any = None, progress: bool | None = None, **_: Any) -> dict[str, Any]:
    """Both regimes over the seeds (N: 1..N, or a list); `regime` is the one reported under `variants`
    (the other under `regimes`). `client`: a `distributed.Client` (same results)."""
    seeds = seed_list(seeds)  # N: 1..N, or the list given
    regime = check_regime(regime)
    jitter_us = check_jitter(jitter_us)
    scs = scenarios(jitter_us, admit_syn)
    per_seed, detail = run_seeds(list(scs), seeds, KEYS, functools.partial(run_point, jitter_us=jitter_us,
                                                                           admit_syn=admit_syn, scs=scs),
                                 client, progress)
    blocks = {r: regime_block(r, per_seed, detail) for r in REGIMES}
    return {
        "experiment": "incast",
        "seeds": len(seeds),
        "seed_list": seeds,
        "regime": regime,
        "params": _params(scs, regime),
        **blocks[regime],
        "paper": PAPER,
        "claims": claims(blocks["paper"], blocks["datacenter"]),
        "regimes": {r: b for r, b in blocks.items() if r != regime},
    }


EXPERIMENT = Experiment(
    name="incast", paper=LI_2013,
    part="section 4.2, Fig. 4a-c",
    module=sys.modules[__name__],
    run=run,
    check_options=check_options,
    claims=(*FCT_CUTS.values(), ROUND1, SHAPE, DATACENTER),
    regimes=tuple(REGIMES),
    variants=VARIANTS,
    options=("regime", "jitter_us", "admit_syn"),  # the command line's --regime, --jitter-us, --admit-syn
)
