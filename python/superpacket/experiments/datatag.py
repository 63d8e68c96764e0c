"""`superpacket reproduce datatag`: (D. X. Wei, S. Hegde, S. H. Low,
"Burstiness Control for High Speed Long Distance TCP", PFLDnet 2005, slides 5-7 and 24:
DataTAG, May 2003: RTT 120 ms, bottleneck 1 Gbps "split from 2.5 Gbps by Alcatel 1670",
"max queueing delay 2 ms (170 pkt)", "max cwnd 4000 pkt (383 Mbps per flow)", 2 flows,
txqueuelen 10,000 and 100, "not only in slow start!"); parameters from our specification
"Burstiness control and FAST TCP", `datatag`; the network, variants and metrics:
bc_common.py.

Two flows S0 -> D0, S1 -> D1 from two GigE hosts (ours: each host's line rate equals the
bottleneck's, so only bursts of both hosts together can overflow the router) over a
1 Gbps bottleneck, RTT 120 ms, router buffer 170 packets (2 ms), max cwnd 4000 packets
(together 800 Mbps: below the bottleneck, so every router loss comes from bursts), 60 s
(ours: our specification gives no length); txqueuelen 100 and 10,000; with and without
burstiness control. The slides' DataTAG runs were FAST and Linux TCP of 2003: the
schemes are `fast` (alpha 200, the Linux prototype's value: Jin, Wei and Low (INFOCOM 2004)) and
`reno` (NewReno congestion control). ACK compression: 20 % reverse traffic, on-off at
2 Gbps (ours: twice the link, so its bursts queue) over the 1 Gbps reverse link.

Theory for the sender drops: a host's NIC queue holds only its flow's packets in flight,
at most max cwnd = 4000 < 10,000, so with txqueuelen 10,000 no host drops, with or
without reverse traffic (tests/experiments/test_bc.py).
"""

from __future__ import annotations

import sys
from typing import Any

from superpacket.experiments import bc_common
from superpacket.experiments.bc_common import Setup
from superpacket.experiments.record import WEI_HEGDE_LOW_2005, Experiment, Quick

DEFAULT_SEEDS = 10  # our specification
SETUP = Setup(
    experiment="datatag",
    flows=2,
    bottleneck_bps=1e9,
    rtt_ms=120.0,
    buffer_pkts=170,
    host_bps=1e9,
    txqs=(100, 10_000),
    schemes=("fast", "reno"),
    fast_alpha=200.0,
    max_cwnd=4000.0,
    duration_s=60.0,
    quick=Quick("10 s runs (60 s at full scale)", {"duration_s": 10.0}),
    reverse_on_bps=2e9,
    reverse_on_ms=1.0,
    sources={"bottleneck": "our specification (slide 5: 1 Gbps, 170 packets = 2 ms); the delay from the RTT",
             "host_links": "ours (GigE hosts, one per flow)",
             "schemes": "ours (the slides' 2003 DataTAG runs: FAST and Linux TCP; reno = NewReno congestion control)",
             "fast_alpha_pkts": "ours (Jin, Wei and Low (INFOCOM 2004): the Linux prototype's 200)",
             "reverse_traffic": "(twice the reverse link's rate, so that its bursts queue)",
             "duration_s": "ours (our specification gives none)"},
)
VARIANTS = SETUP.variants()
METRICS = bc_common.METRICS
REPORT_TABLES = {"loss_table": (("Where the packets were lost, per variant (means over seeds): at the router "
                                 "(R1->R2) or at the senders' own NIC queues."),
                                bc_common.LOSS_COLUMNS)}
PAPER: dict[str, dict[str, float]] = {}
PAPER_NOTE = ("Slides 5-7 and 24 are traces without loss counts: DataTAG (May 2003), RTT 120 ms, 1 Gbps, router "
              "queue 170 packets (2 ms), max cwnd 4000 packets (383 Mbps per flow), 2 flows, with txqueuelen "
              "10,000 (losses in slow start) and 100 (losses 'not only in slow start'); slide 24 shows burstiness "
              "control on the same setting.")


def run(seeds: Any = DEFAULT_SEEDS, quick: bool = False, duration_s: float | None = None, client: Any = None,
        progress: bool | None = None, **_: Any) -> dict[str, Any]:
    """`quick`: 10 s runs; `duration_s` overrides the run length (default 60 s, ours).
    `client`: a `distributed.Client`."""
    s = bc_common.run(SETUP, seeds, quick=quick, duration_s=duration_s, client=client, progress=progress)
    s["paper"] = PAPER
    s["paper_note"] = PAPER_NOTE
    return s


def claims(variants: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return bc_common.claims(SETUP, variants)


EXPERIMENT = Experiment(
    name="datatag", paper=WEI_HEGDE_LOW_2005,
    part="slides 5-7 and 24",
    module=sys.modules[__name__],
    run=run,
    default_seeds=DEFAULT_SEEDS,
    variants=VARIANTS,
    report_tables=REPORT_TABLES,
    options=("duration_s", "quick"),  # the command line's --duration and --quick
    quick=SETUP.quick,
    claims=bc_common.CLAIMS,
    parallel_by_default=True,  # 14 runs of 60 s per seed: a local Dask cluster unless --workers 0
    generic_bars=False,  # the report draws its own figures (figures/bc.py)
    figures="superpacket.experiments.figures.bc:bc_figures",
)
