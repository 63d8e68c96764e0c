"""The emulator's own accuracy (docs/guide/emulate.md, "Measured"): UDP datagrams through
superpacket-emu on a one-pair dumbbell, timed by the kernel.

    python scripts/emu_accuracy.py delay --rate 100Mbps [--seconds 10]
    python scripts/emu_accuracy.py rate --rate 100Mbps [--seconds 10]
    python scripts/emu_accuracy.py pps [--seconds 10]

delay: 200 datagrams a second of 64 payload bytes (92 IPv4 bytes) from s0 to d0 over
s0->R1 (--access-delay, 1 ms), R1->R2 (--delay, 20 ms), R2->d0, every link at --rate. Each is stamped
with CLOCK_REALTIME just before sendto(2) and timed on arrival by the kernel
(SO_TIMESTAMPNS); expected one-way time = sum over the three links of ser(92 B) + delay.
The error (measured - expected) includes both hosts' stacks and the router.

rate: 1472-byte datagrams (1500 IPv4 bytes) offered at 1.3 x --rate, so the first
link's queue stays full and every link sends back to back; the rate is the IPv4 bytes
of the datagrams after the first 200 over the time between their kernel arrival times.

pps: two pairs, every link 1 Gb/s without delay, each sender (superpacket-emu blast,
not Python) as fast as it can with 18-byte payloads (46 IPv4 bytes, 368 ns at 1 Gb/s,
so the links are not the limit): frames the router read and forwarded per second of
the run, beside what the senders wrote.
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from superpacket.emulate import make_plan, router_binary
from superpacket.emulate.plan import parse_rate_bps
from superpacket.emulate.run import GEN, _router_config, _wait_ready
from superpacket.emulate.testbed import Testbed, host_ip, mac

PORT = 6001


def plan(pairs: int, rate: str, access_delay: str, delay: str, limit: int) -> Any:
    return make_plan({
        "name": "accuracy", "duration": "1s",
        "topology": {"kind": "dumbbell", "pairs": pairs,
                     "access": {"rate": rate, "delay": access_delay, "queue": {"kind": "droptail", "limit": limit}},
                     "bottleneck": {"rate": rate, "delay": delay, "queue": {"kind": "droptail", "limit": limit}}},
        "tcp": {"delayed_ack": True, "mss": 1448, "header_bytes": 52},
    })


def run(p: Any, senders: list[dict[str, Any]], seconds: float) -> tuple[dict[str, Any], list[Any], list[Any]]:
    """Builds the testbed, runs one UDP sender per entry (host, dst host, size, pps) and
    the receivers for `seconds`; returns the router's counters and the generators' results."""
    binary = router_binary()
    assert binary is not None, "build the router first (make install)"
    tb = Testbed(p)
    work = Path(tempfile.mkdtemp(prefix="emu-accuracy-"))
    try:
        tb.build(binary)
        cfg = work / "router.json.in"
        cfg.write_text(json.dumps(_router_config(p, tb, work / "router.json")))
        router = tb.spawn(tb.router_ns, [str(binary), str(cfg)])
        _wait_ready(router, "the router")
        t0 = time.monotonic() + 1.0
        end = t0 + seconds
        procs = []
        for i, s in enumerate(senders):
            rspec = work / f"recv{i}.json"
            rspec.write_text(json.dumps({"port": PORT + i, "end": end + 1.0, "out": str(work / f"got{i}.json")}))
            procs.append(tb.spawn(tb.host_ns(s["dst"]), [sys.executable, str(GEN), "udp-recv", str(rspec)]))
            sspec = work / f"send{i}.json"
            sspec.write_text(json.dumps({"dst_ip": host_ip(p.hosts.index(s["dst"])), "port": PORT + i,
                                         "size": s["size"], "pps": s["pps"], "start": t0, "end": end,
                                         "out": str(work / f"sent{i}.json")}))
            procs.append(tb.spawn(tb.host_ns(s["src"]), [sys.executable, str(GEN), "udp-send", str(sspec)]))
        for pr in procs:
            _wait_ready(pr, "a generator")
        time.sleep(max(0.0, t0 - time.monotonic()))
        router.send_signal(signal.SIGUSR1)
        time.sleep(max(0.0, end - time.monotonic()))
        for pr in procs[1::2]:
            pr.wait(timeout=10)
        time.sleep(0.5)
        router.send_signal(signal.SIGTERM)
        router.wait(timeout=5)
        for pr in procs[0::2]:
            pr.wait(timeout=10)
        stats = json.loads((work / "router.json").read_text())
        got = [json.loads((work / f"got{i}.json").read_text()) for i in range(len(senders))]
        sent = [json.loads((work / f"sent{i}.json").read_text()) for i in range(len(senders))]
        return stats, got, sent
    finally:
        left = tb.close()
        if left:
            print("left behind:", left, file=sys.stderr)


def ser_ns(nbytes: int, rate_bps: int) -> float:
    return nbytes * 8e9 / rate_bps


def delay(rate: str, seconds: float, bottleneck_s: float, access_s: float) -> dict[str, Any]:
    p = plan(1, rate, f"{access_s}s", f"{bottleneck_s}s", 1000)
    stats, got, sent = run(p, [{"src": "s0", "dst": "d0", "size": 64, "pps": 200}], seconds)
    r = parse_rate_bps(rate, "--rate")
    ip_len = 64 + 28
    expected = 3 * ser_ns(ip_len, r) + (access_s + bottleneck_s + access_s) * 1e9
    g = got[0]
    err = sorted((rx - st) - expected for rx, st in zip(g["rx_ns"], g["stamp_ns"], strict=True))
    q = lambda f: err[min(len(err) - 1, int(f * len(err)))]
    return {"rate": rate, "datagrams": len(err), "sent": sent[0]["sent"], "expected_us": expected / 1e3,
            "error_mean_us": statistics.fmean(err) / 1e3, "error_p50_us": q(0.5) / 1e3,
            "error_p99_us": q(0.99) / 1e3, "error_min_us": err[0] / 1e3, "error_max_us": err[-1] / 1e3,
            "router_lateness_mean_us": stats["lateness_ns"]["mean_ns"] / 1e3,
            "router_lateness_max_us": stats["lateness_ns"]["max_ns"] / 1e3,
            "router_rx_wait_mean_us": stats["rx_wait_ns"]["mean_ns"] / 1e3}


def rate(rate: str, seconds: float) -> dict[str, Any]:
    r = parse_rate_bps(rate, "--rate")
    p = plan(1, rate, "0s", "0s", 1000)
    pps = 1.3 * r / (1500 * 8)
    _, got, sent = run(p, [{"src": "s0", "dst": "d0", "size": 1472, "pps": pps}], seconds)
    g = got[0]
    skip = 200
    n = len(g["rx_ns"]) - skip
    bits = sum(s + 28 for s in g["size"][skip + 1:]) * 8
    span = (g["rx_ns"][-1] - g["rx_ns"][skip]) / 1e9
    measured = bits / span
    gaps = [b - a for a, b in zip(g["rx_ns"][skip:], g["rx_ns"][skip + 1:], strict=False)]
    return {"rate": rate, "datagrams": n, "sent": sent[0]["sent"], "measured_bps": measured,
            "error_pct": (measured / r - 1) * 100, "gap_expected_us": ser_ns(1500, r) / 1e3,
            "gap_p50_us": sorted(gaps)[len(gaps) // 2] / 1e3, "gap_p99_us": sorted(gaps)[int(0.99 * len(gaps))] / 1e3}


def pps(seconds: float) -> dict[str, Any]:
    """Two blasters (superpacket-emu blast: 46-byte IPv4/UDP frames written on the hosts'
    veths as fast as send(2) goes) s0 -> d0 and s1 -> d1 through 1 Gb/s links without
    delay; the router's counters give what it read and forwarded per second."""
    p = plan(2, "1Gbps", "0s", "0s", 1000)
    binary = router_binary()
    assert binary is not None, "build the router first (make install)"
    tb = Testbed(p)
    work = Path(tempfile.mkdtemp(prefix="emu-accuracy-"))
    try:
        tb.build(binary)
        cfg = work / "router.json.in"
        cfg.write_text(json.dumps(_router_config(p, tb, work / "router.json")))
        router = tb.spawn(tb.router_ns, [str(binary), str(cfg)])
        _wait_ready(router, "the router")
        router.send_signal(signal.SIGUSR1)
        blasters = []
        for i in range(2):
            s, d = p.hosts.index(f"s{i}"), p.hosts.index(f"d{i}")
            blasters.append(tb.spawn(tb.host_ns(f"s{i}"), [
                str(binary), "blast", tb.host_if(s), mac(1, s), mac(0, s), host_ip(s), host_ip(d), "18",
                str(seconds)]))
        outs = [b.communicate(timeout=seconds + 10)[0].decode().split() for b in blasters]
        router.send_signal(signal.SIGTERM)
        router.wait(timeout=5)
        stats = json.loads((work / "router.json").read_text())
    finally:
        left = tb.close()
        if left:
            print("left behind:", left, file=sys.stderr)
    sent = sum(int(o[1]) for o in outs)
    w = stats["window_s"]
    rx = sum(pt["rx"] for pt in stats["ports"])
    fwd = sum(pt["tx"] for pt in stats["ports"])
    return {"blasters_sent_pps": sent / seconds, "blasters_refused": sum(int(o[3]) for o in outs),
            "router_read_pps": rx / w, "router_forwarded_pps": fwd / w,
            "not_read_by_router": sent - rx, "link_drops": sum(lk["drops"] for lk in stats["links"]),
            "window_s": w}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("delay", "rate", "pps"))
    ap.add_argument("--rate", default="100Mbps")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--delay", type=float, default=0.020, help="delay: the bottleneck's delay, s (0.020)")
    ap.add_argument("--access-delay", type=float, default=0.001, help="delay: the access links' delay, s (0.001)")
    a = ap.parse_args()
    res = {"delay": lambda: delay(a.rate, a.seconds, a.delay, a.access_delay), "rate": lambda: rate(a.rate, a.seconds),
           "pps": lambda: pps(a.seconds)}[a.what]()
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
