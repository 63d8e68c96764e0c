#!/usr/bin/env python3
"""The ns-3 comparisons left out of the validation suite because they do not agree: runs
ns-3 (validation/ns3/dumbbell.cc, built against the `ns3` wheel as `make validate-ns3`
builds it) and ours on each, with the diagnostic runs that locate the cause, and stores
the means in python/superpacket/validation/ns3_left_out.json, from which the validation
page's section "What does not agree, and why" is generated.

    python scripts/ns3_left_out.py [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "scripts"))

from superpacket.validation import ns3

OUT = ns3.RESULTS.with_name("ns3_left_out.json")
METRICS = ("utilization", "mean_queue_pkts", "drops", "goodput_bps")
RED = {"red": True, "minTh": 5, "maxTh": 15, "pMax": 0.1, "qw": 0.002, "gentle": True, "wait": True}

#: Each comparison: ns-3's arguments, then the runs that locate the cause (ns-3 with other
#: arguments, or ours with other TCP fields over the matched ones), and the cause.
COMPARISONS: list[dict[str, Any]] = [
    {"name": "dumbbell-sack", "title": "The NewReno dumbbell with SACK",
     "ns3": {**ns3.DUMBBELL, "sack": True},
     "runs": [{"label": "ns-3 with ssthresh = FlightSize / 2 (a NewReno subclass, ns3::TcpNewRenoFlightSize "
                        "in dumbbell.cc)", "ns3": {"cc": "ns3::TcpNewRenoFlightSize"}},
              {"label": "ns-3 with PRR (its default recovery)", "ns3": {"recovery": "prr"}},
              {"label": "ns-3 with its LimitedTransmit attribute on", "ns3": {"limitedTransmit": True}},
              {"label": "ours with PRR", "ours": {"prr": True}},
              {"label": "ours with the scoreboard cleared at a timeout and RFC 6298's back-off reset",
               "ours": {"sack_after_rto": "clear", "rto_backoff_reset": "rtt_sample"}}],
     "cause": "ns-3 computes ssthresh on entering recovery from BytesInFlight(), which with SACK is RFC 6675's "
              "pipe: the three or more SACKed segments and the segments already deemed lost are out of it, so "
              "ns-3 halves FlightSize less four segments or more; RFC 6675 (4.2), and ours, halve FlightSize "
              "(without SACK ns-3 adds one segment back and the two nearly agree, the NewReno case). At about "
              "ten segments per flow that cuts ns-3's windows deeper, its queue is shorter and it loses less. "
              "The same ns-3 program with a NewReno whose ssthresh halves FlightSize agrees with ours within "
              "10 % on every figure (the table's third row). Our scenario has no setting for a pipe-based "
              "ssthresh, so the case is left out; ruled out before: limited transmit (ns-3 with SACK sends "
              "while pipe < cwnd whatever its LimitedTransmit attribute: identical figures with it on and "
              "off), the scoreboard at a timeout and the RTO back-off reset (ours set as ns-3, under 1 % of "
              "drops), and PRR (on both sides the gap stays, +10 % of drops)."},
    {"name": "dumbbell-cubic-sack-prr", "title": "The CUBIC dumbbell with SACK and PRR (ns-3's default recovery)",
     "ns3": {**ns3.DUMBBELL_CUBIC_SACK, "recovery": "prr"},
     "runs": [{"label": "ns-3 with its classic recovery (the judged case ns3-dumbbell-cubic-sack)",
               "ns3": {"recovery": "classic"}}],
     "cause": "Cause found by reading, not confirmed by a run. With ns-3's classic recovery the same CUBIC "
              "dumbbell agrees (the judged case ns3-dumbbell-cubic-sack), and ours changes by under 1 % "
              "between PRR and none, so the difference lies in ns-3's PRR together with its TcpCubic: ns-3's "
              "NewReno with PRR loses 4 % more than with its classic recovery (606.4 against 580.8 drops, the "
              "SACK table above), its CUBIC with PRR 70 % more (1036.8 against 609.0). ns-3 3.44's "
              "TcpPrrRecovery takes RecoverFS, the flight PRR scales down from, as BytesInFlight() at the start "
              "of recovery, which with SACK is RFC 6675's pipe (its header documents it so); RFC 6937 uses "
              "FlightSize. PRR sends ssthresh / RecoverFS of what is delivered: with ns-3's NewReno ssthresh "
              "is itself half of that pipe, so the ratio is the intended 1/2, but TcpCubic's ssthresh is 0.7 "
              "cwnd, and cwnd exceeds the pipe by the SACKed and lost segments, so the ratio rises towards 1 "
              "(at cwnd 10 and 4 segments out of the pipe, 7/6): recovery hardly lowers the flight and the "
              "windows stay larger, hence more drops. A later ns-3 source computes RecoverFS from FlightSize, "
              "naming this overshoot. Ours takes RecoverFS as cwnd at the start of recovery, as Linux (close "
              "to FlightSize here); no setting of ours takes it from pipe."},
    {"name": "dumbbell-red", "title": "The NewReno dumbbell with RED",
     "ns3": {**ns3.DUMBBELL, **RED},
     "runs": [{"label": "ns-3 without its idle decay (LinkBandwidth 1 bit/s: no packet time passes)",
               "ns3": {"redIdleRate": "1bps"}},
              {"label": "ours with ns-3's RTO back-off reset (on the next ACK of new data)",
               "ours": {"rto_backoff_reset": "new_ack"}}],
     "cause": "Cause not confirmed. Over the measured span both hold the same operating point (mean queue and "
              "utilisation within 0.5 %) and ns-3 drops 14 % fewer packets: at the same average its RED drops "
              "less often per arrival. That is what two rules do that ns-3's RedQueueDisc takes from ns-2's RED "
              "and ours leaves out on purpose (it follows Floyd and Jacobson's Fig. 2): ns-3 drops early only "
              "while its disc holds more than one packet, and when it holds one or none it resets count as "
              "below min_th; the next arrival in the band then starts count at 1 and is never dropped (ours "
              "tests that arrival with count 0), and with Wait no early drop comes until count x p_b >= 1 "
              "again, while ours keeps counting through a short queue. ns-3 also takes its disc for idle "
              "whenever a dequeue finds it empty, though the device queue still holds a packet and the link "
              "is busy, and decays the average over that time as if the link had idled; but without that "
              "decay ns-3 drops as many (the table's third row). The two rules cannot be switched off, ns-3 "
              "having no attribute for them and our scenario no setting, so how much of the gap they make was "
              "not measured (the next comparison narrows it down). Ruled out: TCP as a whole (with DropTail the "
              "NewReno case agrees, though there too ours drops 7.4 % more), the thresholds (ns-3's "
              "average is of its queue disc, without the packet in the device queue: its thresholds are set "
              "one below ours, and the mean queues agree), the idle decay (above), the first "
              "slow start's overflow drops (outside the measured span) and the RTO back-off reset (the table's last "
              "row)."},
    {"name": "dumbbell-red-high", "title": "The NewReno dumbbell with RED, thresholds 15 and 45, 100 packets",
     "ns3": {**ns3.DUMBBELL, **RED, "minTh": 15, "maxTh": 45, "queue": 100},
     "runs": [],
     "cause": "The RED comparison above with thresholds and buffer raised to make rarer a disc of one packet "
              "or none (the mean queue is 23 packets) and an average crossing min_th from below, the places where ns-3's "
              "RED (as ns-2's) skips early drops and ours does not. The gap in drops narrows (+12.7 % against "
              "+16.1 %) but stays above 10 %: those rules account for part of it. The rest is not found; it is "
              "of the size of the NewReno case's own difference in drops with DropTail (+7.4 %, within that "
              "case's band), which RED's feedback may amplify. Read and found the same on both sides: the "
              "drop probability (the gentle ramp, Wait's count x p_b rule) and the average's update per "
              "arrival."},
]


def build_dumbbell() -> Path:
    import validate_ns3

    return validate_ns3.build("dumbbell.cc", validate_ns3.ns3_root())


def ns3_means(exe: Path, args: dict[str, Any], jobs: int) -> dict[str, float]:
    def one(seed: int) -> dict[str, float]:
        p = subprocess.run([str(exe), *ns3.ns3_args(args, seed)], capture_output=True, text=True, check=True)
        out: dict[str, float] = json.loads(p.stdout.strip().splitlines()[-1])
        return out

    with ThreadPoolExecutor(jobs) as ex:
        ms = list(ex.map(one, ns3.SEEDS))
    return {m: round(sum(r[m] for r in ms) / len(ms), 4) for m in ms[0]}


def ours_means(args: dict[str, Any], tcp_over: dict[str, Any]) -> dict[str, float]:
    from superpacket import api

    ms = []
    for seed in ns3.SEEDS:
        sc = ns3.dumbbell_scenario(args, seed)
        sc["tcp"] = {**sc["tcp"], **tcp_over}
        r = api.run(sc, seed=seed, progress=False)
        m = ns3.dumbbell_metrics(r, args)
        if args.get("red"):  # as dumbbell.cc prints with --red: the whole run's RED drops
            link = r.links.filter(r.links["name"] == "R1->R2").row(0, named=True)
            m |= {"red_early_drops": link["drops_red_early"], "red_forced_drops": link["drops_red_forced"],
                  "overflow_drops": link["drops_overflow"], "arrivals": link["arrivals"]}
        ms.append(m)
    return {m: round(sum(r[m] for r in ms) / len(ms), 4) for m in ms[0]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="re-run this comparison only, keeping the others' stored figures")
    a = ap.parse_args()
    exe = build_dumbbell()
    kept = {c["name"]: c for c in json.loads(OUT.read_text())["comparisons"]} if a.only else {}
    out = []
    for c in COMPARISONS:
        if a.only and c["name"] != a.only and c["name"] in kept:
            out.append({**kept[c["name"]], "cause": c["cause"]})
            continue
        entry = {"name": c["name"], "title": c["title"], "ns3_args": c["ns3"],
                 "ours_tcp": ns3.dumbbell_scenario(c["ns3"], 1)["tcp"],
                 "ours_queue": ns3.dumbbell_queue(c["ns3"]),
                 "ns3": ns3_means(exe, c["ns3"], a.jobs), "ours": ours_means(c["ns3"], {}), "runs": []}
        for r in c["runs"]:
            if "ns3" in r:
                args = {**c["ns3"], **r["ns3"]}
                entry["runs"].append({"label": r["label"], "ns3_args": r["ns3"], "ns3": ns3_means(exe, args, a.jobs)})
            else:
                entry["runs"].append({"label": r["label"], "ours_tcp": r["ours"],
                                      "ours": ours_means(c["ns3"], r["ours"])})
        entry["cause"] = c["cause"]
        out.append(entry)
        print(f"{c['name']}: ns-3 {entry['ns3']}, ours {entry['ours']}", file=sys.stderr)
    OUT.write_text(json.dumps({"ns3": ns3.NS3_VERSION, "seeds": list(ns3.SEEDS),
                               "command": "python scripts/ns3_left_out.py", "comparisons": out}, indent=2) + "\n")
    print(f"written: {OUT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
