"""`superpacket reproduce attacks`: Li (UCB/EECS-2013-83) section 3.1 (security of the admission
algorithm); parameters from our specification "attacks (section 3.1)".

The short-long network of section 4.3 (short_long.py) with its super-packet router R
(buffer 20, t = 10, EPOCH 80 ms, Bloom filter 2^16 bits x 4 hashes, hash table for 4096
(src, dst) pairs per generation): B and C send Poisson short flows of one super-packet of
len 10 each (the victims), A its ten long flows; an attacker M joins R over 1 Gbps, 1 ms
and attacks R's state from 2 s to the end of a 10 s run (traffic kind `sp_attack`,
crates/sim/src/traffic/attack.rs):

- `spoof-flood`: first packets (len 10, 40 B) from random spoofed sources;
- `spoof-flood-aimed` (ours, for the keyed-hashing defence): the same from 256 spoofed
  sources per victim whose pair with D has B's or C's home slot in R's 8192-slot table
  under the public zero key, as an attacker who knows the router's hash computes them;
- `bloom-pollution`: first packets from M's own address with ever new sids;
- `outstanding-drain`: alternately such a pollution packet and a subsequent packet
  (first = 0) claiming B's or C's pair to D with a random sid;
- `epoch-sync`: whole super-packets from M, sent in one burst at each start of an epoch
  of the public grid k x 80 ms (rate x 80 ms packets per burst).

Each at 10^4, 10^5 and 10^6 packets/s, with R's defences all on, all off, the paper's
four on without source validation (`no-validation`), or (full runs, not --quick) each of
the other four off alone with the rest on (`no-key`, `no-bound`, `no-cap`, `no-phase`):
keyed hashing (a secret per router, or the public zero key), a bounded table refusing new
pairs when full (or one that grows), a per-source cap on reserved packets (100 packets per
(src, dst) entry per epoch, or none), an EPOCH phase drawn per router (or epochs at
k x 80 ms), and source validation at R, M's first-hop router (ingress filtering, BCP 38 /
RFC 3704: a packet whose source could not have come in by its port is dropped and counted;
the paper's "trusted environment" of section 3.1.2 made concrete) with a per-ingress-port
quota of a quarter of the table (R's four ports that carry super-packets: A, B, C, M). The victims (short flows that start at or after 2 s) are compared seed by seed
with the same run without M.
"""

from __future__ import annotations

import copy
import functools
import math
import sys
from typing import Any

from superpacket import api
from superpacket.experiments import short_long
from superpacket.experiments.common import (
    Sc,
    params_from,
    run_seeds,
    same,
    seconds,
    seed_list,
    spaced,
    summarize,
)
from superpacket.experiments.record import LI_2013, Claim, Experiment, Quick

ATTACKS = ("spoof-flood", "spoof-flood-aimed", "bloom-pollution", "outstanding-drain", "epoch-sync")
AIM_SLOTS = 8192  # the table's slots per generation for 4096 pairs (load <= 1/2)
AIM_PER_VICTIM = 256
RATES = (10_000, 100_000, 1_000_000)
# all off, all on, and the paper's four defences without source validation (its
# conclusion: super-packet state needs a trusted environment)
DEFENCES = ("off", "on", "no-validation")
# each of the other defences off alone, the rest on (full runs only): which does what
ABLATIONS = ("no-key", "no-bound", "no-cap", "no-phase")
DURATION_S = 10.0
QUICK = Quick("1 seed of 4 s runs, attacks at 10^4 and 10^5 packets/s, the defences all on, all off and all but "
              "source validation (10 seeds of 10 s, up to 10^6 packets/s, and each other defence off alone at full "
              "scale)", {"duration_s": 4.0, "rates": (10_000, 100_000), "settings": DEFENCES}, seeds=1)
ATTACK_START_S = 2.0
SOURCE_CAP = 100
# source validation: at R (the attacker's first hop), with a per-ingress-port quota of
# a quarter of the table: R's ports that carry super-packets to D are A, B, C and M
VALIDATING_ROUTER = "R"
PORT_SHARE = 0.25
PROBE_LIMIT = 32  # crates/admission moving_table.rs: slots per probe run, bounded table

BLOOM_BITS = 1 << 16
BLOOM_HASHES = 4
MAX_PAIRS = 4096
ATTACKER_RATE = "1Gbps"  # M -> R
ATTACKER_DELAY = "1ms"
ATTACK_PACKET_BYTES = 40
ATTACK_LEN = 10
ATTACK_EPOCH = "80ms"



def _pow2(n: int) -> str:
    """65536 -> "2^16" (the text's form), other counts as they are."""
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def param_table(names: list[str]) -> dict[str, tuple[Any, str]]:
    """The summary's parameters; an `Sc` is read from the scenarios of `names` (the
    variants that ran): `<variant>:<path>` in sweep --param syntax, a parameter read from
    several fields reporting their one value."""
    on = next(n for n in names if n.startswith("spoof-flood/") and n.endswith("/on"))
    aimed = next(n for n in names if n.startswith("spoof-flood-aimed/"))
    sync = next(n for n in names if n.startswith("epoch-sync/"))
    attacked = [n for n in names if not n.startswith("none/")]
    q = "topology.links[3].queue"  # R -> D, short-long's bottleneck
    m = "topology.links[4]"  # M -> R
    return {
        "topology": (Sc(f"{on}:{m}.a", f"{on}:{m}.b", f"{on}:{m}.rate", f"{on}:{m}.delay",
                        fmt=lambda a, b, r, d: f"short-long (section 4.3) + attacker {a} -> {b} {spaced(r)}, "
                                               f"{spaced(d)}"), "our specification"),
        "router": (Sc(*(f"{on}:{q}.{k}" for k in ("limit", "threshold", "epoch", "bloom_bits", "bloom_hashes",
                                                   "max_pairs")),
                      fmt=lambda b, t, e, bits, h, p: (f"buffer {b}, t = {t}, EPOCH {spaced(e)}, Bloom "
                                                       f"{_pow2(bits)} bits x {h}, {p} pairs")),
                   "our specification"),
        "duration_s": (Sc(*(f"{n}:duration" for n in names), fmt=lambda *d: seconds(same(*d))),
                       "our specification (quick: 4 s)"),
        "attack_start_s": (Sc(*(f"{n}:traffic[3].start" for n in attacked), fmt=lambda *t: seconds(same(*t))),
                           "our specification"),
        "rates_pps": (Sc(*(f"{n}:traffic[3].rate_pps" for n in attacked), fmt=lambda *r: sorted({int(x) for x in r})),
                      "our specification (quick: 10^4, 10^5)"),
        "attack_packet_bytes": (Sc(*(f"{n}:traffic[3].packet_bytes" for n in attacked)), "our specification"),
        "attack_len": (Sc(*(f"{n}:traffic[3].len" for n in attacked)), "our specification"),
        "defences": (("keyed hashing, bounded table, per-source cap, random EPOCH phase, source validation "
                      "(ingress filtering and a per-port table quota); all on, all off, or all but source "
                      "validation"), "our specification"),
        "source_validation": (Sc(f"{on}:source_validation", f"{on}:{q}.port_share",
                                 fmt=lambda at, share: (f"at {', '.join(at)} (M's first hop); a port may install "
                                                        f"{share:g} of the table per generation")),
                              "our specification (the share: ours, one of R's four super-packet ports)"),
        "source_cap_pkts": (Sc(f"{on}:{q}.max_reserved_per_pair"), (
            "ours: 10 super-packets of 10 per (src, dst) and epoch; a victim host opens 1.6 per epoch on average")),
        "victims": ("short flows of B and C starting at or after the attack start", "ours"),
        "outstanding_drain_mix": ("half pollution first packets from M, half spoofed subsequent packets",
                                  "ours (traffic/attack.rs)"),
        "epoch_sync_grid": (Sc(f"{sync}:traffic[3].epoch", f"{sync}:{m}.rate",
                               fmt=lambda e, r: f"bursts at k x {spaced(e)}, M's line rate ({spaced(r)})"),
                            "ours (traffic/attack.rs)"),
        "spoof_flood_aimed": (Sc(f"{aimed}:traffic[3].aim_per_victim", f"{aimed}:traffic[3].aim_slots",
                                 fmt=lambda per, slots: (f"{per} spoofed sources per victim aimed at its home slot "
                                                         f"of {slots} under the zero key")),
                              "ours (the keyed-hashing defence's attack)"),
    }


ROUTER_KEYS = ("sp_memory_bytes", "sp_probes_per_decision", "sp_probes_max", "sp_fp_rate_measured",
               "sp_fp_queries", "sp_bloom_fill_peak", "sp_table_pairs_peak", "sp_table_refusals",
               "sp_source_cap_refusals", "sp_port_quota_refusals", "sp_reserved_peak", "sp_table_grows",
               "sp_partly", "sp_admitted", "sp_denied")


def settings(quick: bool = False) -> tuple[str, ...]:
    return tuple(QUICK.values["settings"]) if quick else DEFENCES + ABLATIONS


def variant_names(quick: bool = False) -> list[str]:
    rates = QUICK.values["rates"] if quick else RATES
    names = [f"none/0/{d}" for d in settings(quick)]
    names += [f"{a}/{r}/{d}" for a in ATTACKS for r in rates for d in settings(quick)]
    return names


def defence_switches(setting: str) -> dict[str, bool]:
    """"on", "off", or "no-<defence>" (that one off, the others on)."""
    names = {"key": "keyed", "bound": "bounded_table", "cap": "cap", "phase": "random_epoch_phase",
             "validation": "source_validation"}
    if setting in ("on", "off"):
        return dict.fromkeys(names.values(), setting == "on")
    off = names[setting.removeprefix("no-")]
    return {n: n != off for n in names.values()}


def scenario(variant: str, duration_s: float = DURATION_S) -> dict[str, Any]:
    """`variant` is "<attack>/<rate>/<on|off>", attack "none" for the run without M."""
    attack, rate, defences = variant.split("/")
    sc = copy.deepcopy(short_long.scenario("superpacket", duration_s))
    sc["name"] = f"attacks-{attack}-{rate}-{defences}"
    sw = defence_switches(defences)
    for link in sc["topology"]["links"]:
        q = link.get("queue", {})
        if q.get("kind") == "superpacket":
            q.update({"bloom_bits": BLOOM_BITS, "bloom_hashes": BLOOM_HASHES, "max_pairs": MAX_PAIRS, "keyed": sw["keyed"],
                      "bounded_table": sw["bounded_table"], "max_reserved_per_pair": SOURCE_CAP if sw["cap"] else 0,
                      "random_epoch_phase": sw["random_epoch_phase"]})
            if sw["source_validation"]:
                q["port_share"] = PORT_SHARE
    if sw["source_validation"]:
        sc["source_validation"] = [VALIDATING_ROUTER]
    sc["topology"]["nodes"].append("M")
    sc["topology"]["links"].append({"a": "M", "b": "R", "rate": ATTACKER_RATE, "delay": ATTACKER_DELAY})
    if attack != "none":
        a: dict[str, Any] = {
            "kind": "sp_attack", "attack": attack.removesuffix("-aimed").replace("-", "_"), "from": "M", "to": "D",
            "rate_pps": float(rate), "packet_bytes": ATTACK_PACKET_BYTES, "len": ATTACK_LEN,
            "start": f"{ATTACK_START_S}s", "victims": ["B", "C"], "epoch": ATTACK_EPOCH,
        }
        if attack.endswith("-aimed"):
            a.update({"aim_slots": AIM_SLOTS, "aim_per_victim": AIM_PER_VICTIM})
        sc["traffic"].append(a)
    return sc


def run_variant(variant: str, seed: int, duration_s: float = DURATION_S,
                scs: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """One run of `variant`: its scenario in `scs` (the dicts the report reads) or built."""
    res = api.run(scs[variant] if scs else scenario(variant, duration_s), seed=seed, progress=False)
    fl = res.flows
    vic = fl.filter(~fl["bulk"] & (fl["start_s"] >= ATTACK_START_S))
    done = vic.filter(vic["fct_s"].is_not_null() & vic["fct_s"].is_not_nan())
    c = {cn: v for ln, cn, v in res.queue_counters.iter_rows() if ln == "R->D"}
    rd = res.links.filter(res.links["name"] == "R->D")
    sent = float(vic["sp_sent"].sum())
    # a victim that did not finish counts with the time it had (to the end of the run): a
    # lower bound, so that an attack that stops flows from finishing is not a faster mean
    end = float(res.summary["sim_time_s"])
    fct = [f if f is not None and not math.isnan(f) else end - s
           for f, s in zip(vic["fct_s"], vic["start_s"], strict=True)]
    out: dict[str, Any] = {
        "victim_fct_s": sum(fct) / len(fct) if fct else float("nan"),
        "victim_fct_completed_s": float(done["fct_s"].mean()) if done.height else float("nan"),  # type: ignore[arg-type]
        "victim_flows": float(vic.height),
        "victim_not_completed": float(vic.height - done.height),
        "victim_sp_sent": sent,
        "victim_admission_rate": (sent - float(vic["sp_denied"].sum())) / sent if sent else float("nan"),
        "victim_with_timeout": float((vic["timeouts"] > 0).sum()),
        "queue_max_pkts": float(rd["max_pkts"].sum()),
        "source_invalid_drops": float(rd["drops_source_invalid"].sum()),
        "conservation": res.summary["conservation"],
    }
    for k in ROUTER_KEYS:
        out[k] = float(c.get(k, 0.0))
    return out


KEYS = ("victim_fct_s", "victim_admission_rate", "victim_not_completed", "victim_with_timeout",
        "queue_max_pkts", "source_invalid_drops", *ROUTER_KEYS)


MEMORY = Claim("memory-bounded", "defences on: router memory stays at its configured size in every run",
               "the router's super-packet memory in every run with the defences on, against its configured size")
WORK = Claim("work-bounded", f"defences on: per-packet work bounded (at most 2 x {PROBE_LIMIT} table slots per decision: "
             "A3 may look in h1 and h2)", "the most table slots one admission decision looked at, per variant")
VICTIMS = Claim("victims-within-2x", "defences on (source validation included): victims' mean FCT within 2x of the run "
                "without attack at every rate",
                "the victims' mean FCT over that of the same seed without attack, per variant with the defences on")
OFF = Claim("defences-off-harm", "defences off (shown beside, not a must-hold): some attack pushes the victims' mean FCT "
            "past 2x or the router's memory past its configured size",
            "the victims' relative FCT and the router's memory per variant with the defences off", must_hold=False)
NO_VALIDATION = Claim("no-validation-denies", "without source validation (the paper's four defences on), the spoof "
                      "flood fills the table and denies the victims (shown beside, not a must-hold): the paper's own "
                      "conclusion that super-packet state needs a trusted environment (section 3.1.2)",
                      "the victims' relative FCT and admission rate, and the table's peak, under the spoof flood "
                      "without source validation", must_hold=False)
CONSERVES = Claim("conservation", "every run conserves packets", "each run's packet-conservation check")


def run(seeds: Any = None, quick: bool = False, client: Any = None, **_: Any) -> dict[str, Any]:
    """`seeds`: N (1..N) or a list; default 10, `quick` 1. `quick`: 4 s runs, rates 10^4
    and 10^5. `client`: a `distributed.Client` (same results)."""
    seed_ids = seed_list(seeds if seeds is not None else (QUICK.seeds if quick else 10))
    duration_s = QUICK.values["duration_s"] if quick else DURATION_S
    names = variant_names(quick)
    scs = {n: scenario(n, duration_s) for n in names}
    per_seed, detail = run_seeds(names, seed_ids, KEYS,
                                 functools.partial(run_variant, duration_s=duration_s, scs=scs), client)
    # victims' FCT relative to the same seed without the attack, same defences
    for v in names:
        base = per_seed[f"none/0/{v.split('/')[2]}"]["victim_fct_s"]
        per_seed[v]["victim_fct_rel"] = [x / b for x, b in zip(per_seed[v]["victim_fct_s"], base, strict=True)]
    variants = summarize(per_seed)
    cons = all(d["conservation"] == "ok" for ds in detail.values() for d in ds)
    mem = {d: per_seed[f"none/0/{d}"]["sp_memory_bytes"][0] for d in settings(quick)}
    on = [v for v in names if v.endswith("/on") and not v.startswith("none/")]
    off = [v for v in names if v.endswith("/off") and not v.startswith("none/")]
    mem_on = {v: max(per_seed[v]["sp_memory_bytes"]) for v in on}
    probes_on = {v: max(per_seed[v]["sp_probes_max"]) for v in on}
    rel_on = {v: variants[v]["victim_fct_rel"] for v in on}
    novalid = [v for v in names if v.startswith("spoof-flood/") and v.endswith("/no-validation")]
    claims = [
        MEMORY.result(configured_bytes=mem["on"], max_bytes_by_variant=mem_on,
                      holds=all(m == mem["on"] for m in mem_on.values())),
        WORK.result(max_probes_by_variant=probes_on, holds=all(p <= 2 * PROBE_LIMIT for p in probes_on.values())),
        VICTIMS.result(victim_fct_rel_by_variant=rel_on, failing=sorted(v for v, r in rel_on.items() if not r <= 2.0),
                       holds=all(r <= 2.0 for r in rel_on.values())),
        OFF.result(
            victim_fct_rel_by_variant={v: variants[v]["victim_fct_rel"] for v in off},
            max_bytes_by_variant={v: max(per_seed[v]["sp_memory_bytes"]) for v in off},
            max_probes_by_variant={v: max(per_seed[v]["sp_probes_max"]) for v in off},
            harmless_attacks_off=sorted({v.split("/")[0] for v in off} - {
                v.split("/")[0] for v in off
                if not variants[v]["victim_fct_rel"] <= 2.0 or max(per_seed[v]["sp_memory_bytes"]) > mem["off"]}),
            holds=any(not variants[v]["victim_fct_rel"] <= 2.0 or max(per_seed[v]["sp_memory_bytes"]) > mem["off"]
                      for v in off)),
        NO_VALIDATION.result(
            victim_fct_rel_by_variant={v: variants[v]["victim_fct_rel"] for v in novalid},
            victim_admission_rate_by_variant={v: variants[v]["victim_admission_rate"] for v in novalid},
            table_pairs_peak_by_variant={v: variants[v]["sp_table_pairs_peak"] for v in novalid},
            holds=any(not variants[v]["victim_fct_rel"] <= 2.0 for v in novalid)),
        CONSERVES.result(holds=cons),
    ]
    params = params_from(param_table(names), scs)
    params["duration_s"]["source"] = "our specification" if not quick else "--quick"
    return {
        "experiment": "attacks",
        "seeds": len(seed_ids),
        "seed_list": seed_ids,
        "quick": quick,
        "params": params,
        "variants": variants,
        "paper": {},
        "claims": claims,
        "table": table_rows(names, variants),
    }


def table_rows(names: list[str], variants: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """our specification's report, one row per attack x rate x defences."""
    rows = []
    for v in names:
        attack, rate, d = v.split("/")
        m = variants[v]
        rows.append({"attack": attack, "rate_pps": int(rate), "defences": d,
                     **{k: m[k] for k in ("victim_fct_rel", "victim_fct_s", "victim_admission_rate", "sp_partly",
                                          "sp_memory_bytes", "sp_probes_per_decision", "sp_probes_max",
                                          "sp_fp_rate_measured", "sp_bloom_fill_peak", "sp_table_pairs_peak",
                                          "sp_table_refusals", "sp_source_cap_refusals", "sp_port_quota_refusals",
                                          "source_invalid_drops", "queue_max_pkts")}})
    return rows


EXPERIMENT = Experiment(
    name="attacks", paper=LI_2013,
    part="section 3.1 (security of the admission algorithm)",
    module=sys.modules[__name__],
    run=run,
    options=("quick",),  # the command line's --quick
    quick=QUICK,
    claims=(MEMORY, WORK, VICTIMS, OFF, NO_VALIDATION, CONSERVES),
    figures="superpacket.experiments.figures.attacks:attacks",
)
