"""The traffic generator `superpacket emulate` runs inside each host's network namespace
(`ip netns exec NS python gen.py ...`): the standard library only, so it starts in a
few tens of milliseconds and needs nothing from the package.

    gen.py server SPEC.json   accept connections, read and discard, count bytes per peer
    gen.py client SPEC.json   open this host's flows at their start times, send until the
                              end time, sample TCP_INFO (tcp(7)) every `sample_s`
    gen.py udp-send SPEC.json datagrams stamped with CLOCK_REALTIME, `pps` per second in
                              1 ms slots (0: as fast as it can), from `start` to `end`
    gen.py udp-recv SPEC.json each datagram's stamp, kernel receive time (SO_TIMESTAMPNS,
                              socket(7)) and size: the emulator's accuracy (scripts/emu_accuracy.py)

Times in the specs are CLOCK_MONOTONIC seconds (time.monotonic() on Linux), the same
clock in every namespace and in the router. Each writes its JSON result to the spec's
`out` path when done or on SIGTERM.

TCP_INFO: struct tcp_info of linux/include/uapi/linux/tcp.h, read with getsockopt(2);
the offsets below are that struct's (stable: fields are only ever appended).
`tcpi_total_rto` (offset 240) exists from Linux 6.7; older kernels give a shorter struct
and the RTO count is then null.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import struct
import sys
import threading
import time
from typing import Any

TCP_INFO_LEN = 248
#: name: (offset, struct format) in struct tcp_info
FIELDS = {
    "ca_state": (1, "B"), "rto_us": (8, "I"), "snd_mss": (16, "I"), "lost": (32, "I"),
    "retrans": (36, "I"), "rtt_us": (68, "I"), "rttvar_us": (72, "I"), "snd_ssthresh": (76, "I"),
    "snd_cwnd": (80, "I"), "total_retrans": (100, "I"), "bytes_acked": (120, "Q"),
    "bytes_received": (128, "Q"), "segs_out": (136, "I"), "min_rtt_us": (148, "I"),
    "data_segs_out": (156, "I"), "bytes_sent": (200, "Q"), "bytes_retrans": (208, "Q"),
    "total_rto": (240, "H"), "total_rto_recoveries": (242, "H"),
}

_stop = threading.Event()


def tcp_info(sock: socket.socket) -> dict[str, int | None]:
    """The fields of FIELDS from the socket's TCP_INFO; None where the kernel's struct is
    shorter."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_LEN)
    out: dict[str, int | None] = {}
    for name, (off, fmt) in FIELDS.items():
        size = struct.calcsize(fmt)
        out[name] = struct.unpack_from(fmt, raw, off)[0] if off + size <= len(raw) else None
    return out


def _write(path: str, obj: Any) -> None:
    tmp = f"{path}.partial"
    with open(tmp, "w") as f:
        json.dump(obj, f)
    os.replace(tmp, path)


def server(spec: dict[str, Any]) -> None:
    """Reads every connection to `port` until `end` (monotonic s) or SIGTERM; bytes per
    peer (address:port)."""
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", spec["port"]))
    ls.listen(1024)
    ls.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(ls, selectors.EVENT_READ)
    got: dict[str, dict[str, float]] = {}
    buf = bytearray(1 << 20)
    print("ready", flush=True)
    while not _stop.is_set() and time.monotonic() < spec["end"]:
        for key, _ in sel.select(timeout=0.05):
            s = key.fileobj
            assert isinstance(s, socket.socket)
            if s is ls:
                c, addr = ls.accept()
                c.setblocking(False)
                peer = f"{addr[0]}:{addr[1]}"
                got[peer] = {"bytes": 0, "first_s": time.monotonic(), "last_s": time.monotonic()}
                sel.register(c, selectors.EVENT_READ, peer)
                continue
            try:
                n = s.recv_into(buf)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                n = 0
            if n == 0:  # the sender's FIN: every byte is here
                got[key.data]["eof_s"] = time.monotonic()
                sel.unregister(s)
                s.close()
                continue
            g = got[key.data]
            g["bytes"] += n
            g["last_s"] = time.monotonic()
    _write(spec["out"], {"peers": got})


def _flow(f: dict[str, Any], end: float, results: dict[int, Any], socks: dict[int, socket.socket]) -> None:
    fid = f["flow_id"]
    res: dict[str, Any] = {"flow_id": fid, "error": None}
    results[fid] = res
    delay = f["start"] - time.monotonic()
    if delay > 0 and _stop.wait(delay):
        return
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, f["cc"].encode())
        res["start_s"] = time.monotonic()
        # connect gives up at the end of the run: a path that never delivers (a delay
        # past the run) kept it blocked for the kernel's SYN retries, about 2 minutes
        s.settimeout(max(0.05, end - time.monotonic()))
        s.connect((f["dst_ip"], f["port"]))
        res["connected_s"] = time.monotonic()
        res["local"] = f"{s.getsockname()[0]}:{s.getsockname()[1]}"
        socks[fid] = s
        chunk = b"\0" * (1 << 16)
        s.settimeout(0.05)
        left = f.get("size")  # None: bulk
        while not _stop.is_set() and time.monotonic() < end and (left is None or left > 0):
            try:
                left_now = len(chunk) if left is None else min(left, len(chunk))
                n = s.send(chunk[:left_now])
                if left is not None:
                    left -= n
            except TimeoutError:
                continue
        res["end_s"] = time.monotonic()
        if left == 0:
            # a flow of given size: FIN, then wait for the receiver's close, so that the
            # TCP_INFO read last counts every retransmission of the flow
            s.shutdown(socket.SHUT_WR)
            while not _stop.is_set() and time.monotonic() < end:
                try:
                    if s.recv(4096) == b"":
                        break
                except TimeoutError:
                    continue
        res["info"] = tcp_info(s)
    except OSError as e:
        res["error"] = f"{type(e).__name__}: {e}"
    finally:
        socks.pop(fid, None)
        s.close()


def client(spec: dict[str, Any]) -> None:
    """This host's flows: bulk senders from `start` to `end`; TCP_INFO every `sample_s`."""
    results: dict[int, Any] = {}
    socks: dict[int, socket.socket] = {}
    series: list[list[Any]] = []
    threads = [threading.Thread(target=_flow, args=(f, spec["end"], results, socks), daemon=True)
               for f in spec["flows"]]
    for t in threads:
        t.start()
    print("ready", flush=True)
    t0, dt = spec["t0"], spec["sample_s"]
    k = max(0, int((time.monotonic() - t0) / dt) + 1)
    while not _stop.is_set() and time.monotonic() < spec["end"] and any(t.is_alive() for t in threads):
        due = t0 + k * dt
        # never past the end: a sample_flows longer than the run slept that long
        if _stop.wait(max(0.0, min(due, spec["end"]) - time.monotonic())) or due > spec["end"]:
            break
        for fid, s in list(socks.items()):
            try:
                i = tcp_info(s)
            except OSError:
                continue
            series.append([fid, due - t0, i["snd_cwnd"], i["rtt_us"], i["snd_ssthresh"], i["bytes_acked"],
                           i["total_retrans"]])
        k += 1
    deadline = time.monotonic() + 2.0  # one wait for them all, not 2 s per flow
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.monotonic()))
    _write(spec["out"], {"flows": list(results.values()),
                         "series": series,
                         "series_columns": ["flow_id", "t_s", "cwnd_pkts", "rtt_us", "ssthresh_pkts",
                                            "bytes_acked", "retransmits"]})


def udp_send(spec: dict[str, Any]) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    dst = (spec["dst_ip"], spec["port"])
    pad = b"\0" * max(0, spec["size"] - 16)
    pps, seq, sent_err = spec["pps"], 0, 0
    print("ready", flush=True)
    t = spec["start"]
    if _stop.wait(max(0.0, t - time.monotonic())):
        return
    while not _stop.is_set() and time.monotonic() < spec["end"]:
        n = max(1, round(pps / 1000)) if pps else 64
        for _ in range(n):
            try:
                s.sendto(struct.pack("<QQ", seq, time.time_ns()) + pad, dst)
                seq += 1
            except OSError:
                sent_err += 1
        if pps:
            t += n / pps
            delay = t - time.monotonic()
            if delay > 0:
                time.sleep(delay)
    _write(spec["out"], {"sent": seq, "errors": sent_err})


def udp_recv(spec: dict[str, Any]) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
    s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_TIMESTAMPNS", 35), 1)  # asm-generic/socket.h: 35
    s.bind(("0.0.0.0", spec["port"]))
    s.settimeout(0.05)
    seqs: list[int] = []
    stamps: list[int] = []
    rx: list[int] = []
    sizes: list[int] = []
    print("ready", flush=True)
    while not _stop.is_set() and time.monotonic() < spec["end"]:
        try:
            data, anc, _, _ = s.recvmsg(65536, 64)
        except TimeoutError:
            continue
        seq, stamp = struct.unpack_from("<QQ", data)
        sec, nsec = struct.unpack("<qq", anc[0][2][:16])
        seqs.append(seq)
        stamps.append(stamp)
        rx.append(sec * 1_000_000_000 + nsec)
        sizes.append(len(data))
    _write(spec["out"], {"seq": seqs, "stamp_ns": stamps, "rx_ns": rx, "size": sizes})


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, lambda *_: _stop.set())
    signal.signal(signal.SIGINT, lambda *_: _stop.set())
    mode, path = argv
    with open(path) as f:
        spec = json.load(f)
    {"server": server, "client": client, "udp-send": udp_send, "udp-recv": udp_recv}[mode](spec)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
