"""The testbed of one emulation: a network namespace per host and one for the router
(ip-netns(8)), a veth pair (veth(4)) from each host to the router's namespace, and the
processes started inside them; all of it removed by `close`, whatever happened.

Names carry a tag unique to the run (`sp` + 6 random hex digits): namespaces
`sp-TAG-r` and `sp-TAG-HOST`, interfaces `spTAGhN` (the host's end) and `spTAGrN` (the
router's). The veths are created directly inside their namespaces, so none ever
appears in the caller's; deleting a namespace deletes its veths and their peers.

Hosts: host N is 10.0.N/256.N%256+1 (a /32) with an on-link route to 10.0.0.0/16 that
carries the scenario's initcwnd and rto_min (ip-route(8)), static neighbour entries for
every other host pointing at the router's port (no ARP), IPv6 off, net.ipv4.tcp_sack
as the scenario says, and the veth's offloads off (TSO, GSO, GRO, scatter-gather and
checksum offload: otherwise the kernel hands the router 64 KB frames with partial
checksums).
"""

from __future__ import annotations

import os
import secrets
import shlex
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from superpacket.emulate.plan import Plan

PREFIX = "sp-"


class TestbedError(RuntimeError):
    """A command that builds the testbed failed; the message names it."""


def router_binary() -> Path | None:
    """The router: $SUPERPACKET_EMU, else superpacket-emu on PATH, else the workspace's
    target/release (make install builds it there; $CARGO_TARGET_DIR when set)."""
    env = os.environ.get("SUPERPACKET_EMU")
    if env:
        return Path(env) if Path(env).is_file() else None
    found = shutil.which("superpacket-emu")
    if found:
        return Path(found)
    root = Path(__file__).resolve().parents[3]
    dirs = [Path(os.environ["CARGO_TARGET_DIR"])] if os.environ.get("CARGO_TARGET_DIR") else []
    for d in [*dirs, root / "target"]:
        p = d / "release" / "superpacket-emu"
        if p.is_file():
            return p
    return None


def unavailable() -> str | None:
    """Why namespaces cannot be made here (None when they can): root and ip(8) needed."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "ip (iproute2) is not installed"
    return None


def host_ip(n: int) -> str:
    return f"10.0.{n // 256}.{n % 256 + 1}"


def mac(kind: int, n: int) -> str:
    """02:53:50:KK:HH:LL: locally administered; kind 0 a host, 1 the router's port."""
    return f"02:53:50:{kind:02x}:{n >> 8 & 0xff:02x}:{n & 0xff:02x}"


def run_cmd(args: list[str], timeout: float = 30.0) -> str:
    try:
        p = subprocess.run(args, check=False, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise TestbedError(f"{' '.join(args)}: {e}") from e
    if p.returncode != 0:
        msg = " ".join((p.stderr or p.stdout).split())
        raise TestbedError(f"{' '.join(args)}: {msg}")
    return p.stdout


def leftovers(tag: str = "") -> list[str]:
    """Namespaces and interfaces of runs (of the run `tag` if given) still present."""
    ns = [line.split()[0] for line in run_cmd(["ip", "netns", "list"]).splitlines() if line.strip()]
    want = f"{PREFIX}{tag}" if tag else PREFIX
    links = [line.split(":")[1].strip().split("@")[0] for line in run_cmd(["ip", "-o", "link"]).splitlines()
             if ":" in line]
    return [f"netns {n}" for n in ns if n.startswith(want)] + \
        [f"link {n}" for n in links if n.startswith(want.replace("-", ""))]


@dataclass
class Testbed:
    plan: Plan
    tag: str = field(default_factory=lambda: "sp" + secrets.token_hex(3))
    namespaces: list[str] = field(default_factory=list)
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def router_ns(self) -> str:
        return f"{PREFIX}{self.tag[2:]}-r"

    def host_ns(self, host: str) -> str:
        return f"{PREFIX}{self.tag[2:]}-{host}"

    def host_if(self, n: int) -> str:
        return f"{self.tag}h{n}"

    def router_if(self, n: int) -> str:
        return f"{self.tag}r{n}"

    def build(self, binary: Path) -> None:
        """Creates the namespaces, veths, addresses, routes and TCP settings."""
        p = self.plan
        # the binary's path goes into the shell scripts below: quoted, a path with a space
        # (or a ";") is one word, not a broken (or another) command
        exe = shlex.quote(str(binary))
        for ns in [self.router_ns] + [self.host_ns(h) for h in p.hosts]:
            run_cmd(["ip", "netns", "add", ns])
            self.namespaces.append(ns)
            self.ns_sh(ns, "sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1; "
                           "ip link set lo up")
        for n, h in enumerate(p.hosts):
            hi, ri = self.host_if(n), self.router_if(n)
            run_cmd(["ip", "link", "add", hi, "netns", self.host_ns(h), "address", mac(0, n), "type", "veth",
                     "peer", "name", ri, "netns", self.router_ns, "address", mac(1, n)])
            t = p.host_tcp[h]
            neigh = "; ".join(f"ip neigh replace {host_ip(m)} lladdr {mac(1, n)} dev {hi} nud permanent"
                              for m in range(len(p.hosts)) if m != n)
            self.ns_sh(self.host_ns(h),
                       f"{exe} offloads-off {hi} && ip link set {hi} up && "
                       f"ip addr add {host_ip(n)}/32 dev {hi} && "
                       f"ip route add 10.0.0.0/16 dev {hi} src {host_ip(n)} initcwnd {t.init_cwnd} "
                       f"rto_min {t.min_rto_ms}ms && "
                       f"sysctl -qw net.ipv4.tcp_sack={int(t.sack)} && {neigh}")
        ifs = " ".join(self.router_if(n) for n in range(len(p.hosts)))
        self.ns_sh(self.router_ns, f"{exe} offloads-off {ifs} && for i in {ifs}; do ip link set $i up; done")

    def ns_sh(self, ns: str, script: str) -> None:
        run_cmd(["ip", "netns", "exec", ns, "sh", "-ec", script])

    def spawn(self, ns: str, args: list[str], stdout: int | None = subprocess.PIPE) -> subprocess.Popen[bytes]:
        """A process inside `ns` (`ip netns exec` execs it: the pid is the process's own)."""
        pr = subprocess.Popen(["ip", "netns", "exec", ns, *args], stdout=stdout, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs.append(pr)
        return pr

    def close(self) -> list[str]:
        """Stops every process and deletes every namespace; returns what could not be
        removed (empty when all went)."""
        for pr in self.procs:
            if pr.poll() is None:
                try:
                    pr.send_signal(signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 3.0
        for pr in self.procs:
            try:
                pr.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pr.kill()
                pr.wait()
        problems = []
        for ns in reversed(self.namespaces):
            try:
                run_cmd(["ip", "netns", "del", ns])
            except TestbedError as e:
                problems.append(str(e))
        self.namespaces.clear()
        return problems + leftovers(self.tag[2:])
