"""`superpacket reproduce fast-burstiness`: (D. X. Wei, S. Hegde, S. H. Low,
"Burstiness Control for High Speed Long Distance TCP", PFLDnet 2005, slides 3-4 and 25:
"FAST over Pacific (Caltech-KAIST): 622 Mbps, RTT 360 ms, reproduced in Dummynet,
alpha 500, bottleneck buffer 2000"; "About 70,000 packets are lost, but Dummynet router
dropped 30,000 packets only!" over 1000 s); parameters from our specification "Burstiness
control and FAST TCP", `fast-burstiness`; FAST: Jin, Wei and Low (INFOCOM 2004); the burstiness
gate: our reconstruction of the slides' rule; the network, variants and metrics: bc_common.py.

One FAST TCP flow (alpha = 500 packets) S0 -> D0 over a 622 Mbps bottleneck, RTT 360 ms,
router buffer 2000 packets, 300 s; the sender's NIC queue (txqueuelen) 100 and 10,000;
ACK compression from 20 % reverse-path traffic (on-off at the reverse host's GigE line
rate, 1 Gbps, over the 622 Mbps reverse link: ours); with and without burstiness control.
The sender host's line rate is 1 Gbps (ours: GigE, above the bottleneck as in the
testbed), so a burst at line rate grows the router queue at 378 Mbps.

Variants: `fast/txq100`, `fast-bc/txq100`, `fast/txq10000`, `fast-bc/txq10000` (with
reverse traffic), `fast/txq10000/no-reverse` and `fast-bc/txq10000/no-reverse` (the
sanity check: a large NIC queue and no ACK compression drop nothing at the host), and
our specification's NewReno-recovery point `fast/txq100/newreno-recovery`,
`fast-bc/txq100/newreno-recovery`.
"""

from __future__ import annotations

import sys
from typing import Any

from superpacket.experiments import bc_common
from superpacket.experiments.bc_common import Setup
from superpacket.experiments.record import WEI_HEGDE_LOW_2005, Experiment, Quick

DEFAULT_SEEDS = 10  # our specification
SETUP = Setup(
    experiment="fast-burstiness",
    flows=1,
    bottleneck_bps=622e6,
    rtt_ms=360.0,
    buffer_pkts=2000,
    host_bps=1e9,
    txqs=(100, 10_000),
    schemes=("fast",),
    fast_alpha=500.0,
    max_cwnd=None,
    duration_s=300.0,
    quick=Quick("20 s runs (300 s at full scale)", {"duration_s": 20.0}),
    reverse_on_bps=1e9,
    reverse_on_ms=10.0,
    sources={"bottleneck": "our specification (slides 3: 622 Mbps, buffer 2000); the delay from the RTT",
             "host_links": "ours (GigE hosts, as the testbed's: above the bottleneck rate)",
             "schemes": "our specification (one FAST TCP flow)",
             "fast_alpha_pkts": "our specification (slide 3: alpha 500)",
             "reverse_traffic": "(the reverse host's GigE line rate)",
             "duration_s": "our specification (300 s; the slides' trace is 1000 s)"},
)
VARIANTS = SETUP.variants()
METRICS = bc_common.METRICS
REPORT_TABLES = {"loss_table": (("Where the packets were lost, per variant (means over seeds): at the router "
                                 "(R1->R2) or at the sender's own NIC queue; the slides' FAST run over 1000 s lost "
                                 "about 70,000 packets of which the Dummynet router dropped about 30,000 "
                                 "(43 %)."), bc_common.LOSS_COLUMNS)}
# Slide 4: "About 70,000 packets are lost, but Dummynet Router dropped 30,000 packets
# only!" (1000 s, txqueuelen not given: Linux's default of the time, 100)
PAPER: dict[str, dict[str, float]] = {}
PAPER_NOTE = ("Slides 3-4: FAST over the Caltech-KAIST path (622 Mbps, RTT 360 ms) reproduced in Dummynet with "
              "alpha 500 and a 2000-packet bottleneck buffer lost about 70,000 packets in 1000 s, of which the "
              "router dropped only about 30,000 (43 %); the rest were lost at the sending host. The slides give "
              "no txqueuelen for that run (Linux's default then: 100) and no throughput; slides 24-25 show burstiness "
              "control removing the loss, with slow convergence ('bandwidth under-estimation by cwnd/RTT'). Our "
              "runs are 300 s (our specification), so compare the router's share of the loss, not the counts.")
PAPER_ROUTER_SHARE = 30_000 / 70_000


def run(seeds: Any = DEFAULT_SEEDS, quick: bool = False, duration_s: float | None = None, client: Any = None,
        progress: bool | None = None, **_: Any) -> dict[str, Any]:
    """`quick`: 20 s runs (the MI phase and the first losses); `duration_s` overrides the
    run length (default 300 s, our specification). `client`: a `distributed.Client`."""
    s = bc_common.run(SETUP, seeds, quick=quick, duration_s=duration_s, client=client, progress=progress)
    s["paper"] = PAPER
    s["paper_note"] = PAPER_NOTE
    s["paper_router_share"] = PAPER_ROUTER_SHARE
    return s


def claims(variants: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return bc_common.claims(SETUP, variants)


EXPERIMENT = Experiment(
    name="fast-burstiness", paper=WEI_HEGDE_LOW_2005,
    part="slides 3-4 and 25",
    module=sys.modules[__name__],
    run=run,
    default_seeds=DEFAULT_SEEDS,
    variants=VARIANTS,
    report_tables=REPORT_TABLES,
    options=("duration_s", "quick"),  # the command line's --duration and --quick
    quick=SETUP.quick,
    claims=bc_common.CLAIMS,
    parallel_by_default=True,  # 8 runs of 300 s per seed: a local Dask cluster unless --workers 0
    generic_bars=False,  # the report draws its own figures (figures/bc.py)
    figures="superpacket.experiments.figures.bc:bc_figures",
)
