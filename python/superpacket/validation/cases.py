"""The validation suite's cases: each a scenario, an independent reference (theory
derived in the case's own text), the quantity compared and a band with the reason for
its width. A case returns one `Check` per compared quantity; the suite's verdict on a
check is |ours - reference| <= band.

References:
- Pollaczek-Khinchine mean queue of M/D/1 (Kleinrock, Queueing Systems vol. 1, 1975,
  section 5.6); the variance of a time-average queue from Whitt, "Planning queueing
  simulations", Management Science 35(11), 1989 (the M/M/1 asymptotic variance, an upper
  bound for deterministic service).
- M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic behavior of the TCP
  congestion avoidance algorithm", ACM CCR 27(3), 1997.
- C. Jin, D. X. Wei, S. H. Low, "FAST TCP: motivation, architecture, algorithms,
  performance", IEEE INFOCOM 2004 (the equilibrium: alpha packets queued per flow).
- RFC 9438 (CUBIC) section 5.1 and RFC 3649 (HighSpeed TCP) section 5: the response
  functions (average window against the loss rate).
- M. Alizadeh, A. Greenberg, D. A. Maltz, J. Padhye, P. Patel, B. Prabhakar, S. Sengupta,
  M. Sridharan, "Data Center TCP (DCTCP)", ACM SIGCOMM 2010, section 3.3.
- S. Floyd, V. Jacobson, "Random Early Detection Gateways for Congestion Avoidance",
  IEEE/ACM Transactions on Networking 1(4), 1993 (Fig. 2 and section 7).
- S. Bhandarkar, A. L. N. Reddy, "TCP-DCR: Making TCP Robust to Non-Congestion Events",
  Networking 2004.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

PKT_BYTES = 1500  # wire bytes of a full segment (MSS 1460 + 40 B of headers)
MSS = 1460


@dataclass(frozen=True)
class Check:
    """One compared quantity: ours against the reference, within `band` (absolute, in the
    quantity's unit)."""

    label: str
    unit: str
    ours: float
    reference: float
    band: float
    #: The x of this point on the case's figure (load, loss rate, ...), if it has one.
    x: float | None = None
    #: False: shown beside the judged checks (ours with our own defaults where a case
    #: configures ours to match another simulator), no verdict.
    judged: bool = True

    @property
    def error(self) -> float:
        return self.ours - self.reference

    @property
    def rel_error(self) -> float:
        return self.error / self.reference if self.reference else math.inf if self.error else 0.0

    @property
    def holds(self) -> bool | None:
        return abs(self.error) <= self.band if self.judged else None


@dataclass(frozen=True)
class Figure:
    """What the case's figure draws: the reference as a curve over x, ours as points."""

    x_label: str
    y_label: str
    curve: Callable[[float], float]
    x_range: tuple[float, float]
    log_x: bool = False
    log_y: bool = False


@dataclass(frozen=True)
class Case:
    name: str
    title: str
    #: The independent reference, cited.
    reference: str
    #: How the expected values follow, in the case's own words (the docs show it).
    derivation: str
    #: Why the band is as wide as it is.
    band_reason: str
    run: Callable[[bool], list[Check]] = field(repr=False)
    figure: Figure | None = None


def _run(sc: dict[str, Any], seed: int = 1) -> Any:
    from superpacket import api

    return api.run(sc, seed=seed, progress=False)


def _path(rate: str, delay: str, first: tuple[str, str], limit: int, loss: float = 0.0) -> dict[str, Any]:
    """The topology A -(first: rate, delay)-> R -(rate, delay, loss)-> B, DropTail of `limit`
    packets everywhere."""
    second: dict[str, Any] = {"a": "R", "b": "B", "rate": rate, "delay": delay}
    if loss:
        second["loss"] = loss
    queue = {"kind": "droptail", "limit": limit}
    return {"kind": "graph", "nodes": ["A", "R", "B"], "links": [
        {"a": "A", "b": "R", "rate": first[0], "delay": first[1], "queue": queue}, {**second, "queue": queue}]}


def _link(r: Any, name: str) -> dict[str, Any]:
    (row,) = [x for x in r.links.to_dicts() if x["name"] == name]
    return row


# ---- serialisation and propagation -------------------------------------------------------

FCT_EXACT_NS = 1_369_040


def _fct_exact(quick: bool) -> list[Check]:
    sc = {"name": "fct-exact", "duration": "1s",
          "topology": {"kind": "star", "senders": 1, "sender_link": {"rate": "1Gbps", "delay": "25us"},
                       "receiver_link": {"rate": "100Mbps", "delay": "25us",
                                         "queue": {"kind": "droptail", "limit": 50}}},
          "tcp": {"host": "ns2", "init_cwnd": 10},
          "traffic": [{"kind": "flow", "from": "s0", "to": "d", "size_bytes": 10 * MSS}]}
    f = _run(sc).flows.to_dicts()[0]
    return [Check("FCT of a 10-segment flow", "ns", round(f["fct_s"] * 1e9), FCT_EXACT_NS, 0.0)]


FCT_EXACT = Case(
    "fct-exact", "Serialisation and propagation: one flow on an idle path",
    "arithmetic: store and forward, B x 8 / R per link, plus the propagation delays",
    "One sender -> R (1 Gb/s, 25 us) -> d (100 Mb/s, 25 us), a 10-segment flow (14,600 B), initial "
    "window 10. Serialisation of 40 B: 320 ns at 1 Gb/s, 3,200 ns at 100 Mb/s; of 1500 B: 12,000 and "
    "120,000 ns. Handshake one way: 320 + 25,000 + 3,200 + 25,000 = 53,520 ns; SYN and SYN-ACK: H = "
    "107,040 ns. Data leaves at H; packet 0 reaches R at H + 12,000 + 25,000 = H + 37,000; the 100 Mb/s "
    "link is ten times slower, so it sends the ten packets back to back from then: the last finishes at H "
    "+ 37,000 + 10 x 120,000 and reaches d 25,000 later, at H + 1,262,000. FCT (from the SYN to the last "
    "byte at the receiver) = 107,040 + 1,262,000 = 1,369,040 ns.",
    "0: integer nanoseconds and no randomness on an idle path; any difference is a defect.",
    _fct_exact)


# ---- M/D/1 ----------------------------------------------------------------------------------

MD1_RATE_BPS = 10e6
MD1_LOADS = (0.5, 0.8)


def md1_lq(rho: float) -> float:
    """Pollaczek-Khinchine: mean number waiting in M/D/1, rho^2 / (2 (1 - rho))."""
    return rho * rho / (2.0 * (1.0 - rho))


def md1_band(rho: float, mu: float, t_s: float) -> float:
    """Three standard deviations of a time-average queue over t_s seconds, from the M/M/1
    asymptotic variance 2 rho (1 + rho) / ((1 - rho)^4 mu T) (an upper bound for
    deterministic service)."""
    return 3.0 * math.sqrt(2.0 * rho * (1.0 + rho) / ((1.0 - rho) ** 4 * mu * t_s))


def _md1(quick: bool) -> list[Check]:
    t_s = 600.0 if quick else 3600.0
    s = PKT_BYTES * 8 / MD1_RATE_BPS
    checks = []
    for rho in MD1_LOADS:
        m_on = 1e-7  # one packet per on period (the next would be 12 ms later at 1 Mb/s)
        m_off = s / rho - m_on
        sc = {"name": f"md1-{rho}", "duration": f"{t_s:g}s",
              "topology": _path(f"{int(MD1_RATE_BPS)}bps", "1us", ("10Gbps", "1us"), 100000),
              "traffic": [{"kind": "onoff", "from": "A", "to": "B", "rate": "1Mbps", "packet_bytes": PKT_BYTES,
                           "on_time": f"{m_on * 1e9:.0f}ns", "off_time": f"{m_off * 1e9:.0f}ns"}]}
        r = _run(sc)
        sent = r.sources.to_dicts()[0]["pkts_sent"]
        rho_m = sent / t_s * s  # the load as offered
        lq = md1_lq(rho_m)
        checks.append(Check(f"mean packets waiting at load {rho_m:.3f}", "packets", _link(r, "R->B")["mean_pkts"], lq,
                            md1_band(rho_m, 1.0 / s, t_s), x=rho_m))
    return checks


MD1 = Case(
    "md1-queue", "M/D/1: Poisson packets of one size into one link",
    "queueing theory: the Pollaczek-Khinchine mean queue of M/D/1",
    "Packets of 1500 B arrive at R as a Poisson process (an on-off source whose every on period, of "
    "mean 0.1 us, holds exactly one packet, and whose off periods are exponential; an empty on period "
    "only merges two off periods, and a geometric sum of exponential gaps is exponential) and leave on "
    "a 10 Mb/s link: service time S = 1500 x 8 / 10^7 = 1.2 ms, deterministic. The load rho is the "
    "arrival rate the source achieved (packets sent / T) times S. The mean number waiting (not in "
    "service; the links table's `mean_pkts`) is rho^2 / (2 (1 - rho)): 0.25 at rho = 0.5, 1.6 at "
    "rho = 0.8. The access link is 10 Gb/s (1.2 us per packet), so arrivals reach R as sent.",
    "Three standard deviations of a T-second time average, sqrt(2 rho (1 + rho) / ((1 - rho)^4 mu T)) "
    "with mu = 1 / S (Whitt 1989's M/M/1 variance, larger than M/D/1's): at T = 3600 s 3.4 % of the "
    "mean at rho = 0.5 and 4.6 % at 0.8 (--quick, T = 600 s: 8.3 % and 11.2 %).",
    _md1,
    Figure("load rho", "mean packets waiting", md1_lq, (0.05, 0.92)))


# ---- the Mathis response function -----------------------------------------------------------

MATHIS_LOSS = (0.01, 0.001)
MATHIS_RTT_S = 0.1


def mathis_bps(p: float, rtt: float = MATHIS_RTT_S) -> float:
    """MSS / (RTT sqrt(2 p / 3)), bytes per second."""
    return MSS / (rtt * math.sqrt(2.0 * p / 3.0))


def _mathis(quick: bool) -> list[Check]:
    t_s = 900
    checks = []
    for p in MATHIS_LOSS:
        sc = {"name": f"mathis-{p}", "duration": f"{t_s}s",
              "topology": _path("1Gbps", "49ms", ("1Gbps", "1ms"), 10000, loss=p),
              "tcp": {"host": "ns2"},
              "traffic": [{"kind": "bulk", "from": "A", "to": "B"}],
              "output": {"sample_flows": "10s"}}
        r = _run(sc)
        fs = r.flow_series.filter(r.flow_series["t_s"] >= 20.0)
        b, t = fs["bytes_received"].to_list(), fs["t_s"].to_list()
        bw = (b[-1] - b[0]) / (t[-1] - t[0])
        ref = mathis_bps(p)
        checks.append(Check(f"NewReno goodput at loss rate {p:g}", "B/s", bw, ref, 0.25 * ref, x=p))
    return checks


MATHIS = Case(
    "mathis-newreno", "NewReno under random loss: the square-root law",
    "Mathis, Semke, Mahdavi and Ott (ACM CCR 1997): BW = MSS / (RTT sqrt(2p/3))",
    "One NewReno flow (ns-2's agent, no delayed ACK) A -(1 Gb/s, 1 ms)-> R -(1 Gb/s, 49 ms, loss p both "
    "ways)-> B with 10,000-packet buffers: its windows (tens of packets) stay far below the 8,300-packet "
    "path, so nothing queues and RTT = 2 x 50 ms = 0.1 s. MSS = 1460 B. p = 0.01: sqrt(2p/3) = 0.08165, "
    "BW = 1460 / 0.008165 = 178,813 B/s; p = 0.001: BW = 1460 / 0.002582 = 565,456 B/s. Goodput over "
    "[20 s, 900 s].",
    "25 %: the law is a mean-value model of congestion avoidance with periodic loss; with independent "
    "losses its constant differs (Mathis et al. give sqrt(3/2) for periodic loss and other constants "
    "for random loss), and at p = 0.01 timeouts (not in the law) take a share of the time.",
    _mathis,
    Figure("loss rate p", "goodput (B/s)", mathis_bps, (5e-4, 2e-2), log_x=True, log_y=True))


# ---- FAST's equilibrium ---------------------------------------------------------------------

FAST_ALPHA = 200
FAST_RATE_PPS = 100e6 / (PKT_BYTES * 8)  # 8333.3 packets/s
FAST_BASE_RTT_S = 0.10012  # 2 x 50 ms of propagation + a packet's 0.12 ms at 100 Mb/s


def fast_window(flows: int) -> float:
    """w* = x* baseRTT + alpha, x* = C / N."""
    return FAST_RATE_PPS / flows * FAST_BASE_RTT_S + FAST_ALPHA


def _fast(quick: bool) -> list[Check]:
    t_s = 60
    checks = []
    for flows in (1, 2):
        sc = {"name": f"fast-{flows}", "duration": f"{t_s}s",
              "topology": {"kind": "dumbbell", "pairs": flows, "access": {"rate": "10Gbps", "delay": "1us"},
                           "bottleneck": {"rate": "100Mbps", "delay": "49998us",
                                          "queue": {"kind": "droptail", "limit": 2000}}},
              "tcp": {"host": "ns2", "cc": {"kind": "fast", "alpha": FAST_ALPHA}, "recovery": "sack"},
              "traffic": [{"kind": "bulk", "from": "s{i}", "to": "d{i}", "count": flows, "start_jitter": "100ms"}],
              "output": {"sample_queues": ["R1->R2"], "sample_interval": "10ms"}}
        r = _run(sc)
        q = r.queue_series.filter(r.queue_series["t_s"] >= 40.0)["pkts"].mean()
        queued = FAST_ALPHA * flows
        checks.append(Check(f"{flows} flow(s): mean bottleneck queue", "packets", float(q), queued, 0.02 * queued,
                            x=flows))
        for i, w in enumerate(r.flows["cwnd_pkts"].to_list()):
            ref = fast_window(flows)
            checks.append(Check(f"{flows} flow(s): window of flow {i}", "packets", w, ref, 0.02 * ref))
    return checks


FAST = Case(
    "fast-equilibrium", "FAST TCP's equilibrium",
    "Jin, Wei and Low (IEEE INFOCOM 2004): each flow keeps alpha packets queued; w* = x* baseRTT + alpha",
    "N FAST flows (alpha = 200 packets) through a 100 Mb/s bottleneck of 2000 packets, one-way delay 50 ms "
    "(49.998 ms plus two 1 us access links): C = 10^8 / 12,000 = 8,333.3 packets/s, baseRTT = 0.1 s plus a "
    "packet's 0.12 ms at the bottleneck = 0.10012 s. At equilibrium the bottleneck holds N alpha packets "
    "(200 for one flow, 400 for two) and each window is w* = (C / N) baseRTT + alpha: 1,034.3 packets "
    "for one flow, 617.2 for each of two. The queue is the mean of 10 ms samples over [40 s, 60 s]; the "
    "windows are at 60 s.",
    "2 %: the equilibrium is a fixed point FAST's update reaches (no loss: the buffer holds 2000 > N "
    "alpha); what remains is the integer window and a queue sampled every 10 ms around it (a window of "
    "1034 packets moves the queue by under 0.1 % per packet).",
    _fast)


# ---- DCTCP's steady state ----------------------------------------------------------------------

DCTCP_K = 40
DCTCP_FLOWS = (2, 10, 40)
DCTCP_C_RTT = 10e9 * 100e-6 / (PKT_BYTES * 8)  # 83.3 packets in flight at 10 Gb/s x 100 us


def dctcp_qmax(flows: float) -> float:
    """The queue's peak, K + N (Alizadeh et al. 2010, section 3.3)."""
    return float(DCTCP_K + flows)


def _dctcp(quick: bool) -> list[Check]:
    t_s = 0.5 if quick else 2.0
    checks = []
    for n in DCTCP_FLOWS:
        sc = {"name": f"dctcp-{n}", "duration": f"{t_s:g}s",
              "topology": {"kind": "dumbbell", "pairs": n, "access": {"rate": "100Gbps", "delay": "12500ns"},
                           "bottleneck": {"rate": "10Gbps", "delay": "25us",
                                          "queue": {"kind": "droptail", "limit": 1000, "ecn_threshold": DCTCP_K}}},
              "tcp": {"host": "ns2", "cc": "dctcp", "init_cwnd": 10, "min_rto": "10ms"},
              "traffic": [{"kind": "bulk", "from": "s{i}", "to": "d{i}", "count": n, "start_jitter": "1ms"}],
              "output": {"sample_queues": ["R1->R2"], "sample_interval": "5us"}}
        r = _run(sc)
        q = r.queue_series.filter(r.queue_series["t_s"] >= t_s / 2)
        checks.append(Check(f"{n} flows: peak queue", "packets", float(q["pkts"].max()), dctcp_qmax(n), 2.0, x=n))
        if n <= 10:  # the analysis' trough K + N - A stays above 0: the link never idles
            b, t = q["bytes_delivered"].to_list(), q["t_s"].to_list()
            util = (b[-1] - b[0]) * 8 / (10e9 * (t[-1] - t[0]))
            checks.append(Check(f"{n} flows: bottleneck utilisation", "", util, 1.0, 0.005))
    return checks


DCTCP = Case(
    "dctcp-steady-state", "DCTCP's steady state on one switch port",
    "Alizadeh et al., \"Data Center TCP (DCTCP)\", ACM SIGCOMM 2010, section 3.3: the queue peaks at K + N",
    "N long DCTCP flows (g = 1/16) through a 10 Gb/s port that marks a packet arriving to more than K = "
    "40 waiting (1000-packet buffer), RTT 100 us (2 x (12.5 + 25 + 12.5) us), so C x RTT = 10^10 x 10^-4 / "
    "12,000 = 83.3 packets. When the queue crosses K every flow gets its first mark within an RTT, during "
    "which each sends one packet more than before: the queue peaks at K + N (42, 50 and 80 packets for N "
    "= 2, 10 and 40). The sawtooth's amplitude is A = (1/2) sqrt(2 N (C x RTT + K)) (11.1 packets for N = "
    "2, 24.8 for N = 10), so the trough K + N - A (30.9, 25.2) stays above 0: the link never idles, "
    "utilisation 1. Peak: the largest 5 us sample over the second half of the run; utilisation: the "
    "port's delivered bytes over the same half.",
    "Peak: 2 packets, for the whole packets the fluid analysis rounds away (a flow's extra packet per RTT "
    "and the first mark arrive as packets; the rule marks an arrival that finds more than K waiting). "
    "Utilisation: 0.5 %, a packet or two in flight at the window's edges of a 0.25 s or 1 s window.",
    _dctcp,
    Figure("flows N", "peak queue (packets)", dctcp_qmax, (1, 45)))


# ---- high-speed response functions under random loss ------------------------------------------

RESPONSE_RTT_S = 0.1


def cubic_window(p: float, c: float = 0.4, beta: float = 0.7, rtt: float = RESPONSE_RTT_S) -> float:
    """CUBIC's average window under periodic loss p (RFC 9438 section 5.1):
    (C (3 + beta) / (4 (1 - beta)))^(1/4) RTT^(3/4) / p^(3/4), packets (RTT in seconds)."""
    return (c * (3 + beta) / (4 * (1 - beta))) ** 0.25 * rtt**0.75 / p**0.75


def highspeed_window(p: float) -> float:
    """HighSpeed TCP's response function (RFC 3649 section 5): w = 0.12 / p^0.835 packets."""
    return 0.12 / p**0.835


def _response(cc: str, ref: Callable[[float], float]) -> Callable[[bool], list[Check]]:
    def run(quick: bool) -> list[Check]:
        checks = []
        for p in (1e-4,) if quick else (1e-4, 1e-5):
            t_s = 1000
            sc = {"name": f"{cc}-{p}", "duration": f"{t_s}s",
                  "topology": _path("10Gbps", "49ms", ("10Gbps", "1ms"), 100000, loss=p),
                  "tcp": {"host": "ns2", "cc": cc, "recovery": "sack"},
                  "traffic": [{"kind": "bulk", "from": "A", "to": "B"}],
                  "output": {"sample_flows": "10s"}}
            r = _run(sc)
            fs = r.flow_series.filter(r.flow_series["t_s"] >= 100.0)
            b, t = fs["bytes_received"].to_list(), fs["t_s"].to_list()
            w = (b[-1] - b[0]) / (t[-1] - t[0]) / MSS * RESPONSE_RTT_S
            checks.append(Check(f"average window at loss rate {p:g}", "packets", w, ref(p), 0.25 * ref(p), x=p))
        return checks
    return run


_RESPONSE_SETUP = (
    "One flow (ns-2's host, SACK recovery) A -(10 Gb/s, 1 ms)-> R -(10 Gb/s, 49 ms, loss p both ways)-> B "
    "with 100,000-packet buffers: nothing queues, RTT = 0.1 s. The average window is the goodput over "
    "[100 s, 1000 s] in segments of 1460 B times the RTT. ")
_RESPONSE_BAND = (
    "25 %, as for the square-root law: the response function is derived for periodic loss (each loss at "
    "the same window), and independent losses spread the loss points; at p = 1e-5 a 1000 s run holds "
    "about 100 loss events.")

CUBIC = Case(
    "cubic-response", "CUBIC's response function",
    "RFC 9438 section 5.1 (Xu, Ha, Rhee et al.): the average window under periodic loss",
    _RESPONSE_SETUP + "CUBIC with C = 0.4 and beta = 0.7: between losses W(t) = C (t - K)^3 + W_max with K = "
    "(W_max (1 - beta) / C)^(1/3); a loss every 1/p packets at W = W_max sends (K W_max / RTT)(3 + beta) / 4 "
    "packets per cycle at an average window (3 + beta) W_max / 4, which gives (C (3 + beta) / (4 (1 - "
    "beta)))^(1/4) RTT^(3/4) / p^(3/4) = 1.0538 x 0.1778 / p^(3/4): 187.4 packets at p = 1e-4 and 1,053.8 "
    "at 1e-5, both above the Reno-friendly window sqrt(3 / (2p)) (122.5 and 387.3), so CUBIC's own "
    "function applies.",
    _RESPONSE_BAND,
    _response("cubic", cubic_window),
    Figure("loss rate p", "average window (packets)", cubic_window, (5e-6, 2e-4), log_x=True, log_y=True))

HIGHSPEED = Case(
    "highspeed-response", "HighSpeed TCP's response function",
    "RFC 3649 section 5 (Floyd): w = 0.12 / p^0.835 above Low_Window = 38",
    _RESPONSE_SETUP + "HighSpeed TCP's response function: w = 0.12 / p^0.835 = 262.5 packets at p = 1e-4 and "
    "1,795.5 at 1e-5 (both above Low_Window, 38 packets, where it departs from Reno's).",
    _RESPONSE_BAND,
    _response("highspeed", highspeed_window),
    Figure("loss rate p", "average window (packets)", highspeed_window, (5e-6, 2e-4), log_x=True, log_y=True))


# ---- RED's drop law ----------------------------------------------------------------------------

RED_RATE_BPS = 10e6
RED_MIN_TH, RED_MAX_TH, RED_P_MAX, RED_W_Q = 100.0, 1100.0, 0.1, 0.002
RED_LOADS = (1.05, 1.10, 1.15)
RED_WARMUP_S = 60.0


def red_drop_fraction(p_b: float) -> float:
    """The drop fraction of Floyd and Jacobson's Fig. 2 at a constant p_b, 1 / E[gap]:
    the gap is uniform on 1 .. ceil(1/p_b) - 1, E = (1 + theta (1 - theta) p_b^2 / (1 - p_b))
    / (2 p_b) with theta the fractional part of 1/p_b, averaged over theta (1/6)."""
    return 2.0 * p_b / (1.0 + p_b * p_b / (6.0 * (1.0 - p_b)))


def red_queue(f: float) -> float:
    """RED's operating point: the average queue at which the drop fraction is f,
    min_th + (max_th - min_th) p_b / max_p with red_drop_fraction(p_b) = f."""
    lo, hi = 0.0, 0.5
    for _ in range(100):  # red_drop_fraction increases on [0, 0.5]
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if red_drop_fraction(mid) < f else (lo, mid)
    return RED_MIN_TH + (RED_MAX_TH - RED_MIN_TH) * (lo + hi) / 2 / RED_P_MAX


#: The queue's spread around the operating point (the linearised loop of the case's text):
#: the variance of the packets waiting, 1 / (2 f') + 1 / (2 w_q), f' = 2 max_p / (max_th - min_th).
RED_Q_VAR = (RED_MAX_TH - RED_MIN_TH) / (4 * RED_P_MAX) + 1 / (2 * RED_W_Q)


def red_bands(f: float, arrivals: float, q_mean: float) -> tuple[float, float]:
    """Three standard deviations of the drop fraction (the queue's change over the window,
    sd sqrt(2 RED_Q_VAR), against the arrivals) and of the mean queue (the renewal noise of
    the drop count, variance arrivals f / 3, through the law's slope, and the arrivals'
    sample of the queue against its time average, variance E[q^2] / arrivals)."""
    drop = 3.0 * math.sqrt(2.0 * RED_Q_VAR) / arrivals
    renewal = (RED_MAX_TH - RED_MIN_TH) / (2 * RED_P_MAX) * math.sqrt(f / (3.0 * arrivals))
    pasta = math.sqrt((q_mean**2 + RED_Q_VAR) / arrivals)
    return drop, 3.0 * math.hypot(renewal, pasta)


def _red(quick: bool) -> list[Check]:
    t_s = 600.0 if quick else 3600.0
    s = PKT_BYTES * 8 / RED_RATE_BPS
    red = {"kind": "red", "min_th": RED_MIN_TH, "max_th": RED_MAX_TH, "p_max": RED_P_MAX, "w_q": RED_W_Q,
           "gentle": False, "wait": False, "limit": 10000}
    checks, others = [], 0
    for load in RED_LOADS:
        m_on = 1e-7  # one packet per on period, as in the M/D/1 case
        m_off = s / load - m_on
        sc = {"name": f"red-{load}", "duration": f"{t_s:g}s",
              "topology": {"kind": "graph", "nodes": ["A", "R", "B"], "links": [
                  {"a": "A", "b": "R", "rate": "10Gbps", "delay": "1us", "queue": {"kind": "droptail", "limit": 10000}},
                  {"a": "R", "b": "B", "rate": f"{int(RED_RATE_BPS)}bps", "delay": "1us", "queue": red}]},
              "traffic": [{"kind": "onoff", "from": "A", "to": "B", "rate": "1Mbps", "packet_bytes": PKT_BYTES,
                           "on_time": f"{m_on * 1e9:.0f}ns", "off_time": f"{m_off * 1e9:.0f}ns"}],
              "output": {"sample_queues": ["R->B"], "sample_interval": "10ms"}}
        r = _run(sc)
        q = r.queue_series.filter(r.queue_series["t_s"] >= RED_WARMUP_S)
        t, a, d = q["t_s"].to_list(), q["arrivals"].to_list(), q["drops"].to_list()
        arrivals, drops = a[-1] - a[0], d[-1] - d[0]
        rho = arrivals / (t[-1] - t[0]) * s  # the load as offered
        f = drops / arrivals
        q_mean = float(q["pkts"].mean())
        band_f, band_q = red_bands(f, arrivals, q_mean)
        checks.append(Check(f"load {rho:.3f}: fraction dropped", "", f, 1.0 - 1.0 / rho, band_f))
        checks.append(Check(f"load {rho:.3f}: mean packets waiting at drop fraction {f:.4f}", "packets", q_mean,
                            red_queue(f), band_q, x=f))
        row = _link(r, "R->B")
        others += row["drops"] - row["drops_red_early"]
    checks.append(Check("drops other than RED's early drops (forced, overflow), all loads", "packets", others, 0, 0.0))
    return checks


RED = Case(
    "red-drop-law", "RED's drop law from its counters and its operating point",
    "Floyd and Jacobson, \"Random Early Detection Gateways for Congestion Avoidance\", IEEE/ACM Transactions on "
    "Networking 1(4), 1993: the algorithm of Fig. 2 and the gap between marks of section 7",
    "Packets of 1500 B arrive at R as a Poisson process (the on-off source of the M/D/1 case) at a rate lambda "
    "above the 10 Mb/s link's mu = 833.3 packets/s (loads lambda / mu of 1.05, 1.1 and 1.15 asked for; the "
    "load is the arrivals counted: 1.044, 1.093 and 1.143, as an on period that rounds to 0 ns, about 0.5 % of "
    "them, holds no packet), through RED as Fig. 2 gives it: min_th = 100, max_th = 1100 packets, "
    "max_p = 0.1, w_q = 0.002, counted in packets, gentle off, no `wait` (ns-2's option, on by default here, "
    "holds every drop until count p_b >= 1, which is not the paper's rule), 10,000 packets of buffer. Each "
    "arrival sets avg <- (1 - w_q) avg + w_q q, q the packets waiting it finds, and with min_th <= avg < max_th "
    "increments count and is dropped with probability p_a = p_b / (1 - count p_b), p_b = max_p (avg - min_th) "
    "/ (max_th - min_th); a drop sets count to 0. (1) Conservation: the queue never empties, so the link sends "
    "mu packets a second and the fraction dropped is 1 - mu / lambda. (2) The law: at a constant p_b the k-th "
    "arrival after a drop has count = k, so the gap G (arrivals from one drop to the next) has P(G > n) = "
    "prod_{k=1..n} (1 - p_b / (1 - k p_b)) = (1 - (n + 1) p_b) / (1 - p_b) while positive: G is uniform on "
    "1 .. ceil(1/p_b) - 1 and E[G] = (1 + theta (1 - theta) p_b^2 / (1 - p_b)) / (2 p_b), theta the fractional "
    "part of 1/p_b, so the fraction dropped is 2 p_b when 1/p_b is an integer. (Section 7 counts the packets "
    "since the last mark before this one, one fewer, and finds G uniform on 1 .. 1/p_b and 2 p_b / (1 + p_b); "
    "Fig. 2, ns-2 and ours increment count first; the two differ by 6 to 45 packets of queue here, which the "
    "checks tell apart.) Linearised, with f' = 2 max_p / (max_th - min_th) the law's slope per packet, q and "
    "avg follow dq = -f' (avg - avg*) dn + one Poisson arrival's noise per arrival and d avg = w_q (q - avg) "
    "dn: avg's variance is 1 / (2 f') = 2,500 (sd 50 packets) and q's 1 / (2 f') + 1 / (2 w_q) = 2,750, so "
    "1/p_b spans several integers, theta (1 - theta) averages 1/6, the fraction dropped is 2 p_b / (1 + p_b^2 "
    "/ (6 (1 - p_b))), avg stays over 4 sd inside [min_th, max_th), where the law holds, and q over 5 sd "
    "above 0 (RED's idle decay never acts). The mean of "
    "avg over the arrivals is the mean queue they find (an EWMA's mean is its input's), which for Poisson "
    "arrivals is the time-average queue. So the fraction dropped f gives the mean queue min_th + (max_th - "
    "min_th) p_b / max_p: at loads 1.05, 1.1 and 1.15, f = 0.0476, 0.0909 and 0.1304 and the mean queue 338.1, "
    "554.7 and 752.7 packets (with 2 p_b alone 0.02, 0.16 and 0.50 packets less). Counted over [60 s, T], T "
    "= 3600 s (--quick: 600 s); the queue is the mean of 10 ms samples; every drop is an early drop.",
    "Three standard deviations. Fraction dropped: drops = arrivals - mu T' - (q_end - q_start) over the "
    "window T' when the link never idles, and the queue's change has sd sqrt(2 x 2,750) = 74 packets: 3 x "
    "74 / arrivals (7e-5 at 3.1 million arrivals). Mean queue: the drops counted stray from the law's "
    "expectation as a renewal count with uniform gaps (variance arrivals x f / 3), which moves the inferred "
    "p_b by sqrt(f / (3 arrivals)) / 2 and the queue by (max_th - min_th) / (2 max_p) times that; and the "
    "queue the arrivals find differs from its time average by sqrt(E[q^2] / arrivals) (Poisson arrivals: a "
    "martingale): 1.1 to 2.1 packets at T = 3600 s (2.9 to 5.3 at 600 s). avg's values at the "
    "window's ends and the 10 ms sampling add under 0.01 packets.",
    _red,
    Figure("fraction dropped f", "mean packets waiting", red_queue, (0.03, 0.15)))


# ---- TCP-DCR's delayed fast retransmit -----------------------------------------------------------

DCR_RATE_BPS = 100e6
DCR_DELAYS_MS = (4, 9, 24)  # R -> B; A -> R is 1 ms
DCR_LOSS = 0.005
DCR_WINDOW = 20
DCR_PKT_NS = PKT_BYTES * 8 * 10**9 // int(DCR_RATE_BPS)  # 120,000 ns: a segment at 100 Mb/s
DCR_ACK_NS = 40 * 8 * 10**9 // int(DCR_RATE_BPS)  # 3,200 ns: a 40 B ACK
DCR_MIN_RTO_NS = 200_000_000  # ns-2's agent: RFC 6298's RTO, at least 200 ms


def dcr_rtt_ns(delay_ms: float) -> int:
    """RTT0 of A -(1 ms)-> R -(delay_ms)-> B at 100 Mb/s: the propagation both ways, a segment
    and an ACK serialised at each hop."""
    return 2 * (1_000_000 + round(delay_ms * 1e6)) + 2 * DCR_PKT_NS + 2 * DCR_ACK_NS


def _tcp_trace(path: Any) -> list[tuple[int, int, int, int]]:
    """(time ns, seq, ack, payload bytes) of every frame of one of our pcap files
    (nanosecond pcap, Ethernet, IPv4, TCP; sequence numbers from 0, no wrap in these runs)."""
    import struct

    b = path.read_bytes()
    if struct.unpack_from("<I", b, 0)[0] != 0xA1B23C4D:
        raise ValueError(f"{path}: not a nanosecond pcap")
    out, off = [], 24
    while off < len(b):
        sec, ns, incl, _ = struct.unpack_from("<IIII", b, off)
        ip = off + 16 + 14
        ihl = (b[ip] & 15) * 4
        length = struct.unpack_from(">H", b, ip + 2)[0]
        seq, ack = struct.unpack_from(">II", b, ip + ihl + 4)
        out.append((sec * 10**9 + ns, seq, ack, length - ihl - (b[ip + ihl + 12] >> 4) * 4))
        off += 16 + incl
    return out


def dcr_fast_retransmits(data: list[tuple[int, int, int, int]], acks: list[tuple[int, int, int, int]],
                         ack_delay_ns: int) -> list[tuple[int, int, int]]:
    """The fast retransmissions of one flow from the traces of its sender's link (data, each
    segment's transmission start) and of the link back to it (ACKs, arriving ack_delay_ns
    after they leave): (time, time of the first duplicate ACK, duplicate ACKs by then), one
    per recovery episode that a timeout did not start."""
    events = sorted([(t, 1, seq, n) for t, seq, _, n in data if n > 0] +
                    [(t + ack_delay_ns, 0, ack, 0) for t, _, ack, _ in acks])  # an ACK before what it releases
    una = snd_max = last_new = 0
    recover = -1
    dups: list[int] = []
    out = []
    for t, is_data, x, n in events:
        if not is_data:
            if x > una:
                una, last_new, dups = x, t, []
            elif snd_max > una:
                dups.append(t)
            continue
        if x < snd_max and una >= recover:  # a retransmission that starts an episode
            recover = snd_max
            if dups and t - last_new < DCR_MIN_RTO_NS:
                out.append((t, dups[0], len(dups)))
        snd_max = max(snd_max, x + n)
    return out


def _dcr(quick: bool) -> list[Check]:
    import statistics
    import tempfile
    from pathlib import Path

    t_s = 20 if quick else 120
    checks, controls = [], []
    found = counted = on_third = n_control = 0
    for delay in DCR_DELAYS_MS:
        rtt = dcr_rtt_ns(delay)
        for dcr in (True, False):
            tcp: dict[str, Any] = {"host": "ns2", "max_cwnd": DCR_WINDOW}
            if dcr:
                tcp["reordering"] = "dcr"
            sc = {"name": f"dcr-{delay}", "duration": f"{t_s}s",
                  "topology": {"kind": "graph", "nodes": ["A", "R", "B"], "links": [
                      {"a": "A", "b": "R", "rate": "100Mbps", "delay": "1ms"},
                      {"a": "R", "b": "B", "rate": "100Mbps", "delay": f"{delay}ms", "loss": DCR_LOSS}]},
                  "tcp": tcp, "traffic": [{"kind": "bulk", "from": "A", "to": "B"}],
                  "output": {"pcap": ["A->R", "R->A"], "pcap_snaplen": 54}}
            r = _run(sc)
            with tempfile.TemporaryDirectory() as d:
                r.write_pcaps(d)
                data, acks = _tcp_trace(Path(d, "A-to-R.pcap")), _tcp_trace(Path(d, "R-to-A.pcap"))
            frs = dcr_fast_retransmits(data, acks, 1_000_000 + DCR_ACK_NS)
            found += len(frs)
            counted += r.flows["fast_retransmits"].sum()
            delays = [t - first for t, first, _ in frs]  # integer ns
            if dcr:
                what = f"RTT0 {rtt / 1e6:g} ms, DCR"
                checks += [Check(f"{what}: mean delay from the first duplicate ACK ({len(frs)} fast retransmits)", "ms",
                                 statistics.mean(delays) / 1e6, rtt / 1e6, 2 * DCR_PKT_NS / 1e6, x=rtt / 1e6),
                           Check(f"{what}: shortest delay", "ns", min(delays), rtt, 2 * DCR_PKT_NS),
                           Check(f"{what}: longest delay", "ns", max(delays), rtt, 2 * DCR_PKT_NS)]
            else:
                controls.append(Check(f"RTT0 {rtt / 1e6:g} ms, without DCR: median delay from the first duplicate ACK",
                                      "ns", statistics.median(delays), 2 * DCR_PKT_NS, 0.0))
                on_third += sum(1 for _, _, n in frs if n == 3)
                n_control += len(frs)
    checks += controls
    checks.append(Check(f"without DCR: share of the {n_control} fast retransmits sent on the third duplicate ACK", "",
                        on_third / n_control, 1.0, 0.0))
    checks.append(Check("fast retransmits found in the traces, all runs, against the senders' own count", "",
                        found, counted, 0.0))
    return checks


DCR = Case(
    "dcr-delay", "TCP-DCR delaying a fast retransmit by one RTT",
    "Bhandarkar and Reddy, \"TCP-DCR: Making TCP Robust to Non-Congestion Events\", Networking 2004: the "
    "congestion response waits tau, about one RTT, after the first duplicate ACK",
    "One NewReno flow (ns-2's agent, no limited transmit, no delayed ACK) A -(100 Mb/s, 1 ms)-> R -(100 Mb/s, "
    "d, 0.5 % random loss each way)-> B, its window capped at 20 segments, below the path's bandwidth-delay "
    "product (85 packets or more), so nothing queues past the sender's NIC: RTT0 = 2 (1 ms + d) + 2 x 120 us "
    "(a 1500 B segment at each hop) + 2 x 3.2 us (a 40 B ACK) = 10.2464, 20.2464 and 50.2464 ms for d = 4, 9 "
    "and 24 ms. With TCP-DCR (`reordering = \"dcr\"`) the first duplicate ACK starts a timer of tau = one RTT, "
    "here the sender's SRTT at that moment (the simulator's timers are exact to the nanosecond); during tau "
    "each duplicate ACK lets one new segment out; if the hole is still open when tau ends, the sender "
    "retransmits it and enters recovery. SRTT averages RTT samples that are RTT0, or RTT0 + 120 us for a "
    "segment that waited behind another in the sender's NIC (a window growing by one sends two at once; the "
    "slow start after a timeout queues a few more for a few round trips, which SRTT's gain of 1/8 per sample "
    "has mostly forgotten by the next loss), so tau is in [RTT0, RTT0 + 120 us]; and the segment the first duplicate ACK let out returns its own "
    "duplicate ACK RTT0 later, as tau ends, and the segment that one lets out may leave first: the "
    "retransmission leaves between RTT0 and RTT0 + 240 us after the first duplicate ACK. Without DCR (the "
    "control) the fast retransmit goes on the third duplicate ACK, and the duplicate ACKs of segments that "
    "left back to back arrive one packet time, 120 us, apart: 240 us after the first (more when the lost "
    "segment ends a run of back-to-back segments, the minority). Measured from pcap traces of A -> R (a "
    "segment's transmission start) and R -> A (an ACK reaches A 1 ms + 3.2 us after it leaves R): a recovery "
    "episode starts with a retransmission once all that was sent before the previous one is acknowledged; "
    "it is a fast retransmit if it leaves less than 200 ms, the least RTO, after the last ACK of new data "
    "(RFC 6298's timer restarts on such ACKs; with DCR the first duplicate ACK comes at most RTT0 after that "
    "ACK, which released the segment behind the hole, and tau adds RTT0: 101 ms at most), else the timer's; "
    "its delay is from the first duplicate ACK after that ACK of new data. The fast retransmits found so must "
    "be exactly those the sender counted (`fast_retransmits`). Runs of 120 s (--quick: 20 s).",
    "DCR: 2 packet times, 240 us, the reach of tau's spread and the NIC's wait above (2.3 to 0.5 % of RTT0). "
    "Without DCR: 0, integer nanoseconds: the median is a loss followed by two back-to-back segments, "
    "whose ACKs arrive exactly one packet time apart; the share on the third duplicate ACK and the count "
    "of fast retransmits are exact.",
    _dcr,
    Figure("RTT0 (ms)", "first duplicate ACK to fast retransmit (ms)", lambda x: x, (5.0, 55.0)))


# ---- against ns-3 -------------------------------------------------------------------------

_NS3_LABELS = {"utilization": ("bottleneck utilisation", ""), "mean_queue_pkts": ("mean packets waiting", "packets"),
               "drops": ("drops at the bottleneck", "packets"), "goodput_bps": ("goodput, flows summed", "bit/s"),
               "mean_fct_s": ("mean flow completion time", "s"),
               "flows_over_min_rto": ("flows slower than the 200 ms minimum RTO", "flows"),
               "peak_queue_pkts": ("peak queue", "packets")}


def _against_ns3(name: str, scenario: Callable[[dict[str, Any], int], dict[str, Any]],
                 metrics: Callable[[Any, dict[str, Any]], dict[str, float]], prefix: str = "",
                 defaults: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> list[Check]:
    """Ours over the case's seeds against ns-3's stored figures, means compared, 10 %;
    `defaults` makes the unjudged rows' scenario (default: the ns-2 agent's pin removed)."""
    from superpacket.validation import ns3

    case = ns3.stored()[name]
    a = case["args"]
    seeds = ns3.CASES[name]["seeds"]
    theirs = [case["seeds"][str(s)] for s in seeds]
    ours = [metrics(_run(scenario(a, s), seed=s), a) for s in seeds]
    checks = []
    for m in ns3.CASES[name]["metrics"]:
        ref = sum(t[m] for t in theirs) / len(theirs)
        mine = sum(o[m] for o in ours) / len(ours)
        label, unit = _NS3_LABELS[m]
        what = f"{label} (mean of {len(seeds)} seeds)" if len(seeds) > 1 else label
        checks.append(Check(prefix + what, unit, mine, ref, 0.10 * abs(ref)))
    # beside them, ours with our own defaults (Linux's host: SACK with PRR, limited
    # transmit, Linux's timer, ...), as a user who does not match ns-3 would run it
    linux = [metrics(_run((defaults or _linux_host)(scenario(a, s)), seed=s), a) for s in seeds]
    for m in ns3.CASES[name]["metrics"]:
        ref = sum(t[m] for t in theirs) / len(theirs)
        label, unit = _NS3_LABELS[m]
        checks.append(Check(f"{prefix}{label}: ours with our defaults (Linux's host)", unit,
                            sum(o[m] for o in linux) / len(linux), ref, 0.0, judged=False))
    return checks


def _linux_host(sc: dict[str, Any]) -> dict[str, Any]:
    """The same scenario with our default host (the ns-2 agent's pin removed)."""
    return {**sc, "tcp": {k: v for k, v in sc["tcp"].items() if k != "host"}}


def _ns3_dumbbell(quick: bool) -> list[Check]:
    from superpacket.validation import ns3

    return _against_ns3("ns3-dumbbell-newreno", ns3.dumbbell_scenario, ns3.dumbbell_metrics)


def _ns3_cubic_sack(quick: bool) -> list[Check]:
    from superpacket.validation import ns3

    # ours with our defaults: CUBIC as named, every other TCP field the Linux host's
    return _against_ns3("ns3-dumbbell-cubic-sack", ns3.dumbbell_scenario, ns3.dumbbell_metrics,
                        defaults=lambda sc: {**sc, "tcp": {"cc": "cubic", "init_cwnd": 10}})


def _ns3_incast(quick: bool) -> list[Check]:
    from superpacket.validation import ns3

    return _against_ns3("ns3-incast", ns3.incast_scenario, ns3.incast_metrics)


NS3_DUMBBELL = Case(
    "ns3-dumbbell-newreno", "A NewReno dumbbell against ns-3",
    "ns-3 3.44 (the PyPI wheel): the same network as a small ns-3 program, validation/ns3/dumbbell.cc in "
    "the repository; its figures stored with the package (`make validate-ns3` re-runs it)",
    "8 NewReno flows (starts uniform in [0, 1 s)), 100 Mb/s / 1 ms access links, a 10 Mb/s / 20 ms "
    "bottleneck with 40 packets of DropTail, 60 s, measured over [10 s, 60 s]; seeds 1-5 on each side, "
    "the means compared. ns-3 is set to match ours where the two differ by choice: no TCP timestamps (1500-"
    "byte packets carrying 1460 bytes), no delayed ACK, initial window 10, minimum RTO 200 ms, RFC 6582 "
    "recovery (ns-3's classic recovery; its default is PRR), neither SACK nor limited transmit (ns-3's "
    "defaults have both; ours runs ns-2's agent, `host = \"ns2\"`), and the queue counted as ours counts it "
    "(packets waiting: a FIFO queue disc of 39 in front of a device queue of 1). ns-3's frames carry a "
    "2-byte PPP header, so its link is busy 1502/1500 as long per packet; utilisation is the busy fraction "
    "in both.",
    "10 % of ns-3's mean, the agreement this project asks of aggregates between two packet-level models of "
    "the same network: they still differ in what neither fixes (ns-3 counts its window in bytes and "
    "truncates each increase; ours counts segments) and in how the flows' phases fall.",
    _ns3_dumbbell)


NS3_CUBIC_SACK = Case(
    "ns3-dumbbell-cubic-sack", "A CUBIC dumbbell with SACK against ns-3",
    "ns-3 3.44 (the PyPI wheel): validation/ns3/dumbbell.cc in the repository with ns-3's TcpCubic and SACK, "
    "its figures stored with the package",
    "The dumbbell of the NewReno case (8 flows, 10 Mb/s / 20 ms bottleneck, 40 packets of DropTail, 60 s "
    "measured over [10 s, 60 s], seeds 1-5, means compared) with CUBIC (beta 0.7, C 0.4, fast convergence "
    "and the Reno-friendly region on both sides) and SACK. ns-3 runs RFC 6675 recovery with its classic "
    "recovery (cwnd = ssthresh at once; its default is PRR), and ours is set to match its model: SACK "
    "recovery without PRR, limited transmit (with SACK ns-3 sends while pipe < cwnd whatever its "
    "LimitedTransmit attribute), the scoreboard kept across a timeout, a backed-off RTO ended by the next "
    "ACK of new data, ssthresh = beta x cwnd (ns-3's TcpCubic, as Linux; RFC 9438 uses FlightSize) and "
    "HyStart in the first slow start (ns-3's default; over before the measured span). TCP otherwise as in "
    "the NewReno case. The rows \"ours with our defaults\" run `cc = \"cubic\"` on our Linux host (PRR, "
    "Linux's RTO formula, ...).",
    "10 % of ns-3's mean, as for the NewReno case.",
    _ns3_cubic_sack)


NS3_INCAST = Case(
    "ns3-incast", "An incast against ns-3",
    "ns-3 3.44 (the PyPI wheel): validation/ns3/incast.cc in the repository, its figures stored with the "
    "package",
    "The incast of the super-packet paper's section 4 (the `incast` example): 10 senders, 1 Gb/s / 25 us "
    "each into R, one 100 Mb/s / 25 us link from R to d with 50 packets of DropTail, every sender starting "
    "one 14,600-byte flow (10 segments) at time 0; NewReno as ns-2's agent, ns-3 set to match it as in the "
    "dumbbell case. 100 segments meet a 50-packet buffer: both lose the tails of the windows and wait out "
    "the minimum RTO. Compared: the mean flow completion time (from the SYN until the receiver holds "
    "every byte) and how many flows took longer than the 200 ms minimum RTO. No randomness: one seed.",
    "10 % of ns-3's value, as for the dumbbell (for 10 flows, one flow).",
    _ns3_incast)


def _ns3_dctcp(quick: bool) -> list[Check]:
    from superpacket.validation import ns3

    return [c for n in ns3.DCTCP_FLOWS
            for c in _against_ns3(f"ns3-dctcp-{n}", ns3.dctcp_scenario, ns3.dctcp_metrics, prefix=f"{n} flows: ")]


NS3_DCTCP = Case(
    "ns3-dctcp", "DCTCP on one switch port against ns-3",
    "ns-3 3.44 (the PyPI wheel): validation/ns3/dctcp.cc in the repository (ns-3's TcpDctcp, its RED queue "
    "disc as DCTCP's step marking), its figures stored with the package",
    "The port of the theory case dctcp-steady-state: N = 2, 10 and 40 long DCTCP flows (g = 1/16), 10 Gb/s, "
    "RTT 100 us, an arrival that finds more than K = 40 packets waiting marked CE (ns-3: RED with the "
    "instantaneous queue, QW = 1, and MinTh = MaxTh = K), 1000 packets of buffer, minimum RTO 10 ms, 0.5 s "
    "measured over its second half: the largest 5 us sample of packets waiting and the port's utilisation. "
    "TCP otherwise as in the dumbbell case. No randomness beyond the start times: one seed.",
    "10 % of ns-3's value, as for the other ns-3 cases.",
    _ns3_dctcp)


#: Every case, in the order the suite runs and shows them.
CASES: tuple[Case, ...] = (FCT_EXACT, MD1, MATHIS, CUBIC, HIGHSPEED, FAST, DCTCP, RED, DCR, NS3_DUMBBELL, NS3_CUBIC_SACK,
                          NS3_INCAST, NS3_DCTCP)
