"""Packet traces (crates/sim/src/trace): pcap files that tshark reads without errors,
with checksums it verifies, TCP streams it follows, and the super-packet option shown by
contrib/wireshark/superpacket.lua. Counts are checked against the link table."""

import shutil
import struct
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import superpacket
from superpacket import ScenarioError

EXE = str(Path(sys.executable).parent / "superpacket")
ROOT = Path(__file__).resolve().parent.parent
LUA = ROOT / "contrib" / "wireshark" / "superpacket.lua"
CHECK = ["-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE"]


def tshark(*args: str) -> str:
    assert shutil.which("tshark"), "tshark missing: `make install` installs it (Debian package tshark)"
    r = subprocess.run(["tshark", *args], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    return r.stdout


def fields(f: Path, *names: str, lua: bool = False) -> list[list[str]]:
    args = ["-X", f"lua_script:{LUA}"] if lua else []
    fs = [x for n in names for x in ("-e", n)]
    out = tshark(*args, *CHECK, "-r", str(f), "-T", "fields", "-E", "occurrence=f", *fs)
    return [line.split("\t") for line in out.splitlines()]


def records(f: Path) -> list[tuple[int, int, int]]:
    """(time ns, captured length, original length) of every record, read directly."""
    b = f.read_bytes()
    magic, _, _, _, _, _, link = struct.unpack_from("<IHHiIII", b, 0)
    assert (magic, link) == (0xA1B23C4D, 1)
    out, off = [], 24
    while off < len(b):
        s, ns, cap, orig = struct.unpack_from("<IIII", b, off)
        out.append((s * 10**9 + ns, cap, orig))
        off += 16 + cap
    assert off == len(b)
    return out


@pytest.fixture(scope="module")
def incast(tmp_path_factory):
    """examples/incast-superpacket.toml with every link traced, through the CLI."""
    out = tmp_path_factory.mktemp("incast-sp")
    r = subprocess.run([EXE, "run", str(ROOT / "examples" / "incast-superpacket.toml"), "--pcap", "all",
                        "--out", str(out)], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert "trace of R->d" in r.stdout
    import polars as pl

    links = pl.read_parquet(out / "links.parquet")
    flows = pl.read_parquet(out / "flows.parquet")
    return out, links, flows


def test_one_file_per_link_with_every_transmitted_packet(incast):
    out, links, _ = incast
    for row in links.iter_rows(named=True):
        f = out / (row["name"].replace("->", "-to-") + ".pcap")
        recs = records(f)
        # the run ends with every queue empty: transmitted = arrived - dropped
        assert len(recs) == row["arrivals"] - row["drops"], row["name"]
        times = [t for t, _, _ in recs]
        assert times == sorted(times)
        assert all(cap == orig for _, cap, orig in recs)


def test_tshark_reads_without_errors_and_verifies_checksums(incast):
    out, _, _ = incast
    for name in ["R-to-d", "d-to-R", "s0-to-R", "R-to-s0"]:
        f = out / f"{name}.pcap"
        expert = tshark(*CHECK, "-r", str(f), "-q", "-z", "expert")
        assert "Errors (" not in expert, expert
        rows = fields(f, "_ws.malformed", "ip.checksum.status", "tcp.checksum.status")
        assert rows, name
        for malformed, ip_ok, tcp_ok in rows:
            assert malformed == ""
            assert (ip_ok, tcp_ok) == ("1", "1")  # 1 = Good (2 = unverified, 0 = bad)


def test_headers_follow_the_model(incast):
    out, _, _ = incast
    # star: R = node 0, d = 1, s{i} = 2 + i; flow i is s{i} -> d
    rows = fields(out / "s0-to-R.pcap", "eth.src", "eth.dst", "ip.src", "ip.dst", "ip.ttl", "tcp.srcport",
                  "tcp.dstport", "tcp.seq_raw", "tcp.flags.syn", "ip.len", "tcp.len", "ip.id")
    assert rows[0][:9] == ["02:00:00:00:00:02", "02:00:00:00:00:00", "10.0.0.2", "10.0.0.1", "64", "10000", "80",
                           "0", "1"]
    data = [r for r in rows if r[10] != "0"]
    assert {r[9] for r in data} == {str(20 + 12 + 20 + 1460)}  # IPv4 + super-packet option + TCP + MSS
    assert [int(r[7]) for r in data] == [1 + 1460 * k for k in range(10)]
    assert [int(r[11], 16) for r in rows] == list(range(1, len(rows) + 1))  # IP id counts per (src, dst)
    # one router on the way: TTL 63 on R -> d
    assert {r[0] for r in fields(out / "R-to-d.pcap", "ip.ttl")} == {"63"}
    acks = fields(out / "d-to-R.pcap", "tcp.srcport", "tcp.flags.syn", "tcp.seq_raw", "tcp.ack_raw")
    assert acks[0][:3] == ["80", "1", "0"]
    assert all(r[2] == "1" for r in acks if r[1] == "0")


def test_tcp_conversations_and_follow(incast):
    out, _, flows = incast
    conv = tshark("-r", str(out / "s3-to-R.pcap"), "-q", "-z", "conv,tcp")
    assert [ln.split()[0] for ln in conv.splitlines() if "<->" in ln] == ["10.0.0.5:10003"]
    # on R -> d: one conversation per flow whose SYN got through
    conv = tshark("-r", str(out / "R-to-d.pcap"), "-q", "-z", "conv,tcp")
    ports = sorted(int(ln.split()[0].split(":")[1]) for ln in conv.splitlines() if "<->" in ln)
    started = flows.filter(flows["pkts_delivered"] > 0)["flow_id"].to_list()
    assert ports == [10000 + f for f in sorted(started)]
    follow = tshark("-r", str(out / "s0-to-R.pcap"), "-q", "-z", "follow,tcp,raw,0")
    assert "Node 0: 10.0.0.2:10000" in follow
    payload = "".join(ln.strip() for ln in follow.splitlines() if ln and set(ln.strip()) == {"0"})
    assert len(payload) == 2 * 10 * 1460  # the whole zero-filled flow, hex


def test_lua_dissector_shows_the_superpacket_option(incast):
    out, _, flows = incast
    for name in ["R-to-d", "s0-to-R"]:
        rows = fields(out / f"{name}.pcap", "superpacket.sid", "superpacket.len", "superpacket.first", "tcp.len",
                      lua=True)
        sp = [r for r in rows if r[0]]
        assert sp, name
        assert {r[1] for r in sp} == {"10"}
        firsts = Counter(r[0] for r in sp if r[2] in ("1", "True"))
        assert set(firsts) == {r[0] for r in sp}
        assert set(firsts.values()) == {1}
        assert all(r[3] == "1460" for r in sp)
    # past the router: one first packet per admitted super-packet (sent and not denied)
    rows = fields(out / "R-to-d.pcap", "superpacket.first", lua=True)
    assert sum(r[0] in ("1", "True") for r in rows) == (flows["sp_sent"] - flows["sp_denied"]).sum() > 0


def test_snaplen_keeps_headers_only(tmp_path):
    res = superpacket.run(ROOT / "examples" / "incast-superpacket.toml", pcap="R->d", pcap_snaplen=66,
                          out=tmp_path, progress=False)
    assert res.pcap_links == ["R->d"]
    assert res.pcap_files == [tmp_path / "R-to-d.pcap"]
    recs = records(tmp_path / "R-to-d.pcap")
    assert max(cap for _, cap, _ in recs) == 66
    assert max(orig for _, _, orig in recs) == 14 + 20 + 12 + 20 + 1460
    rows = fields(tmp_path / "R-to-d.pcap", "_ws.malformed", "ip.checksum.status", "tcp.checksum.status",
                  "superpacket.len", lua=True)
    assert all(r[0] == "" and r[1] == "1" and r[2] in ("1", "2") for r in rows)  # never bad
    assert {r[3] for r in rows if r[3]} == {"10"}
    assert (tmp_path / "flows.parquet").exists()


def one_flow() -> dict:
    return {
        "duration": "100ms",
        "topology": {"kind": "star", "senders": 1, "sender_link": {"rate": "1Gbps", "delay": "25us"},
                     "receiver_link": {"rate": "100Mbps", "delay": "25us"}},
        "traffic": [{"kind": "flow", "from": "s0", "to": "d", "size_pkts": 3}],
    }


def test_scenario_field_and_results_write(tmp_path):
    sc = one_flow() | {"output": {"pcap": ["all"]}}
    res = superpacket.run(sc, progress=False)
    assert len(res.pcap_links) == res.links.height == 4
    res.write(tmp_path)
    assert sorted(p.name for p in tmp_path.glob("*.pcap")) == ["R-to-d.pcap", "R-to-s0.pcap", "d-to-R.pcap",
                                                               "s0-to-R.pcap"]
    assert (tmp_path / "links.parquet").exists() and (tmp_path / "summary.json").exists()
    # no tracing: write as before, no pcap
    plain = tmp_path / "plain"
    superpacket.run(one_flow(), progress=False).write(plain)
    assert not list(plain.glob("*.pcap"))


def test_unknown_link_names_the_field():
    with pytest.raises(ScenarioError, match=r"output\.pcap\[1\]: unknown link \"R->x\""):
        superpacket.run(one_flow() | {"output": {"pcap": ["R->d", "R->x"]}})
    with pytest.raises(ScenarioError, match=r"^pcap\[0\]: unknown link \"nope\""):
        superpacket.run(one_flow(), pcap="nope")


def test_cli_pcap_needs_out_and_bad_link_exits_2(tmp_path):
    f = ROOT / "examples" / "incast-superpacket.toml"
    r = subprocess.run([EXE, "run", str(f), "--pcap", "R->d"], capture_output=True, text=True, check=False)
    assert r.returncode == 2 and "--out" in r.stderr
    r = subprocess.run([EXE, "run", str(f), "--pcap", "R->d,X->Y", "--out", str(tmp_path)], capture_output=True,
                       text=True, check=False)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and 'pcap[1]: unknown link "X->Y"' in r.stderr
