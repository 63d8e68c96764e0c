"""summary.json's rates (`tcp_goodput_bps`, `sources_throughput_bps`, `link_utilization`,
`busiest_link`, `busiest_link_utilization`) against values worked out by hand.

The run: one TCP flow with a fixed window of 60 packets through a 10 Mbps, 20 ms
bottleneck (100 Mbps, 1 ms access links, a 100-packet queue) for 60 s. The path's
bandwidth-delay product is about 37 packets (10 Mbps x 44 ms / 12 000 bits), so a window
of 60 keeps about 23 packets queued at the bottleneck, never more than its 100: no loss,
and once the first data packet reaches the bottleneck it transmits without a pause.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

SCENARIO = """name = "one-fixed-window-flow"
duration = "60s"

[topology]
kind = "dumbbell"
pairs = 1
access = { rate = "100Mbps", delay = "1ms" }
bottleneck = { rate = "10Mbps", delay = "20ms", queue = { kind = "droptail", limit = 100 } }

[[traffic]]
kind = "bulk"
from = "s0"
to = "d0"
tcp = { cc = { kind = "fixed", window = 60 }, init_cwnd = 60 }
"""

T = 60.0  # the scenario's duration (s)
PKT_S = 1500 * 8 / 10e6  # one 1500-byte data packet on the 10 Mbps bottleneck: 1.2 ms
# the first data packet reaches the bottleneck after the handshake's round trip, 2 x (1 +
# 20 + 1) ms of propagation plus the SYN's and SYN-ACK's transmissions (microseconds),
# then its own 1 ms access hop and 0.12 ms transmission at 100 Mbps: 45.1 to 45.3 ms
FIRST = (0.0451, 0.0453)
# a packet the bottleneck has sent reaches the receiver 20 ms + 0.12 ms + 1 ms later
TO_RECEIVER = 0.020 + 0.00012 + 0.001


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("rates")
    (d / "one.toml").write_text(SCENARIO)
    subprocess.run([sys.executable, "-m", "superpacket.cli", "run", str(d / "one.toml"), "--out", str(d / "out")],
                   check=True, capture_output=True)
    return d / "out"


def test_the_bottleneck_is_the_busiest_link_and_busy_from_the_first_packet(run: Path) -> None:
    s = json.loads((run / "summary.json").read_text())
    assert s["drops"] == 0
    assert s["busiest_link"] == "R1->R2"
    # busy from the first data packet's arrival to the end: (T - FIRST) / T
    lo, hi = (T - FIRST[1]) / T, (T - FIRST[0]) / T  # 0.999245 .. 0.999248
    assert lo <= s["busiest_link_utilization"] <= hi
    assert s["link_utilization"]["R1->R2"] == s["busiest_link_utilization"]


def test_link_utilization_is_the_links_table_for_links_that_carried_packets(run: Path) -> None:
    s = json.loads((run / "summary.json").read_text())
    links = pl.read_parquet(run / "links.parquet")
    carried = links.filter(pl.col("arrivals") > 0)
    assert s["link_utilization"] == dict(zip(carried["name"], carried["utilization"], strict=True))
    # and the utilisation is the bits the link sent over its capacity for the run, within
    # the one packet it may be sending at the end
    bott = links.filter(pl.col("name") == "R1->R2").row(0, named=True)
    assert abs(bott["bytes_departed"] * 8 / (10e6 * T) - s["busiest_link_utilization"]) <= PKT_S / T


def test_tcp_goodput_is_the_received_bytes_over_the_run(run: Path) -> None:
    s = json.loads((run / "summary.json").read_text())
    flows = pl.read_parquet(run / "flows.parquet")
    assert s["tcp_goodput_bps"] == pytest.approx(flows["bytes_received"].sum() * 8 / T, rel=1e-12)
    # by hand: the receiver holds the packets the bottleneck finished sending at least
    # TO_RECEIVER before the end, one every PKT_S from FIRST on, 1460 payload bytes each
    pkts = s["tcp_goodput_bps"] * T / 8 / 1460
    expect = [(T - f - TO_RECEIVER) / PKT_S for f in FIRST]  # 49 944.6 .. 49 944.8
    assert min(expect) - 1 <= pkts <= max(expect)
    assert s["sources_throughput_bps"] == 0.0  # no non-TCP source


def test_sources_throughput_is_the_delivered_wire_bytes_over_the_run(tmp_path: Path) -> None:
    """A 2 Mbps CBR source alone on the path: every packet delivered, so its throughput is
    2 Mbps less the packets still on the way at the end (at most 21.2 ms of them)."""
    text = SCENARIO.replace("""kind = "bulk"
from = "s0"
to = "d0"
tcp = { cc = { kind = "fixed", window = 60 }, init_cwnd = 60 }""", """kind = "cbr"
from = "s0"
to = "d0"
rate = "2Mbps"
""").replace('duration = "60s"', 'duration = "10s"')
    (tmp_path / "cbr.toml").write_text(text)
    subprocess.run([sys.executable, "-m", "superpacket.cli", "run", str(tmp_path / "cbr.toml"), "--out",
                    str(tmp_path / "o")], check=True, capture_output=True)
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    src = pl.read_parquet(tmp_path / "o" / "sources.parquet")
    assert s["sources_throughput_bps"] == pytest.approx(src["bytes_delivered"].sum() * 8 / 10.0, rel=1e-12)
    assert 2e6 * (10.0 - 0.0212) / 10.0 - 12_000 / 10.0 <= s["sources_throughput_bps"] <= 2e6
    assert s["tcp_goodput_bps"] == 0.0 and s["flows"] == 0
